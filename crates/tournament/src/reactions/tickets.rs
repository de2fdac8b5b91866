//! A satellite's seats reach their event: each ticket payout awards is
//! recorded in the target event's ledger of seats won (by the target's
//! seating, which decides in one order which of a player's seats came
//! first), and a player's second seat there comes back to the satellite
//! that awarded it, to be paid in cash where its house says so. The two
//! tournaments are named by the events themselves (the ticket's target,
//! the voided ticket's satellite), so the reactions read nothing else.

use felt_payout::{PayoutEvent, SecondSeat};
use felt_seating::{SeatingCommand, SeatingEvent, Ticket};

use super::Order;
use crate::aggregates::{Payout, Seating};
use crate::runner::Cause;

/// Whether a payout event causes [`to_target`].
pub fn wanted_payout(event: &PayoutEvent) -> bool {
    matches!(event, PayoutEvent::TicketAwarded { .. })
}

/// Whether a seating event causes [`to_satellite`].
pub fn wanted(event: &SeatingEvent) -> bool {
    matches!(event, SeatingEvent::TicketVoided { .. })
}

/// A satellite's `TicketAwarded`: the target event's seating records the
/// ticket (`RecordTicket`), with what this satellite's house gives for a
/// second seat. Each order with the tournament it goes to.
pub fn to_target(cause: &Cause<Payout>) -> Vec<(String, Order<SeatingCommand>)> {
    let satellite = cause.stream.tournament.as_str();
    let cash_if_second = cause
        .state
        .settings()
        .and_then(|s| s.structure.satellite())
        .is_some_and(|t| t.second_seat == SecondSeat::Cash);
    cause
        .events
        .iter()
        .filter_map(|e| match e {
            PayoutEvent::TicketAwarded {
                entry,
                player,
                target,
                ..
            } => Some((
                target.clone(),
                Order::new(
                    cause.id(&format!("{satellite}-ticket-{entry}")),
                    SeatingCommand::RecordTicket {
                        ticket: Ticket {
                            satellite: satellite.to_string(),
                            entry: *entry,
                            holder: player.clone(),
                        },
                        cash_if_second,
                    },
                ),
            )),
            _ => None,
        })
        .collect()
}

/// The event's `TicketVoided` (a player's second seat, where its
/// satellite's house pays that in cash): the satellite's payout cashes
/// the ticket (`CashTicket`). Each order with the tournament it goes to.
pub fn to_satellite(cause: &Cause<Seating>) -> Vec<(String, Order<felt_payout::Command>)> {
    let event = cause.stream.tournament.as_str();
    cause
        .events
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::TicketVoided { ticket, .. } => Some((
                ticket.satellite.clone(),
                Order::new(
                    cause.id(&format!("{event}-cash-{}", ticket.entry)),
                    felt_payout::Command::CashTicket {
                        entry: ticket.entry,
                    },
                ),
            )),
            _ => None,
        })
        .collect()
}
