//! The tournament's cross-service rules, each a pure function: given the
//! event that causes it and the state it needs, the commands to send, each
//! under the id that makes sending it again harmless. Nothing here does IO,
//! reads a clock or draws a seed: the conductor reads the states, hands in
//! the time and the seat draws, sends the commands and follows what comes
//! back.
//!
//! The reactions to the registry's, the clock's, seating's and payout's
//! decisions are run by a [`crate::runner`] each, in the log's order, each decision with its
//! stream's state folded up to it.
//!
//! | rule | cause | sends to | run by |
//! |---|---|---|---|
//! | [`creation::to_clock`], [`creation::to_payout`] | the registry's `TournamentCreated` | the clock, payout (their parts of the definition) | the registry's runner |
//! | [`entries::to_payout`] | seating's `Registered`, `AlternatePromoted`, `Unregistered` | payout (paid in, refunded) | seating's runner |
//! | [`entries::clock_starts`] | seating's `Started` (an event fed by flights: where their day ended) | the clock | seating's runner |
//! | [`hand_end::to_seating`] | a table's `HandEnded` | seating | the follower |
//! | [`hand_end::busts`] | seating's `Busted`, `Disqualified` | payout (placed, or held for a hand-for-hand round) | seating's runner |
//! | [`hand_end::rounds_over`] | seating's `HandEnded`, payout's `BustsHeld` | payout | seating's runner |
//! | [`hand_end::seats_won`] | seating's `SeatsWon` (a satellite's play over) | payout (`AwardSeats`) | seating's runner |
//! | [`hand_for_hand::to_clock`] | seating's hand-for-hand facts, `TableClosed` | the clock | seating's runner |
//! | [`registration::level_closes`] | the clock's `Started`, `PeriodStarted`, `JumpedToLevel` past late registration | seating | the clock's runner |
//! | [`registration::rebuys_close`] | the same, past the rebuys' last level | seating | the clock's runner |
//! | [`day::to_seating`] | the clock's `EndOfDayDrawn`, `DayStarted` (rule 77) | seating (`PlayLastHands`, `ResumeDay`) | the clock's runner |
//! | [`day::to_clock`] | seating's `LastHandsPlayed` | the clock (`EndDay`) | seating's runner |
//! | [`registration::to_payout`] | seating's `RegistrationClosed` | payout | seating's runner |
//! | [`registration::place_waiting`] (then [`registration::place_waiting_next`] until nothing waits), [`registration::paid`], [`registration::seats`] | payout's `RegistrationClosed` | payout, seating (places paid; a satellite's seats) | payout's runner |
//! | [`tickets::to_target`] | a satellite's payout's `TicketAwarded` | the target event's seating (`RecordTicket`: its ledger of seats won) | payout's runner |
//! | [`tickets::to_satellite`] | the event's seating's `TicketVoided` (a player's second seat, paid in cash by the satellite's house) | the satellite's payout (`CashTicket`) | seating's runner |
//! | [`seats::carry`]: [`seats::open`], [`seats::seat`], [`seats::move_out`], [`seats::move_in`] | seating's `TableOpened`, `SeatsDrawn`, `Seated`, `MoveStarted` | a table | seating's carrier (a runner) |
//! | [`seats::seated`], [`seats::move_done`] | the table's answer: the seat taken | seating | seating's carrier |

pub mod creation;
pub mod day;
pub mod entries;
pub mod hand_end;
pub mod hand_for_hand;
pub mod over;
pub mod registration;
pub mod room;
pub mod seats;
pub mod tickets;

use felt_seating::{SeatingEvent, TableNo};

/// Whether a seating event causes a reaction the runner runs.
pub fn wanted(event: &SeatingEvent) -> bool {
    matches!(
        event,
        SeatingEvent::Busted { .. }
            | SeatingEvent::Disqualified { .. }
            | SeatingEvent::Surrendered { .. }
            | SeatingEvent::LateEntriesClosed { .. }
            | SeatingEvent::HandEnded { .. }
            | SeatingEvent::HandForHandStarted { .. }
            | SeatingEvent::HandForHandRound { .. }
            | SeatingEvent::HandForHandEnded { .. }
            | SeatingEvent::TableClosed { .. }
            | SeatingEvent::TableOpened { .. }
            | SeatingEvent::RegistrationClosed
            | SeatingEvent::LastHandsPlayed
            // (Alone where the field is within the seats at the close.)
            | SeatingEvent::SeatsWon { .. }
    ) || entries::wanted(event)
        || tickets::wanted(event)
}

/// Whether a payout event causes a reaction the payout runner runs.
pub fn wanted_payout(event: &felt_payout::PayoutEvent) -> bool {
    registration::wanted_payout(event) || over::wanted(event) || tickets::wanted_payout(event)
}

/// Whether a clock event causes a reaction the clock's runner runs.
pub fn wanted_clock(event: &felt_clock::ClockEvent) -> bool {
    registration::wanted_clock(event) || day::wanted_clock(event)
}

/// A command a reaction sends to a tournament's seating, clock or payout
/// stream, under its id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Order<C> {
    pub id: String,
    pub command: C,
}

impl<C> Order<C> {
    fn new(id: String, command: C) -> Self {
        Order { id, command }
    }
}

/// A command a reaction sends to one of a tournament's tables, under its id
/// (ids are per table stream).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableOrder {
    pub table: TableNo,
    pub id: String,
    pub command: felt_table::Command,
}
