//! Places and prizes come from the tables' events: a tournament played to a
//! winner through the conductor, its hand ends reported by the follower
//! from the log, with a hand-for-hand double bust on the bubble (one
//! player out at each of two tables in the same hand-for-hand hand share
//! the sum of their places' prizes, TDA RP8).
//!
//! Deterministic: each hand is dealt from a fixed seed, and who goes all
//! in is chosen by playing the dealt hand on a copy of the table first.

use felt_seating::EntryId;
use felt_vocabulary::PlayerId;
use std::sync::Arc;
use std::time::Duration;

mod common;
use common::{Crashing, Streams, copied, differences, streams};

use felt_cards::Seed;
use felt_clock::{ClockSettings, Millis, Structure};
use felt_eventlog::{EmbeddedLog, EventLog, Filter, Subscription};
use felt_payout::{MoneySettings, PayoutState, PercentRow, PercentTable, SimultaneousBusts};
use felt_seating::{EntryStatus, Settings};
use felt_table::{Command, HouseRules, PlayerAction, Seat, TableEvent, TableState};
use felt_tournament::follow::{HandFollower, Inputs, report};
use felt_tournament::{Begin, Conductor, Hosts, TournamentError, TournamentSpec};

const T0: Millis = 1_796_153_400_000;
const ENTRIES: u64 = 14;

struct Fixed;

impl Inputs for Fixed {
    fn now(&self) -> Millis {
        T0
    }
}

/// Six-handed tables, six places paid: the bubble is at seven players, on
/// two tables.
fn spec(busts: SimultaneousBusts) -> TournamentSpec {
    let mut seating = Settings::tda(6, 6_000);
    seating.final_table = 6;
    let mut money = MoneySettings::club();
    money.structure = felt_payout::Structure::Percentages(PercentTable {
        rows: vec![PercentRow {
            max_entries: 20,
            basis_points: vec![3000, 2000, 1500, 1300, 1200, 1000],
        }],
        unit: 100,
    });
    TournamentSpec {
        name: "Bubble".into(),
        seating,
        structure: Structure::bhpoker(),
        clock: ClockSettings::default(),
        money,
        busts,
        rules: HouseRules::default(),
        deal: felt_tournament::DealMode::Digital,
    }
}

/// The next command when `pair` go all in and everyone else folds (no
/// pair: everyone folds to the big blind).
fn planned(state: &TableState, pair: Option<(Seat, Seat)>) -> Option<Command> {
    let o = state.options()?;
    let action = match pair {
        Some((a, b)) if o.seat == a || o.seat == b => PlayerAction::AllIn,
        _ if o.to_call == 0 => PlayerAction::Check,
        _ => PlayerAction::Fold,
    };
    Some(Command::Act {
        seat: o.seat,
        action,
    })
}

/// Two seats whose all-in busts exactly one of them in the hand just dealt
/// (found by playing it on a copy of the table), and the entry that busts
/// with its chips at the start of the hand.
fn busting_pair(state: &TableState) -> Option<((Seat, Seat), (u64, u64))> {
    let h = state.hand()?;
    let seats: Vec<Seat> = (1..=state.size())
        .filter(|&s| h.player(s).is_some_and(|p| !p.all_in))
        .collect();
    for (i, &a) in seats.iter().enumerate() {
        for &b in &seats[i + 1..] {
            let mut copy = state.clone();
            let mut busted = Vec::new();
            while let Some(command) = planned(&copy, Some((a, b))) {
                for e in felt_table::execute(&mut copy, &command).expect("a legal action") {
                    if let TableEvent::HandEnded { busted: out, .. } = e {
                        busted = out;
                    }
                }
            }
            if let [one] = busted.as_slice() {
                return Some(((a, b), (one.player.0, one.starting_stack)));
            }
        }
    }
    None
}

/// Plays the hand at a table to its end with `pair` all in.
async fn play(
    c: &Conductor<EmbeddedLog>,
    table: u32,
    state: &TableState,
    pair: Option<(Seat, Seat)>,
) {
    let number = state.hand().expect("a hand").number;
    let mut state = state.clone();
    let mut k = 0;
    while let Some(command) = planned(&state, pair) {
        k += 1;
        let id = format!("t{table}-h{number}-{k}");
        state = (*c.table("b", table, &id, T0, command).await.unwrap().state).clone();
    }
}

