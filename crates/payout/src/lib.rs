//! A tournament's money: the prize pool, pay sheets for any field, finishing
//! places from busts, deals at the final table (ICM, chip chop, saves),
//! bounties and series rankings.
//!
//! Amounts are integer minor units of one currency ([`Money`]); every
//! split is exact to the unit and says where the odd units go. Pure: no IO,
//! no clock, no randomness.

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

mod deal;
mod decide;
mod flights;
pub mod icm;
mod places;
mod pool;
mod rankings;
mod sheet;
mod state;

pub use deal::{DealMethod, DealResult, DealTerms, deal};
pub use decide::{Command, IdDocument, IdDocumentKind, PLACED_PER_DECISION, PayoutEvent, decide};
pub use flights::{FLIGHT_PART, FlightRecord};
pub use places::{Bust, PlaceGroup, SimultaneousBusts, place, share};
pub use pool::{MoneySettings, Pool, Withholding};
pub use rankings::{EventResult, PointsTable, Standing, leaderboard};
pub use sheet::{
    Band, Curve, MAX_TARGET, PaySheet, PercentRow, PercentTable, Remainder, SatelliteTerms,
    SecondSeat, Structure,
};
pub use state::{Entry, PayoutState, Proposal};

pub use felt_vocabulary::{EntryId, Money, PlayerId};

/// The largest field payout takes (entries, and add-ons): seating's own
/// largest field (`felt_seating::MAX_ENTRIES`).
pub const MAX_FIELD: u32 = 1_000_000;

/// The largest prize pool, and the most any total of fees or bounties may
/// reach (2^53 minor units, about 90 trillion of a currency's units): every
/// amount under it is exact in the generated sheet's curve, and no sum of
/// amounts can overflow.
pub const MAX_POOL: Money = 1 << 53;

/// The most one entry's price and its add-on may cost together, so that a
/// field of [`MAX_FIELD`] stays within [`MAX_POOL`] (9,007,199,254 minor
/// units).
pub const MAX_ENTRY_PRICE: Money = MAX_POOL / MAX_FIELD as Money;

/// Whether `code` is written as an ISO 4217 currency code: three capital
/// letters ("BRL", "USD", "EUR").
pub fn valid_currency(code: &str) -> bool {
    code.len() == 3 && code.bytes().all(|b| b.is_ascii_uppercase())
}

