//! The rules, as given events / when command / then events or rejection.

mod common;

use common::*;
use felt_cards::Seed;
use felt_table::*;

use PlayerAction::*;

#[test]
fn blinds_and_first_to_act() {
    let mut t = table(&[1000, 1000, 1000, 1000]);
    let events = t.start(level(50, 100), Some(4));
    assert!(events.contains(&TableEvent::BlindPosted {
        seat: 1,
        blind: Blind::Small,
        amount: 50
    }));
    assert!(events.contains(&TableEvent::BlindPosted {
        seat: 2,
        blind: Blind::Big,
        amount: 100
    }));
    assert_eq!(t.to_act(), Some(3));
    let o = t.state.options().unwrap();
    assert_eq!(
        (o.to_call, o.min_to, o.max_to),
        (100, Some(200), Some(1000))
    );
}

#[test]
fn heads_up_the_button_posts_the_small_blind_and_acts_first_preflop_only() {
    // TDA 34
    let mut t = table(&[1000, 1000]);
    t.start(level(50, 100), Some(2));
    let h = t.hand();
    assert_eq!((h.button, h.small_blind, h.big_blind), (2, Some(2), 1));
    assert_eq!(t.to_act(), Some(2));
    t.act(2, Call);
    t.act(1, Check);
    t.board("2c 7d 9h");
    assert_eq!(
        t.to_act(),
        Some(1),
        "the big blind acts first after the flop"
    );
}

#[test]
fn minimum_raise_is_the_largest_bet_or_raise_of_the_round() {
    // TDA 43
    let mut t = table(&[5000, 5000, 5000, 5000]);
    t.start(level(50, 100), Some(4));
    t.act(3, Raise { to: 300 });
    assert_eq!(
        t.refuse(4, Raise { to: 400 }),
        "raise to 400 is below the minimum raise to 500 (TDA 43)"
    );
    t.act(4, Raise { to: 500 });
    assert_eq!(t.state.options().unwrap().min_to, Some(700));
}

#[test]
fn minimum_bet_is_the_big_blind_unless_all_in() {
    // TDA 43
    let mut t = table(&[1000, 1000, 150]);
    t.start(level(50, 100), Some(3));
    t.act(3, Call);
    t.act(1, Call);
    t.act(2, Check);
    t.board("2c 7d 9h");
    assert_eq!(
        t.refuse(1, Bet { to: 50 }),
        "bet of 50 is below the minimum bet of 100 (TDA 43)"
    );
    t.act(1, Check);
    t.act(2, Check);
    // Seat 3 has 50 left: a bet of 50 all-in is allowed.
    t.act(3, Bet { to: 50 });
    assert_eq!(t.stack(3), 0);
}

#[test]
fn a_short_all_in_does_not_reopen_the_betting() {
    // TDA 47: A bets 100, B is all-in for 150, C calls: A may only call or fold.
    let mut t = table(&[2000, 250, 2000, 2000]);
    t.start(level(50, 100), Some(4));
    t.act(3, Call);
    t.act(4, Call);
    t.act(1, Call);
    t.act(2, Check);
    t.board("2c 7d 9h");
    t.act(1, Bet { to: 100 });
    t.act(2, AllIn);
    t.act(3, Call);
    t.act(4, Fold);
    assert_eq!(
        t.refuse(1, Raise { to: 400 }),
        "seat 1 may only call or fold: the betting was not reopened by a full raise (TDA 47)"
    );
    assert_eq!(t.state.options().unwrap().min_to, None);
    t.act(1, Call);
    assert_eq!(t.hand().phase, Phase::AwaitingBoard);
}

#[test]
fn short_all_ins_that_add_up_to_a_full_raise_reopen_the_betting() {
    // TDA 47: A bets 100, B all-in 150, C all-in 200: A faces a full raise.
    let mut t = table(&[2000, 250, 300, 2000]);
    t.start(level(50, 100), Some(4));
    for s in [3, 4, 1] {
        t.act(s, Call);
    }
    t.act(2, Check);
    t.board("2c 7d 9h");
    t.act(1, Bet { to: 100 });
    t.act(2, AllIn);
    t.act(3, AllIn);
    t.act(4, Fold);
    // The minimum raise stays the last full bet: 200 + 100.
    assert_eq!(t.state.options().unwrap().min_to, Some(300));
    t.act(1, Raise { to: 300 });
}

