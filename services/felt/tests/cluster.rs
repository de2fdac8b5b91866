//! Fault tests on a real cluster: `deploy/local/cluster` starts three
//! nats-server nodes (R3 stream, `sync_interval: always`) and every felt
//! service as its own process, two replicas of the table service among
//! them. Dealers play 300 entrants to a winner over gRPC, half the tables
//! through each table replica, while each service in turn is killed with
//! -9 and started again and one NATS node is killed and brought back. The
//! tournament finishes with every entry placed once, the audit passes
//! (every chip, every hash chain, every pot), and a partner following
//! seating's stream across the restarts gets every event once, in order.

use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use felt_proto::v1 as pb;
use felt_proto::v1::payout_service_client::PayoutServiceClient;
use felt_proto::v1::seating_service_client::SeatingServiceClient;

mod common;
use common::{channel, check_results, open_tournament, with};

const TOKENS: &str = "director=boss,floor=floor,partner=tv";

/// The local cluster of `deploy/local/cluster` on a free block of ports.
struct Cluster {
    dir: tempfile::TempDir,
    base: u16,
}

fn free(port: u16) -> bool {
    std::net::TcpListener::bind(("127.0.0.1", port)).is_ok()
}

impl Cluster {
    fn start() -> Cluster {
        let offsets = [1, 2, 3, 11, 12, 13, 21, 22, 23, 70, 71, 72, 73, 74, 80];
        let base = (0..200)
            .map(|i| {
                let seed = std::process::id() as u64 * 7919 + i * 104_729;
                20_000 + (seed % 400) as u16 * 100
            })
            .find(|base| offsets.iter().all(|o| free(base + o)))
            .expect("a free block of ports");
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
    }
}

const T: &str = "cluster";

/// `felt audit verify` of a tournament on the cluster passes.
fn audit_passes(nats: &str, tournament: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_felt"))
        .args([
            "audit",
            "verify",
            "--nats",
            nats,
            "--tournament",
            tournament,
        ])
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run felt audit");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains(" 0 failed"),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_loses_each_service_and_a_nats_node_and_the_tournament_finishes_exactly() {
    let cluster = Cluster::start();
    let (table, table_2, seating_addr, payout_addr) = (
        cluster.addr(70),
        cluster.addr(74),
        cluster.addr(71),
        cluster.addr(73),
    );
    let seating_channel = channel(&seating_addr);
    let mut seating = SeatingServiceClient::new(seating_channel.clone());
    let started = open_tournament(&mut seating, T, "Cluster Cup", "", 300, "boss").await;
    assert_eq!((started.players, started.tables), (300, 34));

    let got = Arc::new(Mutex::new(Vec::new()));
    let follower = tokio::spawn(follow_seating(seating.clone(), got.clone()));

    // A dealer per table; odd tables play through one table replica, even
    // ones through the other, while seating moves players through the
    // first: two replicas write the same tables' streams.
    let mut dealers = Vec::new();
    for t in 1..=started.tables {
        let tables = channel(if t % 2 == 0 { &table_2 } else { &table });
        let s = seating_channel.clone();
        dealers.push(tokio::spawn(async move {
            common::deal_table_paced(s, tables, T, t, "floor", Duration::from_millis(500)).await
        }));
    }

    // Faults, one at a time while the tables play (each hand rests 500 ms,
    // as a live table does): every service killed with -9 and started
    // again, and a NATS node away for two of them.
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
        let left = seating
            .get_standings(with(
                pb::GetStandingsRequest {
                    tournament_id: T.into(),
                },
                "tv",
            ))
            .await
            .expect("standings")
            .into_inner()
            .players_left;
        assert!(
            left > 1,
            "the tournament ended before {what} {who}: {done:?}"
        );
        cluster.run(&[what, who]);
        done.push(format!("{what} {who} at {left} left"));
    }

    let mut hands = 0;
    let all = async {
        for d in dealers {
            hands += d.await.expect("a dealer");
        }
    };
    tokio::time::timeout(Duration::from_secs(300), all)
        .await
        .expect("the tournament finished within five minutes");

    let mut payout = PayoutServiceClient::new(channel(&payout_addr));
    let results = tokio::time::timeout(Duration::from_secs(180), async {
        loop {
            if let Ok(r) = payout
                .get_results(with(
                    pb::GetResultsRequest {
                        tournament_id: T.into(),
                    },
                    "tv",
                ))
                .await
            {
                let r = r.into_inner();
                if r.results.len() == 300 {
                    return r;
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("every entry placed");
    check_results(&results.results, 300, 300 * 10_000);

    // The partner that followed seating across its restart got what a
    // fresh reader of the whole stream gets: every event once, in order.
    let whole = tokio::time::timeout(Duration::from_secs(30), async {
        let mut stream = seating
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
            all.extend(item.events.into_iter().map(|e| (e.sequence, e.r#type)));
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
    println!("{hands} hands; faults: {}", done.join(", "));

    // The audit passes on the cluster: nothing acknowledged lost, nothing
    // applied twice.
    audit_passes(&cluster.nats(), T);
}
