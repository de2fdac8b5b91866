//! The clock over a whole day with a manual clock: given events, when a
//! command at a time, then events or a refusal.

use felt_clock::{
    ActionClock, ClockCommand, ClockError, ClockEvent, ClockSettings, ClockState, DayEnd,
    DayEndCard, DayEndRule, Millis, Period, Status, Structure, TimeoutAction, Verdict, card_from,
};
use proptest::prelude::*;

/// The decider, for commands that draw nothing.
fn decide(state: &ClockState, command: &ClockCommand) -> Result<Vec<ClockEvent>, ClockError> {
    felt_clock::decide(state, command, &[0; 32])
}

const MIN: Millis = 60_000;
/// 19:30, the club's start (seed 003), as milliseconds on some day.
const T0: Millis = 1_764_531_000_000;

/// A clock on the club structure, started at T0.
fn started() -> ClockState {
    let mut state = ClockState::default();
    run(
        &mut state,
        ClockCommand::Configure {
            structure: Structure::bhpoker(),
            settings: ClockSettings::default(),
        },
    );
    run(&mut state, ClockCommand::Start { at: T0 });
    state
}

fn run(state: &mut ClockState, command: ClockCommand) -> Vec<ClockEvent> {
    let events = decide(state, &command).unwrap_or_else(|e| panic!("{command:?}: {e}"));
    for e in &events {
        state.apply(e);
    }
    events
}

fn level_starts(events: &[ClockEvent]) -> Vec<(Millis, usize)> {
    events
        .iter()
        .filter_map(|e| match e {
            ClockEvent::PeriodStarted { at, period, .. } => Some(((at - T0) / 1000, *period)),
            _ => None,
        })
        .collect()
}

#[test]
fn levels_change_to_the_second_and_none_is_skipped() {
    let mut state = started();
    // One second before the end of level 1: still level 1, 1 s left.
    let view = state.view(T0 + 20 * MIN - 1_000);
    assert_eq!((view.level, view.remaining), (Some(1), 1_000));
    assert_eq!(view.blinds.unwrap().big_blind, 50);
    // At 20:00 exactly, level 2 with its full 20 minutes.
    let view = state.view(T0 + 20 * MIN);
    assert_eq!((view.level, view.remaining), (Some(2), 20 * MIN));
    // A tick an hour in records levels 2, 3 and 4 each at its own second.
    let events = run(&mut state, ClockCommand::Tick { at: T0 + 61 * MIN });
    assert_eq!(
        level_starts(&events),
        vec![(1_200, 1), (2_400, 2), (3_600, 3)]
    );
    assert_eq!(state.view(T0 + 61 * MIN).remaining, 19 * MIN);
}

#[test]
fn the_first_break_comes_after_level_6_and_colours_up_the_25s() {
    let state = started();
    let view = state.view(T0);
    assert_eq!(view.next_break_in, Some(120 * MIN));
    let on_break = state.view(T0 + 125 * MIN);
    assert!(on_break.on_break);
    assert_eq!(on_break.level, None);
    assert_eq!(on_break.remaining, 5 * MIN);
    // The level coming after the break is level 7, 200/400.
    assert_eq!(on_break.blinds.unwrap().big_blind, 400);
    assert_eq!(on_break.blinds.unwrap().smallest_chip, 100);
    let Period::Break(b) = Structure::bhpoker().periods[6] else {
        panic!()
    };
    assert_eq!(b.color_up, Some(25));
    // No hand starts during the break.
    assert_eq!(
        state.level_for_hand(T0 + 125 * MIN),
        Err(ClockError::OnBreak { remaining: 5 * MIN })
    );
    assert_eq!(state.level_for_hand(T0 + 130 * MIN).unwrap().big_blind, 400);
}

#[test]
fn a_pause_stops_the_clock_and_a_resume_goes_on_from_the_same_time() {
    let mut state = started();
    run(
        &mut state,
        ClockCommand::Pause {
            at: T0 + 5 * MIN,
            reason: "dispute at table 3".into(),
        },
    );
    assert_eq!(state.view(T0 + 50 * MIN).remaining, 15 * MIN);
    assert_eq!(state.view(T0 + 50 * MIN).level, Some(1));
    // Pausing a paused clock is refused and changes nothing.
    let before = state.clone();
    assert_eq!(
        decide(
            &state,
            &ClockCommand::Pause {
                at: T0 + 6 * MIN,
                reason: "again".into()
            }
        ),
        Err(ClockError::WrongState {
            command: "pause".into(),
            status: "paused".into()
        })
    );
    assert_eq!(state, before);
    run(
        &mut state,
        ClockCommand::Resume {
            at: T0 + 50 * MIN,
            reason: "ruled".into(),
        },
    );
    assert_eq!(state.view(T0 + 64 * MIN).remaining, MIN);
    assert_eq!(state.view(T0 + 65 * MIN).level, Some(2));
}

#[test]
fn resuming_a_clock_never_started_is_refused() {
    let mut state = ClockState::default();
    run(
        &mut state,
        ClockCommand::Configure {
            structure: Structure::turbo(),
            settings: ClockSettings::default(),
        },
    );
    assert_eq!(
        decide(
            &state,
            &ClockCommand::Resume {
                at: T0,
                reason: "x".into()
            }
        )
        .unwrap_err()
        .to_string(),
        "cannot resume: the clock is not started"
    );
    assert_eq!(
        decide(&ClockState::default(), &ClockCommand::Start { at: T0 }),
        Err(ClockError::NotConfigured)
    );
}