/// Reports every hand end the subscription has delivered so far.
async fn catch_up(
    c: &Conductor<EmbeddedLog>,
    follower: &mut HandFollower,
    sub: &mut Subscription,
) -> usize {
    let mut reported = 0;
    while let Ok(next) = tokio::time::timeout(Duration::from_millis(25), sub.next()).await {
        let committed = next.unwrap().unwrap();
        if report(c, follower, &committed, &Fixed)
            .await
            .unwrap()
            .is_some()
        {
            reported += 1;
        }
    }
    reported
}

/// Tournament "b" created, its entries registered and play started on a
/// fresh embedded log; a subscription to its tables' decisions.
async fn started(
    rule: SimultaneousBusts,
) -> (tempfile::TempDir, Conductor<EmbeddedLog>, Subscription) {
    let (dir, c, sub, _) = started_hosting(rule, Hosts::ALL).await;
    let c = Arc::try_unwrap(c).unwrap_or_else(|_| unreachable!("one process: no followers"));
    (dir, c, sub)
}

/// The processes following the log beside the one that plays.
type Followers = Vec<tokio::task::JoinHandle<Result<(), TournamentError>>>;

/// [`started`] by a conductor hosting `hosts`; deployed apart, it follows
/// the log in the background as a service's process does, and the
/// services it does not host each run in a process of their own following
/// the log (the followers, its own among them).
async fn started_hosting(
    rule: SimultaneousBusts,
    hosts: Hosts,
) -> (
    tempfile::TempDir,
    Arc<Conductor<EmbeddedLog>>,
    Subscription,
    Followers,
) {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let c = Arc::new(Conductor::new(log.clone()).hosting(hosts));
    let mut followers: Followers = Vec::new();
    if !hosts.all() {
        let own = c.clone();
        followers.push(tokio::spawn(async move { own.follow_reactions().await }));
    }
    let others = [
        (hosts.clock, only(false, true, false)),
        (hosts.payout, only(false, false, true)),
    ];
    for (_, hosts) in others.into_iter().filter(|(hosted, _)| !hosted) {
        let other = Arc::new(Conductor::new(log.clone()).hosting(hosts));
        followers.push(tokio::spawn(async move { other.follow_reactions().await }));
    }
    c.create(&"b".parse().unwrap(), &spec(rule), T0)
        .await
        .unwrap();
    let players: Vec<(PlayerId, String)> = (1..=ENTRIES)
        .map(|i| (format!("p{i}").parse().unwrap(), format!("Player {i}")))
        .collect();
    // Registration waits for the clock and payout to take up their parts.
    loop {
        match c.register_many("b", "presales", &players, T0).await {
            Err(TournamentError::PartsMissing { .. }) => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            other => break other.map(|_| ()).unwrap(),
        }
    }
    c.start("b", T0).await.unwrap();
    let filter = Filter {
        id: None,
        tournament: Some("b".into()),
        kind: Some("table".into()),
    };
    let sub = log.subscribe(filter, 0).await.unwrap();
    (dir, c, sub, followers)
}

/// Deals round `round` at every table seating lets deal and plays it:
/// outside hand-for-hand, one bust at a time, so the field reaches the
/// bubble exactly; in hand-for-hand on the bubble, a bust at both tables
/// or at neither. How many tables dealt, and the pair out (with their
/// starting stacks) if this round busted the bubble.
async fn deal_and_play(c: &Conductor<EmbeddedLog>, round: u64) -> (usize, Option<[(u64, u64); 2]>) {
    let seating = c.seating_state("b").await.unwrap();
    let hand_for_hand = seating.room().hand_for_hand.is_some();
    let tables: Vec<u32> = seating.room().tables.keys().copied().collect();
    drop(seating);
    let mut dealt = Vec::new();
    for table in tables {
        let deck = Seed::from_u64(round << 8 | u64::from(table));
        if let Begin::Started(_, state, _) =
            c.begin_hand("b", table, T0, &move |_| deck).await.unwrap()
        {
            dealt.push((table, state));
        }
    }
    let plans: Vec<_> = dealt.iter().map(|(_, s)| busting_pair(s)).collect();
    let mut chosen: Vec<Option<(Seat, Seat)>> = vec![None; dealt.len()];
    let mut bubble = None;
    if hand_for_hand {
        assert_eq!(dealt.len(), 2, "hand-for-hand on the bubble at two tables");
        // Both tables bust a player in this hand, or neither does.
        if let [Some((a, x)), Some((b, y))] = plans.as_slice() {
            chosen = vec![Some(*a), Some(*b)];
            bubble = Some([*x, *y]);
        }
    } else if let Some(i) = plans.iter().position(Option::is_some) {
        chosen[i] = plans[i].map(|p| p.0);
    }
    for ((table, state), pair) in dealt.iter().zip(chosen) {
        play(c, *table, state, pair).await;
    }
    (dealt.len(), bubble)
}

