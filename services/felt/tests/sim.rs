//! The main job end to end: `felt sim` plays a tournament to a winner on
//! each log, and `felt audit verify` passes on what it wrote; a single
//! changed event makes the audit fail and name it.

use felt_seating::EntryId;
use std::path::Path;
use std::process::Command;

fn felt(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_felt"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run felt");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs a sim and returns its tournament id, checking the report.
fn sim(log: &[&str], entrants: &str, id: &str) -> String {
    let mut args = vec![
        "sim",
        "--entrants",
        entrants,
        "--seed",
        "5",
        "--quiet",
        "--tournament",
        id,
    ];
    args.extend_from_slice(log);
    let (ok, stdout, stderr) = felt(&args);
    assert!(ok, "felt sim failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("winner: Player"), "{stdout}");
    // The money adds up, and the report names the tournament.
    let pool = stdout
        .lines()
        .find_map(|l| l.strip_prefix("prizes paid "))
        .unwrap_or_else(|| panic!("no prizes line in {stdout}"));
    let (paid, pool) = pool.split_once(" of the pool ").expect("paid of the pool");
    assert_eq!(paid, pool);
    assert!(stdout.contains(&format!("tournament id: {id}")), "{stdout}");
    // Re-entries and late entries came in on top of the early field.
    let entries: u32 = stdout
        .lines()
        .find_map(|l| {
            l.split(" entries (")
                .next()
                .filter(|_| l.contains(" entries ("))
        })
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no entries line in {stdout}"));
    assert!(entries >= entrants.parse::<u32>().unwrap(), "{stdout}");
    id.to_string()
}

fn audit(log: &[&str]) -> (bool, String) {
    let mut args = vec!["audit", "verify"];
    args.extend_from_slice(log);
    let (ok, stdout, stderr) = felt(&args);
    (ok, format!("{stdout}{stderr}"))
}

#[test]
fn a_sim_on_the_embedded_log_passes_the_audit_and_a_changed_event_fails_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let t = sim(&["--data", data], "300", "emb");
    let (ok, out) = audit(&["--data", data]);
    assert!(ok, "{out}");
    assert!(out.contains(" 0 failed"), "{out}");
    let passed: u32 = out
        .rsplit(": ")
        .next()
        .and_then(|s| s.split(" passed").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no tally in {out}"));
    assert!(passed > 30, "{out}");
    // The structure's breaks colour up: the engine raced the odd chips off
    // at the tables that had some (TDA 24), and every chip is accounted.
    assert!(
        out.contains("colour-up of the") && out.contains("race dealt by the engine from its seed"),
        "{out}"
    );

    // One hand's recorded pot given to someone else: the audit names the
    // table's stream and the event whose hash no longer follows.
    let stream = felt_tablelog::stream(&t, 1).unwrap();
    let path = Path::new(data).join("log.redb");
    let changed = felt_eventlog::tamper(&path, &stream, 40, |env| {
        env.payload.push(0xc0);
    })
    .unwrap();
    assert!(changed, "table 1 has an event 40");
    let (ok, out) = audit(&["--data", data, "--tournament", &t]);
    assert!(!ok, "{out}");
    assert!(
        out.contains(&format!("FAILED {stream}: hash chain")),
        "{out}"
    );
    assert!(out.contains("event 41"), "{out}");
    assert!(out.contains(" 1 failed"), "{out}");
}

/// The events `felt audit verify` says it checked.
fn events_checked(out: &str) -> u64 {
    out.lines()
        .find_map(|l| l.split(" tournament(s), ").nth(1))
        .and_then(|l| l.split(" events").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count of events in {out}"))
}

#[test]
fn two_sims_on_nats_pass_the_audit_together_and_each_alone() {
    let nats = felt_testkit::NatsServer::start().expect("nats-server");
    let url = nats.url();
    let first = sim(&["--nats", &url], "200", "on-nats");
    let second = sim(&["--nats", &url], "120", "again");
    let (ok, out) = audit(&["--nats", &url]);
    assert!(ok, "{out}");
    assert!(
        out.contains("2 tournament(s)") && out.contains(" 0 failed"),
        "{out}"
    );
    // Each alone: its own events only, which add up to both.
    let mut alone = 0;
    for t in [&first, &second] {
        let (ok, one) = audit(&["--nats", &url, "--tournament", t]);
        assert!(ok, "{one}");
        assert!(
            one.contains("1 tournament(s)") && one.contains(" 0 failed"),
            "{one}"
        );
        alone += events_checked(&one);
    }
    assert_eq!(alone, events_checked(&out));
    // felt-bench replays this log and loads each tournament's tables in one
    // pass: services/felt-bench/tests/cli.rs.
}

/// `felt audit hand` on table 1 of the tournament "small" in `data`.
fn audit_hand(data: &str, hand: &str, extra: &[&str]) -> (bool, String, String) {
    audit_hand_of(data, "small", hand, extra)
}

/// `felt audit hand` on table 1 of tournament `t` in `data`.
fn audit_hand_of(data: &str, t: &str, hand: &str, extra: &[&str]) -> (bool, String, String) {
    audit_hand_at(data, t, "1", hand, extra)
}

/// `felt audit hand` on a table of tournament `t` in `data`.
fn audit_hand_at(
    data: &str,
    t: &str,
    table: &str,
    hand: &str,
    extra: &[&str],
) -> (bool, String, String) {
    let mut args = vec![
        "audit",
        "hand",
        "--data",
        data,
        "--tournament",
        t,
        "--table",
        table,
        "--hand",
        hand,
    ];
    args.extend_from_slice(extra);
    felt(&args)
}

/// A live room's deal: every table's dealer deals real cards from a deck
/// of the simulation's own, and enters through the table service what a
/// dealer's tablet would (the actions, each street's cards, the hands
/// tabled or mucked at showdown in the rules' order, or at even tables
/// each pot pushed to its winners without the cards entered). The tournament reaches its winner with the money
/// exact, the audit passes on what it wrote, and a hand's history shows
/// hole cards nobody knew until they were tabled.
#[test]
fn a_physical_deal_is_played_to_a_winner_by_dealers_entering_what_a_tablet_would() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    // The 25s leave at the break after level 2, while all five tables
    // play: some stack at some table surely holds an odd 25 then (a
    // small blind folded), so a race is due. (The turbo's first
    // colour-up comes near the final table, where every stack can
    // happen to be a multiple of the next chip, and no race is run.)
    let structure = dir.path().join("early-colour-up.toml");
    let level = |sb: u64, bb: u64| {
        format!(
            "[[periods]]\nkind = \"level\"\nsmall_blind = {sb}\nbig_blind = {bb}\nminutes = 15\n"
        )
    };
    let mut text = "name = \"Early colour-up\"\nstarting_stack = 20000\n".to_string();
    text += &level(25, 50);
    text += &level(50, 100);
    text += "[[periods]]\nkind = \"break\"\nminutes = 10\ncolor_up = 25\n";
    text += &level(100, 200).replace("minutes", "smallest_chip = 100\nminutes");
    for bb in [
        400, 600, 800, 1_000, 1_200, 1_600, 2_000, 3_000, 4_000, 6_000, 8_000,
    ] {
        text += &level(bb / 2, bb);
    }
    for bb in [10_000, 20_000, 40_000, 100_000, 200_000, 400_000] {
        text += &level(bb / 2, bb);
    }
    std::fs::write(&structure, text).unwrap();
    let structure = structure.to_str().unwrap();
    sim(
        &[
            "--data",
            data,
            "--deal",
            "physical",
            "--structure",
            structure,
        ],
        "40",
        "live",
    );
    let (ok, out) = audit(&["--data", data]);
    assert!(ok, "{out}");
    assert!(out.contains(" 0 failed"), "{out}");
    // At a break that coloured up, each table with odd chips waited for
    // its dealer to enter the race run with real cards (TDA 24).
    assert!(out.contains("race entered by the dealer"), "{out}");
    assert!(!out.contains("race dealt by the engine"), "{out}");
    // Table 1's first hands as PHH: dealt face down to everyone (no card
    // known to the service), boards entered, hands tabled with their cards.
    let hands: Vec<String> = (1..=30)
        .filter_map(|n| {
            let (ok, phh, _) = audit_hand_of(data, "live", &n.to_string(), &["--phh"]);
            ok.then_some(phh)
        })
        .collect();
    assert!(hands.len() >= 10, "{hands:?}");
    for phh in &hands {
        assert!(phh.contains("d dh p1 ????"), "{phh}");
    }
    assert!(
        hands.iter().any(|h| h.contains("d db ")),
        "no board: {hands:?}"
    );
    assert!(
        hands.iter().any(|h| h.contains(" sm ")),
        "no showdown: {hands:?}"
    );
    // Table 2's dealer reads the hands without entering them and pushes
    // each pot to its winners.
    let pushed = (1..=60)
        .filter_map(|n| {
            let (ok, hand, _) = audit_hand_at(data, "live", "2", &n.to_string(), &[]);
            ok.then_some(hand)
        })
        .filter(|h| h.contains("no winning hand entered: pushed by the dealer"))
        .count();
    assert!(pushed > 0, "no pot pushed at table 2");
}

#[test]
fn audit_hand_reads_a_hand_as_the_floor_does() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    sim(&["--data", data], "20", "small");
    let (ok, stdout, stderr) = audit_hand(data, "1", &[]);
    assert!(ok, "{stderr}");
    assert!(stdout.starts_with("hand 1: blinds 100/200"), "{stdout}");
    assert!(stdout.contains("to act"), "{stdout}");
    assert!(stdout.contains("main pot of"), "{stdout}");
    assert!(stdout.contains("hand over — stacks:"), "{stdout}");
    let (ok, phh, _) = audit_hand(data, "1", &["--phh"]);
    assert!(ok);
    assert!(phh.contains("variant = 'NT'"), "{phh}");
    let (ok, _, stderr) = audit_hand(data, "99999", &[]);
    assert!(!ok);
    assert!(stderr.contains("has no finished hand 99999"), "{stderr}");
}

