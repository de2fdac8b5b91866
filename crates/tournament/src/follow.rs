//! Seating learns of hand ends from the tables' events (not from whoever
//! dealt the hand): a runner ([`FOLLOWER`]) reads every table decision in
//! the log and reports each finished hand to the conductor.
//!
//! Reporting is idempotent (the conductor's command ids derive from the
//! table and hand), so a follower started again reports a table's latest
//! hand again, which finishes whatever a crash interrupted, and skips the
//! hands before it.
//!
//! The runner records how far it has safely got (every [`RECORD_EVERY`]
//! table decisions): after every hand end it reported. Started again, it
//! reads the log from there, and a table's hand in play from its stream.

use std::collections::HashMap;

use felt_clock::Millis;
use felt_eventlog::{Committed, EventLog, Filter, LogError, StreamId};
use felt_seating::TableNo;
use felt_table::TableEvent;

use crate::runner::{Cause, Fold, Runner};
use crate::{Conductor, HandSummary, NextTurn, TournamentError, Turn};

/// What the follower keeps of a table stream: the hand being played since
/// its `HandStarted`, and the summary of the last hand that ended.
#[derive(Clone, Debug, Default)]
pub struct Hand {
    events: Vec<TableEvent>,
    ended: Option<HandSummary>,
}

impl Hand {
    /// The summary of the last hand that ended at the table.
    pub fn ended(&self) -> Option<&HandSummary> {
        self.ended.as_ref()
    }
}

/// A table stream folded into its hand in play ([`Hand`]).
#[derive(Debug)]
pub struct Hands;

impl Fold for Hands {
    type State = Hand;
    type Event = TableEvent;

    fn apply(hand: &mut Hand, event: &TableEvent) {
        if matches!(event, TableEvent::HandStarted { .. }) {
            hand.events.clear();
        }
        hand.events.push(event.clone());
        if ends_hand(event) {
            hand.ended = HandSummary::from_events(&hand.events);
            hand.events.clear();
        }
    }
}

/// The table decisions the follower reports: those that end a hand.
fn ends_hand(event: &TableEvent) -> bool {
    matches!(
        event,
        TableEvent::HandEnded { .. } | TableEvent::ResultRecorded { .. }
    )
}

/// Collects each table's events from its last `HandStarted` and yields the
/// summary of every hand that ends (the follower's fold, for callers that
/// read the log themselves).
#[derive(Debug, Default)]
pub struct HandFollower {
    hands: HashMap<StreamId, Hand>,
}

impl HandFollower {
    /// Feeds one committed table decision; the hand it finished, if any.
    pub fn feed(&mut self, stream: &StreamId, events: Vec<TableEvent>) -> Option<HandSummary> {
        let hand = self.hands.entry(stream.clone()).or_default();
        let mut ended = None;
        for event in &events {
            Hands::apply(hand, event);
            if ends_hand(event) {
                ended = hand.ended.clone();
            }
        }
        ended
    }

    /// Feeds a committed table decision as read from the log: the hand it
    /// finished, if any, with when it was played (the time a result
    /// entered late gives, else when the decision was recorded).
    pub fn feed_committed(
        &mut self,
        committed: &Committed,
    ) -> Result<Option<HandSummary>, TournamentError> {
        let events = committed
            .envelopes
            .iter()
            .map(felt_tablelog::decode)
            .collect::<Result<Vec<_>, _>>()?;
        let recorded_at = committed.envelopes.first().map(|e| e.recorded_at);
        Ok(self.feed(&committed.stream, events).map(|mut hand| {
            hand.occurred_at = hand.occurred_at.or(recorded_at);
            hand
        }))
    }
}

/// The name the follower records its position under.
pub const FOLLOWER: &str = "seating-follower";
/// Table decisions between two records of the follower's position: at
/// most this many (and the hand ends still being reported) are read again
/// after a restart.
pub const RECORD_EVERY: u64 = 1_000;

/// Where the follower gets the time (seating draws its own seeds).
pub trait Inputs: Send + Sync {
    fn now(&self) -> Millis;
}

/// The table number seating gave a table stream, if seating opened it.
fn table_no(stream: &StreamId) -> Option<TableNo> {
    stream.id.parse().ok()
}

/// Reports one committed table decision to the conductor if it ended a hand
/// that is its table's latest.
pub async fn report<L: EventLog + 'static>(
    conductor: &Conductor<L>,
    follower: &mut HandFollower,
    committed: &Committed,
    inputs: &dyn Inputs,
) -> Result<Option<(TableNo, u64)>, TournamentError> {
    match follower.feed_committed(committed)? {
        Some(summary) => {
            let first = committed.envelopes.first();
            let from = crate::runner::provenance(
                &committed.stream,
                first.map_or(0, |e| e.sequence),
                first.map_or("", |e| e.command_id.as_str()),
                first.and_then(|e| e.correlation_id.as_deref()),
            );
            report_summary(conductor, &committed.stream, summary, inputs, None, from).await
        }
        None => Ok(None),
    }
}

