//! Seating rules: given a room, when a command, then events or a refusal.

mod common;

use common::*;
use felt_seating::EntryId;
use felt_seating::{
    Balance, BreakOrder, Elimination, EntryStatus, MoveReason, SeatReason, SeatingCommand,
    SeatingError, SeatingEvent, SeatingState, Settings, decide, gate,
};
use felt_vocabulary::PlayerId;
use proptest::prelude::*;

fn started(settings: Settings, n: u64) -> SeatingState {
    let mut state = registered(settings, n);
    run_with(&mut state, SeatingCommand::Start, seed(42));
    carry_out(&mut state);
    state
}

type Moved = (u64, (u32, u8), (u32, u8), MoveReason);

fn moves(events: &[SeatingEvent]) -> Vec<Moved> {
    events
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::MoveStarted { r#move, .. } => {
                Some((r#move.entry.get(), r#move.from, r#move.to, r#move.reason))
            }
            _ => None,
        })
        .collect()
}

/// The first `n` entries seated at a table, by seat.
fn players_at(state: &SeatingState, table: u32, n: usize) -> Vec<u64> {
    state.room().tables[&table]
        .seats
        .iter()
        .flatten()
        .take(n)
        .map(|e| e.get())
        .collect()
}

fn counts(state: &SeatingState) -> Vec<u32> {
    state.room().tables.values().map(|t| t.count()).collect()
}

/// Ends a hand at a table with the big blind at `bb`.
fn hand(state: &mut SeatingState, table: u32, bb: u8, busted: Vec<u64>) -> Vec<SeatingEvent> {
    run(state, SeatingCommand::BeginHand { table });
    run_with(
        state,
        SeatingCommand::HandEnded {
            table,
            button: bb,
            big_blind: bb,
            busted: busted
                .into_iter()
                .map(|e| Elimination::of(EntryId(e)))
                .collect(),
        },
        seed(9),
    )
}

#[test]
fn the_random_draw_fills_tables_evenly_and_is_reproducible_from_the_seed() {
    let state = started(Settings::tda(9, 10_000), 40);
    // 40 players at 5 tables of 9: 8 each.
    assert_eq!(counts(&state), vec![8, 8, 8, 8, 8]);
    check_seats(&state);
    let again = started(Settings::tda(9, 10_000), 40);
    assert_eq!(state.room().tables, again.room().tables);
    let mut other = registered(Settings::tda(9, 10_000), 40);
    let events = run_with(&mut other, SeatingCommand::Start, seed(43));
    assert_ne!(state.room().tables, other.room().tables);
    // The draw records its seed, last, so it can be drawn again.
    assert_eq!(events.last(), Some(&SeatingEvent::Drawn { seed: seed(43) }));
}

/// A decision that draws nothing records no seed: a registration before
/// play, a hand's end that moves nobody at random.
#[test]
fn a_decision_that_draws_nothing_records_no_seed() {
    let mut state = registered(Settings::tda(9, 10_000), 20);
    let events = run_with(
        &mut state,
        SeatingCommand::Register {
            player: "early".parse().unwrap(),
            name: "Early".into(),
            level: 0,
        },
        seed(5),
    );
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, SeatingEvent::Drawn { .. }))
    );
    run_with(&mut state, SeatingCommand::Start, seed(6));
    carry_out(&mut state);
    let table = *state.room().tables.keys().next().unwrap();
    let events = hand(&mut state, table, 1, vec![]);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, SeatingEvent::Drawn { .. }))
    );
}

#[test]
fn duplicate_registrations_and_re_entries_follow_the_settings() {
    let mut settings = Settings::tda(9, 10_000);
    settings.re_entries = 1;
    settings.late_registration_level = 6;
    let mut state = started(settings, 18);
    assert_eq!(
        decide(
            &state,
            &SeatingCommand::Register {
                player: "p3".parse().unwrap(),
                name: "x".into(),
                level: 2,
            },
            &seed(1)
        ),
        Err(SeatingError::AlreadyRegistered {
            player: "p3".parse().unwrap(),
            entry: EntryId(3)
        })
    );
    // p3 busts and re-enters with a full stack at a random open seat.
    let table = match state.entries()[&EntryId(3)].status {
        EntryStatus::Seated { table, .. } => table,
        s => panic!("{s:?}"),
    };
    hand(&mut state, table, 1, vec![3]);
    let events = run_with(
        &mut state,
        SeatingCommand::Register {
            player: "p3".parse().unwrap(),
            name: "x".into(),
            level: 2,
        },
        seed(1),
    );
    assert!(matches!(
        events[0],
        SeatingEvent::Registered {
            entry: EntryId(19),
            re_entry: true,
            ..
        }
    ));
    assert!(events.iter().any(|e| matches!(
        e,
        SeatingEvent::Seated {
            entry: EntryId(19),
            stack: 10_000,
            reason: SeatReason::LateEntry,
            ..
        }
    )));
    carry_out(&mut state);
    let t19 = match state.entries()[&EntryId(19)].status {
        EntryStatus::Seated { table, .. } => table,
        s => panic!("{s:?}"),
    };
    hand(&mut state, t19, 1, vec![19]);
    assert_eq!(
        decide(
            &state,
            &SeatingCommand::Register {
                player: "p3".parse().unwrap(),
                name: "x".into(),
                level: 3,
            },
            &seed(2)
        ),
        Err(SeatingError::ReEntryLimit {
            player: "p3".parse().unwrap(),
            limit: 1
        })
    );
    assert_eq!(
        decide(
            &state,
            &SeatingCommand::Register {
                player: "new".parse().unwrap(),
                name: "x".into(),
                level: 7,
            },
            &seed(2)
        )
        .unwrap_err()
        .to_string(),
        "late registration ended after level 6; the clock is at level 7"
    );
}

#[test]
fn a_capped_field_takes_alternates_who_move_up_when_someone_unregisters() {
    let mut settings = Settings::club();
    settings.max_entries = Some(3);
    let mut state = registered(settings, 5);
    assert_eq!(state.entries()[&EntryId(4)].status, EntryStatus::Alternate);
    let unregister = |entry: u64| SeatingCommand::Unregister {
        entry: EntryId(entry),
        reason: "called away".into(),
        fee_kept: false,
    };
    let events = run(&mut state, unregister(2));
    assert_eq!(
        events,
        vec![
            SeatingEvent::Unregistered {
                entry: EntryId(2),
                alternate: false,
                reason: "called away".into(),
                fee_kept: false,
            },
            SeatingEvent::AlternatePromoted { entry: EntryId(4) }
        ]
    );
    // An alternate who leaves had paid nothing in, and the event says so
    // (payout refunds only an entry that had).
    let events = run(&mut state, unregister(5));
    assert_eq!(
        events,
        vec![SeatingEvent::Unregistered {
            entry: EntryId(5),
            alternate: true,
            reason: "called away".into(),
            fee_kept: false,
        }]
    );
    // (Issue 28: a flight bought but not played is refunded by the
    // house's rule.) Where the house keeps the fee, the refund says so.
    let kept = run(
        &mut state,
        SeatingCommand::Unregister {
            entry: EntryId(3),
            reason: "bagged in flight 1".into(),
            fee_kept: true,
        },
    );
    assert!(
        matches!(
            &kept[0],
            SeatingEvent::Unregistered {
                entry: EntryId(3),
                fee_kept: true,
                ..
            }
        ),
        "{kept:?}"
    );
    run_with(&mut state, SeatingCommand::Start, seed(1));
    assert_eq!(
        decide(&state, &unregister(1), &NO_DRAW),
        Err(SeatingError::AlreadyPlaying { entry: EntryId(1) })
    );
}

#[test]
fn a_satellites_ticket_buys_an_entry_outside_the_cap_once_and_only_for_its_holder() {
    // Given a field capped at 3 and full (4 and 5 are alternates),
    let mut settings = Settings::club();
    settings.max_entries = Some(3);
    let mut state = registered(settings, 5);
    let ticket = felt_seating::Ticket {
        satellite: "sat-1".into(),
        entry: EntryId(7),
        holder: "winner".parse().unwrap(),
    };
    let redeem = |player: &str| SeatingCommand::RedeemTicket {
        player: player.parse().unwrap(),
        name: "Seat Winner".into(),
        level: 0,
        ticket: ticket.clone(),
    };
    // when the satellite's seat winner registers with their ticket, then
    // the entry is in the field, not an alternate (a seat won is a seat),
    // and the cage records the ticket as its payment;
    let events = run(&mut state, redeem("winner"));
    assert_eq!(
        events,
        vec![
            SeatingEvent::Registered {
                entry: EntryId(6),
                player: "winner".parse().unwrap(),
                name: "Seat Winner".into(),
                re_entry: false,
                alternate: false,
            },
            SeatingEvent::PaymentTaken {
                entry: EntryId(6),
                purchase: felt_seating::Purchase::Entry,
                payment: felt_seating::Payment {
                    method: felt_seating::PaymentMethod::Ticket,
                    reference: "sat-1/7".into(),
                },
            },
        ]
    );
    assert_eq!(state.entries()[&EntryId(6)].status, EntryStatus::Registered);
    // the ticket's entry takes no place under the cap;
    let mut under = Settings::club();
    under.max_entries = Some(3);
    let mut under = registered(under, 2);
    run(&mut under, redeem("winner"));
    let cash = run(
        &mut under,
        SeatingCommand::Register {
            player: "cash".parse().unwrap(),
            name: "Cash".into(),
            level: 0,
        },
    );
    assert!(
        matches!(
            &cash[..],
            [SeatingEvent::Registered {
                alternate: false,
                ..
            }]
        ),
        "{cash:?}"
    );
    // the ticket is redeemed once;
    let mut again = state.clone();
    let left = run(
        &mut again,
        SeatingCommand::Unregister {
            entry: EntryId(6),
            reason: "moved to another flight".into(),
            fee_kept: true,
        },
    );
    // (it was outside the cap: no alternate takes its place; and the
    // ticket is freed whole, no fee kept from it)
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(
        matches!(
            &left[0],
            SeatingEvent::Unregistered {
                fee_kept: false,
                ..
            }
        ),
        "{left:?}"
    );
    assert_eq!(
        decide(&state, &redeem("winner"), &NO_DRAW),
        Err(SeatingError::TicketRedeemed {
            reference: "sat-1/7".into(),
            entry: EntryId(6)
        })
    );
    // (a refunded entry's ticket is free again)
    assert!(decide(&again, &redeem("winner"), &NO_DRAW).is_ok());
    // and it is only its holder's.
    assert_eq!(
        decide(&state, &redeem("someone-else"), &NO_DRAW),
        Err(SeatingError::TicketNotTheirs {
            reference: "sat-1/7".into(),
            holder: "winner".parse().unwrap(),
            player: "someone-else".parse().unwrap(),
        })
    );
    // Nobody records a ticket as a payment without it being checked.
    let faked = SeatingCommand::Paid {
        payment: felt_seating::Payment {
            method: felt_seating::PaymentMethod::Ticket,
            reference: "sat-1/8".into(),
        },
        command: Box::new(SeatingCommand::Register {
            player: "faker".parse().unwrap(),
            name: "Faker".into(),
            level: 0,
        }),
    };
    assert!(matches!(
        decide(&state, &faked, &NO_DRAW),
        Err(SeatingError::InvalidPayment { .. })
    ));
}

#[test]
fn a_satellite_stops_once_no_more_players_are_left_than_seats() {
    // Given a satellite of 6 at one table, registration closed,
    let mut settings = Settings::tda(9, 10_000);
    settings.satellite = true;
    let mut state = started(settings, 6);
    run_with(&mut state, SeatingCommand::CloseRegistration, seed(1));
    // when its seats are not yet known, then no hand begins;
    let e = decide(&state, &SeatingCommand::BeginHand { table: 1 }, &NO_DRAW).unwrap_err();
    assert!(e.to_string().contains("seats are being set"), "{e}");
    // given payout's three seats,
    run(&mut state, SeatingCommand::SetSeats { seats: 3 });
    // when a hand leaves four, play goes on;
    let events = hand(&mut state, 1, 2, vec![1, 2]);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, SeatingEvent::SeatsWon { .. }))
    );
    // when the next leaves three, then they each win a seat (and nobody
    // is dealt another hand).
    let events = hand(&mut state, 1, 3, vec![3]);
    assert_eq!(
        events.last(),
        Some(&SeatingEvent::SeatsWon {
            entries: vec![EntryId(4), EntryId(5), EntryId(6)]
        })
    );
    let e = decide(&state, &SeatingCommand::BeginHand { table: 1 }, &NO_DRAW).unwrap_err();
    assert!(e.to_string().contains("the satellite is over"), "{e}");
}

#[test]
fn late_entries_open_a_table_when_every_table_is_full() {
    let mut settings = Settings::tda(6, 5_000);
    settings.late_registration_level = 4;
    let mut state = started(settings, 12);
    assert_eq!(counts(&state), vec![6, 6]);
    let events = run_with(
        &mut state,
        SeatingCommand::Register {
            player: "late".parse().unwrap(),
            name: "Late".into(),
            level: 1,
        },
        seed(5),
    );
    assert!(events.contains(&SeatingEvent::TableOpened { table: 3, seats: 6 }));
    // Tables 1 and 2 (between hands) send their next big blinds over
    // until the tables are within one: 4, 5, 4.
    assert_eq!(moves(&events).len(), 3);
    assert_eq!(counts(&state), vec![4, 5, 4]);
    carry_out(&mut state);
    gate(&state, 3).unwrap();
}

#[test]
fn balancing_moves_the_next_big_blind_to_the_worst_seat_of_the_short_table() {
    // TDA 11, worked: table 1 has 9, table 2 has 7 after two busts.
    let mut state = started(Settings::tda(9, 10_000), 18);
    let at2: Vec<u64> = players_at(&state, 2, usize::MAX);
    // Table 2's hand: big blind seat 4, two players bust.
    let events = hand(&mut state, 2, 4, at2[..2].to_vec());
    // Table 1 is between hands too: its next big blind (after its last
    // big blind; no hand yet, so after seat 9: seat 1) moves to table 2's
    // first free seat after its big blind, seat 4.
    let m = moves(&events);
    assert_eq!(m.len(), 1);
    let (entry, from, to, reason) = m[0];
    assert_eq!(reason, MoveReason::Balance);
    assert_eq!(from, (1, 1));
    assert_eq!(to.0, 2);
    let t2 = &state.room().tables[&2];
    let first_free_after_bb = (5..=9)
        .chain(1..=4)
        .find(|&s| t2.occupant(s).is_none() || t2.occupant(s) == Some(EntryId(entry)))
        .unwrap();
    assert_eq!(to.1, first_free_after_bb);
    assert_eq!(counts(&state), vec![8, 8]);
    // Not carried out yet: neither table may deal.
    assert!(matches!(
        gate(&state, 1),
        Err(SeatingError::MustWait { .. })
    ));
    assert!(matches!(
        gate(&state, 2),
        Err(SeatingError::MustWait { .. })
    ));
    carry_out(&mut state);
    gate(&state, 1).unwrap();
    // The history says why.
    let record = state.history().last().unwrap();
    assert_eq!(record.detail, "table 1 had 9, table 2 had 7");
    assert!(record.completed);
}

