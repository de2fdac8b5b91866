//! The tournament's cross-service rules as pure functions: given the cause
//! and the state it needs, then these commands under these ids. No log, no
//! network: states are folded from the services' own deciders.

use felt_clock::{ClockCommand, ClockSettings, ClockState, Structure};
use felt_payout::{Bust, PayoutEvent, PayoutState};
use felt_seating::EntryId;
use felt_seating::{
    Elimination, Move, MoveReason, SeatingCommand, SeatingEvent, SeatingState, Settings,
};
use felt_table::{Carried, Command, HouseRules, TableEvent};
use felt_tournament::aggregates::{
    Clock, Definition, Payout, Registry, Seating, TournamentCreated, clock_stream, payout_stream,
    registry_stream, seating_stream,
};
use felt_tournament::reactions::{
    Order, TableOrder, creation, day, entries, hand_end, hand_for_hand, over, registration, seats,
    tickets,
};
use felt_tournament::runner::Cause;

fn seed(n: u8) -> [u8; 32] {
    [n; 32]
}

/// Seating's decision, handed the seed its service would have drawn.
fn seating(state: &mut SeatingState, command: SeatingCommand) -> Vec<SeatingEvent> {
    let events = felt_seating::decide(state, &command, &seed(7))
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    for e in &events {
        state.apply(e);
    }
    events
}

/// A tournament with `n` players registered, not started.
fn with_players(settings: Settings, n: u64) -> SeatingState {
    let mut state = SeatingState::default();
    seating(
        &mut state,
        SeatingCommand::Create {
            name: "t".into(),
            settings,
        },
    );
    for i in 1..=n {
        seating(
            &mut state,
            SeatingCommand::Register {
                player: format!("p{i}").parse().unwrap(),
                name: format!("Player {i}"),
                level: 0,
            },
        );
    }
    state
}

/// `n` players seated at 9-handed tables, every seat confirmed.
fn room(settings: Settings, n: u64) -> SeatingState {
    let mut state = with_players(settings, n);
    seating(&mut state, SeatingCommand::Start);
    for (entry, _, _) in seats::unconfirmed(&state) {
        let order = seats::seated(entry);
        seating(&mut state, order.command);
    }
    state
}

/// Every pending move completed, as the tables would have carried it out.
fn carry_out(state: &mut SeatingState) {
    let moves: Vec<Move> = state.room().moves.values().copied().collect();
    for m in moves {
        seating(state, seats::move_done(&m, 10_000).command);
    }
}

/// Seating's decision `events`, its first event at `first` in its stream,
/// as the runner hands it to the reactions, with the state after it.
fn cause(first: u64, events: Vec<SeatingEvent>, state: &SeatingState) -> Cause<Seating> {
    Cause {
        stream: seating_stream("t").unwrap(),
        position: first,
        first,
        command_id: "hand-1-1-ended".into(),
        correlation_id: None,
        recorded_at: 1_000,
        events,
        state: state.clone(),
    }
}

fn hand_at(state: &mut SeatingState, table: u32, busted: Vec<Elimination>) -> Vec<SeatingEvent> {
    seating(state, SeatingCommand::BeginHand { table });
    seating(
        state,
        SeatingCommand::HandEnded {
            table,
            button: 1,
            big_blind: 2,
            busted,
        },
    )
}

fn clock_after(commands: &[ClockCommand]) -> ClockState {
    let mut state = ClockState::default();
    for c in [
        ClockCommand::Configure {
            structure: Structure::bhpoker(),
            settings: ClockSettings::default(),
        },
        ClockCommand::Start { at: 0 },
    ]
    .iter()
    .chain(commands)
    {
        for e in felt_clock::decide(&state, c, &[0; 32]).unwrap_or_else(|e| panic!("{c:?}: {e}")) {
            state.apply(&e);
        }
    }
    state
}

fn summary(
    number: u64,
    busted: &[(u64, u64)],
    by: &[(u64, hand_end::Eliminators)],
) -> hand_end::HandSummary {
    hand_end::HandSummary {
        number,
        button: 3,
        big_blind: 5,
        busted: busted.iter().map(|&(e, s)| (EntryId(e), s)).collect(),
        eliminators: by.iter().map(|(e, by)| (EntryId(*e), by.clone())).collect(),
        recorded: true,
        occurred_at: None,
    }
}

/// Given table 3's hand 12 ended with entry 7 out, when it reaches
/// seating, then seating hears the button and big blind it played (TDA 32)
/// and the bust with its starting stack and the entries that won its chips,
/// under an id naming the table and the hand.
#[test]
fn a_hand_end_reaches_seating_under_an_id_naming_the_table_and_the_hand() {
    let hand = summary(
        12,
        &[(7, 4_000)],
        &[(7, hand_end::Eliminators::Entries(vec![EntryId(99)]))],
    );
    // Whoever sits in the winning seat now does not matter.
    let order = hand_end::to_seating(3, &hand, |_| Some(EntryId(12)));
    assert_eq!(
        order,
        Order {
            id: "hand-3-12-ended".into(),
            command: SeatingCommand::HandEnded {
                table: 3,
                button: 3,
                big_blind: 5,
                busted: vec![Elimination {
                    entry: EntryId(7),
                    starting_stack: 4_000,
                    by: vec![EntryId(99)],
                    occurred_at: None,
                }],
            },
        }
    );
    // A hand recorded before the table named the winners names their
    // seats: the entries sitting there collect.
    let legacy = summary(
        12,
        &[(7, 4_000)],
        &[(7, hand_end::Eliminators::Seats(vec![4]))],
    );
    let SeatingCommand::HandEnded { busted, .. } =
        hand_end::to_seating(3, &legacy, |seat| (seat == 4).then_some(EntryId(99))).command
    else {
        panic!("a hand end")
    };
    assert_eq!(busted[0].by, vec![EntryId(99)]);
}

/// Given a results-only table's events, where the floor recorded entry
/// 101 out to entry 102 with the button on seat 1, entered late with the
/// time it happened, when the follower summarises them and the summary
/// reaches seating, then seating hears a result (no hand was granted for
/// it) under the same id a hand end has, the bust with its time.
#[test]
fn a_results_only_tables_result_reaches_seating_as_a_result() {
    let mut table = felt_table::TableState::default();
    let mut log = Vec::new();
    let commands = [
        felt_table::Command::OpenTable {
            seats: 3,
            rules: Default::default(),
        },
        felt_table::Command::SeatPlayer {
            seat: 1,
            player: EntryId(100),
            stack: 500,
            carried: Default::default(),
        },
        felt_table::Command::SeatPlayer {
            seat: 2,
            player: EntryId(101),
            stack: 400,
            carried: Default::default(),
        },
        felt_table::Command::SeatPlayer {
            seat: 3,
            player: EntryId(102),
            stack: 600,
            carried: Default::default(),
        },
        felt_table::Command::SetRecording {
            recording: felt_table::Recording::ResultsOnly,
            reason: "no tablet".into(),
        },
        felt_table::Command::RecordResult {
            button: 1,
            busted: vec![(2, EntryId(101))],
            by: vec![(3, EntryId(102))],
            occurred_at: Some(1_765_000_000_000),
        },
    ];
    for c in &commands {
        log.extend(felt_table::execute(&mut table, c).unwrap());
    }
    let hand = hand_end::HandSummary::from_events(&log).expect("a result ends a hand");
    let order = hand_end::to_seating(4, &hand, |_| None);
    assert_eq!(
        order,
        Order {
            id: "hand-4-1-ended".into(),
            command: SeatingCommand::ResultRecorded {
                table: 4,
                button: 1,
                big_blind: 3,
                busted: vec![Elimination {
                    entry: EntryId(101),
                    starting_stack: 400,
                    by: vec![EntryId(102)],
                    occurred_at: Some(1_765_000_000_000),
                }],
            },
        }
    );
}

