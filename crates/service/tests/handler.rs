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
        request: None,
        causation_id: Some("t.clock.main@7".into()),
        correlation_id: Some("t.clock.main/tick-9".into()),
        actor: None,
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

/// A command id names one request: sent again as it was, it gets the first
/// answer; sent with another request, it is refused as already used, by
/// this handler and by one started afresh on the same log, and nothing is
/// stored.
#[tokio::test]
async fn a_command_id_reused_for_another_request_is_refused() {
    use felt_eventlog::EventLog as _;
    use felt_service::Provenance;
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let stream = StreamId::new("t", "box", "1").unwrap();
    let a: Handler<Chips, _> = Handler::new(log.clone());
    let put_five = Provenance::of_request(b"put 5");
    a.handle_from(&stream, "put", 1, &put_five, &Move::Put(5))
        .await
        .unwrap();
    let again = a
        .handle_from(&stream, "put", 2, &put_five, &Move::Put(5))
        .await
        .unwrap();
    assert!(again.duplicate);
    let reused = HandleError::Reused {
        command_id: "put".into(),
        first: put_five.request.expect("a fingerprint"),
    };
    let put_six = Provenance::of_request(b"put 6");
    let e = a
        .handle_from(&stream, "put", 3, &put_six, &Move::Put(6))
        .await
        .unwrap_err();
    assert_eq!(e, reused);
    let fresh: Handler<Chips, _> = Handler::new(log.clone());
    let e = fresh
        .handle_from(&stream, "put", 4, &put_six, &Move::Put(6))
        .await
        .unwrap_err();
    assert_eq!(e, reused);
    assert_eq!(
        felt_vocabulary::Classified::kind(&e),
        felt_vocabulary::ErrorKind::AlreadyExists
    );
    // (A caller that gives no fingerprint is answered as before.)
    let unchecked = fresh
        .handle(&stream, "put", 5, &Move::Put(6))
        .await
        .unwrap();
    assert!(unchecked.duplicate);
    assert_eq!(log.read(&stream, 1).await.unwrap().len(), 1);
    assert_eq!(*fresh.state(&stream).await.unwrap().0, 5);
}

/// A decision names the person whose request it serves: the one its
/// provenance gives, else the one the task serves ([`felt_service::as_actor`])
/// unless it is a reaction (a cause recorded), which names nobody.
#[tokio::test]
async fn a_decision_names_the_person_whose_request_brought_it() {
    use felt_eventlog::EventLog as _;
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let stream = StreamId::new("t", "box", "1").unwrap();
    let a: Handler<Chips, _> = Handler::new(log.clone());
    felt_service::as_actor(Some("ana".into()), async {
        a.handle(&stream, "put", 1, &Move::Put(5)).await.unwrap();
        // A reaction the request runs on its way names nobody.
        let reaction = felt_service::Provenance {
            causation_id: Some("t.clock.main@7".into()),
            ..Default::default()
        };
        a.handle_from(&stream, "react", 2, &reaction, &Move::Put(1))
            .await
            .unwrap();
        // Named outright.
        let bia = felt_service::Provenance {
            actor: Some("bia".into()),
            ..Default::default()
        };
        a.handle_from(&stream, "bia", 3, &bia, &Move::Put(1))
            .await
            .unwrap();
    })
    .await;
    a.handle(&stream, "nobody", 4, &Move::Put(1)).await.unwrap();
    let actors: Vec<Option<String>> = log
        .read(&stream, 1)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.actor)
        .collect();
    assert_eq!(actors, [Some("ana".into()), None, Some("bia".into()), None]);
}
