//! `felt`: the operator's command line. The services it starts are the
//! `felt` library's ([`felt::serve`]); what is here only reads the command
//! line and calls them, the audit (`felt_audit`), or the tools in `cli/`.

use clap::{Parser, Subcommand};
use felt::serve;

mod cli;
use cli::{audit, health, payout, phh, sim};

/// mimalloc: the replay and the services allocate many small, short-lived
/// values (events, commands); glibc's allocator costs about a sixth of the
/// PHH verification time, mimalloc a good part less.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// felt runs live poker tournaments: tables, seating, clock and payouts,
/// every fact an event, every pot auditable.
#[derive(Debug, Parser)]
#[command(name = "felt", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check a tournament in the log, or read one hand step by step.
    Audit {
        #[command(subcommand)]
        what: audit::AuditCommand,
    },
    /// Hand histories in PHH, the poker research community's format.
    Phh {
        #[command(subcommand)]
        what: phh::PhhCommand,
    },
    /// Whether a felt process serves (for scripts, Compose, systemd).
    Health(health::HealthArgs),
    /// Pay sheets and deals.
    Payout {
        #[command(subcommand)]
        what: payout::PayoutCommand,
    },
    /// Play a whole tournament with bots, from registration to a winner,
    /// through the services on the event log, on simulated time.
    Sim(sim::SimArgs),
    /// Run the four services (table, seating, clock, payout) in one process
    /// on one gRPC port: the embedded log in --data, or --nats; prints
    /// where to connect and a token for each role.
    Up(serve::ServeArgs),
    /// Run one of felt's services as its own process.
    Serve {
        #[command(subcommand)]
        what: serve::ServeCommand,
    },
}

fn main() -> anyhow::Result<std::process::ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Audit { what } => audit::run(what),
        Command::Phh { what } => phh::run(what),
        Command::Health(args) => health::run(&args),
        Command::Payout { what } => payout::run(what).map(|()| std::process::ExitCode::SUCCESS),
        Command::Sim(args) => sim::run(args).map(|()| std::process::ExitCode::SUCCESS),
        Command::Up(args) => Ok(serve::up(&args).map(|()| std::process::ExitCode::SUCCESS)?),
        Command::Serve { what } => Ok(serve::run(what).map(|()| std::process::ExitCode::SUCCESS)?),
    }
}
