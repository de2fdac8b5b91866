//! `felt-bench partners`: partners' streams under load. While dealers play
//! 500 tables at a fixed rate of commands (over gRPC, as a room's tablets
//! do) and the director pauses and resumes the clock, 1,000 partner streams
//! follow them over gRPC: table watchers spread over the tables, clock
//! watchers and results watchers (a registration now and then gives payout
//! something to say). Catch-up reads do not count: every watcher has its
//! table's snapshot before the dealing starts, and only events committed
//! after are counted. Reports events delivered per second and the delay
//! from the command's sending (its append included) to each delivery.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use felt_proto::v1 as pb;
use felt_proto::v1::clock_service_client::ClockServiceClient;
use felt_proto::v1::payout_service_client::PayoutServiceClient;
use felt_proto::v1::seating_service_client::SeatingServiceClient;
use felt_proto::v1::table_service_client::TableServiceClient;
use pb::execute_request::Command as C;
use tonic::Request;
use tonic::transport::Channel;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Backend {
    Embedded,
    Nats,
}

#[derive(Debug, Args)]
pub(crate) struct PartnersArgs {
    /// The event log under the services.
    #[arg(long, value_enum, default_value_t = Backend::Embedded)]
    backend: Backend,
    /// A running NATS server (with `--backend nats`); without it a local
    /// nats-server is started.
    #[arg(long)]
    nats: Option<String>,
    /// Tables dealt at once.
    #[arg(long, default_value_t = 500)]
    tables: u32,
    /// Partner streams in all: table watchers, plus the clock and results
    /// watchers below.
    #[arg(long, default_value_t = 1_000)]
    streams: u32,
    /// Of the streams, clock watchers.
    #[arg(long, default_value_t = 25)]
    clock_watchers: u32,
    /// Of the streams, results watchers.
    #[arg(long, default_value_t = 25)]
    results_watchers: u32,
    /// Dealer commands per second over all tables (each table's dealer
    /// sends one every `tables / rate` seconds).
    #[arg(long, default_value_t = 5_000)]
    rate: u32,
    /// How long the dealers deal.
    #[arg(long, default_value_t = 20)]
    seconds: u64,
    /// Connections the partners' streams share (HTTP/2, many streams each).
    #[arg(long, default_value_t = 20)]
    connections: u32,
}

const DIRECTOR: &str = "bench-director";
const PARTNER: &str = "bench-partner";
/// The tables' tournament (tables the bench's dealers open themselves).
const TABLES: &str = "bench-tables";
/// The tournament whose clock and results are watched.
const EVENT: &str = "bench-event";

fn with<T>(msg: T, token: &str) -> Request<T> {
    let mut req = Request::new(msg);
    if let Ok(v) = format!("Bearer {token}").parse() {
        req.metadata_mut().insert("authorization", v);
    }
    req
}

/// When each command that may have made an event was sent, and when its
/// append was acknowledged: per stream, the first version it could make,
/// the moment it was sent and the moment its answer came back.
#[derive(Default)]
struct Sent {
    streams: Mutex<HashMap<String, Vec<Command>>>,
}

/// A command's first version it could make, when it was sent, and when its
/// answer came back.
type Command = (u64, Instant, Option<Instant>);

/// When an event's command was sent, and acknowledged if it was yet.
type Times = (Instant, Option<Instant>);

impl Sent {
    fn record(&self, stream: &str, first: u64, at: Instant) {
        if let Ok(mut s) = self.streams.lock() {
            s.entry(stream.to_string())
                .or_default()
                .push((first, at, None));
        }
    }

    /// The last command sent on `stream` was acknowledged now.
    fn acknowledged(&self, stream: &str) {
        if let Ok(mut s) = self.streams.lock()
            && let Some(last) = s.get_mut(stream).and_then(|v| v.last_mut())
        {
            last.2 = Some(Instant::now());
        }
    }

