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
