//! Seating: a tournament's entries (registration, late registration,
//! re-entries, alternates) and its room (random seats, tables opened as
//! the field grows, broken by a set order, balanced by the TDA rules,
//! redrawn at set counts and for the final table, hand-for-hand near the
//! money), as a pure decider.
//!
//! Moves are two-phase facts: `MoveStarted` holds both seats until
//! `MoveCompleted`, so a player is never lost or seated twice whatever
//! crashes between the table calls. Randomness is handed in as seeds.

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

mod bags;
mod decide;
mod flights;
mod model;
mod order;
mod state;

pub use bags::{Bag, BagState, BagWitness, Bags};
pub use decide::{decide, gate};
pub use model::{
    AddOnTerms, AdvancedStack, Balance, BreakOrder, Chips, DayResume, Disqualification,
    Elimination, EntryId, FLIGHT_ENTRIES, FlightBag, FlightEntries, FlightStacks, LateGroup, Move,
    MoveReason, Payment, PaymentMethod, PlayerId, Purchase, RebuyCondition, RebuyTerms, Seat,
    SeatReason, SeatingCommand, SeatingEvent, Seed, Settings, TableNo, Ticket, UnplayedRefund,
    redraws_for_field,
};
pub use state::{
    EntryInfo, EntryStatus, LastHands, LateEntries, MAX_SEATS, MoveRecord, Offers, Room,
    SeatingState, Table,
};

/// The largest field a tournament takes: entries with chips, re-entries
/// included (a cap, when set, is at most this). With it, every count of a
/// tournament's chips and money is bounded before play begins.
pub const MAX_ENTRIES: u32 = 1_000_000;

/// The most chips a tournament may ever have in play: its starting stack
/// times its largest field is at most this, so no table, pot or count of
/// chips can overflow (the one bound, the table engine's too).
pub use felt_vocabulary::MAX_CHIPS;

