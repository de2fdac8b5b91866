//! The conductor carries each service's decisions to the others: seating's
//! seats and moves to the tables, the tables' hand ends to seating, the
//! clock's level to every hand started; its runner carries seating's
//! decisions to payout (busts, held for their hand-for-hand round) and to
//! the clock (hand-for-hand), in the log's order.
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
use felt_service::{Draws, HandleError, Handler, Outcome, Provenance};
use felt_table::{Command, Deal, HouseRules, Rejection, Seat, TableEvent};
use felt_tablelog::Table;
use felt_vocabulary::{Classified, ErrorKind, PlayerId, TournamentId};

pub use crate::aggregates::DealMode;
use crate::aggregates::{
    Clock, Payout, Registry, Seating, clock_stream, payout_stream, registry_stream, seating_stream,
};
pub use crate::reactions::hand_end::HandSummary;

mod carry;
mod flights;
mod hands;
pub use hands::RACE_SEEDS;
mod react;
mod registration;
use crate::reactions::{self, Order, TableOrder};

/// Why the conductor could not carry something out.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::EnumMessage)]
pub enum TournamentError {
    #[error("table {table}: {source}")]
    Table { table: TableNo, source: Rejection },
    #[error("clock: {0}")]
    Clock(#[from] ClockError),
    #[error("seating: {0}")]
    Seating(#[from] SeatingError),
    #[error("payout: {0}")]
    Payout(#[from] felt_payout::PayoutError),
    #[error("the room: {0}")]
    Room(#[from] felt_room::RoomError),
    #[error(transparent)]
    Log(#[from] LogError),
    #[error("{stream}: {attempts} attempts all lost to other writers")]
    Contended { stream: String, attempts: u32 },
    #[error(
        "command id {command_id:?} was already used for another request (fingerprint {first}): send that request again, or this one under a new command id"
    )]
    CommandIdReused {
        command_id: String,
        /// The fingerprint of the request the id was first used for.
        first: felt_eventlog::Hash,
    },
    #[error("inconsistent: {0}")]
    Inconsistent(String),
    /// The table service (over the network) refused a command.
    #[error("table {table}: {refusal}")]
    TableRefused { table: TableNo, refusal: Refusal },
    /// The table service could not be reached.
    #[error("the table service: {0}")]
    TablesUnavailable(String),
    /// Deployed apart, the clock or payout had not taken up its part of a
    /// new tournament in time (not running, or far behind): creating it
    /// again finishes it.
    #[error(
        "tournament {tournament}: {missing} did not take up its part in time: is the service running? creating it again finishes it"
    )]
    PartsMissing { tournament: String, missing: String },
    /// Deployed apart from the clock, the table service was not told where
    /// it is, and an action took time-bank cards, which only the clock
    /// records.
    #[error(
        "time-bank cards are the clock's to record, and this table service runs apart from the clock without knowing where it is (--clock URL)"
    )]
    ClockElsewhere,
    /// The clock service (over the network) refused a command.
    #[error("clock: {0}")]
    ClockRefused(Refusal),
    /// The clock service could not be reached.
    #[error("the clock service: {0}")]
    ClockUnavailable(String),
    /// A timeout claimed before the player's time ran out.
    #[error("table {table}: seat {seat} still has {} s to act (the action clock of seed 002, or a called clock, TDA 29)", *.left as f64 / 1000.0)]
    #[strum(message = "TDA 29")]
    StillInTime {
        table: TableNo,
        seat: Seat,
        left: Millis,
    },
    /// A timeout claimed where no clock runs on the player.
    #[error(
        "table {table}: no clock runs on seat {seat}: this tournament has no action clock and the floor has not called the clock (TDA 29)"
    )]
    #[strum(message = "TDA 29")]
    NoClockRunning { table: TableNo, seat: Seat },
    /// A ticket named at registration that is not a seat in this event.
    #[error("ticket {reference}: {reason}")]
    TicketInvalid { reference: String, reason: String },
    /// An event's flights cannot advance to its Day 2 yet.
    #[error("the flights cannot advance: {reason}")]
    FlightsNotReady { reason: String },
    /// A flight's entry the event's rules across its flights refuse.
    #[error("player {player} cannot enter this flight: {reason}")]
    FlightEntryRefused { player: PlayerId, reason: String },
}