/// Given seating recorded a bust outside hand-for-hand, then payout gets it
/// at once, with the chips the player started the hand with, the entries
/// the table named as winning them (their bounty's collectors) and their
/// number in seating's order out, under an id naming seating's decision.
#[test]
fn a_bust_outside_hand_for_hand_goes_to_payout_at_once_with_its_stack_and_eliminators() {
    let mut state = room(Settings::tda(9, 10_000), 18);
    let out = state.room().tables[&1]
        .seats
        .iter()
        .flatten()
        .copied()
        .next()
        .unwrap();
    let decided = hand_at(
        &mut state,
        1,
        vec![Elimination {
            entry: out,
            starting_stack: 2_500,
            by: vec![EntryId(99)],
            occurred_at: None,
        }],
    );
    assert_eq!(
        hand_end::busts(&cause(57, decided, &state)),
        Some(Order {
            id: "seating-57-busts".into(),
            command: felt_payout::Command::RecordBusts {
                busts: vec![Bust {
                    entry: out,
                    table: 1,
                    starting_stack: 2_500,
                    by: vec![EntryId(99)],
                    out: Some(1),
                    forfeit: false,
                }],
            },
        })
    );
    // A hand without busts sends payout nothing.
    let quiet = hand_at(&mut state, 2, vec![]);
    assert_eq!(hand_end::busts(&cause(60, quiet, &state)), None);
}

/// Seed 003, "1. Se dois ou mais jogadores forem eliminados na mesma
/// rodada…": places follow the order players went out. Given the floor's
/// late entries open, when tables report busts (a result entered late
/// among them), then payout hears none of them; when the floor closes the
/// late entries, then payout hears them hand by hand in the order they
/// happened, each numbered in that order, under ids naming the close.
#[test]
fn busts_held_by_the_late_entries_reach_payout_in_the_order_they_happened() {
    let mut state = room(Settings::tda(9, 10_000), 18);
    seating(
        &mut state,
        SeatingCommand::OpenLateEntries {
            reason: "paper from 10:00".into(),
        },
    );
    let at = |table: u32, when: i64, state: &SeatingState| Elimination {
        occurred_at: Some(when),
        by: vec![
            state.room().tables[&table]
                .seats
                .iter()
                .flatten()
                .copied()
                .nth(1)
                .unwrap(),
        ],
        starting_stack: 1_000,
        entry: state.room().tables[&table]
            .seats
            .iter()
            .flatten()
            .copied()
            .next()
            .unwrap(),
    };
    let late = at(2, 1_765_016_400_000, &state);
    let decided = hand_at(&mut state, 2, vec![late.clone()]);
    assert_eq!(hand_end::busts(&cause(40, decided, &state)), None, "held");
    carry_out(&mut state);
    let earlier = at(1, 1_765_016_100_000, &state);
    let decided = hand_at(&mut state, 1, vec![earlier.clone()]);
    assert_eq!(hand_end::busts(&cause(44, decided, &state)), None, "held");
    let closed = seating(&mut state, SeatingCommand::CloseLateEntries);
    let bust = |e: &Elimination, table: u32, out: u32| Bust {
        entry: e.entry,
        table,
        starting_stack: 1_000,
        by: e.by.clone(),
        out: Some(out),
        forfeit: false,
    };
    assert_eq!(
        hand_end::late_busts(&cause(48, closed, &state)),
        vec![
            Order {
                id: "seating-48-late-1".into(),
                command: felt_payout::Command::RecordBusts {
                    busts: vec![bust(&earlier, 1, 1)],
                },
            },
            Order {
                id: "seating-48-late-2".into(),
                command: felt_payout::Command::RecordBusts {
                    busts: vec![bust(&late, 2, 2)],
                },
            },
        ]
    );
}

/// RP8: given hand-for-hand at the bubble, when two tables' hands of the
/// same round bust a player each, then payout holds both for the round,
/// which is over only when no table plays it; then payout places them
/// together, once.
#[test]
fn hand_for_hand_busts_are_held_until_their_round_is_over_then_sent_together() {
    let mut settings = Settings::tda(9, 10_000);
    settings.paid = 15;
    settings.hand_for_hand_distance = 1;
    let mut state = room(settings, 18);
    let two: Vec<EntryId> = state.room().tables[&1]
        .seats
        .iter()
        .flatten()
        .copied()
        .take(2)
        .collect();
    let events = hand_at(
        &mut state,
        1,
        two.into_iter().map(Elimination::of).collect(),
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, SeatingEvent::HandForHandStarted { .. }))
    );
    carry_out(&mut state);
    let b1 = *state.room().tables[&1]
        .seats
        .iter()
        .flatten()
        .next()
        .unwrap();
    let b2 = *state.room().tables[&2]
        .seats
        .iter()
        .flatten()
        .next()
        .unwrap();
    seating(&mut state, SeatingCommand::BeginHand { table: 1 });
    seating(&mut state, SeatingCommand::BeginHand { table: 2 });
    let first = seating(
        &mut state,
        SeatingCommand::HandEnded {
            table: 1,
            button: 1,
            big_blind: 2,
            busted: vec![Elimination::of(b1)],
        },
    );
    // Payout knows the field.
    let mut payout = PayoutState::default();
    pay(
        &mut payout,
        felt_payout::Command::Configure {
            name: "Bubble".into(),
            settings: felt_payout::MoneySettings::club(),
            busts: felt_payout::SimultaneousBusts::ShareAcrossTables,
        },
    );
    pay(
        &mut payout,
        felt_payout::Command::RecordEntries {
            entries: state
                .entries()
                .iter()
                .map(|(id, e)| (*id, e.player.clone()))
                .collect(),
        },
    );
    let first = cause(80, first, &state);
    let held = hand_end::busts(&first);
    let Some(Order {
        id,
        command: felt_payout::Command::HoldBusts { round, busts },
    }) = held.clone()
    else {
        panic!("table 1's bust is not held: {held:?}");
    };
    assert_eq!(id, "seating-80-busts");
    assert_eq!(busts.iter().map(|b| b.entry).collect::<Vec<_>>(), [b1]);
    pay(&mut payout, held.unwrap().command);
    // Table 2 still plays the round: payout keeps holding it.
    assert!(!hand_end::round_over(&state, round));
    assert!(hand_end::rounds_over(&first).is_empty());
    let second = seating(
        &mut state,
        SeatingCommand::HandEnded {
            table: 2,
            button: 1,
            big_blind: 2,
            busted: vec![Elimination::of(b2)],
        },
    );
    let second = cause(83, second, &state);
    let also = hand_end::busts(&second);
    let Some(Order {
        command: felt_payout::Command::HoldBusts { round: same, .. },
        ..
    }) = also.clone()
    else {
        panic!("table 2's bust is not held: {also:?}");
    };
    assert_eq!(same, round);
    pay(&mut payout, also.unwrap().command);
    assert!(hand_end::round_over(&state, round));
    // The round is over with the decision that ended its last hand:
    // payout places its two busts together.
    let orders = hand_end::rounds_over(&second);
    assert_eq!(
        orders,
        [Order {
            id: format!("seating-83-round-{round}"),
            command: felt_payout::Command::PlaceRound { round },
        }]
    );
    let placed = pay(&mut payout, orders[0].command.clone());
    assert_eq!(placed[0], PayoutEvent::RoundReleased { round });
    assert!(matches!(&placed[1], PayoutEvent::Busted { busts } if busts.len() == 2));
    // Placed, nothing is held: the same command again is refused, changing
    // nothing.
    assert_eq!(
        felt_payout::decide(&payout, &orders[0].command),
        Err(felt_payout::PayoutError::NoRoundHeld { round })
    );
}

