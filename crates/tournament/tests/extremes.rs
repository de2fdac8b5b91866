//! Extreme amounts driven through a whole tournament: created, registered,
//! played to a winner through the conductor (hand ends reported from the
//! log by the follower) and paid. Amounts past the bounds are refused at
//! creation and leave nothing in the log; amounts at them stay exact: every
//! chip on the tables, every prize adding up to the pool (counted in 128
//! bits, where nothing wraps).

use felt_vocabulary::PlayerId;
use std::sync::Arc;
use std::time::Duration;

use felt_cards::Seed;
use felt_clock::{ClockSettings, Millis, Structure};
use felt_eventlog::{EmbeddedLog, EventLog, Filter, Subscription};
use felt_payout::{MAX_ENTRY_PRICE, MAX_POOL, MoneySettings, SimultaneousBusts};
use felt_seating::{MAX_CHIPS, MAX_ENTRIES, Settings};
use felt_table::{Command, HouseRules, PlayerAction, TableState};
use felt_tournament::follow::{HandFollower, Inputs, report};
use felt_tournament::{Begin, Conductor, TournamentSpec};
use proptest::prelude::*;

const T0: Millis = 1_796_153_400_000;
const ENTRIES: u64 = 9;

struct Fixed;

impl Inputs for Fixed {
    fn now(&self) -> Millis {
        T0
    }
}

fn spec(stack: u64, buy_in: u64, fee: u64, guarantee: u64) -> TournamentSpec {
    let mut money = MoneySettings::generated(buy_in, fee);
    money.guarantee = guarantee;
    TournamentSpec {
        name: "Extremes".into(),
        seating: Settings::tda(6, stack),
        structure: Structure::bhpoker(),
        clock: ClockSettings::default(),
        money,
        busts: SimultaneousBusts::ShareAcrossTables,
        rules: HouseRules::default(),
        deal: felt_tournament::DealMode::Digital,
    }
}

/// The first two players to act go all in, everyone else folds.
fn all_in_pair(state: &TableState) -> Option<Command> {
    let o = state.options()?;
    let h = state.hand()?;
    let pushed = h.players.iter().flatten().filter(|p| p.all_in).count();
    let action = if pushed < 2 {
        PlayerAction::AllIn
    } else if o.to_call == 0 {
        PlayerAction::Check
    } else {
        PlayerAction::Call
    };
    Some(Command::Act {
        seat: o.seat,
        action,
    })
}

async fn catch_up(c: &Conductor<EmbeddedLog>, follower: &mut HandFollower, sub: &mut Subscription) {
    while let Ok(next) = tokio::time::timeout(Duration::from_millis(25), sub.next()).await {
        let committed = next.unwrap().unwrap();
        report(c, follower, &committed, &Fixed).await.unwrap();
    }
}

/// Plays tournament "x" to a winner; the log's tables' chips, the pool and
/// what payout paid.
async fn to_a_winner(spec: &TournamentSpec) -> Result<(u128, u128, u128), String> {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    let c = Conductor::new(log.clone());
    if let Err(e) = c.create(&"x".parse().unwrap(), spec, T0).await {
        // Refused: nothing of it anywhere.
        let parts = felt_tournament::aggregates::parts(log.as_ref(), "x")
            .await
            .unwrap();
        assert!(!parts.seating && !parts.clock && !parts.payout, "{parts:?}");
        assert!(
            felt_tournament::aggregates::tournaments(log.as_ref())
                .await
                .unwrap()
                .is_empty()
        );
        return Err(e.to_string());
    }
    let players: Vec<(PlayerId, String)> = (1..=ENTRIES)
        .map(|i| (format!("p{i}").parse().unwrap(), format!("Player {i}")))
        .collect();
    c.register_many("x", "presales", &players, T0)
        .await
        .unwrap();
    c.start("x", T0).await.unwrap();
    c.close_registration("x", T0).await.unwrap();
    let filter = Filter {
        id: None,
        tournament: Some("x".into()),
        kind: Some("table".into()),
    };
    let mut sub = log.subscribe(filter, 0).await.unwrap();
    let mut follower = HandFollower::default();
    for round in 0..500u64 {
        let seating = c.seating_state("x").await.unwrap();
        if seating.room().players() <= 1 {
            break;
        }
        let tables: Vec<u32> = seating.room().tables.keys().copied().collect();
        drop(seating);
        for table in tables {
            let deck = Seed::from_u64(round << 8 | u64::from(table));
            if let Begin::Started(_, state, _) =
                c.begin_hand("x", table, T0, &move |_| deck).await.unwrap()
            {
                let mut state = (*state).clone();
                // Blinds that put every player all in play the hand out
                // as it starts.
                let Some(number) = state.hand().map(|h| h.number) else {
                    continue;
                };
                let mut k = 0;
                while let Some(command) = all_in_pair(&state) {
                    k += 1;
                    let id = format!("t{table}-h{number}-{k}");
                    state = (*c.table("x", table, &id, T0, command).await.unwrap().state).clone();
                }
            }
        }
        catch_up(&c, &mut follower, &mut sub).await;
    }
    let seating = c.seating_state("x").await.unwrap();
    assert_eq!(seating.room().players(), 1, "played to a winner");
    let mut chips = 0u128;
    let mut events = 0;
    for table in 1..=seating.room().last_table {
        let stream = felt_tablelog::stream("x", table).unwrap();
        let log_events = felt_tablelog::load(log.as_ref(), &stream).await.unwrap();
        events += log_events.len();
        assert!(
            felt_table::check_awards(&log_events).is_ok(),
            "table {table}"
        );
        let state = felt_table::replay(&log_events);
        chips += state
            .seats()
            .iter()
            .flatten()
            .map(|s| u128::from(s.stack))
            .sum::<u128>();
    }
    assert!(events > 0);
    let payout = c.payout_state("x").await.unwrap();
    let pool = u128::from(payout.pool().unwrap().prize_pool);
    let paid = payout.entries().values().map(|e| u128::from(e.prize)).sum();
    Ok((chips, pool, paid))
}

