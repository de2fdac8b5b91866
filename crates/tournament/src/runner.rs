//! The runner: hands the decisions of one kind of stream to the reactions
//! that answer them, in the log's order, each until its reactions are all
//! sent, from a position it records.
//!
//! It follows the log (a subscription from its recorded position) and
//! folds each stream it sees, so a decision comes with its stream's state
//! folded only up to it: running its reactions again after a crash (or in
//! a second runner at the same time) computes the same commands under the
//! same ids, and the targets answer the repeats with their first answers.
//! The reactions and the sending are the caller's: the runner does no
//! more than read, fold, hand out and record.
//!
//! A decision handed out stays the runner's next one until [`Run::done`]:
//! an error while its reactions were sent (the target unreachable) hands
//! it out again at the next [`Run::next`]. A caller that answers several
//! decisions at once takes them with [`Run::next_out`], each until its
//! own [`Run::done`]; if it lets go of the runner with some not done, the
//! runner reads the log again from its recorded position. The position is
//! recorded every [`RECORD_EVERY`] decisions (or as
//! [`Runner::recording_every`] says), and only once every decision up to
//! it is done; started again, a runner repeats at most that many
//! decisions (and those still out).
//!
//! What it folds is a [`Fold`]: a service's state (every
//! [`Aggregate`] is one), or what a reaction needs of a stream (the hand
//! being played at a table).

use std::collections::{BTreeSet, HashMap};

use felt_eventlog::{Committed, EventLog, Filter, LogError, StreamId, Subscription};
use felt_service::Aggregate;
use serde::de::DeserializeOwned;

/// Decisions between two records of a runner's position.
pub const RECORD_EVERY: u64 = 200;

/// What a runner keeps of each stream it follows: a state and how each
/// event changes it.
pub trait Fold: Send + Sync + 'static {
    type State: Default + Clone + Send + Sync + 'static;
    type Event: DeserializeOwned + Clone + Send + Sync + 'static;

    fn apply(state: &mut Self::State, event: &Self::Event);
}

/// A service's own state, as its decider folds it.
impl<A: Aggregate> Fold for A {
    type State = A::State;
    type Event = A::Event;

    fn apply(state: &mut A::State, event: &A::Event) {
        A::apply(state, event);
    }
}

/// A decision its reactions answer: where it is, what it decided and its
/// stream's state just after it.
pub struct Cause<A: Fold> {
    pub stream: StreamId,
    /// Its position in the whole log.
    pub position: u64,
    /// The sequence of its first event in its stream: with the stream,
    /// what names it for ever.
    pub first: u64,
    /// The command that decided it.
    pub command_id: String,
    /// The command that started the chain it belongs to.
    pub correlation_id: Option<String>,
    /// When it was decided (milliseconds since the Unix epoch, as its
    /// decider was told).
    pub recorded_at: i64,
    pub events: Vec<A::Event>,
    /// Its stream's state after it, folded only up to it.
    pub state: A::State,
}

impl<A: Fold> Clone for Cause<A> {
    fn clone(&self) -> Self {
        Cause {
            stream: self.stream.clone(),
            position: self.position,
            first: self.first,
            command_id: self.command_id.clone(),
            correlation_id: self.correlation_id.clone(),
            recorded_at: self.recorded_at,
            events: self.events.clone(),
            state: self.state.clone(),
        }
    }
}

impl<A: Fold> std::fmt::Debug for Cause<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cause")
            .field("stream", &self.stream)
            .field("first", &self.first)
            .field("command_id", &self.command_id)
            .finish_non_exhaustive()
    }
}

impl<L: EventLog, A: Fold> std::fmt::Debug for Run<'_, L, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("runner", &self.runner.name)
            .finish_non_exhaustive()
    }
}

impl<A: Fold> Cause<A> {
    /// The id of the command it causes that `what` names (unique among
    /// them): from the cause's stream and sequence, the same every time.
    pub fn id(&self, what: &str) -> String {
        format!("{}-{}-{what}", self.stream.kind, self.first)
    }

    /// What the decisions it causes record of where they come from.
    pub fn provenance(&self) -> felt_service::Provenance {
        provenance(
            &self.stream,
            self.first,
            &self.command_id,
            self.correlation_id.as_deref(),
        )
    }
}