#[test]
fn a_long_table_in_a_hand_moves_its_player_when_its_hand_ends() {
    let mut state = started(Settings::tda(9, 10_000), 18);
    run(&mut state, SeatingCommand::BeginHand { table: 1 });
    let at2: Vec<u64> = players_at(&state, 2, usize::MAX);
    let events = hand(&mut state, 2, 4, at2[..2].to_vec());
    assert!(moves(&events).is_empty(), "table 1 is in a hand");
    let events = run_with(
        &mut state,
        SeatingCommand::HandEnded {
            table: 1,
            button: 2,
            big_blind: 3,
            busted: vec![],
        },
        seed(1),
    );
    let m = moves(&events);
    assert_eq!(m.len(), 1);
    // The next big blind after seat 3.
    assert_eq!(m[0].1, (1, 4));
}

#[test]
fn in_full_table_events_a_table_three_short_stops_until_balanced() {
    let mut state = started(Settings::tda(9, 10_000), 18);
    run(&mut state, SeatingCommand::BeginHand { table: 1 });
    let at2: Vec<u64> = players_at(&state, 2, usize::MAX);
    hand(&mut state, 2, 4, at2[..3].to_vec());
    assert_eq!(counts(&state), vec![9, 6]);
    assert_eq!(
        gate(&state, 2).unwrap_err().to_string(),
        "table 2 must wait: 6 players, 3 short of the longest table: play stops until balanced (TDA 11)"
    );
    // Under the club rule it plays on (6 or more).
    let mut club = started(
        Settings {
            balance: Balance::CLUB,
            ..Settings::tda(9, 10_000)
        },
        18,
    );
    run(&mut club, SeatingCommand::BeginHand { table: 1 });
    let at2: Vec<u64> = players_at(&club, 2, usize::MAX);
    hand(&mut club, 2, 4, at2[..3].to_vec());
    gate(&club, 2).unwrap();
    run(&mut club, SeatingCommand::BeginHand { table: 2 });
    // ...and stops at 5.
    let at2: Vec<u64> = players_at(&club, 2, usize::MAX);
    run_with(
        &mut club,
        SeatingCommand::HandEnded {
            table: 2,
            button: 1,
            big_blind: 2,
            busted: vec![Elimination::of(EntryId(at2[0]))],
        },
        seed(3),
    );
    assert!(
        gate(&club, 2)
            .unwrap_err()
            .to_string()
            .contains("play stops below 6")
    );
}

#[test]
fn the_highest_numbered_table_breaks_and_its_players_go_to_random_open_seats() {
    let mut state = started(Settings::tda(9, 10_000), 27);
    assert_eq!(counts(&state), vec![9, 9, 9]);
    // Nine busts on tables 1 and 2 (between hands): 18 fit on 2 tables.
    let busts1: Vec<u64> = players_at(&state, 1, 5);
    run(&mut state, SeatingCommand::BeginHand { table: 3 });
    hand(&mut state, 1, 2, busts1);
    carry_out(&mut state);
    let busts2: Vec<u64> = players_at(&state, 2, 4);
    let events = hand(&mut state, 2, 2, busts2);
    assert!(events.contains(&SeatingEvent::TableBreaking { table: 3 }));
    assert!(moves(&events).is_empty(), "table 3 is in a hand");
    assert!(gate(&state, 3).is_err());
    let events = run_with(
        &mut state,
        SeatingCommand::HandEnded {
            table: 3,
            button: 1,
            big_blind: 3,
            busted: vec![],
        },
        seed(77),
    );
    let m = moves(&events);
    assert_eq!(m.len(), 9);
    assert!(
        m.iter()
            .all(|(_, from, to, r)| from.0 == 3 && to.0 != 3 && *r == MoveReason::TableBroken)
    );
    let events = carry_out(&mut state);
    assert!(events.contains(&SeatingEvent::TableClosed { table: 3 }));
    assert_eq!(counts(&state), vec![9, 9]);
    check_seats(&state);
}

/// Issue 26 (seats): "a tournament's tables are drawn from the pool and
/// break in an order that follows the room's layout when the director sets
/// one". Given three tables the room's pool placed at positions 2, 0 and 1
/// of its layout, when one must break, then the one placed last breaks,
/// not the highest numbered; a table with no physical table breaks before
/// any.
#[test]
fn tables_break_from_the_end_of_the_rooms_layout_back() {
    let mut settings = Settings::tda(9, 10_000);
    settings.break_order = BreakOrder::Layout;
    let mut state = started(settings, 27);
    for (table, name, position) in [(1, "Red 3", 2), (2, "Red 1", 0), (3, "Red 2", 1)] {
        let events = run(
            &mut state,
            SeatingCommand::NameTable {
                table,
                name: name.into(),
                position,
            },
        );
        assert_eq!(
            events,
            vec![SeatingEvent::TableNamed {
                table,
                name: name.into(),
                position
            }]
        );
    }
    assert_eq!(
        state.room().physical.get(&1),
        Some(&("Red 3".to_string(), 2))
    );
    let busts: Vec<u64> = players_at(&state, 2, 9);
    let events = hand(&mut state, 2, 2, busts);
    assert!(
        events.contains(&SeatingEvent::TableBreaking { table: 1 }),
        "{events:?}"
    );
    // A table seating never opened is not named.
    assert_eq!(
        try_run(
            &mut state,
            SeatingCommand::NameTable {
                table: 9,
                name: "Red 9".into(),
                position: 8
            }
        ),
        Err(SeatingError::NoSuchTable { table: 9 })
    );
}

#[test]
fn a_break_order_can_be_given() {
    let mut settings = Settings::tda(9, 10_000);
    settings.break_order = BreakOrder::Listed(vec![2]);
    let mut state = started(settings, 27);
    let busts: Vec<u64> = players_at(&state, 1, 9);
    let events = hand(&mut state, 1, 2, busts);
    assert!(
        events.contains(&SeatingEvent::TableBreaking { table: 2 }),
        "{events:?}"
    );
    // Table 2 was between hands: its players are on the way.
    assert!(
        moves(&events)
            .iter()
            .any(|m| m.1.0 == 2 && m.3 == MoveReason::TableBroken)
    );
}

#[test]
fn the_final_table_is_drawn_when_the_field_fits_and_waits_for_every_hand() {
    let mut state = started(Settings::tda(9, 10_000), 18);
    // Table 2 in a hand while table 1 loses 9 - 3 players... 18 -> 9.
    run(&mut state, SeatingCommand::BeginHand { table: 2 });
    let busts: Vec<u64> = players_at(&state, 1, 5);
    let events = hand(&mut state, 1, 2, busts);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, SeatingEvent::TableBreaking { .. }))
            || moves(&events).is_empty()
    );
    carry_out(&mut state);
    let busts: Vec<u64> = players_at(&state, 2, 4);
    let events = run_with(
        &mut state,
        SeatingCommand::HandEnded {
            table: 2,
            button: 1,
            big_blind: 2,
            busted: busts
                .into_iter()
                .map(|e| Elimination::of(EntryId(e)))
                .collect(),
        },
        seed(5),
    );
    assert!(events.iter().any(|e| matches!(
        e,
        SeatingEvent::RedrawCalled {
            players: 9,
            reason: MoveReason::FinalTable
        }
    )));
    assert!(events.iter().any(|e| matches!(
        e,
        SeatingEvent::Redrawn {
            reason: MoveReason::FinalTable
        }
    )));
    carry_out(&mut state);
    assert_eq!(state.room().tables.len(), 1);
    assert_eq!(counts(&state), vec![9]);
    check_seats(&state);
}

#[test]
fn hand_for_hand_near_the_money_gates_every_table_by_round() {
    let mut settings = Settings::tda(9, 10_000);
    settings.paid = 15;
    settings.hand_for_hand_distance = 1;
    let mut state = started(settings, 18);
    // Two busts at table 1: 16 left, one from the money.
    let busts: Vec<u64> = players_at(&state, 1, 2);
    let events = hand(&mut state, 1, 2, busts);
    assert!(events.contains(&SeatingEvent::HandForHandStarted {
        remaining: 16,
        paid: 15
    }));
    carry_out(&mut state);
    hand(&mut state, 1, 3, vec![]);
    assert_eq!(
        gate(&state, 1).unwrap_err().to_string(),
        "table 1 must wait: hand-for-hand: other tables are still playing this hand"
    );
    let events = hand(&mut state, 2, 3, vec![]);
    assert!(events.contains(&SeatingEvent::HandForHandRound { round: 1 }));
    gate(&state, 1).unwrap();
    // A double bust on the bubble at different tables ends it.
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
    run(&mut state, SeatingCommand::BeginHand { table: 1 });
    run(&mut state, SeatingCommand::BeginHand { table: 2 });
    let first = run_with(
        &mut state,
        SeatingCommand::HandEnded {
            table: 1,
            button: 1,
            big_blind: 2,
            busted: vec![Elimination::of(b1)],
        },
        seed(1),
    );
    assert!(
        first.contains(&SeatingEvent::HandForHandEnded {
            remaining: 15,
            round: Some(2)
        }),
        "{first:?}"
    );
    let second = run_with(
        &mut state,
        SeatingCommand::HandEnded {
            table: 2,
            button: 1,
            big_blind: 2,
            busted: vec![Elimination::of(b2)],
        },
        seed(1),
    );
    // Both busts carry the round they happened in, for payout to share places.
    let rounds: Vec<Option<u64>> = first
        .iter()
        .chain(&second)
        .filter_map(|e| match e {
            SeatingEvent::Busted {
                hand_for_hand_round,
                ..
            } => Some(*hand_for_hand_round),
            _ => None,
        })
        .collect();
    assert_eq!(rounds, vec![Some(2), Some(2)]);
}

#[test]
fn the_floor_starts_and_stops_hand_for_hand_and_the_bubble_brings_it_back() {
    let mut settings = Settings::tda(9, 10_000);
    settings.paid = 10;
    let mut state = started(settings, 27);
    // Far from the money, the floor starts it (say, for a satellite).
    let events = run(&mut state, SeatingCommand::StartHandForHand);
    assert_eq!(
        events,
        vec![SeatingEvent::HandForHandStarted {
            remaining: 27,
            paid: 10
        }]
    );
    assert_eq!(
        decide(&state, &SeatingCommand::StartHandForHand, &NO_DRAW)
            .unwrap_err()
            .to_string(),
        "hand-for-hand: already being played (TDA RP8)"
    );
    // Tables play one hand at a time.
    hand(&mut state, 1, 2, vec![]);
    assert!(gate(&state, 1).is_err());
    hand(&mut state, 2, 2, vec![]);
    let events = hand(&mut state, 3, 2, vec![]);
    assert!(events.contains(&SeatingEvent::HandForHandRound { round: 1 }));
    // The floor stops it; play goes on table by table.
    let events = run(&mut state, SeatingCommand::StopHandForHand);
    assert_eq!(
        events,
        vec![SeatingEvent::HandForHandEnded {
            remaining: 27,
            round: Some(2)
        }]
    );
    assert!(state.room().hand_for_hand.is_none());
    hand(&mut state, 1, 3, vec![]);
    gate(&state, 1).unwrap();
    assert_eq!(
        decide(&state, &SeatingCommand::StopHandForHand, &NO_DRAW)
            .unwrap_err()
            .to_string(),
        "hand-for-hand: it is not being played (TDA RP8)"
    );
    // Stopped before the bubble, it still starts there: one bust a hand
    // down to 11 players.
    let mut started_at = Vec::new();
    while state.room().players() > 11 {
        carry_out(&mut state);
        let table = *state
            .room()
            .tables
            .iter()
            .find(|(t, info)| info.count() >= 3 && gate(&state, **t).is_ok())
            .unwrap()
            .0;
        let out = players_at(&state, table, 1);
        for e in hand(&mut state, table, 1, out) {
            if let SeatingEvent::HandForHandStarted { remaining, .. } = e {
                started_at.push(remaining);
            }
        }
    }
    assert_eq!(started_at, vec![11]);
}

#[test]
fn the_floor_cannot_start_hand_for_hand_at_one_table() {
    let state = started(Settings::tda(9, 10_000), 9);
    assert_eq!(
        decide(&state, &SeatingCommand::StartHandForHand, &NO_DRAW)
            .unwrap_err()
            .to_string(),
        "hand-for-hand: it needs two tables in play, there are 1 (TDA RP8)"
    );
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let mut state = started(Settings::tda(9, 10_000), 18);
    let before = state.clone();
    let someone_at_2 = *state.room().tables[&2]
        .seats
        .iter()
        .flatten()
        .next()
        .unwrap();
    assert_eq!(
        decide(
            &state,
            &SeatingCommand::HandEnded {
                table: 1,
                button: 1,
                big_blind: 2,
                busted: vec![],
            },
            &seed(1)
        ),
        Err(SeatingError::NoHand { table: 1 })
    );
    run(&mut state, SeatingCommand::BeginHand { table: 1 });
    let in_hand = state.clone();
    assert_eq!(
        decide(
            &state,
            &SeatingCommand::HandEnded {
                table: 1,
                button: 1,
                big_blind: 2,
                busted: vec![Elimination::of(someone_at_2)],
            },
            &seed(1)
        ),
        Err(SeatingError::NotAtTable {
            entry: someone_at_2,
            table: 1
        })
    );
    assert!(
        decide(&state, &SeatingCommand::BeginHand { table: 1 }, &NO_DRAW)
            .unwrap_err()
            .to_string()
            .contains("still being played")
    );
    assert_eq!(
        decide(&state, &SeatingCommand::Start, &seed(1)),
        Err(SeatingError::AlreadyStarted)
    );
    assert_eq!(
        decide(
            &state,
            &SeatingCommand::MoveCompleted { id: 99, stack: 1 },
            &[0; 32]
        ),
        Err(SeatingError::NoSuchMove { id: 99 })
    );
    assert_eq!(state, in_hand);
    assert_ne!(before, in_hand);
    let bad = Settings {
        table_size: 11,
        ..Settings::tda(9, 1)
    };
    assert_eq!(
        decide(
            &SeatingState::default(),
            &SeatingCommand::Create {
                name: "x".into(),
                settings: bad
            },
            &NO_DRAW
        )
        .unwrap_err()
        .to_string(),
        "invalid seating settings: a table has 2 to 10 seats, not 11"
    );
}

#[test]
fn redraws_at_set_counts() {
    let mut settings = Settings::tda(9, 10_000);
    settings.redraws_at = vec![20];
    settings.final_table = 9;
    let mut state = started(settings, 27);
    let x = 7u64;
    let seen = play_out(&mut state, x);
    assert!(
        seen.moves.iter().any(|m| m.0 == MoveReason::Redraw),
        "{:?}",
        seen.moves
    );
    assert!(seen.moves.iter().any(|m| m.0 == MoveReason::FinalTable));
}

