//! The `felt` command run as a real process.

use std::process::Command;

use felt_cards::Seed;

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
    for what in ["audit", "sim", "up", "serve", "payout", "phh", "health"] {
        assert!(stdout.contains(what), "{stdout}");
    }
    let (ok, stdout, _) = felt(&["audit", "--help"]);
    assert!(ok);
    assert!(stdout.contains("verify"), "{stdout}");
}

#[test]
fn unknown_commands_are_refused_with_a_reason() {
    let (ok, _, stderr) = felt(&["nothing"]);
    assert!(!ok);
    assert!(stderr.contains("nothing"), "{stderr}");
}

fn shared_phh() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/phh")
}

#[test]
fn phh_verify_closes_with_the_counts() {
    let wsop = shared_phh().join("wsop");
    let (ok, stdout, stderr) = felt(&["phh", "verify", wsop.to_str().unwrap()]);
    assert!(ok, "{stdout}{stderr}");
    assert_eq!(stdout.lines().last(), Some("11 passed, 0 failed"));
}

#[test]
fn phh_verify_names_a_mismatch_and_fails() {
    let text = std::fs::read_to_string(shared_phh().join("dwan-ivey-2009.phh")).unwrap();
    let dir = std::env::temp_dir().join(format!("felt-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("tampered.phh");
    std::fs::write(&bad, text.replace("1109500]", "1109400]")).unwrap();
    let (ok, stdout, _) = felt(&["phh", "verify", bad.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(!ok);
    assert!(
        stdout.contains("tampered.phh: p3 finished with 1109500, the file says 1109400"),
        "{stdout}"
    );
    assert_eq!(stdout.lines().last(), Some("0 passed, 1 failed"));
}

/// Given: a table's log with one finished hand in an embedded log under `data`.
fn table_log(data: &std::path::Path) {
    use felt_eventlog::{EmbeddedLog, Expected};
    use felt_table::*;
    std::fs::create_dir_all(data).unwrap();
    let log = EmbeddedLog::open(&data.join("log.redb")).unwrap();
    let stream = felt_tablelog::stream("main-event", 12).unwrap();
    let mut state = TableState::default();
    let mut commands = vec![Command::OpenTable {
        seats: 2,
        rules: HouseRules::default(),
    }];
    for seat in 1..=2 {
        commands.push(Command::SeatPlayer {
            seat,
            player: EntryId(seat.into()),
            stack: 500,
            carried: Default::default(),
        });
    }
    commands.push(Command::StartHand {
        level: Level::blinds(25, 50),
        deal: Deal::Digital {
            seed: Seed::from_u64(5),
        },
        button: Some(1),
    });
    commands.push(Command::Act {
        seat: 1,
        action: PlayerAction::AllIn,
    });
    commands.push(Command::Act {
        seat: 2,
        action: PlayerAction::Call,
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    for (i, c) in commands.iter().enumerate() {
        let events = execute(&mut state, c).unwrap();
        runtime
            .block_on(felt_tablelog::append(
                &log,
                &stream,
                Expected::Any,
                &format!("c{i}"),
                0,
                &events,
            ))
            .unwrap();
    }
    assert!(state.hand().is_none());
}

#[test]
fn phh_export_writes_a_hand_from_the_event_log_that_replays_to_its_stacks() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("felt-data");
    table_log(&data);
    let data_arg = data.to_str().unwrap();
    let (ok, phh, stderr) = felt(&[
        "phh",
        "export",
        "--data",
        data_arg,
        "--tournament",
        "main-event",
        "--table",
        "12",
    ]);
    assert!(ok, "{stderr}");
    assert!(phh.contains("starting_stacks = [500, 500]"), "{phh}");
    assert!(phh.contains("finishing_stacks = "), "{phh}");
    let file = dir.path().join("hand.phh");
    std::fs::write(&file, &phh).unwrap();
    let (ok, stdout, _) = felt(&[
        "phh",
        "verify",
        "--house-rules",
        "live",
        file.to_str().unwrap(),
    ]);
    assert!(ok, "{stdout}");
    assert_eq!(stdout.lines().last(), Some("1 passed, 0 failed"));
    // A hand that is not there, a table that is not there.
    let (ok, _, stderr) = felt(&[
        "phh",
        "export",
        "--data",
        data_arg,
        "--tournament",
        "main-event",
        "--table",
        "12",
        "--hand",
        "9",
    ]);
    assert!(!ok);
    assert!(
        stderr.contains("has no finished hand 9: its hands are [1]"),
        "{stderr}"
    );
    let (ok, _, stderr) = felt(&[
        "phh",
        "export",
        "--data",
        data_arg,
        "--tournament",
        "main-event",
        "--table",
        "13",
    ]);
    assert!(!ok);
    assert!(
        stderr.contains("table 13 of main-event has no events"),
        "{stderr}"
    );
}

#[test]
fn payout_prints_a_pay_sheet_and_a_deal() {
    let (ok, stdout, stderr) =
        felt(&["payout", "sheet", "--entries", "10000", "--buy-in", "10000"]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.starts_with("pool 100000000.00, 1500 places paid"),
        "{stdout}"
    );
    assert!(stdout.contains("1450-1500"), "{stdout}");
    // The CSV sums to the pool.
    let (ok, csv, _) = felt(&[
        "payout",
        "sheet",
        "--entries",
        "27",
        "--buy-in",
        "40",
        "--fee",
        "10",
        "--club",
        "--format",
        "csv",
    ]);
    assert!(ok);
    let total: f64 = csv
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let places = f[1].parse::<f64>().unwrap() - f[0].parse::<f64>().unwrap() + 1.0;
            places * f[2].parse::<f64>().unwrap()
        })
        .sum();
    assert!((total - 1080.0).abs() < 1e-6, "{csv}");
    let (ok, stdout, _) = felt(&[
        "payout",
        "deal",
        "--stacks",
        "100000,70000,50000,20000",
        "--prizes",
        "200,120,80,50",
        "--chop",
    ]);
    assert!(ok);
    assert!(
        stdout.contains("154.17") && stdout.contains("70.83"),
        "{stdout}"
    );
    let (ok, _, stderr) = felt(&[
        "payout",
        "sheet",
        "--entries",
        "61",
        "--buy-in",
        "40",
        "--club",
    ]);
    assert!(!ok);
    assert!(
        stderr.contains("the posted table covers fields up to 60 entries, not 61"),
        "{stderr}"
    );
}

/// `felt sim` with `args`, without a director token in the environment.
fn sim(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_felt"))
        .arg("sim")
        .args(args)
        .env_remove("FELT_DIRECTOR_TOKEN")
        .env_remove("FELT_NATS")
        .output()
        .expect("run felt sim");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_sim_against_running_services_needs_every_address_and_the_director_token() {
    let nowhere = "http://127.0.0.1:9";
    let every = [
        "--seating",
        nowhere,
        "--table",
        nowhere,
        "--clock",
        nowhere,
        "--payout",
        nowhere,
    ];
    let (ok, stderr) = sim(&every);
    assert!(!ok);
    assert!(stderr.contains("--token"), "{stderr}");
    assert!(stderr.contains("director token"), "{stderr}");
    let (ok, stderr) = sim(&every[..6]);
    assert!(!ok);
    assert!(stderr.contains("--payout"), "{stderr}");
    let (ok, stderr) = sim(&["--seating", nowhere, "--token", "t"]);
    assert!(!ok);
    assert!(stderr.contains("--table"), "{stderr}");
    // Shortened levels are for the real clock only; refused before any
    // folder or log is made.
    let data = tempfile::tempdir().expect("a folder");
    let folder = data.path().join("never");
    let (ok, stderr) = sim(&[
        "--level-seconds",
        "5",
        "--data",
        folder.to_str().expect("a path"),
    ]);
    assert!(!ok);
    assert!(stderr.contains("--level-seconds"), "{stderr}");
    assert!(!folder.exists());
}
