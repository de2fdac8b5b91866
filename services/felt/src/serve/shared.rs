//! What the clock, seating and payout services share: the conductor over
//! the log, the service's one clock and seed source, and partner streams of
//! one aggregate's events.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use felt_cards::Seed;
use felt_eventlog::{Envelope, EventLog, Fanout, StreamId};
use felt_tournament::Conductor;
use tokio::sync::mpsc;
use tonic::Status;

use super::auth::Role;
use super::status::log as log_status;

/// The time in milliseconds since the Unix epoch.
pub fn wall_clock() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The service's one source of time (tests hand in a manual one).
pub type Now = Arc<dyn Fn() -> i64 + Send + Sync>;

/// A seed from the operating system's cryptographic source: the services
/// draw the seeds the domain crates are handed. Without it the process
/// stops: a seed it could guess (the time, a counter) would let whoever
/// guesses it know the cards.
pub fn fresh_seed() -> Seed {
    Seed(felt_service::os_seed())
}

/// What a seed is drawn for. The services draw every seed from the
/// operating system whatever it is for; no caller ever chooses one (whoever
/// chooses a deck's seed chooses its cards). `felt sim` hands the services
/// it runs in its own process a source that derives each seed from its
/// `--seed` and this, so that a run can be played again.
#[derive(Clone, Copy, Debug)]
pub enum Draw<'a> {
    /// The deck of a hand seating granted a table.
    Deck {
        tournament: &'a str,
        table: u32,
        hand: u64,
    },
    /// A digital deal asked for at the table service (a hand started there,
    /// or a misdeal's re-deal), by the command's id.
    TableDeal {
        tournament: &'a str,
        table: u32,
        command_id: &'a str,
    },
    /// Seating's draws, by the id of the command seating decides when it
    /// draws (the start's seats, a late entry's, tables broken, a redraw,
    /// the final table's): drawn when seating decides and recorded in its
    /// decision, so a repeated command keeps its first seed.
    Seating {
        tournament: &'a str,
        command_id: &'a str,
    },
}