/// No request carries a seed, yet `felt sim` plays the same again from
/// `--seed`: it hands the services in its process a seed source of its
/// own. The seat draw and table 1's first hand (dealt before any late
/// entry at 20 entrants) come out card for card the same in two runs.
#[test]
fn a_sim_plays_the_same_seats_and_cards_again_from_its_seed() {
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    let mut hands = Vec::new();
    for dir in [&first, &second] {
        let data = dir.path().to_str().unwrap();
        sim(&["--data", data], "20", "small");
        let (ok, phh, stderr) = audit_hand(data, "1", &["--phh"]);
        assert!(ok, "{stderr}");
        hands.push(phh);
    }
    assert!(hands[0].contains("d dh p1 "), "{}", hands[0]);
    assert_eq!(hands[0], hands[1]);
}

#[test]
fn a_progressive_knockout_pays_every_bounty_to_the_players_who_won_the_chips() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let (ok, stdout, stderr) = felt(&[
        "sim",
        "--entrants",
        "120",
        "--seed",
        "8",
        "--quiet",
        "--tournament",
        "pko",
        "--data",
        data,
        "--bounty",
        "50",
        "--progressive",
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("bounties paid "))
        .unwrap_or_else(|| panic!("no bounty line in {stdout}"));
    let (paid, bought) = line.split_once(" of ").unwrap();
    assert_eq!(paid, bought);
    assert_ne!(paid, "0.00");
    let (ok, out) = audit(&["--data", data]);
    assert!(ok && out.contains(" 0 failed"), "{out}");
    // The results export: every entry once, prizes and bounties adding up.
    let (ok, csv, stderr) = felt(&[
        "payout",
        "results",
        "--tournament",
        "pko",
        "--data",
        data,
        "--format",
        "csv",
    ]);
    assert!(ok, "{stderr}");
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows[0][..2], ["1", "1"], "{csv}");
    let cents = |s: &str| -> u64 { s.replace('.', "").parse().unwrap() };
    let prizes: u64 = rows.iter().map(|r| cents(r[5])).sum();
    let bounties: u64 = rows.iter().map(|r| cents(r[6])).sum();
    let pool = stdout
        .lines()
        .find_map(|l| l.strip_prefix("prizes paid "))
        .unwrap();
    assert_eq!(prizes, cents(pool.split(' ').next().unwrap()));
    assert_eq!(bounties, cents(paid));
    let entries: usize = stdout
        .lines()
        .find_map(|l| {
            l.split(" entries (")
                .next()
                .filter(|_| l.contains(" entries ("))
        })
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert_eq!(rows.len(), entries);
}