/// "Assentos de torneios e satélites serão designados aleatoriamente"
/// (seed 000, TDA 7): a redraw that waited for a move to be carried out or
/// a seat to be taken is drawn from the seed the service draws when it
/// decides that command, never from a constant one (`carry_out` decides
/// each such command with three seeds, checks the draws differ and that
/// the decision records its seed).
#[test]
fn a_redraw_that_waited_for_a_move_or_a_seat_is_drawn_from_the_seed_handed_in() {
    REDRAWS_CHECKED.set(0);
    for x in 1..=12u64 {
        let mut settings = Settings::tda(9, 10_000);
        settings.redraws_at = vec![40, 20];
        let mut state = started(settings, 60);
        play_out(&mut state, x);
    }
    assert!(
        REDRAWS_CHECKED.get() > 0,
        "no redraw waited for a move or a seat in twelve tournaments"
    );
}

#[test]
fn five_hundred_players_play_down_to_one() {
    let mut state = started(Settings::tda(9, 10_000), 500);
    assert_eq!(state.room().tables.len(), 56);
    let seen = play_out(&mut state, 0x5eed);
    assert_eq!(state.room().players(), 1);
    assert_eq!(seen.final_table_formed_at.map(|p| p <= 9), Some(true));
    assert!(seen.moves.iter().any(|m| m.0 == MoveReason::Balance));
    assert!(seen.moves.iter().any(|m| m.0 == MoveReason::TableBroken));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn random_bust_sequences_never_lose_or_duplicate_a_player(
        n in 2u64..700,
        size in prop::sample::select(vec![6u8, 8, 9, 10]),
        club in any::<bool>(),
        x in 1u64..u64::MAX,
    ) {
        let mut settings = Settings::tda(size, 10_000);
        if club { settings.balance = Balance::CLUB; }
        let mut state = started(settings, n);
        play_out(&mut state, x);
        prop_assert_eq!(state.room().players(), 1);
        let busted = state.entries().values().filter(|e| e.status == EntryStatus::Busted).count() as u64;
        prop_assert_eq!(busted, n - 1);
        // Each busted entry has its own number in the order players went
        // out, 1 to n - 1.
        let mut out: Vec<u32> = state.out().values().copied().collect();
        out.sort_unstable();
        prop_assert_eq!(out, (1..n as u32).collect::<Vec<_>>());
        prop_assert!(state.out().keys().all(|e| state.entries()[e].status == EntryStatus::Busted));
    }
}

#[test]
fn ten_thousand_entries_play_down_to_one() {
    let mut state = started(Settings::tda(9, 60_000), 10_000);
    assert_eq!(state.room().tables.len(), 1_112);
    play_out(&mut state, 0xfe17);
    assert_eq!(state.room().players(), 1);
}

#[test]
fn many_registrations_at_once_are_each_a_registration_all_or_none() {
    let mut settings = Settings::tda(9, 10_000);
    settings.late_registration_level = 4;
    let mut state = registered(settings.clone(), 2);
    // When a list of presales comes in, then each is an entry in order.
    let players: Vec<(PlayerId, String)> = (3..=12)
        .map(|i| (format!("p{i}").parse().unwrap(), format!("Player {i}")))
        .collect();
    let events = run_with(
        &mut state,
        SeatingCommand::RegisterMany {
            players: players.clone(),
            level: 0,
        },
        seed(1),
    );
    let entries: Vec<u64> = events
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::Registered { entry, .. } => Some(entry.get()),
            _ => None,
        })
        .collect();
    assert_eq!(entries, (3..=12).collect::<Vec<_>>());
    // A list with one player already in is refused, naming them, and
    // registers nobody.
    let before = state.clone();
    let again = vec![
        ("p13".parse().unwrap(), "Player 13".to_string()),
        ("p5".parse().unwrap(), "Player 5".to_string()),
    ];
    assert_eq!(
        decide(
            &state,
            &SeatingCommand::RegisterMany {
                players: again,
                level: 0,
            },
            &seed(2)
        ),
        Err(SeatingError::AlreadyRegistered {
            player: "p5".parse().unwrap(),
            entry: EntryId(5)
        })
    );
    assert_eq!(state, before);
    // After the start, each late entry of a list gets its own random seat.
    run_with(&mut state, SeatingCommand::Start, seed(3));
    carry_out(&mut state);
    let late = run_with(
        &mut state,
        SeatingCommand::RegisterMany {
            players: vec![
                ("p13".parse().unwrap(), "Player 13".into()),
                ("p14".parse().unwrap(), "Player 14".into()),
            ],
            level: 2,
        },
        seed(4),
    );
    let seated: Vec<(u32, u8)> = late
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::Seated {
                table,
                seat,
                reason: SeatReason::LateEntry,
                ..
            } => Some((*table, *seat)),
            _ => None,
        })
        .collect();
    assert_eq!(seated.len(), 2);
    assert_ne!(seated[0], seated[1]);
}

/// Chips that could not all be counted: a starting stack times the largest
/// field over `MAX_CHIPS` is refused when the tournament is created, so no
/// table or count of chips can overflow later.
#[test]
fn a_starting_stack_the_field_could_not_count_is_refused() {
    // Given nothing, when a tournament with a stack of 2^64 - 1 is created,
    // then refused, naming the bound.
    let create = |settings: Settings| {
        decide(
            &SeatingState::default(),
            &SeatingCommand::Create {
                name: "Huge".into(),
                settings,
            },
            &NO_DRAW,
        )
    };
    let Err(SeatingError::InvalidSettings { reason }) = create(Settings::tda(9, u64::MAX)) else {
        panic!("a stack of 2^64 - 1 was taken");
    };
    assert!(
        reason.contains(&felt_seating::MAX_CHIPS.to_string()),
        "{reason}"
    );
    // A cap makes a larger stack fit: 2^60 chips over 1,000 entries.
    let mut capped = Settings::tda(9, felt_seating::MAX_CHIPS / 1_000);
    capped.max_entries = Some(1_000);
    assert!(create(capped.clone()).is_ok());
    capped.max_entries = Some(felt_seating::MAX_ENTRIES + 1);
    assert!(matches!(
        create(capped),
        Err(SeatingError::InvalidSettings { .. })
    ));
    // The largest stack that fits the largest field.
    let largest = felt_seating::MAX_CHIPS / u64::from(felt_seating::MAX_ENTRIES);
    assert!(create(Settings::tda(9, largest)).is_ok());
    assert!(create(Settings::tda(9, largest + 1)).is_err());
}

/// The places paid ("a faixa de premiação" that hand-for-hand plays down
/// to, seed 002 rule 308 / TDA RP8) come from payout's pay sheet, fixed once
/// when registration closes. A second `SetPaid`, such as the reaction run
/// again under another id after a crash, is refused and redraws nothing.
#[test]
fn the_places_paid_are_set_once_and_a_second_set_changes_nothing() {
    // Given a started room whose registration closed and whose places paid
    // payout set,
    let mut state = started(Settings::tda(9, 10_000), 30);
    run(&mut state, SeatingCommand::CloseRegistration);
    let events = run_with(&mut state, SeatingCommand::SetPaid { paid: 4 }, seed(7));
    assert_eq!(events[0], SeatingEvent::PaidSet { paid: 4 });
    assert_eq!(state.room().paid, 4);
    // when payout's places are set again (the same or others),
    for paid in [4, 9] {
        let again = decide(&state, &SeatingCommand::SetPaid { paid }, &seed(8));
        // then refused, naming the places already set.
        assert_eq!(again, Err(SeatingError::PaidAlreadySet { paid: 4 }));
    }
    assert_eq!(state.room().paid, 4);
}

#[test]
fn a_result_at_a_results_only_table_ends_a_hand_nobody_asked_to_begin() {
    // Given two tables of 9, table 2 recording results only (its dealer
    // never asks to begin a hand)
    let mut state = started(Settings::tda(9, 10_000), 18);
    let at2: Vec<u64> = players_at(&state, 2, usize::MAX);
    // When the floor records two busts there, with the button reported on 4
    let events = run_with(
        &mut state,
        SeatingCommand::ResultRecorded {
            table: 2,
            button: 4,
            big_blind: 6,
            busted: at2[..2]
                .iter()
                .map(|&e| Elimination::of(EntryId(e)))
                .collect(),
        },
        seed(5),
    );
    // Then the hand begins and ends in one decision, both busts are
    // recorded, and the room is balanced at once (TDA 11): table 1 moves
    // a player to table 2, whose big blind is where the floor said
    assert_eq!(events[0], SeatingEvent::HandBegun { table: 2 });
    assert!(matches!(
        events[1],
        SeatingEvent::HandEnded {
            table: 2,
            button: 4,
            big_blind: 6,
            ..
        }
    ));
    let busts = events
        .iter()
        .filter(|e| matches!(e, SeatingEvent::Busted { table: 2, .. }))
        .count();
    assert_eq!(busts, 2);
    let m = moves(&events);
    assert_eq!(m.len(), 1, "{events:?}");
    assert_eq!((m[0].1.0, m[0].2.0), (1, 2));
    assert_eq!(state.room().tables[&2].button, Some(4));
    assert!(!state.room().tables[&2].in_hand);
}

#[test]
fn a_player_busted_at_a_results_only_table_before_their_move_never_moves() {
    // Given two tables of 9, where two busts at table 1 started a move
    // from table 2 to table 1 that no table has carried out yet
    let mut state = started(Settings::tda(9, 10_000), 18);
    let at1: Vec<u64> = players_at(&state, 1, usize::MAX);
    let result = |table: u32, out: &[u64]| SeatingCommand::ResultRecorded {
        table,
        button: 1,
        big_blind: 3,
        busted: out.iter().map(|&e| Elimination::of(EntryId(e))).collect(),
    };
    let events = run_with(&mut state, result(1, &at1[..2]), seed(5));
    let m = moves(&events);
    assert_eq!(m.len(), 1, "{events:?}");
    let (mover, from, to, _) = m[0];
    assert_eq!((from.0, to.0), (2, 1));
    let id = state.room().moves.keys().copied().next().unwrap();
    // When the floor at table 2 (results only) records that player's bust
    let events = run_with(&mut state, result(2, &[mover]), seed(6));
    // Then the move is void, the bust stands at table 2, and the seat held
    // at table 1 is no longer theirs
    assert_eq!(events[0], SeatingEvent::MoveVoided { id });
    assert!(events.iter().any(|e| matches!(
        e,
        SeatingEvent::Busted { entry, table: 2, .. } if entry.get() == mover
    )));
    assert!(!state.room().moves.contains_key(&id));
    assert!(
        state.room().tables[&1]
            .seats
            .iter()
            .flatten()
            .all(|e| e.get() != mover),
        "table 1 does not hold a seat for a busted player"
    );
    assert!(state.history().iter().all(|r| r.r#move.id != id));
}

#[test]
fn a_result_at_a_table_seating_breaks_voids_the_busted_players_move() {
    // Given three tables of 6 (18 players), where busts at table 1 make
    // seating break table 3 (results only): its players are all on their
    // way to the other tables
    let mut state = started(Settings::tda(6, 10_000), 18);
    let at1: Vec<u64> = players_at(&state, 1, usize::MAX);
    let at3: Vec<u64> = players_at(&state, 3, usize::MAX);
    let result = |table: u32, out: &[u64]| SeatingCommand::ResultRecorded {
        table,
        button: 1,
        big_blind: 3,
        busted: out.iter().map(|&e| Elimination::of(EntryId(e))).collect(),
    };
    let events = run_with(&mut state, result(1, &at1), seed(5));
    assert!(
        events.contains(&SeatingEvent::TableBreaking { table: 3 }),
        "{events:?}"
    );
    let mover = at3[0];
    let id = state
        .room()
        .moves
        .values()
        .find(|m| m.entry.get() == mover)
        .unwrap()
        .id;
    // When the floor at table 3 records that player's bust, from a hand
    // dealt before the players left
    let events = run_with(&mut state, result(3, &[mover]), seed(6));
    // Then the move never happens and the bust stands
    assert_eq!(events[0], SeatingEvent::MoveVoided { id });
    assert!(events.iter().any(|e| matches!(
        e,
        SeatingEvent::Busted { entry, table: 3, .. } if entry.get() == mover
    )));
    assert!(!state.room().moves.contains_key(&id));
    assert_eq!(
        state.entries()[&EntryId(mover)].status,
        felt_seating::EntryStatus::Busted
    );
    // Once every other move is done the table is closed; a result the
    // floor records there afterwards with nobody out decides nothing
    let pending: Vec<u64> = state.room().moves.keys().copied().collect();
    for id in pending {
        run(
            &mut state,
            SeatingCommand::MoveCompleted { id, stack: 10_000 },
        );
    }
    assert!(!state.room().tables.contains_key(&3));
    assert_eq!(run_with(&mut state, result(3, &[]), seed(7)), vec![]);
}

#[test]
fn a_result_reported_after_the_table_began_a_recorded_hand_leaves_that_hand_in_play() {
    // Given table 2, back to recording actions, dealing a hand seating
    // granted, when its last result (recorded before, reported late)
    // reaches seating
    let mut state = started(Settings::tda(9, 10_000), 18);
    let at2: Vec<u64> = players_at(&state, 2, usize::MAX);
    run(&mut state, SeatingCommand::BeginHand { table: 2 });
    let events = run_with(
        &mut state,
        SeatingCommand::ResultRecorded {
            table: 2,
            button: 4,
            big_blind: 6,
            busted: vec![Elimination::of(EntryId(at2[0]))],
        },
        seed(5),
    );
    // Then the bust is recorded and the hand in play goes on: seating
    // moves nobody from or to the table until it ends (TDA 11)
    assert!(
        matches!(events.as_slice(), [SeatingEvent::Busted { table: 2, .. }]),
        "{events:?}"
    );
    assert!(state.room().tables[&2].in_hand);
    assert!(moves(&events).is_empty());
}

fn late(n: u64) -> SeatingState {
    let settings = Settings {
        late_registration_level: 4,
        re_entries: 1,
        ..Settings::tda(9, 10_000)
    };
    started(settings, n)
}

fn final_table_called(events: &[SeatingEvent]) -> bool {
    events.iter().any(|e| {
        matches!(
            e,
            SeatingEvent::RedrawCalled {
                reason: MoveReason::FinalTable,
                ..
            }
        )
    })
}

/// Given two tables and late registration still open, when busts bring
/// the field down to the final table's size, then no final table is
/// drawn: a late entry or re-entry may still come and is seated at once
/// (TDA 7), and would find no seat at a final table already drawn (found
/// by `felt sim`: a re-entry seated after the final table was called was
/// drawn over by it, two players given one seat).
#[test]
fn no_final_table_is_drawn_while_late_entries_may_come() {
    let mut state = late(18);
    let busts: Vec<u64> = players_at(&state, 1, 5);
    let first = busts[0];
    let mut seen = hand(&mut state, 1, 2, busts);
    seen.extend(carry_out(&mut state));
    let busts: Vec<u64> = players_at(&state, 2, 4);
    seen.extend(hand(&mut state, 2, 2, busts));
    seen.extend(carry_out(&mut state));
    assert_eq!(state.room().players(), 9);
    assert!(!final_table_called(&seen), "{seen:?}");
    // A re-entry at level 3: ten players, every one in a seat of their own.
    let player = state.entries()[&EntryId(first)].player.clone();
    let events = run(
        &mut state,
        SeatingCommand::Register {
            player,
            name: "Player again".into(),
            level: 3,
        },
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, SeatingEvent::Seated { .. }))
    );
    carry_out(&mut state);
    assert_eq!(state.room().players(), 10);
    assert!(state.room().redraw.is_none());
    check_seats(&state);
}

