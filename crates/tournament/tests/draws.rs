//! Issue 23: random seeds are drawn by the service that decides, when it
//! decides, and recorded in its decision; no command carries one. "Os
//! assentos de torneios e satélites serão designados aleatoriamente" (seed
//! 000, TDA 7): the start's draw, a late entry's seat and a redraw all
//! come from seating's own source, and a command sent again, from another
//! process with another source, gets the first draw back.

use std::sync::Arc;

use felt_clock::{ClockSettings, Millis, Structure};
use felt_eventlog::{EmbeddedLog, EventLog};
use felt_payout::{MoneySettings, SimultaneousBusts};
use felt_seating::{SeatingCommand, SeatingEvent, SeatingState, Settings};
use felt_table::HouseRules;
use felt_tournament::aggregates::seating_stream;
use felt_tournament::{Conductor, Draws, TournamentSpec};

const T0: Millis = 1_796_153_400_000;

fn spec() -> TournamentSpec {
    let mut seating = Settings::tda(9, 10_000);
    seating.late_registration_level = 2;
    TournamentSpec {
        name: "Draws".into(),
        seating,
        structure: Structure::bhpoker(),
        clock: ClockSettings::default(),
        money: MoneySettings::club(),
        busts: SimultaneousBusts::ByStartingStack,
        rules: HouseRules::default(),
        deal: felt_tournament::DealMode::Digital,
    }
}

/// Every seed the same byte: a source whose draws are told apart.
fn source(byte: u8) -> Draws {
    Arc::new(move |_: &felt_eventlog::StreamId, _: &str| [byte; 32])
}

/// Seating's decisions in the log, each with the state before it.
async fn decisions(log: &EmbeddedLog) -> Vec<(SeatingState, String, Vec<SeatingEvent>)> {
    let stream = seating_stream("d").unwrap();
    let mut state = SeatingState::default();
    let mut out: Vec<(SeatingState, String, Vec<SeatingEvent>)> = Vec::new();
    for envelope in log.read(&stream, 0).await.unwrap() {
        let event: SeatingEvent = envelope.decode().unwrap();
        match out.last_mut() {
            Some((_, id, events)) if *id == envelope.command_id => events.push(event.clone()),
            _ => out.push((
                state.clone(),
                envelope.command_id.clone(),
                vec![event.clone()],
            )),
        }
        state.apply(&event);
    }
    out
}

#[tokio::test]
async fn seating_draws_its_own_seeds_records_them_and_a_retry_gets_the_first_draw() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("draws.redb")).unwrap());
    // Given seating drawing from one source,
    let first = Conductor::new(log.clone()).with_draws(source(1));
    first
        .create(&"d".parse().unwrap(), &spec(), T0)
        .await
        .unwrap();
    for i in 1..=20 {
        first
            .register(
                "d",
                &format!("r{i}"),
                &format!("p{i}").parse().unwrap(),
                "P",
                T0,
            )
            .await
            .unwrap();
    }
    // when play starts and a late entry comes,
    first.start("d", T0).await.unwrap();
    first
        .register("d", "late", &"late".parse().unwrap(), "Late", T0 + 1_000)
        .await
        .unwrap();
    let before = first.seating_state("d").await.unwrap();
    // and the same commands come again through another process, whose
    // seating draws from another source,
    let second = Conductor::new(log.clone()).with_draws(source(2));
    second.start("d", T0).await.unwrap();
    second
        .register("d", "late", &"late".parse().unwrap(), "Late", T0 + 1_000)
        .await
        .unwrap();
    // then they get their first draws: nothing changed,
    let after = second.seating_state("d").await.unwrap();
    assert_eq!(before.room(), after.room());
    // and every decision that drew records the seed it drew from, last:
    // the start's seats and the late entry's seat, from the first source.
    let decided = decisions(&log).await;
    let drawn: Vec<(&str, [u8; 32])> = decided
        .iter()
        .filter_map(|(_, id, events)| match events.last() {
            Some(SeatingEvent::Drawn { seed }) => Some((id.as_str(), *seed)),
            _ => None,
        })
        .collect();
    assert_eq!(drawn, [("start", [1; 32]), ("late", [1; 32])]);
    // Anyone can draw them again from the state before and that seed.
    for (state, id, events) in &decided {
        let Some(SeatingEvent::Drawn { seed }) = events.last() else {
            continue;
        };
        let command = match id.as_str() {
            "start" => SeatingCommand::Start,
            _ => SeatingCommand::Register {
                player: "late".parse().unwrap(),
                name: "Late".into(),
                level: 1,
            },
        };
        assert_eq!(
            &felt_seating::decide(state, &command, seed).unwrap(),
            events,
            "{id}"
        );
    }
}
