//! `felt audit`: replays a tournament from the log and checks it, or shows
//! one hand step by step as a floor person reads it.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Subcommand;
use felt_eventlog::{EmbeddedLog, NatsLog, NatsSettings};
use felt_table::TableState;

#[derive(Debug, Subcommand)]
pub(crate) enum AuditCommand {
    /// Replays every stream of a tournament (every tournament in the log
    /// without --tournament) and checks: hash chains, every table's fold,
    /// every digital deal against its committed seed, every pot against the
    /// cards, chips conserved at every hand and across the tournament,
    /// seating against the tables, places and prizes against the busts.
    /// Closes with "N passed, N failed"; exits non-zero on any failure.
    Verify {
        #[arg(long)]
        tournament: Option<String>,
        /// The data folder of the embedded event log.
        #[arg(long, env = "FELT_DATA", default_value = "felt-data")]
        data: PathBuf,
        /// NATS JetStream instead of the embedded log.
        #[arg(long, env = "FELT_NATS")]
        nats: Option<String>,
    },
    /// One hand step by step: each action with the stacks, the pot, who is
    /// to act and the minimum raise, and the award with the hands' names.
    Hand {
        #[arg(long)]
        tournament: String,
        #[arg(long)]
        table: felt_vocabulary::TableNo,
        #[arg(long)]
        hand: u64,
        /// Write the hand as PHH instead.
        #[arg(long)]
        phh: bool,
        #[arg(long, env = "FELT_DATA", default_value = "felt-data")]
        data: PathBuf,
        #[arg(long, env = "FELT_NATS")]
        nats: Option<String>,
    },
}

pub(crate) fn run(command: AuditCommand) -> anyhow::Result<ExitCode> {
    match command {
        AuditCommand::Verify {
            tournament,
            data,
            nats,
        } => {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()?;
            let began = Instant::now();
            let audit = runtime.block_on(async {
                anyhow::Ok(match nats {
                    Some(url) => {
                        // Reading a subject of a large stream makes the
                        // NATS server search its blocks for it: the log is
                        // read once instead.
                        let log = NatsLog::connect(&url, &NatsSettings::default()).await?;
                        felt_audit::verify_read_once(&log, tournament.as_deref()).await?
                    }
                    None => {
                        let path = felt::logs::embedded_path(&data);
                        anyhow::ensure!(
                            path.is_file(),
                            "no event log at {} (--data names the folder felt up or felt sim wrote, --nats a NATS server)",
                            path.display()
                        );
                        let log = EmbeddedLog::open(&path)?;
                        felt_audit::verify(&log, tournament.as_deref()).await?
                    }
                })
            })?;
            for line in &audit.lines {
                println!("{line}");
            }
            println!(
                "{} tournament(s), {} events in {:.1} s: {} passed, {} failed",
                audit.tournaments,
                audit.events,
                began.elapsed().as_secs_f64(),
                audit.passed,
                audit.failed
            );
            Ok(if audit.clean() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        AuditCommand::Hand {
            tournament,
            table,
            hand,
            phh,
            data,
            nats,
        } => {
            let events = super::table_events(&data, nats.as_deref(), &tournament, table)?;
            let hands = felt_tablelog::hands(&events);
            let Some(chosen) = hands.iter().find(|h| h.number == hand) else {
                anyhow::bail!(
                    "table {table} of {tournament} has no finished hand {hand}: it has hands 1 to {}",
                    hands.last().map_or(0, |h| h.number)
                );
            };
            if phh {
                print!("{}", felt_phh::export(chosen.events)?);
            } else {
                // Fold everything before the hand, then read it event by event.
                let start = events.len()
                    - events
                        .iter()
                        .rev()
                        .position(|e| std::ptr::eq(e, &chosen.events[0]))
                        .unwrap_or(0)
                    - 1;
                let mut state = TableState::default();
                for e in &events[..start] {
                    state.apply(e);
                }
                print!("{}", felt_audit::narrate(&mut state, chosen.events));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