#[test]
fn out_of_turn_and_impossible_actions_are_refused_and_change_nothing() {
    let mut t = table(&[1000, 1000, 1000]);
    t.start(level(50, 100), Some(3));
    assert_eq!(
        t.refuse(1, Call),
        "seat 1 acted out of turn: seat 3 is to act (TDA 53)"
    );
    assert_eq!(t.refuse(3, Check), "seat 3 cannot check facing 100 to call");
    assert_eq!(
        t.refuse(3, Raise { to: 5000 }),
        "seat 3 can go to at most 1000, all in, not 5000 (TDA 48)"
    );
    assert_eq!(
        t.refuse(3, Bet { to: 300 }),
        "there is already a bet of 100: raise instead"
    );
    assert_eq!(t.refuse(9, Call), "seat 9 does not exist at a 3-seat table");
    assert_eq!(
        t.refused(Command::RemovePlayer { seat: 1 }),
        "seat 1 is in the current hand: players are moved between hands"
    );
}

#[test]
fn side_pots_are_awarded_from_the_last_to_the_main_pot() {
    // TDA 21: three all-ins of different sizes.
    let mut t = table(&[100, 300, 1000]);
    t.start(level(10, 20), Some(3));
    t.act(3, AllIn);
    t.act(1, AllIn);
    t.act(2, AllIn);
    for (seat, hole) in [(1, "As Ah"), (2, "Ks Kh"), (3, "Qs Qh")] {
        t.show(seat, hole);
    }
    t.board("2c 7d 9h");
    t.board("3s");
    t.board("4d");
    // Seat 3's 700 beyond seat 2's 300 is returned; the side pot of 400
    // (seats 2 and 3) goes to the kings; the main pot of 300 to the aces.
    assert!(t.log.contains(&TableEvent::UncalledBetReturned {
        seat: 3,
        amount: 700
    }));
    assert_eq!(
        t.awards(),
        vec![(1, 400, vec![(2, 400)]), (0, 300, vec![(1, 300)])]
    );
    assert_eq!((t.stack(1), t.stack(2), t.stack(3)), (300, 400, 700));
    assert!(t.state.hand().is_none());
}

/// Seat 1 folds its small blind, seats 2 and 3 check to the river on a board
/// where both play the same straight, and table their hands.
fn split_between_seats_2_and_3(lvl: Level, show_order: [Seat; 2]) -> Table {
    let mut t = table(&[1000, 1000, 1000]);
    t.start(lvl, Some(3));
    t.act(3, Call);
    t.act(1, Fold);
    t.act(2, Check);
    for board in ["2c 7d 9h", "Ts", "Js"] {
        t.board(board);
        t.act(2, Check);
        t.act(3, Check);
    }
    for seat in show_order {
        t.show(seat, if seat == 2 { "Ah 3d" } else { "Ad 3c" });
    }
    t
}

#[test]
fn odd_chips_go_to_the_first_winner_left_of_the_button() {
    // TDA 20: a pot of 225 split two ways: 113 to seat 2, first left of the button.
    let t = split_between_seats_2_and_3(level(25, 100), [3, 2]);
    assert_eq!(t.awards(), vec![(0, 225, vec![(2, 113), (3, 112)])]);
}

#[test]
fn odd_chips_are_split_in_the_smallest_denomination_in_play() {
    // TDA 20 with 25-chips: 275 is eleven chips, six to seat 2 and five to seat 3.
    let mut lvl = level(75, 100);
    lvl.smallest_chip = 25;
    let t = split_between_seats_2_and_3(lvl, [2, 3]);
    assert_eq!(t.awards(), vec![(0, 275, vec![(2, 150), (3, 125)])]);
}

#[test]
fn the_big_blind_ante_is_posted_first_and_never_reduced() {
    // RP11: a big blind with 150 posts the 100 ante, then 50 of the blind.
    let mut t = table(&[1000, 150, 1000]);
    let mut lvl = level(50, 100);
    lvl.ante = 100;
    lvl.ante_format = AnteFormat::BigBlind;
    let events = t.start(lvl, Some(3));
    let posts: Vec<&TableEvent> = events
        .iter()
        .filter(|e| {
            matches!(
                e,
                TableEvent::AntePosted { .. } | TableEvent::BlindPosted { .. }
            )
        })
        .collect();
    assert_eq!(
        posts,
        vec![
            &TableEvent::AntePosted {
                seat: 2,
                amount: 100
            },
            &TableEvent::BlindPosted {
                seat: 1,
                blind: Blind::Small,
                amount: 50
            },
            &TableEvent::BlindPosted {
                seat: 2,
                blind: Blind::Big,
                amount: 50
            },
        ]
    );
    // Live convention: the others still call the full big blind.
    assert_eq!(t.state.options().unwrap().to_call, 100);
}

