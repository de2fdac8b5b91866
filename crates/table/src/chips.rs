//! Reading chips pushed out as the rules read them (TDA 40–46, 51, 55).
//!
//! A dealer records what a player physically did: the new chips put out,
//! what was declared first, and what is left of an earlier bet in front of
//! the player. This module turns that into the action it binds the player
//! to, with the rule that says so; the action is then validated like any
//! other.

use crate::model::{Bound, Chips, Declaration, PlayerAction, Seat};
use crate::rejection::Rejection;
use crate::state::{HandState, InHand};

/// Chips pushed out, as the dealer entered them.
pub(crate) struct Push<'a> {
    pub seat: Seat,
    pub chips: &'a [Chips],
    pub declaration: Option<Declaration>,
    pub in_front: Option<&'a [Chips]>,
}

/// The action the chips bind the player to, and why.
pub(crate) struct Reading {
    pub action: Read,
    pub rule: &'static str,
}

/// What a push means: an action, or a bound on the action still to come.
pub(crate) enum Read {
    Action(PlayerAction),
    Bound(Bound),
}

fn read(action: PlayerAction, rule: &'static str) -> Result<Reading, Rejection> {
    Ok(Reading {
        action: Read::Action(action),
        rule,
    })
}

fn bind(bound: Bound, rule: &'static str) -> Result<Reading, Rejection> {
    Ok(Reading {
        action: Read::Bound(bound),
        rule,
    })
}

