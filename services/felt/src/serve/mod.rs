//! `felt serve`: runs a service as its own process.

use std::collections::HashMap;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Subcommand};
use felt_eventlog::{EmbeddedLog, EventLog, NatsLog, NatsSettings};
use felt_proto::v1::table_service_server::TableServiceServer;
use tonic::transport::server::TcpIncoming;
use tonic::transport::{Certificate, Identity, Server, ServerTlsConfig};

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
    /// A TOML file with any of: listen, data, nats, otlp, broadcast_delay
    /// and tokens = ["ROLE=TOKEN", ...]. Flags and environment variables
    /// win over the file.
    #[arg(long, env = "FELT_CONFIG")]
    config: Option<PathBuf>,
    /// The data folder of the embedded event log [default: felt-data].
    #[arg(long, env = "FELT_DATA")]
    data: Option<PathBuf>,
    /// NATS JetStream instead of the embedded log.
    #[arg(long, env = "FELT_NATS")]
    nats: Option<String>,
    /// Where to listen (port 0: any free port; the address is printed)
    /// [default: 127.0.0.1:7070].
    #[arg(long, env = "FELT_LISTEN")]
    listen: Option<SocketAddr>,
    /// A caller's token: director=T, floor=T, partner=T or
    /// dealer:<tournament>/<table>=T (repeat for each; FELT_TOKENS takes
    /// them comma-separated).
    #[arg(long = "token", env = "FELT_TOKENS", value_delimiter = ',', value_parser = auth::parse_token)]
    tokens: Vec<(String, auth::Role)>,
    /// An OTLP/gRPC endpoint to export traces to (none: logs only).
    #[arg(long, env = "OTEL_EXPORTER_OTLP_ENDPOINT")]
    otlp: Option<String>,
    /// Seconds after a hand's end from which partners may read it whole
    /// (every hole card); without it they never see an untabled card.
    #[arg(long, env = "FELT_BROADCAST_DELAY")]
    broadcast_delay: Option<u64>,
    /// TLS: the service's certificate chain (PEM); with --tls-key.
    #[arg(long, env = "FELT_TLS_CERT")]
    tls_cert: Option<PathBuf>,
    /// TLS: the service's private key (PEM).
    #[arg(long, env = "FELT_TLS_KEY")]
    tls_key: Option<PathBuf>,
    /// mTLS: callers must present a certificate signed by this CA (PEM).
    #[arg(long, env = "FELT_TLS_CLIENT_CA")]
    tls_client_ca: Option<PathBuf>,
}

/// The service's configuration file.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    data: Option<PathBuf>,
    nats: Option<String>,
    listen: Option<SocketAddr>,
    otlp: Option<String>,
    broadcast_delay: Option<u64>,
    tls_cert: Option<PathBuf>,
    tls_key: Option<PathBuf>,
    tls_client_ca: Option<PathBuf>,
    #[serde(default)]
    tokens: Vec<String>,
}

/// Flags, environment and file merged, defaults filled in.
#[derive(Debug)]
struct Settings {
    data: PathBuf,
    nats: Option<String>,
    listen: SocketAddr,
    tokens: Vec<(String, auth::Role)>,
    otlp: Option<String>,
    broadcast_delay: Option<std::time::Duration>,
    tls: Option<ServerTlsConfig>,
}

/// The server's TLS settings: a certificate and key, and for mTLS the CA
/// callers' certificates must be signed by.
fn tls(
    cert: Option<PathBuf>,
    key: Option<PathBuf>,
    client_ca: Option<PathBuf>,
) -> anyhow::Result<Option<ServerTlsConfig>> {
    let read = |path: &PathBuf| {
        std::fs::read(path).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))
    };
    match (cert, key) {
        (None, None) => {
            anyhow::ensure!(
                client_ca.is_none(),
                "--tls-client-ca needs --tls-cert and --tls-key"
            );
            Ok(None)
        }
        (Some(cert), Some(key)) => {
            let mut config =
                ServerTlsConfig::new().identity(Identity::from_pem(read(&cert)?, read(&key)?));
            if let Some(ca) = client_ca {
                config = config.client_ca_root(Certificate::from_pem(read(&ca)?));
            }
            Ok(Some(config))
        }
        _ => anyhow::bail!("--tls-cert and --tls-key go together"),
    }
}

impl ServeArgs {
    fn settings(&self) -> anyhow::Result<Settings> {
        let file = match &self.config {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
                toml::from_str::<ConfigFile>(&text)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
            }
            None => ConfigFile::default(),
        };
        let tokens = if self.tokens.is_empty() {
            file.tokens
                .iter()
                .map(|t| auth::parse_token(t).map_err(|e| anyhow::anyhow!(e)))
                .collect::<anyhow::Result<_>>()?
        } else {
            self.tokens.clone()
        };
        Ok(Settings {
            data: self
                .data
                .clone()
                .or(file.data)
                .unwrap_or_else(|| PathBuf::from("felt-data")),
            nats: self.nats.clone().or(file.nats),
            listen: self
                .listen
                .or(file.listen)
                .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 7070))),
            tokens,
            otlp: self.otlp.clone().or(file.otlp),
            broadcast_delay: self
                .broadcast_delay
                .or(file.broadcast_delay)
                .map(std::time::Duration::from_secs),
            tls: tls(
                self.tls_cert.clone().or(file.tls_cert),
                self.tls_key.clone().or(file.tls_key),
                self.tls_client_ca.clone().or(file.tls_client_ca),
            )?,
        })
    }
}

pub(crate) fn run(command: ServeCommand) -> anyhow::Result<()> {
    let ServeCommand::Table(args) = command;
    let args = args.settings()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let _telemetry = crate::telemetry::init("felt-table", args.otlp.as_deref())?;
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

async fn serve_table<L: EventLog + 'static>(log: Arc<L>, args: &Settings) -> anyhow::Result<()> {
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
    table_server(
        log,
        args.tokens.iter().cloned().collect(),
        args.broadcast_delay,
        args.tls.clone(),
        incoming,
    )
    .await
}

/// Runs the table service (with health and reflection) on `incoming`.
pub(crate) async fn table_server<L: EventLog + 'static>(
    log: Arc<L>,
    tokens: HashMap<String, auth::Role>,
    broadcast_delay: Option<std::time::Duration>,
    tls: Option<ServerTlsConfig>,
    incoming: TcpIncoming,
) -> anyhow::Result<()> {
    let api = TableServiceServer::with_interceptor(
        table::TableApi::new(log, broadcast_delay),
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
    let mut server = Server::builder();
    if let Some(tls) = tls {
        server = server.tls_config(tls)?;
    }
    server
        .add_service(health_service)
        .add_service(reflection)
        .add_service(api)
        .serve_with_incoming(incoming)
        .await?;
    Ok(())
}
