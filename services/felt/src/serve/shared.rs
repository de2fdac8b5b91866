//! What the clock, seating and payout services share: the conductor over
//! the log, the service's one clock and seed source, and partner streams of
//! one aggregate's events.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use felt_cards::Seed;
use felt_eventlog::{Envelope, EventLog, Filter, StreamId};
use felt_tournament::Conductor;
use rand::TryRngCore;
use tokio::sync::mpsc;
use tonic::Status;

use super::auth::Role;
use super::status::log as log_status;

/// The time in milliseconds since the Unix epoch.
pub(crate) fn wall_clock() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The service's one source of time (tests hand in a manual one).
pub(crate) type Now = Arc<dyn Fn() -> i64 + Send + Sync>;

/// A seed from the operating system's randomness: the services draw the
/// seeds the domain crates are handed.
pub(crate) fn fresh_seed() -> Seed {
    let mut bytes = [0u8; 32];
    if let Err(e) = rand::rngs::OsRng.try_fill_bytes(&mut bytes) {
        // Without the OS's randomness, fall back on the time and a
        // counter: unpredictable enough for a seat draw, never repeated.
        tracing::warn!(%e, "no randomness from the operating system");
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        bytes[..8].copy_from_slice(&wall_clock().to_le_bytes());
        bytes[8..16].copy_from_slice(&n.to_le_bytes());
    }
    Seed(bytes)
}

/// A seed given as 64 hex digits, or a fresh one when empty.
pub(crate) fn seed_or_fresh(text: &str, field: &str) -> Result<Seed, Status> {
    if text.is_empty() {
        return Ok(fresh_seed());
    }
    text.parse()
        .map_err(|e| Status::invalid_argument(format!("{field}: {e}")))
}

/// The follower's inputs: the service's time and fresh seeds.
pub(crate) struct ServiceInputs(pub(crate) Now);

impl felt_tournament::follow::Inputs for ServiceInputs {
    fn now(&self) -> i64 {
        (self.0)()
    }
    fn seed(&self) -> Seed {
        fresh_seed()
    }
}

/// The clock, seating and payout services' shared context.
pub(crate) struct Ctx<L: EventLog> {
    pub(crate) conductor: Arc<Conductor<L>>,
    pub(crate) now: Now,
    /// Tournaments known to exist (a tournament is never deleted).
    pub(crate) known: Arc<std::sync::Mutex<std::collections::HashSet<String>>>,
    /// Told when the follower reports a hand end at a table: its dealer,
    /// waiting for seating to let the table deal, asks again then.
    pub(crate) progress: Arc<Progress>,
}

/// One notification per table (tournament, table number).
#[derive(Debug, Default)]
pub(crate) struct Progress {
    tables: std::sync::Mutex<std::collections::HashMap<(String, u32), Arc<tokio::sync::Notify>>>,
}

impl Progress {
    /// The table's notification.
    pub(crate) fn of(&self, tournament: &str, table: u32) -> Arc<tokio::sync::Notify> {
        self.tables
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry((tournament.to_string(), table))
            .or_default()
            .clone()
    }
}

impl<L: EventLog> Clone for Ctx<L> {
    fn clone(&self) -> Self {
        Ctx {
            conductor: self.conductor.clone(),
            now: self.now.clone(),
            known: self.known.clone(),
            progress: self.progress.clone(),
        }
    }
}

