//! Invariants over random command streams: chips are conserved at every
//! event, the player to act is live, replaying the log gives the live state,
//! and no command panics in any state.

use felt_cards::{Card, Seed};
use felt_table::*;
use proptest::prelude::*;

fn invariants(state: &TableState, total: Chips) -> Result<(), TestCaseError> {
    prop_assert_eq!(state.chips_in_play(), total, "chips are conserved");
    if let Some(h) = &state.hand() {
        if let Some(seat) = h.to_act {
            let p = h.player(seat);
            prop_assert!(
                p.is_some_and(|p| !p.folded && !p.all_in),
                "seat {} to act is live",
                seat
            );
            prop_assert!(state.seat(seat).is_some_and(|s| s.stack > 0));
        }
        if h.awarded == 0 {
            let pots = h.pots();
            prop_assert_eq!(
                pots.iter().map(|p| p.0).sum::<Chips>(),
                h.pot(),
                "the pots add up"
            );
            for (_, eligible) in &pots {
                for seat in eligible {
                    prop_assert!(h.player(*seat).is_some_and(|p| !p.folded));
                }
            }
        }
        for (seat, p) in h.live() {
            prop_assert!(p.street <= p.total);
            prop_assert!(state.seat(seat).is_some());
        }
    }
    Ok(())
}

/// Chips put out by the player to act: denominations, a declaration, and
/// the state of an earlier bet's chips, all chosen by `choice`.
fn push_chips(seat: Seat, choice: u64) -> Command {
    const CHIPS: [Chips; 6] = [5, 25, 25, 100, 100, 500];
    let count = choice / 9 % 5;
    let chips = (0..count)
        .map(|k| CHIPS[(choice / 45 / (k + 1) % 6) as usize])
        .collect();
    let declaration = match choice / 11 % 10 {
        0 => Some(Declaration::Call),
        1 => Some(Declaration::Raise),
        2 => Some(Declaration::AllIn),
        3 => Some(Declaration::Amount(choice % 2000)),
        _ => None,
    };
    let in_front = match choice / 17 % 4 {
        0 => Some(vec![]),
        1 => Some(vec![CHIPS[(choice % 6) as usize]]),
        _ => None,
    };
    Command::PushChips {
        seat,
        chips,
        declaration,
        in_front,
    }
}

/// A misdeal, a floor ruling, a penalty or an action out of turn, chosen
/// by `choice`.
fn ruling(seat: Seat, choice: u64, physical: bool) -> Command {
    let reason = "random ruling".to_string();
    match choice / 9 % 11 {
        10 => Command::AddEntropy {
            entropy: Seed::from_u64(choice),
        },
        7 => Command::Rule {
            ruling: Ruling::FouledDeck,
            reason,
        },
        8 => Command::PushPot {
            pot: (choice / 90 % 3) as usize,
            winners: (0..1 + choice / 270 % 2)
                .map(|k| ((choice / 540 + k) % 11) as Seat)
                .collect(),
        },
        9 => Command::AskToSee {
            seat,
            of: (choice / 90 % 11) as Seat,
            cards: None,
        },
        5 | 6 => Command::ActOutOfTurn {
            seat: (choice / 63 % 11) as Seat,
            action: match choice / 693 % 4 {
                0 => PlayerAction::Fold,
                1 => PlayerAction::Check,
                2 => PlayerAction::Call,
                _ => PlayerAction::Raise {
                    to: choice / 2772 % 3000,
                },
            },
        },
        0 => Command::Misdeal {
            reason,
            deal: if physical {
                Deal::Physical
            } else {
                Deal::Digital {
                    seed: Seed::from_u64(choice),
                }
            },
        },
        1 => Command::Rule {
            ruling: Ruling::KillHand { seat },
            reason,
        },
        2 => Command::Rule {
            ruling: Ruling::AwardPot {
                seat: (choice % 11) as Seat,
                pot: (choice / 99 % 3) as usize,
            },
            reason,
        },
        3 => Command::Rule {
            ruling: Ruling::ForfeitUndercall {
                seat,
                amount: choice / 45 % 500,
            },
            reason,
        },
        _ => Command::Penalize {
            seat,
            player: None,
            penalty: match choice / 45 % 5 {
                0 => Penalty::Warning,
                1 => Penalty::Hands((choice / 225 % 4) as u32),
                2 => Penalty::Next,
                _ => Penalty::Orbits((choice / 45 % 3) as u8),
            },
            reason: "exposed a card".into(),
        },
    }
}

