//! `felt bench log`: the event log's speed — acknowledged decision appends
//! per second and their latency from many streams at once, one table's log
//! read back, and a whole log replayed through a subscription.

use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use felt_eventlog::{
    Decision, EmbeddedLog, EventLog, Expected, Filter, NatsLog, NatsSettings, NewEvent, StreamId,
};
use felt_testkit::NatsServer;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Backend {
    Embedded,
    Nats,
}

#[derive(Debug, Args)]
pub(crate) struct LogArgs {
    #[arg(long, value_enum, default_value_t = Backend::Embedded)]
    backend: Backend,
    /// A running NATS server; without it a local nats-server is started
    /// with a temporary store.
    #[arg(long)]
    nats: Option<String>,
    /// With a local nats-server: fsync before every acknowledgement
    /// (`sync_interval: always`, what production runs).
    #[arg(long)]
    sync_always: bool,
    /// Decisions to append.
    #[arg(long, default_value_t = 50_000)]
    appends: u64,
    /// Streams they are spread over.
    #[arg(long, default_value_t = 1_000)]
    streams: u64,
    /// Appenders at once, each waiting for its acknowledgement.
    #[arg(long, default_value_t = 64)]
    concurrency: u64,
}

/// A table event's size and shape, roughly.
#[derive(Serialize)]
struct Action {
    seat: u8,
    action: &'static str,
    amount: u64,
    all_in: bool,
}

/// A table's decisions as `felt bench hands` plays them: one in 17 starts a
/// hand (about ten events: the hand, antes, blinds, the deal), the others
/// are one action (one event): 1.6 events per decision on average, as there.
fn decision(command: String, n: u64) -> anyhow::Result<Decision> {
    let events = if n.is_multiple_of(17) { 10 } else { 1 };
    Ok(Decision {
        command_id: command,
        causation_id: None,
        correlation_id: Some("bench".into()),
        recorded_at: 1_764_500_000_000 + n as i64,
        events: (0..events)
            .map(|k| {
                NewEvent::encode(
                    "ActionTaken",
                    1,
                    &Action {
                        seat: ((n + k) % 9) as u8 + 1,
                        action: "raise",
                        amount: 100 * n,
                        all_in: false,
                    },
                )
            })
            .collect::<Result<_, _>>()?,
        trace: None,
        request: None,
        actor: None,
    })
}

pub(crate) fn run(args: &LogArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        match args.backend {
            Backend::Embedded => {
                let dir = tempfile::tempdir()?;
                let log = Arc::new(EmbeddedLog::open(&dir.path().join("bench.redb"))?);
                println!("backend: embedded (redb, fsync on every commit)");
                measure(log, args).await
            }
            Backend::Nats => {
                let local;
                let url = match &args.nats {
                    Some(url) => url.clone(),
                    None => {
                        let settings = if args.sync_always {
                            "sync_interval: always"
                        } else {
                            ""
                        };
                        local = NatsServer::start_with(settings)?;
                        local.url()
                    }
                };
                let log = Arc::new(NatsLog::connect(&url, &NatsSettings::default()).await?);
                println!(
                    "backend: nats at {url} (file storage{})",
                    if args.sync_always {
                        ", sync_interval: always"
                    } else {
                        ""
                    }
                );
                measure(log, args).await
            }
        }
    })
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).copied().unwrap_or_default()
}

async fn measure<L: EventLog + 'static>(log: Arc<L>, args: &LogArgs) -> anyhow::Result<()> {
    let streams: Vec<StreamId> = (0..args.streams)
        .map(|i| StreamId::new("bench", "table", &i.to_string()))
        .collect::<Result<_, _>>()?;
    let streams = Arc::new(streams);
    // Appends: each appender owns a share of the streams and appends to them
    // in turn, waiting for every acknowledgement.
    let per_task = args.appends / args.concurrency.max(1);
    let start = Instant::now();
    let mut tasks = Vec::new();
    for t in 0..args.concurrency {
        let log = log.clone();
        let streams = streams.clone();
        let concurrency = args.concurrency;
        tasks.push(tokio::spawn(async move {
            let mine: Vec<usize> = (t as usize..streams.len())
                .step_by(concurrency as usize)
                .collect();
            let mut versions = vec![0u64; mine.len()];
            let mut latencies = Vec::with_capacity(per_task as usize);
            let mut events = 0;
            for k in 0..per_task {
                let slot = (k as usize) % mine.len().max(1);
                let Some(&s) = mine.get(slot) else { break };
                let d = decision(format!("{t}-{k}"), k)?;
                let begun = Instant::now();
                let a = log
                    .append(&streams[s], Expected::Exactly(versions[slot]), d)
                    .await?;
                latencies.push(begun.elapsed());
                events += a.last - versions[slot];
                versions[slot] = a.last;
            }
            anyhow::Ok((latencies, events))
        }));
    }
    let mut latencies = Vec::new();
    let mut appended_events = 0;
    for t in tasks {
        let (l, e) = t.await??;
        latencies.extend(l);
        appended_events += e;
    }
    let took = start.elapsed();
    latencies.sort_unstable();
    let appended = latencies.len() as u64;
    println!(
        "appends: {appended} decisions ({appended_events} events) over {} streams, {} appenders: {:.0} acknowledged/s (p50 {:.2} ms, p99 {:.2} ms, {:.2} s)",
        args.streams,
        args.concurrency,
        appended as f64 / took.as_secs_f64(),
        percentile(&latencies, 0.5).as_secs_f64() * 1e3,
        percentile(&latencies, 0.99).as_secs_f64() * 1e3,
        took.as_secs_f64()
    );

    // One table's log of 1,000 events (200 decisions of 5), read back.
    let table = StreamId::new("bench", "table", "long")?;
    let mut version = 0;
    for i in 0..200u64 {
        let mut d = decision(format!("long-{i}"), 1)?;
        let e = d.events[0].clone();
        d.events = vec![e; 5];
        version = log
            .append(&table, Expected::Exactly(version), d)
            .await?
            .last;
    }
    let long_events = 1000;
    let mut best = Duration::MAX;
    for _ in 0..5 {
        let begun = Instant::now();
        let events = log.read(&table, 1).await?;
        best = best.min(begun.elapsed());
        anyhow::ensure!(events.len() == 1000, "read {} events", events.len());
    }
    println!(
        "read: one stream of 1,000 events in {:.2} ms (best of 5)",
        best.as_secs_f64() * 1e3
    );

    // The whole log replayed through a subscription from the start, a few
    // times (one replay of this log takes a tenth of a second: noisy).
    anyhow::ensure!(
        appended_events + long_events > 0,
        "nothing was appended to replay"
    );
    super::replay::replays(&*log, Filter::tournament("bench"), 5, false).await?;
    Ok(())
}
