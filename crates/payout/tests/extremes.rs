//! Extreme amounts of money: settings whose totals could overflow are
//! refused at configuration, and whatever is accepted stays exact to the
//! minor unit for every field up to the largest (counted here in 128 bits,
//! where nothing wraps).

use felt_payout::EntryId;
use felt_payout::{
    Command, MAX_ENTRY_PRICE, MAX_FIELD, MAX_POOL, MoneySettings, PayoutError, PayoutEvent,
    PayoutState, SimultaneousBusts, decide,
};
use proptest::prelude::*;

fn configure(settings: MoneySettings) -> Command {
    Command::Configure {
        name: "High Roller".into(),
        settings,
        busts: SimultaneousBusts::ShareAcrossTables,
    }
}

fn apply(state: &mut PayoutState, events: &[PayoutEvent]) {
    for e in events {
        state.apply(e);
    }
}

#[test]
fn a_buy_in_whose_pool_would_wrap_is_refused_at_configuration() {
    // The probe: a buy-in of 2^64 - 1 with three entries gave a prize pool
    // of 2^64 - 3.
    // Given nothing, when configured with that buy-in, then refused.
    let settings = MoneySettings::generated(u64::MAX, 0);
    let refused = decide(&PayoutState::default(), &configure(settings));
    let Err(PayoutError::TooMuch { what, max }) = refused else {
        panic!("{refused:?}");
    };
    assert_eq!(max, MAX_ENTRY_PRICE);
    assert!(what.contains("buy-in"), "{what}");
    // The largest price that fits is taken, and its pool is exact.
    let mut state = PayoutState::default();
    let settings = MoneySettings::generated(MAX_ENTRY_PRICE, 0);
    let events = decide(&state, &configure(settings)).expect("the largest price");
    apply(&mut state, &events);
    for entry in 1..=3 {
        let events = decide(
            &state,
            &Command::RecordEntry {
                entry: EntryId(entry),
                player: format!("p{entry}").parse().unwrap(),
            },
        )
        .expect("an entry");
        apply(&mut state, &events);
    }
    let events = decide(&state, &Command::CloseRegistration).expect("closed");
    apply(&mut state, &events);
    let pool = state.pool().expect("a pool");
    assert_eq!(pool.prize_pool, 3 * MAX_ENTRY_PRICE);
    assert_eq!(
        state.sheet().expect("a sheet").total(),
        pool.prize_pool,
        "the sheet pays the pool exactly"
    );
}

#[test]
fn a_guarantee_past_the_largest_pool_and_a_currency_that_is_no_code_are_refused() {
    let mut settings = MoneySettings::generated(1_000, 100);
    settings.guarantee = MAX_POOL + 1;
    assert!(matches!(
        decide(&PayoutState::default(), &configure(settings)),
        Err(PayoutError::TooMuch { max: MAX_POOL, .. })
    ));
    let mut settings = MoneySettings::generated(1_000, 100);
    settings.currency = "dollars of the realm".into();
    let refused = decide(&PayoutState::default(), &configure(settings)).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "invalid payout structure: the currency is an ISO 4217 code of three capital letters, not \"dollars of the r…\""
    );
}

/// An amount from the edges.
fn extreme(k: u64) -> u64 {
    match k % 6 {
        0 => k / 6 % 100_000,
        1 => MAX_ENTRY_PRICE / 4,
        2 => MAX_ENTRY_PRICE,
        3 => MAX_ENTRY_PRICE + 1,
        4 => MAX_POOL,
        _ => u64::MAX - k / 6 % 3,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Settings are refused, or every total of any field is exact.
    #[test]
    fn accepted_settings_keep_every_total_exact(
        amounts in prop::array::uniform5(any::<u64>().prop_map(extreme)),
        entries in prop_oneof![1u32..50, Just(MAX_FIELD)],
        add_ons in 0u32..50,
    ) {
        let [buy_in, fee, bounty, add_on, guarantee] = amounts;
        let mut settings = MoneySettings::generated(buy_in, fee);
        settings.bounty = bounty;
        settings.add_on = add_on;
        settings.guarantee = guarantee;
        let price = u128::from(buy_in) + u128::from(fee) + u128::from(bounty) + u128::from(add_on);
        match decide(&PayoutState::default(), &configure(settings.clone())) {
            Err(_) => prop_assert!(
                price > u128::from(MAX_ENTRY_PRICE)
                    || guarantee > MAX_POOL
                    || (buy_in == 0 && guarantee == 0)
            ),
            Ok(_) => {
                prop_assert!(price <= u128::from(MAX_ENTRY_PRICE) && guarantee <= MAX_POOL);
                let pool = settings.pool(entries, add_ons.min(entries)).expect("a pool");
                let collected = u128::from(buy_in) * u128::from(entries)
                    + u128::from(add_on) * u128::from(add_ons.min(entries));
                prop_assert_eq!(u128::from(pool.collected), collected);
                prop_assert_eq!(u128::from(pool.prize_pool), collected.max(u128::from(guarantee)));
                prop_assert_eq!(u128::from(pool.fees), u128::from(fee) * u128::from(entries));
                prop_assert_eq!(u128::from(pool.bounties), u128::from(bounty) * u128::from(entries));
                if let Ok(sheet) = settings.sheet(entries, add_ons.min(entries)) {
                    prop_assert_eq!(sheet.total(), pool.prize_pool);
                }
            }
        }
    }
}