/// RP8, the round a slow table has still to play (the bug behind the
/// cluster test's "payout placed 323 of 325 entries": a bust held for a
/// round payout had already been told was over, never placed). Given
/// hand-for-hand and table 2 not yet dealt its hand of the round, when
/// table 1's hand of it ends with a bust, then the round is not over; when
/// table 2 then plays the round with a bust of its own, the round is over
/// with that decision, after both busts were held.
#[test]
fn a_round_a_table_has_not_begun_yet_is_not_over() {
    let mut settings = Settings::tda(9, 10_000);
    settings.paid = 14;
    settings.hand_for_hand_distance = 2;
    let mut state = room(settings, 18);
    let two: Vec<EntryId> = state.room().tables[&1]
        .seats
        .iter()
        .flatten()
        .copied()
        .take(2)
        .collect();
    hand_at(
        &mut state,
        1,
        two.into_iter().map(Elimination::of).collect(),
    );
    carry_out(&mut state);
    let first_at = |state: &SeatingState, table: u32| {
        *state.room().tables[&table]
            .seats
            .iter()
            .flatten()
            .next()
            .unwrap()
    };
    let b1 = first_at(&state, 1);
    // Only table 1 has begun the round.
    seating(&mut state, SeatingCommand::BeginHand { table: 1 });
    let first = seating(
        &mut state,
        SeatingCommand::HandEnded {
            table: 1,
            button: 1,
            big_blind: 2,
            busted: vec![Elimination::of(b1)],
        },
    );
    let first = cause(90, first, &state);
    let Some(Order {
        command: felt_payout::Command::HoldBusts { round, .. },
        ..
    }) = hand_end::busts(&first)
    else {
        panic!("table 1's bust is not held");
    };
    assert!(
        !hand_end::round_over(&state, round),
        "table 2 has yet to play it"
    );
    assert!(hand_end::rounds_over(&first).is_empty());
    let b2 = first_at(&state, 2);
    seating(&mut state, SeatingCommand::BeginHand { table: 2 });
    let second = seating(
        &mut state,
        SeatingCommand::HandEnded {
            table: 2,
            button: 1,
            big_blind: 2,
            busted: vec![Elimination::of(b2)],
        },
    );
    let second = cause(95, second, &state);
    assert!(matches!(
        hand_end::busts(&second),
        Some(Order {
            command: felt_payout::Command::HoldBusts { round: r, .. },
            ..
        }) if r == round
    ));
    assert_eq!(
        hand_end::rounds_over(&second),
        [Order {
            id: format!("seating-95-round-{round}"),
            command: felt_payout::Command::PlaceRound { round },
        }]
    );
}

/// A payout command decided and applied; its events.
fn pay(payout: &mut PayoutState, command: felt_payout::Command) -> Vec<PayoutEvent> {
    let events = felt_payout::decide(payout, &command).expect("payout takes it");
    for e in &events {
        payout.apply(e);
    }
    events
}

/// Payout configured (generated settings, 1,000 chips of 10,000) with
/// entries 1..=`entries`, registration open.
fn payout_of(entries: u64) -> PayoutState {
    let mut payout = PayoutState::default();
    pay(
        &mut payout,
        felt_payout::Command::Configure {
            name: "t".into(),
            settings: felt_payout::MoneySettings::generated(10_000, 1_000),
            busts: felt_payout::SimultaneousBusts::ByStartingStack,
        },
    );
    pay(
        &mut payout,
        felt_payout::Command::RecordEntries {
            entries: (1..=entries)
                .map(|e| (EntryId(e), format!("p{e}").parse().unwrap()))
                .collect(),
        },
    );
    payout
}

/// RP8: given seating started hand-for-hand and the clock runs, then the
/// clock stops on every table, under the id of its next period; given the
/// clock already plays it, or has played that period already (a runner
/// behind another), nothing is sent.
#[test]
fn seating_starting_hand_for_hand_stops_the_clock_once_per_period() {
    let mut state = room(Settings::tda(9, 10_000), 18);
    let started = seating(&mut state, SeatingCommand::StartHandForHand);
    let clock = clock_after(&[]);
    let orders = hand_for_hand::to_clock(&started[0], &state, &clock, 1_000);
    assert_eq!(
        orders,
        vec![Order {
            id: "hfh-1-start".into(),
            command: ClockCommand::StartHandForHand {
                at: 1_000,
                tables: vec![1, 2],
            },
        }]
    );
    let playing = clock_after(&[orders[0].command.clone()]);
    assert!(hand_for_hand::to_clock(&started[0], &state, &playing, 2_000).is_empty());
    // The clock has played this period and stopped: it is not started again.
    let played = clock_after(&[
        orders[0].command.clone(),
        ClockCommand::StopHandForHand { at: 2_000 },
    ]);
    assert!(hand_for_hand::to_clock(&started[0], &state, &played, 3_000).is_empty());
    // Once seating has ended it, a late start is not sent.
    let ended = seating(&mut state, SeatingCommand::StopHandForHand);
    assert!(hand_for_hand::to_clock(&started[0], &state, &clock, 4_000).is_empty());
    assert!(matches!(ended[0], SeatingEvent::HandForHandEnded { .. }));
    // Seating's second period is the clock's second, numbered after the first.
    let again = seating(&mut state, SeatingCommand::StartHandForHand);
    assert_eq!(
        hand_for_hand::to_clock(&again[0], &state, &played, 5_000)[0].id,
        "hfh-2-start"
    );
}

/// RP8: given the clock waits for tables 1 and 2, when seating records a
/// round over, then each table still waited for has finished its hand,
/// under ids of the clock's period and round; when seating ends
/// hand-for-hand, then the round is finished and the clock stopped; a
/// table closed while waited for is waited for no more. A round the clock
/// has already finished (a runner behind another) sends nothing.
#[test]
fn seating_rounds_and_its_end_of_hand_for_hand_reach_the_clock() {
    let mut state = room(Settings::tda(9, 10_000), 18);
    seating(&mut state, SeatingCommand::StartHandForHand);
    let start = ClockCommand::StartHandForHand {
        at: 10,
        tables: vec![1, 2],
    };
    let clock = clock_after(std::slice::from_ref(&start));
    let round = SeatingEvent::HandForHandRound { round: 1 };
    let finished = |table| Order {
        id: format!("hfh-1-1-{table}"),
        command: ClockCommand::TableFinishedHand { at: 20, table },
    };
    assert_eq!(
        hand_for_hand::to_clock(&round, &state, &clock, 20),
        vec![finished(1), finished(2)]
    );
    let next_round = clock_after(&[
        start.clone(),
        ClockCommand::TableFinishedHand { at: 15, table: 1 },
        ClockCommand::TableFinishedHand { at: 15, table: 2 },
    ]);
    assert!(hand_for_hand::to_clock(&round, &state, &next_round, 20).is_empty());
    let one_done = clock_after(&[
        start.clone(),
        ClockCommand::TableFinishedHand { at: 15, table: 1 },
    ]);
    let end = SeatingEvent::HandForHandEnded {
        remaining: 15,
        round: Some(1),
    };
    assert_eq!(
        hand_for_hand::to_clock(&end, &state, &one_done, 20),
        vec![
            finished(2),
            Order {
                id: "hfh-1-stop".into(),
                command: ClockCommand::StopHandForHand { at: 20 },
            }
        ]
    );
    // Seating's round finished at the clock already (the same event run
    // again after a crash): the clock is only stopped.
    assert_eq!(
        hand_for_hand::to_clock(&end, &state, &next_round, 20),
        vec![Order {
            id: "hfh-1-stop".into(),
            command: ClockCommand::StopHandForHand { at: 20 },
        }]
    );
    // Not in hand-for-hand at the clock: nothing to stop.
    assert!(hand_for_hand::to_clock(&end, &state, &clock_after(&[]), 20).is_empty());
    let closed = SeatingEvent::TableClosed { table: 2 };
    assert_eq!(
        hand_for_hand::to_clock(&closed, &state, &clock, 30),
        vec![Order {
            id: "hfh-1-close-2".into(),
            command: ClockCommand::RemoveTable { at: 30, table: 2 },
        }]
    );
    assert!(
        hand_for_hand::to_clock(&SeatingEvent::TableClosed { table: 5 }, &state, &clock, 30)
            .is_empty()
    );
    assert!(hand_for_hand::to_clock(&closed, &state, &clock_after(&[]), 30).is_empty());
}

