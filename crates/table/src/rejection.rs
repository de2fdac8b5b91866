//! Why a command was refused. Each message names the problem and, for a
//! poker ruling, the rule (TDA 2019 numbering).

use felt_cards::Card;
use felt_vocabulary::{Classified, ErrorKind};

use crate::model::{Chips, EntryId, Seat, Street};

#[derive(
    Debug, Clone, PartialEq, Eq, thiserror::Error, strum::IntoStaticStr, strum::EnumMessage,
)]
pub enum Rejection {
    #[error("the table is not open")]
    TableNotOpen,
    #[error("the table is already open")]
    TableAlreadyOpen,
    #[error("a table has 2 to 10 seats, not {seats}")]
    InvalidTableSize { seats: u8 },
    #[error("seat {seat} does not exist at a {size}-seat table")]
    NoSuchSeat { seat: Seat, size: u8 },
    #[error("seat {seat} is occupied")]
    SeatOccupied { seat: Seat },
    #[error("seat {seat} is empty")]
    SeatEmpty { seat: Seat },
    #[error("player {} is already in seat {seat}", player.0)]
    AlreadySeated { player: EntryId, seat: Seat },
    #[error("a player is seated with chips, not an empty stack")]
    EmptyStack,
    #[error(
        "seating {stack} chips would put {total} chips on the table, over the {max} a table holds"
    )]
    TooManyChips {
        stack: Chips,
        total: u128,
        max: Chips,
    },
    #[error("seat {seat} is in the current hand: players are moved between hands")]
    PlayerInHand { seat: Seat },
    #[error("hand {number} is still in progress")]
    HandInProgress { number: u64 },
    #[error("no hand is in progress")]
    NoHand,
    #[error("a hand needs two players with chips, {count} have chips")]
    NotEnoughPlayers { count: usize },
    #[error("invalid level: {reason}")]
    InvalidLevel { reason: String },
    #[error("the button cannot start at seat {seat}: it holds no player with chips")]
    InvalidButton { seat: Seat },
    #[error("seat {seat} acted out of turn: seat {to_act} is to act (TDA 53)")]
    #[strum(message = "TDA 53")]
    OutOfTurn { seat: Seat, to_act: Seat },
    #[error("the clock runs only on the player to act: seat {to_act}, not seat {seat} (TDA 29)")]
    #[strum(message = "TDA 29")]
    NotTheirTurn { seat: Seat, to_act: Seat },
    #[error("no player is to act: betting on the {street} is over")]
    NoActionPending { street: Street },
    #[error("seat {seat} cannot check facing {to_call} to call")]
    CannotCheck { seat: Seat, to_call: Chips },
    #[error("seat {seat} has nothing to call: check instead")]
    NothingToCall { seat: Seat },
    #[error("there is already a bet of {current}: raise instead")]
    BetFacingBet { current: Chips },
    #[error("there is no bet to raise: bet instead")]
    RaiseWithoutBet,
    #[error("bet of {to} is below the minimum bet of {min} (TDA 43)")]
    #[strum(message = "TDA 43")]
    BetBelowMinimum { to: Chips, min: Chips },
    #[error("raise to {to} is below the minimum raise to {min} (TDA 43)")]
    #[strum(message = "TDA 43")]
    RaiseBelowMinimum { to: Chips, min: Chips },
    #[error("raise to {to} does not exceed the bet of {current}")]
    RaiseNotAboveBet { to: Chips, current: Chips },
    #[error("seat {seat} can go to at most {max}, all in, not {to} (TDA 48)")]
    #[strum(message = "TDA 48")]
    ExceedsStack { seat: Seat, to: Chips, max: Chips },
    #[error(
        "seat {seat} may only call or fold: the betting was not reopened by a full raise (TDA 47)"
    )]
    #[strum(message = "TDA 47")]
    BettingNotReopened { seat: Seat },
    #[error("cards are entered only in a physical deal")]
    NotPhysicalDeal,
    #[error("the {street} is {expected} card(s), not {got}")]
    WrongBoardCount {
        street: Street,
        expected: usize,
        got: usize,
    },
    #[error("the board is not due: betting on the {street} is still open")]
    BoardNotDue { street: Street },
    #[error("card {card} is already in play")]
    DuplicateCard { card: Card },
    #[error("seat {seat} was dealt other cards")]
    CardsDiffer { seat: Seat },
    #[error("seat {seat}'s cards are unknown: show them by naming the cards")]
    CardsUnknown { seat: Seat },
    #[error("seat {seat} has no live hand")]
    NotLive { seat: Seat },
    #[error("hands are tabled when betting is over (TDA 16)")]
    #[strum(message = "TDA 16")]
    BettingNotOver,
    #[error("seat {seat} put out no chips and declared nothing")]
    NoChipsPushed { seat: Seat },
    #[error(
        "seat {seat} undercalled {amount} of the {to_call} to call facing a raise in a multiway pot: the floor rules whether the call is completed or the chips are forfeited with a fold (TDA 51)"
    )]
    #[strum(message = "TDA 51")]
    UndercallNeedsRuling {
        seat: Seat,
        amount: Chips,
        to_call: Chips,
    },
    #[error(
        "seat {seat}'s forfeited undercall of {amount} must be more than nothing and less than the {to_call} to call and the stack (TDA 51)"
    )]
    #[strum(message = "TDA 51")]
    InvalidForfeit {
        seat: Seat,
        amount: Chips,
        to_call: Chips,
    },
    #[error("a misdeal cannot be declared after substantial action: the hand goes on (TDA 35, 36)")]
    #[strum(message = "TDA 35, 36")]
    MisdealTooLate,
    #[error("the re-deal of a misdeal needs a new seed: the old one deals the same cards (TDA 35)")]
    #[strum(message = "TDA 35")]
    SameSeed,
    #[error("a penalty is at least one hand or one orbit")]
    InvalidPenalty,
    #[error(
        "offence {offence} is past the house scale of penalties: the director disqualifies the player at seating (TDA 71)"
    )]
    #[strum(message = "TDA 71")]
    ScaleEndsInDisqualification { offence: u32 },
    #[error(
        "seat {seat} is dealt into hand {number}: the disqualification takes effect when it ends (the floor may kill the hand first, TDA 71)"
    )]
    #[strum(message = "TDA 71")]
    DisqualifiedInHand { seat: Seat, number: u64 },
    #[error("seat {seat} is dealt into hand {number}: its chips are given up when it ends (TDA 8)")]
    #[strum(message = "TDA 8")]
    SurrenderInHand { seat: Seat, number: u64 },
    #[error(
        "seat {seat} is dealt into hand {number}: a player replaced as a no-show leaves when it ends (seed 003)"
    )]
    #[strum(message = "seed 003")]
    NoShowInHand { seat: Seat, number: u64 },
    #[error("the button is drawn once, before the table's first hand")]
    ButtonAlreadyDrawn,
    #[error("seat {seat} is not in the current hand")]
    NotInHand { seat: Seat },
    #[error("seat {seat} is to act: record its action in turn")]
    NotOutOfTurn { seat: Seat },
    #[error("seat {seat} has already acted out of turn: its action waits for its turn (TDA 53)")]
    #[strum(message = "TDA 53")]
    AlreadyActedOutOfTurn { seat: Seat },
    #[error("seat {seat} has no action to take: it is all in or out of the hand")]
    CannotAct { seat: Seat },
    #[error(
        "seat {seat} cannot muck: a player is all in and betting is over, so every live hand is tabled (TDA 16)"
    )]
    #[strum(message = "TDA 16")]
    MustTable { seat: Seat },
    #[error(
        "seat {seat}'s hand is tabled: the cards speak, it is neither mucked nor killed (TDA 12, 13)"
    )]
    #[strum(message = "TDA 12, 13")]
    HandTabled { seat: Seat },
    #[error("there is no pot {pot}: the hand has {pots} (0 is the main pot)")]
    NoSuchPot { pot: usize, pots: usize },
    #[error("pot {pot} is already awarded")]
    PotAlreadyAwarded { pot: usize },
    #[error(
        "seat {seat} is not eligible for pot {pot}: the pot goes only to {eligible:?} (TDA 21)"
    )]
    #[strum(message = "TDA 21")]
    NotEligible {
        seat: Seat,
        pot: usize,
        eligible: Vec<Seat>,
    },
    #[error(
        "pot {pot} can still grow: the floor awards a pot once betting is over, or between streets when it is the only pot (TDA 21)"
    )]
    #[strum(message = "TDA 21")]
    PotStillOpen { pot: usize },
    #[error("a pot is pushed to one or more winners, each named once")]
    InvalidWinners,
    #[error("pots are pushed at the showdown, once betting is over and the board is complete")]
    NotAtShowdown,
    #[error(
        "a digital deal's pots go by its cards: a dealer pushes pots only in a physical deal (TDA 12)"
    )]
    #[strum(message = "TDA 12")]
    DigitalCardsSpeak,
    #[error("seat {better}'s hand beats seat {winner}'s for pot {pot}: the cards speak (TDA 12)")]
    #[strum(message = "TDA 12")]
    CardsSpeak {
        pot: usize,
        winner: Seat,
        better: Seat,
    },
    #[error("the pots are being awarded: a hand is no longer killed or the deck fouled (TDA 22)")]
    #[strum(message = "TDA 22")]
    PotsBeingAwarded,
    #[error("seat {seat} declared \"check\" facing a bet: it may call or fold, not raise (TDA 55)")]
    #[strum(message = "TDA 55")]
    BoundToCallOrFold { seat: Seat },
    #[error(
        "seat {seat} pulled back the chips of its earlier bet facing a raise: it must call or raise, not fold (TDA 46)"
    )]
    #[strum(message = "TDA 46")]
    BoundToCallOrRaise { seat: Seat },
    #[error("entropy is added only to a shared deal, before its cards are dealt")]
    EntropyNotDue,
    #[error("the table's device already added its entropy to this hand")]
    EntropyAlreadyAdded,
    #[error("seat {seat} may not ask to see seat {of}'s hand: {why} (TDA 18)")]
    #[strum(message = "TDA 18")]
    CannotAskToSee { seat: Seat, of: Seat, why: String },
    #[error(
        "the table records results only: no hand is dealt or played through it; the floor records each result and count"
    )]
    ResultsOnly,
    #[error(
        "the table records every action: its hands end by play, a result is recorded only at a results-only table"
    )]
    RecordsActions,
    #[error("the table already records {recording}")]
    RecordingUnchanged { recording: &'static str },
    #[error(
        "hands were played unrecorded since the stacks were last counted: count every stack before recording actions again"
    )]
    CountBeforeRecording,
    #[error("seat {seat} holds entry {}, not entry {} (a player moved meanwhile?)", sitting.0, named.0)]
    NotInSeat {
        seat: Seat,
        named: EntryId,
        sitting: EntryId,
    },
    #[error("seat {seat} is named twice")]
    SeatNamedTwice { seat: Seat },
    #[error("a bust needs the seats that won the busted chips")]
    BustWithoutWinner,
    #[error("winners are named only with a bust: a hand with nobody out records the button alone")]
    WinnerWithoutBust,
    #[error(
        "a result entered late happened at {at} (ms since the epoch), before this table's last result entered with a time ({previous}): one table's hands happen in order"
    )]
    ResultBeforePrevious { at: i64, previous: i64 },
    #[error("seat {seat} cannot both bust and win the busted chips")]
    WinnerBusted { seat: Seat },
    #[error("seat {seat} holds a player who is not in the count: a count names every stack")]
    SeatNotCounted { seat: Seat },
    #[error("seat {seat} is counted with no chips: a player out of chips is recorded as a bust")]
    CountedEmpty { seat: Seat },
    #[error("a count's name is 1 to {max} characters, not {len}")]
    InvalidCountName { len: usize, max: usize },
    #[error("a count of {total} chips is over the {max} a table holds")]
    CountTooLarge { total: u128, max: Chips },
    #[error("{what} is 1 to {max} characters without control characters, not {len}")]
    InvalidText {
        what: &'static str,
        len: usize,
        max: usize,
    },
    #[error("hand {number} was not played at this table: {played} hands so far")]
    NoSuchHand { number: u64, played: u64 },
    #[error(
        "a pot's count may be contested only until the next hand: hand {number} is past, the table's last hand is {last} (TDA 22)"
    )]
    #[strum(message = "TDA 22")]
    PotContestTooLate { number: u64, last: u64 },
    #[error("seat {seat} already holds {stack} chips")]
    StackUnchanged { seat: Seat, stack: Chips },
    #[error(
        "a correction cannot leave seat {seat} without chips: a player is out by losing a hand, or disqualified (TDA 71)"
    )]
    #[strum(message = "TDA 71")]
    CorrectedToNothing { seat: Seat },
    #[error("a correction to {total} chips on the table is over the {max} a table holds")]
    CorrectionTooLarge { total: u128, max: Chips },
    #[error("a removal takes at least one chip")]
    NothingToRemove,
    #[error(
        "removing {amount} chips would leave seat {seat} none of its {stack}: a player is out by losing a hand, or disqualified (TDA 71)"
    )]
    #[strum(message = "TDA 71")]
    RemovalTooLarge {
        seat: Seat,
        amount: Chips,
        stack: Chips,
    },
    #[error(
        "a colour-up takes out a chip that divides the smallest chip still in play and is smaller: not {leaving} for {smallest} (TDA 24)"
    )]
    #[strum(message = "TDA 24")]
    ColourUpChips { leaving: Chips, smallest: Chips },
    #[error("every stack is already in chips of {smallest}: there is nothing to race (TDA 24)")]
    #[strum(message = "TDA 24")]
    NothingToRace { smallest: Chips },
    #[error("seat {seat} put no chips up: only a stack with odd chips races (TDA 24)")]
    #[strum(message = "TDA 24")]
    NotRacing { seat: Seat },
    #[error(
        "the race gives {expected} chips of {smallest} for the {put_up} put up, one per winner, not {named} (TDA 24)"
    )]
    #[strum(message = "TDA 24")]
    RaceWinners {
        expected: usize,
        named: usize,
        put_up: Chips,
        smallest: Chips,
    },
}