#[test]
fn adjusting_adding_time_and_jumping() {
    let mut state = started();
    run(
        &mut state,
        ClockCommand::SetRemaining {
            at: T0 + MIN,
            remaining: 10 * MIN,
        },
    );
    assert_eq!(state.view(T0 + 2 * MIN).remaining, 9 * MIN);
    run(
        &mut state,
        ClockCommand::AddTime {
            at: T0 + 2 * MIN,
            millis: 3 * MIN,
        },
    );
    assert_eq!(state.view(T0 + 2 * MIN).remaining, 12 * MIN);
    assert!(matches!(
        decide(
            &state,
            &ClockCommand::AddTime {
                at: T0 + 2 * MIN,
                millis: -13 * MIN
            }
        ),
        Err(ClockError::InvalidRemaining { .. })
    ));
    run(
        &mut state,
        ClockCommand::JumpToLevel {
            at: T0 + 3 * MIN,
            level: 10,
        },
    );
    let view = state.view(T0 + 3 * MIN);
    assert_eq!((view.level, view.remaining), (Some(10), 15 * MIN));
    assert_eq!(view.blinds.unwrap().big_blind, 1_000);
    // And back, explicitly.
    run(
        &mut state,
        ClockCommand::JumpToLevel {
            at: T0 + 4 * MIN,
            level: 9,
        },
    );
    assert_eq!(state.view(T0 + 4 * MIN).level, Some(9));
    assert_eq!(
        decide(
            &state,
            &ClockCommand::JumpToLevel {
                at: T0 + 4 * MIN,
                level: 24
            }
        ),
        Err(ClockError::NoSuchLevel {
            level: 24,
            levels: 23
        })
    );
    assert!(matches!(
        decide(&state, &ClockCommand::Tick { at: T0 }),
        Err(ClockError::TimeWentBack { .. })
    ));
}

/// Every table in hand-for-hand finishes its hand at `at`.
fn hand_for_hand_round(state: &mut ClockState, at: Millis, tables: &[u32]) -> Vec<ClockEvent> {
    let mut events = Vec::new();
    for &table in tables {
        events.extend(run(state, ClockCommand::TableFinishedHand { at, table }));
    }
    events
}

/// A hand-for-hand hand that takes the clock to a break: the break is
/// taken on the wall clock as it would be without hand-for-hand, and the
/// hands go on taking their time off the level after it (seed 000, RP8:
/// "Os blinds seguirão aumentando a medida que o relógio anda ao passo de
/// 2 minutos por mão e novos níveis são atingidos"). The clock must not
/// stand still at the break's start: no table could deal again.
#[test]
fn a_hand_for_hand_hand_that_reaches_a_break_takes_the_break_on_the_wall_clock() {
    let mut state = started();
    // One minute before the first break (after level 6, at 120 minutes).
    let at = T0 + 119 * MIN;
    run(
        &mut state,
        ClockCommand::StartHandForHand {
            at,
            tables: vec![1, 2],
        },
    );
    let end = at + 3 * MIN;
    let events = hand_for_hand_round(&mut state, end, &[1, 2]);
    assert_eq!(level_starts(&events), vec![((end - T0) / 1000, 6)]);
    // Five minutes later half the break is left, and no hand is dealt.
    let view = state.view(end + 5 * MIN);
    assert!(view.on_break);
    assert_eq!(view.remaining, 5 * MIN);
    assert_eq!(
        state.level_for_hand(end + 5 * MIN),
        Err(ClockError::OnBreak { remaining: 5 * MIN })
    );
    // Once it is over, level 7 is dealt, still hand for hand: its time
    // waits for the hands.
    let level = state.level_for_hand(end + 10 * MIN).expect("level 7");
    assert_eq!(level.big_blind, 400);
    let events = run(&mut state, ClockCommand::Tick { at: end + 11 * MIN });
    assert_eq!(
        level_starts(&events),
        vec![((end + 10 * MIN - T0) / 1000, 7)]
    );
    assert!(matches!(
        state.status(),
        Status::HandForHand { round: 2, .. }
    ));
    assert_eq!(state.view(end + 30 * MIN).remaining, 20 * MIN);
    hand_for_hand_round(&mut state, end + 31 * MIN, &[1, 2]);
    assert_eq!(state.view(end + 40 * MIN).remaining, 18 * MIN);
}

/// Hand-for-hand called during a break: the break runs on, then the level
/// after it waits for the hands.
#[test]
fn hand_for_hand_started_on_a_break_lets_the_break_run_out() {
    let mut state = started();
    let at = T0 + 123 * MIN;
    run(
        &mut state,
        ClockCommand::StartHandForHand {
            at,
            tables: vec![1, 2],
        },
    );
    assert_eq!(state.view(at + 4 * MIN).remaining, 3 * MIN);
    let level = state.level_for_hand(T0 + 130 * MIN).expect("level 7");
    assert_eq!(level.big_blind, 400);
    assert_eq!(state.view(T0 + 150 * MIN).remaining, 20 * MIN);
    // Stopped during a break, the clock runs on from what is left.
    let mut stopped = started();
    run(
        &mut stopped,
        ClockCommand::StartHandForHand {
            at,
            tables: vec![1, 2],
        },
    );
    run(
        &mut stopped,
        ClockCommand::StopHandForHand { at: at + 2 * MIN },
    );
    let view = stopped.view(at + 4 * MIN);
    assert!(view.on_break);
    assert_eq!(view.remaining, 3 * MIN);
}

