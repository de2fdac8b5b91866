//! The clock, seating and payout as the service pattern runs them: one
//! stream each per tournament, `felt.<tournament>.<kind>.main`.

use felt_clock::{ClockCommand, ClockError, ClockEvent, ClockState};
use felt_eventlog::{LogError, StreamId};
use felt_payout::{PayoutError, PayoutEvent, PayoutState};
use felt_seating::{SeatingCommand, SeatingError, SeatingEvent, SeatingState};
use felt_service::Aggregate;

/// The schema version these events are written with.
pub const SCHEMA: u16 = 1;

/// A tournament's clock.
#[derive(Debug)]
pub struct Clock;

impl Aggregate for Clock {
    type State = ClockState;
    type Command = ClockCommand;
    type Event = ClockEvent;
    type Rejection = ClockError;
    const SCHEMA: u16 = SCHEMA;

    fn decide(
        state: &ClockState,
        command: &ClockCommand,
        seed: &felt_service::Seed,
    ) -> Result<Vec<ClockEvent>, ClockError> {
        felt_clock::decide(state, command, seed)
    }

    fn draws(command: &ClockCommand) -> bool {
        matches!(command, ClockCommand::DrawEndOfDay { .. })
    }

    fn apply(state: &mut ClockState, event: &ClockEvent) {
        state.apply(event);
    }

    fn event_type(event: &ClockEvent) -> &'static str {
        event.name()
    }
}

/// A tournament's entries and room.
#[derive(Debug)]
pub struct Seating;

impl Aggregate for Seating {
    type State = SeatingState;
    type Command = SeatingCommand;
    type Event = SeatingEvent;
    type Rejection = SeatingError;
    const SCHEMA: u16 = SCHEMA;
    // Every table's hand begins and ends here, one after another: the next
    // is decided while the last is committed (its state is persistent
    // collections, cheap to keep beside).
    const QUEUES: bool = true;

    fn draws(command: &SeatingCommand) -> bool {
        use SeatingCommand::*;
        match command {
            // As the purchase it carries.
            Paid { command, .. } => Self::draws(command),
            Register { .. }
            | RedeemTicket { .. }
            | RegisterMany { .. }
            | Start
            | SetPaid { .. }
            | HandEnded { .. }
            | ResultRecorded { .. }
            | SeatConfirmed { .. }
            | MoveCompleted { .. }
            | RemovalCompleted { .. }
            | SeatAlternates { .. }
            | ReEnterBySurrender { .. }
            | ReplaceNoShow { .. }
            // (The last answer to a rebuy offer ends the hand.)
            | SellRebuy { .. }
            | DeclineRebuy { .. }
            // (The room is put in order as the day's end changes it.)
            | PlayLastHands { .. }
            | ResumeDay
            // (The final table that waited for the close is drawn then.)
            | CloseRegistration => true,
            AnnounceLate { .. }
            | BagStacks { .. }
            | ConfirmBag { .. }
            | SealBags
            | AdvanceFlights { .. }
            | SetSeats { .. }
            | RecordTicket { .. }
            | NameTable { .. }
            | OpenLateEntries { .. }
            | CloseLateEntries
            | Create { .. }
            | Unregister { .. }
            | Cancel { .. }
            | BeginHand { .. }
            | StartHandForHand
            | StopHandForHand
            | HoldTable { .. }
            | ReleaseTable { .. }
            | Disqualify { .. }
            | MovePlayer { .. }
            | SellAddOn { .. }
            | AddOnDelivered { .. }
            | RebuyDelivered { .. }
            | CloseRebuys
            | Accommodate { .. } => false,
        }
    }

    fn decide(
        state: &SeatingState,
        command: &SeatingCommand,
        seed: &felt_service::Seed,
    ) -> Result<Vec<SeatingEvent>, SeatingError> {
        felt_seating::decide(state, command, seed)
    }

    fn apply(state: &mut SeatingState, event: &SeatingEvent) {
        state.apply(event);
    }

    fn event_type(event: &SeatingEvent) -> &'static str {
        event.name()
    }
}

/// A tournament's money.
#[derive(Debug)]
pub struct Payout;

