//! `felt sim`: a whole tournament played by bots, from registration to a
//! winner. By default the four services run in this process on a loopback
//! port, exactly as `felt up` serves them, on simulated time. With
//! `--seating`, `--table`, `--clock` and `--payout` the simulation plays
//! against services already running (a cluster, say) on their real clock,
//! and sends every call again while a service is away (restarting), with
//! the same command id. Either way the simulation is the services' client
//! over gRPC only: the director creates and registers at seating, a dealer
//! per table asks seating for each hand and deals it at the table service,
//! the bots' actions go to the table service, and the results come from
//! payout.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::Args;
use felt_cards::Seed;
use felt_clock::{Millis, Structure};
use felt_eventlog::{EmbeddedLog, EventLog, NatsLog, NatsSettings};
use felt_proto::v1 as pb;
use felt_proto::v1::clock_service_client::ClockServiceClient;
use felt_proto::v1::payout_service_client::PayoutServiceClient;
use felt_proto::v1::seating_service_client::SeatingServiceClient;
use felt_proto::v1::table_service_client::TableServiceClient;
use felt_table::PlayerAction;
use felt_tournament::{Conductor, bot};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use tonic::transport::Channel;
use tonic::{Code, Request, Status};

#[derive(Debug, Args)]
pub(crate) struct SimArgs {
    /// Players registered (late entries and re-entries come on top).
    #[arg(long, default_value_t = 200)]
    entrants: u32,
    /// Seeds the seat draws, the decks and the bots.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The blind structure: turbo, bhpoker, main-event, or a TOML/JSON file.
    #[arg(long, default_value = "turbo")]
    structure: String,
    /// Seats per table.
    #[arg(long, default_value_t = 9)]
    table_size: u8,
    /// The tournament's id in the log [default: sim-<seed>-<time>].
    #[arg(long)]
    tournament: Option<String>,
    /// The data folder of the embedded event log.
    #[arg(long, env = "FELT_DATA", default_value = "felt-data")]
    data: PathBuf,
    /// NATS JetStream instead of the embedded log.
    #[arg(long, env = "FELT_NATS")]
    nats: Option<String>,
    /// No progress bar (for logs and tests).
    #[arg(long)]
    quiet: bool,
    /// A bounty on every entry, in currency units (paid on top of the
    /// buy-in to whoever wins the player's last chips).
    #[arg(long, default_value = "0")]
    bounty: u64,
    /// Progressive knockouts: half of each bounty collected goes on the
    /// collector's head.
    #[arg(long)]
    progressive: bool,
    /// A dealer rests this many milliseconds after each hand (as a live
    /// table does), to watch a run on the room display or to fault it.
    #[arg(long, default_value_t = 0)]
    pace_ms: u64,
    /// Play against running services instead of bringing them: seating's
    /// address (with --table, --clock, --payout and --token). The clock is
    /// then the services' real one.
    #[arg(long, conflicts_with = "nats")]
    seating: Option<String>,
    /// The table service's addresses, comma-separated: the tables are
    /// dealt through each in turn (replicas of one service).
    #[arg(long, value_delimiter = ',')]
    table: Vec<String>,
    /// The clock service's address.
    #[arg(long)]
    clock: Option<String>,
    /// The payout service's address.
    #[arg(long)]
    payout: Option<String>,
    /// The deployment's director token (against running services).
    #[arg(long, env = "FELT_DIRECTOR_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Against running services: the director shortens every level and
    /// break to this many seconds (a rehearsal on the real clock).
    #[arg(long)]
    level_seconds: Option<u32>,
}

/// Where the services are, as the simulation reaches them.
struct Upstream {
    seating: Channel,
    /// Table service replicas: table `n` is dealt through `tables[n % len]`.
    tables: Vec<Channel>,
    clock: Channel,
    payout: Channel,
}

impl Upstream {
    /// Every service behind one address (the sim's own process).
    fn one(channel: &Channel) -> Upstream {
        Upstream {
            seating: channel.clone(),
            tables: vec![channel.clone()],
            clock: channel.clone(),
            payout: channel.clone(),
        }
    }

