//! Session 37's audit failure, through the conductors as deployed apart:
//! busts recorded while the busts that waited for payout's close are being
//! placed join the queue behind them, and are placed (four-flight sim:
//! a flight's last 2,014 busts stayed unplaced).

use std::sync::Arc;

use felt_clock::{ClockSettings, Millis, Structure};
use felt_eventlog::{EmbeddedLog, EventLog};
use felt_payout::{MoneySettings, PLACED_PER_DECISION, SimultaneousBusts};
use felt_seating::{EntryId, SeatingCommand, Settings};
use felt_service::Provenance;
use felt_table::HouseRules;
use felt_tournament::aggregates::seating_stream;
use felt_tournament::{Conductor, Hosts, TournamentSpec};

const T0: Millis = 1_796_153_400_000;

fn spec() -> TournamentSpec {
    let mut seating = Settings::tda(9, 10_000);
    seating.late_registration_level = 2;
    TournamentSpec {
        name: "Queue".into(),
        seating,
        structure: Structure::bhpoker(),
        clock: ClockSettings::default(),
        money: MoneySettings::generated(10_000, 1_000),
        busts: SimultaneousBusts::ByStartingStack,
        rules: HouseRules::default(),
        deal: felt_tournament::DealMode::Digital,
    }
}

/// The director disqualifies entries `from..=to` at seating, one ruling
/// each (each a bust at payout, placed as they stand).
async fn disqualify<L: EventLog + 'static>(c: &Conductor<L>, from: u64, to: u64) {
    for e in from..=to {
        c.floor(
            "q",
            SeatingCommand::Disqualify {
                entry: EntryId(e),
                reason: "collusion".into(),
            },
            &format!("dq-{e}"),
            T0 + 1_000,
            &Provenance::default(),
        )
        .await
        .unwrap();
    }
}

/// Given a tournament whose registration is open, 201 busts waiting at
/// payout when registration closes (the close places 200, one decision
/// is counted for the other), when 200 more busts reach payout between
/// its close and that decision, then every bust is placed in the end, and
/// one after them is placed at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn busts_recorded_while_the_closes_queue_is_placed_are_all_placed() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("q.redb")).unwrap());
    // Seating and the clock in one process, payout in another; the test
    // runs payout's reactions itself, to put the busts between its steps.
    let desk = Conductor::new(log.clone()).hosting(Hosts {
        seating: true,
        clock: true,
        payout: false,
    });
    let payout = Arc::new(Conductor::new(log.clone()).hosting(Hosts {
        seating: false,
        clock: false,
        payout: true,
    }));
    // Payout follows the log while the tournament is created (creating it
    // waits for payout's part), then stops following.
    let following = {
        let payout = payout.clone();
        tokio::spawn(async move { payout.follow_reactions().await })
    };
    desk.create(&"q".parse().unwrap(), &spec(), T0)
        .await
        .unwrap();
    following.abort();
    let _ = following.await;
    payout.react_to_all().await.unwrap();
    let players: Vec<_> = (1..=450)
        .map(|i| (format!("p{i}").parse().unwrap(), format!("Player {i}")))
        .collect();
    desk.register_many("q", "presale", &players, T0)
        .await
        .unwrap();
    payout.react_to_all().await.unwrap();
    desk.start("q", T0).await.unwrap();
    payout.react_to_all().await.unwrap();

    let seating_version = || async { log.version(&seating_stream("q").unwrap()).await.unwrap() };
    // Registration open: the places are not known, so the busts wait.
    let before = PLACED_PER_DECISION as u64 + 1;
    disqualify(&desk, 1, before).await;
    payout.react("q", seating_version().await).await.unwrap();
    assert_eq!(
        payout.payout_state("q").await.unwrap().waiting().len() as u64,
        before
    );

    // The floor closes registration; payout closes (placing 200) but its
    // own reactions to that close have not run yet when 200 more busts
    // reach it.
    desk.close_registration("q", T0 + 2_000).await.unwrap();
    payout.react("q", seating_version().await).await.unwrap();
    let closed = payout.payout_state("q").await.unwrap();
    assert!(closed.sheet().is_some(), "payout closed");
    assert_eq!(closed.waiting().len(), 1, "the close placed 200");
    disqualify(&desk, before + 1, before + 200).await;
    payout.react("q", seating_version().await).await.unwrap();
    assert_eq!(payout.payout_state("q").await.unwrap().waiting().len(), 201);

    // Payout's reactions to its close run: the queue is drained whatever
    // joined it.
    payout.settle("q").await.unwrap();
    let state = payout.payout_state("q").await.unwrap();
    assert!(
        state.waiting().is_empty(),
        "{} busts wait",
        state.waiting().len()
    );
    let unplaced: Vec<_> = (1..=before + 200)
        .filter(|e| state.entry(EntryId(*e)).is_none_or(|x| x.place.is_none()))
        .collect();
    assert!(unplaced.is_empty(), "unplaced: {unplaced:?}");

    // A bust from now on is placed at once.
    disqualify(&desk, 450, 450).await;
    payout.react("q", seating_version().await).await.unwrap();
    let state = payout.payout_state("q").await.unwrap();
    assert!(state.waiting().is_empty());
    assert!(state.entry(EntryId(450)).is_some_and(|x| x.place.is_some()));
}
