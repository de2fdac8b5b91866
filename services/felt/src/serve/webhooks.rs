//! Partners' webhooks: the `WebhookService` (served where seating is,
//! which writes the registry, `felt._registry.webhooks.all`), and the
//! deliverer that posts every event in a live webhook's scopes to its URL,
//! signed with its secret, in the log's order, each until it is answered
//! 2xx. Where each webhook has got is recorded beside the log
//! (`webhook-<id>`), so a restart posts again at most the event it was
//! posting, never skips one.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use felt_eventlog::{Committed, EventLog, Filter, LogError, StreamId};
use felt_proto::prost::Message;
use felt_proto::v1 as pb;
use felt_proto::v1::webhook_service_server::WebhookService;
use felt_service::Aggregate;
use felt_table::TableEvent;
use felt_webhooks::{
    Key, Scope, Webhook, WebhookCommand, WebhookError, WebhookEvent, WebhooksState,
};
use tonic::{Request, Response, Status};

use super::auth::{Actor, Role, role};
use super::shared::{Ctx, Now};
use super::status::log as log_status;

/// The webhooks registry's stream.
pub(crate) fn stream() -> Result<StreamId, LogError> {
    StreamId::new("_registry", "webhooks", "all")
}

/// The registry as the service pattern runs it.
#[derive(Debug)]
pub(crate) struct Registry;

impl Aggregate for Registry {
    type State = WebhooksState;
    type Command = WebhookCommand;
    type Event = WebhookEvent;
    type Rejection = WebhookError;
    const SCHEMA: u16 = 1;

    fn decide(
        state: &WebhooksState,
        command: &WebhookCommand,
        _: &felt_service::Seed,
    ) -> Result<Vec<WebhookEvent>, WebhookError> {
        felt_webhooks::decide(state, command)
    }

    fn apply(state: &mut WebhooksState, event: &WebhookEvent) {
        state.apply(event);
    }

    fn event_type(event: &WebhookEvent) -> &'static str {
        event.name()
    }
}

/// How long one post may take before it counts as failed.
const POST_TIMEOUT: Duration = Duration::from_secs(10);
/// The first wait after a failed post; each next one doubles, up to
/// [`RETRY_MAX`].
const RETRY_FIRST: Duration = Duration::from_millis(500);
const RETRY_MAX: Duration = Duration::from_secs(60);
/// The longest error text kept for a listing.
const ERROR_TEXT: usize = 300;
/// How often at most a webhook records where it has got (and how long it
/// waits, idle, before recording the last): a restart posts again at most
/// this long's events, and a busy tournament does not cost a write per
/// decision per webhook.
const RECORD_EVERY: Duration = Duration::from_millis(250);

/// How each webhook's deliveries go, as this process knows since it
/// started (shared by the deliverer and the API's listing).
#[derive(Debug, Default)]
pub(crate) struct Deliveries {
    by_webhook: Mutex<HashMap<u64, pb::WebhookDeliveries>>,
}

impl Deliveries {
    fn update(&self, id: u64, f: impl FnOnce(&mut pb::WebhookDeliveries)) {
        let mut map = self
            .by_webhook
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        f(map.entry(id).or_default());
    }

    fn of(&self, id: u64) -> pb::WebhookDeliveries {
        self.by_webhook
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&id)
            .cloned()
            .unwrap_or_default()
    }
}

/// The webhooks' HTTP client: rustls on the ring provider the rest of felt
/// uses, no redirects (a webhook posts where it was registered to).
pub(crate) fn client() -> Result<reqwest::Client, super::ServeError> {
    // (Installed once per process; a second call finds it there.)
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(POST_TIMEOUT)
        .connect_timeout(POST_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| super::ServeError::settings(format!("the webhooks' HTTP client: {e}")))
}

fn scope_of(wire: i32) -> Option<Scope> {
    match pb::WebhookScope::try_from(wire).ok()? {
        pb::WebhookScope::Clock => Some(Scope::Clock),
        pb::WebhookScope::Seating => Some(Scope::Seating),
        pb::WebhookScope::Results => Some(Scope::Results),
        pb::WebhookScope::Tables => Some(Scope::Tables),
        pb::WebhookScope::Hands => Some(Scope::Hands),
        pb::WebhookScope::Unspecified => None,
    }
}