/// Given nine players left at two tables, one of them in a hand, and late
/// registration open, when registration closes, then the final table is
/// called, and drawn once that hand ends.
#[test]
fn the_final_table_is_drawn_when_registration_closes() {
    let mut state = late(12);
    run(&mut state, SeatingCommand::BeginHand { table: 2 });
    let busts: Vec<u64> = players_at(&state, 1, 3);
    let events = hand(&mut state, 1, 2, busts);
    assert_eq!(state.room().players(), 9);
    assert!(!final_table_called(&events), "{events:?}");
    let events = run(&mut state, SeatingCommand::CloseRegistration);
    assert!(final_table_called(&events), "{events:?}");
    let events = run_with(
        &mut state,
        SeatingCommand::HandEnded {
            table: 2,
            button: 1,
            big_blind: 2,
            busted: Vec::new(),
        },
        seed(5),
    );
    assert!(events.iter().any(|e| matches!(
        e,
        SeatingEvent::Redrawn {
            reason: MoveReason::FinalTable
        }
    )));
    carry_out(&mut state);
    assert_eq!(counts(&state), vec![9]);
    check_seats(&state);
}

/// Given hand-for-hand one from the money (RP8) and table 2 recording
/// results only, when table 1 plays its hand and the floor records table
/// 2's hand with nobody out, then the round is over and the next is
/// dealt; when in the next round table 2's result busts a player while
/// table 1's hand is in play, and table 1's hand busts another, then both
/// busts carry that round, for payout to share the places.
#[test]
fn a_results_only_table_plays_hand_for_hand_by_its_results() {
    let mut settings = Settings::tda(9, 10_000);
    settings.paid = 15;
    let mut state = started(settings, 18);
    let busts: Vec<u64> = players_at(&state, 1, 2);
    hand(&mut state, 1, 2, busts);
    carry_out(&mut state);
    assert_eq!(state.room().hand_for_hand, Some(1));
    let result = |table: u32, out: Vec<u64>| SeatingCommand::ResultRecorded {
        table,
        button: 3,
        big_blind: 5,
        busted: out
            .into_iter()
            .map(|e| Elimination::of(EntryId(e)))
            .collect(),
    };
    hand(&mut state, 1, 3, vec![]);
    assert!(gate(&state, 1).is_err());
    let events = run(&mut state, result(2, vec![]));
    assert!(
        events.contains(&SeatingEvent::HandForHandRound { round: 1 }),
        "{events:?}"
    );
    gate(&state, 1).unwrap();
    // Round 2: a bust at each table, table 2's by its result.
    let b1 = players_at(&state, 1, 1);
    let b2 = players_at(&state, 2, 1);
    run(&mut state, SeatingCommand::BeginHand { table: 1 });
    let first = run(&mut state, result(2, b2));
    assert!(
        first
            .iter()
            .any(|e| matches!(e, SeatingEvent::HandForHandEnded { .. })),
        "{first:?}"
    );
    let second = run_with(
        &mut state,
        SeatingCommand::HandEnded {
            table: 1,
            button: 4,
            big_blind: 5,
            busted: b1
                .into_iter()
                .map(|e| Elimination::of(EntryId(e)))
                .collect(),
        },
        seed(2),
    );
    let rounds: Vec<Option<u64>> = first
        .iter()
        .chain(&second)
        .filter_map(|e| match e {
            SeatingEvent::Busted {
                hand_for_hand_round,
                ..
            } => Some(*hand_for_hand_round),
            _ => None,
        })
        .collect();
    assert_eq!(rounds, vec![Some(2), Some(2)]);
    assert_eq!(state.room().players(), 14);
}

/// Seed 000, rule 1 ("Decisões da Equipe de Supervisão / Floor"): the
/// floor rules at a table before play goes on. Given a started room with
/// table 1 in a hand, when the floor holds table 1 with its reason, then
/// the hand is played out and no next hand is dealt there, saying why;
/// other tables deal; a second hold or a release of a table not held is
/// refused; when the floor releases it, it deals again.
#[test]
fn the_floor_holds_a_tables_next_hand_while_it_rules() {
    let mut state = started(Settings::tda(9, 10_000), 18);
    run(&mut state, SeatingCommand::BeginHand { table: 1 });
    let hold = SeatingCommand::HoldTable {
        table: 1,
        reason: "ruling on a misread hand".into(),
    };
    let events = run(&mut state, hold.clone());
    assert_eq!(
        events,
        vec![SeatingEvent::TableHeld {
            table: 1,
            reason: "ruling on a misread hand".into()
        }]
    );
    run_with(
        &mut state,
        SeatingCommand::HandEnded {
            table: 1,
            button: 1,
            big_blind: 3,
            busted: Vec::new(),
        },
        seed(3),
    );
    assert_eq!(
        gate(&state, 1).unwrap_err().to_string(),
        "table 1 must wait: held by the floor: ruling on a misread hand"
    );
    gate(&state, 2).unwrap();
    assert!(matches!(
        try_run(&mut state, hold),
        Err(SeatingError::AlreadyHeld { table: 1, .. })
    ));
    assert!(matches!(
        try_run(&mut state, SeatingCommand::ReleaseTable { table: 2 }),
        Err(SeatingError::NotHeld { table: 2 })
    ));
    assert!(matches!(
        try_run(
            &mut state,
            SeatingCommand::HoldTable {
                table: 2,
                reason: "  ".into()
            }
        ),
        Err(SeatingError::NoReason)
    ));
    let events = run(&mut state, SeatingCommand::ReleaseTable { table: 1 });
    assert_eq!(events, vec![SeatingEvent::TableReleased { table: 1 }]);
    gate(&state, 1).unwrap();
}

/// Seed 002, 10C: "Em torneios com 100 a 200 entradas/reentradas, redraw
/// com 18 ou 16 jogadores (caso esteja jogando 8-max) e na mesa final.
/// Acima de 200, redraw com 27 e 18 ou 24 e 16". Given redraw points from
/// the field, when the field plays down to a winner, then the room is
/// redrawn at those counts for its size and table size, and never with
/// fewer than 100 entries (the final table's draw only).
#[test]
fn redraw_points_follow_the_field_size_as_seed_002_sets_them() {
    assert_eq!(felt_seating::redraws_for_field(99, 9), Vec::<u32>::new());
    assert_eq!(felt_seating::redraws_for_field(100, 9), vec![18]);
    assert_eq!(felt_seating::redraws_for_field(200, 8), vec![16]);
    assert_eq!(felt_seating::redraws_for_field(201, 9), vec![27, 18]);
    assert_eq!(felt_seating::redraws_for_field(30_000, 8), vec![24, 16]);
    for (entries, size, redrawn) in [
        (80u64, 9u8, vec![]),
        (150, 9, vec![18]),
        (150, 8, vec![16]),
        (250, 9, vec![18, 27]),
    ] {
        let settings = Settings {
            redraws_by_field: true,
            ..Settings::tda(size, 10_000)
        };
        let mut state = started(settings, entries);
        play_out(&mut state, entries ^ u64::from(size));
        let at: Vec<u32> = state.room().redrawn_at.iter().copied().collect();
        assert_eq!(at, redrawn, "{entries} entries, tables of {size}");
    }
    // Both ways at once is refused, naming the setting.
    let mut state = SeatingState::default();
    let err = try_run(
        &mut state,
        SeatingCommand::Create {
            name: "both".into(),
            settings: Settings {
                redraws_by_field: true,
                redraws_at: vec![20],
                ..Settings::tda(9, 10_000)
            },
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("redraws_at"), "{err}");
}

/// The seat an entry holds.
fn seat_of(state: &SeatingState, entry: u64) -> (u32, u8) {
    match state.entry(EntryId(entry)).unwrap().status {
        EntryStatus::Seated { table, seat } => (table, seat),
        other => panic!("entry {entry} is {other:?}"),
    }
}

/// Seed 000 rule 71: "As fichas de um jogador desqualificado devem ser
/// removidas do jogo." Given a room in play, when the director
/// disqualifies a player, then they are out of the field at once, in the
/// order players went out, placed as they stand (the default house rule);
/// their seat is held and their table waits until it has removed them
/// (and their chips), and the room is put in order after.
#[test]
fn a_disqualified_player_leaves_the_field_at_once_and_the_table_when_it_removes_them() {
    let mut state = started(Settings::tda(9, 10_000), 18);
    let first = seat_of_first(&state, 1);
    hand(&mut state, 1, 3, vec![first]);
    let players = state.room().players();
    let victim = state.room().tables[&2]
        .seats
        .iter()
        .flatten()
        .next()
        .unwrap()
        .get();
    let (table, seat) = seat_of(&state, victim);
    let dq = SeatingCommand::Disqualify {
        entry: EntryId(victim),
        reason: "chip passing".into(),
    };
    let events = run(&mut state, dq.clone());
    assert_eq!(
        events,
        vec![SeatingEvent::Disqualified {
            entry: EntryId(victim),
            table,
            seat,
            reason: "chip passing".into(),
            placed: true,
            remaining: players - 1,
        }]
    );
    assert_eq!(
        state.entry(EntryId(victim)).unwrap().status,
        EntryStatus::Disqualified
    );
    // The second out of the field.
    assert_eq!(state.out().get(&EntryId(victim)), Some(&2));
    assert_eq!(state.room().players(), players - 1);
    // The seat is held, the table waits for the removal.
    assert_eq!(
        state.room().tables[&table].occupant(seat),
        Some(EntryId(victim))
    );
    assert_eq!(
        gate(&state, table).unwrap_err().to_string(),
        format!(
            "table {table} must wait: entry {victim}, disqualified, is leaving the table with their chips"
        )
    );
    assert!(matches!(
        try_run(&mut state, dq),
        Err(SeatingError::NotPlaying { .. })
    ));
    // Disqualified from the event: no new entry.
    let player = state.entry(EntryId(victim)).unwrap().player.clone();
    assert_eq!(
        try_run(
            &mut state,
            SeatingCommand::Register {
                player: player.clone(),
                name: "again".into(),
                level: 0,
            }
        )
        .unwrap_err()
        .to_string(),
        format!("player {player} was disqualified from this tournament: no new entry (TDA 71)")
    );
    // The table removed them with their chips.
    let events = run(
        &mut state,
        SeatingCommand::RemovalCompleted {
            entry: EntryId(victim),
            stack: 10_000,
        },
    );
    assert_eq!(
        events[0],
        SeatingEvent::RemovalCompleted {
            entry: EntryId(victim),
            stack: 10_000
        }
    );
    assert_eq!(state.room().tables[&table].occupant(seat), None);
    gate(&state, table).unwrap();
    assert!(matches!(
        try_run(
            &mut state,
            SeatingCommand::RemovalCompleted {
                entry: EntryId(victim),
                stack: 0,
            }
        ),
        Err(SeatingError::NoRemoval { .. })
    ));
}

/// The first entry seated at `table`.
fn seat_of_first(state: &SeatingState, table: u32) -> u64 {
    players_at(state, table, 1)[0]
}

/// A player disqualified while dealt into a hand (the table removes them
/// when it ends): if they lose their chips in it, nothing is left to
/// remove, and the hand's end completes the removal instead of a bust.
/// The house rule that places them nowhere says so in the event.
#[test]
fn a_disqualified_player_who_busts_in_the_hand_in_play_is_removed_by_its_end() {
    let mut settings = Settings::tda(9, 10_000);
    settings.disqualification = felt_seating::Disqualification::NotPlaced;
    let mut state = started(settings, 18);
    run(&mut state, SeatingCommand::BeginHand { table: 1 });
    let victim = seat_of_first(&state, 1);
    let events = run(
        &mut state,
        SeatingCommand::Disqualify {
            entry: EntryId(victim),
            reason: "abuse".into(),
        },
    );
    assert!(
        matches!(
            events[..],
            [SeatingEvent::Disqualified { placed: false, .. }]
        ),
        "{events:?}"
    );
    let events = run_with(
        &mut state,
        SeatingCommand::HandEnded {
            table: 1,
            button: 1,
            big_blind: 3,
            busted: vec![Elimination::of(EntryId(victim))],
        },
        seed(4),
    );
    assert!(events.contains(&SeatingEvent::RemovalCompleted {
        entry: EntryId(victim),
        stack: 0
    }));
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, SeatingEvent::Busted { .. }))
    );
    assert!(state.room().removals.is_empty());
    gate(&state, 1).unwrap();
}

#[test]
fn only_a_seated_player_with_a_reason_is_disqualified() {
    let mut state = registered(Settings::tda(9, 10_000), 18);
    let dq = |entry: u64, reason: &str| SeatingCommand::Disqualify {
        entry: EntryId(entry),
        reason: reason.into(),
    };
    assert!(matches!(
        try_run(&mut state, dq(1, "abuse")),
        Err(SeatingError::NotStarted)
    ));
    run_with(&mut state, SeatingCommand::Start, seed(42));
    // Drawn but not yet seated by their table.
    assert!(matches!(
        try_run(&mut state, dq(1, "abuse")),
        Err(SeatingError::NotSettled { .. })
    ));
    carry_out(&mut state);
    assert!(matches!(
        try_run(&mut state, dq(1, " ")),
        Err(SeatingError::NoReason)
    ));
    assert!(matches!(
        try_run(&mut state, dq(99, "abuse")),
        Err(SeatingError::NoSuchEntry { .. })
    ));
}