#[test]
fn hand_for_hand_deducts_per_hand_when_every_table_has_finished() {
    let mut state = started();
    // 18 minutes into level 1 (2 left), hand-for-hand on tables 1-3.
    run(
        &mut state,
        ClockCommand::StartHandForHand {
            at: T0 + 18 * MIN,
            tables: vec![1, 2, 3],
        },
    );
    // The clock stands still however long the hands take.
    assert_eq!(state.view(T0 + 30 * MIN).remaining, 2 * MIN);
    let e = run(
        &mut state,
        ClockCommand::TableFinishedHand {
            at: T0 + 19 * MIN,
            table: 2,
        },
    );
    assert_eq!(e.len(), 1);
    assert_eq!(
        decide(
            &state,
            &ClockCommand::TableFinishedHand {
                at: T0 + 19 * MIN,
                table: 2
            }
        ),
        Err(ClockError::TableAlreadyFinished { table: 2, round: 1 })
    );
    run(
        &mut state,
        ClockCommand::TableFinishedHand {
            at: T0 + 20 * MIN,
            table: 1,
        },
    );
    let events = run(
        &mut state,
        ClockCommand::TableFinishedHand {
            at: T0 + 21 * MIN,
            table: 3,
        },
    );
    // Two minutes off: exactly the end of level 1; level 2 starts with its
    // full time (the deduction is per hand, never batched).
    assert!(events.contains(&ClockEvent::HandForHandRoundEnded {
        at: T0 + 21 * MIN,
        round: 1,
        deducted: 0
    }));
    assert_eq!(state.view(T0 + 21 * MIN).level, Some(2));
    assert_eq!(state.view(T0 + 21 * MIN).remaining, 20 * MIN);
    // Table 3 breaks: the next round waits for 1 and 2 only.
    run(
        &mut state,
        ClockCommand::RemoveTable {
            at: T0 + 22 * MIN,
            table: 3,
        },
    );
    run(
        &mut state,
        ClockCommand::TableFinishedHand {
            at: T0 + 23 * MIN,
            table: 1,
        },
    );
    run(
        &mut state,
        ClockCommand::TableFinishedHand {
            at: T0 + 24 * MIN,
            table: 2,
        },
    );
    assert_eq!(state.view(T0 + 24 * MIN).remaining, 18 * MIN);
    let Status::HandForHand { round, .. } = state.status() else {
        panic!()
    };
    assert_eq!(*round, 3);
    run(
        &mut state,
        ClockCommand::StopHandForHand { at: T0 + 25 * MIN },
    );
    assert_eq!(state.view(T0 + 26 * MIN).remaining, 17 * MIN);
}

#[test]
fn seed_002_deducts_three_minutes_and_a_deduction_runs_into_the_next_level() {
    let mut state = ClockState::default();
    run(
        &mut state,
        ClockCommand::Configure {
            structure: Structure::bhpoker(),
            settings: ClockSettings {
                hand_for_hand_millis: 3 * MIN,
                ..ClockSettings::default()
            },
        },
    );
    run(&mut state, ClockCommand::Start { at: T0 });
    run(
        &mut state,
        ClockCommand::StartHandForHand {
            at: T0 + 19 * MIN,
            tables: vec![7],
        },
    );
    run(
        &mut state,
        ClockCommand::TableFinishedHand {
            at: T0 + 20 * MIN,
            table: 7,
        },
    );
    // One minute was left: level 2 starts and loses the other two.
    let view = state.view(T0 + 20 * MIN);
    assert_eq!((view.level, view.remaining), (Some(2), 18 * MIN));
}

/// Seed 002, action clock D: "Para torneios de múltiplos dias, o jogador
/// receberá novos cartões de TIME BANK em cada novo dia (adicionais aos
/// que já tiver)": given a player who used two of day 1's three cards,
/// the next day they hold one plus three new.
#[test]
fn the_end_of_the_day_after_a_drawn_number_of_hands_and_the_next_day() {
    let mut state = started();
    let player = felt_clock::EntryId(7);
    run(
        &mut state,
        ClockCommand::UseTimeBank {
            at: T0 + MIN,
            player,
            cards: 2,
        },
    );
    let held = |s: &ClockState| {
        s.settings()
            .action
            .cards_available(s.day(), s.time_banks_used(player))
    };
    assert_eq!(held(&state), 1);
    assert_eq!(
        decide(
            &state,
            &ClockCommand::EndDayAfter {
                at: T0 + 10 * MIN,
                hands: 6
            }
        ),
        Err(ClockError::InvalidDraw { hands: 6 })
    );
    run(
        &mut state,
        ClockCommand::EndDayAfter {
            at: T0 + 10 * MIN,
            hands: 3,
        },
    );
    assert_eq!(state.status(), &Status::EndOfDay { hands: 3 });
    assert_eq!(state.view(T0 + 60 * MIN).remaining, 10 * MIN);
    run(&mut state, ClockCommand::EndDay { at: T0 + 20 * MIN });
    assert_eq!(
        state.level_for_hand(T0 + 21 * MIN),
        Err(ClockError::DayOver)
    );
    // The next day, the clock goes on with the 10 minutes left.
    let day2 = T0 + 24 * 60 * MIN;
    run(&mut state, ClockCommand::StartDay { at: day2 });
    assert_eq!(state.day(), 2);
    assert_eq!(state.view(day2 + MIN).remaining, 9 * MIN);
    assert_eq!(held(&state), 4);
}

