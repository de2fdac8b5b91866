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

/// A free loopback port (free now).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// One node of a three-node JetStream cluster on loopback, killed on drop
/// (its folder removed after).
struct Node {
    child: std::process::Child,
    _dir: tempfile::TempDir,
}

impl Node {
    fn start(n: usize, client: &[u16; 3], routes: &[u16; 3]) -> Node {
        let dir = tempfile::tempdir().expect("a folder");
        let conf = dir.path().join("node.conf");
        let route = |i: usize| format!("nats://127.0.0.1:{}", routes[i]);
        std::fs::write(
            &conf,
            format!(
                "server_name: n{n}\nlisten: 127.0.0.1:{}\njetstream {{ store_dir: {:?} }}\ncluster {{\n  name: c\n  listen: 127.0.0.1:{}\n  routes: [{}, {}, {}]\n}}\n",
                client[n],
                dir.path().join("store"),
                routes[n],
                route(0),
                route(1),
                route(2)
            ),
        )
        .expect("a config");
        let child =
            std::process::Command::new(felt_testkit::nats_server_binary().expect("nats-server"))
                .arg("-c")
                .arg(&conf)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("start nats-server");
        Node { child, _dir: dir }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A service started while its cluster cannot elect a JetStream leader
/// (one node of three up): connecting waits for JetStream to answer
/// instead of failing at its first request's timeout, and goes on once
/// the others are up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_connecting_before_its_cluster_has_a_leader_waits_for_jetstream() {
    let client = [free_port(), free_port(), free_port()];
    let routes = [free_port(), free_port(), free_port()];
    let _first = Node::start(0, &client, &routes);
    let url = format!("nats://127.0.0.1:{}", client[0]);
    let connecting =
        tokio::spawn(async move { NatsLog::connect(&url, &NatsSettings::default()).await });
    // Longer than a JetStream request waits for its answer (5 s).
    tokio::time::sleep(Duration::from_secs(8)).await;
    assert!(!connecting.is_finished(), "{:?}", connecting.await);
    let _second = Node::start(1, &client, &routes);
    let _third = Node::start(2, &client, &routes);
    let log = tokio::time::timeout(Duration::from_secs(60), connecting)
        .await
        .expect("connected within a minute")
        .expect("the task")
        .expect("connected once the cluster has a leader");
    let s = stream("table", "early");
    log.append(&s, Expected::NoStream, decision("first", 1, 2))
        .await
        .expect("append");
    assert_eq!(log.read(&s, 1).await.map(|e| e.len()), Ok(2));
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

/// The next decision a subscription gives, within `secs` seconds.
async fn next_within(sub: &mut felt_eventlog::Subscription, secs: u64) -> felt_eventlog::Committed {
    tokio::time::timeout(Duration::from_secs(secs), sub.next())
        .await
        .expect("the subscription gives the next decision in time")
        .expect("the subscription goes on")
        .expect("a decision")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscription_open_across_server_restarts_goes_on_without_gap_or_repeat() {
    let mut server = NatsServer::start().expect("start nats-server");
    let log = connect(&server).await;
    let s = stream("table", "f4");
    let mut positions = Vec::new();
    let mut version = 0;
    let mut append = async |log: &NatsLog, name: String| {
        let a = tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                match log
                    .append(&s, Expected::Exactly(version), decision(&name, version, 1))
                    .await
                {
                    Ok(a) => return a,
                    Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
                }
            }
        })
        .await
        .expect("the append is answered");
        version = a.last;
        a.position
    };
    for i in 0..5 {
        positions.push(append(&log, format!("a{i}")).await);
    }
    // One subscription has read two decisions; the other subscribed after
    // the fourth and has read nothing yet when the server goes down.
    let mut reading = log
        .subscribe(felt_eventlog::Filter::all(), 0)
        .await
        .expect("subscribe");
    for p in &positions[..2] {
        assert_eq!(next_within(&mut reading, 10).await.position, *p);
    }
    let mut waiting = log
        .subscribe(felt_eventlog::Filter::all(), positions[4])
        .await
        .expect("subscribe");
    server.restart().expect("restart");
    for i in 5..8 {
        positions.push(append(&log, format!("b{i}")).await);
    }
    // Each goes on from where it was: every decision once, in order.
    for p in &positions[2..] {
        assert_eq!(next_within(&mut reading, 30).await.position, *p);
    }
    for p in &positions[5..] {
        assert_eq!(next_within(&mut waiting, 30).await.position, *p);
    }
    // And again, with the server killed while both wait.
    server.restart().expect("restart");
    let last = append(&log, "c".into()).await;
    assert_eq!(next_within(&mut reading, 30).await.position, last);
    assert_eq!(next_within(&mut waiting, 30).await.position, last);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscription_whose_consumer_the_server_dropped_starts_another_and_goes_on() {
    let server = NatsServer::start().expect("start nats-server");
    let log = connect(&server).await;
    let s = stream("table", "f5");
    let first = log
        .append(&s, Expected::NoStream, decision("one", 0, 1))
        .await
        .expect("append");
    let mut sub = log
        .subscribe(felt_eventlog::Filter::all(), 0)
        .await
        .expect("subscribe");
    assert_eq!(next_within(&mut sub, 10).await.position, first.position);
    // Someone deletes every consumer of the stream (an operator, or the
    // server losing them): no message and no heartbeat comes any more.
    let client = async_nats::connect(server.url()).await.expect("connect");
    let js = async_nats::jetstream::new(client);
    let stream = js.get_stream("FELT").await.expect("the stream");
    let names: Vec<String> = futures::TryStreamExt::try_collect(stream.consumer_names())
        .await
        .expect("consumer names");
    assert!(!names.is_empty(), "the subscription has a consumer");
    for name in names {
        stream.delete_consumer(&name).await.expect("delete");
    }
    let second = log
        .append(&s, Expected::Exactly(1), decision("two", 1, 1))
        .await
        .expect("append");
    // Two heartbeats' silence later it has a new consumer, from after the
    // last decision it gave.
    let c = next_within(&mut sub, 40).await;
    assert_eq!(c.position, second.position);
    assert_eq!(c.envelopes[0].command_id, "two");
}
