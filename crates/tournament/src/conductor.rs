//! The conductor carries each service's decisions to the others: seating's
//! seats and moves to the tables, the tables' hand ends to seating, busts to
//! payout (grouped by hand-for-hand hand), the clock's level to every hand
//! started, hand-for-hand rounds to the clock.
//!
//! Every call it makes has a command id derived from what it carries out
//! (`move-7-out`, `seat-19`, `hand-3-12-ended`), so doing it again after a
//! crash is harmless: a move is removed at its table, seated at the other
//! and completed in seating exactly once, whichever step a restart resumes.

use std::collections::{BTreeMap, BTreeSet};

use felt_cards::Seed;
use felt_clock::{ClockCommand, ClockError, ClockSettings, Millis, Structure};
use felt_eventlog::{EventLog, LogError};
use felt_payout::{MoneySettings, SimultaneousBusts};
use felt_seating::{EntryId, SeatingCommand, SeatingError, SeatingEvent, SeatingState, TableNo};
use felt_service::{HandleError, Handler, Outcome};
use felt_table::{Command, Deal, HouseRules, Rejection, Seat, TableEvent};
use felt_tablelog::Table;

use crate::aggregates::{Clock, Payout, Seating, clock_stream, payout_stream, seating_stream};
pub use crate::reactions::hand_end::HandSummary;
use crate::reactions::{self, Order, TableOrder};

/// Why the conductor could not carry something out.
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    #[error("table {table}: {source}")]
    Table { table: TableNo, source: Rejection },
    #[error("clock: {0}")]
    Clock(#[from] ClockError),
    #[error("seating: {0}")]
    Seating(#[from] SeatingError),
    #[error("payout: {0}")]
    Payout(#[from] felt_payout::PayoutError),
    #[error(transparent)]
    Log(#[from] LogError),
    #[error("{stream}: {attempts} attempts all lost to other writers")]
    Contended { stream: String, attempts: u32 },
    #[error("inconsistent: {0}")]
    Inconsistent(String),
    /// The table service (over the network) refused a command.
    #[error("table {table}: {reason}")]
    TableRefused { table: TableNo, reason: String },
    /// The table service could not be reached.
    #[error("the table service: {0}")]
    TablesUnavailable(String),
    /// A timeout claimed before the player's time ran out.
    #[error("table {table}: seat {seat} still has {} s to act (the action clock of seed 002, or a called clock, TDA 29)", *.left as f64 / 1000.0)]
    StillInTime {
        table: TableNo,
        seat: Seat,
        left: Millis,
    },
    /// A timeout claimed where no clock runs on the player.
    #[error(
        "table {table}: no clock runs on seat {seat}: this tournament has no action clock and the floor has not called the clock (TDA 29)"
    )]
    NoClockRunning { table: TableNo, seat: Seat },
}

/// Why the table service did not carry out a command sent over the network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoteError {
    /// Refused, with the service's reason (the rule broken).
    Refused(String),
    /// Not reached, or no answer: the same command id may be sent again.
    Unavailable(String),
}

/// A future the table service answers with.
pub type Remote<'a> = std::pin::Pin<
    Box<
        dyn std::future::Future<Output = std::result::Result<(Vec<TableEvent>, bool), RemoteError>>
            + Send
            + 'a,
    >,
>;

/// The table service as the conductor reaches it when deployed apart: each
/// command sent with its id, answered with its events and whether it was a
/// repeat. (In one process the conductor uses the table handler itself.)
pub trait TableService: Send + Sync {
    fn execute<'a>(
        &'a self,
        tournament: &'a str,
        table: TableNo,
        command_id: &'a str,
        command: &'a Command,
    ) -> Remote<'a>;
}

fn lift<R: std::error::Error>(
    e: HandleError<R>,
    wrap: impl FnOnce(R) -> TournamentError,
) -> TournamentError {
    match e {
        HandleError::Rejected(r) => wrap(r),
        HandleError::Log(e) => TournamentError::Log(e),
        HandleError::Contended { stream, attempts } => {
            TournamentError::Contended { stream, attempts }
        }
    }
}

/// Everything a tournament is created with: each service keeps its part.
#[derive(Clone, Debug)]
pub struct TournamentSpec {
    pub name: String,
    pub seating: felt_seating::Settings,
    pub structure: Structure,
    pub clock: ClockSettings,
    pub money: MoneySettings,
    pub busts: SimultaneousBusts,
    pub rules: HouseRules,
}

/// What became of a request to deal a hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Begin {
    /// The hand is dealt: the start's events (the hand's `HandStarted`
    /// first), the table after it and its version.
    Started(Vec<TableEvent>, std::sync::Arc<felt_table::TableState>, u64),
    /// Seating holds the table (moves, balancing, hand-for-hand).
    Wait(String),
    /// A break: no hand for this long.
    OnBreak(Millis),
    /// The table is closed.
    Closed,
}

/// A hand end's turn at seating, when hand ends are reported concurrently:
/// it comes once the hand end before it has had seating's decision (and
/// its busts are with payout), so seating decides them, and payout places
/// their busts, in the order the hands ended. Dropping it passes the turn
/// on.
#[derive(Debug)]
pub struct Turn {
    wait: Option<tokio::sync::oneshot::Receiver<()>>,
    _next: tokio::sync::oneshot::Sender<()>,
}

impl Turn {
    /// Waits for this turn (the one before passed it on).
    pub async fn come(&mut self) {
        if let Some(wait) = self.wait.take() {
            // Sent or dropped: the turn before is over either way.
            let _ = wait.await;
        }
    }
}

/// Where the next turn of a chain waits (by default: nowhere, the first).
#[derive(Debug, Default)]
pub struct NextTurn(Option<tokio::sync::oneshot::Receiver<()>>);

