//! Seeded bots that play a plausible mix: most hands folded before the
//! flop, some raised, a few all in; after the flop mostly checks and calls.
//! Used by the simulation and the benches.

use felt_table::{Chips, Command, PlayerAction, TableState};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::RngCore;

/// What the player to act faces, as a bot sees it (from the table's state,
/// or from the table service's view of it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facing {
    pub to_call: Chips,
    /// The smallest and largest bet or raise-to open to the player.
    pub min_to: Option<Chips>,
    pub max_to: Option<Chips>,
    /// A bet to call or raise on this street (the big blind preflop).
    pub bet: bool,
    pub preflop: bool,
}

/// The command of the player to act, or `None` when nobody is to act.
pub fn act(state: &TableState, rng: &mut ChaCha8Rng) -> Option<Command> {
    let o = state.options()?;
    let h = state.hand()?;
    let facing = Facing {
        to_call: o.to_call,
        min_to: o.min_to,
        max_to: o.max_to,
        bet: h.current_bet > 0,
        preflop: h.board.is_empty(),
    };
    Some(Command::Act {
        seat: o.seat,
        action: choose(&facing, rng),
    })
}

/// A bot's action facing `f`.
pub fn choose(f: &Facing, rng: &mut ChaCha8Rng) -> PlayerAction {
    let roll = rng.next_u32() % 100;
    let action = match (roll, f.min_to) {
        (0..=1, Some(_)) => PlayerAction::AllIn,
        (2..=11, Some(to)) => {
            let to = (to + to / 2).min(f.max_to.unwrap_or(to));
            if f.bet {
                PlayerAction::Raise { to }
            } else {
                PlayerAction::Bet { to }
            }
        }
        (r, _) if f.to_call == 0 => {
            if r < 15 && !f.preflop {
                PlayerAction::Bet {
                    to: f.min_to.unwrap_or(0).max(1),
                }
            } else {
                PlayerAction::Check
            }
        }
        (r, _) if f.preflop && r < 75 => PlayerAction::Fold,
        (r, _) if !f.preflop && r < 45 => PlayerAction::Fold,
        _ => PlayerAction::Call,
    };
    match action {
        PlayerAction::Bet { to } if f.min_to.is_none() || to == 0 => PlayerAction::Check,
        other => other,
    }
}