/// How the services run while a tournament is played to a winner.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Run {
    /// Seating, the clock and payout in one process.
    Together,
    /// In one process that stops and starts again (a fresh conductor on
    /// the same log) between the bubble's two hand ends, the first bust
    /// held for the round and the second not yet reported.
    Restarting,
    /// Deployed apart: seating's process plays (the tables and seating),
    /// the clock's and payout's each follow the log on their own.
    Apart,
}

/// Plays a tournament to a winner under a house rule for simultaneous
/// busts; the two entries (with their starting stacks) out in the same
/// hand-for-hand hand on the bubble, and payout's state at the end.
async fn to_a_winner(rule: SimultaneousBusts) -> ([(u64, u64); 2], Arc<PayoutState>) {
    to_a_winner_run(rule, Run::Together).await
}

fn only(seating: bool, clock: bool, payout: bool) -> Hosts {
    Hosts {
        seating,
        clock,
        payout,
    }
}

/// [`to_a_winner`], the services run as `run` says.
async fn to_a_winner_run(rule: SimultaneousBusts, run: Run) -> ([(u64, u64); 2], Arc<PayoutState>) {
    let restart = run == Run::Restarting;
    let hosts = if run == Run::Apart {
        only(true, false, false)
    } else {
        Hosts::ALL
    };
    let (_dir, mut c, mut sub, others) = started_hosting(rule, hosts).await;
    let mut restarted = false;
    c.close_registration("b", T0).await.unwrap();
    let mut follower = HandFollower::default();

    let mut bubble: Option<[(u64, u64); 2]> = None;
    let mut hfh_rounds = 0;
    for round in 0..3_000u64 {
        let seating = c.seating_state("b").await.unwrap();
        let left = seating.room().players();
        if left <= 1 {
            break;
        }
        let hand_for_hand = seating.room().hand_for_hand.is_some();
        drop(seating);
        if hand_for_hand {
            hfh_rounds += 1;
        }
        let (dealt, pair) = deal_and_play(&c, round).await;
        bubble = bubble.or(pair);
        let reported = if restart && !restarted && hand_for_hand && bubble.is_some() {
            let mut reported = 0;
            while let Ok(next) = tokio::time::timeout(Duration::from_millis(25), sub.next()).await {
                let committed = next.unwrap().unwrap();
                if report(&c, &mut follower, &committed, &Fixed)
                    .await
                    .unwrap()
                    .is_some()
                {
                    reported += 1;
                    if !restarted {
                        c = Arc::new(Conductor::new(c.tables.log().clone()));
                        restarted = true;
                    }
                }
            }
            reported
        } else {
            catch_up(&c, &mut follower, &mut sub).await
        };
        assert_eq!(reported, dealt, "every hand end reported once");
        if hand_for_hand && bubble.is_some() {
            let seating = c.seating_state("b").await.unwrap();
            assert_eq!(seating.room().players(), 5);
            assert!(seating.room().hand_for_hand.is_none(), "in the money");
        }
    }
    let bubble = bubble.expect("a double bust on the bubble");
    assert!(hfh_rounds >= 1);
    assert_eq!(restarted, restart);

    let seating = c.seating_state("b").await.unwrap();
    assert_eq!(seating.room().players(), 1, "played to a winner");
    // Deployed apart, payout places what it follows in its own time.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let mut payout = c.payout_state("b").await.unwrap();
    while u64::from(payout.busted()) < ENTRIES - 1 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
        payout = c.payout_state("b").await.unwrap();
    }
    for task in &others {
        assert!(!task.is_finished(), "a service stopped following the log");
    }
    assert_eq!(payout.pool().unwrap().prize_pool, 14 * 4_000);
    assert_eq!(u64::from(payout.busted()), ENTRIES - 1);
    // Seating and payout agree on who is out.
    for (entry, e) in payout.entries() {
        let out = seating.entries()[entry].status == EntryStatus::Busted;
        assert_eq!(e.busted, out, "entry {entry}");
    }
    (bubble, payout)
}