    /// Running services, connected lazily (and again after a restart).
    fn remote(args: &SimArgs, seating: &str) -> anyhow::Result<Upstream> {
        let connect = |flag: &str, url: &str| -> anyhow::Result<Channel> {
            Ok(tonic::transport::Endpoint::from_shared(url.to_string())
                .map_err(|e| anyhow::anyhow!("--{flag} {url}: {e}"))?
                .tcp_nodelay(true)
                .connect_timeout(Duration::from_secs(2))
                .connect_lazy())
        };
        let need = |flag: &str, value: &Option<String>| -> anyhow::Result<Channel> {
            let url = value.as_deref().ok_or_else(|| {
                anyhow::anyhow!("--{flag}: the {flag} service's address is needed with --seating")
            })?;
            connect(flag, url)
        };
        anyhow::ensure!(
            !args.table.is_empty(),
            "--table: the table service's address is needed with --seating"
        );
        Ok(Upstream {
            seating: connect("seating", seating)?,
            tables: args
                .table
                .iter()
                .map(|url| connect("table", url))
                .collect::<anyhow::Result<_>>()?,
            clock: need("clock", &args.clock)?,
            payout: need("payout", &args.payout)?,
        })
    }
}

/// Simulated time: each table takes this long per hand.
const HAND_MILLIS: Millis = 120_000;
/// The simulated start: 2026-12-01 19:30 UTC.
const START: Millis = 1_796_153_400_000;

/// The room's simulated clock: every hand played moves it on by a hand's
/// time divided by the tables playing, as if all tables dealt at once.
struct SimClock {
    now: AtomicI64,
    tables: AtomicU32,
}

impl SimClock {
    fn now(&self) -> Millis {
        self.now.load(Ordering::Relaxed)
    }

    fn hand_played(&self) {
        // (Each table's dealer calls this once per hand.)
        let tables = Millis::from(self.tables.load(Ordering::Relaxed).max(1));
        self.now.fetch_add(HAND_MILLIS / tables, Ordering::Relaxed);
    }

    fn at_least(&self, at: Millis) {
        self.now.fetch_max(at, Ordering::Relaxed);
    }
}

fn seed(master: u64, a: u64, b: u64) -> Seed {
    let mut rng = ChaCha8Rng::seed_from_u64(master ^ a.rotate_left(21) ^ b.rotate_left(42));
    let mut bytes = [0u8; 32];
    rng.fill_bytes(&mut bytes);
    Seed(bytes)
}

/// The seeds of the services `felt sim` runs in its own process: each
/// derived from `--seed` and what it is for.
fn sim_seeds(master: u64) -> crate::serve::Seeds {
    use crate::serve::Draw;
    fn text(s: &str) -> u64 {
        // FNV-1a: stable across runs and Rust versions.
        s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
    }
    crate::serve::Seeds::from_fn(move |draw| {
        let (kind, tournament, key) = match draw {
            Draw::Seats { tournament } => (2, tournament, 0),
            Draw::Deck {
                tournament,
                table,
                hand,
            } => (3, tournament, u64::from(table) << 32 | hand),
            Draw::HandEnd {
                tournament,
                table,
                hand,
            } => (4, tournament, u64::from(table) << 32 | hand),
            Draw::Registration {
                tournament,
                command_id,
            } => (5, tournament, text(command_id)),
            Draw::TableDeal {
                tournament,
                table,
                command_id,
            } => (
                6,
                tournament,
                text(table) ^ text(command_id).rotate_left(17),
            ),
            Draw::Seating {
                tournament,
                command_id,
            } => (7, tournament, text(command_id)),
        };
        seed(master ^ text(tournament), kind, key)
    })
}

/// The simulation: the services' client.
struct Sim {
    tournament: String,
    clock: Arc<SimClock>,
    master: u64,
    hands: AtomicU64,
    over: AtomicBool,
    re_entry_percent: u32,
    /// Players at the final table (its results are printed).
    final_table: usize,
    up: Upstream,
    /// The director's token.
    token: String,
    /// Whether time is simulated (services in this process); else the
    /// services' clock is the real one.
    simulated: bool,
    /// A dealer's rest after each hand.
    pace: Duration,
    /// Entries by number: the player's id and name (for re-entries), and
    /// whether they re-entered already.
    entries: std::sync::Mutex<std::collections::HashMap<u64, (String, String)>>,
}

