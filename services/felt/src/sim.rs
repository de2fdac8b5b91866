//! `felt sim`: a whole tournament played by bots, from registration to a
//! winner, through the services on the event log, on simulated time.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::Args;
use felt_cards::Seed;
use felt_clock::{ClockSettings, Millis, Structure};
use felt_eventlog::{EmbeddedLog, EventLog, NatsLog, NatsSettings};
use felt_payout::{MoneySettings, SimultaneousBusts};
use felt_seating::{EntryId, EntryStatus, Settings, TableNo};
use felt_table::{HouseRules, TableEvent};
use felt_tournament::{Begin, Conductor, HandSummary, TournamentSpec, bot};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

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

struct Sim<L: EventLog> {
    conductor: Conductor<L>,
    tournament: String,
    clock: SimClock,
    master: u64,
    hands: AtomicU64,
    over: AtomicBool,
    late_level: u32,
    re_entry_percent: u32,
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

fn structure(name: &str) -> anyhow::Result<Structure> {
    match Structure::preset(name) {
        Ok(s) => Ok(s),
        Err(_) if std::path::Path::new(name).exists() => {
            Ok(Structure::parse(&std::fs::read_to_string(name)?)?)
        }
        Err(e) => Err(e.into()),
    }
}

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
    let mut seating = Settings::tda(args.table_size, structure.starting_stack);
    seating.late_registration_level = late_level;
    seating.re_entries = 1;
    seating.final_table = args.table_size;
    let spec = TournamentSpec {
        name: format!("felt sim {}", args.seed),
        seating,
        structure,
        clock: ClockSettings::default(),
        money: MoneySettings {
            bounty: args.bounty * 100,
            progressive: args.progressive,
            ..MoneySettings::generated(10_000, 1_000)
        },
        busts: SimultaneousBusts::ShareAcrossTables,
        rules: HouseRules::default(),
    };
    let sim = Arc::new(Sim {
        conductor: Conductor::new(log),
        tournament: tournament.clone(),
        clock: SimClock {
            now: AtomicI64::new(START),
            tables: AtomicU32::new(1),
        },
        master: args.seed,
        hands: AtomicU64::new(0),
        over: AtomicBool::new(false),
        late_level,
        re_entry_percent: 30,
    });
    let began = Instant::now();
    let t = tournament.as_str();
    let c = &sim.conductor;
    c.create(t, &spec, START).await?;
    // Nine in ten register before the start, the rest during late
    // registration.
    let early = (args.entrants * 9 / 10).max(2);
    for i in 1..=early {
        c.register(
            t,
            &format!("register-{i}"),
            &format!("player-{i}"),
            &format!("Player {i}"),
            START,
            seed(args.seed, 1, u64::from(i)),
        )
        .await?;
    }
    c.start(t, START, seed(args.seed, 2, 0)).await?;
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

