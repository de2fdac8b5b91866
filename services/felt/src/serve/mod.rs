//! `felt serve`: runs a service as its own process.

use std::collections::HashMap;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Subcommand};
use felt_eventlog::{EmbeddedLog, EventLog, NatsLog, NatsSettings};
use felt_proto::v1::clock_service_server::ClockServiceServer;
use felt_proto::v1::payout_service_server::PayoutServiceServer;
use felt_proto::v1::seating_service_server::SeatingServiceServer;
use felt_proto::v1::table_service_server::TableServiceServer;
use felt_proto::v1::webhook_service_server::WebhookServiceServer;
use felt_tournament::Conductor;
use tonic::service::RoutesBuilder;
use tonic::transport::server::TcpIncoming;
use tonic::transport::{Certificate, Identity, Server, ServerTlsConfig};

type Result<T, E = ServeError> = std::result::Result<T, E>;

pub mod auth;
mod browser;
mod clock;
mod convert;
mod display;
mod limits;
mod payout;
mod payout_events;
mod people;
mod remote;
mod seating;
mod seating_events;
mod shared;
mod status;
mod table;
mod table_events;
mod webhooks;

mod error;
pub use error::ServeError;
pub use shared::{Draw, Now, Seeds, fresh_seed, wall_clock};

#[derive(Debug, Subcommand)]
pub enum ServeCommand {
    /// The table service: dealers' commands, the floor's rulings, partners'
    /// reads and streams, over gRPC (with health and reflection).
    Table(ServeArgs),
    /// The clock service: levels, breaks, hand-for-hand, the floor's
    /// controls and the room's clock stream; records each level change.
    Clock(ServeArgs),
    /// The seating service: tournaments, registration, seats, balancing;
    /// follows the tables' hand ends.
    Seating(ServeArgs),
    /// The payout service: pool, pay sheet, places, deals, results.
    Payout(ServeArgs),
    /// The room display alone: the clock screen, seat finder and pay board
    /// as web pages, reading the clock, seating and payout services
    /// elsewhere as a partner (`felt up` serves them itself).
    Display(DisplayArgs),
}

#[derive(Debug, Args)]
pub struct DisplayArgs {
    /// Where to serve the pages (port 0: any free port; the address is
    /// printed).
    #[arg(long, env = "FELT_LISTEN", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// The clock service's URL (e.g. http://clock:7070).
    #[arg(long, env = "FELT_CLOCK")]
    clock: String,
    /// The seating service's URL.
    #[arg(long, env = "FELT_SEATING")]
    seating: String,
    /// The payout service's URL.
    #[arg(long, env = "FELT_PAYOUT")]
    payout: String,
    /// The deployment's tokens, as the services take them: browsers may
    /// look with any of them, and the display reads with the first partner
    /// token.
    #[arg(long = "token", env = "FELT_TOKENS", value_delimiter = ',', value_parser = auth::parse_token)]
    tokens: Vec<(String, auth::Role)>,
    /// TLS for the pages: the certificate chain (PEM); with --tls-key.
    #[arg(long, env = "FELT_TLS_CERT")]
    tls_cert: Option<PathBuf>,
    /// TLS: the private key (PEM).
    #[arg(long, env = "FELT_TLS_KEY")]
    tls_key: Option<PathBuf>,
}

/// Which services a process runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Services {
    pub table: bool,
    pub clock: bool,
    pub seating: bool,
    pub payout: bool,
}

impl Services {
    pub const ALL: Services = Services {
        table: true,
        clock: true,
        seating: true,
        payout: true,
    };
    pub const TABLE: Services = Services {
        table: true,
        ..Services::NONE
    };
    pub const NONE: Services = Services {
        table: false,
        clock: false,
        seating: false,
        payout: false,
    };

