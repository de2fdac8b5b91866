//! The audit over a real log: a tournament played through the conductor
//! passes every check; the same log with one event changed behind the
//! log's back fails, naming the stream and the event; asking for what the
//! log does not hold is an error, not a pass.

use felt_vocabulary::PlayerId;
use std::sync::Arc;
use std::time::Duration;

use felt_audit::{AuditError, Line};
use felt_cards::Seed;
use felt_clock::{ClockSettings, Millis, Structure};
use felt_eventlog::{EmbeddedLog, EventLog, Filter};
use felt_payout::{MoneySettings, SimultaneousBusts};
use felt_seating::Settings;
use felt_table::HouseRules;
use felt_tournament::follow::{HandFollower, Inputs, report};
use felt_tournament::{Begin, Conductor, TournamentSpec, bot};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

const T0: Millis = 1_796_153_400_000;

struct Fixed;

impl Inputs for Fixed {
    fn now(&self) -> Millis {
        T0
    }
}

fn spec() -> TournamentSpec {
    TournamentSpec {
        name: "Audited".into(),
        seating: Settings::tda(6, 6_000),
        structure: Structure::bhpoker(),
        clock: ClockSettings::default(),
        money: MoneySettings::club(),
        busts: SimultaneousBusts::ShareAcrossTables,
        rules: HouseRules::default(),
        deal: felt_tournament::DealMode::Digital,
    }
}

/// Twelve players on two tables, each table's first three hands played
/// out by bots and reported to seating and payout from the log.
async fn played(log: Arc<EmbeddedLog>, t: &str) {
    let c = Conductor::new(log);
    c.create(&t.parse().unwrap(), &spec(), T0).await.unwrap();
    let players: Vec<(PlayerId, String)> = (1..=12)
        .map(|i| (format!("p{i}").parse().unwrap(), format!("Player {i}")))
        .collect();
    c.register_many(t, "presales", &players, T0).await.unwrap();
    c.start(t, T0).await.unwrap();
    let mut sub = c
        .tables
        .log()
        .subscribe(
            Filter {
                id: None,
                tournament: None,
                kind: Some("table".into()),
            },
            0,
        )
        .await
        .unwrap();
    let mut follower = HandFollower::default();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..3 {
        for table in [1, 2] {
            let deck = |hand: u64| Seed::from_u64(100 + hand);
            let Begin::Started(_, mut state, _) = c.begin_hand(t, table, T0, &deck).await.unwrap()
            else {
                panic!("table {table} was not dealt a hand");
            };
            let number = state.hand().unwrap().number;
            let mut k = 0;
            while let Some(command) = bot::act(&state, &mut rng) {
                k += 1;
                state = c
                    .table(t, table, &format!("h{number}-{k}"), T0, command)
                    .await
                    .unwrap()
                    .state;
            }
            while let Ok(next) = tokio::time::timeout(Duration::from_millis(25), sub.next()).await {
                report(&c, &mut follower, &next.unwrap().unwrap(), &Fixed)
                    .await
                    .unwrap();
            }
        }
    }
}

#[tokio::test]
async fn a_played_tournament_passes_and_a_changed_event_fails_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.redb");
    {
        let log = Arc::new(EmbeddedLog::open(&path).unwrap());
        played(log.clone(), "audited").await;
        let audit = felt_audit::verify(log.as_ref(), None).await.unwrap();
        assert!(audit.clean(), "{:?}", audit.lines);
        assert_eq!(audit.tournaments, 1);
        // Seating, clock, payout and two tables: each chain, fold, deal and
        // award check, and the tournament's own.
        assert!(audit.passed > 15, "{audit:?}");
        assert!(audit.events > 50, "{audit:?}");
        // Read once, the log gives the same audit.
        assert_eq!(
            felt_audit::verify_read_once(log.as_ref(), Some("audited"))
                .await
                .unwrap(),
            audit
        );
    }
    let stream = felt_tablelog::stream("audited", 1).unwrap();
    let changed = felt_eventlog::tamper(&path, &stream, 12, |env| env.payload.push(0xc0)).unwrap();
    assert!(changed, "table 1 has an event 12");
    let log = EmbeddedLog::open(&path).unwrap();
    let audit = felt_audit::verify(&log, Some("audited")).await.unwrap();
    assert!(!audit.clean());
    let failed: Vec<&str> = audit.failures().collect();
    assert_eq!(
        failed,
        [format!("{stream}: hash chain")],
        "{:?}",
        audit.lines
    );
    let Some(Line::Failed { why, .. }) = audit
        .lines
        .iter()
        .find(|l| matches!(l, Line::Failed { .. }))
    else {
        panic!("no failure in {:?}", audit.lines);
    };
    assert!(why.contains("event 13"), "{why}");
}

