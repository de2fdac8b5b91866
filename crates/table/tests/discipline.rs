//! The floor's discipline (seed 000 rule 71; seeds 001, 002 and 003), as
//! given events / when the floor's command / then events or a refusal
//! quoting the rule.

mod common;

use common::*;
use felt_table::*;

/// The entry `table` seats in `seat` (seat 1: entry 100).
fn entry(seat: Seat) -> EntryId {
    EntryId(99 + u64::from(seat))
}

fn penalize(seat: Seat, penalty: Penalty) -> Command {
    Command::Penalize {
        seat,
        player: Some(entry(seat)),
        penalty,
        reason: "exposed a card with action pending".into(),
    }
}

/// The hands seat `seat` has left to miss.
fn owed(t: &Table, seat: Seat) -> u32 {
    t.state.seat(seat).unwrap().penalty_hands
}

#[test]
fn a_verbal_warning_is_recorded_and_costs_no_hand() {
    // Seed 000 rule 71: "O cumprimento das penalidades inclui advertências
    // verbais, penalidades de 'perda de mãos', 'perda de órbitas' e
    // desqualificação."
    // Given three players
    let mut t = table(&[1000, 1000, 1000]);
    // When the floor warns seat 2
    let events = t.ok(penalize(2, Penalty::Warning));
    // Then the warning is its own event, the player's first offence
    assert_eq!(
        events,
        [TableEvent::WarningGiven {
            seat: 2,
            player: entry(2),
            offence: 1,
            reason: "exposed a card with action pending".into(),
        }]
    );
    // and the player is dealt in and plays the next hand
    assert_eq!(owed(&t, 2), 0);
    let started = t.start(level(50, 100), Some(1));
    assert!(
        !started
            .iter()
            .any(|e| matches!(e, TableEvent::HandKilled { seat: 2, .. }))
    );
}

#[test]
fn a_penalty_of_hands_is_that_many_hands() {
    // Seed 003, 2a: "Advertência verbal ou Suspensão por número
    // determinado de mãos ou desclassificação."
    let mut t = table(&[1000, 1000, 1000, 1000]);
    let events = t.ok(penalize(3, Penalty::Hands(2)));
    assert_eq!(
        events,
        [TableEvent::PenaltyGiven {
            seat: 3,
            player: entry(3),
            hands: 2,
            offence: 1,
            reason: "exposed a card with action pending".into(),
        }]
    );
    assert_eq!(owed(&t, 3), 2);
    assert_eq!(
        t.refused(penalize(3, Penalty::Hands(0))),
        "a penalty is at least one hand or one orbit"
    );
}

#[test]
fn repeated_offences_escalate_by_the_house_scale_to_disqualification() {
    // Seed 000 rule 71: "Infrações repetidas estarão sujeitas a
    // penalidades cada vez maiores." The TDA scale (seed 001: "uma, duas,
    // três ou quatro órbitas ou mesmo a desqualificação"): a warning, then
    // one to four orbits of one hand per player at the table.
    let mut t = table(&[1000, 1000, 1000, 1000, 1000]);
    let mut given = Vec::new();
    for _ in 0..5 {
        let events = t.ok(penalize(1, Penalty::Next));
        given.push(match &events[..] {
            [TableEvent::WarningGiven { offence, .. }] => (*offence, 0),
            [TableEvent::PenaltyGiven { offence, hands, .. }] => (*offence, *hands),
            other => panic!("{other:?}"),
        });
    }
    assert_eq!(given, [(1, 0), (2, 5), (3, 10), (4, 15), (5, 20)]);
    assert_eq!(owed(&t, 1), 50);
    // The sixth offence is past the scale: disqualification, which is the
    // director's at seating.
    let why = t.refused(penalize(1, Penalty::Next));
    assert_eq!(
        why,
        "offence 6 is past the house scale of penalties: the director disqualifies the player at seating (TDA 71)"
    );
}

