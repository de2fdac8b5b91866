//! The embedded backend: one redb file, written by one thread that commits
//! the appends waiting for it together (group commit: one fsync for many
//! decisions, each checked on its own).
//!
//! Layout. The log is one table in position order, so a commit writes at the
//! right edge of one tree. Each decision's value starts with the position of
//! its stream's previous decision: a stream is read by walking back from its
//! tip. The tips (each stream's version, last position and last hash) are
//! kept in memory, saved to a table every [`SNAPSHOT_EVERY`] decisions, and
//! rebuilt on open from that snapshot and the log after it.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::mpsc;
use std::sync::{Arc, RwLock};

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction};
use tokio::sync::{oneshot, watch};

use crate::{
    Appended, Committed, Decision, Envelope, EventLog, Expected, Filter, Hash, LogError, StreamId,
    Subscription, SubscriptionInner, check_consumer, check_decision, envelopes_for,
};

/// position -> the stream's previous position (8 bytes, little-endian, 0
/// for none) followed by the decision's envelopes ([`Envelope::encode_all`]).
const LOG: TableDefinition<u64, &[u8]> = TableDefinition::new("log");
/// stream key -> (version, position, hash of the last envelope), as of the
/// snapshot position in `META`.
const TIPS: TableDefinition<&[u8], (u64, u64, [u8; 32])> = TableDefinition::new("tips");
/// "tips_at" -> the position the saved tips cover.
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
/// (stream key, command id) -> position, for appends that expected `Any`
/// (the others are recognised by their expected version).
const COMMANDS: TableDefinition<(&[u8], &[u8]), u64> = TableDefinition::new("commands");

/// consumer -> the position it recorded ([`EventLog::record_position`]).
const POSITIONS: TableDefinition<&str, u64> = TableDefinition::new("positions");

/// Most decisions committed in one transaction.
const GROUP: usize = 1024;
/// Decisions between two saves of the tips: at most this many are read
/// again when the file is opened.
#[cfg(not(test))]
const SNAPSHOT_EVERY: u64 = 100_000;
#[cfg(test)]
const SNAPSHOT_EVERY: u64 = 64;

fn storage<E: std::fmt::Display>(e: E) -> LogError {
    LogError::Storage(e.to_string())
}

/// Where a stream ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Tip {
    version: u64,
    position: u64,
    hash: Hash,
}

type Tips = HashMap<String, Tip>;

fn encode_value(previous: u64, envelopes: &[Envelope]) -> Result<Vec<u8>, LogError> {
    let mut value = previous.to_le_bytes().to_vec();
    value.extend(Envelope::encode_all(envelopes)?);
    Ok(value)
}

