//! Results-only tables: a table that records no actions, whose floor
//! records each result that matters to the room and each count of the
//! stacks, as given events / when command / then events or rejection.

mod common;

use common::*;
use felt_table::*;

fn results_only(t: &mut Table) {
    t.ok(Command::SetRecording {
        recording: Recording::ResultsOnly,
        reason: "tablet down".into(),
    });
}

/// The entry `table` seats in `seat` (seat 1: entry 100).
fn entry(seat: Seat) -> EntryId {
    EntryId(99 + u64::from(seat))
}

fn result(button: Seat, busted: &[Seat], by: &[Seat]) -> Command {
    Command::RecordResult {
        button,
        busted: busted.iter().map(|&s| (s, entry(s))).collect(),
        by: by.iter().map(|&s| (s, entry(s))).collect(),
        occurred_at: None,
    }
}

fn count(stacks: &[(Seat, Chips)]) -> Command {
    Command::CountStacks {
        count: "break after level 6".into(),
        stacks: stacks.iter().map(|&(s, c)| (s, entry(s), c)).collect(),
    }
}

#[test]
fn a_results_only_table_deals_no_hand_through_the_engine() {
    // Given a table switched to results only (its tablet is down)
    let mut t = table(&[1000, 1000, 1000]);
    results_only(&mut t);
    // When its dealer tries to start a hand, then it is refused
    let why = t.refused(Command::StartHand {
        level: level(50, 100),
        deal: Deal::Physical,
        button: Some(1),
    });
    assert!(why.contains("records results only"), "{why}");
    assert_eq!(t.state.recording(), Recording::ResultsOnly);
}

#[test]
fn a_table_switches_only_between_hands() {
    // Given a hand in play
    let mut t = table(&[1000, 1000, 1000]);
    t.start(level(50, 100), Some(1));
    // When the floor switches the table to results only, then it is refused
    let why = t.refused(Command::SetRecording {
        recording: Recording::ResultsOnly,
        reason: "tablet down".into(),
    });
    assert_eq!(why, "hand 1 is still in progress");
}

#[test]
fn a_bust_gives_the_busted_chips_to_the_winners_and_seats_the_button() {
    // Given a results-only table of four: 1000, 2000, 3000, 4000
    let mut t = table(&[1000, 2000, 3000, 4000]);
    results_only(&mut t);
    // When the floor records that seat 1 busted to seats 2 and 4, button on 3
    let events = t.ok(result(3, &[1], &[4, 2]));
    // Then the bust carries the stack the table knew and its winners, the
    // chips split evenly (TDA 20), and the next positions follow the button
    assert_eq!(
        events,
        vec![TableEvent::ResultRecorded {
            number: 1,
            button: 3,
            small_blind: Some(4),
            big_blind: 1,
            busted: vec![Bust {
                seat: 1,
                player: EntryId(100),
                starting_stack: 1000,
                by: vec![EntryId(103), EntryId(101)],
            }],
            shares: vec![(4, 500), (2, 500)],
            occurred_at: None,
        }]
    );
    assert!(t.state.seat(1).is_none(), "the busted player left the seat");
    assert_eq!(t.state.seat(2).map(|s| s.stack), Some(2500));
    assert_eq!(t.state.seat(4).map(|s| s.stack), Some(4500));
    assert_eq!(
        t.state.chips_in_play(),
        10_000,
        "no chip appears or vanishes"
    );
    assert!(t.state.uncounted());
}

/// Places follow the order players went out (seed 003, "se dois ou mais
/// jogadores forem eliminados na mesma rodada…"): when the room ran on
/// paper, the floor enters each result afterwards with the time it
/// happened, and one table's hands happen one after another.
#[test]
fn a_result_entered_late_keeps_the_time_it_happened_in_the_tables_order() {
    // Given a results-only table whose 10:15 result the floor entered late
    let mut t = table(&[1000, 2000, 3000, 4000]);
    results_only(&mut t);
    let at_10_15 = 1_765_016_100_000;
    let late = |busted: Seat, at: i64| Command::RecordResult {
        button: 3,
        busted: vec![(busted, entry(busted))],
        by: vec![(4, entry(4))],
        occurred_at: Some(at),
    };
    let events = t.ok(late(1, at_10_15));
    // Then the result records when it happened
    assert!(
        matches!(
            events.as_slice(),
            [TableEvent::ResultRecorded {
                occurred_at: Some(at),
                ..
            }] if *at == at_10_15
        ),
        "{events:?}"
    );
    // When the floor enters a result of 10:05 after it, then it is refused
    // and nothing changes
    let why = t.refused(late(2, at_10_15 - 600_000));
    assert_eq!(
        why,
        "a result entered late happened at 1765015500000 (ms since the epoch), before this table's last result entered with a time (1765016100000): one table's hands happen in order"
    );
    assert_eq!(t.state.seat(2).map(|s| s.stack), Some(2000));
    // A later one is recorded
    t.ok(late(2, at_10_15 + 60_000));
    assert!(t.state.seat(2).is_none());
}

#[test]
fn odd_chips_of_a_bust_go_one_each_from_the_button() {
    // Given 1001 chips to split between seats 2 and 3, the button on 3
    let mut t = table(&[1001, 2000, 3000]);
    results_only(&mut t);
    let events = t.ok(result(3, &[1], &[2, 3]));
    // Then the odd chip goes to the first winner left of the button: seat 2 (TDA 20)
    let shares = events.iter().find_map(|e| match e {
        TableEvent::ResultRecorded { shares, .. } => Some(shares.clone()),
        _ => None,
    });
    assert_eq!(shares, Some(vec![(2, 501), (3, 500)]));
}

