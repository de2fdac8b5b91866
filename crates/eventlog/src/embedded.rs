//! The embedded backend: one redb file, written by one thread that commits
//! the appends waiting for it together (group commit: one fsync for many
//! decisions, each checked on its own).

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use tokio::sync::{oneshot, watch};

use crate::{
    Appended, Committed, Decision, Envelope, EventLog, Expected, Filter, Hash, LogError, StreamId,
    Subscription, SubscriptionInner, check_decision, envelopes_for,
};

/// position -> a decision's envelopes ([`Envelope::encode_all`]), in the
/// order the log committed them: appends go to the right edge of the tree.
const LOG: TableDefinition<u64, &[u8]> = TableDefinition::new("log");
/// (stream key, first sequence) -> (position, last sequence, hash of the
/// last envelope): each stream's decisions; its last entry is its tip.
const INDEX: TableDefinition<IndexKey, IndexEntry> = TableDefinition::new("index");
type IndexKey = (&'static [u8], u64);
type IndexEntry = (u64, u64, [u8; 32]);
/// (stream key, command id) -> position, for appends that expected `Any`
/// (the others are recognised by their expected version).
const COMMANDS: TableDefinition<(&[u8], &[u8]), u64> = TableDefinition::new("commands");

/// Most decisions committed in one transaction.
const GROUP: usize = 1024;

fn storage<E: std::fmt::Display>(e: E) -> LogError {
    LogError::Storage(e.to_string())
}

struct Request {
    stream: StreamId,
    expected: Expected,
    decision: Decision,
    reply: oneshot::Sender<Result<Appended, LogError>>,
}

struct Inner {
    db: Arc<Database>,
    writer: std::sync::Mutex<Option<mpsc::Sender<Request>>>,
    thread: Option<std::thread::JoinHandle<()>>,
    position: watch::Receiver<u64>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Closing the channel ends the writer once it has committed what it
        // holds; waiting for it releases the file for the next open.
        if let Ok(mut w) = self.writer.lock() {
            w.take();
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The log in one redb file: durable once an append returns (each commit
/// is flushed to disk before it is acknowledged).
#[derive(Clone)]
pub struct EmbeddedLog {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for EmbeddedLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedLog")
            .field("position", &*self.inner.position.borrow())
            .finish()
    }
}

impl EmbeddedLog {
    /// Opens (or creates) the log file at `path`.
    pub fn open(path: &Path) -> Result<EmbeddedLog, LogError> {
        let db = Arc::new(Database::create(path).map_err(storage)?);
        let txn = db.begin_write().map_err(storage)?;
        {
            txn.open_table(LOG).map_err(storage)?;
            txn.open_table(INDEX).map_err(storage)?;
            txn.open_table(COMMANDS).map_err(storage)?;
        }
        txn.commit().map_err(storage)?;
        let last = {
            let read = db.begin_read().map_err(storage)?;
            let log = read.open_table(LOG).map_err(storage)?;
            log.last().map_err(storage)?.map_or(0, |(k, _)| k.value())
        };
        let (position_tx, position) = watch::channel(last);
        let (tx, rx) = mpsc::channel::<Request>();
        let writer_db = db.clone();
        let thread = std::thread::Builder::new()
            .name("felt-eventlog-writer".into())
            .spawn(move || writer(&writer_db, &rx, &position_tx))
            .map_err(storage)?;
        Ok(EmbeddedLog {
            inner: Arc::new(Inner {
                db,
                writer: std::sync::Mutex::new(Some(tx)),
                thread: Some(thread),
                position,
            }),
        })
    }

    /// The position of the last committed decision.
    pub fn position(&self) -> u64 {
        *self.inner.position.borrow()
    }
}

fn writer(db: &Database, rx: &mpsc::Receiver<Request>, position: &watch::Sender<u64>) {
    let mut tips = Tips::new();
    while let Ok(first) = rx.recv() {
        let mut group = vec![first];
        while group.len() < GROUP {
            match rx.try_recv() {
                Ok(r) => group.push(r),
                Err(_) => break,
            }
        }
        match write_group(db, &group, &mut tips) {
            Ok((results, last)) => {
                position.send_replace(last);
                for (req, result) in group.into_iter().zip(results) {
                    let _ = req.reply.send(result);
                }
            }
            Err(e) => {
                // The cache may hold tips of the group that was not stored.
                tips.clear();
                tracing::error!(error = %e, decisions = group.len(), "event log commit failed");
                for req in group {
                    let _ = req.reply.send(Err(e.clone()));
                }
            }
        }
    }
}

type GroupResult = (Vec<Result<Appended, LogError>>, u64);

/// Each stream's version and last hash, as committed (the writer's cache).
type Tips = HashMap<String, (u64, Hash)>;

fn write_group(db: &Database, group: &[Request], tips: &mut Tips) -> Result<GroupResult, LogError> {
    let txn = db.begin_write().map_err(storage)?;
    let mut results = Vec::with_capacity(group.len());
    let last_position;
    {
        let mut log = txn.open_table(LOG).map_err(storage)?;
        let mut index = txn.open_table(INDEX).map_err(storage)?;
        let mut commands = txn.open_table(COMMANDS).map_err(storage)?;
        let mut position = log.last().map_err(storage)?.map_or(0, |(k, _)| k.value());
        for req in group {
            let key = req.stream.key();
            let k = key.as_bytes();
            let cmd = req.decision.command_id.as_str();
            let (version, hash) = match tips.get(&key) {
                Some(t) => *t,
                None => tip(&index, k)?,
            };
            // A retried command carries the expectation its first append
            // had. With an exact one, the command, if it was appended, is
            // the decision right after that version; with `Any`, the
            // command-id table (written for `Any` appends only) knows.
            let earlier = match req.expected {
                Expected::Any => commands
                    .get((k, cmd.as_bytes()))
                    .map_err(storage)?
                    .map(|v| v.value()),
                e if e.allows(version) => None,
                Expected::NoStream => decision_at(&index, k, 1)?,
                Expected::Exactly(v) => decision_at(&index, k, v + 1)?,
            };
            if let Some(at) = earlier
                && let Some(bytes) = log.get(at).map_err(storage)?
            {
                let envs = Envelope::decode_all(bytes.value())?;
                if envs.first().is_some_and(|e| e.command_id == cmd) {
                    results.push(Ok(Appended {
                        first: envs.first().map_or(0, |e| e.sequence),
                        last: envs.last().map_or(0, |e| e.sequence),
                        position: at,
                        duplicate: true,
                    }));
                    continue;
                }
            }
            if !req.expected.allows(version) {
                results.push(Err(LogError::Conflict {
                    stream: key,
                    expected: req.expected,
                    actual: version,
                }));
                continue;
            }
            let envs = envelopes_for(&req.stream, version, hash, &req.decision);
            let first = version + 1;
            let last = version + envs.len() as u64;
            let tip_hash = envs.last().map_or(hash, Envelope::hash);
            position += 1;
            log.insert(position, Envelope::encode_all(&envs)?.as_slice())
                .map_err(storage)?;
            index
                .insert((k, first), (position, last, tip_hash.0))
                .map_err(storage)?;
            if req.expected == Expected::Any {
                commands
                    .insert((k, cmd.as_bytes()), position)
                    .map_err(storage)?;
            }
            tips.insert(key, (last, tip_hash));
            results.push(Ok(Appended {
                first,
                last,
                position,
                duplicate: false,
            }));
        }
        last_position = position;
    }
    txn.commit().map_err(storage)?;
    Ok((results, last_position))
}

/// The position of the stream's decision whose first event is `first`.
fn decision_at(
    index: &impl ReadableTable<IndexKey, IndexEntry>,
    key: &[u8],
    first: u64,
) -> Result<Option<u64>, LogError> {
    Ok(index
        .get((key, first))
        .map_err(storage)?
        .map(|v| v.value().0))
}

/// A stream's version and last hash: its last index entry.
fn tip(
    index: &impl ReadableTable<IndexKey, IndexEntry>,
    key: &[u8],
) -> Result<(u64, Hash), LogError> {
    let last = index
        .range((key, 0)..=(key, u64::MAX))
        .map_err(storage)?
        .next_back()
        .transpose()
        .map_err(storage)?;
    Ok(last.map_or((0, Hash::default()), |(_, v)| {
        let (_, last, hash) = v.value();
        (last, Hash(hash))
    }))
}

fn read_stream(db: &Database, key: &str, from: u64) -> Result<Vec<Envelope>, LogError> {
    let read = db.begin_read().map_err(storage)?;
    let index = read.open_table(INDEX).map_err(storage)?;
    let log = read.open_table(LOG).map_err(storage)?;
    let k = key.as_bytes();
    let mut out = Vec::new();
    for item in index.range((k, 0)..=(k, u64::MAX)).map_err(storage)? {
        let (_, v) = item.map_err(storage)?;
        let (position, last, _) = v.value();
        if last < from {
            continue;
        }
        if let Some(bytes) = log.get(position).map_err(storage)? {
            out.extend(
                Envelope::decode_all(bytes.value())?
                    .into_iter()
                    .filter(|e| e.sequence >= from),
            );
        }
    }
    Ok(out)
}

impl EventLog for EmbeddedLog {
    async fn append(
        &self,
        stream: &StreamId,
        expected: Expected,
        decision: Decision,
    ) -> Result<Appended, LogError> {
        check_decision(&decision)?;
        let (reply, answer) = oneshot::channel();
        let request = Request {
            stream: stream.clone(),
            expected,
            decision,
            reply,
        };
        {
            let writer = self.inner.writer.lock().map_err(storage)?;
            writer
                .as_ref()
                .ok_or(LogError::Closed)?
                .send(request)
                .map_err(|_| LogError::Closed)?;
        }
        answer.await.map_err(|_| LogError::Closed)?
    }

    async fn read(&self, stream: &StreamId, from: u64) -> Result<Vec<Envelope>, LogError> {
        read_stream(&self.inner.db, &stream.key(), from)
    }

    async fn version(&self, stream: &StreamId) -> Result<u64, LogError> {
        let read = self.inner.db.begin_read().map_err(storage)?;
        let index = read.open_table(INDEX).map_err(storage)?;
        Ok(tip(&index, stream.key().as_bytes())?.0)
    }

    async fn subscribe(&self, filter: Filter, after: u64) -> Result<Subscription, LogError> {
        Ok(Subscription {
            inner: SubscriptionInner::Embedded(EmbeddedSubscription {
                db: self.inner.db.clone(),
                position: self.inner.position.clone(),
                filter,
                after,
                buffer: VecDeque::new(),
            }),
        })
    }
}

/// Reads committed decisions from the file in order; waits on the writer's
/// position when it has caught up.
pub(crate) struct EmbeddedSubscription {
    db: Arc<Database>,
    position: watch::Receiver<u64>,
    filter: Filter,
    after: u64,
    buffer: VecDeque<Committed>,
}

impl std::fmt::Debug for EmbeddedSubscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedSubscription")
            .field("filter", &self.filter)
            .field("after", &self.after)
            .finish()
    }
}

impl EmbeddedSubscription {
    pub(crate) async fn next(&mut self) -> Option<Result<Committed, LogError>> {
        loop {
            if let Some(c) = self.buffer.pop_front() {
                return Some(Ok(c));
            }
            let committed = *self.position.borrow_and_update();
            if committed > self.after {
                if let Err(e) = self.fill(committed) {
                    return Some(Err(e));
                }
                continue;
            }
            if self.position.changed().await.is_err() {
                return None;
            }
        }
    }

    /// Reads up to 512 decisions after `self.after`, at most to `committed`.
    fn fill(&mut self, committed: u64) -> Result<(), LogError> {
        let to = committed.min(self.after + 512);
        let read = self.db.begin_read().map_err(storage)?;
        let log = read.open_table(LOG).map_err(storage)?;
        for item in log.range(self.after + 1..=to).map_err(storage)? {
            let (position, bytes) = item.map_err(storage)?;
            let envelopes = Envelope::decode_all(bytes.value())?;
            let Some(stream) = envelopes.first().map(|e| e.stream.clone()) else {
                continue;
            };
            if self.filter.matches(&stream) {
                self.buffer.push_back(Committed {
                    position: position.value(),
                    stream,
                    envelopes,
                });
            }
        }
        self.after = to;
        Ok(())
    }
}
