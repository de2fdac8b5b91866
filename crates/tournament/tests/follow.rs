//! Seating learns of hand ends from the tables' events: hands are played at
//! the tables only, and a follower reading the log reports each end to
//! seating and payout. Started again from the beginning of the log (after a
//! restart), it reports each table's latest hand again and nothing else,
//! and changes nothing; started again from a position recorded inside a
//! hand, it still sees the hand in play whole.

use felt_seating::EntryId;
use felt_vocabulary::PlayerId;
use std::sync::Arc;

use felt_cards::Seed;
use felt_clock::{ClockSettings, Millis, Structure};
use std::time::Duration;

use felt_eventlog::{EmbeddedLog, EventLog, Filter, Subscription};
use felt_payout::{MoneySettings, SimultaneousBusts};
use felt_seating::Settings;
use felt_table::HouseRules;
use felt_tournament::aggregates::{payout_stream, seating_stream};
use felt_tournament::follow::{FOLLOWER, HandFollower, Inputs, follow, report};
use felt_tournament::{Begin, Conductor, TournamentSpec, bot};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

mod common;
use common::Crashing;

const T0: Millis = 1_796_153_400_000;

struct Fixed;

impl Inputs for Fixed {
    fn now(&self) -> Millis {
        T0
    }
}

fn spec() -> TournamentSpec {
    let mut seating = Settings::tda(6, 6_000);
    seating.final_table = 6;
    TournamentSpec {
        name: "Followed".into(),
        seating,
        structure: Structure::bhpoker(),
        clock: ClockSettings::default(),
        money: MoneySettings::club(),
        busts: SimultaneousBusts::ShareAcrossTables,
        rules: HouseRules::default(),
        deal: felt_tournament::DealMode::Digital,
    }
}

/// A tournament of `n` players, started.
async fn started(log: Arc<EmbeddedLog>, t: &str, n: u64) -> Conductor<EmbeddedLog> {
    let c = Conductor::new(log);
    c.create(&t.parse().unwrap(), &spec(), T0).await.unwrap();
    let players: Vec<(PlayerId, String)> = (1..=n)
        .map(|i| (format!("p{i}").parse().unwrap(), format!("Player {i}")))
        .collect();
    c.register_many(t, "presales", &players, T0).await.unwrap();
    c.start(t, T0).await.unwrap();
    c
}

/// The follower's view of the log: every table decision, in order.
async fn tables_of<L: EventLog + 'static>(c: &Conductor<L>) -> Subscription {
    let filter = Filter {
        id: None,
        tournament: None,
        kind: Some("table".into()),
    };
    c.tables.log().subscribe(filter, 0).await.unwrap()
}

/// Reports what the subscription has delivered so far (it is caught up
/// when nothing more comes for a while).
async fn catch_up<L: EventLog + 'static>(
    c: &Conductor<L>,
    follower: &mut HandFollower,
    sub: &mut Subscription,
) -> Vec<(u32, u64)> {
    let mut reported = Vec::new();
    while let Ok(next) = tokio::time::timeout(Duration::from_millis(25), sub.next()).await {
        let committed = next.unwrap().unwrap();
        if let Some(r) = report(c, follower, &committed, &Fixed).await.unwrap() {
            reported.push(r);
        }
    }
    reported
}

/// Plays the hand in `state` out with bots at `table`, its actions numbered
/// after the `done` already taken.
async fn play_out<L: EventLog + 'static>(
    c: &Conductor<L>,
    t: &str,
    table: u32,
    mut state: std::sync::Arc<felt_table::TableState>,
    done: u32,
    rng: &mut ChaCha8Rng,
) {
    let number = state.hand().unwrap().number;
    let mut k = done;
    while let Some(command) = bot::act(&state, rng) {
        k += 1;
        state = c
            .table(t, table, &format!("h{number}-{k}"), T0, command)
            .await
            .unwrap()
            .state;
    }
}

