//! The embedded log across a crash: a child process appends and reports
//! each acknowledgement, and is killed (SIGKILL) mid-stream; every decision
//! it was told is stored is there when the file is opened again.
//!
//! The child is this test binary run again with `FELT_CRASH_CHILD` set.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use felt_eventlog::conformance::{decision, stream};
use felt_eventlog::{EmbeddedLog, EventLog, Expected, verify_chain};

const CHILD: &str = "FELT_CRASH_CHILD";

/// In the child: append to eight streams from eight tasks until killed,
/// printing "stream version" after every acknowledgement.
fn child(path: &str) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let log = std::sync::Arc::new(EmbeddedLog::open(std::path::Path::new(path)).unwrap());
        let out = std::sync::Arc::new(std::sync::Mutex::new(std::io::stdout()));
        let mut tasks = Vec::new();
        for s in 0..8u64 {
            let log = log.clone();
            let out = out.clone();
            tasks.push(tokio::spawn(async move {
                let id = stream("table", &format!("c{s}"));
                let mut version = 0;
                for i in 0.. {
                    let a = log
                        .append(
                            &id,
                            Expected::Exactly(version),
                            decision(&format!("{s}-{i}"), i, 2),
                        )
                        .await
                        .unwrap();
                    version = a.last;
                    let mut out = out.lock().unwrap();
                    writeln!(out, "{s} {version}").unwrap();
                    out.flush().unwrap();
                }
            }));
        }
        for t in tasks {
            let _ = t.await;
        }
    });
}

#[test]
fn every_acknowledged_decision_survives_a_kill_9() {
    if let Ok(path) = std::env::var(CHILD) {
        child(&path);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.redb");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "every_acknowledged_decision_survives_a_kill_9",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, &path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut acknowledged = [0u64; 8];
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = 0;
    while seen < 3000 {
        let Some(Ok(line)) = lines.next() else { break };
        let mut parts = line.split_whitespace();
        if let (Some(s), Some(v)) = (parts.next(), parts.next())
            && let (Ok(s), Ok(v)) = (s.parse::<usize>(), v.parse::<u64>())
        {
            acknowledged[s] = acknowledged[s].max(v);
            seen += 1;
        }
    }
    assert_eq!(seen, 3000, "the child acknowledged appends");
    child.kill().unwrap();
    child.wait().unwrap();
    // Acknowledgements printed after the last line read are not counted;
    // everything counted must be there.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let log = EmbeddedLog::open(&path).unwrap();
    runtime.block_on(async {
        for (s, &acked) in acknowledged.iter().enumerate() {
            let id = stream("table", &format!("c{s}"));
            let events = log.read(&id, 1).await.unwrap();
            assert!(
                events.len() as u64 >= acked,
                "stream {s}: {} events stored, {acked} acknowledged",
                events.len()
            );
            assert_eq!(verify_chain(&events), Ok(()));
            // And it goes on from where it is.
            let version = log.version(&id).await.unwrap();
            let next = log
                .append(&id, Expected::Exactly(version), decision("after", 0, 1))
                .await
                .unwrap();
            assert_eq!(next.first, version + 1);
        }
    });
}
