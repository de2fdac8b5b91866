//! A table's events in the event log: the stream a table writes to, how
//! each `TableEvent` is stored (its type name, schema version 1, MessagePack
//! with field names), and how a table's log is read back and cut into hands.
//! The table service stores through here, and `felt phh export` and the
//! audit read through here.

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

use felt_eventlog::{
    Appended, Decision, Envelope, EventLog, Expected, LogError, NewEvent, StreamId,
};
use felt_table::{Command, Rejection, TableEvent, TableState};

/// The table as a service runs it ([`felt_service::Handler`]).
#[derive(Debug)]
pub struct Table;

impl felt_service::Aggregate for Table {
    type State = TableState;
    type Command = Command;
    type Event = TableEvent;
    type Rejection = Rejection;
    const SCHEMA: u16 = SCHEMA;

    // A digital deal's seed is in its command (`StartHand`), drawn by the
    // service that asks for the hand.
    fn decide(
        state: &TableState,
        command: &Command,
        _: &felt_service::Seed,
    ) -> Result<Vec<TableEvent>, Rejection> {
        felt_table::decide(state, command)
    }

    fn apply(state: &mut TableState, event: &TableEvent) {
        state.apply(event);
    }

    fn event_type(event: &TableEvent) -> &'static str {
        event.name()
    }
}

/// The schema version table events are written with.
pub const SCHEMA: u16 = 1;

/// The stream of table `table` in `tournament`: `felt.<tournament>.table.<table>`.
pub fn stream(tournament: &str, table: felt_vocabulary::TableNo) -> Result<StreamId, LogError> {
    StreamId::new(tournament, "table", &table.to_string())
}

/// Encodes a table event for the log.
pub fn encode(event: &TableEvent) -> Result<NewEvent, LogError> {
    NewEvent::encode(event.name(), SCHEMA, event)
}

/// Decodes a table event from its envelope.
pub fn decode(envelope: &Envelope) -> Result<TableEvent, LogError> {
    envelope.decode()
}

/// Appends one command's events to a table's stream.
pub async fn append<L: EventLog>(
    log: &L,
    stream: &StreamId,
    expected: Expected,
    command_id: &str,
    recorded_at: i64,
    events: &[TableEvent],
) -> Result<Appended, LogError> {
    let decision = Decision {
        command_id: command_id.into(),
        causation_id: None,
        correlation_id: None,
        recorded_at,
        events: events.iter().map(encode).collect::<Result<_, _>>()?,
        trace: None,
        request: None,
        actor: None,
    };
    log.append(stream, expected, decision).await
}

/// A table's whole log, decoded.
pub async fn load<L: EventLog>(log: &L, stream: &StreamId) -> Result<Vec<TableEvent>, LogError> {
    log.read(stream, 1).await?.iter().map(decode).collect()
}

/// A hand's events, from its (last, after a misdeal) `HandStarted` to its
/// `HandEnded`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hand<'a> {
    pub number: u64,
    pub events: &'a [TableEvent],
}

/// The finished hands in a table's events, in order.
pub fn hands(events: &[TableEvent]) -> Vec<Hand<'_>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, e) in events.iter().enumerate() {
        match e {
            TableEvent::HandStarted { .. } => start = Some(i),
            TableEvent::HandEnded { number, .. } => {
                if let Some(s) = start.take() {
                    out.push(Hand {
                        number: *number,
                        events: &events[s..=i],
                    });
                }
            }
            _ => {}
        }
    }
    out
}
