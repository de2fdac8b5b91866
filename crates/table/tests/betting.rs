//! Every example of TDA 2019 rules 40–47, 51 and 55 (seed 000), as given a
//! table / when chips or actions / then the reading and the options.

mod common;

use common::*;
use felt_table::*;

use Declaration as D;
use PlayerAction::*;

/// Given: seats 1..n with these stacks, the button in the last seat, every
/// player calling the big blind preflop, and the flop dealt: seat 1 acts.
fn on_the_flop(stacks: &[Chips], sb: Chips, bb: Chips) -> Table {
    let mut t = table(stacks);
    let n = stacks.len() as Seat;
    t.start(level(sb, bb), Some(n));
    for seat in (3..=n).chain([1]) {
        t.act(seat, Call);
    }
    t.act(2, Check);
    t.board("2c 7d 9h");
    assert_eq!(t.to_act(), Some(1));
    t
}

fn min_to(t: &Table) -> Option<Chips> {
    t.state.options().and_then(|o| o.min_to)
}

// TDA 43: the minimum raise is the largest full bet or raise of the street.

#[test]
fn rule_43_example_1_the_minimum_raise_is_the_last_full_increment() {
    let mut t = on_the_flop(&[20_000; 4], 100, 200);
    t.act(1, Bet { to: 600 });
    t.act(2, Raise { to: 1600 });
    t.act(3, Raise { to: 3600 });
    assert_eq!(min_to(&t), Some(5600));
    assert_eq!(
        t.refuse(4, Raise { to: 5599 }),
        "raise to 5599 is below the minimum raise to 5600 (TDA 43)"
    );
}

#[test]
fn rule_43_example_2_a_short_all_in_leaves_the_minimum_raise_at_the_big_blind() {
    let mut t = table(&[5000, 5000, 150, 5000]);
    t.start(level(50, 100), Some(4));
    t.act(3, AllIn);
    assert_eq!(t.street_bet(3), 150);
    assert_eq!(min_to(&t), Some(250));
}

#[test]
fn rule_43_example_3_two_chips_of_500_over_a_bet_of_300_raise_to_1000() {
    let mut t = on_the_flop(&[20_000; 4], 50, 100);
    t.act(1, Bet { to: 300 });
    assert_eq!(t.silently(&[500, 500]), Raise { to: 1000 });
    assert_eq!(min_to(&t), Some(1700));
}

#[test]
fn rule_43_example_4a_the_largest_raise_sets_the_minimum() {
    let mut t = table(&[20_000; 5]);
    t.start(level(25, 50), Some(5));
    t.act(3, Raise { to: 125 });
    t.act(4, Raise { to: 200 });
    t.act(5, Raise { to: 500 });
    assert_eq!(min_to(&t), Some(800));
}

#[test]
fn rule_43_example_4b_a_raise_of_450_makes_the_minimum_950() {
    let mut t = table(&[20_000; 5]);
    t.start(level(25, 50), Some(5));
    t.act(3, Raise { to: 500 });
    t.act(4, Call);
    t.act(5, Call);
    assert_eq!(min_to(&t), Some(950));
}

#[test]
fn rule_43_fourteen_hundred_declared_over_a_bet_of_1000_is_a_call() {
    let mut t = on_the_flop(&[20_000; 3], 100, 200);
    t.act(1, Bet { to: 1000 });
    assert_eq!(t.push(2, &[], Some(D::Amount(1400)), None), Call);
    assert_eq!(t.street_bet(2), 1000);
}

#[test]
fn rule_43_a_declared_raise_and_an_amount_is_the_total() {
    let mut t = on_the_flop(&[20_000; 3], 100, 200);
    t.act(1, Bet { to: 2000 });
    // "Raise, eight thousand".
    t.act(2, Raise { to: 8000 });
    assert_eq!(t.street_bet(2), 8000);
}

// TDA 44: a single oversized chip.

#[test]
fn rule_44_a_single_oversized_chip_facing_a_bet_is_a_call() {
    let mut t = on_the_flop(&[20_000; 3], 100, 200);
    t.act(1, Bet { to: 300 });
    assert_eq!(t.silently(&[5000]), Call);
    assert_eq!(t.street_bet(2), 300);
    assert_eq!(t.stack(2), 20_000 - 200 - 300);
}