impl Classified for TournamentError {
    fn kind(&self) -> ErrorKind {
        use TournamentError as T;
        match self {
            T::Table { source, .. } => source.kind(),
            T::Clock(e) => e.kind(),
            T::Seating(e) => e.kind(),
            T::Payout(e) => e.kind(),
            T::Room(e) => e.kind(),
            T::Log(e) => e.kind(),
            T::Contended { .. } => ErrorKind::Conflict,
            T::CommandIdReused { .. } => ErrorKind::AlreadyExists,
            T::TablesUnavailable(_) | T::ClockUnavailable(_) | T::PartsMissing { .. } => {
                ErrorKind::Unavailable
            }
            T::Inconsistent(_) => ErrorKind::Internal,
            T::TableRefused { refusal, .. } | T::ClockRefused(refusal) => refusal.kind,
            T::ClockElsewhere
            | T::StillInTime { .. }
            | T::NoClockRunning { .. }
            | T::TicketInvalid { .. }
            | T::FlightsNotReady { .. }
            | T::FlightEntryRefused { .. } => ErrorKind::Refused,
        }
    }

    fn reason(&self) -> &str {
        use TournamentError as T;
        match self {
            T::Table { source, .. } => source.reason(),
            T::Clock(e) => e.reason(),
            T::Seating(e) => e.reason(),
            T::Payout(e) => e.reason(),
            T::Room(e) => e.reason(),
            T::Log(e) => e.reason(),
            T::TableRefused { refusal, .. } | T::ClockRefused(refusal) => &refusal.reason,
            other => other.into(),
        }
    }

    fn rule(&self) -> Option<&str> {
        use TournamentError as T;
        match self {
            T::Table { source, .. } => source.rule(),
            T::Clock(e) => e.rule(),
            T::Seating(e) => e.rule(),
            T::Payout(e) => e.rule(),
            T::TableRefused { refusal, .. } | T::ClockRefused(refusal) => refusal.rule.as_deref(),
            other => strum::EnumMessage::get_message(other),
        }
    }
}

/// A refusal another service sent back, as it classified it: its kind,
/// its reason (the refusing error's name) and its message (the rule).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub kind: ErrorKind,
    pub reason: String,
    /// The rule the refusal applied, when it applied one.
    pub rule: Option<String>,
    pub message: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl Refusal {
    /// A refusal made here, before anything was sent.
    pub fn here(kind: ErrorKind, reason: &str, message: String) -> Refusal {
        Refusal {
            kind,
            reason: reason.into(),
            rule: None,
            message,
        }
    }
}

/// Why the table service did not carry out a command sent over the network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoteError {
    /// Refused, as the service classified it (the rule broken).
    Refused(Refusal),
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
    /// Sends `command` to a table, the decision recording `from` (where a
    /// reaction's command comes from).
    fn execute<'a>(
        &'a self,
        tournament: &'a str,
        table: TableNo,
        command_id: &'a str,
        command: &'a Command,
        from: &'a Provenance,
    ) -> Remote<'a>;
}

/// A future the clock service answers with: whether the command was a
/// repeat.
pub type Sent<'a> = std::pin::Pin<
    Box<dyn std::future::Future<Output = std::result::Result<bool, RemoteError>> + Send + 'a>,
>;

/// The clock service as the table service reaches it when deployed apart:
/// the time-bank cards an action took, which the clock records (the
/// table's command id makes a repeat harmless).
pub trait ClockService: Send + Sync {
    fn use_time_bank<'a>(
        &'a self,
        tournament: &'a str,
        command_id: &'a str,
        player: EntryId,
        cards: u8,
    ) -> Sent<'a>;
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
        HandleError::Reused { command_id, first } => {
            TournamentError::CommandIdReused { command_id, first }
        }
    }
}

