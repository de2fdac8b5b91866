//! The payout decider: given events, when a command, then events or a refusal.

use felt_payout::EntryId;
use felt_payout::{
    Bust, Command, DealMethod, DealTerms, MoneySettings, PayoutError, PayoutEvent, PayoutState,
    PercentRow, PercentTable, PlaceGroup, SimultaneousBusts, Structure, decide,
};
use felt_vocabulary::PlayerId;
use proptest::prelude::*;

fn given(events: &[PayoutEvent]) -> PayoutState {
    let mut state = PayoutState::default();
    for e in events {
        state.apply(e);
    }
    state
}

/// Runs commands from an empty state, panicking on a refusal; returns the
/// state and every event.
fn run(commands: &[Command]) -> (PayoutState, Vec<PayoutEvent>) {
    let mut state = PayoutState::default();
    let mut all = Vec::new();
    for c in commands {
        let events = decide(&state, c).unwrap_or_else(|e| panic!("{c:?}: {e}"));
        for e in &events {
            state.apply(e);
        }
        all.extend(events);
    }
    (state, all)
}

/// A club tournament with a table paying 50/30/20 for up to 10 entries.
fn configure(rule: SimultaneousBusts) -> Command {
    let mut settings = MoneySettings::club();
    settings.structure = Structure::Percentages(PercentTable {
        rows: vec![PercentRow {
            max_entries: 10,
            basis_points: vec![5000, 3000, 2000],
        }],
        unit: 100,
    });
    Command::Configure {
        name: "Thursday".into(),
        settings,
        busts: rule,
    }
}

fn entries(n: u64) -> Vec<Command> {
    (1..=n)
        .map(|i| Command::RecordEntry {
            entry: EntryId(i),
            player: format!("player-{i}").parse().unwrap(),
        })
        .collect()
}

fn bust(entry: u64, table: u32, starting_stack: u64) -> Bust {
    Bust {
        entry: EntryId(entry),
        table,
        starting_stack,
        by: vec![],
        out: None,
        forfeit: false,
    }
}

/// A bust that seating numbered `out` in the order players went out.
fn numbered(entry: u64, table: u32, starting_stack: u64, out: u32) -> Bust {
    Bust {
        out: Some(out),
        ..bust(entry, table, starting_stack)
    }
}

/// Busts entries one hand at a time (starting stacks of 100).
fn bust_one_by_one(
    state: &mut PayoutState,
    entries: std::ops::RangeInclusive<u64>,
    table: impl Fn(u64) -> u32,
) {
    for e in entries {
        let events = decide(
            state,
            &Command::RecordBusts {
                busts: vec![bust(e, table(e), 100)],
            },
        )
        .unwrap();
        for ev in &events {
            state.apply(ev);
        }
    }
}

fn placed(events: &[PayoutEvent]) -> Vec<(Vec<u64>, u32, u32, Vec<u64>)> {
    events
        .iter()
        .filter_map(|e| match e {
            PayoutEvent::Placed { group, prizes } => Some((
                group.entries.iter().map(|e| e.get()).collect(),
                group.first,
                group.last,
                prizes.iter().map(|p| p.1).collect(),
            )),
            _ => None,
        })
        .collect()
}

fn tournament(n: u64, rule: SimultaneousBusts) -> (PayoutState, Vec<PayoutEvent>) {
    let mut commands = vec![configure(rule)];
    commands.extend(entries(n));
    commands.push(Command::CloseRegistration);
    run(&commands)
}

#[test]
fn closing_registration_fixes_the_pool_and_the_sheet() {
    let (state, events) = tournament(10, SimultaneousBusts::ShareAcrossTables);
    let Some(PayoutEvent::RegistrationClosed { pool, sheet }) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(pool.prize_pool, 40_000);
    assert_eq!(sheet.prizes(), vec![20_000, 12_000, 8_000]);
    assert_eq!(state.remaining(), 10);
    // Then no more entries.
    assert_eq!(
        decide(
            &state,
            &Command::RecordEntry {
                entry: EntryId(11),
                player: "late".parse().unwrap()
            }
        ),
        Err(PayoutError::RegistrationClosed)
    );
}

#[test]
fn an_unregistered_entry_is_refunded_out_of_the_pool() {
    let mut commands = vec![configure(SimultaneousBusts::ShareAcrossTables)];
    commands.extend(entries(11));
    let (state, _) = run(&commands);
    // When entry 4 unregisters, then it leaves the field and the pool.
    let events = decide(&state, &Command::RemoveEntry { entry: EntryId(4) }).unwrap();
    assert_eq!(
        events,
        vec![PayoutEvent::EntryRemoved { entry: EntryId(4) }]
    );
    let mut after = state.clone();
    for e in &events {
        after.apply(e);
    }
    assert_eq!(after.remaining(), 10);
    let closed = decide(&after, &Command::CloseRegistration).unwrap();
    let Some(PayoutEvent::RegistrationClosed { pool, .. }) = closed.last() else {
        panic!("{closed:?}")
    };
    assert_eq!((pool.entries, pool.prize_pool), (10, 40_000));
    // Refused: an entry not in the field, or after registration closed.
    assert_eq!(
        decide(&after, &Command::RemoveEntry { entry: EntryId(4) }),
        Err(PayoutError::NoSuchEntry { entry: EntryId(4) })
    );
    let mut closed_state = after.clone();
    for e in &closed {
        closed_state.apply(e);
    }
    assert_eq!(
        decide(&closed_state, &Command::RemoveEntry { entry: EntryId(5) }),
        Err(PayoutError::RegistrationClosed)
    );
}

