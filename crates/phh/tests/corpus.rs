//! The shared corpus of real hands, replayed through the table decider.

use std::path::PathBuf;

use felt_phh::{PhhHand, Verdict, replay, verify};
use felt_table::{HouseRules, ShortBigBlind, TableEvent};

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
    HouseRules {
        short_big_blind: ShortBigBlind::CallAmountPosted,
    }
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