/// At most the first 16 characters of a refused input, for its error.
pub(crate) fn prefix(text: &str) -> String {
    match text.char_indices().nth(16) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// Why a computation or a command was refused.
#[derive(
    Debug, Clone, PartialEq, Eq, thiserror::Error, strum::IntoStaticStr, strum::EnumMessage,
)]
pub enum PayoutError {
    #[error("invalid payout structure: {reason}")]
    InvalidStructure { reason: String },
    #[error("invalid pay sheet: {reason}")]
    InvalidSheet { reason: String },
    #[error("the pay sheet pays {total}, not the pool of {pool}")]
    SheetDoesNotAddUp { total: Money, pool: Money },
    #[error("the posted table covers fields up to {max} entries, not {entries}")]
    FieldTooLarge { entries: u32, max: u32 },
    #[error("a pool of {pool} cannot pay a single place of {unit}")]
    PoolTooSmall { pool: Money, unit: Money },
    #[error("there are no entries")]
    NoEntries,
    #[error("{what}: at most {max}")]
    TooMuch { what: String, max: u64 },
    #[error("no players given")]
    NoPlayers,
    #[error("ICM is computed exactly for at most {max} players, not {players}")]
    TooManyForIcm { players: usize, max: usize },
    #[error("player {index} has no chips")]
    EmptyStack { index: usize },
    #[error("a deal needs at least 2 players, not {players}")]
    DealNeedsPlayers { players: usize },
    #[error("a deal between {players} players needs {players} prizes, not {prizes}")]
    DealPrizes { players: usize, prizes: usize },
    #[error("the deal does not add up: {reason}")]
    DealDoesNotAddUp { reason: String },
    #[error("the tournament's money is not configured")]
    NotConfigured,
    #[error("the tournament's money is already configured")]
    AlreadyConfigured,
    #[error("registration is closed")]
    RegistrationClosed,
    #[error("registration is still open: busts wait for the final field")]
    RegistrationOpen,
    #[error("no busts are waiting for their places")]
    NothingWaiting,
    #[error("no busts are held for hand-for-hand round {round}")]
    NoRoundHeld { round: u64 },
    #[error(
        "entry {entry} is held for hand-for-hand round {round}: it is placed with the round (RP8)"
    )]
    #[strum(message = "TDA RP8")]
    HeldForRound { entry: EntryId, round: u64 },
    #[error("entry {entry} is already recorded")]
    DuplicateEntry { entry: EntryId },
    #[error("no entry {entry}")]
    NoSuchEntry { entry: EntryId },
    #[error("entry {entry} is already out")]
    EntryBusted { entry: EntryId },
    #[error("this tournament has no add-ons")]
    NoAddOns,
    #[error("this tournament sells no rebuys (rule 27)")]
    NoRebuys,
    #[error("entry {entry} has no prize to pay: not placed in the money")]
    NoPrize { entry: EntryId },
    #[error(
        "entry {entry}'s prize is a seat: its ticket is redeemed at the target's registration, not paid in cash"
    )]
    PrizeIsTicket { entry: EntryId },
    #[error("entry {entry} holds no ticket to cash")]
    NoTicket { entry: EntryId },
    #[error(
        "entry {entry}'s ticket stays a ticket: this satellite's house gives a second seat as another ticket"
    )]
    SecondSeatIsTicket { entry: EntryId },
    #[error("the house makes no deals in this satellite")]
    DealsRefused,
    #[error("flights cannot be recorded here: {reason}")]
    FlightsRefused { reason: String },
    #[error("this tournament is not a satellite: it pays no seats")]
    NotASatellite,
    #[error("{left} players are left for {seats} seats: play goes on")]
    SeatsNotWon { left: u32, seats: u32 },
    #[error("entry {entry}'s prize is already paid")]
    PrizeAlreadyPaid { entry: EntryId },
    #[error("{reason}")]
    InvalidCage { reason: String },
    #[error(
        "an add-on now would change the prizes of places already paid: the pool grows only before anyone is placed in the money"
    )]
    AddOnAfterMoney,
    #[error("an add-on now would pay {now} places instead of the {before} already set")]
    AddOnChangesPlaces { before: u32, now: u32 },
    #[error("no busts given")]
    NoBusts,
    #[error("{remaining} players remain: at least one must keep chips")]
    EveryoneBusted { remaining: u32 },
    #[error("the busts of one hand carry their number in the order players went out, all or none")]
    MixedBustOrder,
    #[error("entry {entry} is number {out} out of a field of {field}: no place is left for it")]
    OutOfField {
        entry: EntryId,
        out: u32,
        field: u32,
    },
    #[error("place {place} is entry {holder}'s already: entry {entry} cannot finish there")]
    PlaceTaken {
        place: u32,
        holder: EntryId,
        entry: EntryId,
    },
    #[error("a deal is made after registration closes")]
    DealBeforeClose,
    #[error("a deal is already proposed: consent to it or withdraw it first")]
    DealPending,
    #[error("a deal is between all {remaining} players left, each once")]
    DealParties { remaining: usize },
    #[error("no deal is proposed")]
    NoDeal,
    #[error("entry {entry} is not a party to the deal")]
    NotInDeal { entry: EntryId },
    #[error("entry {entry} has already agreed to the deal")]
    AlreadyConsented { entry: EntryId },
}

impl felt_vocabulary::Classified for PayoutError {
    fn kind(&self) -> felt_vocabulary::ErrorKind {
        use PayoutError as P;
        use felt_vocabulary::ErrorKind;
        match self {
            P::NotConfigured | P::NoSuchEntry { .. } => ErrorKind::NotFound,
            P::AlreadyConfigured | P::PrizeAlreadyPaid { .. } => ErrorKind::AlreadyExists,
            P::InvalidStructure { .. }
            | P::InvalidSheet { .. }
            | P::NoPlayers
            | P::TooManyForIcm { .. }
            | P::EmptyStack { .. }
            | P::DealNeedsPlayers { .. }
            | P::DealDoesNotAddUp { .. }
            | P::InvalidCage { .. } => ErrorKind::Malformed,
            P::SheetDoesNotAddUp { .. }
            | P::FieldTooLarge { .. }
            | P::PoolTooSmall { .. }
            | P::NoEntries
            | P::TooMuch { .. }
            | P::DealPrizes { .. }
            | P::RegistrationClosed
            | P::RegistrationOpen
            | P::NothingWaiting
            | P::NoRoundHeld { .. }
            | P::HeldForRound { .. }
            | P::DuplicateEntry { .. }
            | P::EntryBusted { .. }
            | P::NoAddOns
            | P::NoRebuys
            | P::NoPrize { .. }
            | P::PrizeIsTicket { .. }
            | P::NoTicket { .. }
            | P::SecondSeatIsTicket { .. }
            | P::DealsRefused
            | P::NotASatellite
            | P::FlightsRefused { .. }
            | P::SeatsNotWon { .. }
            | P::AddOnAfterMoney
            | P::AddOnChangesPlaces { .. }
            | P::NoBusts
            | P::EveryoneBusted { .. }
            | P::MixedBustOrder
            | P::OutOfField { .. }
            | P::PlaceTaken { .. }
            | P::DealBeforeClose
            | P::DealPending
            | P::DealParties { .. }
            | P::NoDeal
            | P::NotInDeal { .. }
            | P::AlreadyConsented { .. } => ErrorKind::Refused,
        }
    }

    fn reason(&self) -> &str {
        self.into()
    }

    fn rule(&self) -> Option<&str> {
        strum::EnumMessage::get_message(self)
    }
}