    /// When the command that made `stream`'s event `sequence` was sent,
    /// and acknowledged.
    fn of(&self, stream: &str, sequence: u64) -> Option<Times> {
        let s = self.streams.lock().ok()?;
        let sent = s.get(stream)?;
        let i = sent.partition_point(|&(first, _, _)| first <= sequence);
        sent.get(i.checked_sub(1)?)
            .map(|&(_, at, acked)| (at, acked))
    }
}

/// What the watchers saw while counting.
#[derive(Default)]
struct Seen {
    counting: AtomicBool,
    delivered: AtomicU64,
    /// From the command's sending (its append included) to delivery.
    from_sent_us: Mutex<Vec<u32>>,
    /// From the append's acknowledgement reaching the dealer to delivery
    /// (0 when the delivery came first).
    from_ack_us: Mutex<Vec<u32>>,
}

fn micros(d: Duration) -> u32 {
    u32::try_from(d.as_micros()).unwrap_or(u32::MAX)
}

impl Seen {
    fn delivered(&self, times: Option<Times>) {
        if !self.counting.load(Ordering::Relaxed) {
            return;
        }
        self.delivered.fetch_add(1, Ordering::Relaxed);
        if let Some((sent, acked)) = times {
            let now = Instant::now();
            if let Ok(mut d) = self.from_sent_us.lock() {
                d.push(micros(now - sent));
            }
            let after_ack = acked.map_or(Duration::ZERO, |a| now.saturating_duration_since(a));
            if let Ok(mut d) = self.from_ack_us.lock() {
                d.push(micros(after_ack));
            }
        }
    }
}

/// p50, p99 and max of `us` in milliseconds.
fn spread(us: &Mutex<Vec<u32>>) -> (f64, f64, f64, usize) {
    let mut d = us.lock().map(|d| d.clone()).unwrap_or_default();
    d.sort_unstable();
    let at = |p: f64| {
        d.get(((d.len() as f64 - 1.0) * p).round() as usize)
            .copied()
            .map_or(0.0, |us| f64::from(us) / 1e3)
    };
    (at(0.5), at(0.99), at(1.0), d.len())
}

async fn services(
    args: &PartnersArgs,
) -> anyhow::Result<(
    Option<felt_testkit::NatsServer>,
    String,
    String,
    Option<tempfile::TempDir>,
)> {
    let incoming = tonic::transport::server::TcpIncoming::bind("127.0.0.1:0".parse()?)
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .with_nodelay(Some(true));
    let addr = incoming.local_addr()?;
    let settings = felt::serve::Settings::with_tokens(vec![
        (DIRECTOR.into(), felt::serve::auth::Role::Director),
        (PARTNER.into(), felt::serve::auth::Role::Partner),
    ]);
    let now: felt::serve::Now = Arc::new(felt::serve::wall_clock);
    let all = felt::serve::Services::ALL;
    match args.backend {
        Backend::Nats => {
            let (guard, url) = match &args.nats {
                Some(url) => (None, url.clone()),
                None => {
                    let local = felt_testkit::NatsServer::start()?;
                    let url = local.url();
                    (Some(local), url)
                }
            };
            let log = Arc::new(
                felt_eventlog::NatsLog::connect(&url, &felt_eventlog::NatsSettings::default())
                    .await?,
            );
            tokio::spawn(
                async move { felt::serve::serve(log, all, &settings, now, incoming).await },
            );
            Ok((guard, format!("nats at {url}"), addr.to_string(), None))
        }
        Backend::Embedded => {
            let dir = tempfile::tempdir()?;
            let path = dir.path().join("log.redb");
            let log = Arc::new(felt_eventlog::EmbeddedLog::open(&path)?);
            tokio::spawn(
                async move { felt::serve::serve(log, all, &settings, now, incoming).await },
            );
            Ok((
                None,
                format!("embedded at {}", path.display()),
                addr.to_string(),
                Some(dir),
            ))
        }
    }
}