impl Sim {
    fn request<T>(&self, message: T) -> Request<T> {
        let mut request = Request::new(message);
        if let Ok(value) = format!("Bearer {}", self.token).parse() {
            request.metadata_mut().insert("authorization", value);
        }
        request
    }

    fn seating(&self) -> SeatingServiceClient<Channel> {
        SeatingServiceClient::new(self.up.seating.clone())
    }

    fn tables(&self, table: u32) -> TableServiceClient<Channel> {
        let replicas = &self.up.tables;
        TableServiceClient::new(replicas[table as usize % replicas.len()].clone())
    }

    fn payout(&self) -> PayoutServiceClient<Channel> {
        PayoutServiceClient::new(self.up.payout.clone())
    }

    /// The clock now.
    async fn clock_view(&self) -> Result<pb::ClockView, Status> {
        let clock = again("get the clock", || {
            let mut c = ClockServiceClient::new(self.up.clock.clone());
            let req = self.request(pb::GetClockRequest {
                tournament_id: self.tournament.clone(),
            });
            async move { c.get_clock(req).await }
        })
        .await?;
        Ok(clock.clock.unwrap_or_default())
    }

    /// The clock's level now (0 on a break).
    async fn level(&self) -> anyhow::Result<u32> {
        Ok(self.clock_view().await?.level)
    }

    /// A rehearsal on the real clock: the director cuts the level or break
    /// `clock` shows to `seconds` (once each, by its command id).
    async fn shorten(&self, clock: &pb::ClockView, seconds: u32) -> anyhow::Result<()> {
        let limit = i64::from(seconds) * 1_000;
        if clock.status() != pb::ClockStatus::Running || clock.remaining_ms <= limit {
            return Ok(());
        }
        let period = if clock.on_break {
            // (A break is known by the blinds coming after it.)
            let coming = clock.blinds.as_ref().map_or(0, |b| b.big_blind);
            format!("break-before-{coming}")
        } else {
            format!("level-{}", clock.level)
        };
        use pb::control_clock_request::Command;
        again("shorten the level", || {
            let mut c = ClockServiceClient::new(self.up.clock.clone());
            let req = self.request(pb::ControlClockRequest {
                tournament_id: self.tournament.clone(),
                command_id: format!("sim-{seconds}s-{period}"),
                command: Some(Command::SetRemaining(pb::SetRemaining {
                    remaining_ms: limit,
                })),
            });
            async move { c.control_clock(req).await }
        })
        .await?;
        Ok(())
    }

    async fn standings(&self) -> Result<pb::GetStandingsResponse, Status> {
        again("get the standings", || {
            let mut c = self.seating();
            let req = self.request(pb::GetStandingsRequest {
                tournament_id: self.tournament.clone(),
            });
            async move { c.get_standings(req).await }
        })
        .await
    }

    /// An entry (a late one or a re-entry), by its command id.
    async fn register(
        &self,
        command_id: String,
        player_id: String,
        name: String,
    ) -> Result<pb::RegisterResponse, Status> {
        let register = pb::RegisterRequest {
            tournament_id: self.tournament.clone(),
            command_id,
            player_id,
            name,
        };
        again("register", || {
            let mut c = self.seating();
            let req = self.request(register.clone());
            async move { c.register(req).await }
        })
        .await
    }

    fn remember(&self, entries: &[pb::EntryView]) {
        let mut known = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for e in entries {
            known.insert(e.entry, (e.player_id.clone(), e.name.clone()));
        }
    }
}

pub(crate) fn run(args: SimArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.seating.is_some() || args.level_seconds.is_none(),
        "--level-seconds: only against running services (--seating); this process's services run on simulated time"
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        match (&args.seating, &args.nats) {
            (Some(seating), _) => {
                let up = Upstream::remote(&args, seating)?;
                let token = args.token.clone().ok_or_else(|| {
                    anyhow::anyhow!(
                        "--token: the deployment's director token is needed to play against running services"
                    )
                })?;
                let clock = Arc::new(SimClock {
                    now: AtomicI64::new(START),
                    tables: AtomicU32::new(1),
                });
                let _telemetry = crate::telemetry::init("felt-sim", None)?;
                println!("felt sim: against the services at {seating}");
                play(up, token, clock, false, &args).await.map(|_| ())
            }
            (None, Some(url)) => {
                let log = NatsLog::connect(url, &NatsSettings::default()).await?;
                simulate(Arc::new(log), &args).await
            }
            (None, None) => {
                std::fs::create_dir_all(&args.data)?;
                let log = EmbeddedLog::open(&crate::logs::embedded_path(&args.data))?;
                simulate(Arc::new(log), &args).await
            }
        }
    })
}