#[tokio::test]
async fn hand_ends_reach_seating_and_payout_from_the_tables_events_once() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let c = started(log.clone(), "f", 12).await;
    let mut follower = HandFollower::default();
    let mut sub = tables_of(&c).await;
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut played = Vec::new();
    // Deal at each table in turn; the hands are played at the tables only.
    for round in 0..40u64 {
        for table in [1u32, 2] {
            let begin = c
                .begin_hand("f", table, T0, &move |_| {
                    Seed::from_u64(round << 8 | u64::from(table))
                })
                .await
                .unwrap();
            let Begin::Started(_, state, _) = begin else {
                continue;
            };
            let number = state.hand().unwrap().number;
            play_out(&c, "f", table, state, 0, &mut rng).await;
            // Until the follower reports it, seating holds the table.
            let again = c
                .begin_hand("f", table, T0, &move |_| Seed::from_u64(0))
                .await
                .unwrap();
            assert!(
                matches!(&again, Begin::Wait(r) if r.contains("still being played")),
                "{again:?}"
            );
            let reported = catch_up(&c, &mut follower, &mut sub).await;
            assert_eq!(reported, vec![(table, number)]);
            played.push((table, number));
        }
    }
    assert!(played.len() > 20, "{played:?}");
    let seating = c.seating_state("f").await.unwrap();
    assert!(seating.room().tables.values().all(|t| !t.in_hand));
    let busted = seating
        .entries()
        .values()
        .filter(|e| e.status == felt_seating::EntryStatus::Busted)
        .count();
    // Payout placed every bust seating recorded.
    let payout = c.payout_state("f").await.unwrap();
    assert_eq!(payout.busted() as usize, busted);
    drop((seating, payout));

    // A follower started again from the beginning (a restart) reports only
    // each open table's latest hand, and appends nothing.
    let versions = async || {
        (
            log.version(&seating_stream("f").unwrap()).await.unwrap(),
            log.version(&payout_stream("f").unwrap()).await.unwrap(),
        )
    };
    let before = versions().await;
    let restarted = Conductor::new(log.clone());
    let mut fresh = HandFollower::default();
    let mut from_start = tables_of(&restarted).await;
    let again = catch_up(&restarted, &mut fresh, &mut from_start).await;
    let open: Vec<u32> = restarted
        .seating_state("f")
        .await
        .unwrap()
        .room()
        .tables
        .keys()
        .copied()
        .collect();
    let latest: Vec<(u32, u64)> = open
        .iter()
        .filter_map(|t| played.iter().rev().find(|p| p.0 == *t).copied())
        .collect();
    let mut again_sorted = again.clone();
    again_sorted.sort_unstable();
    assert_eq!(again_sorted, latest);
    assert_eq!(versions().await, before);
}

/// A results-only table's floor records results one after another,
/// without asking seating first: when two busts are recorded before the
/// follower reads either, seating still hears both, in order.
#[tokio::test]
async fn results_recorded_back_to_back_all_reach_seating() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let c = started(log.clone(), "r", 12).await;
    let mut follower = HandFollower::default();
    let mut sub = tables_of(&c).await;
    c.table(
        "r",
        1,
        "tablet-down",
        T0,
        felt_table::Command::SetRecording {
            recording: felt_table::Recording::ResultsOnly,
            reason: "tablet down".into(),
        },
    )
    .await
    .unwrap();
    let state = c
        .tables
        .state(&felt_tablelog::stream("r", 1).unwrap())
        .await
        .unwrap()
        .0;
    let seated: Vec<(u8, EntryId)> = (1..=state.size())
        .filter_map(|s| state.seat(s).map(|p| (s, p.player)))
        .collect();
    drop(state);
    // Two busts to the same winner, recorded before the follower reads.
    let (winner, out) = (seated[0], [seated[1], seated[2]]);
    for (k, loser) in out.iter().enumerate() {
        c.table(
            "r",
            1,
            &format!("result-{k}"),
            T0,
            felt_table::Command::RecordResult {
                button: winner.0,
                busted: vec![*loser],
                by: vec![winner],
                occurred_at: None,
            },
        )
        .await
        .unwrap();
    }
    let reported = catch_up(&c, &mut follower, &mut sub).await;
    assert_eq!(reported, vec![(1, 1), (1, 2)]);
    let seating = c.seating_state("r").await.unwrap();
    for (_, entry) in out {
        assert_eq!(
            seating.entries()[&entry].status,
            felt_seating::EntryStatus::Busted,
            "entry {entry:?}"
        );
    }
    let payout = c.payout_state("r").await.unwrap();
    assert_eq!(payout.busted(), 2);
}

/// Given a table whose floor records results only, when its dealer asks
/// seating to deal, then it is refused with the table's rule before
/// seating grants anything: seating records no hand begun, and the table
/// stays free for the floor's next result.
#[tokio::test]
async fn a_results_only_table_is_refused_a_hand_before_seating_grants_one() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let c = started(log.clone(), "q", 12).await;
    c.table(
        "q",
        1,
        "tablet-down",
        T0,
        felt_table::Command::SetRecording {
            recording: felt_table::Recording::ResultsOnly,
            reason: "tablet down".into(),
        },
    )
    .await
    .unwrap();
    let before = log.version(&seating_stream("q").unwrap()).await.unwrap();
    let err = c
        .begin_hand("q", 1, T0, &move |_| Seed::from_u64(3))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("results only"), "{err}");
    assert_eq!(
        log.version(&seating_stream("q").unwrap()).await.unwrap(),
        before
    );
    assert!(!c.seating_state("q").await.unwrap().room().tables[&1].in_hand);
}

