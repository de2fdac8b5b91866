//! `felt bench replay`: a log `felt sim` or `felt up` wrote, replayed whole
//! through a subscription from the start, as a projection rebuilding from
//! nothing reads it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use felt_eventlog::{EmbeddedLog, EventLog, Filter, NatsLog, NatsSettings, StreamId};
use felt_service::Handler;
use felt_tablelog::Table;

#[derive(Debug, Args)]
pub(crate) struct ReplayArgs {
    /// The data folder of the embedded event log.
    #[arg(long, env = "FELT_DATA", default_value = "felt-data")]
    data: PathBuf,
    /// NATS JetStream instead of the embedded log.
    #[arg(long, env = "FELT_NATS")]
    nats: Option<String>,
    /// Only this tournament's events (every event without it).
    #[arg(long)]
    tournament: Option<String>,
    /// Timed replays (after one that counts the log).
    #[arg(long, default_value_t = 5)]
    runs: u32,
    /// Then read every stream one by one, and time the reads; and load
    /// each tournament's tables in one pass, as the table service started
    /// cold does on NATS, and time that.
    #[arg(long)]
    reads: bool,
}

pub(crate) fn run(args: &ReplayArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        match &args.nats {
            Some(url) => {
                let log = Arc::new(NatsLog::connect(url, &NatsSettings::default()).await?);
                println!("backend: nats at {url}");
                let streams = replays(&*log, filter(args), args.runs, args.reads).await?;
                if args.reads {
                    load_tables(log, &streams).await?;
                }
                Ok(())
            }
            None => {
                let path = felt::logs::embedded_path(&args.data);
                anyhow::ensure!(
                    path.is_file(),
                    "no event log at {} (--data names the folder felt up or felt sim wrote, --nats a NATS server)",
                    path.display()
                );
                let log = Arc::new(EmbeddedLog::open(&path)?);
                println!("backend: embedded at {}", path.display());
                let streams = replays(&*log, filter(args), args.runs, args.reads).await?;
                if args.reads {
                    load_tables(log, &streams).await?;
                }
                Ok(())
            }
        }
    })
}

fn filter(args: &ReplayArgs) -> Filter {
    match &args.tournament {
        Some(t) => Filter::tournament(t),
        None => Filter::all(),
    }
}

/// What a replay saw: decisions, events and the last position.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Seen {
    decisions: u64,
    events: u64,
    last: u64,
}

/// The log (what `filter` takes of it) replayed `runs` times, after a first
/// replay that finds where it ends; the rate of each and their median.
/// With `reads`, every stream is then read whole, one after another.
/// Returns the streams the replay saw.
pub(crate) async fn replays<L: EventLog>(
    log: &L,
    filter: Filter,
    runs: u32,
    reads: bool,
) -> anyhow::Result<BTreeSet<StreamId>> {
    // The log's extent and its streams: read until it stays quiet (not
    // timed).
    let mut sub = log.subscribe(filter.clone(), 0).await?;
    let mut whole = Seen::default();
    let mut streams = BTreeSet::new();
    while let Ok(next) = tokio::time::timeout(Duration::from_millis(500), sub.next()).await {
        let c = next.ok_or_else(|| anyhow::anyhow!("the subscription ended"))??;
        whole.decisions += 1;
        whole.events += c.envelopes.len() as u64;
        whole.last = c.position;
        streams.insert(c.stream);
    }
    drop(sub);
    anyhow::ensure!(whole.events > 0, "the log holds no events to replay");
    println!(
        "log: {} events in {} decisions (to position {})",
        whole.events, whole.decisions, whole.last
    );
    let mut rates = Vec::new();
    for run in 1..=runs {
        let begun = Instant::now();
        let seen = replay(log, filter.clone(), whole.last).await?;
        let took = begun.elapsed().as_secs_f64();
        anyhow::ensure!(
            seen == whole,
            "replay {run} saw {seen:?}, the first saw {whole:?}"
        );
        let rate = seen.events as f64 / took;
        println!(
            "replay {run}: {:.0} events/s, {:.0} decisions/s ({took:.3} s)",
            rate,
            seen.decisions as f64 / took
        );
        rates.push(rate);
    }
    if reads {
        read_each(log, &streams, whole.events).await?;
    }
    rates.sort_by(f64::total_cmp);
    if let (Some(low), Some(high)) = (rates.first(), rates.last()) {
        println!(
            "replay: {:.0} events/s median ({low:.0}–{high:.0}) over {} runs",
            rates[rates.len() / 2],
            rates.len()
        );
    }
    Ok(streams)
}

/// The log read through a subscription from the start to position `to`, in
/// a task of the runtime as a projection reads it.
async fn replay<L: EventLog>(log: &L, filter: Filter, to: u64) -> anyhow::Result<Seen> {
    let mut sub = log.subscribe(filter, 0).await?;
    let reading = tokio::spawn(async move {
        let mut seen = Seen::default();
        while seen.last < to {
            let c = sub
                .next()
                .await
                .ok_or_else(|| anyhow::anyhow!("the subscription ended"))??;
            seen.decisions += 1;
            seen.events += c.envelopes.len() as u64;
            seen.last = c.position;
        }
        anyhow::Ok(seen)
    });
    tokio::time::timeout(Duration::from_secs(120), reading)
        .await
        .map_err(|_| anyhow::anyhow!("the replay took more than two minutes"))??
}

/// Every stream read whole, one after another: the total, and the time per
/// stream at the median and the slowest.
async fn read_each<L: EventLog>(
    log: &L,
    streams: &BTreeSet<StreamId>,
    events: u64,
) -> anyhow::Result<()> {
    let begun = Instant::now();
    let mut times = Vec::with_capacity(streams.len());
    let mut read = 0u64;
    for stream in streams {
        let one = Instant::now();
        read += log.read(stream, 1).await?.len() as u64;
        times.push(one.elapsed());
    }
    let took = begun.elapsed().as_secs_f64();
    anyhow::ensure!(
        read == events,
        "the streams read hold {read} events, the replay {events}"
    );
    times.sort_unstable();
    println!(
        "reads: {} streams one by one, {read} events in {took:.2} s ({:.0} events/s); per stream {:.1} ms median, {:.1} ms the slowest",
        streams.len(),
        read as f64 / took,
        times[times.len() / 2].as_secs_f64() * 1e3,
        times.last().map_or(0.0, |t| t.as_secs_f64() * 1e3),
    );
    Ok(())
}

/// Each tournament's tables loaded into a fresh table service's handler in
/// one pass over the log ([`Handler::load_all`]), checked against the
/// streams the replay saw, and timed.
async fn load_tables<L: EventLog + 'static>(
    log: Arc<L>,
    streams: &BTreeSet<StreamId>,
) -> anyhow::Result<()> {
    let mut tables: BTreeMap<&str, usize> = BTreeMap::new();
    for s in streams.iter().filter(|s| s.kind == "table") {
        *tables.entry(s.tournament.as_str()).or_default() += 1;
    }
    for (tournament, count) in tables {
        let handler: Handler<Table, L> = Handler::new(Arc::clone(&log));
        let begun = Instant::now();
        let loaded = handler.load_all(tournament, "table").await?;
        let took = begun.elapsed().as_secs_f64();
        anyhow::ensure!(
            loaded == count,
            "{loaded} tables of {tournament} loaded, the replay saw {count}"
        );
        println!(
            "load: {tournament}'s {loaded} tables in one pass, {took:.2} s ({:.1} ms a table)",
            took * 1e3 / loaded as f64
        );
    }
    Ok(())
}