#[test]
fn a_result_names_its_winners_and_only_seated_players() {
    let mut t = table(&[1000, 2000, 3000]);
    results_only(&mut t);
    assert_eq!(
        t.refused(result(1, &[1], &[])),
        "a bust needs the seats that won the busted chips"
    );
    assert_eq!(
        t.refused(result(1, &[1], &[1])),
        "seat 1 cannot both bust and win the busted chips"
    );
    assert_eq!(
        t.refused(result(1, &[], &[2])),
        "winners are named only with a bust: a hand with nobody out records the button alone"
    );
    assert_eq!(
        t.refused(result(1, &[4], &[2])),
        "seat 4 does not exist at a 3-seat table"
    );
    // The floor names the player it saw: a player who moved meanwhile is
    // not busted in their place.
    assert_eq!(
        t.refused(Command::RecordResult {
            button: 1,
            busted: vec![(1, EntryId(555))],
            by: vec![(2, entry(2))],
            occurred_at: None,
        }),
        "seat 1 holds entry 100, not entry 555 (a player moved meanwhile?)"
    );
}

#[test]
fn a_hand_with_nobody_out_records_the_button_for_balancing() {
    // Given a results-only table
    let mut t = table(&[1000, 2000, 3000]);
    results_only(&mut t);
    // When the dealer reports the button on seat 2 with nobody out
    t.ok(result(2, &[], &[]));
    // Then the table's last positions follow it: small blind 3, big blind 1
    assert_eq!(t.state.last_small_blind_position(), Some(3));
    assert_eq!(t.state.last_big_blind(), Some(1));
    assert_eq!(t.state.hands_started(), 1);
}

#[test]
fn a_table_records_results_only_while_it_is_results_only() {
    let t = table(&[1000, 2000]);
    assert_eq!(
        t.refused(result(1, &[], &[])),
        "the table records every action: its hands end by play, a result is recorded only at a results-only table"
    );
}

#[test]
fn a_count_replaces_the_stacks_and_records_what_the_table_expected() {
    // Seed 003, "Estrutura de disputa" 6: "A organização se reserva ao
    // direito de a qualquer momento realizar contagem confirmatória nas
    // fichas dos participantes."
    // Given a results-only table where seat 1 busted to seat 2
    let mut t = table(&[1000, 2000, 3000]);
    results_only(&mut t);
    t.ok(result(3, &[1], &[2]));
    // When the floor counts at the break: 2,500 and 3,500
    let events = t.ok(count(&[(3, 3500), (2, 2500)]));
    // Then the count records the stacks (by seat), the 6,000 the table
    // knew and the 6,000 counted; the stacks are known again
    assert_eq!(
        events,
        vec![TableEvent::StacksCounted {
            count: "break after level 6".into(),
            stacks: vec![(2, 2500), (3, 3500)],
            expected: 6000,
            counted: 6000,
        }]
    );
    assert_eq!(t.state.seat(2).map(|s| s.stack), Some(2500));
    assert!(!t.state.uncounted());
}

#[test]
fn a_count_names_every_stack_once_and_no_empty_one() {
    let mut t = table(&[1000, 2000, 3000]);
    results_only(&mut t);
    assert_eq!(
        t.refused(count(&[(1, 1000), (2, 2000)])),
        "seat 3 holds a player who is not in the count: a count names every stack"
    );
    assert_eq!(
        t.refused(count(&[(1, 1000), (2, 2000), (2, 2000), (3, 1)])),
        "seat 2 is named twice"
    );
    assert_eq!(
        t.refused(count(&[(1, 0), (2, 3000), (3, 3000)])),
        "seat 1 is counted with no chips: a player out of chips is recorded as a bust"
    );
    assert_eq!(
        t.refused(Command::CountStacks {
            count: String::new(),
            stacks: vec![
                (1, entry(1), 1000),
                (2, entry(2), 2000),
                (3, entry(3), 3000)
            ],
        }),
        "a count's name is 1 to 64 characters, not 0"
    );
}

#[test]
fn back_to_recording_actions_only_after_a_count() {
    // Given a results-only table where a hand was played unrecorded
    let mut t = table(&[1000, 2000, 3000]);
    results_only(&mut t);
    t.ok(result(1, &[], &[]));
    let back = Command::SetRecording {
        recording: Recording::Actions,
        reason: "tablet back".into(),
    };
    // When the tablet comes back before a count, then it is refused
    assert_eq!(
        t.refused(back.clone()),
        "hands were played unrecorded since the stacks were last counted: count every stack before recording actions again"
    );
    // When the stacks are counted first, then the table records actions
    // again, and its next hand moves the button on from the one reported
    t.ok(count(&[(1, 900), (2, 2100), (3, 3000)]));
    t.ok(back);
    let started = t.start(level(50, 100), None);
    assert!(
        matches!(
            started.first(),
            Some(TableEvent::HandStarted {
                number: 2,
                button: 2,
                big_blind: 1,
                ..
            })
        ),
        "{started:?}"
    );
}

#[test]
fn switching_to_the_record_it_already_keeps_is_refused() {
    let t = table(&[1000, 2000]);
    assert_eq!(
        t.refused(Command::SetRecording {
            recording: Recording::Actions,
            reason: "no change".into(),
        }),
        "the table already records every action"
    );
}
