//! `felt bench hands`: hands per second played by seeded bots through the
//! table decider (decide and evolve, evaluation at showdown).

use std::time::Instant;

use felt_cards::Seed;
use felt_table::{Chips, Command, Deal, EntryId, HouseRules, Level, Seat, TableState, execute};
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
                        player: EntryId(next_player),
                        stack: STACK,
                        carried: Default::default(),
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
        while state.hand().is_some() {
            let Some(command) = felt_tournament::bot::act(&state, &mut rng) else {
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