fn decode_value(value: &[u8]) -> Result<(u64, Vec<Envelope>), LogError> {
    let (head, rest) = value.split_at_checked(8).ok_or_else(|| LogError::Decode {
        what: "log entry".into(),
        reason: "shorter than its header".into(),
    })?;
    let mut previous = [0u8; 8];
    previous.copy_from_slice(head);
    Ok((u64::from_le_bytes(previous), Envelope::decode_all(rest)?))
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
    /// The committed tips, published by the writer after each commit.
    tips: Arc<RwLock<Tips>>,
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

/// The writer thread's state.
struct Writer {
    db: Arc<Database>,
    tips: Tips,
    shared: Arc<RwLock<Tips>>,
    /// Streams whose tips changed since the last save.
    dirty: HashSet<String>,
    tips_at: u64,
}

/// Changes one stored event in place, behind the log's back: what a
/// tampering auditor's test needs (the log must not be open). Returns
/// whether the event was found.
#[cfg(any(test, feature = "test-util"))]
pub fn tamper(
    path: &Path,
    stream: &StreamId,
    sequence: u64,
    change: impl FnOnce(&mut Envelope),
) -> Result<bool, LogError> {
    let db = Database::open(path).map_err(storage)?;
    let txn = db.begin_write().map_err(storage)?;
    let mut found = None;
    {
        let table = txn.open_table(LOG).map_err(storage)?;
        for row in table.iter().map_err(storage)? {
            let (key, value) = row.map_err(storage)?;
            let (previous, envs) = decode_value(value.value())?;
            if envs
                .iter()
                .any(|e| e.stream == *stream && e.sequence == sequence)
            {
                found = Some((key.value(), previous, envs));
                break;
            }
        }
    }
    let Some((position, previous, mut envs)) = found else {
        return Ok(false);
    };
    if let Some(env) = envs.iter_mut().find(|e| e.sequence == sequence) {
        change(env);
    }
    {
        let mut table = txn.open_table(LOG).map_err(storage)?;
        let value = encode_value(previous, &envs)?;
        table.insert(position, value.as_slice()).map_err(storage)?;
    }
    txn.commit().map_err(storage)?;
    Ok(true)
}

impl EmbeddedLog {
    /// Hands a decision to the writer; its answer to come.
    fn send(
        &self,
        stream: &StreamId,
        expected: Expected,
        decision: Decision,
    ) -> Result<impl Future<Output = Result<Appended, LogError>> + Send + 'static, LogError> {
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
        Ok(async move { answer.await.map_err(|_| LogError::Closed)? })
    }

    /// Opens (or creates) the log file at `path`.
    pub fn open(path: &Path) -> Result<EmbeddedLog, LogError> {
        let db = Arc::new(Database::create(path).map_err(storage)?);
        let txn = db.begin_write().map_err(storage)?;
        {
            txn.open_table(LOG).map_err(storage)?;
            txn.open_table(TIPS).map_err(storage)?;
            txn.open_table(META).map_err(storage)?;
            txn.open_table(COMMANDS).map_err(storage)?;
            txn.open_table(POSITIONS).map_err(storage)?;
        }
        txn.commit().map_err(storage)?;
        let (tips, tips_at, dirty, last) = load_tips(&db)?;
        let shared = Arc::new(RwLock::new(tips.clone()));
        let (position_tx, position) = watch::channel(last);
        let (tx, rx) = mpsc::channel::<Request>();
        let mut writer = Writer {
            db: db.clone(),
            tips,
            shared: shared.clone(),
            dirty,
            tips_at,
        };
        let thread = std::thread::Builder::new()
            .name("felt-eventlog-writer".into())
            .spawn(move || writer.run(&rx, &position_tx))
            .map_err(storage)?;
        Ok(EmbeddedLog {
            inner: Arc::new(Inner {
                db,
                writer: std::sync::Mutex::new(Some(tx)),
                thread: Some(thread),
                position,
                tips: shared,
            }),
        })
    }

    /// The position of the last committed decision.
    pub fn position(&self) -> u64 {
        *self.inner.position.borrow()
    }

    fn tip(&self, key: &str) -> Result<Tip, LogError> {
        let tips = self.inner.tips.read().map_err(storage)?;
        Ok(tips.get(key).copied().unwrap_or_default())
    }
}

/// The saved tips, brought up to date with the log after them.
fn load_tips(db: &Database) -> Result<(Tips, u64, HashSet<String>, u64), LogError> {
    let read = db.begin_read().map_err(storage)?;
    let saved = read.open_table(TIPS).map_err(storage)?;
    let meta = read.open_table(META).map_err(storage)?;
    let log = read.open_table(LOG).map_err(storage)?;
    let tips_at = meta
        .get("tips_at")
        .map_err(storage)?
        .map_or(0, |v| v.value());
    let mut tips = Tips::new();
    for item in saved.iter().map_err(storage)? {
        let (k, v) = item.map_err(storage)?;
        let (version, position, hash) = v.value();
        tips.insert(
            String::from_utf8_lossy(k.value()).into_owned(),
            Tip {
                version,
                position,
                hash: Hash(hash),
            },
        );
    }
    let mut dirty = HashSet::new();
    let mut last = tips_at;
    for item in log.range(tips_at + 1..).map_err(storage)? {
        let (position, value) = item.map_err(storage)?;
        let (_, envelopes) = decode_value(value.value())?;
        if let Some(env) = envelopes.last() {
            let key = env.stream.key();
            tips.insert(
                key.clone(),
                Tip {
                    version: env.sequence,
                    position: position.value(),
                    hash: env.hash(),
                },
            );
            dirty.insert(key);
        }
        last = position.value();
    }
    Ok((tips, tips_at, dirty, last))
}

