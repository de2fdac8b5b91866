//! Entries in and out before the pool is fixed: what seating registers,
//! promotes and unregisters, payout records as paid in or refunds; and the
//! start of play at seating starts the clock.
//!
//! Each is a reaction to seating's decision, so a crash just after seating
//! recorded an entry is finished by running the reactions again, never by
//! a caller who has to know to register again.

use felt_clock::ClockCommand;
use felt_seating::{EntryId, SeatingEvent};

use super::Order;
use crate::aggregates::Seating;
use crate::runner::Cause;

/// Whether a seating event changes who has paid in, or starts play.
pub fn wanted(event: &SeatingEvent) -> bool {
    matches!(
        event,
        SeatingEvent::Registered { .. }
            | SeatingEvent::Unregistered { .. }
            | SeatingEvent::AlternatePromoted { .. }
            | SeatingEvent::Started { .. }
            | SeatingEvent::NoShowReplaced { .. }
            | SeatingEvent::AddOnSold { .. }
            | SeatingEvent::RebuySold { .. }
    )
}

/// Seating's decision took entries in or let them go: payout refunds each
/// entry that leaves having paid in (an alternate had not), then records
/// every entry that paid in with this decision (a registration that is not
/// an alternate's, an alternate promoted), in one command; an add-on sold
/// puts its price in the pool (`add-on-{entry}`), and so does each rebuy
/// (`rebuy-{entry}-{number}`).
pub fn to_payout(cause: &Cause<Seating>) -> Vec<Order<felt_payout::Command>> {
    let mut orders = Vec::new();
    let mut paid_in: Vec<(EntryId, felt_vocabulary::PlayerId)> = Vec::new();
    for e in &cause.events {
        match e {
            SeatingEvent::Unregistered {
                entry,
                alternate: false,
                ..
            } => orders.push(Order::new(
                cause.id(&format!("refund-{entry}")),
                felt_payout::Command::RemoveEntry { entry: *entry },
            )),
            // A player who never arrived is refunded: their place went to
            // an alternate (seed 003).
            SeatingEvent::NoShowReplaced { entry, .. } => orders.push(Order::new(
                cause.id(&format!("refund-{entry}")),
                felt_payout::Command::RemoveEntry { entry: *entry },
            )),
            SeatingEvent::Registered {
                entry,
                player,
                alternate: false,
                ..
            } => paid_in.push((*entry, player.clone())),
            SeatingEvent::AddOnSold { entry, .. } => orders.push(Order::new(
                cause.id(&format!("add-on-{entry}")),
                felt_payout::Command::RecordAddOn { entry: *entry },
            )),
            SeatingEvent::RebuySold { entry, number, .. } => orders.push(Order::new(
                cause.id(&format!("rebuy-{entry}-{number}")),
                felt_payout::Command::RecordRebuy { entry: *entry },
            )),
            SeatingEvent::AlternatePromoted { entry } => {
                // (Registered before it was promoted, so seating knows it.)
                if let Some(info) = cause.state.entries().get(entry) {
                    paid_in.push((*entry, info.player.clone()));
                }
            }
            _ => {}
        }
    }
    if !paid_in.is_empty() {
        orders.push(Order::new(
            cause.id("entries"),
            felt_payout::Command::RecordEntries { entries: paid_in },
        ));
    }
    orders
}

/// Seating started play: the clock starts when seating did; an event fed
/// by flights, on the day and at the level and time left its flights' day
/// ended with (issue 28).
pub fn clock_starts(cause: &Cause<Seating>) -> Option<Order<ClockCommand>> {
    let at = cause.recorded_at;
    cause
        .events
        .iter()
        .any(|e| matches!(e, SeatingEvent::Started { .. }))
        .then(|| {
            let command = match cause.state.flights_resume() {
                Some(r) => ClockCommand::StartFrom {
                    at,
                    day: r.day,
                    level: r.level,
                    remaining: r.remaining_ms,
                },
                None => ClockCommand::Start { at },
            };
            Order::new(cause.id("start-clock"), command)
        })
}