#[test]
fn the_series_scale_gives_three_hands_after_the_warning() {
    // Seed 002 (B): "A organização poderá julgar penalidade de 3 mãos, 1,
    // 2, ou 3 rodadas ou desqualificação."
    let rules = HouseRules {
        penalty_scale: PenaltyScale::Series,
        ..HouseRules::default()
    };
    let mut t = table_with(&[1000, 1000, 1000, 1000], rules);
    t.ok(penalize(4, Penalty::Next));
    let events = t.ok(penalize(4, Penalty::Next));
    assert!(
        matches!(
            events[..],
            [TableEvent::PenaltyGiven {
                hands: 3,
                offence: 2,
                ..
            }]
        ),
        "{events:?}"
    );
    // A penalty the floor names outright counts as an offence too.
    t.ok(penalize(4, Penalty::Hands(1)));
    let events = t.ok(penalize(4, Penalty::Next));
    assert!(
        matches!(
            events[..],
            [TableEvent::PenaltyGiven {
                hands: 8,
                offence: 4,
                ..
            }]
        ),
        "{events:?}"
    );
}

#[test]
fn a_penalty_names_the_player_in_the_seat() {
    let t = table(&[1000, 1000]);
    let wrong = Command::Penalize {
        seat: 1,
        player: Some(entry(2)),
        penalty: Penalty::Warning,
        reason: "soft play".into(),
    };
    assert!(t.refused(wrong).contains("seat 1"));
    let long = Command::Penalize {
        seat: 1,
        player: None,
        penalty: Penalty::Warning,
        reason: "x".repeat(501),
    };
    assert_eq!(
        t.refused(long),
        "a penalty's reason is 1 to 500 characters without control characters, not 501"
    );
}

#[test]
fn a_moved_player_serves_the_rest_of_a_penalty_and_stays_absent_at_the_new_table() {
    // Seed 000 rule 71: the offender misses the hands of the penalty; a
    // move does not end it. Rule 30: a player away from the table is dealt
    // in and their hand is dead, wherever they were moved.
    // Given seat 2 with two offences and four hands to miss, away
    let mut from = table(&[1000, 1000, 1000]);
    from.ok(penalize(2, Penalty::Warning));
    from.ok(penalize(2, Penalty::Hands(4)));
    from.ok(Command::SetAbsent {
        seat: 2,
        absent: true,
    });
    from.start(level(50, 100), Some(1));
    fold_around(&mut from);
    assert_eq!(owed(&from, 2), 3);
    // When the player is moved (as seating carries a move)
    let removed = from.ok(Command::RemovePlayer { seat: 2 });
    let [TableEvent::PlayerRemoved { stack, carried, .. }] = removed[..] else {
        panic!("{removed:?}")
    };
    assert_eq!(
        carried,
        Carried {
            penalty_hands: 3,
            absent: true,
            offences: 2,
        }
    );
    // (a table of three other entries, seat 4 free)
    let mut to = table(&[1000, 1000, 1000, 1000]);
    to.ok(Command::RemovePlayer { seat: 2 });
    to.ok(Command::RemovePlayer { seat: 4 });
    to.ok(Command::SeatPlayer {
        seat: 2,
        player: EntryId(200),
        stack: 1000,
        carried: Carried::default(),
    });
    to.ok(Command::SeatPlayer {
        seat: 4,
        player: entry(2),
        stack,
        carried,
    });
    // Then the new table deals the player in dead for the rest of it
    let mut button = Some(1);
    for left in (0..3).rev() {
        let started = to.start(level(50, 100), button.take());
        assert!(
            started
                .iter()
                .any(|e| matches!(e, TableEvent::HandKilled { seat: 4, .. })),
            "{started:?}"
        );
        fold_around(&mut to);
        assert_eq!(owed(&to, 4), left);
    }
    // still away until the floor says otherwise, and the house scale
    // goes on from the player's third offence
    assert!(to.state.seat(4).unwrap().absent);
    let next = to.ok(Command::Penalize {
        seat: 4,
        player: None,
        penalty: Penalty::Next,
        reason: "abusive conduct".into(),
    });
    assert!(
        matches!(next[..], [TableEvent::PenaltyGiven { offence: 3, .. }]),
        "{next:?}"
    );
}

/// Everyone folds until the hand ends.
fn fold_around(t: &mut Table) {
    while let Some(seat) = t.state.hand().and_then(|h| h.to_act) {
        t.act(seat, PlayerAction::Fold);
    }
}

