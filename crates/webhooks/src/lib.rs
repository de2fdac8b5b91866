//! Partners' webhooks, as a pure decider, and how a delivery is signed.
//!
//! A partner that cannot hold a stream open (a serverless back end, a chat
//! bot) registers a URL for one tournament and the scopes of its events it
//! receives there; the house sees every registration and may delete any.
//! The registry is a stream of these events (written by the seating
//! service); the deliverer folds it and posts each event in scope to the
//! URL, signed with the webhook's own secret ([`Key::secret`]), which the
//! log never holds: it derives from the deployment's key and the webhook's
//! number, so the deliverer can sign again after a restart.
//!
//! ```text
//! decide(&WebhooksState, &WebhookCommand) -> Result<Vec<WebhookEvent>, WebhookError>
//! WebhooksState::apply(&mut self, &WebhookEvent)
//! signature(&Secret, t, body) -> "t=<ms>,v1=<hex>";  verify(..)
//! ```
//!
//! This crate knows nothing of HTTP, of the log or of the events it
//! scopes: a scope is a kind of stream.

use std::collections::{BTreeMap, BTreeSet};

use hmac::Mac;
use serde::{Deserialize, Serialize};

pub use felt_vocabulary::TournamentId;

/// The longest URL a webhook posts to.
pub const MAX_URL: usize = 2048;
/// The longest name of a webhook's owner (the person or role who made it).
pub const MAX_OWNER: usize = 128;
/// Live webhooks a tournament may have at once.
pub const MAX_PER_TOURNAMENT: usize = 64;
/// The longest error a failing delivery records.
pub const MAX_ERROR: usize = 300;
/// The longest event id a delivery names.
pub const MAX_EVENT_ID: usize = 200;

/// What a webhook receives: one kind of a tournament's streams.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
)]
pub enum Scope {
    /// The clock's events: levels, breaks, pauses, the day's end.
    Clock,
    /// Seating's: entries, seats, moves, busts, tables opened and broken.
    Seating,
    /// Payout's: places, prizes, deals.
    Results,
    /// Every table's hand events as a partner sees them live: hole cards
    /// only once tabled.
    Tables,
    /// Every hand whole, every hole card with it, once the broadcast delay
    /// has run from its end: on a webhook of its own (its posts wait for
    /// the delay, which would hold every other kind back).
    Hands,
}

impl Scope {
    /// The kind of stream the scope's events are in.
    pub fn kind(self) -> &'static str {
        match self {
            Scope::Clock => "clock",
            Scope::Seating => "seating",
            Scope::Results => "payout",
            Scope::Tables | Scope::Hands => "table",
        }
    }
}

/// One webhook as the registry knows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Webhook {
    /// Its number, from 1, across the deployment.
    pub id: u64,
    pub tournament: TournamentId,
    /// Who registered it (a person, or the role of a deployment token).
    pub owner: String,
    pub url: String,
    pub scopes: BTreeSet<Scope>,
    /// When it was registered, in milliseconds since the Unix epoch.
    pub created_at: i64,
    /// When it was deleted, once it was.
    pub deleted_at: Option<i64>,
    /// Since when its posts have failed, while they do.
    #[serde(default)]
    pub failing: Option<Failing>,
}

/// A webhook whose posts fail: since when, at which event, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failing {
    pub since: i64,
    pub event_id: String,
    pub error: String,
}