/// TDA 10: given seating moved entry 7 from table 2 seat 4 to table 1
/// seat 9, then the player leaves table 2, takes the new seat with the
/// chips they left with, and seating hears it is done, each step under an
/// id naming the move.
#[test]
fn a_move_leaves_one_table_takes_the_new_seat_with_its_chips_and_is_completed() {
    let m = Move {
        id: 31,
        entry: EntryId(7),
        from: (2, 4),
        to: (1, 9),
        reason: MoveReason::Balance,
    };
    assert_eq!(
        seats::move_out(&m),
        TableOrder {
            table: 2,
            id: "move-31-out".into(),
            command: Command::RemovePlayer { seat: 4 },
        }
    );
    // The player leaves serving a penalty, away from the table, after two
    // offences: they take it all to the new seat (TDA 71, 30).
    let carried = Carried {
        penalty_hands: 5,
        absent: true,
        offences: 2,
    };
    let removal = [TableEvent::PlayerRemoved {
        seat: 4,
        player: EntryId(7),
        stack: 12_345,
        carried,
    }];
    assert_eq!(seats::moved_with(&m, &removal), Some((12_345, carried)));
    assert_eq!(seats::moved_with(&m, &[]), None);
    assert_eq!(
        seats::move_in(&m, 12_345, carried),
        TableOrder {
            table: 1,
            id: "move-31-in".into(),
            command: Command::SeatPlayer {
                seat: 9,
                player: EntryId(7),
                stack: 12_345,
                carried,
            },
        }
    );
    let done = seats::move_done(&m, 12_345);
    assert_eq!(
        done,
        Order {
            id: "move-31-done".into(),
            command: SeatingCommand::MoveCompleted {
                id: 31,
                stack: 12_345,
            },
        }
    );
}

/// TDA 7: given seats drawn that no table has confirmed, then each entry
/// takes its seat with the starting stack and seating confirms it; a table
/// seating opened is opened with the tournament's house rules.
#[test]
fn drawn_seats_are_taken_at_their_tables_and_confirmed() {
    let mut state = with_players(Settings::tda(9, 10_000), 3);
    seating(&mut state, SeatingCommand::Start);
    let drawn = seats::unconfirmed(&state);
    assert_eq!(
        drawn.iter().map(|d| d.0.get()).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    let (entry, table, seat) = drawn[0];
    assert_eq!(
        seats::seat(entry, table, seat, 10_000),
        TableOrder {
            table,
            id: format!("seat-{entry}"),
            command: Command::SeatPlayer {
                seat,
                player: EntryId(entry.into()),
                stack: 10_000,
                carried: Default::default(),
            },
        }
    );
    let confirmed = seats::seated(entry);
    assert_eq!(confirmed.id, format!("seated-{entry}"));
    seating(&mut state, confirmed.command);
    assert_eq!(seats::unconfirmed(&state).len(), 2);
    let rules = HouseRules::default();
    assert_eq!(
        seats::open(1, 9, rules),
        TableOrder {
            table: 1,
            id: "open".into(),
            command: Command::OpenTable { seats: 9, rules },
        }
    );
}

/// TDA 7 and 9–10, the carrier: given seating's start, then the tables it
/// opened are opened and every drawn seat is taken and confirmed; given a
/// hand end that breaks the balance (TDA 9: a table two or more players
/// short), then the move it started is carried, and a decision after the
/// move was completed leaves nothing.
#[test]
fn the_carrier_is_given_each_seating_decision_its_tables_seats_and_moves() {
    let rules = HouseRules::default();
    let mut state = with_players(Settings::tda(9, 10_000), 18);
    let started = seating(&mut state, SeatingCommand::Start);
    assert!(started.iter().any(seats::wanted));
    let work = seats::carry(&cause(13, started.clone(), &state), rules);
    let opened: Vec<TableOrder> = started
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::TableOpened { table, seats: n } => Some(seats::open(*table, *n, rules)),
            _ => None,
        })
        .collect();
    assert_eq!(opened.len(), 2, "18 players at 9-handed tables");
    assert_eq!(work.open, opened);
    let drawn: Vec<_> = seats::unconfirmed(&state)
        .into_iter()
        .map(|(entry, table, seat)| {
            (
                seats::seat(entry, table, seat, 10_000),
                seats::seated(entry),
            )
        })
        .collect();
    assert_eq!(drawn.len(), 18);
    assert_eq!(work.seats, drawn);
    assert!(work.moves.is_empty());
    // What table 2 waits for: its opening and its nine seats.
    let at_two = work.clone().at(2);
    assert_eq!(at_two.open, [opened[1].clone()]);
    assert_eq!(at_two.seats.len(), 9);
    assert!(at_two.seats.iter().all(|(take, _)| take.table == 2));
    for (_, confirm) in work.seats {
        seating(&mut state, confirm.command);
    }

    // Table 1 loses three players (six left against nine, TDA 9): its
    // hand end moves one from table 2.
    let at_one: Vec<EntryId> = state.room().tables[&1]
        .seats
        .iter()
        .flatten()
        .copied()
        .collect();
    let at_two = state.room().tables[&2].seats.iter().flatten().count();
    assert_eq!((at_one.len(), at_two), (9, 9));
    let busted = 3;
    let ended = hand_at(
        &mut state,
        1,
        at_one
            .into_iter()
            .take(busted)
            .map(Elimination::of)
            .collect(),
    );
    let started: Vec<Move> = ended
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::MoveStarted { r#move, .. } => Some(*r#move),
            _ => None,
        })
        .collect();
    assert_eq!(started.len(), 1, "{ended:?}");
    assert!(ended.iter().any(seats::wanted));
    let work = seats::carry(&cause(40, ended, &state), rules);
    assert!(work.open.is_empty() && work.seats.is_empty());
    assert_eq!(work.moves, started);
    assert_eq!((started[0].from.0, started[0].to.0), (2, 1));

    // A table asking to deal is carried what it waits for: the move
    // concerns tables 2 and 1, not another.
    let pending = || seats::carry(&cause(40, Vec::new(), &state), rules);
    assert_eq!(pending().at(1).moves, started);
    assert_eq!(pending().at(2).moves, started);
    assert!(pending().at(3).is_empty());

    let done = seating(&mut state, seats::move_done(&started[0], 10_000).command);
    assert!(!done.iter().any(seats::wanted));
    assert!(seats::carry(&cause(41, done, &state), rules).is_empty());
}

/// A clock decision at `at` (ms since the clock's start at 0), its first
/// event at `first` in its stream, with the state after it.
fn clock_cause(
    first: u64,
    at: i64,
    events: Vec<felt_clock::ClockEvent>,
    state: &ClockState,
) -> Cause<Clock> {
    Cause {
        stream: clock_stream("t").unwrap(),
        position: first,
        first,
        command_id: format!("tick-{at}"),
        correlation_id: None,
        recorded_at: at,
        events,
        state: state.clone(),
    }
}

const MIN: i64 = 60_000;

/// Given late registration through level 2 (seed 002's house rules fix it
/// per tournament) and play started, when the clock starts level 3, then
/// seating closes registration, under an id naming the clock's decision;
/// the clock's start and level 2 close nothing, nor does level 3 once
/// registration is closed.
#[test]
fn the_clock_past_late_registration_closes_it_at_seating() {
    let mut settings = Settings::tda(9, 10_000);
    settings.late_registration_level = 2;
    let mut seating_state = room(settings, 20);
    let started = clock_after(&[]);
    let start = clock_cause(
        2,
        0,
        vec![felt_clock::ClockEvent::Started { at: 0 }],
        &started,
    );
    assert_eq!(registration::level_closes(&start, &seating_state), None);
    let level = |at: i64| {
        let clock = clock_after(&[ClockCommand::Tick { at }]);
        let events = vec![felt_clock::ClockEvent::PeriodStarted {
            at,
            period: clock.period(),
            remaining: 20 * MIN,
        }];
        clock_cause(7, at, events, &clock)
    };
    assert_eq!(
        registration::level_closes(&level(20 * MIN + 5), &seating_state),
        None
    );
    let third = level(40 * MIN + 5);
    assert_eq!(third.state.level_number_at(third.recorded_at), 3);
    assert_eq!(
        registration::level_closes(&third, &seating_state),
        Some(Order {
            id: "clock-7-close-registration".into(),
            command: SeatingCommand::CloseRegistration,
        })
    );
    seating(&mut seating_state, SeatingCommand::CloseRegistration);
    assert_eq!(registration::level_closes(&third, &seating_state), None);
}

