//! The tournament clock: blind structures (presets, files, validation),
//! levels and breaks, pauses and time adjustments, hand-for-hand (RP8)
//! with a fixed deduction per hand, the end of a day after a drawn number
//! of hands (seed 002), and the action clock with time-bank cards.
//!
//! Pure: time is an input of every command; the decider never reads a
//! clock.

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

mod action;
mod clock;
mod decide;
mod structure;

pub use action::{ActionClock, TimeoutAction, Verdict};
pub use clock::{
    ClockCommand, ClockEvent, ClockSettings, ClockState, ClockView, DayEnd, DayEndCard, DayEndRule,
    Millis, ResumeAt, Status, card_from, rule_77_stop,
};
pub use decide::decide;
pub use felt_vocabulary::{EntryId, TableNo};
pub use structure::{BreakSpec, LevelSpec, Period, Structure};

#[derive(
    Debug, Clone, PartialEq, Eq, thiserror::Error, strum::IntoStaticStr, strum::EnumMessage,
)]
pub enum ClockError {
    #[error("invalid structure: {what}: {reason}")]
    InvalidStructure { what: String, reason: String },
    #[error("cannot read the structure: {reason}")]
    Parse { reason: String },
    #[error("no preset structure {name:?} (bhpoker, main-event, turbo)")]
    NoSuchPreset { name: String },
    #[error("invalid clock setting: {reason}")]
    InvalidSetting { reason: String },
    #[error("the clock is not configured")]
    NotConfigured,
    #[error("the clock is already configured")]
    AlreadyConfigured,
    #[error("cannot {command}: the clock is {status}")]
    WrongState { command: String, status: String },
    #[error("time went back: {at} is before the clock's last event at {last}")]
    TimeWentBack { at: Millis, last: Millis },
    #[error("{remaining} ms is not a time left in a period of {period} ms")]
    InvalidRemaining { remaining: Millis, period: Millis },
    #[error("there is no level {level}: the structure has {levels}")]
    NoSuchLevel { level: u32, levels: u32 },
    #[error("days are numbered from 1, not {day}")]
    InvalidDay { day: u32 },
    #[error("hand-for-hand needs at least one table")]
    NoTables,
    #[error("table {table} is not playing hand-for-hand")]
    NotInHandForHand { table: TableNo },
    #[error("table {table} already finished hand-for-hand hand {round}")]
    TableAlreadyFinished { table: TableNo, round: u64 },
    #[error("hand-for-hand hand {round} is still being played at {waiting} tables")]
    HandForHandRoundOpen { round: u64, waiting: usize },
    #[error("the end-of-day draw is a card from 2 to 5, not {hands} (seed 002, 77)")]
    #[strum(message = "seed 002, 77")]
    InvalidDraw { hands: u8 },
    #[error("player {player} cannot use {cards} time-bank cards: {have} left")]
    NoTimeBank {
        player: EntryId,
        cards: u8,
        have: u32,
    },
    #[error("the clock has not started")]
    NotStarted,
    #[error("the day's play is over")]
    DayOver,
    #[error("play is over: the clock stopped for good at the tournament's end")]
    Finished,
    #[error("on a break: no hand starts for {remaining} ms")]
    OnBreak { remaining: Millis },
    #[error(
        "the {leaving} chip is not the smallest in play ({in_play}): a colour-up removes the smallest (TDA 25)"
    )]
    #[strum(message = "TDA 25")]
    NotTheSmallestChip {
        leaving: felt_vocabulary::Chips,
        in_play: felt_vocabulary::Chips,
    },
    #[error("the {smallest} chip cannot be the smallest in play: {reason} (TDA 25)")]
    #[strum(message = "TDA 25")]
    ColourUpChip {
        smallest: felt_vocabulary::Chips,
        reason: String,
    },
}

impl felt_vocabulary::Classified for ClockError {
    fn kind(&self) -> felt_vocabulary::ErrorKind {
        use ClockError as C;
        use felt_vocabulary::ErrorKind;
        match self {
            C::NotConfigured => ErrorKind::NotFound,
            C::AlreadyConfigured => ErrorKind::AlreadyExists,
            C::InvalidStructure { .. }
            | C::Parse { .. }
            | C::NoSuchPreset { .. }
            | C::InvalidSetting { .. }
            | C::InvalidRemaining { .. }
            | C::NoSuchLevel { .. }
            | C::InvalidDay { .. }
            | C::NoTables
            | C::InvalidDraw { .. }
            | C::ColourUpChip { .. } => ErrorKind::Malformed,
            C::WrongState { .. }
            | C::TimeWentBack { .. }
            | C::NotInHandForHand { .. }
            | C::TableAlreadyFinished { .. }
            | C::HandForHandRoundOpen { .. }
            | C::NoTimeBank { .. }
            | C::NotStarted
            | C::DayOver
            | C::Finished
            | C::OnBreak { .. }
            | C::NotTheSmallestChip { .. } => ErrorKind::Refused,
        }
    }

    fn reason(&self) -> &str {
        self.into()
    }

    fn rule(&self) -> Option<&str> {
        strum::EnumMessage::get_message(self)
    }
}
