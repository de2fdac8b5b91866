//! ICM, chip chops, saves and agreed amounts.

use felt_payout::EntryId;
use felt_payout::{DealMethod, DealTerms, PayoutError, deal, icm};
use proptest::prelude::*;

/// Malmuth–Harville by walking every finishing order (for checking).
fn brute_force(stacks: &[u64], prizes: &[u64]) -> Vec<f64> {
    fn walk(
        stacks: &[u64],
        prizes: &[u64],
        left: &mut Vec<usize>,
        p: f64,
        place: usize,
        out: &mut [f64],
    ) {
        if place >= prizes.len() || left.is_empty() {
            return;
        }
        let total: u64 = left.iter().map(|&i| stacks[i]).sum();
        for k in 0..left.len() {
            let i = left[k];
            let q = p * stacks[i] as f64 / total as f64;
            out[i] += q * prizes[place] as f64;
            left.remove(k);
            walk(stacks, prizes, left, q, place + 1, out);
            left.insert(k, i);
        }
    }
    let mut out = vec![0.0; stacks.len()];
    walk(
        stacks,
        prizes,
        &mut (0..stacks.len()).collect(),
        1.0,
        0,
        &mut out,
    );
    out
}

fn terms(stacks: &[u64], method: DealMethod, play_for: u64) -> DealTerms {
    DealTerms {
        players: stacks
            .iter()
            .enumerate()
            .map(|(i, &s)| (EntryId(i as u64 + 1), s))
            .collect(),
        method,
        play_for,
    }
}

#[test]
fn the_worked_chop_example_by_icm() {
    // Stacks 100k/70k/50k/20k, prizes 200/120/80/50.
    let eq = icm::equities(&[100_000, 70_000, 50_000, 20_000], &[200, 120, 80, 50]).unwrap();
    let rounded: Vec<f64> = eq.iter().map(|e| (e * 100.0).round() / 100.0).collect();
    assert_eq!(rounded, vec![140.84, 123.80, 108.96, 76.40]);
    // In cents, exactly the 450 to be won.
    let stacks = [100_000, 70_000, 50_000, 20_000];
    let result = deal(
        &terms(&stacks, DealMethod::Icm, 0),
        &[20_000, 12_000, 8_000, 5_000],
    )
    .unwrap();
    assert_eq!(
        result.guaranteed,
        vec![
            (EntryId(1), 14_084),
            (EntryId(2), 12_380),
            (EntryId(3), 10_896),
            (EntryId(4), 7_640)
        ]
    );
    assert_eq!(result.total(), 45_000);
}

#[test]
fn the_worked_chop_example_by_chip_chop() {
    // The last prize to each, the rest in proportion to chips:
    // 154.17/122.92/102.08/70.83.
    let stacks = [100_000, 70_000, 50_000, 20_000];
    let result = deal(
        &terms(&stacks, DealMethod::ChipChop, 0),
        &[20_000, 12_000, 8_000, 5_000],
    )
    .unwrap();
    assert_eq!(
        result.guaranteed,
        vec![
            (EntryId(1), 15_417),
            (EntryId(2), 12_292),
            (EntryId(3), 10_208),
            (EntryId(4), 7_083)
        ]
    );
    assert_eq!(result.total(), 45_000);
}

#[test]
fn a_deal_may_leave_money_to_play_for() {
    let stacks = [100_000, 70_000, 50_000, 20_000];
    let result = deal(
        &terms(&stacks, DealMethod::Icm, 2_000),
        &[20_000, 12_000, 8_000, 5_000],
    )
    .unwrap();
    assert_eq!(result.play_for, vec![2_000, 0, 0, 0]);
    assert_eq!(result.total(), 45_000);
    let guaranteed: u64 = result.guaranteed.iter().map(|g| g.1).sum();
    assert_eq!(guaranteed, 43_000);
}

#[test]
fn a_save_raises_places_from_first_place_money() {
    let stacks = [100_000, 70_000, 50_000];
    let result = deal(
        &terms(
            &stacks,
            DealMethod::Save {
                amount: 1_000,
                places: 2,
            },
            0,
        ),
        &[20_000, 12_000, 8_000],
    )
    .unwrap();
    assert!(result.guaranteed.is_empty());
    assert_eq!(result.play_for, vec![18_000, 13_000, 9_000]);
    let err = deal(
        &terms(
            &stacks,
            DealMethod::Save {
                amount: 5_000,
                places: 2,
            },
            0,
        ),
        &[20_000, 12_000, 8_000],
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("lower place more than a higher one"),
        "{err}"
    );
}

#[test]
fn agreed_amounts_must_add_up() {
    let stacks = [100_000, 70_000];
    let err = deal(
        &terms(&stacks, DealMethod::Amounts(vec![15_000, 15_000]), 0),
        &[20_000, 12_000],
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the deal does not add up: the amounts add up to 30000 and 0 is left to play for, but 32000 is to be won"
    );
    let ok = deal(
        &terms(&stacks, DealMethod::Amounts(vec![17_000, 15_000]), 0),
        &[20_000, 12_000],
    )
    .unwrap();
    assert_eq!(
        ok.guaranteed,
        vec![(EntryId(1), 17_000), (EntryId(2), 15_000)]
    );
}

#[test]
fn icm_refuses_more_players_than_it_computes_exactly() {
    let stacks = vec![1_000; 21];
    let prizes = vec![100; 21];
    assert_eq!(
        icm::equities(&stacks, &prizes),
        Err(PayoutError::TooManyForIcm {
            players: 21,
            max: 20
        })
    );
    // Twenty is exact, and equal stacks get equal shares.
    let eq = icm::equities(&stacks[..20], &prizes[..20]).unwrap();
    for e in eq {
        assert!((e - 100.0).abs() < 1e-6);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn icm_matches_every_finishing_order_and_sums_to_the_prizes(
        stacks in proptest::collection::vec(1u64..1_000_000, 2..=8),
        mut prizes in proptest::collection::vec(0u64..1_000_000, 1..=8),
    ) {
        prizes.sort_unstable_by(|a, b| b.cmp(a));
        let dp = icm::equities(&stacks, &prizes).unwrap();
        let bf = brute_force(&stacks, &prizes);
        for (a, b) in dp.iter().zip(&bf) {
            prop_assert!((a - b).abs() <= 1e-6 * (1.0 + b.abs()), "{a} vs {b}");
        }
        let reachable: u64 = prizes.iter().take(stacks.len()).sum();
        let sum: f64 = dp.iter().sum();
        prop_assert!((sum - reachable as f64).abs() < 1e-6 * (1.0 + reachable as f64));
        // Bigger stacks never have less equity.
        for i in 0..stacks.len() {
            for j in 0..stacks.len() {
                if stacks[i] > stacks[j] {
                    prop_assert!(dp[i] >= dp[j] - 1e-9);
                }
            }
        }
    }

    #[test]
    fn icm_and_chop_deals_pay_exactly_what_is_left(
        stacks in proptest::collection::vec(1u64..1_000_000, 2..=9),
        top in 1_000u64..10_000_000,
        play_for_share in 0u64..50,
        chop in any::<bool>(),
    ) {
        let n = stacks.len();
        let prizes: Vec<u64> = (0..n as u64).map(|i| top / (i + 1)).collect();
        let total: u64 = prizes.iter().sum();
        let play_for = prizes[0] * play_for_share / 100;
        let method = if chop { DealMethod::ChipChop } else { DealMethod::Icm };
        let result = deal(&terms(&stacks, method, play_for), &prizes).unwrap();
        prop_assert_eq!(result.total(), total);
        prop_assert_eq!(result.play_for[0], play_for);
    }
}