/// Issue 28 (Day 2 from several Day 1 flights resumes "the structure at
/// the level the day ended in"): given a flight's day ended 10 minutes
/// into level 3, its resume point is level 3 with 10 minutes left; given
/// one ended at a level's very end, or on the break after level 6, the
/// next level with its full time.
#[test]
fn a_day_resumes_in_the_level_it_ended_in_or_the_next_once_that_ran_out() {
    let mut flight = started();
    assert_eq!(ClockState::default().resume_point(), None);
    run(&mut flight, ClockCommand::EndDay { at: T0 + 50 * MIN });
    assert_eq!(flight.resume_point(), Some((3, 10 * MIN)));
    let mut to_the_end = started();
    run(&mut to_the_end, ClockCommand::EndDay { at: T0 + 60 * MIN });
    assert_eq!(to_the_end.resume_point(), Some((4, 20 * MIN)));
    let mut on_break = started();
    run(&mut on_break, ClockCommand::EndDay { at: T0 + 122 * MIN });
    assert_eq!(on_break.resume_point(), Some((7, 20 * MIN)));
}

/// Issue 28: given an event's clock configured, not started, when its
/// Day 2 starts from the flights at level 10 with 7 minutes left, then it
/// runs on day 2 (time-bank cards as a second day's, seed 002 action
/// clock D) at level 10 from 7 minutes; a clock already started, a level
/// the structure lacks, a time longer than the level and day 0 are
/// refused.
#[test]
fn an_events_day_2_starts_where_its_flights_ended() {
    let mut event = ClockState::default();
    run(
        &mut event,
        ClockCommand::Configure {
            structure: Structure::bhpoker(),
            settings: ClockSettings::default(),
        },
    );
    let from = |day, level, remaining| ClockCommand::StartFrom {
        at: T0,
        day,
        level,
        remaining,
    };
    assert_eq!(
        decide(&event, &from(2, 24, MIN)),
        Err(ClockError::NoSuchLevel {
            level: 24,
            levels: 23
        })
    );
    assert_eq!(
        decide(&event, &from(2, 10, 16 * MIN)),
        Err(ClockError::InvalidRemaining {
            remaining: 16 * MIN,
            period: 15 * MIN
        })
    );
    assert_eq!(
        decide(&event, &from(0, 10, MIN)),
        Err(ClockError::InvalidDay { day: 0 })
    );
    let events = run(&mut event, from(2, 10, 7 * MIN));
    assert_eq!(
        events,
        vec![
            ClockEvent::Started { at: T0 },
            ClockEvent::DayStarted { at: T0, day: 2 },
            ClockEvent::JumpedToLevel { at: T0, period: 10 },
            ClockEvent::RemainingSet {
                at: T0,
                remaining: 7 * MIN
            },
        ]
    );
    let view = event.view(T0 + MIN);
    assert_eq!(
        (view.day, view.level, view.remaining),
        (2, Some(10), 6 * MIN)
    );
    assert_eq!(
        event.settings().action.cards_available(event.day(), 0),
        event.settings().action.cards_available(2, 0)
    );
    assert!(matches!(
        decide(&event, &from(2, 10, 7 * MIN)),
        Err(ClockError::WrongState { .. })
    ));
    // At a level's full time and on day 1, nothing more than the jump.
    let mut fresh = ClockState::default();
    run(
        &mut fresh,
        ClockCommand::Configure {
            structure: Structure::bhpoker(),
            settings: ClockSettings::default(),
        },
    );
    let events = run(&mut fresh, from(1, 2, 20 * MIN));
    assert_eq!(
        events,
        vec![
            ClockEvent::Started { at: T0 },
            ClockEvent::JumpedToLevel { at: T0, period: 1 },
        ]
    );
}

/// A clock on `structure` whose days end by `day_end`, started at T0.
fn started_with(structure: Structure, day_end: DayEnd) -> ClockState {
    let mut state = ClockState::default();
    run(
        &mut state,
        ClockCommand::Configure {
            structure,
            settings: ClockSettings {
                day_end,
                ..ClockSettings::default()
            },
        },
    );
    run(&mut state, ClockCommand::Start { at: T0 });
    state
}

/// When `level` of `structure` starts, on a clock started at T0 and
/// never stopped.
fn level_start(structure: &Structure, level: u32) -> Millis {
    let period = structure.period_of_level(level).unwrap();
    T0 + structure.periods[..period]
        .iter()
        .map(Period::millis)
        .sum::<Millis>()
}