    fn names(&self) -> String {
        [
            (self.table, "table"),
            (self.clock, "clock"),
            (self.seating, "seating"),
            (self.payout, "payout"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, n)| *n)
        .collect::<Vec<_>>()
        .join(", ")
    }
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// A TOML file with any of: listen, data, nats, otlp, broadcast_delay
    /// and tokens = ["ROLE=TOKEN", ...]. Flags and environment variables
    /// win over the file.
    #[arg(long, env = "FELT_CONFIG")]
    config: Option<PathBuf>,
    /// The data folder of the embedded event log [default: felt-data].
    #[arg(long, env = "FELT_DATA")]
    data: Option<PathBuf>,
    /// NATS JetStream instead of the embedded log (a cluster's servers
    /// comma-separated).
    #[arg(long, env = "FELT_NATS")]
    nats: Option<String>,
    /// Replicas of felt's stream when this service creates it: 3 on a
    /// three-node cluster [default: 1].
    #[arg(long, env = "FELT_NATS_REPLICAS")]
    nats_replicas: Option<usize>,
    /// Seating and the clock deployed apart from the tables: the table
    /// service's URL (e.g. http://tables:7070), called with the services'
    /// own token (`--token service=TOKEN`, no person's).
    #[arg(long, env = "FELT_TABLES")]
    tables: Option<String>,
    /// The clock deployed apart from seating: the seating service's URL
    /// (e.g. http://seating:7071), where the floor's hand-for-hand sent to
    /// the clock goes (seating decides it, the clock follows), called with
    /// the services' own token.
    #[arg(long, env = "FELT_SEATING")]
    seating: Option<String>,
    /// The table service deployed apart from the clock: the clock
    /// service's URL (e.g. http://clock:7072), where the time-bank cards an
    /// action took on the action clock are recorded, called with the
    /// services' own token.
    #[arg(long, env = "FELT_CLOCK")]
    clock: Option<String>,
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
    /// The secret seated players' credentials are signed with (32 to 256
    /// characters): the same at every replica of the table service, so a
    /// credential one issued works at all. Without it each process draws
    /// its own, and its credentials work at it alone, until it restarts.
    #[arg(long, env = "FELT_SEAT_KEY", hide_env_values = true)]
    seat_key: Option<String>,
    /// The secret partners' webhooks' secrets derive from (32 to 256
    /// characters), the same wherever the seating service runs: a webhook's
    /// secret stays what its partner was given across restarts. Without it
    /// webhooks cannot be registered (`felt up` draws one into its data
    /// folder).
    #[arg(long, env = "FELT_WEBHOOK_KEY", hide_env_values = true)]
    webhook_key: Option<String>,
}

/// The service's configuration file.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    data: Option<PathBuf>,
    nats: Option<String>,
    nats_replicas: Option<usize>,
    tables: Option<String>,
    seating: Option<String>,
    clock: Option<String>,
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
pub struct Settings {
    data: PathBuf,
    nats: Option<String>,
    nats_replicas: usize,
    tables: Option<String>,
    seating: Option<String>,
    clock: Option<String>,
    listen: SocketAddr,
    tokens: Vec<(String, auth::Role)>,
    otlp: Option<String>,
    broadcast_delay: Option<std::time::Duration>,
    tls: Option<ServerTlsConfig>,
    /// Whether the room display's pages are served beside the API.
    display: bool,
    /// Where every seed comes from: the operating system, but for the
    /// services `felt sim` runs in its own process.
    pub seeds: Seeds,
    /// The seats' credentials' key, when the deployment gives one.
    seat_key: Option<auth::SeatKey>,
    /// The key webhooks' secrets derive from, when the deployment gives one.
    webhook_key: Option<felt_webhooks::Key>,
}

