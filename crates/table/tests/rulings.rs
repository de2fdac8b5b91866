//! Misdeals (TDA 35, 36), floor rulings (TDA 1), penalties (TDA 71) and the
//! deck commitment, as given events / when command / then events.

mod common;

use common::*;
use felt_cards::Seed;
use felt_table::*;

use PlayerAction::*;

fn misdeal(deal: Deal) -> Command {
    Command::Misdeal {
        reason: "two cards exposed in the deal".into(),
        deal,
    }
}

fn digital(n: u64) -> Deal {
    Deal::Digital {
        seed: Seed::from_u64(n),
    }
}

/// Plays the current hand out with everyone folding to the last live hand.
fn fold_around(t: &mut Table) {
    while let Some(seat) = t.to_act() {
        t.act(seat, Fold);
    }
    assert!(t.state.hand().is_none(), "the hand ended");
}

fn started(events: &[TableEvent]) -> Option<(u64, Seat, Option<Seat>, Seat)> {
    events.iter().find_map(|e| match e {
        TableEvent::HandStarted {
            number,
            button,
            small_blind,
            big_blind,
            ..
        } => Some((*number, *button, *small_blind, *big_blind)),
        _ => None,
    })
}

fn killed(events: &[TableEvent]) -> Vec<(Seat, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            TableEvent::HandKilled { seat, reason } => Some((*seat, reason.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_misdeal_before_substantial_action_deals_an_exact_copy() {
    let mut t = table(&[1000, 1000, 1000, 1000]);
    let first = t.start(level(50, 100), Some(4));
    t.act(3, Fold);
    t.act(4, Fold);
    // Two folds are not substantial action (TDA 36).
    let events = t.ok(misdeal(Deal::Physical));
    assert!(matches!(
        &events[0],
        TableEvent::MisdealDeclared { number: 1, reason } if reason == "two cards exposed in the deal"
    ));
    // The same hand number, button and blinds; every player back in.
    assert_eq!(started(&events), started(&first));
    assert_eq!(started(&events), Some((1, 4, Some(1), 2)));
    assert_eq!(t.to_act(), Some(3));
    assert_eq!(t.hand().pot(), 150);
    assert_eq!(t.stack(1) + t.stack(2), 2000 - 150);
    assert_eq!(t.state.chips_in_play(), 4000);
    // The next hand moves the button as if the misdealt hand was one hand.
    fold_around(&mut t);
    let next = t.start(level(50, 100), None);
    assert_eq!(started(&next), Some((2, 1, Some(2), 3)));
    assert_eq!(replay(&t.log), t.state);
}

#[test]
fn no_misdeal_after_substantial_action() {
    let mut t = table(&[1000, 1000, 1000, 1000]);
    t.start(level(50, 100), Some(4));
    t.act(3, Call);
    t.act(4, Fold);
    // A call and a fold: two actions, one putting chips in (TDA 36).
    assert_eq!(
        t.refused(misdeal(Deal::Physical)),
        "a misdeal cannot be declared after substantial action: the hand goes on (TDA 35, 36)"
    );
    let mut t = table(&[1000, 1000, 1000, 1000, 1000]);
    t.start(level(50, 100), Some(5));
    t.act(3, Fold);
    t.act(4, Fold);
    t.act(5, Fold);
    // Any three actions.
    assert!(
        t.refused(misdeal(Deal::Physical))
            .contains("substantial action")
    );
}

#[test]
fn a_digital_re_deal_needs_a_new_seed_and_deals_new_cards() {
    let mut t = table(&[1000, 1000, 1000]);
    t.ok(Command::StartHand {
        level: level(50, 100),
        deal: digital(1),
        button: Some(3),
    });
    let before = t.hand().player(1).unwrap().hole;
    assert_eq!(
        t.refused(misdeal(digital(1))),
        "the re-deal of a misdeal needs a new seed: the old one deals the same cards (TDA 35)"
    );
    t.ok(misdeal(digital(2)));
    assert_ne!(t.hand().player(1).unwrap().hole, before);
    // Both deals follow from their committed seeds.
    assert_eq!(check_deals(&t.log), Ok(2));
}

#[test]
fn the_misdeal_and_its_re_deal_count_once_for_a_penalty_and_the_dead_stay_dead() {
    let mut t = table(&[1000, 1000, 1000, 1000]);
    t.ok(Command::Penalize {
        seat: 4,
        player: None,
        penalty: Penalty::Orbits(1),
        reason: String::new(),
    });
    t.ok(Command::SetAbsent {
        seat: 3,
        absent: true,
    });
    t.start(level(50, 100), Some(1));
    // Seat 3 comes back before the misdeal: its hand stays dead (TDA 35).
    t.ok(Command::SetAbsent {
        seat: 3,
        absent: false,
    });
    let events = t.ok(misdeal(Deal::Physical));
    let dead: Vec<Seat> = killed(&events).into_iter().map(|k| k.0).collect();
    assert_eq!(dead, [3, 4]);
    fold_around(&mut t);
    assert_eq!(t.state.seat(4).unwrap().penalty_hands, 3);
}

#[test]
fn a_penalty_is_one_hand_per_player_at_the_table_times_the_orbits() {
    let mut t = table(&[1000, 1000, 1000]);
    let events = t.ok(Command::Penalize {
        seat: 2,
        player: None,
        penalty: Penalty::Orbits(2),
        reason: String::new(),
    });
    assert_eq!(
        events,
        [TableEvent::PenaltyGiven {
            seat: 2,
            player: EntryId(101),
            hands: 6,
            offence: 1,
            reason: String::new(),
        }]
    );
    let mut button = Some(3);
    for hand in 1..=6 {
        let events = t.start(level(50, 100), button.take());
        // Dealt in, posting when its turn comes, and dead (TDA 71).
        let dead = killed(&events);
        assert_eq!(dead.len(), 1, "hand {hand}");
        assert_eq!(dead[0].0, 2);
        assert!(dead[0].1.contains("TDA 71"));
        fold_around(&mut t);
        assert_eq!(t.state.seat(2).unwrap().penalty_hands, 6 - hand);
    }
    // Seat 2 posted its blinds while away: 2 big and 2 small blinds.
    assert_eq!(t.stack(2), 1000 - 300);
    // Served: seat 2 plays again.
    let events = t.start(level(50, 100), None);
    assert!(killed(&events).is_empty());
}

#[test]
fn a_penalty_needs_a_player_and_an_orbit() {
    let t = table(&[1000, 1000]);
    assert_eq!(
        t.refused(Command::Penalize {
            seat: 1,
            player: None,
            penalty: Penalty::Orbits(0),
            reason: String::new(),
        }),
        "a penalty is at least one hand or one orbit"
    );
    let mut t = table(&[1000, 1000, 1000]);
    t.ok(Command::RemovePlayer { seat: 3 });
    assert_eq!(
        t.refused(Command::Penalize {
            seat: 3,
            player: None,
            penalty: Penalty::Orbits(1),
            reason: String::new(),
        }),
        "seat 3 is empty"
    );
}

#[test]
fn the_floor_kills_a_hand_with_a_reason() {
    let mut t = table(&[1000, 1000, 1000]);
    t.start(level(50, 100), Some(3));
    let events = t.ok(Command::Rule {
        ruling: Ruling::KillHand { seat: 1 },
        reason: "exposed a card with action pending".into(),
    });
    assert_eq!(
        events[0],
        TableEvent::FloorRuled {
            ruling: Ruling::KillHand { seat: 1 },
            reason: "exposed a card with action pending".into()
        }
    );
    assert_eq!(
        killed(&events),
        [(
            1,
            "killed by the floor: exposed a card with action pending (TDA 1)".to_string()
        )]
    );
    assert!(t.hand().player(1).unwrap().folded);
    // Seats 2 and 3 play on: the small blind stays in the pot.
    assert_eq!(t.to_act(), Some(3));
    t.act(3, Fold);
    assert!(t.state.hand().is_none());
    assert_eq!(t.stack(2), 1050);
}

#[test]
fn the_floor_awards_a_contested_pot() {
    let mut t = table(&[1000, 1000, 1000]);
    t.start(level(50, 100), Some(3));
    t.act(3, Call);
    t.act(1, Call);
    t.act(2, Check);
    let events = t.ok(Command::Rule {
        ruling: Ruling::AwardPot { seat: 3, pot: 0 },
        reason: "seat 1 and 2 agreed to check it down (collusion)".into(),
    });
    assert!(matches!(events[0], TableEvent::FloorRuled { .. }));
    assert!(events.contains(&TableEvent::PotAwarded {
        pot: 0,
        amount: 300,
        eligible: vec![1, 2, 3],
        shares: vec![Share {
            seat: 3,
            amount: 300,
            rank: None
        }]
    }));
    assert!(t.state.hand().is_none());
    assert_eq!((t.stack(1), t.stack(2), t.stack(3)), (900, 900, 1200));
}

#[test]
fn rulings_need_a_hand_and_a_live_seat() {
    let mut t = table(&[1000, 1000, 1000]);
    assert_eq!(
        t.refused(Command::Rule {
            ruling: Ruling::KillHand { seat: 1 },
            reason: "x".into()
        }),
        "no hand is in progress"
    );
    t.start(level(50, 100), Some(3));
    t.act(3, Fold);
    assert_eq!(
        t.refused(Command::Rule {
            ruling: Ruling::KillHand { seat: 3 },
            reason: "x".into()
        }),
        "seat 3 has no live hand"
    );
}

#[test]
fn when_every_hand_is_dead_every_chip_goes_back() {
    let mut t = table(&[1000, 1000]);
    for seat in [1, 2] {
        t.ok(Command::SetAbsent { seat, absent: true });
    }
    t.start(level(50, 100), Some(1));
    assert!(t.state.hand().is_none());
    assert_eq!((t.stack(1), t.stack(2)), (1000, 1000));
}

#[test]
fn a_deal_that_does_not_follow_its_seed_is_found() {
    let mut t = table(&[1000, 1000, 1000]);
    t.ok(Command::StartHand {
        level: level(50, 100),
        deal: digital(9),
        button: Some(3),
    });
    fold_around(&mut t);
    assert_eq!(check_deals(&t.log), Ok(1));
    // A hole card swapped in the record.
    let mut forged = t.log.clone();
    for e in &mut forged {
        if let TableEvent::HoleCardsDealt { cards } = e {
            let hole = cards[0].1.as_mut().unwrap();
            hole.swap(0, 1);
        }
    }
    let err = check_deals(&forged).unwrap_err().to_string();
    assert!(err.starts_with("hand 1: seat 1's card 1 is"), "{err}");
    // A seed that is not the committed one.
    let mut forged = t.log.clone();
    for e in &mut forged {
        if let TableEvent::HandStarted { deal, .. } = e {
            *deal = digital(10);
        }
    }
    let err = check_deals(&forged).unwrap_err().to_string();
    assert!(err.contains("the seed's commitment is"), "{err}");
}

#[test]
fn an_award_that_does_not_follow_from_the_cards_is_found() {
    // Two players all in before the flop: the showdown decides.
    let mut t = table(&[1000, 1000]);
    t.ok(Command::StartHand {
        level: level(50, 100),
        deal: digital(4),
        button: Some(1),
    });
    t.ok(Command::Act {
        seat: 1,
        action: PlayerAction::AllIn,
    });
    t.ok(Command::Act {
        seat: 2,
        action: PlayerAction::Call,
    });
    assert!(t.state.hand().is_none());
    assert_eq!(check_awards(&t.log), Ok(1));
    // The pot given to the other player in the record.
    let mut forged = t.log.clone();
    for e in &mut forged {
        if let TableEvent::PotAwarded { shares, .. } = e
            && shares.len() == 1
        {
            shares[0].seat = 3 - shares[0].seat;
        }
        if let TableEvent::HandEnded { stacks, .. } = e {
            stacks.reverse();
        }
    }
    let err = check_awards(&forged).unwrap_err().to_string();
    assert!(
        err.starts_with("hand 1, pot 0: the cards give it to seats"),
        "{err}"
    );
    // Chips appearing from nowhere.
    let mut forged = t.log.clone();
    for e in &mut forged {
        if let TableEvent::HandEnded { stacks, .. } = e {
            stacks[0].1 += 5;
        }
    }
    let err = check_awards(&forged).unwrap_err().to_string();
    assert_eq!(err, "hand 1: 2000 chips at the start, 2005 at the end");
}

#[test]
fn out_of_time_facing_a_bet_the_hand_is_dead_otherwise_the_player_checks() {
    let mut t = table(&[1000, 1000, 1000]);
    t.start(level(50, 100), Some(1));
    // Preflop the button (seat 1) faces the big blind: a dead hand.
    let events = t.ok(Command::TimeOut { seat: 1 });
    assert_eq!(events[0], TableEvent::TimedOut { seat: 1 });
    assert!(matches!(
        events[1],
        TableEvent::ActionTaken {
            seat: 1,
            action: ActionTaken::Fold,
            ..
        }
    ));
    t.act(2, Call);
    // The big blind with nothing to call checks.
    let events = t.ok(Command::TimeOut { seat: 3 });
    assert!(matches!(
        events[1],
        TableEvent::ActionTaken {
            seat: 3,
            action: ActionTaken::Check,
            ..
        }
    ));
    assert_eq!(t.to_act(), None, "preflop betting is over");
    assert_eq!(t.hand().pot(), 200);
    assert_eq!(replay(&t.log), t.state);
}

#[test]
fn the_clock_is_called_and_runs_out_only_on_the_player_to_act() {
    let mut t = table(&[1000, 1000, 1000]);
    t.start(level(50, 100), Some(1));
    let events = t.ok(Command::CallClock { seat: 1 });
    assert_eq!(events, vec![TableEvent::ClockCalled { seat: 1 }]);
    assert_eq!(t.to_act(), Some(1), "calling the clock changes no turn");
    assert_eq!(
        t.refused(Command::CallClock { seat: 2 }),
        "the clock runs only on the player to act: seat 1, not seat 2 (TDA 29)"
    );
    assert_eq!(
        t.refused(Command::TimeOut { seat: 3 }),
        "the clock runs only on the player to act: seat 1, not seat 3 (TDA 29)"
    );
    fold_around(&mut t);
    assert_eq!(
        t.refused(Command::TimeOut { seat: 1 }),
        "no hand is in progress"
    );
}

/// Given no table was opened, when any command but opening it comes (a
/// typo'd table id), then it is refused as a table not open — not as a
/// state of play ("no hand is in progress") — and nothing is decided.
#[test]
fn every_command_at_a_table_never_opened_is_refused_as_not_open() {
    let never = TableState::default();
    let commands = [
        Command::Act {
            seat: 1,
            action: Fold,
        },
        Command::ActOutOfTurn {
            seat: 1,
            action: Fold,
        },
        Command::DealBoard { cards: vec![] },
        Command::CallClock { seat: 1 },
        Command::TimeOut { seat: 1 },
        misdeal(digital(1)),
        Command::Muck { seat: 1 },
        Command::RemovePlayer { seat: 1 },
        Command::SeatPlayer {
            seat: 1,
            player: EntryId(1),
            stack: 100,
            carried: Default::default(),
        },
    ];
    for command in commands {
        assert_eq!(
            decide(&never, &command),
            Err(Rejection::TableNotOpen),
            "{command:?}"
        );
    }
}

/// A refusal that applies a rule names it apart from its message, for
/// machines; the message quotes the same rule.
#[test]
fn a_ruling_names_the_rule_it_applies() {
    use felt_vocabulary::Classified;
    let below = Rejection::RaiseBelowMinimum { to: 60, min: 100 };
    assert_eq!(below.rule(), Some("TDA 43"));
    assert!(below.to_string().ends_with("(TDA 43)"));
    let late = Rejection::MisdealTooLate;
    assert_eq!(late.rule(), Some("TDA 35, 36"));
    assert!(late.to_string().ends_with("(TDA 35, 36)"));
    assert_eq!(Rejection::TableNotOpen.rule(), None);
}

fn shared(n: u64) -> Deal {
    Deal::Shared {
        seed: Seed::from_u64(n),
    }
}

fn hole_cards(events: &[TableEvent]) -> Option<Vec<(Seat, Option<[felt_cards::Card; 2]>)>> {
    events.iter().find_map(|e| match e {
        TableEvent::HoleCardsDealt { cards } => Some(cards.clone()),
        _ => None,
    })
}

#[test]
fn a_shared_deal_waits_for_the_tables_entropy_and_neither_side_alone_chooses_the_cards() {
    // The service commits to its secret when the hand starts; the table's
    // device adds entropy after seeing only the commitment; the deck is
    // the secret mixed with it.
    let deal = |secret: u64, entropy: u64| {
        let mut t = table(&[1000, 1000, 1000]);
        let started = t.ok(Command::StartHand {
            level: level(50, 100),
            deal: shared(secret),
            button: Some(3),
        });
        assert!(started.iter().any(|e| matches!(
            e,
            TableEvent::HandStarted { commitment: Some(c), .. } if *c == Seed::from_u64(secret).commitment()
        )));
        assert_eq!(hole_cards(&started), None, "no card before the entropy");
        assert_eq!(t.to_act(), None);
        assert_eq!(
            t.refused(Command::Act {
                seat: 3,
                action: Fold
            }),
            "no player is to act: betting on the preflop is over"
        );
        let events = t.ok(Command::AddEntropy {
            entropy: Seed::from_u64(entropy),
        });
        assert_eq!(
            events[0],
            TableEvent::EntropyAdded {
                entropy: Seed::from_u64(entropy)
            }
        );
        assert_eq!(t.to_act(), Some(3));
        (t, hole_cards(&events).expect("the cards go out"))
    };
    let (mut t, cards) = deal(9, 1);
    let deck = felt_cards::Deck::shuffled(Seed::from_u64(9).mixed(&Seed::from_u64(1)));
    let top = deck.order();
    assert_eq!(
        cards,
        [
            (1, Some([top[0], top[3]])),
            (2, Some([top[1], top[4]])),
            (3, Some([top[2], top[5]]))
        ]
    );
    assert_ne!(deal(9, 2).1, cards, "the same secret, other entropy");
    assert_ne!(deal(8, 1).1, cards, "other secret, the same entropy");
    assert_eq!(
        t.refused(Command::AddEntropy {
            entropy: Seed::from_u64(5)
        }),
        "the table's device already added its entropy to this hand"
    );
    // The secret is revealed as the hand ends, and the deal checks out.
    fold_around(&mut t);
    let n = t.log.len();
    assert_eq!(
        t.log[n - 2],
        TableEvent::SecretRevealed {
            secret: Seed::from_u64(9)
        }
    );
    assert_eq!(check_deals(&t.log), Ok(1));
    let mut forged = t.log.clone();
    forged[n - 2] = TableEvent::SecretRevealed {
        secret: Seed::from_u64(10),
    };
    assert_eq!(
        check_deals(&forged).unwrap_err().to_string(),
        "hand 1: the secret revealed is not the one the hand was dealt from"
    );
    let mut forged = t.log.clone();
    for e in &mut forged {
        if let TableEvent::EntropyAdded { entropy } = e {
            *entropy = Seed::from_u64(2);
        }
    }
    assert!(check_deals(&forged).is_err(), "other entropy, other cards");
    assert_eq!(replay(&t.log), t.state);

    // Entropy has no place in the other deals.
    let mut t = table(&[1000, 1000]);
    t.ok(Command::StartHand {
        level: level(50, 100),
        deal: digital(3),
        button: Some(1),
    });
    assert_eq!(
        t.refused(Command::AddEntropy {
            entropy: Seed::from_u64(5)
        }),
        "entropy is added only to a shared deal, before its cards are dealt"
    );
}

#[test]
fn a_shared_deal_misdealt_is_dealt_again_from_a_new_secret_and_new_entropy() {
    // TDA 35: an exact copy, only the cards new.
    let mut t = table(&[1000, 1000, 1000]);
    t.ok(Command::SetAbsent {
        seat: 2,
        absent: true,
    });
    t.ok(Command::StartHand {
        level: level(50, 100),
        deal: shared(4),
        button: Some(3),
    });
    assert_eq!(
        killed(&t.log).len(),
        1,
        "the absent player's hand is dead before any card"
    );
    t.ok(Command::AddEntropy {
        entropy: Seed::from_u64(1),
    });
    assert_eq!(
        t.refused(misdeal(shared(4))),
        "the re-deal of a misdeal needs a new seed: the old one deals the same cards (TDA 35)"
    );
    let events = t.ok(misdeal(shared(5)));
    assert_eq!(hole_cards(&events), None);
    assert_eq!(killed(&events).len(), 1, "dead again in the re-deal");
    t.ok(Command::AddEntropy {
        entropy: Seed::from_u64(1),
    });
    assert_eq!(t.to_act(), Some(3));
    assert_eq!(check_deals(&t.log), Ok(2));
}
