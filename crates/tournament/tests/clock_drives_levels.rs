//! The clock's levels drive the tables, and survive a restart of the
//! services: on the embedded log and on a real nats-server.

use std::sync::Arc;

use felt_cards::Seed;
use felt_clock::{ClockSettings, Millis, Structure};
use felt_eventlog::{EmbeddedLog, EventLog, NatsLog, NatsSettings};
use felt_payout::{MoneySettings, SimultaneousBusts};
use felt_seating::Settings;
use felt_table::{Command, HouseRules, PlayerAction, TableEvent};
use felt_tournament::{Begin, Conductor, TournamentSpec};

const MIN: Millis = 60_000;
const T0: Millis = 1_796_153_400_000;

fn spec() -> TournamentSpec {
    TournamentSpec {
        name: "Thursday".into(),
        seating: Settings::club(),
        structure: Structure::bhpoker(),
        clock: ClockSettings::default(),
        money: MoneySettings::club(),
        busts: SimultaneousBusts::ByStartingStack,
        rules: HouseRules::default(),
        deal: felt_tournament::DealMode::Digital,
    }
}

fn blinds(events: &[TableEvent]) -> (u64, u64) {
    events
        .iter()
        .find_map(|e| match e {
            TableEvent::HandStarted { level, .. } => Some((level.small_blind, level.big_blind)),
            _ => None,
        })
        .expect("a hand started")
}

/// Plays the rest of a hand with everyone folding to the big blind.
async fn fold_out<L: EventLog + 'static>(
    c: &Conductor<L>,
    table: u32,
    now: Millis,
    tag: &str,
) -> Vec<TableEvent> {
    let mut events = Vec::new();
    for k in 0.. {
        let (state, _) = c
            .tables
            .state(&felt_tablelog::stream("t", table).unwrap())
            .await
            .unwrap();
        let Some(o) = state.options() else { break };
        let out = c
            .table(
                "t",
                table,
                &format!("{tag}-{k}"),
                now,
                Command::Act {
                    seat: o.seat,
                    action: PlayerAction::Fold,
                },
            )
            .await
            .unwrap();
        events.extend(out.events);
    }
    events
}

