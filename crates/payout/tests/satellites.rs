//! A satellite's money: given events, when a command, then events or a
//! refusal. The prizes are seats in another event (issue 28): tickets
//! worth the target's entry price, the remainder in cash by the house's
//! rule, a second seat by its alternative, deals where it allows them.

use felt_payout::{
    Bust, Command, DealMethod, DealTerms, EntryId, IdDocument, IdDocumentKind, MoneySettings,
    PayoutError, PayoutEvent, PayoutState, Remainder, SatelliteTerms, SecondSeat,
    SimultaneousBusts, Structure, decide,
};

/// A satellite of `buy_in` a head into seats worth 10,000 in "main".
fn satellite(buy_in: u64, remainder: Remainder, second_seat: SecondSeat) -> Command {
    let mut settings = MoneySettings::club();
    settings.buy_in = buy_in;
    settings.fee = 100;
    settings.structure = Structure::Satellite(SatelliteTerms {
        target: "main".into(),
        seat: 10_000,
        remainder,
        deals: false,
        second_seat,
    });
    Command::Configure {
        name: "Main event satellite".into(),
        settings,
        busts: SimultaneousBusts::ShareAcrossTables,
    }
}

/// Entries 1..=n; `player(i)` names each one's player.
fn field(n: u64, player: impl Fn(u64) -> String) -> Command {
    Command::RecordEntries {
        entries: (1..=n)
            .map(|i| (EntryId(i), player(i).parse().unwrap()))
            .collect(),
    }
}

fn run(state: &mut PayoutState, command: &Command) -> Vec<PayoutEvent> {
    let events = decide(state, command).unwrap_or_else(|e| panic!("{command:?}: {e}"));
    for e in &events {
        state.apply(e);
    }
    events
}

/// Busts entries `from` down to 2 one hand at a time: entry `n` finishes
/// `n`th; every event decided.
fn play_down(state: &mut PayoutState, from: u64) -> Vec<PayoutEvent> {
    let mut all = Vec::new();
    for e in (2..=from).rev() {
        all.extend(run(
            state,
            &Command::RecordBusts {
                busts: vec![Bust {
                    entry: EntryId(e),
                    table: 1,
                    starting_stack: 100,
                    by: vec![EntryId(1)],
                    out: None,
                    forfeit: false,
                }],
            },
        ));
    }
    all
}

