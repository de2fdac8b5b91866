//! Extreme amounts: stacks, blinds, bets and chips pushed near and past
//! the largest counts. A table holds at most `MAX_CHIPS`; whatever is
//! asked, no command panics, a refused one changes nothing, and no chip
//! vanishes through arithmetic (counted here in 128 bits, where nothing
//! wraps).

use felt_cards::Seed;
use felt_table::*;
use proptest::prelude::*;

/// An amount from the edges: small, around the table's bound, or the
/// largest counts there are.
fn extreme(k: u64) -> Chips {
    match k % 8 {
        0 => 1 + k / 8 % 1_000,
        1 => MAX_CHIPS / 10,
        2 => MAX_CHIPS / 3 + k % 7,
        3 => MAX_CHIPS,
        4 => MAX_CHIPS + 1,
        5 => u64::MAX / 2,
        6 => u64::MAX - k / 8 % 3,
        _ => u64::MAX,
    }
}

/// Every chip at the table, counted without wrapping.
fn chips(state: &TableState) -> u128 {
    let behind: u128 = state
        .seats()
        .iter()
        .flatten()
        .map(|s| u128::from(s.stack))
        .sum();
    let pot = state.hand().map_or(0, |h| {
        h.players
            .iter()
            .flatten()
            .map(|p| u128::from(p.total))
            .sum::<u128>()
            - u128::from(h.awarded)
    });
    behind + pot
}

fn command(state: &TableState, choice: u64) -> Command {
    let Some(h) = &state.hand() else {
        // Mostly blinds of a real level, sometimes the extremes.
        let bb = if choice.is_multiple_of(4) {
            extreme(choice / 3)
        } else {
            2 + choice / 3 % 1_000
        };
        let level = Level {
            small_blind: bb / 2,
            big_blind: bb,
            ante: if choice.is_multiple_of(2) { bb } else { 0 },
            ante_format: if choice.is_multiple_of(2) {
                AnteFormat::BigBlind
            } else {
                AnteFormat::None
            },
            smallest_chip: 1,
        };
        return Command::StartHand {
            level,
            deal: Deal::Digital {
                seed: Seed::from_u64(choice),
            },
            button: None,
        };
    };
    let seat = h.to_act.unwrap_or(1);
    let amount = extreme(choice / 5);
    match choice % 6 {
        0 => Command::Act {
            seat,
            action: PlayerAction::Raise { to: amount },
        },
        1 => Command::Act {
            seat,
            action: PlayerAction::Bet { to: amount },
        },
        2 => Command::Act {
            seat,
            action: PlayerAction::AllIn,
        },
        3 => Command::PushChips {
            seat,
            chips: vec![amount, extreme(choice / 7), u64::MAX],
            declaration: None,
            in_front: Some(vec![u64::MAX]),
        },
        4 => Command::PushChips {
            seat,
            chips: vec![amount],
            declaration: Some(Declaration::Amount(extreme(choice / 11))),
            in_front: None,
        },
        _ => Command::Act {
            seat,
            action: PlayerAction::Call,
        },
    }
}