/// Reads a push by the player to act, who has `stack` behind.
pub(crate) fn read_push(
    h: &HandState,
    p: &InHand,
    stack: Chips,
    push: &Push<'_>,
) -> Result<Reading, Rejection> {
    let seat = push.seat;
    let bet = h.current_bet;
    let all_in_to = p.street + stack;
    // Sums of what the dealer entered stop at the largest count: more
    // than any stack, they read as more than the player has.
    let sum = |chips: &[Chips]| chips.iter().fold(0, |a: Chips, c| a.saturating_add(*c));
    let added: Chips = sum(push.chips);
    // What the player's chips in front amount to after the push, as a total
    // for the street. Chips of an earlier bet count at their face value
    // (they may exceed the bet: a 1,000 chip posted for a 100 blind).
    let front: Chips = push.in_front.map_or(p.street, sum);
    let partly_pulled = push
        .in_front
        .is_some_and(|c| !c.is_empty() && front < p.street);
    let amount = match push.declaration {
        Some(Declaration::Amount(n)) => n,
        _ => added,
    };
    // Whatever is in front, the player's chips reach `all_in_to` at most:
    // chips of an earlier bet beyond its amount are change from the stack,
    // chips pulled back went back to it.
    let total = front.saturating_add(amount);
    if total > all_in_to && push.declaration.is_none() {
        return Err(Rejection::ExceedsStack {
            seat,
            to: total,
            max: all_in_to,
        });
    }
    let total = total.min(all_in_to);
    let min_bet = h.level.big_blind.min(all_in_to);
    let min_raise_to = (bet + h.min_raise).min(all_in_to);
    let call_or_check = if bet > p.street {
        PlayerAction::Call
    } else {
        PlayerAction::Check
    };
    match push.declaration {
        Some(Declaration::AllIn) => {
            return read(PlayerAction::AllIn, "all in as declared (TDA 40)");
        }
        Some(Declaration::Call) if bet == 0 => {
            return read(
                PlayerAction::Check,
                "\"call\" with no bet to call is a check (TDA 55)",
            );
        }
        Some(Declaration::Call) => {
            return read(
                call_or_check,
                "\"call\" binds the player to the whole current bet (TDA 51)",
            );
        }
        Some(Declaration::Raise) if bet == 0 => {
            return read(
                PlayerAction::Bet {
                    to: total.max(min_bet),
                },
                "a declared bet is at least the minimum bet (TDA 55)",
            );
        }
        Some(Declaration::Raise) => {
            return read(
                PlayerAction::Raise {
                    to: total.max(min_raise_to),
                },
                "a declared raise is the chips' total, at least the minimum raise (TDA 43, 44)",
            );
        }
        Some(Declaration::Check) if bet <= p.street => {
            return read(
                PlayerAction::Check,
                "\"check\" with no bet to face (TDA 55)",
            );
        }
        Some(Declaration::Check) if added == 0 => {
            return bind(
                Bound::CallOrFold,
                "\"check\" facing a bet: the player may call or fold, not raise (TDA 55)",
            );
        }
        Some(Declaration::Check) => {
            return read(
                PlayerAction::Call,
                "\"check\" facing a bet, then chips: a call, never a raise (TDA 55)",
            );
        }
        Some(Declaration::Amount(_)) | None => {}
    }
    if p.bound == Some(Bound::CallOrFold) && bet > p.street && amount > 0 {
        return read(
            PlayerAction::Call,
            "chips after \"check\" facing a bet are a call, the excess returned (TDA 55)",
        );
    }
    let pulled_back = push.in_front.is_some() && front < p.street;
    if amount == 0 && pulled_back && bet > p.street && push.declaration.is_none() {
        return bind(
            Bound::CallOrRaise,
            "the chips of an earlier bet pulled back facing a raise: a call or a raise, not a fold (TDA 46)",
        );
    }
    if amount == 0 {
        return Err(Rejection::NoChipsPushed { seat });
    }
    if bet == 0 {
        // No bet to face: the chips are a bet of their value (TDA 44).
        return read(
            PlayerAction::Bet { to: total },
            "chips put out without a bet to face are a bet of their value (TDA 40, 44)",
        );
    }
    if total < bet {
        if total == all_in_to {
            return read(PlayerAction::Call, "all the player's chips: a call all in");
        }
        let heads_up = h.live().count() == 2;
        if heads_up || bet == h.opening_bet {
            return read(
                PlayerAction::Call,
                if heads_up {
                    "an undercall heads-up is a call of the whole bet (TDA 51)"
                } else {
                    "an undercall of the opening bet is a call of the whole bet (TDA 51)"
                },
            );
        }
        return Err(Rejection::UndercallNeedsRuling {
            seat,
            amount: total.saturating_sub(p.street),
            to_call: bet - p.street,
        });
    }
    let verbal = matches!(push.declaration, Some(Declaration::Amount(_)));
    let front_covers = push.in_front.is_some() && front >= bet;
    if !verbal && !front_covers && !partly_pulled {
        if push.chips.len() == 1 {
            return read(
                call_or_check,
                "a single chip facing a bet is a call unless a raise was declared first (TDA 44)",
            );
        }
        let smallest = push.chips.iter().min().copied().unwrap_or(0);
        if total.saturating_sub(smallest) < bet {
            return read(
                call_or_check,
                "every chip is needed to call: a call (TDA 45)",
            );
        }
        if total == all_in_to && h.reopened_for(p) {
            return read(
                PlayerAction::AllIn,
                "the player's last chips, more than a call: all in (TDA 45)",
            );
        }
    }
    // The 50% standard (TDA 43).
    let raise = total - bet;
    if raise == 0 || !h.reopened_for(p) {
        return read(call_or_check, "no raise: the excess is returned (TDA 43)");
    }
    if raise >= h.min_raise || total == all_in_to {
        return read(
            PlayerAction::Raise { to: total },
            "a raise to the chips' total (TDA 43)",
        );
    }
    if raise * 2 >= h.min_raise {
        return read(
            PlayerAction::Raise { to: min_raise_to },
            "50% or more of a full raise: the raise is completed to the minimum (TDA 43)",
        );
    }
    read(
        call_or_check,
        "less than 50% of a full raise: a call, the excess returned (TDA 43)",
    )
}