/// Rule 27's window: given rebuys sold through level 2 and play started,
/// when the clock starts level 3, then seating closes the rebuys under an
/// id naming the clock's decision (a bust from then on is out at once);
/// level 2 closes nothing, nor does level 3 once they are closed, nor a
/// tournament without rebuys.
#[test]
fn the_clock_past_the_rebuys_last_level_closes_them_at_seating() {
    let mut settings = Settings::tda(9, 10_000);
    settings.rebuy = Some(felt_seating::RebuyTerms {
        chips: 10_000,
        last_level: 2,
        limit: 1,
        condition: felt_seating::RebuyCondition::Busted,
    });
    let mut seating_state = room(settings, 20);
    let level = |at: i64| {
        let clock = clock_after(&[ClockCommand::Tick { at }]);
        let events = vec![felt_clock::ClockEvent::PeriodStarted {
            at,
            period: clock.period(),
            remaining: 20 * MIN,
        }];
        clock_cause(7, at, events, &clock)
    };
    assert_eq!(
        registration::rebuys_close(&level(20 * MIN + 5), &seating_state),
        None
    );
    let third = level(40 * MIN + 5);
    assert_eq!(
        registration::rebuys_close(&third, &seating_state),
        Some(Order {
            id: "clock-7-close-rebuys".into(),
            command: SeatingCommand::CloseRebuys,
        })
    );
    let without = room(Settings::tda(9, 10_000), 20);
    assert_eq!(registration::rebuys_close(&third, &without), None);
    seating(&mut seating_state, SeatingCommand::CloseRebuys);
    assert!(seating_state.rebuys_closed());
    assert_eq!(registration::rebuys_close(&third, &seating_state), None);
}

/// With no late registration, the clock's start closes it.
#[test]
fn without_late_registration_the_clock_start_closes_it() {
    let seating_state = room(Settings::tda(9, 10_000), 20);
    assert_eq!(seating_state.settings().unwrap().late_registration_level, 0);
    let start = clock_cause(
        2,
        0,
        vec![felt_clock::ClockEvent::Started { at: 0 }],
        &clock_after(&[]),
    );
    assert_eq!(
        registration::level_closes(&start, &seating_state),
        Some(Order {
            id: "clock-2-close-registration".into(),
            command: SeatingCommand::CloseRegistration,
        })
    );
}

/// Given seating closed registration, then payout fixes its pool and pay
/// sheet under an id naming seating's decision; other decisions send
/// payout nothing.
#[test]
fn seating_closing_registration_closes_payouts_pool() {
    let mut state = room(Settings::tda(9, 10_000), 20);
    let closed = seating(&mut state, SeatingCommand::CloseRegistration);
    assert_eq!(
        registration::to_payout(&cause(31, closed, &state)),
        Some(Order {
            id: "seating-31-close-registration".into(),
            command: felt_payout::Command::CloseRegistration,
        })
    );
    let other = seating(&mut state, SeatingCommand::BeginHand { table: 1 });
    assert_eq!(registration::to_payout(&cause(32, other, &state)), None);
}

/// A payout decision, its first event at `first`, with the state after it.
fn payout_cause(first: u64, events: Vec<PayoutEvent>, state: &PayoutState) -> Cause<Payout> {
    Cause {
        stream: payout_stream("t").unwrap(),
        position: first,
        first,
        command_id: "seating-31-close-registration".into(),
        correlation_id: None,
        recorded_at: 1_000,
        events,
        state: state.clone(),
    }
}

/// Given 450 players busted one by one during late registration, when
/// payout closes registration (placing the first 200 that waited), then
/// the other 250 are placed by two more decisions, and seating learns the
/// places paid on the sheet (no seed: seating draws its own when it
/// decides); every id names payout's close.
#[test]
fn payouts_close_places_what_waited_and_tells_seating_the_places_paid() {
    let mut payout = payout_of(500);
    for entry in 1..=450 {
        pay(
            &mut payout,
            felt_payout::Command::RecordBusts {
                busts: vec![Bust {
                    entry: EntryId(entry),
                    table: 1,
                    starting_stack: 10_000,
                    by: vec![EntryId(500)],
                    out: None,
                    forfeit: false,
                }],
            },
        );
    }
    assert_eq!(payout.waiting().len(), 450);
    let closed = pay(&mut payout, felt_payout::Command::CloseRegistration);
    assert_eq!(payout.waiting().len(), 250);
    let close = payout_cause(460, closed, &payout);
    assert_eq!(
        registration::place_waiting(&close),
        [1, 2].map(|n| Order {
            id: format!("payout-460-place-waiting-{n}"),
            command: felt_payout::Command::PlaceWaiting,
        })
    );
    let paid = payout.sheet().unwrap().paid();
    assert!(paid > 0);
    let order = registration::paid(&close);
    assert_eq!(
        order,
        Some(Order {
            id: "payout-460-paid".into(),
            command: SeatingCommand::SetPaid { paid },
        })
    );
    // The two decisions place every bust that waited.
    for order in registration::place_waiting(&close) {
        pay(&mut payout, order.command);
    }
    assert!(payout.waiting().is_empty());
    // Payout's other decisions cause nothing.
    let placed = pay(
        &mut payout,
        felt_payout::Command::RecordBusts {
            busts: vec![Bust {
                entry: EntryId(451),
                table: 1,
                starting_stack: 10_000,
                by: vec![EntryId(500)],
                out: None,
                forfeit: false,
            }],
        },
    );
    let other = payout_cause(463, placed, &payout);
    assert!(registration::place_waiting(&other).is_empty());
    assert_eq!(registration::paid(&other), None);
}

/// A seating decision of a tournament not yet started, decided and
/// applied, as the runner hands it out at `first`.
fn decided(state: &mut SeatingState, first: u64, command: SeatingCommand) -> Cause<Seating> {
    let events = seating(state, command);
    cause(first, events, state)
}