impl Classified for Rejection {
    fn kind(&self) -> ErrorKind {
        use Rejection as R;
        match self {
            R::TableNotOpen => ErrorKind::NotFound,
            R::TableAlreadyOpen => ErrorKind::AlreadyExists,
            R::InvalidTableSize { .. }
            | R::NoSuchSeat { .. }
            | R::EmptyStack
            | R::InvalidLevel { .. }
            | R::WrongBoardCount { .. }
            | R::NoChipsPushed { .. }
            | R::InvalidWinners
            | R::InvalidPenalty
            | R::SeatNamedTwice { .. }
            | R::BustWithoutWinner
            | R::WinnerWithoutBust
            | R::ResultBeforePrevious { .. }
            | R::WinnerBusted { .. }
            | R::InvalidCountName { .. }
            | R::CountTooLarge { .. }
            | R::InvalidText { .. }
            | R::NothingToRemove
            | R::ColourUpChips { .. }
            | R::CorrectionTooLarge { .. } => ErrorKind::Malformed,
            R::SeatOccupied { .. }
            | R::SeatEmpty { .. }
            | R::AlreadySeated { .. }
            | R::TooManyChips { .. }
            | R::PlayerInHand { .. }
            | R::HandInProgress { .. }
            | R::NoHand
            | R::NotEnoughPlayers { .. }
            | R::InvalidButton { .. }
            | R::OutOfTurn { .. }
            | R::NotTheirTurn { .. }
            | R::NoActionPending { .. }
            | R::CannotCheck { .. }
            | R::NothingToCall { .. }
            | R::BetFacingBet { .. }
            | R::RaiseWithoutBet
            | R::BetBelowMinimum { .. }
            | R::RaiseBelowMinimum { .. }
            | R::RaiseNotAboveBet { .. }
            | R::ExceedsStack { .. }
            | R::BettingNotReopened { .. }
            | R::NotPhysicalDeal
            | R::BoardNotDue { .. }
            | R::DuplicateCard { .. }
            | R::CardsDiffer { .. }
            | R::CardsUnknown { .. }
            | R::NotLive { .. }
            | R::BettingNotOver
            | R::UndercallNeedsRuling { .. }
            | R::InvalidForfeit { .. }
            | R::MisdealTooLate
            | R::SameSeed
            | R::NotInHand { .. }
            | R::NotOutOfTurn { .. }
            | R::AlreadyActedOutOfTurn { .. }
            | R::CannotAct { .. }
            | R::MustTable { .. }
            | R::HandTabled { .. }
            | R::NoSuchPot { .. }
            | R::PotAlreadyAwarded { .. }
            | R::NotEligible { .. }
            | R::PotStillOpen { .. }
            | R::NotAtShowdown
            | R::DigitalCardsSpeak
            | R::CardsSpeak { .. }
            | R::PotsBeingAwarded
            | R::CannotAskToSee { .. }
            | R::BoundToCallOrFold { .. }
            | R::EntropyNotDue
            | R::EntropyAlreadyAdded
            | R::BoundToCallOrRaise { .. }
            | R::ResultsOnly
            | R::RecordsActions
            | R::RecordingUnchanged { .. }
            | R::CountBeforeRecording
            | R::SeatNotCounted { .. }
            | R::CountedEmpty { .. }
            | R::NotInSeat { .. }
            | R::NoSuchHand { .. }
            | R::PotContestTooLate { .. }
            | R::StackUnchanged { .. }
            | R::CorrectedToNothing { .. }
            | R::ScaleEndsInDisqualification { .. }
            | R::DisqualifiedInHand { .. }
            | R::SurrenderInHand { .. }
            | R::NoShowInHand { .. }
            | R::ButtonAlreadyDrawn
            | R::NothingToRace { .. }
            | R::NotRacing { .. }
            | R::RaceWinners { .. }
            | R::RemovalTooLarge { .. } => ErrorKind::Refused,
        }
    }

    fn reason(&self) -> &str {
        self.into()
    }

    fn rule(&self) -> Option<&str> {
        strum::EnumMessage::get_message(self)
    }
}
