//! An event fed by Day 1 flights (issue 28): given the flights' sealed
//! bags, when the event advances them, then each player plays one stack
//! by the event's policy, every bagged chip reaching Day 2 or forfeited,
//! and the event's start draws every seat afresh (seed 002, rule 6:
//! "Assentos de torneios e satélites serão designados aleatoriamente").

mod common;

use common::*;
use felt_seating::{
    AdvancedStack, DayResume, Elimination, EntryId, EntryStatus, FLIGHT_ENTRIES, FlightBag,
    FlightStacks, SeatingCommand, SeatingError, SeatingEvent, SeatingState, Settings,
};

fn event(policy: FlightStacks) -> SeatingState {
    registered(
        Settings {
            flights: Some(policy),
            ..Settings::tda(9, 10_000)
        },
        0,
    )
}

fn bag(flight: u32, k: u64, player: &str, bag: u32, chips: u64) -> FlightBag {
    FlightBag {
        flight,
        entry: EntryId(u64::from(flight) * FLIGHT_ENTRIES + k),
        player: player.parse().unwrap(),
        name: format!("Player {player}"),
        bag,
        chips,
    }
}

/// Two flights' bags: `ana` survived both (30,000 in flight 1, 45,000 in
/// flight 2), the others one each.
fn bags() -> Vec<FlightBag> {
    vec![
        bag(1, 3, "ana", 1, 30_000),
        bag(1, 7, "bia", 2, 20_000),
        bag(1, 9, "caio", 3, 10_000),
        bag(2, 2, "ana", 1, 45_000),
        bag(2, 5, "duda", 2, 50_000),
    ]
}

fn advanced(events: &[SeatingEvent]) -> (Vec<AdvancedStack>, Vec<FlightBag>, u32) {
    match events {
        [
            SeatingEvent::FlightsAdvanced {
                advanced,
                forfeited,
                out_before,
                ..
            },
        ] => (advanced.clone(), forfeited.clone(), *out_before),
        other => panic!("{other:?}"),
    }
}

/// The event takes the two flights' bags, `out` of their entries out.
fn advance(state: &mut SeatingState, out: u32) -> Vec<SeatingEvent> {
    run(
        state,
        SeatingCommand::AdvanceFlights {
            bags: bags(),
            out,
            resume: None,
        },
    )
}

fn ana(advanced: &[AdvancedStack]) -> &AdvancedStack {
    advanced
        .iter()
        .find(|a| a.player.as_str() == "ana")
        .unwrap()
}

/// Every bagged chip reaches Day 2 or is forfeited.
fn conserved(advanced: &[AdvancedStack], forfeited: &[FlightBag]) {
    let bagged: u64 = bags().iter().map(|b| b.chips).sum();
    let kept: u64 = advanced.iter().map(|a| a.chips).sum();
    let lost: u64 = forfeited.iter().map(|b| b.chips).sum();
    assert_eq!(kept + lost, bagged);
}

#[test]
fn a_flights_entries_keep_numbers_of_their_own_span() {
    let state = registered(
        Settings {
            flight: 2,
            ..Settings::tda(9, 10_000)
        },
        3,
    );
    let ids: Vec<EntryId> = state.entries().keys().copied().collect();
    assert_eq!(
        ids,
        [1, 2, 3].map(|k| EntryId(2 * FLIGHT_ENTRIES + k)).to_vec()
    );
}

/// Best stack forward: a player who bagged in two flights plays the
/// larger bag; the other is forfeited.
#[test]
fn best_stack_forward_forfeits_the_smaller_bag() {
    let mut state = event(FlightStacks::Best);
    let events = advance(&mut state, 40);
    let (advanced, forfeited, out_before) = advanced(&events);
    assert_eq!(advanced.len(), 4);
    let a = ana(&advanced);
    assert_eq!((a.entry, a.chips), (bags()[3].entry, 45_000));
    assert_eq!(a.bags, [bags()[3].entry]);
    assert_eq!(forfeited, [bags()[0].clone()]);
    assert_eq!(out_before, 41);
    conserved(&advanced, &forfeited);
    assert_eq!(state.stack_of(a.entry), 45_000);
    assert_eq!(state.entries()[&a.entry].status, EntryStatus::Registered);
    assert!(state.entry(bags()[0].entry).is_none());
}

/// First stack forward: the earliest flight's bag plays, the later one is
/// forfeited even when it is larger.
#[test]
fn first_stack_forward_keeps_the_earliest_flights_bag() {
    let mut state = event(FlightStacks::First);
    let events = advance(&mut state, 0);
    let (advanced, forfeited, out_before) = advanced(&events);
    let a = ana(&advanced);
    assert_eq!((a.entry, a.chips), (bags()[0].entry, 30_000));
    assert_eq!(forfeited, [bags()[3].clone()]);
    assert_eq!(out_before, 1);
    conserved(&advanced, &forfeited);
}