/// The server's TLS settings: a certificate and key, and for mTLS the CA
/// callers' certificates must be signed by.
fn tls(
    cert: Option<PathBuf>,
    key: Option<PathBuf>,
    client_ca: Option<PathBuf>,
) -> Result<Option<ServerTlsConfig>> {
    let read = |path: &PathBuf| {
        std::fs::read(path).map_err(|e| ServeError::file(path, format!("cannot read it: {e}")))
    };
    match (cert, key) {
        (None, None) => {
            if client_ca.is_some() {
                return Err(ServeError::settings(
                    "--tls-client-ca needs --tls-cert and --tls-key",
                ));
            }
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
        _ => Err(ServeError::settings("--tls-cert and --tls-key go together")),
    }
}

impl Settings {
    /// Plain gRPC on the embedded log's defaults, with these tokens.
    pub fn with_tokens(tokens: Vec<(String, auth::Role)>) -> Settings {
        Settings {
            data: PathBuf::from("felt-data"),
            nats: None,
            nats_replicas: 1,
            tables: None,
            seating: None,
            clock: None,
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            tokens,
            otlp: None,
            broadcast_delay: None,
            tls: None,
            display: false,
            seeds: Seeds::os(),
            seat_key: None,
            webhook_key: None,
        }
    }
}

impl ServeArgs {
    fn settings(&self) -> Result<Settings> {
        let file = match &self.config {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| ServeError::file(path, format!("cannot read it: {e}")))?;
                toml::from_str::<ConfigFile>(&text).map_err(|e| ServeError::file(path, e))?
            }
            None => ConfigFile::default(),
        };
        let tokens = if self.tokens.is_empty() {
            file.tokens
                .iter()
                .map(|t| auth::parse_token(t).map_err(ServeError::Settings))
                .collect::<Result<_>>()?
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
            nats_replicas: self.nats_replicas.or(file.nats_replicas).unwrap_or(1),
            tables: self.tables.clone().or(file.tables),
            seating: self.seating.clone().or(file.seating),
            clock: self.clock.clone().or(file.clock),
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
            display: false,
            seeds: Seeds::os(),
            seat_key: self
                .seat_key
                .as_deref()
                .map(auth::SeatKey::from_secret)
                .transpose()
                .map_err(ServeError::settings)?,
            webhook_key: self
                .webhook_key
                .as_deref()
                .map(felt_webhooks::Key::from_secret)
                .transpose()
                .map_err(|e| {
                    ServeError::settings(format!("--webhook-key (FELT_WEBHOOK_KEY): {e}"))
                })?,
        })
    }
}

pub fn run(command: ServeCommand) -> Result<()> {
    let (args, services, name) = match command {
        ServeCommand::Display(a) => return serve_display(a),
        ServeCommand::Table(a) => (
            a,
            Services {
                table: true,
                ..Services::NONE
            },
            "felt-table",
        ),
        ServeCommand::Clock(a) => (
            a,
            Services {
                clock: true,
                ..Services::NONE
            },
            "felt-clock",
        ),
        ServeCommand::Seating(a) => (
            a,
            Services {
                seating: true,
                ..Services::NONE
            },
            "felt-seating",
        ),
        ServeCommand::Payout(a) => (
            a,
            Services {
                payout: true,
                ..Services::NONE
            },
            "felt-payout",
        ),
    };
    let settings = args.settings()?;
    if settings.tokens.is_empty() {
        return Err(ServeError::settings(
            "no --token given: every call must carry a known token",
        ));
    }
    start(name, services, settings, None)
}

/// `felt serve display`: the pages alone, reading the services over gRPC.
fn serve_display(args: DisplayArgs) -> Result<()> {
    let tls = tls(args.tls_cert.clone(), args.tls_key.clone(), None)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let _telemetry = crate::telemetry::init("felt-display", None)?;
        let room = display::Display::new(
            display::remote(&args.clock)?,
            display::remote(&args.seating)?,
            display::remote(&args.payout)?,
            &args.tokens,
            Arc::new(shared::wall_clock),
        )?;
        let incoming = TcpIncoming::bind(args.listen)
            .map_err(|e| ServeError::Io(std::io::Error::other(e)))?
            .with_nodelay(Some(true));
        let addr = incoming.local_addr()?;
        let mut out = std::io::stdout().lock();
        writeln!(out, "felt display service listening on {addr}")?;
        out.flush()?;
        drop(out);
        tracing::info!(%addr, clock = %args.clock, seating = %args.seating, payout = %args.payout, "felt display");
        let (_health, health_service) = tonic_health::server::health_reporter();
        let mut routes = RoutesBuilder::default();
        routes.add_service(health_service);
        let routes = browser::routes(routes.routes(), Some(display::router(room)));
        let mut server = Server::builder().accept_http1(true);
        if let Some(tls) = tls {
            server = server.tls_config(tls)?;
        }
        server.add_routes(routes)
            .serve_with_incoming(incoming)
            .await?;
        Ok(())
    })
}

/// `felt up`: the four services in one process on one port.
pub fn up(args: &ServeArgs) -> Result<()> {
    let mut settings = args.settings()?;
    let mut printed = None;
    if settings.tokens.is_empty() {
        let tokens = auth::room_tokens(&settings.data)?;
        printed = Some(tokens.clone());
        settings.tokens = tokens;
    }
    if settings.webhook_key.is_none() {
        settings.webhook_key = Some(auth::webhook_key(&settings.data)?);
    }
    settings.display = true;
    start("felt", Services::ALL, settings, printed)
}

