//! `felt payout`: pay sheets and deals from the command line.

use clap::Subcommand;
use felt::results::{Format, ResultRow, render_results, result_rows, show};
use felt_payout::{Curve, DealMethod, DealTerms, MoneySettings, PaySheet, PercentTable, Structure};

#[derive(Debug, Subcommand)]
pub(crate) enum PayoutCommand {
    /// A tournament's results from the log: place, player, entry, prize and
    /// bounties, best place first.
    Results {
        #[arg(long)]
        tournament: String,
        /// The data folder of the embedded event log.
        #[arg(long, env = "FELT_DATA", default_value = "felt-data")]
        data: std::path::PathBuf,
        /// NATS JetStream instead of the embedded log.
        #[arg(long, env = "FELT_NATS")]
        nats: Option<String>,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// A tournament's cage from the log: every payment taken, refund,
    /// bounty and prize paid, the totals and the checks that they balance
    /// to the pool, the fees, the bounties and the prizes (fails if one
    /// does not).
    Cage {
        #[arg(long)]
        tournament: String,
        /// The data folder of the embedded event log.
        #[arg(long, env = "FELT_DATA", default_value = "felt-data")]
        data: std::path::PathBuf,
        /// NATS JetStream instead of the embedded log.
        #[arg(long, env = "FELT_NATS")]
        nats: Option<String>,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// The pay sheet for a field: the generated structure (default) or the
    /// club's posted percentage table.
    Sheet {
        /// Entries in the tournament.
        #[arg(long)]
        entries: u32,
        /// Each entry's contribution to the prize pool, in currency units
        /// (e.g. 40 or 10000.50).
        #[arg(long)]
        buy_in: String,
        /// The house's fee per entry (counted in the minimum cash's buy-in).
        #[arg(long, default_value = "0")]
        fee: String,
        /// The least the pool will be (the house covers the overlay).
        #[arg(long, default_value = "0")]
        guarantee: String,
        /// Use the club's posted percentage table instead of the curve.
        #[arg(long)]
        club: bool,
        /// Share of the field paid, in percent.
        #[arg(long, default_value_t = 15.0)]
        paid_percent: f64,
        /// The minimum cash as a multiple of the buy-in plus fee.
        #[arg(long, default_value_t = 1.5)]
        min_cash: f64,
        /// The curve's exponent: higher pays the top more.
        #[arg(long, default_value_t = 1.0)]
        steepness: f64,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Split the prizes left between the players left: by ICM or a chip chop.
    Deal {
        /// Chips of each player, comma-separated.
        #[arg(long, value_delimiter = ',', required = true)]
        stacks: Vec<u64>,
        /// The prizes of the places still to be won, in currency units,
        /// comma-separated.
        #[arg(long, value_delimiter = ',', required = true)]
        prizes: Vec<String>,
        /// A chip chop: the last prize each, the rest by chips.
        #[arg(long)]
        chop: bool,
        /// Money left to play for (taken from first place).
        #[arg(long, default_value = "0")]
        play_for: String,
    },
}

/// Currency units ("40", "12.5", "10000.05") to minor units (cents).
fn money(text: &str) -> anyhow::Result<u64> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    anyhow::ensure!(
        frac.len() <= 2
            && whole
                .chars()
                .chain(frac.chars())
                .all(|c| c.is_ascii_digit())
            && !whole.is_empty(),
        "{text:?} is not an amount of money: use units with at most two decimals, like 40 or 12.50"
    );
    let cents = format!("{frac:0<2}");
    Ok(whole.parse::<u64>()? * 100 + cents.parse::<u64>()?)
}

/// A CSV field, quoted when it needs to be.
fn print_sheet(sheet: &PaySheet, format: Format) -> anyhow::Result<()> {
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(sheet)?),
        Format::Csv => {
            println!("first,last,each");
            for b in &sheet.bands {
                println!("{},{},{}", b.first, b.last, show(b.each));
            }
        }
        Format::Text => {
            println!("pool {}, {} places paid", show(sheet.pool), sheet.paid());
            for b in &sheet.bands {
                let places = if b.first == b.last {
                    format!("{}", b.first)
                } else {
                    format!("{}-{}", b.first, b.last)
                };
                println!("{places:>11}  {:>16}", show(b.each));
            }
        }
    }
    Ok(())
}