impl Writer {
    fn run(&mut self, rx: &mpsc::Receiver<Request>, position: &watch::Sender<u64>) {
        while let Ok(first) = rx.recv() {
            let mut group = vec![first];
            while group.len() < GROUP {
                match rx.try_recv() {
                    Ok(r) => group.push(r),
                    Err(_) => break,
                }
            }
            match self.write_group(&group) {
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

    /// Checks and writes a group of appends in one transaction. Tips change
    /// (in memory and for readers) only once the transaction is committed.
    fn write_group(&mut self, group: &[Request]) -> Result<GroupResult, LogError> {
        let txn = self.db.begin_write().map_err(storage)?;
        let mut results = Vec::with_capacity(group.len());
        let mut changed: Tips = Tips::new();
        let last_position;
        {
            let mut log = txn.open_table(LOG).map_err(storage)?;
            let mut commands = txn.open_table(COMMANDS).map_err(storage)?;
            let mut position = log.last().map_err(storage)?.map_or(0, |(k, _)| k.value());
            for req in group {
                let key = req.stream.key();
                let cmd = req.decision.command_id.as_str();
                let tip = changed
                    .get(&key)
                    .or_else(|| self.tips.get(&key))
                    .copied()
                    .unwrap_or_default();
                // A retried command carries the expectation its first append
                // had. With an exact one, the command, if it was appended, is
                // the decision right after that version; with `Any`, the
                // command-id table (written for `Any` appends only) knows.
                let earlier = match req.expected {
                    Expected::Any => commands
                        .get((key.as_bytes(), cmd.as_bytes()))
                        .map_err(storage)?
                        .map(|v| v.value()),
                    e if e.allows(tip.version) => None,
                    Expected::NoStream => decision_at(&log, tip, 1)?,
                    Expected::Exactly(v) => decision_at(&log, tip, v + 1)?,
                };
                if let Some(at) = earlier
                    && let Some(value) = log.get(at).map_err(storage)?
                {
                    let (_, envs) = decode_value(value.value())?;
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
                if !req.expected.allows(tip.version) {
                    results.push(Err(LogError::Conflict {
                        stream: key,
                        expected: req.expected,
                        actual: tip.version,
                    }));
                    continue;
                }
                let envs = envelopes_for(&req.stream, tip.version, tip.hash, &req.decision);
                let first = tip.version + 1;
                let last = tip.version + envs.len() as u64;
                position += 1;
                log.insert(position, encode_value(tip.position, &envs)?.as_slice())
                    .map_err(storage)?;
                if req.expected == Expected::Any {
                    commands
                        .insert((key.as_bytes(), cmd.as_bytes()), position)
                        .map_err(storage)?;
                }
                changed.insert(
                    key,
                    Tip {
                        version: last,
                        position,
                        hash: envs.last().map_or(tip.hash, Envelope::hash),
                    },
                );
                results.push(Ok(Appended {
                    first,
                    last,
                    position,
                    duplicate: false,
                }));
            }
            last_position = position;
        }
        let save = last_position >= self.tips_at + SNAPSHOT_EVERY;
        if save {
            self.save_tips(&txn, &changed, last_position)?;
        }
        txn.commit().map_err(storage)?;
        if save {
            self.dirty.clear();
            self.tips_at = last_position;
        } else {
            self.dirty.extend(changed.keys().cloned());
        }
        if let Ok(mut shared) = self.shared.write() {
            shared.extend(changed.iter().map(|(k, t)| (k.clone(), *t)));
        }
        self.tips.extend(changed);
        Ok((results, last_position))
    }

    /// Saves every tip changed since the last save, as of `at`.
    fn save_tips(&self, txn: &WriteTransaction, changed: &Tips, at: u64) -> Result<(), LogError> {
        let mut saved = txn.open_table(TIPS).map_err(storage)?;
        let mut meta = txn.open_table(META).map_err(storage)?;
        for key in self.dirty.iter().chain(changed.keys()) {
            if let Some(t) = changed.get(key).or_else(|| self.tips.get(key)) {
                saved
                    .insert(key.as_bytes(), (t.version, t.position, t.hash.0))
                    .map_err(storage)?;
            }
        }
        meta.insert("tips_at", at).map_err(storage)?;
        Ok(())
    }
}

type GroupResult = (Vec<Result<Appended, LogError>>, u64);

/// The position of the stream's decision whose first event is `first`,
/// walking back from the tip.
fn decision_at(
    log: &impl ReadableTable<u64, &'static [u8]>,
    tip: Tip,
    first: u64,
) -> Result<Option<u64>, LogError> {
    let mut at = tip.position;
    while at != 0 {
        let Some(value) = log.get(at).map_err(storage)? else {
            return Ok(None);
        };
        let (previous, envs) = decode_value(value.value())?;
        match envs.first().map(|e| e.sequence) {
            Some(s) if s == first => return Ok(Some(at)),
            Some(s) if s < first => return Ok(None),
            _ => at = previous,
        }
    }
    Ok(None)
}

impl EventLog for EmbeddedLog {
    async fn append(
        &self,
        stream: &StreamId,
        expected: Expected,
        decision: Decision,
    ) -> Result<Appended, LogError> {
        self.send(stream, expected, decision)?.await
    }

    fn queue(
        &self,
        stream: &StreamId,
        expected: Expected,
        decision: Decision,
    ) -> Result<impl Future<Output = Result<Appended, LogError>> + Send + 'static, Box<Decision>>
    {
        // The writer takes requests in the order they were sent, and
        // checks each against the tips the ones before it left.
        let sent = self.send(stream, expected, decision);
        Ok(async move { sent?.await })
    }

    async fn read_decisions(
        &self,
        stream: &StreamId,
        from: u64,
    ) -> Result<Vec<Committed>, LogError> {
        // The tip first: the commit that made it is complete, so a read
        // transaction begun after sees it.
        let tip = self.tip(&stream.key())?;
        let read = self.inner.db.begin_read().map_err(storage)?;
        let log = read.open_table(LOG).map_err(storage)?;
        let mut decisions = Vec::new();
        let mut at = tip.position;
        while at != 0 {
            let Some(value) = log.get(at).map_err(storage)? else {
                break;
            };
            let (previous, envelopes) = decode_value(value.value())?;
            let done = envelopes.first().is_none_or(|e| e.sequence <= from);
            if envelopes.last().is_some_and(|e| e.sequence >= from) {
                decisions.push(Committed {
                    position: at,
                    stream: stream.clone(),
                    envelopes,
                });
            }
            if done {
                break;
            }
            at = previous;
        }
        decisions.reverse();
        Ok(decisions)
    }

    async fn read_decision(
        &self,
        stream: &StreamId,
        position: u64,
    ) -> Result<Vec<Envelope>, LogError> {
        let read = self.inner.db.begin_read().map_err(storage)?;
        let log = read.open_table(LOG).map_err(storage)?;
        let Some(value) = log.get(position).map_err(storage)? else {
            return Ok(Vec::new());
        };
        let (_, envelopes) = decode_value(value.value())?;
        if envelopes.first().is_some_and(|e| e.stream == *stream) {
            Ok(envelopes)
        } else {
            Ok(Vec::new())
        }
    }

    async fn version(&self, stream: &StreamId) -> Result<u64, LogError> {
        Ok(self.tip(&stream.key())?.version)
    }

    async fn read_all<F>(&self, filter: &Filter, mut each: F) -> Result<u64, LogError>
    where
        F: FnMut(Committed) -> Result<(), LogError> + Send,
    {
        let to = self.position();
        let mut after = 0;
        while after < to {
            // In slices, letting other tasks run between them.
            let end = to.min(after + 4096);
            scan(&self.inner.db, after, end, filter, &mut each)?;
            after = end;
            tokio::task::yield_now().await;
        }
        Ok(to)
    }

    async fn head(&self) -> Result<u64, LogError> {
        Ok(*self.inner.position.borrow())
    }

    async fn subscribe(&self, filter: Filter, after: u64) -> Result<Subscription, LogError> {
        let mut buffer = VecDeque::new();
        let mut from = after;
        if let Some(stream) = filter.one_stream() {
            // One stream: what it holds after `after` so far, by its own
            // links back from its tip, not a scan of the whole log; the
            // subscription goes on from the position committed then.
            let committed = *self.inner.position.borrow();
            if committed > after {
                let tip = self.tip(&stream.key())?;
                let read = self.inner.db.begin_read().map_err(storage)?;
                let log = read.open_table(LOG).map_err(storage)?;
                let mut at = tip.position;
                while at > after {
                    let Some(value) = log.get(at).map_err(storage)? else {
                        break;
                    };
                    let (previous, envelopes) = decode_value(value.value())?;
                    if at <= committed {
                        buffer.push_front(Committed {
                            position: at,
                            stream: stream.clone(),
                            envelopes,
                        });
                    }
                    at = previous;
                }
                from = committed;
            }
        }
        Ok(Subscription {
            inner: SubscriptionInner::Embedded(EmbeddedSubscription {
                db: self.inner.db.clone(),
                position: self.inner.position.clone(),
                filter,
                after: from,
                buffer,
            }),
        })
    }

    async fn record_position(&self, consumer: &str, position: u64) -> Result<(), LogError> {
        check_consumer(consumer)?;
        // Its own transaction (redb runs it between the writer's groups),
        // off the async threads: a commit waits for the disk.
        let db = self.inner.db.clone();
        let consumer = consumer.to_string();
        tokio::task::spawn_blocking(move || {
            let txn = db.begin_write().map_err(storage)?;
            txn.open_table(POSITIONS)
                .map_err(storage)?
                .insert(consumer.as_str(), position)
                .map_err(storage)?;
            txn.commit().map_err(storage)
        })
        .await
        .map_err(storage)?
    }

    async fn recorded_position(&self, consumer: &str) -> Result<u64, LogError> {
        check_consumer(consumer)?;
        let read = self.inner.db.begin_read().map_err(storage)?;
        let positions = read.open_table(POSITIONS).map_err(storage)?;
        Ok(positions
            .get(consumer)
            .map_err(storage)?
            .map_or(0, |v| v.value()))
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
        let buffer = &mut self.buffer;
        scan(&self.db, self.after, to, &self.filter, |c| {
            buffer.push_back(c);
            Ok(())
        })?;
        self.after = to;
        Ok(())
    }
}

/// Hands `each` the decisions after position `after`, up to `to`, of the
/// streams `filter` matches, in order.
fn scan(
    db: &Database,
    after: u64,
    to: u64,
    filter: &Filter,
    mut each: impl FnMut(Committed) -> Result<(), LogError>,
) -> Result<(), LogError> {
    let read = db.begin_read().map_err(storage)?;
    let log = read.open_table(LOG).map_err(storage)?;
    for item in log.range(after + 1..=to).map_err(storage)? {
        let (position, value) = item.map_err(storage)?;
        let (_, envelopes) = decode_value(value.value())?;
        let Some(stream) = envelopes.first().map(|e| e.stream.clone()) else {
            continue;
        };
        if filter.matches(&stream) {
            each(Committed {
                position: position.value(),
                stream,
                envelopes,
            })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{decision, stream};

    #[tokio::test]
    async fn tips_are_saved_and_rebuilt_from_the_log_after_the_save() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.redb");
        let streams: Vec<StreamId> = (0..5).map(|i| stream("table", &i.to_string())).collect();
        {
            let log = EmbeddedLog::open(&path).unwrap();
            // Past one save of the tips, and some after it.
            for i in 0..SNAPSHOT_EVERY + 37 {
                let s = &streams[(i % 5) as usize];
                log.append(s, Expected::Any, decision(&format!("d{i}"), i, 1))
                    .await
                    .unwrap();
            }
        }
        let db = Database::create(&path).unwrap();
        let (tips, tips_at, dirty, last) = load_tips(&db).unwrap();
        drop(db);
        assert!(tips_at >= SNAPSHOT_EVERY && tips_at < last);
        assert_eq!(last, SNAPSHOT_EVERY + 37);
        assert!(!dirty.is_empty());
        let log = EmbeddedLog::open(&path).unwrap();
        for s in &streams {
            let version = log.version(s).await.unwrap();
            assert_eq!(version, tips[&s.key()].version);
            assert_eq!(log.read(s, version).await.unwrap().len(), 1);
            let next = log
                .append(s, Expected::Exactly(version), decision("next", 0, 1))
                .await
                .unwrap();
            assert_eq!(next.first, version + 1);
        }
    }
}