/// A table asking to deal while its last hand's end is on its way to
/// seating is told to wait from what this process has seen of the table,
/// without reading the log: at the start of a large field a thousand
/// tables each ask every few milliseconds, and on JetStream each read is a
/// round trip to the server.
#[tokio::test]
async fn a_table_waiting_for_its_hand_end_to_reach_seating_is_answered_without_reading_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let embedded = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let log = Arc::new(Crashing::new(embedded, u64::MAX));
    let c = Conductor::new(log.clone());
    c.create(&"w".parse().unwrap(), &spec(), T0).await.unwrap();
    let players: Vec<(PlayerId, String)> = (1..=6)
        .map(|i| (format!("p{i}").parse().unwrap(), format!("Player {i}")))
        .collect();
    c.register_many("w", "presales", &players, T0)
        .await
        .unwrap();
    c.start("w", T0).await.unwrap();
    let begin = c
        .begin_hand("w", 1, T0, &move |_| Seed::from_u64(7))
        .await
        .unwrap();
    let Begin::Started(_, state, _) = begin else {
        panic!("{begin:?}")
    };
    play_out(&c, "w", 1, state, 0, &mut ChaCha8Rng::seed_from_u64(7)).await;
    // Given the hand is over at the table and no follower has told seating,
    // when the table asks to deal again, then it waits, and the log was not
    // read to say so.
    let before = log.reads();
    let again = c
        .begin_hand("w", 1, T0, &move |_| Seed::from_u64(8))
        .await
        .unwrap();
    assert!(
        matches!(&again, Begin::Wait(r) if r.contains("still being played")),
        "{again:?}"
    );
    assert_eq!(log.reads() - before, 0);
}

#[tokio::test]
async fn a_hand_granted_by_seating_but_never_dealt_is_dealt_on_the_next_request() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let c = started(log.clone(), "g", 6).await;
    // Seating granted table 1 its first hand, and the process died before
    // the deal reached the table.
    c.seating
        .handle(
            &seating_stream("g").unwrap(),
            "begin-1-1",
            T0,
            &felt_seating::SeatingCommand::BeginHand { table: 1 },
        )
        .await
        .unwrap();
    let restarted = Conductor::new(log.clone());
    let begin = restarted
        .begin_hand("g", 1, T0, &move |_| Seed::from_u64(5))
        .await
        .unwrap();
    let Begin::Started(events, state, _) = begin else {
        panic!("{begin:?}")
    };
    assert!(matches!(
        events.first(),
        Some(felt_table::TableEvent::HandStarted { number: 1, .. })
    ));
    // Asked again while it is played (the answer lost): the same hand back,
    // and no second deal.
    let again = restarted
        .begin_hand("g", 1, T0, &move |_| Seed::from_u64(6))
        .await
        .unwrap();
    let Begin::Started(again_events, _, _) = &again else {
        panic!("{again:?}")
    };
    assert_eq!(again_events, &events);
    let table = restarted
        .tables
        .state(&felt_tablelog::stream("g", 1).unwrap())
        .await
        .unwrap()
        .0;
    assert_eq!(table.hands_started(), 1);
    assert_eq!(table.hand(), state.hand());
}

