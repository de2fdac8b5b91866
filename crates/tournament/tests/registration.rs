//! Issue 23: late registration closed by the clock's level, a chain of
//! three services (the clock's new level, seating's close, payout's pool
//! and pay sheet, seating told the places paid), cut short by a crash after
//! every one of its appends and finished by the process started again.

use std::sync::Arc;

use felt_clock::{ClockSettings, Millis, Structure};
use felt_eventlog::EmbeddedLog;
use felt_payout::{MoneySettings, SimultaneousBusts};
use felt_seating::Settings;
use felt_table::HouseRules;
use felt_tournament::{Conductor, TournamentSpec};

mod common;
use common::{Crashing, Streams, copied, differences, streams};

const MIN: Millis = 60_000;
const T0: Millis = 1_796_153_400_000;
/// Just after level 3 starts (levels of 20 minutes): late registration,
/// open through level 2, is over.
const LATE: Millis = T0 + 40 * MIN + 1_000;

fn spec() -> TournamentSpec {
    let mut seating = Settings::tda(9, 10_000);
    seating.late_registration_level = 2;
    TournamentSpec {
        name: "Late".into(),
        seating,
        structure: Structure::bhpoker(),
        clock: ClockSettings::default(),
        money: MoneySettings::club(),
        busts: SimultaneousBusts::ByStartingStack,
        rules: HouseRules::default(),
        deal: felt_tournament::DealMode::Digital,
    }
}

/// A tournament of 30 started at `T0`, its registration still open: the
/// log's file.
async fn started(dir: &std::path::Path) -> std::path::PathBuf {
    let file = dir.join("late.redb");
    let c = Conductor::new(Arc::new(EmbeddedLog::open(&file).unwrap()));
    c.create(&"r".parse().unwrap(), &spec(), T0).await.unwrap();
    for i in 1..=30 {
        c.register(
            "r",
            &format!("r{i}"),
            &format!("p{i}").parse().unwrap(),
            &format!("Player {i}"),
            T0,
        )
        .await
        .unwrap();
    }
    c.start("r", T0).await.unwrap();
    let seating = c.seating_state("r").await.unwrap();
    assert!(!seating.registration_closed());
    file
}

/// The clock's tick past late registration by a process that dies after
/// `budget` appends; then a process started again on the same log does
/// what a restarted service does: runs the reactions left, and ticks. How
/// many appends the first process made, and the tournament's streams.
async fn ticked(file: &std::path::Path, budget: u64) -> (u64, Streams) {
    let (_dir, log) = copied(file);
    let crashing = Arc::new(Crashing::new(log.clone(), budget));
    {
        let c = Conductor::new(crashing.clone());
        // Fails where the log died.
        let ticked = c.tick("r", LATE).await;
        assert_eq!(ticked.is_ok(), crashing.made() < budget, "{ticked:?}");
    }
    let made = crashing.made();
    let c = Conductor::new(log.clone());
    c.react_to_all().await.unwrap();
    c.tick("r", LATE).await.unwrap();
    (made, streams(&log, "r").await)
}

/// The event types of a stream of the tournament, in order.
fn kinds<'a>(streams: &'a Streams, kind: &str) -> Vec<&'a str> {
    streams[&format!("r.{kind}.main")]
        .iter()
        .map(|e| e.1.as_str())
        .collect()
}

#[tokio::test]
async fn late_registration_closed_by_the_clock_and_cut_short_after_any_step_is_finished_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let file = started(dir.path()).await;
    let (steps, whole) = ticked(&file, u64::MAX).await;
    // The chain is what the test says it is: the clock's level 3, seating
    // closed, payout's pool and pay sheet, seating told the places paid.
    assert_eq!(kinds(&whole, "clock").last(), Some(&"PeriodStarted"));
    assert!(kinds(&whole, "seating").ends_with(&["RegistrationClosed", "PaidSet"]));
    assert!(kinds(&whole, "payout").ends_with(&["RegistrationClosed"]));
    assert_eq!(steps, 4, "a tick, two closes and the places paid");
    for budget in 0..steps {
        let (made, streams) = ticked(&file, budget).await;
        assert_eq!(made, budget);
        assert!(
            streams == whole,
            "the chain cut short after {budget} of its {steps} appends: {}",
            differences(&streams, &whole)
        );
    }
}

