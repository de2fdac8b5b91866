//! The conformance suite every backend passes: the same tests, run against
//! each implementation of [`EventLog`] (see `tests/embedded.rs` and
//! `tests/nats.rs`, which expand [`conformance_tests!`](crate::conformance_tests)).
//!
//! A backend provides a [`Harness`]: a log, and a way to restart it on the
//! same storage (for the embedded log, reopening the file; for NATS, killing
//! the server and starting it again).

use std::future::Future;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::{Decision, EventLog, Expected, Filter, LogError, NewEvent, StreamId, verify_chain};

/// A backend under test.
pub trait Harness: Send + Sync {
    type Log: EventLog + 'static;
    /// The current log.
    fn log(&self) -> Arc<Self::Log>;
    /// Stops the log (and, where there is one, its server) abruptly and
    /// opens it again on the same storage.
    fn restart(&mut self) -> impl Future<Output = ()> + Send;
}

/// The test payload.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chip {
    pub n: u64,
}

pub fn stream(kind: &str, id: &str) -> StreamId {
    StreamId::new("t1", kind, id).unwrap_or_else(|e| panic!("{e}"))
}

/// A decision of `count` events numbered from `n`.
pub fn decision(command: &str, n: u64, count: u64) -> Decision {
    Decision {
        command_id: command.into(),
        causation_id: Some(format!("cause-{command}")),
        correlation_id: Some("corr".into()),
        recorded_at: 1_764_500_000_000 + n as i64,
        events: (n..n + count)
            .map(|k| NewEvent::encode("Chip", 1, &Chip { n: k }).unwrap_or_else(|e| panic!("{e}")))
            .collect(),
        trace: None,
        request: None,
        actor: None,
    }
}

pub async fn append_and_read_back<H: Harness>(h: &mut H) {
    let log = h.log();
    let s = stream("table", "1");
    let a = log
        .append(&s, Expected::NoStream, decision("c1", 1, 3))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((a.first, a.last, a.duplicate), (1, 3, false));
    let b = log
        .append(&s, Expected::Exactly(3), decision("c2", 4, 2))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((b.first, b.last), (4, 5));
    assert!(b.position > a.position);
    let events = log.read(&s, 1).await.unwrap_or_else(|e| panic!("{e}"));
    let ns: Vec<u64> = events
        .iter()
        .map(|e| e.decode::<Chip>().unwrap_or_else(|e| panic!("{e}")).n)
        .collect();
    assert_eq!(ns, [1, 2, 3, 4, 5]);
    let seqs: Vec<u64> = events.iter().map(|e| e.sequence).collect();
    assert_eq!(seqs, [1, 2, 3, 4, 5]);
    let first = &events[0];
    assert_eq!(first.command_id, "c1");
    assert_eq!(first.causation_id.as_deref(), Some("cause-c1"));
    assert_eq!(first.correlation_id.as_deref(), Some("corr"));
    assert_eq!(first.recorded_at, 1_764_500_000_001);
    assert_eq!(first.event_type, "Chip");
    assert_eq!(first.stream, s);
    let tail = log.read(&s, 4).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tail.len(), 2);
    assert_eq!(log.version(&s).await, Ok(5));
    assert_eq!(log.version(&stream("table", "none")).await, Ok(0));
    assert_eq!(log.read(&stream("table", "none"), 1).await, Ok(vec![]));
}

pub async fn a_stale_version_is_a_conflict_that_says_the_actual_one<H: Harness>(h: &mut H) {
    let log = h.log();
    let s = stream("table", "2");
    log.append(&s, Expected::NoStream, decision("c1", 1, 2))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let err = log
        .append(&s, Expected::Exactly(1), decision("c2", 3, 1))
        .await
        .expect_err("stale");
    assert_eq!(
        err,
        LogError::Conflict {
            stream: "t1.table.2".into(),
            expected: Expected::Exactly(1),
            actual: 2
        }
    );
    assert_eq!(
        err.to_string(),
        "stream t1.table.2 is at version 2, the append expected version 1"
    );
    let err = log
        .append(&s, Expected::NoStream, decision("c3", 3, 1))
        .await
        .expect_err("exists");
    assert!(matches!(err, LogError::Conflict { actual: 2, .. }));
    // Nothing was stored by the refused appends.
    assert_eq!(log.version(&s).await, Ok(2));
    let any = log
        .append(&s, Expected::Any, decision("c4", 3, 1))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(any.last, 3);
    assert_eq!(
        log.append(
            &s,
            Expected::Any,
            Decision {
                events: vec![],
                ..decision("c5", 0, 0)
            }
        )
        .await,
        Err(LogError::EmptyDecision)
    );
}