#[test]
fn a_short_big_blind_is_called_for_what_it_posted_under_the_pokerkit_rule() {
    let rules = HouseRules {
        short_big_blind: ShortBigBlind::CallAmountPosted,
        ..HouseRules::default()
    };
    let mut t = table_with(&[1000, 70, 1000], rules);
    t.start(level(50, 100), Some(3));
    assert_eq!(t.state.options().unwrap().to_call, 70);
}

#[test]
fn the_dead_button_keeps_the_big_blind_moving() {
    // TDA 32: the small blind of hand 1 leaves; in hand 2 the big blind
    // moves on one seat, the small blind is the last big blind, and the
    // button stays on the empty seat.
    let mut t = table(&[1000, 1000, 1000, 1000]);
    t.start(level(50, 100), Some(4));
    t.act(3, Fold);
    t.act(4, Fold);
    t.act(1, Fold);
    t.ok(Command::RemovePlayer { seat: 1 });
    t.start(level(50, 100), None);
    let h = t.hand();
    assert_eq!((h.button, h.small_blind, h.big_blind), (1, Some(2), 3));
}

#[test]
fn when_the_big_blind_leaves_the_next_hand_has_no_small_blind() {
    let mut t = table(&[1000, 1000, 1000, 1000]);
    t.start(level(50, 100), Some(4));
    for s in [3, 4, 1] {
        t.act(s, Fold);
    }
    t.ok(Command::RemovePlayer { seat: 2 });
    t.start(level(50, 100), None);
    let h = t.hand();
    assert_eq!((h.button, h.small_blind, h.big_blind), (1, None, 3));
}

#[test]
fn going_heads_up_nobody_posts_the_big_blind_twice() {
    // TDA 34
    let mut t = table(&[1000, 1000, 1000]);
    t.start(level(50, 100), Some(3));
    t.act(3, Fold);
    t.act(1, Fold);
    // Seat 2 was the big blind; seat 3 leaves.
    t.ok(Command::RemovePlayer { seat: 3 });
    t.start(level(50, 100), None);
    let h = t.hand();
    assert_eq!((h.button, h.small_blind, h.big_blind), (2, Some(2), 1));
}

#[test]
fn an_absent_player_posts_and_has_a_dead_hand() {
    // TDA 30
    let mut t = table(&[1000, 1000, 1000]);
    t.ok(Command::SetAbsent {
        seat: 2,
        absent: true,
    });
    let events = t.start(level(50, 100), Some(3));
    assert!(events.contains(&TableEvent::BlindPosted {
        seat: 2,
        blind: Blind::Big,
        amount: 100
    }));
    assert!(t.hand().player(2).unwrap().folded);
    t.act(3, Fold);
    // Seat 1 is the only live hand and wins the blinds.
    assert!(t.state.hand().is_none());
    assert_eq!(t.stack(1), 1100);
}

#[test]
fn a_digital_deal_is_repeatable_and_plays_to_a_showdown() {
    let play = || {
        let mut t = table(&[1000, 1000, 1000]);
        t.ok(Command::StartHand {
            level: level(50, 100),
            deal: Deal::Digital {
                seed: Seed::from_u64(11),
            },
            button: Some(3),
        });
        t.act(3, Call);
        t.act(1, Call);
        t.act(2, Check);
        for _ in 0..3 {
            for s in [1, 2, 3] {
                t.act(s, Check);
            }
        }
        t
    };
    let (a, b) = (play(), play());
    assert_eq!(a.log, b.log);
    assert!(a.state.hand().is_none());
    // Each live hand is tabled or, when it cannot win, mucked (TDA 17).
    let settled = a
        .log
        .iter()
        .filter(|e| {
            matches!(
                e,
                TableEvent::CardsShown { .. } | TableEvent::CardsMucked { .. }
            )
        })
        .count();
    assert_eq!(settled, 3);
    let total: Chips = (1..=3).map(|s| a.stack(s)).sum();
    assert_eq!(total, 3000);
}

#[test]
fn cards_in_a_physical_deal_must_be_new() {
    let mut t = table(&[1000, 1000, 1000]);
    t.start(level(50, 100), Some(3));
    t.ok(Command::EnterHoleCards {
        seat: 1,
        cards: two("As Ah"),
    });
    assert_eq!(
        t.refused(Command::EnterHoleCards {
            seat: 2,
            cards: two("As Kd")
        }),
        "card As is already in play"
    );
    assert_eq!(
        t.refused(Command::DealBoard {
            cards: cards("2c 3c 4c")
        }),
        "the board is not due: betting on the preflop is still open"
    );
}

