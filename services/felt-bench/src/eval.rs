//! The evaluator benchmark behind `felt bench eval`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use felt_cards::sample::{for_each_seven_card_hand, random_hands};
use felt_cards::{Card, Hand, Seed};

#[derive(Debug, clap::Args)]
pub(crate) struct EvalArgs {
    /// Random hands generated before timing starts.
    #[arg(long, default_value_t = 2_000_000)]
    hands: usize,
    /// Passes over the random hands; the fastest pass is reported.
    #[arg(long, default_value_t = 30)]
    rounds: usize,
    /// Seed for the random hands.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Skip the sequential enumeration of every seven-card hand.
    #[arg(long)]
    no_sequential: bool,
}

/// Evaluates every hand once, building it from its seven cards; returns the
/// sum of the strengths (the checksum that keeps the work from being
/// optimised away).
#[inline(never)]
fn evaluate_all(hands: &[[Card; 7]]) -> u64 {
    hands
        .iter()
        .map(|h| u64::from(h.iter().fold(Hand::EMPTY, |acc, &c| acc.with(c)).rank().0))
        .sum()
}

#[inline(never)]
fn enumerate_all() -> (u64, u64) {
    let (mut count, mut sum) = (0u64, 0u64);
    for_each_seven_card_hand(|h| {
        count += 1;
        sum += u64::from(h.rank().0);
    });
    (count, sum)
}

fn millions_per_second(n: u64, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64() / 1e6
}

pub(crate) fn run(args: &EvalArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.hands > 0 && args.rounds > 0,
        "--hands and --rounds must be positive"
    );
    println!(
        "generating {} random 7-card hands (seed {})",
        args.hands, args.seed
    );
    let hands = random_hands(args.hands, Seed::from_u64(args.seed));
    let mut best = Duration::MAX;
    let mut checksum = 0;
    for _ in 0..args.rounds {
        let start = Instant::now();
        checksum = black_box(evaluate_all(black_box(&hands)));
        best = best.min(start.elapsed());
    }
    println!(
        "random:     {:>7.1} M evaluations/s (fastest of {} passes over {} hands, checksum {})",
        millions_per_second(hands.len() as u64, best),
        args.rounds,
        hands.len(),
        checksum
    );
    if !args.no_sequential {
        let start = Instant::now();
        let (count, sum) = black_box(enumerate_all());
        let took = start.elapsed();
        println!(
            "sequential: {:>7.1} M evaluations/s (all {} seven-card hands in {:.3} s, checksum {})",
            millions_per_second(count, took),
            count,
            took.as_secs_f64(),
            sum
        );
    }
    Ok(())
}
