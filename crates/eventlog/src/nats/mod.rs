//! The NATS JetStream backend: one JetStream stream per deployment, one
//! subject per aggregate (`felt.<tournament>.<kind>.<id>`), one message per
//! decision (its envelopes, MessagePack), optimistic concurrency with
//! `Nats-Expected-Last-Subject-Sequence` and deduplication with
//! `Nats-Msg-Id`.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use async_nats::jetstream::consumer::{AckPolicy, DeliverPolicy, push};
use async_nats::jetstream::context::{CreateStreamErrorKind, PublishErrorKind};
use async_nats::jetstream::message::PublishMessage;
use async_nats::jetstream::stream::{
    self, DirectGetErrorKind, LastRawMessageErrorKind, StorageType,
};
use async_nats::jetstream::{self, Context, kv};
use futures::StreamExt;

mod subscription;

pub(crate) use subscription::NatsSubscription;

use crate::{
    Appended, Committed, Decision, Envelope, EventLog, Expected, Filter, Hash, LogError, StreamId,
    Subscription, SubscriptionInner, check_consumer, check_decision, envelopes_for,
};

/// How felt's JetStream stream is set up. Production runs 3 replicas on a
/// cluster whose servers have `sync_interval: always` (see `deploy/`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NatsSettings {
    /// The JetStream stream holding every subject under `felt.>`.
    pub stream: String,
    pub replicas: usize,
    /// File storage (durable) or memory (tests, benchmarks of the network).
    pub file_storage: bool,
    /// How long NATS remembers a message id to drop a duplicate publish;
    /// older retries are caught by the command id in the stream.
    pub duplicate_window: Duration,
    /// How long connecting waits for JetStream to answer (servers still
    /// starting, a cluster electing its leader) before giving up.
    pub ready_within: Duration,
}

impl Default for NatsSettings {
    fn default() -> NatsSettings {
        NatsSettings {
            stream: "FELT".into(),
            replicas: 1,
            file_storage: true,
            duplicate_window: Duration::from_secs(120),
            ready_within: Duration::from_secs(60),
        }
    }
}

/// Whether JetStream did not answer because it is not ready yet: no
/// answer, nobody answering, or "temporarily unavailable" (error code
/// 10008, a cluster without its leader).
fn not_ready_yet(kind: &CreateStreamErrorKind) -> bool {
    match kind {
        CreateStreamErrorKind::TimedOut | CreateStreamErrorKind::JetStreamUnavailable => true,
        CreateStreamErrorKind::JetStream(e) => e.error_code().0 == 10008,
        _ => false,
    }
}

/// Whether a publish was refused because the subject moved on (another
/// writer was first). A clustered stream answers with the error code
/// 10164 where a single server answers 10071; async-nats names only the
/// latter.
fn wrong_last_sequence(e: &async_nats::jetstream::context::PublishError) -> bool {
    e.kind() == PublishErrorKind::WrongLastSequence
        || std::error::Error::source(e)
            .and_then(|s| s.downcast_ref::<async_nats::jetstream::Error>())
            .is_some_and(|j| j.error_code().0 == 10164)
}

fn nats<E: std::fmt::Display>(e: E) -> LogError {
    LogError::Nats(e.to_string())
}

/// Where a stream ends: its version, the JetStream sequence of its last
/// message and the hash of its last envelope.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Tip {
    version: u64,
    message: u64,
    hash: Hash,
}

/// Decisions per stream whose place in the log [`NatsLog`] keeps.
const MARKS: usize = 32;

