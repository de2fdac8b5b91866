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

mod dealer;
mod report;
mod results;

use dealer::*;
use report::report;
use results::Unrecorded;

#[derive(Clone, Debug, Args)]
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
    /// `--pace-ms` only while at least this many tables are in play (the
    /// rest of the run at full speed): a room of that size dealing at a
    /// live pace, its services timed (BeginHand and Execute, reported
    /// with 1,100 or more tables in play).
    #[arg(long, requires = "pace_ms")]
    pace_while_tables: Option<u32>,
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
    /// How the cards are dealt: `digital` (the table service shuffles) or
    /// `physical` (each table's dealer deals from a deck of the
    /// simulation's own and enters the board and the hands tabled at
    /// showdown, as a dealer's tablet would).
    #[arg(long, value_enum, default_value_t = DealArg::Digital)]
    deal: DealArg,
    /// Every table whose number is a multiple of this records results only
    /// from its 10th hand until its 40th (its tablet down, outside
    /// hand-for-hand): its dealer plays hands
    /// the table service never sees, the floor records each bust with who
    /// won the chips, and every stack is counted before the table records
    /// actions again (a player arriving from it at a recording table is
    /// counted there).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    results_only: Option<u32>,
    /// The house sells an add-on (a starting stack for the buy-in) through
    /// the break after the last level before the structure's first break:
    /// at that break each table's dealer has the floor sell it to every
    /// other player seated there.
    #[arg(long, conflicts_with = "results_only")]
    add_on: bool,
    /// The house sells up to N rebuys per entry (rule 27; a starting stack
    /// for the buy-in each) through the same window as the add-on: after
    /// each hand, the dealer has the floor sell one to every player left
    /// with half the starting stack or less.
    #[arg(long, conflicts_with = "results_only", value_parser = clap::value_parser!(u32).range(1..=100))]
    rebuys: Option<u32>,
    /// Day 1 ends at this level by rule 77 (seed 002): the clock stops
    /// itself with 10 minutes left of it and the service draws the card;
    /// once every table has played those hands the floor bags every stack
    /// (each bag confirmed by the player and the staff), seals the bags,
    /// and day 2 starts from them with every seat drawn afresh.
    #[arg(long, conflicts_with = "results_only", value_parser = clap::value_parser!(u32).range(1..))]
    day_level: Option<u32>,
    /// N satellites are played first, side by side (each of 30 entrants at a tenth of
    /// the price, late entries and re-entries as the event's, into seats
    /// worth one entry, the rest to the next place); their seat winners
    /// register in the event with their tickets, outside its cap.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100))]
    satellites: Option<u32>,
    /// (Set for a satellite the sim plays: the event its seats are in.)
    #[arg(skip)]
    satellite_of: Option<String>,
    /// The event is played in N Day 1 flights (issue 28), one after
    /// another, the entrants shared among them (a tenth of each flight's
    /// players played the flight before too: a bust there re-enters, a
    /// survivor bags twice and takes the larger stack forward). Each
    /// flight plays down to a sixth of its field, bags every stack
    /// (confirmed by the player and the staff) and seals them; the event's
    /// Day 2 starts from all the flights' bags, redrawn together, and is
    /// played to a winner from one prize pool.
    #[arg(long, conflicts_with_all = ["results_only", "day_level", "seating"], value_parser = clap::value_parser!(u32).range(2..=20))]
    flights: Option<u32>,
    /// (Set for a flight the sim plays: its event and number.)
    #[arg(skip)]
    flight_of: Option<(String, u32)>,
    /// (Set for the event's Day 2 the sim plays after its flights: created
    /// and advanced already, nobody to register.)
    #[arg(skip)]
    day_2: bool,
    /// (The number before a flight's first player's.)
    #[arg(skip)]
    first_player: u32,
}

/// Entrants in each of `--satellites`' satellites.
const SATELLITE_ENTRANTS: u32 = 30;

/// `felt sim --deal`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum DealArg {
    Digital,
    Physical,
}

