//! A command sent again long after it was decided is answered from its own
//! decision, read where the log put it: not by reading the stream on from
//! it. (Seating's stream in a 10,000-entrant tournament holds tens of
//! thousands of decisions; on NATS, repeats of old commands read from the
//! beginning each time brought the main job to a halt.)

use std::sync::Arc;

use felt_eventlog::{NatsLog, NatsSettings, StreamId};
use felt_service::Handler;
use felt_testkit::NatsServer;

mod common;
use common::{Chips, Move, Moved};

async fn connect(server: &NatsServer) -> Arc<NatsLog> {
    Arc::new(
        NatsLog::connect(&server.url(), &NatsSettings::default())
            .await
            .unwrap(),
    )
}

/// The chips a repeat's answer says were put in, and how many messages the
/// log fetched to answer it.
async fn repeat(
    h: &Handler<Chips, NatsLog>,
    log: &NatsLog,
    s: &StreamId,
    id: u64,
) -> (Vec<u64>, u64) {
    let before = log.messages_fetched();
    let out = h
        .handle(s, &format!("put-{id}"), 9, &Move::Put(999))
        .await
        .unwrap();
    assert!(out.duplicate, "put-{id} is a repeat");
    assert_eq!(out.version, 300);
    let put = out
        .events
        .iter()
        .map(|e| match e {
            Moved::In(n) => *n,
            Moved::Out(n) => panic!("put-{id} took {n} out"),
        })
        .collect();
    (put, log.messages_fetched() - before)
}

#[tokio::test]
async fn a_repeat_of_an_old_command_reads_only_its_own_decision() {
    let server = NatsServer::start().unwrap();
    let s = StreamId::new("t1", "box", "1").unwrap();
    // Given a writer put chips in a box 300 times,
    let writer_log = connect(&server).await;
    let a: Handler<Chips, NatsLog> = Handler::new(writer_log.clone());
    for id in 1..=300u64 {
        a.handle(&s, &format!("put-{id}"), 1, &Move::Put(id))
            .await
            .unwrap();
    }
    // when the third is sent again, then it is answered with what it put
    // in, from its one message;
    assert_eq!(repeat(&a, &writer_log, &s, 3).await, (vec![3], 1));
    // and a handler that read the box from the log answers the same way.
    let reader_log = connect(&server).await;
    let b: Handler<Chips, NatsLog> = Handler::new(reader_log.clone());
    assert_eq!(b.state(&s).await.unwrap().1, 300);
    assert_eq!(repeat(&b, &reader_log, &s, 7).await, (vec![7], 1));
    assert_eq!(repeat(&b, &reader_log, &s, 250).await, (vec![250], 1));
}