impl Aggregate for Payout {
    type State = PayoutState;
    type Command = felt_payout::Command;
    type Event = PayoutEvent;
    type Rejection = PayoutError;
    const SCHEMA: u16 = SCHEMA;

    fn decide(
        state: &PayoutState,
        command: &felt_payout::Command,
        _: &felt_service::Seed,
    ) -> Result<Vec<PayoutEvent>, PayoutError> {
        felt_payout::decide(state, command)
    }

    fn apply(state: &mut PayoutState, event: &PayoutEvent) {
        state.apply(event);
    }

    fn event_type(event: &PayoutEvent) -> &'static str {
        event.name()
    }
}

/// The clock's stream: `felt.<tournament>.clock.main`.
pub fn clock_stream(tournament: &str) -> Result<StreamId, LogError> {
    StreamId::new(tournament, "clock", "main")
}

/// The seating stream: `felt.<tournament>.seating.main`.
pub fn seating_stream(tournament: &str) -> Result<StreamId, LogError> {
    StreamId::new(tournament, "seating", "main")
}

/// The payout stream: `felt.<tournament>.payout.main`.
pub fn payout_stream(tournament: &str) -> Result<StreamId, LogError> {
    StreamId::new(tournament, "payout", "main")
}

/// The list of tournaments in a log: `felt._registry.tournaments.all`,
/// one `TournamentCreated` per tournament, so an audit finds them all.
pub fn registry_stream() -> Result<StreamId, LogError> {
    StreamId::new("_registry", "tournaments", "all")
}

/// The room's physical tables, one pool for every tournament (written by
/// the seating service).
pub fn room_stream() -> Result<StreamId, LogError> {
    StreamId::new("_registry", "room", "all")
}

/// The room's physical tables ([`felt_room`]).
#[derive(Debug)]
pub struct Room;

impl Aggregate for Room {
    type State = felt_room::RoomState;
    type Command = felt_room::RoomCommand;
    type Event = felt_room::RoomEvent;
    type Rejection = felt_room::RoomError;
    const SCHEMA: u16 = 1;

    fn decide(
        state: &felt_room::RoomState,
        command: &felt_room::RoomCommand,
        _: &felt_service::Seed,
    ) -> Result<Vec<felt_room::RoomEvent>, felt_room::RoomError> {
        felt_room::decide(state, command)
    }

    fn apply(state: &mut felt_room::RoomState, event: &felt_room::RoomEvent) {
        state.apply(event);
    }

    fn event_type(event: &felt_room::RoomEvent) -> &'static str {
        event.name()
    }
}

/// How a tournament's cards are dealt, at every table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum DealMode {
    /// Dealers deal real cards: a hand starts with no card known, the
    /// dealer enters the board as it is dealt and the hands tabled at
    /// showdown (hole cards may be entered, never have to be).
    Physical,
    /// The table service deals from a deck shuffled with a seed it draws
    /// alone (committed to at the hand's start, revealed at its end): how
    /// tournaments created before the shared deck are dealt.
    Digital,
    /// A digital deck neither side chooses ([`felt_table::Deal::Shared`]):
    /// the table service commits to a secret as each hand starts, the
    /// table's device adds entropy, and the cards are dealt from both;
    /// what a digital tournament created over gRPC is dealt with.
    Shared,
}

impl DealMode {
    /// Tournaments recorded before a tournament had a deal mode were all
    /// dealt digitally.
    pub(crate) fn before_modes() -> DealMode {
        DealMode::Digital
    }
}

/// A tournament in the registry.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TournamentCreated {
    pub tournament: felt_vocabulary::TournamentId,
    pub name: String,
    /// The tables' house rules, for tables opened after a restart.
    #[serde(default)]
    pub rules: felt_table::HouseRules,
    /// How its hands are dealt.
    #[serde(default = "DealMode::before_modes")]
    pub deal: DealMode,
    /// The clock's and payout's parts of the definition, which each takes
    /// up as a reaction ([`crate::reactions::creation`]). Absent in logs
    /// written when seating's front door wrote them there itself.
    #[serde(default)]
    pub definition: Option<Definition>,
}

/// What the clock and payout keep of a tournament's definition.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Definition {
    pub structure: felt_clock::Structure,
    pub clock: felt_clock::ClockSettings,
    pub money: felt_payout::MoneySettings,
    pub busts: felt_payout::SimultaneousBusts,
}