/// Where the services are, as the simulation reaches them.
#[derive(Clone)]
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
/// time divided by the tables playing in the room, as if all tables dealt
/// at once. Tournaments played side by side (a series' satellites) share
/// it: each says how many tables it has in play, and the room's tables
/// are their sum, so that one tournament's hands do not run another's
/// levels faster or slower than the room's time.
struct SimClock {
    now: AtomicI64,
    /// Tables in play in each tournament playing now.
    playing: std::sync::Mutex<std::collections::HashMap<String, u32>>,
    /// Their sum.
    tables: AtomicU32,
}

impl SimClock {
    fn new() -> Self {
        Self {
            now: AtomicI64::new(START),
            playing: std::sync::Mutex::new(std::collections::HashMap::new()),
            tables: AtomicU32::new(0),
        }
    }

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

    /// `tournament` has `tables` in play (none once it is over).
    fn tables_in(&self, tournament: &str, tables: u32) {
        let mut playing = self
            .playing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if tables == 0 {
            playing.remove(tournament);
        } else {
            playing.insert(tournament.to_string(), tables);
        }
        let room = playing.values().fold(0u32, |sum, n| sum.saturating_add(*n));
        self.tables.store(room, Ordering::Relaxed);
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
fn sim_seeds(master: u64) -> felt::serve::Seeds {
    use felt::serve::Draw;
    fn text(s: &str) -> u64 {
        // FNV-1a: stable across runs and Rust versions.
        s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
    }
    felt::serve::Seeds::from_fn(move |draw| {
        let (kind, tournament, key) = match draw {
            Draw::Deck {
                tournament,
                table,
                hand,
            } => (3, tournament, u64::from(table) << 32 | hand),
            Draw::TableDeal {
                tournament,
                table,
                command_id,
            } => (
                6,
                tournament,
                // (The table's number as its stream names it.)
                text(&table.to_string()) ^ text(command_id).rotate_left(17),
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
    /// Before each player's number in their id ("" in the event; a
    /// satellite's players are its own).
    players: String,
    clock: Arc<SimClock>,
    /// The tables this tournament has in play.
    tables: AtomicU32,
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
    /// The pace applies only while this many tables are in play.
    pace_while_tables: u32,
    /// The dealers deal real cards (from the simulation's own decks).
    physical: bool,
    /// Entries by number: the player's id and name (for re-entries), and
    /// whether they re-entered already.
    entries: std::sync::Mutex<std::collections::HashMap<u64, (String, String)>>,
    /// `--rebuys`: the rebuys each entry bought, wherever it sat.
    rebought: std::sync::Mutex<std::collections::HashMap<u64, u32>>,
    /// `--results-only`: tables whose number is a multiple of it record
    /// results only for part of the event.
    results_only: Option<u32>,
    /// What each entry really holds over the table service's record of
    /// it (hands played at a results-only table), until a count tells it.
    real: std::sync::Mutex<std::collections::HashMap<u64, i64>>,
    /// The room as the director last read it: the clock's level, a
    /// break, hand-for-hand.
    level: AtomicU32,
    on_break: AtomicBool,
    hand_for_hand: AtomicBool,
    /// One player left while late registration is open: not a winner yet,
    /// the player waits for late entrants or registration's close.
    awaiting_close: AtomicBool,
    /// `--add-on`: the last level it is sold through (and the break
    /// after it).
    add_on_level: Option<u32>,
    /// `--rebuys`: the limit per entry, the last level they are sold
    /// through, and the stack at or below which a player rebuys.
    rebuys: Option<(u32, u32, u64)>,
    /// `--day-level`: the days ended so far (one dealer bags and starts
    /// the next day; the others wait for it).
    days: tokio::sync::Mutex<u32>,
    /// A flight: its day ends with its bags sealed, and so does its play.
    flight: bool,
    /// The number before this tournament's first player's.
    first_player: u32,
    /// BeginHand's and Execute's answers, in microseconds, timed while
    /// at least [`TIMED_TABLES`] tables are in play.
    timed: std::sync::Mutex<(Vec<u32>, Vec<u32>)>,
}

/// The tables in play from which the sim times BeginHand and Execute (a
/// 10,000-entry flight's start: issue 28's 1,100).
pub(super) const TIMED_TABLES: u32 = 1_100;

impl Sim {
    /// A dealer's rest after hand `hand` at `table`, where the pace
    /// applies now: half to one and a half times the pace, spread by the
    /// table and the hand (live tables do not end their hands together;
    /// no random draw, so a run plays the same however it is paced).
    async fn rest(&self, table: u32, hand: u64) {
        if let Some((millis, spread)) = self.paced(table, hand) {
            tokio::time::sleep(Duration::from_millis(millis / 2 + millis * spread / 1_000)).await;
        }
    }

    /// A dealer's wait before a table's first hand where the pace applies:
    /// none to one pace, spread by the table (a room's dealers do not all
    /// pitch their first cards at the same moment).
    async fn first_rest(&self, table: u32) {
        if let Some((millis, spread)) = self.paced(table, 0) {
            tokio::time::sleep(Duration::from_millis(millis * spread / 1_000)).await;
        }
    }

    /// The pace in milliseconds and a spread of 0 to 999 for hand `hand` at
    /// `table`, where the pace applies now.
    fn paced(&self, table: u32, hand: u64) -> Option<(u64, u64)> {
        (!self.pace.is_zero() && self.tables.load(Ordering::Relaxed) >= self.pace_while_tables)
            .then(|| {
                let spread = (u64::from(table).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ hand)
                    .wrapping_mul(0xbf58_476d_1ce4_e5b9)
                    % 1_000;
                (self.pace.as_millis() as u64, spread)
            })
    }

    /// Records one call's time when enough tables are in play.
    fn time(&self, begin: bool, took: Duration) {
        if self.tables.load(Ordering::Relaxed) < TIMED_TABLES {
            return;
        }
        let micros = u32::try_from(took.as_micros()).unwrap_or(u32::MAX);
        let mut timed = self
            .timed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if begin {
            timed.0.push(micros);
        } else {
            timed.1.push(micros);
        }
    }
}

impl Sim {
    /// Before each player's name: "" in the event, "Sat k " in satellite k.
    fn names(&self) -> String {
        match self.tournament.rsplit_once("-sat-") {
            Some((_, k)) if !self.players.is_empty() => format!("Sat {k} "),
            _ => String::new(),
        }
    }

    fn request<T>(&self, message: T) -> Request<T> {
        self.request_as(message, &self.token)
    }

    /// A request with another credential than the director's (a seat's).
    fn request_as<T>(&self, message: T, token: &str) -> Request<T> {
        let mut request = Request::new(message);
        if let Ok(value) = format!("Bearer {token}").parse() {
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
        let Some((command_id, limit)) = shortening(clock, seconds) else {
            return Ok(());
        };
        use pb::control_clock_request::Command;
        again("shorten the level", || {
            let mut c = ClockServiceClient::new(self.up.clock.clone());
            let req = self.request(pb::ControlClockRequest {
                tournament_id: self.tournament.clone(),
                command_id: command_id.clone(),
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
        // (Paid at the cage in cash, the command id the slip's number.)
        let register = pb::RegisterRequest {
            tournament_id: self.tournament.clone(),
            payment: Some(pb::Payment {
                method: pb::PaymentMethod::Cash.into(),
                reference: command_id.chars().take(64).collect(),
            }),
            command_id,
            player_id,
            name,
            give_up_chips: false,
            ticket: None,
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
                let clock = Arc::new(SimClock::new());
                let _telemetry = felt::telemetry::init("felt-sim", None)?;
                println!("felt sim: against the services at {seating}");
                play(up, token, clock, false, &args).await.map(|_| ())
            }
            (None, Some(url)) => {
                let log = NatsLog::connect(url, &NatsSettings::default()).await?;
                simulate(Arc::new(log), &args).await
            }
            (None, None) => {
                std::fs::create_dir_all(&args.data)?;
                let log = EmbeddedLog::open(&felt::logs::embedded_path(&args.data))?;
                simulate(Arc::new(log), &args).await
            }
        }
    })
}

/// The structure as CreateTournament takes it: a preset, or a file's text
/// (checked here first, for a clear error).
fn structure(name: &str) -> anyhow::Result<pb::create_tournament_request::Structure> {
    use pb::create_tournament_request::Structure as S;
    let preset = match name {
        "bhpoker" => pb::StructurePreset::Bhpoker,
        "main-event" => pb::StructurePreset::MainEvent,
        "turbo" => pb::StructurePreset::Turbo,
        _ if std::path::Path::new(name).exists() => {
            let text = std::fs::read_to_string(name)?;
            Structure::parse(&text)?;
            return Ok(S::StructureText(text));
        }
        _ => {
            return Err(Structure::preset(name).err().map_or_else(
                || anyhow::anyhow!("no preset on the wire is named {name:?}"),
                anyhow::Error::from,
            ));
        }
    };
    Ok(S::Preset(preset.into()))
}

/// The structure's levels and breaks, as the clock plays them.
fn structure_periods(name: &str) -> anyhow::Result<Vec<felt_clock::Period>> {
    Ok(load_structure(name)?.periods)
}

/// The structure's starting stack.
fn structure_stack(name: &str) -> anyhow::Result<u64> {
    Ok(load_structure(name)?.starting_stack)
}

fn load_structure(name: &str) -> anyhow::Result<Structure> {
    if std::path::Path::new(name).exists() && Structure::preset(name).is_err() {
        return Ok(Structure::parse(&std::fs::read_to_string(name)?)?);
    }
    Ok(Structure::preset(name)?)
}

/// Players registered before play starts per RegisterMany call.
const PRESALES_PER_CALL: u32 = 2_000;

async fn simulate<L: EventLog + 'static>(log: Arc<L>, args: &SimArgs) -> anyhow::Result<()> {
    // The services' own log lines, on stderr, when asked for (`RUST_LOG`).
    let _telemetry = if std::env::var_os("RUST_LOG").is_some() {
        Some(felt::telemetry::init("felt-sim", None)?)
    } else {
        None
    };
    // The services, on simulated time.
    let clock = Arc::new(SimClock::new());
    let now: felt::serve::Now = {
        let clock = clock.clone();
        Arc::new(move || clock.now())
    };
    let token = felt::serve::fresh_seed().to_string();
    let mut settings = felt::serve::Settings::with_tokens(vec![(
        token.clone(),
        felt::serve::auth::Role::Director,
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
            felt::serve::serve_conductor(
                conductor,
                felt::serve::Services::ALL,
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

/// Satellite `k` of the event `sim` plays, to its seats: the seat
/// winners' player ids, names and entries there.
async fn play_satellite(
    sim: &Sim,
    args: &SimArgs,
    k: u32,
    target: &str,
) -> anyhow::Result<Vec<(String, String, u64)>> {
    let target = target.to_string();
    let of = SimArgs {
        entrants: SATELLITE_ENTRANTS,
        seed: args.seed.wrapping_add(u64::from(k)),
        tournament: Some(format!("{target}-sat-{k}")),
        satellites: None,
        flights: None,
        flight_of: None,
        first_player: 0,
        satellite_of: Some(target),
        add_on: false,
        rebuys: None,
        day_level: None,
        results_only: None,
        bounty: args.bounty,
        progressive: false,
        ..args.clone()
    };
    let played = Box::pin(play(
        sim.up.clone(),
        sim.token.clone(),
        sim.clock.clone(),
        sim.simulated,
        &of,
    ))
    .await?;
    let results = again("the satellite's results", || {
        let mut c = played.payout();
        let req = played.request(pb::GetResultsRequest {
            tournament_id: played.tournament.clone(),
        });
        async move { c.get_results(req).await }
    })
    .await?;
    Ok(results
        .results
        .into_iter()
        .filter(|r| r.ticket > 0)
        .map(|r| (r.player_id, r.name, r.entry))
        .collect())
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
    if let Some(n) = args.flights {
        return Box::pin(play_flights(up, token, clock, simulated, args, n)).await;
    }
    anyhow::ensure!(args.entrants >= 2, "a tournament needs at least 2 entrants");
    let structure = structure(&args.structure)?;
    let tournament = args.tournament.clone().unwrap_or_else(|| {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        format!("sim-{}-{secs}", args.seed)
    });
    let late_level = 4;
    // The add-on's and the rebuys' window: through the break that follows
    // the structure's last level before its first break.
    let window: u32 = structure_periods(&args.structure)?
        .iter()
        .take_while(|p| matches!(p, felt_clock::Period::Level(_)))
        .count()
        .try_into()
        .unwrap_or(u32::MAX)
        .max(1);
    let starting_stack = structure_stack(&args.structure)?;
    let rebuys = args.rebuys.map(|limit| (limit, window, starting_stack / 2));
    let add_on_level = args.add_on.then_some(window);
    let sim = Arc::new(Sim {
        players: if args.satellite_of.is_some() {
            format!("{tournament}-")
        } else {
            String::new()
        },
        tournament: tournament.clone(),
        clock,
        tables: AtomicU32::new(0),
        master: args.seed,
        hands: AtomicU64::new(0),
        over: AtomicBool::new(false),
        re_entry_percent: 30,
        final_table: usize::from(args.table_size),
        up,
        token,
        simulated,
        pace: Duration::from_millis(args.pace_ms),
        pace_while_tables: args.pace_while_tables.unwrap_or(0),
        physical: args.deal == DealArg::Physical,
        entries: std::sync::Mutex::new(std::collections::HashMap::new()),
        rebought: std::sync::Mutex::new(std::collections::HashMap::new()),
        results_only: args.results_only,
        real: std::sync::Mutex::new(std::collections::HashMap::new()),
        level: AtomicU32::new(0),
        on_break: AtomicBool::new(false),
        hand_for_hand: AtomicBool::new(false),
        awaiting_close: AtomicBool::new(false),
        add_on_level,
        rebuys,
        days: tokio::sync::Mutex::new(0),
        flight: args.flight_of.is_some(),
        first_player: args.first_player,
        timed: std::sync::Mutex::new((Vec::new(), Vec::new())),
    });
    let began = Instant::now();
    let t = tournament.as_str();
    // A satellite: a tenth of the price, into seats worth one entry.
    let satellite = args.satellite_of.as_ref().map(|target| pb::Satellite {
        target_tournament_id: target.clone(),
        seat: 11_000 + args.bounty * 100,
        remainder: pb::SatelliteRemainder::NextPlace.into(),
        deals_allowed: false,
        second_seat: pb::SecondSeat::Cash.into(),
    });
    let tenth = if satellite.is_some() { 10 } else { 1 };
    let money = pb::MoneySettings {
        currency: "USD".into(),
        buy_in: 10_000 / tenth,
        fee: 1_000 / tenth,
        satellite,
        bounty: if tenth == 1 { args.bounty * 100 } else { 0 },
        progressive: args.progressive,
        add_on: if add_on_level.is_some() { 10_000 } else { 0 },
        rebuy: if rebuys.is_some() { 10_000 } else { 0 },
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
        // Redrawn where seed 002 (10C) says for the field's size.
        redraws_by_field_size: true,
        money: Some(money),
        add_on: add_on_level.map(|last_level| pb::AddOnTerms {
            chips: starting_stack,
            last_level,
        }),
        rebuy: rebuys.map(|(limit, last_level, _)| pb::RebuyTerms {
            chips: starting_stack,
            last_level,
            limit,
            condition: pb::RebuyCondition::AtOrBelowStart.into(),
        }),
        deal: match args.deal {
            DealArg::Digital => pb::DealMode::Digital,
            DealArg::Physical => pb::DealMode::Physical,
        }
        .into(),
        day_end: match &args.flight_of {
            // A flight plays down to a sixth of its field.
            Some(_) => Some(pb::DayEndSettings {
                players_left: vec![(args.entrants / 6).max(2)],
                ..Default::default()
            }),
            None => args.day_level.map(|level| pb::DayEndSettings {
                last_levels: vec![level],
                ..Default::default()
            }),
        },
        flight: args.flight_of.as_ref().map(|(event, number)| pb::FlightOf {
            event_tournament_id: event.clone(),
            number: *number,
        }),
        flights: args.day_2.then(|| pb::FlightsSettings {
            stacks: pb::FlightStacks::Best.into(),
            ..Default::default()
        }),
        ..Default::default()
    };
    once_more("create the tournament", || {
        let mut c = sim.seating();
        let req = sim.request(create.clone());
        async move { c.create_tournament(req).await }
    })
    .await?;
    // The satellites are played first; their seats are redeemed here.
    // (A flight's are seats in its event, redeemed into the flight.)
    let target = args
        .flight_of
        .as_ref()
        .map_or(t, |(event, _)| event.as_str());
    // (Played side by side, as a series runs them; each one's tables deal
    // in their own tasks.)
    let won = futures::future::try_join_all(
        (1..=args.satellites.unwrap_or(0)).map(|k| play_satellite(&sim, args, k, target)),
    )
    .await?;
    if !won.is_empty() {
        println!(
            "felt sim: {} satellites played side by side in {:.1} s",
            won.len(),
            began.elapsed().as_secs_f64()
        );
    }
    for (k, seats) in (1u32..).zip(won) {
        for (player, name, entry) in seats {
            let ticket = pb::RegisterRequest {
                tournament_id: t.into(),
                command_id: format!("ticket-{k}-{entry}"),
                player_id: player,
                name,
                give_up_chips: false,
                payment: None,
                ticket: Some(pb::Ticket {
                    satellite_tournament_id: format!("{target}-sat-{k}"),
                    entry,
                }),
            };
            let registered = again("redeem a satellite's ticket", || {
                let mut c = sim.seating();
                let req = sim.request(ticket.clone());
                async move { c.register(req).await }
            })
            .await?;
            sim.remember(registered.entry.as_slice());
        }
    }
    // Nine in ten register before the start (as presales, in lists), the
    // rest during late registration; an event's Day 2 has the flights'
    // bags instead.
    let early = if args.day_2 {
        args.entrants
    } else {
        (args.entrants * 9 / 10).max(2)
    };
    if args.day_2 {
        sim.floor(
            pb::FloorRequest {
                tournament_id: t.into(),
                command_id: "advance-flights".into(),
                command: Some(pb::floor_request::Command::AdvanceFlights(
                    pb::AdvanceFlights {},
                )),
            },
            "advance the flights",
        )
        .await?;
    }
    let mut from = 1;
    while from <= early && !args.day_2 {
        let to = (from + PRESALES_PER_CALL - 1).min(early);
        let list = pb::RegisterManyRequest {
            tournament_id: t.into(),
            // Sold online: one transfer per batch.
            payment: Some(pb::Payment {
                method: pb::PaymentMethod::Transfer.into(),
                reference: format!("presales-{from}"),
            }),
            command_id: format!("presales-{from}"),
            players: (from..=to)
                .map(|i| pb::Registrant {
                    player_id: format!("{}player-{}", sim.players, sim.first_player + i),
                    name: format!("{}Player {}", sim.names(), sim.first_player + i),
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
    if args.day_2 {
        // (The clock resumes the structure where the flights' day ended.)
        let standings = sim.standings().await?;
        let since = Instant::now();
        let clock = loop {
            let clock = sim.clock_view().await?;
            if clock.status() != pb::ClockStatus::NotStarted || since.elapsed() > PATIENCE {
                break clock;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        println!(
            "felt sim: event {tournament} day {}, {} stacks from the flights' bags, redrawn at {} tables, level {} with {} s left",
            clock.day,
            standings.players_left,
            standings.tables,
            clock.level,
            clock.remaining_ms / 1_000
        );
    } else {
        println!(
            "felt sim: {} {tournament}, {} entrants, {} structure, tables of {}",
            if args.flight_of.is_some() {
                "flight"
            } else {
                "tournament"
            },
            args.entrants,
            args.structure,
            args.table_size
        );
    }
    // (A satellite's would draw over the others played beside it.)
    let progress = if args.quiet || args.satellite_of.is_some() {
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
        sim.tables.store(standings.tables, Ordering::Relaxed);
        sim.clock.tables_in(t, standings.tables);
        sim.hand_for_hand
            .store(standings.hand_for_hand, Ordering::Relaxed);
        // The last player is the winner only once registration has closed:
        // until then late entrants may still come, and payout places
        // nobody before the prize pool is fixed.
        // (A satellite is over once its seats are won.)
        if (standings.players_left <= 1 && standings.registration_closed) || standings.finished {
            sim.over.store(true, Ordering::Relaxed);
            break;
        }
        // A flight is over once its bags are sealed.
        if sim.flight && sim.over.load(Ordering::Relaxed) {
            break;
        }
        let alone = standings.players_left <= 1;
        sim.awaiting_close.store(alone, Ordering::Relaxed);
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
        sim.level.store(clock.level, Ordering::Relaxed);
        sim.on_break.store(clock.on_break, Ordering::Relaxed);
        if alone && sim.simulated && clock.remaining_ms > 0 {
            // Nobody plays to move simulated time on: the room's clock
            // runs to the end of the level.
            sim.clock.at_least(sim.clock.now() + clock.remaining_ms);
        }
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
                        format!("{}player-{}", sim.players, sim.first_player + i),
                        format!("{}Player {}", sim.names(), sim.first_player + i),
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
    sim.clock.tables_in(t, 0);
    progress.finish_and_clear();
    if sim.flight {
        if let Some(line) = report::timed(&sim) {
            println!("felt sim: {tournament} {line}");
        }
    } else {
        report(&sim, began.elapsed()).await?;
    }
    Ok(sim)
}

/// `--flights N`: the event's Day 1 flights one after another, each to
/// its sealed bags, then the event's Day 2 from all of them to a winner.
async fn play_flights(
    up: Upstream,
    token: String,
    clock: Arc<SimClock>,
    simulated: bool,
    args: &SimArgs,
    n: u32,
) -> anyhow::Result<Arc<Sim>> {
    anyhow::ensure!(
        args.entrants >= 2 * n,
        "{n} flights need at least {} entrants",
        2 * n
    );
    let event = args.tournament.clone().unwrap_or_else(|| {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        format!("sim-{}-{secs}", args.seed)
    });
    let began = Instant::now();
    let each = args.entrants / n;
    // A tenth of each flight's players played the flight before.
    let overlap = each / 10;
    for k in 1..=n {
        let of = SimArgs {
            entrants: if k == n {
                args.entrants - each * (n - 1)
            } else {
                each
            },
            seed: args.seed.wrapping_add(u64::from(k) * 7_919),
            tournament: Some(format!("{event}-{k}")),
            flights: None,
            flight_of: Some((event.clone(), k)),
            first_player: (k - 1) * (each - overlap),
            // The satellites' seat winners play the first flight.
            satellites: if k == 1 { args.satellites } else { None },
            ..args.clone()
        };
        let flight = Box::pin(play(
            up.clone(),
            token.clone(),
            clock.clone(),
            simulated,
            &of,
        ))
        .await?;
        // (Level 0: the day ended on a break.)
        let reached = match flight.level.load(Ordering::Relaxed) {
            0 => "at a break".to_string(),
            level => format!("in level {level}"),
        };
        println!(
            "felt sim: flight {k} of {n} over after {:.1} s, {reached}, {} hands",
            began.elapsed().as_secs_f64(),
            flight.hands.load(Ordering::Relaxed)
        );
    }
    let day_2 = SimArgs {
        tournament: Some(event),
        flights: None,
        satellites: None,
        day_2: true,
        ..args.clone()
    };
    Box::pin(play(up, token, clock, simulated, &day_2)).await
}

/// The director's cut of the period `clock` shows to `seconds` in a
/// rehearsal on the real clock: its command id (one per level or break,
/// so it is cut once) and the time left, while the period's time runs on
/// the wall clock and more than that is left. A level runs while the clock
/// does; a break also in hand-for-hand (seed 002 RP8 stops a level's clock
/// between hands, never a break's).
fn shortening(clock: &pb::ClockView, seconds: u32) -> Option<(String, i64)> {
    let limit = i64::from(seconds) * 1_000;
    let counting = match clock.status() {
        pb::ClockStatus::Running => true,
        pb::ClockStatus::HandForHand => clock.on_break,
        _ => false,
    };
    if !counting || clock.remaining_ms <= limit {
        return None;
    }
    let period = if clock.on_break {
        // (A break is known by the blinds coming after it.)
        let coming = clock.blinds.as_ref().map_or(0, |b| b.big_blind);
        format!("break-before-{coming}")
    } else {
        format!("level-{}", clock.level)
    };
    Some((format!("sim-{seconds}s-{period}"), limit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(status: pb::ClockStatus, on_break: bool, remaining_ms: i64) -> pb::ClockView {
        let mut clock = pb::ClockView {
            on_break,
            remaining_ms,
            level: if on_break { 0 } else { 7 },
            blinds: Some(pb::Level {
                big_blind: 1_500,
                ..Default::default()
            }),
            ..Default::default()
        };
        clock.set_status(status);
        clock
    }

    /// Satellites played side by side share the room's time: a round of
    /// hands at every table of the room takes one hand's time, whichever
    /// tournament said its count last, and a tournament that is over no
    /// longer counts.
    #[test]
    fn tournaments_played_side_by_side_move_the_rooms_time_by_all_their_tables() {
        let clock = SimClock::new();
        clock.tables_in("sat-1", 3);
        clock.tables_in("sat-2", 1);
        clock.tables_in("sat-1", 3);
        for _ in 0..4 {
            clock.hand_played();
        }
        assert_eq!(clock.now(), START + HAND_MILLIS);
        // sat-1 breaks a table; sat-2 is over.
        clock.tables_in("sat-1", 2);
        clock.tables_in("sat-2", 0);
        clock.hand_played();
        clock.hand_played();
        assert_eq!(clock.now(), START + 2 * HAND_MILLIS);
        // (Nobody playing: a hand still moves time on.)
        clock.tables_in("sat-1", 0);
        clock.hand_played();
        assert_eq!(clock.now(), START + 3 * HAND_MILLIS);
    }

    #[test]
    fn a_running_level_or_break_is_cut_once_by_its_own_command_id() {
        let level = shortening(&clock(pb::ClockStatus::Running, false, 900_000), 5);
        assert_eq!(level, Some(("sim-5s-level-7".to_string(), 5_000)));
        let pause = shortening(&clock(pb::ClockStatus::Running, true, 600_000), 5);
        assert_eq!(pause, Some(("sim-5s-break-before-1500".to_string(), 5_000)));
        // Already short enough, or not running: left alone.
        assert_eq!(
            shortening(&clock(pb::ClockStatus::Running, false, 5_000), 5),
            None
        );
        assert_eq!(
            shortening(&clock(pb::ClockStatus::Paused, false, 900_000), 5),
            None
        );
    }

    /// CI's cluster run: a hand-for-hand round ended with the level, a
    /// 10-minute break began on the wall clock in hand-for-hand, and the
    /// sim, cutting only a running clock's periods, waited it out.
    #[test]
    fn a_break_taken_in_hand_for_hand_is_cut_but_a_level_stopped_between_hands_is_not() {
        let pause = shortening(&clock(pb::ClockStatus::HandForHand, true, 600_000), 5);
        assert_eq!(pause, Some(("sim-5s-break-before-1500".to_string(), 5_000)));
        let level = shortening(&clock(pb::ClockStatus::HandForHand, false, 900_000), 5);
        assert_eq!(level, None);
    }
}