/// A log altered by hand so that its counts no longer add up (busts a
/// writer slipped into seating's stream, properly chained, for more
/// entries than the field): `felt audit verify` reports failed checks and
/// exits with its failure code, never a crash.
#[test]
fn an_audit_of_a_log_whose_counts_no_longer_add_up_fails_without_crashing() {
    use felt_eventlog::{Decision, EmbeddedLog, EventLog, Expected, NewEvent};
    use felt_seating::SeatingEvent;
    use felt_service::Aggregate;
    use felt_tournament::aggregates::{Seating, seating_stream};
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let t = sim(&["--data", data], "40", "altered");
    {
        let log = EmbeddedLog::open(&Path::new(data).join("log.redb")).unwrap();
        let busts: Vec<NewEvent> = (1_000..1_100u64)
            .map(|entry| {
                let bust = SeatingEvent::Busted {
                    entry: EntryId(entry),
                    table: 1,
                    starting_stack: 0,
                    by: Vec::new(),
                    remaining: 0,
                    hand_for_hand_round: None,
                    occurred_at: None,
                    held: false,
                };
                NewEvent::encode(Seating::event_type(&bust), Seating::SCHEMA, &bust).unwrap()
            })
            .collect();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime
            .block_on(log.append(
                &seating_stream(&t).unwrap(),
                Expected::Any,
                Decision {
                    command_id: "by-hand".into(),
                    causation_id: None,
                    correlation_id: None,
                    recorded_at: 0,
                    events: busts,
                    trace: None,
                    request: None,
                    actor: None,
                },
            ))
            .unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_felt"))
        .args(["audit", "verify", "--data", data])
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run felt audit");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(!said.contains("panicked"), "{said}");
    assert!(
        said.contains(&format!("FAILED {t}: places and prizes follow the busts")),
        "{said}"
    );
}

/// Issue 23, bug 3: in `felt sim` every service reads the sim's time, the
/// table service included. The sim's clock starts on a fixed day and runs
/// hours in seconds, so no table event may carry a time from the seconds
/// the sim really ran (a table service on the wall clock stamped every
/// action a dealer sent it so), and every table event falls within
/// seating's span, from the tournament's creation to its last bust.
#[test]
fn a_sims_table_events_carry_the_sims_time() {
    use felt_eventlog::{EmbeddedLog, EventLog};
    use felt_tournament::aggregates::seating_stream;
    let wall = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64
    };
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let began = wall();
    let t = sim(&["--data", data], "40", "timed");
    let ran = began..=wall();
    let log = EmbeddedLog::open(&Path::new(data).join("log.redb")).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let seating = runtime
        .block_on(log.read(&seating_stream(&t).unwrap(), 1))
        .unwrap();
    let first = seating.first().expect("seating's events").recorded_at;
    let last = seating.last().unwrap().recorded_at;
    assert!(!ran.contains(&first) && !ran.contains(&last));
    let mut tables = 0;
    for table in 1.. {
        let stream = felt_tablelog::stream(&t, table).unwrap();
        let events = runtime.block_on(log.read(&stream, 1)).unwrap();
        if events.is_empty() {
            break;
        }
        tables += 1;
        for e in &events {
            assert!(
                (first..=last).contains(&e.recorded_at) && !ran.contains(&e.recorded_at),
                "{stream}: event {} ({} by {}) at {} is outside the tournament's \
                 {first}..={last} or while the sim ran ({ran:?})",
                e.sequence,
                e.event_type,
                e.command_id,
                e.recorded_at
            );
        }
    }
    assert!(tables >= 4, "{tables} tables");
}