/// The results of a tournament, read from whichever log was named.
fn results(
    tournament: &str,
    data: &std::path::Path,
    nats: Option<&str>,
) -> anyhow::Result<Vec<ResultRow>> {
    use felt_eventlog::{EmbeddedLog, EventLog, NatsLog, NatsSettings};
    use felt_tournament::aggregates::{payout_stream, seating_stream};
    async fn read<L: EventLog>(
        log: &L,
        t: &str,
    ) -> anyhow::Result<(felt_payout::PayoutState, felt_seating::SeatingState)> {
        let mut payout = felt_payout::PayoutState::default();
        for env in log.read(&payout_stream(t)?, 1).await? {
            payout.apply(&env.decode()?);
        }
        let mut seating = felt_seating::SeatingState::default();
        for env in log.read(&seating_stream(t)?, 1).await? {
            seating.apply(&env.decode()?);
        }
        Ok((payout, seating))
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (payout, seating) = runtime.block_on(async {
        match nats {
            Some(url) => {
                read(
                    &NatsLog::connect(url, &NatsSettings::default()).await?,
                    tournament,
                )
                .await
            }
            None => {
                let path = felt::logs::embedded_path(data);
                anyhow::ensure!(path.is_file(), "no event log at {}", path.display());
                read(&EmbeddedLog::open(&path)?, tournament).await
            }
        }
    })?;
    anyhow::ensure!(
        payout.settings().is_some(),
        "no tournament {tournament} in the log"
    );
    Ok(result_rows(&payout, &seating))
}

/// The cage's books of `tournament` from the embedded log or NATS.
fn cage(
    tournament: &str,
    data: &std::path::Path,
    nats: Option<&str>,
) -> anyhow::Result<felt::cage::Cage> {
    use felt_eventlog::{EmbeddedLog, NatsLog, NatsSettings};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        Ok(match nats {
            Some(url) => {
                let log = NatsLog::connect(url, &NatsSettings::default()).await?;
                felt::cage::from_log(&log, tournament).await?
            }
            None => {
                let path = felt::logs::embedded_path(data);
                anyhow::ensure!(path.is_file(), "no event log at {}", path.display());
                felt::cage::from_log(&EmbeddedLog::open(&path)?, tournament).await?
            }
        })
    })
}

pub(crate) fn run(command: PayoutCommand) -> anyhow::Result<()> {
    match command {
        PayoutCommand::Cage {
            tournament,
            data,
            nats,
            format,
        } => {
            let books = cage(&tournament, &data, nats.as_deref())?;
            match format {
                Format::Csv => print!("{}", felt::cage::csv(&books)),
                Format::Json => println!("{}", serde_json::to_string_pretty(&books)?),
                Format::Text => print!("{}", felt::cage::text(&books)),
            }
            anyhow::ensure!(
                books.balances(),
                "the cage's books do not balance: {}",
                books
                    .checks
                    .iter()
                    .filter(|c| !c.ok)
                    .map(|c| format!("{} ({})", c.name, c.detail))
                    .collect::<Vec<_>>()
                    .join("; ")
            );
            Ok(())
        }
        PayoutCommand::Results {
            tournament,
            data,
            nats,
            format,
        } => {
            let rows = results(&tournament, &data, nats.as_deref())?;
            print!("{}", render_results(&rows, format)?);
            Ok(())
        }
        PayoutCommand::Sheet {
            entries,
            buy_in,
            fee,
            guarantee,
            club,
            paid_percent,
            min_cash,
            steepness,
            format,
        } => {
            let structure = if club {
                Structure::Percentages(PercentTable::club())
            } else {
                Structure::Generated(Curve {
                    paid_permille: (paid_percent * 10.0).round() as u32,
                    min_cash_permille: (min_cash * 1000.0).round() as u32,
                    steepness_milli: (steepness * 1000.0).round() as u32,
                    ..Curve::default()
                })
            };
            let settings = MoneySettings {
                guarantee: money(&guarantee)?,
                structure,
                ..MoneySettings::generated(money(&buy_in)?, money(&fee)?)
            };
            settings.check()?;
            let sheet = settings.sheet(entries, 0)?;
            print_sheet(&sheet, format)
        }
        PayoutCommand::Deal {
            stacks,
            prizes,
            chop,
            play_for,
        } => {
            let prizes: Vec<u64> = prizes.iter().map(|p| money(p)).collect::<Result<_, _>>()?;
            let terms = DealTerms {
                players: stacks
                    .iter()
                    .enumerate()
                    .map(|(i, &s)| (felt_payout::EntryId(i as u64 + 1), s))
                    .collect(),
                method: if chop {
                    DealMethod::ChipChop
                } else {
                    DealMethod::Icm
                },
                play_for: money(&play_for)?,
            };
            let result = felt_payout::deal(&terms, &prizes)?;
            for ((_, stack), (_, amount)) in terms.players.iter().zip(&result.guaranteed) {
                println!("{stack:>12} chips  {:>14}", show(*amount));
            }
            if terms.play_for > 0 {
                println!("left to play for: {}", show(terms.play_for));
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::money;

    #[test]
    fn money_reads_units_and_cents() {
        assert_eq!(money("40").unwrap(), 4_000);
        assert_eq!(money("12.5").unwrap(), 1_250);
        assert_eq!(money("10000.05").unwrap(), 1_000_005);
        assert!(money("1.234").is_err());
        assert!(money("-3").is_err());
        assert!(money("").is_err());
    }
}