pub async fn a_retried_command_is_stored_once_and_gets_the_first_answer<H: Harness>(h: &mut H) {
    let log = h.log();
    let s = stream("table", "3");
    let first = log
        .append(&s, Expected::NoStream, decision("same", 1, 2))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    // The client never saw the answer and sends the command again, with the
    // expectation it had then.
    let again = log
        .append(&s, Expected::NoStream, decision("same", 1, 2))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(again.duplicate);
    assert_eq!(
        (again.first, again.last, again.position),
        (first.first, first.last, first.position)
    );
    assert_eq!(log.version(&s).await, Ok(2));
    // After other decisions, a retry of the last one still answers the same.
    let second = log
        .append(&s, Expected::Exactly(2), decision("other", 3, 1))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let retry = log
        .append(&s, Expected::Exactly(2), decision("other", 3, 1))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (retry.first, retry.position),
        (second.first, second.position)
    );
    assert!(retry.duplicate);
    // The first command, retried after both: still stored once.
    let first_again = log
        .append(&s, Expected::NoStream, decision("same", 1, 2))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(first_again.duplicate);
    assert_eq!(first_again.position, first.position);
    // A command appended without an expectation, retried.
    let any = log
        .append(&s, Expected::Any, decision("any", 4, 1))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let any_again = log
        .append(&s, Expected::Any, decision("any", 4, 1))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(any_again.duplicate);
    assert_eq!(any_again.position, any.position);
    assert_eq!(log.read(&s, 1).await.map(|e| e.len()), Ok(4));
}

pub async fn concurrent_appenders_to_one_stream_never_lose_or_double<H: Harness>(h: &mut H) {
    let log = h.log();
    let s = stream("table", "4");
    let writers = 8;
    let each = 20;
    let mut tasks = Vec::new();
    for w in 0..writers {
        let log = log.clone();
        let s = s.clone();
        tasks.push(tokio::spawn(async move {
            let mut won = Vec::new();
            let mut done = 0;
            while done < each {
                let version = log.version(&s).await.unwrap_or_else(|e| panic!("{e}"));
                let d = decision(&format!("w{w}-{done}"), w * 1000 + done, 1);
                match log.append(&s, Expected::Exactly(version), d).await {
                    Ok(a) => {
                        assert_eq!(a.first, version + 1);
                        won.push(a.first);
                        done += 1;
                    }
                    Err(LogError::Conflict { actual, .. }) => assert!(actual > version),
                    Err(e) => panic!("{e}"),
                }
            }
            won
        }));
    }
    let mut won = Vec::new();
    for t in tasks {
        won.extend(t.await.unwrap_or_else(|e| panic!("{e}")));
    }
    won.sort_unstable();
    let total = writers * each;
    // Exactly one writer won each version.
    assert_eq!(won, (1..=total).collect::<Vec<_>>());
    let events = log.read(&s, 1).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(events.len() as u64, total);
    assert_eq!(verify_chain(&events), Ok(()));
}

pub async fn subscriptions_deliver_in_order_from_a_position<H: Harness>(h: &mut H) {
    let log = h.log();
    let tables = [stream("table", "5"), stream("table", "6")];
    let clock = stream("clock", "1");
    let mut positions = Vec::new();
    for i in 0..6u64 {
        let s = &tables[(i % 2) as usize];
        let expected = if i < 2 {
            Expected::NoStream
        } else {
            Expected::Any
        };
        let a = log
            .append(s, expected, decision(&format!("d{i}"), i * 10, 2))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        positions.push(a.position);
        log.append(&clock, Expected::Any, decision(&format!("k{i}"), i, 1))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    }
    // Every table decision, in order.
    let mut sub = log
        .subscribe(Filter::kind("table"), 0)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let mut seen = Vec::new();
    for _ in 0..6 {
        let c = next(&mut sub).await;
        assert_eq!(c.stream.kind, "table");
        assert_eq!(c.envelopes.len(), 2);
        seen.push(c.position);
    }
    assert_eq!(seen, positions);
    // From a recorded position: only what came after it.
    let mut sub = log
        .subscribe(Filter::kind("table"), positions[3])
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(next(&mut sub).await.position, positions[4]);
    assert_eq!(next(&mut sub).await.position, positions[5]);
    // And what is appended while it waits.
    let later = log
        .append(&tables[0], Expected::Any, decision("late", 99, 1))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(next(&mut sub).await.position, later.position);
    // A tournament filter sees the clock too.
    let mut all = log
        .subscribe(Filter::tournament("t1"), 0)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let mut kinds = Vec::new();
    for _ in 0..13 {
        kinds.push(next(&mut all).await.stream.kind);
    }
    assert_eq!(kinds.iter().filter(|k| *k == "clock").count(), 6);
    let mut other = log
        .subscribe(Filter::tournament("t2"), 0)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let nothing = tokio::time::timeout(std::time::Duration::from_millis(200), other.next()).await;
    assert!(
        nothing.is_err(),
        "another tournament's subscription got {nothing:?}"
    );
}

