//! `felt bench`: speed figures for BENCHMARKS.md.

use clap::Subcommand;

mod eval;
mod hands;

#[derive(Debug, Subcommand)]
pub(crate) enum BenchCommand {
    /// Hand evaluations per second: random 7-card hands from a pre-generated
    /// array, then all 133,784,560 seven-card hands in sequence.
    Eval(eval::EvalArgs),
    /// Hands per second on one core: seeded bots play a table through the
    /// table decider, digital deal, showdowns evaluated.
    Hands(hands::HandsArgs),
}

pub(crate) fn run(command: BenchCommand) -> anyhow::Result<()> {
    match command {
        BenchCommand::Eval(args) => eval::run(&args),
        BenchCommand::Hands(args) => hands::run(&args),
    }
}
