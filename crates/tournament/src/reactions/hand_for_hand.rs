//! Seating's hand-for-hand facts, to the clock (RP8): the clock stops when
//! seating starts hand-for-hand, deducts a round when every table it waits
//! for has played it, stops waiting for a table that broke, and runs again
//! when seating ends it. Ids number the clock's own periods and rounds, so
//! a second period is not taken for the first one sent again.

use felt_clock::{ClockCommand, ClockState, Millis, Status};
use felt_seating::{SeatingEvent, SeatingState, TableNo};

use super::Order;

/// What the clock hears of one seating event, at `at`: `seating` is
/// seating's state folded up to the event's decision. Only while the
/// clock is at the hand-for-hand period seating was in then (or, for a
/// start, before it): a runner behind another finds the clock past the
/// event, and sends nothing.
pub fn to_clock(
    event: &SeatingEvent,
    seating: &SeatingState,
    clock: &ClockState,
    at: Millis,
) -> Vec<Order<ClockCommand>> {
    let period = seating.room().hand_for_hand_periods;
    let playing = matches!(clock.status(), Status::HandForHand { .. });
    let current = playing && clock.hand_for_hand_periods() == period;
    match event {
        // Only while seating plays it, and once per period.
        SeatingEvent::HandForHandStarted { .. }
            if seating.room().hand_for_hand.is_some()
                && !playing
                && clock.hand_for_hand_periods() < period =>
        {
            let tables: Vec<TableNo> = seating.room().tables.keys().copied().collect();
            vec![Order::new(
                format!("hfh-{}-start", clock.hand_for_hand_periods() + 1),
                ClockCommand::StartHandForHand { at, tables },
            )]
        }
        SeatingEvent::HandForHandRound { round } if current => {
            finish_round(clock, Some(*round), at)
        }
        // The round seating was playing is over (the clock may have
        // finished it already: a second run of the same event).
        SeatingEvent::HandForHandEnded { round, .. } if current => {
            let mut orders = finish_round(clock, *round, at);
            orders.push(Order::new(
                format!("hfh-{period}-stop"),
                ClockCommand::StopHandForHand { at },
            ));
            orders
        }
        // A table seating closed, which the clock waits for: no longer
        // waited for.
        SeatingEvent::TableClosed { table } if current => match clock.status() {
            Status::HandForHand { tables, .. } if tables.contains(table) => vec![Order::new(
                format!("hfh-{period}-close-{table}"),
                ClockCommand::RemoveTable { at, table: *table },
            )],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// Every table the clock still waits for in its round (`round`, if named:
/// only while the clock plays that round) has played it.
fn finish_round(clock: &ClockState, round: Option<u64>, at: Millis) -> Vec<Order<ClockCommand>> {
    let Status::HandForHand {
        round: playing,
        waiting,
        ..
    } = clock.status()
    else {
        return Vec::new();
    };
    if round.is_some_and(|r| r != *playing) {
        return Vec::new();
    }
    let period = clock.hand_for_hand_periods();
    waiting
        .iter()
        .map(|&table| {
            Order::new(
                format!("hfh-{period}-{playing}-{table}"),
                ClockCommand::TableFinishedHand { at, table },
            )
        })
        .collect()
}