/// Reports a hand that ended at a table stream, if it is the table's
/// latest and seating has not finished hearing of it; in its `turn` at
/// seating.
async fn report_summary<L: EventLog + 'static>(
    conductor: &Conductor<L>,
    stream: &StreamId,
    summary: HandSummary,
    inputs: &dyn Inputs,
    mut turn: Option<Turn>,
    from: felt_service::Provenance,
) -> Result<Option<(TableNo, u64)>, TournamentError> {
    let t = stream.tournament.as_str();
    let Some(table) = table_no(stream) else {
        return Ok(None);
    };
    if !again(conductor, stream, t, table, &summary).await? {
        if let Some(turn) = turn.as_mut() {
            turn.come().await;
        }
        return Ok(None);
    }
    conductor
        .hand_ended_in_turn(t, table, &summary, inputs.now(), turn, &from)
        .await?;
    Ok(Some((table, summary.number)))
}

/// Whether a hand end is (still) to be reported: seating waits for it; or
/// it is the table's latest hand, which is reported again (seating answers
/// a repeat with its first decision, and the moves it brought on are
/// carried out). The hands before a table's latest were reported before it
/// could deal again. A results-only table's result is always reported.
async fn again<L: EventLog + 'static>(
    conductor: &Conductor<L>,
    stream: &StreamId,
    t: &str,
    table: TableNo,
    summary: &HandSummary,
) -> Result<bool, TournamentError> {
    // A results-only table's results come one after another without
    // waiting for seating (nobody asks to begin them), even once seating
    // has closed the table: each is reported, a repeat answered with
    // seating's first decision.
    if !summary.recorded {
        return Ok(true);
    }
    let waiting = match conductor.seating_state(t).await?.room().tables.get(&table) {
        None => return Ok(false),
        Some(info) => info.in_hand,
    };
    // (This process's view of the table never runs ahead of the log.)
    let later = conductor
        .tables
        .cached_state(stream)
        .await?
        .0
        .hands_started()
        > summary.number;
    let latest = !later && !waiting && {
        let (state, _) = conductor.tables.state(stream).await?;
        state.hands_started() == summary.number && state.hand().is_none()
    };
    // A hand end seating recorded reaches payout through payout's runner,
    // whatever happened after seating's decision: nothing to report again.
    Ok(!later && (waiting || latest))
}

/// Hand ends reported at once, at most: while one hand end's payout and
/// moves are carried out, seating decides the next.
pub const IN_FLIGHT: usize = 32;

/// The follower: a runner over every table of every tournament.
fn follower() -> Runner<Hands> {
    Runner::new(FOLLOWER, Filter::kind("table"), ends_hand).recording_every(RECORD_EVERY)
}

/// Follows every table of every tournament in the log from the position
/// the follower last recorded (the beginning, the first time), reporting
/// each hand end; `reported` is told of each one. Returns when the log
/// closes, or with the first error. First, the reactions to seating's
/// decisions that a crash left unsent are sent.
///
/// Hand ends at different tables are reported concurrently (up to
/// [`IN_FLIGHT`]): seating still decides them one at a time, in the order
/// they ended; payout and the clock hear of seating's decisions in the
/// log's order (the runner), and moves are carried out one at a time (the
/// carrier), but one hand end's payout and moves do not hold up the next
/// one's seating decision. A table's next hand end cannot come before
/// seating has decided its last.
pub async fn follow<L: EventLog + 'static>(
    conductor: &Conductor<L>,
    inputs: &dyn Inputs,
    reported: &(dyn Fn(&str, TableNo, u64) + Send + Sync),
) -> Result<(), TournamentError> {
    use futures::StreamExt as _;
    // What a crash left of seating's reactions is finished first.
    conductor.react_to_all().await?;
    let runner = follower();
    let log = conductor.tables.log();
    let mut run = runner.lock(log.as_ref()).await;
    let mut reports = futures::stream::FuturesUnordered::new();
    // Seating hears of the hand ends in the order they ended.
    let mut next_turn = NextTurn::default();
    let mut open = true;
    while open || !reports.is_empty() {
        tokio::select! {
            Some((cause, result)) = reports.next(), if !reports.is_empty() => {
                let cause: Cause<Hands> = cause;
                if let Some((table, hand)) = result? {
                    reported(&cause.stream.tournament, table, hand);
                }
                run.done(&cause).await?;
            }
            next = run.next_out(), if open && reports.len() < IN_FLIGHT => {
                let cause = match next {
                    Ok(cause) => cause,
                    Err(LogError::Closed) => {
                        open = false;
                        continue;
                    }
                    Err(e) => return Err(e.into()),
                };
                let this_turn;
                (this_turn, next_turn) = next_turn.turn();
                reports.push(async move {
                    let result = match cause.state.ended().cloned() {
                        Some(mut summary) => {
                            summary.occurred_at = summary.occurred_at.or(Some(cause.recorded_at));
                            report_summary(
                                conductor,
                                &cause.stream,
                                summary,
                                inputs,
                                Some(this_turn),
                                cause.provenance(),
                            )
                            .await
                        }
                        None => Ok(None),
                    };
                    (cause, result)
                });
            }
        }
    }
    Ok(())
}
