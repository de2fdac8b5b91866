//! `felt bench`: speed figures for BENCHMARKS.md.

use clap::Subcommand;

mod eval;

#[derive(Debug, Subcommand)]
pub(crate) enum BenchCommand {
    /// Hand evaluations per second: random 7-card hands from a pre-generated
    /// array, then all 133,784,560 seven-card hands in sequence.
    Eval(eval::EvalArgs),
}

pub(crate) fn run(command: BenchCommand) -> anyhow::Result<()> {
    match command {
        BenchCommand::Eval(args) => eval::run(&args),
    }
}