impl Webhook {
    /// Whether it still receives events.
    pub fn live(&self) -> bool {
        self.deleted_at.is_none()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WebhookCommand {
    /// Post `scopes` of `tournament` to `url`, for `owner`.
    Create {
        tournament: TournamentId,
        owner: String,
        url: String,
        scopes: BTreeSet<Scope>,
        at: i64,
    },
    /// Webhook `id` receives nothing more. `owner`: only if it is theirs
    /// (a partner's); `None`: the house's, any webhook.
    Delete {
        id: u64,
        owner: Option<String>,
        at: i64,
    },
    /// The deliverer's: a post to webhook `id` failed (recorded once per
    /// outage, at its first failure).
    RecordFailing {
        id: u64,
        event_id: String,
        error: String,
        at: i64,
    },
    /// The deliverer's: a post to a failing webhook succeeded again, after
    /// `failed` posts that did not.
    RecordRecovered {
        id: u64,
        event_id: String,
        failed: u64,
        at: i64,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WebhookEvent {
    Created(Webhook),
    Deleted {
        id: u64,
        at: i64,
    },
    /// Its posts began to fail: an outage of the partner's URL starts.
    DeliveryFailing {
        id: u64,
        event_id: String,
        error: String,
        at: i64,
    },
    /// Its posts are answered again: the outage is over.
    DeliveryRecovered {
        id: u64,
        event_id: String,
        failed: u64,
        at: i64,
    },
}

impl WebhookEvent {
    pub fn name(&self) -> &'static str {
        match self {
            WebhookEvent::Created(_) => "WebhookCreated",
            WebhookEvent::Deleted { .. } => "WebhookDeleted",
            WebhookEvent::DeliveryFailing { .. } => "DeliveryFailing",
            WebhookEvent::DeliveryRecovered { .. } => "DeliveryRecovered",
        }
    }
}

/// Why a command about webhooks is refused; nothing changes then.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, strum::IntoStaticStr)]
pub enum WebhookError {
    #[error("url: {why}")]
    InvalidUrl { why: String },
    #[error("scopes: a webhook receives at least one kind of event")]
    NoScopes,
    #[error(
        "scopes: whole hands wait for the broadcast delay, which would hold every other kind back: register them on a webhook of their own"
    )]
    HandsAlone,
    #[error("owner: 1 to {MAX_OWNER} characters without control characters, not {len}")]
    InvalidOwner { len: usize },
    #[error(
        "tournament {tournament} has {MAX_PER_TOURNAMENT} live webhooks already: delete one first"
    )]
    TooMany { tournament: TournamentId },
    #[error("webhook {id} posts to this url for tournament {tournament} already")]
    AlreadyRegistered { id: u64, tournament: TournamentId },
    #[error("no webhook {id}")]
    NoSuchWebhook { id: u64 },
    #[error("webhook {id} was deleted already")]
    AlreadyDeleted { id: u64 },
    #[error("webhook {id} is not yours: a partner deletes only the webhooks it registered")]
    NotYours { id: u64 },
    #[error("the webhook key is 32 to 256 characters, not {len}")]
    InvalidKey { len: usize },
}

impl felt_vocabulary::Classified for WebhookError {
    fn kind(&self) -> felt_vocabulary::ErrorKind {
        use felt_vocabulary::ErrorKind;
        match self {
            WebhookError::InvalidUrl { .. }
            | WebhookError::NoScopes
            | WebhookError::HandsAlone
            | WebhookError::InvalidOwner { .. }
            | WebhookError::InvalidKey { .. } => ErrorKind::Malformed,
            WebhookError::TooMany { .. } | WebhookError::AlreadyDeleted { .. } => {
                ErrorKind::Refused
            }
            WebhookError::AlreadyRegistered { .. } => ErrorKind::AlreadyExists,
            WebhookError::NoSuchWebhook { .. } => ErrorKind::NotFound,
            WebhookError::NotYours { .. } => ErrorKind::Refused,
        }
    }

    fn reason(&self) -> &str {
        self.into()
    }
}

/// Every webhook ever registered, by number (deleted ones too).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WebhooksState {
    webhooks: BTreeMap<u64, Webhook>,
}

impl WebhooksState {
    pub fn webhooks(&self) -> &BTreeMap<u64, Webhook> {
        &self.webhooks
    }

    /// The live webhooks.
    pub fn live(&self) -> impl Iterator<Item = &Webhook> {
        self.webhooks.values().filter(|w| w.live())
    }

    pub fn apply(&mut self, event: &WebhookEvent) {
        match event {
            WebhookEvent::Created(w) => {
                self.webhooks.insert(w.id, w.clone());
            }
            WebhookEvent::Deleted { id, at } => {
                if let Some(w) = self.webhooks.get_mut(id) {
                    w.deleted_at = Some(*at);
                }
            }
            WebhookEvent::DeliveryFailing {
                id,
                event_id,
                error,
                at,
            } => {
                if let Some(w) = self.webhooks.get_mut(id) {
                    w.failing = Some(Failing {
                        since: *at,
                        event_id: event_id.clone(),
                        error: error.clone(),
                    });
                }
            }
            WebhookEvent::DeliveryRecovered { id, .. } => {
                if let Some(w) = self.webhooks.get_mut(id) {
                    w.failing = None;
                }
            }
        }
    }
}