/// Given the clock recorded level 3 and the process died before any
/// reaction to it was sent, when two processes run the reactions over the
/// same log at once, then the log is as one alone leaves it.
#[tokio::test]
async fn two_processes_closing_registration_at_once_close_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = started(dir.path()).await;
    let mut after = Vec::new();
    for processes in [1, 2] {
        let (_dir, log) = copied(&file);
        let crashing = Arc::new(Crashing::new(log.clone(), 1));
        assert!(Conductor::new(crashing).tick("r", LATE).await.is_err());
        let conductors: Vec<_> = (0..processes)
            .map(|_| Conductor::new(log.clone()))
            .collect();
        futures::future::try_join_all(conductors.iter().map(|c| c.react_to_all()))
            .await
            .unwrap();
        let now = streams(&log, "r").await;
        assert_eq!(kinds(&now, "seating").last(), Some(&"PaidSet"));
        after.push(now);
    }
    assert!(
        after[0] == after[1],
        "{}",
        differences(&after[1], &after[0])
    );
}

/// Every decision of the chain records the decision that caused it and,
/// all of them the same, the command that started the chain: the clock's
/// tick. Followed back from seating's places paid, the causes lead to it.
#[tokio::test]
async fn each_step_of_the_close_records_its_cause_and_the_tick_that_started_it() {
    use felt_eventlog::EventLog as _;
    let dir = tempfile::tempdir().unwrap();
    let file = started(dir.path()).await;
    let log = Arc::new(EmbeddedLog::open(&file).unwrap());
    Conductor::new(log.clone()).tick("r", LATE).await.unwrap();
    let mut by_decision = std::collections::BTreeMap::new();
    for kind in ["clock", "seating", "payout"] {
        let stream = felt_eventlog::StreamId::new("r", kind, "main").unwrap();
        for e in log.read(&stream, 1).await.unwrap() {
            by_decision.insert(format!("r.{kind}.main@{}", e.sequence), e);
        }
    }
    let paid = by_decision
        .values()
        .find(|e| e.event_type == "PaidSet")
        .expect("the places paid");
    let mut chain = vec![(paid.event_type.clone(), paid.command_id.clone())];
    let mut at = paid;
    while let Some(cause) = &at.causation_id {
        assert_eq!(
            at.correlation_id.as_deref(),
            Some(format!("r.clock.main/tick-{LATE}").as_str()),
            "{} names another chain",
            at.command_id
        );
        at = &by_decision[cause];
        chain.push((at.event_type.clone(), at.command_id.clone()));
    }
    let types: Vec<&str> = chain.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        types,
        [
            "PaidSet",
            "RegistrationClosed",
            "RegistrationClosed",
            "PeriodStarted"
        ]
    );
    assert_eq!(chain[3].1, format!("tick-{LATE}"));
    assert_eq!(at.correlation_id, None, "the tick started the chain");
}

/// A tournament the registry recorded before tournaments had a deal mode
/// was dealt digitally, and reads back so; one created now keeps its mode.
#[tokio::test]
async fn a_registry_entry_from_before_deal_modes_reads_as_the_digital_deal_it_was() {
    use felt_eventlog::{Decision, EventLog, Expected, NewEvent};
    use felt_tournament::DealMode;
    use felt_tournament::aggregates::{registry_stream, tournaments};
    #[derive(serde::Serialize)]
    struct Before {
        tournament: String,
        name: String,
        rules: HouseRules,
    }
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let before = Before {
        tournament: "old".into(),
        name: "Old".into(),
        rules: HouseRules::default(),
    };
    let decision = Decision {
        command_id: "create-old".into(),
        causation_id: None,
        correlation_id: None,
        recorded_at: T0,
        events: vec![NewEvent::encode("TournamentCreated", 1, &before).unwrap()],
        trace: None,
        request: None,
        actor: None,
    };
    log.append(&registry_stream().unwrap(), Expected::Any, decision)
        .await
        .unwrap();
    let c = Conductor::new(log.clone());
    let mut physical = spec();
    physical.deal = DealMode::Physical;
    c.create(&"new".parse().unwrap(), &physical, T0)
        .await
        .unwrap();
    let read: Vec<(String, DealMode)> = tournaments(log.as_ref())
        .await
        .unwrap()
        .into_iter()
        .map(|t| (t.tournament.to_string(), t.deal))
        .collect();
    assert_eq!(
        read,
        [
            ("old".to_string(), DealMode::Digital),
            ("new".to_string(), DealMode::Physical)
        ]
    );
}