/// Seed 002, 77: "Quando restarem 10m (nos torneios de blinds de 30m), ou
/// 15m (nos torneios de blinds de 40m ou mais), para o término do último
/// nível de jogo, o DT vai parar o relógio. Será sorteada uma carta entre
/// dois e cinco". Given day 1 ending after level 3 of the club's
/// 20-minute levels, when the time passes far beyond it, then the clock
/// stopped itself with exactly 10 minutes left of level 3 and records
/// nothing more; the service's draw records its card with the seed it
/// came from; the next day resumes level 3 with the 10 minutes, and (no
/// last level named for it) runs on past it.
#[test]
fn rule_77_stops_the_clock_itself_with_10_minutes_left_and_the_card_is_drawn_from_a_recorded_seed()
{
    let structure = Structure::bhpoker();
    let day_end = DayEnd {
        last_levels: vec![3],
        ..DayEnd::default()
    };
    let mut state = started_with(structure.clone(), day_end);
    let stop = level_start(&structure, 3) + 10 * MIN;
    assert!(state.due(T0 + 5 * 60 * MIN));
    let events = run(
        &mut state,
        ClockCommand::Tick {
            at: T0 + 5 * 60 * MIN,
        },
    );
    assert_eq!(
        events.last(),
        Some(&ClockEvent::EndOfDayDue {
            at: stop,
            remaining: 10 * MIN
        })
    );
    assert_eq!(state.status(), &Status::EndOfDayDue);
    assert!(state.card_to_draw());
    assert!(!state.due(T0 + 9 * 60 * MIN));
    assert_eq!(state.view(T0 + 9 * 60 * MIN).remaining, 10 * MIN);
    // Hands go on being dealt at level 3 until the card is known.
    assert_eq!(state.level_for_hand(stop + MIN).unwrap().big_blind, 150);
    let seed = [7u8; 32];
    let at = T0 + 5 * 60 * MIN + 1_000;
    let events = felt_clock::decide(&state, &ClockCommand::DrawEndOfDay { at }, &seed).unwrap();
    let hands = card_from(&seed);
    assert!((2..=5).contains(&hands));
    assert_eq!(
        events,
        [ClockEvent::EndOfDayDrawn {
            at,
            hands,
            remaining: 10 * MIN,
            draw: Some(seed),
        }]
    );
    for e in &events {
        state.apply(e);
    }
    assert!(!state.card_to_draw());
    run(&mut state, ClockCommand::EndDay { at: at + 30 * MIN });
    let day2 = T0 + 24 * 60 * MIN;
    run(&mut state, ClockCommand::StartDay { at: day2 });
    assert_eq!(state.view(day2 + MIN).remaining, 9 * MIN);
    assert_eq!(state.view(day2 + 11 * MIN).level, Some(4));
}

/// Rule 77 on 40-minute levels: 15 minutes left, not 10. And a card the
/// director draws from a real deck and enters, where the house says so:
/// the clock waits for it (the service draws none), and it is recorded
/// without a seed.
#[test]
fn rule_77_stops_with_15_minutes_left_of_40_minute_levels_and_waits_for_the_directors_card() {
    let toml = r#"
        name = "Main event"
        starting_stack = 60000
        [[periods]]
        kind = "level"
        small_blind = 100
        big_blind = 200
        minutes = 40
        [[periods]]
        kind = "level"
        small_blind = 200
        big_blind = 400
        minutes = 40
    "#;
    let structure = Structure::parse(toml).unwrap();
    let day_end = DayEnd {
        card: DayEndCard::Entered,
        last_levels: vec![1],
        ..DayEnd::default()
    };
    let mut state = started_with(structure, day_end);
    let events = run(&mut state, ClockCommand::Tick { at: T0 + 39 * MIN });
    assert_eq!(
        events,
        [ClockEvent::EndOfDayDue {
            at: T0 + 25 * MIN,
            remaining: 15 * MIN
        }]
    );
    assert!(!state.card_to_draw());
    assert_eq!(
        decide(
            &state,
            &ClockCommand::EndDayAfter {
                at: T0 + 40 * MIN,
                hands: 1
            }
        ),
        Err(ClockError::InvalidDraw { hands: 1 })
    );
    let events = run(
        &mut state,
        ClockCommand::EndDayAfter {
            at: T0 + 40 * MIN,
            hands: 4,
        },
    );
    assert_eq!(
        events,
        [ClockEvent::EndOfDayDrawn {
            at: T0 + 40 * MIN,
            hands: 4,
            remaining: 15 * MIN,
            draw: None,
        }]
    );
}

/// A day that ends at its last level's end: given day 1 ending after
/// level 2, the clock records the level's end at its exact time and
/// stops; the next day starts with the break or level after it.
#[test]
fn a_day_set_to_end_at_a_level_stops_at_its_end_and_the_next_day_starts_after_it() {
    let structure = Structure::bhpoker();
    let day_end = DayEnd {
        rule: DayEndRule::LevelEnd,
        last_levels: vec![2],
        ..DayEnd::default()
    };
    let mut state = started_with(structure.clone(), day_end);
    let end = level_start(&structure, 3);
    let events = run(&mut state, ClockCommand::Tick { at: end + 60 * MIN });
    assert_eq!(
        events.last(),
        Some(&ClockEvent::LastLevelEnded { at: end, level: 2 })
    );
    assert_eq!(state.status(), &Status::EndOfDay { hands: 0 });
    assert!(!state.card_to_draw());
    run(&mut state, ClockCommand::EndDay { at: end + 61 * MIN });
    let day2 = T0 + 24 * 60 * MIN;
    run(&mut state, ClockCommand::StartDay { at: day2 });
    let view = state.view(day2 + MIN);
    assert_eq!((view.level, view.remaining), (Some(3), 19 * MIN));
}