/// A URL a webhook may post to: http or https, with a host, no user name
/// or password (a listing shows it), at most [`MAX_URL`] characters.
pub fn check_url(text: &str) -> Result<url::Url, WebhookError> {
    let invalid = |why: String| WebhookError::InvalidUrl { why };
    let len = text.chars().count();
    if len > MAX_URL {
        return Err(invalid(format!("at most {MAX_URL} characters, not {len}")));
    }
    let url = url::Url::parse(text).map_err(|e| invalid(format!("{e} ({text:.64?})")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid(format!(
            "http or https, not {:?}",
            url.scheme().chars().take(16).collect::<String>()
        )));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(invalid("a host is required".into()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(invalid(
            "no user name or password in it: the webhook's secret signs each delivery".into(),
        ));
    }
    Ok(url)
}

/// What a command means, or why it is refused.
pub fn decide(
    state: &WebhooksState,
    command: &WebhookCommand,
) -> Result<Vec<WebhookEvent>, WebhookError> {
    match command {
        WebhookCommand::Create {
            tournament,
            owner,
            url,
            scopes,
            at,
        } => {
            check_url(url)?;
            let len = owner.chars().count();
            if len == 0 || len > MAX_OWNER || owner.chars().any(char::is_control) {
                return Err(WebhookError::InvalidOwner { len });
            }
            if scopes.is_empty() {
                return Err(WebhookError::NoScopes);
            }
            if scopes.contains(&Scope::Hands) && scopes.len() > 1 {
                return Err(WebhookError::HandsAlone);
            }
            let live: Vec<&Webhook> = state
                .live()
                .filter(|w| w.tournament == *tournament)
                .collect();
            if let Some(w) = live.iter().find(|w| w.url == *url) {
                return Err(WebhookError::AlreadyRegistered {
                    id: w.id,
                    tournament: tournament.clone(),
                });
            }
            if live.len() >= MAX_PER_TOURNAMENT {
                return Err(WebhookError::TooMany {
                    tournament: tournament.clone(),
                });
            }
            Ok(vec![WebhookEvent::Created(Webhook {
                id: state.webhooks.len() as u64 + 1,
                tournament: tournament.clone(),
                owner: owner.clone(),
                url: url.clone(),
                scopes: scopes.clone(),
                created_at: *at,
                deleted_at: None,
                failing: None,
            })])
        }
        WebhookCommand::RecordFailing {
            id,
            event_id,
            error,
            at,
        } => {
            let w = state
                .webhooks
                .get(id)
                .ok_or(WebhookError::NoSuchWebhook { id: *id })?;
            // (Once per outage; nothing for a webhook deleted meanwhile.)
            if !w.live() || w.failing.is_some() {
                return Ok(vec![]);
            }
            Ok(vec![WebhookEvent::DeliveryFailing {
                id: *id,
                event_id: event_id.chars().take(MAX_EVENT_ID).collect(),
                error: error
                    .chars()
                    .filter(|c| !c.is_control())
                    .take(MAX_ERROR)
                    .collect(),
                at: *at,
            }])
        }
        WebhookCommand::RecordRecovered {
            id,
            event_id,
            failed,
            at,
        } => {
            let w = state
                .webhooks
                .get(id)
                .ok_or(WebhookError::NoSuchWebhook { id: *id })?;
            if !w.live() || w.failing.is_none() {
                return Ok(vec![]);
            }
            Ok(vec![WebhookEvent::DeliveryRecovered {
                id: *id,
                event_id: event_id.chars().take(MAX_EVENT_ID).collect(),
                failed: *failed,
                at: *at,
            }])
        }
        WebhookCommand::Delete { id, owner, at } => {
            let w = state
                .webhooks
                .get(id)
                .ok_or(WebhookError::NoSuchWebhook { id: *id })?;
            if owner.as_ref().is_some_and(|o| *o != w.owner) {
                return Err(WebhookError::NotYours { id: *id });
            }
            if !w.live() {
                return Err(WebhookError::AlreadyDeleted { id: *id });
            }
            Ok(vec![WebhookEvent::Deleted { id: *id, at: *at }])
        }
    }
}

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// The deployment's webhook key: every webhook's secret derives from it.
#[derive(Clone)]
pub struct Key([u8; 32]);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(..)")
    }
}

