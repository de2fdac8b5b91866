//! The Independent Chip Model (Malmuth–Harville): a player finishes first
//! with probability stack / total chips; given who finished above, the
//! next place is drawn the same way among the rest. A player's equity is
//! the expected prize over all finishing orders.
//!
//! Computed exactly by dynamic programming over the subsets of players
//! already placed from the top: `p(S)` is the probability that the players
//! in `S` took places 1..|S| in some order; from `S`, player `j ∉ S` takes
//! place |S|+1 with probability `stack_j / (total − chips(S))`. That is
//! `O(2^n · n)` work instead of `n!` orders: 20 players is the limit.

use crate::{Money, PayoutError};

/// The most players [`equities`] computes exactly.
pub const MAX_PLAYERS: usize = 20;

/// Each player's expected prize (in the prizes' unit), by the
/// Malmuth–Harville model. `prizes[k]` is the prize for place k+1; places
/// beyond the prizes win nothing, and prizes beyond the players are not
/// reachable (there is no one to finish there) and are ignored.
pub fn equities(stacks: &[u64], prizes: &[Money]) -> Result<Vec<f64>, PayoutError> {
    let n = stacks.len();
    if n == 0 {
        return Err(PayoutError::NoPlayers);
    }
    if n > MAX_PLAYERS {
        return Err(PayoutError::TooManyForIcm {
            players: n,
            max: MAX_PLAYERS,
        });
    }
    if let Some(i) = stacks.iter().position(|&s| s == 0) {
        return Err(PayoutError::EmptyStack { index: i });
    }
    let places = prizes.len().min(n);
    let total: u64 = stacks.iter().sum();
    let stacks_f: Vec<f64> = stacks.iter().map(|&s| s as f64).collect();
    let mut equity = vec![0.0; n];
    // Probability of each subset having taken the top |S| places; only
    // subsets smaller than the number of prizes are expanded.
    let mut p = vec![0.0f64; 1 << n];
    // Chips held by the players of each subset.
    let mut chips = vec![0u64; 1 << n];
    for mask in 1usize..(1 << n) {
        let low = mask.trailing_zeros() as usize;
        chips[mask] = chips[mask & (mask - 1)] + stacks[low];
    }
    p[0] = 1.0;
    for mask in 0usize..(1 << n) {
        let pm = p[mask];
        if pm == 0.0 {
            continue;
        }
        let placed = mask.count_ones() as usize;
        if placed >= places {
            continue;
        }
        let left = (total - chips[mask]) as f64;
        let prize = prizes[placed] as f64;
        for (j, &s) in stacks_f.iter().enumerate() {
            if mask & (1 << j) == 0 {
                let q = pm * s / left;
                equity[j] += q * prize;
                p[mask | (1 << j)] += q;
            }
        }
    }
    Ok(equity)
}

/// Splits `total` minor units exactly in proportion to `shares` (which need
/// not be integers): each gets the floor of its share, and the units left
/// go one each to the largest fractional parts (ties to the lower index).
pub fn apportion(total: Money, shares: &[f64]) -> Vec<Money> {
    let sum: f64 = shares.iter().sum();
    if shares.is_empty() || sum <= 0.0 {
        return vec![0; shares.len()];
    }
    let exact: Vec<f64> = shares.iter().map(|s| s / sum * total as f64).collect();
    let mut out: Vec<Money> = exact.iter().map(|e| e.floor() as Money).collect();
    // Floating point may overshoot by a unit: take it back from the
    // smallest fractional parts.
    let mut given: Money = out.iter().sum();
    while given > total {
        if let Some(i) = (0..out.len()).filter(|&i| out[i] > 0).min_by(|&a, &b| {
            (exact[a] - exact[a].floor()).total_cmp(&(exact[b] - exact[b].floor()))
        }) {
            out[i] -= 1;
        }
        given -= 1;
    }
    let mut left = total - given;
    let mut order: Vec<usize> = (0..shares.len()).collect();
    order.sort_by(|&a, &b| {
        let fa = exact[a] - exact[a].floor();
        let fb = exact[b] - exact[b].floor();
        fb.total_cmp(&fa).then(a.cmp(&b))
    });
    for &i in order.iter().cycle() {
        if left == 0 {
            break;
        }
        out[i] += 1;
        left -= 1;
    }
    out
}