#[derive(
    Debug, Clone, PartialEq, Eq, thiserror::Error, strum::IntoStaticStr, strum::EnumMessage,
)]
pub enum SeatingError {
    #[error("invalid seating settings: {reason}")]
    InvalidSettings { reason: String },
    #[error("the tournament does not exist")]
    NotCreated,
    #[error("the tournament already exists")]
    AlreadyCreated,
    #[error("a registration needs a player")]
    NoPlayer,
    #[error("registration is closed")]
    RegistrationClosed,
    #[error("the field is full: a tournament takes at most {max} entries")]
    FieldFull { max: u32 },
    #[error("late registration ended after level {last}; the clock is at level {level}")]
    LateRegistrationOver { level: u32, last: u32 },
    #[error("player {player} is already registered (entry {entry})")]
    AlreadyRegistered { player: PlayerId, entry: EntryId },
    #[error("ticket {reference} is {holder}'s, not {player}'s")]
    TicketNotTheirs {
        reference: String,
        holder: PlayerId,
        player: PlayerId,
    },
    #[error("the satellite's seats are already set ({seats})")]
    SeatsAlreadySet { seats: u32 },
    #[error("this tournament is not an event fed by flights")]
    NotAnEvent,
    #[error("the flights have already advanced to this event")]
    FlightsAlreadyAdvanced,
    #[error("flight {flight}'s bag of entry {entry}: {reason}")]
    InvalidFlightBag {
        flight: u32,
        entry: EntryId,
        reason: String,
    },
    #[error(
        "the event's day cannot resume on day {day} at level {level} with {remaining_ms} ms left: {reason}"
    )]
    InvalidResume {
        day: u32,
        level: u32,
        remaining_ms: i64,
        reason: String,
    },
    #[error(
        "ticket {reference} was {player}'s second seat in this event (after {held}): its satellite's house pays it in cash, and it buys no entry"
    )]
    TicketVoid {
        reference: String,
        player: PlayerId,
        held: String,
    },
    #[error("ticket {reference} is already in this event's ledger of seats won")]
    TicketKnown { reference: String },
    #[error("ticket {reference} is already redeemed (entry {entry})")]
    TicketRedeemed { reference: String, entry: EntryId },
    #[error("player {player} has used the {limit} re-entries allowed")]
    ReEntryLimit { player: PlayerId, limit: u32 },
    #[error("no entry {entry} in the field")]
    NoSuchEntry { entry: EntryId },
    #[error("entry {entry} is already playing: unregistering is before play starts")]
    AlreadyPlaying { entry: EntryId },
    #[error("play has already started")]
    AlreadyStarted,
    #[error("play has not started")]
    NotStarted,
    #[error("play needs at least 2 players, {players} registered")]
    TooFewPlayers { players: u32 },
    #[error("no table {table}")]
    NoSuchTable { table: TableNo },
    #[error("table {table} has no seat {seat}")]
    NoSuchSeat { table: TableNo, seat: Seat },
    #[error("no hand was begun at table {table}")]
    NoHand { table: TableNo },
    #[error("entry {entry} is not seated at table {table}")]
    NotAtTable { entry: EntryId, table: TableNo },
    #[error("at least one player must keep chips")]
    EveryoneBusted,
    #[error("table {table} must wait: {reason}")]
    MustWait { table: TableNo, reason: String },
    #[error("entry {entry} has no seat waiting to be confirmed")]
    NothingToConfirm { entry: EntryId },
    #[error("no move {id} in progress")]
    NoSuchMove { id: u64 },
    #[error(
        "the places paid are already set ({paid}): payout fixes them once, when registration closes"
    )]
    PaidAlreadySet { paid: u32 },
    #[error("hand-for-hand: {reason} (TDA RP8)")]
    #[strum(message = "TDA RP8")]
    HandForHand { reason: String },
    #[error("table {table} is already held: {reason}")]
    AlreadyHeld { table: TableNo, reason: String },
    #[error("table {table} is not held")]
    NotHeld { table: TableNo },
    #[error("a hold needs the floor's reason")]
    NoReason,
    #[error("entry {entry} is not playing: only a player in the field is disqualified")]
    NotPlaying { entry: EntryId },
    #[error("entry {entry} is being moved or seated: ask again once they sit at their table")]
    NotSettled { entry: EntryId },
    #[error("entry {entry} was not disqualified, or has left the table already")]
    NoRemoval { entry: EntryId },
    #[error(
        "player {player} holds a live entry: a re-entry by giving up its chips is not this house's rule (TDA 8)"
    )]
    #[strum(message = "TDA 8")]
    SurrenderNotAllowed { player: PlayerId },
    #[error("player {player} holds no live entry to give up")]
    NothingToSurrender { player: PlayerId },
    #[error("player {player} was disqualified from this tournament: no new entry (TDA 71)")]
    #[strum(message = "TDA 71")]
    PlayerDisqualified { player: PlayerId },
    #[error("entry {entry} is {} accommodated already", if *accommodated { "" } else { "not" })]
    AlreadyAccommodated { entry: EntryId, accommodated: bool },
    #[error("{waiting} alternates are waiting, not {count}")]
    NoAlternates { count: u32, waiting: u32 },
    #[error("table {table} seat {seat} is taken: a player moves to a free seat")]
    SeatTaken { table: TableNo, seat: Seat },
    #[error("entry {entry} already sits at table {table} seat {seat}")]
    AlreadyThere {
        entry: EntryId,
        table: TableNo,
        seat: Seat,
    },
    #[error("the late entries are open already: {reason}")]
    LateEntriesOpen { reason: String },
    #[error("the late entries are not open")]
    NoLateEntries,
    #[error(
        "this house has no late-arrival rule: an absent player is dealt in and blinded until they arrive (TDA 30)"
    )]
    #[strum(message = "seed 003")]
    NoLateArrivalRule,
    #[error(
        "the late-arrival tolerance is {minutes} minutes of play; {played} have been played (seed 003)"
    )]
    #[strum(message = "seed 003")]
    ToleranceRunning { minutes: u32, played: u64 },
    #[error(
        "entry {entry} called ahead to say they will be late: they sit out until they arrive (seed 003)"
    )]
    #[strum(message = "seed 003")]
    ArrivalAnnounced { entry: EntryId },
    #[error(
        "the late entries are open: a player is {what} as it happens, after the facts entered late; close them first"
    )]
    WaitForLateEntries { what: &'static str },
    #[error("this tournament sells no add-on")]
    NoAddOn,
    #[error(
        "the add-on is sold through the break after level {last}; the clock is at level {level}"
    )]
    AddOnWindowClosed { level: u32, last: u32 },
    #[error("entry {entry} has bought the add-on: one per entry")]
    AddOnBought { entry: EntryId },
    #[error("table {table} is playing a hand: the add-on is sold between hands")]
    AddOnInHand { table: TableNo },
    #[error("entry {entry} has no add-on on its way to the table")]
    NoAddOnPending { entry: EntryId },
    #[error(
        "{left} players are left and {paid} places paid: the money is reached and the pool no longer grows, so no add-on is sold"
    )]
    AddOnInTheMoney { left: u32, paid: u32 },
    #[error("{reason}")]
    InvalidPayment { reason: String },
    #[error("{what} is at most {max} characters, none a control character (it has {len})")]
    InvalidText {
        what: &'static str,
        len: usize,
        max: usize,
    },
    #[error("the tournament was cancelled: {reason}")]
    Cancelled { reason: String },
    #[error(
        "play has started: a tournament is cancelled before it, every entry refunded; after it the director ends it by a deal"
    )]
    CancelAfterStart,
    #[error("this tournament sells no rebuys (rule 27)")]
    #[strum(message = "rule 27")]
    NoRebuys,
    #[error(
        "rebuys are sold through the break after level {last}; the clock is at level {level} (rule 27)"
    )]
    #[strum(message = "rule 27")]
    RebuyWindowClosed { level: u32, last: u32 },
    #[error("entry {entry} has bought its {limit} rebuy(s): the limit per entry (rule 27)")]
    #[strum(message = "rule 27")]
    RebuyLimit { entry: EntryId, limit: u32 },
    #[error(
        "entry {entry} has {stack} chips, more than the starting stack of {starting}: a rebuy is sold at or below it (rule 27)"
    )]
    #[strum(message = "rule 27")]
    RebuyAboveStart {
        entry: EntryId,
        stack: Chips,
        starting: Chips,
    },
    #[error("entry {entry}'s last rebuy is still on its way to the table: one at a time")]
    RebuyOnItsWay { entry: EntryId },
    #[error(
        "table {table} has played a hand since the stack was read (hand {read}, now {now}): read it again"
    )]
    RebuyStackStale { table: TableNo, read: u64, now: u64 },
    #[error("table {table} is playing a hand: a rebuy is sold between hands (rule 27)")]
    #[strum(message = "rule 27")]
    RebuyInHand { table: TableNo },
    #[error("entry {entry} has no rebuy on its way to the table")]
    NoRebuyPending { entry: EntryId },
    #[error(
        "{left} players are left and {paid} places paid: the money is reached and the pool no longer grows, so no rebuy is sold"
    )]
    RebuyInTheMoney { left: u32, paid: u32 },
    #[error(
        "entry {entry} has no rebuy offer to answer: one is offered when a player busts while rebuys are sold (rule 27)"
    )]
    #[strum(message = "rule 27")]
    NoRebuyOffer { entry: EntryId },
    #[error(
        "entry {entry} has chips: this house sells a rebuy only to a player who busted (rule 27)"
    )]
    #[strum(message = "rule 27")]
    RebuyOnlyWhenBusted { entry: EntryId },
    #[error("rebuys are already closed")]
    RebuysAlreadyClosed,
    #[error(
        "a card from two to five says how many more hands each table plays (none: at a last level's end), not {hands} (rule 77)"
    )]
    #[strum(message = "rule 77")]
    InvalidLastHands { hands: u8 },
    #[error("the day's last hands are already drawn: {hands} (rule 77)")]
    #[strum(message = "rule 77")]
    LastHandsAlreadyDrawn { hands: u8 },
    #[error("no day has ended: the tables are dealing")]
    NoDayEnded,
    #[error("the stacks are bagged once the day is over (rule 77): the tables are still playing")]
    #[strum(message = "rule 77")]
    DayNotOver,
    #[error("the bags are already sealed")]
    BagsAlreadySealed,
    #[error(
        "table {table} records results only and its stacks are not counted since its last result: the floor counts them before they are bagged"
    )]
    StacksUncounted { table: TableNo },
    #[error("the {open} bags are not sealed: the next day starts from them")]
    BagsNotSealed { open: usize },
    #[error("entry {entry} is not in play: no bag is theirs")]
    NotInPlay { entry: EntryId },
    #[error(
        "entry {entry} is still moving to a new seat: the stacks are bagged once every move is done"
    )]
    StillMoving { entry: EntryId },
    #[error("entry {entry}'s count is empty: a player in play has chips")]
    EmptyBag { entry: EntryId },
    #[error("entry {entry} is counted twice")]
    CountedTwice { entry: EntryId },
    #[error("entry {entry} is in play but not counted: every survivor's stack is bagged")]
    NotCounted { entry: EntryId },
    #[error("no stacks are bagged yet")]
    NoBags,
    #[error("entry {entry} has no bag")]
    NoBag { entry: EntryId },
    #[error(
        "{open} bags are not yet confirmed by their player and a staff member (entry {entry}'s first): no bag is sealed before"
    )]
    BagsUnconfirmed { entry: EntryId, open: usize },
}

