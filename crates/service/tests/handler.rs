//! Two handlers of one aggregate on one log (two replicas, or two services
//! writing the same stream): each decides against the log's latest state,
//! so a refusal is never decided on a stale view.

use std::sync::Arc;

use felt_eventlog::{EmbeddedLog, StreamId};
use felt_service::{Aggregate, HandleError, Handler};

/// Chips in a box: put some in, take some out, never more than are there.
#[derive(Debug)]
struct Chips;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum Refused {
    #[error("cannot take {want}: {have} in the box")]
    TooFew { want: u64, have: u64 },
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
enum Moved {
    In(u64),
    Out(u64),
}

enum Move {
    Put(u64),
    Take(u64),
}

impl Aggregate for Chips {
    type State = u64;
    type Command = Move;
    type Event = Moved;
    type Rejection = Refused;
    const SCHEMA: u16 = 1;

    fn decide(have: &u64, command: &Move) -> Result<Vec<Moved>, Refused> {
        match *command {
            Move::Put(n) => Ok(vec![Moved::In(n)]),
            Move::Take(0) => Ok(vec![]),
            Move::Take(want) if want > *have => Err(Refused::TooFew { want, have: *have }),
            Move::Take(n) => Ok(vec![Moved::Out(n)]),
        }
    }

    fn apply(have: &mut u64, event: &Moved) {
        match event {
            Moved::In(n) => *have += n,
            Moved::Out(n) => *have -= n,
        }
    }

    fn event_type(event: &Moved) -> &'static str {
        match event {
            Moved::In(_) => "In",
            Moved::Out(_) => "Out",
        }
    }
}

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