/// The log on NATS JetStream.
pub struct NatsLog {
    js: Context,
    name: String,
    stream: stream::Stream,
    tips: Mutex<HashMap<String, (Tip, String)>>,
    /// Where each stream's latest decisions seen are in the whole log: the
    /// stream's version after each and its message, the last [`MARKS`],
    /// so a read from a recent version starts near it, not at the
    /// beginning of the log (a message's place never changes).
    marks: Mutex<HashMap<String, VecDeque<(u64, u64)>>>,
    /// Messages [`EventLog::read`] has fetched from the server so far.
    fetched: std::sync::atomic::AtomicU64,
    /// The stream has replicas: a direct get may be answered by a replica
    /// that has not yet applied what the leader acknowledged, so reads
    /// that must see every acknowledged write ask the leader where the
    /// subject ends first.
    replicated: bool,
    /// Where consumers record their positions (see [`NatsLog::positions`]).
    positions: tokio::sync::OnceCell<kv::Store>,
    settings: NatsSettings,
    /// Counts the client's (re)connections, for subscriptions to start again
    /// after what a lost connection may have dropped.
    reconnects: tokio::sync::watch::Sender<u64>,
}

impl std::fmt::Debug for NatsLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NatsLog").finish_non_exhaustive()
    }
}

impl NatsLog {
    /// Connects and creates felt's stream if it does not exist. `url` may
    /// name several servers of a cluster, comma-separated; the client also
    /// learns the cluster's other servers from the one it reaches, and
    /// moves to another when that one goes away.
    pub async fn connect(url: &str, settings: &NatsSettings) -> Result<NatsLog, LogError> {
        let servers: Vec<&str> = url
            .split(',')
            .map(str::trim)
            .filter(|u| !u.is_empty())
            .collect();
        if servers.is_empty() {
            return Err(LogError::Nats(format!(
                "no NATS server in {url:?}: give nats://HOST:PORT (several comma-separated)"
            )));
        }
        let reconnects = tokio::sync::watch::Sender::new(0u64);
        let events = reconnects.clone();
        let client = async_nats::ConnectOptions::new()
            .connection_timeout(Duration::from_secs(5))
            .retry_on_initial_connect()
            .event_callback(move |event| {
                let events = events.clone();
                async move {
                    match event {
                        async_nats::Event::Connected => {
                            tracing::debug!("connected to nats");
                            events.send_modify(|n| *n += 1);
                        }
                        other => tracing::info!(event = %other, "nats"),
                    }
                }
            })
            .connect(servers)
            .await
            .map_err(nats)?;
        let js = jetstream::new(client);
        let config = stream::Config {
            name: settings.stream.clone(),
            subjects: vec!["felt.>".into()],
            storage: if settings.file_storage {
                StorageType::File
            } else {
                StorageType::Memory
            },
            num_replicas: settings.replicas,
            duplicate_window: settings.duplicate_window,
            allow_direct: true,
            ..Default::default()
        };
        // A process started with (or before) its servers: JetStream answers
        // once the servers are up and a cluster has elected its leader.
        let asked = std::time::Instant::now();
        let stream = loop {
            match js.get_or_create_stream(config.clone()).await {
                Ok(stream) => break stream,
                Err(e) if not_ready_yet(&e.kind()) && asked.elapsed() < settings.ready_within => {
                    tracing::warn!(error = %e, "jetstream is not ready yet: asking again");
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
                Err(e) => return Err(nats(e)),
            }
        };
        let replicated = stream.cached_info().config.num_replicas > 1;
        Ok(NatsLog {
            js,
            name: settings.stream.clone(),
            stream,
            tips: Mutex::new(HashMap::new()),
            marks: Mutex::new(HashMap::new()),
            fetched: std::sync::atomic::AtomicU64::new(0),
            replicated,
            positions: tokio::sync::OnceCell::new(),
            settings: settings.clone(),
            reconnects,
        })
    }

    /// The position of the last decision in the log: its JetStream stream's
    /// last sequence (0: none). A reader of the whole log through a
    /// subscription knows it is through when it gets there.
    pub async fn last_position(&self) -> Result<u64, LogError> {
        let stream = self.js.get_stream(&self.name).await.map_err(nats)?;
        Ok(stream.cached_info().state.last_sequence)
    }

    /// The key-value bucket consumers record their positions in, beside
    /// the stream (`<stream>_POSITIONS`, the stream's replicas and storage),
    /// created at its first use.
    async fn positions(&self) -> Result<&kv::Store, LogError> {
        self.positions
            .get_or_try_init(|| async {
                let bucket = format!("{}_POSITIONS", self.name);
                if let Ok(store) = self.js.get_key_value(&bucket).await {
                    return Ok(store);
                }
                self.js
                    .create_key_value(kv::Config {
                        bucket,
                        history: 1,
                        num_replicas: self.settings.replicas,
                        storage: if self.settings.file_storage {
                            StorageType::File
                        } else {
                            StorageType::Memory
                        },
                        ..Default::default()
                    })
                    .await
                    .map_err(nats)
            })
            .await
    }

    fn cached(&self, key: &str) -> Option<(Tip, String)> {
        self.tips.lock().ok()?.get(key).cloned()
    }

    /// Messages (decisions) the reads of streams have fetched from the
    /// server so far: what a read costs, whatever the machine.
    pub fn messages_fetched(&self) -> u64 {
        self.fetched.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Notes that the decision in `message` brought `key` to `version`.
    fn mark(&self, key: &str, version: u64, message: u64) {
        if let Ok(mut marks) = self.marks.lock() {
            let marks = marks.entry(key.to_string()).or_default();
            if marks.back().is_none_or(|&(v, _)| v < version) {
                marks.push_back((version, message));
                if marks.len() > MARKS {
                    marks.pop_front();
                }
            }
        }
    }

    /// The message to read `key` on from to get its events from version
    /// `from`: after the latest decision known to end before it.
    fn start_of(&self, key: &str, from: u64) -> Option<u64> {
        let marks = self.marks.lock().ok()?;
        marks
            .get(key)?
            .iter()
            .rev()
            .find(|&&(version, _)| version < from)
            .map(|&(_, message)| message + 1)
    }

    fn remember(&self, key: &str, tip: Tip, command: &str) {
        self.mark(key, tip.version, tip.message);
        if let Ok(mut tips) = self.tips.lock() {
            tips.insert(key.to_string(), (tip, command.to_string()));
        }
    }

    /// Remembers a tip a read found, unless an append meanwhile remembered
    /// a later one.
    fn remember_newer(&self, key: &str, tip: Tip, command: &str) {
        self.mark(key, tip.version, tip.message);
        if let Ok(mut tips) = self.tips.lock()
            && tips
                .get(key)
                .is_none_or(|(known, _)| known.version < tip.version)
        {
            tips.insert(key.to_string(), (tip, command.to_string()));
        }
    }

    fn forget(&self, key: &str) {
        if let Ok(mut tips) = self.tips.lock() {
            tips.remove(key);
        }
    }

    /// The sequence of the subject's last message as the stream's leader
    /// has it (0: none).
    async fn leader_last(&self, subject: &str) -> Result<u64, LogError> {
        match self.stream.get_last_raw_message_by_subject(subject).await {
            Ok(msg) => Ok(msg.sequence),
            Err(e) if e.kind() == LastRawMessageErrorKind::NoMessageFound => Ok(0),
            Err(e) => Err(nats(e)),
        }
    }

    /// The stream's tip as the server has it, and its last command id.
    async fn fetch_tip(&self, stream: &StreamId) -> Result<(Tip, String), LogError> {
        let found = if self.replicated {
            // The leader's answer: a replica's may be behind.
            match self
                .stream
                .get_last_raw_message_by_subject(&stream.subject())
                .await
            {
                Ok(msg) => Some((msg.sequence, msg.payload)),
                Err(e) if e.kind() == LastRawMessageErrorKind::NoMessageFound => None,
                Err(e) => return Err(nats(e)),
            }
        } else {
            match self
                .stream
                .direct_get_last_for_subject(stream.subject())
                .await
            {
                Ok(msg) => Some((msg.sequence, msg.payload)),
                Err(e) if e.kind() == DirectGetErrorKind::NotFound => None,
                Err(e) => return Err(nats(e)),
            }
        };
        let Some((sequence, payload)) = found else {
            return Ok((Tip::default(), String::new()));
        };
        let envs = Envelope::decode_all(&payload)?;
        let last = envs.last().ok_or_else(|| LogError::Decode {
            what: format!("message {sequence}"),
            reason: "no envelopes".into(),
        })?;
        let tip = Tip {
            version: last.sequence,
            message: sequence,
            hash: last.hash(),
        };
        let command = last.command_id.clone();
        self.remember(&stream.key(), tip, &command);
        Ok((tip, command))
    }

    async fn tip(&self, stream: &StreamId) -> Result<(Tip, String), LogError> {
        match self.cached(&stream.key()) {
            Some(t) => Ok(t),
            None => self.fetch_tip(stream).await,
        }
    }

    /// The first answer to `decision` if it was appended after `expected`:
    /// a retry carries its first expectation, so it is the decision whose
    /// first event follows that version. Found by a binary search over the
    /// subject's messages (a few direct gets; only on a conflict).
    async fn earlier(
        &self,
        stream: &StreamId,
        expected: Expected,
        tip: Tip,
        decision: &Decision,
    ) -> Result<Option<Appended>, LogError> {
        let target = match expected {
            Expected::NoStream => 1,
            Expected::Exactly(v) => v + 1,
            Expected::Any => return Ok(None),
        };
        let subject = stream.subject();
        let (mut lo, mut hi) = (1, tip.message);
        while lo <= hi {
            let mid = lo + (hi - lo) / 2;
            let msg = match self
                .stream
                .direct_get_next_for_subject(subject.clone(), Some(mid))
                .await
            {
                Ok(m) => m,
                Err(e) if e.kind() == DirectGetErrorKind::NotFound => {
                    hi = mid - 1;
                    continue;
                }
                Err(e) => return Err(nats(e)),
            };
            let envs = Envelope::decode_all(&msg.payload)?;
            let (Some(first), Some(last)) = (envs.first(), envs.last()) else {
                return Ok(None);
            };
            if first.sequence == target {
                return Ok(
                    (first.command_id == decision.command_id).then_some(Appended {
                        first: first.sequence,
                        last: last.sequence,
                        position: msg.sequence,
                        duplicate: true,
                    }),
                );
            }
            if first.sequence > target {
                hi = mid - 1;
            } else {
                lo = msg.sequence + 1;
            }
        }
        Ok(None)
    }

    /// The answer an earlier append of a command got, from its message.
    async fn answer_of(&self, message: u64) -> Result<Appended, LogError> {
        let msg = self.stream.direct_get(message).await.map_err(nats)?;
        let envs = Envelope::decode_all(&msg.payload)?;
        match (envs.first(), envs.last()) {
            (Some(first), Some(last)) => Ok(Appended {
                first: first.sequence,
                last: last.sequence,
                position: message,
                duplicate: true,
            }),
            _ => Err(LogError::Decode {
                what: format!("message {message}"),
                reason: "no envelopes".into(),
            }),
        }
    }
}

impl EventLog for NatsLog {
    async fn append(
        &self,
        stream: &StreamId,
        expected: Expected,
        decision: Decision,
    ) -> Result<Appended, LogError> {
        check_decision(&decision)?;
        let key = stream.key();
        let mut fresh = false;
        let (mut tip, mut last_command) = self.tip(stream).await?;
        loop {
            if last_command == decision.command_id && tip.version > 0 {
                // A retry of the last decision, its first answer lost.
                return self.answer_of(tip.message).await;
            }
            if !expected.allows(tip.version) {
                if !fresh {
                    // The cache may be behind another writer: ask the server.
                    (tip, last_command) = self.fetch_tip(stream).await?;
                    fresh = true;
                    continue;
                }
                // Perhaps a retry of a decision that was stored.
                if let Some(answer) = self.earlier(stream, expected, tip, &decision).await? {
                    return Ok(answer);
                }
                return Err(LogError::Conflict {
                    stream: key,
                    expected,
                    actual: tip.version,
                });
            }
            let envs = envelopes_for(stream, tip.version, tip.hash, &decision);
            let payload = Envelope::encode_all(&envs)?;
            // A decision is one message: the server refuses one larger than
            // its max_payload (and the client would only time out).
            let max = self.js.client().server_info().max_payload;
            if max > 0 && payload.len() + 1024 > max {
                return Err(LogError::Nats(format!(
                    "a decision of {} bytes ({} events) on {key} is more than the server's max_payload of {max}",
                    payload.len(),
                    envs.len()
                )));
            }
            let mut headers = async_nats::HeaderMap::new();
            if let Some(trace) = &decision.trace {
                headers.insert("traceparent", trace.as_str());
            }
            let publish = PublishMessage::build()
                .headers(headers)
                .payload(payload.into())
                .message_id(format!("{key}:{}", decision.command_id))
                .expected_last_subject_sequence(tip.message);
            let ack = self
                .js
                .send_publish(stream.subject(), publish)
                .await
                .map_err(nats)?
                .await;
            match ack {
                Ok(ack) if ack.duplicate => {
                    self.forget(&key);
                    return self.answer_of(ack.sequence).await;
                }
                Ok(ack) => {
                    let last = envs.last().map_or(tip.hash, Envelope::hash);
                    let appended = Appended {
                        first: tip.version + 1,
                        last: tip.version + envs.len() as u64,
                        position: ack.sequence,
                        duplicate: false,
                    };
                    self.remember(
                        &key,
                        Tip {
                            version: appended.last,
                            message: ack.sequence,
                            hash: last,
                        },
                        &decision.command_id,
                    );
                    return Ok(appended);
                }
                Err(e) if wrong_last_sequence(&e) => {
                    // Another writer got there first: look again.
                    tracing::debug!(stream = %key, "append raced another writer");
                    (tip, last_command) = self.fetch_tip(stream).await?;
                    fresh = true;
                }
                Err(e) => {
                    self.forget(&key);
                    return Err(nats(e));
                }
            }
        }
    }

    async fn read_decision(
        &self,
        stream: &StreamId,
        position: u64,
    ) -> Result<Vec<Envelope>, LogError> {
        let msg = match self.stream.direct_get(position).await {
            Ok(msg) => msg,
            // (A replica may not have it yet: the caller reads the stream.)
            Err(e) if e.kind() == DirectGetErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(nats(e)),
        };
        if msg.subject.as_str() != stream.subject() {
            return Ok(Vec::new());
        }
        self.fetched
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Envelope::decode_all(&msg.payload)
    }

    async fn read_decisions(
        &self,
        stream: &StreamId,
        from: u64,
    ) -> Result<Vec<Committed>, LogError> {
        // Batched direct gets (nats-server 2.11+): up to 1,000 of the
        // subject's messages per request, answered by the stream's leader
        // or a replica without creating a consumer.
        let client = self.js.client();
        let api = format!("$JS.API.DIRECT.GET.{}", self.name);
        let subject = stream.subject();
        let mut out = Vec::new();
        // Reading on from a known tip (a handler catching up) starts at its
        // message, not at the beginning of the whole log.
        // From an earlier version, at the latest decision known before it;
        // with no tip known (forgotten after a duplicate publish), the
        // subject's last message is asked for first.
        let key = stream.key();
        let mut next = match self.cached(&key) {
            Some((tip, _)) if tip.version < from => tip.message + 1,
            Some(_) => self.start_of(&key, from).unwrap_or(1),
            None if from > 1 => {
                let (tip, _) = self.fetch_tip(stream).await?;
                if tip.version < from {
                    tip.message + 1
                } else {
                    self.start_of(&key, from).unwrap_or(1)
                }
            }
            None => 1,
        };
        let mut last_message = None;
        // On a replicated stream, where the leader says the subject ends:
        // the read goes on until a replica has given that much.
        let leader = if self.replicated {
            self.leader_last(&subject).await?
        } else {
            0
        };
        let mut behind = 0;
        loop {
            let inbox = client.new_inbox();
            let mut replies = client.subscribe(inbox.clone()).await.map_err(nats)?;
            let request = format!(r#"{{"seq":{next},"next_by_subj":"{subject}","batch":1000}}"#);
            client
                .publish_with_reply(api.clone(), inbox, request.into())
                .await
                .map_err(nats)?;
            let more = loop {
                let msg = tokio::time::timeout(Duration::from_secs(10), replies.next())
                    .await
                    .map_err(|_| LogError::Nats(format!("no answer reading {subject}")))?
                    .ok_or(LogError::Closed)?;
                let header = |name: &str| {
                    msg.headers
                        .as_ref()
                        .and_then(|h| h.get(name))
                        .and_then(|v| v.as_str().parse::<u64>().ok())
                };
                match msg.status.map(|s| s.as_u16()) {
                    // End of the batch: more to come when messages are pending.
                    Some(204) => break header("Nats-Num-Pending").unwrap_or(0) > 0,
                    // Nothing (more) on the subject.
                    Some(404) => break false,
                    Some(code) => {
                        return Err(LogError::Nats(format!(
                            "reading {subject}: status {code} {}",
                            msg.description.clone().unwrap_or_default()
                        )));
                    }
                    None => {
                        // A known header name must be looked up by its
                        // constant: the string form does not match it.
                        next = msg
                            .headers
                            .as_ref()
                            .and_then(|h| h.get(async_nats::header::NATS_SEQUENCE))
                            .and_then(|v| v.as_str().parse::<u64>().ok())
                            .map(|s| s + 1)
                            .ok_or_else(|| {
                                LogError::Nats(format!(
                                    "reading {subject}: a message without its sequence"
                                ))
                            })?;
                        self.fetched
                            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let envelopes = Envelope::decode_all(&msg.payload)?;
                        if let Some(last) = envelopes.last() {
                            self.mark(&key, last.sequence, next - 1);
                            last_message = Some((
                                Tip {
                                    version: last.sequence,
                                    message: next - 1,
                                    hash: last.hash(),
                                },
                                last.command_id.clone(),
                            ));
                        }
                        if envelopes.last().is_some_and(|e| e.sequence >= from) {
                            out.push(Committed {
                                position: next - 1,
                                stream: stream.clone(),
                                envelopes,
                            });
                        }
                    }
                }
            };
            if !more && next <= leader {
                // A replica answered that has not applied all the leader
                // acknowledged: ask again for the rest (it catches up in
                // milliseconds).
                behind += 1;
                if behind > 500 {
                    return Err(LogError::Nats(format!(
                        "reading {subject}: the replicas stay behind the leader's message {leader}"
                    )));
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
                continue;
            }
            if !more {
                if let Some((tip, command)) = last_message {
                    self.remember_newer(&stream.key(), tip, &command);
                }
                return Ok(out);
            }
        }
    }

    async fn version(&self, stream: &StreamId) -> Result<u64, LogError> {
        Ok(self.fetch_tip(stream).await?.0.version)
    }

    const BULK_LOADS: bool = true;

    async fn read_all<F>(&self, filter: &Filter, mut each: F) -> Result<u64, LogError>
    where
        F: FnMut(Committed) -> Result<(), LogError> + Send,
    {
        let subjects = match (&filter.tournament, &filter.kind, filter.one_stream()) {
            (_, _, Some(stream)) => stream.subject(),
            (None, None, None) => "felt.>".to_string(),
            (t, k, None) => format!(
                "felt.{}.{}.*",
                t.as_deref().unwrap_or("*"),
                k.as_deref().unwrap_or("*")
            ),
        };
        // The log's last position and how many messages the filter's
        // subjects hold (the leader's stream info, from its subject index):
        // the read ends at the last of them, not at the end of a log that
        // later tournaments went on writing.
        let (to, count) = if filter.tournament.is_none() && filter.kind.is_none() {
            (self.last_position().await?, None)
        } else {
            let mut info = self
                .stream
                .info_with_subjects(&subjects)
                .await
                .map_err(nats)?;
            let to = info.info.state.last_sequence;
            let mut count = 0u64;
            while let Some(subject) = info.next().await {
                count += subject.map_err(nats)?.1 as u64;
            }
            (to, Some(count))
        };
        if count == Some(0) {
            return Ok(to);
        }
        // Where the filter's streams begin: the server looks it up in its
        // index of subjects, without reading the blocks before. (Asked of
        // the leader on a replicated stream: a replica behind it might not
        // have the first message yet.)
        let first = if self.replicated {
            match self
                .stream
                .get_first_raw_message_by_subject(&subjects, 1)
                .await
            {
                Ok(m) => Some(m.sequence),
                Err(e) if e.kind() == LastRawMessageErrorKind::NoMessageFound => None,
                Err(e) => return Err(nats(e)),
            }
        } else {
            match self
                .stream
                .direct_get_next_for_subject(subjects, Some(1))
                .await
            {
                Ok(m) => Some(m.sequence),
                Err(e) if e.kind() == DirectGetErrorKind::NotFound => None,
                Err(e) => return Err(nats(e)),
            }
        };
        let Some(first) = first.filter(|&f| f <= to) else {
            return Ok(to);
        };
        // Then every message from there on, the filter applied here: the
        // server's consumer delivers all messages far faster than the ones
        // of a filter it matches message by message.
        let mut sub = NatsSubscription::start(
            self.js.clone(),
            self.name.clone(),
            filter.clone(),
            first - 1,
            self.reconnects.subscribe(),
        )
        .await?;
        let mut tips: HashMap<String, (Tip, String)> = HashMap::new();
        let mut taken = 0u64;
        while count.is_none_or(|c| taken < c) {
            let next = tokio::time::timeout(Duration::from_secs(30), sub.next_until(to))
                .await
                .map_err(|_| {
                    LogError::Nats(format!(
                        "reading the log to position {to}: nothing for 30 s after position {}",
                        sub.last
                    ))
                })?;
            let Some(committed) = next else { break };
            let committed = committed?;
            if let Some(last) = committed.envelopes.last() {
                let tip = Tip {
                    version: last.sequence,
                    message: committed.position,
                    hash: last.hash(),
                };
                tips.insert(committed.stream.key(), (tip, last.command_id.clone()));
            }
            taken += 1;
            each(committed)?;
        }
        // Later reads and appends of these streams start at their tips.
        for (key, (tip, command)) in tips {
            self.remember_newer(&key, tip, &command);
        }
        Ok(to)
    }

    async fn head(&self) -> Result<u64, LogError> {
        Ok(self
            .stream
            .get_info()
            .await
            .map_err(nats)?
            .state
            .last_sequence)
    }

    async fn subscribe(&self, filter: Filter, after: u64) -> Result<Subscription, LogError> {
        let sub = NatsSubscription::start(
            self.js.clone(),
            self.name.clone(),
            filter,
            after,
            self.reconnects.subscribe(),
        )
        .await?;
        Ok(Subscription {
            inner: SubscriptionInner::Nats(Box::new(sub)),
        })
    }

    async fn record_position(&self, consumer: &str, position: u64) -> Result<(), LogError> {
        check_consumer(consumer)?;
        self.positions()
            .await?
            .put(consumer, position.to_le_bytes().to_vec().into())
            .await
            .map_err(nats)?;
        Ok(())
    }

    async fn recorded_position(&self, consumer: &str) -> Result<u64, LogError> {
        check_consumer(consumer)?;
        let Some(value) = self.positions().await?.get(consumer).await.map_err(nats)? else {
            return Ok(0);
        };
        let bytes: [u8; 8] = value.as_ref().try_into().map_err(|_| LogError::Decode {
            what: format!("the position of {consumer}"),
            reason: format!("{} bytes, not 8", value.len()),
        })?;
        Ok(u64::from_le_bytes(bytes))
    }
}