/// A day seating ended at its count of players ends the running clock
/// at once, keeping the time left for the next day.
#[test]
fn a_running_clock_ends_the_day_and_the_next_resumes_with_the_time_left() {
    let mut state = started();
    run(&mut state, ClockCommand::EndDay { at: T0 + 5 * MIN });
    assert_eq!(state.status(), &Status::DayOver);
    let day2 = T0 + 24 * 60 * MIN;
    run(&mut state, ClockCommand::StartDay { at: day2 });
    let view = state.view(day2 + MIN);
    assert_eq!((view.level, view.remaining), (Some(1), 14 * MIN));
}

/// Each day's last level must come after the day before's and be in the
/// structure: a clock set otherwise is refused, naming the level.
#[test]
fn day_end_levels_out_of_order_or_past_the_structure_are_refused() {
    for levels in [vec![3, 3], vec![5, 2], vec![0], vec![24]] {
        let err = decide(
            &ClockState::default(),
            &ClockCommand::Configure {
                structure: Structure::bhpoker(),
                settings: ClockSettings {
                    day_end: DayEnd {
                        last_levels: levels.clone(),
                        ..DayEnd::default()
                    },
                    ..ClockSettings::default()
                },
            },
        )
        .unwrap_err();
        assert!(
            matches!(err, ClockError::InvalidSetting { .. })
                && err.to_string().contains("last level"),
            "{levels:?}: {err}"
        );
    }
}

#[test]
fn the_action_clock_uses_time_bank_cards_then_folds_or_checks() {
    let action = ActionClock {
        enabled: true,
        ..ActionClock::default()
    };
    // 5 s silent count, 30 s, then each card 60 s.
    assert_eq!(
        action.decision(0, 34_999, 3, true),
        Verdict::Thinking {
            deadline: 35_000,
            cards: 0
        }
    );
    assert_eq!(
        action.decision(0, 35_000, 3, true),
        Verdict::Thinking {
            deadline: 95_000,
            cards: 1
        }
    );
    assert_eq!(
        action.decision(0, 200_000, 3, true),
        Verdict::Thinking {
            deadline: 215_000,
            cards: 3
        }
    );
    assert_eq!(
        action.decision(0, 215_000, 3, true),
        Verdict::Expired {
            cards: 3,
            default: TimeoutAction::Fold
        }
    );
    assert_eq!(
        action.decision(0, 35_000, 0, false),
        Verdict::Expired {
            cards: 0,
            default: TimeoutAction::Check
        }
    );
    // TDA 29: 25 s and a 5 s countdown.
    assert_eq!(
        action.called(1_000, 30_999, true),
        Verdict::Thinking {
            deadline: 31_000,
            cards: 0
        }
    );
    assert_eq!(
        action.called(1_000, 31_000, true),
        Verdict::Expired {
            cards: 0,
            default: TimeoutAction::Fold
        }
    );
    // Three cards a day, added to what is left.
    assert_eq!(action.cards_available(1, 2), 1);
    assert_eq!(action.cards_available(2, 2), 4);
    let mut state = started();
    run(
        &mut state,
        ClockCommand::UseTimeBank {
            at: T0 + MIN,
            player: felt_clock::EntryId(9),
            cards: 3,
        },
    );
    assert_eq!(
        decide(
            &state,
            &ClockCommand::UseTimeBank {
                at: T0 + MIN,
                player: felt_clock::EntryId(9),
                cards: 1
            }
        )
        .unwrap_err()
        .to_string(),
        "player 9 cannot use 1 time-bank cards: 0 left"
    );
}

#[test]
fn structures_load_from_toml_and_json_and_errors_name_the_level() {
    let toml = r#"
        name = "Deep stack"
        starting_stack = 30000
        [[periods]]
        kind = "level"
        small_blind = 100
        big_blind = 200
        minutes = 30
        [[periods]]
        kind = "level"
        small_blind = 100
        big_blind = 300
        ante = 300
        ante_format = "BigBigBlind"
        minutes = 30
    "#;
    let err = Structure::parse(toml).unwrap_err();
    assert!(
        err.to_string().starts_with("cannot read the structure"),
        "{err}"
    );
    let toml = toml.replace("BigBigBlind", "BigBlind");
    let s = Structure::parse(&toml).unwrap();
    assert_eq!(s.levels(), 2);
    let Period::Level(l) = s.periods[1] else {
        panic!()
    };
    assert_eq!(l.smallest_chip, 100);
    let json = r#"{"name":"bad","starting_stack":1000,"periods":[
        {"kind":"level","small_blind":25,"big_blind":50,"minutes":20},
        {"kind":"break","minutes":10},
        {"kind":"level","small_blind":50,"big_blind":50,"minutes":20}]}"#;
    assert_eq!(
        Structure::parse(json).unwrap_err().to_string(),
        "invalid structure: level 2: big blind 50 does not increase on level 1's 50"
    );
    let zero = json.replace(
        r#""small_blind":50,"big_blind":50,"minutes":20"#,
        r#""small_blind":50,"big_blind":100,"minutes":0"#,
    );
    assert_eq!(
        Structure::parse(&zero).unwrap_err().to_string(),
        "invalid structure: level 2: its duration must be positive"
    );
    let ante = json.replace(
        r#""small_blind":50,"big_blind":50,"#,
        r#""small_blind":50,"big_blind":100,"ante":100,"#,
    );
    assert_eq!(
        Structure::parse(&ante).unwrap_err().to_string(),
        "invalid structure: level 2: an ante of 100 needs an ante format"
    );
}

