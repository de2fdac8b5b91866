//! The table engine: one no-limit hold'em tournament table as a pure decider.
//!
//! ```text
//! decide(&TableState, &Command) -> Result<Vec<TableEvent>, Rejection>
//! evolve(TableState, &TableEvent) -> TableState
//! ```
//!
//! No IO, no clock, no randomness but the deck seed a `StartHand` command
//! carries. Every rule the engine applies is a TDA 2019 rule (numbers in the
//! rejections), with house rules where rule books differ.

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

mod audit;
mod chips;
mod decide;
mod model;
mod race;
mod rejection;
mod state;

pub use audit::{AwardError, DealError, check_awards, check_deals};
pub use decide::{decide, eliminators, execute};
pub use model::*;
pub use race::chip_race;
pub use rejection::Rejection;
pub use state::{HandState, InHand, Options, Phase, Pot, SeatState, TableState, evolve};

/// Folds events from the empty state.
pub fn replay<'a>(events: impl IntoIterator<Item = &'a TableEvent>) -> TableState {
    events.into_iter().fold(TableState::default(), evolve)
}