fn table_ref(table: u32) -> Option<pb::TableRef> {
    Some(pb::TableRef {
        tournament_id: TABLES.into(),
        table,
    })
}

async fn open_tables(channel: &Channel, tables: u32) -> anyhow::Result<Vec<u64>> {
    let mut client = TableServiceClient::new(channel.clone());
    let mut versions = Vec::new();
    for t in 1..=tables {
        let exec = |id: String, command: C| {
            with(
                pb::ExecuteRequest {
                    table: table_ref(t),
                    command_id: id,
                    command: Some(command),
                    provenance: None,
                },
                DIRECTOR,
            )
        };
        client
            .execute(exec(
                "open".into(),
                C::OpenTable(pb::OpenTable {
                    seats: 9,
                    rules: None,
                }),
            ))
            .await?;
        let mut version = 0;
        for seat in 1..=9 {
            let answer = client
                .execute(exec(
                    format!("seat-{seat}"),
                    C::SeatPlayer(pb::SeatPlayer {
                        seat,
                        entry: u64::from(t * 10 + seat),
                        stack: 1_000_000_000,
                        carried: Default::default(),
                    }),
                ))
                .await?
                .into_inner();
            version = answer.table.map_or(version, |v| v.version);
        }
        versions.push(version);
    }
    Ok(versions)
}

async fn create_event(channel: &Channel) -> anyhow::Result<()> {
    SeatingServiceClient::new(channel.clone())
        .create_tournament(with(
            pb::CreateTournamentRequest {
                deal: pb::DealMode::Digital.into(),
                tournament_id: EVENT.into(),
                name: "Partners bench".into(),
                structure: Some(pb::create_tournament_request::Structure::Preset(
                    pb::StructurePreset::Turbo.into(),
                )),
                table_size: 9,
                // Registration open through the run: payout records each.
                late_registration_level: 20,
                max_entries: 100_000,
                money: Some(pb::MoneySettings {
                    currency: "USD".into(),
                    buy_in: 10_000,
                    ..Default::default()
                }),
                ..Default::default()
            },
            DIRECTOR,
        ))
        .await?;
    let mut seating = SeatingServiceClient::new(channel.clone());
    for k in 0..2 {
        seating
            .register(with(
                pb::RegisterRequest {
                    tournament_id: EVENT.into(),
                    command_id: format!("first-{k}"),
                    player_id: format!("first{k}"),
                    name: format!("First {k}"),
                    ..Default::default()
                },
                DIRECTOR,
            ))
            .await?;
    }
    seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: EVENT.into(),
            },
            DIRECTOR,
        ))
        .await?;
    Ok(())
}

