//! Seeded bots that play a plausible mix: most hands folded before the
//! flop, some raised, a few all in; after the flop mostly checks and calls.
//! Used by the simulation and the benches.

use felt_table::{Command, PlayerAction, TableState};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::RngCore;

/// The command of the player to act, or `None` when nobody is to act.
pub fn act(state: &TableState, rng: &mut ChaCha8Rng) -> Option<Command> {
    let o = state.options()?;
    let h = state.hand.as_ref()?;
    let roll = rng.next_u32() % 100;
    let preflop = h.board.is_empty();
    let action = match (roll, o.min_to) {
        (0..=1, Some(_)) => PlayerAction::AllIn,
        (2..=11, Some(to)) => {
            let to = (to + to / 2).min(o.max_to.unwrap_or(to));
            if h.current_bet == 0 {
                PlayerAction::Bet { to }
            } else {
                PlayerAction::Raise { to }
            }
        }
        (r, _) if o.to_call == 0 => {
            if r < 15 && !preflop {
                PlayerAction::Bet {
                    to: o.min_to.unwrap_or(0).max(1),
                }
            } else {
                PlayerAction::Check
            }
        }
        (r, _) if preflop && r < 75 => PlayerAction::Fold,
        (r, _) if !preflop && r < 45 => PlayerAction::Fold,
        _ => PlayerAction::Call,
    };
    let action = match action {
        PlayerAction::Bet { to } if o.min_to.is_none() || to == 0 => PlayerAction::Check,
        other => other,
    };
    Some(Command::Act {
        seat: o.seat,
        action,
    })
}