/// Opens the log named by the settings and serves on it until stopped.
fn start(
    name: &'static str,
    services: Services,
    settings: Settings,
    printed: Option<Vec<(String, auth::Role)>>,
) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let _telemetry = crate::telemetry::init(name, settings.otlp.as_deref())?;
        let incoming = TcpIncoming::bind(settings.listen)
            .map_err(|e| ServeError::Io(std::io::Error::other(e)))?
            .with_nodelay(Some(true));
        let addr = incoming.local_addr()?;
        let now: Now = Arc::new(shared::wall_clock);
        match &settings.nats {
            Some(url) => {
                let log = NatsLog::connect(
                    url,
                    &NatsSettings {
                        replicas: settings.nats_replicas,
                        ..NatsSettings::default()
                    },
                )
                .await?;
                announce(services, addr, &settings, printed.as_deref(), url);
                serve(Arc::new(log), services, &settings, now, incoming).await
            }
            None => {
                std::fs::create_dir_all(&settings.data)?;
                let path = crate::logs::embedded_path(&settings.data);
                let log = EmbeddedLog::open(&path)?;
                let at = path.display().to_string();
                announce(services, addr, &settings, printed.as_deref(), &at);
                serve(Arc::new(log), services, &settings, now, incoming).await
            }
        }
    })
}

/// Prints where to connect (the first line, which tests read) and, for
/// `felt up`, each role's token, in one write: a reader that stops after
/// the first line (or a closed stdout) does not stop the service.
fn announce(
    services: Services,
    addr: SocketAddr,
    settings: &Settings,
    printed: Option<&[(String, auth::Role)]>,
    log: &str,
) {
    use std::fmt::Write as _;
    let mut text = String::new();
    if services == Services::ALL {
        let _ = writeln!(text, "felt up listening on {addr}");
    } else {
        let _ = writeln!(
            text,
            "felt {} service listening on {addr}",
            services.names()
        );
    }
    let _ = writeln!(text, "event log: {log}");
    let scheme = if settings.tls.is_some() {
        "https"
    } else {
        "http"
    };
    if let Some(tokens) = printed {
        let _ = writeln!(
            text,
            "gRPC services ({}) at {scheme}://{addr}, with reflection; send \"authorization: Bearer <token>\"",
            services.names()
        );
        for (token, role) in tokens {
            let _ = writeln!(text, "token {}: {token}", role.name());
        }
    }
    if settings.display
        && let Some((partner, _)) = settings
            .tokens
            .iter()
            .find(|(_, r)| *r == auth::Role::Partner)
    {
        let _ = writeln!(
            text,
            "room display (clock, seat finder, pay board): {scheme}://{addr}/?token={partner}"
        );
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        tracing::warn!(%e, "cannot print where to connect");
    }
    tracing::info!(%addr, services = %services.names(), "felt up");
}

/// Runs `services` (with health and reflection) on `incoming`, and their
/// background work: the clock's ticker, seating's follower of the tables.
pub async fn serve<L: EventLog + 'static>(
    log: Arc<L>,
    services: Services,
    settings: &Settings,
    now: Now,
    incoming: TcpIncoming,
) -> Result<()> {
    let conductor = match &settings.tables {
        None => Conductor::new(log),
        Some(url) => {
            if services.table {
                return Err(ServeError::settings(
                    "--tables names a table service elsewhere: this process runs its own",
                ));
            }
            let token = service_token(settings, "--tables", "the table service")?;
            Conductor::with_table_service(log, Arc::new(remote::RemoteTables::new(url, token)?))
        }
    };
    // Each process runs the reactions that write its own services' streams.
    let hosts = felt_tournament::Hosts {
        seating: services.seating,
        clock: services.clock,
        payout: services.payout,
    };
    let mut conductor = conductor
        .with_draws(settings.seeds.seating())
        .hosting(hosts);
    if let Some(clock) = remote_clock(services, settings)? {
        conductor = conductor.with_clock_service(Arc::new(clock));
    }
    let conductor = Arc::new(conductor);
    serve_conductor(conductor, services, settings, now, incoming).await
}

