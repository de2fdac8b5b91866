//! felt's own ordered consumer of the JetStream stream, for subscriptions.

#[allow(clippy::wildcard_imports)]
use super::*;

/// How often a push consumer with nothing to deliver sends a heartbeat.
const HEARTBEAT: Duration = Duration::from_secs(5);

/// An ordered consumer kept here rather than async-nats's `push::Ordered`,
/// which, for every message, boxes a new heartbeat timer and registers it
/// with the runtime (waking its driver: 8% of the client's time in a
/// replay), parses each reply subject twice, and, made again before its
/// first message, starts over from the beginning of the stream.
///
/// An ephemeral push consumer (no acks, flow control, heartbeats) delivers
/// to an inbox of this subscription's own. Each message's reply subject
/// carries its stream sequence and the consumer's own count: a count that
/// does not follow, a heartbeat naming a count other than the last one, a
/// reconnection of the client or a silence of two heartbeats means
/// something was missed, and a new consumer starts after the last stream
/// sequence taken. So nothing is skipped or given twice.
pub(crate) struct NatsSubscription {
    js: Context,
    stream: String,
    filter: Filter,
    /// The stream sequence of the last message taken, given out or left
    /// out by the filter (at first, the position the subscription started
    /// after).
    pub(super) last: u64,
    /// The current consumer's count of the last message it delivered.
    delivered: u64,
    subscriber: Option<async_nats::Subscriber>,
    /// Whether anything came since the watchdog last looked.
    heard: bool,
    watchdog: std::pin::Pin<Box<tokio::time::Sleep>>,
    /// Bumped by the client each time it (re)connects; `None` once the log
    /// that sends it is gone.
    reconnects: Option<tokio::sync::watch::Receiver<u64>>,
    /// Consumers that could not be made, in a row.
    failures: u32,
}

impl std::fmt::Debug for NatsSubscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NatsSubscription")
            .field("last", &self.last)
            .finish_non_exhaustive()
    }
}

/// The stream sequence and the consumer's count of a message a push
/// consumer delivered, from its reply subject:
/// `$JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<time>.<pending>`,
/// or, from newer servers, with a domain and an account hash before the
/// stream and perhaps a token after the pending count.
fn sequences(reply: &str) -> Option<(u64, u64)> {
    let rest = reply.strip_prefix("$JS.ACK.")?;
    let mut tokens = [""; 12];
    let mut n = 0;
    for token in rest.split('.') {
        *tokens.get_mut(n)? = token;
        n += 1;
    }
    let at = match n {
        7 => 3,
        9.. => 5,
        _ => return None,
    };
    Some((tokens[at].parse().ok()?, tokens[at + 1].parse().ok()?))
}

impl NatsSubscription {
    pub(super) async fn start(
        js: Context,
        stream: String,
        filter: Filter,
        after: u64,
        reconnects: tokio::sync::watch::Receiver<u64>,
    ) -> Result<NatsSubscription, LogError> {
        let mut sub = NatsSubscription {
            js,
            stream,
            filter,
            last: after,
            delivered: 0,
            subscriber: None,
            heard: true,
            watchdog: Box::pin(tokio::time::sleep(HEARTBEAT * 2)),
            reconnects: Some(reconnects),
            failures: 0,
        };
        sub.subscriber = Some(sub.consumer().await?);
        Ok(sub)
    }

    /// A new consumer delivering from the message after the last one given
    /// out, to a new inbox (so nothing the one before sent gets mixed in).
    /// Subscribed before the consumer exists, so its first message is not
    /// missed. The consumer it replaces goes away by itself once nobody
    /// listens (after its inactivity threshold).
    async fn consumer(&mut self) -> Result<async_nats::Subscriber, LogError> {
        let client = self.js.client();
        let inbox = client.new_inbox();
        let subscriber = client.subscribe(inbox.clone()).await.map_err(nats)?;
        // The filter is applied here, on the subject, before decoding:
        // nats-server 2.15 matches a filtered consumer's subjects message by
        // message, which replayed a log at about 55,000 messages/s against
        // 340,000 unfiltered (`felt bench log --backend nats`). One stream's
        // subscription is filtered by the server, on its one subject: it
        // receives that stream's messages only.
        let subject = self
            .filter
            .one_stream()
            .map_or_else(|| "felt.>".to_string(), |s| s.subject());
        let config = push::Config {
            deliver_subject: inbox,
            filter_subject: subject,
            deliver_policy: DeliverPolicy::ByStartSequence {
                start_sequence: self.last + 1,
            },
            ack_policy: AckPolicy::None,
            max_deliver: 1,
            flow_control: true,
            idle_heartbeat: HEARTBEAT,
            // Gone this long after nobody listens any more.
            inactive_threshold: Duration::from_secs(30),
            num_replicas: 1,
            memory_storage: true,
            ..Default::default()
        };
        tokio::time::timeout(
            Duration::from_secs(5),
            self.js.create_consumer_on_stream(config, &self.stream),
        )
        .await
        .map_err(|_| LogError::Nats("no answer creating a consumer".into()))?
        .map_err(nats)?;
        self.delivered = 0;
        self.heard = true;
        Ok(subscriber)
    }

    pub(crate) async fn next(&mut self) -> Option<Result<Committed, LogError>> {
        self.next_until(u64::MAX).await
    }

