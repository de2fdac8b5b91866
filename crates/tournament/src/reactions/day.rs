//! The end of a day (seed 002, rule 77), a chain between the clock and
//! seating: the clock's drawn card holds every table at seating to that
//! many more hands, and a day's last level ended holds each to the hand it
//! is playing ([`to_seating`]); seating's last hand played ends the
//! day at the clock ([`to_clock`]); the clock's next day lets the tables
//! deal again ([`to_seating`]). Ids name the clock's day, so a second day
//! is never taken for the first sent again.

use felt_clock::{ClockCommand, ClockEvent, ClockState, Millis, Status};
use felt_seating::{SeatingCommand, SeatingEvent, SeatingState};

use super::Order;
use crate::aggregates::Clock;
use crate::runner::Cause;

/// Whether a clock event ends or starts a day.
pub fn wanted_clock(event: &ClockEvent) -> bool {
    matches!(
        event,
        ClockEvent::EndOfDayDrawn { .. }
            | ClockEvent::LastLevelEnded { .. }
            | ClockEvent::DayStarted { .. }
    )
}

/// The clock's drawn card: seating holds every table to that many more
/// hands; the clock's next day: seating lets them deal. `seating` is as it
/// is now (a chain run again sends nothing twice).
pub fn to_seating(cause: &Cause<Clock>, seating: &SeatingState) -> Vec<Order<SeatingCommand>> {
    let day = cause.state.day();
    cause
        .events
        .iter()
        .filter_map(|e| match e {
            ClockEvent::EndOfDayDrawn { hands, .. } if seating.room().last_hands.is_none() => {
                Some(Order::new(
                    format!("day-{day}-last-hands"),
                    SeatingCommand::PlayLastHands { hands: *hands },
                ))
            }
            ClockEvent::LastLevelEnded { .. } if seating.room().last_hands.is_none() => {
                Some(Order::new(
                    format!("day-{day}-last-hands"),
                    SeatingCommand::PlayLastHands { hands: 0 },
                ))
            }
            ClockEvent::DayStarted { day, .. } if seating.room().last_hands.is_some() => Some(
                Order::new(format!("day-{day}-resume"), SeatingCommand::ResumeDay),
            ),
            _ => None,
        })
        .collect()
}

/// Seating's last hand of the day played: the clock ends the day (while
/// it plays the day's last hands, or runs: a day seating ended at its
/// count of players).
pub fn to_clock(
    event: &SeatingEvent,
    clock: &ClockState,
    at: Millis,
) -> Option<Order<ClockCommand>> {
    (matches!(event, SeatingEvent::LastHandsPlayed)
        && matches!(
            clock.status(),
            Status::EndOfDay { .. } | Status::Running { .. } | Status::Paused { .. }
        ))
    .then(|| {
        Order::new(
            format!("day-{}-end", clock.day()),
            ClockCommand::EndDay { at },
        )
    })
}
