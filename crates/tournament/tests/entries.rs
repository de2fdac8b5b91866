//! Issue 23: entries in and out before play are seating's decisions, and
//! payout's record of the money (paid in, refunded, an alternate's paid on
//! promotion) is the reaction to them. A process that dies after any
//! append leaves nothing for a caller to guess: the reactions run again at
//! start bring payout level with seating, and the callers' retries (the
//! same command ids) end where an uninterrupted run does.

use felt_seating::EntryId;
use std::sync::Arc;

use felt_clock::{ClockSettings, Millis, Structure};
use felt_eventlog::{EmbeddedLog, EventLog};
use felt_payout::{MoneySettings, SimultaneousBusts};
use felt_seating::{EntryStatus, Settings};
use felt_table::HouseRules;
use felt_tournament::{Conductor, TournamentSpec};

mod common;
use common::{Crashing, copied, differences, streams};

const T0: Millis = 1_796_153_400_000;

/// A field capped at three: a fourth player waits as an alternate.
fn spec() -> TournamentSpec {
    let mut seating = Settings::tda(9, 10_000);
    seating.max_entries = Some(3);
    TournamentSpec {
        name: "Capped".into(),
        seating,
        structure: Structure::bhpoker(),
        clock: ClockSettings::default(),
        money: MoneySettings::club(),
        busts: SimultaneousBusts::ByStartingStack,
        rules: HouseRules::default(),
        deal: felt_tournament::DealMode::Digital,
    }
}

/// A tournament with two players registered: the log's file.
async fn created(dir: &std::path::Path) -> std::path::PathBuf {
    let file = dir.join("capped.redb");
    let c = Conductor::new(Arc::new(EmbeddedLog::open(&file).unwrap()));
    c.create(&"e".parse().unwrap(), &spec(), T0).await.unwrap();
    for i in 1..=2 {
        register(&c, i).await.unwrap();
    }
    file
}

async fn register<L: EventLog + 'static>(
    c: &Conductor<L>,
    i: u64,
) -> Result<EntryId, felt_tournament::TournamentError> {
    c.register(
        "e",
        &format!("r{i}"),
        &format!("p{i}").parse().unwrap(),
        &format!("Player {i}"),
        T0,
    )
    .await
}

/// What the floor does: the field's third player, a fourth who waits as
/// an alternate, then the second player leaves (refunded) and the
/// alternate takes the place (paid in). Stops at the first failure.
async fn desk<L: EventLog + 'static>(
    c: &Conductor<L>,
) -> Result<(), felt_tournament::TournamentError> {
    register(c, 3).await?;
    register(c, 4).await?;
    c.unregister("e", EntryId(2), "called away", T0).await
}

/// Payout's entries and seating's field (the entries that paid in and did
/// not leave), which the reactions keep equal.
async fn ledgers<L: EventLog + 'static>(c: &Conductor<L>) -> (Vec<EntryId>, Vec<EntryId>) {
    let payout = c.payout_state("e").await.unwrap();
    let seating = c.seating_state("e").await.unwrap();
    let field = seating
        .entries()
        .iter()
        .filter(|(_, e)| e.status == EntryStatus::Registered)
        .map(|(id, _)| *id)
        .collect();
    (payout.entries().keys().copied().collect(), field)
}

#[tokio::test]
async fn entries_cut_short_after_any_append_are_paid_in_and_refunded_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let file = created(dir.path()).await;
    let (_whole_dir, whole_log) = copied(&file);
    let whole = Conductor::new(whole_log.clone());
    desk(&whole).await.unwrap();
    let kept = vec![EntryId(1), EntryId(3), EntryId(4)];
    assert_eq!(ledgers(&whole).await, (kept.clone(), kept));
    let whole = streams(&whole_log, "e").await;
    // Seating's registration and payout's entry; the alternate (seating
    // alone); seating's unregistration, payout's refund and the promoted
    // alternate's entry.
    let steps = 6;
    for budget in 0..=steps {
        let (_dir, log) = copied(&file);
        let crashing = Arc::new(Crashing::new(log.clone(), budget));
        let cut = desk(&Conductor::new(crashing.clone())).await;
        assert_eq!(cut.is_ok(), budget == steps, "{budget}: {cut:?}");
        assert_eq!(crashing.made(), budget);
        // Started again: the reactions left run, and payout holds the money
        // of exactly the field seating has, with no caller's help.
        let c = Conductor::new(log.clone());
        c.react_to_all().await.unwrap();
        let (payout, field) = ledgers(&c).await;
        assert_eq!(payout, field, "cut after {budget} appends");
        // The floor's requests that got no answer are sent again, under
        // the same ids: the log ends as the uninterrupted run's.
        desk(&c).await.unwrap();
        let now = streams(&log, "e").await;
        assert!(
            now == whole,
            "cut after {budget} of {steps} appends: {}",
            differences(&now, &whole)
        );
    }
}