#[test]
fn rule_44_a_raise_declared_before_a_single_chip_is_the_most_the_chip_allows() {
    let mut t = on_the_flop(&[20_000; 3], 100, 200);
    t.act(1, Bet { to: 300 });
    assert_eq!(t.push(2, &[1000], Some(D::Raise), None), Raise { to: 1000 });
}

#[test]
fn rule_44_a_single_chip_without_a_bet_to_face_bets_its_value() {
    let mut t = on_the_flop(&[20_000; 3], 100, 200);
    assert_eq!(t.silently(&[1000]), Bet { to: 1000 });
}

#[test]
fn rule_44_a_single_chip_that_is_the_players_last_is_still_a_call() {
    let mut t = on_the_flop(&[20_000, 5200, 20_000], 100, 200);
    t.act(1, Bet { to: 300 });
    assert_eq!(t.silently(&[5000]), Call);
    assert_eq!(t.stack(2), 4700);
}

// TDA 45: multiple chips.

#[test]
fn rule_45_example_1a_two_chips_of_1000_over_1200_are_a_call() {
    let mut t = on_the_flop(&[20_000; 3], 100, 200);
    t.act(1, Bet { to: 1200 });
    assert_eq!(t.silently(&[1000, 1000]), Call);
    assert_eq!(t.street_bet(2), 1200);
}

/// Rule 45 examples 1-B, 2 and 3: blinds 250-500, UTG raises to 1100.
fn utg_raises_to_1100() -> Table {
    let mut t = table(&[20_000; 5]);
    t.start(level(250, 500), Some(5));
    t.act(3, Raise { to: 1100 });
    t
}

#[test]
fn rule_45_example_1b_a_1000_and_a_500_over_1100_are_a_call() {
    let mut t = utg_raises_to_1100();
    assert_eq!(t.silently(&[1000, 500]), Call);
    assert_eq!(t.street_bet(4), 1100);
}

#[test]
fn rule_45_example_2_reaching_half_a_raise_must_complete_it() {
    let mut t = utg_raises_to_1100();
    assert_eq!(
        t.silently(&[1000, 100, 100, 100, 100, 100]),
        Raise { to: 1700 }
    );
    assert_eq!(t.street_bet(4), 1700);
}

#[test]
fn rule_45_example_3_less_than_half_a_raise_is_a_call_and_the_rest_returned() {
    let mut t = utg_raises_to_1100();
    assert_eq!(t.silently(&[1000, 100, 100, 100]), Call);
    assert_eq!(t.stack(4), 20_000 - 1100);
}

#[test]
fn rule_45_text_example_2_the_last_two_chips_over_1050_are_a_call() {
    let mut t = on_the_flop(&[20_000, 2050, 20_000], 25, 50);
    t.act(1, Bet { to: 1050 });
    assert_eq!(t.silently(&[1000, 1000]), Call);
    assert_eq!(t.stack(2), 950);
}

/// Rule 45 example 4: A opens for 1400 on the flop; B has `stack` behind.
fn a_opens_1400(stack: Chips) -> Table {
    let mut t = on_the_flop(&[20_000, stack + 100, 20_000], 50, 100);
    t.act(1, Bet { to: 1400 });
    t
}

#[test]
fn rule_45_example_4a_a_1000_and_three_500s_over_1400_raise_to_2800() {
    let mut t = a_opens_1400(10_000);
    assert_eq!(t.silently(&[1000, 500, 500, 500]), Raise { to: 2800 });
}

#[test]
fn rule_45_example_4b_a_1000_and_two_500s_over_1400_are_a_call() {
    let mut t = a_opens_1400(10_000);
    assert_eq!(t.silently(&[1000, 500, 500]), Call);
    assert_eq!(t.street_bet(2), 1400);
}

#[test]
fn rule_45_example_4_with_the_last_chips_both_are_all_in() {
    let mut t = a_opens_1400(2500);
    assert_eq!(t.silently(&[1000, 500, 500, 500]), AllIn);
    assert_eq!(t.street_bet(2), 2500);
    let mut t = a_opens_1400(2000);
    assert_eq!(t.silently(&[1000, 500, 500]), AllIn);
    assert_eq!(t.street_bet(2), 2000);
    assert_eq!(t.stack(2), 0);
}

#[test]
fn rule_45_all_the_last_chips_needed_to_call_are_a_call_all_in() {
    let mut t = a_opens_1400(1200);
    assert_eq!(t.silently(&[1000, 100, 100]), Call);
    assert_eq!(t.stack(2), 0);
}

// TDA 46: chips of an earlier bet not pulled in.

