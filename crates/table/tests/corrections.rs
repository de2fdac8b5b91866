//! The floor's corrections of chips between hands, as given events / when
//! the floor's command / then events or a refusal quoting the rule.

mod common;

use common::*;
use felt_table::*;

/// The entry `table` seats in `seat` (seat 1: entry 100).
fn entry(seat: Seat) -> EntryId {
    EntryId(99 + u64::from(seat))
}

fn correct(seat: Seat, stack: Chips, concerns: Concerns) -> Command {
    Command::CorrectStack {
        seat,
        player: entry(seat),
        stack,
        concerns,
        reason: "the pot was miscounted as it was pushed".into(),
    }
}

fn remove(seat: Seat, amount: Chips, removal: Removal) -> Command {
    Command::RemoveChips {
        seat,
        player: entry(seat),
        amount,
        removal,
        reason: "a 5,000 chip under the card protector".into(),
    }
}

/// Given: a hand played at three seats, the button on seat 1, folded to
/// the big blind (seat 3 wins the small blind).
fn after_a_hand() -> Table {
    let mut t = table(&[1000, 1000, 1000]);
    t.start(level(50, 100), Some(1));
    t.act(1, PlayerAction::Fold);
    t.act(2, PlayerAction::Fold);
    assert!(t.state.hand().is_none());
    t
}

#[test]
fn a_miscounted_pot_is_corrected_before_the_next_hand() {
    // Seed 000 rule 22: "Erros de contagens ao entregar um pote poderá ser
    // contestado até que haja ação substancial na próxima mão."
    // Given hand 1 was pushed to seat 3 (1,050) from seat 2 (950)
    let mut t = after_a_hand();
    assert_eq!((t.stack(2), t.stack(3)), (950, 1050));
    // When the floor rules the pot was miscounted: seat 3 should hold 1,000
    // and seat 2 1,000
    let hand = Concerns::Hand(1);
    let first = t.ok(correct(3, 1000, hand.clone()));
    t.ok(correct(2, 1000, hand));
    // Then each correction is its own event, with the stack before and after
    assert_eq!(
        first,
        vec![TableEvent::StackCorrected {
            seat: 3,
            player: entry(3),
            from: 1050,
            to: 1000,
            concerns: Concerns::Hand(1),
            reason: "the pot was miscounted as it was pushed".into(),
        }]
    );
    assert_eq!((t.stack(2), t.stack(3)), (1000, 1000));
    // and the next hand is dealt with the corrected stacks
    let started = t.start(level(50, 100), None);
    let Some(TableEvent::HandStarted { stacks, .. }) = started.first() else {
        panic!("{started:?}")
    };
    assert!(stacks.contains(&(2, 1000)) && stacks.contains(&(3, 1000)));
}

#[test]
fn a_pot_of_an_earlier_hand_can_no_longer_be_contested() {
    // Seed 000 rule 22 (as above): once another hand was dealt, the count of
    // hand 1 stands.
    let mut t = after_a_hand();
    t.start(level(50, 100), None);
    t.act(2, PlayerAction::Fold);
    t.act(3, PlayerAction::Fold);
    assert_eq!(
        t.refused(correct(3, 1000, Concerns::Hand(1))),
        "a pot's count may be contested only until the next hand: hand 1 is past, the table's last hand is 2 (TDA 22)"
    );
    assert_eq!(
        t.refused(correct(3, 1000, Concerns::Hand(3))),
        "hand 3 was not played at this table: 2 hands so far"
    );
}

#[test]
fn a_correction_waits_for_the_hand_in_play_to_end() {
    // A correction takes effect before the next hand; it never changes a
    // hand being played.
    let mut t = after_a_hand();
    t.start(level(50, 100), None);
    assert_eq!(
        t.refused(correct(
            1,
            1200,
            Concerns::Moment("the move from table 4".into())
        )),
        "hand 2 is still in progress"
    );
    assert_eq!(
        t.refused(remove(1, 100, Removal::Director)),
        "hand 2 is still in progress"
    );
}

