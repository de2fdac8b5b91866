//! `felt sim`: a whole tournament played by bots, from registration to a
//! winner, on simulated time. The four services run in this process on a
//! loopback port, exactly as `felt up` serves them; the simulation is their
//! client over gRPC only: the director creates and registers at seating,
//! a dealer per table asks seating for each hand and deals it at the table
//! service, the bots' actions go to the table service, and the results
//! come from payout.

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
use tonic::{Code, Request};

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
    channel: Channel,
    /// The director's token (drawn for this run).
    token: String,
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
        SeatingServiceClient::new(self.channel.clone())
    }

    fn tables(&self) -> TableServiceClient<Channel> {
        TableServiceClient::new(self.channel.clone())
    }

    /// The clock's level now (0 on a break).
    async fn level(&self) -> anyhow::Result<u32> {
        let clock = ClockServiceClient::new(self.channel.clone())
            .get_clock(self.request(pb::GetClockRequest {
                tournament_id: self.tournament.clone(),
            }))
            .await?
            .into_inner()
            .clock
            .unwrap_or_default();
        Ok(clock.level)
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
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        match &args.nats {
            Some(url) => {
                let log = NatsLog::connect(url, &NatsSettings::default()).await?;
                simulate(Arc::new(log), &args).await
            }
            None => {
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
    anyhow::ensure!(args.entrants >= 2, "a tournament needs at least 2 entrants");
    let structure = structure(&args.structure)?;
    let tournament = args.tournament.clone().unwrap_or_else(|| {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        format!("sim-{}-{secs}", args.seed)
    });
    let late_level = 4;

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
    let settings = crate::serve::Settings::with_tokens(vec![(
        token.clone(),
        crate::serve::auth::Role::Director,
    )]);
    let incoming = tonic::transport::server::TcpIncoming::bind("127.0.0.1:0".parse()?)
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .with_nodelay(Some(true));
    let addr = incoming.local_addr()?;
    let conductor = Arc::new(Conductor::new(log));
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
    let sim = Arc::new(Sim {
        tournament: tournament.clone(),
        clock,
        master: args.seed,
        hands: AtomicU64::new(0),
        over: AtomicBool::new(false),
        re_entry_percent: 30,
        final_table: usize::from(args.table_size),
        channel,
        token,
        entries: std::sync::Mutex::new(std::collections::HashMap::new()),
    });
    let began = Instant::now();
    let t = tournament.as_str();
    sim.seating()
        .create_tournament(sim.request(pb::CreateTournamentRequest {
            tournament_id: t.into(),
            name: format!("felt sim {}", args.seed),
            structure: Some(structure),
            table_size: u32::from(args.table_size),
            late_registration_level: late_level,
            re_entries: 1,
            final_table_size: u32::from(args.table_size),
            money: Some(pb::MoneySettings {
                currency: "USD".into(),
                buy_in: 10_000,
                fee: 1_000,
                bounty: args.bounty * 100,
                progressive: args.progressive,
                ..Default::default()
            }),
            ..Default::default()
        }))
        .await?;
    // Nine in ten register before the start (as presales, in lists), the
    // rest during late registration.
    let early = (args.entrants * 9 / 10).max(2);
    let mut from = 1;
    while from <= early {
        let to = (from + PRESALES_PER_CALL - 1).min(early);
        let listed = sim
            .seating()
            .register_many(
                sim.request(pb::RegisterManyRequest {
                    tournament_id: t.into(),
                    command_id: format!("presales-{from}"),
                    players: (from..=to)
                        .map(|i| pb::Registrant {
                            player_id: format!("player-{i}"),
                            name: format!("Player {i}"),
                        })
                        .collect(),
                }),
            )
            .await?
            .into_inner();
        sim.remember(&listed.entries);
        from = to + 1;
    }
    sim.seating()
        .start_tournament(sim.request(pb::StartTournamentRequest {
            tournament_id: t.into(),
            seed: seed(args.seed, 2, 0).to_string(),
        }))
        .await?;
    println!(
        "felt sim: tournament {tournament}, {} entrants, {} structure, tables of {}, over gRPC at {addr}",
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
        let standings = sim
            .seating()
            .get_standings(sim.request(pb::GetStandingsRequest {
                tournament_id: t.into(),
            }))
            .await?
            .into_inner();
        sim.clock.tables.store(standings.tables, Ordering::Relaxed);
        if standings.players_left <= 1 {
            sim.over.store(true, Ordering::Relaxed);
            break;
        }
        let map = sim
            .seating()
            .get_table_map(sim.request(pb::GetTableMapRequest {
                tournament_id: t.into(),
            }))
            .await?
            .into_inner();
        for table in map.tables.iter().map(|t| t.table) {
            if let std::collections::btree_map::Entry::Vacant(slot) = dealers.entry(table) {
                let sim = sim.clone();
                slot.insert(tokio::spawn(async move { sim.deal(table).await }));
            }
        }
        // Late entries spread over the late-registration levels.
        let level = sim.level().await?;
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
                    .seating()
                    .register(sim.request(pb::RegisterRequest {
                        tournament_id: t.into(),
                        command_id: format!("register-{i}"),
                        player_id: format!("player-{i}"),
                        name: format!("Player {i}"),
                    }))
                    .await;
                match registered {
                    Ok(r) => sim.remember(r.into_inner().entry.as_slice()),
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
    let elapsed = began.elapsed();
    let reported = report(&sim, elapsed, conductor.appended()).await;
    server.abort();
    reported
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
        let mut seating = self.seating();
        let mut tables = self.tables();
        let mut attempt = 0u64;
        loop {
            if self.over.load(Ordering::Relaxed) {
                return Ok(());
            }
            let now = self.clock.now();
            attempt += 1;
            let deck = seed(self.master, 3, u64::from(table) << 32 | attempt);
            let begin = seating
                .begin_hand(self.request(pb::BeginHandRequest {
                    tournament_id: t.into(),
                    table,
                    deck_seed: deck.to_string(),
                }))
                .await?
                .into_inner();
            let mut view = match begin.outcome {
                None | Some(Outcome::Closed(_)) => return Ok(()),
                Some(Outcome::OnBreakMs(remaining)) => {
                    self.clock.at_least(now + remaining);
                    tokio::task::yield_now().await;
                    continue;
                }
                Some(Outcome::Wait(_)) => {
                    // Seating waits for the last hand's end (from the log),
                    // a move, or the other tables' hand-for-hand hands.
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    continue;
                }
                Some(Outcome::Dealt(dealt)) => dealt.table.unwrap_or_default(),
            };
            let mut out = Vec::new();
            let mut k = 0;
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
                k += 1;
                let answer = tables
                    .execute(self.request(pb::ExecuteRequest {
                        table: Some(pb::TableRef {
                            tournament_id: t.into(),
                            table_id: table.to_string(),
                        }),
                        command_id: format!("h{}-{k}", hand.number),
                        command: Some(pb::execute_request::Command::Act(pb::Act {
                            seat,
                            action: Some(pb::Action {
                                kind: Some(wire_action(action)),
                            }),
                        })),
                    }))
                    .await?
                    .into_inner();
                out.extend(answer.events.iter().flat_map(busted));
                view = answer.table.unwrap_or_default();
            }
            self.hands.fetch_add(1, Ordering::Relaxed);
            self.clock.hand_played();
            self.re_enter(&out, &mut rng).await?;
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
            let result = self
                .seating()
                .register(self.request(pb::RegisterRequest {
                    tournament_id: self.tournament.clone(),
                    command_id: format!("re-enter-{entry}"),
                    player_id: player,
                    name,
                }))
                .await;
            match result {
                Ok(r) => self.remember(r.into_inner().entry.as_slice()),
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
async fn report(sim: &Sim, elapsed: Duration, appended: u64) -> anyhow::Result<()> {
    let t = sim.tournament.as_str();
    let results = PayoutServiceClient::new(sim.channel.clone())
        .get_results(sim.request(pb::GetResultsRequest {
            tournament_id: t.into(),
        }))
        .await?
        .into_inner()
        .results;
    let payouts = PayoutServiceClient::new(sim.channel.clone())
        .get_payouts(sim.request(pb::GetPayoutsRequest {
            tournament_id: t.into(),
        }))
        .await?
        .into_inner();
    let standings = sim
        .seating()
        .get_standings(sim.request(pb::GetStandingsRequest {
            tournament_id: t.into(),
        }))
        .await?
        .into_inner();
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
    let sim_hours = (sim.clock.now() - START) as f64 / 3_600_000.0;
    let secs = elapsed.as_secs_f64();
    println!(
        "{hands} hands in {secs:.1} s ({:.0} hands/s), {appended} events appended, ended at level {level} after {sim_hours:.1} simulated hours",
        hands as f64 / secs,
    );
    println!("tournament id: {t} (felt audit verify --tournament {t})");
    anyhow::ensure!(
        paid == pool,
        "prizes paid {paid} differ from the pool {pool}"
    );
    Ok(())
}