/// Seed 000 rule 7: "Um jogador que comece o torneio em um assento errado
/// e com o montante correto de fichas será movido para o lugar correto e
/// levará seu stack atual." Given a player in the wrong seat, when the
/// floor moves them to the seat it names, then the move is recorded with
/// the floor's reason and carried out as any move, the player taking the
/// chips they had.
#[test]
fn the_floor_moves_a_player_in_the_wrong_seat_to_the_right_one() {
    let mut state = started(Settings::tda(9, 10_000), 16);
    let player = seat_of_first(&state, 1);
    let (from_table, from_seat) = seat_of(&state, player);
    let free = (1..=9u8)
        .find(|&s| state.room().tables[&2].occupant(s).is_none())
        .unwrap();
    let taken = (1..=9u8)
        .find(|&s| state.room().tables[&2].occupant(s).is_some())
        .unwrap();
    let move_to = |table: u32, seat: u8, reason: &str| SeatingCommand::MovePlayer {
        entry: EntryId(player),
        table,
        seat,
        reason: reason.into(),
    };
    assert!(matches!(
        try_run(&mut state, move_to(2, taken, "wrong seat")),
        Err(SeatingError::SeatTaken { table: 2, .. })
    ));
    assert!(matches!(
        try_run(&mut state, move_to(from_table, from_seat, "wrong seat")),
        Err(SeatingError::AlreadyThere { .. })
    ));
    assert!(matches!(
        try_run(&mut state, move_to(2, 10, "wrong seat")),
        Err(SeatingError::NoSuchSeat { .. })
    ));
    assert!(matches!(
        try_run(&mut state, move_to(2, free, "")),
        Err(SeatingError::NoReason)
    ));
    let events = run(&mut state, move_to(2, free, "found in seat 4 of table 1"));
    assert_eq!(
        moves(&events),
        vec![(
            player,
            (from_table, from_seat),
            (2, free),
            MoveReason::Floor
        )]
    );
    let SeatingEvent::MoveStarted { r#move, detail } = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(detail, "found in seat 4 of table 1");
    // Moving: not moved again until it is done.
    assert!(matches!(
        try_run(&mut state, move_to(2, free, "again")),
        Err(SeatingError::NotSettled { .. })
    ));
    run(
        &mut state,
        SeatingCommand::MoveCompleted {
            id: r#move.id,
            stack: 12_345,
        },
    );
    assert_eq!(seat_of(&state, player), (2, free));
}

/// Seed 000 rule 8: "Os jogadores em alternates, registros tardios e
/// reentradas receberão stacks completos. Eles serão sorteados
/// aleatoriamente utilizando o mesmo processo e com a mesma oferta de
/// assentos que um novo jogador". Given a field capped at 16 with two
/// alternates waiting and play begun, when the floor seats one alternate,
/// then the first to register becomes an entry and takes a seat drawn at
/// random with a full stack; the other waits.
#[test]
fn the_floor_seats_alternates_after_the_start_in_the_order_they_registered() {
    let mut settings = Settings::tda(9, 10_000);
    settings.max_entries = Some(16);
    settings.late_registration_level = 4;
    let mut state = registered(settings, 18);
    assert_eq!(
        state.entry(EntryId(17)).unwrap().status,
        EntryStatus::Alternate
    );
    assert!(matches!(
        try_run(&mut state, SeatingCommand::SeatAlternates { count: 1 }),
        Err(SeatingError::NotStarted)
    ));
    run_with(&mut state, SeatingCommand::Start, seed(42));
    carry_out(&mut state);
    assert_eq!(state.entries_in(), 16);
    assert!(matches!(
        try_run(&mut state, SeatingCommand::SeatAlternates { count: 3 }),
        Err(SeatingError::NoAlternates {
            count: 3,
            waiting: 2
        })
    ));
    let events = run(&mut state, SeatingCommand::SeatAlternates { count: 1 });
    assert_eq!(
        events[0],
        SeatingEvent::AlternatePromoted { entry: EntryId(17) }
    );
    let Some(SeatingEvent::Seated {
        entry,
        stack,
        reason,
        ..
    }) = events.get(1)
    else {
        panic!("{events:?}")
    };
    assert_eq!(
        (*entry, *stack, *reason),
        (EntryId(17), 10_000, SeatReason::LateEntry)
    );
    assert_eq!(state.entries_in(), 17);
    assert_eq!(
        state.entry(EntryId(18)).unwrap().status,
        EntryStatus::Alternate
    );
    // Not once registration has closed: the pool is fixed.
    run(&mut state, SeatingCommand::CloseRegistration);
    assert!(matches!(
        try_run(&mut state, SeatingCommand::SeatAlternates { count: 1 }),
        Err(SeatingError::RegistrationClosed)
    ));
}

/// Seed 000 rule 8: "Em eventos com reentradas, se for permitido que um
/// jogador desista das suas fichas para comprar uma nova inscrição, as
/// fichas abandonadas serão removidas do torneio." Given a house that
/// allows it, when a player with a live entry re-enters by giving up its
/// chips, then the old entry is out (placed as it stands) and held at its
/// seat until its table removes the chips, and the new entry is seated by
/// the random draw; a house that does not allow it refuses, quoting rule 8.
#[test]
fn a_player_re_enters_by_giving_up_their_chips_where_the_house_allows_it() {
    let mut settings = Settings::tda(9, 10_000);
    settings.re_entries = 1;
    settings.late_registration_level = 4;
    let re_enter = |player: &str| SeatingCommand::ReEnterBySurrender {
        player: player.parse().unwrap(),
        name: "Player 1".into(),
        level: 2,
    };
    let mut strict = started(settings.clone(), 18);
    assert_eq!(
        try_run(&mut strict, re_enter("p1"))
            .unwrap_err()
            .to_string(),
        "player p1 holds a live entry: a re-entry by giving up its chips is not this house's rule (TDA 8)"
    );
    settings.re_entry_by_surrender = true;
    let mut state = started(settings, 18);
    let (table, seat) = seat_of(&state, 1);
    let events = run(&mut state, re_enter("p1"));
    assert_eq!(
        events[0],
        SeatingEvent::Surrendered {
            entry: EntryId(1),
            table,
            seat,
            remaining: 17,
        }
    );
    assert!(events.iter().any(|e| matches!(
        e,
        SeatingEvent::Registered {
            entry: EntryId(19),
            re_entry: true,
            ..
        }
    )));
    assert!(events.iter().any(|e| matches!(
        e,
        SeatingEvent::Seated {
            entry: EntryId(19),
            ..
        }
    )));
    assert_eq!(state.entry(EntryId(1)).unwrap().status, EntryStatus::Busted);
    assert_eq!(state.out().get(&EntryId(1)), Some(&1));
    assert_eq!(state.room().players(), 18);
    assert!(
        gate(&state, table)
            .unwrap_err()
            .to_string()
            .contains("gave up their chips")
    );
    run(
        &mut state,
        SeatingCommand::RemovalCompleted {
            entry: EntryId(1),
            stack: 10_000,
        },
    );
    assert_eq!(state.room().tables[&table].occupant(seat), None);
    // The one re-entry allowed is used.
    assert!(matches!(
        try_run(&mut state, re_enter("p1")),
        Err(SeatingError::ReEntryLimit { .. })
    ));
    assert!(matches!(
        try_run(&mut state, re_enter("nobody")),
        Err(SeatingError::NothingToSurrender { .. })
    ));
}

/// Seed 000 rule 9: "Acomodações para jogadores com necessidades
/// especiais serão feitas quando possível." Given a player the director
/// accommodates, when balancing would move them, then the next player
/// moves instead; when a table must break, one without them breaks.
#[test]
fn an_accommodated_player_is_kept_out_of_balancing_and_breaking() {
    let mut state = started(Settings::tda(9, 10_000), 27);
    // Table 1's next big blind (seat 1) needs their seat.
    let kept = state.room().tables[&1].occupant(1).unwrap();
    let accommodate = SeatingCommand::Accommodate {
        entry: kept,
        accommodated: true,
        reason: "wheelchair: the table's end seat".into(),
    };
    let events = run(&mut state, accommodate.clone());
    assert_eq!(
        events,
        vec![SeatingEvent::Accommodated {
            entry: kept,
            accommodated: true,
            reason: "wheelchair: the table's end seat".into(),
        }]
    );
    assert!(matches!(
        try_run(&mut state, accommodate),
        Err(SeatingError::AlreadyAccommodated { .. })
    ));
    // Table 2 loses two: table 1's next big blind would move, but is
    // accommodated: the one after moves.
    let at2: Vec<u64> = players_at(&state, 2, 2);
    run(&mut state, SeatingCommand::BeginHand { table: 3 });
    let events = hand(&mut state, 2, 4, at2);
    let m = moves(&events);
    assert_eq!(m.len(), 1, "{m:?}");
    assert_eq!(m[0].1, (1, 2));
    carry_out(&mut state);
    // Breaking: with 18 left two tables are enough; table 3, the highest,
    // would break, but an accommodated player sits there: table 2 breaks.
    let mut state = started(Settings::tda(9, 10_000), 27);
    let kept = state.room().tables[&3].occupant(1).unwrap();
    run(
        &mut state,
        SeatingCommand::Accommodate {
            entry: kept,
            accommodated: true,
            reason: "needs the table by the door".into(),
        },
    );
    let busts: Vec<u64> = players_at(&state, 1, 9);
    let events = hand(&mut state, 1, 2, busts);
    assert!(
        events.contains(&SeatingEvent::TableBreaking { table: 2 }),
        "{events:?}"
    );
    assert!(!events.contains(&SeatingEvent::TableBreaking { table: 3 }));
}

/// A hand's end at `table` with `busted` out at `at` (ms since the epoch),
/// as the follower reports it: the table's time, or the floor's for a
/// result entered late.
fn hand_at_time(
    state: &mut SeatingState,
    table: u32,
    busted: &[u64],
    at: i64,
) -> Vec<SeatingEvent> {
    carry_out(state);
    run(state, SeatingCommand::BeginHand { table });
    run_with(
        state,
        SeatingCommand::HandEnded {
            table,
            button: 1,
            big_blind: 1,
            busted: busted
                .iter()
                .map(|&e| Elimination {
                    occurred_at: Some(at),
                    ..Elimination::of(EntryId(e))
                })
                .collect(),
        },
        seed(9),
    )
}

/// Seed 003, "1. Se dois ou mais jogadores forem eliminados na mesma
/// rodada…": a player's place follows the order players went out. Given
/// the room ran on paper and the floor opened its late entries, when it
/// enters a 10:15 result after a 10:20 bust another table recorded, then
/// both are held (out of the field, not numbered), and closing the late
/// entries numbers them in the order they happened: the 10:15 bust first.
#[test]
fn facts_entered_late_are_numbered_in_the_order_they_happened() {
    let mut state = started(Settings::tda(9, 10_000), 18);
    let third = players_at(&state, 2, 2)[1];
    let (at_10_15, at_10_20) = (1_765_016_100_000, 1_765_016_400_000);
    // Before the late entries, a bust is numbered at once.
    hand_at_time(&mut state, 2, &[third], at_10_15 - 60_000);
    assert_eq!(state.out().get(&EntryId(third)), Some(&1));
    let events = run(
        &mut state,
        SeatingCommand::OpenLateEntries {
            reason: "tablets down 10:00 to 10:30".into(),
        },
    );
    assert_eq!(
        events,
        vec![SeatingEvent::LateEntriesOpened {
            reason: "tablets down 10:00 to 10:30".into()
        }]
    );
    // Opened twice, refused.
    assert_eq!(
        try_run(
            &mut state,
            SeatingCommand::OpenLateEntries {
                reason: "again".into()
            }
        ),
        Err(SeatingError::LateEntriesOpen {
            reason: "tablets down 10:00 to 10:30".into()
        })
    );
    // Table 2 recorded a bust at 10:20; the floor enters table 1's 10:15
    // result after it.
    carry_out(&mut state);
    let second = players_at(&state, 2, 1)[0];
    let events = hand_at_time(&mut state, 2, &[second], at_10_20);
    assert!(events.iter().any(|e| matches!(
        e,
        SeatingEvent::Busted { entry, held: true, occurred_at: Some(at), .. }
            if *entry == EntryId(second) && *at == at_10_20
    )));
    carry_out(&mut state);
    let first = players_at(&state, 1, 1)[0];
    hand_at_time(&mut state, 1, &[first], at_10_15);
    assert_eq!(state.entries()[&EntryId(first)].status, EntryStatus::Busted);
    assert_eq!(state.out().get(&EntryId(first)), None, "held, not numbered");
    assert_eq!(state.out().get(&EntryId(second)), None);
    // A disqualification waits for the late entries: it is out as it
    // happens, after them.
    carry_out(&mut state);
    let seated = players_at(&state, 1, 2)[1];
    assert_eq!(
        try_run(
            &mut state,
            SeatingCommand::Disqualify {
                entry: EntryId(seated),
                reason: "abuse".into()
            }
        ),
        Err(SeatingError::WaitForLateEntries {
            what: "disqualified"
        })
    );
    // Closing them numbers the held busts by the time they happened.
    let events = run(&mut state, SeatingCommand::CloseLateEntries);
    let SeatingEvent::LateEntriesClosed { groups } = &events[0] else {
        panic!("{events:?}")
    };
    let order: Vec<(u32, Vec<u64>)> = groups
        .iter()
        .map(|g| (g.table, g.busts.iter().map(|b| b.entry.get()).collect()))
        .collect();
    assert_eq!(order, vec![(1, vec![first]), (2, vec![second])]);
    assert_eq!(state.out().get(&EntryId(first)), Some(&2));
    assert_eq!(state.out().get(&EntryId(second)), Some(&3));
    assert!(state.late().is_none());
    // Closed, they are not open to close again; a bust is numbered at once.
    assert_eq!(
        try_run(&mut state, SeatingCommand::CloseLateEntries),
        Err(SeatingError::NoLateEntries)
    );
    carry_out(&mut state);
    let fourth = players_at(&state, 1, 1)[0];
    hand_at_time(&mut state, 1, &[fourth], at_10_20 + 60_000);
    assert_eq!(state.out().get(&EntryId(fourth)), Some(&4));
}

/// Seed 003, local e horário 2: "Caso o associado não avise, ainda terá 15
/// min de tolerância após o início da partida para entrar no torneio.
/// Passados esse período o associado que estiver aguardando uma vaga no
/// torneio poderá participar." Given a field capped at 16 with alternates
/// waiting and the house's 15 minutes, when the floor replaces a player who
/// never arrived, then it is refused before 15 minutes of play and for a
/// player who called ahead; after them, the player's entry leaves the
/// field (their seat held until the table removes them and its chips) and
/// the first alternate is seated by the draw with a full stack.
#[test]
fn a_player_who_never_arrived_is_replaced_by_the_first_alternate_after_the_tolerance() {
    let mut settings = Settings::tda(9, 10_000);
    settings.max_entries = Some(16);
    settings.late_registration_level = 4;
    let replace = |entry: u64, played: u64| SeatingCommand::ReplaceNoShow {
        entry: EntryId(entry),
        played,
        reason: "not seen since the draw".into(),
    };
    // Without the house rule, an absent player is blinded, never replaced.
    let mut tda = registered(settings.clone(), 18);
    run_with(&mut tda, SeatingCommand::Start, seed(42));
    carry_out(&mut tda);
    assert_eq!(
        try_run(&mut tda, replace(1, 3_600_000)),
        Err(SeatingError::NoLateArrivalRule)
    );
    settings.late_arrival_minutes = Some(15);
    let mut state = registered(settings, 18);
    run_with(&mut state, SeatingCommand::Start, seed(42));
    carry_out(&mut state);
    let (late, caller) = (players_at(&state, 1, 2)[0], players_at(&state, 1, 2)[1]);
    assert_eq!(
        try_run(&mut state, replace(late, 14 * 60_000)),
        Err(SeatingError::ToleranceRunning {
            minutes: 15,
            played: 14
        })
    );
    run(
        &mut state,
        SeatingCommand::AnnounceLate {
            entry: EntryId(caller),
        },
    );
    assert_eq!(
        try_run(&mut state, replace(caller, 20 * 60_000)),
        Err(SeatingError::ArrivalAnnounced {
            entry: EntryId(caller)
        })
    );
    let (table, seat) = match state.entry(EntryId(late)).unwrap().status {
        EntryStatus::Seated { table, seat } => (table, seat),
        other => panic!("{other:?}"),
    };
    let events = run(&mut state, replace(late, 15 * 60_000));
    assert_eq!(
        events[..2],
        [
            SeatingEvent::NoShowReplaced {
                entry: EntryId(late),
                table,
                seat,
                alternate: EntryId(17),
                reason: "not seen since the draw".into(),
            },
            SeatingEvent::AlternatePromoted { entry: EntryId(17) },
        ]
    );
    assert!(
        events.iter().any(|e| matches!(
            e,
            SeatingEvent::Seated { entry, stack: 10_000, reason: SeatReason::LateEntry, .. }
                if *entry == EntryId(17)
        )),
        "{events:?}"
    );
    assert_eq!(
        state.entry(EntryId(late)).unwrap().status,
        EntryStatus::Unregistered
    );
    assert_eq!(state.entries_in(), 16, "one out, one in");
    // The seat stays held until the table removed the player and the
    // chips of their seat.
    assert_eq!(
        state.room().tables[&table].occupant(seat),
        Some(EntryId(late))
    );
    assert!(matches!(
        gate(&state, table),
        Err(SeatingError::MustWait { reason, .. }) if reason.contains("replaced as a no-show")
    ));
    run(
        &mut state,
        SeatingCommand::RemovalCompleted {
            entry: EntryId(late),
            stack: 9_700,
        },
    );
    assert_eq!(state.room().tables[&table].occupant(seat), None);
    check_seats(&state);
}

/// Issue 27's add-on: given a house that sells a 10,000-chip add-on
/// through the break after level 3, when the floor sells it to a seated
/// player between their table's hands, then the sale is recorded with the
/// chips and the player's seat, the table's next hand waits for the chips
/// to reach the stack, and once the table has put them there it may deal.
#[test]
fn an_add_on_is_sold_between_hands_and_the_next_hand_waits_for_its_chips() {
    let mut settings = Settings::tda(9, 10_000);
    settings.add_on = Some(felt_seating::AddOnTerms {
        chips: 10_000,
        last_level: 3,
    });
    let mut state = started(settings, 18);
    let buyer = seat_of_first(&state, 1);
    let (table, seat) = seat_of(&state, buyer);
    let sell = |level| SeatingCommand::SellAddOn {
        entry: EntryId(buyer),
        level,
    };
    // While their table plays a hand: refused, nothing changes.
    run(&mut state, SeatingCommand::BeginHand { table });
    let before = state.clone();
    let e = try_run(&mut state, sell(2)).unwrap_err();
    assert_eq!(e, SeatingError::AddOnInHand { table });
    assert_eq!(state, before);
    run(
        &mut state,
        SeatingCommand::HandEnded {
            table,
            button: 1,
            big_blind: 3,
            busted: Vec::new(),
        },
    );
    // Past the window (level 4): refused.
    let e = try_run(&mut state, sell(4)).unwrap_err();
    assert_eq!(e, SeatingError::AddOnWindowClosed { level: 4, last: 3 });
    // At the break after level 3: sold.
    let events = run(&mut state, sell(3));
    assert_eq!(
        events,
        [SeatingEvent::AddOnSold {
            entry: EntryId(buyer),
            table,
            seat,
            chips: 10_000,
        }]
    );
    assert_eq!(state.add_ons().get(&EntryId(buyer)), Some(&10_000));
    // One per entry.
    let e = try_run(&mut state, sell(3)).unwrap_err();
    assert_eq!(
        e,
        SeatingError::AddOnBought {
            entry: EntryId(buyer)
        }
    );
    // The table waits for the chips; the other tables deal.
    let wait = gate(&state, table).unwrap_err().to_string();
    assert!(wait.contains("add-on chips"), "{wait}");
    gate(&state, 3 - table).unwrap();
    run(
        &mut state,
        SeatingCommand::AddOnDelivered {
            entry: EntryId(buyer),
        },
    );
    gate(&state, table).unwrap();
    assert_eq!(
        try_run(
            &mut state,
            SeatingCommand::AddOnDelivered {
                entry: EntryId(buyer)
            }
        )
        .unwrap_err(),
        SeatingError::NoAddOnPending {
            entry: EntryId(buyer)
        }
    );
}

#[test]
fn a_house_without_an_add_on_sells_none() {
    let mut state = started(Settings::tda(9, 10_000), 18);
    let buyer = seat_of_first(&state, 1);
    let e = try_run(
        &mut state,
        SeatingCommand::SellAddOn {
            entry: EntryId(buyer),
            level: 1,
        },
    )
    .unwrap_err();
    assert_eq!(e, SeatingError::NoAddOn);
}

/// Issue 27's add-on once the money is reached: payout no longer grows a
/// pool it has paid prizes from, so seating refuses the sale (and delivers
/// no chips) once fewer players are left than places are paid.
#[test]
fn no_add_on_is_sold_once_the_money_is_reached() {
    let mut settings = Settings::tda(9, 10_000);
    settings.add_on = Some(felt_seating::AddOnTerms {
        chips: 10_000,
        last_level: 3,
    });
    let mut state = started(settings, 12);
    run(&mut state, SeatingCommand::SetPaid { paid: 12 });
    // Bust one: 11 left, 12 paid: in the money.
    let out = seat_of_first(&state, 1);
    hand(&mut state, 1, 3, vec![out]);
    carry_out(&mut state);
    let buyer = seat_of_first(&state, 2);
    let e = try_run(
        &mut state,
        SeatingCommand::SellAddOn {
            entry: EntryId(buyer),
            level: 1,
        },
    )
    .unwrap_err();
    assert_eq!(e, SeatingError::AddOnInTheMoney { left: 11, paid: 12 });
}

/// Rule 27 (seed 000): "Um jogador não pode deixar passar uma mão. Se ele
/// anuncia a intenção de recomprar antes da próxima mão, ele estará
/// jogando assumindo as fichas que entrarão em jogo e é obrigado a
/// recomprar." Given a house that sells up to two 10,000-chip rebuys
/// through the break after level 4 to a player at or below the starting
/// stack, when the floor sells one between hands, then the sale names the
/// stack it was sold on and the rebuy's number, and the table's next hand
/// waits for the chips, so the player plays it with them; above the
/// starting stack, past the window, beyond the limit, during a hand or on
/// a stack read before the table's last hand, it is refused and nothing
/// changes.
#[test]
fn a_rebuy_is_sold_at_or_below_the_starting_stack_and_the_next_hand_waits_for_its_chips() {
    let mut settings = Settings::tda(9, 10_000);
    settings.rebuy = Some(felt_seating::RebuyTerms {
        chips: 10_000,
        last_level: 4,
        limit: 2,
        condition: felt_seating::RebuyCondition::AtOrBelowStart,
    });
    let mut state = started(settings, 18);
    let buyer = seat_of_first(&state, 1);
    let (table, seat) = seat_of(&state, buyer);
    let sell = |level, stack, hands| SeatingCommand::SellRebuy {
        entry: EntryId(buyer),
        level,
        stack,
        hands,
    };
    let refused = |state: &mut felt_seating::SeatingState, command, error| {
        let before = state.clone();
        assert_eq!(try_run(state, command).unwrap_err(), error);
        assert_eq!(*state, before);
    };
    // During a hand: refused.
    run(&mut state, SeatingCommand::BeginHand { table });
    refused(
        &mut state,
        sell(1, 4_000, 0),
        SeatingError::RebuyInHand { table },
    );
    run(
        &mut state,
        SeatingCommand::HandEnded {
            table,
            button: 1,
            big_blind: 3,
            busted: Vec::new(),
        },
    );
    // A stack read before that hand ended is stale.
    refused(
        &mut state,
        sell(1, 4_000, 0),
        SeatingError::RebuyStackStale {
            table,
            read: 0,
            now: 1,
        },
    );
    // Above the starting stack, or past the window: refused.
    refused(
        &mut state,
        sell(1, 10_001, 1),
        SeatingError::RebuyAboveStart {
            entry: EntryId(buyer),
            stack: 10_001,
            starting: 10_000,
        },
    );
    refused(
        &mut state,
        sell(5, 4_000, 1),
        SeatingError::RebuyWindowClosed { level: 5, last: 4 },
    );
    // At the starting stack exactly: sold, the first.
    let events = run(&mut state, sell(4, 10_000, 1));
    assert_eq!(
        events,
        [SeatingEvent::RebuySold {
            entry: EntryId(buyer),
            table,
            seat,
            chips: 10_000,
            stack: 10_000,
            number: 1,
        }]
    );
    // The table waits for the chips; the other table deals.
    let wait = gate(&state, table).unwrap_err().to_string();
    assert!(wait.contains("rebuy chips"), "{wait}");
    gate(&state, 3 - table).unwrap();
    // One at a time.
    refused(
        &mut state,
        sell(4, 10_000, 1),
        SeatingError::RebuyOnItsWay {
            entry: EntryId(buyer),
        },
    );
    let events = run(
        &mut state,
        SeatingCommand::RebuyDelivered {
            entry: EntryId(buyer),
        },
    );
    assert_eq!(
        events,
        [SeatingEvent::RebuyDelivered {
            entry: EntryId(buyer),
            table,
            chips: 10_000,
            number: 1,
        }]
    );
    gate(&state, table).unwrap();
    // The second, then the limit.
    run(&mut state, sell(2, 0, 1));
    run(
        &mut state,
        SeatingCommand::RebuyDelivered {
            entry: EntryId(buyer),
        },
    );
    assert_eq!(state.rebuys().get(&EntryId(buyer)), Some(&(2, 20_000)));
    refused(
        &mut state,
        sell(2, 0, 1),
        SeatingError::RebuyLimit {
            entry: EntryId(buyer),
            limit: 2,
        },
    );
}

/// Rule 27 (seed 000): "Um jogador não pode deixar passar uma mão. Se ele
/// anuncia a intenção de recomprar antes da próxima mão, ele estará
/// jogando assumindo as fichas que entrarão em jogo e é obrigado a
/// recomprar." Given a house that sells one rebuy per entry, only to a
/// player who busted, through level 4: when a hand ends with two busts,
/// then both are offered a rebuy and the hand is not over at seating (no
/// bust recorded, the table's next hand waits for the answers); when one
/// buys (the clock already past level 4: the offer stands) and the other
/// declines, then the hand ends, only the decliner's bust is recorded, the
/// buyer keeps their seat and the table waits for the rebuy's chips. A
/// seated player with chips is refused a rebuy; a second bust of the
/// buyer (limit reached) and a bust once rebuys are closed are recorded
/// at once, without an offer; answering no offer is refused.
#[test]
fn a_busted_player_is_offered_a_rebuy_and_the_next_hand_waits_for_the_answer() {
    let mut settings = Settings::tda(9, 10_000);
    settings.rebuy = Some(felt_seating::RebuyTerms {
        chips: 10_000,
        last_level: 4,
        limit: 1,
        condition: felt_seating::RebuyCondition::Busted,
    });
    settings.add_on = Some(felt_seating::AddOnTerms {
        chips: 5_000,
        last_level: 4,
    });
    let mut state = started(settings, 18);
    let at = players_at(&state, 1, 4);
    let (buyer, decliner, seated, later) = (at[0], at[1], at[2], at[3]);
    let (table, seat) = seat_of(&state, buyer);
    let refused = |state: &mut felt_seating::SeatingState, command, error| {
        let before = state.clone();
        assert_eq!(try_run(state, command).unwrap_err(), error);
        assert_eq!(*state, before);
    };
    let sell = |entry| SeatingCommand::SellRebuy {
        entry: EntryId(entry),
        level: 6,
        stack: 0,
        hands: 1,
    };
    let hand = |state: &mut felt_seating::SeatingState, busted: &[u64]| {
        run(state, SeatingCommand::BeginHand { table });
        run(
            state,
            SeatingCommand::HandEnded {
                table,
                button: 9,
                big_blind: 2,
                busted: busted
                    .iter()
                    .map(|&e| Elimination::of(EntryId(e)))
                    .collect(),
            },
        )
    };
    // Given a hand with two busts: both offered, nothing recorded yet.
    let events = hand(&mut state, &[buyer, decliner]);
    assert_eq!(
        events,
        [SeatingEvent::RebuysOffered {
            table,
            button: 9,
            big_blind: 2,
            busted: vec![
                Elimination::of(EntryId(buyer)),
                Elimination::of(EntryId(decliner))
            ],
            offered: vec![EntryId(buyer), EntryId(decliner)],
        }]
    );
    assert!(state.out().is_empty());
    let wait = gate(&state, table).unwrap_err().to_string();
    assert!(
        wait.contains("may rebuy") && wait.contains("rule 27"),
        "{wait}"
    );
    // The table's hand is over but for the answers: an add-on sold to a
    // player there now reaches the stack before its next hand.
    let events = run(
        &mut state,
        SeatingCommand::SellAddOn {
            entry: EntryId(seated),
            level: 4,
        },
    );
    assert!(
        matches!(events[..], [SeatingEvent::AddOnSold { .. }]),
        "{events:?}"
    );
    run(
        &mut state,
        SeatingCommand::AddOnDelivered {
            entry: EntryId(seated),
        },
    );
    // Only a busted player rebuys here.
    refused(
        &mut state,
        sell(seated),
        SeatingError::RebuyOnlyWhenBusted {
            entry: EntryId(seated),
        },
    );
    // One buys: the offer stands past the window.
    let events = run(&mut state, sell(buyer));
    assert_eq!(
        events,
        [SeatingEvent::RebuySold {
            entry: EntryId(buyer),
            table,
            seat,
            chips: 10_000,
            stack: 0,
            number: 1,
        }]
    );
    assert!(
        gate(&state, table)
            .unwrap_err()
            .to_string()
            .contains(&format!("entry {decliner} "))
    );
    // The other declines: the hand ends with their bust alone.
    let events = run(
        &mut state,
        SeatingCommand::DeclineRebuy {
            entry: EntryId(decliner),
        },
    );
    assert_eq!(
        events[0],
        SeatingEvent::RebuyDeclined {
            entry: EntryId(decliner),
            table,
        }
    );
    assert!(
        matches!(events[1], SeatingEvent::HandEnded { table: t, button: 9, big_blind: 2, .. } if t == table)
    );
    let busts: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::Busted {
                entry, remaining, ..
            } => Some((entry.get(), *remaining)),
            _ => None,
        })
        .collect();
    assert_eq!(busts, [(decliner, 17)]);
    assert_eq!(seat_of(&state, buyer), (table, seat));
    assert!(
        gate(&state, table)
            .unwrap_err()
            .to_string()
            .contains("rebuy chips")
    );
    run(
        &mut state,
        SeatingCommand::RebuyDelivered {
            entry: EntryId(buyer),
        },
    );
    // (the short table is balanced first)
    carry_out(&mut state);
    gate(&state, table).unwrap();
    refused(
        &mut state,
        SeatingCommand::DeclineRebuy {
            entry: EntryId(decliner),
        },
        SeatingError::NoRebuyOffer {
            entry: EntryId(decliner),
        },
    );
    // The buyer busts again, their one rebuy bought: out at once.
    let events = hand(&mut state, &[buyer]);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, SeatingEvent::Busted { entry, .. } if entry.get() == buyer))
    );
    carry_out(&mut state);
    // Rebuys closed: a bust is recorded at once.
    run(&mut state, SeatingCommand::CloseRebuys);
    refused(
        &mut state,
        SeatingCommand::CloseRebuys,
        SeatingError::RebuysAlreadyClosed,
    );
    let events = hand(&mut state, &[later]);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, SeatingEvent::Busted { entry, .. } if entry.get() == later))
    );
    assert_eq!(state.out().len(), 3);
}

