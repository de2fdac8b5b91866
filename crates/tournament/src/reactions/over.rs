//! Play is over: the clock stops for good when payout places first (the
//! winner, a deal's or a satellite's seats placed together from first),
//! so the room's clock does not count down a structure nobody plays.

use felt_clock::ClockCommand;
use felt_payout::PayoutEvent;

use super::Order;
use crate::aggregates::Payout;
use crate::runner::Cause;

/// Whether a payout event ends play: a place group from first.
pub fn wanted(event: &PayoutEvent) -> bool {
    matches!(event, PayoutEvent::Placed { group, .. } if group.first == 1)
}

/// Payout placed first: the clock finishes, at payout's time.
pub fn to_clock(cause: &Cause<Payout>) -> Option<Order<ClockCommand>> {
    cause.events.iter().any(wanted).then(|| {
        Order::new(
            cause.id("finish"),
            ClockCommand::Finish {
                at: cause.recorded_at,
            },
        )
    })
}
