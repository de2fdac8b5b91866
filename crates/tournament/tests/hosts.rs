//! Issue 23: each stream has one writer service. Deployed apart, seating,
//! the clock and payout each run only the reactions that write their own
//! streams, subscribed to the causes in the log: seating's front door
//! records the tournament in the registry and its entries and the start at
//! seating alone, the clock and payout take up their parts of the
//! definition, payout records the money and the clock starts itself, and the log ends with the facts one
//! process hosting all three records.

use std::sync::Arc;
use std::time::Duration;

use felt_clock::{ClockSettings, Millis, Structure};
use felt_eventlog::{EmbeddedLog, EventLog};
use felt_payout::{MoneySettings, SimultaneousBusts};
use felt_seating::Settings;
use felt_table::HouseRules;
use felt_tournament::{Conductor, Hosts, TournamentSpec};

mod common;
use common::{Streams, differences, streams};

/// A stream's events' types and payloads.
type Facts<'a> = Vec<(&'a str, &'a [u8])>;

/// Each stream's events as facts, whatever their order and the ids they
/// were recorded under (a reaction's id names its cause's place in its
/// stream): the types and payloads, sorted.
fn facts(streams: &Streams) -> Vec<(&String, Facts<'_>)> {
    streams
        .iter()
        .map(|(key, events)| {
            let mut facts: Facts = events
                .iter()
                .map(|e| (e.1.as_str(), e.2.as_slice()))
                .collect();
            facts.sort_unstable();
            (key, facts)
        })
        .collect()
}

const T0: Millis = 1_796_153_400_000;

/// No late registration: the clock's start closes registration, payout
/// fixes its pool and seating learns the places paid.
fn spec() -> TournamentSpec {
    TournamentSpec {
        name: "Apart".into(),
        seating: Settings::tda(9, 10_000),
        structure: Structure::bhpoker(),
        clock: ClockSettings::default(),
        money: MoneySettings::club(),
        busts: SimultaneousBusts::ByStartingStack,
        rules: HouseRules::default(),
        deal: felt_tournament::DealMode::Digital,
    }
}

/// What the director does at seating's front door: create, register 30,
/// start.
async fn run_the_desk<L: EventLog + 'static>(c: &Conductor<L>) {
    c.create(&"a".parse().unwrap(), &spec(), T0).await.unwrap();
    for i in 1..=30 {
        c.register(
            "a",
            &format!("r{i}"),
            &format!("p{i}").parse().unwrap(),
            &format!("Player {i}"),
            T0,
        )
        .await
        .unwrap();
    }
    c.start("a", T0).await.unwrap();
}

fn only(seating: bool, clock: bool, payout: bool) -> Hosts {
    Hosts {
        seating,
        clock,
        payout,
    }
}

/// Seating, the clock and payout, each its own process on `log`.
fn apart(log: &Arc<EmbeddedLog>) -> [Arc<Conductor<EmbeddedLog>>; 3] {
    [
        only(true, false, false),
        only(false, true, false),
        only(false, false, true),
    ]
    .map(|hosts| Arc::new(Conductor::new(log.clone()).hosting(hosts)))
}

/// Each process following the log in the background, as deployed.
fn follow(
    processes: &[&Arc<Conductor<EmbeddedLog>>],
) -> Vec<tokio::task::JoinHandle<Result<(), felt_tournament::TournamentError>>> {
    processes
        .iter()
        .map(|&c| {
            let c = c.clone();
            tokio::spawn(async move { c.follow_reactions().await })
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn services_deployed_apart_each_write_their_own_streams_and_end_as_one_process_does() {
    let dir = tempfile::tempdir().unwrap();
    let one = Arc::new(EmbeddedLog::open(&dir.path().join("one.redb")).unwrap());
    run_the_desk(&Conductor::new(one.clone())).await;
    let want = streams(&one, "a").await;
    assert!(want["a.seating.main"].iter().any(|e| e.1 == "PaidSet"));

    let log = Arc::new(EmbeddedLog::open(&dir.path().join("apart.redb")).unwrap());
    let [seating, clock, payout] = apart(&log);
    let background = follow(&[&seating, &clock, &payout]);
    run_the_desk(&seating).await;
    // Creating a tournament records it in the registry with its definition;
    // the clock and payout take up their parts there: seating writes
    // neither stream.
    assert_eq!(
        (seating.clock.appended(), seating.payout.appended()),
        (0, 0),
        "seating wrote the clock's or payout's part"
    );

    // The services answer each other concurrently, so seating's stream may
    // interleave the clock's close of registration with the seats the
    // carrier confirms: each stream holds the same facts (types and
    // payloads), and the tables' streams are the same to the event.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let mut got = streams(&log, "a").await;
    while facts(&got) != facts(&want) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
        got = streams(&log, "a").await;
    }
    assert!(facts(&got) == facts(&want), "{}", differences(&got, &want));
    for (key, events) in &want {
        if key.contains(".table.") {
            assert!(got[key] == *events, "{key}: {}", differences(&got, &want));
        }
    }
    for task in &background {
        assert!(!task.is_finished(), "a service stopped following the log");
    }
    // Who wrote what: the entries' money and payout's close by payout, the
    // start by the clock, registration's close and the places paid by
    // seating.
    assert_eq!(seating.clock.appended() + seating.payout.appended(), 0);
    assert!(
        payout.payout.appended() >= 3,
        "its part, the entries and the close"
    );
    assert_eq!(payout.seating.appended() + payout.clock.appended(), 0);
    assert!(
        clock.clock.appended() >= 2,
        "its part and the clock's start"
    );
    assert_eq!(clock.seating.appended() + clock.payout.appended(), 0);
    for task in background {
        task.abort();
    }
}

/// Issue 26, deployed apart: the room's pool is written by seating's
/// service alone, so seating's process runs the reaction that takes a
/// physical table for each table it opens (its own decisions' reaction to
/// the room), and names it at seating; the clock's and payout's processes
/// write nothing to the room.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deployed_apart_seating_takes_the_rooms_tables_for_the_tables_it_opens() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("apart.redb")).unwrap());
    let [seating, clock, payout] = apart(&log);
    let background = follow(&[&seating, &clock, &payout]);
    let layout: Vec<felt_room::PhysicalTable> = ["Red 1", "Red 2", "Blue 1", "Blue 2", "Blue 3"]
        .into_iter()
        .map(|name| felt_room::PhysicalTable {
            name: name.into(),
            seats: 9,
        })
        .collect();
    let from = felt_service::Provenance::default();
    seating
        .set_room_layout(layout, "first", T0, &from)
        .await
        .unwrap();
    run_the_desk(&seating).await;

    // 30 players at tables of 9: four tables, the room's first four.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let named = loop {
        let state = seating.seating_state("a").await.unwrap();
        let named: Vec<String> = state
            .room()
            .physical
            .values()
            .map(|(name, _)| name.clone())
            .collect();
        if named.len() == 4 || tokio::time::Instant::now() > deadline {
            break named;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(named, ["Red 1", "Red 2", "Blue 1", "Blue 2"]);
    let room = seating.room_state().await.unwrap();
    let held: Vec<&str> = room
        .layout()
        .iter()
        .filter(|t| room.holder(&t.name).is_some())
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(
        held,
        ["Red 1", "Red 2", "Blue 1", "Blue 2"],
        "held for the event"
    );
    assert_eq!(clock.room.appended() + payout.room.appended(), 0);
    for task in background {
        assert!(!task.is_finished(), "a service stopped following the log");
        task.abort();
    }
}
