//! Pay sheets: the posted table, the generated structure, their invariants.

use felt_payout::{
    Curve, MoneySettings, PaySheet, PayoutError, PercentRow, PercentTable, Structure,
};
use proptest::prelude::*;

#[test]
fn the_club_table_pays_four_of_27_and_gives_the_odd_reais_to_the_winner() {
    // Seed 003: 27 players at R$ 40 to the pool: R$ 1,080.
    let settings = MoneySettings::club();
    let pool = settings.pool(27, 0).unwrap();
    assert_eq!(pool.prize_pool, 108_000);
    assert_eq!(pool.fees, 27_000);
    let sheet = settings.sheet(27, 0).unwrap();
    // 45% 27% 17% 11% of 1,080 = 486, 291.60, 183.60, 118.80: whole reais
    // down, the R$ 2 left to the winner.
    assert_eq!(sheet.prizes(), vec![48_800, 29_100, 18_300, 11_800]);
    sheet.check().unwrap();
}

#[test]
fn a_posted_table_refuses_a_field_it_does_not_cover_and_bad_rows() {
    let settings = MoneySettings::club();
    assert_eq!(
        settings.sheet(61, 0),
        Err(PayoutError::FieldTooLarge {
            entries: 61,
            max: 60
        })
    );
    let bad = PercentTable {
        rows: vec![PercentRow {
            max_entries: 10,
            basis_points: vec![6000, 3000],
        }],
        unit: 100,
    };
    let err = bad.check().unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid payout structure: row for up to 10 entries: percentages add up to 90.00%, not 100%"
    );
    let upside_down = PercentTable {
        rows: vec![PercentRow {
            max_entries: 10,
            basis_points: vec![4000, 6000],
        }],
        unit: 100,
    };
    assert!(
        upside_down
            .check()
            .unwrap_err()
            .to_string()
            .contains("lower place is paid more")
    );
}

#[test]
fn a_guarantee_adds_the_overlay() {
    let mut settings = MoneySettings::club();
    settings.guarantee = 200_000;
    let pool = settings.pool(27, 0).unwrap();
    assert_eq!(pool.collected, 108_000);
    assert_eq!(pool.overlay, 92_000);
    assert_eq!(pool.prize_pool, 200_000);
    // Above the guarantee, no overlay.
    assert_eq!(settings.pool(60, 0).unwrap().overlay, 0);
    settings.add_on = 2_000;
    assert_eq!(
        settings.pool(60, 10).unwrap().collected,
        60 * 4_000 + 10 * 2_000
    );
}

#[test]
fn ten_thousand_entries_pay_15_percent_with_a_min_cash_of_one_and_a_half_buy_ins() {
    // $10,000 buy-in, no fee, 10,000 entries: $100 million.
    let settings = MoneySettings::generated(1_000_000, 0);
    let sheet = settings.sheet(10_000, 0).unwrap();
    sheet.check().unwrap();
    assert_eq!(sheet.pool, 10_000 * 1_000_000);
    assert_eq!(sheet.paid(), 1_500);
    let prizes = sheet.prizes();
    // Minimum cash 1.5 × $10,000.
    assert_eq!(*prizes.last().unwrap(), 1_500_000);
    // The final table is paid place by place, then bands.
    for b in &sheet.bands[..9] {
        assert_eq!(b.first, b.last);
    }
    assert_eq!((sheet.bands[9].first, sheet.bands[9].last), (10, 12));
    // Steeper at the top: first is more than second by more than
    // ninth is more than tenth.
    assert!(prizes[0] - prizes[1] > prizes[8] - prizes[9]);
    // Every amount below the winner's is nice: at most two significant figures
    // of a 1-5 step.
    for b in &sheet.bands[1..] {
        let dollars = b.each / 100;
        let digits = dollars.to_string();
        let trailing_zeros = digits.len() - digits.trim_end_matches('0').len();
        assert!(
            digits.len() - trailing_zeros <= 3,
            "{} for places {}-{} is not a nice amount",
            dollars,
            b.first,
            b.last
        );
    }
    assert!(sheet.bands.len() < 80, "{} bands", sheet.bands.len());
}

#[test]
fn the_2024_wsop_standard_two_buy_ins_min_cash_is_a_setting() {
    let mut settings = MoneySettings::generated(1_000_000, 0);
    settings.structure = Structure::Generated(Curve {
        min_cash_permille: 2000,
        ..Curve::default()
    });
    let sheet = settings.sheet(10_000, 0).unwrap();
    assert_eq!(*sheet.prizes().last().unwrap(), 2_000_000);
    sheet.check().unwrap();
}

#[test]
fn a_small_pool_pays_fewer_places_than_the_share_asks_rather_than_less_than_the_min_cash() {
    // 4 entries of $100 with a $100 guarantee... 3 entries: 15% is 1 place.
    let settings = MoneySettings::generated(10_000, 0);
    let one = settings.sheet(3, 0).unwrap();
    assert_eq!(one.prizes(), vec![30_000]);
    // 20 entries: 3 places, min cash $150.
    let sheet = settings.sheet(20, 0).unwrap();
    assert_eq!(sheet.paid(), 3);
    assert!(sheet.prizes().iter().all(|&p| p >= 15_000));
    sheet.check().unwrap();
}

#[test]
fn a_sheet_that_does_not_add_up_is_refused() {
    let sheet = PaySheet::from_prizes(1_000, &[600, 300]);
    assert_eq!(
        sheet.check(),
        Err(PayoutError::SheetDoesNotAddUp {
            total: 900,
            pool: 1_000
        })
    );
    let sheet = PaySheet::from_prizes(1_000, &[400, 600]);
    assert!(matches!(
        sheet.check(),
        Err(PayoutError::InvalidSheet { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn generated_sheets_sum_to_the_pool_and_never_pay_a_lower_place_more(
        entries in 2u32..20_000,
        buy_in_units in 1u64..20_000,
        fee_percent in 0u64..20,
        guarantee_units in 0u64..2_000_000,
        paid_permille in 50u32..400,
        min_cash_permille in 1000u32..2500,
        steepness_milli in 500u32..1600,
    ) {
        let buy_in = buy_in_units * 100;
        let mut settings = MoneySettings::generated(buy_in, buy_in * fee_percent / 100);
        settings.guarantee = guarantee_units * 100;
        settings.structure = Structure::Generated(Curve {
            paid_permille,
            min_cash_permille,
            steepness_milli,
            ..Curve::default()
        });
        let sheet = settings.sheet(entries, 0).unwrap();
        prop_assert_eq!(sheet.total(), settings.pool(entries, 0).unwrap().prize_pool);
        let prizes = sheet.prizes();
        for w in prizes.windows(2) {
            prop_assert!(w[0] >= w[1]);
        }
        prop_assert!(sheet.paid() <= entries);
        prop_assert!(sheet.paid() >= 1);
        sheet.check().unwrap();
    }

    #[test]
    fn the_club_table_sums_to_the_pool(entries in 1u32..=60, buy_in in 1u64..100_000) {
        let mut settings = MoneySettings::club();
        settings.buy_in = buy_in;
        let sheet = settings.sheet(entries, 0).unwrap();
        prop_assert_eq!(sheet.total(), buy_in * u64::from(entries));
        sheet.check().unwrap();
    }
}