/// A command for this state chosen by `choice`: mostly sensible actions,
/// sometimes nonsense.
fn pick(state: &TableState, choice: u64, physical: bool) -> Command {
    let seat = (choice % 11) as Seat;
    let amount = choice / 7 % 3000;
    let card = |k: u64| Card::from_index((k % 52) as u8).unwrap();
    if choice % 13 == 12 {
        return match choice / 13 % 8 {
            0 => Command::Act {
                seat,
                action: PlayerAction::Raise { to: amount },
            },
            1 => Command::Act {
                seat,
                action: PlayerAction::Bet { to: amount },
            },
            2 => Command::Show {
                seat,
                cards: Some([card(choice), card(choice / 52)]),
            },
            3 => Command::Muck { seat },
            4 => Command::DealBoard {
                cards: (0..choice % 4).map(|k| card(choice / 3 + k)).collect(),
            },
            5 => Command::RemovePlayer { seat },
            6 => Command::SeatPlayer {
                seat,
                player: EntryId(choice % 5),
                stack: amount,
                carried: Default::default(),
            },
            7 if (choice / 104).is_multiple_of(3) => Command::SetAbsent {
                seat,
                absent: choice.is_multiple_of(2),
            },
            // The floor's corrections of chips, between hands or not.
            7 if choice / 104 % 3 == 1 => Command::CorrectStack {
                seat,
                player: state.seat(seat).map_or(EntryId(0), |s| s.player),
                stack: amount,
                concerns: if choice.is_multiple_of(2) {
                    Concerns::Hand(choice / 2 % 4)
                } else {
                    Concerns::Moment("the move".into())
                },
                reason: "miscounted".into(),
            },
            _ => Command::RemoveChips {
                seat,
                player: state.seat(seat).map_or(EntryId(0), |s| s.player),
                amount: amount / 10,
                removal: Removal::Director,
                reason: "hidden".into(),
            },
        };
    }
    let Some(h) = &state.hand() else {
        let bb = 2 + choice % 200;
        let mut level = Level::blinds(bb / 2, bb);
        if choice.is_multiple_of(3) {
            level.ante = 1 + choice % bb;
            level.ante_format = if choice.is_multiple_of(2) {
                AnteFormat::BigBlind
            } else {
                AnteFormat::PerPlayer
            };
        }
        return Command::StartHand {
            level,
            deal: if physical {
                Deal::Physical
            } else if choice.is_multiple_of(4) {
                Deal::Shared {
                    seed: Seed::from_u64(choice),
                }
            } else {
                Deal::Digital {
                    seed: Seed::from_u64(choice),
                }
            },
            button: None,
        };
    };
    if h.phase == Phase::Dealing && !choice.is_multiple_of(7) {
        // A shared deal waits for the table's entropy.
        return Command::AddEntropy {
            entropy: Seed::from_u64(choice / 7),
        };
    }
    if let Some(o) = state.options() {
        if choice % 9 == 7 {
            return push_chips(o.seat, choice);
        }
        if choice % 9 == 8 {
            return ruling(o.seat, choice, physical);
        }
        let action = match choice % 7 {
            0 => PlayerAction::Fold,
            1 | 2 => {
                if o.to_call == 0 {
                    PlayerAction::Check
                } else {
                    PlayerAction::Call
                }
            }
            3 => match (o.min_to, h.current_bet) {
                (Some(to), 0) => PlayerAction::Bet { to },
                (Some(to), _) => PlayerAction::Raise { to },
                _ => PlayerAction::Call,
            },
            4 => PlayerAction::AllIn,
            5 => match (o.min_to, o.max_to) {
                (Some(lo), Some(hi)) if h.current_bet > 0 => PlayerAction::Raise {
                    to: lo + amount % (hi - lo + 1),
                },
                (Some(lo), Some(hi)) => PlayerAction::Bet {
                    to: lo + amount % (hi - lo + 1),
                },
                _ => PlayerAction::Check,
            },
            _ => PlayerAction::Check,
        };
        return Command::Act {
            seat: o.seat,
            action,
        };
    }
    // Physical deal waiting for the dealer: the board, or a show or muck.
    let used: Vec<Card> = h
        .board
        .iter()
        .copied()
        .chain(h.players.iter().flatten().filter_map(|p| p.hole).flatten())
        .collect();
    let fresh: Vec<Card> = Card::all().filter(|c| !used.contains(c)).collect();
    let offset = (choice % 17) as usize;
    let take =
        |n: usize| -> Vec<Card> { fresh.iter().cycle().skip(offset).take(n).copied().collect() };
    if h.phase == Phase::AwaitingBoard && !choice.is_multiple_of(3) {
        let n = h.street.next().map_or(0, |s| s.cards());
        return Command::DealBoard { cards: take(n) };
    }
    let live: Vec<Seat> = h.live().map(|(s, _)| s).collect();
    // (No live hand: a shared deal whose every hand is dead waits for
    // its entropy; any seat's show is refused meanwhile.)
    let seat = live
        .get((choice as usize) % live.len().max(1))
        .copied()
        .unwrap_or(1);
    if choice.is_multiple_of(5) {
        Command::Muck { seat }
    } else {
        let c = take(2);
        Command::Show {
            seat,
            cards: Some([c[0], c[1]]),
        }
    }
}

