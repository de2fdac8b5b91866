//! `felt-bench`: speed figures for BENCHMARKS.md, measured on this
//! machine. A tool for developers beside the `felt` binary: it starts the
//! server library's services ([`felt::serve`]) in its own process, and a
//! local nats-server when none is named.

use clap::{Parser, Subcommand};

mod eval;
mod hands;
mod log;
mod partners;
mod registrations;
mod replay;
mod table;

/// mimalloc, as in the `felt` binary: the figures are the server's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Measure how fast felt's parts run on this machine.
#[derive(Debug, Parser)]
#[command(name = "felt-bench", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    what: BenchCommand,
}

#[derive(Debug, Subcommand)]
enum BenchCommand {
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
    /// A log `felt sim` or `felt up` wrote (`--data` or `--nats`), replayed
    /// whole through a subscription from the start: events per second.
    Replay(replay::ReplayArgs),
    /// Partners' streams: 1,000 gRPC watchers (tables, clock, results)
    /// while 500 tables are dealt at a fixed rate; deliveries per second and
    /// the delay to each.
    Partners(partners::PartnersArgs),
    /// Registrations through the seating service over gRPC on NATS
    /// JetStream: one call each, and one list.
    Registrations(registrations::RegistrationsArgs),
    /// The table service: dealer commands per second over gRPC against many
    /// tables at once on NATS JetStream, and their latency.
    Table(table::TableArgs),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().what {
        BenchCommand::Eval(args) => eval::run(&args),
        BenchCommand::Hands(args) => hands::run(&args),
        BenchCommand::Log(args) => log::run(&args),
        BenchCommand::Replay(args) => replay::run(&args),
        BenchCommand::Partners(args) => partners::run(&args),
        BenchCommand::Table(args) => table::run(&args),
        BenchCommand::Registrations(args) => registrations::run(&args),
    }
}

/// Some of felt's services in this process on a loopback port, on NATS
/// JetStream (`nats`, or a nats-server started here and kept in the
/// returned guard), with one director token; a channel to them.
async fn local_services(
    nats: Option<&str>,
    services: felt::serve::Services,
    token: &str,
) -> anyhow::Result<(
    Option<felt_testkit::NatsServer>,
    String,
    tonic::transport::Channel,
)> {
    let (guard, url) = match nats {
        Some(url) => (None, url.to_string()),
        None => {
            let local = felt_testkit::NatsServer::start()?;
            let url = local.url();
            (Some(local), url)
        }
    };
    let log = std::sync::Arc::new(
        felt_eventlog::NatsLog::connect(&url, &felt_eventlog::NatsSettings::default()).await?,
    );
    let incoming = tonic::transport::server::TcpIncoming::bind("127.0.0.1:0".parse()?)
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .with_nodelay(Some(true));
    let addr = incoming.local_addr()?;
    let settings =
        felt::serve::Settings::with_tokens(vec![(token.into(), felt::serve::auth::Role::Director)]);
    let now: felt::serve::Now = std::sync::Arc::new(felt::serve::wall_clock);
    tokio::spawn(async move { felt::serve::serve(log, services, &settings, now, incoming).await });
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))?
        .connect()
        .await?;
    Ok((guard, url, channel))
}
