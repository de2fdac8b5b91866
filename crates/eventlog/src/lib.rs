//! The event log: where every service stores its facts.
//!
//! One trait, [`EventLog`], with two backends: [`EmbeddedLog`] on redb for
//! one machine, and [`NatsLog`] on NATS JetStream for a deployment. A
//! conformance suite (feature `test-util`, module [`conformance`]) holds both
//! to the same behaviour.
//!
//! The unit of writing is a [`Decision`]: the events one command produced,
//! appended to one stream atomically, with an expected version and the
//! command id as idempotency key. Each event is stored in an [`Envelope`]
//! that carries the SHA-256 of the previous envelope of its stream, so an
//! auditor can check that nothing was changed or removed
//! ([`verify_chain`]).
//!
//! The crate knows nothing of poker: payloads are MessagePack bytes that
//! the caller encodes and decodes (see [`NewEvent::encode`] and
//! [`Envelope::decode`]). It reads no clock: the recorded time is handed in.

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

mod embedded;
mod envelope;
mod fanout;
mod nats;

#[cfg(any(test, feature = "test-util"))]
pub mod conformance;

use std::fmt;
use std::future::Future;

use felt_vocabulary::{Classified, ErrorKind, TournamentId};
use serde::{Deserialize, Serialize};

pub use embedded::EmbeddedLog;
#[cfg(any(test, feature = "test-util"))]
pub use embedded::tamper;
pub use envelope::{ChainBreak, Envelope, Hash, verify_chain};
pub use fanout::{FOLLOWER_BUFFER, Fanout, Follower};
pub use nats::{NatsLog, NatsSettings};

/// Why the log refused or failed an operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, strum::IntoStaticStr)]
pub enum LogError {
    #[error("stream {stream} is at version {actual}, the append expected {expected}")]
    Conflict {
        stream: String,
        expected: Expected,
        actual: u64,
    },
    #[error("invalid stream id {input:?}: {reason}")]
    InvalidStreamId { input: String, reason: String },
    #[error("a decision needs at least one event and a command id")]
    EmptyDecision,
    #[error("storage failed: {0}")]
    Storage(String),
    #[error("nats failed: {0}")]
    Nats(String),
    #[error("cannot encode: {0}")]
    Encode(String),
    #[error("cannot decode {what}: {reason}")]
    Decode { what: String, reason: String },
    #[error("the log is closed")]
    Closed,
    #[error("invalid consumer name {input:?}: letters, digits, `-` or `_`")]
    InvalidConsumer { input: String },
}

/// The storage or the server failing, or another writer first, may pass:
/// the same request may succeed if made again (`kind().retryable()`). Bad
/// input and data that cannot be read fail the same way every time. A
/// closed log is away (unavailable) for whoever called this process: it
/// is shutting down, and a client's retry reaches it restarted.
impl Classified for LogError {
    fn kind(&self) -> ErrorKind {
        match self {
            LogError::Conflict { .. } => ErrorKind::Conflict,
            LogError::InvalidStreamId { .. } | LogError::InvalidConsumer { .. } => {
                ErrorKind::Malformed
            }
            LogError::Storage(_) | LogError::Nats(_) | LogError::Closed => ErrorKind::Unavailable,
            LogError::EmptyDecision | LogError::Encode(_) | LogError::Decode { .. } => {
                ErrorKind::Internal
            }
        }
    }

    fn reason(&self) -> &str {
        self.into()
    }
}

/// A consumer's name, as positions are recorded under it: letters, digits,
/// `-` or `_`.
pub(crate) fn check_consumer(name: &str) -> Result<(), LogError> {
    if name.is_empty() || !name.bytes().all(felt_vocabulary::ids::name_byte) {
        return Err(LogError::InvalidConsumer { input: name.into() });
    }
    Ok(())
}

/// One aggregate's stream: `felt.<tournament>.<kind>.<id>` on NATS.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct StreamId {
    pub tournament: TournamentId,
    pub kind: String,
    pub id: String,
}

/// The longest part (tournament, kind, id) of a stream id.
pub const MAX_STREAM_PART: usize = 64;