/// The structure as CreateTournament takes it: a preset's name, or a file's
/// text (checked here first, for a clear error).
fn structure(name: &str) -> anyhow::Result<pb::create_tournament_request::Structure> {
    use pb::create_tournament_request::Structure as S;
    match Structure::preset(name) {
        Ok(_) => Ok(S::Preset(name.into())),
        Err(_) if std::path::Path::new(name).exists() => {
            let text = std::fs::read_to_string(name)?;
            Structure::parse(&text)?;
            Ok(S::StructureText(text))
        }
        Err(e) => Err(e.into()),
    }
}

/// Players registered before play starts per RegisterMany call.
const PRESALES_PER_CALL: u32 = 2_000;

async fn simulate<L: EventLog + 'static>(log: Arc<L>, args: &SimArgs) -> anyhow::Result<()> {
    // The services, on simulated time.
    let clock = Arc::new(SimClock {
        now: AtomicI64::new(START),
        tables: AtomicU32::new(1),
    });
    let now: crate::serve::Now = {
        let clock = clock.clone();
        Arc::new(move || clock.now())
    };
    let token = crate::serve::fresh_seed().to_string();
    let mut settings = crate::serve::Settings::with_tokens(vec![(
        token.clone(),
        crate::serve::auth::Role::Director,
    )]);
    // The services in this process draw their seeds (seats, decks, seating's
    // draws) from `--seed`, so that a run can be played again; no request
    // carries one.
    settings.seeds = sim_seeds(args.seed);
    let incoming = tonic::transport::server::TcpIncoming::bind("127.0.0.1:0".parse()?)
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .with_nodelay(Some(true));
    let addr = incoming.local_addr()?;
    let conductor = Arc::new(Conductor::new(log).with_draws(settings.seeds.seating()));
    let server = {
        let conductor = conductor.clone();
        tokio::spawn(async move {
            crate::serve::serve_conductor(
                conductor,
                crate::serve::Services::ALL,
                &settings,
                now,
                incoming,
            )
            .await
        })
    };
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))?
        .tcp_nodelay(true)
        .connect()
        .await?;
    println!("felt sim: the services in this process, over gRPC at {addr}");
    let played = play(Upstream::one(&channel), token, clock, true, args).await;
    server.abort();
    let sim = played?;
    println!(
        "{} events appended, ended after {:.1} simulated hours",
        conductor.appended(),
        (sim.clock.now() - START) as f64 / 3_600_000.0
    );
    Ok(())
}

