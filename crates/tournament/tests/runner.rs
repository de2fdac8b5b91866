//! The generic runner over a real log: decisions handed out in the log's
//! order with their stream's state folded up to them, several out at once
//! where the caller wants it, and a recorded position that is never past a
//! decision not yet done.

use std::sync::Arc;
use std::time::Duration;

use felt_eventlog::{Decision, EmbeddedLog, EventLog, Expected, Filter, NewEvent, StreamId};
use felt_tournament::runner::{Fold, Runner};

/// A stream of numbers folded into their sum.
struct Sum;

impl Fold for Sum {
    type State = u64;
    type Event = u64;

    fn apply(sum: &mut u64, n: &u64) {
        *sum += n;
    }
}

/// Every decision is wanted but zeros.
fn not_zero(n: &u64) -> bool {
    *n != 0
}

const NAME: &str = "sum-runner";

fn runner() -> Runner<Sum> {
    Runner::new(NAME, Filter::kind("numbers"), not_zero).recording_every(1)
}

fn stream(id: &str) -> StreamId {
    StreamId::new("t", "numbers", id).unwrap()
}

/// Appends one decision of one number to `stream`: its log position.
async fn append(log: &EmbeddedLog, stream: &StreamId, n: u64) -> u64 {
    let decision = Decision {
        command_id: format!("add-{n}"),
        causation_id: None,
        correlation_id: None,
        recorded_at: 0,
        events: vec![NewEvent::encode("Added", 1, &n).unwrap()],
        trace: None,
        request: None,
        actor: None,
    };
    log.append(stream, Expected::Any, decision)
        .await
        .unwrap()
        .position
}

fn open() -> (tempfile::TempDir, Arc<EmbeddedLog>) {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    (dir, log)
}

#[tokio::test]
async fn decisions_out_at_once_keep_the_recorded_position_before_the_first_not_done() {
    let (_dir, log) = open();
    let a = stream("a");
    let mut at = Vec::new();
    for n in [1, 2, 3] {
        at.push(append(&log, &a, n).await);
    }
    let runner = runner();
    let mut run = runner.lock(log.as_ref()).await;
    let first = run.next_out().await.unwrap();
    let second = run.next_out().await.unwrap();
    let third = run.next_out().await.unwrap();
    assert_eq!(
        [first.position, second.position, third.position],
        [at[0], at[1], at[2]]
    );
    // Each with its stream folded only up to it.
    assert_eq!([first.state, second.state, third.state], [1, 3, 6]);
    assert_eq!(first.events, [1]);

    // The later two done first: the first still is not.
    run.done(&third).await.unwrap();
    run.done(&second).await.unwrap();
    assert_eq!(log.recorded_position(NAME).await.unwrap(), at[0] - 1);
    run.done(&first).await.unwrap();
    assert_eq!(log.recorded_position(NAME).await.unwrap(), at[2]);
}

#[tokio::test]
async fn a_runner_let_go_of_with_a_decision_out_hands_it_out_again() {
    let (_dir, log) = open();
    let a = stream("a");
    for n in [1, 2, 3] {
        append(&log, &a, n).await;
    }
    let runner = runner();
    let second = {
        let mut run = runner.lock(log.as_ref()).await;
        let first = run.next_out().await.unwrap();
        let second = run.next_out().await.unwrap();
        run.done(&first).await.unwrap();
        second
    };
    // The caller gave up on the second (its target unreachable).
    let mut run = runner.lock(log.as_ref()).await;
    let again = run.next_out().await.unwrap();
    assert_eq!(again.position, second.position);
    assert_eq!(again.state, 3);
    assert_eq!(again.command_id, "add-2");
}

#[tokio::test]
async fn a_stream_that_began_before_the_recorded_position_is_folded_from_its_beginning() {
    let (_dir, log) = open();
    let (a, b) = (stream("a"), stream("b"));
    append(&log, &a, 5).await;
    let b1 = append(&log, &b, 7).await;
    append(&log, &a, 0).await;
    log.record_position(NAME, b1).await.unwrap();
    append(&log, &a, 4).await;
    append(&log, &b, 1).await;

    let runner = runner();
    let mut run = runner.lock(log.as_ref()).await;
    let mut seen = Vec::new();
    for _ in 0..2 {
        let cause = run.next_out().await.unwrap();
        seen.push((cause.stream.id.clone(), cause.events.clone(), cause.state));
        run.done(&cause).await.unwrap();
    }
    // The zero is read and folded, but no reaction wants it.
    assert_eq!(
        seen,
        [("a".to_owned(), vec![4], 9), ("b".to_owned(), vec![1], 8)]
    );
}

#[tokio::test]
async fn a_wait_given_up_loses_no_decision() {
    let (_dir, log) = open();
    let a = stream("a");
    let runner = runner();
    let mut run = runner.lock(log.as_ref()).await;
    assert!(
        tokio::time::timeout(Duration::from_millis(50), run.next_out())
            .await
            .is_err(),
        "nothing to hand out yet"
    );
    let at = append(&log, &a, 2).await;
    let cause = tokio::time::timeout(Duration::from_secs(5), run.next_out())
        .await
        .expect("the decision appended is handed out")
        .unwrap();
    assert_eq!((cause.position, cause.state), (at, 2));
}

/// A stream whose every decision came before the recorded position (a
/// tournament played to its end before the process last stopped): asked
/// for its decisions up to its version, a runner started again has none
/// to hand out, at once, instead of waiting for decisions of it that will
/// never come; a later decision of that stream is handed out with the
/// stream folded from its beginning.
#[tokio::test]
async fn a_stream_wholly_before_the_recorded_position_has_nothing_left_to_hand_out() {
    let (_dir, log) = open();
    let (a, b) = (stream("a"), stream("b"));
    append(&log, &a, 2).await;
    append(&log, &a, 3).await;
    let last = append(&log, &b, 7).await;
    log.record_position(NAME, last).await.unwrap();

    let runner = runner();
    let mut run = runner.lock(log.as_ref()).await;
    let none = tokio::time::timeout(Duration::from_secs(5), run.next(&a, 2))
        .await
        .expect("an answer, not a wait for what never comes")
        .unwrap();
    assert!(none.is_none());
    drop(run);
    append(&log, &a, 4).await;
    let mut run = runner.lock(log.as_ref()).await;
    let cause = run.next(&a, 3).await.unwrap().expect("the new decision");
    assert_eq!((cause.events.clone(), cause.state), (vec![4], 9));
    run.done(&cause).await.unwrap();
}