impl StreamId {
    /// A stream id; each part is letters, digits, `-` or `_`, at most
    /// [`MAX_STREAM_PART`] characters: the tournament's by
    /// [`TournamentId`]'s own rule, which is the same.
    pub fn new(tournament: &str, kind: &str, id: &str) -> Result<StreamId, LogError> {
        let tournament_id =
            TournamentId::new(tournament).map_err(|e| LogError::InvalidStreamId {
                input: format!("{}.{kind}.{id}", felt_vocabulary::ids::prefix(tournament)),
                reason: e.to_string(),
            })?;
        for part in [kind, id] {
            if part.len() > MAX_STREAM_PART {
                let start: String = part.chars().take(16).collect();
                return Err(LogError::InvalidStreamId {
                    input: format!("{start}…"),
                    reason: format!(
                        "a part of a stream id is at most {MAX_STREAM_PART} characters, not {}",
                        part.len()
                    ),
                });
            }
            if part.is_empty() || !part.bytes().all(felt_vocabulary::ids::name_byte) {
                return Err(LogError::InvalidStreamId {
                    input: format!("{tournament}.{kind}.{id}"),
                    reason: format!("{part:?} must be letters, digits, '-' or '_'"),
                });
            }
        }
        Ok(StreamId {
            tournament: tournament_id,
            kind: kind.into(),
            id: id.into(),
        })
    }

    /// `tournament.kind.id`: the stream's key in storage.
    pub fn key(&self) -> String {
        format!("{}.{}.{}", self.tournament, self.kind, self.id)
    }

    /// The NATS subject the stream's decisions are published on.
    pub fn subject(&self) -> String {
        format!("felt.{}", self.key())
    }
}

impl fmt::Display for StreamId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.tournament, self.kind, self.id)
    }
}

/// What an append expects of the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Expected {
    /// The stream has no events yet.
    NoStream,
    /// The stream's last event has exactly this sequence.
    Exactly(u64),
    /// Whatever the stream holds.
    Any,
}

impl Expected {
    fn allows(self, version: u64) -> bool {
        match self {
            Expected::NoStream => version == 0,
            Expected::Exactly(v) => version == v,
            Expected::Any => true,
        }
    }
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::NoStream => f.write_str("no stream"),
            Expected::Exactly(v) => write!(f, "version {v}"),
            Expected::Any => f.write_str("any version"),
        }
    }
}

/// An event to append: its type, schema version and MessagePack payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewEvent {
    pub event_type: String,
    pub schema_version: u16,
    pub payload: Vec<u8>,
}

impl NewEvent {
    /// Encodes a payload as MessagePack with field names, so that readers
    /// of an older schema skip fields they do not know.
    pub fn encode<T: Serialize>(
        event_type: &str,
        schema_version: u16,
        payload: &T,
    ) -> Result<NewEvent, LogError> {
        Ok(NewEvent {
            event_type: event_type.into(),
            schema_version,
            payload: rmp_serde::to_vec_named(payload)
                .map_err(|e| LogError::Encode(e.to_string()))?,
        })
    }
}

/// The events one command produced, appended together or not at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The client-chosen command id: the idempotency key.
    pub command_id: String,
    pub causation_id: Option<String>,
    pub correlation_id: Option<String>,
    /// When the command was decided, in milliseconds since the Unix epoch,
    /// as the caller's clock says.
    pub recorded_at: i64,
    pub events: Vec<NewEvent>,
    /// The W3C `traceparent` of the command's trace: NATS carries it as a
    /// message header, so services that react continue the trace.
    pub trace: Option<String>,
    /// The fingerprint of the request that brought it (see
    /// [`Envelope::request`]), kept with each of its envelopes.
    pub request: Option<Hash>,
    /// The person whose command it is (see [`Envelope::actor`]).
    pub actor: Option<String>,
}

/// The answer to an append.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Appended {
    /// Sequences of the decision's first and last events in their stream;
    /// `last` is the stream's version after it.
    pub first: u64,
    pub last: u64,
    /// The decision's place in the whole log.
    pub position: u64,
    /// The command had been appended before: this is the first answer.
    pub duplicate: bool,
}

/// A decision as it was committed, for subscribers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Committed {
    /// Position in the whole log: resume a subscription after it.
    pub position: u64,
    pub stream: StreamId,
    pub envelopes: Vec<Envelope>,
}

/// Which streams a subscription follows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    pub tournament: Option<String>,
    pub kind: Option<String>,
    /// One stream's id (with its tournament and kind): that stream alone.
    pub id: Option<String>,
}

impl Filter {
    pub fn all() -> Filter {
        Filter::default()
    }