#[test]
fn a_house_without_rebuys_sells_none() {
    let mut state = started(Settings::tda(9, 10_000), 18);
    let buyer = seat_of_first(&state, 1);
    let e = try_run(
        &mut state,
        SeatingCommand::SellRebuy {
            entry: EntryId(buyer),
            level: 1,
            stack: 0,
            hands: 0,
        },
    )
    .unwrap_err();
    assert_eq!(e, SeatingError::NoRebuys);
}

/// Issue 27's cage: given a room selling rebuys, when the cage registers a
/// player, imports presales, or sells a rebuy with the payment it took,
/// then the purchase is decided as without one and each thing bought is
/// recorded as paid so (the rebuy with its number); a payment on what is
/// not a purchase, or with a reference past 64 characters, is refused and
/// nothing changes.
#[test]
fn the_cage_records_the_payment_for_each_thing_bought() {
    use felt_seating::{Payment, PaymentMethod, Purchase};
    let cash = |reference: &str| Payment {
        method: PaymentMethod::Cash,
        reference: reference.into(),
    };
    let mut settings = Settings::tda(9, 10_000);
    settings.rebuy = Some(felt_seating::RebuyTerms {
        chips: 10_000,
        last_level: 4,
        limit: 2,
        condition: felt_seating::RebuyCondition::AtOrBelowStart,
    });
    let mut state = registered(settings, 17);
    let events = run(
        &mut state,
        SeatingCommand::Register {
            player: "ana".parse().unwrap(),
            name: "Ana".into(),
            level: 0,
        }
        .paid(Some(cash("slip 0042"))),
    );
    let SeatingEvent::Registered { entry, .. } = events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(
        events[1..],
        [SeatingEvent::PaymentTaken {
            entry,
            purchase: Purchase::Entry,
            payment: cash("slip 0042"),
        }]
    );
    let transfer = Payment {
        method: PaymentMethod::Transfer,
        reference: "presales batch 7".into(),
    };
    let events = run(
        &mut state,
        SeatingCommand::RegisterMany {
            players: vec![
                ("bia".parse().unwrap(), "Bia".into()),
                ("caio".parse().unwrap(), "Caio".into()),
            ],
            level: 0,
        }
        .paid(Some(transfer.clone())),
    );
    let paid: Vec<_> = events
        .iter()
        .filter(|e| matches!(e, SeatingEvent::PaymentTaken { payment, purchase: Purchase::Entry, .. } if *payment == transfer))
        .collect();
    assert_eq!(paid.len(), 2, "{events:?}");
    run_with(&mut state, SeatingCommand::Start, seed(3));
    carry_out(&mut state);
    let (table, _) = seat_of(&state, entry.0);
    let hands = state.room().tables[&table].hands;
    let events = run(
        &mut state,
        SeatingCommand::SellRebuy {
            entry,
            level: 1,
            stack: 10_000,
            hands,
        }
        .paid(Some(cash("rebuy slip 1"))),
    );
    assert!(matches!(
        events[0],
        SeatingEvent::RebuySold { number: 1, .. }
    ));
    assert_eq!(
        events[1],
        SeatingEvent::PaymentTaken {
            entry,
            purchase: Purchase::Rebuy { number: 1 },
            payment: cash("rebuy slip 1"),
        }
    );
    let before = state.clone();
    assert!(matches!(
        try_run(
            &mut state,
            SeatingCommand::StartHandForHand.paid(Some(cash("x")))
        ),
        Err(SeatingError::InvalidPayment { .. })
    ));
    assert!(matches!(
        try_run(
            &mut state,
            SeatingCommand::Register {
                player: "dani".parse().unwrap(),
                name: "Dani".into(),
                level: 1,
            }
            .paid(Some(cash(&"9".repeat(65))))
        ),
        Err(SeatingError::InvalidPayment { .. })
    ));
    assert_eq!(state, before);
}