/// One table's dealer: a command every `period`, one at a time.
async fn deal(
    channel: Channel,
    table: u32,
    mut version: u64,
    period: Duration,
    until: Instant,
    sent: Arc<Sent>,
) -> anyhow::Result<u64> {
    let mut client = TableServiceClient::new(channel);
    let mut view: Option<pb::TableView> = None;
    let mut hand = 0;
    let mut tick = tokio::time::interval(period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let key = format!("table-{table}");
    let mut k = 0u64;
    while Instant::now() < until {
        tick.tick().await;
        let command = super::table::next_command(view.as_ref(), &mut hand, k);
        let at = Instant::now();
        sent.record(&key, version + 1, at);
        let answer = client
            .execute(with(
                pb::ExecuteRequest {
                    table: table_ref(table),
                    command_id: format!("d-{k}"),
                    command: Some(command),
                    provenance: None,
                },
                DIRECTOR,
            ))
            .await?
            .into_inner();
        sent.acknowledged(&key);
        k += 1;
        if let Some(v) = answer.table {
            version = v.version;
            view = Some(v);
        }
    }
    Ok(k)
}

/// The director pauses and resumes the clock every half second, and the
/// cage registers a player every 100 ms (payout records each entry).
async fn direct(channel: Channel, until: Instant, sent: Arc<Sent>) -> anyhow::Result<()> {
    let mut clock = ClockServiceClient::new(channel.clone());
    let mut seating = SeatingServiceClient::new(channel);
    let mut version = clock
        .get_clock(with(
            pb::GetClockRequest {
                tournament_id: EVENT.into(),
            },
            DIRECTOR,
        ))
        .await?
        .into_inner()
        .clock
        .map_or(0, |c| c.version);
    let mut k = 0u64;
    while Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(100)).await;
        seating
            .register(with(
                pb::RegisterRequest {
                    tournament_id: EVENT.into(),
                    command_id: format!("r-{k}"),
                    player_id: format!("p{k}"),
                    name: format!("Player {k}"),
                    ..Default::default()
                },
                DIRECTOR,
            ))
            .await?;
        if k % 5 == 4 {
            use pb::control_clock_request::Command as K;
            let command = if (k / 5).is_multiple_of(2) {
                K::Pause(pb::Pause {
                    reason: "bench".into(),
                })
            } else {
                K::Resume(pb::Resume {
                    reason: "bench".into(),
                })
            };
            sent.record("clock", version + 1, Instant::now());
            let view = clock
                .control_clock(with(
                    pb::ControlClockRequest {
                        tournament_id: EVENT.into(),
                        command_id: format!("c-{k}"),
                        command: Some(command),
                    },
                    DIRECTOR,
                ))
                .await?
                .into_inner()
                .clock;
            sent.acknowledged("clock");
            version = view.map_or(version, |c| c.version);
        }
        k += 1;
    }
    Ok(())
}

async fn watch_table(
    channel: Channel,
    table: u32,
    ready: Arc<AtomicU64>,
    sent: Arc<Sent>,
    seen: Arc<Seen>,
) -> anyhow::Result<()> {
    let mut stream = TableServiceClient::new(channel)
        .watch_table(with(
            pb::WatchTableRequest {
                table: table_ref(table),
                after_version: 0,
            },
            PARTNER,
        ))
        .await?
        .into_inner();
    let key = format!("table-{table}");
    while let Some(item) = stream.message().await? {
        match item.item {
            Some(pb::watch_table_response::Item::Snapshot(_)) => {
                ready.fetch_add(1, Ordering::Relaxed);
            }
            Some(pb::watch_table_response::Item::Event(e)) => {
                seen.delivered(sent.of(&key, e.sequence));
            }
            None => {}
        }
    }
    Ok(())
}