    pub fn kind(kind: &str) -> Filter {
        Filter {
            tournament: None,
            kind: Some(kind.into()),
            id: None,
        }
    }

    pub fn tournament(tournament: &str) -> Filter {
        Filter {
            tournament: Some(tournament.into()),
            kind: None,
            id: None,
        }
    }

    /// One stream alone.
    pub fn stream(stream: &StreamId) -> Filter {
        Filter {
            tournament: Some(stream.tournament.to_string()),
            kind: Some(stream.kind.clone()),
            id: Some(stream.id.clone()),
        }
    }

    /// The one stream this filter names, if it names one.
    pub fn one_stream(&self) -> Option<StreamId> {
        match (&self.tournament, &self.kind, &self.id) {
            (Some(t), Some(k), Some(id)) => StreamId::new(t, k, id).ok(),
            _ => None,
        }
    }

    pub fn matches(&self, stream: &StreamId) -> bool {
        self.tournament
            .as_ref()
            .is_none_or(|t| t == stream.tournament.as_str())
            && self.kind.as_ref().is_none_or(|k| *k == stream.kind)
            && self.id.as_ref().is_none_or(|id| *id == stream.id)
    }
}

/// A live subscription: every committed decision that matches its filter,
/// in log order, from a position on, without gaps.
#[derive(Debug)]
pub struct Subscription {
    inner: SubscriptionInner,
}

#[derive(Debug)]
enum SubscriptionInner {
    Embedded(embedded::EmbeddedSubscription),
    Nats(Box<nats::NatsSubscription>),
}

impl Subscription {
    /// The next decision; waits for one to be committed. `None` when the
    /// log was closed. Cancel-safe: a call dropped before it answers (a
    /// `select!` that took another branch) loses no decision, the next
    /// call returns it.
    pub async fn next(&mut self) -> Option<Result<Committed, LogError>> {
        match &mut self.inner {
            SubscriptionInner::Embedded(s) => s.next().await,
            SubscriptionInner::Nats(s) => s.next().await,
        }
    }
}

/// The event log. Every backend passes the [`conformance`] suite.
pub trait EventLog: Send + Sync {
    /// Appends a decision's events to one stream, atomically: all or none.
    /// A stale `expected` version is a [`LogError::Conflict`] naming the
    /// actual version. A command id already appended to the stream answers
    /// with the first append's result (`duplicate: true`) and stores nothing.
    fn append(
        &self,
        stream: &StreamId,
        expected: Expected,
        decision: Decision,
    ) -> impl Future<Output = Result<Appended, LogError>> + Send;

    /// Queues an append now and returns its answer to come, for a backend
    /// that decides each stream's appends in the order they were queued:
    /// an append's `expected` version may then count appends queued before
    /// it and not yet answered (and if one of those is refused, the later
    /// one is a conflict). Lets one writer decide its next command while
    /// the last one is being committed. A backend that cannot hands the
    /// decision back: call [`EventLog::append`] then.
    fn queue(
        &self,
        stream: &StreamId,
        expected: Expected,
        decision: Decision,
    ) -> Result<impl Future<Output = Result<Appended, LogError>> + Send + 'static, Box<Decision>>
    {
        let _ = (stream, expected);
        Err::<std::future::Ready<Result<Appended, LogError>>, _>(Box::new(decision))
    }

    /// Whether many streams load faster in one [`EventLog::read_all`] than
    /// one [`EventLog::read`] at a time. True on NATS, where reading one
    /// stream makes the server search every block of the log that stream
    /// spans: a 10,000-entrant tournament's 1,112 tables, read one by one,
    /// cost its whole log 1,112 times.
    const BULK_LOADS: bool = false;

    /// Hands `each` every decision of the streams `filter` matches, in log
    /// order, up to the log's last position when the call began, and
    /// returns that position. On NATS the read ends at the filter's last
    /// message then (the server counts the filter's messages), not at the
    /// end of the log. An error from `each` ends the read and is returned.
    fn read_all<F>(
        &self,
        filter: &Filter,
        each: F,
    ) -> impl Future<Output = Result<u64, LogError>> + Send
    where
        F: FnMut(Committed) -> Result<(), LogError> + Send;

    /// The stream's decisions holding events with sequence `from` or
    /// later, in order, each with its position (the first may hold events
    /// before `from`).
    fn read_decisions(
        &self,
        stream: &StreamId,
        from: u64,
    ) -> impl Future<Output = Result<Vec<Committed>, LogError>> + Send;

