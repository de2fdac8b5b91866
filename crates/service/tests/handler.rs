//! Two handlers of one aggregate on one log (two replicas, or two services
//! writing the same stream): each decides against the log's latest state,
//! so a refusal is never decided on a stale view.

use std::sync::Arc;

use felt_eventlog::{EmbeddedLog, StreamId};
use felt_service::{HandleError, Handler};

mod common;
use common::{Chips, Move, Refused};

#[tokio::test]
async fn a_command_refused_on_a_stale_view_is_decided_again_on_the_latest() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let stream = StreamId::new("t", "box", "1").unwrap();
    let a: Handler<Chips, _> = Handler::new(log.clone());
    let b: Handler<Chips, _> = Handler::new(log.clone());
    // Given B has seen an empty box,
    assert_eq!(*b.cached_state(&stream).await.unwrap().0, 0);
    // and A then puts 5 chips in,
    a.handle(&stream, "put", 1, &Move::Put(5)).await.unwrap();
    // when B is asked to take 3, then it takes them: the log has 5.
    let out = b.handle(&stream, "take", 2, &Move::Take(3)).await.unwrap();
    assert_eq!(*out.state, 2);
    assert_eq!(out.version, 2);
    // A refusal on the latest state stands, and changes nothing.
    let e = a.handle(&stream, "take-more", 3, &Move::Take(4)).await;
    assert_eq!(
        e.unwrap_err(),
        HandleError::Rejected(Refused::TooFew { want: 4, have: 2 })
    );
    assert_eq!(*a.state(&stream).await.unwrap().0, 2);
    assert_eq!(a.state(&stream).await.unwrap().1, 2);
}

/// A decision records where it comes from: the decision that caused it
/// and the command that started its chain; a repeat of the command keeps
/// the first decision's, whatever the repeat says.
#[tokio::test]
async fn a_decision_records_its_causation_and_correlation() {
    use felt_eventlog::EventLog as _;
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let stream = StreamId::new("t", "box", "1").unwrap();
    let a: Handler<Chips, _> = Handler::new(log.clone());
    a.handle(&stream, "put", 1, &Move::Put(5)).await.unwrap();
    let from = felt_service::Provenance {
        trace: None,
        causation_id: Some("t.clock.main@7".into()),
        correlation_id: Some("t.clock.main/tick-9".into()),
    };
    a.handle_from(&stream, "take", 2, &from, &Move::Take(3))
        .await
        .unwrap();
    let again = felt_service::Provenance {
        causation_id: Some("t.clock.main@8".into()),
        ..from.clone()
    };
    let repeat = a
        .handle_from(&stream, "take", 3, &again, &Move::Take(3))
        .await
        .unwrap();
    assert!(repeat.duplicate);
    let envelopes = log.read(&stream, 1).await.unwrap();
    assert_eq!(envelopes.len(), 2);
    assert_eq!(
        (
            envelopes[0].causation_id.as_deref(),
            envelopes[0].correlation_id.as_deref()
        ),
        (None, None)
    );
    assert_eq!(
        (
            envelopes[1].causation_id.as_deref(),
            envelopes[1].correlation_id.as_deref()
        ),
        (Some("t.clock.main@7"), Some("t.clock.main/tick-9"))
    );
}