    /// The next decision the filter takes at position `end` or before;
    /// `None` once every message to `end` has been taken.
    pub(super) async fn next_until(&mut self, end: u64) -> Option<Result<Committed, LogError>> {
        loop {
            if self.last >= end {
                return None;
            }
            let Some(subscriber) = self.subscriber.as_mut() else {
                match self.consumer().await {
                    Ok(s) => {
                        self.subscriber = Some(s);
                        self.failures = 0;
                    }
                    Err(e) => {
                        // The server is away: try again, less and less often.
                        self.failures += 1;
                        tracing::warn!(error = %e, failures = self.failures, after = self.last, "a subscription could not start its consumer again");
                        let wait = 100u64 << self.failures.min(6);
                        tokio::time::sleep(Duration::from_millis(wait)).await;
                    }
                }
                continue;
            };
            let msg = tokio::select! {
                biased;
                msg = subscriber.next() => msg?,
                changed = async {
                    match self.reconnects.as_mut() {
                        Some(r) => r.changed().await,
                        None => std::future::pending().await,
                    }
                } => {
                    match changed {
                        // What was delivered while the client was away is
                        // lost: start again after the last message.
                        Ok(()) => {
                            tracing::debug!(after = self.last, "reconnected: a new consumer");
                            self.subscriber = None;
                        }
                        Err(_) => self.reconnects = None,
                    }
                    continue;
                }
                () = &mut self.watchdog => {
                    self.watchdog
                        .as_mut()
                        .reset(tokio::time::Instant::now() + HEARTBEAT * 2);
                    if !std::mem::take(&mut self.heard) {
                        tracing::debug!(after = self.last, "no heartbeat: a new consumer");
                        self.subscriber = None;
                    }
                    continue;
                }
            };
            self.heard = true;
            if msg.status == Some(async_nats::StatusCode::IDLE_HEARTBEAT) {
                let header = |name: &str| -> Option<String> {
                    let value = msg.headers.as_ref()?.get(name)?;
                    Some(value.as_str().to_string())
                };
                // Flow control (a reply subject) or a stalled consumer
                // (named in a heartbeat) waits for an empty answer.
                let answer = msg
                    .reply
                    .as_ref()
                    .map(|r| r.to_string())
                    .or_else(|| header("Nats-Consumer-Stalled"));
                if let Some(to) = answer {
                    self.js.client().publish(to, bytes::Bytes::new()).await.ok();
                }
                let last = msg
                    .headers
                    .as_ref()
                    .and_then(|h| h.get(async_nats::header::NATS_LAST_CONSUMER))
                    .and_then(|v| v.as_str().parse::<u64>().ok());
                if last.is_some_and(|l| l != self.delivered) {
                    tracing::debug!(
                        after = self.last,
                        "a heartbeat names a message not seen: a new consumer"
                    );
                    self.subscriber = None;
                }
                continue;
            }
            if msg.status.is_some() {
                continue;
            }
            let Some((position, count)) = msg.reply.as_deref().and_then(sequences) else {
                return Some(Err(LogError::Nats(format!(
                    "a message on {} without its sequences ({:?})",
                    msg.subject, msg.reply
                ))));
            };
            if count != self.delivered + 1 {
                tracing::debug!(after = self.last, count, "a message missed: a new consumer");
                self.subscriber = None;
                continue;
            }
            self.delivered = count;
            if position <= self.last {
                continue;
            }
            self.last = position;
            // felt.<tournament>.<kind>.<id>
            let mut tokens = msg.subject.split('.').skip(1);
            let (t, k, id) = (
                tokens.next().unwrap_or(""),
                tokens.next().unwrap_or(""),
                tokens.next().unwrap_or(""),
            );
            if !(self.filter.tournament.as_deref().is_none_or(|f| f == t)
                && self.filter.kind.as_deref().is_none_or(|f| f == k)
                && self.filter.id.as_deref().is_none_or(|f| f == id))
            {
                continue;
            }
            return Some(Envelope::decode_all(&msg.payload).and_then(|envelopes| {
                let stream = envelopes.first().map(|e| e.stream.clone()).ok_or_else(|| {
                    LogError::Decode {
                        what: format!("message {position}"),
                        reason: "no envelopes".into(),
                    }
                })?;
                Ok(Committed {
                    position,
                    stream,
                    envelopes,
                })
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::sequences;

    #[test]
    fn a_reply_subject_gives_the_stream_sequence_and_the_consumers_count() {
        assert_eq!(
            sequences("$JS.ACK.FELT.c1.1.12345.17.1764500000000000000.3"),
            Some((12345, 17))
        );
        assert_eq!(
            sequences("$JS.ACK._.ACCHASH.FELT.c1.1.12345.17.1764500000000000000.3"),
            Some((12345, 17))
        );
        assert_eq!(
            sequences("$JS.ACK.hub.ACCHASH.FELT.c1.2.9.8.1764500000000000000.0.x7"),
            Some((9, 8))
        );
        for bad in [
            "_INBOX.abc",
            "$JS.ACK.FELT.c1.1.12345",
            "$JS.ACK.FELT.c1.1.x.17.1.3",
            "$JS.ACK.a.b.c.d.e.f.g.h.i.j.k.l.m",
        ] {
            assert_eq!(sequences(bad), None, "{bad}");
        }
    }
}
