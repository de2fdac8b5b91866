//! `felt-bench` run as a real process: its figures come from real work.

use std::path::PathBuf;
use std::process::Command;

use felt_cards::sample::random_hands;
use felt_cards::{Hand, Seed};

fn run(bin: &std::path::Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(bin)
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", bin.display()));
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn bench(args: &[&str]) -> (bool, String, String) {
    run(std::path::Path::new(env!("CARGO_BIN_EXE_felt-bench")), args)
}

/// The `felt` binary beside this one (the same build profile), built
/// first when this package's tests run alone.
fn felt_binary() -> PathBuf {
    let bench = PathBuf::from(env!("CARGO_BIN_EXE_felt-bench"));
    let felt = bench.with_file_name(format!("felt{}", std::env::consts::EXE_SUFFIX));
    if !felt.is_file() {
        let dir = bench
            .parent()
            .and_then(|d| d.file_name())
            .and_then(|d| d.to_str())
            .expect("a profile folder");
        let profile = if dir == "debug" { "dev" } else { dir };
        let status = Command::new(env!("CARGO"))
            .args(["build", "-p", "felt", "--bin", "felt", "--profile", profile])
            .status()
            .expect("cargo build felt");
        assert!(status.success(), "could not build felt");
    }
    felt
}

#[test]
fn help_lists_the_benchmarks() {
    let (ok, stdout, _) = bench(&["--help"]);
    assert!(ok);
    for what in ["eval", "hands", "log", "replay", "registrations", "table"] {
        assert!(stdout.contains(what), "{stdout}");
    }
}

#[test]
fn eval_reports_speed_and_a_checksum_of_real_work() {
    let (ok, stdout, stderr) = bench(&[
        "eval",
        "--hands",
        "5000",
        "--rounds",
        "2",
        "--seed",
        "9",
        "--no-sequential",
    ]);
    assert!(ok, "{stderr}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("random:"))
        .unwrap_or_else(|| panic!("no random line in {stdout}"));
    assert!(line.contains("M evaluations/s"), "{line}");
    // The checksum is the sum of the strengths of the same seeded hands.
    let expected: u64 = random_hands(5000, Seed::from_u64(9))
        .iter()
        .map(|h| u64::from(Hand::from_cards(h).unwrap().rank().0))
        .sum();
    assert!(line.contains(&format!("checksum {expected})")), "{line}");
}

#[test]
fn bad_arguments_are_refused_with_a_reason() {
    let (ok, _, stderr) = bench(&["eval", "--hands", "0"]);
    assert!(!ok);
    assert!(
        stderr.contains("--hands and --rounds must be positive"),
        "{stderr}"
    );
    let (ok, _, stderr) = bench(&["nothing"]);
    assert!(!ok);
    assert!(stderr.contains("nothing"), "{stderr}");
}

#[test]
fn replay_loads_each_sims_tables_in_one_pass() {
    let nats = felt_testkit::NatsServer::start().expect("nats-server");
    let url = nats.url();
    let felt = felt_binary();
    let mut tournaments = Vec::new();
    for (entrants, id) in [("200", "on-nats"), ("120", "again")] {
        let (ok, stdout, stderr) = run(
            &felt,
            &[
                "sim",
                "--entrants",
                entrants,
                "--seed",
                "5",
                "--quiet",
                "--tournament",
                id,
                "--nats",
                &url,
            ],
        );
        assert!(ok, "felt sim failed:\n{stdout}\n{stderr}");
        assert!(stdout.contains("winner: Player"), "{stdout}");
        tournaments.push(id);
    }
    // A table service started cold loads each tournament's tables in one
    // pass (the bench checks it loads every table stream the replay saw).
    let (ok, out, stderr) = bench(&["replay", "--nats", &url, "--runs", "1", "--reads"]);
    assert!(ok, "{out}{stderr}");
    for t in tournaments {
        assert!(
            out.lines()
                .any(|l| l.starts_with(&format!("load: {t}'s "))
                    && l.contains(" tables in one pass")),
            "{out}"
        );
    }
}
