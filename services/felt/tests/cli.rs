//! The `felt` command run as a real process.

use std::process::Command;

use felt_cards::sample::random_hands;
use felt_cards::{Hand, Seed};

fn felt(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_felt"))
        .args(args)
        .output()
        .expect("run felt");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn help_lists_the_commands() {
    let (ok, stdout, _) = felt(&["--help"]);
    assert!(ok);
    assert!(stdout.contains("bench"), "{stdout}");
    let (ok, stdout, _) = felt(&["bench", "--help"]);
    assert!(ok);
    assert!(stdout.contains("eval"), "{stdout}");
}

#[test]
fn bench_eval_reports_speed_and_a_checksum_of_real_work() {
    let (ok, stdout, stderr) = felt(&[
        "bench",
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
    let (ok, _, stderr) = felt(&["bench", "eval", "--hands", "0"]);
    assert!(!ok);
    assert!(
        stderr.contains("--hands and --rounds must be positive"),
        "{stderr}"
    );
    let (ok, _, stderr) = felt(&["bench", "nothing"]);
    assert!(!ok);
    assert!(stderr.contains("nothing"), "{stderr}");
}