fn tickets(events: &[PayoutEvent]) -> Vec<(u64, String, u64)> {
    events
        .iter()
        .filter_map(|e| match e {
            PayoutEvent::TicketAwarded {
                entry,
                player,
                target,
                value,
            } => {
                assert_eq!(target, "main");
                Some((entry.get(), player.to_string(), *value))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn the_pool_buys_whole_seats_and_the_next_place_takes_the_rest_in_cash() {
    // Given a satellite of 23 entries at 1,500 (a pool of 34,500),
    let mut state = PayoutState::default();
    run(
        &mut state,
        &satellite(1_500, Remainder::NextPlace, SecondSeat::Cash),
    );
    run(&mut state, &field(23, |i| format!("p{i}")));
    // when registration closes, then the sheet pays three seats of 10,000
    // and 4,500 to fourth;
    let closed = run(&mut state, &Command::CloseRegistration);
    let Some(PayoutEvent::RegistrationClosed { sheet, .. }) = closed.first() else {
        panic!("{closed:?}")
    };
    assert_eq!(sheet.prizes(), vec![10_000, 10_000, 10_000, 4_500]);
    // and as the field is played down, places 3, 2 and 1 each win a
    // ticket to the target, fourth only cash.
    let events = play_down(&mut state, 23);
    assert_eq!(
        tickets(&events),
        vec![
            (3, "p3".into(), 10_000),
            (2, "p2".into(), 10_000),
            (1, "p1".into(), 10_000)
        ]
    );
    assert_eq!(state.entry(EntryId(4)).unwrap().prize, 4_500);
    assert_eq!(state.entry(EntryId(4)).unwrap().ticket, 0);
    assert_eq!(state.entry(EntryId(1)).unwrap().ticket, 10_000);
}

#[test]
fn the_remainder_split_among_the_seats_is_their_cash_and_a_ticket_is_not_paid_at_the_cage() {
    // Given 23 entries at 1,500 with the remainder split among the seats,
    let mut state = PayoutState::default();
    run(
        &mut state,
        &satellite(1_500, Remainder::SplitAmongSeats, SecondSeat::Cash),
    );
    run(&mut state, &field(23, |i| format!("p{i}")));
    let closed = run(&mut state, &Command::CloseRegistration);
    let Some(PayoutEvent::RegistrationClosed { sheet, .. }) = closed.first() else {
        panic!("{closed:?}")
    };
    // then the three seats share the 4,500 in cash;
    assert_eq!(sheet.prizes(), vec![11_500, 11_500, 11_500]);
    play_down(&mut state, 23);
    let document = IdDocument {
        kind: IdDocumentKind::Passport,
        reference: "P-1".into(),
    };
    // when the cage pays the winner, then only the cash beside the ticket.
    let paid = run(
        &mut state,
        &Command::PayPrize {
            entry: EntryId(1),
            document: document.clone(),
            tax_number: None,
        },
    );
    assert!(
        matches!(
            &paid[..],
            [PayoutEvent::PrizePaid {
                gross: 1_500,
                net: 1_500,
                ..
            }]
        ),
        "{paid:?}"
    );
    // A seat with nothing beside it is no cash prize at all.
    let mut exact = PayoutState::default();
    run(
        &mut exact,
        &satellite(2_000, Remainder::NextPlace, SecondSeat::Cash),
    );
    run(&mut exact, &field(10, |i| format!("p{i}")));
    run(&mut exact, &Command::CloseRegistration);
    play_down(&mut exact, 10);
    assert_eq!(
        decide(
            &exact,
            &Command::PayPrize {
                entry: EntryId(2),
                document,
                tax_number: None,
            },
        ),
        Err(PayoutError::PrizeIsTicket { entry: EntryId(2) })
    );
}

#[test]
fn a_player_who_wins_a_second_seat_gets_the_houses_alternative() {
    // Given entries 1 and 2 are one player's (a re-entry),
    let both = |second: SecondSeat| {
        let mut state = PayoutState::default();
        run(&mut state, &satellite(2_000, Remainder::NextPlace, second));
        run(
            &mut state,
            &field(10, |i| {
                if i <= 2 {
                    "twice".into()
                } else {
                    format!("p{i}")
                }
            }),
        );
        run(&mut state, &Command::CloseRegistration);
        let events = play_down(&mut state, 10);
        (state, events)
    };
    // when both finish in the two seats (entry 2 second, then entry 1
    // first), then by the house's rule the second seat is its value in
    // cash (the player is in the target once);
    let (state, events) = both(SecondSeat::Cash);
    assert_eq!(tickets(&events), vec![(2, "twice".into(), 10_000)]);
    assert_eq!(state.entry(EntryId(1)).unwrap().ticket, 0);
    assert_eq!(state.entry(EntryId(1)).unwrap().prize, 10_000);
    // or another ticket where the house gives one.
    let (_, events) = both(SecondSeat::Ticket);
    assert_eq!(tickets(&events).len(), 2);
}

#[test]
fn a_satellite_refuses_deals_where_the_house_says_so() {
    let mut state = PayoutState::default();
    run(
        &mut state,
        &satellite(1_500, Remainder::NextPlace, SecondSeat::Cash),
    );
    run(&mut state, &field(23, |i| format!("p{i}")));
    run(&mut state, &Command::CloseRegistration);
    let terms = DealTerms {
        method: DealMethod::ChipChop,
        players: vec![(EntryId(1), 1_000), (EntryId(2), 1_000)],
        play_for: 0,
    };
    assert_eq!(
        decide(&state, &Command::ProposeDeal { terms }),
        Err(PayoutError::DealsRefused)
    );
}

#[test]
fn a_satellite_names_its_target_and_a_seat_worth_something() {
    let bad = |seat: u64, target: &str| {
        let Command::Configure {
            name,
            mut settings,
            busts,
        } = satellite(1_000, Remainder::NextPlace, SecondSeat::Cash)
        else {
            unreachable!()
        };
        settings.structure = Structure::Satellite(SatelliteTerms {
            target: target.into(),
            seat,
            remainder: Remainder::NextPlace,
            deals: true,
            second_seat: SecondSeat::Cash,
        });
        decide(
            &PayoutState::default(),
            &Command::Configure {
                name,
                settings,
                busts,
            },
        )
    };
    assert!(
        matches!(bad(0, "main"), Err(PayoutError::InvalidStructure { reason }) if reason.contains("seat"))
    );
    assert!(
        matches!(bad(100, ""), Err(PayoutError::InvalidStructure { reason }) if reason.contains("target"))
    );
    assert!(
        matches!(bad(100, &"x".repeat(65)), Err(PayoutError::InvalidStructure { reason }) if reason.contains("target"))
    );
    assert!(bad(100, "main").is_ok());
}

#[test]
fn the_players_left_in_the_seats_each_win_one_at_seatings_word() {
    // Given 23 entries at 1,500 (three seats, 4,500 to fourth) played down
    // to three,
    let mut state = PayoutState::default();
    run(
        &mut state,
        &satellite(1_500, Remainder::NextPlace, SecondSeat::Cash),
    );
    run(&mut state, &field(23, |i| format!("p{i}")));
    run(&mut state, &Command::CloseRegistration);
    for e in (4..=23).rev() {
        run(
            &mut state,
            &Command::RecordBusts {
                busts: vec![Bust {
                    entry: EntryId(e),
                    table: 1,
                    starting_stack: 100,
                    by: vec![EntryId(1)],
                    out: None,
                    forfeit: false,
                }],
            },
        );
    }
    let award = |entries: &[u64]| Command::AwardSeats {
        entries: entries.iter().map(|&e| EntryId(e)).collect(),
    };
    // when seating says play is over, then the three share places 1 to 3,
    // a seat each, and each gets a ticket.
    let events = run(&mut state, &award(&[3, 1, 2]));
    assert_eq!(
        events.first(),
        Some(&PayoutEvent::Placed {
            group: felt_payout::PlaceGroup {
                entries: vec![EntryId(1), EntryId(2), EntryId(3)],
                first: 1,
                last: 3,
            },
            prizes: vec![
                (EntryId(1), 10_000),
                (EntryId(2), 10_000),
                (EntryId(3), 10_000)
            ],
        })
    );
    assert_eq!(tickets(&events).len(), 3);
    assert_eq!(state.entry(EntryId(4)).unwrap().prize, 4_500);
    // More players than seats win nothing yet; a tournament that is not a
    // satellite awards no seats.
    let mut early = PayoutState::default();
    run(
        &mut early,
        &satellite(1_500, Remainder::NextPlace, SecondSeat::Cash),
    );
    run(&mut early, &field(23, |i| format!("p{i}")));
    run(&mut early, &Command::CloseRegistration);
    assert_eq!(
        decide(&early, &award(&[1, 2, 3, 4])),
        Err(PayoutError::SeatsNotWon { left: 4, seats: 3 })
    );
    let mut club = PayoutState::default();
    run(
        &mut club,
        &Command::Configure {
            name: "Thursday".into(),
            settings: MoneySettings::club(),
            busts: SimultaneousBusts::ShareAcrossTables,
        },
    );
    run(&mut club, &field(3, |i| format!("p{i}")));
    run(&mut club, &Command::CloseRegistration);
    assert_eq!(decide(&club, &award(&[1])), Err(PayoutError::NotASatellite));
}

#[test]
fn a_ticket_the_target_finds_a_second_seat_is_cashed_by_the_houses_rule() {
    // Given a satellite of 10 at 2,000 (two seats of 10,000) played down,
    let played = |second: SecondSeat| {
        let mut state = PayoutState::default();
        run(&mut state, &satellite(2_000, Remainder::NextPlace, second));
        run(&mut state, &field(10, |i| format!("p{i}")));
        run(&mut state, &Command::CloseRegistration);
        play_down(&mut state, 10);
        state
    };
    let mut state = played(SecondSeat::Cash);
    // when the target finds entry 2's ticket its player's second seat
    // there (one from another satellite came first), then the ticket is
    // cashed at its value,
    let cashed = run(&mut state, &Command::CashTicket { entry: EntryId(2) });
    assert_eq!(
        cashed,
        vec![PayoutEvent::TicketCashed {
            entry: EntryId(2),
            value: 10_000
        }]
    );
    // and the cage pays the whole prize in cash (no ticket beside it).
    let paid = run(
        &mut state,
        &Command::PayPrize {
            entry: EntryId(2),
            document: IdDocument {
                kind: IdDocumentKind::Passport,
                reference: "P-2".into(),
            },
            tax_number: None,
        },
    );
    assert!(
        matches!(&paid[..], [PayoutEvent::PrizePaid { gross: 10_000, .. }]),
        "{paid:?}"
    );
    // Once cashed, nothing is left to cash; an entry without a seat has
    // no ticket;
    assert_eq!(
        decide(&state, &Command::CashTicket { entry: EntryId(2) }),
        Err(PayoutError::NoTicket { entry: EntryId(2) })
    );
    assert_eq!(
        decide(&state, &Command::CashTicket { entry: EntryId(5) }),
        Err(PayoutError::NoTicket { entry: EntryId(5) })
    );
    // and a house that gives a second seat as another ticket keeps it.
    let kept = played(SecondSeat::Ticket);
    assert_eq!(
        decide(&kept, &Command::CashTicket { entry: EntryId(1) }),
        Err(PayoutError::SecondSeatIsTicket { entry: EntryId(1) })
    );
}