/// Issue 27's refunds: given a capped field with alternates, when the
/// director cancels the tournament before play, then every entry is
/// refunded with the reason (the alternates' money too), and nothing more
/// happens in it; once play has started it cannot be cancelled so.
#[test]
fn a_tournament_cancelled_before_play_refunds_every_entry_with_its_reason() {
    let mut settings = Settings::club();
    settings.max_entries = Some(3);
    let mut state = registered(settings.clone(), 5);
    let refund = "the tournament was cancelled: the room lost power".to_string();
    let events = run(
        &mut state,
        SeatingCommand::Cancel {
            reason: "the room lost power".into(),
        },
    );
    let refunded: Vec<(EntryId, bool)> = events
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::Unregistered {
                entry,
                alternate,
                reason,
                ..
            } if *reason == refund => Some((*entry, *alternate)),
            _ => None,
        })
        .collect();
    assert_eq!(
        refunded,
        (1..=5).map(|e| (EntryId(e), e > 3)).collect::<Vec<_>>()
    );
    assert_eq!(
        events.last(),
        Some(&SeatingEvent::Cancelled {
            reason: "the room lost power".into()
        })
    );
    let before = state.clone();
    for command in [
        SeatingCommand::Start,
        SeatingCommand::Register {
            player: "late".parse().unwrap(),
            name: "Late".into(),
            level: 0,
        },
    ] {
        assert_eq!(
            try_run(&mut state, command),
            Err(SeatingError::Cancelled {
                reason: "the room lost power".into()
            })
        );
    }
    assert_eq!(state, before);
    let mut playing = started(Settings::tda(9, 10_000), 18);
    assert_eq!(
        try_run(
            &mut playing,
            SeatingCommand::Cancel {
                reason: "no".into()
            }
        ),
        Err(SeatingError::CancelAfterStart)
    );
}

/// Seed 002, rule 77: with the day's last level nearly over the clock
/// stops, a card from two to five is drawn, and every table plays that
/// many more hands. Given two tables and a drawn 3, when each table
/// plays, then a table that has begun its three waits (naming the rule)
/// while the other plays on, and the last hand ended at the last table
/// ends the day (`LastHandsPlayed`): no table deals until the next day
/// starts. A card outside two to five, or a second draw, is refused.
#[test]
fn every_table_plays_exactly_the_drawn_number_of_last_hands() {
    let mut state = started(Settings::tda(9, 10_000), 18);
    refused_unchanged(
        &mut state,
        SeatingCommand::PlayLastHands { hands: 6 },
        SeatingError::InvalidLastHands { hands: 6 },
    );
    let events = run(&mut state, SeatingCommand::PlayLastHands { hands: 3 });
    assert_eq!(events, [SeatingEvent::LastHandsDrawn { hands: 3 }]);
    refused_unchanged(
        &mut state,
        SeatingCommand::PlayLastHands { hands: 2 },
        SeatingError::LastHandsAlreadyDrawn { hands: 3 },
    );
    let play = |state: &mut SeatingState, table: u32| {
        run(state, SeatingCommand::BeginHand { table });
        run(
            state,
            SeatingCommand::HandEnded {
                table,
                button: 1,
                big_blind: 3,
                busted: Vec::new(),
            },
        )
    };
    for _ in 0..3 {
        play(&mut state, 1);
    }
    let wait = gate(&state, 1).unwrap_err().to_string();
    assert!(
        wait.contains("last 3 hands") && wait.contains("rule 77"),
        "{wait}"
    );
    assert_eq!(state.room().last_hands.as_ref().unwrap().left(2), 3);
    gate(&state, 2).unwrap();
    for n in 1..=3 {
        let events = play(&mut state, 2);
        assert_eq!(
            events.contains(&SeatingEvent::LastHandsPlayed),
            n == 3,
            "hand {n}: {events:?}"
        );
    }
    for table in [1, 2] {
        let wait = gate(&state, table).unwrap_err().to_string();
        assert!(wait.contains("the day is over"), "{wait}");
    }
    let events = run(&mut state, SeatingCommand::ResumeDay);
    assert_eq!(events, [SeatingEvent::DayResumed]);
    gate(&state, 1).unwrap();
    gate(&state, 2).unwrap();
    refused_unchanged(
        &mut state,
        SeatingCommand::ResumeDay,
        SeatingError::NoDayEnded,
    );
}

/// A day that ends at its last level's end (the tournament's setting
/// beside rule 77's card): given table 1 dealing a hand and table 2
/// between hands, when the level ends (`PlayLastHands` with no more
/// hands), then table 2 deals no more, and the hand table 1 is playing is
/// the day's last: it ends the day.
#[test]
fn a_day_ended_at_its_last_level_ends_with_the_hands_being_played() {
    let mut state = started(Settings::tda(9, 10_000), 18);
    run(&mut state, SeatingCommand::BeginHand { table: 1 });
    let events = run(&mut state, SeatingCommand::PlayLastHands { hands: 0 });
    assert_eq!(events, [SeatingEvent::LastHandsDrawn { hands: 0 }]);
    let wait = gate(&state, 2).unwrap_err().to_string();
    assert!(wait.contains("last level is over"), "{wait}");
    let events = run(
        &mut state,
        SeatingCommand::HandEnded {
            table: 1,
            button: 1,
            big_blind: 3,
            busted: Vec::new(),
        },
    );
    assert!(
        events.contains(&SeatingEvent::LastHandsPlayed),
        "{events:?}"
    );
    let wait = gate(&state, 1).unwrap_err().to_string();
    assert!(wait.contains("the day is over"), "{wait}");
}