/// Runs the stream; returns the log.
fn run(
    stacks: Vec<Chips>,
    choices: Vec<u64>,
    physical: bool,
) -> Result<Vec<TableEvent>, TestCaseError> {
    let mut state = TableState::default();
    let mut log = Vec::new();
    let apply = |state: &mut TableState, cmd: &Command, log: &mut Vec<TableEvent>| -> bool {
        match decide(state, cmd) {
            Ok(events) => {
                for e in events {
                    *state = evolve(std::mem::take(state), &e);
                    log.push(e);
                }
                true
            }
            Err(e) => {
                // A rejection names the problem: never empty, lowercase.
                let text = e.to_string();
                assert!(!text.is_empty() && !text.ends_with('.'));
                false
            }
        }
    };
    // Every house's rules keep the invariants.
    let pick_rules = choices.first().copied().unwrap_or(0);
    let open = Command::OpenTable {
        seats: stacks.len() as u8,
        rules: HouseRules {
            substantial_action: if pick_rules % 2 == 0 {
                SubstantialAction::Tda
            } else {
                SubstantialAction::Series
            },
            misdeal_redeal: if pick_rules / 2 % 2 == 0 {
                MisdealRedeal::ExactCopy
            } else {
                MisdealRedeal::AbsentPlay
            },
            reopening: match pick_rules / 4 % 3 {
                0 => Reopening::Cumulative,
                1 => Reopening::Never,
                _ => Reopening::HalfRaise,
            },
            penalty_scale: if pick_rules / 12 % 2 == 0 {
                PenaltyScale::Tda
            } else {
                PenaltyScale::Series
            },
            ..HouseRules::default()
        },
    };
    prop_assert!(apply(&mut state, &open, &mut log));
    for (i, &stack) in stacks.iter().enumerate() {
        let cmd = Command::SeatPlayer {
            seat: i as Seat + 1,
            player: EntryId(1000 + i as u64),
            stack,
            carried: Default::default(),
        };
        prop_assert!(apply(&mut state, &cmd, &mut log));
    }
    let mut total: Chips = stacks.iter().sum();
    for choice in choices {
        let cmd = pick(&state, choice, physical);
        let before = state.clone();
        let seated = match &cmd {
            Command::SeatPlayer { stack, .. } => *stack,
            _ => 0,
        };
        let removed = match &cmd {
            Command::RemovePlayer { seat } => state.seat(*seat).map_or(0, |s| s.stack),
            Command::RemoveChips { amount, .. } => *amount,
            _ => 0,
        };
        // A correction adds or takes what it changes.
        let (seated, removed) = match &cmd {
            Command::CorrectStack { seat, stack, .. } => {
                (*stack, state.seat(*seat).map_or(0, |s| s.stack))
            }
            _ => (seated, removed),
        };
        // `execute` decides and applies in place: the same events, the same
        // state, and nothing changed on a rejection.
        let mut in_place = before.clone();
        let executed = execute(&mut in_place, &cmd);
        let logged = log.len();
        if apply(&mut state, &cmd, &mut log) {
            total = total + seated - removed;
            let executed = executed.ok();
            prop_assert_eq!(executed.as_deref(), Some(&log[logged..]));
        } else {
            prop_assert_eq!(&state, &before, "a rejected command changes nothing");
            prop_assert!(executed.is_err());
        }
        prop_assert_eq!(&in_place, &state);
        invariants(&state, total)?;
    }
    prop_assert_eq!(replay(&log), state, "folding the log gives the live state");
    let deals = check_deals(&log);
    prop_assert!(
        deals.is_ok(),
        "every digital deal follows its seed: {:?}",
        deals
    );
    let awards = check_awards(&log);
    prop_assert!(
        awards.is_ok(),
        "every pot follows from the chips and the cards: {:?}",
        awards
    );
    Ok(log)
}