#[test]
fn busts_on_one_table_are_placed_by_chips_at_the_start_of_the_hand() {
    let (mut state, _) = tournament(10, SimultaneousBusts::ShareAcrossTables);
    bust_one_by_one(&mut state, 1..=5, |_| 1);
    // Five left: two bust in one hand, the bigger stack finishes higher.
    let events = decide(
        &state,
        &Command::RecordBusts {
            busts: vec![bust(6, 1, 3_000), bust(7, 1, 5_000)],
        },
    )
    .unwrap();
    assert_eq!(
        placed(&events),
        vec![(vec![7], 4, 4, vec![0]), (vec![6], 5, 5, vec![0])]
    );
}

#[test]
fn equal_starting_stacks_share_their_places() {
    let (mut state, _) = tournament(10, SimultaneousBusts::ShareAcrossTables);
    bust_one_by_one(&mut state, 1..=6, |_| 1);
    // Four left, places 3 and 4 pay 80 and 0: two equal stacks bust, each 40.
    let events = decide(
        &state,
        &Command::RecordBusts {
            busts: vec![bust(7, 1, 2_000), bust(8, 1, 2_000)],
        },
    )
    .unwrap();
    assert_eq!(
        placed(&events),
        vec![(vec![7, 8], 3, 4, vec![4_000, 4_000])]
    );
}

#[test]
fn a_hand_for_hand_double_bust_on_the_bubble_shares_the_min_cash() {
    // 10 entries pay 3. Four left; two bust in the same hand-for-hand hand
    // at different tables: they share places 3 and 4 (80 + 0).
    let (mut state, _) = tournament(10, SimultaneousBusts::ShareAcrossTables);
    bust_one_by_one(&mut state, 1..=6, |e| 1 + e as u32 % 2);
    let when = Command::RecordBusts {
        busts: vec![bust(7, 1, 9_000), bust(8, 2, 1_000)],
    };
    let events = decide(&state, &when).unwrap();
    assert_eq!(
        placed(&events),
        vec![(vec![7, 8], 3, 4, vec![4_000, 4_000])]
    );
    // Under seed 003's rule the bigger stack takes 3rd alone.
    let (mut club, _) = tournament(10, SimultaneousBusts::ByStartingStack);
    bust_one_by_one(&mut club, 1..=6, |_| 1);
    let events = decide(&club, &when).unwrap();
    assert_eq!(
        placed(&events),
        vec![(vec![7], 3, 3, vec![8_000]), (vec![8], 4, 4, vec![0])]
    );
}

/// RP8 (seed 002: players out in the same hand-for-hand hand share their
/// places): given one table's hand-for-hand bust held for its round, when
/// another table's hand of the round busts a player too, then both are
/// held; when the round is over, then they are placed together, once.
#[test]
fn hand_for_hand_busts_are_held_for_their_round_then_placed_together() {
    let (mut state, _) = tournament(10, SimultaneousBusts::ShareAcrossTables);
    bust_one_by_one(&mut state, 1..=6, |e| 1 + e as u32 % 2);
    for (table, entry, stack) in [(1, 7, 9_000), (2, 8, 1_000)] {
        let events = decide(
            &state,
            &Command::HoldBusts {
                round: 4,
                busts: vec![bust(entry, table, stack)],
            },
        )
        .unwrap();
        assert!(placed(&events).is_empty(), "{events:?}");
        for e in &events {
            state.apply(e);
        }
    }
    assert_eq!(state.held()[&4].len(), 2);
    assert_eq!(state.remaining(), 4, "held busts are not out yet");
    let events = decide(&state, &Command::PlaceRound { round: 4 }).unwrap();
    assert_eq!(events[0], PayoutEvent::RoundReleased { round: 4 });
    assert_eq!(
        placed(&events),
        vec![(vec![7, 8], 3, 4, vec![4_000, 4_000])]
    );
    for e in &events {
        state.apply(e);
    }
    assert!(state.held().is_empty());
    // Placed once: the round is not held any more.
    assert_eq!(
        decide(&state, &Command::PlaceRound { round: 4 }),
        Err(PayoutError::NoRoundHeld { round: 4 })
    );
}

