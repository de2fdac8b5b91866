//! An aggregate whose appends are queued (`Aggregate::QUEUES`, on a log
//! that can queue): its next command is decided while the last one is
//! being committed. Each command is still stored once, in order, decided
//! on everything before it; a refusal is still confirmed on what the log
//! holds; a caller that goes away leaves nothing stuck; another writer's
//! append makes the handler read the stream again.

use std::future::Future as _;
use std::sync::Arc;
use std::time::Duration;

use felt_eventlog::{EmbeddedLog, EventLog, StreamId};
use felt_service::{HandleError, Handler};

mod common;
use common::{Move, Refused};

/// Chips whose appends are queued.
type Chips = common::Chips<true>;

fn setup() -> (tempfile::TempDir, Arc<EmbeddedLog>, StreamId) {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    (dir, log, StreamId::new("t", "box", "1").unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_commands_at_once_are_each_stored_once_in_order() {
    let (_dir, log, stream) = setup();
    let handler = Arc::new(Handler::<Chips, _>::new(log.clone()));
    // Given 300 callers at once, each command sent twice (a retry racing
    // its first attempt),
    let calls = (1..=300u64).flat_map(|n| [n, n]).map(|n| {
        let (handler, stream) = (handler.clone(), stream.clone());
        tokio::spawn(async move {
            let out = handler
                .handle(&stream, &format!("put-{n}"), 0, &Move::Put(n))
                .await;
            (n, out)
        })
    });
    let outcomes: Vec<_> = futures_join(calls).await;
    // then both calls of a command got one answer, its own version,
    let mut answered = std::collections::BTreeMap::new();
    for (n, out) in outcomes {
        let out = out.unwrap();
        assert_eq!(out.first, out.last);
        let first = *answered.entry(n).or_insert(out.first);
        assert_eq!(first, out.first, "both calls of put-{n} answered alike");
    }
    let versions: std::collections::BTreeSet<u64> = answered.values().copied().collect();
    assert_eq!(versions.len(), 300, "each command at its own version");
    // and every command is in the stream once, at that version.
    let envelopes = log.read(&stream, 1).await.unwrap();
    assert_eq!(envelopes.len(), 300);
    for e in &envelopes {
        let n: u64 = e.command_id.trim_start_matches("put-").parse().unwrap();
        assert_eq!(
            answered[&n], e.sequence,
            "{} stored where answered",
            e.command_id
        );
    }
    let (state, version) = handler.state(&stream).await.unwrap();
    assert_eq!((*state, version), ((1..=300).sum(), 300));
    // The log holds what the handler says: a fresh handler folds the same.
    let fresh = Handler::<Chips, _>::new(log);
    assert_eq!(*fresh.state(&stream).await.unwrap().0, *state);
}

async fn futures_join<T: Send + 'static>(
    handles: impl Iterator<Item = tokio::task::JoinHandle<T>>,
) -> Vec<T> {
    let mut out = Vec::new();
    for h in handles.collect::<Vec<_>>() {
        out.push(h.await.unwrap());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_decided_on_queued_ones_stands_and_a_refusal_counts_them() {
    let (_dir, log, stream) = setup();
    let handler = Arc::new(Handler::<Chips, _>::new(log));
    // Given 5 chips being put in while the next command comes,
    let put = {
        let (handler, stream) = (handler.clone(), stream.clone());
        tokio::spawn(async move { handler.handle(&stream, "put", 1, &Move::Put(5)).await })
    };
    let take = {
        let (handler, stream) = (handler.clone(), stream.clone());
        tokio::spawn(async move {
            // (After the put: a take of 3 is decided on it.)
            tokio::task::yield_now().await;
            handler.handle(&stream, "take", 2, &Move::Take(3)).await
        })
    };
    put.await.unwrap().unwrap();
    let took = take.await.unwrap();
    // when 3 more are asked for, then they are refused on the 2 left,
    let more = handler
        .handle(&stream, "take-more", 3, &Move::Take(3))
        .await;
    match took {
        Ok(out) => {
            assert_eq!((*out.state, out.version), (2, 2));
            assert_eq!(
                more.unwrap_err(),
                HandleError::Rejected(Refused::TooFew { want: 3, have: 2 })
            );
        }
        // (or, had the take come first, it was refused on an empty box).
        Err(e) => {
            assert_eq!(
                e,
                HandleError::Rejected(Refused::TooFew { want: 3, have: 0 })
            );
            assert_eq!(*more.unwrap().state, 2);
        }
    }
    assert_eq!(handler.state(&stream).await.unwrap().1, 2);
}

// On one thread: the task that sees to the queued append's answer cannot
// run before the caller's first poll returns, so the caller always goes
// away mid-append (on two, the commit could be answered within that poll).
#[tokio::test(flavor = "current_thread")]
async fn a_caller_that_goes_away_mid_append_leaves_nothing_stuck() {
    let (_dir, log, stream) = setup();
    let handler = Handler::<Chips, _>::new(log.clone());
    // Given a caller that gives up as soon as its command is queued (its
    // call polled once, then dropped),
    {
        let call = std::pin::pin!(handler.handle(&stream, "put", 1, &Move::Put(7)));
        let polled = call.poll(&mut std::task::Context::from_waker(std::task::Waker::noop()));
        assert!(
            polled.is_pending(),
            "the append was still being committed: {polled:?}"
        );
    }
    // when others come after it, then they are decided on its chips,
    let out = tokio::time::timeout(
        Duration::from_secs(10),
        handler.handle(&stream, "take", 2, &Move::Take(7)),
    )
    .await
    .expect("not stuck behind the caller that went away")
    .unwrap();
    assert_eq!((*out.state, out.version), (0, 2));
    // and its retry gets the first answer.
    let again = tokio::time::timeout(
        Duration::from_secs(10),
        handler.handle(&stream, "put", 3, &Move::Put(7)),
    )
    .await
    .expect("the retry is answered")
    .unwrap();
    assert!(again.duplicate);
    assert_eq!((again.first, again.last), (1, 1));
    assert_eq!(log.version(&stream).await.unwrap(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_writer_makes_the_queueing_handler_read_the_stream_again() {
    let (_dir, log, stream) = setup();
    let queueing = Handler::<Chips, _>::new(log.clone());
    let other = Handler::<Chips, _>::new(log.clone());
    // Given the queueing handler put 5 in and another writer took 3,
    queueing
        .handle(&stream, "put", 1, &Move::Put(5))
        .await
        .unwrap();
    other
        .handle(&stream, "take", 2, &Move::Take(3))
        .await
        .unwrap();
    // when the queueing handler, which saw 5, is asked for 4, then its
    // append meets the other's and it decides again on the 2 there,
    let e = queueing
        .handle(&stream, "take-4", 3, &Move::Take(4))
        .await
        .unwrap_err();
    assert_eq!(
        e,
        HandleError::Rejected(Refused::TooFew { want: 4, have: 2 })
    );
    // and goes on from the log's state.
    let out = queueing
        .handle(&stream, "take-2", 4, &Move::Take(2))
        .await
        .unwrap();
    assert_eq!((*out.state, out.version), (0, 3));
}