/// A subscription to one stream, from a position, gets that stream's
/// decisions after it and nothing of the streams around it (of its kind,
/// its tournament, or another tournament's stream of the same name); one to
/// a kind within a tournament gets that kind there only. `head` is the
/// last committed position, what a subscription from now on starts after.
pub async fn one_stream_or_one_kind_of_a_tournament_from_a_position<H: Harness>(h: &mut H) {
    let log = h.log();
    assert_eq!(log.head().await.unwrap_or_else(|e| panic!("{e}")), 0);
    let five = stream("table", "5");
    let six = stream("table", "6");
    let elsewhere = StreamId::new("t2", "table", "5").unwrap_or_else(|e| panic!("{e}"));
    let clock = stream("clock", "5");
    let mut fives = Vec::new();
    let mut last = 0;
    for i in 0..20u64 {
        for s in [&six, &elsewhere, &clock] {
            log.append(s, Expected::Any, decision(&format!("o{i}"), i, 1))
                .await
                .unwrap_or_else(|e| panic!("{e}"));
        }
        if i % 3 == 0 {
            let a = log
                .append(&five, Expected::Any, decision(&format!("f{i}"), i, 2))
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            fives.push(a.position);
            last = a.position;
        }
    }
    // The head is the last decision committed.
    let clock_last = log
        .append(&clock, Expected::Any, decision("last", 0, 1))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(clock_last.position > last);
    assert_eq!(
        log.head().await.unwrap_or_else(|e| panic!("{e}")),
        clock_last.position
    );
    // From the beginning: the stream's own decisions, in order, whole.
    let mut sub = log
        .subscribe(Filter::stream(&five), 0)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    for &at in &fives {
        let c = next(&mut sub).await;
        assert_eq!((c.position, &c.stream), (at, &five));
        assert_eq!(c.envelopes.len(), 2);
    }
    // Then what is appended to it while it waits, and nothing else.
    log.append(&six, Expected::Any, decision("six-late", 0, 1))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let late = log
        .append(&five, Expected::Any, decision("five-late", 0, 1))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let c = next(&mut sub).await;
    assert_eq!((c.position, &c.stream), (late.position, &five));
    // From a position in the middle: only its decisions after it.
    let mut sub = log
        .subscribe(Filter::stream(&five), fives[3])
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let mut after = Vec::new();
    for _ in 0..fives.len() - 3 {
        after.push(next(&mut sub).await.position);
    }
    let mut expected = fives[4..].to_vec();
    expected.push(late.position);
    assert_eq!(after, expected);
    // From the head: nothing until the stream moves.
    let head = log.head().await.unwrap_or_else(|e| panic!("{e}"));
    let mut sub = log
        .subscribe(Filter::stream(&six), head)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let nothing = tokio::time::timeout(std::time::Duration::from_millis(200), sub.next()).await;
    assert!(nothing.is_err(), "a decision before the head: {nothing:?}");
    let moved = log
        .append(&six, Expected::Any, decision("six-moved", 0, 1))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(next(&mut sub).await.position, moved.position);
    // One kind of one tournament: t1's tables, not t2's, not t1's clock.
    let mut tables = log
        .subscribe(
            Filter {
                tournament: Some("t1".into()),
                kind: Some("table".into()),
                id: None,
            },
            0,
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    // 22 of six (20, a late one, a moved one) and 8 of five (7, a late one).
    for _ in 0..30 {
        let c = next(&mut tables).await;
        assert_eq!(
            (c.stream.tournament.as_str(), c.stream.kind.as_str()),
            ("t1", "table")
        );
    }
    let nothing = tokio::time::timeout(std::time::Duration::from_millis(200), tables.next()).await;
    assert!(nothing.is_err(), "more than t1's tables: {nothing:?}");
    // And read_all of one stream reads that stream only.
    let mut read = Vec::new();
    log.read_all(&Filter::stream(&five), |c| {
        read.push(c.position);
        Ok(())
    })
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read, expected_all(&fives, late.position));
}