#[tokio::test]
async fn the_follower_started_again_from_a_position_inside_a_hand_reports_the_hand_whole() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let c = started(log.clone(), "r", 12).await;
    let mut follower = HandFollower::default();
    let mut sub = tables_of(&c).await;
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    // Whole hands at both tables, each reported.
    for round in 0..6u64 {
        for table in [1u32, 2] {
            let Begin::Started(_, state, _) = c
                .begin_hand("r", table, T0, &move |_| {
                    Seed::from_u64(round << 8 | u64::from(table))
                })
                .await
                .unwrap()
            else {
                continue;
            };
            play_out(&c, "r", table, state, 0, &mut rng).await;
            catch_up(&c, &mut follower, &mut sub).await;
        }
    }
    // A hand dealt at table 1 and acted on once, then the process stops.
    let Begin::Started(_, state, _) = c
        .begin_hand("r", 1, T0, &move |_| Seed::from_u64(99))
        .await
        .unwrap()
    else {
        panic!("table 1 deals");
    };
    let number = state.hand().unwrap().number;
    let command = bot::act(&state, &mut rng).unwrap();
    let state = c
        .table("r", 1, &format!("h{number}-1"), T0, command)
        .await
        .unwrap()
        .state;
    catch_up(&c, &mut follower, &mut sub).await;
    // The follower had recorded a position after the hand was dealt: the
    // log's last position now.
    let mut everything = c
        .tables
        .log()
        .subscribe(Filter::kind("table"), 0)
        .await
        .unwrap();
    let mut last = 0;
    while let Ok(Some(Ok(d))) =
        tokio::time::timeout(Duration::from_millis(25), everything.next()).await
    {
        last = d.position;
    }
    log.record_position(FOLLOWER, last).await.unwrap();

    // Started again from there, the follower reads the hand in play from
    // its table's stream and reports its end, and only that.
    let restarted = Conductor::new(log.clone());
    play_out(&restarted, "r", 1, state, 1, &mut rng).await;
    let reported = std::sync::Mutex::new(Vec::new());
    let heard = tokio::sync::Notify::new();
    let on_report = |t: &str, table: u32, hand: u64| {
        reported.lock().unwrap().push((t.to_owned(), table, hand));
        heard.notify_one();
    };
    tokio::select! {
        result = follow(&restarted, &Fixed, &on_report) => panic!("the follower stopped: {result:?}"),
        () = heard.notified() => {}
        () = tokio::time::sleep(Duration::from_secs(20)) => panic!("no hand end reported"),
    }
    assert_eq!(*reported.lock().unwrap(), [("r".to_owned(), 1, number)]);
    let seating = restarted.seating_state("r").await.unwrap();
    assert!(!seating.room().tables[&1].in_hand);
}

#[tokio::test]
async fn a_hand_end_cut_short_before_payout_reaches_payout_when_the_log_is_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let c = started(log.clone(), "b", 12).await;
    let mut follower = HandFollower::default();
    let mut sub = tables_of(&c).await;
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    // Given hands at table 1, each reported, until one busts a player,
    let (summary, busted) = 'found: {
        for round in 0..400u64 {
            let Begin::Started(_, state, _) = c
                .begin_hand("b", 1, T0, &move |_| Seed::from_u64(round))
                .await
                .unwrap()
            else {
                panic!("table 1 is held")
            };
            play_out(&c, "b", 1, state, 0, &mut rng).await;
            while let Ok(next) = tokio::time::timeout(Duration::from_millis(25), sub.next()).await {
                let committed = next.unwrap().unwrap();
                let Some(summary) = follower.feed_committed(&committed).unwrap() else {
                    continue;
                };
                let busted: Vec<EntryId> = summary.busted.iter().map(|b| b.0).collect();
                if !busted.is_empty() {
                    break 'found (summary, busted);
                }
                c.hand_ended("b", 1, &summary, T0).await.unwrap();
            }
        }
        panic!("no bust in 400 hands");
    };
    // and seating recorded that hand's end, the process dying before
    // payout heard of its busts,
    c.seating
        .handle(
            &seating_stream("b").unwrap(),
            &format!("hand-1-{}-ended", summary.number),
            T0,
            &felt_seating::SeatingCommand::HandEnded {
                table: 1,
                button: summary.button,
                big_blind: summary.big_blind,
                busted: busted
                    .iter()
                    .copied()
                    .map(felt_seating::Elimination::of)
                    .collect(),
            },
        )
        .await
        .unwrap();
    // and the table dealt its next hand on seating's word,
    let restarted = Conductor::new(log.clone());
    let Begin::Started(_, state, _) = restarted
        .begin_hand("b", 1, T0, &move |_| Seed::from_u64(999))
        .await
        .unwrap()
    else {
        panic!("the table waits for a hand end seating has")
    };
    assert!(state.hands_started() > summary.number);
    assert!(!restarted.busts_recorded("b", &busted).await.unwrap());
    // and it played on until a later hand busted someone else, whose end
    // reached seating and payout first,
    let mut state = state;
    let later = 'later: {
        for round in 1000..1400u64 {
            play_out(&restarted, "b", 1, state, 0, &mut rng).await;
            while let Ok(next) = tokio::time::timeout(Duration::from_millis(25), sub.next()).await {
                let committed = next.unwrap().unwrap();
                let Some(s) = follower.feed_committed(&committed).unwrap() else {
                    continue;
                };
                restarted.hand_ended("b", 1, &s, T0).await.unwrap();
                if !s.busted.is_empty() {
                    break 'later s.busted.iter().map(|b| b.0).collect::<Vec<EntryId>>();
                }
            }
            let Begin::Started(_, next, _) = restarted
                .begin_hand("b", 1, T0, &move |_| Seed::from_u64(round))
                .await
                .unwrap()
            else {
                panic!("table 1 is held")
            };
            state = next;
        }
        panic!("no later bust in 400 hands");
    };
    // then the runner of seating's reactions, reading seating's decisions
    // in the log's order, carried the cut-short hand end's busts to payout
    // before the later one's,
    assert!(restarted.busts_recorded("b", &later).await.unwrap());
    assert!(restarted.busts_recorded("b", &busted).await.unwrap());
    // and the follower reading the log again from the start changes
    // nothing: every bust is with payout once,
    let mut fresh = HandFollower::default();
    let mut from_start = tables_of(&restarted).await;
    catch_up(&restarted, &mut fresh, &mut from_start).await;
    let payout = restarted.payout_state("b").await.unwrap();
    let seating = restarted.seating_state("b").await.unwrap();
    let out = seating
        .entries()
        .values()
        .filter(|e| e.status == felt_seating::EntryStatus::Busted)
        .count();
    assert_eq!(payout.busted() as usize, out);
    // and every place follows seating's order out, the busts that came
    // late included: the k-th out of N finishes N - k + 1 (busts of one
    // hand share their range, placed among themselves by their chips).
    let field = payout.entries().len() as u32;
    assert_eq!(seating.out().len(), busted.len() + later.len());
    for hand in [&busted, &later] {
        let outs: Vec<u32> = hand.iter().map(|e| seating.out()[e]).collect();
        let low = field + 1 - outs.iter().max().unwrap();
        let high = field + 1 - outs.iter().min().unwrap();
        for entry in hand {
            let place = payout.entries()[entry].place;
            assert!(
                place.is_some_and(|(first, last)| low <= first && last <= high),
                "entry {entry} placed {place:?}, its hand's busts take {low}-{high}"
            );
        }
    }
    assert!(
        busted
            .iter()
            .all(|e| seating.out()[e] < seating.out()[&later[0]])
    );
}