/// `felt sim --results-only 3`: every third table's tablet is down from
/// its 10th hand until its 40th; its dealer plays hands the table service never
/// sees, the floor records each bust with who won the chips, and every
/// stack is counted before the table records actions again (and wherever
/// a player from it arrives at a recording table). The tournament finishes,
/// the chips reconcile at the counts, and the audit passes and says which
/// hands were not recorded.
#[test]
fn results_only_tables_for_part_of_the_event_pass_the_audit() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    sim(
        &["--data", data, "--deal", "physical", "--results-only", "3"],
        "200",
        "tablets",
    );
    let (ok, out) = audit(&["--data", data]);
    assert!(ok, "{out}");
    assert!(out.contains(" 0 failed"), "{out}");
    assert!(
        out.contains("table 3: results only after hand")
            && out.contains("the hands played were not recorded")
            && out.contains("reported by the floor"),
        "{out}"
    );
    assert!(out.contains("count \"tablet back\" at table(s) 3"), "{out}");
}

/// Issue 27's add-on and rule 27's rebuys in the main job: `felt sim
/// --add-on --rebuys 2` has the floor sell the add-on by the structure's
/// first break to every other player seated, and up to two rebuys to each
/// player left with half the starting stack or less before it, or who
/// busted in it (offered when they bust: two in three buy it); the pool
/// is the entries', the add-ons' and the rebuys' (100.00 each), every
/// prize is paid, and the audit counts their chips on the tables.
#[test]
fn a_sim_with_add_ons_and_rebuys_pays_them_into_the_pool_and_passes_the_audit() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let (ok, stdout, stderr) = felt(&[
        "sim",
        "--entrants",
        "200",
        "--seed",
        "3",
        "--quiet",
        "--tournament",
        "ao",
        "--add-on",
        "--rebuys",
        "2",
        "--data",
        data,
    ]);
    assert!(ok, "felt sim failed:\n{stdout}\n{stderr}");
    let (ok, out) = audit(&["--data", data]);
    assert!(ok, "{out}");
    let sold: u64 = out
        .lines()
        .find_map(|l| {
            l.strip_prefix("ao: ")?
                .split(" add-on(s) sold")
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("no add-ons in {out}"));
    assert!(sold > 0, "{out}");
    let (rebuys, rebuyers): (u64, u64) = out
        .lines()
        .find_map(|l| {
            let (n, rest) = l.strip_prefix("ao: ")?.split_once(" rebuy(s) sold to ")?;
            Some((n.parse().ok()?, rest.split_once(' ')?.0.parse().ok()?))
        })
        .unwrap_or_else(|| panic!("no rebuys in {out}"));
    assert!(rebuys > 0 && rebuys <= 2 * rebuyers, "{out}");
    // Rule 27: players who busted in the window were offered a rebuy, and
    // some bought it, some declined (the sim's floor answers every offer).
    let (taken, offered, declined): (u64, u64, u64) = out
        .lines()
        .find_map(|l| {
            let rest = l.strip_prefix("ao: ")?.split_once(" entries (")?.1;
            let (taken, rest) = rest.split_once(" of ")?;
            let (offered, rest) = rest.split_once(" offered when busted, ")?;
            let declined = rest.split_once(" declined")?.0;
            Some((
                taken.parse().ok()?,
                offered.parse().ok()?,
                declined.parse().ok()?,
            ))
        })
        .unwrap_or_else(|| panic!("no rebuy offers in {out}"));
    assert!(
        taken > 0 && declined > 0 && taken + declined == offered && taken <= rebuys,
        "{out}"
    );
    let entries: u64 = stdout
        .lines()
        .find_map(|l| l.split_once(" entries (")?.0.parse().ok())
        .unwrap_or_else(|| panic!("no entries line in {stdout}"));
    let pool = format!("{}.00", (entries + sold + rebuys) * 100);
    assert!(
        stdout.contains(&format!("prizes paid {pool} of the pool {pool}")),
        "{entries} entries, {sold} add-ons: {stdout}"
    );
    // The cage's books: every buy-in, add-on and rebuy paid for (the sim
    // pays for all it buys), and they balance.
    let (ok, books, stderr) = felt(&["payout", "cage", "--tournament", "ao", "--data", data]);
    assert!(ok, "{books}{stderr}");
    assert!(
        books.contains(&format!(
            " {sold} add-on(s), {rebuys} rebuy(s), 0 refund(s)"
        )) && books.contains("0 payment(s) without a method recorded"),
        "{books}"
    );
    assert!(!books.contains("FAILED"), "{books}");
}

