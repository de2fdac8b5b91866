//! The clock service's ticker asks the log, five times a second, which
//! clocks run. A clock that finished is stopped for good (payout placed
//! the winner or the seats; the clock takes nothing after that but a time
//! bank card already used), so it is read once more at most: a series'
//! finished satellites and tournaments are not read again at every tick
//! (on JetStream each such read scanned the stream from the clock's last
//! message to its end: a four-flight event with 20 satellites played its
//! later flights half as fast).

mod common;

use std::sync::Arc;

use felt_clock::{ClockCommand, ClockSettings, Millis, Structure};
use felt_eventlog::EmbeddedLog;
use felt_payout::{MoneySettings, SimultaneousBusts};
use felt_seating::Settings;
use felt_table::HouseRules;
use felt_tournament::aggregates::clock_stream;
use felt_tournament::{Conductor, TournamentSpec};

const T0: Millis = 1_796_153_400_000;

fn spec() -> TournamentSpec {
    TournamentSpec {
        name: "Ticker".into(),
        seating: Settings::tda(9, 10_000),
        structure: Structure::bhpoker(),
        clock: ClockSettings::default(),
        money: MoneySettings::generated(10_000, 1_000),
        busts: SimultaneousBusts::ByStartingStack,
        rules: HouseRules::default(),
        deal: felt_tournament::DealMode::Digital,
    }
}

/// Given two tournaments playing, one of whose clocks has finished, when
/// the ticker asks twice which clocks run, then the running one is read
/// from the log each time (another process may pause it) and the finished
/// one is not read the second time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_clock_is_not_read_again_at_every_tick() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("t.redb")).unwrap());
    let counting = Arc::new(common::Crashing::new(log, u64::MAX));
    let c = Conductor::new(counting.clone());
    for t in ["a", "b"] {
        c.create(&t.parse().unwrap(), &spec(), T0).await.unwrap();
        let players: Vec<_> = (1..=20)
            .map(|i| (format!("{t}{i}").parse().unwrap(), format!("Player {i}")))
            .collect();
        c.register_many(t, "presale", &players, T0).await.unwrap();
        c.start(t, T0).await.unwrap();
    }
    c.clock
        .handle(
            &clock_stream("b").unwrap(),
            "finish",
            T0 + 1_000,
            &ClockCommand::Finish { at: T0 + 1_000 },
        )
        .await
        .unwrap();

    assert_eq!(c.running_clocks().await.unwrap(), ["a"]);
    let before = counting.streams_read().len();
    assert_eq!(c.running_clocks().await.unwrap(), ["a"]);
    let read = &counting.streams_read()[before..];
    let (a, b) = (
        clock_stream("a").unwrap().key(),
        clock_stream("b").unwrap().key(),
    );
    assert!(read.contains(&a), "the running clock is read: {read:?}");
    assert!(
        !read.contains(&b),
        "the finished clock is read again: {read:?}"
    );
}
