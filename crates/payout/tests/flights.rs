//! An event's one pool from its Day 1 flights (issue 28): given the
//! event's money, when its flights are recorded, then every flight's
//! entries are in its pool and the entries that did not reach Day 2
//! finish below every stack that did, each flight taking a share of the
//! lowest places in proportion to its entries.

use felt_payout::{
    Command, EntryId, FlightRecord, MoneySettings, PayoutError, PayoutEvent, PayoutState,
    SimultaneousBusts, Structure, decide,
};

fn run(state: &mut PayoutState, command: &Command) -> Vec<PayoutEvent> {
    let events = decide(state, command).unwrap_or_else(|e| panic!("{command:?}: {e}"));
    for e in &events {
        state.apply(e);
    }
    events
}

fn configured(settings: MoneySettings) -> PayoutState {
    let mut state = PayoutState::default();
    run(
        &mut state,
        &Command::Configure {
            name: "Big 50".into(),
            settings,
            busts: SimultaneousBusts::ShareAcrossTables,
        },
    );
    state
}

/// Flight `n` of `size` entries (numbered n·10⁷ + k): the last `left`
/// bagged, the others out in order (entry k the k-th out).
fn flight(n: u32, size: u64, left: u64, not_advanced: &[u64]) -> FlightRecord {
    let id = |k: u64| EntryId(u64::from(n) * 10_000_000 + k);
    FlightRecord {
        flight: n,
        field: size as u32,
        entries: (1..=size)
            .map(|k| (id(k), format!("f{n}p{k}").parse().unwrap()))
            .collect(),
        add_ons: Vec::new(),
        rebuys: Vec::new(),
        out: (1..=size - left).map(|k| (id(k), k as u32)).collect(),
        not_advanced: not_advanced.iter().map(|&k| id(k)).collect(),
    }
}

/// Two flights of 40 and 20 entries, 10 and 5 bagging, one bag of flight
/// 2 forfeited: 60 entries and a rebuy in each flight are in one pool,
/// the forfeited bag finishes last, and Day 1's 45 busts are interleaved,
/// two of flight 1 for each one of flight 2.
#[test]
fn the_flights_make_one_pool_and_share_the_lowest_places_by_their_size() {
    let mut settings = MoneySettings::club();
    settings.rebuy = 4_000;
    let mut state = configured(settings.clone());
    record(
        &mut state,
        vec![
            FlightRecord {
                rebuys: vec![EntryId(10_000_001)],
                ..flight(1, 40, 10, &[])
            },
            FlightRecord {
                rebuys: vec![EntryId(20_000_001)],
                ..flight(2, 20, 5, &[18])
            },
        ],
    );
    let events = run(&mut state, &Command::CloseRegistration);
    let PayoutEvent::RegistrationClosed { pool, .. } = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(pool.entries, 60);
    assert_eq!(pool.rebuys, 2);
    assert_eq!(pool.collected, 60 * settings.buy_in + 2 * 4_000);
    // Placed as far as one decision places; the rest as payout goes on.
    while !state.waiting().is_empty() {
        run(&mut state, &Command::PlaceWaiting);
    }
    let place = |flight: u64, k: u64| {
        state.entries()[&EntryId(flight * 10_000_000 + k)]
            .place
            .unwrap()
            .0
    };
    assert_eq!(place(2, 18), 60);
    // Flight 1's first out (1/40) and flight 2's (1/20 = 2/40): 59, 57.
    assert_eq!(place(1, 1), 59);
    assert_eq!(place(1, 2), 58);
    assert_eq!(place(2, 1), 57);
    // The last out of each, both three quarters through their field:
    // flight 1's 30th out first, then flight 2's 15th.
    assert_eq!(place(1, 30), 16);
    assert_eq!(place(2, 15), 15);
    // Fourteen stacks still play (fifteen bags, one forfeited), in places
    // 1 to 14.
    assert_eq!(state.remaining(), 14);
}