/// Plays the tournament against the services at `up`, reports the results
/// and the figures.
async fn play(
    up: Upstream,
    token: String,
    clock: Arc<SimClock>,
    simulated: bool,
    args: &SimArgs,
) -> anyhow::Result<Arc<Sim>> {
    anyhow::ensure!(args.entrants >= 2, "a tournament needs at least 2 entrants");
    let structure = structure(&args.structure)?;
    let tournament = args.tournament.clone().unwrap_or_else(|| {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        format!("sim-{}-{secs}", args.seed)
    });
    let late_level = 4;
    let sim = Arc::new(Sim {
        tournament: tournament.clone(),
        clock,
        master: args.seed,
        hands: AtomicU64::new(0),
        over: AtomicBool::new(false),
        re_entry_percent: 30,
        final_table: usize::from(args.table_size),
        up,
        token,
        simulated,
        pace: Duration::from_millis(args.pace_ms),
        entries: std::sync::Mutex::new(std::collections::HashMap::new()),
    });
    let began = Instant::now();
    let t = tournament.as_str();
    let money = pb::MoneySettings {
        currency: "USD".into(),
        buy_in: 10_000,
        fee: 1_000,
        bounty: args.bounty * 100,
        progressive: args.progressive,
        ..Default::default()
    };
    let create = pb::CreateTournamentRequest {
        tournament_id: t.into(),
        name: format!("felt sim {}", args.seed),
        structure: Some(structure),
        table_size: u32::from(args.table_size),
        late_registration_level: late_level,
        re_entries: 1,
        final_table_size: u32::from(args.table_size),
        money: Some(money),
        ..Default::default()
    };
    once_more("create the tournament", || {
        let mut c = sim.seating();
        let req = sim.request(create.clone());
        async move { c.create_tournament(req).await }
    })
    .await?;
    // Nine in ten register before the start (as presales, in lists), the
    // rest during late registration.
    let early = (args.entrants * 9 / 10).max(2);
    let mut from = 1;
    while from <= early {
        let to = (from + PRESALES_PER_CALL - 1).min(early);
        let list = pb::RegisterManyRequest {
            tournament_id: t.into(),
            command_id: format!("presales-{from}"),
            players: (from..=to)
                .map(|i| pb::Registrant {
                    player_id: format!("player-{i}"),
                    name: format!("Player {i}"),
                })
                .collect(),
        };
        let listed = again("register the presales", || {
            let mut c = sim.seating();
            let req = sim.request(list.clone());
            async move { c.register_many(req).await }
        })
        .await?;
        sim.remember(&listed.entries);
        from = to + 1;
    }
    once_more("start the tournament", || {
        let mut c = sim.seating();
        let req = sim.request(pb::StartTournamentRequest {
            tournament_id: t.into(),
        });
        async move { c.start_tournament(req).await }
    })
    .await?;
    println!(
        "felt sim: tournament {tournament}, {} entrants, {} structure, tables of {}",
        args.entrants, args.structure, args.table_size
    );
    let progress = if args.quiet {
        indicatif::ProgressBar::hidden()
    } else {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                .map_err(|e| anyhow::anyhow!("{e}"))?,
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    };

    let mut dealers: std::collections::BTreeMap<u32, tokio::task::JoinHandle<anyhow::Result<()>>> =
        std::collections::BTreeMap::new();
    let mut late_registered = early;
    let mut last_report = Instant::now();
    loop {
        let standings = sim.standings().await?;
        sim.clock.tables.store(standings.tables, Ordering::Relaxed);
        if standings.players_left <= 1 {
            sim.over.store(true, Ordering::Relaxed);
            break;
        }
        let map = again("get the table map", || {
            let mut c = sim.seating();
            let req = sim.request(pb::GetTableMapRequest {
                tournament_id: t.into(),
            });
            async move { c.get_table_map(req).await }
        })
        .await?;
        for table in map.tables.iter().map(|t| t.table) {
            if let std::collections::btree_map::Entry::Vacant(slot) = dealers.entry(table) {
                let sim = sim.clone();
                slot.insert(tokio::spawn(async move { sim.deal(table).await }));
            }
        }
        let clock = sim.clock_view().await?;
        if let Some(seconds) = args.level_seconds {
            sim.shorten(&clock, seconds).await?;
        }
        // Late entries spread over the late-registration levels.
        let level = clock.level;
        if late_registered < args.entrants
            && !standings.registration_closed
            && level >= 1
            && level <= late_level
        {
            let due = early + (args.entrants - early) * level / late_level;
            while late_registered < due.min(args.entrants) {
                late_registered += 1;
                let i = late_registered;
                let registered = sim
                    .register(
                        format!("register-{i}"),
                        format!("player-{i}"),
                        format!("Player {i}"),
                    )
                    .await;
                match registered {
                    Ok(r) => sim.remember(r.entry.as_slice()),
                    // The clock closed registration meanwhile.
                    Err(e) if e.code() == Code::FailedPrecondition => {
                        late_registered = args.entrants;
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        }
        let finished: Vec<u32> = dealers
            .iter()
            .filter(|(_, handle)| handle.is_finished())
            .map(|(table, _)| *table)
            .collect();
        for table in finished {
            if let Some(handle) = dealers.remove(&table) {
                handle.await??;
            }
        }
        if last_report.elapsed() > Duration::from_millis(250) {
            last_report = Instant::now();
            let hands = sim.hands.load(Ordering::Relaxed);
            let secs = began.elapsed().as_secs_f64();
            progress.set_message(format!(
                "level {level}, {} players of {} entries, {} tables, {hands} hands, {:.0} hands/s",
                standings.players_left,
                standings.entries,
                standings.tables,
                hands as f64 / secs
            ));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for (_, handle) in dealers {
        handle.await??;
    }
    progress.finish_and_clear();
    report(&sim, began.elapsed()).await?;
    Ok(sim)
}

/// Whether a call failed because its service was away (killed, restarting,
/// its log's leader moving) or lost a race: sent again with the same
/// command id, it is stored once.
fn away(status: &Status) -> bool {
    matches!(
        status.code(),
        Code::Unavailable | Code::Unknown | Code::Cancelled | Code::Aborted
    )
}

/// How long a call is sent again while its service is away.
const PATIENCE: Duration = Duration::from_secs(120);
/// A table told to wait this long is said to wait (the log shows why).
const WAIT_NOTED: Duration = Duration::from_secs(10);

/// Since when a table has been told to wait, and why: said once it is
/// long, a failure past [`PATIENCE`] if `strict`. A new reason starts
/// the count again.
#[derive(Default)]
struct Waiting(Option<(Instant, String, bool)>);

impl Waiting {
    fn note(&mut self, table: u32, by: &str, why: String, strict: bool) -> anyhow::Result<()> {
        let (since, said, told) = self
            .0
            .get_or_insert_with(|| (Instant::now(), why.clone(), false));
        if *said != why {
            (*since, *said, *told) = (Instant::now(), why, false);
        }
        let waited = since.elapsed();
        anyhow::ensure!(
            waited < PATIENCE || !strict,
            "table {table} waited {}s for {by}: {said}",
            waited.as_secs()
        );
        if waited > WAIT_NOTED && !*told {
            *told = true;
            tracing::warn!(table, waited_s = waited.as_secs(), reason = %said, "a table waits long");
        }
        Ok(())
    }
}

/// Calls sent again because their service was away (reported at the end).
static SENT_AGAIN: AtomicU64 = AtomicU64::new(0);

/// A call, sent again while its service is away (for at most
/// [`PATIENCE`]); its answer or the service's refusal.
async fn again<T, F, Fut>(what: &str, mut call: F) -> Result<T, Status>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<tonic::Response<T>, Status>>,
{
    let since = Instant::now();
    let mut tries = 0u32;
    loop {
        match call().await {
            Ok(response) => return Ok(response.into_inner()),
            Err(status) if away(&status) && since.elapsed() < PATIENCE => {
                SENT_AGAIN.fetch_add(1, Ordering::Relaxed);
                tries += 1;
                if tries == 1 {
                    tracing::info!(what, code = ?status.code(), message = status.message(), "service away, sending again");
                } else {
                    tracing::debug!(what, tries, code = ?status.code(), message = status.message(), "service away, sending again");
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(status) => {
                return Err(Status::new(
                    status.code(),
                    format!("{what}: {}", status.message()),
                ));
            }
        }
    }
}

/// [`again`] for a call with no command id (creating, starting): when an
/// earlier send may have been applied before its answer was lost, a
/// refusal of the repeat ("already exists", "already started") means done.
async fn once_more<T: Default, F, Fut>(what: &str, mut call: F) -> Result<T, Status>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<tonic::Response<T>, Status>>,
{
    let mut sent = false;
    again(what, || {
        let repeat = std::mem::replace(&mut sent, true);
        let answer = call();
        async move {
            match answer.await {
                Err(s) if repeat && s.code() == Code::FailedPrecondition => {
                    tracing::info!(what, message = s.message(), "a repeat refused: done before");
                    Ok(tonic::Response::new(T::default()))
                }
                other => other,
            }
        }
    })
    .await
}

/// A bot's action as the table service takes it.
fn wire_action(action: PlayerAction) -> pb::action::Kind {
    use pb::action::Kind;
    match action {
        PlayerAction::Fold => Kind::Fold(pb::Fold {}),
        PlayerAction::Check => Kind::Check(pb::Check {}),
        PlayerAction::Call => Kind::Call(pb::Call {}),
        PlayerAction::Bet { to } => Kind::BetTo(to),
        PlayerAction::Raise { to } => Kind::RaiseTo(to),
        PlayerAction::AllIn => Kind::AllIn(pb::AllIn {}),
    }
}

/// The entries a hand's `HandEnded` event (as the table service sends it)
/// says busted.
fn busted(event: &pb::Event) -> Vec<u64> {
    if event.r#type != "HandEnded" {
        return Vec::new();
    }
    let json: serde_json::Value = serde_json::from_str(&event.json).unwrap_or_default();
    json["HandEnded"]["busted"]
        .as_array()
        .map(|busts| busts.iter().filter_map(|b| b["player"].as_u64()).collect())
        .unwrap_or_default()
}

impl Sim {
    /// One table's dealer and its players' bots: ask seating to deal, play
    /// the hand at the table service; until the table closes or the
    /// tournament is over.
    async fn deal(&self, table: u32) -> anyhow::Result<()> {
        use pb::begin_hand_response::Outcome;
        let t = self.tournament.as_str();
        let mut rng = ChaCha8Rng::seed_from_u64(self.master ^ u64::from(table) << 32);
        let mut waiting = Waiting::default();
        loop {
            if self.over.load(Ordering::Relaxed) {
                return Ok(());
            }
            let now = self.clock.now();
            let begin = pb::BeginHandRequest {
                tournament_id: t.into(),
                table,
            };
            // (Asked again after a restart, seating gives back the hand it
            // dealt, or deals the one it granted.)
            let begun = again("begin a hand", || {
                let mut c = self.seating();
                let req = self.request(begin.clone());
                async move { c.begin_hand(req).await }
            })
            .await?;
            let mut view = match begun.outcome {
                None | Some(Outcome::Closed(_)) => return Ok(()),
                Some(Outcome::OnBreakMs(remaining)) => {
                    // A break whose time stands still is a clock that
                    // stopped: said, and after a while a failure.
                    waiting.note(
                        table,
                        "the clock",
                        format!("a break with {remaining} ms left"),
                        true,
                    )?;
                    if self.simulated {
                        self.clock.at_least(now + remaining);
                        tokio::task::yield_now().await;
                    } else {
                        let wait = u64::try_from(remaining).unwrap_or(0).clamp(5, 500);
                        tokio::time::sleep(Duration::from_millis(wait)).await;
                    }
                    continue;
                }
                Some(Outcome::Wait(reason)) => {
                    // Seating waits for the last hand's end (from the log),
                    // a move, or the other tables' hand-for-hand hands.
                    // (Paced for a demo, the other tables may be slow.)
                    waiting.note(table, "seating", reason, self.pace.is_zero())?;
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    continue;
                }
                Some(Outcome::Dealt(dealt)) => {
                    waiting = Waiting::default();
                    dealt.table.unwrap_or_default()
                }
            };
            let mut out = Vec::new();
            while let Some(hand) = view.hand.as_ref() {
                let Some(seat) = hand.to_act else {
                    anyhow::bail!(
                        "table {table}, hand {}: nobody to act and the hand not over",
                        hand.number
                    );
                };
                let facing = bot::Facing {
                    to_call: hand.to_call,
                    min_to: hand.min_raise_to,
                    max_to: hand.max_raise_to,
                    bet: hand.current_bet > 0,
                    preflop: hand.board.is_empty(),
                };
                let action = bot::choose(&facing, &mut rng);
                // The command id names the decision (a seat acts once per
                // street and bet): the same whether the hand was dealt to
                // this dealer or given back after a restart.
                let execute = pb::ExecuteRequest {
                    table: Some(pb::TableRef {
                        tournament_id: t.into(),
                        table_id: table.to_string(),
                    }),
                    command_id: format!(
                        "h{}-{}-s{seat}-b{}-p{}",
                        hand.number, hand.street, hand.current_bet, hand.pot
                    ),
                    command: Some(pb::execute_request::Command::Act(pb::Act {
                        seat,
                        action: Some(pb::Action {
                            kind: Some(wire_action(action)),
                        }),
                    })),
                };
                let answer = again("act", || {
                    let mut c = self.tables(table);
                    let req = self.request(execute.clone());
                    async move { c.execute(req).await }
                })
                .await?;
                out.extend(answer.events.iter().flat_map(busted));
                view = answer.table.unwrap_or_default();
            }
            self.hands.fetch_add(1, Ordering::Relaxed);
            self.clock.hand_played();
            self.re_enter(&out, &mut rng).await?;
            if !self.pace.is_zero() {
                tokio::time::sleep(self.pace).await;
            }
        }
    }

    /// Some busted players re-enter (seating refuses once late registration
    /// is over, or the player re-entered before).
    async fn re_enter(&self, busted: &[u64], rng: &mut ChaCha8Rng) -> anyhow::Result<()> {
        for &entry in busted {
            if rng.next_u32() % 100 >= self.re_entry_percent {
                continue;
            }
            let Some((player, name)) = self
                .entries
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .get(&entry)
                .cloned()
            else {
                continue;
            };
            match self
                .register(format!("re-enter-{entry}"), player, name)
                .await
            {
                Ok(r) => self.remember(r.entry.as_slice()),
                Err(e) if e.code() == Code::FailedPrecondition => {
                    tracing::debug!(%e, "no re-entry");
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }
}

fn money(minor: u64) -> String {
    format!("{}.{:02}", minor / 100, minor % 100)
}

/// The results as payout and seating give them over gRPC, and the figures.
async fn report(sim: &Sim, elapsed: Duration) -> anyhow::Result<()> {
    let t = sim.tournament.as_str();
    let standings = sim.standings().await?;
    // Payout follows seating's log: it may be a moment behind (more after
    // a restart), until every entry has its place.
    let since = Instant::now();
    let results = loop {
        let results = again("get the results", || {
            let mut c = sim.payout();
            let req = sim.request(pb::GetResultsRequest {
                tournament_id: t.into(),
            });
            async move { c.get_results(req).await }
        })
        .await?
        .results;
        if results.len() as u64 >= u64::from(standings.entries) {
            break results;
        }
        anyhow::ensure!(
            since.elapsed() < PATIENCE,
            "payout placed {} of {} entries",
            results.len(),
            standings.entries
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let payouts = again("get the payouts", || {
        let mut c = sim.payout();
        let req = sim.request(pb::GetPayoutsRequest {
            tournament_id: t.into(),
        });
        async move { c.get_payouts(req).await }
    })
    .await?;
    let hands = sim.hands.load(Ordering::Relaxed);
    let winner = results
        .iter()
        .find(|r| r.first == 1)
        .map(|r| format!("{} (entry {})", r.name, r.entry))
        .unwrap_or_default();
    let re_entries = {
        let known = sim
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let players: std::collections::HashSet<&String> = known.values().map(|v| &v.0).collect();
        known.len() - players.len()
    };
    let pool = payouts.prize_pool;
    println!("winner: {winner}");
    println!(
        "{} entries ({re_entries} re-entries), prize pool {} {}, {} paid",
        standings.entries,
        money(pool),
        payouts.currency,
        payouts.paid,
    );
    println!("final table:");
    let mut sorted = results.clone();
    sorted.sort_by_key(|r| (r.first, r.entry));
    for r in sorted.iter().take(sim.final_table) {
        let place = if r.first == r.last {
            r.first.to_string()
        } else {
            format!("{}-{}", r.first, r.last)
        };
        println!(
            "  {place:>5}  {:<16} entry {:<6} {:>12}",
            r.name,
            r.entry,
            money(r.prize)
        );
    }
    let top: Vec<String> = payouts
        .sheet
        .iter()
        .take(5)
        .map(|b| {
            let places = if b.first == b.last {
                b.first.to_string()
            } else {
                format!("{}-{}", b.first, b.last)
            };
            format!("{places}: {}", money(b.amount))
        })
        .collect();
    println!("pay sheet: {} …", top.join(", "));
    if payouts.bounties > 0 {
        let won: u64 = results.iter().map(|r| r.bounties).sum();
        println!(
            "bounties paid {} of {}",
            money(won),
            money(payouts.bounties)
        );
    }
    let paid: u64 = results.iter().map(|r| r.prize).sum();
    println!("prizes paid {} of the pool {}", money(paid), money(pool));
    let level = sim.level().await?;
    let secs = elapsed.as_secs_f64();
    println!(
        "{hands} hands in {secs:.1} s ({:.0} hands/s), ended at level {level}; {} calls sent again while their service was away",
        hands as f64 / secs,
        SENT_AGAIN.load(Ordering::Relaxed),
    );
    println!("tournament id: {t} (felt audit verify --tournament {t})");
    anyhow::ensure!(
        paid == pool,
        "prizes paid {paid} differ from the pool {pool}"
    );
    Ok(())
}