#[tokio::test]
async fn an_empty_log_or_a_tournament_it_does_not_hold_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let log = EmbeddedLog::open(&dir.path().join("log.redb")).unwrap();
    assert!(matches!(
        felt_audit::verify(&log, None).await,
        Err(AuditError::Empty)
    ));
    assert!(matches!(
        felt_audit::verify(&log, Some("nowhere")).await,
        Err(AuditError::NoSuchTournament(t)) if t == "nowhere"
    ));
}

/// The floor's corrections add and take chips deliberately: the audit
/// accounts for each (a note naming it, with its reason) and the chips on
/// the tables still match the chips bought in with them.
#[tokio::test]
async fn the_floors_corrections_are_accounted_for() {
    use felt_table::{Command, Concerns, Removal};
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    played(log.clone(), "corrected").await;
    let c = Conductor::new(log.clone());
    let at = async |table| {
        let stream = felt_tablelog::stream("corrected", table).unwrap();
        let (state, _) = c.tables.state(&stream).await.unwrap();
        let seat = (1..=state.size())
            .find(|&s| state.seat(s).is_some_and(|p| p.stack > 1_000))
            .unwrap();
        (seat, *state.seat(seat).unwrap())
    };
    let (seat, p) = at(1).await;
    let fix = Command::CorrectStack {
        seat,
        player: p.player,
        stack: p.stack + 300,
        concerns: Concerns::Moment("chips found under the rail".into()),
        reason: "300 of the player's fell behind the rail".into(),
    };
    c.table("corrected", 1, "fix", T0, fix).await.unwrap();
    let (seat, p) = at(2).await;
    let remove = Command::RemoveChips {
        seat,
        player: p.player,
        amount: 1_000,
        removal: Removal::Hidden,
        reason: "a 1,000 chip in a pocket".into(),
    };
    c.table("corrected", 2, "hidden", T0, remove).await.unwrap();
    let audit = felt_audit::verify(log.as_ref(), None).await.unwrap();
    assert!(audit.clean(), "{:?}", audit.lines);
    let notes: Vec<&str> = audit
        .lines
        .iter()
        .filter_map(|l| match l {
            Line::Note(n) => Some(n.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("table 1") && n.contains("behind the rail")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("1000 chips") && n.contains("TDA 63")),
        "{notes:?}"
    );
}

/// Rule 27: a player who busted while rebuys are sold holds their seat at
/// seating while they decide, their chips gone from the table. Given a
/// results-only table's result that busted one, when the audit runs while
/// the offer is unanswered, then it passes (the seat is theirs, not a
/// disagreement); and once they decline, it passes with the bust placed.
#[tokio::test]
async fn a_bust_deciding_on_a_rebuy_is_not_a_seat_the_tables_disagree_on() {
    use felt_table::{Command, Recording};
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let c = Conductor::new(log.clone());
    let t = "rebuys";
    let mut spec = spec();
    spec.seating.rebuy = Some(felt_seating::RebuyTerms {
        chips: 6_000,
        last_level: 4,
        limit: 1,
        condition: felt_seating::RebuyCondition::Busted,
    });
    spec.money.rebuy = 1_000;
    c.create(&t.parse().unwrap(), &spec, T0).await.unwrap();
    let players: Vec<(PlayerId, String)> = (1..=12)
        .map(|i| (format!("p{i}").parse().unwrap(), format!("Player {i}")))
        .collect();
    c.register_many(t, "presales", &players, T0).await.unwrap();
    c.start(t, T0).await.unwrap();
    let table = c.table_state(t, 1).await.unwrap();
    let (busted, by) = (table.seat(1).unwrap().player, table.seat(2).unwrap().player);
    drop(table);
    let mut sub = c
        .tables
        .log()
        .subscribe(
            Filter {
                id: None,
                tournament: None,
                kind: Some("table".into()),
            },
            0,
        )
        .await
        .unwrap();
    for (id, command) in [
        (
            "tablet-down",
            Command::SetRecording {
                recording: Recording::ResultsOnly,
                reason: "tablet down".into(),
            },
        ),
        (
            "result-1",
            Command::RecordResult {
                button: 3,
                busted: vec![(1, busted)],
                by: vec![(2, by)],
                occurred_at: None,
            },
        ),
    ] {
        c.table(t, 1, id, T0, command).await.unwrap();
    }
    let mut follower = HandFollower::default();
    while let Ok(next) = tokio::time::timeout(Duration::from_millis(50), sub.next()).await {
        report(&c, &mut follower, &next.unwrap().unwrap(), &Fixed)
            .await
            .unwrap();
    }
    let seating = c.seating_state(t).await.unwrap();
    assert!(
        seating.room().offers[&1].waiting.contains(&busted),
        "{:?}",
        seating.room().offers
    );
    drop(seating);
    let audit = felt_audit::verify(log.as_ref(), Some(t)).await.unwrap();
    assert!(audit.clean(), "{:?}", audit.lines);
    c.floor(
        t,
        felt_seating::SeatingCommand::DeclineRebuy { entry: busted },
        "declined",
        T0,
        &felt_service::Provenance::default(),
    )
    .await
    .unwrap();
    let seating = c.seating_state(t).await.unwrap();
    assert!(seating.out().contains_key(&busted));
    drop(seating);
    let audit = felt_audit::verify(log.as_ref(), Some(t)).await.unwrap();
    assert!(audit.clean(), "{:?}", audit.lines);
}

/// An event's Day 2 must come from its flights' sealed bags (issue 28):
/// stacks advanced by a floor command that no flight bagged fail the
/// audit's flights check, naming the entries; a level to resume at that
/// no flight's day ended in fails the resume check.
#[tokio::test]
async fn stacks_no_flight_bagged_fail_the_flights_check() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let c = Conductor::new(log.clone());
    let mut event = spec();
    event.seating.flights = Some(felt_seating::FlightStacks::Best);
    c.create(&"event".parse().unwrap(), &event, T0)
        .await
        .unwrap();
    let bag = |k: u64, chips: u64| felt_seating::FlightBag {
        flight: 1,
        entry: felt_seating::EntryId(felt_seating::FLIGHT_ENTRIES + k),
        player: format!("p{k}").parse().unwrap(),
        name: format!("Player {k}"),
        bag: k as u32,
        chips,
    };
    c.floor(
        "event",
        felt_seating::SeatingCommand::AdvanceFlights {
            bags: vec![bag(1, 9_000), bag(2, 3_000)],
            out: 0,
            resume: Some(felt_seating::DayResume {
                day: 2,
                level: 9,
                remaining_ms: 60_000,
            }),
        },
        "made-up",
        T0,
        &Default::default(),
    )
    .await
    .unwrap();
    let audit = felt_audit::verify(log.as_ref(), Some("event"))
        .await
        .unwrap();
    let failed: Vec<&str> = audit.failures().collect();
    assert!(
        failed.contains(&"event: every bag of its 0 flights reached Day 2 or was forfeited"),
        "{:?}",
        audit.lines
    );
    assert!(
        failed
            .contains(&"event: Day 2 resumed the structure where the furthest flight's day ended"),
        "{:?}",
        audit.lines
    );
}

