//! The service pattern every felt service follows, written once.
//!
//! A service keeps each aggregate it serves in memory (caught up from the
//! event log on first use and after any doubt), and handles a command by:
//!
//! 1. answering at once if the command id is already in the aggregate's
//!    stream (a retry gets the original answer, and nothing is appended);
//! 2. deciding it against the state (a rejection appends nothing);
//! 3. appending the events with the version it decided on as the expected
//!    version and the command id as idempotency key;
//! 4. on a version conflict (another replica wrote first), catching up and
//!    deciding again.
//!
//! The domain is plugged in through [`Aggregate`]: a pure decider and fold.
//! Side effects are returned as data (the events); time is handed in.

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

use std::collections::HashMap;
use std::sync::Arc;

use felt_eventlog::{Decision, EventLog, Expected, LogError, NewEvent, StreamId};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::sync::Mutex;

/// A domain's decider, as a service runs it.
pub trait Aggregate: Send + Sync + 'static {
    type State: Default + Clone + Send + Sync + 'static;
    type Command: Send + Sync;
    type Event: Serialize + DeserializeOwned + Clone + Send + Sync + 'static;
    type Rejection: std::error::Error + Clone + Send + Sync + 'static;

    /// The schema version events are written with.
    const SCHEMA: u16;

    fn decide(
        state: &Self::State,
        command: &Self::Command,
    ) -> Result<Vec<Self::Event>, Self::Rejection>;

    fn apply(state: &mut Self::State, event: &Self::Event);

    /// The event's type name in the log.
    fn event_type(event: &Self::Event) -> &'static str;
}

/// Why a command was not carried out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandleError<R: std::error::Error> {
    /// The domain refused it: nothing was appended.
    #[error("{0}")]
    Rejected(R),
    /// The log failed; whether the events were stored is not known, so the
    /// aggregate is reloaded before its next command, and a retry with the
    /// same command id is safe.
    #[error(transparent)]
    Log(#[from] LogError),
    /// Other writers kept winning: try again.
    #[error("stream {stream}: {attempts} attempts all lost to other writers")]
    Contended { stream: String, attempts: u32 },
}

/// What a command did.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome<A: Aggregate> {
    pub events: Vec<A::Event>,
    /// The stream's sequences of the first and last event (both 0 when the
    /// command decided no events).
    pub first: u64,
    pub last: u64,
    /// The decision's position in the log (0 when nothing was appended, or
    /// for a retry recognised from the stream's history after a restart,
    /// where the position is not recorded).
    pub position: u64,
    /// A retry: this is the first answer, nothing was appended now.
    pub duplicate: bool,
    /// The aggregate's state after the command (for a retry: now). Shared
    /// with the handler: holding it past the next command of the same
    /// aggregate makes that command copy the state, dropping it costs nothing.
    pub state: Arc<A::State>,
    /// The stream's version now.
    pub version: u64,
}

/// One aggregate in memory.
struct Entry<A: Aggregate> {
    state: Arc<A::State>,
    version: u64,
    /// Command id -> (first, last, position) of its decision.
    commands: HashMap<String, (u64, u64, u64)>,
    /// Must be caught up from the log before use.
    stale: bool,
}

impl<A: Aggregate> Default for Entry<A> {
    fn default() -> Self {
        Entry {
            state: Arc::default(),
            version: 0,
            commands: HashMap::new(),
            stale: true,
        }
    }
}

/// Most decide-append rounds for one command before giving up.
const ATTEMPTS: u32 = 16;

/// Handles commands for the aggregates of one kind over an event log.
pub struct Handler<A: Aggregate, L: EventLog> {
    log: Arc<L>,
    entries: std::sync::Mutex<HashMap<StreamId, Arc<Mutex<Entry<A>>>>>,
    /// Events this handler appended (repeats not counted).
    appended: std::sync::atomic::AtomicU64,
}

impl<A: Aggregate, L: EventLog> std::fmt::Debug for Handler<A, L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handler").finish_non_exhaustive()
    }
}