/// The registry as the runner of its reactions folds it: the tournaments
/// are facts, not a state (nothing decides on them).
#[derive(Debug)]
pub struct Registry;

/// The registry is written by seating's front door alone
/// ([`register_tournament`]), never through a handler.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the registry takes no commands")]
pub struct NoCommands;

impl Aggregate for Registry {
    type State = ();
    type Command = std::convert::Infallible;
    type Event = TournamentCreated;
    type Rejection = NoCommands;
    const SCHEMA: u16 = SCHEMA;

    fn decide(
        (): &(),
        command: &std::convert::Infallible,
        _: &felt_service::Seed,
    ) -> Result<Vec<TournamentCreated>, NoCommands> {
        match *command {}
    }

    fn apply((): &mut (), _: &TournamentCreated) {}

    fn event_type(_: &TournamentCreated) -> &'static str {
        "TournamentCreated"
    }
}

/// Records a tournament in the registry (once: the command id is the
/// tournament's), with the parts of its definition the clock and payout
/// take up from there.
pub async fn register_tournament<L: felt_eventlog::EventLog>(
    log: &L,
    tournament: &felt_vocabulary::TournamentId,
    name: &str,
    rules: felt_table::HouseRules,
    deal: DealMode,
    definition: Option<Definition>,
    now: i64,
) -> Result<(), LogError> {
    let event = TournamentCreated {
        tournament: tournament.clone(),
        name: name.into(),
        rules,
        deal,
        definition,
    };
    let decision = felt_eventlog::Decision {
        command_id: format!("create-{tournament}"),
        causation_id: None,
        correlation_id: None,
        recorded_at: now,
        events: vec![felt_eventlog::NewEvent::encode(
            "TournamentCreated",
            SCHEMA,
            &event,
        )?],
        trace: None,
        request: None,
        actor: None,
    };
    log.append(&registry_stream()?, felt_eventlog::Expected::Any, decision)
        .await?;
    Ok(())
}

/// Every tournament in the registry, in the order they were created.
pub async fn tournaments<L: felt_eventlog::EventLog>(
    log: &L,
) -> Result<Vec<TournamentCreated>, LogError> {
    log.read(&registry_stream()?, 1)
        .await?
        .iter()
        .map(|e| e.decode())
        .collect()
}

/// The Day 1 flights of event `t` (issue 28): the tournaments whose pay
/// structure names it, in the order they were created.
pub async fn flights_of<L: felt_eventlog::EventLog>(
    log: &L,
    t: &str,
) -> Result<Vec<felt_vocabulary::TournamentId>, LogError> {
    Ok(tournaments(log)
        .await?
        .into_iter()
        .filter(|c| {
            c.definition
                .as_ref()
                .is_some_and(|d| d.money.structure.flight_of() == Some(t))
        })
        .map(|c| c.tournament)
        .collect())
}

/// Which of a tournament's three parts the log holds. A tournament is
/// whole when all three are; logs written before creation became all or
/// nothing can hold a registered tournament whose clock or payout refused
/// its definition (or whose seating did), which the services and the
/// audit pass over, saying so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parts {
    pub seating: bool,
    pub clock: bool,
    pub payout: bool,
}

impl Parts {
    /// All three parts are there.
    pub fn whole(&self) -> bool {
        self.seating && self.clock && self.payout
    }

    /// The parts missing, e.g. "the clock and payout".
    pub fn missing(&self) -> String {
        let names: Vec<&str> = [
            (self.seating, "seating"),
            (self.clock, "the clock"),
            (self.payout, "payout"),
        ]
        .iter()
        .filter(|(there, _)| !there)
        .map(|(_, name)| *name)
        .collect();
        names.join(" and ")
    }
}

/// Which parts of tournament `tournament` the log holds.
pub async fn parts<L: felt_eventlog::EventLog>(
    log: &L,
    tournament: &str,
) -> Result<Parts, LogError> {
    Ok(Parts {
        seating: log.version(&seating_stream(tournament)?).await? > 0,
        clock: log.version(&clock_stream(tournament)?).await? > 0,
        payout: log.version(&payout_stream(tournament)?).await? > 0,
    })
}
