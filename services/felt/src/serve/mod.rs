//! `felt serve`: runs a service as its own process.

use std::collections::HashMap;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Subcommand};
use felt_eventlog::{EmbeddedLog, EventLog, NatsLog, NatsSettings};
use felt_proto::v1::table_service_server::TableServiceServer;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;

pub(crate) mod auth;
mod convert;
mod status;
mod table;

#[derive(Debug, Subcommand)]
pub(crate) enum ServeCommand {
    /// The table service: dealers' commands, the floor's rulings, partners'
    /// reads and streams, over gRPC (with health and reflection).
    Table(ServeArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// The data folder of the embedded event log.
    #[arg(long, default_value = "felt-data")]
    data: PathBuf,
    /// NATS JetStream instead of the embedded log.
    #[arg(long)]
    nats: Option<String>,
    /// Where to listen (port 0: any free port; the address is printed).
    #[arg(long, default_value = "127.0.0.1:7070")]
    listen: SocketAddr,
    /// A caller's token: director=T, floor=T, partner=T or
    /// dealer:<tournament>/<table>=T (repeat for each).
    #[arg(long = "token", value_parser = auth::parse_token)]
    tokens: Vec<(String, auth::Role)>,
    /// An OTLP/gRPC endpoint to export traces to (default: the
    /// OTEL_EXPORTER_OTLP_ENDPOINT environment variable; none: logs only).
    #[arg(long)]
    otlp: Option<String>,
}

pub(crate) fn run(command: ServeCommand) -> anyhow::Result<()> {
    let ServeCommand::Table(args) = command;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let otlp = args
            .otlp
            .clone()
            .or_else(|| std::env::var("OTEL_EXPORTER_OTLP_ENDPOINT").ok());
        let _telemetry = crate::telemetry::init("felt-table", otlp.as_deref())?;
        match &args.nats {
            Some(url) => {
                let log = NatsLog::connect(url, &NatsSettings::default()).await?;
                serve_table(Arc::new(log), &args).await
            }
            None => {
                std::fs::create_dir_all(&args.data)?;
                let log = EmbeddedLog::open(&crate::logs::embedded_path(&args.data))?;
                serve_table(Arc::new(log), &args).await
            }
        }
    })
}

async fn serve_table<L: EventLog + 'static>(log: Arc<L>, args: &ServeArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        !args.tokens.is_empty(),
        "no --token given: every call must carry a known token"
    );
    let incoming = TcpIncoming::bind(args.listen)
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .with_nodelay(Some(true));
    let addr = incoming.local_addr()?;
    println!("felt table service listening on {addr}");
    std::io::stdout().flush()?;
    tracing::info!(%addr, "table service up");
    table_server(log, args.tokens.iter().cloned().collect(), incoming).await
}

/// Runs the table service (with health and reflection) on `incoming`.
pub(crate) async fn table_server<L: EventLog + 'static>(
    log: Arc<L>,
    tokens: HashMap<String, auth::Role>,
    incoming: TcpIncoming,
) -> anyhow::Result<()> {
    let api = TableServiceServer::with_interceptor(
        table::TableApi::new(log),
        auth::authenticate(Arc::new(tokens)),
    );
    let (health, health_service) = tonic_health::server::health_reporter();
    health
        .set_serving::<TableServiceServer<table::TableApi<L>>>()
        .await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(felt_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    Server::builder()
        .add_service(health_service)
        .add_service(reflection)
        .add_service(api)
        .serve_with_incoming(incoming)
        .await?;
    Ok(())
}
