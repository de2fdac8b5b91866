//! Many followers of single streams, one subscription of the log: a
//! process with a thousand partners watching tables reads each committed
//! decision once and hands it to the followers of its stream only.
//!
//! A follower first reads its own stream from the log after the version it
//! asks for (that stream's decisions only, never the tournament's), then
//! takes what the shared subscription hands it. Each follower's buffer is
//! bounded and the subscription never waits for one: a follower that falls
//! [`FOLLOWER_BUFFER`] decisions behind is dropped from it, and reads its
//! stream again from the log after the last event it gave out. Slow or
//! fast, no follower slows another or the writers, and none loses or
//! repeats an event.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

use crate::{Committed, EventLog, Filter, LogError, StreamId};

/// The decisions a follower may be behind the shared subscription before it
/// is dropped from it (and reads its stream again from the log).
pub const FOLLOWER_BUFFER: usize = 1024;

/// The shared subscription and the followers of each stream.
#[derive(Debug)]
pub struct Fanout<L> {
    log: Arc<L>,
    shared: Arc<Shared>,
    /// Held while the shared subscription is started.
    starting: tokio::sync::Mutex<()>,
}

type Senders = Vec<mpsc::Sender<Arc<Committed>>>;

#[derive(Debug, Default)]
struct Shared {
    /// Each stream's followers' buffers. Emptied when the subscription ends.
    followers: Mutex<HashMap<StreamId, Senders>>,
    /// Whether the shared subscription is running (changed with
    /// `followers` locked).
    running: AtomicBool,
    /// Decisions handed to followers.
    delivered: AtomicU64,
    /// Followers dropped for falling behind.
    behind: AtomicU64,
}

impl Shared {
    fn followers(&self) -> std::sync::MutexGuard<'_, HashMap<StreamId, Senders>> {
        self.followers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Hands a committed decision to its stream's followers, never
    /// waiting: a full buffer drops its follower.
    fn hand_out(&self, committed: Committed) {
        let mut followers = self.followers();
        let Some(senders) = followers.get_mut(&committed.stream) else {
            return;
        };
        let committed = Arc::new(committed);
        senders.retain(|tx| match tx.try_send(Arc::clone(&committed)) {
            Ok(()) => {
                self.delivered.fetch_add(1, Ordering::Relaxed);
                true
            }
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.behind.fetch_add(1, Ordering::Relaxed);
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        });
        if senders.is_empty() {
            followers.remove(&committed.stream);
        }
    }

    /// The subscription ended: every follower reads again from the log
    /// (their buffers close), and the next one to come starts it again.
    fn stopped(&self) {
        let mut followers = self.followers();
        self.running.store(false, Ordering::Release);
        followers.clear();
    }
}

impl<L: EventLog + 'static> Fanout<L> {
    pub fn new(log: Arc<L>) -> Fanout<L> {
        Fanout {
            log,
            shared: Arc::default(),
            starting: tokio::sync::Mutex::new(()),
        }
    }

    pub fn log(&self) -> &Arc<L> {
        &self.log
    }

    /// Every decision of `stream` holding events after version `after`, in
    /// order, each with only its events after the last one given out: what
    /// the stream holds now, then each decision as it is committed.
    pub fn follow(self: &Arc<Self>, stream: StreamId, after: u64) -> Follower<L> {
        Follower {
            fanout: Arc::clone(self),
            stream,
            last: after,
            pending: VecDeque::new(),
            live: None,
            caught_up: 0,
        }
    }

    /// Decisions handed to followers by the shared subscription so far.
    pub fn delivered(&self) -> u64 {
        self.shared.delivered.load(Ordering::Relaxed)
    }

    /// Followers dropped for falling behind so far (each read its stream
    /// again from the log).
    pub fn fell_behind(&self) -> u64 {
        self.shared.behind.load(Ordering::Relaxed)
    }

    /// A buffer for `stream`'s decisions from the shared subscription,
    /// starting the subscription (after the log's head) if it is not
    /// running. Everything committed after the call is handed to it.
    async fn register(
        &self,
        stream: &StreamId,
    ) -> Result<mpsc::Receiver<Arc<Committed>>, LogError> {
        loop {
            {
                let mut followers = self.shared.followers();
                if self.shared.running.load(Ordering::Acquire) {
                    let (tx, rx) = mpsc::channel(FOLLOWER_BUFFER);
                    let senders = followers.entry(stream.clone()).or_default();
                    // Followers gone while their stream was quiet go now.
                    senders.retain(|tx| !tx.is_closed());
                    senders.push(tx);
                    return Ok(rx);
                }
            }
            let _starting = self.starting.lock().await;
            if self.shared.running.load(Ordering::Acquire) {
                continue;
            }
            let head = self.log.head().await?;
            let mut subscription = self.log.subscribe(Filter::all(), head).await?;
            self.shared.running.store(true, Ordering::Release);
            let shared = Arc::clone(&self.shared);
            tokio::spawn(async move {
                while let Some(next) = subscription.next().await {
                    match next {
                        Ok(committed) => shared.hand_out(committed),
                        Err(e) => {
                            tracing::warn!(error = %e, "the followers' subscription failed: they read again from the log");
                            break;
                        }
                    }
                }
                shared.stopped();
            });
        }
    }
}