#[tokio::test]
async fn busts_from_the_tables_give_places_and_prizes_with_a_double_bust_on_the_bubble() {
    let ([(x, _), (y, _)], payout) = to_a_winner(SimultaneousBusts::ShareAcrossTables).await;
    let pool = payout.pool().unwrap().prize_pool;
    // The bubble pair share 6th and 7th: half of 6th's 10% each.
    for entry in [x, y] {
        let e = &payout.entries()[&EntryId(entry)];
        assert_eq!(e.place, Some((6, 7)), "entry {entry}");
        assert_eq!(e.prize, pool / 10 / 2, "entry {entry}");
    }
    // Everyone else has a place of their own; 1st to 5th by the sheet.
    let mut places: Vec<(u32, u32)> = payout
        .entries()
        .iter()
        .filter(|(k, _)| ![x, y].contains(&k.get()))
        .map(|(_, e)| e.place.expect("placed"))
        .collect();
    places.sort_unstable();
    let expected: Vec<(u32, u32)> = (1..=5).chain(8..=14).map(|p| (p, p)).collect();
    assert_eq!(places, expected);
    // Each place rounded down to the unit (100); what rounding leaves goes
    // to the winner (1300 and 1200 basis points leave 80 and 20).
    let sheet = [16_800 + 100, 11_200, 8_400, 7_200, 6_700];
    for e in payout.entries().values() {
        match e.place {
            Some((p, q)) if p == q && p <= 5 => {
                assert_eq!(e.prize, sheet[p as usize - 1], "place {p}");
            }
            Some((p, q)) if p == q => assert_eq!(e.prize, 0, "place {p}"),
            _ => {}
        }
    }
    let paid: u64 = payout.entries().values().map(|e| e.prize).sum();
    assert_eq!(paid, pool, "the whole pool is paid");
}

/// RP8, deployed apart (the cluster): payout's process holds the first of
/// the bubble's busts for its hand-for-hand round and places the pair
/// together once the round is over, which it learns from seating's
/// decisions in the log (seating's process does not write payout's
/// stream).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deployed_apart_payout_places_the_bubble_pair_together_once_their_round_is_over() {
    let ([(x, _), (y, _)], payout) =
        to_a_winner_run(SimultaneousBusts::ShareAcrossTables, Run::Apart).await;
    let pool = payout.pool().unwrap().prize_pool;
    for entry in [x, y] {
        let e = &payout.entries()[&EntryId(entry)];
        assert_eq!(e.place, Some((6, 7)), "entry {entry}");
        assert_eq!(e.prize, pool / 10 / 2, "entry {entry}");
    }
    let placed = payout.entries().values().filter(|e| e.place.is_some());
    assert_eq!(placed.count() as u64, ENTRIES, "every entry placed");
}

/// RP8, across a restart: the first of the bubble's two busts is held for
/// its hand-for-hand round in the log (payout's `BustsHeld`), not in the
/// memory of the process that reported it, so the process that reports
/// the second places both together.
#[tokio::test]
async fn a_restart_between_the_bubble_hands_still_places_the_pair_together() {
    let ([(x, _), (y, _)], payout) =
        to_a_winner_run(SimultaneousBusts::ShareAcrossTables, Run::Restarting).await;
    let pool = payout.pool().unwrap().prize_pool;
    for entry in [x, y] {
        let e = &payout.entries()[&EntryId(entry)];
        assert_eq!(e.place, Some((6, 7)), "entry {entry}");
        assert_eq!(e.prize, pool / 10 / 2, "entry {entry}");
    }
}

