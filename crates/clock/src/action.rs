//! The action clock (seed 002) and calling the clock (TDA 29), decided
//! from times handed in: the table service asks, and records the fold or
//! check that an expiry means.

use serde::{Deserialize, Serialize};

use crate::ClockError;
use crate::clock::Millis;

/// The shot clock's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionClock {
    /// Whether every decision is on a shot clock (seed 002's Action Clock).
    pub enabled: bool,
    /// A silent count before the shot clock starts (seed 002: 5 s).
    pub grace_millis: Millis,
    /// Time for each decision (seed 002: 30 s).
    pub decision_millis: Millis,
    /// What one time-bank card adds (seed 002: 60 s).
    pub card_millis: Millis,
    /// Cards given each day, added to what is left (seed 002: 3).
    pub cards_per_day: u32,
    /// Calling the clock (TDA 29): the time given, then the countdown.
    pub called_millis: Millis,
    pub countdown_millis: Millis,
}

impl Default for ActionClock {
    fn default() -> Self {
        ActionClock {
            enabled: false,
            grace_millis: 5_000,
            decision_millis: 30_000,
            card_millis: 60_000,
            cards_per_day: 3,
            called_millis: 25_000,
            countdown_millis: 5_000,
        }
    }
}

/// What happens to a player who does not act in time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TimeoutAction {
    /// Facing a bet: the hand is dead.
    Fold,
    /// Nothing to call: the player checks.
    Check,
}

/// Where a player's decision stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// Still in time until `deadline`, having used `cards` time-bank cards
    /// so far (used automatically, one after another, as time runs out).
    Thinking { deadline: Millis, cards: u32 },
    /// Out of time: `cards` were used, and the action is `default`.
    Expired { cards: u32, default: TimeoutAction },
}

impl ActionClock {
    pub fn validate(&self) -> Result<(), ClockError> {
        let times = [
            self.grace_millis,
            self.decision_millis,
            self.card_millis,
            self.called_millis,
            self.countdown_millis,
        ];
        if times.iter().any(|&t| t < 0) || self.decision_millis == 0 || self.called_millis == 0 {
            return Err(ClockError::InvalidSetting {
                reason: "action clock times must be positive".into(),
            });
        }
        Ok(())
    }

    /// Cards a player holds on `day` (1-based) having used `used` in all.
    pub fn cards_available(&self, day: u32, used: u32) -> u32 {
        (self.cards_per_day * day.max(1)).saturating_sub(used)
    }

    /// The shot clock for a decision whose turn came at `turn_at`, at
    /// `now`, for a player holding `cards` time-bank cards.
    pub fn decision(&self, turn_at: Millis, now: Millis, cards: u32, facing_bet: bool) -> Verdict {
        let start = turn_at + self.grace_millis;
        let mut deadline = start + self.decision_millis;
        let mut used = 0;
        while now >= deadline && used < cards {
            used += 1;
            deadline += self.card_millis;
        }
        if now >= deadline {
            Verdict::Expired {
                cards: used,
                default: default(facing_bet),
            }
        } else {
            Verdict::Thinking {
                deadline,
                cards: used,
            }
        }
    }

    /// The clock called on a player at `called_at` (TDA 29): the time, then
    /// the countdown; then the hand is dead facing a bet, or checks.
    pub fn called(&self, called_at: Millis, now: Millis, facing_bet: bool) -> Verdict {
        let deadline = called_at + self.called_millis + self.countdown_millis;
        if now >= deadline {
            Verdict::Expired {
                cards: 0,
                default: default(facing_bet),
            }
        } else {
            Verdict::Thinking { deadline, cards: 0 }
        }
    }
}

fn default(facing_bet: bool) -> TimeoutAction {
    if facing_bet {
        TimeoutAction::Fold
    } else {
        TimeoutAction::Check
    }
}