    /// The stream's events with sequence `from` or later, in order
    /// (sequences start at 1).
    fn read(
        &self,
        stream: &StreamId,
        from: u64,
    ) -> impl Future<Output = Result<Vec<Envelope>, LogError>> + Send {
        async move {
            Ok(self
                .read_decisions(stream, from)
                .await?
                .into_iter()
                .flat_map(|c| c.envelopes)
                .filter(|e| e.sequence >= from)
                .collect())
        }
    }

    /// The events of the decision at `position` (as an append, a read or a
    /// subscription gave it): one lookup, however long the stream. None if
    /// the log holds nothing there, or another stream's decision.
    fn read_decision(
        &self,
        stream: &StreamId,
        position: u64,
    ) -> impl Future<Output = Result<Vec<Envelope>, LogError>> + Send;

    /// The position of the last decision committed to the whole log, 0 if
    /// none: a subscription after it follows what is committed from now on.
    fn head(&self) -> impl Future<Output = Result<u64, LogError>> + Send;

    /// The stream's version: its last event's sequence, 0 if none.
    fn version(&self, stream: &StreamId) -> impl Future<Output = Result<u64, LogError>> + Send;

    /// Follows every decision matching `filter` committed after `position`
    /// (0: from the beginning).
    fn subscribe(
        &self,
        filter: Filter,
        after: u64,
    ) -> impl Future<Output = Result<Subscription, LogError>> + Send;

    /// Records how far `consumer` (a name: letters, digits, `-` or `_`) has
    /// got: the position it subscribes after when it starts again. The
    /// last recorded position wins. Kept beside the log, never in it.
    fn record_position(
        &self,
        consumer: &str,
        position: u64,
    ) -> impl Future<Output = Result<(), LogError>> + Send;

    /// The position `consumer` recorded last; 0 (the beginning) if none.
    fn recorded_position(
        &self,
        consumer: &str,
    ) -> impl Future<Output = Result<u64, LogError>> + Send;
}

/// Builds the envelopes of a decision appended after `version`, chained to
/// `last_hash`.
pub(crate) fn envelopes_for(
    stream: &StreamId,
    version: u64,
    mut last_hash: Hash,
    decision: &Decision,
) -> Vec<Envelope> {
    let mut out = Vec::with_capacity(decision.events.len());
    for (i, e) in decision.events.iter().enumerate() {
        let env = Envelope {
            schema_version: e.schema_version,
            event_type: e.event_type.clone(),
            stream: stream.clone(),
            sequence: version + 1 + i as u64,
            command_id: decision.command_id.clone(),
            causation_id: decision.causation_id.clone(),
            correlation_id: decision.correlation_id.clone(),
            recorded_at: decision.recorded_at,
            prev_hash: last_hash,
            payload: e.payload.clone(),
            request: decision.request,
            actor: decision.actor.clone(),
        };
        last_hash = env.hash();
        out.push(env);
    }
    out
}

pub(crate) fn check_decision(decision: &Decision) -> Result<(), LogError> {
    if decision.events.is_empty() || decision.command_id.is_empty() {
        return Err(LogError::EmptyDecision);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether a retry can help is the kind's to say: the store away or
    /// another writer first may pass; bad input and a log that does not
    /// read back never will.
    #[test]
    fn a_log_error_knows_whether_sending_again_can_help() {
        let kinds = [
            (LogError::Nats("timed out".into()), ErrorKind::Unavailable),
            (
                LogError::Storage("disk full".into()),
                ErrorKind::Unavailable,
            ),
            (LogError::Closed, ErrorKind::Unavailable),
            (
                LogError::Conflict {
                    stream: "table-t1-1".into(),
                    expected: Expected::Exactly(3),
                    actual: 4,
                },
                ErrorKind::Conflict,
            ),
            (
                LogError::InvalidConsumer {
                    input: "a b".into(),
                },
                ErrorKind::Malformed,
            ),
            (
                LogError::Decode {
                    what: "Busted v1 at t.seating.main #9".into(),
                    reason: "missing field `entry`".into(),
                },
                ErrorKind::Internal,
            ),
        ];
        for (error, kind) in kinds {
            assert_eq!(error.kind(), kind, "{error}");
        }
        assert_eq!(LogError::Closed.reason(), "Closed");
    }
}
