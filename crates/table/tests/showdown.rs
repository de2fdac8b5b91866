//! The showdown (seed 000, TDA 12–18, 21) and the floor's rulings on pots
//! (TDA 15, 35, 65), as given events / when command / then events or
//! rejection.

mod common;

use common::*;
use felt_cards::{Card, Hand, HandRank, Seed};
use felt_table::*;

use PlayerAction::*;

fn digital(n: u64) -> Deal {
    Deal::Digital {
        seed: Seed::from_u64(n),
    }
}

fn rule(ruling: Ruling, reason: &str) -> Command {
    Command::Rule {
        ruling,
        reason: reason.into(),
    }
}

fn rank(board: &[Card], hole: [Card; 2]) -> HandRank {
    board
        .iter()
        .chain(hole.iter())
        .fold(Hand::EMPTY, |h, &c| h.with(c))
        .rank()
}

/// What the showdown recorded: each seat tabled (with its cards) or
/// mucked, in order.
fn showdown(events: &[TableEvent]) -> Vec<(Seat, Option<[Card; 2]>)> {
    events
        .iter()
        .filter_map(|e| match e {
            TableEvent::CardsShown { seat, cards } => Some((*seat, Some(*cards))),
            TableEvent::CardsMucked { seat } => Some((*seat, None)),
            _ => None,
        })
        .collect()
}

