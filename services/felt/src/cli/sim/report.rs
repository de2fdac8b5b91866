//! The results as payout and seating give them, and the run's figures.

#[allow(clippy::wildcard_imports)]
use super::*;

pub(super) fn money(minor: u64) -> String {
    format!("{}.{:02}", minor / 100, minor % 100)
}

/// The results as payout and seating give them over gRPC, and the figures.
pub(super) async fn report(sim: &Sim, elapsed: Duration) -> anyhow::Result<()> {
    use std::fmt::Write as _;
    let t = sim.tournament.as_str();
    // (Printed at once: tournaments played side by side report apart.)
    let mut out = String::new();
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
    // Every entry, the flights' too in an event played in flights.
    let re_entries = {
        let players: std::collections::HashSet<&String> =
            results.iter().map(|r| &r.player_id).collect();
        results.len() - players.len()
    };
    let pool = payouts.prize_pool;
    let seats: Vec<String> = results
        .iter()
        .filter(|r| r.ticket > 0)
        .map(|r| format!("{} (entry {})", r.name, r.entry))
        .collect();
    match results.iter().find(|r| r.ticket > 0) {
        Some(r) => writeln!(
            out,
            "{} seats in {} won: {}",
            seats.len(),
            r.ticket_target,
            seats.join(", ")
        )?,
        None => writeln!(out, "winner: {winner}")?,
    }
    writeln!(
        out,
        "{} entries ({re_entries} re-entries), prize pool {} {}, {} paid",
        results.len(),
        money(pool),
        payouts.currency,
        payouts.paid,
    )?;
    writeln!(out, "final table:")?;
    let mut sorted = results.clone();
    sorted.sort_by_key(|r| (r.first, r.entry));
    for r in sorted.iter().take(sim.final_table) {
        let place = if r.first == r.last {
            r.first.to_string()
        } else {
            format!("{}-{}", r.first, r.last)
        };
        writeln!(
            out,
            "  {place:>5}  {:<16} entry {:<6} {:>12}",
            r.name,
            r.entry,
            money(r.prize)
        )?;
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
    writeln!(out, "pay sheet: {} …", top.join(", "))?;
    if payouts.bounties > 0 {
        let won: u64 = results.iter().map(|r| r.bounties).sum();
        writeln!(
            out,
            "bounties paid {} of {}",
            money(won),
            money(payouts.bounties)
        )?;
    }
    let paid: u64 = results.iter().map(|r| r.prize).sum();
    writeln!(
        out,
        "prizes paid {} of the pool {}",
        money(paid),
        money(pool)
    )?;
    let level = sim.level().await?;
    let secs = elapsed.as_secs_f64();
    writeln!(
        out,
        "{hands} hands in {secs:.1} s ({:.0} hands/s), ended at level {level}; {} calls sent again while their service was away",
        hands as f64 / secs,
        SENT_AGAIN.load(Ordering::Relaxed),
    )?;
    if let Some(line) = timed(sim) {
        writeln!(out, "{line}")?;
    }
    writeln!(
        out,
        "tournament id: {t} (felt audit verify --tournament {t})"
    )?;
    print!("{out}");
    anyhow::ensure!(
        paid == pool,
        "prizes paid {paid} differ from the pool {pool}"
    );
    Ok(())
}

/// BeginHand's and Execute's answers while at least `TIMED_TABLES` tables
/// were in play, as the dealers saw them (a call sent again after its
/// service was away counts once, with its wait).
pub(super) fn timed(sim: &Sim) -> Option<String> {
    let (begin, execute) = {
        let timed = sim
            .timed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        (timed.0.clone(), timed.1.clone())
    };
    if begin.is_empty() {
        return None;
    }
    let quantiles = |mut v: Vec<u32>| {
        v.sort_unstable();
        let at = |q: f64| {
            let i = ((v.len() as f64 * q).ceil() as usize).clamp(1, v.len()) - 1;
            f64::from(v[i]) / 1_000.0
        };
        format!(
            "p50 {:.2} ms, p99 {:.2} ms over {} calls",
            at(0.5),
            at(0.99),
            v.len()
        )
    };
    Some(format!(
        "with {}+ tables in play: BeginHand {}; Execute {}",
        super::TIMED_TABLES,
        quantiles(begin),
        if execute.is_empty() {
            "not called".to_string()
        } else {
            quantiles(execute)
        }
    ))
}