impl NextTurn {
    /// The next turn, and the handle for the one after it.
    pub fn turn(self) -> (Turn, NextTurn) {
        let (next, after) = tokio::sync::oneshot::channel();
        (
            Turn {
                wait: self.0,
                _next: next,
            },
            NextTurn(Some(after)),
        )
    }
}

/// Registrations per seating decision in `register_many`: a decision is
/// one NATS message, and stays well under its 1 MB limit.
const REGISTERED_PER_DECISION: usize = 500;

/// A hand seating grants a table: its number at seating, and where the
/// button and big blind were at the table's last hand.
#[derive(Clone, Copy, Debug)]
struct Begun {
    hand: u64,
    last_button: Option<Seat>,
    last_bb: Option<Seat>,
    first_button: Option<Seat>,
}

/// The four services' handlers over one log, and what the conductor holds
/// between calls.
pub struct Conductor<L: EventLog> {
    /// Shared with a table service in the same process, so both see one cache.
    pub tables: std::sync::Arc<Handler<Table, L>>,
    pub clock: Handler<Clock, L>,
    pub seating: Handler<Seating, L>,
    pub payout: Handler<Payout, L>,
    /// One carrier of seats and moves at a time.
    carrying: tokio::sync::Mutex<()>,
    /// One messenger of hand-for-hand to the clock at a time.
    clocking: tokio::sync::Mutex<()>,
    /// One hand end decided at a time: its busts reach payout, and its
    /// hand-for-hand news and closed tables the clock, in the order
    /// seating recorded them (lock order: `busting`, then `clocking`).
    busting: tokio::sync::Mutex<()>,
    /// Hand-for-hand busts held until every table has played the hand.
    held: std::sync::Mutex<BTreeMap<(String, u64), Vec<felt_payout::Bust>>>,
    rules: std::sync::Mutex<BTreeMap<String, HouseRules>>,
    /// Tables known to be open at the table service.
    opened: std::sync::Mutex<BTreeSet<(String, TableNo)>>,
    /// Events the table service elsewhere appended for this conductor.
    appended: std::sync::atomic::AtomicU64,
    /// The table service over the network, when deployed apart.
    remote: Option<std::sync::Arc<dyn TableService>>,
    /// The seeds of seating's draws a command brings on, by tournament and
    /// command id ([`Conductor::with_draws`]).
    draws: Draws,
}

/// Where seating's seeds come from: a tournament and a command's id give
/// the seed for the draws that command brings on.
pub type Draws = std::sync::Arc<dyn Fn(&str, &str) -> Seed + Send + Sync>;

/// Seeds made from the tournament and the command id alone: the same run
/// again draws the same seats (tests). A service hands in its own source
/// ([`Conductor::with_draws`]).
fn draws_from_ids() -> Draws {
    std::sync::Arc::new(|tournament: &str, command_id: &str| {
        let mut seed = [0u8; 32];
        for (i, b) in tournament
            .bytes()
            .chain([0])
            .chain(command_id.bytes())
            .enumerate()
        {
            let at = i % 32;
            seed[at] = seed[at].rotate_left(3) ^ b;
        }
        Seed(seed)
    })
}

impl<L: EventLog> std::fmt::Debug for Conductor<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conductor").finish_non_exhaustive()
    }
}

type Result<T> = std::result::Result<T, TournamentError>;