fn scope_to_wire(scope: Scope) -> pb::WebhookScope {
    match scope {
        Scope::Clock => pb::WebhookScope::Clock,
        Scope::Seating => pb::WebhookScope::Seating,
        Scope::Results => pb::WebhookScope::Results,
        Scope::Tables => pb::WebhookScope::Tables,
        Scope::Hands => pb::WebhookScope::Hands,
    }
}

fn to_wire(w: &Webhook) -> pb::Webhook {
    pb::Webhook {
        id: w.id,
        tournament_id: w.tournament.to_string(),
        owner: w.owner.clone(),
        url: w.url.clone(),
        scopes: w.scopes.iter().map(|s| scope_to_wire(*s).into()).collect(),
        created_at_ms: w.created_at,
    }
}

/// The webhook service on a log.
pub(crate) struct WebhookApi<L: EventLog> {
    ctx: Ctx<L>,
    registry: felt_service::Handler<Registry, L>,
    key: Option<Key>,
    deliveries: Arc<Deliveries>,
    /// After this long past a hand's end, partners may have it whole.
    broadcast_delay: Option<Duration>,
}

impl<L: EventLog + 'static> WebhookApi<L> {
    pub(crate) fn new(
        ctx: Ctx<L>,
        key: Option<Key>,
        deliveries: Arc<Deliveries>,
        broadcast_delay: Option<Duration>,
    ) -> Self {
        let registry = felt_service::Handler::new(ctx.conductor.seating.log().clone());
        WebhookApi {
            ctx,
            registry,
            key,
            deliveries,
            broadcast_delay,
        }
    }

    async fn handle(
        &self,
        command_id: &str,
        request: &impl Message,
        command: WebhookCommand,
    ) -> Result<felt_service::Outcome<Registry>, Status> {
        if command_id.is_empty() {
            return Err(Status::invalid_argument("command_id is required"));
        }
        let stream = stream().map_err(log_status)?;
        let from = felt_service::Provenance {
            request: super::shared::fingerprint(request),
            ..Default::default()
        };
        self.registry
            .handle_from(&stream, command_id, self.ctx.now(), &from, &command)
            .await
            .map_err(|e| super::status::refused(&e))
    }
}

/// Who manages webhooks: the director (every one) and partners (their
/// own). The owner a partner's command is limited to.
fn manager<T>(request: &Request<T>, what: &str) -> Result<Option<String>, Status> {
    let owner = request
        .extensions()
        .get::<Actor>()
        .and_then(|a| a.0.clone())
        .unwrap_or_default();
    match role(request)? {
        Role::Director => Ok(None),
        Role::Partner => Ok(Some(owner)),
        _ => Err(Status::permission_denied(format!(
            "{what} is for partners and the director"
        ))),
    }
}