/// Blinds 25-50; the big blind (seat 2) posted two 25 chips; the button
/// (seat 3) raises to 600 and the small blind folds: the big blind acts.
fn button_raises_the_big_blind_to_600() -> Table {
    let mut t = table(&[20_000; 3]);
    t.start(level(25, 50), Some(3));
    t.act(3, Raise { to: 600 });
    t.act(1, Fold);
    t
}

#[test]
fn rule_46_case_1_a_single_chip_added_to_an_untouched_blind_is_a_call() {
    let mut t = button_raises_the_big_blind_to_600();
    assert_eq!(t.push(2, &[1000], None, Some(&[25, 25])), Call);
    assert_eq!(t.street_bet(2), 600);
}

#[test]
fn rule_46_case_1_new_chips_all_needed_to_call_are_a_call() {
    for chips in [[500, 500], [100, 500]] {
        let mut t = button_raises_the_big_blind_to_600();
        assert_eq!(t.push(2, &chips, None, Some(&[25, 25])), Call, "{chips:?}");
    }
}

#[test]
fn rule_46_case_1_new_chips_not_all_needed_follow_the_50_percent_standard() {
    let mut t = button_raises_the_big_blind_to_600();
    // 1,550 in all: a raise of 950, more than the full raise of 550.
    assert_eq!(
        t.push(2, &[1000, 500], None, Some(&[25, 25])),
        Raise { to: 1550 }
    );
}

#[test]
fn rule_46_case_2_earlier_chips_that_cover_the_call_make_new_chips_a_raise() {
    // Blinds 50-100, the big blind posted with a 1,000 chip; a raise to 700.
    let mut t = table(&[20_000; 3]);
    t.start(level(50, 100), Some(3));
    t.act(3, Raise { to: 700 });
    t.act(1, Fold);
    assert_eq!(t.push(2, &[500], None, Some(&[1000])), Raise { to: 1500 });
    let mut t = table(&[20_000; 3]);
    t.start(level(50, 100), Some(3));
    t.act(3, Raise { to: 700 });
    t.act(1, Fold);
    // 1,100 is a raise of 400: half a raise of 600 or more, completed.
    assert_eq!(t.push(2, &[100], None, Some(&[1000])), Raise { to: 1300 });
}

#[test]
fn rule_46_case_3_earlier_chips_pulled_back_read_the_new_chips_alone() {
    let mut t = button_raises_the_big_blind_to_600();
    assert_eq!(t.push(2, &[1000], None, Some(&[])), Call);
    let mut t = button_raises_the_big_blind_to_600();
    assert_eq!(t.push(2, &[500, 100], None, Some(&[])), Call);
    let mut t = button_raises_the_big_blind_to_600();
    assert_eq!(
        t.push(2, &[1000, 500, 100], None, Some(&[])),
        Raise { to: 1600 }
    );
}

#[test]
fn rule_46_case_4_earlier_chips_partly_pulled_back_follow_the_50_percent_standard() {
    let mut t = button_raises_the_big_blind_to_600();
    // 25 + 600 = 625: a raise of 25, under half of 550: a call.
    assert_eq!(t.push(2, &[500, 100], None, Some(&[25])), Call);
    let mut t = button_raises_the_big_blind_to_600();
    // 25 + 1000 = 1025: a raise of 425, half of 550 or more: completed.
    assert_eq!(t.push(2, &[1000], None, Some(&[25])), Raise { to: 1150 });
}

// TDA 47: reopening the betting.

/// Rule 47 example 1: blinds 50-100; on the flop A bets 100, B is all in
/// for 125, C calls, D is all in for 200, E calls.
fn rule_47_example_1() -> Table {
    let mut t = on_the_flop(&[5000, 225, 5000, 300, 5000, 5000], 50, 100);
    t.act(1, Bet { to: 100 });
    t.act(2, AllIn);
    t.act(3, Call);
    t.act(4, AllIn);
    t.act(5, Call);
    t.act(6, Fold);
    t
}

#[test]
fn rule_47_example_1_short_all_ins_adding_up_to_a_full_raise_reopen_the_betting() {
    let t = rule_47_example_1();
    assert_eq!(t.to_act(), Some(1));
    assert_eq!(min_to(&t), Some(300));
}

#[test]
fn rule_47_example_1a_after_a_call_75_more_does_not_reopen_it() {
    let mut t = rule_47_example_1();
    t.act(1, Call);
    assert_eq!(t.to_act(), Some(3));
    assert_eq!(min_to(&t), None);
    assert_eq!(
        t.refuse(3, Raise { to: 400 }),
        "seat 3 may only call or fold: the betting was not reopened by a full raise (TDA 47)"
    );
}

