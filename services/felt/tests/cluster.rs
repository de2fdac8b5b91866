//! Fault tests on a real cluster: `deploy/local/cluster` starts three
//! nats-server nodes (R3 stream, `sync_interval: always`) and every felt
//! service as its own process, two replicas of the table service among
//! them. `felt sim` plays 300 entrants (with late entries and re-entries)
//! to a winner against those services, half the tables through each table
//! replica, while each service in turn is killed with -9 and started again
//! and one NATS node is killed and brought back. The tournament finishes
//! with every entry placed once, the audit passes (every chip, every hash
//! chain, every pot), and a partner following seating's stream across the
//! restarts gets every event once, in order.

use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use felt_proto::v1 as pb;
use felt_proto::v1::seating_service_client::SeatingServiceClient;

mod common;
use common::{channel, check_results, with};

const TOKENS: &str = "director=boss,floor=floor,partner=tv";

/// The local cluster of `deploy/local/cluster` on a free block of ports.
struct Cluster {
    dir: tempfile::TempDir,
    base: u16,
}

impl Cluster {
    fn start() -> Cluster {
        let offsets = [1, 2, 3, 11, 12, 13, 21, 22, 23, 70, 71, 72, 73, 74, 80];
        let base = common::free_block(&offsets);
        let cluster = Cluster {
            dir: tempfile::tempdir().expect("a folder"),
            base,
        };
        cluster.run(&["start"]);
        cluster
    }

    fn run(&self, args: &[&str]) {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../deploy/local/cluster");
        let mut command = Command::new(script);
        command
            .arg(args[0])
            .arg(self.dir.path())
            .args(&args[1..])
            .env("FELT_BIN", env!("CARGO_BIN_EXE_felt"))
            .env("FELT_CLUSTER_PORT", self.base.to_string())
            .env("FELT_TOKENS", TOKENS)
            .env("RUST_BACKTRACE", "0");
        let nats = felt_testkit::nats_server_binary().expect("nats-server");
        command.env("NATS_SERVER", nats);
        let out = tokio::task::block_in_place(|| command.output()).expect("run the cluster script");
        assert!(
            out.status.success(),
            "deploy/local/cluster {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn addr(&self, offset: u16) -> String {
        format!("127.0.0.1:{}", self.base + offset)
    }

    fn nats(&self) -> String {
        (1..=3)
            .map(|n| format!("nats://127.0.0.1:{}", self.base + n))
            .collect::<Vec<_>>()
            .join(",")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // What each process said last, to see why.
            let logs = self.dir.path().join("logs");
            for entry in std::fs::read_dir(&logs).into_iter().flatten().flatten() {
                let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
                let lines: Vec<&str> = text.lines().collect();
                eprintln!("== {}", entry.path().display());
                for line in &lines[lines.len().saturating_sub(12)..] {
                    eprintln!("{line}");
                }
            }
        }
        self.run(&["stop"]);
        if std::thread::panicking() {
            // The stopped cluster's data and logs stay, to look into.
            let dir = std::mem::replace(&mut self.dir, tempfile::tempdir().expect("a folder"));
            eprintln!("the cluster's data is kept in {}", dir.keep().display());
        }
    }
}

const T: &str = "cluster";

