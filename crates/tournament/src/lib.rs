//! A tournament across the four services: the clock, seating and payout
//! aggregates in the log ([`aggregates`]), the [`Conductor`] that carries
//! each service's decisions to the others, and seeded [`bot`]s.
//!
//! Not a domain crate: the conductor does IO (through the services'
//! handlers). It reads no clock and draws no randomness: times are handed
//! in, and seating's handler draws each decision's seed from the source
//! it is handed ([`Conductor::with_draws`]).

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

pub mod aggregates;
pub mod bot;
mod conductor;
pub mod follow;
pub mod reactions;
pub mod runner;
pub mod timing;

pub use conductor::{
    Begin, CARRIER, CLOCK_REACTIONS, ClockService, Conductor, DealMode, HandSummary, Hosts,
    NextTurn, PAYOUT_REACTIONS, RACE_SEEDS, REACTIONS, REGISTRY_REACTIONS, Refusal, Remote,
    RemoteError, Sent, TableService, TournamentError, TournamentSpec, Turn, draws_from_ids,
};
pub use felt_service::Draws;