#[tokio::test]
async fn by_the_house_rule_of_seed_003_the_bubble_pair_is_placed_by_starting_stack() {
    let ([a, b], payout) = to_a_winner(SimultaneousBusts::ByStartingStack).await;
    // (The seeds give the pair different stacks: 5,925 and 6,000.)
    assert_ne!(a.1, b.1);
    let (high, low) = if a.1 > b.1 { (a, b) } else { (b, a) };
    let pool = payout.pool().unwrap().prize_pool;
    let place = |entry: u64| payout.entries()[&EntryId(entry)].place;
    let prize = |entry: u64| payout.entries()[&EntryId(entry)].prize;
    assert_eq!(place(high.0), Some((6, 6)), "{high:?} over {low:?}");
    assert_eq!(place(low.0), Some((7, 7)), "{low:?} under {high:?}");
    assert_eq!((prize(high.0), prize(low.0)), (pool / 10, 0));
}

#[tokio::test]
async fn hand_for_hand_started_by_the_floor_holds_the_tables_and_stops_the_clock() {
    let (_dir, c, mut sub) = started(SimultaneousBusts::ShareAcrossTables).await;
    let mut follower = HandFollower::default();
    let hand_for_hand = async || {
        matches!(
            c.clock_state("b").await.unwrap().status().clone(),
            felt_clock::Status::HandForHand { .. }
        )
    };

    assert!(!c.floor_hand_for_hand("b", true, "hfh-1", T0).await.unwrap());
    assert!(hand_for_hand().await);
    // A repeat changes nothing.
    assert!(c.floor_hand_for_hand("b", true, "hfh-1", T0).await.unwrap());
    // Its command id for the other command is refused, naming the
    // request it was first used for.
    let reused = c.floor_hand_for_hand("b", false, "hfh-1", T0).await;
    assert!(
        matches!(&reused, Err(TournamentError::CommandIdReused { command_id, .. }) if command_id == "floor-hfh-1"),
        "{reused:?}"
    );
    assert!(hand_for_hand().await);
    // Every table deals round 1; one that finished waits for the others.
    let mut dealt = Vec::new();
    for table in 1..=3 {
        let Begin::Started(_, state, _) = c
            .begin_hand("b", table, T0, &move |_| Seed::from_u64(table.into()))
            .await
            .unwrap()
        else {
            panic!("table {table} dealt");
        };
        dealt.push((table, state));
    }
    let (first, state) = &dealt[0];
    play(&c, *first, state, None).await;
    catch_up(&c, &mut follower, &mut sub).await;
    let wait = c
        .begin_hand("b", *first, T0, &move |_| Seed::from_u64(9))
        .await
        .unwrap();
    assert!(
        matches!(&wait, Begin::Wait(r) if r.contains("hand-for-hand: other tables are still playing")),
        "{wait:?}"
    );
    for (table, state) in &dealt[1..] {
        play(&c, *table, state, None).await;
    }
    catch_up(&c, &mut follower, &mut sub).await;
    // Round 2 is dealt; the floor stops hand-for-hand; the clock runs.
    let again = c
        .begin_hand("b", *first, T0, &move |_| Seed::from_u64(9))
        .await
        .unwrap();
    assert!(matches!(again, Begin::Started(..)), "{again:?}");
    assert!(
        !c.floor_hand_for_hand("b", false, "hfh-off", T0)
            .await
            .unwrap()
    );
    assert!(!hand_for_hand().await);
    assert!(matches!(
        c.clock_state("b").await.unwrap().status().clone(),
        felt_clock::Status::Running { .. }
    ));
    let refused = c.floor_hand_for_hand("b", false, "hfh-off-2", T0).await;
    assert!(
        refused
            .unwrap_err()
            .to_string()
            .contains("hand-for-hand: it is not being played"),
    );
}

/// Every table plays one hand-for-hand hand (none busts): the round ends.
async fn play_a_round(
    c: &Conductor<EmbeddedLog>,
    follower: &mut HandFollower,
    sub: &mut Subscription,
    seed: u64,
) {
    for table in 1..=3 {
        let begun = c
            .begin_hand("b", table, T0, &move |_| {
                Seed::from_u64(seed + u64::from(table))
            })
            .await
            .unwrap();
        let Begin::Started(_, state, _) = begun else {
            panic!("table {table} did not deal: {begun:?}");
        };
        play(c, table, &state, None).await;
    }
    catch_up(c, follower, sub).await;
}

