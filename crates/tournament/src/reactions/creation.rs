//! A tournament's creation: seating's front door records the tournament in
//! the registry with its whole definition, and the clock and payout each
//! take up their part as a reaction to that fact, in their own service.
//! So seating never writes the clock's or payout's stream, and a creation
//! cut short is finished by running the reactions again.

use felt_clock::ClockCommand;
use felt_vocabulary::TournamentId;

use super::Order;
use crate::aggregates::{Registry, TournamentCreated};
use crate::runner::Cause;

/// Whether a registry entry starts a reaction: one recorded with its
/// definition (older entries' parts were written by the front door).
pub fn wanted(event: &TournamentCreated) -> bool {
    event.definition.is_some()
}

/// The clock's part: its structure and settings, for the tournament named
/// in the entry (the first of the pair).
pub fn to_clock(cause: &Cause<Registry>) -> Vec<(TournamentId, Order<ClockCommand>)> {
    cause
        .events
        .iter()
        .filter_map(|e| {
            let d = e.definition.as_ref()?;
            Some((
                e.tournament.clone(),
                Order::new(
                    cause.id("configure"),
                    ClockCommand::Configure {
                        structure: d.structure.clone(),
                        settings: d.clock.clone(),
                    },
                ),
            ))
        })
        .collect()
}

/// Payout's part: the tournament's name, money and its rule for busts in
/// the same hand at different tables.
pub fn to_payout(cause: &Cause<Registry>) -> Vec<(TournamentId, Order<felt_payout::Command>)> {
    cause
        .events
        .iter()
        .filter_map(|e| {
            let d = e.definition.as_ref()?;
            Some((
                e.tournament.clone(),
                Order::new(
                    cause.id("configure"),
                    felt_payout::Command::Configure {
                        name: e.name.clone(),
                        settings: d.money.clone(),
                        busts: d.busts,
                    },
                ),
            ))
        })
        .collect()
}