/// A tournament over two days (seed 002, rule 77): day 1 ends at level 5
/// (the clock stops itself, the service draws the card, every table plays
/// that many more hands), the floor bags every stack with both
/// confirmations and seals them, and day 2 starts from the bags with
/// every seat drawn afresh, on to a winner; the audit redraws the card
/// from its seed and checks every mover arrived with their bag's chips.
#[test]
fn a_sim_over_two_days_bags_the_stacks_and_starts_day_2_from_them() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let (ok, out, err) = felt(&[
        "sim",
        "--entrants",
        "120",
        "--seed",
        "5",
        "--quiet",
        "--tournament",
        "days",
        "--data",
        data,
        "--day-level",
        "5",
    ]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("winner: Player"), "{out}");
    assert!(out.contains("felt sim: day 1 ended, "), "{out}");
    assert!(out.contains("day 2 starts from them"), "{out}");
    let (ok, audit) = audit(&["--data", data]);
    assert!(ok && audit.contains(" 0 failed"), "{audit}");
    assert!(
        audit.contains("hands (rule 77), drawn by the service from its recorded seed"),
        "{audit}"
    );
    assert!(
        audit.contains("days: 1 day(s) bagged and sealed; "),
        "{audit}"
    );
}

#[test]
fn satellites_played_first_feed_their_seat_winners_into_the_event() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let (ok, out, err) = felt(&[
        "sim",
        "--entrants",
        "100",
        "--seed",
        "8",
        "--quiet",
        "--tournament",
        "fed",
        "--data",
        data,
        "--satellites",
        "2",
    ]);
    assert!(ok, "{out}{err}");
    // Each satellite stops at its seats: every one of them a ticket to
    // the event, the winners named.
    let seats: Vec<u32> = out
        .lines()
        .filter_map(|l| l.split_once(" seats in fed won: "))
        .map(|(n, _)| n.parse().unwrap())
        .collect();
    assert_eq!(seats.len(), 2, "{out}");
    assert!(seats.iter().all(|&n| n >= 2), "{out}");
    // The event: 100 entrants, their re-entries and the seat winners.
    assert!(out.contains("winner: Player"), "{out}");
    let (ok, audit) = audit(&["--data", data]);
    assert!(ok && audit.contains(" 0 failed"), "{audit}");
    let redeemed: u32 = seats.iter().sum();
    assert!(
        audit.contains(&format!(
            "fed: {redeemed} entries bought with satellites' tickets"
        )),
        "{audit}"
    );
    // Every seat's ticket came from its satellite, to this event.
    assert!(audit.contains("3 tournament(s)"), "{audit}");
}

