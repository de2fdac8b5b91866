//! The shared corpus of real hands, replayed through the table decider.

use std::path::PathBuf;

use felt_phh::{PhhHand, Verdict, replay, verify};
use felt_table::{HouseRules, TableEvent};

fn corpus() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/phh");
    assert!(
        dir.is_dir(),
        "the shared PHH corpus is expected at {}",
        dir.display()
    );
    dir
}

fn pokerkit_rules() -> HouseRules {
    HouseRules::POKERKIT
}

#[test]
fn every_hand_of_the_corpus_finishes_as_recorded() {
    let mut passed = 0;
    let mut failures = Vec::new();
    for entry in walkdir::WalkDir::new(corpus()) {
        let entry = entry.unwrap();
        if entry.path().extension().is_none_or(|e| e != "phh") {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap();
        match verify(&text, pokerkit_rules()) {
            Verdict::Passed => passed += 1,
            other => failures.push(format!("{}: {other:?}", entry.path().display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failed, first: {:?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
    assert_eq!(passed, 10_012);
}

#[test]
fn the_dwan_ivey_hand() {
    let text = std::fs::read_to_string(corpus().join("dwan-ivey-2009.phh")).unwrap();
    let hand = PhhHand::parse(&text).unwrap();
    let r = replay(&hand, pokerkit_rules()).unwrap();
    assert_eq!(r.finishing_stacks, vec![572_100, 1_997_500, 1_109_500]);
    // Both all-in hands were tabled before the river (TDA 16), and Dwan's
    // straight took the pot.
    let shown = r
        .events
        .iter()
        .filter(|e| matches!(e, TableEvent::CardsShown { .. }))
        .count();
    assert_eq!(shown, 2);
    let start: u64 = 1_125_600 + 2_000_000 + 553_500;
    assert_eq!(r.finishing_stacks.iter().sum::<u64>(), start);
}

#[test]
fn a_wrong_finishing_stack_is_a_mismatch_naming_the_player() {
    let text = std::fs::read_to_string(corpus().join("dwan-ivey-2009.phh")).unwrap();
    let tampered = text.replace("finishing_stacks = [572100,", "finishing_stacks = [572000,");
    assert_eq!(
        verify(&tampered, pokerkit_rules()),
        Verdict::Mismatch {
            position: 1,
            expected: 572_000.0,
            got: 572_100
        }
    );
}

#[test]
fn bad_files_are_refused_with_the_reason() {
    let err = PhhHand::parse("variant = 'NT'\nactions = 3")
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("not valid PHH"), "{err}");
    let text = std::fs::read_to_string(corpus().join("dwan-ivey-2009.phh")).unwrap();
    let illegal = text.replace("\"p1 cbr 23000\"", "\"p1 cbr 8000\"");
    match verify(&illegal, pokerkit_rules()) {
        Verdict::Failed(e) => assert_eq!(
            e.to_string(),
            "action 4 \"p1 cbr 8000\" refused: raise to 8000 is below the minimum raise to 12000 (TDA 43)"
        ),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn every_corpus_hand_survives_a_round_trip_through_export() {
    let mut checked = 0;
    for entry in walkdir::WalkDir::new(corpus()) {
        let entry = entry.unwrap();
        if entry.path().extension().is_none_or(|e| e != "phh") {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let hand = PhhHand::parse(&text).unwrap();
        let first = replay(&hand, pokerkit_rules()).unwrap();
        let exported = felt_phh::export(&first.events).unwrap();
        let again = PhhHand::parse(&exported).unwrap_or_else(|e| panic!("{e}\n{exported}"));
        let second = replay(&again, pokerkit_rules()).unwrap_or_else(|e| panic!("{e}\n{exported}"));
        assert_eq!(
            second.finishing_stacks,
            first.finishing_stacks,
            "{}",
            entry.path().display()
        );
        assert_eq!(verify(&exported, pokerkit_rules()), Verdict::Passed);
        checked += 1;
    }
    assert_eq!(checked, 10_012);
}

#[test]
fn a_digital_hand_felt_dealt_exports_and_replays() {
    use felt_cards::Seed;
    use felt_table::*;
    let mut state = TableState::default();
    let mut log = Vec::new();
    let mut run = |state: &mut TableState, c: Command| {
        for e in decide(state, &c).unwrap() {
            state.apply(&e);
            log.push(e);
        }
    };
    run(
        &mut state,
        Command::OpenTable {
            seats: 6,
            rules: pokerkit_rules(),
        },
    );
    for seat in [1, 3, 4, 6] {
        run(
            &mut state,
            Command::SeatPlayer {
                seat,
                player: EntryId(seat as u64),
                stack: 2000,
                carried: Default::default(),
            },
        );
    }
    let mut level = Level::blinds(50, 100);
    level.ante = 100;
    level.ante_format = AnteFormat::BigBlind;
    run(
        &mut state,
        Command::StartHand {
            level,
            deal: Deal::Digital {
                seed: Seed::from_u64(5),
            },
            button: Some(4),
        },
    );
    // Small blind seat 6, big blind seat 1: seat 3 raises, 4 folds, 6 and 1
    // call; then everyone checks down.
    run(
        &mut state,
        Command::Act {
            seat: 3,
            action: PlayerAction::Raise { to: 300 },
        },
    );
    run(
        &mut state,
        Command::Act {
            seat: 4,
            action: PlayerAction::Fold,
        },
    );
    run(
        &mut state,
        Command::Act {
            seat: 6,
            action: PlayerAction::Call,
        },
    );
    run(
        &mut state,
        Command::Act {
            seat: 1,
            action: PlayerAction::Call,
        },
    );
    while let Some(o) = state.options() {
        run(
            &mut state,
            Command::Act {
                seat: o.seat,
                action: PlayerAction::Check,
            },
        );
    }
    assert!(state.hand().is_none());
    let text = felt_phh::export(&log).unwrap();
    assert!(text.contains("antes = [0, 100, 0, 0]"), "{text}");
    assert_eq!(verify(&text, pokerkit_rules()), Verdict::Passed, "{text}");
}
