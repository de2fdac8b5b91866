//! Registration's close, a chain of three services: the clock's level past
//! late registration closes it at seating ([`level_closes`]); seating's
//! close fixes payout's pool and pay sheet ([`to_payout`]); payout's close
//! places the busts that waited for it ([`place_waiting`]) and gives seating
//! the places paid ([`paid`]), which may bring on the final table's draw.
//!
//! Each step is a fact in its service's stream, so a crash between two is
//! finished by running the reactions to the last again.

use felt_clock::ClockEvent;
use felt_payout::{PLACED_PER_DECISION, PayoutEvent};
use felt_seating::{SeatingCommand, SeatingEvent, SeatingState};

use super::Order;
use crate::aggregates::{Clock, Payout, Seating};
use crate::runner::Cause;

/// Whether a clock event may start a level past late registration.
pub fn wanted_clock(event: &ClockEvent) -> bool {
    matches!(
        event,
        ClockEvent::Started { .. }
            | ClockEvent::PeriodStarted { .. }
            | ClockEvent::JumpedToLevel { .. }
    )
}

/// Whether a payout event starts a reaction: its close.
pub fn wanted_payout(event: &PayoutEvent) -> bool {
    matches!(event, PayoutEvent::RegistrationClosed { .. })
}

/// The clock's start or a new level: registration closes at seating if the
/// level is past late registration's last (at the start itself when there
/// is no late registration). `seating` is as it is now: once closed, the
/// clock's later levels close nothing.
pub fn level_closes(cause: &Cause<Clock>, seating: &SeatingState) -> Option<Order<SeatingCommand>> {
    let last = seating.settings()?.late_registration_level;
    let level = cause.state.level_number_at(cause.recorded_at);
    (cause.events.iter().any(wanted_clock)
        && seating.started()
        && !seating.registration_closed()
        && level > last)
        .then(|| {
            Order::new(
                cause.id("close-registration"),
                SeatingCommand::CloseRegistration,
            )
        })
}

/// The clock's start or a new level past the rebuys' last (rule 27):
/// rebuys close at seating, and a player busting from then on is out at
/// once. `seating` is as it is now.
pub fn rebuys_close(cause: &Cause<Clock>, seating: &SeatingState) -> Option<Order<SeatingCommand>> {
    let last = seating.settings()?.rebuy?.last_level;
    let level = cause.state.level_number_at(cause.recorded_at);
    (cause.events.iter().any(wanted_clock)
        && seating.started()
        && !seating.rebuys_closed()
        && level > last)
        .then(|| Order::new(cause.id("close-rebuys"), SeatingCommand::CloseRebuys))
}

/// Seating's registration closed: payout fixes the prize pool and the pay
/// sheet from the entries it has.
pub fn to_payout(cause: &Cause<Seating>) -> Option<Order<felt_payout::Command>> {
    cause
        .events
        .iter()
        .any(|e| matches!(e, SeatingEvent::RegistrationClosed))
        .then(|| {
            Order::new(
                cause.id("close-registration"),
                felt_payout::Command::CloseRegistration,
            )
        })
}

/// Payout's close placed the first [`PLACED_PER_DECISION`] groups of the
/// busts that waited for it: the rest, as many decisions as they take.
pub fn place_waiting(cause: &Cause<Payout>) -> Vec<Order<felt_payout::Command>> {
    if !cause.events.iter().any(wanted_payout) {
        return Vec::new();
    }
    let decisions = cause.state.waiting().len().div_ceil(PLACED_PER_DECISION);
    (1..=decisions)
        .map(|n| {
            Order::new(
                cause.id(&format!("place-waiting-{n}")),
                felt_payout::Command::PlaceWaiting,
            )
        })
        .collect()
}

/// The `n`th decision placing the busts that waited for payout's close
/// (`n` past [`place_waiting`]'s: busts recorded while those were placed
/// joined the queue behind them), under an id naming the close.
pub fn place_waiting_next(cause: &Cause<Payout>, n: usize) -> Order<felt_payout::Command> {
    Order::new(
        cause.id(&format!("place-waiting-{n}")),
        felt_payout::Command::PlaceWaiting,
    )
}

/// Payout's close fixed the pay sheet: seating learns how many places are
/// paid (hand-for-hand is played down to them; seating draws the final
/// table's seats when it decides).
pub fn paid(cause: &Cause<Payout>) -> Option<Order<SeatingCommand>> {
    let paid = cause.events.iter().find_map(|e| match e {
        // A satellite's hand-for-hand is played down to its seats.
        PayoutEvent::RegistrationClosed { sheet, .. } => {
            Some(satellite(cause).map_or_else(|| sheet.paid(), |t| t.seats_on(sheet)))
        }
        _ => None,
    })?;
    Some(Order::new(
        cause.id("paid"),
        SeatingCommand::SetPaid { paid },
    ))
}

fn satellite(cause: &Cause<Payout>) -> Option<&felt_payout::SatelliteTerms> {
    cause.state.settings()?.structure.satellite()
}

/// A satellite's close fixed its seats: seating stops play once no more
/// players are left (each wins one).
pub fn seats(cause: &Cause<Payout>) -> Option<Order<SeatingCommand>> {
    let terms = satellite(cause)?;
    let seats = cause.events.iter().find_map(|e| match e {
        PayoutEvent::RegistrationClosed { sheet, .. } => Some(terms.seats_on(sheet)),
        _ => None,
    })?;
    Some(Order::new(
        cause.id("seats"),
        SeatingCommand::SetSeats { seats },
    ))
}