#[test]
fn rule_47_example_1b_after_a_raise_to_300_it_is_reopened() {
    let mut t = rule_47_example_1();
    t.act(1, Raise { to: 300 });
    assert_eq!(t.to_act(), Some(3));
    assert_eq!(min_to(&t), Some(400));
}

#[test]
fn rule_47_example_2_several_short_all_ins_keep_the_minimum_raise() {
    let mut t = on_the_flop(&[5000, 600, 750, 900, 5000, 5000], 50, 100);
    t.act(1, Bet { to: 300 });
    t.act(2, AllIn);
    t.act(3, AllIn);
    t.act(4, AllIn);
    t.act(5, Call);
    assert_eq!(t.street_bet(4), 800);
    assert_eq!(min_to(&t), Some(1100));
}

/// Rule 47 example 3: blinds 2000-4000; A calls, B folds, C is all in for
/// 7,500, the others fold: the big blind acts.
fn rule_47_example_3() -> Table {
    let mut t = table(&[50_000, 50_000, 50_000, 50_000, 7500, 50_000]);
    t.start(level(2000, 4000), Some(6));
    t.act(3, Call);
    t.act(4, Fold);
    t.act(5, AllIn);
    t.act(6, Fold);
    t.act(1, Fold);
    assert_eq!(t.to_act(), Some(2));
    t
}

#[test]
fn rule_47_example_3a_the_big_blind_may_raise_and_a_call_does_not_reopen() {
    let mut t = rule_47_example_3();
    assert_eq!(min_to(&t), Some(11_500));
    t.act(2, Call);
    assert_eq!(t.to_act(), Some(3));
    assert_eq!(t.hand().to_call(3), 3500);
    assert_eq!(min_to(&t), None);
}

#[test]
fn rule_47_example_3b_a_raise_by_the_big_blind_reopens_it() {
    let mut t = rule_47_example_3();
    t.act(2, Raise { to: 11_500 });
    assert_eq!(t.hand().to_call(3), 7500);
    assert_eq!(min_to(&t), Some(15_500));
}

// TDA 51: binding declarations and undercalls.

/// Rule 51 examples: blinds 1000-2000, four players on the flop.
fn four_on_the_flop() -> Table {
    on_the_flop(&[100_000; 4], 1000, 2000)
}

#[test]
fn rule_51_example_1_an_undercall_of_a_raise_multiway_is_for_the_floor() {
    let mut t = four_on_the_flop();
    t.act(1, Bet { to: 2000 });
    t.act(2, Raise { to: 8000 });
    let before = t.state.clone();
    assert_eq!(
        t.refused(Command::PushChips {
            seat: 3,
            chips: vec![2000],
            declaration: None,
            in_front: None,
        }),
        "seat 3 undercalled 2000 of the 8000 to call facing a raise in a multiway pot: the floor rules whether the call is completed or the chips are forfeited with a fold (TDA 51)"
    );
    // The floor lets seat 3 forfeit the 2,000 and fold.
    t.ok(Command::Rule {
        ruling: Ruling::ForfeitUndercall {
            seat: 3,
            amount: 2000,
        },
        reason: "undercall of a raise in a multiway pot".into(),
    });
    assert!(t.hand().player(3).unwrap().folded);
    assert_eq!(t.stack(3), before.seat(3).unwrap().stack - 2000);
    assert_eq!(t.hand().pot(), before.hand().unwrap().pot() + 2000);
    assert_eq!(t.to_act(), Some(4));
}

#[test]
fn rule_51_example_1_or_the_floor_makes_the_call_binding() {
    let mut t = four_on_the_flop();
    t.act(1, Bet { to: 2000 });
    t.act(2, Raise { to: 8000 });
    t.act(3, Call);
    assert_eq!(t.street_bet(3), 8000);
}

#[test]
fn rule_51_example_2_an_undercall_of_the_opening_bet_is_a_call() {
    let mut t = four_on_the_flop();
    t.act(1, Bet { to: 8000 });
    assert_eq!(t.silently(&[2000]), Call);
    assert_eq!(t.street_bet(2), 8000);
}