/// Given a bust held for its hand-for-hand round, when the same entry is
/// reported again outside the round (held or placed), then it is refused,
/// naming the round, and nothing changes.
#[test]
fn a_held_bust_is_placed_with_its_round_only() {
    let (mut state, _) = tournament(10, SimultaneousBusts::ShareAcrossTables);
    let hold = Command::HoldBusts {
        round: 2,
        busts: vec![bust(3, 1, 500)],
    };
    for e in decide(&state, &hold).unwrap() {
        state.apply(&e);
    }
    let refused = PayoutError::HeldForRound {
        entry: EntryId(3),
        round: 2,
    };
    assert_eq!(decide(&state, &hold), Err(refused.clone()));
    assert_eq!(
        decide(
            &state,
            &Command::RecordBusts {
                busts: vec![bust(3, 1, 500)]
            }
        ),
        Err(refused)
    );
    assert_eq!(
        decide(&state, &Command::PlaceRound { round: 3 }),
        Err(PayoutError::NoRoundHeld { round: 3 })
    );
}

#[test]
fn across_tables_each_tables_order_stands_and_equal_ranks_tie() {
    let (mut state, _) = tournament(10, SimultaneousBusts::ShareAcrossTables);
    bust_one_by_one(&mut state, 1..=4, |_| 1);
    // Six left: table 1 busts 5k and 3k, table 2 busts 4k. The best of
    // each table tie for places 4-5; the 3k finishes 6th.
    let events = decide(
        &state,
        &Command::RecordBusts {
            busts: vec![bust(5, 1, 5_000), bust(6, 1, 3_000), bust(7, 2, 4_000)],
        },
    )
    .unwrap();
    let groups: Vec<PlaceGroup> = events
        .iter()
        .filter_map(|e| match e {
            PayoutEvent::Placed { group, .. } => Some(group.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        groups,
        vec![
            PlaceGroup {
                entries: vec![EntryId(5), EntryId(7)],
                first: 4,
                last: 5
            },
            PlaceGroup {
                entries: vec![EntryId(6)],
                first: 6,
                last: 6
            },
        ]
    );
}

#[test]
fn the_last_bust_places_the_winner_and_every_prize_adds_up_to_the_pool() {
    let mut commands = vec![configure(SimultaneousBusts::ShareAcrossTables)];
    commands.extend(entries(10));
    commands.push(Command::CloseRegistration);
    for e in 1..=9 {
        commands.push(Command::RecordBusts {
            busts: vec![bust(e, 1, 100 * e)],
        });
    }
    let (state, events) = run(&commands);
    let results = state.results();
    assert_eq!(results.len(), 10);
    assert_eq!(results[0].0, EntryId(10));
    assert_eq!(results[0].1.place, Some((1, 1)));
    assert_eq!(results[0].1.prize, 20_000);
    assert_eq!(results[1].1.prize, 12_000);
    let paid: u64 = results.iter().map(|r| r.1.prize).sum();
    assert_eq!(paid, 40_000);
    assert!(matches!(events.last(), Some(PayoutEvent::Placed { group, .. }) if group.first == 1));
}

#[test]
fn busts_during_late_registration_are_placed_when_it_closes() {
    let mut commands = vec![configure(SimultaneousBusts::ShareAcrossTables)];
    commands.extend(entries(4));
    commands.push(Command::RecordBusts {
        busts: vec![bust(1, 1, 500)],
    });
    commands.extend((5..=10).map(|i| Command::RecordEntry {
        entry: EntryId(i),
        player: format!("late-{i}").parse().unwrap(),
    }));
    commands.push(Command::RecordBusts {
        busts: vec![bust(2, 1, 700), bust(3, 1, 600)],
    });
    let (state, events) = run(&commands);
    assert!(placed(&events).is_empty());
    assert_eq!(state.remaining(), 7);
    let events = decide(&state, &Command::CloseRegistration).unwrap();
    // Ten entries: the first bust is 10th, then 2 (more chips) 8th and 3 9th.
    assert_eq!(
        placed(&events),
        vec![
            (vec![1], 10, 10, vec![0]),
            (vec![2], 8, 8, vec![0]),
            (vec![3], 9, 9, vec![0]),
        ]
    );
}

#[test]
fn numbered_busts_take_seatings_places_whatever_order_they_arrive_in() {
    // Given ten entries and registration closed, seating put 1 out first,
    // then 2 and 3 in one hand, then 4.
    let mut commands = vec![configure(SimultaneousBusts::ShareAcrossTables)];
    commands.extend(entries(10));
    commands.push(Command::CloseRegistration);
    // When payout hears of them 4 first, then 2 and 3, then 1 (a hand end
    // reported again after a crash, after later ones).
    for busts in [
        vec![numbered(4, 2, 100, 4)],
        vec![numbered(2, 1, 700, 2), numbered(3, 1, 600, 3)],
        vec![numbered(1, 1, 500, 1)],
    ] {
        commands.push(Command::RecordBusts { busts });
    }
    let (_, all) = run(&commands);
    // Then each has the place of its turn out: 1 10th, 3 9th, 2 8th, 4 7th.
    assert_eq!(
        placed(&all),
        vec![
            (vec![4], 7, 7, vec![0]),
            (vec![2], 8, 8, vec![0]),
            (vec![3], 9, 9, vec![0]),
            (vec![1], 10, 10, vec![0]),
        ]
    );
    // Unnumbered, they would have been placed as they came: 4 10th.
    let (plain, _) = tournament(10, SimultaneousBusts::ShareAcrossTables);
    let events = decide(
        &plain,
        &Command::RecordBusts {
            busts: vec![bust(4, 2, 100)],
        },
    )
    .unwrap();
    assert_eq!(placed(&events), vec![(vec![4], 10, 10, vec![0])]);
}

#[test]
fn numbered_busts_waiting_for_registration_to_close_take_seatings_places() {
    let mut commands = vec![configure(SimultaneousBusts::ShareAcrossTables)];
    commands.extend(entries(4));
    // Seating's second bust reaches payout before its first.
    commands.push(Command::RecordBusts {
        busts: vec![numbered(2, 1, 700, 2)],
    });
    commands.extend((5..=10).map(|i| Command::RecordEntry {
        entry: EntryId(i),
        player: format!("late-{i}").parse().unwrap(),
    }));
    commands.push(Command::RecordBusts {
        busts: vec![numbered(1, 1, 500, 1)],
    });
    let (state, _) = run(&commands);
    let events = decide(&state, &Command::CloseRegistration).unwrap();
    assert_eq!(
        placed(&events),
        vec![(vec![2], 9, 9, vec![0]), (vec![1], 10, 10, vec![0])]
    );
}

#[test]
fn a_waiting_bust_whose_number_no_longer_fits_the_field_is_placed_as_it_came() {
    let mut commands = vec![configure(SimultaneousBusts::ShareAcrossTables)];
    commands.extend(entries(4));
    // The 3rd out of four, then two entries unregister: a field of two.
    commands.push(Command::RecordBusts {
        busts: vec![numbered(1, 1, 500, 3)],
    });
    commands.push(Command::RemoveEntry { entry: EntryId(3) });
    commands.push(Command::RemoveEntry { entry: EntryId(4) });
    let (state, _) = run(&commands);
    let events = decide(&state, &Command::CloseRegistration).unwrap();
    assert_eq!(
        placed(&events),
        vec![(vec![1], 2, 2, vec![2_400]), (vec![2], 1, 1, vec![5_600])]
    );
}

#[test]
fn a_bust_numbered_wrongly_is_refused_and_changes_nothing() {
    let mut commands = vec![configure(SimultaneousBusts::ShareAcrossTables)];
    commands.extend(entries(10));
    commands.push(Command::CloseRegistration);
    commands.push(Command::RecordBusts {
        busts: vec![numbered(1, 1, 100, 1)],
    });
    let (state, _) = run(&commands);
    let before = state.clone();
    let refused = |busts: Vec<Bust>| {
        decide(&state, &Command::RecordBusts { busts })
            .unwrap_err()
            .to_string()
    };
    // The place the number gives is taken.
    assert_eq!(
        refused(vec![numbered(2, 1, 100, 1)]),
        "place 10 is entry 1's already: entry 2 cannot finish there"
    );
    // Numbered and unnumbered busts in one hand.
    assert_eq!(
        refused(vec![numbered(2, 1, 100, 2), bust(3, 1, 100)]),
        "the busts of one hand carry their number in the order players went out, all or none"
    );
    // No place is left: the 9th and 10th out of ten would leave nobody.
    assert_eq!(
        refused(vec![numbered(2, 1, 100, 9), numbered(3, 1, 200, 10)]),
        "entry 2 is number 9 out of a field of 10: no place is left for it"
    );
    assert_eq!(
        refused(vec![numbered(2, 1, 100, 0)]),
        "entry 2 is number 0 out of a field of 10: no place is left for it"
    );
    assert_eq!(state, before);
}

#[test]
fn a_deal_needs_every_players_consent_and_replaces_the_prizes() {
    let mut commands = vec![configure(SimultaneousBusts::ShareAcrossTables)];
    commands.extend(entries(10));
    commands.push(Command::CloseRegistration);
    for e in 1..=7 {
        commands.push(Command::RecordBusts {
            busts: vec![bust(e, 1, 100)],
        });
    }
    let (mut state, _) = run(&commands);
    let terms = DealTerms {
        players: vec![
            (EntryId(8), 50_000),
            (EntryId(9), 30_000),
            (EntryId(10), 20_000),
        ],
        method: DealMethod::ChipChop,
        play_for: 1_000,
    };
    // A deal missing a player is refused.
    let short = DealTerms {
        players: terms.players[..2].to_vec(),
        ..terms.clone()
    };
    assert_eq!(
        decide(&state, &Command::ProposeDeal { terms: short }),
        Err(PayoutError::DealParties { remaining: 3 })
    );
    for c in [
        Command::ProposeDeal { terms },
        Command::ConsentToDeal { entry: EntryId(8) },
        Command::ConsentToDeal { entry: EntryId(9) },
    ] {
        for e in decide(&state, &c).unwrap() {
            state.apply(&e);
        }
    }
    assert_eq!(
        decide(&state, &Command::ConsentToDeal { entry: EntryId(9) }),
        Err(PayoutError::AlreadyConsented { entry: EntryId(9) })
    );
    assert_eq!(
        decide(&state, &Command::ConsentToDeal { entry: EntryId(1) }),
        Err(PayoutError::NotInDeal { entry: EntryId(1) })
    );
    let events = decide(&state, &Command::ConsentToDeal { entry: EntryId(10) }).unwrap();
    assert!(matches!(events.last(), Some(PayoutEvent::DealMade { .. })));
    for e in &events {
        state.apply(e);
    }
    // 400 to be won, 10 left to play for: each the last prize of 80, and
    // the other 150 by chips (50/30/20 of 100k): 155, 125, 110; the
    // winner also takes the 10 played for.
    for c in [
        Command::RecordBusts {
            busts: vec![bust(10, 1, 20_000)],
        },
        Command::RecordBusts {
            busts: vec![bust(9, 1, 30_000)],
        },
    ] {
        for e in decide(&state, &c).unwrap() {
            state.apply(&e);
        }
    }
    let prizes: Vec<(u64, u64)> = state
        .results()
        .iter()
        .map(|(id, e)| (id.get(), e.prize))
        .take(3)
        .collect();
    assert_eq!(prizes, vec![(8, 15_500 + 1_000), (9, 12_500), (10, 11_000)]);
    let paid: u64 = state.results().iter().map(|r| r.1.prize).sum();
    assert_eq!(paid, 40_000);
}

#[test]
fn progressive_knockouts_pay_half_and_put_half_on_the_winners_head() {
    let mut settings = MoneySettings::club();
    settings.bounty = 2_000;
    settings.progressive = true;
    let mut commands = vec![Command::Configure {
        name: "PKO".into(),
        settings,
        busts: SimultaneousBusts::ShareAcrossTables,
    }];
    commands.extend(entries(3));
    commands.push(Command::CloseRegistration);
    commands.push(Command::RecordBusts {
        busts: vec![Bust {
            entry: EntryId(1),
            table: 1,
            starting_stack: 10,
            by: vec![EntryId(2)],
            out: None,
            forfeit: false,
        }],
    });
    commands.push(Command::RecordBusts {
        busts: vec![Bust {
            entry: EntryId(3),
            table: 1,
            starting_stack: 10,
            by: vec![EntryId(2)],
            out: None,
            forfeit: false,
        }],
    });
    let (state, events) = run(&commands);
    // 2 collects 1,000 from each, and wins their own head: 2,000 + 1,000 + 1,000.
    let e2 = &state.entries()[&EntryId(2)];
    assert_eq!(e2.bounties_won, 1_000 + 1_000 + 4_000);
    let total: u64 = state.entries().values().map(|e| e.bounties_won).sum();
    assert_eq!(total, 3 * 2_000, "every bounty paid once: {events:?}");
}

#[test]
fn refusals_name_the_problem_and_change_nothing() {
    let (state, _) = tournament(10, SimultaneousBusts::ShareAcrossTables);
    let before = state.clone();
    let cases = [
        (
            Command::RecordBusts {
                busts: vec![bust(99, 1, 1)],
            },
            "no entry 99",
        ),
        (
            Command::RecordBusts {
                busts: vec![bust(1, 1, 1), bust(1, 1, 1)],
            },
            "entry 1 is already out",
        ),
        (
            Command::RecordBusts {
                busts: (1..=10).map(|e| bust(e, 1, 1)).collect(),
            },
            "10 players remain: at least one must keep chips",
        ),
        (Command::CloseRegistration, "registration is closed"),
        (
            Command::ConsentToDeal { entry: EntryId(1) },
            "no deal is proposed",
        ),
        (
            Command::RecordAddOn { entry: EntryId(1) },
            "this tournament has no add-ons",
        ),
    ];
    for (command, message) in cases {
        assert_eq!(decide(&state, &command).unwrap_err().to_string(), message);
    }
    assert_eq!(state, before);
    assert_eq!(
        decide(&PayoutState::default(), &Command::CloseRegistration),
        Err(PayoutError::NotConfigured)
    );
    let dup = given(&[
        PayoutEvent::Configured {
            name: state.name().into(),
            settings: state.settings().unwrap().clone(),
            busts: state.rule(),
        },
        PayoutEvent::EntryRecorded {
            entry: EntryId(1),
            player: "a".parse().unwrap(),
        },
    ]);
    assert_eq!(
        decide(
            &dup,
            &Command::RecordEntry {
                entry: EntryId(1),
                player: "a".parse().unwrap()
            }
        ),
        Err(PayoutError::DuplicateEntry { entry: EntryId(1) })
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_bust_order_gives_every_entry_one_place_and_pays_the_pool_exactly(
        n in 2u64..400,
        seed in any::<u64>(),
        share in any::<bool>(),
    ) {
        let rule = if share { SimultaneousBusts::ShareAcrossTables } else { SimultaneousBusts::ByStartingStack };
        let mut commands = vec![Command::Configure {
            name: "field".into(),
            settings: MoneySettings::generated(10_000, 1_000),
            busts: rule,
        }];
        commands.extend(entries(n));
        commands.push(Command::CloseRegistration);
        let (mut state, _) = run(&commands);
        let mut alive: Vec<u64> = (1..=n).collect();
        let mut x = seed | 1;
        let mut next = || { x ^= x << 13; x ^= x >> 7; x ^= x << 17; x };
        while alive.len() > 1 {
            let k = 1 + (next() as usize % 3).min(alive.len() - 2);
            let busts: Vec<Bust> = (0..k).map(|_| {
                let i = next() as usize % alive.len();
                let e = alive.swap_remove(i);
                bust(e, (next() % 3) as u32, next() % 4 * 1_000)
            }).collect();
            for e in decide(&state, &Command::RecordBusts { busts }).unwrap() {
                state.apply(&e);
            }
        }
        let results = state.results();
        prop_assert_eq!(results.len() as u64, n);
        let paid: u64 = results.iter().map(|r| r.1.prize).sum();
        prop_assert_eq!(paid, state.pool().unwrap().prize_pool);
        // Places cover 1..=n: each shared range holds as many entries as places.
        let mut count = vec![0u32; n as usize + 1];
        for (_, e) in &results {
            let (first, last) = e.place.unwrap();
            for p in first..=last { count[p as usize] += 1; }
        }
        for (p, &c) in count.iter().enumerate().skip(1) {
            prop_assert!(c >= 1, "place {} unfilled", p);
        }
        // A better place never wins less, unless shared.
        for w in results.windows(2) {
            prop_assert!(w[0].1.prize + 1 >= w[1].1.prize);
        }
    }
}

#[test]
fn many_busts_during_late_registration_are_placed_in_order_a_few_hundred_at_a_time() {
    let mut commands = vec![Command::Configure {
        name: "big".into(),
        settings: MoneySettings::generated(10_000, 1_000),
        busts: SimultaneousBusts::ShareAcrossTables,
    }];
    commands.extend(entries(1_000));
    for e in 1..=500 {
        commands.push(Command::RecordBusts {
            busts: vec![bust(e, 1, 100)],
        });
    }
    let (mut state, _) = run(&commands);
    let first = decide(&state, &Command::CloseRegistration).unwrap();
    assert_eq!(placed(&first).len(), felt_payout::PLACED_PER_DECISION);
    for e in &first {
        state.apply(e);
    }
    // A bust now waits its turn behind the late-registration ones.
    let late = decide(
        &state,
        &Command::RecordBusts {
            busts: vec![bust(999, 2, 100)],
        },
    )
    .unwrap();
    assert!(placed(&late).is_empty());
    for e in &late {
        state.apply(e);
    }
    while !state.waiting().is_empty() {
        for e in decide(&state, &Command::PlaceWaiting).unwrap() {
            state.apply(&e);
        }
    }
    assert_eq!(
        decide(&state, &Command::PlaceWaiting),
        Err(PayoutError::NothingWaiting)
    );
    // The k-th bust finishes 1,000 - k + 1.
    assert_eq!(state.entries()[&EntryId(1)].place, Some((1_000, 1_000)));
    assert_eq!(state.entries()[&EntryId(500)].place, Some((501, 501)));
    assert_eq!(state.entries()[&EntryId(999)].place, Some((500, 500)));
}

#[test]
fn many_entries_at_once_are_recorded_all_or_none() {
    let (state, _) = run(&[configure(SimultaneousBusts::ShareAcrossTables)]);
    let entries: Vec<(EntryId, PlayerId)> = (1..=3)
        .map(|i| (EntryId(i), format!("p{i}").parse().unwrap()))
        .collect();
    let events = decide(&state, &Command::RecordEntries { entries }).unwrap();
    assert_eq!(events.len(), 3);
    let mut after = state.clone();
    for e in &events {
        after.apply(e);
    }
    assert_eq!(after.remaining(), 3);
    // One already recorded: refused, nothing recorded.
    let twice = vec![
        (EntryId(4), "p4".parse().unwrap()),
        (EntryId(2), "p2".parse().unwrap()),
    ];
    assert_eq!(
        decide(&after, &Command::RecordEntries { entries: twice }),
        Err(PayoutError::DuplicateEntry { entry: EntryId(2) })
    );
}

/// A disqualified entry, as seating hands it over: out of the field in no
/// hand, won by nobody.
fn disqualified(entry: u64, forfeit: bool) -> Bust {
    Bust {
        entry: EntryId(entry),
        table: 1,
        starting_stack: 0,
        by: vec![],
        out: None,
        forfeit,
    }
}

/// Seed 000 rule 71 leaves a disqualified player's place to the house.
/// Given 10 entries paying three places, when the director disqualifies
/// entry 5 with three left under the house rule that places them nowhere,
/// then third place is left empty and its prize forfeited, the next out
/// finishes second, and the prizes paid and forfeited make the pool.
#[test]
fn a_disqualified_entry_placed_nowhere_forfeits_the_place_it_stood_in() {
    let (mut state, _) = tournament(10, SimultaneousBusts::ShareAcrossTables);
    let apply = |state: &mut PayoutState, c: Command| {
        let events = decide(state, &c).unwrap_or_else(|e| panic!("{c:?}: {e}"));
        for e in &events {
            state.apply(e);
        }
        events
    };
    for e in [1, 2, 3, 4, 6, 7, 8] {
        apply(
            &mut state,
            Command::RecordBusts {
                busts: vec![bust(e, 1, 100)],
            },
        );
    }
    let events = apply(
        &mut state,
        Command::RecordBusts {
            busts: vec![disqualified(5, true)],
        },
    );
    assert_eq!(
        events,
        vec![PayoutEvent::PlaceForfeited {
            entry: EntryId(5),
            place: 3,
            prize: 8_000,
        }]
    );
    assert_eq!(state.entry(EntryId(5)).unwrap().place, None);
    let events = apply(
        &mut state,
        Command::RecordBusts {
            busts: vec![bust(9, 1, 100)],
        },
    );
    let places: Vec<(u32, Vec<EntryId>)> = events
        .iter()
        .filter_map(|e| match e {
            PayoutEvent::Placed { group, .. } => Some((group.first, group.entries.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(places, vec![(2, vec![EntryId(9)]), (1, vec![EntryId(10)])]);
    let paid: u64 = state.entries().values().map(|e| e.prize).sum();
    assert_eq!((paid, state.forfeited()), (32_000, 8_000));
}

/// The default house rule places a disqualified entry as they stand and
/// pays them; a bounty on their head, won by nobody, is forfeited.
#[test]
fn a_disqualified_entry_placed_as_they_stand_is_paid_and_forfeits_their_bounty() {
    let mut settings = MoneySettings::club();
    settings.bounty = 2_000;
    let mut commands = vec![Command::Configure {
        name: "KO".into(),
        settings,
        busts: SimultaneousBusts::ShareAcrossTables,
    }];
    commands.extend(entries(3));
    commands.push(Command::CloseRegistration);
    commands.push(Command::RecordBusts {
        busts: vec![disqualified(2, false)],
    });
    let (state, events) = run(&commands);
    assert!(events.contains(&PayoutEvent::BountyForfeited {
        entry: EntryId(2),
        amount: 2_000
    }));
    assert_eq!(state.entry(EntryId(2)).unwrap().place, Some((3, 3)));
    assert_eq!(state.forfeited(), 2_000);
}

/// Issue 27's add-on after the close: given a fixed pool, when an entry
/// buys the add-on, then the pool and the pay sheet grow with its price,
/// the places paid the same; once anyone has been paid a prize, the pool
/// no longer grows and the add-on is refused.
#[test]
fn an_add_on_after_the_close_grows_the_pool_until_the_money() {
    let Command::Configure {
        name,
        mut settings,
        busts,
    } = configure(SimultaneousBusts::ShareAcrossTables)
    else {
        unreachable!()
    };
    settings.add_on = 2_000;
    let mut commands = vec![Command::Configure {
        name,
        settings,
        busts,
    }];
    commands.extend(entries(10));
    commands.push(Command::CloseRegistration);
    let (mut state, _) = run(&commands);
    let before = state.pool().unwrap().prize_pool;
    let paid = state.sheet().unwrap().paid();
    let events = decide(&state, &Command::RecordAddOn { entry: EntryId(4) }).unwrap();
    let [
        PayoutEvent::AddOnRecorded { entry },
        PayoutEvent::PoolGrown { pool, sheet },
    ] = events.as_slice()
    else {
        panic!("{events:?}")
    };
    assert_eq!(*entry, EntryId(4));
    assert_eq!(pool.prize_pool, before + 2_000);
    assert_eq!(sheet.paid(), paid);
    for e in &events {
        state.apply(e);
    }
    assert_eq!(state.pool().unwrap().prize_pool, before + 2_000);
    // Seven out, none paid: it still grows. The eighth is paid third:
    // then the add-on is refused.
    for (k, entry) in (3..=10).rev().enumerate() {
        if k == 7 {
            let more = decide(&state, &Command::RecordAddOn { entry: EntryId(2) }).unwrap();
            assert!(matches!(more[1], PayoutEvent::PoolGrown { .. }), "{more:?}");
        }
        let events = decide(
            &state,
            &Command::RecordBusts {
                busts: vec![numbered(entry, 1, 1, k as u32 + 1)],
            },
        )
        .unwrap();
        for e in &events {
            state.apply(e);
        }
    }
    assert_eq!(
        decide(&state, &Command::RecordAddOn { entry: EntryId(1) }),
        Err(PayoutError::AddOnAfterMoney)
    );
}

/// Rule 27's rebuys in the pool: given a house that prices a rebuy at
/// 3,000 and an add-on at 2,000, when an entry buys two rebuys and one
/// add-on, then each is recorded on the entry and the pool holds every
/// buy-in, add-on and rebuy, at registration's close or after it; a house
/// without rebuys refuses one.
#[test]
fn rebuys_are_priced_into_the_pool_beside_add_ons() {
    let Command::Configure {
        name,
        mut settings,
        busts,
    } = configure(SimultaneousBusts::ShareAcrossTables)
    else {
        unreachable!()
    };
    let buy_in = settings.buy_in;
    let (name0, settings0) = (name.clone(), settings.clone());
    settings.add_on = 2_000;
    settings.rebuy = 3_000;
    let mut commands = vec![Command::Configure {
        name,
        settings,
        busts,
    }];
    commands.extend(entries(10));
    commands.push(Command::RecordRebuy { entry: EntryId(4) });
    commands.push(Command::RecordRebuy { entry: EntryId(4) });
    commands.push(Command::RecordAddOn { entry: EntryId(4) });
    commands.push(Command::CloseRegistration);
    let (mut state, _) = run(&commands);
    assert_eq!(state.rebuys(), 2);
    assert_eq!(state.entry(EntryId(4)).unwrap().rebuys, 2);
    let pool = state.pool().unwrap();
    assert_eq!((pool.entries, pool.add_ons, pool.rebuys), (10, 1, 2));
    assert_eq!(pool.prize_pool, 10 * buy_in + 2_000 + 2 * 3_000);
    // After the close, a rebuy grows the pool by its price.
    let events = decide(&state, &Command::RecordRebuy { entry: EntryId(5) }).unwrap();
    assert_eq!(events[0], PayoutEvent::RebuyRecorded { entry: EntryId(5) });
    for e in &events {
        state.apply(e);
    }
    assert_eq!(
        state.pool().unwrap().prize_pool,
        10 * buy_in + 2_000 + 3 * 3_000
    );
    // A house without rebuys refuses one.
    let (plain, _) = run(&[Command::Configure {
        name: name0,
        settings: settings0,
        busts,
    }]);
    assert_eq!(
        decide(&plain, &Command::RecordRebuy { entry: EntryId(1) }),
        Err(PayoutError::NoRebuys)
    );
}

/// The cage pays a prize: given a house that withholds 25% of a prize of
/// 10,000 or more (30% without a tax number on file) and a field played
/// down to its winner, when the cage pays the winner, who has a tax
/// number, then 25% of the whole prize is withheld and the rest handed
/// over, with the document checked; the second place without a tax
/// number has 30% withheld if its prize reaches the threshold; a prize is
/// paid once, only to an entry placed in the money, and a document
/// without a reference is refused.
#[test]
fn the_cage_pays_a_prize_once_withholding_the_house_tax_rule() {
    let Command::Configure {
        name,
        mut settings,
        busts,
    } = configure(SimultaneousBusts::ShareAcrossTables)
    else {
        unreachable!()
    };
    settings.withholding = Some(felt_payout::Withholding {
        threshold: 10_000,
        rate_bp: 2_500,
        rate_without_tax_number_bp: 3_000,
    });
    let mut commands = vec![Command::Configure {
        name,
        settings,
        busts,
    }];
    commands.extend(entries(10));
    commands.push(Command::CloseRegistration);
    for (k, entry) in (2..=10).rev().enumerate() {
        commands.push(Command::RecordBusts {
            busts: vec![numbered(entry, 1, 1, k as u32 + 1)],
        });
    }
    let (mut state, _) = run(&commands);
    let document = felt_payout::IdDocument {
        kind: felt_payout::IdDocumentKind::Passport,
        reference: "BR-FX123456".into(),
    };
    let pay = |entry: u64, tax: Option<&str>| Command::PayPrize {
        entry: EntryId(entry),
        document: document.clone(),
        tax_number: tax.map(str::to_string),
    };
    let first = state.entry(EntryId(1)).unwrap().prize;
    assert!(first >= 10_000, "the winner's prize {first}");
    let events = decide(&state, &pay(1, Some("123.456.789-09"))).unwrap();
    assert_eq!(
        events,
        vec![PayoutEvent::PrizePaid {
            entry: EntryId(1),
            gross: first,
            withheld: first / 4,
            net: first - first / 4,
            document: document.clone(),
            tax_number: Some("123.456.789-09".into()),
        }]
    );
    for e in &events {
        state.apply(e);
    }
    assert_eq!(
        decide(&state, &pay(1, None)),
        Err(PayoutError::PrizeAlreadyPaid { entry: EntryId(1) })
    );
    let second = state.entry(EntryId(2)).unwrap().prize;
    let PayoutEvent::PrizePaid { withheld, .. } = &decide(&state, &pay(2, None)).unwrap()[0] else {
        panic!()
    };
    let expected = if second >= 10_000 { second * 3 / 10 } else { 0 };
    assert_eq!(*withheld, expected);
    // Out of the money: no prize to pay.
    let out = state
        .entries()
        .iter()
        .find(|(_, e)| e.prize == 0)
        .map(|(id, _)| *id)
        .expect("an entry out of the money");
    assert_eq!(
        decide(&state, &pay(out.0, None)),
        Err(PayoutError::NoPrize { entry: out })
    );
    let blank = Command::PayPrize {
        entry: EntryId(2),
        document: felt_payout::IdDocument {
            kind: felt_payout::IdDocumentKind::Other,
            reference: " ".into(),
        },
        tax_number: None,
    };
    assert!(matches!(
        decide(&state, &blank),
        Err(PayoutError::InvalidCage { .. })
    ));
}
