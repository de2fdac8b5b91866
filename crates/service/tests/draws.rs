//! A decider that draws is handed its seed by the handler when it decides,
//! from the handler's source; the seed is in the decision's events, so a
//! retried command gets its first answer, seed included, whatever the
//! source would give now.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use felt_eventlog::{EmbeddedLog, StreamId};
use felt_service::{Aggregate, Handler, Seed};

/// A die rolled from the seed it is handed.
#[derive(Debug)]
struct Die;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("never")]
struct Never;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Rolled {
    seed: Seed,
    face: u8,
}

impl Aggregate for Die {
    type State = Vec<u8>;
    type Command = ();
    type Event = Rolled;
    type Rejection = Never;
    const SCHEMA: u16 = 1;

    fn draws(_: &()) -> bool {
        true
    }

    fn decide(_: &Vec<u8>, _: &(), seed: &Seed) -> Result<Vec<Rolled>, Never> {
        Ok(vec![Rolled {
            seed: *seed,
            face: seed[0] % 6 + 1,
        }])
    }

    fn apply(faces: &mut Vec<u8>, event: &Rolled) {
        faces.push(event.face);
    }

    fn event_type(_: &Rolled) -> &'static str {
        "Rolled"
    }
}

#[tokio::test]
async fn each_decision_draws_its_seed_and_a_retry_keeps_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let stream = StreamId::new("t", "die", "1").unwrap();
    // A source that gives another seed every time it is asked, and says
    // what it was asked for in the seed.
    let asked = Arc::new(AtomicU8::new(0));
    let count = asked.clone();
    let draws: felt_service::Draws = Arc::new(move |stream: &StreamId, id: &str| {
        let mut seed = [0u8; 32];
        seed[0] = count.fetch_add(1, Ordering::Relaxed);
        seed[1] = u8::try_from(stream.to_string().len()).unwrap();
        seed[2] = u8::try_from(id.len()).unwrap();
        seed
    });
    let die: Handler<Die, _> = Handler::new(log.clone()).with_draws(draws);
    // When a roll is decided, then it is rolled from the source's seed for
    // this stream and command.
    let first = die.handle(&stream, "roll-1", 1, &()).await.unwrap();
    let seed = first.events[0].seed;
    assert_eq!(seed[0], 0);
    assert_eq!(usize::from(seed[1]), stream.to_string().len());
    assert_eq!(seed[2], 6);
    // When the same command comes again, then its first answer comes back,
    // seed included, and the source is not asked.
    let again = die.handle(&stream, "roll-1", 2, &()).await.unwrap();
    assert!(again.duplicate);
    assert_eq!(again.events, first.events);
    assert_eq!(asked.load(Ordering::Relaxed), 1);
    // Also from a handler that reads it back from the log.
    let other: Handler<Die, _> = Handler::new(log.clone());
    let read = other.handle(&stream, "roll-1", 3, &()).await.unwrap();
    assert_eq!(read.events, first.events);
    // A new command draws a new seed.
    let second = die.handle(&stream, "roll-2", 4, &()).await.unwrap();
    assert_eq!(second.events[0].seed[0], 1);
    assert_eq!(
        *second.state,
        vec![first.events[0].face, second.events[0].face]
    );
}

#[tokio::test]
async fn a_decider_that_does_not_draw_is_handed_zeros() {
    #[derive(Debug)]
    struct Quiet;
    impl Aggregate for Quiet {
        type State = ();
        type Command = ();
        type Event = Rolled;
        type Rejection = Never;
        const SCHEMA: u16 = 1;
        fn decide(_: &(), _: &(), seed: &Seed) -> Result<Vec<Rolled>, Never> {
            Ok(vec![Rolled {
                seed: *seed,
                face: 0,
            }])
        }
        fn apply(_: &mut (), _: &Rolled) {}
        fn event_type(_: &Rolled) -> &'static str {
            "Rolled"
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let stream = StreamId::new("t", "quiet", "1").unwrap();
    let quiet: Handler<Quiet, _> =
        Handler::new(log).with_draws(Arc::new(|_: &StreamId, _: &str| [7u8; 32]));
    let out = quiet.handle(&stream, "c", 1, &()).await.unwrap();
    assert_eq!(out.events[0].seed, [0u8; 32]);
}
