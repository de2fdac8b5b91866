//! Signed webhooks, end to end: a partner registers a URL on `felt up`, a
//! local HTTP server receives every event in its scopes, signed, retried
//! after the server's failures, across restarts of felt, and nothing once
//! the webhook is deleted.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use felt_eventlog::{EmbeddedLog, EventLog, Filter};
use felt_proto::prost::Message as _;
use felt_proto::v1 as pb;
use felt_proto::v1::webhook_service_client::WebhookServiceClient;
use tonic::Code;

mod common;
use common::{Hand, Up, open_tournament, play_hand, with};

/// One post as the partner's server received it.
#[derive(Clone, Debug)]
struct Received {
    event_id: String,
    webhook_id: String,
    signature: String,
    content_type: String,
    body: Vec<u8>,
    at: i64,
}

/// The partner's server: every post it got, and how many it still fails.
#[derive(Default)]
struct Inbox {
    posts: Vec<Received>,
    fail_next: u32,
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

async fn receiver(inbox: Arc<Mutex<Inbox>>) -> String {
    use axum::http::{HeaderMap, StatusCode};
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: HeaderMap, body: axum::body::Bytes| {
            let inbox = inbox.clone();
            async move {
                let get = |name: &str| {
                    headers
                        .get(name)
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default()
                        .to_string()
                };
                let mut inbox = inbox.lock().unwrap();
                inbox.posts.push(Received {
                    event_id: get("felt-event-id"),
                    webhook_id: get("felt-webhook-id"),
                    signature: get("felt-signature"),
                    content_type: get("content-type"),
                    body: body.to_vec(),
                    at: now_ms(),
                });
                if inbox.fail_next > 0 {
                    inbox.fail_next -= 1;
                    StatusCode::INTERNAL_SERVER_ERROR
                } else {
                    StatusCode::NO_CONTENT
                }
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/hook")
}

fn ids(inbox: &Mutex<Inbox>) -> BTreeSet<String> {
    ids_of(&inbox.lock().unwrap().posts)
}

/// Waits (at most a minute) until the server has every one of `wanted`.
async fn wait_for(inbox: &Mutex<Inbox>, wanted: &BTreeSet<String>, what: &str) {
    for _ in 0..600 {
        if ids(inbox).is_superset(wanted) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let missing: Vec<_> = wanted.difference(&ids(inbox)).take(10).cloned().collect();
    panic!("{what}: never delivered: {missing:?}");
}

/// The ids of every event of `tournament` a webhook of every scope gets,
/// from the log itself (felt stopped): each stream's events but a table's
/// cards entered, which partners never get while a hand is played.
async fn expected(
    data: &std::path::Path,
    nats: Option<&str>,
    tournament: &str,
) -> BTreeSet<String> {
    match nats {
        Some(url) => {
            let log = felt_eventlog::NatsLog::connect(url, &felt_eventlog::NatsSettings::default())
                .await
                .expect("the log");
            expected_in(&log, tournament).await
        }
        None => {
            let log = EmbeddedLog::open(&data.join("log.redb")).expect("the log");
            expected_in(&log, tournament).await
        }
    }
}

/// The webhooks registry's events, each with its webhook.
async fn registry(data: &std::path::Path, nats: Option<&str>) -> Vec<(String, u64)> {
    async fn of<L: EventLog>(log: &L) -> Vec<(String, u64)> {
        let stream = felt_eventlog::StreamId::new("_registry", "webhooks", "all").unwrap();
        log.read(&stream, 1)
            .await
            .expect("the registry")
            .iter()
            .map(|env| {
                let event: felt_webhooks::WebhookEvent = env.decode().expect("an event");
                let id = match &event {
                    felt_webhooks::WebhookEvent::Created(w) => w.id,
                    felt_webhooks::WebhookEvent::Deleted { id, .. }
                    | felt_webhooks::WebhookEvent::DeliveryFailing { id, .. }
                    | felt_webhooks::WebhookEvent::DeliveryRecovered { id, .. } => *id,
                };
                (env.event_type.clone(), id)
            })
            .collect()
    }
    match nats {
        Some(url) => {
            let log = felt_eventlog::NatsLog::connect(url, &felt_eventlog::NatsSettings::default())
                .await
                .expect("the log");
            of(&log).await
        }
        None => of(&EmbeddedLog::open(&data.join("log.redb")).expect("the log")).await,
    }
}

async fn expected_in<L: EventLog>(log: &L, tournament: &str) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    log.read_all(&Filter::tournament(tournament), |c| {
        if ["clock", "seating", "payout", "table"].contains(&c.stream.kind.as_str()) {
            for env in &c.envelopes {
                if env.event_type != "HoleCardsEntered" {
                    ids.insert(format!(
                        "{}/{}/{}/{}",
                        c.stream.tournament, c.stream.kind, c.stream.id, env.sequence
                    ));
                }
            }
        }
        Ok(())
    })
    .await
    .expect("read the log");
    ids
}

fn ids_of(posts: &[Received]) -> BTreeSet<String> {
    posts.iter().map(|p| p.event_id.clone()).collect()
}

async fn webhook_ids_of_clock(inbox: &Mutex<Inbox>, tournament: &str) -> BTreeSet<String> {
    ids(inbox)
        .into_iter()
        .filter(|id| id.starts_with(&format!("{tournament}/clock/")))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partner_receives_signed_events_in_its_scopes_across_restarts_of_felt() {
    let data = tempfile::tempdir().unwrap();
    scenario(&["--broadcast-delay", "1"], data.path(), None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_deliver_the_same_on_jetstream() {
    let nats = felt_testkit::NatsServer::start().expect("nats-server");
    let data = tempfile::tempdir().unwrap();
    let url = nats.url();
    scenario(&["--nats", &url], data.path(), Some(&url)).await;
}

/// The whole story on one log (`log`: `felt up`'s flags for it, with a
/// broadcast delay of a second or none).
async fn scenario(log: &[&str], data: &std::path::Path, nats: Option<&str>) {
    let delay = log.contains(&"--broadcast-delay");
    let inbox = Arc::new(Mutex::new(Inbox {
        fail_next: 2,
        ..Default::default()
    }));
    let url = receiver(inbox.clone()).await;
    let mut up = Up::start(log, data).await;
    let listen = up.addr.clone();
    let director = up.token("director").to_string();
    let partner = up.token("partner").to_string();
    let mut seating = up.seating();
    open_tournament(&mut seating, "hooks", "Webhook night", "USD", 4, &director).await;
    let mut hooks = WebhookServiceClient::new(up.channel.clone());
    let create =
        |command_id: &str, url: &str, scopes: Vec<pb::WebhookScope>| pb::CreateWebhookRequest {
            tournament_id: "hooks".into(),
            command_id: command_id.into(),
            url: url.into(),
            scopes: scopes.into_iter().map(i32::from).collect(),
        };
    let all = vec![
        pb::WebhookScope::Clock,
        pb::WebhookScope::Seating,
        pb::WebhookScope::Results,
        pb::WebhookScope::Tables,
    ];

    // Given bad requests: each refused, naming what is wrong.
    let refused = |r: Result<tonic::Response<pb::CreateWebhookResponse>, tonic::Status>| {
        let s = r.expect_err("refused");
        (s.code(), s.message().to_string())
    };
    let (code, msg) = refused(
        hooks
            .create_webhook(with(
                create("w-floor", &url, all.clone()),
                up.token("floor"),
            ))
            .await,
    );
    assert_eq!(code, Code::PermissionDenied, "{msg}");
    assert!(msg.contains("partners and the director"), "{msg}");
    let (code, msg) = refused(
        hooks
            .create_webhook(with(
                create("w-ftp", "ftp://x.example/", all.clone()),
                &partner,
            ))
            .await,
    );
    assert_eq!(code, Code::InvalidArgument, "{msg}");
    assert!(msg.contains("url: http or https"), "{msg}");
    let (code, msg) = refused(
        hooks
            .create_webhook(with(create("w-none", &url, vec![]), &partner))
            .await,
    );
    assert_eq!(code, Code::InvalidArgument, "{msg}");
    assert!(msg.contains("at least one kind of event"), "{msg}");
    let (code, msg) = refused(
        hooks
            .create_webhook(with(
                pb::CreateWebhookRequest {
                    tournament_id: "nowhere".into(),
                    ..create("w-nowhere", &url, all.clone())
                },
                &partner,
            ))
            .await,
    );
    assert_eq!(code, Code::NotFound, "{msg}");

    // Whole hands come after the broadcast delay, on a webhook of their
    // own, and only where there is a delay.
    let hands_inbox = Arc::new(Mutex::new(Inbox::default()));
    let hands_url = receiver(hands_inbox.clone()).await;
    let (code, msg) = refused(
        hooks
            .create_webhook(with(
                create(
                    "w-mixed",
                    &hands_url,
                    vec![pb::WebhookScope::Hands, pb::WebhookScope::Clock],
                ),
                &partner,
            ))
            .await,
    );
    assert_eq!(code, Code::InvalidArgument, "{msg}");
    assert!(msg.contains("a webhook of their own"), "{msg}");
    let hands = hooks
        .create_webhook(with(
            create("w-hands", &hands_url, vec![pb::WebhookScope::Hands]),
            &partner,
        ))
        .await;
    let hands = if delay {
        Some(hands.expect("a webhook of whole hands").into_inner())
    } else {
        let (code, msg) = refused(hands);
        assert_eq!(code, Code::FailedPrecondition, "{msg}");
        assert!(msg.contains("broadcast delay"), "{msg}");
        None
    };

    // When the partner registers its URL for every scope,
    let created = hooks
        .create_webhook(with(create("w-1", &url, all.clone()), &partner))
        .await
        .expect("create a webhook")
        .into_inner();
    let webhook = created.webhook.clone().expect("the webhook");
    let secret = created.secret.clone();
    assert!(secret.starts_with("whsec_"), "{secret}");
    assert_eq!(webhook.owner, "partner");
    // (sent again, the same webhook and secret),
    let again = hooks
        .create_webhook(with(create("w-1", &url, all.clone()), &partner))
        .await
        .expect("the same request again")
        .into_inner();
    assert_eq!(
        (again.webhook, again.secret),
        (Some(webhook.clone()), secret.clone())
    );

    // then everything recorded so far reaches its server, after the
    // server's first two failures,
    let so_far = BTreeSet::from(["hooks/clock/main/1".into(), "hooks/seating/main/1".into()]);
    wait_for(&inbox, &so_far, "the tournament's first events").await;
    let first = inbox.lock().unwrap().posts[0].event_id.clone();
    let tries = inbox
        .lock()
        .unwrap()
        .posts
        .iter()
        .filter(|p| p.event_id == first)
        .count();
    assert_eq!(tries, 3, "{first}: failed twice, then delivered");
    // and a hand and a pause as they happen.
    let tables = felt_proto::v1::table_service_client::TableServiceClient::new(up.channel.clone());
    let mut roll = 11;
    assert_eq!(
        play_hand(&seating, &tables, "hooks", 1, &director, &mut roll).await,
        Hand::Played
    );
    up.control(
        "hooks",
        "pause-1",
        pb::control_clock_request::Command::Pause(pb::Pause {
            reason: "a ruling".into(),
        }),
    )
    .await;
    let paused = felt_proto::v1::clock_service_client::ClockServiceClient::new(up.channel.clone())
        .get_clock(with(
            pb::GetClockRequest {
                tournament_id: "hooks".into(),
            },
            &partner,
        ))
        .await
        .unwrap()
        .into_inner()
        .clock
        .unwrap()
        .version;
    wait_for(
        &inbox,
        &BTreeSet::from([format!("hooks/clock/main/{paused}")]),
        "the pause",
    )
    .await;
    // The partner sees how its deliveries go.
    let listed = hooks
        .list_webhooks(with(pb::ListWebhooksRequest::default(), &partner))
        .await
        .unwrap()
        .into_inner()
        .webhooks;
    assert_eq!(listed.len(), 1 + usize::from(delay));
    let deliveries = listed
        .iter()
        .find(|w| w.webhook.as_ref().unwrap().id == webhook.id)
        .and_then(|w| w.deliveries.clone())
        .expect("the webhook listed");
    assert_eq!(deliveries.failed, 2, "{deliveries:?}");
    assert_eq!(deliveries.failing_since_ms, 0, "{deliveries:?}");
    assert!(deliveries.delivered > 10, "{deliveries:?}");
    assert!(deliveries.delivered_position > 0);

    // When felt stops and starts again, the events recorded meanwhile (the
    // clock resumed) arrive, and nothing before is lost. (A webhook
    // records where it got to within a quarter of a second.)
    tokio::time::sleep(Duration::from_millis(600)).await;
    up.stop();
    let (posted_before, delivered_before) = {
        let inbox = inbox.lock().unwrap();
        (inbox.posts.len(), ids_of(&inbox.posts))
    };
    let mut up = Up::start_at(&listen, log, data).await;
    up.control(
        "hooks",
        "resume-1",
        pb::control_clock_request::Command::Resume(pb::Resume {
            reason: "ruled".into(),
        }),
    )
    .await;
    let tables = felt_proto::v1::table_service_client::TableServiceClient::new(up.channel.clone());
    let seating = up.seating();
    assert_eq!(
        play_hand(&seating, &tables, "hooks", 1, &director, &mut roll).await,
        Hand::Played
    );
    tokio::time::sleep(Duration::from_millis(600)).await;
    up.stop();
    let wanted = expected(data, nats, "hooks").await;
    // The outage of the partner's URL (two failed posts) is in the log,
    // from its first failure to the post that went through.
    let outage = registry(data, nats).await;
    let w1 = webhook.id;
    assert!(
        outage
            .iter()
            .any(|(t, id)| t == "DeliveryFailing" && *id == w1)
            && outage
                .iter()
                .any(|(t, id)| t == "DeliveryRecovered" && *id == w1),
        "{outage:?}"
    );
    let failing_at = outage.iter().position(|(t, _)| t == "DeliveryFailing");
    let recovered_at = outage.iter().position(|(t, _)| t == "DeliveryRecovered");
    assert!(failing_at < recovered_at, "{outage:?}");
    assert!(wanted.len() > 30, "{}", wanted.len());
    let mut up = Up::start_at(&listen, log, data).await;
    wait_for(&inbox, &wanted, "every event of the tournament").await;

    // Every post is signed with the webhook's secret, and says the event
    // it carries; each stream's events came in order.
    let posts = inbox.lock().unwrap().posts.clone();
    // A restart posts again at most what it was posting (the position each
    // webhook reached is recorded), not everything from the start.
    let reposted = ids_of(&posts[posted_before..])
        .intersection(&delivered_before)
        .count();
    assert!(
        delivered_before.len() > 30 && reposted <= 16,
        "{reposted} of {} events posted again after the restarts",
        delivered_before.len()
    );
    let mut last: BTreeMap<String, u64> = BTreeMap::new();
    let mut first_posts = BTreeSet::new();
    for p in &posts {
        let t = felt_webhooks::verify(&secret, &p.signature, &p.body, p.at, 60_000)
            .unwrap_or_else(|e| panic!("{}: {e}", p.event_id));
        assert!(t <= p.at);
        assert_eq!(p.content_type, "application/x-protobuf");
        assert_eq!(p.webhook_id, webhook.id.to_string());
        let delivery = pb::WebhookDelivery::decode(p.body.as_slice()).expect("a delivery");
        assert_eq!(delivery.event_id, p.event_id);
        assert_eq!(delivery.webhook_id, webhook.id);
        assert_eq!(delivery.tournament_id, "hooks");
        let (stream, sequence) = p.event_id.rsplit_once('/').unwrap();
        let sequence: u64 = sequence.parse().unwrap();
        let kind = stream.split('/').nth(1).unwrap();
        match (kind, &delivery.event) {
            ("clock", Some(pb::webhook_delivery::Event::Clock(e))) => {
                assert_eq!(e.sequence, sequence)
            }
            ("seating", Some(pb::webhook_delivery::Event::Seating(e))) => {
                assert_eq!(e.sequence, sequence)
            }
            ("payout", Some(pb::webhook_delivery::Event::Results(e))) => {
                assert_eq!(e.sequence, sequence)
            }
            ("table", Some(pb::webhook_delivery::Event::Table(t))) => {
                let e = t.event.as_ref().unwrap();
                assert_eq!(e.sequence, sequence);
                // No hole card in the air reaches a partner.
                if let Some(pb::table_event::Kind::HoleCardsDealt(h)) =
                    e.event.as_ref().and_then(|e| e.kind.as_ref())
                {
                    assert!(h.cards.iter().all(|c| c.cards.is_empty()), "{h:?}");
                }
            }
            other => panic!("{}: {other:?}", p.event_id),
        }
        // (A post again after a failure or a restart repeats what was
        // being posted: only each event's first post says the order.)
        if first_posts.insert(p.event_id.clone()) {
            let before = last.insert(stream.to_string(), sequence).unwrap_or(0);
            assert!(sequence > before, "{}: after {before}", p.event_id);
        }
    }

    // Whole hands: each once the delay (a second) had run from its end,
    // with every seat's hole cards.
    if let Some(hands) = &hands {
        let id = hands.webhook.as_ref().unwrap().id;
        wait_for(
            &hands_inbox,
            &BTreeSet::from(["hooks/hand/1/1".into(), "hooks/hand/1/2".into()]),
            "whole hands",
        )
        .await;
        for p in hands_inbox.lock().unwrap().posts.iter() {
            felt_webhooks::verify(&hands.secret, &p.signature, &p.body, p.at, 60_000)
                .unwrap_or_else(|e| panic!("{}: {e}", p.event_id));
            assert_eq!(p.webhook_id, id.to_string());
            let delivery = pb::WebhookDelivery::decode(p.body.as_slice()).expect("a delivery");
            let Some(pb::webhook_delivery::Event::Hand(hand)) = delivery.event else {
                panic!("{}: {:?}", p.event_id, delivery.event);
            };
            assert_eq!(p.event_id, format!("hooks/hand/1/{}", hand.hand_number));
            assert!(
                p.at >= hand.ended_at_ms + 1_000,
                "{}: posted {} ms after the hand's end",
                p.event_id,
                p.at - hand.ended_at_ms
            );
            let types: Vec<&str> = hand.events.iter().map(|e| e.r#type.as_str()).collect();
            assert_eq!(types.first(), Some(&"HandStarted"), "{types:?}");
            assert_eq!(types.last(), Some(&"HandEnded"), "{types:?}");
            let dealt = hand
                .events
                .iter()
                .find_map(|e| match e.event.as_ref().and_then(|e| e.kind.as_ref()) {
                    Some(pb::table_event::Kind::HoleCardsDealt(h)) => Some(h.clone()),
                    _ => None,
                })
                .expect("hole cards dealt");
            assert!(dealt.cards.len() >= 2);
            assert!(dealt.cards.iter().all(|c| c.cards.len() == 2), "{dealt:?}");
        }
    }

    // When the director deletes the webhook, nothing more is posted to it.
    let mut hooks = WebhookServiceClient::new(up.channel.clone());
    let deleted = hooks
        .delete_webhook(with(
            pb::DeleteWebhookRequest {
                id: webhook.id,
                command_id: "del-1".into(),
            },
            &director,
        ))
        .await
        .expect("delete")
        .into_inner();
    assert!(deleted.deleted_at_ms > 0);
    let clock_before = webhook_ids_of_clock(&inbox, "hooks").await;
    up.control(
        "hooks",
        "pause-2",
        pb::control_clock_request::Command::Pause(pb::Pause {
            reason: "a second ruling".into(),
        }),
    )
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(webhook_ids_of_clock(&inbox, "hooks").await, clock_before);
    let listed = hooks
        .list_webhooks(with(pb::ListWebhooksRequest::default(), &director))
        .await
        .unwrap()
        .into_inner()
        .webhooks;
    // (The director sees every live webhook: the whole hands' is left.)
    let left: Vec<u64> = listed
        .iter()
        .map(|w| w.webhook.as_ref().unwrap().id)
        .collect();
    let hands_id = hands.as_ref().map(|h| h.webhook.as_ref().unwrap().id);
    assert_eq!(left, hands_id.into_iter().collect::<Vec<_>>(), "{listed:?}");
    let (code, msg) = {
        let s = hooks
            .delete_webhook(with(
                pb::DeleteWebhookRequest {
                    id: webhook.id,
                    command_id: "del-2".into(),
                },
                &partner,
            ))
            .await
            .expect_err("deleted already");
        (s.code(), s.message().to_string())
    };
    assert_eq!(code, Code::FailedPrecondition, "{msg}");
    assert!(msg.contains("deleted already"), "{msg}");
    up.stop();
}