/// A capped field, where later players wait as alternates (seed 000 rule
/// 8: an alternate gets a full stack, as a new entry does): given seating registered an entry, then payout records
/// its money under the decision's id; an alternate pays nothing in until
/// promoted; an entry that leaves is refunded, an alternate who leaves is
/// not. Payout ends with exactly the entries seating has in the field.
#[test]
fn entries_paid_in_and_refunded_follow_seatings_decisions_and_alternates_pay_nothing() {
    let mut settings = Settings::club();
    settings.max_entries = Some(2);
    let mut state = SeatingState::default();
    seating(
        &mut state,
        SeatingCommand::Create {
            name: "t".into(),
            settings,
        },
    );
    let mut payout = PayoutState::default();
    pay(
        &mut payout,
        felt_payout::Command::Configure {
            name: "t".into(),
            settings: felt_payout::MoneySettings::club(),
            busts: felt_payout::SimultaneousBusts::ByStartingStack,
        },
    );
    let register = |i: u64| SeatingCommand::Register {
        player: format!("p{i}").parse().unwrap(),
        name: format!("Player {i}"),
        level: 0,
    };
    let mut sent = Vec::new();
    for i in 1..=4 {
        let c = decided(&mut state, i + 1, register(i));
        sent.push(entries::to_payout(&c));
    }
    assert_eq!(
        sent[0],
        vec![Order {
            id: "seating-2-entries".into(),
            command: felt_payout::Command::RecordEntries {
                entries: vec![(EntryId(1), "p1".parse().unwrap())]
            },
        }]
    );
    // Entries 3 and 4 wait as alternates: nothing paid in.
    assert!(sent[2].is_empty() && sent[3].is_empty(), "{sent:?}");
    // Entry 2 leaves: refunded, and alternate 3 takes its place and pays in.
    let out = entries::to_payout(&decided(
        &mut state,
        6,
        SeatingCommand::Unregister {
            entry: EntryId(2),
            reason: "called away".into(),
            fee_kept: false,
        },
    ));
    assert_eq!(
        out,
        vec![
            Order {
                id: "seating-6-refund-2".into(),
                command: felt_payout::Command::RemoveEntry { entry: EntryId(2) },
            },
            Order {
                id: "seating-6-entries".into(),
                command: felt_payout::Command::RecordEntries {
                    entries: vec![(EntryId(3), "p3".parse().unwrap())]
                },
            },
        ]
    );
    sent.push(out);
    // Alternate 4 leaves: it had paid nothing, so nothing is refunded.
    let out = entries::to_payout(&decided(
        &mut state,
        7,
        SeatingCommand::Unregister {
            entry: EntryId(4),
            reason: "called away".into(),
            fee_kept: false,
        },
    ));
    assert_eq!(out, vec![]);
    for order in sent.into_iter().flatten() {
        pay(&mut payout, order.command);
    }
    let paid_in: Vec<u64> = payout.entries().keys().map(|e| e.get()).collect();
    assert_eq!(paid_in, vec![1, 3]);
}

/// Given seating started play, then the clock starts at the time seating
/// did, under the decision's id; no other decision starts it.
#[test]
fn seatings_start_starts_the_clock_when_seating_did() {
    let mut state = SeatingState::default();
    seating(
        &mut state,
        SeatingCommand::Create {
            name: "t".into(),
            settings: Settings::club(),
        },
    );
    for i in 1..=3u64 {
        let c = decided(
            &mut state,
            i + 1,
            SeatingCommand::Register {
                player: format!("p{i}").parse().unwrap(),
                name: format!("Player {i}"),
                level: 0,
            },
        );
        assert_eq!(entries::clock_starts(&c), None);
    }
    let started = decided(&mut state, 5, SeatingCommand::Start);
    assert_eq!(
        entries::clock_starts(&started),
        Some(Order {
            id: "seating-5-start-clock".into(),
            command: ClockCommand::Start { at: 1_000 },
        })
    );
}

/// Issue 28: given an event whose flights advanced with where their day
/// ended (Day 2, level 9, 10 minutes left), when seating starts it, then
/// the clock starts there, under the same id as any start.
#[test]
fn an_events_start_starts_the_clock_where_its_flights_ended() {
    let mut state = SeatingState::default();
    seating(
        &mut state,
        SeatingCommand::Create {
            name: "event".into(),
            settings: Settings {
                flights: Some(felt_seating::FlightStacks::Best),
                ..Settings::club()
            },
        },
    );
    let bag = |flight: u32, k: u64, chips: u64| felt_seating::FlightBag {
        flight,
        entry: EntryId(u64::from(flight) * felt_seating::FLIGHT_ENTRIES + k),
        player: format!("p{flight}-{k}").parse().unwrap(),
        name: format!("Player {k}"),
        bag: k as u32,
        chips,
    };
    let resume = felt_seating::DayResume {
        day: 2,
        level: 9,
        remaining_ms: 600_000,
    };
    seating(
        &mut state,
        SeatingCommand::AdvanceFlights {
            bags: vec![bag(1, 1, 9_000), bag(2, 1, 3_000), bag(2, 2, 4_000)],
            out: 0,
            resume: Some(resume),
        },
    );
    let started = decided(&mut state, 3, SeatingCommand::Start);
    assert_eq!(
        entries::clock_starts(&started),
        Some(Order {
            id: "seating-3-start-clock".into(),
            command: ClockCommand::StartFrom {
                at: 1_000,
                day: 2,
                level: 9,
                remaining: 600_000
            },
        })
    );
}

/// The registry's entry for `t`, at `first` in the registry's stream.
fn registered(first: u64, t: &str, definition: Option<Definition>) -> Cause<Registry> {
    Cause {
        stream: registry_stream().unwrap(),
        position: first,
        first,
        command_id: format!("create-{t}"),
        correlation_id: None,
        recorded_at: 1_000,
        events: vec![TournamentCreated {
            tournament: t.parse().unwrap(),
            name: "Sunday Major".into(),
            rules: HouseRules::default(),
            deal: felt_tournament::DealMode::Digital,
            definition,
        }],
        state: (),
    }
}

/// Given the director created tournament "major" (the registry holds it
/// with its structure, clock settings, money and busts rule), then the
/// clock of "major" is configured with its structure and settings and
/// payout with its money, each under an id naming the registry's entry.
#[test]
fn a_tournament_in_the_registry_configures_its_clock_and_payout() {
    let definition = Definition {
        structure: Structure::bhpoker(),
        clock: ClockSettings::default(),
        money: felt_payout::MoneySettings::club(),
        busts: felt_payout::SimultaneousBusts::ByStartingStack,
    };
    let cause = registered(4, "major", Some(definition.clone()));
    assert_eq!(
        creation::to_clock(&cause),
        vec![(
            "major".parse().unwrap(),
            Order {
                id: "tournaments-4-configure".into(),
                command: ClockCommand::Configure {
                    structure: definition.structure.clone(),
                    settings: definition.clock,
                },
            }
        )]
    );
    assert_eq!(
        creation::to_payout(&cause),
        vec![(
            "major".parse().unwrap(),
            Order {
                id: "tournaments-4-configure".into(),
                command: felt_payout::Command::Configure {
                    name: "Sunday Major".into(),
                    settings: definition.money,
                    busts: definition.busts,
                },
            }
        )]
    );
}

/// Given an entry an older log holds without its definition (its parts
/// were written by the front door then), then nothing is sent.
#[test]
fn an_older_registry_entry_configures_nothing() {
    let cause = registered(1, "old", None);
    assert!(!cause.events.iter().any(creation::wanted));
    assert!(creation::to_clock(&cause).is_empty());
    assert!(creation::to_payout(&cause).is_empty());
}

/// A seating command that may draw is handed a fresh seed by its handler;
/// one that never draws is handed zeros. Closing registration draws the
/// final table that waited for the close, so its seats are drawn from a
/// seed nobody knew before (the bug: it was handed zeros, its draw known
/// in advance).
#[test]
fn closing_registration_is_handed_a_seed_to_draw_the_final_table() {
    use felt_service::Aggregate;
    use felt_tournament::aggregates::Seating;
    assert!(Seating::draws(&SeatingCommand::CloseRegistration));
    assert!(!Seating::draws(&SeatingCommand::HoldTable {
        table: 1,
        reason: "a ruling".into()
    }));
}

/// The room's pool is every tournament's: a table seating opens asks it
/// for a physical table, and gives it back when seating closes it, under
/// ids naming the tournament (two tournaments' decisions at the same
/// sequence are two commands); the table the pool gave goes back to that
/// tournament's seating by name.
#[test]
fn tables_opened_and_closed_go_to_the_rooms_pool_under_the_tournaments_ids() {
    use felt_room::{EventTable, RoomCommand, RoomEvent};
    let state = room(Settings::tda(9, 10_000), 18);
    let opened = vec![
        SeatingEvent::TableOpened { table: 3, seats: 9 },
        SeatingEvent::TableClosed { table: 2 },
    ];
    let at = |table: u32| EventTable {
        tournament: felt_vocabulary::TournamentId::new("t").unwrap(),
        table,
    };
    assert_eq!(
        felt_tournament::reactions::room::to_room(&cause(12, opened, &state)),
        vec![
            Order {
                id: "t-seating-12-room-3".into(),
                command: RoomCommand::Assign {
                    at: at(3),
                    seats: 9
                },
            },
            Order {
                id: "t-seating-12-room-2".into(),
                command: RoomCommand::Release { at: at(2) },
            },
        ]
    );
    assert_eq!(
        felt_tournament::reactions::room::named(
            7,
            &[RoomEvent::Assigned {
                at: at(3),
                name: "Red 2".into(),
                position: 1
            }]
        ),
        vec![(
            "t".to_string(),
            Order {
                id: "room-7-named-3".into(),
                command: SeatingCommand::NameTable {
                    table: 3,
                    name: "Red 2".into(),
                    position: 1
                },
            }
        )]
    );
}