/// Follows seating's stream as a partner would, resuming after the last
/// event it got whenever the stream breaks; returns (sequence, type) of
/// every event it got, once the tournament is over.
async fn follow_seating(
    seating: SeatingServiceClient<tonic::transport::Channel>,
    got: Arc<Mutex<Vec<(u64, String)>>>,
) {
    let mut after = 0;
    loop {
        let mut client = seating.clone();
        let stream = client
            .watch_seating(with(
                pb::WatchSeatingRequest {
                    tournament_id: T.into(),
                    after_version: after,
                },
                "tv",
            ))
            .await;
        if let Ok(response) = stream {
            let mut stream = response.into_inner();
            while let Ok(Some(item)) = stream.message().await {
                let mut got = got.lock().unwrap();
                for e in item.events {
                    after = e.sequence;
                    got.push((e.sequence, e.r#type));
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// `felt sim` as its own process, killed if the test ends first.
struct Sim {
    child: Child,
    out: std::path::PathBuf,
}

impl Sim {
    /// What it printed (its standard output and error).
    fn said(&self) -> String {
        let read =
            |ext: &str| std::fs::read_to_string(self.out.with_extension(ext)).unwrap_or_default();
        format!("{}{}", read("out"), read("err"))
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `felt sim` against the cluster's services: a level or break lasts five
/// seconds, a dealer rests 150 ms after each hand.
fn sim(cluster: &Cluster, entrants: u32) -> Sim {
    let url = |offset| format!("http://{}", cluster.addr(offset));
    let out = cluster.dir.path().join("sim");
    let file = |ext: &str| std::fs::File::create(out.with_extension(ext)).expect("a log file");
    let child = Command::new(env!("CARGO_BIN_EXE_felt"))
        .args(["sim", "--quiet", "--seed", "7", "--tournament", T])
        .args(["--entrants", &entrants.to_string()])
        .args(["--seating", &url(71)])
        .args(["--table", &format!("{},{}", url(70), url(74))])
        .args(["--clock", &url(72), "--payout", &url(73), "--token", "boss"])
        .args(["--level-seconds", "5", "--pace-ms", "150"])
        .env("RUST_BACKTRACE", "0")
        .stdout(Stdio::from(file("out")))
        .stderr(Stdio::from(file("err")))
        .spawn()
        .expect("start felt sim");
    Sim { child, out }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_loses_each_service_and_a_nats_node_while_felt_sim_plays_and_the_tournament_finishes_exactly()
 {
    let cluster = Cluster::start();
    let seating = SeatingServiceClient::new(channel(&cluster.addr(71)));
    let mut sim = sim(&cluster, 300);
    // The standings as a partner reads them: asked again while the answer
    // is UNAVAILABLE (a NATS node or the service itself away in the middle
    // of a fault: the call says a retry can help), for up to 30 s.
    let standings = |mut seating: SeatingServiceClient<tonic::transport::Channel>| async move {
        let mut tries = 0;
        loop {
            let answer = seating
                .get_standings(with(
                    pb::GetStandingsRequest {
                        tournament_id: T.into(),
                    },
                    "tv",
                ))
                .await
                .map(tonic::Response::into_inner);
            match answer {
                Err(status) if status.code() == tonic::Code::Unavailable && tries < 150 => {
                    tries += 1;
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                other => return other,
            }
        }
    };
    // Play has begun once the sim has seated its presales.
    let started = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            if let Ok(s) = standings(seating.clone()).await
                && s.tables > 0
            {
                return s;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("felt sim started no tournament: {}", sim.said()));
    assert_eq!((started.players_left, started.tables), (270, 30));

    let got = Arc::new(Mutex::new(Vec::new()));
    let follower = tokio::spawn(follow_seating(seating.clone(), got.clone()));

    // Faults, one at a time while the tables play: every service killed
    // with -9 and started again, and a NATS node away for two of them.
    let faults = [
        ("restart", "table"),
        ("restart", "seating"),
        ("restart", "clock"),
        ("restart", "payout"),
        ("kill", "nats-2"),
        ("restart", "table-2"),
        ("start", "nats-2"),
        ("restart", "display"),
    ];
    let mut done = Vec::new();
    for (what, who) in faults {
        tokio::time::sleep(Duration::from_millis(700)).await;
        let left = standings(seating.clone())
            .await
            .expect("standings")
            .players_left;
        assert!(
            left > 1 && sim.child.try_wait().expect("the sim").is_none(),
            "the tournament ended before {what} {who}: {done:?}; {}",
            sim.said()
        );
        cluster.run(&[what, who]);
        done.push(format!("{what} {who} at {left} left"));
    }

    // The sim plays on to the winner and waits for payout to place every
    // entry; it fails on any refusal or on a service away for two minutes.
    let status = tokio::time::timeout(Duration::from_secs(300), async {
        loop {
            if let Some(status) = sim.child.try_wait().expect("the sim") {
                return status;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("felt sim did not finish in five minutes: {}", sim.said()));
    let said = sim.said();
    assert!(status.success(), "felt sim failed: {said}");
    let line = said
        .lines()
        .find(|l| l.starts_with("prizes paid "))
        .unwrap_or_else(|| panic!("no prizes line: {said}"));
    let (paid, pool) = line["prizes paid ".len()..]
        .split_once(" of the pool ")
        .expect("paid of the pool");
    assert_eq!(paid, pool, "{said}");
    // The faults fell during play: calls met a service away and were sent
    // again with their command ids.
    let resent: u64 = said
        .lines()
        .find_map(|l| {
            l.split("; ")
                .nth(1)?
                .strip_suffix(" calls sent again while their service was away")
        })
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count of calls sent again: {said}"));
    assert!(resent > 0, "no call met a fault: {said}");

    let entries = standings(seating.clone()).await.expect("standings").entries;
    // Every late entry came in (re-entries are a matter of chance: a
    // busted player re-enters three times in ten during late
    // registration), and the sim counted what seating holds.
    let counted: u32 = said
        .lines()
        .find_map(|l| l.split_once(" entries (")?.0.parse().ok())
        .unwrap_or_else(|| panic!("no count of entries: {said}"));
    assert!(entries >= 300, "every late entry came in: {entries}");
    assert_eq!(counted, entries, "{said}");
    let results = common::results(&channel(&cluster.addr(73)), T, "tv").await;
    check_results(&results.results, entries, u64::from(entries) * 10_000);

    // The partner that followed seating across its restart got what a
    // fresh reader of the whole stream gets: every event once, in order.
    let whole = tokio::time::timeout(Duration::from_secs(30), async {
        let mut stream = seating
            .clone()
            .watch_seating(with(
                pb::WatchSeatingRequest {
                    tournament_id: T.into(),
                    after_version: 0,
                },
                "tv",
            ))
            .await
            .expect("watch")
            .into_inner();
        let mut all: Vec<(u64, String)> = Vec::new();
        let end = got.lock().unwrap().last().map(|e| e.0).unwrap_or(0);
        while all.last().map(|e| e.0).unwrap_or(0) < end {
            let item = stream.message().await.expect("events").expect("more");
            for e in item.events {
                assert!(e.kind.is_some(), "a typed event: {e:?}");
                all.push((e.sequence, e.r#type));
            }
        }
        all
    })
    .await
    .expect("seating's stream read whole");
    follower.abort();
    let got = got.lock().unwrap().clone();
    assert!(got.len() > 1_000, "{} events followed", got.len());
    assert_eq!(got.len(), whole.len());
    assert!(
        got == whole,
        "the partner's events differ from the stream's"
    );
    assert!(
        got.windows(2).all(|w| w[1].0 == w[0].0 + 1),
        "no gap and no repeat"
    );
    println!("{said}faults: {}", done.join(", "));

    // The audit passes on the cluster: nothing acknowledged lost, nothing
    // applied twice.
    common::audit_passes(&["--nats", &cluster.nats(), "--tournament", T]);
}