/// What a decision caused by the decision at `first` in `stream` (decided
/// for `command_id`, in the chain `correlation_id` started, if any)
/// records of where it comes from: that decision, `<stream>@<sequence>`,
/// and the command that started the chain, `<stream>/<command id>` when
/// this one did.
pub fn provenance(
    stream: &StreamId,
    first: u64,
    command_id: &str,
    correlation_id: Option<&str>,
) -> felt_service::Provenance {
    let key = stream.key();
    felt_service::Provenance {
        trace: None,
        request: None,
        causation_id: Some(format!("{key}@{first}")),
        correlation_id: Some(
            correlation_id.map_or_else(|| format!("{key}/{command_id}"), str::to_owned),
        ),
        actor: None,
    }
}

/// What one read from the subscription gave.
enum Pulled<A: Fold> {
    /// A decision a reaction wants, now handed out.
    Cause(Cause<A>),
    /// A decision no reaction wants, folded and passed.
    Passed,
    /// Nothing was committed in time.
    TimedOut,
}

/// Follows the streams a filter matches and hands out the decisions whose
/// events a reaction wants.
pub struct Runner<A: Fold> {
    /// The name its position is recorded under.
    name: String,
    filter: Filter,
    wants: fn(&A::Event) -> bool,
    /// Decisions between two records of its position.
    record_every: u64,
    inner: tokio::sync::Mutex<Inner<A>>,
}

impl<A: Fold> std::fmt::Debug for Runner<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

struct Inner<A: Fold> {
    sub: Option<Subscription>,
    /// A decision read from the subscription and not yet folded (kept
    /// while its stream's beginning is read, should the reader give up).
    unfolded: Option<Committed>,
    /// The decision handed out whose reactions are not yet done.
    pending: Option<Cause<A>>,
    /// The positions of the decisions [`Run::next_out`] handed out whose
    /// reactions are not yet done.
    out: BTreeSet<u64>,
    /// The position of the last decision folded.
    read: u64,
    /// The position the subscription started after (the recorded one).
    after: u64,
    /// Each stream's state and version, as far as the runner has read.
    streams: HashMap<StreamId, (u64, A::State)>,
    unrecorded: u64,
}

/// A runner in use: one at a time, so decisions are handed out once each,
/// in order.
pub struct Run<'r, L: EventLog, A: Fold> {
    runner: &'r Runner<A>,
    log: &'r L,
    inner: tokio::sync::MutexGuard<'r, Inner<A>>,
}

impl<A: Fold> Runner<A> {
    /// A runner recording its position under `name` (letters, digits, `-`
    /// or `_`), over the streams `filter` matches, handing out the
    /// decisions with an event `wants` is true of.
    pub fn new(name: &str, filter: Filter, wants: fn(&A::Event) -> bool) -> Self {
        Runner {
            name: name.into(),
            filter,
            wants,
            record_every: RECORD_EVERY,
            inner: tokio::sync::Mutex::new(Inner {
                sub: None,
                unfolded: None,
                pending: None,
                out: BTreeSet::new(),
                read: 0,
                after: 0,
                streams: HashMap::new(),
                unrecorded: 0,
            }),
        }
    }

    /// The same runner, recording its position every `decisions` decisions
    /// (at least one).
    #[must_use]
    pub fn recording_every(mut self, decisions: u64) -> Self {
        self.record_every = decisions.max(1);
        self
    }

    /// The runner, once the caller before has let go of it. If that caller
    /// left decisions out ([`Run::next_out`]) not done, the log is read
    /// again from the recorded position, which is before all of them.
    pub async fn lock<'r, L: EventLog>(&'r self, log: &'r L) -> Run<'r, L, A> {
        let mut inner = self.inner.lock().await;
        if !inner.out.is_empty() {
            inner.out.clear();
            inner.sub = None;
            inner.unfolded = None;
            inner.streams.clear();
            inner.unrecorded = 0;
        }
        Run {
            runner: self,
            log,
            inner,
        }
    }
}