#[test]
fn hands_are_tabled_only_when_betting_is_over() {
    // TDA 16
    let mut t = table(&[1000, 1000, 1000]);
    t.start(level(50, 100), Some(3));
    assert_eq!(
        t.refused(Command::Show {
            seat: 1,
            cards: Some(two("As Ah"))
        }),
        "hands are tabled when betting is over (TDA 16)"
    );
}

/// The busts the table's hand ended with.
fn busts(t: &Table) -> Vec<Bust> {
    t.log
        .iter()
        .find_map(|e| match e {
            TableEvent::HandEnded { busted, .. } => Some(busted.clone()),
            _ => None,
        })
        .expect("the hand ended")
}

/// Seat 2 (500 chips) is all-in against seat 3 preflop and they run it out.
fn all_in_against_seat_3(hole_2: &str, hole_3: &str) -> Table {
    let mut t = table(&[1000, 500, 1000]);
    t.start(level(50, 100), Some(3));
    t.act(3, Raise { to: 300 });
    t.act(1, Fold);
    t.act(2, AllIn);
    t.act(3, Call);
    t.show(2, hole_2);
    t.show(3, hole_3);
    for board in ["2c 7d 9h", "3s", "4d"] {
        t.board(board);
    }
    t
}

#[test]
fn replaying_the_log_gives_the_same_table() {
    let t = all_in_against_seat_3("Qs Qh", "Js Jh");
    assert_eq!(replay(&t.log), t.state);
    assert_eq!(t.state.chips_in_play(), 2500);
    assert!(
        t.log
            .iter()
            .any(|e| matches!(e, TableEvent::HandEnded { .. }))
    );
}

#[test]
fn a_busted_player_is_reported_with_the_stack_they_started_with() {
    let t = all_in_against_seat_3("Js Jh", "Qs Qh");
    assert_eq!(
        busts(&t),
        vec![Bust {
            seat: 2,
            player: EntryId(101),
            starting_stack: 500,
            by: vec![EntryId(102)],
        }]
    );
    assert!(t.state.seat(2).is_none());
}

/// A bust names who won the player's last chips (their bounty's
/// collectors, in a knockout): the winners of the highest pot they were
/// in. A main pot split between two players names both.
#[test]
fn a_player_busted_by_a_split_pot_names_both_winners() {
    let mut t = table(&[1000, 500, 1000]);
    t.start(level(50, 100), Some(3));
    t.act(3, Raise { to: 500 });
    t.act(1, Call);
    t.act(2, AllIn);
    for board in ["2c 7d 9h", "3s", "4d"] {
        t.board(board);
        t.act(1, Check);
        t.act(3, Check);
    }
    t.show(1, "Ks Kh");
    t.show(2, "Js Jh");
    t.show(3, "Kd Kc");
    assert_eq!(
        busts(&t),
        vec![Bust {
            seat: 2,
            player: EntryId(101),
            starting_stack: 500,
            by: vec![EntryId(100), EntryId(102)],
        }]
    );
}

#[test]
fn a_player_all_in_for_part_of_the_ante_wins_only_what_they_matched() {
    let mut t = table(&[40, 1000, 1000]);
    let lvl = Level {
        ante: 100,
        ante_format: AnteFormat::PerPlayer,
        ..level(50, 100)
    };
    t.start(lvl, Some(3));
    assert_eq!(t.stack(1), 0);
    t.act(3, Call);
    t.act(2, Check);
    for board in ["2c 7d 9h", "Jd", "3s"] {
        t.board(board);
        t.act(2, Check);
        t.act(3, Check);
    }
    t.show(1, "Ah As");
    t.show(2, "Kh Ks");
    t.show(3, "Qh Qs");
    // Seat 1 matched 40 from each player: a main pot of 120.
    assert_eq!(
        t.awards(),
        [(1, 320, vec![(2, 320)]), (0, 120, vec![(1, 120)])]
    );
    assert_eq!((t.stack(1), t.stack(2), t.stack(3)), (120, 1120, 800));
}

#[test]
fn the_pots_as_they_stand_show_each_side_pot_and_who_can_win_it() {
    // Seat 2 is all in for 300; seats 1 and 3 go on betting.
    let mut t = table(&[2000, 300, 2000]);
    t.start(level(50, 100), Some(3));
    t.act(3, Raise { to: 1000 });
    t.act(1, Call);
    t.act(2, AllIn);
    let h = t.hand();
    assert_eq!(
        h.pots(),
        [(900, vec![1, 2, 3]), (1400, vec![1, 3])],
        "a main pot of 3 x 300, a side pot of the rest"
    );
    assert_eq!(h.pots().iter().map(|p| p.0).sum::<Chips>(), h.pot());
}