impl<A: Aggregate, L: EventLog> Handler<A, L> {
    pub fn new(log: Arc<L>) -> Self {
        Handler {
            log,
            entries: std::sync::Mutex::new(HashMap::new()),
            appended: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Events this handler has appended so far.
    pub fn appended(&self) -> u64 {
        self.appended.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn log(&self) -> &Arc<L> {
        &self.log
    }

    fn entry(&self, stream: &StreamId) -> Arc<Mutex<Entry<A>>> {
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        entries.entry(stream.clone()).or_default().clone()
    }

    /// The aggregate's state and version, caught up with the log: what
    /// other replicas appended is read first, so a read follows every write
    /// acknowledged before it.
    pub async fn state(&self, stream: &StreamId) -> Result<(Arc<A::State>, u64), LogError> {
        let entry = self.entry(stream);
        let mut entry = entry.lock().await;
        self.catch_up(stream, &mut entry).await?;
        Ok((Arc::clone(&entry.state), entry.version))
    }

    /// The aggregate's state as this handler last saw it, without asking the
    /// log for what other writers appended since (it is read from the log
    /// only the first time, or after a failed append). Right for a single
    /// writer, and for reading ahead of a command, which is decided against
    /// the log's latest state anyway.
    pub async fn cached_state(&self, stream: &StreamId) -> Result<(Arc<A::State>, u64), LogError> {
        let entry = self.entry(stream);
        let mut entry = entry.lock().await;
        if entry.stale {
            self.catch_up(stream, &mut entry).await?;
        }
        Ok((Arc::clone(&entry.state), entry.version))
    }

    /// Whether a command with this id is in the stream (caught up with the
    /// log first): a retry, to be answered with its first result.
    pub async fn recorded(&self, stream: &StreamId, command_id: &str) -> Result<bool, LogError> {
        let entry = self.entry(stream);
        let mut entry = entry.lock().await;
        self.catch_up(stream, &mut entry).await?;
        Ok(entry.commands.contains_key(command_id))
    }

    /// Reads what the log holds after the entry's version and folds it.
    async fn catch_up(&self, stream: &StreamId, entry: &mut Entry<A>) -> Result<(), LogError> {
        let envelopes = self.log.read(stream, entry.version + 1).await?;
        for env in &envelopes {
            let event: A::Event = env.decode()?;
            A::apply(Arc::make_mut(&mut entry.state), &event);
            entry.version = env.sequence;
            let record = entry.commands.entry(env.command_id.clone()).or_insert((
                env.sequence,
                env.sequence,
                0,
            ));
            record.1 = env.sequence;
        }
        entry.stale = false;
        Ok(())
    }

    /// Handles one command; see the crate documentation for the steps.
    pub async fn handle(
        &self,
        stream: &StreamId,
        command_id: &str,
        recorded_at: i64,
        command: &A::Command,
    ) -> Result<Outcome<A>, HandleError<A::Rejection>> {
        self.handle_traced(stream, command_id, recorded_at, None, command)
            .await
    }

    /// [`Handler::handle`], the decision carrying the caller's W3C
    /// `traceparent` into the log.
    pub async fn handle_traced(
        &self,
        stream: &StreamId,
        command_id: &str,
        recorded_at: i64,
        trace: Option<String>,
        command: &A::Command,
    ) -> Result<Outcome<A>, HandleError<A::Rejection>> {
        let entry = self.entry(stream);
        let mut entry = entry.lock().await;
        // Whether the state decided on is the log's latest: a refusal (or a
        // no-op) decided on this handler's own view is confirmed against
        // the log first, since another writer may have changed the stream.
        let mut fresh = false;
        for _ in 0..ATTEMPTS {
            if entry.stale {
                self.catch_up(stream, &mut entry).await?;
                fresh = true;
            }
            if let Some(&(first, last, position)) = entry.commands.get(command_id) {
                return self.original(stream, &entry, first, last, position).await;
            }
            let events = match A::decide(&entry.state, command) {
                Ok(events) => events,
                Err(_) if !fresh => {
                    entry.stale = true;
                    continue;
                }
                Err(r) => return Err(HandleError::Rejected(r)),
            };
            if events.is_empty() && !fresh {
                entry.stale = true;
                continue;
            }
            if events.is_empty() {
                return Ok(Outcome {
                    events,
                    first: 0,
                    last: 0,
                    position: 0,
                    duplicate: false,
                    state: Arc::clone(&entry.state),
                    version: entry.version,
                });
            }
            let decision = Decision {
                command_id: command_id.into(),
                causation_id: None,
                correlation_id: None,
                recorded_at,
                events: events
                    .iter()
                    .map(|e| NewEvent::encode(A::event_type(e), A::SCHEMA, e))
                    .collect::<Result<_, _>>()?,
                trace: trace.clone(),
            };
            let expected = if entry.version == 0 {
                Expected::NoStream
            } else {
                Expected::Exactly(entry.version)
            };
            match self.log.append(stream, expected, decision).await {
                Ok(appended) if appended.duplicate => {
                    // Another replica stored this command first.
                    entry.stale = true;
                    self.catch_up(stream, &mut entry).await?;
                    return self
                        .original(
                            stream,
                            &entry,
                            appended.first,
                            appended.last,
                            appended.position,
                        )
                        .await;
                }
                Ok(appended) => {
                    self.appended
                        .fetch_add(events.len() as u64, std::sync::atomic::Ordering::Relaxed);
                    let state = Arc::make_mut(&mut entry.state);
                    for e in &events {
                        A::apply(state, e);
                    }
                    entry.version = appended.last;
                    entry.commands.insert(
                        command_id.into(),
                        (appended.first, appended.last, appended.position),
                    );
                    tracing::debug!(stream = %stream, command_id, first = appended.first, last = appended.last, "appended");
                    return Ok(Outcome {
                        events,
                        first: appended.first,
                        last: appended.last,
                        position: appended.position,
                        duplicate: false,
                        state: Arc::clone(&entry.state),
                        version: entry.version,
                    });
                }
                Err(LogError::Conflict { actual, .. }) => {
                    tracing::debug!(stream = %stream, command_id, actual, "another writer was first: deciding again");
                    entry.stale = true;
                }
                Err(e) => {
                    // The append may or may not have been stored.
                    entry.stale = true;
                    return Err(HandleError::Log(e));
                }
            }
        }
        Err(HandleError::Contended {
            stream: stream.to_string(),
            attempts: ATTEMPTS,
        })
    }

    /// The first answer to a command already in the stream.
    async fn original(
        &self,
        stream: &StreamId,
        entry: &Entry<A>,
        first: u64,
        last: u64,
        position: u64,
    ) -> Result<Outcome<A>, HandleError<A::Rejection>> {
        let envelopes = self.log.read(stream, first).await?;
        let events = envelopes
            .iter()
            .take_while(|e| e.sequence <= last)
            .map(|e| e.decode())
            .collect::<Result<Vec<A::Event>, _>>()?;
        Ok(Outcome {
            events,
            first,
            last,
            position,
            duplicate: true,
            state: Arc::clone(&entry.state),
            version: entry.version,
        })
    }
}