/// One stream's decisions as [`Fanout::follow`] says.
#[derive(Debug)]
pub struct Follower<L> {
    fanout: Arc<Fanout<L>>,
    stream: StreamId,
    /// The last event given out (at first, the version asked after).
    last: u64,
    /// Read from the log, not yet given out.
    pending: VecDeque<Committed>,
    /// The shared subscription's buffer; none before the first read, or
    /// after falling behind.
    live: Option<mpsc::Receiver<Arc<Committed>>>,
    /// Times this follower read its stream from the log.
    caught_up: u64,
}

impl<L: EventLog + 'static> Follower<L> {
    /// The next decision with events after the last one given out; waits
    /// for one to be committed. An error if the log cannot be read.
    pub async fn next(&mut self) -> Result<Committed, LogError> {
        loop {
            if let Some(committed) = self.pending.pop_front() {
                return Ok(committed);
            }
            let Some(live) = self.live.as_mut() else {
                self.catch_up().await?;
                continue;
            };
            let Some(committed) = live.recv().await else {
                // Dropped for falling behind, or the subscription ended.
                self.live = None;
                continue;
            };
            match self.after_last(&committed) {
                Some(Ok(c)) => return Ok(c),
                Some(Err(())) => self.live = None,
                None => {}
            }
        }
    }

    /// The version of the last event given out.
    pub fn last(&self) -> u64 {
        self.last
    }

    /// Times this follower read its stream from the log: once at first,
    /// then once each time it fell behind.
    pub fn caught_up(&self) -> u64 {
        self.caught_up
    }

    /// `committed` with its events after the last one given out; `None` if
    /// it has none, an error if it does not follow on (a gap).
    fn after_last(&mut self, committed: &Committed) -> Option<Result<Committed, ()>> {
        let envelopes: Vec<_> = committed
            .envelopes
            .iter()
            .filter(|e| e.sequence > self.last)
            .cloned()
            .collect();
        let (first, last) = (envelopes.first()?.sequence, envelopes.last()?.sequence);
        if first != self.last + 1 {
            return Some(Err(()));
        }
        self.last = last;
        Some(Ok(Committed {
            position: committed.position,
            stream: committed.stream.clone(),
            envelopes,
        }))
    }

    /// Registers for what is committed from now on, then reads what the
    /// stream holds after the last event given out: nothing is missed
    /// between the two, and what both give is given once.
    async fn catch_up(&mut self) -> Result<(), LogError> {
        self.live = Some(self.fanout.register(&self.stream).await?);
        self.caught_up += 1;
        let decisions = self
            .fanout
            .log
            .read_decisions(&self.stream, self.last + 1)
            .await?;
        for committed in decisions {
            match self.after_last(&committed) {
                Some(Ok(c)) => self.pending.push_back(c),
                Some(Err(())) => {
                    return Err(LogError::Decode {
                        what: format!("{}", self.stream),
                        reason: format!(
                            "the stream read back skips from version {} to {}",
                            self.last,
                            committed.envelopes.first().map_or(0, |e| e.sequence)
                        ),
                    });
                }
                None => {}
            }
        }
        Ok(())
    }
}