#[tonic::async_trait]
impl<L: EventLog + 'static> WebhookService for WebhookApi<L> {
    async fn create_webhook(
        &self,
        request: Request<pb::CreateWebhookRequest>,
    ) -> Result<Response<pb::CreateWebhookResponse>, Status> {
        super::limits::check(request.get_ref())?;
        let limited = manager(&request, "registering a webhook")?;
        let owner = match limited {
            Some(owner) => owner,
            None => Role::Director.name(),
        };
        let req = request.into_inner();
        let Some(key) = &self.key else {
            return Err(Status::failed_precondition(
                "this deployment has no webhook key (--webhook-key, FELT_WEBHOOK_KEY): webhooks cannot be signed",
            ));
        };
        let tournament = req
            .tournament_id
            .parse()
            .map_err(|e| Status::invalid_argument(format!("tournament_id: {e}")))?;
        self.ctx.known(&req.tournament_id).await?;
        let scopes = req
            .scopes
            .iter()
            .enumerate()
            .map(|(i, s)| {
                scope_of(*s).ok_or_else(|| {
                    Status::invalid_argument(format!(
                        "scopes[{i}]: {s} is no scope (clock, seating, results, tables or hands)"
                    ))
                })
            })
            .collect::<Result<BTreeSet<_>, _>>()?;
        // (Hands with another scope: the registry's refusal.)
        if scopes == BTreeSet::from([Scope::Hands]) && self.broadcast_delay.is_none() {
            return Err(Status::failed_precondition(
                "scopes: whole hands go to partners only after a broadcast delay, and this deployment has none (--broadcast-delay)",
            ));
        }
        let command = WebhookCommand::Create {
            tournament,
            owner,
            url: req.url.clone(),
            scopes,
            at: self.ctx.now(),
        };
        let out = self.handle(&req.command_id, &req, command).await?;
        let webhook = out
            .events
            .iter()
            .find_map(|e| match e {
                WebhookEvent::Created(w) => Some(w),
                _ => None,
            })
            .ok_or_else(|| Status::internal("a webhook's creation recorded no webhook"))?;
        Ok(Response::new(pb::CreateWebhookResponse {
            webhook: Some(to_wire(webhook)),
            secret: key.secret(webhook.id).expose().to_string(),
        }))
    }

    async fn list_webhooks(
        &self,
        request: Request<pb::ListWebhooksRequest>,
    ) -> Result<Response<pb::ListWebhooksResponse>, Status> {
        super::limits::check(request.get_ref())?;
        let owner = manager(&request, "listing webhooks")?;
        let req = request.into_inner();
        let stream = stream().map_err(log_status)?;
        let (state, _) = self.registry.state(&stream).await.map_err(log_status)?;
        let webhooks = state
            .live()
            .filter(|w| owner.as_ref().is_none_or(|o| *o == w.owner))
            .filter(|w| req.tournament_id.is_empty() || w.tournament.as_str() == req.tournament_id)
            .map(|w| pb::ListedWebhook {
                webhook: Some(to_wire(w)),
                deliveries: Some(pb::WebhookDeliveries {
                    failing_since_ms: w.failing.as_ref().map_or(0, |f| f.since),
                    failing_error: w
                        .failing
                        .as_ref()
                        .map(|f| f.error.clone())
                        .unwrap_or_default(),
                    ..self.deliveries.of(w.id)
                }),
            })
            .collect();
        Ok(Response::new(pb::ListWebhooksResponse { webhooks }))
    }

    async fn delete_webhook(
        &self,
        request: Request<pb::DeleteWebhookRequest>,
    ) -> Result<Response<pb::DeleteWebhookResponse>, Status> {
        super::limits::check(request.get_ref())?;
        let owner = manager(&request, "deleting a webhook")?;
        let req = request.into_inner();
        let command = WebhookCommand::Delete {
            id: req.id,
            owner,
            at: self.ctx.now(),
        };
        let out = self.handle(&req.command_id, &req, command).await?;
        let webhook = out
            .state
            .webhooks()
            .get(&req.id)
            .ok_or_else(|| Status::internal("a deleted webhook is not in the registry"))?;
        Ok(Response::new(pb::DeleteWebhookResponse {
            webhook: Some(to_wire(webhook)),
            deleted_at_ms: webhook.deleted_at.unwrap_or_default(),
        }))
    }
}

