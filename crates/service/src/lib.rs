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

use felt_eventlog::{Decision, Envelope, EventLog, Expected, Filter, LogError, NewEvent, StreamId};
use felt_vocabulary::{Classified, ErrorKind};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::sync::Mutex;

/// The 32 bytes of randomness a decision that draws is handed.
pub type Seed = [u8; 32];

/// Where a handler's seeds come from: the seed for a decision on `stream`
/// under `command id`. A service draws each from the operating system
/// ([`os_draws`]); a simulation derives them from its own seed, so that a
/// run can be played again.
pub type Draws = Arc<dyn Fn(&StreamId, &str) -> Seed + Send + Sync>;

/// Every seed from the operating system's cryptographic source, whatever
/// it is for. Without it the process stops: a seed it could guess (the
/// time, a counter) would let whoever guesses it know the draw.
pub fn os_draws() -> Draws {
    Arc::new(|_: &StreamId, _: &str| os_seed())
}

/// One seed from the operating system's cryptographic source (the process
/// stops when there is none: see [`os_draws`]).
pub fn os_seed() -> Seed {
    use rand::TryRngCore;
    let mut bytes = [0u8; 32];
    if let Err(e) = rand::rngs::OsRng.try_fill_bytes(&mut bytes) {
        tracing::error!(%e, "no randomness from the operating system: stopping");
        eprintln!("felt: no randomness from the operating system ({e}): stopping");
        std::process::exit(70);
    }
    bytes
}

/// A domain's decider, as a service runs it.
pub trait Aggregate: Send + Sync + 'static {
    type State: Default + Clone + Send + Sync + 'static;
    type Command: Send + Sync;
    type Event: Serialize + DeserializeOwned + Clone + Send + Sync + 'static;
    type Rejection: std::error::Error + Clone + Send + Sync + 'static;

    /// The schema version events are written with.
    const SCHEMA: u16;

    /// Whether the handler may decide this aggregate's next command while
    /// the last one's events are being committed (on a log that can queue
    /// appends: [`EventLog::queue`]). Right for a busy aggregate with one
    /// writer whose state is cheap to clone (persistent collections): the
    /// states of decisions not yet acknowledged are kept apart.
    const QUEUES: bool = false;

    /// Whether deciding `command` may draw (a seat, a table to break): the
    /// handler then hands the decision a fresh seed from its source
    /// ([`Draws`]) and the decider records the seed in the events it drew
    /// with. A retried command gets its first answer, seed included.
    /// Commands that never draw are handed zeros.
    fn draws(command: &Self::Command) -> bool {
        let _ = command;
        false
    }

    fn decide(
        state: &Self::State,
        command: &Self::Command,
        seed: &Seed,
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
    /// The command id was decided for another request: a command id names
    /// one request, sent as often as needed, never two.
    #[error(
        "command id {command_id:?} was already used for another request (fingerprint {first}): send that request again, or this one under a new command id"
    )]
    Reused {
        command_id: String,
        /// The fingerprint of the request the id was first used for.
        first: felt_eventlog::Hash,
    },
}

/// A refusal is of the kind its decider gave it; the log's trouble of
/// the log's kind; losing to other writers every time, a conflict (sent
/// again, it is decided on the latest state).
impl<R: Classified> Classified for HandleError<R> {
    fn kind(&self) -> ErrorKind {
        match self {
            HandleError::Rejected(r) => r.kind(),
            HandleError::Log(e) => e.kind(),
            HandleError::Contended { .. } => ErrorKind::Conflict,
            HandleError::Reused { .. } => ErrorKind::AlreadyExists,
        }
    }

    fn reason(&self) -> &str {
        match self {
            HandleError::Rejected(r) => r.reason(),
            HandleError::Log(e) => e.reason(),
            HandleError::Contended { .. } => "Contended",
            HandleError::Reused { .. } => "CommandIdReused",
        }
    }