/// An amount from `small` up to a bound, or past it.
fn edge(small: u64, bound: u64, k: u64) -> u64 {
    match k % 4 {
        0 => small + k % 1_000,
        1 => bound / 2,
        2 => bound,
        _ => bound.saturating_add(1 + k % 3),
    }
}

/// Seating and payout each keep their bound on the field (neither depends
/// on the other); they must be the same bound. (Chips have one bound,
/// `felt_vocabulary::MAX_CHIPS`.)
#[test]
fn seating_and_payout_keep_the_same_bound_on_the_field() {
    assert_eq!(felt_seating::MAX_ENTRIES, felt_payout::MAX_FIELD);
}

#[tokio::test]
async fn the_largest_amounts_play_to_a_winner_and_one_more_is_refused() {
    let stack = MAX_CHIPS / u64::from(MAX_ENTRIES);
    let fee = MAX_ENTRY_PRICE / 10;
    let buy_in = MAX_ENTRY_PRICE - fee;
    let (chips, pool, paid) = to_a_winner(&spec(stack, buy_in, fee, 0))
        .await
        .expect("at the bounds");
    assert_eq!(chips, u128::from(ENTRIES) * u128::from(stack));
    assert_eq!(pool, u128::from(ENTRIES) * u128::from(buy_in));
    assert_eq!(paid, pool);
    // The guarantee at its bound covers the overlay, exactly.
    let (_, pool, paid) = to_a_winner(&spec(stack, buy_in, fee, MAX_POOL))
        .await
        .expect("the largest guarantee");
    assert_eq!((pool, paid), (u128::from(MAX_POOL), u128::from(MAX_POOL)));
    // One more of any, and the creation is refused naming the bound.
    for (what, spec, bound) in [
        ("a stack", spec(stack + 1, buy_in, fee, 0), MAX_CHIPS),
        ("a price", spec(stack, buy_in + 1, fee, 0), MAX_ENTRY_PRICE),
        (
            "a guarantee",
            spec(stack, buy_in, fee, MAX_POOL + 1),
            MAX_POOL,
        ),
    ] {
        let refused = to_a_winner(&spec).await.expect_err(what);
        assert!(refused.contains(&bound.to_string()), "{what}: {refused}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn extreme_amounts_are_refused_at_creation_or_stay_exact_to_the_end(
        stack_k in any::<u64>(),
        price_k in any::<u64>(),
        guarantee_k in any::<u64>(),
    ) {
        let stack = edge(1, MAX_CHIPS / u64::from(MAX_ENTRIES), stack_k);
        let buy_in = edge(10_000, MAX_ENTRY_PRICE, price_k);
        let fee = buy_in / 10;
        let guarantee = if guarantee_k.is_multiple_of(2) { 0 } else { edge(100_000, MAX_POOL, guarantee_k / 2) };
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let outcome = runtime.block_on(to_a_winner(&spec(stack, buy_in, fee, guarantee)));
        let fits = u128::from(stack) * u128::from(MAX_ENTRIES) <= u128::from(MAX_CHIPS)
            && u128::from(buy_in) + u128::from(fee) <= u128::from(MAX_ENTRY_PRICE)
            && guarantee <= MAX_POOL;
        match outcome {
            Err(e) => prop_assert!(!fits, "refused within the bounds: {}", e),
            Ok((chips, pool, paid)) => {
                prop_assert!(fits);
                prop_assert_eq!(chips, u128::from(ENTRIES) * u128::from(stack), "every chip is on a table");
                prop_assert_eq!(pool, (u128::from(buy_in) * u128::from(ENTRIES)).max(u128::from(guarantee)));
                prop_assert_eq!(paid, pool, "the prizes add up to the pool");
            }
        }
    }
}