/// Delivers every live webhook's events for as long as the process runs:
/// folds the registry as it is committed, starts a delivery for each
/// webhook registered and stops it once deleted.
pub(crate) async fn deliver<L: EventLog + 'static>(
    log: Arc<L>,
    key: Key,
    client: reqwest::Client,
    deliveries: Arc<Deliveries>,
    now: Now,
    broadcast_delay: Option<Duration>,
) {
    let mut running: HashMap<u64, tokio::task::JoinHandle<()>> = HashMap::new();
    // (Outages are recorded in the registry this process writes.)
    let registry = Arc::new(felt_service::Handler::<Registry, L>::new(log.clone()));
    let mut state = WebhooksState::default();
    let mut version = 0;
    loop {
        let result = follow_registry(log.as_ref(), &mut state, &mut version, |state| {
            running.retain(|id, task| {
                let live = state.webhooks().get(id).is_some_and(Webhook::live);
                if !live {
                    task.abort();
                }
                live
            });
            for w in state.live() {
                running.entry(w.id).or_insert_with(|| {
                    tokio::spawn(deliver_one(Delivery {
                        log: log.clone(),
                        registry: registry.clone(),
                        webhook: w.clone(),
                        secret: key.secret(w.id),
                        client: client.clone(),
                        deliveries: deliveries.clone(),
                        now: now.clone(),
                        broadcast_delay,
                    }))
                });
            }
        })
        .await;
        if let Err(e) = result {
            tracing::warn!(%e, "following the webhooks registry failed: starting again");
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Folds the registry from `version` on, telling `changed` after each
/// read, and again each time a decision is committed to it.
async fn follow_registry<L: EventLog>(
    log: &L,
    state: &mut WebhooksState,
    version: &mut u64,
    mut changed: impl FnMut(&WebhooksState),
) -> Result<(), LogError> {
    let stream = stream()?;
    let head = log.head().await?;
    let mut sub = log.subscribe(Filter::stream(&stream), head).await?;
    loop {
        for env in log.read(&stream, *version + 1).await? {
            state.apply(&env.decode()?);
            *version = env.sequence;
        }
        changed(state);
        match sub.next().await {
            Some(next) => {
                next?;
            }
            None => return Ok(()),
        }
    }
}

/// What one webhook's deliveries need.
struct Delivery<L: EventLog> {
    log: Arc<L>,
    registry: Arc<felt_service::Handler<Registry, L>>,
    webhook: Webhook,
    secret: felt_webhooks::Secret,
    client: reqwest::Client,
    deliveries: Arc<Deliveries>,
    now: Now,
    broadcast_delay: Option<Duration>,
}

/// One webhook's deliveries, from where it last got to, for as long as it
/// lives (its task is stopped when it is deleted); after the log's error,
/// again from there.
async fn deliver_one<L: EventLog + 'static>(d: Delivery<L>) {
    let consumer = format!("webhook-{}", d.webhook.id);
    // Whether an outage is recorded and not yet its end.
    let mut failing = d.webhook.failing.is_some();
    let kinds: BTreeSet<&str> = d.webhook.scopes.iter().map(|s| s.kind()).collect();
    loop {
        // Each table's hand so far, for whole hands (read again from the
        // log for a hand begun before a restart).
        let mut hands = HashMap::new();
        let result = async {
            let after = d.log.recorded_position(&consumer).await?;
            d.deliveries.update(d.webhook.id, |s| {
                s.delivered_position = s.delivered_position.max(after);
            });
            let filter = match kinds.iter().collect::<Vec<_>>()[..] {
                [one] => Filter {
                    tournament: Some(d.webhook.tournament.to_string()),
                    kind: Some((*one).into()),
                    id: None,
                },
                _ => Filter::tournament(d.webhook.tournament.as_str()),
            };
            let mut sub = d.log.subscribe(filter, after).await?;
            // Delivered up to here, not yet recorded; when it was last.
            let mut unrecorded = None;
            let mut recorded_at = tokio::time::Instant::now();
            loop {
                let next = match unrecorded {
                    // (A subscription's next is cancel-safe.)
                    Some(position) => match tokio::time::timeout(RECORD_EVERY, sub.next()).await {
                        Ok(next) => next,
                        Err(_) => {
                            d.log.record_position(&consumer, position).await?;
                            unrecorded = None;
                            recorded_at = tokio::time::Instant::now();
                            continue;
                        }
                    },
                    None => sub.next().await,
                };
                let Some(committed) = next else {
                    break;
                };
                let committed = committed?;
                if !kinds.contains(committed.stream.kind.as_str()) {
                    continue;
                }
                let position = committed.position;
                let posts = if d.webhook.scopes.contains(&Scope::Hands) {
                    hand_posts(&d, &committed, &mut hands).await?
                } else {
                    posts(&d.webhook, &committed).map_err(|e| LogError::Decode {
                        // (An event this build cannot read: never skipped,
                        // never posted half.)
                        what: format!("webhook {}'s decision at {position}", d.webhook.id),
                        reason: e.message().to_string(),
                    })?
                };
                for (event_id, body) in posts {
                    post_until_delivered(&d, &event_id, body, &mut failing).await;
                }
                d.deliveries
                    .update(d.webhook.id, |s| s.delivered_position = position);
                unrecorded = Some(position);
                if recorded_at.elapsed() >= RECORD_EVERY {
                    d.log.record_position(&consumer, position).await?;
                    unrecorded = None;
                    recorded_at = tokio::time::Instant::now();
                }
            }
            Ok::<(), LogError>(())
        }
        .await;
        if let Err(e) = result {
            tracing::warn!(%e, webhook = d.webhook.id, "a webhook's deliveries failed: starting again");
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// The whole hands a table's decision ends, each posted once the broadcast
/// delay has run from its end (waiting here for it: the hands end in this
/// order). `hands` holds each table's hand so far.
async fn hand_posts<L: EventLog + 'static>(
    d: &Delivery<L>,
    committed: &Committed,
    hands: &mut HashMap<u32, Vec<(u64, TableEvent)>>,
) -> Result<Vec<(String, Vec<u8>)>, LogError> {
    let stream = &committed.stream;
    // (Every table stream is named by its number.)
    let table: u32 = stream.id.parse().unwrap_or(0);
    let mut out = Vec::new();
    for env in &committed.envelopes {
        let event = felt_tablelog::decode(env)?;
        let hand = hands.entry(table).or_default();
        let number = match &event {
            TableEvent::HandStarted { .. } => {
                hand.clear();
                hand.push((env.sequence, event));
                continue;
            }
            TableEvent::HandEnded { number, .. } => *number,
            _ => {
                // (Held only within a hand this delivery saw start.)
                if !hand.is_empty() {
                    hand.push((env.sequence, event));
                }
                continue;
            }
        };
        hand.push((env.sequence, event));
        let mut whole = std::mem::take(hand);
        if !matches!(whole.first(), Some((_, TableEvent::HandStarted { .. }))) {
            // Begun before this delivery started: the hand from the log.
            let all = d
                .log
                .read(stream, 1)
                .await?
                .iter()
                .map(felt_tablelog::decode)
                .collect::<Result<Vec<_>, _>>()?;
            whole = super::table::hand_events(&all, number)
                .map(|(events, _)| events)
                .unwrap_or_default();
        }
        let ended_at = env.recorded_at;
        wait_for_the_delay(d, ended_at).await;
        let event_id = format!("{}/hand/{table}/{number}", stream.tournament);
        let body = pb::WebhookDelivery {
            event_id: event_id.clone(),
            webhook_id: d.webhook.id,
            tournament_id: stream.tournament.to_string(),
            position: committed.position,
            recorded_at_ms: ended_at,
            event: Some(pb::webhook_delivery::Event::Hand(pb::HandDelivery {
                table: Some(pb::TableRef {
                    tournament_id: stream.tournament.to_string(),
                    table,
                }),
                hand_number: number,
                events: super::table::wire(&whole, true),
                ended_at_ms: ended_at,
            })),
        }
        .encode_to_vec();
        out.push((event_id, body));
    }
    Ok(out)
}

/// Waits until the broadcast delay has run from `ended_at`; with no delay
/// configured (the setting removed since the webhook was registered),
/// holds the hand, saying why, until one is.
async fn wait_for_the_delay<L: EventLog>(d: &Delivery<L>, ended_at: i64) {
    let Some(delay) = d.broadcast_delay else {
        d.deliveries.update(d.webhook.id, |s| {
            s.last_error = "whole hands are held: this deployment has no broadcast delay".into();
        });
        tracing::warn!(
            webhook = d.webhook.id,
            "whole hands are held: no --broadcast-delay"
        );
        std::future::pending::<()>().await;
        return;
    };
    let delay = i64::try_from(delay.as_millis()).unwrap_or(i64::MAX);
    let due = ended_at.saturating_add(delay);
    let left = due.saturating_sub((d.now)());
    if left > 0 {
        tokio::time::sleep(Duration::from_millis(left.unsigned_abs())).await;
    }
}

/// The posts a decision makes to a webhook: each event's id and body.
fn posts(webhook: &Webhook, committed: &Committed) -> Result<Vec<(String, Vec<u8>)>, Status> {
    use pb::webhook_delivery::Event as E;
    let stream = &committed.stream;
    let envelopes = &committed.envelopes;
    let events: Vec<(u64, i64, E)> = match stream.kind.as_str() {
        "clock" => super::clock::wire(envelopes)?
            .into_iter()
            .zip(envelopes)
            .map(|(e, env)| (e.sequence, env.recorded_at, E::Clock(e)))
            .collect(),
        "seating" => super::seating::wire(envelopes)?
            .into_iter()
            .map(|e| (e.sequence, e.recorded_at_ms, E::Seating(e)))
            .collect(),
        "payout" => super::payout::events(envelopes)?
            .into_iter()
            .map(|e| (e.sequence, e.recorded_at_ms, E::Results(e)))
            .collect(),
        "table" => {
            let decoded = envelopes
                .iter()
                .map(|env| felt_tablelog::decode(env).map(|e| (env.sequence, e)))
                .collect::<Result<Vec<_>, _>>()
                .map_err(log_status)?;
            let table = pb::TableRef {
                tournament_id: stream.tournament.to_string(),
                // (Every table stream is named by its number.)
                table: stream.id.parse().unwrap_or(0),
            };
            // (Partners get no event of cards entered before a hand is
            // over: an event's time is found by its sequence.)
            let recorded_at = |sequence: u64| {
                envelopes
                    .iter()
                    .find(|env| env.sequence == sequence)
                    .map_or(0, |env| env.recorded_at)
            };
            super::table::wire(&decoded, false)
                .into_iter()
                .map(|e| {
                    (
                        e.sequence,
                        recorded_at(e.sequence),
                        E::Table(pb::TableDelivery {
                            table: Some(table.clone()),
                            event: Some(e),
                        }),
                    )
                })
                .collect()
        }
        _ => Vec::new(),
    };
    Ok(events
        .into_iter()
        .map(|(sequence, recorded_at_ms, event)| {
            let event_id = format!(
                "{}/{}/{}/{sequence}",
                stream.tournament, stream.kind, stream.id
            );
            let body = pb::WebhookDelivery {
                event_id: event_id.clone(),
                webhook_id: webhook.id,
                tournament_id: stream.tournament.to_string(),
                position: committed.position,
                recorded_at_ms,
                event: Some(event),
            }
            .encode_to_vec();
            (event_id, body)
        })
        .collect())
}

/// Posts one event until its URL answers 2xx, waiting longer after each
/// failure (0.5 s, doubling to a minute).
async fn post_until_delivered<L: EventLog + 'static>(
    d: &Delivery<L>,
    event_id: &str,
    body: Vec<u8>,
    failing: &mut bool,
) {
    let Delivery {
        client,
        webhook,
        secret,
        deliveries,
        now,
        ..
    } = d;
    let mut wait = RETRY_FIRST;
    let mut failed = 0u64;
    loop {
        let t = now();
        let sent = client
            .post(&webhook.url)
            .header(reqwest::header::CONTENT_TYPE, "application/x-protobuf")
            .header("felt-event-id", event_id)
            .header("felt-webhook-id", webhook.id.to_string())
            .header(
                felt_webhooks::SIGNATURE_HEADER,
                felt_webhooks::signature(secret, t, &body),
            )
            .body(body.clone())
            .send()
            .await;
        let (status, error) = match sent {
            Ok(answer) if answer.status().is_success() => (answer.status().as_u16(), None),
            Ok(answer) => (
                answer.status().as_u16(),
                Some(format!("answered {}", answer.status())),
            ),
            Err(e) => (0, Some(format!("{e}"))),
        };
        deliveries.update(webhook.id, |d| {
            d.last_status = u32::from(status);
            d.last_attempt_at_ms = t;
            match &error {
                None => {
                    d.delivered = d.delivered.saturating_add(1);
                    d.last_error.clear();
                }
                Some(e) => {
                    d.failed = d.failed.saturating_add(1);
                    d.last_error = e.chars().take(ERROR_TEXT).collect();
                }
            }
        });
        let Some(error) = error else {
            if *failing {
                let command = WebhookCommand::RecordRecovered {
                    id: webhook.id,
                    event_id: event_id.to_string(),
                    failed,
                    at: t,
                };
                record(
                    d,
                    &format!("webhook-{}-recovered-{event_id}", webhook.id),
                    t,
                    command,
                )
                .await;
                *failing = false;
            }
            return;
        };
        failed = failed.saturating_add(1);
        if !*failing {
            let command = WebhookCommand::RecordFailing {
                id: webhook.id,
                event_id: event_id.to_string(),
                error: error.clone(),
                at: t,
            };
            record(
                d,
                &format!("webhook-{}-failing-{event_id}", webhook.id),
                t,
                command,
            )
            .await;
            *failing = true;
        }
        tracing::info!(webhook = webhook.id, event_id, %error, ?wait, "a webhook's post failed: trying again");
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(RETRY_MAX);
    }
}

/// Records an outage's start or end in the registry, under a command id
/// from the webhook and the event it happened at (sent again after a
/// restart, answered as a repeat). The log's failure is logged: the
/// deliveries go on.
async fn record<L: EventLog + 'static>(
    d: &Delivery<L>,
    command_id: &str,
    t: i64,
    command: WebhookCommand,
) {
    let recorded = match stream() {
        Ok(stream) => d
            .registry
            .handle_from(
                &stream,
                command_id,
                t,
                &felt_service::Provenance::default(),
                &command,
            )
            .await
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    if let Err(e) = recorded {
        tracing::warn!(%e, webhook = d.webhook.id, "a webhook's outage could not be recorded");
    }
}