fn count(log: &[TableEvent], what: fn(&TableEvent) -> bool) -> usize {
    log.iter().filter(|e| what(e)).count()
}

#[test]
fn the_streams_play_real_hands() {
    // The generator is worth something only if hands actually finish.
    let choices: Vec<u64> = (0..8000u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 7)
        .collect();
    for physical in [false, true] {
        let log = run(vec![1500; 6], choices.clone(), physical).unwrap();
        let ended = count(&log, |e| matches!(e, TableEvent::HandEnded { .. }));
        assert!(
            ended >= 10,
            "only {ended} hands ended (physical: {physical})"
        );
        // The rulings are exercised too, not only refused.
        let read = count(&log, |e| matches!(e, TableEvent::ChipsRead { .. }));
        let ruled = count(&log, |e| {
            matches!(
                e,
                TableEvent::FloorRuled { .. }
                    | TableEvent::MisdealDeclared { .. }
                    | TableEvent::PenaltyGiven { .. }
                    | TableEvent::OutOfTurnAction { .. }
            )
        });
        let corrected = count(&log, |e| {
            matches!(
                e,
                TableEvent::StackCorrected { .. } | TableEvent::ChipsRemoved { .. }
            )
        });
        assert!(read >= 10, "only {read} pushes of chips read");
        assert!(corrected >= 1, "no correction of chips taken");
        assert!(ruled >= 3, "only {ruled} rulings");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn digital_hands_keep_every_invariant(
        stacks in prop::collection::vec(1u64..3000, 2..=10),
        choices in prop::collection::vec(any::<u64>(), 1..600),
    ) {
        run(stacks, choices, false)?;
    }

    #[test]
    fn physical_hands_keep_every_invariant(
        stacks in prop::collection::vec(1u64..3000, 2..=10),
        choices in prop::collection::vec(any::<u64>(), 1..600),
    ) {
        run(stacks, choices, true)?;
    }
}