/// Refused, changing nothing: a flight recorded after the close, an
/// entry twice, an out number beyond the flight's field, a close with no
/// flight, or a flight's own payout.
#[test]
fn flights_are_recorded_once_by_their_event() {
    let mut state = configured(MoneySettings::club());
    let refused = |state: &PayoutState, command: &Command| {
        let error = decide(state, command).unwrap_err();
        assert!(
            matches!(
                error,
                PayoutError::FlightsRefused { .. }
                    | PayoutError::DuplicateEntry { .. }
                    | PayoutError::OutOfField { .. }
                    | PayoutError::NoEntries
            ),
            "{error}"
        );
    };
    refused(&state, &Command::CloseFlights);
    let one = flight(1, 10, 4, &[]);
    let mut beyond = one.clone();
    beyond.out[0].1 = 11;
    refused(&state, &Command::RecordFlight { record: beyond });
    record(&mut state, vec![one.clone()]);
    let before = state.clone();
    refused(
        &state,
        &Command::RecordFlight {
            record: one.clone(),
        },
    );
    refused(&state, &Command::CloseFlights);
    assert_eq!(state, before);
    let mut of_a_flight = MoneySettings::club();
    of_a_flight.structure = Structure::Flight {
        event: "big50".into(),
    };
    let flight_state = configured(of_a_flight);
    refused(&flight_state, &Command::RecordFlight { record: one });
}

/// Every flight recorded a part at a time, then closed.
fn record(state: &mut PayoutState, flights: Vec<FlightRecord>) {
    for f in flights {
        run(state, &Command::RecordFlight { record: f });
    }
    run(state, &Command::CloseFlights);
}

/// A flight pays no place of its own: its sheet is empty, its pool the
/// event's.
#[test]
fn a_flight_pays_nothing_itself() {
    let mut settings = MoneySettings::club();
    settings.structure = Structure::Flight {
        event: "big50".into(),
    };
    let mut state = configured(settings);
    run(
        &mut state,
        &Command::RecordEntries {
            entries: (1..=12)
                .map(|k| (EntryId(k), format!("p{k}").parse().unwrap()))
                .collect(),
        },
    );
    let events = run(&mut state, &Command::CloseRegistration);
    let PayoutEvent::RegistrationClosed { sheet, pool } = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(sheet.paid(), 0);
    assert_eq!(pool.collected, 12 * 4_000);
}

/// A flight is recorded a part at a time: a part of more than
/// `FLIGHT_PART` entries is refused (one decision is one log message, and
/// a JetStream server takes at most 1 MB in one: 30,000 entries in one
/// decision made 12 MB), and a flight of 5,000 recorded in three parts
/// is the same pool as in one go.
#[test]
fn a_flight_is_recorded_in_parts_each_a_small_decision() {
    let mut state = configured(MoneySettings::generated(4_000, 1_000));
    let whole = flight(1, 5_000, 500, &[]);
    let error = decide(
        &state,
        &Command::RecordFlight {
            record: whole.clone(),
        },
    )
    .unwrap_err();
    assert!(matches!(error, PayoutError::TooMuch { .. }), "{error}");
    for part in whole.entries.chunks(felt_payout::FLIGHT_PART) {
        let ids: std::collections::BTreeSet<EntryId> = part.iter().map(|(e, _)| *e).collect();
        let record = FlightRecord {
            entries: part.to_vec(),
            out: whole
                .out
                .iter()
                .filter(|(e, _)| ids.contains(e))
                .copied()
                .collect(),
            ..whole.clone()
        };
        let events = run(&mut state, &Command::RecordFlight { record });
        let bytes = rmp_serde::to_vec(&events).unwrap().len();
        assert!(bytes < 512 * 1024, "a part of {bytes} bytes");
    }
    run(&mut state, &Command::CloseFlights);
    let events = run(&mut state, &Command::CloseRegistration);
    let PayoutEvent::RegistrationClosed { pool, .. } = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(pool.entries, 5_000);
    assert_eq!(state.remaining(), 500);
}