fn run(stacks: Vec<u64>, choices: Vec<u64>) -> Result<Vec<TableEvent>, TestCaseError> {
    let mut state = TableState::default();
    let mut log = Vec::new();
    let open = Command::OpenTable {
        seats: stacks.len() as u8,
        rules: HouseRules::default(),
    };
    for e in decide(&state, &open).expect("open") {
        state = evolve(state, &e);
        log.push(e);
    }
    let mut seated: u128 = 0;
    for (i, &stack) in stacks.iter().enumerate() {
        let seat = Command::SeatPlayer {
            seat: i as Seat + 1,
            player: EntryId(i as u64),
            stack,
            carried: Default::default(),
        };
        match decide(&state, &seat) {
            Ok(events) => {
                seated += u128::from(stack);
                prop_assert!(seated <= u128::from(MAX_CHIPS), "{seated} chips at a table");
                for e in events {
                    state = evolve(state, &e);
                    log.push(e);
                }
            }
            Err(Rejection::TooManyChips { total, max, .. }) => {
                prop_assert_eq!(total, seated + u128::from(stack));
                prop_assert!(total > u128::from(max));
            }
            Err(other) => prop_assert!(false, "seating {} refused: {}", stack, other),
        }
    }
    for choice in choices {
        let cmd = command(&state, choice);
        let before = state.clone();
        match decide(&state, &cmd) {
            Ok(events) => {
                for e in events {
                    state = evolve(state, &e);
                    log.push(e);
                }
            }
            Err(e) => {
                prop_assert!(!e.to_string().is_empty());
                prop_assert_eq!(&state, &before, "a refusal changes nothing");
            }
        }
        prop_assert_eq!(chips(&state), seated, "no chip vanishes");
    }
    let awards = check_awards(&log);
    prop_assert!(awards.is_ok(), "{:?}", awards);
    Ok(log)
}

#[test]
fn hands_with_the_largest_stacks_are_played_to_the_end() {
    // The generator is worth something only if such hands finish: six
    // stacks that fill the table, all in, to one player holding every chip.
    let choices: Vec<u64> = (0..3000u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 7)
        .collect();
    let log = run(vec![MAX_CHIPS / 6; 6], choices).unwrap();
    let ended = log
        .iter()
        .filter(|e| matches!(e, TableEvent::HandEnded { .. }))
        .count();
    let all_in = log
        .iter()
        .filter(|e| matches!(e, TableEvent::ActionTaken { all_in: true, .. }))
        .count();
    assert!(
        ended >= 1 && all_in >= 5,
        "{ended} hands ended, {all_in} all in"
    );
    let state = replay(&log);
    let stacks: Vec<Chips> = state.seats().iter().flatten().map(|s| s.stack).collect();
    assert_eq!(stacks.iter().filter(|s| **s > 0).count(), 1, "{stacks:?}");
    assert_eq!(stacks.iter().max(), Some(&(MAX_CHIPS / 6 * 6)));
}

#[test]
fn two_stacks_of_the_largest_count_are_refused_and_nothing_vanishes() {
    // The probe: blinds and stacks of 2^64 - 1 made two stacks' worth of
    // chips vanish in one hand.
    let mut state = TableState::default();
    for e in decide(
        &state,
        &Command::OpenTable {
            seats: 2,
            rules: HouseRules::default(),
        },
    )
    .unwrap()
    {
        state = evolve(state, &e);
    }
    let big = Command::SeatPlayer {
        seat: 1,
        player: EntryId(1),
        stack: u64::MAX,
        carried: Default::default(),
    };
    assert_eq!(
        decide(&state, &big),
        Err(Rejection::TooManyChips {
            stack: u64::MAX,
            total: u128::from(u64::MAX),
            max: MAX_CHIPS,
        })
    );
    let level = Level::blinds(u64::MAX / 2, u64::MAX);
    let start = Command::StartHand {
        level,
        deal: Deal::Digital {
            seed: Seed::from_u64(1),
        },
        button: None,
    };
    for (seat, player) in [(1, 1), (2, 2)] {
        let seat = Command::SeatPlayer {
            seat,
            player: EntryId(player),
            stack: MAX_CHIPS / 2,
            carried: Default::default(),
        };
        for e in decide(&state, &seat).unwrap() {
            state = evolve(state, &e);
        }
    }
    assert!(matches!(
        decide(&state, &start),
        Err(Rejection::InvalidLevel { .. })
    ));
    assert_eq!(chips(&state), u128::from(MAX_CHIPS));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn extreme_amounts_never_wrap(
        stacks in prop::collection::vec(any::<u64>().prop_map(extreme), 2..=10),
        choices in prop::collection::vec(any::<u64>(), 1..200),
    ) {
        run(stacks, choices)?;
    }
}