impl felt_vocabulary::Classified for SeatingError {
    fn kind(&self) -> felt_vocabulary::ErrorKind {
        use SeatingError as S;
        use felt_vocabulary::ErrorKind;
        match self {
            S::NotCreated
            | S::NoSuchEntry { .. }
            | S::NoSuchTable { .. }
            | S::NoSuchMove { .. } => ErrorKind::NotFound,
            S::AlreadyCreated | S::TicketKnown { .. } => ErrorKind::AlreadyExists,
            S::InvalidSettings { .. }
            | S::NoPlayer
            | S::NoSuchSeat { .. }
            | S::NoReason
            | S::InvalidPayment { .. }
            | S::InvalidText { .. } => ErrorKind::Malformed,
            S::NoRemoval { .. } => ErrorKind::NotFound,
            S::RegistrationClosed
            | S::FieldFull { .. }
            | S::LateRegistrationOver { .. }
            | S::AlreadyRegistered { .. }
            | S::TicketNotTheirs { .. }
            | S::TicketVoid { .. }
            | S::TicketRedeemed { .. }
            | S::SeatsAlreadySet { .. }
            | S::NotAnEvent
            | S::FlightsAlreadyAdvanced
            | S::InvalidFlightBag { .. }
            | S::InvalidResume { .. }
            | S::ReEntryLimit { .. }
            | S::AlreadyPlaying { .. }
            | S::AlreadyStarted
            | S::NotStarted
            | S::TooFewPlayers { .. }
            | S::NoHand { .. }
            | S::NotAtTable { .. }
            | S::EveryoneBusted
            | S::MustWait { .. }
            | S::NothingToConfirm { .. }
            | S::PaidAlreadySet { .. }
            | S::HandForHand { .. }
            | S::AlreadyHeld { .. }
            | S::NotHeld { .. }
            | S::NotPlaying { .. }
            | S::NotSettled { .. }
            | S::SeatTaken { .. }
            | S::AlreadyThere { .. }
            | S::NoAlternates { .. }
            | S::SurrenderNotAllowed { .. }
            | S::PlayerDisqualified { .. }
            | S::AlreadyAccommodated { .. }
            | S::NothingToSurrender { .. }
            | S::LateEntriesOpen { .. }
            | S::NoLateEntries
            | S::NoLateArrivalRule
            | S::ToleranceRunning { .. }
            | S::ArrivalAnnounced { .. }
            | S::WaitForLateEntries { .. }
            | S::NoAddOn
            | S::AddOnWindowClosed { .. }
            | S::AddOnBought { .. }
            | S::AddOnInHand { .. }
            | S::NoAddOnPending { .. }
            | S::AddOnInTheMoney { .. }
            | S::NoRebuys
            | S::Cancelled { .. }
            | S::CancelAfterStart
            | S::RebuyWindowClosed { .. }
            | S::RebuyLimit { .. }
            | S::RebuyAboveStart { .. }
            | S::RebuyOnItsWay { .. }
            | S::RebuyInHand { .. }
            | S::NoRebuyPending { .. }
            | S::RebuyInTheMoney { .. }
            | S::NoRebuyOffer { .. }
            | S::RebuyOnlyWhenBusted { .. }
            | S::RebuysAlreadyClosed
            | S::InvalidLastHands { .. }
            | S::LastHandsAlreadyDrawn { .. }
            | S::NoDayEnded
            | S::DayNotOver
            | S::BagsAlreadySealed
            | S::BagsNotSealed { .. }
            | S::StacksUncounted { .. }
            | S::NotInPlay { .. }
            | S::NotCounted { .. }
            | S::BagsUnconfirmed { .. }
            | S::StillMoving { .. } => ErrorKind::Refused,
            S::EmptyBag { .. } | S::CountedTwice { .. } => ErrorKind::Malformed,
            S::NoBags | S::NoBag { .. } => ErrorKind::NotFound,
            S::RebuyStackStale { .. } => ErrorKind::Conflict,
        }
    }

    fn reason(&self) -> &str {
        self.into()
    }

    fn rule(&self) -> Option<&str> {
        strum::EnumMessage::get_message(self)
    }
}