/// Issue 28's main job in flights: `--flights 3 --satellites 1` plays a
/// satellite whose seats in the event are redeemed into its first flight,
/// then three Day 1 flights one after another, each down to a sixth of its field and its
/// bags sealed, then the event's Day 2 from all of them, redrawn
/// together at the level the flights reached, to a winner from one pool
/// of every flight's entries; the audit checks every bag reached Day 2
/// or was forfeited.
#[test]
fn an_event_in_three_flights_plays_day_2_from_their_bags_to_a_winner() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let (ok, out, err) = felt(&[
        "sim",
        "--entrants",
        "150",
        "--seed",
        "5",
        "--quiet",
        "--tournament",
        "big",
        "--data",
        data,
        "--flights",
        "3",
        "--satellites",
        "1",
    ]);
    assert!(ok, "{out}{err}");
    // A satellite's seats in the event are redeemed into its first flight.
    let seats: u32 = out
        .lines()
        .find_map(|l| l.split_once(" seats in big won: "))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    let bagged: Vec<u32> = out
        .lines()
        .filter_map(|l| l.split_once(" day 1 over, "))
        .map(|(_, rest)| rest.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(bagged.len(), 3, "{out}");
    // Day 2: one stack a player, at most every bag.
    let stacks: u32 = out
        .lines()
        .find_map(|l| l.split_once("event big day 2, "))
        .and_then(|(_, rest)| rest.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert!(stacks >= 2 && stacks <= bagged.iter().sum(), "{out}");
    assert!(out.contains("winner: Player"), "{out}");
    // One pool: every flight's entries (the 150, their re-entries and
    // the seats), the event's report the last.
    let entries: u32 = out
        .lines()
        .rev()
        .find_map(|l| l.split_once(" entries ("))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert!(entries >= 150 + seats, "{out}");
    let (ok, audit) = audit(&["--data", data]);
    assert!(ok && audit.contains(" 0 failed"), "{audit}");
    assert!(audit.contains("5 tournament(s)"), "{audit}");
    assert!(
        audit.contains(&format!(
            "big-1: {seats} entries bought with satellites' tickets"
        )),
        "{audit}"
    );
    assert!(
        audit.contains(&format!("big: Day 2 from the flights: {stacks} stacks")),
        "{audit}"
    );
    // The clock resumed the structure on day 2 where the flights ended
    // (the audit checked it against the flights' clocks).
    assert!(audit.contains("; day 2 from level "), "{audit}");
}

/// The README's main job run again and again on one data folder (its
/// default, `felt-data`): each run plays its tournament to a winner. A
/// process starting on a log whose earlier tournaments its reaction
/// runners had already passed once waited for those tournaments'
/// decisions forever (the third run hung at its presales).
#[test]
fn the_main_job_runs_again_and_again_on_one_data_folder() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    for run in 1..=3 {
        let seed = run.to_string();
        let mut child = Command::new(env!("CARGO_BIN_EXE_felt"))
            .args([
                "sim",
                "--entrants",
                "30",
                "--seed",
                &seed,
                "--quiet",
                "--data",
                data,
            ])
            .env("RUST_BACKTRACE", "0")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("run felt sim");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if std::time::Instant::now() > deadline {
                child.kill().unwrap();
                child.wait().unwrap();
                panic!("run {run} on the same data folder did not finish in 120 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        };
        let mut out = String::new();
        std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
        assert!(
            status.success() && out.contains("winner: "),
            "run {run}: {out}"
        );
    }
    let (ok, out) = audit(&["--data", data]);
    assert!(ok && out.contains("3 tournament(s)"), "{out}");
}