/// A late registration seating recorded, its seat never taken at the table
/// (the process killed in between), while every table waits: no later hand
/// end comes to finish it, so the next request to deal does.
#[tokio::test]
async fn a_seat_cut_short_by_a_crash_is_taken_when_the_table_next_asks_to_deal() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let c = Conductor::new(log.clone());
    let mut late = spec();
    late.seating.late_registration_level = 3;
    c.create(&"s".parse().unwrap(), &late, T0).await.unwrap();
    let players: Vec<(PlayerId, String)> = (1..=11)
        .map(|i| (format!("p{i}").parse().unwrap(), format!("Player {i}")))
        .collect();
    c.register_many("s", "presales", &players, T0)
        .await
        .unwrap();
    c.start("s", T0).await.unwrap();
    let seating = seating_stream("s").unwrap();
    let out = c
        .seating
        .handle(
            &seating,
            "late-1",
            T0,
            &felt_seating::SeatingCommand::Register {
                player: "p12".parse().unwrap(),
                name: "Player 12".into(),
                level: 1,
            },
        )
        .await
        .unwrap();
    let (entry, table) = out
        .events
        .iter()
        .find_map(|e| match e {
            felt_seating::SeatingEvent::Seated { entry, table, .. } => Some((*entry, *table)),
            _ => None,
        })
        .expect("the late entry is given a seat");
    let restarted = Conductor::new(log.clone());
    let begin = restarted
        .begin_hand("s", table, T0, &move |_| Seed::from_u64(5))
        .await
        .unwrap();
    let Begin::Started(_, state, _) = begin else {
        panic!("table {table} did not deal: {begin:?}")
    };
    assert!(
        state.seats().iter().flatten().any(|p| p.player == entry),
        "entry {entry} plays the hand at table {table}"
    );
    let after = restarted.seating_state("s").await.unwrap();
    assert!(after.unconfirmed().is_empty());
    // The seat records the seating decision that gave it.
    let stream = felt_tablelog::stream("s", table).unwrap();
    let seated = log
        .read(&stream, 1)
        .await
        .unwrap()
        .into_iter()
        .rfind(|e| e.event_type == "PlayerSeated")
        .expect("the seat taken");
    assert_eq!(
        (
            seated.causation_id.as_deref(),
            seated.correlation_id.as_deref()
        ),
        (
            Some(format!("s.seating.main@{}", out.first).as_str()),
            Some("s.seating.main/late-1")
        )
    );
}
