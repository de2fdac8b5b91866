//! Faults against a real nats-server: the server killed (SIGKILL) between
//! appends and during one, and a client retrying an append whose
//! acknowledgement it never saw.

use std::time::Duration;

use felt_eventlog::conformance::{decision, stream};
use felt_eventlog::{EventLog, Expected, NatsLog, NatsSettings, verify_chain};
use felt_testkit::NatsServer;

async fn connect(server: &NatsServer) -> NatsLog {
    NatsLog::connect(&server.url(), &NatsSettings::default())
        .await
        .expect("connect")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_acknowledged_is_lost_when_the_server_is_killed_between_appends() {
    let mut server = NatsServer::start().expect("start nats-server");
    let log = connect(&server).await;
    let s = stream("table", "f1");
    let mut acknowledged = 0;
    for round in 0..3u64 {
        for i in 0..20u64 {
            let a = log
                .append(
                    &s,
                    Expected::Exactly(acknowledged),
                    decision(&format!("r{round}-{i}"), acknowledged + 1, 2),
                )
                .await
                .expect("append");
            acknowledged = a.last;
        }
        server.restart().expect("restart");
    }
    // The same client, reconnected by itself, and a new one agree.
    let fresh = connect(&server).await;
    for log in [&log, &fresh] {
        let events = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                if let Ok(events) = log.read(&s, 1).await {
                    return events;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
        .await
        .expect("the log answers again");
        assert_eq!(events.len() as u64, acknowledged);
        assert_eq!(verify_chain(&events), Ok(()));
    }
    // The stream continues at the right version.
    let next = fresh
        .append(&s, Expected::Exactly(acknowledged), decision("next", 0, 1))
        .await
        .expect("append after restarts");
    assert_eq!(next.first, acknowledged + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_append_the_server_never_acknowledged_is_retried_and_stored_once() {
    let mut server = NatsServer::start().expect("start nats-server");
    let log = connect(&server).await;
    let s = stream("table", "f2");
    log.append(&s, Expected::NoStream, decision("first", 1, 1))
        .await
        .expect("append");
    // The server dies: the append fails, nothing is acknowledged.
    server.kill();
    let failed = tokio::time::timeout(
        Duration::from_secs(30),
        log.append(&s, Expected::Exactly(1), decision("second", 2, 3)),
    )
    .await;
    assert!(
        !matches!(failed, Ok(Ok(_))),
        "an append cannot succeed with the server down"
    );
    server.restart().expect("restart");
    // The client retries the same command until it gets an answer.
    let answer = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            match log
                .append(&s, Expected::Exactly(1), decision("second", 2, 3))
                .await
            {
                Ok(a) => return a,
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    })
    .await
    .expect("the retry is answered");
    assert_eq!((answer.first, answer.last), (2, 4));
    // Retried again (its answer lost too): the same answer, stored once.
    let again = log
        .append(&s, Expected::Exactly(1), decision("second", 2, 3))
        .await
        .expect("retry");
    assert!(again.duplicate);
    assert_eq!(again.position, answer.position);
    assert_eq!(log.read(&s, 1).await.map(|e| e.len()), Ok(4));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_decision_larger_than_the_servers_max_payload_is_refused_with_the_reason() {
    let server = NatsServer::start().expect("start nats-server");
    let log = connect(&server).await;
    let s = stream("seating", "big");
    // About 20,000 small events: well over the default 1 MB.
    let err = log
        .append(&s, Expected::NoStream, decision("big", 1, 20_000))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("is more than the server's max_payload of 1048576"),
        "{err}"
    );
    // Nothing was stored, and a normal decision goes through.
    assert_eq!(log.version(&s).await.unwrap(), 0);
    log.append(&s, Expected::NoStream, decision("small", 1, 3))
        .await
        .unwrap();
}