/// The clock's hand-for-hand round, if it is in hand-for-hand.
async fn clock_round(c: &Conductor<EmbeddedLog>) -> Option<u64> {
    match c.clock_state("b").await.unwrap().status().clone() {
        felt_clock::Status::HandForHand { round, .. } => Some(round),
        _ => None,
    }
}

/// The floor stops hand-for-hand and starts it again; the clock follows
/// the second period as it followed the first, "each hand taking the same
/// time off the tournament clock, however long the hand lasts" (seed 000,
/// RP8: "Durante o H4H, cada mão terá o mesmo tempo descontado do relógio
/// do torneio"): its start, its rounds and its end.
#[tokio::test]
async fn a_second_hand_for_hand_period_reaches_the_clock_like_the_first() {
    let (_dir, c, mut sub) = started(SimultaneousBusts::ShareAcrossTables).await;
    let mut follower = HandFollower::default();
    for (period, seed) in [("first", 100), ("second", 200)] {
        assert!(
            !c.floor_hand_for_hand("b", true, &format!("{period}-on"), T0)
                .await
                .unwrap()
        );
        assert_eq!(
            clock_round(&c).await,
            Some(1),
            "the {period} period starts at the clock"
        );
        play_a_round(&c, &mut follower, &mut sub, seed).await;
        assert_eq!(
            clock_round(&c).await,
            Some(2),
            "the {period} period's first round ends at the clock"
        );
        assert!(
            !c.floor_hand_for_hand("b", false, &format!("{period}-off"), T0)
                .await
                .unwrap()
        );
        assert_eq!(
            clock_round(&c).await,
            None,
            "the {period} period ends at the clock"
        );
    }
}

/// Plays to the bubble: both tables' hand-for-hand hands that bust a
/// player each are played, their ends not yet reported. The log's file.
async fn to_the_bubble(dir: &std::path::Path) -> std::path::PathBuf {
    let (played, c, mut sub) = started(SimultaneousBusts::ShareAcrossTables).await;
    c.close_registration("b", T0).await.unwrap();
    let mut follower = HandFollower::default();
    for round in 0..3_000u64 {
        let (dealt, pair) = deal_and_play(&c, round).await;
        if pair.is_some() {
            drop((c, sub));
            let file = dir.join("bubble.redb");
            std::fs::copy(played.path().join("log.redb"), &file).unwrap();
            return file;
        }
        assert_eq!(catch_up(&c, &mut follower, &mut sub).await, dealt);
    }
    panic!("no double bust on the bubble");
}

/// The bubble's two hand ends reported from the log by a process that dies
/// after `budget` appends; then a process started again on the same log
/// does what a restarted seating service does: runs the reactions left,
/// and reports the tables' latest hands again. How many appends the first
/// process made, and the tournament's streams at the end.
async fn bubble_reported(file: &std::path::Path, budget: u64) -> (u64, Streams) {
    let (_dir, log) = copied(file);
    let crashing = Arc::new(Crashing::new(log.clone(), budget));
    let tables = Filter {
        id: None,
        tournament: Some("b".into()),
        kind: Some("table".into()),
    };
    {
        let c = Conductor::new(crashing.clone());
        let mut sub = crashing.subscribe(tables.clone(), 0).await.unwrap();
        let mut follower = HandFollower::default();
        while let Ok(Some(next)) = tokio::time::timeout(Duration::from_millis(25), sub.next()).await
        {
            if report(&c, &mut follower, &next.unwrap(), &Fixed)
                .await
                .is_err()
            {
                break;
            }
        }
    }
    let made = crashing.made();
    let c = Conductor::new(log.clone());
    c.react_to_all().await.unwrap();
    let mut sub = log.subscribe(tables, 0).await.unwrap();
    catch_up(&c, &mut HandFollower::default(), &mut sub).await;
    drop((c, sub));
    (made, streams(&log, "b").await)
}