#[test]
fn the_presets_are_valid_and_as_the_rule_books_say() {
    let club = Structure::bhpoker();
    club.validate().unwrap();
    assert_eq!(club.levels(), 23);
    assert_eq!(club.starting_stack, 6_000);
    let breaks: Vec<u32> = (0..club.periods.len())
        .filter(|&i| matches!(club.periods[i], Period::Break(_)))
        .map(|i| club.level_number(i - 1).unwrap())
        .collect();
    assert_eq!(breaks, vec![6, 17]);
    for preset in ["main-event", "turbo"] {
        let s = Structure::preset(preset).unwrap();
        s.validate().unwrap();
        assert!(s.levels() >= 30, "{preset}");
    }
    assert!(Structure::preset("hyper").is_err());
}

fn arbitrary_command() -> impl Strategy<Value = (u8, Millis, i64)> {
    (0u8..12, 0..40 * MIN, -30 * MIN..30 * MIN)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn time_left_is_never_negative_and_levels_only_go_back_by_a_jump(
        commands in proptest::collection::vec(arbitrary_command(), 1..60),
    ) {
        let mut state = started();
        let mut now = T0;
        let mut last_period = 0usize;
        for (kind, step, amount) in commands {
            now += step;
            let command = match kind {
                0 => ClockCommand::Pause { at: now, reason: "p".into() },
                1 => ClockCommand::Resume { at: now, reason: "r".into() },
                2 => ClockCommand::Tick { at: now },
                3 => ClockCommand::AddTime { at: now, millis: amount },
                4 => ClockCommand::SetRemaining { at: now, remaining: amount.abs() },
                5 => ClockCommand::JumpToLevel { at: now, level: 1 + (amount.unsigned_abs() % 23) as u32 },
                6 => ClockCommand::StartHandForHand { at: now, tables: vec![1, 2] },
                7 => ClockCommand::TableFinishedHand { at: now, table: 1 + (amount.unsigned_abs() % 2) as u32 },
                8 => ClockCommand::StopHandForHand { at: now },
                9 => ClockCommand::EndDayAfter { at: now, hands: 2 + (amount.unsigned_abs() % 4) as u8 },
                10 => ClockCommand::EndDay { at: now },
                _ => ClockCommand::StartDay { at: now },
            };
            let before = state.clone();
            match decide(&state, &command) {
                Ok(events) => {
                    for e in &events {
                        state.apply(e);
                        if !matches!(e, ClockEvent::JumpedToLevel { .. }) {
                            prop_assert!(state.period() >= last_period, "went back by {e:?}");
                        }
                        last_period = state.period();
                    }
                }
                Err(_) => prop_assert_eq!(&state, &before),
            }
            let view = state.view(now);
            prop_assert!(view.remaining >= 0);
            prop_assert!(state.remaining() >= 0);
            prop_assert!(view.period >= state.period());
        }
    }
}

/// A command sent again at the clock's last time (another writer recorded
/// a later one first) keeps everything but its time; `Configure` has none.
#[test]
fn a_command_sent_again_at_another_time_keeps_all_but_its_time() {
    let finished = ClockCommand::TableFinishedHand { at: 5, table: 3 };
    assert_eq!(
        finished.at_time(9),
        ClockCommand::TableFinishedHand { at: 9, table: 3 }
    );
    let tables = ClockCommand::StartHandForHand {
        at: 1,
        tables: vec![1, 2],
    };
    assert_eq!(tables.clone().at_time(7).at(), Some(7));
    assert_eq!(
        tables.at_time(7),
        ClockCommand::StartHandForHand {
            at: 7,
            tables: vec![1, 2]
        }
    );
    let configure = ClockCommand::Configure {
        structure: Structure::bhpoker(),
        settings: ClockSettings::default(),
    };
    assert_eq!(configure.clone().at_time(7), configure);
}

/// Seed 003's late-arrival tolerance is counted in play after the start
/// ("15 min de tolerância após o início da partida"): the clock's time
/// played, which a pause stops.
#[test]
fn the_time_played_counts_the_clock_not_the_wall() {
    assert_eq!(ClockState::default().played(T0), 0, "not started");
    let mut state = started();
    assert_eq!(state.played(T0 + 14 * MIN), 14 * MIN);
    // Across a level: 20 minutes of level 1 and 5 of level 2.
    assert_eq!(state.played(T0 + 25 * MIN), 25 * MIN);
    // Paused ten minutes at 25 minutes: still 25 played at 35.
    run(
        &mut state,
        ClockCommand::Pause {
            at: T0 + 25 * MIN,
            reason: "a ruling".into(),
        },
    );
    assert_eq!(state.played(T0 + 35 * MIN), 25 * MIN);
    run(
        &mut state,
        ClockCommand::Resume {
            at: T0 + 35 * MIN,
            reason: "ruled".into(),
        },
    );
    assert_eq!(state.played(T0 + 36 * MIN), 26 * MIN);
}