impl<L: EventLog, A: Fold> Run<'_, L, A> {
    /// The next decision to react to, in the log's order (of any stream the
    /// runner follows), until every decision of `stream` up to `version`
    /// has been read and done: `None` then.
    pub async fn next(
        &mut self,
        stream: &StreamId,
        version: u64,
    ) -> Result<Option<Cause<A>>, LogError> {
        if let Some(cause) = &self.inner.pending {
            return Ok(Some(cause.clone()));
        }
        // A stream not seen since the runner started again may be done
        // with up to `version` before the position it started after: then
        // nothing of it will come to hand out (looked up once, not for
        // every decision read while waiting).
        if version > 0
            && !self.inner.streams.contains_key(stream)
            && self.passed(stream, version).await?
        {
            self.load(stream, version + 1).await?;
            return Ok(None);
        }
        loop {
            if version == 0
                || self
                    .inner
                    .streams
                    .get(stream)
                    .is_some_and(|(v, _)| *v >= version)
            {
                return Ok(None);
            }
            if let Pulled::Cause(cause) = self.pull(None, false).await? {
                return Ok(Some(cause));
            }
        }
    }

    /// The next decision to react to, of any stream the runner follows, as
    /// soon as one is committed: `None` if none comes within `wait` (what
    /// a service following the log on its own waits on).
    pub async fn next_within(
        &mut self,
        wait: std::time::Duration,
    ) -> Result<Option<Cause<A>>, LogError> {
        if let Some(cause) = &self.inner.pending {
            return Ok(Some(cause.clone()));
        }
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            match self.pull(Some(deadline), false).await? {
                Pulled::Cause(cause) => return Ok(Some(cause)),
                Pulled::TimedOut => return Ok(None),
                Pulled::Passed => {}
            }
        }
    }

    /// The next decision to react to that was not handed out yet, of any
    /// stream the runner follows, as soon as one is committed; others
    /// handed out before may still be out. Each is the caller's until
    /// [`Run::done`]. Cancel-safe: dropped while it waits, no decision is
    /// lost.
    pub async fn next_out(&mut self) -> Result<Cause<A>, LogError> {
        loop {
            if let Pulled::Cause(cause) = self.pull(None, true).await? {
                return Ok(cause);
            }
        }
    }

    /// Reads one decision from the subscription (made from the recorded
    /// position the first time) and folds it: the cause it is, if a
    /// reaction wants it, then one of several out (`many`) or the one
    /// pending, until done.
    async fn pull(
        &mut self,
        deadline: Option<tokio::time::Instant>,
        many: bool,
    ) -> Result<Pulled<A>, LogError> {
        if self.inner.unfolded.is_none() {
            match self.read_next(deadline).await? {
                Some(committed) => self.inner.unfolded = Some(committed),
                None => return Ok(Pulled::TimedOut),
            }
        }
        // Its stream's beginning, if the runner has not seen it: read while
        // the decision waits in `unfolded`.
        if let Some((stream, first)) = self
            .inner
            .unfolded
            .as_ref()
            .and_then(|c| Some((c.stream.clone(), c.envelopes.first()?.sequence)))
        {
            self.load(&stream, first).await?;
        }
        let Some(committed) = self.inner.unfolded.take() else {
            return Ok(Pulled::Passed);
        };
        let position = committed.position;
        self.inner.read = self.inner.read.max(position);
        match self.fold(committed)? {
            Some(cause) => {
                if many {
                    self.inner.out.insert(position);
                } else {
                    self.inner.pending = Some(cause.clone());
                }
                Ok(Pulled::Cause(cause))
            }
            None => {
                self.advance(position).await?;
                Ok(Pulled::Passed)
            }
        }
    }

    /// The next decision committed, from the subscription (made from the
    /// recorded position the first time): `None` if none comes before the
    /// deadline.
    async fn read_next(
        &mut self,
        deadline: Option<tokio::time::Instant>,
    ) -> Result<Option<Committed>, LogError> {
        if self.inner.sub.is_none() {
            let after = self.log.recorded_position(&self.runner.name).await?;
            self.inner.after = after;
            tracing::info!(runner = %self.runner.name, after, "following the log");
            self.inner.sub = Some(
                self.log
                    .subscribe(self.runner.filter.clone(), after)
                    .await?,
            );
        }
        let Some(sub) = self.inner.sub.as_mut() else {
            return Ok(None);
        };
        let next = match deadline {
            None => sub.next().await,
            Some(at) => match tokio::time::timeout_at(at, sub.next()).await {
                Ok(next) => next,
                Err(_) => return Ok(None),
            },
        };
        match next {
            Some(Ok(committed)) => Ok(Some(committed)),
            Some(Err(e)) => {
                // Subscribed again from the last recorded position.
                self.inner.sub = None;
                Err(e)
            }
            None => Err(LogError::Closed),
        }
    }

    /// Every reaction to `cause` was sent: the runner moves past it.
    pub async fn done(&mut self, cause: &Cause<A>) -> Result<(), LogError> {
        if self
            .inner
            .pending
            .as_ref()
            .is_some_and(|p| p.position == cause.position && p.stream == cause.stream)
        {
            self.inner.pending = None;
            self.advance(cause.position).await?;
        } else if self.inner.out.remove(&cause.position) {
            let read = self.inner.read;
            self.advance(read).await?;
        }
        Ok(())
    }

    /// One more decision done; the position recorded now and then: up to
    /// `position`, but before every decision still out.
    async fn advance(&mut self, position: u64) -> Result<(), LogError> {
        self.inner.unrecorded += 1;
        if self.inner.unrecorded >= self.runner.record_every {
            self.inner.unrecorded = 0;
            let safe = self
                .inner
                .out
                .first()
                .map_or(position, |&out| position.min(out.saturating_sub(1)));
            self.log.record_position(&self.runner.name, safe).await?;
        }
        Ok(())
    }

    /// Whether the decision holding `stream`'s event `version` is at or
    /// before the position the runner follows the log after (or will,
    /// once it subscribes): reacted to before it started.
    async fn passed(&mut self, stream: &StreamId, version: u64) -> Result<bool, LogError> {
        let Some(decision) = self
            .log
            .read_decisions(stream, version)
            .await?
            .into_iter()
            .next()
        else {
            return Ok(false);
        };
        let after = if self.inner.sub.is_some() {
            self.inner.after
        } else {
            self.log.recorded_position(&self.runner.name).await?
        };
        Ok(decision.position <= after)
    }

    /// Reads a stream's state up to (not including) sequence `first`, if
    /// the runner has not seen it yet (it started again from a recorded
    /// position after the stream began).
    async fn load(&mut self, stream: &StreamId, first: u64) -> Result<(), LogError> {
        if self.inner.streams.contains_key(stream) {
            return Ok(());
        }
        let mut state = A::State::default();
        let mut version = 0;
        if first > 1 {
            for envelope in self.log.read(stream, 1).await? {
                if envelope.sequence >= first {
                    break;
                }
                A::apply(&mut state, &envelope.decode()?);
                version = envelope.sequence;
            }
        }
        self.inner.streams.insert(stream.clone(), (version, state));
        Ok(())
    }

    /// Folds a decision into its stream's state; the cause it is, if a
    /// reaction wants it.
    fn fold(&mut self, committed: Committed) -> Result<Option<Cause<A>>, LogError> {
        let (Some(first), Some(last)) = (committed.envelopes.first(), committed.envelopes.last())
        else {
            return Ok(None);
        };
        let (first, last) = (first.sequence, last.sequence);
        let Some((version, state)) = self.inner.streams.get_mut(&committed.stream) else {
            return Ok(None);
        };
        if last <= *version {
            return Ok(None);
        }
        let events: Vec<A::Event> = match committed
            .envelopes
            .iter()
            .map(felt_eventlog::Envelope::decode)
            .collect()
        {
            Ok(events) => events,
            Err(e) => {
                // Never retried: the stream is read again from the log at
                // its next decision, which fails the same way.
                self.inner.streams.remove(&committed.stream);
                return Err(e);
            }
        };
        for e in &events {
            A::apply(state, e);
        }
        *version = last;
        if !events.iter().any(self.runner.wants) {
            return Ok(None);
        }
        let envelope = &committed.envelopes[0];
        Ok(Some(Cause {
            position: committed.position,
            first,
            command_id: envelope.command_id.clone(),
            correlation_id: envelope.correlation_id.clone(),
            recorded_at: envelope.recorded_at,
            events,
            state: state.clone(),
            stream: committed.stream,
        }))
    }
}