/// A webhook's secret, which its partner checks each delivery with.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

impl Secret {
    /// The secret as the partner is given it: `whsec_` and 64 hex digits.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Key {
    pub fn new(key: [u8; 32]) -> Key {
        Key(key)
    }

    /// The key from the deployment's secret (32 to 256 characters), hashed
    /// to the key.
    pub fn from_secret(secret: &str) -> Result<Key, WebhookError> {
        use sha2::Digest;
        let len = secret.chars().count();
        if !(32..=256).contains(&len) {
            return Err(WebhookError::InvalidKey { len });
        }
        let mut hash = sha2::Sha256::new();
        hash.update(b"felt-webhook-key-v1|");
        hash.update(secret.as_bytes());
        Ok(Key(hash.finalize().into()))
    }

    /// Webhook `id`'s secret: the same for the same id under the same key,
    /// unknown to anyone without the key.
    pub fn secret(&self, id: u64) -> Secret {
        let mut mac = <HmacSha256 as Mac>::new_from_slice(&self.0).expect("any key length");
        mac.update(format!("felt-webhook-v1|{id}").as_bytes());
        Secret(format!("whsec_{}", hex(&mac.finalize().into_bytes())))
    }
}

/// The header a delivery's signature is in.
pub const SIGNATURE_HEADER: &str = "felt-signature";

fn mac(secret: &str, t: i64, body: &[u8]) -> HmacSha256 {
    let mut mac = <HmacSha256 as Mac>::new_from_slice(secret.as_bytes()).expect("any key length");
    mac.update(t.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// A delivery's signature header, `t=<ms>,v1=<hex>`: the HMAC-SHA256,
/// under the webhook's secret (its text, `whsec_…`), of the time it was
/// sent (milliseconds since the Unix epoch), a full stop and the body.
pub fn signature(secret: &Secret, t: i64, body: &[u8]) -> String {
    format!(
        "t={t},v1={}",
        hex(&mac(&secret.0, t, body).finalize().into_bytes())
    )
}

/// Why a delivery's signature is not to be trusted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("the signature header is not t=<ms>,v1=<hex>")]
    Malformed,
    #[error("the signature was made {age_ms} ms from now, more than {tolerance_ms} ms: a replay?")]
    Stale { age_ms: i64, tolerance_ms: i64 },
    #[error("the signature does not match the body under this secret")]
    Mismatch,
}

/// What a partner checks of a delivery: `header` signs `body` under
/// `secret`, within `tolerance_ms` of `now` (a replayed old delivery is
/// refused). Compares in constant time.
pub fn verify(
    secret: &str,
    header: &str,
    body: &[u8],
    now: i64,
    tolerance_ms: i64,
) -> Result<i64, SignatureError> {
    let mut t = None;
    let mut v1 = None;
    for part in header.split(',') {
        match part.split_once('=') {
            Some(("t", v)) => t = v.parse::<i64>().ok(),
            Some(("v1", v)) => v1 = Some(v),
            _ => {}
        }
    }
    let (Some(t), Some(v1)) = (t, v1) else {
        return Err(SignatureError::Malformed);
    };
    if v1.len() != 64 || !v1.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(SignatureError::Malformed);
    }
    let age_ms = now.saturating_sub(t);
    if age_ms.saturating_abs() > tolerance_ms {
        return Err(SignatureError::Stale {
            age_ms,
            tolerance_ms,
        });
    }
    let tag: Vec<u8> = (0..32)
        .map(|i| u8::from_str_radix(&v1[2 * i..2 * i + 2], 16).unwrap_or(0))
        .collect();
    mac(secret, t, body)
        .verify_slice(&tag)
        .map_err(|_| SignatureError::Mismatch)?;
    Ok(t)
}