/// Where a service's seeds come from.
#[derive(Clone)]
pub struct Seeds(Arc<dyn Fn(Draw<'_>) -> Seed + Send + Sync>);

impl Seeds {
    /// The operating system's cryptographic source: what every service
    /// runs with.
    pub(crate) fn os() -> Seeds {
        Seeds(Arc::new(|_| fresh_seed()))
    }

    /// A source of the caller's (`felt sim` in its own process).
    pub fn from_fn(f: impl Fn(Draw<'_>) -> Seed + Send + Sync + 'static) -> Seeds {
        Seeds(Arc::new(f))
    }

    pub(crate) fn draw(&self, what: Draw<'_>) -> Seed {
        (self.0)(what)
    }

    /// Seating's draws as its handler asks for them, by its stream and
    /// the command decided.
    pub fn seating(&self) -> felt_tournament::Draws {
        let seeds = self.clone();
        Arc::new(move |stream: &StreamId, command_id: &str| {
            seeds
                .draw(Draw::Seating {
                    tournament: &stream.tournament,
                    command_id,
                })
                .0
        })
    }
}

impl std::fmt::Debug for Seeds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Seeds")
    }
}

/// The follower's inputs: the service's time.
pub(crate) struct ServiceInputs(pub(crate) Now);

impl felt_tournament::follow::Inputs for ServiceInputs {
    fn now(&self) -> i64 {
        (self.0)()
    }
}

/// The clock, seating and payout services' shared context.
pub(crate) struct Ctx<L: EventLog> {
    pub(crate) conductor: Arc<Conductor<L>>,
    pub(crate) now: Now,
    /// Every seed the service draws.
    pub(crate) seeds: Seeds,
    /// Tournaments known to exist (a tournament is never deleted).
    pub(crate) known: Arc<std::sync::Mutex<std::collections::HashSet<String>>>,
    /// Told when the follower reports a hand end at a table: its dealer,
    /// waiting for seating to let the table deal, asks again then.
    pub(crate) progress: Arc<Progress>,
    /// Partners' `Watch…` streams: one subscription of the log for all.
    pub(crate) watch: Arc<Fanout<L>>,
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
            seeds: self.seeds.clone(),
            known: self.known.clone(),
            progress: self.progress.clone(),
            watch: self.watch.clone(),
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
        felt_tournament::aggregates::seating_stream(tournament)
            .map_err(|e| Status::invalid_argument(format!("tournament_id: {e}")))?;
        let parts =
            felt_tournament::aggregates::parts(self.conductor.seating.log().as_ref(), tournament)
                .await
                .map_err(log_status)?;
        if !parts.seating {
            return Err(Status::not_found(format!("no tournament {tournament:?}")));
        }
        if !parts.whole() {
            // Only a log written before creation was all or nothing (or a
            // creation cut short) holds one: creating it again finishes it.
            return Err(Status::not_found(format!(
                "tournament {tournament:?} was never wholly created: {} never accepted it",
                parts.missing()
            )));
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
pub(crate) fn handled<R: felt_vocabulary::Classified>(
    e: felt_service::HandleError<R>,
    wrap: fn(R) -> felt_tournament::TournamentError,
) -> Status {
    match e {
        felt_service::HandleError::Rejected(r) => super::status::tournament(wrap(r)),
        other => super::status::refused(&other),
    }
}

/// A request's fingerprint for the handler ([`felt_service::Provenance`]):
/// the SHA-256 of its encoding, which prost writes the same for the same
/// message.
pub(crate) fn fingerprint(
    request: &impl felt_proto::prost::Message,
) -> Option<felt_eventlog::Hash> {
    felt_service::Provenance::of_request(&request.encode_to_vec()).request
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

/// Refuses callers who are not at the cage: the director, the floor or a
/// cashier.
pub(crate) fn cage(role: &Role, what: &str) -> Result<(), Status> {
    match role {
        Role::Director | Role::Floor | Role::Cashier => Ok(()),
        _ => Err(Status::permission_denied(format!(
            "{what} is for the cage: the director, the floor or a cashier"
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

/// One decision of a followed stream, for a watcher.
#[derive(Debug)]
pub(crate) struct Followed {
    pub(crate) envelopes: Vec<Envelope>,
    /// The first decision after the watcher fell behind and its stream was
    /// read again from the log (the watcher is told so).
    pub(crate) resumed: bool,
}

/// The decisions a watcher is handed: at most this many wait for it here
/// (beyond, the process's one subscription holds [`FOLLOWER_BUFFER`] for
/// it before it falls behind).
///
/// [`FOLLOWER_BUFFER`]: felt_eventlog::FOLLOWER_BUFFER
pub(crate) const WATCHER_BUFFER: usize = 64;

/// Every decision appended to `stream` after version `after`, as it is
/// committed, with no gap and no repeat: the stream's own decisions read
/// from the log, then those the process's one subscription hands over
/// ([`Fanout`]). A watcher too slow to keep up reads its stream again from
/// the log from where it was, slows nobody else, and is told so
/// ([`Followed::resumed`]).
pub(crate) fn follow_stream<L: EventLog + 'static>(
    watch: &Arc<Fanout<L>>,
    stream: StreamId,
    after: u64,
) -> mpsc::Receiver<Result<Followed, Status>> {
    let mut follower = watch.follow(stream, after);
    let (tx, rx) = mpsc::channel(WATCHER_BUFFER);
    tokio::spawn(async move {
        loop {
            // A watcher that went away is let go at once, not at its
            // stream's next decision.
            let reads = follower.caught_up();
            let next = tokio::select! {
                next = follower.next() => next.map(|c| Followed {
                    envelopes: c.envelopes,
                    // (The first read from the log is no resumption.)
                    resumed: reads > 0 && follower.caught_up() > reads,
                }).map_err(log_status),
                () = tx.closed() => return,
            };
            let failed = next.is_err();
            if tx.send(next).await.is_err() || failed {
                return;
            }
        }
    });
    rx
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use felt_eventlog::{Decision, EmbeddedLog, EventLog, Expected, Fanout, NewEvent, StreamId};

    use super::{WATCHER_BUFFER, follow_stream};

    fn decision(i: u64) -> Decision {
        Decision {
            command_id: format!("c{i}"),
            causation_id: None,
            correlation_id: None,
            recorded_at: 0,
            events: vec![NewEvent {
                event_type: "Tick".into(),
                schema_version: 1,
                payload: vec![],
            }],
            trace: None,
            request: None,
            actor: None,
        }
    }

    /// Issue 29: "a slow watcher never slows the others or the writers
    /// (a watcher that falls too far behind is told so and resumes from
    /// its last position)".
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_watcher_that_falls_behind_is_told_so_and_loses_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
        let stream = StreamId::new("main", "clock", "main").unwrap();
        let watch = Arc::new(Fanout::new(log.clone()));
        log.append(&stream, Expected::Any, decision(1))
            .await
            .unwrap();
        let mut slow = follow_stream(&watch, stream.clone(), 0);
        let first = slow.recv().await.unwrap().unwrap();
        assert_eq!((first.envelopes[0].sequence, first.resumed), (1, false));
        // While it reads nothing, more is committed than is held for it,
        let more = (felt_eventlog::FOLLOWER_BUFFER + WATCHER_BUFFER) as u64 + 200;
        for i in 2..=more + 1 {
            log.append(&stream, Expected::Any, decision(i))
                .await
                .unwrap();
        }
        // then it reads every event once, in order, told once where its
        // stream was read again from the log.
        let mut seen = Vec::new();
        let mut told = Vec::new();
        while seen.len() < more as usize {
            let next = tokio::time::timeout(std::time::Duration::from_secs(10), slow.recv())
                .await
                .expect("within 10 s")
                .expect("open")
                .expect("no error");
            if next.resumed {
                told.push(next.envelopes[0].sequence);
            }
            seen.extend(next.envelopes.iter().map(|e| e.sequence));
        }
        assert_eq!(seen, (2..=more + 1).collect::<Vec<_>>());
        assert_eq!(told.len(), 1, "{told:?}");
        assert!(told[0] > 2, "{told:?}");
        assert_eq!(watch.fell_behind(), 1);
    }
}