async fn levels_follow_the_clock<L: EventLog + 'static>(open: impl Fn() -> Arc<L>) {
    let c = Conductor::new(open());
    c.create(&"t".parse().unwrap(), &spec(), T0).await.unwrap();
    for i in 1..=18 {
        c.register(
            "t",
            &format!("r{i}"),
            &format!("p{i}").parse().unwrap(),
            &format!("Player {i}"),
            T0,
        )
        .await
        .unwrap();
    }
    c.start("t", T0).await.unwrap();
    // A hand dealt one second before the end of level 1 plays level 1 to
    // its end, though the level changes while it is played (TDA 23).
    let Begin::Started(events, _, _) = c
        .begin_hand("t", 1, T0 + 20 * MIN - 1_000, &move |_| Seed::from_u64(1))
        .await
        .unwrap()
    else {
        panic!("table 1 may deal")
    };
    assert_eq!(blinds(&events), (25, 50));
    let rest = fold_out(&c, 1, T0 + 20 * MIN + 30_000, "h1").await;
    assert!(
        rest.iter()
            .all(|e| !matches!(e, TableEvent::HandStarted { .. }))
    );
    assert!(matches!(rest.last(), Some(TableEvent::HandEnded { .. })));
    let summary = felt_tournament::HandSummary::from_events(events.iter().chain(&rest)).unwrap();
    c.hand_ended("t", 1, &summary, T0 + 20 * MIN + 30_000)
        .await
        .unwrap();
    // The next hand plays level 2.
    let Begin::Started(events, _, _) = c
        .begin_hand("t", 1, T0 + 20 * MIN + 31_000, &move |_| Seed::from_u64(3))
        .await
        .unwrap()
    else {
        panic!("table 1 may deal")
    };
    assert_eq!(blinds(&events), (50, 100));
    c.tick("t", T0 + 25 * MIN).await.unwrap();
    let before = c.clock_state("t").await.unwrap().view(T0 + 25 * MIN);
    assert_eq!((before.level, before.remaining), (Some(2), 15 * MIN));
    drop(c);

    // The services restart: the same level and the same time left.
    let c = Conductor::new(open());
    let after = c.clock_state("t").await.unwrap().view(T0 + 25 * MIN);
    assert_eq!(after, before);
    // The first break comes after level 6: no hand is dealt on it.
    assert!(matches!(
        c.begin_hand("t", 2, T0 + 125 * MIN, &move |_| Seed::from_u64(4)).await.unwrap(),
        Begin::OnBreak(r) if r == 5 * MIN
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_the_embedded_log() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.redb");
    // One log open at a time: the restart reopens the file.
    let current: std::sync::Mutex<Option<Arc<EmbeddedLog>>> = std::sync::Mutex::new(None);
    levels_follow_the_clock(|| {
        let mut slot = current.lock().unwrap();
        slot.take();
        let log = Arc::new(EmbeddedLog::open(&path).unwrap());
        *slot = Some(log.clone());
        log
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_nats() {
    let nats = felt_testkit::NatsServer::start().expect("nats-server");
    let url = nats.url();
    let handle = tokio::runtime::Handle::current();
    levels_follow_the_clock(|| {
        let url = url.clone();
        let log = tokio::task::block_in_place(|| {
            handle.block_on(async move {
                NatsLog::connect(&url, &NatsSettings::default())
                    .await
                    .unwrap()
            })
        });
        Arc::new(log)
    })
    .await;
}

/// Deployed apart, seating's process and the clock's each write the clock
/// stream through a handler of their own. Seating asked to deal during
/// the first break (after level 6: five minutes, TDA 23 deals no hand on
/// it); the floor then ended the break at the clock service by jumping to
/// level 7. Seating must see that, not the break it read before: a break
/// seating kept from its own stale read held every table for its whole
/// length, and a break the clock service shortened (as `felt sim
/// --level-seconds` does) for minutes more than the clock ran it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_break_the_clock_service_ended_ends_for_seating_too() {
    use felt_clock::ClockCommand;
    use felt_tournament::aggregates::clock_stream;
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let seating = Conductor::new(log.clone());
    let clock = Conductor::new(log);
    seating
        .create(&"t".parse().unwrap(), &spec(), T0)
        .await
        .unwrap();
    for i in 1..=18 {
        seating
            .register(
                "t",
                &format!("r{i}"),
                &format!("p{i}").parse().unwrap(),
                &format!("Player {i}"),
                T0,
            )
            .await
            .unwrap();
    }
    seating.start("t", T0).await.unwrap();
    assert!(matches!(
        seating.begin_hand("t", 2, T0 + 125 * MIN, &move |_| Seed::from_u64(4)).await.unwrap(),
        Begin::OnBreak(r) if r == 5 * MIN
    ));
    // The floor, at the clock service.
    let stream = clock_stream("t").unwrap();
    let now = T0 + 126 * MIN;
    clock
        .clock
        .handle(
            &stream,
            "floor-jump",
            now,
            &ClockCommand::JumpToLevel { at: now, level: 7 },
        )
        .await
        .unwrap();
    let level = clock
        .clock_state("t")
        .await
        .unwrap()
        .level_for_hand(now + 1_000)
        .unwrap();
    let begun = seating
        .begin_hand("t", 2, now + 1_000, &move |_| Seed::from_u64(5))
        .await
        .unwrap();
    let Begin::Started(events, _, _) = begun else {
        panic!("table 2 may deal at level 7: {begun:?}")
    };
    let dealt = events.iter().find_map(|e| match e {
        TableEvent::HandStarted { level, .. } => Some(*level),
        _ => None,
    });
    assert_eq!(dealt, Some(level));
}