fn expected_all(fives: &[u64], late: u64) -> Vec<u64> {
    let mut all = fives.to_vec();
    all.push(late);
    all
}

/// Followers of single streams through one [`crate::Fanout`]: each gets
/// its stream's events after the version it asked for, in order, once, and
/// nothing of the others'; one that never reads while more than
/// [`crate::FOLLOWER_BUFFER`] decisions are committed is dropped from the
/// shared subscription, slows nobody, and reads its stream again from the
/// log, losing nothing.
pub async fn followers_share_one_subscription_and_a_slow_one_loses_nothing<H: Harness>(h: &mut H) {
    let log = h.log();
    let fanout = Arc::new(crate::Fanout::new(log.clone()));
    let five = stream("table", "5");
    let six = stream("table", "6");
    for i in 1..=3u64 {
        log.append(&five, Expected::Any, decision(&format!("f{i}"), i, 1))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let within = |what: &'static str| move |_| panic!("{what}: nothing within 10 s");
    let ten = std::time::Duration::from_secs(10);
    // A follower after version 1 gets 2 and 3 from the log,
    let mut fast = fanout.follow(five.clone(), 1);
    for expected in [2, 3] {
        let c = tokio::time::timeout(ten, fast.next())
            .await
            .unwrap_or_else(within("fast"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.envelopes[0].sequence, expected);
    }
    // one from the start reads once and then stops reading,
    let mut slow = fanout.follow(five.clone(), 0);
    let first = tokio::time::timeout(ten, slow.next())
        .await
        .unwrap_or_else(within("slow"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(first.envelopes[0].sequence, 1);
    let mut other = fanout.follow(six.clone(), 0);
    // and while many more decisions are committed, the fast one keeps up.
    let more = crate::FOLLOWER_BUFFER as u64 + 200;
    let reader = tokio::spawn(async move {
        let mut seen = Vec::new();
        while seen.len() < more as usize {
            let c = tokio::time::timeout(ten, fast.next())
                .await
                .unwrap_or_else(within("fast, live"))
                .unwrap_or_else(|e| panic!("{e}"));
            seen.extend(c.envelopes.iter().map(|e| e.sequence));
        }
        seen
    });
    for i in 4..4 + more {
        log.append(&five, Expected::Any, decision(&format!("f{i}"), i, 1))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    }
    log.append(&six, Expected::Any, decision("six", 0, 2))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let seen = reader.await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(seen, (4..4 + more).collect::<Vec<_>>(), "the fast follower");
    // The other stream's follower got its stream only.
    let c = tokio::time::timeout(ten, other.next())
        .await
        .unwrap_or_else(within("other"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (c.stream.clone(), c.envelopes.len(), c.envelopes[0].sequence),
        (six, 2, 1)
    );
    // The slow one fell behind, and gets every event after its first,
    // once, in order, from the log and then live.
    let mut rest = Vec::new();
    while rest.len() < (2 + more) as usize {
        let c = tokio::time::timeout(ten, slow.next())
            .await
            .unwrap_or_else(within("slow, again"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.stream, five);
        rest.extend(c.envelopes.iter().map(|e| e.sequence));
    }
    assert_eq!(rest, (2..4 + more).collect::<Vec<_>>(), "the slow follower");
    assert!(slow.caught_up() >= 2, "read from the log again");
    assert!(fanout.fell_behind() >= 1);
    let late = log
        .append(&five, Expected::Any, decision("late", 0, 1))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let c = tokio::time::timeout(ten, slow.next())
        .await
        .unwrap_or_else(within("slow, live again"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (c.position, c.envelopes[0].sequence),
        (late.position, late.first)
    );
}

/// `read_all` hands over every decision of the filter's streams in log
/// order, to the log's last position when it began, from storage (after a
/// restart), and stops at the end even when the log's last decisions are
/// other streams'. Appends go on at the versions it left.
pub async fn read_all_gives_a_filters_decisions_to_the_end_of_the_log<H: Harness>(h: &mut H) {
    let log = h.log();
    let at = |t: &str, kind: &str, id: &str| {
        StreamId::new(t, kind, id).unwrap_or_else(|e| panic!("{e}"))
    };
    // Another tournament first, then t1's tables and clock interleaved,
    // then another tournament's decision last.
    log.append(&at("t0", "table", "1"), Expected::Any, decision("a", 0, 1))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let tables = [at("t1", "table", "5"), at("t1", "table", "6")];
    let mut positions = Vec::new();
    for i in 0..6u64 {
        let a = log
            .append(
                &tables[(i % 2) as usize],
                Expected::Any,
                decision(&format!("d{i}"), i * 10, 1 + i % 3),
            )
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        positions.push(a.position);
        log.append(
            &at("t1", "clock", "1"),
            Expected::Any,
            decision(&format!("k{i}"), i, 1),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    }
    let last = log
        .append(&at("t2", "clock", "1"), Expected::Any, decision("z", 0, 1))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .position;
    drop(log);
    h.restart().await;
    let log = h.log();
    let filter = Filter {
        id: None,
        tournament: Some("t1".into()),
        kind: Some("table".into()),
    };
    let mut seen = Vec::new();
    let mut events: std::collections::HashMap<StreamId, Vec<crate::Envelope>> =
        std::collections::HashMap::new();
    let to = log
        .read_all(&filter, |c| {
            seen.push(c.position);
            events.entry(c.stream).or_default().extend(c.envelopes);
            Ok(())
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(to, last);
    assert_eq!(seen, positions);
    for t in &tables {
        let read = log.read(t, 1).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(events.get(t), Some(&read), "{t}");
    }
    // A filter nothing matches: nothing, and the end of the log.
    let mut none = 0;
    let to = log
        .read_all(&Filter::tournament("t9"), |_| {
            none += 1;
            Ok(())
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((none, to), (0, last));
    // An error of the caller's ends the read and is what it returns.
    let mut calls = 0;
    let e = log
        .read_all(&Filter::tournament("t1"), |_| {
            calls += 1;
            Err(LogError::Closed)
        })
        .await;
    assert_eq!((e, calls), (Err(LogError::Closed), 1));
    // Appends go on from where it left the streams.
    let version = events[&tables[0]].len() as u64;
    let a = log
        .append(
            &tables[0],
            Expected::Exactly(version),
            decision("next", 100, 1),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(a.first, version + 1);
    let stale = log
        .append(&tables[1], Expected::Exactly(1), decision("stale", 200, 1))
        .await;
    assert!(matches!(stale, Err(LogError::Conflict { .. })), "{stale:?}");
}

/// Appends queued one after another on a stream are decided in that
/// order: the second may expect the version the first will make; one
/// queued on a refused append is a conflict. A backend that cannot queue
/// hands the decision back untouched.
pub async fn queued_appends_are_decided_in_order<H: Harness>(h: &mut H) {
    let log = h.log();
    let s = stream("seating", "q");
    let first = match log.queue(&s, Expected::NoStream, decision("q1", 1, 2)) {
        Ok(answer) => answer,
        Err(back) => {
            assert_eq!(*back, decision("q1", 1, 2));
            assert_eq!(log.version(&s).await.unwrap_or_else(|e| panic!("{e}")), 0);
            return;
        }
    };
    let second = log
        .queue(&s, Expected::Exactly(2), decision("q2", 3, 1))
        .unwrap_or_else(|_| panic!("a backend that queued one queues the next"));
    let (a, b) = (
        first.await.unwrap_or_else(|e| panic!("{e}")),
        second.await.unwrap_or_else(|e| panic!("{e}")),
    );
    assert_eq!((a.first, a.last, b.first, b.last), (1, 2, 3, 3));
    assert!(b.position > a.position);
    // A stale one, and one queued on top of it: both refused.
    let stale = log
        .queue(&s, Expected::Exactly(1), decision("q3", 4, 1))
        .unwrap_or_else(|_| panic!("queued"));
    let on_stale = log
        .queue(&s, Expected::Exactly(4), decision("q4", 5, 1))
        .unwrap_or_else(|_| panic!("queued"));
    for answer in [stale.await, on_stale.await] {
        match answer {
            Err(LogError::Conflict { actual, .. }) => assert_eq!(actual, 3),
            other => panic!("expected a conflict at version 3, got {other:?}"),
        }
    }
    let ids: Vec<String> = log
        .read(&s, 1)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|e| e.command_id)
        .collect();
    assert_eq!(ids, ["q1", "q1", "q2"]);
}

/// A reader may give up waiting for the next decision (a `select!` that
/// took another branch) and ask again: nothing is lost or repeated.
pub async fn a_subscription_read_given_up_loses_nothing<H: Harness>(h: &mut H) {
    let log = h.log();
    let s = stream("table", "9");
    let mut sub = log
        .subscribe(Filter::kind("table"), 0)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let appender = {
        let log = log.clone();
        let s = s.clone();
        tokio::spawn(async move {
            let mut positions = Vec::new();
            for i in 0..30u64 {
                let a = log
                    .append(&s, Expected::Any, decision(&format!("g{i}"), i, 1))
                    .await
                    .unwrap_or_else(|e| panic!("{e}"));
                positions.push(a.position);
                tokio::time::sleep(std::time::Duration::from_millis(3 + i % 4)).await;
            }
            positions
        })
    };
    let mut seen = Vec::new();
    let mut given_up = 0;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    while seen.len() < 30 && tokio::time::Instant::now() < deadline {
        tokio::select! {
            next = sub.next() => {
                let c = next
                    .unwrap_or_else(|| panic!("the subscription ended"))
                    .unwrap_or_else(|e| panic!("{e}"));
                seen.push(c.position);
            }
            _ = tokio::time::sleep(std::time::Duration::from_millis(2)) => given_up += 1,
        }
    }
    let positions = appender.await.unwrap_or_else(|e| panic!("{e}"));
    assert!(
        given_up > 0,
        "every read was answered before the reader gave up"
    );
    assert_eq!(seen, positions);
}

async fn next(sub: &mut crate::Subscription) -> crate::Committed {
    tokio::time::timeout(std::time::Duration::from_secs(10), sub.next())
        .await
        .unwrap_or_else(|_| panic!("no decision within 10 s"))
        .unwrap_or_else(|| panic!("the subscription ended"))
        .unwrap_or_else(|e| panic!("{e}"))
}

pub async fn everything_acknowledged_survives_a_restart_and_subscriptions_resume<H: Harness>(
    h: &mut H,
) {
    let s = stream("table", "7");
    let mut last = None;
    {
        let log = h.log();
        for i in 0..10u64 {
            let expected = if i == 0 {
                Expected::NoStream
            } else {
                Expected::Exactly(i * 2)
            };
            last = Some(
                log.append(&s, expected, decision(&format!("r{i}"), i * 2, 2))
                    .await
                    .unwrap_or_else(|e| panic!("{e}")),
            );
        }
    }
    let recorded = last.map_or(0, |a| a.position);
    h.restart().await;
    let log = h.log();
    assert_eq!(log.version(&s).await, Ok(20));
    let events = log.read(&s, 1).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(events.len(), 20);
    assert_eq!(verify_chain(&events), Ok(()));
    // The stream continues at the right version after the restart.
    let a = log
        .append(&s, Expected::Exactly(20), decision("after", 100, 1))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(a.first, 21);
    // A consumer that recorded the last position before the restart
    // resumes with the next decision.
    let mut sub = log
        .subscribe(Filter::all(), recorded)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let c = next(&mut sub).await;
    assert_eq!(c.position, a.position);
    assert_eq!(c.envelopes[0].command_id, "after");
    // Its client, not sure the append went through, retries it (with the
    // expectation it had): stored once.
    let retry = log
        .append(&s, Expected::Exactly(20), decision("after", 100, 1))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(retry.duplicate);
    assert_eq!(log.version(&s).await, Ok(21));
}

pub async fn a_consumer_resumes_from_the_position_it_recorded_after_a_restart<H: Harness>(
    h: &mut H,
) {
    let s = stream("table", "9");
    let mut positions = Vec::new();
    {
        let log = h.log();
        assert_eq!(log.recorded_position("follower").await, Ok(0));
        for i in 0..4u64 {
            let expected = if i == 0 {
                Expected::NoStream
            } else {
                Expected::Exactly(i)
            };
            let a = log
                .append(&s, expected, decision(&format!("p{i}"), i, 1))
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            positions.push(a.position);
        }
        // The last position recorded wins; each consumer has its own.
        for p in [positions[0], positions[1]] {
            log.record_position("follower", p)
                .await
                .unwrap_or_else(|e| panic!("{e}"));
        }
        log.record_position("other_one", positions[3])
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        // A name that is not one is refused and records nothing.
        for bad in ["", "a.b", "a b", "x>"] {
            assert!(
                matches!(
                    log.record_position(bad, 1).await,
                    Err(LogError::InvalidConsumer { .. })
                ),
                "{bad:?}"
            );
        }
    }
    h.restart().await;
    let log = h.log();
    assert_eq!(log.recorded_position("follower").await, Ok(positions[1]));
    assert_eq!(log.recorded_position("other_one").await, Ok(positions[3]));
    assert_eq!(log.recorded_position("nobody").await, Ok(0));
    // Subscribing after the recorded position gives what came after it.
    let from = log
        .recorded_position("follower")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let mut sub = log
        .subscribe(Filter::all(), from)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let c = next(&mut sub).await;
    assert_eq!(c.position, positions[2]);
    assert_eq!(c.envelopes[0].command_id, "p2");
}

pub async fn the_hash_chain_verifies_and_finds_a_change<H: Harness>(h: &mut H) {
    let log = h.log();
    let s = stream("table", "8");
    for i in 0..5u64 {
        log.append(&s, Expected::Any, decision(&format!("h{i}"), i, 3))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let mut events = log.read(&s, 1).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(verify_chain(&events), Ok(()));
    assert_eq!(events[0].prev_hash, crate::Hash::default());
    events[6].payload = rmp_serde::to_vec_named(&Chip { n: 999 }).unwrap_or_default();
    let err = verify_chain(&events).expect_err("changed");
    assert_eq!(
        err.sequence, 8,
        "the event after the changed one no longer follows"
    );
    let mut events = log.read(&s, 1).await.unwrap_or_else(|e| panic!("{e}"));
    events.remove(3);
    assert_eq!(verify_chain(&events).map_err(|e| e.sequence), Err(5));
}

pub async fn a_large_stream_reads_back_whole<H: Harness>(h: &mut H) {
    let log = h.log();
    let s = stream("table", "9");
    let mut version = 0;
    // More decisions than one batch of a read brings (1,000 on NATS).
    for i in 0..1100u64 {
        let events = if i < 300 { 5 } else { 1 };
        let a = log
            .append(
                &s,
                Expected::Exactly(version),
                decision(&format!("l{i}"), version + 1, events),
            )
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        version = a.last;
    }
    let events = log.read(&s, 1).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(events.len(), 2300);
    assert_eq!(verify_chain(&events), Ok(()));
    assert_eq!(events[2299].decode::<Chip>(), Ok(Chip { n: 2300 }));
    assert_eq!(log.read(&s, 2290).await.map(|e| e.len()), Ok(11));
    // A subscription from the start delivers every decision, in order.
    let mut sub = log
        .subscribe(Filter::kind("table"), 0)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let (mut seen, mut last) = (0, 0);
    while seen < 2300 {
        let c = next(&mut sub).await;
        assert!(c.position > last);
        last = c.position;
        seen += c.envelopes.len();
    }
    assert_eq!(seen, 2300);
}

pub async fn a_decision_reads_back_by_its_position<H: Harness>(h: &mut H) {
    let log = h.log();
    let s = stream("table", "1");
    let other = stream("table", "2");
    let mut appended = Vec::new();
    for i in 0..5u64 {
        let a = log
            .append(
                &s,
                Expected::Exactly(2 * i),
                decision(&format!("d{i}"), 2 * i + 1, 2),
            )
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        appended.push(a);
        log.append(&other, Expected::Any, decision(&format!("o{i}"), i + 1, 1))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    }
    // Each decision, by the position its append answered with.
    for (i, a) in appended.iter().enumerate() {
        let events = log
            .read_decision(&s, a.position)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let got: Vec<(u64, &str)> = events
            .iter()
            .map(|e| (e.sequence, e.command_id.as_str()))
            .collect();
        let id = format!("d{i}");
        assert_eq!(got, [(a.first, id.as_str()), (a.last, id.as_str())]);
    }
    // Another stream's decision there, or none at all: nothing.
    let o = log
        .read_decision(&other, appended[2].position)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o, []);
    let beyond = appended[4].position + 1000;
    assert_eq!(log.read_decision(&s, beyond).await, Ok(vec![]));
    // Read as decisions, from an event inside one: whole decisions with
    // the positions their appends answered with.
    let decisions = log
        .read_decisions(&s, 6)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<(u64, u64, usize)> = decisions
        .iter()
        .map(|c| (c.position, c.envelopes[0].sequence, c.envelopes.len()))
        .collect();
    let want: Vec<(u64, u64, usize)> = appended[2..]
        .iter()
        .map(|a| (a.position, a.first, 2))
        .collect();
    assert_eq!(got, want);
    assert!(decisions.iter().all(|c| c.stream == s));
}

/// A decision's request fingerprint is stored with its envelopes and read
/// back however they are read; a decision without one has none.
pub async fn a_decision_keeps_its_request_fingerprint<H: Harness>(h: &mut H) {
    let log = h.log();
    let s = stream("table", "1");
    let fingerprint = crate::Hash([7; 32]);
    let a = log
        .append(
            &s,
            Expected::NoStream,
            Decision {
                request: Some(fingerprint),
                ..decision("fp", 1, 2)
            },
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    log.append(&s, Expected::Exactly(2), decision("plain", 3, 1))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let read = log.read(&s, 1).await.unwrap_or_else(|e| panic!("{e}"));
    let requests: Vec<Option<crate::Hash>> = read.iter().map(|e| e.request).collect();
    assert_eq!(requests, [Some(fingerprint), Some(fingerprint), None]);
    let by_position = log
        .read_decision(&s, a.position)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(by_position.iter().all(|e| e.request == Some(fingerprint)));
    assert_eq!(crate::verify_chain(&read), Ok(()));
}

/// The person a decision names is stored with its envelopes, in their
/// hash, read back however they are read and by subscribers; a decision
/// without one names nobody.
pub async fn a_decision_keeps_its_actor<H: Harness>(h: &mut H) {
    let log = h.log();
    let s = stream("seating", "main");
    let mut sub = log
        .subscribe(
            Filter {
                id: None,
                tournament: None,
                kind: Some("seating".into()),
            },
            0,
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let a = log
        .append(
            &s,
            Expected::NoStream,
            Decision {
                actor: Some("ana.floor".into()),
                ..decision("by-ana", 1, 2)
            },
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    log.append(&s, Expected::Exactly(2), decision("nobody", 3, 1))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let read = log.read(&s, 1).await.unwrap_or_else(|e| panic!("{e}"));
    let actors: Vec<Option<&str>> = read.iter().map(|e| e.actor.as_deref()).collect();
    assert_eq!(actors, [Some("ana.floor"), Some("ana.floor"), None]);
    let by_position = log
        .read_decision(&s, a.position)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        by_position
            .iter()
            .all(|e| e.actor.as_deref() == Some("ana.floor"))
    );
    let delivered = tokio::time::timeout(std::time::Duration::from_secs(10), sub.next())
        .await
        .expect("a decision in time")
        .expect("the subscription goes on")
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        delivered
            .envelopes
            .iter()
            .all(|e| e.actor.as_deref() == Some("ana.floor"))
    );
    assert_eq!(crate::verify_chain(&read), Ok(()));
}

/// One `#[tokio::test]` per conformance test, each with a fresh harness
/// from `$setup` (an async fn returning a [`Harness`]).
#[macro_export]
macro_rules! conformance_tests {
    ($setup:path) => {
        $crate::conformance_tests!(@each $setup;
            append_and_read_back,
            a_stale_version_is_a_conflict_that_says_the_actual_one,
            a_retried_command_is_stored_once_and_gets_the_first_answer,
            concurrent_appenders_to_one_stream_never_lose_or_double,
            subscriptions_deliver_in_order_from_a_position,
            one_stream_or_one_kind_of_a_tournament_from_a_position,
            followers_share_one_subscription_and_a_slow_one_loses_nothing,
            read_all_gives_a_filters_decisions_to_the_end_of_the_log,
            a_subscription_read_given_up_loses_nothing,
            queued_appends_are_decided_in_order,
            everything_acknowledged_survives_a_restart_and_subscriptions_resume,
            a_consumer_resumes_from_the_position_it_recorded_after_a_restart,
            the_hash_chain_verifies_and_finds_a_change,
            a_large_stream_reads_back_whole,
            a_decision_reads_back_by_its_position,
            a_decision_keeps_its_request_fingerprint,
            a_decision_keeps_its_actor
        );
    };
    (@each $setup:path; $($name:ident),*) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() {
                let mut harness = $setup().await;
                $crate::conformance::$name(&mut harness).await;
            }
        )*
    };
}