/// Bag and tag (issue 28, after seed 002's rule 77: "todas as mesas irão
/// completar esse número de mãos, até que cheguem ao final"). Given the
/// day over, when the stacks counted at the tables are bagged, then every
/// survivor has a numbered bag in table and seat order; no bag is sealed
/// before its player and a staff member confirm it; a disputed count
/// corrected at the table and counted again clears that bag's
/// confirmations; sealed, the bags hold every chip counted. A count while
/// the tables play, one that leaves a survivor out, names a player not in
/// play, or is empty, is refused and changes nothing. The next day starts
/// only from sealed bags, with every seat drawn afresh (rule 7).
#[test]
fn every_survivors_stack_is_bagged_confirmed_twice_and_sealed_and_the_next_day_redraws_them() {
    use felt_seating::BagWitness::{Player, Staff};
    let mut state = started(Settings::tda(9, 10_000), 18);
    let in_play: Vec<EntryId> = state
        .room()
        .tables
        .values()
        .flat_map(|t| t.seats.iter().flatten().copied())
        .collect();
    assert_eq!(in_play.len(), 18);
    let stacks: Vec<(EntryId, u64)> = in_play
        .iter()
        .zip(1u64..)
        .map(|(&e, k)| (e, 10_000 + 25 * k))
        .collect();
    refused_unchanged(
        &mut state,
        SeatingCommand::BagStacks {
            stacks: stacks.clone(),
            uncounted: Vec::new(),
        },
        SeatingError::DayNotOver,
    );
    let events = run(&mut state, SeatingCommand::PlayLastHands { hands: 0 });
    assert!(
        events.contains(&SeatingEvent::LastHandsPlayed),
        "{events:?}"
    );
    refused_unchanged(
        &mut state,
        SeatingCommand::BagStacks {
            stacks: stacks[1..].to_vec(),
            uncounted: Vec::new(),
        },
        SeatingError::NotCounted { entry: in_play[0] },
    );
    let mut stranger = stacks.clone();
    stranger.push((EntryId(999), 500));
    refused_unchanged(
        &mut state,
        SeatingCommand::BagStacks {
            stacks: stranger,
            uncounted: Vec::new(),
        },
        SeatingError::NotInPlay {
            entry: EntryId(999),
        },
    );
    let mut empty = stacks.clone();
    empty[3].1 = 0;
    refused_unchanged(
        &mut state,
        SeatingCommand::BagStacks {
            stacks: empty,
            uncounted: Vec::new(),
        },
        SeatingError::EmptyBag { entry: in_play[3] },
    );
    refused_unchanged(&mut state, SeatingCommand::SealBags, SeatingError::NoBags);
    // A results-only table not counted since its last result: an estimate.
    refused_unchanged(
        &mut state,
        SeatingCommand::BagStacks {
            stacks: stacks.clone(),
            uncounted: vec![2],
        },
        SeatingError::StacksUncounted { table: 2 },
    );
    let events = run(
        &mut state,
        SeatingCommand::BagStacks {
            stacks: stacks.clone(),
            uncounted: Vec::new(),
        },
    );
    let expected: Vec<felt_seating::Bag> = stacks
        .iter()
        .zip(1u32..)
        .map(|(&(entry, chips), number)| felt_seating::Bag {
            entry,
            number,
            chips,
        })
        .collect();
    assert_eq!(events, [SeatingEvent::StacksBagged { bags: expected }]);
    // Counted again unchanged: nothing to record.
    assert!(
        run(
            &mut state,
            SeatingCommand::BagStacks {
                stacks: stacks.clone(),
                uncounted: Vec::new(),
            }
        )
        .is_empty()
    );
    for &(entry, _) in &stacks {
        run(&mut state, SeatingCommand::ConfirmBag { entry, by: Player });
        if entry != in_play[5] {
            run(&mut state, SeatingCommand::ConfirmBag { entry, by: Staff });
        }
    }
    // Entry 6's staff count disagrees with the player: not sealed.
    refused_unchanged(
        &mut state,
        SeatingCommand::SealBags,
        SeatingError::BagsUnconfirmed {
            entry: in_play[5],
            open: 1,
        },
    );
    // The floor corrects the stack at the table, and it is counted again.
    let mut corrected = stacks.clone();
    corrected[5].1 -= 1_000;
    let events = run(
        &mut state,
        SeatingCommand::BagStacks {
            stacks: corrected.clone(),
            uncounted: Vec::new(),
        },
    );
    assert_eq!(
        events,
        [SeatingEvent::BagRecounted {
            entry: in_play[5],
            chips: corrected[5].1
        }]
    );
    let bag = state.room().bags.as_ref().unwrap().bags[&in_play[5]];
    assert!(!bag.player && !bag.staff, "{bag:?}");
    for by in [Player, Staff] {
        run(
            &mut state,
            SeatingCommand::ConfirmBag {
                entry: in_play[5],
                by,
            },
        );
    }
    // The next day starts from the bags: not before they are sealed.
    refused_unchanged(
        &mut state,
        SeatingCommand::ResumeDay,
        SeatingError::BagsNotSealed { open: 18 },
    );
    let total: u64 = corrected.iter().map(|s| s.1).sum();
    let events = run(&mut state, SeatingCommand::SealBags);
    assert_eq!(
        events,
        [SeatingEvent::BagsSealed {
            bags: 18,
            chips: total
        }]
    );
    refused_unchanged(
        &mut state,
        SeatingCommand::BagStacks {
            stacks: corrected,
            uncounted: Vec::new(),
        },
        SeatingError::BagsAlreadySealed,
    );
    refused_unchanged(
        &mut state,
        SeatingCommand::ConfirmBag {
            entry: in_play[0],
            by: Player,
        },
        SeatingError::BagsAlreadySealed,
    );
    // Sealed, the next day draws every seat afresh (rule 7): the day
    // resumes with a redraw of all 18, and once the moves are carried out
    // every bagged player is seated and the tables deal.
    let events = run(&mut state, SeatingCommand::ResumeDay);
    assert_eq!(events[0], SeatingEvent::DayResumed);
    assert!(
        events.contains(&SeatingEvent::RedrawCalled {
            players: 18,
            reason: MoveReason::NewDay
        }),
        "{events:?}"
    );
    assert!(
        events.contains(&SeatingEvent::Redrawn {
            reason: MoveReason::NewDay
        }),
        "{events:?}"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, SeatingEvent::MoveStarted { .. })),
        "nobody drew a new seat: {events:?}"
    );
    carry_out(&mut state);
    check_seats(&state);
    let seated: Vec<EntryId> = state
        .room()
        .tables
        .values()
        .flat_map(|t| t.seats.iter().flatten().copied())
        .collect();
    assert_eq!(seated.len(), 18);
    assert_ne!(seated, in_play, "the same seats as the day before");
    for &table in state.room().tables.keys() {
        gate(&state, table).unwrap();
    }
    assert!(state.room().bags.as_ref().unwrap().resumed);
    // Day 2 ends in turn: its stacks are bagged afresh (not refused as
    // day 1's sealed bags), and day 1's list is kept as it was sealed.
    run(&mut state, SeatingCommand::PlayLastHands { hands: 0 });
    let day_2: Vec<(EntryId, u64)> = seated.iter().map(|&e| (e, 10_000)).collect();
    let events = run(
        &mut state,
        SeatingCommand::BagStacks {
            stacks: day_2,
            uncounted: Vec::new(),
        },
    );
    assert!(
        matches!(&events[..], [SeatingEvent::StacksBagged { bags }] if bags.len() == 18),
        "{events:?}"
    );
    let room = state.room();
    let (first, second) = (room.bags_of_day(1).unwrap(), room.bags_of_day(2).unwrap());
    assert_eq!(
        (first.day, first.sealed, first.chips()),
        (1, true, u128::from(total))
    );
    assert_eq!(
        (second.day, second.sealed, second.chips()),
        (2, false, 180_000)
    );
    assert_eq!(room.bags_of_day(0), Some(second));
    assert_eq!(room.bags_of_day(3), None);
}

/// A day played down to a count of players ("play down to 12", the
/// tournament's setting beside rule 77): given 18 players at two tables,
/// when busts bring the count within one of 12, then hand-for-hand starts
/// (RP8: every table plays its hand at once); a round that leaves 12 or
/// fewer ends the day once every table has ended its hand, and both of
/// that round's busts count. The next day plays on with no count.
#[test]
fn a_day_played_down_to_a_count_ends_hand_for_hand_when_a_round_reaches_it() {
    let mut settings = Settings::tda(9, 10_000);
    settings.play_down_to = vec![12];
    let mut state = started(settings, 18);
    let hand = |state: &mut SeatingState, table: u32, bust: bool| {
        let occupants: Vec<EntryId> = state.room().tables[&table]
            .seats
            .iter()
            .flatten()
            .copied()
            .collect();
        let busted = if bust {
            vec![Elimination::of(occupants[0])]
        } else {
            Vec::new()
        };
        let events = run(
            state,
            SeatingCommand::HandEnded {
                table,
                button: 1,
                big_blind: 3,
                busted,
            },
        );
        let mut all = events;
        all.extend(carry_out(state));
        all
    };
    let mut started_h4h = false;
    while state.room().players() > 13 {
        let table = *state
            .room()
            .tables
            .iter()
            .max_by_key(|(_, t)| t.count())
            .unwrap()
            .0;
        run(&mut state, SeatingCommand::BeginHand { table });
        let events = hand(&mut state, table, true);
        started_h4h |= events
            .iter()
            .any(|e| matches!(e, SeatingEvent::HandForHandStarted { paid: 12, .. }));
    }
    assert!(started_h4h, "no hand-for-hand at 13 players");
    assert!(state.room().hand_for_hand.is_some());
    let tables: Vec<u32> = state.room().tables.keys().copied().collect();
    assert_eq!(tables.len(), 2);
    for &table in &tables {
        run(&mut state, SeatingCommand::BeginHand { table });
    }
    // Table 1's bust leaves 12, but table 2 is still playing the round.
    let events = hand(&mut state, tables[0], true);
    assert!(
        !events.contains(&SeatingEvent::LastHandsPlayed),
        "{events:?}"
    );
    let wait = gate(&state, tables[0]).unwrap_err().to_string();
    assert!(wait.contains("hand-for-hand"), "{wait}");
    let events = hand(&mut state, tables[1], true);
    assert!(
        events.contains(&SeatingEvent::HandForHandEnded {
            remaining: 11,
            round: Some(1)
        }),
        "{events:?}"
    );
    assert!(
        events.contains(&SeatingEvent::LastHandsDrawn { hands: 0 }),
        "{events:?}"
    );
    assert!(
        events.contains(&SeatingEvent::LastHandsPlayed),
        "{events:?}"
    );
    for &table in &tables {
        let wait = gate(&state, table).unwrap_err().to_string();
        assert!(wait.contains("the day is over"), "{wait}");
    }
    run(&mut state, SeatingCommand::ResumeDay);
    for &table in &tables {
        gate(&state, table).unwrap();
    }
    assert!(state.room().hand_for_hand.is_none());
}

/// A count passed in one hand, before hand-for-hand could start: given
/// 18 players at two tables playing down to 15, when table 1's hand busts
/// three (18 to 15) while table 2 still plays its hand, then table 1 deals
/// no further hand (the hands being played are the day's last), and the
/// day is over once table 2's hand ends. (Found by `felt sim --flights`:
/// with a thousand tables some table is always in a hand, so the day ran
/// on far past its count.)
#[test]
fn a_count_passed_in_one_hand_stops_every_table_at_its_hand_end() {
    let mut settings = Settings::tda(9, 10_000);
    settings.play_down_to = vec![15];
    let mut state = started(settings, 18);
    let seated = |state: &SeatingState, table: u32| -> Vec<EntryId> {
        state.room().tables[&table]
            .seats
            .iter()
            .flatten()
            .copied()
            .collect()
    };
    let ended = |state: &mut SeatingState, table: u32, busted: &[EntryId]| {
        let events = run(
            state,
            SeatingCommand::HandEnded {
                table,
                button: 1,
                big_blind: 3,
                busted: busted.iter().map(|&e| Elimination::of(e)).collect(),
            },
        );
        carry_out(state);
        events
    };
    run(&mut state, SeatingCommand::BeginHand { table: 1 });
    run(&mut state, SeatingCommand::BeginHand { table: 2 });
    // Table 2: one out (17 left, not yet near the count).
    let at_2 = seated(&state, 2);
    ended(&mut state, 2, &at_2[..1]);
    run(&mut state, SeatingCommand::BeginHand { table: 2 });
    // Table 1: two out in one hand, 15 left, table 2 still playing.
    let at_1 = seated(&state, 1);
    let events = ended(&mut state, 1, &at_1[..2]);
    assert!(
        !events.contains(&SeatingEvent::LastHandsPlayed),
        "{events:?}"
    );
    assert_eq!(state.room().players(), 15);
    let wait = gate(&state, 1).unwrap_err().to_string();
    assert!(wait.contains("15"), "{wait}");
    let events = ended(&mut state, 2, &[]);
    assert!(
        events.contains(&SeatingEvent::LastHandsPlayed),
        "{events:?}"
    );
    for table in [1, 2] {
        let wait = gate(&state, table).unwrap_err().to_string();
        assert!(wait.contains("the day is over"), "{wait}");
    }
}

/// Late registration that spans days: given the bags taken at day 1's
/// end, when a new player registers before day 2, then they are seated
/// with the starting stack and have no bag: counted again, no bag is
/// recorded for them, the bags seal without them, and day 2's draw seats
/// them among the bagged players.
#[test]
fn an_entry_registered_between_days_has_no_bag_and_is_drawn_into_the_next_day() {
    use felt_seating::BagWitness::{Player, Staff};
    let mut settings = Settings::tda(9, 10_000);
    settings.late_registration_level = 12;
    let mut state = started(settings, 18);
    run(&mut state, SeatingCommand::PlayLastHands { hands: 0 });
    let stacks = |state: &SeatingState| -> Vec<(EntryId, u64)> {
        state
            .room()
            .tables
            .values()
            .flat_map(|t| t.seats.iter().flatten().map(|&e| (e, 10_000)))
            .collect()
    };
    let first = stacks(&state);
    run(
        &mut state,
        SeatingCommand::BagStacks {
            stacks: first.clone(),
            uncounted: Vec::new(),
        },
    );
    run(
        &mut state,
        SeatingCommand::Register {
            player: "late".parse().unwrap(),
            name: "Late".into(),
            level: 6,
        },
    );
    carry_out(&mut state);
    let now = stacks(&state);
    assert_eq!(now.len(), 19);
    let events = run(
        &mut state,
        SeatingCommand::BagStacks {
            stacks: now,
            uncounted: Vec::new(),
        },
    );
    assert!(events.is_empty(), "{events:?}");
    for &(entry, _) in &first {
        for by in [Player, Staff] {
            run(&mut state, SeatingCommand::ConfirmBag { entry, by });
        }
    }
    let events = run(&mut state, SeatingCommand::SealBags);
    assert_eq!(
        events,
        [SeatingEvent::BagsSealed {
            bags: 18,
            chips: 180_000
        }]
    );
    let events = run(&mut state, SeatingCommand::ResumeDay);
    assert!(
        events.contains(&SeatingEvent::RedrawCalled {
            players: 19,
            reason: MoveReason::NewDay
        }),
        "{events:?}"
    );
    carry_out(&mut state);
    check_seats(&state);
}

fn refused_unchanged(state: &mut SeatingState, command: SeatingCommand, error: SeatingError) {
    let before = state.clone();
    assert_eq!(try_run(state, command).unwrap_err(), error);
    assert_eq!(*state, before);
}

#[test]
fn a_players_second_seat_in_the_event_is_void_where_its_satellite_pays_it_in_cash() {
    // (Issue 28: "a player who already holds a ticket and wins another
    // gets the house's alternative".) Given an event whose ledger has
    // "twice"'s seat from satellite A,
    let mut state = registered(Settings::club(), 2);
    let ticket = |satellite: &str, entry: u64| felt_seating::Ticket {
        satellite: satellite.into(),
        entry: EntryId(entry),
        holder: "twice".parse().unwrap(),
    };
    let record = |t: felt_seating::Ticket, cash_if_second: bool| SeatingCommand::RecordTicket {
        ticket: t,
        cash_if_second,
    };
    assert_eq!(
        run(&mut state, record(ticket("sat-a", 3), true)),
        vec![SeatingEvent::TicketRecorded {
            ticket: ticket("sat-a", 3)
        }]
    );
    // when they win another in satellite B, whose house pays a second seat
    // in cash, then the second is void here (A's came first);
    assert_eq!(
        run(&mut state, record(ticket("sat-b", 8), true)),
        vec![SeatingEvent::TicketVoided {
            ticket: ticket("sat-b", 8),
            held: "sat-a/3".into(),
        }]
    );
    assert_eq!(
        state.ledger("sat-b/8"),
        Some((&"twice".parse::<PlayerId>().unwrap(), true))
    );
    // a void ticket buys no entry, and the first one does;
    let redeem = |t: felt_seating::Ticket| SeatingCommand::RedeemTicket {
        player: "twice".parse().unwrap(),
        name: "Twice".into(),
        level: 0,
        ticket: t,
    };
    assert_eq!(
        decide(&state, &redeem(ticket("sat-b", 8)), &NO_DRAW),
        Err(SeatingError::TicketVoid {
            reference: "sat-b/8".into(),
            player: "twice".parse().unwrap(),
            held: "sat-a/3".into(),
        })
    );
    run(&mut state, redeem(ticket("sat-a", 3)));
    // the same ticket is recorded once;
    assert_eq!(
        decide(&state, &record(ticket("sat-a", 3), true), &NO_DRAW),
        Err(SeatingError::TicketKnown {
            reference: "sat-a/3".into()
        })
    );
    // a satellite whose house gives another ticket keeps its second seat
    // a ticket;
    assert_eq!(
        run(&mut state, record(ticket("sat-c", 1), false)),
        vec![SeatingEvent::TicketRecorded {
            ticket: ticket("sat-c", 1)
        }]
    );
    // and a ticket redeemed before its word arrived is recorded as it is
    // (it already bought its entry), not voided.
    let mut late = registered(Settings::club(), 2);
    run(&mut late, record(ticket("sat-a", 3), true));
    run(&mut late, redeem(ticket("sat-d", 2)));
    assert_eq!(
        run(&mut late, record(ticket("sat-d", 2), true)),
        vec![SeatingEvent::TicketRecorded {
            ticket: ticket("sat-d", 2)
        }]
    );
    // A player's seat redeemed here counts as held: their next is void.
    assert!(matches!(
        &run(&mut late, record(ticket("sat-e", 5), true))[..],
        [SeatingEvent::TicketVoided { .. }]
    ));
}