#[test]
fn a_new_player_between_the_button_and_the_small_blind_waits_for_the_button() {
    // TDA 8 and 10 (seeds 000, 002, 003): new entries and players from a
    // broken table play at once, except in a seat between the small blind
    // and the button.
    let mut t = table(&[1000; 6]);
    t.ok(Command::RemovePlayer { seat: 4 });
    t.start(level(50, 100), Some(2));
    let h = t.hand();
    assert_eq!((h.button, h.small_blind, h.big_blind), (2, Some(3), 5));
    for s in [6, 1, 2, 3] {
        t.act(s, Fold);
    }
    // A late entry draws seat 4: behind the small blind, before the button
    // gets there.
    t.ok(Command::SeatPlayer {
        seat: 4,
        player: EntryId(200),
        stack: 1000,
        carried: Default::default(),
    });
    let events = t.start(level(50, 100), None);
    let h = t.hand();
    assert_eq!((h.button, h.small_blind, h.big_blind), (3, Some(5), 6));
    assert!(h.player(4).is_none(), "seat 4 waits for the button");
    let Some(TableEvent::HandStarted { stacks, .. }) = events.first() else {
        panic!("{events:?}")
    };
    assert!(stacks.iter().all(|&(s, _)| s != 4), "{stacks:?}");
    for s in [1, 2, 3, 5] {
        t.act(s, Fold);
    }
    assert_eq!(t.stack(4), 1000, "no blind, no ante, no cards");
    // The button has passed: seat 4 is dealt in.
    t.start(level(50, 100), None);
    let h = t.hand();
    assert_eq!((h.button, h.small_blind, h.big_blind), (5, Some(6), 1));
    assert!(h.player(4).is_some());
}

#[test]
fn a_new_player_who_draws_the_big_blind_plays_at_once() {
    // TDA 10: a reseated player may land in any position, the blinds too.
    let mut t = table(&[1000; 6]);
    t.ok(Command::RemovePlayer { seat: 6 });
    t.start(level(50, 100), Some(3));
    let h = t.hand();
    assert_eq!((h.button, h.small_blind, h.big_blind), (3, Some(4), 5));
    for s in [1, 2, 3, 4] {
        t.act(s, Fold);
    }
    t.ok(Command::SeatPlayer {
        seat: 6,
        player: EntryId(200),
        stack: 1000,
        carried: Default::default(),
    });
    t.start(level(50, 100), None);
    let h = t.hand();
    assert_eq!((h.button, h.small_blind, h.big_blind), (4, Some(5), 6));
    assert!(h.player(6).is_some());
    assert_eq!(t.stack(6), 900);
}

/// Seed 003 ("Dealer e blinds", 1): "A organização sorteará o assento onde
/// começará o botão de dealer inicial do torneio." Given a new table, when
/// the button is drawn, then each player gets a card from the deck the
/// seed shuffles, the highest card takes the button (spades over hearts
/// over diamonds over clubs at equal rank), the first hand is dealt with
/// it, the draw is checked from its seed, and it is drawn only once.
#[test]
fn the_first_button_is_drawn_by_high_card_and_recorded_with_its_draw() {
    let mut t = table(&[1000, 1000, 1000, 1000]);
    let seed = felt_cards::Seed::from_u64(11);
    let events = t.ok(Command::DrawButton { seed });
    let [TableEvent::ButtonDrawn { cards, button, .. }] = &events[..] else {
        panic!("{events:?}")
    };
    let deck = felt_cards::Deck::shuffled(seed);
    let expected: Vec<(Seat, felt_cards::Card)> =
        (1..=4).zip(deck.order().iter().copied()).collect();
    assert_eq!(cards, &expected);
    let highest = cards
        .iter()
        .max_by_key(|(_, c)| (c.rank(), c.suit()))
        .unwrap()
        .0;
    assert_eq!(*button, highest);
    let started = t.start(level(50, 100), None);
    let Some(TableEvent::HandStarted { button: dealt, .. }) = started.first() else {
        panic!("{started:?}")
    };
    assert_eq!(dealt, button);
    assert_eq!(check_deals(&t.log).map(|_| ()), Ok(()));
    assert_eq!(
        t.refused(Command::DrawButton { seed }),
        "the button is drawn once, before the table's first hand"
    );
    // A draw recorded that its seed does not give fails the audit.
    let mut forged = t.log.clone();
    for e in &mut forged {
        if let TableEvent::ButtonDrawn { button, .. } = e {
            *button = if *button == 1 { 2 } else { 1 };
        }
    }
    assert_eq!(check_deals(&forged), Err(DealError::ButtonMismatch));
}