/// Everything a tournament is created with: each service keeps its part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentSpec {
    pub name: String,
    pub seating: felt_seating::Settings,
    pub structure: Structure,
    pub clock: ClockSettings,
    pub money: MoneySettings,
    pub busts: SimultaneousBusts,
    pub rules: HouseRules,
    /// How every table's hands are dealt.
    pub deal: DealMode,
}

impl TournamentSpec {
    /// The clock's and payout's parts, as the registry records them.
    pub fn definition(&self) -> crate::aggregates::Definition {
        crate::aggregates::Definition {
            structure: self.structure.clone(),
            clock: self.clock.clone(),
            money: self.money.clone(),
            busts: self.busts,
        }
    }
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
    /// A physical table's chip race is due before the hand (TDA 24): the
    /// `leaving` chip left play at a break and `smallest` is the smallest
    /// still in play. The dealer enters the race the table ran
    /// (`ColourUp`), then asks again.
    RaceDue {
        leaving: felt_table::Chips,
        smallest: felt_table::Chips,
    },
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

/// The name the runner of seating's reactions records its position under.
pub const REACTIONS: &str = "seating-reactions";
/// The name seating's carrier of seats and moves to the tables records its
/// position under.
pub const CARRIER: &str = "seating-carrier";
/// The name the runner of the clock's reactions records its position under.
pub const CLOCK_REACTIONS: &str = "clock-reactions";
/// The name the runner of payout's reactions records its position under.
pub const PAYOUT_REACTIONS: &str = "payout-reactions";
/// The name the runner of the registry's reactions records its position
/// under.
pub const REGISTRY_REACTIONS: &str = "registry-reactions";

/// The services whose streams a process writes: each reaction runs in the
/// service that owns the stream it writes (its target), subscribed to its
/// cause, so every stream has one writer service. One process hosting all
/// three runs each kind's reactions with one runner, as the front door's
/// calls bring them on ([`Conductor::settle`]); a service deployed on its
/// own runs its own in the background ([`Conductor::follow_reactions`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hosts {
    pub seating: bool,
    pub clock: bool,
    pub payout: bool,
}

impl Hosts {
    /// The three in one process (`felt up`, `felt sim`, the tests).
    pub const ALL: Hosts = Hosts {
        seating: true,
        clock: true,
        payout: true,
    };

    pub fn all(&self) -> bool {
        *self == Hosts::ALL
    }