#[test]
fn a_correction_names_the_player_and_a_reason_and_changes_something() {
    let t = after_a_hand();
    let moment = || Concerns::Moment("the move from table 4".into());
    // the wrong player named for the seat
    let wrong = Command::CorrectStack {
        seat: 1,
        player: entry(2),
        stack: 1200,
        concerns: moment(),
        reason: "miscounted in the move".into(),
    };
    assert!(t.refused(wrong).contains("seat 1"));
    // no reason
    let silent = Command::CorrectStack {
        seat: 1,
        player: entry(1),
        stack: 1200,
        concerns: moment(),
        reason: String::new(),
    };
    assert_eq!(
        t.refused(silent),
        "a correction's reason is 1 to 500 characters without control characters, not 0"
    );
    // an unnamed moment
    assert_eq!(
        t.refused(correct(1, 1200, Concerns::Moment(String::new()))),
        "the moment a correction concerns is 1 to 500 characters without control characters, not 0"
    );
    // the stack it already has
    assert_eq!(
        t.refused(correct(1, 1000, moment())),
        "seat 1 already holds 1000 chips"
    );
    // past what a table holds
    assert!(
        t.refused(correct(1, MAX_CHIPS, moment()))
            .contains("over the 1152921504606846976 a table holds")
    );
}

#[test]
fn a_correction_never_eliminates_a_player() {
    // Seed 000 rule 71: a player leaves the event by losing their chips in
    // a hand, or by disqualification, whose chips are removed from play.
    let t = after_a_hand();
    let why = t.refused(correct(1, 0, Concerns::Moment("count at the break".into())));
    assert!(why.ends_with("(TDA 71)"), "{why}");
    let why = t.refused(remove(1, 1000, Removal::Director));
    assert_eq!(
        why,
        "removing 1000 chips would leave seat 1 none of its 1000: a player is out by losing a hand, or disqualified (TDA 71)"
    );
    assert_eq!(
        t.refused(remove(1, 0, Removal::Director)),
        "a removal takes at least one chip"
    );
}

#[test]
fn hidden_chips_are_forfeited_and_leave_play() {
    // Seed 000 rule 63: "Um jogador que o faça desistirá destas fichas [...]
    // As fichas serão retiradas da competição."
    // Given seat 1 with 1,000
    let mut t = after_a_hand();
    let before = t.state.chips_in_play();
    // When the floor removes 400 hidden chips
    let events = t.ok(remove(1, 400, Removal::Hidden));
    // Then the removal is recorded with its rule, and the chips are gone
    assert_eq!(
        events,
        vec![TableEvent::ChipsRemoved {
            seat: 1,
            player: entry(1),
            amount: 400,
            removal: Removal::Hidden,
            reason: "a 5,000 chip under the card protector".into(),
        }]
    );
    assert_eq!(Removal::Hidden.rule(), "TDA 63");
    assert_eq!(t.stack(1), 600);
    assert_eq!(t.state.chips_in_play(), before - 400);
}

#[test]
fn the_director_removes_chips_from_play() {
    // Seed 000 rule 25: "O DT irá controlar o número e denominação de fichas
    // em jogo e pode retirá-las de um ou mais jogadores a seu critério, a
    // qualquer momento."
    let mut t = after_a_hand();
    t.ok(remove(2, 50, Removal::Director));
    assert_eq!(t.stack(2), 900);
    assert_eq!(Removal::Director.rule(), "TDA 25");
    // and a results-only table is corrected the same way
    t.ok(Command::SetRecording {
        recording: Recording::ResultsOnly,
        reason: "tablet down".into(),
    });
    t.ok(correct(
        2,
        950,
        Concerns::Moment("chips found after the break".into()),
    ));
    assert_eq!(t.stack(2), 950);
}

