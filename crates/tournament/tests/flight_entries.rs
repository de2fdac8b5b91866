//! Issue 28: an event's rules across its Day 1 flights. A player's
//! entries across the flights are counted and the entry registered as one
//! step: players racing into two flights at once, where the event allows
//! one entry a player, each end with exactly one.

use std::sync::Arc;

use felt_clock::{ClockSettings, Millis, Structure};
use felt_eventlog::EmbeddedLog;
use felt_payout::{MoneySettings, SimultaneousBusts};
use felt_seating::{FlightEntries, FlightStacks, Settings};
use felt_table::HouseRules;
use felt_tournament::{Conductor, DealMode, TournamentError, TournamentSpec};

const T0: Millis = 1_796_153_400_000;

fn spec(name: &str, seating: Settings, money: MoneySettings) -> TournamentSpec {
    TournamentSpec {
        name: name.into(),
        seating,
        structure: Structure::bhpoker(),
        clock: ClockSettings::default(),
        money,
        busts: SimultaneousBusts::ByStartingStack,
        rules: HouseRules::default(),
        deal: DealMode::Digital,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_racing_into_two_flights_get_one_entry_where_the_event_allows_one() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let c = Arc::new(Conductor::new(log));
    // Given an event that allows one entry a player across its flights,
    let mut event = Settings::tda(9, 10_000);
    event.flights = Some(FlightStacks::Best);
    event.flight_entries = FlightEntries {
        per_player: 1,
        ..FlightEntries::default()
    };
    c.create(
        &"ev".parse().unwrap(),
        &spec("Event", event, MoneySettings::club()),
        T0,
    )
    .await
    .unwrap();
    for n in 1..=2 {
        let mut flight = Settings::tda(9, 10_000);
        flight.flight = n;
        let mut money = MoneySettings::club();
        money.structure = felt_payout::Structure::Flight { event: "ev".into() };
        c.create(
            &format!("ev-{n}").parse().unwrap(),
            &spec(&format!("Day 1{n}"), flight, money),
            T0,
        )
        .await
        .unwrap();
    }
    // when each of 12 players registers in both flights at the same time,
    let mut tries = tokio::task::JoinSet::new();
    for p in 1..=12 {
        for n in 1..=2 {
            let c = c.clone();
            tries.spawn(async move {
                let r = c
                    .register(
                        &format!("ev-{n}"),
                        &format!("p{p}-in-{n}"),
                        &format!("p{p}").parse().unwrap(),
                        &format!("Player {p}"),
                        T0,
                    )
                    .await;
                (p, r)
            });
        }
    }
    let mut entered = [0u32; 13];
    while let Some(done) = tries.join_next().await {
        let (p, r) = done.unwrap();
        match r {
            Ok(_) => entered[p] += 1,
            Err(TournamentError::FlightEntryRefused { .. }) => {}
            Err(e) => panic!("player {p}: {e}"),
        }
    }
    // then each got exactly one entry, in one flight or the other.
    assert_eq!(&entered[1..], &[1; 12], "entries per player");
    let mut counted = 0;
    for n in 1..=2 {
        counted += c
            .seating_state(&format!("ev-{n}"))
            .await
            .unwrap()
            .entries()
            .len();
    }
    assert_eq!(counted, 12);
}
