//! `felt bench`: speed figures for BENCHMARKS.md.

use clap::Subcommand;

mod eval;
mod hands;
mod log;
mod registrations;
mod table;

#[derive(Debug, Subcommand)]
pub(crate) enum BenchCommand {
    /// Hand evaluations per second: random 7-card hands from a pre-generated
    /// array, then all 133,784,560 seven-card hands in sequence.
    Eval(eval::EvalArgs),
    /// Hands per second on one core: seeded bots play a table through the
    /// table decider, digital deal, showdowns evaluated.
    Hands(hands::HandsArgs),
    /// The event log: acknowledged appends per second and their latency
    /// from many streams at once, one stream read back, a whole log
    /// replayed.
    Log(log::LogArgs),
    /// Registrations through the seating service over gRPC on NATS
    /// JetStream: one call each, and one list.
    Registrations(registrations::RegistrationsArgs),
    /// The table service: dealer commands per second over gRPC against many
    /// tables at once on NATS JetStream, and their latency.
    Table(table::TableArgs),
}

pub(crate) fn run(command: BenchCommand) -> anyhow::Result<()> {
    match command {
        BenchCommand::Eval(args) => eval::run(&args),
        BenchCommand::Hands(args) => hands::run(&args),
        BenchCommand::Log(args) => log::run(&args),
        BenchCommand::Table(args) => table::run(&args),
        BenchCommand::Registrations(args) => registrations::run(&args),
    }
}