    fn rule(&self) -> Option<&str> {
        match self {
            HandleError::Rejected(r) => r.rule(),
            _ => None,
        }
    }
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
    /// With appends queued, as if they were all stored.
    state: Arc<A::State>,
    version: u64,
    /// Command id -> (first, last, position) of its decision; the position
    /// is [`QUEUED`] until the log answers.
    commands: HashMap<String, (u64, u64, u64)>,
    /// Must be caught up from the log before use.
    stale: bool,
    /// Appends queued and not yet answered.
    queued: usize,
    /// While appends are queued: the state and version the last answered
    /// one left, which is what readers are shown.
    acknowledged: Option<(Arc<A::State>, u64)>,
    /// Counts resets: an answer to an append queued before the last reset
    /// leaves the entry alone.
    epoch: u64,
    /// Woken whenever a queued append is answered.
    answered: Arc<tokio::sync::Notify>,
}

/// The position of a command whose append is queued.
const QUEUED: u64 = u64::MAX;

impl<A: Aggregate> Default for Entry<A> {
    fn default() -> Self {
        Entry {
            state: Arc::default(),
            version: 0,
            commands: HashMap::new(),
            stale: true,
            queued: 0,
            acknowledged: None,
            epoch: 0,
            answered: Arc::default(),
        }
    }
}

impl<A: Aggregate> Entry<A> {
    /// Folds a decision read from the log, committed at `position` (its
    /// events the entry has folded already are passed over).
    fn absorb(&mut self, position: u64, envelopes: &[Envelope]) -> Result<(), LogError> {
        let folded = self.version;
        for env in envelopes.iter().filter(|e| e.sequence > folded) {
            let event: A::Event = env.decode()?;
            A::apply(Arc::make_mut(&mut self.state), &event);
            self.version = env.sequence;
            // (A decision's events share its command id: looked up before
            // a key is made.)
            match self.commands.get_mut(&env.command_id) {
                Some(record) => record.1 = env.sequence,
                None => {
                    self.commands.insert(
                        env.command_id.clone(),
                        (env.sequence, env.sequence, position),
                    );
                }
            }
        }
        Ok(())
    }

    /// What readers see: acknowledged decisions only.
    fn view(&self) -> (Arc<A::State>, u64) {
        match &self.acknowledged {
            Some((state, version)) => (Arc::clone(state), *version),
            None => (Arc::clone(&self.state), self.version),
        }
    }

    /// Forgets everything after a queued append failed: the aggregate is
    /// read again from the log once the appends still queued are answered.
    fn reset(&mut self) {
        *self = Entry {
            queued: self.queued,
            epoch: self.epoch + 1,
            answered: Arc::clone(&self.answered),
            ..Entry::default()
        };
    }
}

type Slot<A> = Arc<Mutex<Entry<A>>>;
/// Set once a tournament's aggregates of a kind are loaded.
type Loaded = Arc<tokio::sync::OnceCell<()>>;
type Guard<A> = tokio::sync::OwnedMutexGuard<Entry<A>>;

/// How a queued append ended.
enum Queued<A: Aggregate> {
    Done(Result<Outcome<A>, HandleError<A::Rejection>>),
    Again(Guard<A>),
}

/// Most decide-append rounds for one command before giving up.
const ATTEMPTS: u32 = 16;

/// Where a decision comes from, recorded with it in the log: the W3C
/// `traceparent` of the call that brought it, the decision that caused it
/// (a reaction's cause: `<stream>@<sequence>`) and the command that
/// started its chain (`<stream>/<command id>`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Provenance {
    pub trace: Option<String>,
    pub causation_id: Option<String>,
    pub correlation_id: Option<String>,
    /// The fingerprint of the request as the service received it (the
    /// same request sent again has the same one): a command id already
    /// decided for a request with another fingerprint is refused
    /// ([`HandleError::Reused`]). `None`: not checked.
    pub request: Option<felt_eventlog::Hash>,
    /// The person whose command it is, as their credential names them
    /// (`None`: a reaction, or a credential that names no person).
    pub actor: Option<String>,
}