/// Issue 27's add-on: between hands, the chips seating sold go on the
/// player's stack; never during a hand, never to another player.
#[test]
fn an_add_ons_chips_go_on_the_stack_between_hands() {
    let add_on = |seat: Seat, player: EntryId| Command::AddOn {
        seat,
        player,
        chips: 5_000,
    };
    // Given a hand in play: refused
    let mut t = table(&[1000, 1000, 1000]);
    t.start(level(50, 100), Some(1));
    let during = t.refused(add_on(2, entry(2)));
    assert!(during.contains("in progress"), "{during}");
    t.act(1, PlayerAction::Fold);
    t.act(2, PlayerAction::Fold);
    // When the hand is over, the player seating named gets the chips
    let before = t.stack(2);
    let events = t.ok(add_on(2, entry(2)));
    assert_eq!(
        events,
        vec![TableEvent::AddOnAdded {
            seat: 2,
            player: entry(2),
            chips: 5_000
        }]
    );
    assert_eq!(t.stack(2), before + 5_000);
    // and not someone sitting elsewhere
    let wrong = t.refused(add_on(3, entry(2)));
    assert!(wrong.contains("seat 3"), "{wrong}");
}

/// Rule 27's rebuy: given a player whose rebuy seating sold, when the
/// hand in play is over, then the chips go on their stack before the next
/// hand (which the player plays with them), recorded with the rebuy's
/// number; never during a hand, never to another player.
#[test]
fn a_rebuys_chips_go_on_the_stack_between_hands() {
    let rebuy = |seat: Seat, player: EntryId| Command::Rebuy {
        seat,
        player,
        chips: 2_000,
        number: 1,
    };
    let mut t = table(&[1000, 1000, 1000]);
    t.start(level(50, 100), Some(1));
    let during = t.refused(rebuy(3, entry(3)));
    assert!(during.contains("in progress"), "{during}");
    t.act(1, PlayerAction::Fold);
    t.act(2, PlayerAction::Fold);
    let before = t.stack(3);
    let events = t.ok(rebuy(3, entry(3)));
    assert_eq!(
        events,
        vec![TableEvent::RebuyAdded {
            seat: 3,
            player: entry(3),
            chips: 2_000,
            number: 1,
        }]
    );
    assert_eq!(t.stack(3), before + 2_000);
    let wrong = t.refused(rebuy(1, entry(3)));
    assert!(wrong.contains("seat 1"), "{wrong}");
}

/// Rule 27: "Se ele anuncia a intenção de recomprar antes da próxima mão,
/// ele estará jogando assumindo as fichas que entrarão em jogo." Given a
/// result that busted seat 2, when the rebuy seating sold them arrives
/// before the next hand, then they are seated again in that seat with its
/// chips and dealt into the next hand; a player who did not bust there
/// cannot rebuy into an empty seat.
#[test]
fn a_busted_players_rebuy_seats_them_again_before_the_next_hand() {
    let mut t = table(&[1000, 1000, 1000]);
    t.ok(Command::SetRecording {
        recording: Recording::ResultsOnly,
        reason: "tablet down".into(),
    });
    t.ok(Command::RecordResult {
        button: 1,
        busted: vec![(2, entry(2))],
        by: vec![(3, entry(3))],
        occurred_at: None,
    });
    assert!(t.state.seat(2).is_none());
    // Another result before the rebuy reaches the table: still theirs.
    t.ok(Command::RecordResult {
        button: 3,
        busted: vec![(1, entry(1))],
        by: vec![(3, entry(3))],
        occurred_at: None,
    });
    let rebuy = |seat: Seat, player: EntryId| Command::Rebuy {
        seat,
        player,
        chips: 2_000,
        number: 1,
    };
    let elsewhere = t.refused(rebuy(2, EntryId(555)));
    assert!(elsewhere.contains("seat 2"), "{elsewhere}");
    let events = t.ok(rebuy(2, entry(2)));
    assert_eq!(
        events,
        vec![TableEvent::RebuyAdded {
            seat: 2,
            player: entry(2),
            chips: 2_000,
            number: 1,
        }]
    );
    let seat = t.state.seat(2).expect("seated again");
    assert_eq!(
        (seat.player, seat.stack, seat.new),
        (entry(2), 2_000, false)
    );
    // Only once: the seat is theirs again.
    t.ok(rebuy(2, entry(2)));
    assert_eq!(t.stack(2), 4_000);
}