#[test]
fn rule_51_example_3_call_declared_binds_the_whole_bet() {
    let mut t = four_on_the_flop();
    t.act(1, Bet { to: 2000 });
    t.act(2, Raise { to: 8000 });
    assert_eq!(t.push(3, &[2000], Some(D::Call), None), Call);
    assert_eq!(t.street_bet(3), 8000);
}

#[test]
fn rule_51_an_undercall_heads_up_is_a_call_of_any_bet() {
    let mut t = table(&[100_000, 100_000]);
    t.start(level(1000, 2000), Some(2));
    t.act(2, Call);
    t.act(1, Check);
    t.board("2c 7d 9h");
    t.act(1, Bet { to: 2000 });
    t.act(2, Raise { to: 8000 });
    assert_eq!(t.silently(&[2000]), Call);
    assert_eq!(t.street_bet(1), 8000);
}

#[test]
fn rule_51_preflop_the_big_blind_is_the_opening_bet() {
    let mut t = table(&[20_000; 4]);
    t.start(level(100, 200), Some(4));
    assert_eq!(t.silently(&[100]), Call);
    assert_eq!(t.street_bet(3), 200);
}

#[test]
fn rule_51_a_forfeit_must_be_an_undercall() {
    let mut t = four_on_the_flop();
    t.act(1, Bet { to: 2000 });
    t.act(2, Raise { to: 8000 });
    let refused = t.refused(Command::Rule {
        ruling: Ruling::ForfeitUndercall {
            seat: 3,
            amount: 8000,
        },
        reason: "not an undercall".into(),
    });
    assert!(refused.contains("must be more than nothing and less than the 8000 to call"));
}

// TDA 55: incorrect declarations.

#[test]
fn rule_55_call_with_no_bet_to_face_is_a_check() {
    let mut t = on_the_flop(&[20_000; 3], 100, 200);
    assert_eq!(t.push(1, &[], Some(D::Call), None), Check);
    assert_eq!(t.to_act(), Some(2));
}

#[test]
fn rule_55_raise_with_no_bet_to_face_is_at_least_the_minimum_bet() {
    let mut t = on_the_flop(&[20_000; 3], 100, 200);
    assert_eq!(t.push(1, &[100], Some(D::Raise), None), Bet { to: 200 });
}

#[test]
fn chips_out_of_turn_or_beyond_the_stack_are_refused() {
    let mut t = on_the_flop(&[20_000, 1000, 20_000], 100, 200);
    assert_eq!(
        t.refused(Command::PushChips {
            seat: 2,
            chips: vec![500],
            declaration: None,
            in_front: None
        }),
        "seat 2 acted out of turn: seat 1 is to act (TDA 53)"
    );
    t.act(1, Bet { to: 300 });
    assert_eq!(
        t.refused(Command::PushChips {
            seat: 2,
            chips: vec![1000, 1000],
            declaration: None,
            in_front: None
        }),
        "seat 2 can go to at most 800, all in, not 2000 (TDA 48)"
    );
    assert_eq!(
        t.refused(Command::PushChips {
            seat: 2,
            chips: vec![],
            declaration: None,
            in_front: None
        }),
        "seat 2 put out no chips and declared nothing"
    );
}

#[test]
fn the_reading_is_recorded_with_its_rule() {
    let mut t = utg_raises_to_1100();
    let events = t.ok(Command::PushChips {
        seat: 4,
        chips: vec![1000, 100, 100, 100],
        declaration: None,
        in_front: None,
    });
    assert!(matches!(
        &events[0],
        TableEvent::ChipsRead { read_as: Call, rule, .. }
            if rule == "less than 50% of a full raise: a call, the excess returned (TDA 43)"
    ));
    assert!(matches!(
        events[1],
        TableEvent::ActionTaken {
            seat: 4,
            action: ActionTaken::Call { amount: 1100 },
            ..
        }
    ));
}

// TDA 53: action out of turn.

fn out_of_turn(t: &mut Table, seat: Seat, action: PlayerAction) -> Vec<TableEvent> {
    t.ok(Command::ActOutOfTurn { seat, action })
}

/// Rule 53 example 1: blinds 50-100; on the flop seat 3 bets 300, seat 4
/// folds, and with seat 5 to act seat 6 says "raise to 800".
fn rule_53_example_1() -> Table {
    let mut t = on_the_flop(&[20_000; 7], 50, 100);
    t.act(1, Check);
    t.act(2, Check);
    t.act(3, Bet { to: 300 });
    t.act(4, Fold);
    let events = out_of_turn(&mut t, 6, Raise { to: 800 });
    assert_eq!(
        events,
        [TableEvent::OutOfTurnAction {
            seat: 6,
            action: Raise { to: 800 },
            facing: 300
        }]
    );
    // The action goes back to seat 5; no chip has moved.
    assert_eq!(t.to_act(), Some(5));
    assert_eq!(t.street_bet(6), 0);
    t
}