/// The services' own token, which `flag` needs to call `whom` with.
fn service_token(settings: &Settings, flag: &str, whom: &str) -> Result<String> {
    settings
        .tokens
        .iter()
        .find(|(_, role)| *role == auth::Role::Service)
        .map(|(token, _)| token.clone())
        .ok_or_else(|| {
            ServeError::settings(format!(
                "{flag} needs the services' own token to call {whom} with (--token service=TOKEN, the same at {whom})"
            ))
        })
}

/// Seating elsewhere, for the clock: `--seating`, only where this process
/// runs the clock and not seating.
fn remote_seating(
    services: Services,
    settings: &Settings,
) -> Result<Option<remote::RemoteSeating>> {
    let Some(url) = &settings.seating else {
        return Ok(None);
    };
    if services.seating {
        return Err(ServeError::settings(
            "--seating names a seating service elsewhere: this process runs its own",
        ));
    }
    let token = service_token(settings, "--seating", "the seating service")?;
    remote::RemoteSeating::new(url, token).map(Some)
}

/// The clock elsewhere, for the table service: `--clock`, only where this
/// process runs the tables and not the clock.
fn remote_clock(services: Services, settings: &Settings) -> Result<Option<remote::RemoteClock>> {
    let Some(url) = &settings.clock else {
        return Ok(None);
    };
    if services.clock {
        return Err(ServeError::settings(
            "--clock names a clock service elsewhere: this process runs its own",
        ));
    }
    if !services.table {
        return Err(ServeError::settings(
            "--clock is for the table service deployed apart from the clock",
        ));
    }
    let token = service_token(settings, "--clock", "the clock service")?;
    remote::RemoteClock::new(url, token).map(Some)
}

