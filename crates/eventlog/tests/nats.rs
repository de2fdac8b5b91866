//! The conformance suite against NATS JetStream, on a real nats-server
//! started for each test.

use std::sync::Arc;

use felt_eventlog::conformance::Harness;
use felt_eventlog::{NatsLog, NatsSettings};
use felt_testkit::NatsServer;

struct Nats {
    server: NatsServer,
    log: Arc<NatsLog>,
}

async fn connect(server: &NatsServer) -> Arc<NatsLog> {
    Arc::new(
        NatsLog::connect(&server.url(), &NatsSettings::default())
            .await
            .expect("connect to nats-server"),
    )
}

impl Harness for Nats {
    type Log = NatsLog;

    fn log(&self) -> Arc<NatsLog> {
        self.log.clone()
    }

    async fn restart(&mut self) {
        // kill -9 the server, start it on the same store, connect again.
        self.server.restart().expect("restart nats-server");
        self.log = connect(&self.server).await;
    }
}

async fn setup() -> Nats {
    let server = NatsServer::start().expect("start nats-server");
    let log = connect(&server).await;
    Nats { server, log }
}

felt_eventlog::conformance_tests!(setup);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_position_is_where_the_newest_decision_is() {
    use felt_eventlog::conformance::{decision, stream};
    use felt_eventlog::{EventLog, Expected};
    let h = setup().await;
    assert_eq!(h.log.last_position().await, Ok(0));
    let mut last = 0;
    for (i, id) in ["a", "b", "a"].iter().enumerate() {
        let s = stream("table", id);
        let expected = if i < 2 {
            Expected::NoStream
        } else {
            Expected::Exactly(1)
        };
        last = h
            .log
            .append(&s, expected, decision(&format!("c{i}"), 0, 1))
            .await
            .expect("append")
            .position;
    }
    assert_eq!(h.log.last_position().await, Ok(last));
    assert_eq!(last, 3);
}

/// A handler catching up reads only what is new, even after the log forgot
/// a stream's tip (a duplicate publish: a command sent again): not the
/// stream's whole history from the beginning of the log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_from_the_tip_after_a_duplicate_publish_fetches_only_what_is_new() {
    use felt_eventlog::conformance::{decision, stream};
    use felt_eventlog::{EventLog, Expected};
    let h = setup().await;
    let s = stream("table", "7");
    let other = stream("table", "8");
    for i in 1..=20 {
        h.log
            .append(&s, Expected::Any, decision(&format!("c{i}"), i, 1))
            .await
            .unwrap();
        h.log
            .append(&other, Expected::Any, decision(&format!("c{i}"), i, 1))
            .await
            .unwrap();
    }
    // A command stored before, sent again: answered as a repeat.
    let again = h
        .log
        .append(&s, Expected::Any, decision("c5", 5, 1))
        .await
        .unwrap();
    assert!(again.duplicate);
    let before = h.log.messages_fetched();
    assert_eq!(h.log.read(&s, 21).await.unwrap(), []);
    assert_eq!(h.log.messages_fetched() - before, 0);
    // A read from a recent version starts near it.
    let before = h.log.messages_fetched();
    let tail = h.log.read(&s, 18).await.unwrap();
    assert_eq!(
        tail.iter().map(|e| e.sequence).collect::<Vec<_>>(),
        [18, 19, 20]
    );
    assert_eq!(h.log.messages_fetched() - before, 3);
    // The whole stream is still there from the beginning.
    assert_eq!(h.log.read(&s, 1).await.unwrap().len(), 20);
}
