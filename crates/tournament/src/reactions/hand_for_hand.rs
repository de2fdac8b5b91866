//! Seating's hand-for-hand facts, to the clock (RP8): the clock stops when
//! seating starts hand-for-hand, deducts a round when every table it waits
//! for has played it, stops waiting for a table that broke, and runs again
//! when seating ends it. Ids number the clock's own periods and rounds, so
//! a second period is not taken for the first one sent again.

use felt_clock::{ClockCommand, ClockState, Millis, Status};
use felt_seating::{SeatingEvent, SeatingState, TableNo};

use super::Order;

/// What the clock hears of one seating event, at `at`.
pub fn to_clock(
    event: &SeatingEvent,
    seating: &SeatingState,
    clock: &ClockState,
    at: Millis,
) -> Vec<Order<ClockCommand>> {
    match event {
        // Only while seating plays it, and once per period.
        SeatingEvent::HandForHandStarted { .. }
            if seating.room().hand_for_hand.is_some()
                && !matches!(clock.status(), Status::HandForHand { .. }) =>
        {
            let tables: Vec<TableNo> = seating.room().tables.keys().copied().collect();
            vec![Order::new(
                format!("hfh-{}-start", clock.hand_for_hand_periods() + 1),
                ClockCommand::StartHandForHand { at, tables },
            )]
        }
        SeatingEvent::HandForHandRound { .. } => finish_round(clock, at),
        SeatingEvent::HandForHandEnded { .. }
            if matches!(clock.status(), Status::HandForHand { .. }) =>
        {
            let mut orders = finish_round(clock, at);
            orders.push(Order::new(
                format!("hfh-{}-stop", clock.hand_for_hand_periods()),
                ClockCommand::StopHandForHand { at },
            ));
            orders
        }
        _ => Vec::new(),
    }
}

/// Every table the clock still waits for in its round has played it.
fn finish_round(clock: &ClockState, at: Millis) -> Vec<Order<ClockCommand>> {
    let Status::HandForHand { round, waiting, .. } = clock.status() else {
        return Vec::new();
    };
    let period = clock.hand_for_hand_periods();
    waiting
        .iter()
        .map(|&table| {
            Order::new(
                format!("hfh-{period}-{round}-{table}"),
                ClockCommand::TableFinishedHand { at, table },
            )
        })
        .collect()
}

/// A table seating closed, which the clock waits for in hand-for-hand: no
/// longer waited for.
pub fn closed_to_clock(
    event: &SeatingEvent,
    clock: &ClockState,
    at: Millis,
) -> Option<Order<ClockCommand>> {
    let SeatingEvent::TableClosed { table } = event else {
        return None;
    };
    let Status::HandForHand { tables, .. } = clock.status() else {
        return None;
    };
    tables.contains(table).then(|| {
        Order::new(
            format!("hfh-{}-close-{table}", clock.hand_for_hand_periods()),
            ClockCommand::RemoveTable { at, table: *table },
        )
    })
}