fn board_of(events: &[TableEvent]) -> Vec<Card> {
    events
        .iter()
        .filter_map(|e| match e {
            TableEvent::StreetDealt { cards, .. } => Some(cards.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

/// Given: three players at a physical deal who see a river with 300 in
/// the pot (button 3, blinds 50/100, everyone calls and checks).
fn at_the_river() -> Table {
    let mut t = table(&[1000, 1000, 1000]);
    t.start(level(50, 100), Some(3));
    t.act(3, Call);
    t.act(1, Call);
    t.act(2, Check);
    for street in ["2c 7d 9h", "Js", "3s"] {
        t.board(street);
        if street != "3s" {
            for s in [1, 2, 3] {
                t.act(s, Check);
            }
        }
    }
    t
}

#[test]
fn a_digital_showdown_without_an_all_in_tables_in_order_and_mucks_what_cannot_win() {
    // TDA 17: "O jogador que fez a última ação agressiva na última rodada de
    // apostas ... será o primeiro a revelar suas cartas. Se não houve
    // apostas ... primeiro assento à esquerda do botão". A digital deal
    // tables a hand only when it can still win; it no longer turns every
    // losing hand face up.
    let mut mucked = 0;
    for seed in 1..40 {
        let mut t = table(&[1000, 1000, 1000]);
        t.ok(Command::StartHand {
            level: level(50, 100),
            deal: digital(seed),
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
        let shown = showdown(&t.log);
        let board = board_of(&t.log);
        assert_eq!(
            shown.len(),
            3,
            "seed {seed}: every live hand tabled or mucked"
        );
        assert_eq!(
            shown.iter().map(|s| s.0).collect::<Vec<_>>(),
            [1, 2, 3],
            "seed {seed}: no bet on the river, the first seat left of the button first"
        );
        let mut best: Option<HandRank> = None;
        for (seat, cards) in shown {
            let dealt = t.log.iter().find_map(|e| match e {
                TableEvent::HoleCardsDealt { cards } => cards.iter().find(|c| c.0 == seat)?.1,
                _ => None,
            });
            let r = rank(&board, dealt.expect("dealt cards"));
            match cards {
                Some(_) => {
                    assert!(
                        best.is_none_or(|b| r >= b),
                        "seed {seed}: seat {seat} tabled a loser"
                    );
                    best = best.max(Some(r));
                }
                None => {
                    assert!(
                        best.is_some_and(|b| r < b),
                        "seed {seed}: seat {seat} mucked a winner"
                    );
                    mucked += 1;
                }
            }
        }
        let total: Chips = (1..=3).map(|s| t.stack(s)).sum();
        assert_eq!(total, 3000);
    }
    assert!(mucked > 0, "some losing hand is mucked unseen");
}

#[test]
fn after_a_river_bet_the_last_aggressor_shows_first() {
    // TDA 17: the last aggressive action on the last street shows first.
    let mut t = table(&[1000, 1000, 1000]);
    t.ok(Command::StartHand {
        level: level(50, 100),
        deal: digital(5),
        button: Some(3),
    });
    t.act(3, Call);
    t.act(1, Call);
    t.act(2, Check);
    for _ in 0..2 {
        for s in [1, 2, 3] {
            t.act(s, Check);
        }
    }
    t.act(1, Check);
    t.act(2, Bet { to: 200 });
    t.act(3, Call);
    t.act(1, Call);
    let shown = showdown(&t.log);
    assert_eq!(shown.first().map(|s| s.0), Some(2));
    assert!(shown[0].1.is_some(), "the aggressor's hand is tabled");
    assert_eq!(
        shown.iter().map(|s| s.0).collect::<Vec<_>>(),
        [2, 3, 1],
        "then each player in turn from the aggressor's left"
    );
}

#[test]
fn at_an_all_in_every_hand_is_tabled_even_after_a_checked_river() {
    // TDA 16, example 3: A is all in preflop, B and C check the river:
    // "todas as mãos devem ser abertas (A, B e C)".
    let mut t = table(&[300, 1000, 1000]);
    t.ok(Command::StartHand {
        level: level(50, 100),
        deal: digital(8),
        button: Some(3),
    });
    t.act(3, Call);
    t.act(1, AllIn);
    t.act(2, Call);
    t.act(3, Call);
    for _ in 0..3 {
        t.act(2, Check);
        t.act(3, Check);
    }
    let shown = showdown(&t.log);
    assert_eq!(shown.len(), 3);
    assert!(shown.iter().all(|s| s.1.is_some()), "{shown:?}");
}

#[test]
fn no_hand_may_be_mucked_when_a_player_is_all_in() {
    // TDA 16: "Nenhum jogador que esteja all-in ou que tenha pago todas as
    // apostas existentes poderá esconder a sua mão sem mostrá-la."
    let mut t = table(&[300, 1000]);
    t.start(level(50, 100), Some(1));
    t.act(1, AllIn);
    t.act(2, Call);
    for street in ["2c 7d 9h", "Js", "3s"] {
        t.board(street);
    }
    for seat in [1, 2] {
        assert_eq!(
            t.refused(Command::Muck { seat }),
            format!(
                "seat {seat} cannot muck: a player is all in and betting is over, so every live hand is tabled (TDA 16)"
            )
        );
    }
    t.show(2, "Ah Ad");
    t.show(1, "Kh Kd");
    assert!(t.state.hand().is_none());
    assert_eq!((t.stack(1), t.stack(2)), (0, 1300));
}

#[test]
fn a_tabled_hand_is_neither_mucked_nor_killed() {
    // TDA 12: "As cartas falam"; TDA 13: "Dealers não podem matar uma mão
    // que foi aberta e mostrada corretamente".
    let mut t = at_the_river();
    t.act(1, Check);
    t.act(2, Check);
    t.act(3, Check);
    t.show(1, "Ah Ad");
    let tabled =
        "seat 1's hand is tabled: the cards speak, it is neither mucked nor killed (TDA 12, 13)";
    assert_eq!(t.refused(Command::Muck { seat: 1 }), tabled);
    assert_eq!(
        t.refused(rule(Ruling::KillHand { seat: 1 }, "slow roll")),
        tabled
    );
}

#[test]
fn the_showdown_order_starts_with_the_river_aggressor_then_goes_clockwise() {
    // TDA 17.
    let mut t = at_the_river();
    t.act(1, Check);
    t.act(2, Bet { to: 200 });
    t.act(3, Call);
    t.act(1, Call);
    assert_eq!(t.state.to_show(), Some(2));
    t.show(2, "Ah Ad");
    assert_eq!(t.state.to_show(), Some(3));
    t.ok(Command::Muck { seat: 3 });
    assert_eq!(t.state.to_show(), Some(1));
    // A hand may be tabled out of turn (spontaneously): it is read.
    let mut t = at_the_river();
    for s in [1, 2, 3] {
        t.act(s, Check);
    }
    assert_eq!(
        t.state.to_show(),
        Some(1),
        "no river bet: left of the button"
    );
    t.show(3, "Kh Kd");
    assert_eq!(t.state.to_show(), Some(1));
}

#[test]
fn a_caller_who_holds_their_cards_may_see_the_hand_they_called() {
    // TDA 18: "qualquer pagador tem o direito inalienável de ter as cartas
    // do agressor abertas a pedido ... uma vez que este pagador ainda esteja
    // com a posse das suas cartas".
    let mut t = at_the_river();
    t.act(1, Bet { to: 200 });
    t.act(2, Call);
    t.act(3, Call);
    // Seat 3 tables, seat 1 (the aggressor) starts to push its cards in.
    t.show(3, "Qh Qd");
    let events = t.ok(Command::AskToSee {
        seat: 2,
        of: 1,
        cards: Some(two("Ah Kd")),
    });
    assert_eq!(
        events,
        [
            TableEvent::ShowAsked { seat: 1, by: 2 },
            TableEvent::CardsShown {
                seat: 1,
                cards: two("Ah Kd")
            }
        ]
    );
    t.ok(Command::Muck { seat: 2 });
    // Queens win: the asked hand was tabled and the cards speak.
    assert!(t.state.hand().is_none());
    assert_eq!(t.stack(3), 700 + 900);
}

#[test]
fn asking_to_see_a_hand_is_a_right_only_of_a_river_caller_holding_cards() {
    // TDA 18: a player who mucked loses the right; with no river bet, any
    // request is the director's discretion.
    let mut t = at_the_river();
    for s in [1, 2, 3] {
        t.act(s, Check);
    }
    assert_eq!(
        t.refused(Command::AskToSee {
            seat: 2,
            of: 1,
            cards: Some(two("Ah Kd"))
        }),
        "seat 2 may not ask to see seat 1's hand: only the last aggressor's hand on the river was called; any other request is the director's to grant (TDA 18)"
    );
    let mut t = at_the_river();
    t.act(1, Bet { to: 200 });
    t.act(2, Call);
    t.act(3, Call);
    t.ok(Command::Muck { seat: 2 });
    assert_eq!(
        t.refused(Command::AskToSee {
            seat: 2,
            of: 1,
            cards: Some(two("Ah Kd"))
        }),
        "seat 2 may not ask to see seat 1's hand: they no longer hold their cards (TDA 18)"
    );
    assert_eq!(
        t.refused(Command::AskToSee {
            seat: 3,
            of: 1,
            cards: None
        }),
        "seat 1's cards are unknown: show them by naming the cards"
    );
}

/// Given: a physical hand where seat 1 is all in for 300 preflop and
/// seats 2 and 3 check it down: a main pot of 900 (seats 1–3) and a side
/// pot of 600 (seats 2 and 3).
fn with_a_side_pot() -> Table {
    let mut t = table(&[300, 1000, 1000]);
    t.start(level(50, 100), Some(3));
    t.act(3, Raise { to: 600 });
    t.act(1, AllIn);
    t.act(2, Call);
    for street in ["2c 7d 9h", "Js", "3s"] {
        t.board(street);
        t.act(2, Check);
        t.act(3, Check);
    }
    t
}

#[test]
fn a_dealer_pushes_each_pot_to_winners_eligible_for_it_split_exactly() {
    // TDA 21: side pots are awarded to the players in them; TDA 20: a
    // split as even as the smallest chip allows.
    let mut t = with_a_side_pot();
    assert_eq!(t.hand().pots(), [(900, vec![1, 2, 3]), (600, vec![2, 3])]);
    assert_eq!(
        t.refused(Command::PushPot {
            pot: 1,
            winners: vec![1]
        }),
        "seat 1 is not eligible for pot 1: the pot goes only to [2, 3] (TDA 21)"
    );
    assert_eq!(
        t.refused(Command::PushPot {
            pot: 2,
            winners: vec![2]
        }),
        "there is no pot 2: the hand has 2 (0 is the main pot)"
    );
    assert_eq!(
        t.refused(Command::PushPot {
            pot: 0,
            winners: vec![2, 2]
        }),
        "a pot is pushed to one or more winners, each named once"
    );
    t.ok(Command::PushPot {
        pot: 1,
        winners: vec![2],
    });
    assert_eq!(
        t.refused(Command::PushPot {
            pot: 1,
            winners: vec![3]
        }),
        "pot 1 is already awarded"
    );
    let events = t.ok(Command::PushPot {
        pot: 0,
        winners: vec![3, 1],
    });
    assert!(matches!(events.last(), Some(TableEvent::HandEnded { .. })));
    assert_eq!(
        t.awards(),
        [(1, 600, vec![(2, 600)]), (0, 900, vec![(1, 450), (3, 450)])]
    );
    assert_eq!((t.stack(1), t.stack(2), t.stack(3)), (450, 1000, 850));
}

#[test]
fn a_pushed_pot_cannot_go_against_the_cards_the_table_knows() {
    // TDA 12: the cards speak, also when an RFID table read them.
    let mut t = table(&[300, 1000, 1000]);
    t.start(level(50, 100), Some(3));
    t.ok(Command::EnterHoleCards {
        seat: 2,
        cards: two("Ah Ad"),
    });
    t.ok(Command::EnterHoleCards {
        seat: 3,
        cards: two("Kc 4h"),
    });
    t.act(3, Raise { to: 600 });
    t.act(1, AllIn);
    t.act(2, Call);
    for street in ["2c 7d 9h", "Js", "3s"] {
        t.board(street);
        t.act(2, Check);
        t.act(3, Check);
    }
    assert_eq!(
        t.refused(Command::PushPot {
            pot: 1,
            winners: vec![3]
        }),
        "seat 2's hand beats seat 3's for pot 1: the cards speak (TDA 12)"
    );
    // A digital deal's cards always speak for themselves.
    let mut t = table(&[1000, 1000]);
    t.ok(Command::StartHand {
        level: level(50, 100),
        deal: digital(3),
        button: Some(1),
    });
    assert_eq!(
        t.refused(Command::PushPot {
            pot: 0,
            winners: vec![1]
        }),
        "a digital deal's pots go by its cards: a dealer pushes pots only in a physical deal (TDA 12)"
    );
}

#[test]
fn the_floor_awards_a_named_pot_only_to_a_player_in_it() {
    // TDA 21; the rest of the hand is settled by the cards.
    let mut t = with_a_side_pot();
    assert_eq!(
        t.refused(rule(Ruling::AwardPot { seat: 1, pot: 1 }, "x")),
        "seat 1 is not eligible for pot 1: the pot goes only to [2, 3] (TDA 21)"
    );
    t.ok(rule(
        Ruling::AwardPot { seat: 3, pot: 1 },
        "seat 2 conceded the side pot",
    ));
    assert_eq!(
        t.refused(rule(Ruling::KillHand { seat: 2 }, "x")),
        "the pots are being awarded: a hand is no longer killed or the deck fouled (TDA 22)"
    );
    t.show(1, "Ah Ad");
    t.show(2, "Kh Kd");
    t.show(3, "Qh Qd");
    assert_eq!(
        t.awards(),
        [(1, 600, vec![(3, 600)]), (0, 900, vec![(1, 900)])]
    );
    assert_eq!((t.stack(1), t.stack(2), t.stack(3)), (900, 400, 1000));
}

#[test]
fn the_floor_awards_a_pot_only_once_it_can_no_longer_grow() {
    // TDA 21: with a side pot still open to bets, no pot is awarded.
    let mut t = table(&[300, 1000, 1000]);
    t.start(level(50, 100), Some(3));
    t.act(3, Raise { to: 600 });
    t.act(1, AllIn);
    t.act(2, Call);
    t.board("2c 7d 9h");
    assert_eq!(
        t.refused(rule(Ruling::AwardPot { seat: 2, pot: 1 }, "x")),
        "pot 1 can still grow: the floor awards a pot once betting is over, or between streets when it is the only pot (TDA 21)"
    );
}

#[test]
fn killing_a_hand_returns_its_bet_nobody_called() {
    // TDA 15: "Se o participante apostou ou aumentou a aposta e esta ainda
    // não foi paga, o aumento será retornado ao participante" (also TDA 65).
    let mut t = at_the_river();
    t.act(1, Bet { to: 300 });
    // Seat 1 throws its cards in the muck thinking it won; they cannot be
    // told apart from the muck.
    let events = t.ok(rule(
        Ruling::KillHand { seat: 1 },
        "mucked before the others acted, cards not recoverable",
    ));
    assert_eq!(
        events[1],
        TableEvent::UncalledBetReturned {
            seat: 1,
            amount: 300
        }
    );
    // Seats 2 and 3 face no bet now.
    assert_eq!(t.to_act(), Some(2));
    assert_eq!(t.hand().current_bet, 0);
    t.act(2, Check);
    t.act(3, Check);
    t.show(2, "Ah Ad");
    t.ok(Command::Muck { seat: 3 });
    assert_eq!((t.stack(1), t.stack(2), t.stack(3)), (900, 1200, 900));

    // Before the flop, the raise goes back and the big blind stays to call.
    let mut t = table(&[1000, 1000, 1000]);
    t.start(level(50, 100), Some(3));
    t.act(3, Raise { to: 400 });
    let events = t.ok(rule(Ruling::KillHand { seat: 3 }, "exposed both cards"));
    assert!(events.contains(&TableEvent::UncalledBetReturned {
        seat: 3,
        amount: 300
    }));
    assert_eq!(t.stack(3), 900);
    assert_eq!(t.hand().current_bet, 100);
    assert_eq!(t.state.options().map(|o| o.to_call), Some(50));
}

#[test]
fn a_fouled_deck_voids_the_hand_even_after_substantial_action() {
    // TDA 35: "Se um baralho corrompido for descoberto, independentemente
    // de AS, a mão será interrompida e todas as apostas serão retornadas."
    let mut t = table(&[1000, 1000, 1000]);
    t.start(level(50, 100), Some(2));
    t.act(2, Fold);
    t.act(3, Fold);
    let second = t.start(level(50, 100), None);
    assert_eq!(t.to_act(), Some(3));
    t.act(3, Raise { to: 300 });
    t.act(1, Call);
    t.act(2, Call);
    t.board("2c 7d 9h");
    t.act(1, Bet { to: 200 });
    assert!(t.hand().substantial_action());
    let events = t.ok(rule(Ruling::FouledDeck, "two aces of spades in the deck"));
    assert_eq!(events[1], TableEvent::HandVoided { number: 2 });
    assert!(matches!(
        events.last(),
        Some(TableEvent::HandEnded { number: 2, busted, .. }) if busted.is_empty()
    ));
    assert_eq!((t.stack(1), t.stack(2), t.stack(3)), (1050, 1000, 950));
    // The next hand is dealt from the same button and blinds.
    let next = t.start(level(50, 100), None);
    let blinds = |events: &[TableEvent]| {
        events.iter().find_map(|e| match e {
            TableEvent::HandStarted {
                button,
                small_blind,
                big_blind,
                ..
            } => Some((*button, *small_blind, *big_blind)),
            _ => None,
        })
    };
    assert_eq!(blinds(&next), blinds(&second));
    assert_eq!(replay(&t.log), t.state);
}