impl<L: EventLog + 'static> Conductor<L> {
    pub fn new(log: std::sync::Arc<L>) -> Self {
        Conductor {
            tables: std::sync::Arc::new(Handler::new(log.clone())),
            clock: Handler::new(log.clone()),
            seating: Handler::new(log.clone()),
            payout: Handler::new(log),
            carrying: tokio::sync::Mutex::new(()),
            clocking: tokio::sync::Mutex::new(()),
            busting: tokio::sync::Mutex::new(()),
            held: std::sync::Mutex::new(BTreeMap::new()),
            rules: std::sync::Mutex::new(BTreeMap::new()),
            opened: std::sync::Mutex::new(BTreeSet::new()),
            appended: std::sync::atomic::AtomicU64::new(0),
            remote: None,
            draws: draws_from_ids(),
        }
    }

    /// The conductor drawing seating's seeds from `draws` (a service's
    /// cryptographic source, or a simulation's own).
    pub fn with_draws(self, draws: Draws) -> Self {
        Conductor { draws, ..self }
    }

    /// The seed for the draws the command `command_id` brings on.
    fn draw(&self, t: &str, command_id: &str) -> [u8; 32] {
        (self.draws)(t, command_id).0
    }

    /// A conductor that sends its table commands (seats, moves, deals) to
    /// the table service over the network; it reads the tables' events
    /// from the log.
    pub fn with_table_service(
        log: std::sync::Arc<L>,
        tables: std::sync::Arc<dyn TableService>,
    ) -> Self {
        Conductor {
            remote: Some(tables),
            ..Conductor::new(log)
        }
    }

    /// Events appended through this process's handlers so far (the
    /// conductor's own and every caller's of the table handler), and by the
    /// table service elsewhere for this conductor.
    pub fn appended(&self) -> u64 {
        self.tables.appended()
            + self.clock.appended()
            + self.seating.appended()
            + self.payout.appended()
            + self.appended.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Handles a command, again when the log's answer was lost (a timeout,
    /// a dropped connection): the command id makes a repeat harmless.
    async fn send<A: felt_service::Aggregate>(
        &self,
        handler: &Handler<A, L>,
        stream: &felt_eventlog::StreamId,
        id: &str,
        now: Millis,
        command: &A::Command,
    ) -> std::result::Result<Outcome<A>, HandleError<A::Rejection>> {
        let mut attempt = 0u32;
        loop {
            match handler.handle(stream, id, now, command).await {
                Err(HandleError::Log(e)) if attempt < 6 => {
                    attempt += 1;
                    tracing::warn!(%e, %stream, id, attempt, "the log failed: sending again");
                    tokio::time::sleep(std::time::Duration::from_millis(50 << attempt)).await;
                }
                other => return other,
            }
        }
    }

    async fn seat_cmd(
        &self,
        t: &str,
        id: &str,
        now: Millis,
        c: SeatingCommand,
    ) -> Result<Outcome<Seating>> {
        self.send(&self.seating, &seating_stream(t)?, id, now, &c)
            .await
            .map_err(|e| lift(e, TournamentError::Seating))
    }

    async fn pay_cmd(
        &self,
        t: &str,
        id: &str,
        now: Millis,
        c: felt_payout::Command,
    ) -> Result<Outcome<Payout>> {
        self.send(&self.payout, &payout_stream(t)?, id, now, &c)
            .await
            .map_err(|e| lift(e, TournamentError::Payout))
    }

    async fn table_cmd(
        &self,
        t: &str,
        table: TableNo,
        id: &str,
        now: Millis,
        c: Command,
    ) -> Result<Outcome<Table>> {
        let stream = felt_tablelog::stream(t, &table.to_string())?;
        let Some(remote) = &self.remote else {
            return self
                .send(&self.tables, &stream, id, now, &c)
                .await
                .map_err(|e| lift(e, |source| TournamentError::Table { table, source }));
        };
        let mut attempt = 0u32;
        let (events, duplicate) = loop {
            match remote.execute(t, table, id, &c).await {
                Ok(answer) => break answer,
                Err(RemoteError::Refused(reason)) => {
                    return Err(TournamentError::TableRefused { table, reason });
                }
                Err(RemoteError::Unavailable(e)) if attempt < 8 => {
                    attempt += 1;
                    tracing::warn!(%e, %stream, id, attempt, "the table service failed: sending again");
                    tokio::time::sleep(std::time::Duration::from_millis(50 << attempt.min(5)))
                        .await;
                }
                Err(RemoteError::Unavailable(e)) => {
                    return Err(TournamentError::TablesUnavailable(e));
                }
            }
        };
        if !duplicate {
            self.appended
                .fetch_add(events.len() as u64, std::sync::atomic::Ordering::Relaxed);
        }
        // The table after the command, as the log has it.
        let (state, version) = self.tables.state(&stream).await?;
        Ok(Outcome {
            events,
            first: 0,
            last: 0,
            position: 0,
            duplicate,
            state,
            version,
        })
    }

    /// A clock command at `now`, or at the clock's last time if another
    /// caller recorded a later one first (time never goes back).
    async fn clock_cmd(
        &self,
        t: &str,
        id: &str,
        now: Millis,
        make: impl Fn(Millis) -> ClockCommand,
    ) -> Result<Outcome<Clock>> {
        let stream = clock_stream(t)?;
        let mut at = now;
        for _ in 0..8 {
            match self.send(&self.clock, &stream, id, at, &make(at)).await {
                Err(HandleError::Rejected(ClockError::TimeWentBack { last, .. })) => at = last,
                other => {
                    return other.map_err(|e| lift(e, TournamentError::Clock));
                }
            }
        }
        Err(TournamentError::Contended {
            stream: stream.to_string(),
            attempts: 8,
        })
    }

    /// Seating's state as this conductor last saw it: its own commands
    /// included; what other writers appended is seen at the next command.
    pub async fn seating_state(&self, t: &str) -> Result<std::sync::Arc<SeatingState>> {
        Ok(self.seating.cached_state(&seating_stream(t)?).await?.0)
    }

    pub async fn clock_state(&self, t: &str) -> Result<std::sync::Arc<felt_clock::ClockState>> {
        Ok(self.clock.cached_state(&clock_stream(t)?).await?.0)
    }

    pub async fn payout_state(&self, t: &str) -> Result<std::sync::Arc<felt_payout::PayoutState>> {
        Ok(self.payout.cached_state(&payout_stream(t)?).await?.0)
    }

    /// Creates the tournament at seating, the clock and payout, all or
    /// nothing: each part is decided first on an empty history (a part
    /// refused writes nothing anywhere), then each is recorded, and the
    /// tournament enters the registry (where listings and the audit find
    /// it) only once all three are. A creation cut short by a crash is
    /// finished by creating it again: each part's command id is the same.
    pub async fn create(&self, t: &str, spec: &TournamentSpec, now: Millis) -> Result<()> {
        let seating = SeatingCommand::Create {
            name: spec.name.clone(),
            settings: spec.seating.clone(),
        };
        let clock = ClockCommand::Configure {
            structure: spec.structure.clone(),
            settings: spec.clock,
        };
        let payout = felt_payout::Command::Configure {
            name: spec.name.clone(),
            settings: spec.money.clone(),
            busts: spec.busts,
        };
        felt_seating::decide(&SeatingState::default(), &seating)?;
        felt_clock::decide(&felt_clock::ClockState::default(), &clock)?;
        felt_payout::decide(&felt_payout::PayoutState::default(), &payout)?;
        self.seat_cmd(t, "create", now, seating).await?;
        self.clock_cmd(t, "create", now, |_| clock.clone()).await?;
        self.pay_cmd(t, "create", now, payout).await?;
        crate::aggregates::register_tournament(
            self.seating.log().as_ref(),
            t,
            &spec.name,
            spec.rules,
            now,
        )
        .await?;
        self.rules
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(t.into(), spec.rules);
        Ok(())
    }

    /// The clock's level number now (0 before it starts).
    async fn level_now(&self, t: &str, now: Millis) -> Result<u32> {
        let clock = self.clock_state(t).await?;
        Ok(if clock.status == felt_clock::Status::NotStarted {
            0
        } else {
            clock
                .view(now)
                .level
                .or_else(|| {
                    // On a break: the level before it.
                    let s = clock.structure.as_ref()?;
                    (0..clock.period).rev().find_map(|p| s.level_number(p))
                })
                .unwrap_or(0)
        })
    }

    /// Registers an entry (or a re-entry); seats it if play has started.
    pub async fn register(
        &self,
        t: &str,
        command_id: &str,
        player: &str,
        name: &str,
        now: Millis,
        seed: Seed,
    ) -> Result<EntryId> {
        let level = self.level_now(t, now).await?;
        let out = self
            .seat_cmd(
                t,
                command_id,
                now,
                SeatingCommand::Register {
                    player: player.into(),
                    name: name.into(),
                    level,
                    seed: seed.0,
                },
            )
            .await?;
        let Outcome { events, state, .. } = out;
        drop(state);
        let (entry, alternate) = events
            .iter()
            .find_map(|e| match e {
                SeatingEvent::Registered {
                    entry, alternate, ..
                } => Some((*entry, *alternate)),
                _ => None,
            })
            .ok_or_else(|| {
                TournamentError::Inconsistent("a registration without an entry".into())
            })?;
        if !alternate {
            self.pay_cmd(
                t,
                &format!("entry-{entry}"),
                now,
                felt_payout::Command::RecordEntry {
                    entry,
                    player: player.into(),
                },
            )
            .await?;
        }
        self.carry_out(t, now, &events).await?;
        Ok(entry)
    }

    /// Registers many entries at once (presales, a partner's list), a few
    /// hundred per decision: each as `register` would take it. Returns the
    /// entries in order.
    pub async fn register_many(
        &self,
        t: &str,
        command_id: &str,
        players: &[(String, String)],
        now: Millis,
        seed: Seed,
    ) -> Result<Vec<EntryId>> {
        let level = self.level_now(t, now).await?;
        let mut out = Vec::with_capacity(players.len());
        for (k, chunk) in players.chunks(REGISTERED_PER_DECISION).enumerate() {
            let mut chunk_seed = seed.0;
            chunk_seed[31] ^= k as u8;
            chunk_seed[30] ^= (k >> 8) as u8;
            let events = self
                .seat_cmd(
                    t,
                    &format!("{command_id}-{k}"),
                    now,
                    SeatingCommand::RegisterMany {
                        players: chunk.to_vec(),
                        level,
                        seed: chunk_seed,
                    },
                )
                .await?
                .events;
            let mut paid_in = Vec::new();
            for e in &events {
                if let SeatingEvent::Registered {
                    entry,
                    player,
                    alternate,
                    ..
                } = e
                {
                    out.push(*entry);
                    if !alternate {
                        paid_in.push((*entry, player.clone()));
                    }
                }
            }
            if let (Some(first), Some(last)) = (paid_in.first(), paid_in.last()) {
                let id = format!("entries-{}-{}", first.0, last.0);
                self.pay_cmd(
                    t,
                    &id,
                    now,
                    felt_payout::Command::RecordEntries { entries: paid_in },
                )
                .await?;
            }
            self.carry_out(t, now, &events).await?;
        }
        Ok(out)
    }

    /// Unregisters an entry before play: out of the field at seating, its
    /// money refunded at payout; the first alternate takes its place.
    pub async fn unregister(&self, t: &str, entry: EntryId, now: Millis) -> Result<()> {
        let events = self
            .seat_cmd(
                t,
                &format!("unregister-{entry}"),
                now,
                SeatingCommand::Unregister { entry },
            )
            .await?
            .events;
        let in_payout = self.payout_state(t).await?.entries.contains_key(&entry);
        if in_payout {
            self.pay_cmd(
                t,
                &format!("refund-{entry}"),
                now,
                felt_payout::Command::RemoveEntry { entry },
            )
            .await?;
        }
        for e in &events {
            if let SeatingEvent::AlternatePromoted { entry: promoted } = e {
                let player = self
                    .seating_state(t)
                    .await?
                    .entries
                    .get(promoted)
                    .map(|i| i.player.clone())
                    .unwrap_or_default();
                self.pay_cmd(
                    t,
                    &format!("entry-{promoted}"),
                    now,
                    felt_payout::Command::RecordEntry {
                        entry: *promoted,
                        player,
                    },
                )
                .await?;
            }
        }
        Ok(())
    }

    /// Draws the seats, opens the tables and starts the clock.
    pub async fn start(&self, t: &str, now: Millis, seed: Seed) -> Result<()> {
        let Outcome { events, state, .. } = self
            .seat_cmd(t, "start", now, SeatingCommand::Start { seed: seed.0 })
            .await?;
        let no_late_registration = state
            .settings()
            .is_some_and(|s| s.late_registration_level == 0);
        drop(state);
        self.carry_out(t, now, &events).await?;
        self.clock_cmd(t, "start", now, |at| ClockCommand::Start { at })
            .await?;
        if no_late_registration {
            self.close_registration(t, now).await?;
        }
        Ok(())
    }

    /// Closes registration: the pool and pay sheet are fixed, and seating
    /// learns how many are paid (for hand-for-hand).
    pub async fn close_registration(&self, t: &str, now: Millis) -> Result<()> {
        let closed = self.seating_state(t).await?.registration_closed;
        if !closed {
            self.seat_cmd(
                t,
                "close-registration",
                now,
                SeatingCommand::CloseRegistration,
            )
            .await?;
        }
        let sheet = self.payout_state(t).await?.sheet.clone();
        let paid = match &sheet {
            Some(sheet) => sheet.paid(),
            None => {
                let out = self
                    .pay_cmd(
                        t,
                        "close-registration",
                        now,
                        felt_payout::Command::CloseRegistration,
                    )
                    .await?;
                out.state
                    .sheet
                    .as_ref()
                    .map_or(0, felt_payout::PaySheet::paid)
            }
        };
        // Busts from late registration are placed a few hundred at a time.
        let mut round = 0;
        while !self.payout_state(t).await?.waiting.is_empty() {
            round += 1;
            match self
                .pay_cmd(
                    t,
                    &format!("place-waiting-{round}"),
                    now,
                    felt_payout::Command::PlaceWaiting,
                )
                .await
            {
                Ok(_) | Err(TournamentError::Payout(felt_payout::PayoutError::NothingWaiting)) => {}
                Err(e) => return Err(e),
            }
        }
        let events = self
            .seat_cmd(
                t,
                "paid",
                now,
                SeatingCommand::SetPaid {
                    paid,
                    seed: self.draw(t, "paid"),
                },
            )
            .await?
            .events;
        self.carry_out(t, now, &events).await?;
        self.to_clock(t, now, &events).await?;
        Ok(())
    }

    /// Records the level changes passed by `now`, and closes late
    /// registration once its last level is over.
    pub async fn tick(&self, t: &str, now: Millis) -> Result<()> {
        let passed = {
            let clock = self.clock_state(t).await?;
            clock.view(now).period != clock.period
        };
        if passed {
            self.clock_cmd(t, &format!("tick-{now}"), now, |at| ClockCommand::Tick {
                at,
            })
            .await?;
        }
        let late = {
            let seating = self.seating_state(t).await?;
            seating
                .settings()
                .filter(|_| seating.started && !seating.registration_closed)
                .map(|s| s.late_registration_level)
        };
        if let Some(last) = late
            && self.level_now(t, now).await? > last
        {
            self.close_registration(t, now).await?;
        }
        Ok(())
    }

    /// Asks to deal the next hand at a table: seating must allow it and the
    /// clock must not be on a break; the hand is played with the clock's
    /// level now (TDA 23) and dealt from the seed `deck` gives for the
    /// hand's number (drawn only when a hand is dealt).
    pub async fn begin_hand(
        &self,
        t: &str,
        table: TableNo,
        now: Millis,
        deck: &(dyn Fn(u64) -> Seed + Send + Sync),
    ) -> Result<Begin> {
        // Once: moves and seats left undone are carried out, then asked again.
        let mut carried = false;
        loop {
            let clock = self.clock_state(t).await?;
            let level = match clock.level_for_hand(now) {
                Ok(level) => level,
                Err(ClockError::OnBreak { remaining }) => return Ok(Begin::OnBreak(remaining)),
                Err(e) => return Err(e.into()),
            };
            let seating = self.seating_state(t).await?;
            let Some(info) = seating.room.tables.get(&table) else {
                return Ok(Begin::Closed);
            };
            let begun = Begun {
                hand: info.hands + 1,
                last_button: info.button,
                last_bb: info.big_blind,
                first_button: (1..=info.size()).find(|&s| info.occupant(s).is_some()),
            };
            // Ask the state first: a table told to wait costs no command.
            if let Err(SeatingError::MustWait { reason, .. }) = felt_seating::gate(&seating, table)
            {
                if !info.in_hand {
                    // Moves or seats seating decided that no table has carried
                    // out: a crash cut their carrying out short, and while the
                    // tables wait for them no hand end comes to finish it.
                    // (Unless they are being carried out now.)
                    if !carried
                        && (!seating.room.moves.is_empty() || !seating.unconfirmed.is_empty())
                        && let Ok(_one) = self.carrying.try_lock()
                    {
                        drop(seating);
                        carried = true;
                        if let Err(e) = self.carry_out_locked(t, now, &[]).await {
                            tracing::warn!(%e, table, "carrying out seating's moves failed");
                            return Ok(Begin::Wait(reason));
                        }
                        continue;
                    }
                    return Ok(Begin::Wait(reason));
                }
                drop(seating);
                // Seating has begun a hand here. Being played: a dealer asking
                // again (the first answer lost, say to a restart) gets it back.
                // None in progress: either it ended (and seating will hear of
                // it), or a crash came between seating's grant and the deal.
                // Dealing it under the same command id tells which: a repeat
                // changes nothing, a first deal is the hand seating granted.
                let stream = felt_tablelog::stream(t, &table.to_string())?;
                let (now_at_table, version) = self.tables.state(&stream).await?;
                if let Some(number) = now_at_table.hand.as_ref().map(|h| h.number) {
                    let events: Vec<TableEvent> = self
                        .tables
                        .log()
                        .read(&stream, 1)
                        .await?
                        .iter()
                        .map(felt_tablelog::decode)
                        .collect::<std::result::Result<_, _>>()?;
                    let start = events
                    .iter()
                    .rposition(
                        |e| matches!(e, TableEvent::HandStarted { number: n, .. } if *n == number),
                    )
                    .unwrap_or(0);
                    return Ok(Begin::Started(
                        events[start..].to_vec(),
                        now_at_table,
                        version,
                    ));
                }
                // (Seating counts a hand when it ends: the begun one is next.)
                // Dealt and ended: its end is on its way to seating. (Known
                // from the table's command ids, without reading its history.)
                if self
                    .tables
                    .recorded(&stream, &format!("start-{}", begun.hand))
                    .await?
                {
                    return Ok(Begin::Wait(reason));
                }
                return match self.deal(t, table, &begun, level, deck, now).await? {
                    (_, true) => Ok(Begin::Wait(reason)),
                    (begin, false) => Ok(begin),
                };
            }
            drop(seating);
            match self
                .seat_cmd(
                    t,
                    &format!("begin-{table}-{}", begun.hand),
                    now,
                    SeatingCommand::BeginHand { table },
                )
                .await
            {
                Ok(_) => {}
                Err(TournamentError::Seating(SeatingError::MustWait { reason, .. })) => {
                    return Ok(Begin::Wait(reason));
                }
                Err(TournamentError::Seating(SeatingError::NoSuchTable { .. })) => {
                    return Ok(Begin::Closed);
                }
                Err(e) => return Err(e),
            }
            return Ok(self.deal(t, table, &begun, level, deck, now).await?.0);
        }
    }

    /// Deals the hand seating granted at a table; whether it had been dealt
    /// before (the same command id).
    async fn deal(
        &self,
        t: &str,
        table: TableNo,
        begun: &Begun,
        level: felt_table::Level,
        deck: &(dyn Fn(u64) -> Seed + Send + Sync),
        now: Millis,
    ) -> Result<(Begin, bool)> {
        let hand = begun.hand;
        let button = if begun.last_button.is_none() {
            begun.first_button
        } else {
            None
        };
        let start = Command::StartHand {
            level,
            deal: Deal::Digital { seed: deck(hand) },
            button,
        };
        match self
            .table_cmd(t, table, &format!("start-{hand}"), now, start)
            .await
        {
            Ok(out) => Ok((
                Begin::Started(out.events, out.state, out.version),
                out.duplicate,
            )),
            Err(e @ (TournamentError::Table { .. } | TournamentError::TableRefused { .. })) => {
                let source = match e {
                    TournamentError::Table { source, .. } => source.to_string(),
                    other => other.to_string(),
                };
                // Release the table at seating: no hand was dealt.
                let (button, big_blind) =
                    (begun.last_button.unwrap_or(1), begun.last_bb.unwrap_or(1));
                let id = format!("hand-{table}-{hand}-void");
                self.seat_cmd(
                    t,
                    &id,
                    now,
                    SeatingCommand::HandEnded {
                        table,
                        button,
                        big_blind,
                        busted: Vec::new(),
                        seed: self.draw(t, &id),
                    },
                )
                .await?;
                Ok((Begin::Wait(source), false))
            }
            Err(e) => Err(e),
        }
    }

    /// Runs a table command (a dealer's or a bot's), returning its outcome.
    pub async fn table(
        &self,
        t: &str,
        table: TableNo,
        command_id: &str,
        now: Millis,
        command: Command,
    ) -> Result<Outcome<Table>> {
        self.table_cmd(t, table, command_id, now, command).await
    }

    /// The floor starts or stops hand-for-hand: at seating, which gates the
    /// tables round by round, then at the clock, which deducts its time.
    /// Whether the command was a repeat.
    pub async fn floor_hand_for_hand(
        &self,
        t: &str,
        start: bool,
        command_id: &str,
        now: Millis,
    ) -> Result<bool> {
        let command = if start {
            SeatingCommand::StartHandForHand
        } else {
            SeatingCommand::StopHandForHand
        };
        let out = self
            .seat_cmd(t, &format!("floor-{command_id}"), now, command)
            .await?;
        self.to_clock(t, now, &out.events).await?;
        Ok(out.duplicate)
    }

    /// The player to act at a table is out of time: judged from when the
    /// action reached them (or the floor called the clock) as the log
    /// recorded it, the clock's action-clock settings and their time-bank
    /// cards, at `now`. Cards the player used are recorded at the clock,
    /// then the table records the fold or check. Refused, changing
    /// nothing, while the player is still in time.
    pub async fn time_out(
        &self,
        t: &str,
        table: TableNo,
        seat: Seat,
        command_id: &str,
        now: Millis,
    ) -> Result<Outcome<Table>> {
        let stream = felt_tablelog::stream(t, &table.to_string())?;
        let command = Command::TimeOut { seat };
        // A retry is answered with its first result, whatever the time.
        if self.tables.recorded(&stream, command_id).await? {
            return self.table_cmd(t, table, command_id, now, command).await;
        }
        let Some((player, verdict)) = self.on_the_clock(t, table, seat, now).await? else {
            // Not this player's turn: the table says why.
            return self.table_cmd(t, table, command_id, now, command).await;
        };
        match verdict {
            None => Err(TournamentError::NoClockRunning { table, seat }),
            Some(felt_clock::Verdict::Thinking { deadline, .. }) => {
                Err(TournamentError::StillInTime {
                    table,
                    seat,
                    left: deadline - now,
                })
            }
            Some(felt_clock::Verdict::Expired { cards, .. }) => {
                self.use_time_bank(t, table, player, cards, command_id, now)
                    .await?;
                self.table_cmd(t, table, command_id, now, command).await
            }
        }
    }

    /// Before a player's action at a tournament on the action clock: the
    /// time-bank cards they have used on this decision are recorded at
    /// the clock (a card started is a card used).
    pub async fn act_in_time(
        &self,
        t: &str,
        table: TableNo,
        seat: Seat,
        command_id: &str,
        now: Millis,
    ) -> Result<()> {
        if !self.clock_state(t).await?.settings.action.enabled {
            return Ok(());
        }
        let stream = felt_tablelog::stream(t, &table.to_string())?;
        if self.tables.recorded(&stream, command_id).await? {
            return Ok(());
        }
        if let Some((player, Some(felt_clock::Verdict::Thinking { cards, .. }))) =
            self.on_the_clock(t, table, seat, now).await?
        {
            self.use_time_bank(t, table, player, cards, command_id, now)
                .await?;
        }
        Ok(())
    }

    /// Records time-bank cards a player used (none: nothing).
    async fn use_time_bank(
        &self,
        t: &str,
        table: TableNo,
        player: u64,
        cards: u32,
        command_id: &str,
        now: Millis,
    ) -> Result<()> {
        if cards == 0 {
            return Ok(());
        }
        let cards = u8::try_from(cards).unwrap_or(u8::MAX);
        self.clock_cmd(t, &format!("timebank-{table}-{command_id}"), now, |at| {
            ClockCommand::UseTimeBank { at, player, cards }
        })
        .await?;
        Ok(())
    }

    /// If `seat` is to act at a table: its player, and how their time
    /// stands at `now` (`None`: no clock runs on them).
    async fn on_the_clock(
        &self,
        t: &str,
        table: TableNo,
        seat: Seat,
        now: Millis,
    ) -> Result<Option<(u64, Option<felt_clock::Verdict>)>> {
        let stream = felt_tablelog::stream(t, &table.to_string())?;
        let envelopes = self.tables.log().read(&stream, 1).await?;
        let events: Vec<TableEvent> = envelopes
            .iter()
            .map(felt_tablelog::decode)
            .collect::<std::result::Result<_, _>>()?;
        let Some(turn) =
            crate::timing::turn(events.iter().zip(envelopes.iter().map(|e| e.recorded_at)))
                .filter(|turn| turn.seat == seat)
        else {
            return Ok(None);
        };
        let (state, _) = self.tables.state(&stream).await?;
        let Some(player) = state.seat(seat).map(|s| s.player.0) else {
            return Ok(None);
        };
        drop(state);
        let clock = self.clock.state(&clock_stream(t)?).await?.0;
        let action = clock.settings.action;
        let used = clock.time_banks_used.get(&player).copied().unwrap_or(0);
        let cards = action.cards_available(clock.day, used);
        drop(clock);
        Ok(Some((
            player,
            crate::timing::judge(&action, cards, &turn, now),
        )))
    }

    /// A hand ended at a table: seating places the busts, moves players and
    /// runs hand-for-hand; payout places the busts; the clock deducts
    /// hand-for-hand time.
    pub async fn hand_ended(
        &self,
        t: &str,
        table: TableNo,
        hand: &HandSummary,
        now: Millis,
        seed: Seed,
    ) -> Result<()> {
        self.hand_ended_in_turn(t, table, hand, now, seed, None)
            .await
    }

    /// [`Conductor::hand_ended`], seating deciding it only in its `turn`
    /// (after the hand ends reported before it), and the next one's turn
    /// coming once its busts are with payout.
    pub async fn hand_ended_in_turn(
        &self,
        t: &str,
        table: TableNo,
        hand: &HandSummary,
        now: Millis,
        seed: Seed,
        mut turn: Option<Turn>,
    ) -> Result<()> {
        if let Some(turn) = turn.as_mut() {
            turn.come().await;
        }
        // Seating orders the busts (and numbers them: payout places them by
        // their numbers).
        let busting = self.busting.lock().await;
        let order = reactions::hand_end::to_seating(table, hand, seed);
        let Outcome { events, state, .. } = self.seat_cmd(t, &order.id, now, order.command).await?;
        // Who collects each bounty: the entries in the winning seats.
        // Read from the log: a dealer may have played the hand through
        // another handler (the table service).
        let table_state = self
            .tables
            .state(&felt_tablelog::stream(t, &table.to_string())?)
            .await?
            .0;
        let busts = reactions::hand_end::busts(table, hand, &events, &state, |s| {
            table_state.seat(s).map(|p| p.player.0)
        });
        drop(table_state);
        if !busts.held.is_empty() {
            let mut held = self
                .held
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            for (round, bust) in busts.held {
                let round = held.entry((t.to_string(), round)).or_default();
                // The same hand reported again (after a restart) holds each
                // bust once.
                if !round.iter().any(|b| b.entry == bust.entry) {
                    round.push(bust);
                }
            }
        }
        if let Some(order) = busts.now {
            self.pay_cmd(t, &order.id, now, order.command).await?;
        }
        self.flush_rounds(t, now, &state).await?;
        drop(state);
        // The clock hears of hand-for-hand and closed tables in seating's
        // order, while hand ends are reported concurrently.
        self.to_clock(t, now, &events).await?;
        self.to_clock_closed(t, now, &events).await?;
        drop(busting);
        drop(turn);
        self.carry_out(t, now, &[]).await?;
        Ok(())
    }

    /// Whether payout has every one of these busts (placed, or waiting for
    /// registration to close), or they are held for the end of their
    /// hand-for-hand round: a hand end seating recorded whose busts are
    /// not there was cut short between the two (a crash).
    pub async fn busts_recorded(&self, t: &str, entries: &[EntryId]) -> Result<bool> {
        let payout = self.payout_state(t).await?;
        let held = self
            .held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(entries.iter().all(|e| {
            payout.entries.get(e).is_some_and(|p| p.busted)
                || held
                    .iter()
                    .any(|((tt, _), busts)| tt == t && busts.iter().any(|b| b.entry == *e))
        }))
    }

    /// Sends payout the busts of hand-for-hand hands no table is still playing.
    async fn flush_rounds(&self, t: &str, now: Millis, seating: &SeatingState) -> Result<()> {
        let ready: Vec<(u64, Vec<felt_payout::Bust>)> = {
            let mut held = self
                .held
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let rounds: Vec<u64> = held
                .keys()
                .filter(|(tt, r)| tt == t && reactions::hand_end::round_over(seating, *r))
                .map(|(_, r)| *r)
                .collect();
            rounds
                .into_iter()
                .filter_map(|r| held.remove(&(t.to_string(), r)).map(|b| (r, b)))
                .collect()
        };
        if ready.is_empty() {
            return Ok(());
        }
        let orders: Vec<_> = {
            let payout = self.payout_state(t).await?;
            ready
                .into_iter()
                .filter_map(|(round, busts)| {
                    reactions::hand_end::round_to_payout(round, busts, &payout)
                })
                .collect()
        };
        for order in orders {
            self.pay_cmd(t, &order.id, now, order.command).await?;
        }
        Ok(())
    }

    /// A hand-for-hand message the clock may already have had from another
    /// table's report: refusals that say so are not errors.
    async fn clock_hfh(&self, t: &str, now: Millis, order: Order<ClockCommand>) -> Result<()> {
        let command = order.command;
        match self
            .clock_cmd(t, &order.id, now, |at| command.clone().at_time(at))
            .await
        {
            Ok(_)
            | Err(TournamentError::Clock(
                ClockError::NotInHandForHand { .. }
                | ClockError::TableAlreadyFinished { .. }
                | ClockError::WrongState { .. },
            )) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Hand-for-hand at the clock, following seating.
    async fn to_clock(&self, t: &str, now: Millis, events: &[SeatingEvent]) -> Result<()> {
        let news = |e: &&SeatingEvent| {
            matches!(
                e,
                SeatingEvent::HandForHandStarted { .. }
                    | SeatingEvent::HandForHandRound { .. }
                    | SeatingEvent::HandForHandEnded { .. }
            )
        };
        if !events.iter().any(|e| news(&e)) {
            return Ok(());
        }
        let _one = self.clocking.lock().await;
        for e in events.iter().filter(news) {
            let orders = {
                let seating = self.seating_state(t).await?;
                let clock = self.clock_state(t).await?;
                reactions::hand_for_hand::to_clock(e, &seating, &clock, now)
            };
            for order in orders {
                self.clock_hfh(t, now, order).await?;
            }
        }
        Ok(())
    }

    /// Opens new tables, seats new entries and carries out every pending
    /// move (all removals before any seating, so a redraw can swap seats).
    pub async fn carry_out(&self, t: &str, now: Millis, events: &[SeatingEvent]) -> Result<()> {
        let _one = self.carrying.lock().await;
        self.carry_out_locked(t, now, events).await
    }

    /// [`Conductor::carry_out`], its lock held.
    async fn carry_out_locked(&self, t: &str, now: Millis, events: &[SeatingEvent]) -> Result<()> {
        let mut more: Vec<SeatingEvent> = events.to_vec();
        let draw = |id: &str| Seed(self.draw(t, id));
        loop {
            self.to_clock_closed(t, now, &more).await?;
            let state = self.seating_state(t).await?;
            let stack = state.settings().map_or(0, |s| s.starting_stack);
            let to_open = self.tables_to_open(t, &state);
            let seats = reactions::seats::unconfirmed(&state);
            let moves: Vec<felt_seating::Move> = state.room.moves.values().copied().collect();
            // Seating's state is shared with its handler: let go of it before
            // the next seating command, or that command copies it.
            drop(state);
            self.open_tables(t, now, to_open).await?;
            more.clear();
            for (entry, table, seat) in seats {
                self.table_order(t, now, reactions::seats::seat(entry, table, seat, stack))
                    .await?;
                let order = reactions::seats::seated(entry, draw);
                let out = self.seat_cmd(t, &order.id, now, order.command).await?;
                more.extend(out.events);
            }
            if moves.is_empty() && more.is_empty() {
                return Ok(());
            }
            // The players leave their tables at once (the appends to
            // different tables share a commit), then take their new seats
            // at once; seating hears of each move in order.
            let outs = futures::future::try_join_all(
                moves
                    .iter()
                    .map(|m| self.table_order(t, now, reactions::seats::move_out(m))),
            )
            .await?;
            let mut stacks = BTreeMap::new();
            for (m, out) in moves.iter().zip(outs) {
                let stack = reactions::seats::stack_moved(m, &out.events).ok_or_else(|| {
                    TournamentError::Inconsistent(format!(
                        "move {}: no removal of entry {}",
                        m.id, m.entry
                    ))
                })?;
                stacks.insert(m.id, stack);
            }
            futures::future::try_join_all(
                moves
                    .iter()
                    .map(|m| self.table_order(t, now, reactions::seats::move_in(m, stacks[&m.id]))),
            )
            .await?;
            for m in &moves {
                let order = reactions::seats::move_done(m, stacks[&m.id], draw);
                let out = self.seat_cmd(t, &order.id, now, order.command).await?;
                more.extend(out.events);
            }
            self.to_clock(t, now, &more).await?;
        }
    }

    /// A reaction's command to one of the tournament's tables.
    async fn table_order(&self, t: &str, now: Millis, order: TableOrder) -> Result<Outcome<Table>> {
        self.table_cmd(t, order.table, &order.id, now, order.command)
            .await
    }

    /// Tables seating has opened that the table service may not know yet.
    fn tables_to_open(&self, t: &str, state: &SeatingState) -> Vec<(TableNo, u8)> {
        let opened = self
            .opened
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        state
            .room
            .tables
            .values()
            .filter(|tb| !opened.contains(&(t.to_string(), tb.number)))
            .map(|tb| (tb.number, tb.size()))
            .collect()
    }

    /// The tournament's house rules: as created, or after a restart as the
    /// registry recorded them.
    async fn rules(&self, t: &str) -> Result<HouseRules> {
        let known = self
            .rules
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(t)
            .copied();
        if let Some(rules) = known {
            return Ok(rules);
        }
        let rules = crate::aggregates::tournaments(self.seating.log().as_ref())
            .await?
            .into_iter()
            .find(|c| c.tournament == t)
            .map(|c| c.rules)
            .unwrap_or_default();
        self.rules
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(t.into(), rules);
        Ok(rules)
    }

    /// Opens tables at the table service.
    async fn open_tables(&self, t: &str, now: Millis, tables: Vec<(TableNo, u8)>) -> Result<()> {
        if tables.is_empty() {
            return Ok(());
        }
        let rules = self.rules(t).await?;
        for (table, seats) in tables {
            self.table_order(t, now, reactions::seats::open(table, seats, rules))
                .await?;
            self.opened
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert((t.to_string(), table));
        }
        Ok(())
    }

    /// Tables closed during hand-for-hand are no longer waited for by the clock.
    async fn to_clock_closed(&self, t: &str, now: Millis, events: &[SeatingEvent]) -> Result<()> {
        if !events
            .iter()
            .any(|e| matches!(e, SeatingEvent::TableClosed { .. }))
        {
            return Ok(());
        }
        let _one = self.clocking.lock().await;
        for e in events
            .iter()
            .filter(|e| matches!(e, SeatingEvent::TableClosed { .. }))
        {
            let order = {
                let clock = self.clock_state(t).await?;
                reactions::hand_for_hand::closed_to_clock(e, &clock, now)
            };
            if let Some(order) = order {
                self.clock_hfh(t, now, order).await?;
            }
        }
        Ok(())
    }
}