    /// The name a runner of `base`'s reactions records its position under:
    /// `base` itself when one process hosts every target, otherwise with
    /// the targets this process hosts (`seating-reactions-for-payout`), so
    /// services deployed apart each follow the cause from their own place.
    fn runner_name(&self, base: &str) -> String {
        if self.all() {
            return base.into();
        }
        let hosted: Vec<&str> = [
            ("seating", self.seating),
            ("clock", self.clock),
            ("payout", self.payout),
        ]
        .into_iter()
        .filter_map(|(name, hosted)| hosted.then_some(name))
        .collect();
        format!("{base}-for-{}", hosted.join("-"))
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
}

/// The four services' handlers over one log, and what the conductor holds
/// between calls.
pub struct Conductor<L: EventLog> {
    /// Shared with a table service in the same process, so both see one cache.
    pub tables: std::sync::Arc<Handler<Table, L>>,
    pub clock: Handler<Clock, L>,
    pub seating: Handler<Seating, L>,
    pub payout: Handler<Payout, L>,
    /// The room's physical tables, one pool for every tournament (written
    /// where seating is hosted).
    pub room: Handler<crate::aggregates::Room, L>,
    /// Carries seating's tables, seats and moves out at the tables, one
    /// seating decision at a time in the log's order (where seating is
    /// hosted).
    carrier: crate::runner::Runner<Seating>,
    /// Runs the reactions to seating's decisions (busts to payout,
    /// hand-for-hand and closed tables to the clock) in the log's order.
    reactions: crate::runner::Runner<Seating>,
    /// Runs the reactions to the clock's levels (registration's close).
    clock_reactions: crate::runner::Runner<Clock>,
    /// Runs the reactions to payout's close (the places paid to seating).
    payout_reactions: crate::runner::Runner<Payout>,
    /// Runs the reactions to a tournament's creation (the clock's and
    /// payout's parts).
    registry_reactions: crate::runner::Runner<Registry>,
    /// Each tournament's house rules and deal mode, as created (or read
    /// back from the registry after a restart).
    terms: std::sync::Mutex<BTreeMap<String, (HouseRules, DealMode)>>,
    /// Events the table service elsewhere appended for this conductor.
    appended: std::sync::atomic::AtomicU64,
    /// The table service over the network, when deployed apart.
    remote: Option<std::sync::Arc<dyn TableService>>,
    /// The clock service over the network, when deployed apart.
    remote_clock: Option<std::sync::Arc<dyn ClockService>>,
    /// The services whose streams this process writes.
    hosts: Hosts,
    /// Tournaments a reaction sent a command to from another tournament's
    /// decision (a satellite's ticket to its event, a second seat back),
    /// whose own reactions are still to run: in one process,
    /// [`Conductor::settle`] and [`Conductor::react`] settle them after
    /// their own (deployed apart, the runners follow every tournament).
    elsewhere: std::sync::Mutex<BTreeSet<String>>,
    /// Tournaments whose clock finished (stopped for good): the ticker
    /// does not read them again.
    finished_clocks: std::sync::Mutex<std::collections::HashSet<String>>,
    /// One lock per event fed by flights: a registration into a flight
    /// checks the event's rules across its flights and registers under it.
    event_locks: std::sync::Mutex<BTreeMap<String, std::sync::Arc<tokio::sync::Mutex<()>>>>,
}

/// Seating's seeds made from its stream and the command id alone: the
/// same run again draws the same seats (tests). A service hands in its own
/// source ([`Conductor::with_draws`]).
pub fn draws_from_ids() -> Draws {
    std::sync::Arc::new(|stream: &felt_eventlog::StreamId, command_id: &str| {
        let mut seed = [0u8; 32];
        for (i, b) in stream
            .to_string()
            .bytes()
            .chain([0])
            .chain(command_id.bytes())
            .enumerate()
        {
            let at = i % 32;
            seed[at] = seed[at].rotate_left(3) ^ b;
        }
        seed
    })
}

/// The three kinds' runners, named for the targets hosted.
mod runners {
    use super::{
        CARRIER, CLOCK_REACTIONS, Hosts, PAYOUT_REACTIONS, REACTIONS, REGISTRY_REACTIONS, reactions,
    };
    use crate::aggregates::{Clock, Payout, Registry, Seating};
    use crate::runner::Runner;
    use felt_eventlog::Filter;

    pub(super) fn seating(hosts: Hosts) -> Runner<Seating> {
        Runner::new(
            &hosts.runner_name(REACTIONS),
            Filter::kind("seating"),
            reactions::wanted,
        )
    }

    pub(super) fn carrier(hosts: Hosts) -> Runner<Seating> {
        Runner::new(
            &hosts.runner_name(CARRIER),
            Filter::kind("seating"),
            reactions::seats::wanted,
        )
    }

    pub(super) fn clock(hosts: Hosts) -> Runner<Clock> {
        Runner::new(
            &hosts.runner_name(CLOCK_REACTIONS),
            Filter::kind("clock"),
            reactions::wanted_clock,
        )
    }

    pub(super) fn payout(hosts: Hosts) -> Runner<Payout> {
        Runner::new(
            &hosts.runner_name(PAYOUT_REACTIONS),
            Filter::kind("payout"),
            reactions::wanted_payout,
        )
    }