/// Issue 28: a satellite's seat is redeemed once across an event and its
/// flights. Given one ticket recorded as the payment of an entry in each
/// of two flights (by floor commands, past the front door's check), the
/// audit fails the event's ticket check across its flights, naming both.
#[tokio::test]
async fn a_ticket_redeemed_in_two_flights_fails_the_check_across_them() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let c = Conductor::new(log.clone());
    let mut event = spec();
    event.seating.flights = Some(felt_seating::FlightStacks::Best);
    c.create(&"ev".parse().unwrap(), &event, T0).await.unwrap();
    let holder: PlayerId = "p1".parse().unwrap();
    for n in 1..=2u32 {
        let mut flight = spec();
        flight.seating.flight = n;
        flight.money.structure = felt_payout::Structure::Flight { event: "ev".into() };
        let f = format!("ev-{n}");
        c.create(&f.parse().unwrap(), &flight, T0).await.unwrap();
        c.floor(
            &f,
            felt_seating::SeatingCommand::RedeemTicket {
                player: holder.clone(),
                name: "Player 1".into(),
                level: 0,
                ticket: felt_seating::Ticket {
                    satellite: "sat".into(),
                    entry: felt_seating::EntryId(1),
                    holder: holder.clone(),
                },
            },
            "made-up",
            T0,
            &Default::default(),
        )
        .await
        .unwrap();
    }
    let audit = felt_audit::verify(log.as_ref(), None).await.unwrap();
    let failed: Vec<&str> = audit.failures().collect();
    assert!(
        failed.contains(&"ev: each ticket buys one entry across its flights"),
        "{:?}",
        audit.lines
    );
    let named = audit
        .lines
        .iter()
        .any(|l| format!("{l:?}").contains("sat/1 in ev-1/10000001 and ev-2/20000001"));
    assert!(named, "{:?}", audit.lines);
}