#[test]
fn rule_53_example_1_a_call_does_not_change_the_action_so_the_raise_stands() {
    let mut t = rule_53_example_1();
    let events = t.act(5, Call);
    assert!(events.contains(&TableEvent::ActionTaken {
        seat: 6,
        action: ActionTaken::Raise {
            to: 800,
            amount: 800
        },
        all_in: false
    }));
    assert_eq!(t.street_bet(6), 800);
    assert_eq!(t.to_act(), Some(7));
}

#[test]
fn rule_53_example_1_a_raise_changes_the_action_and_frees_the_out_of_turn_player() {
    let mut t = rule_53_example_1();
    let events = t.act(5, Raise { to: 600 });
    assert!(matches!(
        events.last(),
        Some(TableEvent::OutOfTurnVoided { seat: 6, reason })
            if reason == "the action changed from 300 to 600 before seat 6's turn: its out-of-turn action does not bind it (TDA 53)"
    ));
    assert_eq!(t.to_act(), Some(6));
    assert_eq!(t.street_bet(6), 0);
    // Every option: here a fold.
    t.act(6, Fold);
}

#[test]
fn rule_53_example_2_a_check_out_of_turn_stands_unless_there_is_a_bet() {
    let mut t = on_the_flop(&[20_000; 7], 50, 100);
    for seat in 1..=4 {
        t.act(seat, Check);
    }
    out_of_turn(&mut t, 6, Check);
    t.act(5, Check);
    assert_eq!(t.to_act(), Some(7));
    assert!(t.hand().player(6).unwrap().acted);

    let mut t = on_the_flop(&[20_000; 7], 50, 100);
    for seat in 1..=4 {
        t.act(seat, Check);
    }
    out_of_turn(&mut t, 6, Check);
    t.act(5, Bet { to: 200 });
    assert_eq!(t.to_act(), Some(6));
    assert_eq!(t.state.options().unwrap().to_call, 200);
}

#[test]
fn rule_53_a_fold_out_of_turn_stands_even_when_the_action_changes() {
    let mut t = rule_53_example_1();
    out_of_turn(&mut t, 7, Fold);
    t.act(5, Raise { to: 900 });
    t.act(6, Call);
    assert!(t.hand().player(7).unwrap().folded);
    assert_eq!(t.to_act(), Some(1));
}

#[test]
fn rule_53_b_substantial_action_out_of_turn_stands_and_the_floor_rules_on_the_skipped_hand() {
    // Blinds 100-200: seat 3 bets 600, seat 4 is skipped as seat 5 calls and
    // seat 6 folds out of turn; the floor kills seat 4's hand.
    let mut t = on_the_flop(&[20_000; 7], 100, 200);
    t.act(1, Check);
    t.act(2, Check);
    t.act(3, Bet { to: 600 });
    out_of_turn(&mut t, 5, Call);
    out_of_turn(&mut t, 6, Fold);
    t.ok(Command::Rule {
        ruling: Ruling::KillHand { seat: 4 },
        reason: "skipped, did not speak before substantial action (TDA 53)".into(),
    });
    assert_eq!(t.street_bet(5), 600);
    assert!(t.hand().player(6).unwrap().folded);
    assert_eq!(t.to_act(), Some(7));
}

#[test]
fn out_of_turn_actions_are_checked_like_any_other() {
    let t = rule_53_example_1();
    assert_eq!(
        t.refused(Command::ActOutOfTurn {
            seat: 7,
            action: Raise { to: 500 }
        }),
        "raise to 500 is below the minimum raise to 600 (TDA 43)"
    );
    assert_eq!(
        t.refused(Command::ActOutOfTurn {
            seat: 5,
            action: Call
        }),
        "seat 5 is to act: record its action in turn"
    );
    assert_eq!(
        t.refused(Command::ActOutOfTurn {
            seat: 6,
            action: Call
        }),
        "seat 6 has already acted out of turn: its action waits for its turn (TDA 53)"
    );
    assert_eq!(
        t.refused(Command::ActOutOfTurn {
            seat: 4,
            action: Call
        }),
        "seat 4 has no action to take: it is all in or out of the hand"
    );
}