impl<L: EventLog + 'static> Ctx<L> {
    pub(crate) fn now(&self) -> i64 {
        (self.now)()
    }

    /// Seating's state of a known tournament, caught up with the log.
    pub(crate) async fn seating(&self, t: &str) -> Result<Arc<felt_seating::SeatingState>, Status> {
        self.known(t).await?;
        let stream = felt_tournament::aggregates::seating_stream(t).map_err(log_status)?;
        fresh(&self.conductor.seating, &stream).await
    }

    /// Payout's state of a known tournament, caught up with the log.
    pub(crate) async fn payout(&self, t: &str) -> Result<Arc<felt_payout::PayoutState>, Status> {
        self.known(t).await?;
        let stream = felt_tournament::aggregates::payout_stream(t).map_err(log_status)?;
        fresh(&self.conductor.payout, &stream).await
    }

    /// Refuses a tournament the log does not know (asking the log until
    /// the tournament exists, then remembering it).
    pub(crate) async fn known(&self, tournament: &str) -> Result<(), Status> {
        let seen = self
            .known
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains(tournament);
        if seen {
            return Ok(());
        }
        let stream = felt_tournament::aggregates::seating_stream(tournament)
            .map_err(|e| Status::invalid_argument(format!("tournament_id: {e}")))?;
        let version = self
            .conductor
            .seating
            .log()
            .version(&stream)
            .await
            .map_err(log_status)?;
        if version == 0 {
            return Err(Status::not_found(format!("no tournament {tournament:?}")));
        }
        self.known
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(tournament.to_string());
        Ok(())
    }
}

/// An aggregate's state caught up with the log (another process may have
/// written it).
async fn fresh<A: felt_service::Aggregate, L: EventLog + 'static>(
    handler: &felt_service::Handler<A, L>,
    stream: &StreamId,
) -> Result<Arc<A::State>, Status> {
    Ok(handler.state(stream).await.map_err(log_status)?.0)
}

/// A command of the floor's refused, or the log's trouble, as a status.
pub(crate) fn handled<R: std::error::Error>(
    e: felt_service::HandleError<R>,
    wrap: fn(R) -> felt_tournament::TournamentError,
) -> Status {
    match e {
        felt_service::HandleError::Rejected(r) => super::status::tournament(wrap(r)),
        felt_service::HandleError::Log(e) => log_status(e),
        e @ felt_service::HandleError::Contended { .. } => Status::aborted(e.to_string()),
    }
}

/// Refuses callers who are not the director or the floor.
pub(crate) fn floor_or_director(role: &Role, what: &str) -> Result<(), Status> {
    match role {
        Role::Director | Role::Floor => Ok(()),
        _ => Err(Status::permission_denied(format!(
            "{what} is for the director and the floor"
        ))),
    }
}

/// Refuses callers who are not the director.
pub(crate) fn director(role: &Role, what: &str) -> Result<(), Status> {
    match role {
        Role::Director => Ok(()),
        _ => Err(Status::permission_denied(format!(
            "{what} is for the director"
        ))),
    }
}

/// An event as JSON for partners: (sequence, type, json, recorded time).
pub(crate) fn json_event<E: serde::de::DeserializeOwned + serde::Serialize>(
    env: &Envelope,
) -> Result<(u64, String, String, i64), Status> {
    let event: E = env.decode().map_err(log_status)?;
    let json = serde_json::to_string(&event).map_err(|e| Status::internal(e.to_string()))?;
    Ok((env.sequence, env.event_type.clone(), json, env.recorded_at))
}

/// Every decision appended to `stream` after version `after`, as it is
/// committed: the log's subscription to the tournament's streams of that
/// kind, from the beginning, keeping the one stream (no gap, no repeat).
pub(crate) async fn follow_stream<L: EventLog + 'static>(
    log: &Arc<L>,
    stream: StreamId,
    mut after: u64,
) -> Result<mpsc::Receiver<Result<Vec<Envelope>, Status>>, Status> {
    let filter = Filter {
        tournament: Some(stream.tournament.clone()),
        kind: Some(stream.kind.clone()),
    };
    let mut sub = log.subscribe(filter, 0).await.map_err(log_status)?;
    let (tx, rx) = mpsc::channel(64);
    tokio::spawn(async move {
        while let Some(next) = sub.next().await {
            let committed = match next {
                Ok(c) => c,
                Err(e) => {
                    let _ = tx.send(Err(log_status(e))).await;
                    return;
                }
            };
            if committed.stream != stream {
                continue;
            }
            let envelopes: Vec<Envelope> = committed
                .envelopes
                .into_iter()
                .filter(|e| e.sequence > after)
                .collect();
            let Some(last) = envelopes.last() else {
                continue;
            };
            after = last.sequence;
            if tx.send(Ok(envelopes)).await.is_err() {
                return;
            }
        }
    });
    Ok(rx)
}