#[test]
fn a_disqualified_players_chips_leave_play_with_them() {
    // Seed 000 rule 71: "As fichas de um jogador desqualificado devem ser
    // removidas do jogo."
    // Given three players between hands
    let mut t = table(&[1000, 1500, 2000]);
    let before = t.state.chips_in_play();
    // When seat 2 is disqualified
    let events = t.ok(Command::Disqualify {
        seat: 2,
        player: entry(2),
        reason: "chip passing".into(),
    });
    // Then the player leaves with every chip of theirs out of play
    assert_eq!(
        events,
        [TableEvent::PlayerDisqualified {
            seat: 2,
            player: entry(2),
            stack: 1500,
            reason: "chip passing".into(),
        }]
    );
    assert!(t.state.seat(2).is_none());
    assert_eq!(t.state.chips_in_play(), before - 1500);
}

#[test]
fn a_player_dealt_into_the_hand_is_disqualified_when_it_ends() {
    // Seed 000 rule 71; the hand in play is not re-decided: the floor may
    // kill the player's hand (rule 1), and the disqualification follows
    // the hand's end.
    let mut t = table(&[1000, 1000, 1000, 1000]);
    t.start(level(50, 100), Some(1));
    let dq = || Command::Disqualify {
        seat: 3,
        player: entry(3),
        reason: "abuse of a dealer".into(),
    };
    assert_eq!(
        t.refused(dq()),
        "seat 3 is dealt into hand 1: the disqualification takes effect when it ends (the floor may kill the hand first, TDA 71)"
    );
    t.ok(Command::Rule {
        ruling: Ruling::KillHand { seat: 3 },
        reason: "abuse of a dealer".into(),
    });
    fold_around(&mut t);
    let events = t.ok(dq());
    assert!(
        matches!(events[..], [TableEvent::PlayerDisqualified { seat: 3, .. }]),
        "{events:?}"
    );
    assert_eq!(
        t.refused(dq()),
        "seat 3 is empty",
        "a seat disqualified once"
    );
}

#[test]
fn chips_given_up_for_a_new_entry_leave_play() {
    // Seed 000 rule 8: "as fichas abandonadas serão removidas do torneio."
    let mut t = table(&[1000, 1500, 2000]);
    let before = t.state.chips_in_play();
    t.start(level(50, 100), Some(1));
    let give_up = Command::Surrender {
        seat: 2,
        player: entry(2),
    };
    assert_eq!(
        t.refused(give_up.clone()),
        "seat 2 is dealt into hand 1: its chips are given up when it ends (TDA 8)"
    );
    fold_around(&mut t);
    let stack = t.state.seat(2).unwrap().stack;
    let events = t.ok(give_up);
    assert_eq!(
        events,
        [TableEvent::StackSurrendered {
            seat: 2,
            player: entry(2),
            stack,
        }]
    );
    assert!(t.state.seat(2).is_none());
    assert_eq!(t.state.chips_in_play(), before - stack);
}

#[test]
fn a_no_show_replaced_by_an_alternate_leaves_with_the_chips_of_their_seat() {
    // Seed 003 (local e horário 2): after the tolerance "o associado que
    // estiver aguardando uma vaga no torneio poderá participar": the
    // absent player's seat and its chips leave play, between hands.
    let mut t = table(&[1000, 1500, 2000]);
    let before = t.state.chips_in_play();
    t.start(level(50, 100), Some(1));
    let remove = Command::RemoveNoShow {
        seat: 3,
        player: entry(3),
    };
    assert_eq!(
        t.refused(remove.clone()),
        "seat 3 is dealt into hand 1: a player replaced as a no-show leaves when it ends (seed 003)"
    );
    fold_around(&mut t);
    let stack = t.state.seat(3).unwrap().stack;
    assert_eq!(
        t.ok(remove),
        [TableEvent::NoShowRemoved {
            seat: 3,
            player: entry(3),
            stack,
        }]
    );
    assert!(t.state.seat(3).is_none());
    assert_eq!(t.state.chips_in_play(), before - stack);
    // Another player named for the seat changes nothing.
    assert!(
        t.refused(Command::RemoveNoShow {
            seat: 2,
            player: entry(3),
        })
        .contains("not entry")
    );
}