/// Issue 23: the chain after the bubble's hand-for-hand double bust
/// (seating's hand ends, payout holding both busts and placing them
/// together, the clock's round, the final table's redraw: a table broken
/// and its players moved) cut short by a crash after every one of its
/// appends, and finished by the process started again, leaves exactly the
/// events of an uninterrupted run.
#[tokio::test]
async fn the_bubble_chain_cut_short_after_any_step_is_finished_by_a_restart_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let file = to_the_bubble(dir.path()).await;
    let (steps, whole) = bubble_reported(&file, u64::MAX).await;
    // The chain is what the test says it is.
    let kinds: Vec<&str> = whole
        .values()
        .flat_map(|events| events.iter().map(|e| e.1.as_str()))
        .collect();
    for kind in [
        "BustsHeld",
        "RoundReleased",
        "TableFinishedHand",
        "TableClosed",
        "MoveCompleted",
    ] {
        assert!(kinds.contains(&kind), "no {kind} in the chain");
    }
    assert!(steps >= 10, "{steps} appends");
    for budget in 0..steps {
        let (made, streams) = bubble_reported(&file, budget).await;
        assert_eq!(made, budget);
        assert!(
            streams == whole,
            "the chain cut short after {budget} of its {steps} appends: {}",
            differences(&streams, &whole)
        );
    }
}

/// Issue 23: given seating recorded the bubble's first hand end and the
/// process died before any reaction to it was sent, when two processes run
/// the reactions over the same log at once, then the log is as one alone
/// leaves it: every command is sent once.
#[tokio::test]
async fn two_runners_over_the_same_log_at_once_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = to_the_bubble(dir.path()).await;
    let mut after = Vec::new();
    for runners in [1, 2] {
        let (_dir, log) = copied(&file);
        let crashing = Arc::new(Crashing::new(log.clone(), 1));
        {
            let c = Conductor::new(crashing.clone());
            let tables = Filter {
                id: None,
                tournament: Some("b".into()),
                kind: Some("table".into()),
            };
            let mut sub = crashing.subscribe(tables, 0).await.unwrap();
            let mut follower = HandFollower::default();
            while let Ok(Some(next)) =
                tokio::time::timeout(Duration::from_millis(25), sub.next()).await
            {
                if report(&c, &mut follower, &next.unwrap(), &Fixed)
                    .await
                    .is_err()
                {
                    break;
                }
            }
        }
        let before = streams(&log, "b").await;
        let conductors: Vec<_> = (0..runners).map(|_| Conductor::new(log.clone())).collect();
        futures::future::try_join_all(conductors.iter().map(|c| c.react_to_all()))
            .await
            .unwrap();
        let now = streams(&log, "b").await;
        assert_ne!(now, before, "the reactions were run");
        after.push(now);
    }
    assert!(
        after[0] == after[1],
        "{}",
        differences(&after[1], &after[0])
    );
}

/// Issue 23: seating's record of a hand end names the table's decision
/// that ended the hand as its cause, and payout's record of its busts
/// names seating's; both carry the id of the table's command that started
/// the chain.
#[tokio::test]
async fn hand_ends_and_their_busts_record_the_table_decision_that_caused_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = to_the_bubble(dir.path()).await;
    let log = EmbeddedLog::open(&file).unwrap();
    let mut by_decision = std::collections::BTreeMap::new();
    let mut payout = Vec::new();
    log.read_all(&Filter::tournament("b"), |committed| {
        let first = &committed.envelopes[0];
        let key = format!("{}@{}", committed.stream.key(), first.sequence);
        if committed.stream.kind == "payout" {
            payout.push(first.clone());
        }
        by_decision.insert(key, committed.envelopes);
        Ok(())
    })
    .await
    .unwrap();
    let busts: Vec<_> = payout
        .iter()
        .filter(|e| e.command_id.ends_with("-busts"))
        .collect();
    assert!(busts.len() >= 4, "{} busts recorded", busts.len());
    for bust in busts {
        let cause = bust.causation_id.as_deref().expect("a cause");
        let seating = &by_decision[cause][0];
        assert!(
            seating.command_id.starts_with("hand-") && seating.command_id.ends_with("-ended"),
            "{}: caused by {}",
            bust.command_id,
            seating.command_id
        );
        let cause = seating.causation_id.as_deref().expect("a cause");
        let table = &by_decision[cause];
        assert!(
            cause.starts_with("b.table.") && table.iter().any(|e| e.event_type == "HandEnded"),
            "{}: caused by {cause}",
            seating.command_id
        );
        let root = format!(
            "{}/{}",
            cause.split('@').next().unwrap(),
            table[0].command_id
        );
        assert_eq!(seating.correlation_id.as_deref(), Some(root.as_str()));
        assert_eq!(bust.correlation_id.as_deref(), Some(root.as_str()));
    }
}