    pub(super) fn registry(hosts: Hosts) -> Runner<Registry> {
        Runner::new(
            &hosts.runner_name(REGISTRY_REACTIONS),
            Filter::kind("tournaments"),
            reactions::creation::wanted,
        )
    }
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
            clock: Handler::new(log.clone()).with_draws(draws_from_ids()),
            seating: Handler::new(log.clone()).with_draws(draws_from_ids()),
            room: Handler::new(log.clone()),
            payout: Handler::new(log),
            carrier: runners::carrier(Hosts::ALL),
            reactions: runners::seating(Hosts::ALL),
            clock_reactions: runners::clock(Hosts::ALL),
            payout_reactions: runners::payout(Hosts::ALL),
            registry_reactions: runners::registry(Hosts::ALL),
            terms: std::sync::Mutex::new(BTreeMap::new()),
            appended: std::sync::atomic::AtomicU64::new(0),
            remote: None,
            remote_clock: None,
            hosts: Hosts::ALL,
            elsewhere: std::sync::Mutex::new(BTreeSet::new()),
            finished_clocks: std::sync::Mutex::default(),
            event_locks: std::sync::Mutex::new(BTreeMap::new()),
        }
    }

    /// The conductor of a process hosting only `hosts`: it runs only the
    /// reactions that write their streams, and carries out seats and moves
    /// only where seating is hosted.
    pub fn hosting(self, hosts: Hosts) -> Self {
        Conductor {
            reactions: runners::seating(hosts),
            carrier: runners::carrier(hosts),
            clock_reactions: runners::clock(hosts),
            payout_reactions: runners::payout(hosts),
            registry_reactions: runners::registry(hosts),
            hosts,
            ..self
        }
    }

    /// The services whose streams this process writes.
    pub fn hosts(&self) -> Hosts {
        self.hosts
    }

    /// The conductor whose seating and clock draw each decision's seed
    /// from `draws` (the operating system's, [`felt_service::os_draws`],
    /// or a simulation's own) when they decide (seats, rule 77's card),
    /// and record it.
    pub fn with_draws(self, draws: Draws) -> Self {
        Conductor {
            clock: self.clock.with_draws(draws.clone()),
            seating: self.seating.with_draws(draws),
            ..self
        }
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

    /// A conductor of a process apart from the clock (not hosting it) that
    /// sends the time-bank cards its tables' actions take to the clock
    /// service.
    pub fn with_clock_service(self, clock: std::sync::Arc<dyn ClockService>) -> Self {
        Conductor {
            remote_clock: Some(clock),
            ..self
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
        from: &Provenance,
    ) -> std::result::Result<Outcome<A>, HandleError<A::Rejection>> {
        let mut attempt = 0u32;
        loop {
            match handler.handle_from(stream, id, now, from, command).await {
                // (A closed log is this process shutting down: no retry
                // of its own can help.)
                Err(HandleError::Log(e))
                    if attempt < 6 && e.kind().retryable() && e != LogError::Closed =>
                {
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
        self.seat_from(t, id, now, c, &Provenance::default()).await
    }

    /// A seating command, recording where it comes from.
    async fn seat_from(
        &self,
        t: &str,
        id: &str,
        now: Millis,
        c: SeatingCommand,
        from: &Provenance,
    ) -> Result<Outcome<Seating>> {
        self.send(&self.seating, &seating_stream(t)?, id, now, &c, from)
            .await
            .map_err(|e| lift(e, TournamentError::Seating))
    }

    /// A command to the room's pool, recording where it comes from.
    pub(crate) async fn room_from(
        &self,
        id: &str,
        now: Millis,
        c: felt_room::RoomCommand,
        from: &Provenance,
    ) -> Result<Outcome<crate::aggregates::Room>> {
        self.send(
            &self.room,
            &crate::aggregates::room_stream()?,
            id,
            now,
            &c,
            from,
        )
        .await
        .map_err(|e| lift(e, TournamentError::Room))
    }

    /// The director lays the room out (its physical tables, in the order
    /// the room fills them), under the caller's command id. Whether it was
    /// a repeat, and the room's version after it.
    pub async fn set_room_layout(
        &self,
        tables: Vec<felt_room::PhysicalTable>,
        command_id: &str,
        now: Millis,
        from: &Provenance,
    ) -> Result<(bool, u64)> {
        let out = self
            .room_from(
                &format!("layout-{command_id}"),
                now,
                felt_room::RoomCommand::SetLayout { tables },
                from,
            )
            .await?;
        Ok((out.duplicate, out.version))
    }

    /// The room's physical tables as the log has them now.
    pub async fn room_state(&self) -> Result<std::sync::Arc<felt_room::RoomState>> {
        Ok(self.room.state(&crate::aggregates::room_stream()?).await?.0)
    }

    /// A payout command, recording where it comes from.
    async fn pay_from(
        &self,
        t: &str,
        id: &str,
        now: Millis,
        c: felt_payout::Command,
        from: &Provenance,
    ) -> Result<Outcome<Payout>> {
        self.send(&self.payout, &payout_stream(t)?, id, now, &c, from)
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
        self.table_from(t, table, id, now, c, &Provenance::default())
            .await
    }

    /// A table command, recording where it comes from (in this process's
    /// table handler; the table service's wire has no place for it yet).
    async fn table_from(
        &self,
        t: &str,
        table: TableNo,
        id: &str,
        now: Millis,
        c: Command,
        from: &Provenance,
    ) -> Result<Outcome<Table>> {
        let stream = felt_tablelog::stream(t, table)?;
        let Some(remote) = &self.remote else {
            return self
                .send(&self.tables, &stream, id, now, &c, from)
                .await
                .map_err(|e| lift(e, |source| TournamentError::Table { table, source }));
        };
        let mut attempt = 0u32;
        let (events, duplicate) = loop {
            match remote.execute(t, table, id, &c, from).await {
                Ok(answer) => break answer,
                Err(RemoteError::Refused(refusal)) => {
                    return Err(TournamentError::TableRefused { table, refusal });
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
        self.clock_from(t, id, now, make, &Provenance::default())
            .await
    }

    /// [`Conductor::clock_cmd`], recording where it comes from.
    async fn clock_from(
        &self,
        t: &str,
        id: &str,
        now: Millis,
        make: impl Fn(Millis) -> ClockCommand,
        from: &Provenance,
    ) -> Result<Outcome<Clock>> {
        let stream = clock_stream(t)?;
        let mut at = now;
        for _ in 0..8 {
            match self
                .send(&self.clock, &stream, id, at, &make(at), from)
                .await
            {
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

    /// Seating's state: as this conductor last saw it where seating is
    /// hosted (its own commands included; what other writers appended is
    /// seen at the next command), as the log has it now where it is not
    /// (another process writes it).
    pub async fn seating_state(&self, t: &str) -> Result<std::sync::Arc<SeatingState>> {
        let stream = seating_stream(t)?;
        Ok(if self.hosts.seating {
            self.seating.cached_state(&stream).await?.0
        } else {
            self.seating.state(&stream).await?.0
        })
    }

    /// The clock's state, read as [`Conductor::seating_state`] reads seating's.
    pub async fn clock_state(&self, t: &str) -> Result<std::sync::Arc<felt_clock::ClockState>> {
        let stream = clock_stream(t)?;
        Ok(if self.hosts.clock {
            self.clock.cached_state(&stream).await?.0
        } else {
            self.clock.state(&stream).await?.0
        })
    }

    /// A table's state as its log has it now (the table service may be
    /// another process): what the floor reads a stack from.
    pub async fn table_state(
        &self,
        t: &str,
        table: TableNo,
    ) -> Result<std::sync::Arc<felt_table::TableState>> {
        let stream = felt_tablelog::stream(t, table)?;
        Ok(self.tables.state(&stream).await?.0)
    }

    /// Payout's state, read as [`Conductor::seating_state`] reads seating's.
    pub async fn payout_state(&self, t: &str) -> Result<std::sync::Arc<felt_payout::PayoutState>> {
        let stream = payout_stream(t)?;
        Ok(if self.hosts.payout {
            self.payout.cached_state(&stream).await?.0
        } else {
            self.payout.state(&stream).await?.0
        })
    }
}