tokio::task_local! {
    /// The person whose request the task is serving, as the edge that
    /// took it named them: see [`as_actor`].
    static ACTOR: Option<String>;
}

/// Runs `work` (a request's handling) on behalf of `actor`: every
/// decision it brings that is not a reaction (no cause recorded) names
/// them, however deep in the call the decision is taken.
pub async fn as_actor<F: std::future::Future>(actor: Option<String>, work: F) -> F::Output {
    ACTOR.scope(actor, work).await
}

/// The person a decision names: the one `from` gives, else, for a
/// decision that is no reaction, the person the task serves.
fn actor_of(from: &Provenance) -> Option<String> {
    from.actor.clone().or_else(|| {
        from.causation_id
            .is_none()
            .then(|| ACTOR.try_with(Clone::clone).ok().flatten())
            .flatten()
    })
}

impl Provenance {
    /// Where a request comes from, fingerprinted by its bytes (SHA-256).
    pub fn of_request(bytes: &[u8]) -> Provenance {
        use sha2::Digest as _;
        Provenance {
            request: Some(felt_eventlog::Hash(sha2::Sha256::digest(bytes).into())),
            ..Provenance::default()
        }
    }
}

/// Handles commands for the aggregates of one kind over an event log.
pub struct Handler<A: Aggregate, L: EventLog> {
    log: Arc<L>,
    entries: std::sync::Mutex<HashMap<StreamId, Slot<A>>>,
    /// Events this handler appended (repeats not counted).
    appended: Arc<std::sync::atomic::AtomicU64>,
    /// On a log that loads many streams better at once: the tournaments
    /// and kinds whose aggregates were loaded in one pass.
    loaded: std::sync::Mutex<HashMap<(felt_vocabulary::TournamentId, String), Loaded>>,
    /// The seeds of decisions that draw ([`Aggregate::draws`]).
    draws: Draws,
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
            appended: Arc::default(),
            loaded: std::sync::Mutex::default(),
            draws: os_draws(),
        }
    }

    /// The handler drawing its decisions' seeds from `draws` instead of
    /// the operating system.
    pub fn with_draws(self, draws: Draws) -> Self {
        Handler { draws, ..self }
    }

    /// Events this handler has appended so far.
    pub fn appended(&self) -> u64 {
        self.appended.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn log(&self) -> &Arc<L> {
        &self.log
    }

    fn entry(&self, stream: &StreamId) -> Slot<A> {
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        entries.entry(stream.clone()).or_default().clone()
    }

    /// The aggregate's entry. On a log that loads many streams better at
    /// once ([`EventLog::BULK_LOADS`]), the first aggregate of a tournament
    /// and kind asked for loads them all first ([`Handler::load_all`]):
    /// after a restart, a service's tables come back in one pass over the
    /// log instead of one search of the log each.
    async fn slot(&self, stream: &StreamId) -> Result<Slot<A>, LogError> {
        if L::BULK_LOADS && !self.has(stream) {
            let once = {
                let mut loaded = self
                    .loaded
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                Arc::clone(
                    loaded
                        .entry((stream.tournament.clone(), stream.kind.clone()))
                        .or_default(),
                )
            };
            once.get_or_try_init(|| async {
                let loaded = self.load_all(&stream.tournament, &stream.kind).await?;
                tracing::info!(tournament = %stream.tournament, kind = %stream.kind, loaded, "aggregates loaded in one pass");
                Ok::<(), LogError>(())
            })
            .await?;
        }
        Ok(self.entry(stream))
    }

    fn has(&self, stream: &StreamId) -> bool {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains_key(stream)
    }

    /// Loads every aggregate of a tournament and kind that is not in memory
    /// yet, in one pass over the log ([`EventLog::read_all`]), and returns
    /// how many it loaded. An aggregate already in memory is left as it is.
    pub async fn load_all(&self, tournament: &str, kind: &str) -> Result<usize, LogError> {
        let filter = Filter {
            id: None,
            tournament: Some(tournament.into()),
            kind: Some(kind.into()),
        };
        let mut found: HashMap<StreamId, Entry<A>> = HashMap::new();
        self.log
            .read_all(&filter, |c| {
                let entry = found.entry(c.stream).or_insert_with(|| Entry {
                    stale: false,
                    ..Entry::default()
                });
                entry.absorb(c.position, &c.envelopes)
            })
            .await?;
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut loaded = 0;
        for (stream, mut entry) in found {
            match entries.entry(stream) {
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(Arc::new(Mutex::new(entry)));
                    loaded += 1;
                }
                std::collections::hash_map::Entry::Occupied(o) => {
                    // Only an entry nothing was read into, that nobody holds.
                    if let Ok(mut held) = o.get().try_lock()
                        && held.stale
                        && held.version == 0
                        && held.queued == 0
                    {
                        entry.epoch = held.epoch;
                        entry.answered = Arc::clone(&held.answered);
                        *held = entry;
                        loaded += 1;
                    }
                }
            }
        }
        Ok(loaded)
    }

    /// The entry locked, with no queued append unanswered.
    async fn settled(&self, slot: &Slot<A>) -> Guard<A> {
        let mut entry = Arc::clone(slot).lock_owned().await;
        while entry.queued > 0 {
            let answered = Arc::clone(&entry.answered);
            let notified = answered.notified();
            drop(entry);
            notified.await;
            entry = Arc::clone(slot).lock_owned().await;
        }
        entry
    }

    /// The entry locked, caught up with the log if `always` or stale (after
    /// the appends queued are answered).
    async fn locked(&self, stream: &StreamId, always: bool) -> Result<Guard<A>, LogError> {
        let slot = self.slot(stream).await?;
        let mut entry = Arc::clone(&slot).lock_owned().await;
        if entry.queued > 0 && !entry.stale {
            // Its own appends queued: nothing else writes this aggregate.
            return Ok(entry);
        }
        if entry.queued > 0 {
            drop(entry);
            entry = self.settled(&slot).await;
        }
        if always || entry.stale {
            self.catch_up(stream, &mut entry).await?;
        }
        Ok(entry)
    }

    /// The aggregate's state and version, caught up with the log: what
    /// other replicas appended is read first, so a read follows every write
    /// acknowledged before it.
    pub async fn state(&self, stream: &StreamId) -> Result<(Arc<A::State>, u64), LogError> {
        Ok(self.locked(stream, true).await?.view())
    }

    /// The aggregate's state as this handler last saw it, without asking the
    /// log for what other writers appended since (it is read from the log
    /// only the first time, or after a failed append). Right for a single
    /// writer, and for reading ahead of a command, which is decided against
    /// the log's latest state anyway.
    pub async fn cached_state(&self, stream: &StreamId) -> Result<(Arc<A::State>, u64), LogError> {
        Ok(self.locked(stream, false).await?.view())
    }

    /// Whether a command with this id is in the stream (caught up with the
    /// log first): a retry, to be answered with its first result.
    pub async fn recorded(&self, stream: &StreamId, command_id: &str) -> Result<bool, LogError> {
        Ok(self.decided(stream, command_id).await?.is_some())
    }

    /// The sequences of the first and last events of the decision a command
    /// with this id brought, if the stream holds it (caught up with the log
    /// first).
    pub async fn decided(
        &self,
        stream: &StreamId,
        command_id: &str,
    ) -> Result<Option<(u64, u64)>, LogError> {
        let slot = self.slot(stream).await?;
        let mut entry = self.settled(&slot).await;
        self.catch_up(stream, &mut entry).await?;
        Ok(entry
            .commands
            .get(command_id)
            .map(|&(first, last, _)| (first, last)))
    }

    /// [`Handler::decided`] as this handler last saw the stream, without
    /// asking the log (see [`Handler::cached_state`]): a decision shown is
    /// in the log; one not shown may be there all the same.
    pub async fn cached_decided(
        &self,
        stream: &StreamId,
        command_id: &str,
    ) -> Result<Option<(u64, u64)>, LogError> {
        let entry = self.locked(stream, false).await?;
        Ok(entry
            .commands
            .get(command_id)
            .filter(|&&(_, _, position)| position != QUEUED)
            .map(|&(first, last, _)| (first, last)))
    }

    /// Reads what the log holds after the entry's version and folds it.
    async fn catch_up(&self, stream: &StreamId, entry: &mut Entry<A>) -> Result<(), LogError> {
        for decision in self.log.read_decisions(stream, entry.version + 1).await? {
            entry.absorb(decision.position, &decision.envelopes)?;
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
        let from = Provenance {
            trace,
            ..Provenance::default()
        };
        self.handle_from(stream, command_id, recorded_at, &from, command)
            .await
    }

    /// [`Handler::handle`], the decision recording where it comes from: the
    /// caller's trace, the decision that caused it and the command that
    /// started its chain. (A repeat is answered with the first decision,
    /// provenance included.)
    pub async fn handle_from(
        &self,
        stream: &StreamId,
        command_id: &str,
        recorded_at: i64,
        from: &Provenance,
        command: &A::Command,
    ) -> Result<Outcome<A>, HandleError<A::Rejection>> {
        let slot = self.slot(stream).await?;
        let mut entry = Arc::clone(&slot).lock_owned().await;
        // Whether the state decided on is the log's latest: a refusal (or a
        // no-op) decided on this handler's own view is confirmed against
        // the log first, since another writer may have changed the stream.
        let mut fresh = false;
        for _ in 0..ATTEMPTS {
            if entry.stale {
                if entry.queued > 0 {
                    drop(entry);
                    entry = self.settled(&slot).await;
                }
                self.catch_up(stream, &mut entry).await?;
                fresh = true;
            }
            if let Some(&(first, last, position)) = entry.commands.get(command_id) {
                if position == QUEUED {
                    // The same command, still being committed.
                    drop(entry);
                    entry = self.settled(&slot).await;
                    continue;
                }
                return self
                    .original(stream, &entry, command_id, from, (first, last, position))
                    .await;
            }
            let seed = if A::draws(command) {
                (self.draws)(stream, command_id)
            } else {
                Seed::default()
            };
            let events = match A::decide(&entry.state, command, &seed) {
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
                let (state, version) = entry.view();
                return Ok(Outcome {
                    events,
                    first: 0,
                    last: 0,
                    position: 0,
                    duplicate: false,
                    state,
                    version,
                });
            }
            let mut decision = Decision {
                command_id: command_id.into(),
                causation_id: from.causation_id.clone(),
                correlation_id: from.correlation_id.clone(),
                recorded_at,
                events: events
                    .iter()
                    .map(|e| NewEvent::encode(A::event_type(e), A::SCHEMA, e))
                    .collect::<Result<_, _>>()?,
                trace: from.trace.clone(),
                request: from.request,
                actor: actor_of(from),
            };
            let expected = if entry.version == 0 {
                Expected::NoStream
            } else {
                Expected::Exactly(entry.version)
            };
            if A::QUEUES {
                match self.log.queue(stream, expected, decision) {
                    Ok(answer) => {
                        match self.queued(&slot, entry, command_id, &events, answer).await {
                            Queued::Done(outcome) => {
                                return outcome.map(|o| Outcome { events, ..o });
                            }
                            Queued::Again(e) => {
                                entry = e;
                                continue;
                            }
                        }
                    }
                    Err(back) => decision = *back,
                }
            }
            match self.log.append(stream, expected, decision).await {
                Ok(appended) if appended.duplicate => {
                    // Another replica stored this command first.
                    entry.stale = true;
                    self.catch_up(stream, &mut entry).await?;
                    return self
                        .original(
                            stream,
                            &entry,
                            command_id,
                            from,
                            (appended.first, appended.last, appended.position),
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

    /// A decision whose append is queued: the entry moves on as if it were
    /// stored (the next command may be decided at once) and is let go
    /// while the log answers. On any failure the entry is reset, to be
    /// read again from the log; `Again` hands back the entry to decide the
    /// command again (after a conflict, or a duplicate to answer).
    async fn queued(
        &self,
        slot: &Slot<A>,
        mut entry: Guard<A>,
        command_id: &str,
        events: &[A::Event],
        answer: impl Future<Output = Result<felt_eventlog::Appended, LogError>> + Send + 'static,
    ) -> Queued<A> {
        if entry.queued == 0 {
            entry.acknowledged = Some((Arc::clone(&entry.state), entry.version));
        }
        entry.queued += 1;
        let first = entry.version + 1;
        let state = Arc::make_mut(&mut entry.state);
        for e in events {
            A::apply(state, e);
        }
        entry.version += events.len() as u64;
        let last = entry.version;
        entry
            .commands
            .insert(command_id.into(), (first, last, QUEUED));
        let after = Arc::clone(&entry.state);
        let epoch = entry.epoch;
        drop(entry);
        // The answer is seen to in a task of its own: the entry's count of
        // queued appends must come down even if the caller goes away.
        let slot = Arc::clone(slot);
        let appended_count = Arc::clone(&self.appended);
        let count = events.len() as u64;
        let command_id = command_id.to_string();
        let answered = tokio::spawn(async move {
            let result = answer.await;
            let mut entry = slot.lock_owned().await;
            entry.queued -= 1;
            entry.answered.notify_waiters();
            let current = entry.epoch == epoch;
            match result {
                Ok(appended) if !appended.duplicate => {
                    appended_count.fetch_add(count, std::sync::atomic::Ordering::Relaxed);
                    if current {
                        entry
                            .commands
                            .insert(command_id.clone(), (first, last, appended.position));
                        if entry.queued == 0 {
                            entry.acknowledged = None;
                        } else if entry.acknowledged.as_ref().is_some_and(|(_, v)| *v < last) {
                            entry.acknowledged = Some((Arc::clone(&after), last));
                        }
                    }
                    tracing::debug!(command_id, first, last, "appended (queued)");
                    Queued::Done(Ok(Outcome {
                        events: Vec::new(),
                        first: appended.first,
                        last: appended.last,
                        position: appended.position,
                        duplicate: false,
                        state: after,
                        version: appended.last,
                    }))
                }
                Ok(_) | Err(LogError::Conflict { .. }) => {
                    // Stored by another writer first, or decided on a state
                    // that was not the log's: read again, then answer or
                    // decide again.
                    if current {
                        entry.reset();
                    }
                    Queued::Again(entry)
                }
                Err(e) => {
                    if current {
                        entry.reset();
                    }
                    Queued::Done(Err(HandleError::Log(e)))
                }
            }
        });
        match answered.await {
            Ok(queued) => queued,
            Err(e) => Queued::Done(Err(HandleError::Log(LogError::Storage(format!(
                "the answer to a queued append was lost: {e}"
            ))))),
        }
    }

    /// The first answer to a command already in the stream.
    /// The first answer to `command_id`, decided as `(first, last,
    /// position)`; refused if that decision was for another request than
    /// `from`'s.
    async fn original(
        &self,
        stream: &StreamId,
        entry: &Entry<A>,
        command_id: &str,
        from: &Provenance,
        (first, last, position): (u64, u64, u64),
    ) -> Result<Outcome<A>, HandleError<A::Rejection>> {
        // Where the log put it, in one lookup; read on from its first event
        // where its position is not known (or not there yet).
        let mut envelopes = if position == 0 {
            Vec::new()
        } else {
            self.log.read_decision(stream, position).await?
        };
        if envelopes.first().is_none_or(|e| e.sequence != first) {
            envelopes = self.log.read(stream, first).await?;
        }
        if let (Some(was), Some(now)) = (envelopes.first().and_then(|e| e.request), from.request)
            && was != now
        {
            return Err(HandleError::Reused {
                command_id: command_id.into(),
                first: was,
            });
        }
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