/// Issue 27's add-on as reactions: the sale puts its price in the pool
/// (payout, under an id naming the entry) and its chips on the stack (the
/// carrier's order to the player's table, then seating told it is done,
/// each under an id naming the entry).
#[test]
fn an_add_on_sold_goes_to_payout_and_its_chips_to_the_table() {
    let mut settings = Settings::tda(9, 10_000);
    settings.add_on = Some(felt_seating::AddOnTerms {
        chips: 20_000,
        last_level: 2,
    });
    let mut state = room(settings, 12);
    let (entry, table, seat) = state
        .entries()
        .iter()
        .find_map(|(e, info)| match info.status {
            felt_seating::EntryStatus::Seated { table, seat } => Some((*e, table, seat)),
            _ => None,
        })
        .unwrap();
    let events = seating(&mut state, SeatingCommand::SellAddOn { entry, level: 1 });
    let sold = cause(40, events, &state);
    assert_eq!(
        entries::to_payout(&sold),
        vec![Order {
            id: format!("seating-40-add-on-{entry}"),
            command: felt_payout::Command::RecordAddOn { entry },
        }]
    );
    let carry = seats::carry(&sold, HouseRules::default());
    assert_eq!(
        carry.add_ons,
        vec![(
            entry,
            TableOrder {
                table,
                id: format!("add-on-{entry}"),
                command: Command::AddOn {
                    seat,
                    player: entry,
                    chips: 20_000,
                },
            }
        )]
    );
    let done = seats::add_on_delivered(entry);
    assert_eq!(done.id, format!("add-on-{entry}-done"));
    seating(&mut state, done.command);
    assert!(seats::pending(&state).add_ons.is_empty());
}

/// Rule 27's rebuy as reactions: each sale puts its price in the pool and
/// its chips on the stack, under ids naming the entry and the rebuy's
/// number, so a second rebuy is never taken for a repeat of the first.
#[test]
fn each_rebuy_sold_goes_to_payout_and_its_chips_to_the_table() {
    let mut settings = Settings::tda(9, 10_000);
    settings.rebuy = Some(felt_seating::RebuyTerms {
        chips: 10_000,
        last_level: 2,
        limit: 3,
        condition: felt_seating::RebuyCondition::AtOrBelowStart,
    });
    let mut state = room(settings, 12);
    let (entry, table, seat) = state
        .entries()
        .iter()
        .find_map(|(e, info)| match info.status {
            felt_seating::EntryStatus::Seated { table, seat } => Some((*e, table, seat)),
            _ => None,
        })
        .unwrap();
    for number in 1..=2 {
        let events = seating(
            &mut state,
            SeatingCommand::SellRebuy {
                entry,
                level: 1,
                stack: 3_000,
                hands: 0,
            },
        );
        let sold = cause(40 + u64::from(number), events, &state);
        assert_eq!(
            entries::to_payout(&sold),
            vec![Order {
                id: format!("seating-{}-rebuy-{entry}-{number}", 40 + number),
                command: felt_payout::Command::RecordRebuy { entry },
            }]
        );
        let carry = seats::carry(&sold, HouseRules::default());
        assert_eq!(
            carry.rebuys,
            vec![(
                entry,
                TableOrder {
                    table,
                    id: format!("rebuy-{entry}-{number}"),
                    command: Command::Rebuy {
                        seat,
                        player: entry,
                        chips: 10_000,
                        number,
                    },
                }
            )]
        );
        let done = seats::rebuy_delivered(entry, number);
        assert_eq!(done.id, format!("rebuy-{entry}-{number}-done"));
        seating(&mut state, done.command);
        assert!(seats::pending(&state).rebuys.is_empty());
    }
}

/// Seed 002, rule 77, as a chain: given the clock's drawn card (3), then
/// seating holds every table to three more hands under an id naming the
/// day; seating's last hand played ends the day at the clock; the clock's
/// next day lets the tables deal again. Each is sent once: run again, the
/// chain sends nothing more.
#[test]
fn the_days_end_goes_from_the_clock_to_seating_and_back() {
    let mut seating_state = room(Settings::tda(9, 10_000), 18);
    let drawn = clock_after(&[ClockCommand::EndDayAfter {
        at: 1_000,
        hands: 3,
    }]);
    let events = vec![felt_clock::ClockEvent::EndOfDayDrawn {
        at: 1_000,
        hands: 3,
        remaining: 0,
        draw: None,
    }];
    let cause = clock_cause(5, 1_000, events, &drawn);
    assert!(
        cause
            .events
            .iter()
            .any(felt_tournament::reactions::wanted_clock)
    );
    let orders = day::to_seating(&cause, &seating_state);
    assert_eq!(
        orders,
        vec![Order {
            id: "day-1-last-hands".into(),
            command: SeatingCommand::PlayLastHands { hands: 3 },
        }]
    );
    seating(&mut seating_state, orders[0].command.clone());
    assert!(day::to_seating(&cause, &seating_state).is_empty());
    // Seating's last hand played: the clock ends day 1.
    assert_eq!(
        day::to_clock(&SeatingEvent::LastHandsPlayed, &drawn, 2_000),
        Some(Order {
            id: "day-1-end".into(),
            command: ClockCommand::EndDay { at: 2_000 },
        })
    );
    let over = clock_after(&[
        ClockCommand::EndDayAfter {
            at: 1_000,
            hands: 3,
        },
        ClockCommand::EndDay { at: 2_000 },
    ]);
    assert_eq!(
        day::to_clock(&SeatingEvent::LastHandsPlayed, &over, 2_001),
        None
    );
    // The next day: the tables deal again.
    let next = clock_after(&[
        ClockCommand::EndDayAfter {
            at: 1_000,
            hands: 3,
        },
        ClockCommand::EndDay { at: 2_000 },
        ClockCommand::StartDay { at: 90_000 },
    ]);
    let events = vec![felt_clock::ClockEvent::DayStarted { at: 90_000, day: 2 }];
    let cause = clock_cause(9, 90_000, events, &next);
    let orders = day::to_seating(&cause, &seating_state);
    assert_eq!(
        orders,
        vec![Order {
            id: "day-2-resume".into(),
            command: SeatingCommand::ResumeDay,
        }]
    );
    seating(&mut seating_state, orders[0].command.clone());
    assert!(seating_state.room().last_hands.is_none());
    assert!(day::to_seating(&cause, &seating_state).is_empty());
}

/// A day set to end at its last level's end: the clock's `LastLevelEnded`
/// holds every table at seating to the hand it is playing (no more hands),
/// under the same id as a drawn card's, so a day's end is sent once.
#[test]
fn a_last_level_ended_holds_every_table_to_the_hand_it_plays() {
    let mut seating_state = room(Settings::tda(9, 10_000), 18);
    let clock = clock_after(&[]);
    let events = vec![felt_clock::ClockEvent::LastLevelEnded {
        at: 1_000,
        level: 4,
    }];
    let cause = clock_cause(5, 1_000, events, &clock);
    assert!(
        cause
            .events
            .iter()
            .any(felt_tournament::reactions::wanted_clock)
    );
    let orders = day::to_seating(&cause, &seating_state);
    assert_eq!(
        orders,
        vec![Order {
            id: "day-1-last-hands".into(),
            command: SeatingCommand::PlayLastHands { hands: 0 },
        }]
    );
    let events = seating(&mut seating_state, orders[0].command.clone());
    assert!(
        events.contains(&SeatingEvent::LastHandsDrawn { hands: 0 }),
        "{events:?}"
    );
    assert!(day::to_seating(&cause, &seating_state).is_empty());
    // A day seating ended at its count of players, the clock running:
    // the clock ends the day too.
    assert_eq!(
        day::to_clock(&SeatingEvent::LastHandsPlayed, &clock, 3_000),
        Some(Order {
            id: "day-1-end".into(),
            command: ClockCommand::EndDay { at: 3_000 },
        })
    );
}

