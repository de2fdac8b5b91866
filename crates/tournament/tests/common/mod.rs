//! What the crash tests share: a log that dies after a number of appends,
//! and a tournament's streams compared event by event.

// Each test file uses some of these helpers, not all.
#![allow(dead_code)]

use std::sync::Arc;

use felt_eventlog::{EmbeddedLog, EventLog, Filter, Subscription};

/// A copy of the log in `file`, open, in a folder of its own (kept while
/// the folder is).
pub(crate) fn copied(file: &std::path::Path) -> (tempfile::TempDir, Arc<EmbeddedLog>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(file, dir.path().join("log.redb")).unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    (dir, log)
}

/// A log that takes a number of appends and then fails every one, as if
/// the process had died there: the crash after every step.
pub(crate) struct Crashing {
    log: Arc<EmbeddedLog>,
    left: std::sync::atomic::AtomicU64,
    made: std::sync::atomic::AtomicU64,
    reads: std::sync::atomic::AtomicU64,
    /// The streams read, by key, one for each read.
    read: std::sync::Mutex<Vec<String>>,
}

impl Crashing {
    /// `log`, failing every append after the first `budget`.
    pub(crate) fn new(log: Arc<EmbeddedLog>, budget: u64) -> Self {
        Crashing {
            log,
            left: budget.into(),
            made: 0.into(),
            reads: 0.into(),
            read: std::sync::Mutex::default(),
        }
    }

    /// The reads of streams asked for so far.
    pub(crate) fn reads(&self) -> u64 {
        self.reads.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The keys of the streams read so far, one for each read.
    pub(crate) fn streams_read(&self) -> Vec<String> {
        self.read.lock().unwrap().clone()
    }

    fn note(&self, stream: &felt_eventlog::StreamId) {
        self.reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.read.lock().unwrap().push(stream.key());
    }

    /// The appends made before the crash.
    pub(crate) fn made(&self) -> u64 {
        self.made.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl EventLog for Crashing {
    async fn append(
        &self,
        stream: &felt_eventlog::StreamId,
        expected: felt_eventlog::Expected,
        decision: felt_eventlog::Decision,
    ) -> Result<felt_eventlog::Appended, felt_eventlog::LogError> {
        use std::sync::atomic::Ordering::SeqCst;
        if self
            .left
            .fetch_update(SeqCst, SeqCst, |n| n.checked_sub(1))
            .is_err()
        {
            return Err(felt_eventlog::LogError::Closed);
        }
        self.made.fetch_add(1, SeqCst);
        self.log.append(stream, expected, decision).await
    }

    async fn read_all<F>(&self, filter: &Filter, each: F) -> Result<u64, felt_eventlog::LogError>
    where
        F: FnMut(felt_eventlog::Committed) -> Result<(), felt_eventlog::LogError> + Send,
    {
        self.log.read_all(filter, each).await
    }

    async fn read_decisions(
        &self,
        stream: &felt_eventlog::StreamId,
        from: u64,
    ) -> Result<Vec<felt_eventlog::Committed>, felt_eventlog::LogError> {
        self.note(stream);
        self.log.read_decisions(stream, from).await
    }

    async fn read_decision(
        &self,
        stream: &felt_eventlog::StreamId,
        position: u64,
    ) -> Result<Vec<felt_eventlog::Envelope>, felt_eventlog::LogError> {
        self.note(stream);
        self.log.read_decision(stream, position).await
    }

    async fn version(
        &self,
        stream: &felt_eventlog::StreamId,
    ) -> Result<u64, felt_eventlog::LogError> {
        self.log.version(stream).await
    }

    async fn head(&self) -> Result<u64, felt_eventlog::LogError> {
        self.log.head().await
    }

    async fn subscribe(
        &self,
        filter: Filter,
        after: u64,
    ) -> Result<Subscription, felt_eventlog::LogError> {
        self.log.subscribe(filter, after).await
    }

    async fn record_position(
        &self,
        consumer: &str,
        position: u64,
    ) -> Result<(), felt_eventlog::LogError> {
        self.log.record_position(consumer, position).await
    }

    async fn recorded_position(&self, consumer: &str) -> Result<u64, felt_eventlog::LogError> {
        self.log.recorded_position(consumer).await
    }
}

/// Every stream of the tournament: each event's command id, type and
/// payload, in order.
pub(crate) type Streams = std::collections::BTreeMap<String, Vec<(String, String, Vec<u8>)>>;

pub(crate) async fn streams(log: &EmbeddedLog, tournament: &str) -> Streams {
    let mut out = Streams::new();
    log.read_all(&Filter::tournament(tournament), |committed| {
        let events = out.entry(committed.stream.key()).or_default();
        for e in committed.envelopes {
            events.push((e.command_id, e.event_type, e.payload));
        }
        Ok(())
    })
    .await
    .unwrap();
    out
}

/// Where two logs part: each stream's events from the first that differs,
/// by command id and type.
pub(crate) fn differences(got: &Streams, want: &Streams) -> String {
    let mut out = String::new();
    for key in got
        .keys()
        .chain(want.keys())
        .collect::<std::collections::BTreeSet<_>>()
    {
        let (a, b) = (&got.get(key), &want.get(key));
        let (a, b) = (a.map_or(&[][..], |v| &v[..]), b.map_or(&[][..], |v| &v[..]));
        let Some(at) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) else {
            continue;
        };
        let names = |v: &[(String, String, Vec<u8>)]| {
            v.iter()
                .skip(at)
                .take(8)
                .map(|e| format!("{}:{}", e.0, e.1))
                .collect::<Vec<_>>()
                .join(" ")
        };
        out += &format!(
            "\n{key} from event {at}: got [{}], want [{}]",
            names(a),
            names(b)
        );
    }
    out
}
