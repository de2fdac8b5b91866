//! `felt phh`: verify and export PHH hand histories.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use clap::{Subcommand, ValueEnum};
use felt_phh::Verdict;
use felt_table::HouseRules;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum Rules {
    /// PokerKit's behaviour, the format's reference (online play): a big
    /// blind all-in for less is called for what it posted, and pots with
    /// the same contenders are split as one, odd chips to the first winner.
    Pokerkit,
    /// The live convention: everyone calls the full big blind.
    Live,
}

impl Rules {
    fn house_rules(self) -> HouseRules {
        match self {
            Rules::Pokerkit => HouseRules::POKERKIT,
            Rules::Live => HouseRules::default(),
        }
    }
}

#[derive(Debug, Subcommand)]
pub(crate) enum PhhCommand {
    /// Replay hands through the table engine and compare each with its
    /// `finishing_stacks`. Prints a line per mismatch and closes with
    /// `N passed, N failed`; exits non-zero if any failed.
    Verify {
        /// Files or folders (searched recursively for *.phh).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// House rules to replay with.
        #[arg(long, value_enum, default_value_t = Rules::Pokerkit)]
        house_rules: Rules,
        /// Threads to replay on (default: every core).
        #[arg(long)]
        jobs: Option<usize>,
    },
    /// Write a hand felt played, from a table's event log, as PHH.
    Export {
        /// The data folder of the embedded event log.
        #[arg(long, default_value = "felt-data")]
        data: PathBuf,
        /// A NATS server to read the log from instead.
        #[arg(long)]
        nats: Option<String>,
        #[arg(long)]
        tournament: String,
        #[arg(long)]
        table: felt_vocabulary::TableNo,
        /// The hand number (default: the table's last finished hand).
        #[arg(long)]
        hand: Option<u64>,
    },
}

pub(crate) fn run(command: PhhCommand) -> anyhow::Result<ExitCode> {
    match command {
        PhhCommand::Verify {
            paths,
            house_rules,
            jobs,
        } => {
            let jobs = jobs
                .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
                .unwrap_or(1)
                .max(1);
            verify(&paths, house_rules.house_rules(), jobs)
        }
        PhhCommand::Export {
            data,
            nats,
            tournament,
            table,
            hand,
        } => {
            let events = super::table_events(&data, nats.as_deref(), &tournament, table)?;
            let hands = felt_tablelog::hands(&events);
            let chosen = match hand {
                Some(n) => hands.iter().find(|h| h.number == n),
                None => hands.last(),
            };
            let Some(chosen) = chosen else {
                anyhow::bail!(
                    "table {table} of {tournament} has no finished hand{}: its hands are {:?}",
                    hand.map(|n| format!(" {n}")).unwrap_or_default(),
                    hands.iter().map(|h| h.number).collect::<Vec<_>>()
                );
            };
            print!("{}", felt_phh::export(chosen.events)?);
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn phh_files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        anyhow::ensure!(path.exists(), "no such file or folder: {}", path.display());
        for entry in walkdir::WalkDir::new(path).sort_by_file_name() {
            let entry = entry?;
            if entry.file_type().is_file()
                && (path.is_file() || entry.path().extension().is_some_and(|e| e == "phh"))
            {
                files.push(entry.into_path());
            }
        }
    }
    Ok(files)
}

fn verify(paths: &[PathBuf], rules: HouseRules, jobs: usize) -> anyhow::Result<ExitCode> {
    let files = phh_files(paths)?;
    let texts: Vec<(PathBuf, String)> = files
        .into_iter()
        .map(|f| std::fs::read_to_string(&f).map(|t| (f, t)))
        .collect::<Result<_, _>>()?;
    let start = Instant::now();
    // Threads take batches of hands in turn, so a folder of long hands does
    // not leave one thread working alone at the end.
    const BATCH: usize = 64;
    let next = AtomicUsize::new(0);
    let mut verdicts: Vec<(usize, Verdict)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let from = next.fetch_add(BATCH, Ordering::Relaxed);
                        let Some(batch) = texts.get(from..(from + BATCH).min(texts.len())) else {
                            break;
                        };
                        if batch.is_empty() {
                            break;
                        }
                        done.extend(
                            batch
                                .iter()
                                .enumerate()
                                .map(|(i, (_, t))| (from + i, felt_phh::verify(t, rules))),
                        );
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    verdicts.sort_unstable_by_key(|v| v.0);
    let verdicts = verdicts.into_iter().map(|v| v.1);
    let took = start.elapsed();
    let (mut passed, mut failed, mut skipped) = (0usize, 0usize, 0usize);
    for ((path, _), verdict) in texts.iter().zip(verdicts) {
        match verdict {
            Verdict::Passed => passed += 1,
            Verdict::NoFinishingStacks => skipped += 1,
            Verdict::Mismatch {
                position,
                expected,
                got,
            } => {
                failed += 1;
                println!(
                    "{}: p{position} finished with {got}, the file says {expected}",
                    path.display()
                );
            }
            Verdict::Failed(e) => {
                failed += 1;
                println!("{}: {e}", path.display());
            }
        }
    }
    let hands = passed + failed;
    eprintln!(
        "replayed {hands} hands in {:.3} s on {jobs} thread(s) ({:.0} hands/s, files read beforehand){}",
        took.as_secs_f64(),
        hands as f64 / took.as_secs_f64().max(1e-9),
        if skipped > 0 {
            format!("; {skipped} without finishing stacks skipped")
        } else {
            String::new()
        }
    );
    println!("{passed} passed, {failed} failed");
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