    let mut workers: std::collections::BTreeMap<
        TableNo,
        tokio::task::JoinHandle<anyhow::Result<()>>,
    > = std::collections::BTreeMap::new();
    let mut late_registered = early;
    let mut last_report = Instant::now();
    loop {
        let state = c.seating_state(t).await?;
        let players = state.room.players();
        sim.clock
            .tables
            .store(state.room.tables.len() as u32, Ordering::Relaxed);
        if players <= 1 {
            sim.over.store(true, Ordering::Relaxed);
            break;
        }
        for &table in state.room.tables.keys() {
            if let std::collections::btree_map::Entry::Vacant(slot) = workers.entry(table) {
                let sim = sim.clone();
                slot.insert(tokio::spawn(async move { sim.play_table(table).await }));
            }
        }
        let closed = state.registration_closed;
        let entries_in = state.entries_in();
        let tables = state.room.tables.len();
        // Seating's state is shared with its handler: let go of it before
        // registering, or each registration copies it.
        drop(state);
        // Late entries spread over the late-registration levels.
        let now = sim.clock.now();
        let level = c.clock_state(t).await?.view(now).level.unwrap_or(0);
        if late_registered < args.entrants && !closed && level >= 1 && level <= late_level {
            let due = early + (args.entrants - early) * level / late_level;
            while late_registered < due.min(args.entrants) {
                late_registered += 1;
                let i = late_registered;
                let registered = c
                    .register(
                        t,
                        &format!("register-{i}"),
                        &format!("player-{i}"),
                        &format!("Player {i}"),
                        now,
                        seed(args.seed, 1, u64::from(i)),
                    )
                    .await;
                match registered {
                    Ok(_) => {}
                    // The tables' clock closed registration meanwhile.
                    Err(felt_tournament::TournamentError::Seating(
                        felt_seating::SeatingError::RegistrationClosed
                        | felt_seating::SeatingError::LateRegistrationOver { .. },
                    )) => late_registered = args.entrants,
                    Err(e) => return Err(e.into()),
                }
            }
        }
        let mut finished = Vec::new();
        for (table, handle) in &workers {
            if handle.is_finished() {
                finished.push(*table);
            }
        }
        for table in finished {
            if let Some(handle) = workers.remove(&table) {
                handle.await??;
            }
        }
        if last_report.elapsed() > Duration::from_millis(250) {
            last_report = Instant::now();
            let hands = sim.hands.load(Ordering::Relaxed);
            let secs = began.elapsed().as_secs_f64();
            progress.set_message(format!(
                "level {level}, {players} players of {} entries, {} tables, {hands} hands, {:.0} hands/s",
                entries_in,
                tables,
                hands as f64 / secs
            ));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for (_, handle) in workers {
        handle.await??;
    }
    progress.finish_and_clear();
    let elapsed = began.elapsed();
    report(&sim, elapsed).await
}

impl<L: EventLog + 'static> Sim<L> {
    /// One table's dealer and players: deal when allowed, play the hand
    /// with bots, report its end; until the table closes or one player is left.
    async fn play_table(&self, table: TableNo) -> anyhow::Result<()> {
        let t = self.tournament.as_str();
        let c = &self.conductor;
        let mut rng = ChaCha8Rng::seed_from_u64(self.master ^ u64::from(table) << 32);
        let mut attempt = 0u64;
        loop {
            if self.over.load(Ordering::Relaxed) {
                return Ok(());
            }
            let now = self.clock.now();
            attempt += 1;
            match c
                .begin_hand(
                    t,
                    table,
                    now,
                    seed(self.master, 3, u64::from(table) << 32 | attempt),
                )
                .await?
            {
                Begin::Closed => return Ok(()),
                Begin::OnBreak(remaining) => {
                    self.clock.at_least(now + remaining);
                    tokio::task::yield_now().await;
                }
                Begin::Wait(_) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                Begin::Started(events, state) => {
                    let number = state.hand.as_ref().map_or(0, |h| h.number);
                    let mut hand: Vec<TableEvent> = events;
                    let mut k = 0;
                    let mut state = Some(state);
                    while let Some(s) = state.take().filter(|s| s.hand.is_some()) {
                        let Some(command) = bot::act(&s, &mut rng) else {
                            anyhow::bail!(
                                "table {table}, hand {number}: nobody to act and the hand not over"
                            );
                        };
                        // The table's state is shared with its handler:
                        // holding it over the next command would copy it.
                        drop(s);
                        k += 1;
                        let out = c
                            .table(t, table, &format!("h{number}-{k}"), now, command)
                            .await?;
                        hand.extend(out.events.iter().cloned());
                        state = Some(out.state);
                    }
                    let summary = HandSummary::from_events(&hand).ok_or_else(|| {
                        anyhow::anyhow!("table {table}: hand {number} did not end")
                    })?;
                    c.hand_ended(
                        t,
                        table,
                        &summary,
                        now,
                        seed(self.master, 4, u64::from(table) << 32 | number),
                    )
                    .await?;
                    self.hands.fetch_add(1, Ordering::Relaxed);
                    self.clock.hand_played();
                    let now = self.clock.now();
                    c.tick(t, now).await?;
                    self.re_enter(&summary, now, &mut rng).await?;
                }
            }
        }
    }

    /// Some busted players re-enter while late registration is open.
    async fn re_enter(
        &self,
        hand: &HandSummary,
        now: Millis,
        rng: &mut ChaCha8Rng,
    ) -> anyhow::Result<()> {
        if hand.busted.is_empty() {
            return Ok(());
        }
        let t = self.tournament.as_str();
        let c = &self.conductor;
        let level = c.clock_state(t).await?.view(now).level.unwrap_or(u32::MAX);
        let candidates: Vec<(EntryId, String, String)> = {
            let state = c.seating_state(t).await?;
            if state.registration_closed || level > self.late_level {
                return Ok(());
            }
            hand.busted
                .iter()
                .filter_map(|&(entry, _)| {
                    let info = state.entries.get(&entry)?;
                    (state.by_player.get(&info.player).map_or(0, Vec::len) == 1)
                        .then(|| (entry, info.player.clone(), info.name.clone()))
                })
                .collect()
        };
        for (entry, player, name) in candidates {
            if rng.next_u32() % 100 >= self.re_entry_percent {
                continue;
            }
            let info = (player, name);
            let result = c
                .register(
                    t,
                    &format!("re-enter-{entry}"),
                    &info.0,
                    &info.1,
                    now,
                    seed(self.master, 5, entry),
                )
                .await;
            match result {
                Ok(_) => {}
                // Registration closed meanwhile: fine.
                Err(felt_tournament::TournamentError::Seating(e)) => {
                    tracing::debug!(%e, "no re-entry")
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

async fn report<L: EventLog + 'static>(sim: &Sim<L>, elapsed: Duration) -> anyhow::Result<()> {
    let t = sim.tournament.as_str();
    let c = &sim.conductor;
    let seating = c.seating_state(t).await?;
    let payout = c.payout_state(t).await?;
    let clock = c.clock_state(t).await?;
    let hands = sim.hands.load(Ordering::Relaxed);
    let winner = seating
        .entries
        .iter()
        .find(|(_, e)| matches!(e.status, EntryStatus::Seated { .. }))
        .map(|(id, e)| format!("{} (entry {id})", e.name))
        .unwrap_or_default();
    let pool = payout.pool.map_or(0, |p| p.prize_pool);
    println!("winner: {winner}");
    println!(
        "{} entries ({} re-entries), prize pool {} {}, {} paid",
        seating.entries_in(),
        seating.entries.values().filter(|e| e.re_entry).count(),
        money(pool),
        payout.settings.as_ref().map_or("", |s| s.currency.as_str()),
        payout.sheet.as_ref().map_or(0, |s| s.paid()),
    );
    println!("final table:");
    for (id, e) in payout
        .results()
        .into_iter()
        .take(usize::from(seating.settings().map_or(9, |s| s.final_table)))
    {
        let (first, last) = e.place.unwrap_or((0, 0));
        let place = if first == last {
            first.to_string()
        } else {
            format!("{first}-{last}")
        };
        let name = seating.entries.get(&id).map_or("", |x| x.name.as_str());
        println!(
            "  {place:>5}  {name:<16} entry {id:<6} {:>12}",
            money(e.prize)
        );
    }
    if let Some(sheet) = &payout.sheet {
        let top: Vec<String> = sheet
            .bands
            .iter()
            .take(5)
            .map(|b| {
                let places = if b.first == b.last {
                    b.first.to_string()
                } else {
                    format!("{}-{}", b.first, b.last)
                };
                format!("{places}: {}", money(b.each))
            })
            .collect();
        println!("pay sheet: {} …", top.join(", "));
    }
    if let Some(pool) = payout.pool.filter(|p| p.bounties > 0) {
        let won: u64 = payout.entries.values().map(|e| e.bounties_won).sum();
        println!("bounties paid {} of {}", money(won), money(pool.bounties));
    }
    let paid: u64 = payout.results().iter().map(|r| r.1.prize).sum();
    println!("prizes paid {} of the pool {}", money(paid), money(pool));
    let view = clock.view(sim.clock.now());
    let level = view.level.unwrap_or(0);
    tracing::debug!(status = ?view.status, "the clock at the end");
    let sim_hours = (sim.clock.now() - START) as f64 / 3_600_000.0;
    let secs = elapsed.as_secs_f64();
    println!(
        "{hands} hands in {secs:.1} s ({:.0} hands/s), {} events appended, ended at level {level} after {sim_hours:.1} simulated hours",
        hands as f64 / secs,
        c.appended(),
    );
    println!("tournament id: {t} (felt audit verify --tournament {t})");
    anyhow::ensure!(
        paid == pool,
        "prizes paid {paid} differ from the pool {pool}"
    );
    Ok(())
}