/// TDA 25: "Unscheduled colour-ups: the director may remove a denomination
/// at any time, announced." Given the club's clock in play, when the
/// director colours up a chip that is not the smallest, or to a chip that
/// does not pay a coming level's blinds, it is refused, naming the level;
/// when to a chip that pays them all, every hand from then on plays with
/// it as the smallest chip (the tables race the old one off before their
/// next hand).
#[test]
fn the_director_colours_up_off_the_structure_and_every_level_after_plays_with_the_new_chip() {
    let mut state = started();
    let colour_up = |at, leaving, smallest| ClockCommand::ColourUp {
        at,
        leaving,
        smallest,
        reason: "the 25s ran out".into(),
    };
    let at = T0 + 61 * MIN; // level 4, 100/200, the 25 in play
    assert_eq!(state.level_for_hand(at).unwrap().smallest_chip, 25);
    assert_eq!(
        decide(&state, &colour_up(at, 100, 500)),
        Err(ClockError::NotTheSmallestChip {
            leaving: 100,
            in_play: 25
        })
    );
    let Err(ClockError::ColourUpChip { smallest, reason }) =
        decide(&state, &colour_up(at, 25, 100))
    else {
        panic!("a 100 chip cannot pay level 5's 125 small blind")
    };
    assert_eq!(smallest, 100);
    assert!(
        reason.contains("level 5") && reason.contains("125 / 250"),
        "{reason}"
    );
    assert!(matches!(
        decide(&state, &colour_up(at, 25, 25)),
        Err(ClockError::ColourUpChip { .. })
    ));
    assert!(matches!(
        decide(
            &state,
            &ClockCommand::ColourUp {
                at,
                leaving: 25,
                smallest: 25,
                reason: " ".into()
            }
        ),
        Err(ClockError::InvalidSetting { .. })
    ));
    // At the last level (10,000 / 20,000), to a 5,000 chip: it pays
    // every blind left, so it is accepted.
    let late = at + MIN;
    run(
        &mut state,
        ClockCommand::JumpToLevel {
            at: late,
            level: 23,
        },
    );
    let level = state.view(late).level.unwrap();
    let in_play = state.level_for_hand(late).unwrap().smallest_chip;
    let events = run(&mut state, colour_up(late, in_play, 5_000));
    assert!(
        events.contains(&ClockEvent::ColouredUp {
            at: late,
            leaving: in_play,
            smallest: 5_000,
            reason: "the 25s ran out".into()
        }),
        "level {level}: {events:?}"
    );
    assert_eq!(level, 23);
    assert_eq!(state.level_for_hand(late).unwrap().smallest_chip, 5_000);
}

/// Play over (the winner placed, a satellite's seats won): the clock
/// stops for good where it is, and the room's clock shows it stopped, not
/// counting down a structure nobody plays.
#[test]
fn the_clock_stops_for_good_when_play_is_over() {
    let mut state = started();
    // Given a clock 25 minutes in (level 2, 15 minutes left),
    // when play is over, then the level passed is recorded and the clock
    // stops with the time left.
    let events = run(&mut state, ClockCommand::Finish { at: T0 + 25 * MIN });
    assert_eq!(level_starts(&events), vec![(1_200, 1)]);
    assert_eq!(
        events.last(),
        Some(&ClockEvent::Finished {
            at: T0 + 25 * MIN,
            remaining: 15 * MIN
        })
    );
    assert_eq!(state.status(), &Status::Finished);
    // An hour later nothing has moved: no level passes, a tick records
    // nothing, the end again is no news.
    let view = state.view(T0 + 85 * MIN);
    assert_eq!((view.level, view.remaining), (Some(2), 15 * MIN));
    assert_eq!(
        run(&mut state, ClockCommand::Tick { at: T0 + 85 * MIN }),
        vec![]
    );
    assert_eq!(
        run(&mut state, ClockCommand::Finish { at: T0 + 86 * MIN }),
        vec![]
    );
    // No hand starts, and the floor's commands are refused, naming why.
    assert_eq!(
        state.level_for_hand(T0 + 86 * MIN),
        Err(ClockError::Finished)
    );
    for command in [
        ClockCommand::Resume {
            at: T0 + 86 * MIN,
            reason: "again".into(),
        },
        ClockCommand::JumpToLevel {
            at: T0 + 86 * MIN,
            level: 5,
        },
        ClockCommand::AddTime {
            at: T0 + 86 * MIN,
            millis: MIN,
        },
    ] {
        assert_eq!(
            decide(&state, &command),
            Err(ClockError::Finished),
            "{command:?}"
        );
    }
    assert!(
        ClockError::Finished
            .to_string()
            .contains("stopped for good")
    );
    // A clock never started does not finish.
    let mut fresh = ClockState::default();
    run(
        &mut fresh,
        ClockCommand::Configure {
            structure: Structure::bhpoker(),
            settings: ClockSettings::default(),
        },
    );
    assert_eq!(
        decide(&fresh, &ClockCommand::Finish { at: T0 }),
        Err(ClockError::NotStarted)
    );
}
