//! `felt bench hands`: hands per second played by seeded bots through the
//! table decider (decide and evolve, evaluation at showdown).

use std::time::Instant;

use felt_cards::Seed;
use felt_table::{
    Chips, Command, Deal, HouseRules, Level, PlayerAction, PlayerId, Seat, TableState, execute,
};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

#[derive(Debug, clap::Args)]
pub(crate) struct HandsArgs {
    /// Hands to play.
    #[arg(long, default_value_t = 200_000)]
    hands: u64,
    /// Seats at the table.
    #[arg(long, default_value_t = 9)]
    seats: u8,
    /// Seed for the bots and the decks.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

const STACK: Chips = 10_000;

fn apply(state: &mut TableState, command: &Command, events: &mut u64) -> anyhow::Result<()> {
    // `execute` is `decide` and `evolve` in one pass (the property tests
    // hold the two to the same events and state).
    let decided = execute(state, command).map_err(|e| anyhow::anyhow!("{command:?}: {e}"))?;
    *events += decided.len() as u64;
    Ok(())
}

/// A plausible mix: most hands folded before the flop, some raised, a few
/// all-in; after the flop mostly checks and calls.
fn bot(state: &TableState, rng: &mut ChaCha8Rng) -> Option<Command> {
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

pub(crate) fn run(args: &HandsArgs) -> anyhow::Result<()> {
    anyhow::ensure!((2..=10).contains(&args.seats), "--seats must be 2 to 10");
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    let mut state = TableState::default();
    let mut events = 0u64;
    let mut next_player = 0u64;
    apply(
        &mut state,
        &Command::OpenTable {
            seats: args.seats,
            rules: HouseRules::default(),
        },
        &mut events,
    )?;
    let level = Level::blinds(50, 100);
    let mut actions = 0u64;
    let start = Instant::now();
    for _ in 0..args.hands {
        // Empty seats are filled with a new player: the table never breaks.
        for seat in 1..=args.seats as Seat {
            if state.seat(seat).is_none() {
                next_player += 1;
                apply(
                    &mut state,
                    &Command::SeatPlayer {
                        seat,
                        player: PlayerId(next_player),
                        stack: STACK,
                    },
                    &mut events,
                )?;
            }
        }
        let seed = Seed::from_u64(rng.next_u64());
        apply(
            &mut state,
            &Command::StartHand {
                level,
                deal: Deal::Digital { seed },
                button: None,
            },
            &mut events,
        )?;
        while state.hand.is_some() {
            let Some(command) = bot(&state, &mut rng) else {
                anyhow::bail!("a digital hand stopped with nobody to act");
            };
            apply(&mut state, &command, &mut events)?;
            actions += 1;
        }
    }
    let took = start.elapsed().as_secs_f64();
    println!(
        "{} hands at {} seats: {:.0} hands/s, {:.0} actions/s, {:.0} events/s ({:.2} s, {} actions, {} events)",
        args.hands,
        args.seats,
        args.hands as f64 / took,
        actions as f64 / took,
        events as f64 / took,
        took,
        actions,
        events
    );
    Ok(())
}
