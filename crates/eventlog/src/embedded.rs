//! The embedded backend: one redb file, written by one thread that commits
//! the appends waiting for it together (group commit: one fsync for many
//! decisions, each checked on its own).

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use tokio::sync::{oneshot, watch};

use crate::{
    Appended, Committed, Decision, Envelope, EventLog, Expected, Filter, Hash, LogError, StreamId,
    Subscription, SubscriptionInner, check_decision, envelopes_for,
};

/// (stream key, sequence) -> envelope (MessagePack).
const EVENTS: TableDefinition<(&str, u64), &[u8]> = TableDefinition::new("events");
/// stream key -> (version, hash of the last envelope).
const STREAMS: TableDefinition<&str, (u64, [u8; 32])> = TableDefinition::new("streams");
/// position -> (stream key, first sequence, last sequence): the log's order.
const COMMITS: TableDefinition<u64, (&str, u64, u64)> = TableDefinition::new("commits");
/// (stream key, command id) -> (first, last, position): idempotency.
const COMMANDS: TableDefinition<(&str, &str), (u64, u64, u64)> = TableDefinition::new("commands");

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
            txn.open_table(EVENTS).map_err(storage)?;
            txn.open_table(STREAMS).map_err(storage)?;
            txn.open_table(COMMANDS).map_err(storage)?;
            txn.open_table(COMMITS).map_err(storage)?;
        }
        txn.commit().map_err(storage)?;
        let last = {
            let read = db.begin_read().map_err(storage)?;
            let commits = read.open_table(COMMITS).map_err(storage)?;
            commits
                .last()
                .map_err(storage)?
                .map_or(0, |(k, _)| k.value())
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
    while let Ok(first) = rx.recv() {
        let mut group = vec![first];
        while group.len() < GROUP {
            match rx.try_recv() {
                Ok(r) => group.push(r),
                Err(_) => break,
            }
        }
        match write_group(db, &group) {
            Ok((results, last)) => {
                position.send_replace(last);
                for (req, result) in group.into_iter().zip(results) {
                    let _ = req.reply.send(result);
                }
            }
            Err(e) => {
                tracing::error!(error = %e, decisions = group.len(), "event log commit failed");
                for req in group {
                    let _ = req.reply.send(Err(e.clone()));
                }
            }
        }
    }
}

type GroupResult = (Vec<Result<Appended, LogError>>, u64);

fn write_group(db: &Database, group: &[Request]) -> Result<GroupResult, LogError> {
    let txn = db.begin_write().map_err(storage)?;
    let mut results = Vec::with_capacity(group.len());
    let last_position;
    {
        let mut events = txn.open_table(EVENTS).map_err(storage)?;
        let mut streams = txn.open_table(STREAMS).map_err(storage)?;
        let mut commands = txn.open_table(COMMANDS).map_err(storage)?;
        let mut commits = txn.open_table(COMMITS).map_err(storage)?;
        let mut position = commits
            .last()
            .map_err(storage)?
            .map_or(0, |(k, _)| k.value());
        for req in group {
            let key = req.stream.key();
            let cmd = req.decision.command_id.as_str();
            if let Some(done) = commands.get((key.as_str(), cmd)).map_err(storage)? {
                let (first, last, at) = done.value();
                results.push(Ok(Appended {
                    first,
                    last,
                    position: at,
                    duplicate: true,
                }));
                continue;
            }
            let (version, hash) = streams
                .get(key.as_str())
                .map_err(storage)?
                .map_or((0, [0; 32]), |v| v.value());
            if !req.expected.allows(version) {
                results.push(Err(LogError::Conflict {
                    stream: key,
                    expected: req.expected,
                    actual: version,
                }));
                continue;
            }
            let envs = envelopes_for(&req.stream, version, Hash(hash), &req.decision);
            for env in &envs {
                let bytes =
                    rmp_serde::to_vec_named(env).map_err(|e| LogError::Encode(e.to_string()))?;
                events
                    .insert((key.as_str(), env.sequence), bytes.as_slice())
                    .map_err(storage)?;
            }
            let first = version + 1;
            let last = version + envs.len() as u64;
            let tip = envs.last().map_or(Hash(hash), Envelope::hash);
            position += 1;
            streams
                .insert(key.as_str(), (last, tip.0))
                .map_err(storage)?;
            commits
                .insert(position, (key.as_str(), first, last))
                .map_err(storage)?;
            commands
                .insert((key.as_str(), cmd), (first, last, position))
                .map_err(storage)?;
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

fn parse_key(key: &str) -> Result<StreamId, LogError> {
    let mut parts = key.splitn(3, '.');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(t), Some(k), Some(i)) => StreamId::new(t, k, i),
        _ => Err(LogError::InvalidStreamId {
            input: key.into(),
            reason: "expected tournament.kind.id".into(),
        }),
    }
}

fn read_range(db: &Database, key: &str, from: u64, to: u64) -> Result<Vec<Envelope>, LogError> {
    let read = db.begin_read().map_err(storage)?;
    let events = read.open_table(EVENTS).map_err(storage)?;
    let mut out = Vec::new();
    for item in events
        .range((key, from.max(1))..=(key, to))
        .map_err(storage)?
    {
        let (_, v) = item.map_err(storage)?;
        out.push(
            rmp_serde::from_slice(v.value()).map_err(|e| LogError::Decode {
                what: format!("event of {key}"),
                reason: e.to_string(),
            })?,
        );
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
        read_range(&self.inner.db, &stream.key(), from, u64::MAX)
    }

    async fn version(&self, stream: &StreamId) -> Result<u64, LogError> {
        let read = self.inner.db.begin_read().map_err(storage)?;
        let streams = read.open_table(STREAMS).map_err(storage)?;
        Ok(streams
            .get(stream.key().as_str())
            .map_err(storage)?
            .map_or(0, |v| v.value().0))
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
        let commits = read.open_table(COMMITS).map_err(storage)?;
        let events = read.open_table(EVENTS).map_err(storage)?;
        for item in commits.range(self.after + 1..=to).map_err(storage)? {
            let (position, v) = item.map_err(storage)?;
            let (key, first, last) = v.value();
            let stream = parse_key(key)?;
            if self.filter.matches(&stream) {
                let mut envelopes = Vec::new();
                for e in events.range((key, first)..=(key, last)).map_err(storage)? {
                    let (_, bytes) = e.map_err(storage)?;
                    envelopes.push(rmp_serde::from_slice(bytes.value()).map_err(|e| {
                        LogError::Decode {
                            what: format!("event of {key}"),
                            reason: e.to_string(),
                        }
                    })?);
                }
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