/// Given three players paid in and registration closed, when the third
/// busts nothing is sent to the clock (third place); when the second busts
/// payout places the winner too, and the clock finishes at payout's time,
/// under an id naming payout's decision.
#[test]
fn the_winner_placed_stops_the_clock_for_good() {
    let mut payout = payout_of(3);
    pay(&mut payout, felt_payout::Command::CloseRegistration);
    let bust = |entry: u64| felt_payout::Command::RecordBusts {
        busts: vec![Bust {
            entry: EntryId(entry),
            table: 1,
            starting_stack: 10_000,
            by: vec![EntryId(3)],
            out: None,
            forfeit: false,
        }],
    };
    let third = pay(&mut payout, bust(1));
    assert_eq!(over::to_clock(&payout_cause(7, third, &payout)), None);
    let second = pay(&mut payout, bust(2));
    assert!(second.iter().any(over::wanted), "{second:?}");
    assert_eq!(
        over::to_clock(&payout_cause(9, second, &payout)),
        Some(Order {
            id: "payout-9-finish".into(),
            command: ClockCommand::Finish { at: 1_000 },
        })
    );
}

/// Given satellite "sat" (its house pays a second seat in cash) awarding
/// entry 4 a seat in "main", then the ticket goes to main's seating's
/// ledger under an id naming the satellite's decision and entry; when
/// main finds it its player's second seat (`TicketVoided`), then the
/// satellite's payout cashes it, under an id naming main's decision.
#[test]
fn a_satellites_ticket_reaches_its_events_ledger_and_a_second_seat_comes_back_as_cash() {
    let mut payout = PayoutState::default();
    let mut settings = felt_payout::MoneySettings::club();
    settings.structure = felt_payout::Structure::Satellite(felt_payout::SatelliteTerms {
        target: "main".into(),
        seat: 10_000,
        remainder: felt_payout::Remainder::NextPlace,
        deals: false,
        second_seat: felt_payout::SecondSeat::Cash,
    });
    pay(
        &mut payout,
        felt_payout::Command::Configure {
            name: "sat".into(),
            settings,
            busts: felt_payout::SimultaneousBusts::ByStartingStack,
        },
    );
    let won = felt_seating::Ticket {
        satellite: "sat".into(),
        entry: EntryId(4),
        holder: "p4".parse().unwrap(),
    };
    let awarded = Cause::<Payout> {
        stream: payout_stream("sat").unwrap(),
        position: 90,
        first: 12,
        command_id: "seating-40-busts".into(),
        correlation_id: None,
        recorded_at: 1_000,
        events: vec![PayoutEvent::TicketAwarded {
            entry: EntryId(4),
            player: "p4".parse().unwrap(),
            target: "main".into(),
            value: 10_000,
        }],
        state: payout.clone(),
    };
    assert!(awarded.events.iter().any(tickets::wanted_payout));
    assert_eq!(
        tickets::to_target(&awarded),
        vec![(
            "main".to_string(),
            Order {
                id: "payout-12-sat-ticket-4".into(),
                command: SeatingCommand::RecordTicket {
                    ticket: won.clone(),
                    cash_if_second: true,
                },
            }
        )]
    );
    let voided = Cause::<Seating> {
        stream: seating_stream("main").unwrap(),
        position: 95,
        first: 30,
        command_id: "payout-12-sat-ticket-4".into(),
        correlation_id: None,
        recorded_at: 1_100,
        events: vec![SeatingEvent::TicketVoided {
            ticket: won,
            held: "other/2".into(),
        }],
        state: SeatingState::default(),
    };
    assert!(voided.events.iter().any(tickets::wanted));
    assert_eq!(
        tickets::to_satellite(&voided),
        vec![(
            "sat".to_string(),
            Order {
                id: "seating-30-main-cash-4".into(),
                command: felt_payout::Command::CashTicket { entry: EntryId(4) },
            }
        )]
    );
    // A ticket recorded as it is sends nothing back.
    let recorded = Cause::<Seating> {
        events: vec![SeatingEvent::TicketRecorded {
            ticket: felt_seating::Ticket {
                satellite: "sat".into(),
                entry: EntryId(5),
                holder: "p5".parse().unwrap(),
            },
        }],
        ..voided
    };
    assert!(tickets::to_satellite(&recorded).is_empty());
}

/// A satellite whose field is within its seats when registration closes
/// wins them at seating's `SetSeats`, a decision with no hand in it: the
/// runner still hands its `SeatsWon` to the reactions, and payout awards
/// the seats (the first run of the two-satellite test in up.rs found
/// neither awarded).
#[test]
fn seats_won_at_the_close_alone_reach_payout() {
    let won = vec![SeatingEvent::SeatsWon {
        entries: vec![EntryId(1), EntryId(2)],
    }];
    assert!(won.iter().any(felt_tournament::reactions::wanted));
    let state = SeatingState::default();
    assert_eq!(
        hand_end::seats_won(&cause(14, won, &state)),
        Some(Order {
            id: "seating-14-seats-won".into(),
            command: felt_payout::Command::AwardSeats {
                entries: vec![EntryId(1), EntryId(2)]
            },
        })
    );
}

/// Session 37's audit failure (a flight's last 2,014 busts unplaced):
/// given 450 busts waiting at payout's close (200 placed by it, two more
/// decisions counted for the other 250), when 200 more busts are recorded
/// between the close and those two decisions, then they join the queue,
/// and the two counted decisions leave busts waiting, after which every
/// later bust waits too; the decisions past them
/// (`place_waiting_next`, sent until payout answers that nothing waits)
/// drain the queue, and a bust after that is placed at once.
#[test]
fn busts_recorded_while_the_closes_queue_is_placed_are_placed_after_it() {
    let mut payout = payout_of(800);
    let bust = |entry: u64| felt_payout::Command::RecordBusts {
        busts: vec![Bust {
            entry: EntryId(entry),
            table: 1,
            starting_stack: 10_000,
            by: vec![EntryId(800)],
            out: None,
            forfeit: false,
        }],
    };
    for entry in 1..=450 {
        pay(&mut payout, bust(entry));
    }
    let closed = pay(&mut payout, felt_payout::Command::CloseRegistration);
    let close = payout_cause(460, closed, &payout);
    let counted = registration::place_waiting(&close);
    assert_eq!(counted.len(), 2);
    for entry in 451..=650 {
        pay(&mut payout, bust(entry));
    }
    for order in counted {
        pay(&mut payout, order.command);
    }
    // The two counted decisions leave 50 waiting, and a bust now waits.
    assert_eq!(payout.waiting().len(), 50);
    pay(&mut payout, bust(651));
    assert_eq!(payout.waiting().len(), 51);
    // The decisions past them drain it, under ids naming the close.
    let mut n = 2;
    loop {
        n += 1;
        let order = registration::place_waiting_next(&close, n);
        assert_eq!(order.id, format!("payout-460-place-waiting-{n}"));
        match felt_payout::decide(&payout, &order.command) {
            Ok(events) => {
                for e in &events {
                    payout.apply(e);
                }
            }
            Err(felt_payout::PayoutError::NothingWaiting) => break,
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(n, 4, "one more decision, and the one told nothing waits");
    assert!(payout.waiting().is_empty());
    pay(&mut payout, bust(652));
    assert!(payout.waiting().is_empty());
    assert!(
        (1..=652).all(|e| payout.entry(EntryId(e)).is_some_and(|x| x.place.is_some())),
        "every bust placed"
    );
}