/// [`serve`] with a conductor of the caller's (who may read its figures).
pub async fn serve_conductor<L: EventLog + 'static>(
    conductor: Arc<Conductor<L>>,
    services: Services,
    settings: &Settings,
    now: Now,
    incoming: TcpIncoming,
) -> Result<()> {
    let tokens: HashMap<String, auth::Role> = settings.tokens.iter().cloned().collect();
    // A seat's credentials: good at every replica given the same key;
    // without one, at this process while it runs.
    let seat_key = match &settings.seat_key {
        Some(key) => key.clone(),
        None => {
            if services.table && !conductor.hosts().all() {
                tracing::warn!(
                    "no --seat-key (FELT_SEAT_KEY): seat credentials this table service issues work at this process only, until it restarts"
                );
            }
            auth::SeatKey::new(shared::fresh_seed().0)
        }
    };
    // The people registry's credentials, as this process folds them.
    let people = Arc::new(people::Credentials::default());
    let interceptor = auth::authenticate(Arc::new(tokens), people.clone(), seat_key.clone());

    let ctx = shared::Ctx {
        conductor: conductor.clone(),
        now,
        seeds: settings.seeds.clone(),
        known: Arc::default(),
        progress: Arc::default(),
        watch: Arc::new(felt_eventlog::Fanout::new(conductor.seating.log().clone())),
    };
    let (health, health_service) = tonic_health::server::health_reporter();
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(felt_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    let mut routes = RoutesBuilder::default();
    routes.add_service(health_service).add_service(reflection);
    if services.table {
        let api = table::TableApi::new(
            conductor.clone(),
            settings.broadcast_delay,
            settings.seeds.clone(),
            seat_key.clone(),
            ctx.now.clone(),
            ctx.watch.clone(),
        );
        health
            .set_serving::<TableServiceServer<table::TableApi<L>>>()
            .await;
        routes.add_service(auth::guard(TableServiceServer::new(api), &interceptor));
    }
    let mut background = tokio::task::JoinSet::new();
    background.spawn(people::follow(
        conductor.seating.log().clone(),
        people.clone(),
    ));
    if !conductor.hosts().all() {
        // Deployed apart: the reactions that write this process's streams
        // follow their causes in the log (in one process, the front door's
        // calls run them).
        background.spawn(reactions(conductor.clone()));
    }
    if services.clock {
        health
            .set_serving::<ClockServiceServer<clock::ClockApi<L>>>()
            .await;
        routes.add_service(auth::guard(
            ClockServiceServer::new(clock::ClockApi::new(
                ctx.clone(),
                remote_seating(services, settings)?,
            )),
            &interceptor,
        ));
        background.spawn(clock::ticker(ctx.clone()));
    }
    if services.seating {
        health
            .set_serving::<SeatingServiceServer<seating::SeatingApi<L>>>()
            .await;
        routes.add_service(auth::guard(
            SeatingServiceServer::new(seating::SeatingApi::new(
                ctx.clone(),
                people.clone(),
                seat_key.clone(),
            )),
            &interceptor,
        ));
        background.spawn(seating::follower(ctx.clone()));
        // Partners' webhooks: registered where seating is, delivered from
        // its process.
        let deliveries = Arc::new(webhooks::Deliveries::default());
        if let Some(key) = settings.webhook_key.clone() {
            background.spawn(webhooks::deliver(
                conductor.seating.log().clone(),
                key,
                webhooks::client()?,
                deliveries.clone(),
                ctx.now.clone(),
                settings.broadcast_delay,
            ));
        }
        health
            .set_serving::<WebhookServiceServer<webhooks::WebhookApi<L>>>()
            .await;
        routes.add_service(auth::guard(
            WebhookServiceServer::new(webhooks::WebhookApi::new(
                ctx.clone(),
                settings.webhook_key.clone(),
                deliveries,
                settings.broadcast_delay,
            )),
            &interceptor,
        ));
    }
    if services.payout {
        health
            .set_serving::<PayoutServiceServer<payout::PayoutApi<L>>>()
            .await;
        routes.add_service(auth::guard(
            PayoutServiceServer::new(payout::PayoutApi::new(ctx.clone())),
            &interceptor,
        ));
    }
    // HTTP/1.1 beside HTTP/2: browsers' gRPC-Web, and the display's pages.
    let mut server = Server::builder().accept_http1(true);
    if let Some(tls) = settings.tls.clone() {
        server = server.tls_config(tls)?;
    }
    let routes = routes.routes();
    let pages = if settings.display {
        // The pages are HTTP/1.1 beside the gRPC services (HTTP/2) on the
        // same port, and read those services in process.
        let grpc = display::in_process(routes.clone());
        let room = display::Display::new(
            grpc.clone(),
            grpc.clone(),
            grpc,
            &settings.tokens,
            ctx.now.clone(),
        )?;
        Some(display::router(room))
    } else {
        None
    };
    server
        .add_routes(browser::routes(routes, pages))
        .serve_with_incoming(incoming)
        .await?;
    background.abort_all();
    Ok(())
}

/// Runs the reactions whose targets this process hosts as their causes are
/// committed; after an error (the log out of reach), again from the
/// runners' recorded positions. Runs until the process stops.
async fn reactions<L: EventLog + 'static>(conductor: Arc<Conductor<L>>) {
    loop {
        match conductor.follow_reactions().await {
            Ok(()) => return,
            Err(e) => {
                tracing::warn!(%e, "following the reactions' causes failed: starting again");
                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ConfigFile;

    /// The configuration examples in deploy/felt are what the services
    /// read: every key known, every value of its type.
    #[test]
    fn the_deployment_examples_are_valid_configuration_files() {
        for (name, text) in [
            ("table", include_str!("../../../../deploy/felt/table.toml")),
            (
                "seating",
                include_str!("../../../../deploy/felt/seating.toml"),
            ),
            ("clock", include_str!("../../../../deploy/felt/clock.toml")),
            (
                "payout",
                include_str!("../../../../deploy/felt/payout.toml"),
            ),
        ] {
            let config: ConfigFile =
                toml::from_str(text).unwrap_or_else(|e| panic!("deploy/felt/{name}.toml: {e}"));
            assert_eq!(config.nats_replicas, Some(3), "{name}");
            assert!(
                config
                    .nats
                    .as_deref()
                    .is_some_and(|n| n.split(',').count() == 3)
            );
            assert_eq!(
                config.tables.is_some(),
                name == "seating" || name == "clock"
            );
            assert_eq!(config.seating.is_some(), name == "clock", "{name}");
        }
        let bad = toml::from_str::<ConfigFile>("listen = \"0.0.0.0:7070\"\nreplicas = 3\n");
        assert!(
            bad.unwrap_err()
                .to_string()
                .contains("unknown field `replicas`")
        );
    }
}