async fn watch_clock(
    channel: Channel,
    ready: Arc<AtomicU64>,
    sent: Arc<Sent>,
    seen: Arc<Seen>,
) -> anyhow::Result<()> {
    let mut stream = ClockServiceClient::new(channel)
        .watch_clock(with(
            pb::WatchClockRequest {
                tournament_id: EVENT.into(),
                after_version: 0,
            },
            PARTNER,
        ))
        .await?
        .into_inner();
    let mut first = true;
    while let Some(change) = stream.message().await? {
        if std::mem::take(&mut first) {
            ready.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        for e in &change.events {
            seen.delivered(sent.of("clock", e.sequence));
        }
    }
    Ok(())
}

async fn watch_results(
    channel: Channel,
    ready: Arc<AtomicU64>,
    seen: Arc<Seen>,
) -> anyhow::Result<()> {
    ready.fetch_add(1, Ordering::Relaxed);
    let mut stream = PayoutServiceClient::new(channel)
        .watch_results(with(
            pb::WatchResultsRequest {
                tournament_id: EVENT.into(),
                after_version: 0,
            },
            PARTNER,
        ))
        .await?
        .into_inner();
    while let Some(change) = stream.message().await? {
        for _ in &change.events {
            seen.delivered(None);
        }
    }
    Ok(())
}

pub(crate) fn run(args: &PartnersArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let (_nats, log, addr, _dir) = services(args).await?;
        let endpoint = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))?;
        let channel = endpoint.connect().await?;
        let versions = open_tables(&channel, args.tables).await?;
        create_event(&channel).await?;
        let mut connections = Vec::new();
        for _ in 0..args.connections.max(1) {
            connections.push(endpoint.connect().await?);
        }
        let table_watchers = args
            .streams
            .saturating_sub(args.clock_watchers + args.results_watchers);
        println!(
            "partners: {log}; {} tables dealt at {} commands/s for {} s; {} streams ({table_watchers} table, {} clock, {} results watchers) on {} connections",
            args.tables,
            args.rate,
            args.seconds,
            args.streams,
            args.clock_watchers,
            args.results_watchers,
            connections.len()
        );
        let sent = Arc::new(Sent::default());
        let seen = Arc::new(Seen::default());
        let ready = Arc::new(AtomicU64::new(0));
        let mut watchers = tokio::task::JoinSet::new();
        for w in 0..args.streams {
            let channel = connections[w as usize % connections.len()].clone();
            let (ready, sent, seen) = (ready.clone(), sent.clone(), seen.clone());
            if w < table_watchers {
                let table = w % args.tables.max(1) + 1;
                watchers.spawn(watch_table(channel, table, ready, sent, seen));
            } else if w < table_watchers + args.clock_watchers {
                watchers.spawn(watch_clock(channel, ready, sent, seen));
            } else {
                watchers.spawn(watch_results(channel, ready, seen));
            }
        }
        // Every stream past its catch-up before counting.
        let wait = Instant::now();
        while ready.load(Ordering::Relaxed) < u64::from(args.streams) {
            if let Some(Ok(Err(e))) = watchers.try_join_next() {
                anyhow::bail!("a watcher failed: {e}");
            }
            anyhow::ensure!(
                wait.elapsed() < Duration::from_secs(60),
                "only {} of {} streams started within a minute",
                ready.load(Ordering::Relaxed),
                args.streams
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        seen.counting.store(true, Ordering::Relaxed);
        let began = Instant::now();
        let until = began + Duration::from_secs(args.seconds);
        let period = Duration::from_secs_f64(f64::from(args.tables) / f64::from(args.rate.max(1)));
        let mut dealers = tokio::task::JoinSet::new();
        for (i, version) in versions.into_iter().enumerate() {
            let table = u32::try_from(i)? + 1;
            dealers.spawn(deal(
                connections[i % connections.len()].clone(),
                table,
                version,
                period,
                until,
                sent.clone(),
            ));
        }
        let director = tokio::spawn(direct(channel.clone(), until, sent.clone()));
        let mut commands = 0;
        while let Some(d) = dealers.join_next().await {
            commands += d??;
        }
        director.await??;
        let dealt = began.elapsed();
        // What was committed is delivered: a moment for the last of it.
        tokio::time::sleep(Duration::from_millis(500)).await;
        seen.counting.store(false, Ordering::Relaxed);
        watchers.abort_all();
        let delivered = seen.delivered.load(Ordering::Relaxed);
        let (s50, s99, smax, timed) = spread(&seen.from_sent_us);
        let (a50, a99, amax, _) = spread(&seen.from_ack_us);
        println!(
            "{commands} dealer commands in {:.1} s ({:.0}/s); {delivered} events delivered to the streams: {:.0} deliveries/s",
            dealt.as_secs_f64(),
            commands as f64 / dealt.as_secs_f64(),
            delivered as f64 / dealt.as_secs_f64(),
        );
        println!(
            "delay to delivery ({timed} timed): from the command's sending (its append included) p50 {s50:.1} ms, p99 {s99:.1} ms, max {smax:.1} ms; from its acknowledgement p50 {a50:.1} ms, p99 {a99:.1} ms, max {amax:.1} ms"
        );
        Ok(())
    })
}