/// Stacks added: both bags play as one stack on the earliest flight's
/// entry, nothing forfeited.
#[test]
fn stacks_added_play_as_one_on_the_first_entry() {
    let mut state = event(FlightStacks::Added);
    let events = advance(&mut state, 0);
    let (advanced, forfeited, out_before) = advanced(&events);
    let a = ana(&advanced);
    assert_eq!((a.entry, a.chips), (bags()[0].entry, 75_000));
    assert_eq!(a.bags, [bags()[0].entry, bags()[3].entry]);
    assert!(forfeited.is_empty());
    assert_eq!(out_before, 1);
    conserved(&advanced, &forfeited);
}

/// Day 2 starts from the bags: every stack is drawn a seat at random and
/// seated with its bag's chips, and the first bust here is numbered
/// after every flight entry out before it.
#[test]
fn the_events_start_draws_the_stacks_and_numbers_busts_after_the_flights() {
    let mut state = event(FlightStacks::Best);
    advance(&mut state, 40);
    run_with(&mut state, SeatingCommand::Start, seed(7));
    for b in bags().iter().skip(1) {
        assert!(
            matches!(state.entries()[&b.entry].status, EntryStatus::Seated { .. }),
            "{b:?}"
        );
        assert_eq!(state.stack_of(b.entry), b.chips);
    }
    carry_out(&mut state);
    let caio = bags()[2].entry;
    let EntryStatus::Seated { table, .. } = state.entries()[&caio].status else {
        panic!()
    };
    run(&mut state, SeatingCommand::BeginHand { table });
    run(
        &mut state,
        SeatingCommand::HandEnded {
            table,
            button: 1,
            big_blind: 2,
            busted: vec![Elimination::of(caio)],
        },
    );
    assert_eq!(state.out()[&caio], 42);
}

/// Issue 28, "Day 2 ... the structure resumed at the level the day ended
/// in": given the flights' sealed bags, when they advance with where the
/// furthest flight's day ended, then the event records it (the clock
/// starts there) and its first day is Day 2 (its day-by-day settings
/// count from there); a resume on Day 1, at level 0 or with no time left
/// is refused.
#[test]
fn the_event_resumes_on_the_day_after_its_flights_where_they_ended() {
    let resume = DayResume {
        day: 2,
        level: 9,
        remaining_ms: 600_000,
    };
    let mut state = event(FlightStacks::Best);
    for (bad, reason) in [
        (
            DayResume { day: 1, ..resume },
            "the flights were the event's Day 1",
        ),
        (
            DayResume { level: 0, ..resume },
            "levels are numbered from 1",
        ),
        (
            DayResume {
                remaining_ms: 0,
                ..resume
            },
            "a level resumes with time left in it",
        ),
    ] {
        refused(
            &mut state,
            SeatingCommand::AdvanceFlights {
                bags: bags(),
                out: 0,
                resume: Some(bad),
            },
            SeatingError::InvalidResume {
                day: bad.day,
                level: bad.level,
                remaining_ms: bad.remaining_ms,
                reason: reason.into(),
            },
        );
    }
    assert_eq!(state.room().days_resumed, 0);
    let events = run(
        &mut state,
        SeatingCommand::AdvanceFlights {
            bags: bags(),
            out: 0,
            resume: Some(resume),
        },
    );
    assert!(matches!(
        &events[..],
        [SeatingEvent::FlightsAdvanced { resume: Some(r), .. }] if *r == resume
    ));
    assert_eq!(state.flights_resume(), Some(resume));
    assert_eq!(state.room().days_resumed, 1);
}

/// Refused, changing nothing: a tournament that is not an event, a second
/// advance, an entry bagged twice, an empty bag.
#[test]
fn bad_advances_are_refused() {
    let mut plain = registered(Settings::tda(9, 10_000), 0);
    refused(
        &mut plain,
        SeatingCommand::AdvanceFlights {
            bags: bags(),
            out: 0,
            resume: None,
        },
        SeatingError::NotAnEvent,
    );
    let mut state = event(FlightStacks::Best);
    let mut twice = bags();
    twice.push(bags()[1].clone());
    refused(
        &mut state,
        SeatingCommand::AdvanceFlights {
            bags: twice,
            out: 0,
            resume: None,
        },
        SeatingError::InvalidFlightBag {
            flight: 1,
            entry: bags()[1].entry,
            reason: "the entry is bagged twice".into(),
        },
    );
    let mut empty = bags();
    empty[2].chips = 0;
    assert!(matches!(
        try_run(
            &mut state,
            SeatingCommand::AdvanceFlights {
                bags: empty,
                out: 0,
                resume: None,
            }
        ),
        Err(SeatingError::InvalidFlightBag { .. })
    ));
    advance(&mut state, 0);
    refused(
        &mut state,
        SeatingCommand::AdvanceFlights {
            bags: bags(),
            out: 0,
            resume: None,
        },
        SeatingError::FlightsAlreadyAdvanced,
    );
}

fn refused(state: &mut SeatingState, command: SeatingCommand, error: SeatingError) {
    let before = state.clone();
    assert_eq!(try_run(state, command).unwrap_err(), error);
    assert_eq!(*state, before);
}
