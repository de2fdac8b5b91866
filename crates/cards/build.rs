//! Generates the evaluator's lookup tables at build time (no runtime
//! initialisation, no lazy statics on the hot path).
//!
//! Non-flush hands are looked up by the sum of per-card rank keys, compressed
//! by a row-displacement perfect hash; flushes by the 13-bit mask of the
//! flush suit's ranks. See `src/eval.rs` for the evaluation side.

use std::collections::HashMap;
use std::fmt::Write as _;

// Rank keys: every card of rank r adds BASE + DELTAS[r]. DELTAS was found by
// a greedy search so that, for every card count n, all multisets of n ranks
// (at most four of each) have distinct delta sums; BASE exceeds the largest
// delta sum of 5 and of 6 cards, so the key ranges of 5, 6 and 7 cards do not
// overlap. The build checks both facts again below and fails if either breaks.
const DELTAS: [u64; 13] = [
    0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181,
];
const BASE: u64 = 7_189_415;
const ROW_SHIFT: u32 = 10;

/// Category codes, weakest first.
const HIGH_CARD: u32 = 0;
const PAIR: u32 = 1;
const TWO_PAIR: u32 = 2;
const TRIPS: u32 = 3;
const STRAIGHT: u32 = 4;
const FLUSH: u32 = 5;
const FULL_HOUSE: u32 = 6;
const QUADS: u32 = 7;
const STRAIGHT_FLUSH: u32 = 8;

/// A totally ordered code of a five-card hand: category, then up to five
/// ranks in order of significance, four bits each.
fn encode(category: u32, ranks: &[u32]) -> u32 {
    let mut v = category;
    for i in 0..5 {
        v = (v << 4) | ranks.get(i).map_or(0, |r| r + 1);
    }
    v
}

/// Top rank of the best straight in a rank mask (ace plays low in the wheel).
fn straight_top(mask: u32) -> Option<u32> {
    let wheel = 0b1_0000_0000_1111;
    (4..13)
        .rev()
        .find(|&top| (mask >> (top - 4)) & 0b11111 == 0b11111)
        .or(if mask & wheel == wheel { Some(3) } else { None })
}

/// Ranks present with at least `min` copies, highest first, skipping `skip`.
fn ranks_with(counts: &[u8; 13], min: u8, skip: &[u32]) -> Vec<u32> {
    (0..13u32)
        .rev()
        .filter(|r| counts[*r as usize] >= min && !skip.contains(r))
        .collect()
}

/// The best non-flush five-card hand contained in a multiset of 5 to 7 ranks.
fn best_without_flush(counts: &[u8; 13]) -> u32 {
    let mask = (0..13).fold(0u32, |m, r| if counts[r] > 0 { m | 1 << r } else { m });
    if let Some(&q) = ranks_with(counts, 4, &[]).first() {
        return encode(QUADS, &[q, ranks_with(counts, 1, &[q])[0]]);
    }
    let trips = ranks_with(counts, 3, &[]);
    if let Some(&t) = trips.first()
        && let Some(&p) = ranks_with(counts, 2, &[t]).first()
    {
        return encode(FULL_HOUSE, &[t, p]);
    }
    if let Some(top) = straight_top(mask) {
        return encode(STRAIGHT, &[top]);
    }
    if let Some(&t) = trips.first() {
        let k = ranks_with(counts, 1, &[t]);
        return encode(TRIPS, &[t, k[0], k[1]]);
    }
    let pairs = ranks_with(counts, 2, &[]);
    if pairs.len() >= 2 {
        let k = ranks_with(counts, 1, &[pairs[0], pairs[1]]);
        return encode(TWO_PAIR, &[pairs[0], pairs[1], k[0]]);
    }
    if let Some(&p) = pairs.first() {
        let k = ranks_with(counts, 1, &[p]);
        return encode(PAIR, &[p, k[0], k[1], k[2]]);
    }
    encode(HIGH_CARD, &ranks_with(counts, 1, &[])[..5])
}

/// The best five-card hand among the ranks of one suit (at least five).
fn best_flush(mask: u32) -> u32 {
    match straight_top(mask) {
        Some(top) => encode(STRAIGHT_FLUSH, &[top]),
        None => {
            let ranks: Vec<u32> = (0..13u32).rev().filter(|r| mask >> r & 1 == 1).collect();
            encode(FLUSH, &ranks[..5])
        }
    }
}

/// Every multiset of `n` ranks with at most four of each.
fn multisets(n: u8) -> Vec<[u8; 13]> {
    fn go(rank: usize, left: u8, cur: &mut [u8; 13], out: &mut Vec<[u8; 13]>) {
        if rank == 13 {
            if left == 0 {
                out.push(*cur);
            }
            return;
        }
        for c in 0..=left.min(4) {
            cur[rank] = c;
            go(rank + 1, left - c, cur, out);
        }
        cur[rank] = 0;
    }
    let mut out = Vec::new();
    go(0, n, &mut [0; 13], &mut out);
    out
}

fn rank_key(counts: &[u8; 13]) -> u64 {
    (0..13)
        .map(|r| u64::from(counts[r]) * (BASE + DELTAS[r]))
        .sum()
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");

    // Dense strengths 1..=7462 from the five-card equivalence classes.
    let mut classes: Vec<u32> = multisets(5).iter().map(best_without_flush).collect();
    classes.extend(
        (0u32..1 << 13)
            .filter(|m| m.count_ones() == 5)
            .map(best_flush),
    );
    classes.sort_unstable();
    classes.dedup();
    assert_eq!(classes.len(), 7462, "five-card equivalence classes");
    let dense = |code: u32| -> u16 {
        let i = classes
            .binary_search(&code)
            .expect("every hand is a five-card class");
        u16::try_from(i + 1).expect("7462 fits in u16")
    };

    // Flush table, indexed by the flush suit's 13-bit rank mask.
    let flush: Vec<u16> = (0u32..1 << 13)
        .map(|m| {
            if m.count_ones() >= 5 {
                dense(best_flush(m))
            } else {
                0
            }
        })
        .collect();

    // Non-flush keys for 5, 6 and 7 cards, checked unique.
    let low = 5 * BASE;
    let mut entries: HashMap<u32, u16> = HashMap::new();
    for n in 5..=7u8 {
        let lo = u64::from(n) * BASE;
        for counts in multisets(n) {
            let key = rank_key(&counts);
            assert!(
                key >= lo && (n == 7 || key < lo + BASE),
                "key ranges of different counts overlap"
            );
            let idx = u32::try_from(key - low).expect("key fits in u32");
            let prev = entries.insert(idx, dense(best_without_flush(&counts)));
            assert!(prev.is_none(), "two rank multisets share key {key}");
        }
    }

    // Row-displacement perfect hash: rows of 2^ROW_SHIFT keys, each shifted
    // by an offset so that no two keys land in the same slot.
    let max_idx = *entries.keys().max().expect("entries") as usize;
    let nrows = (max_idx >> ROW_SHIFT) + 1;
    let mut rows: Vec<Vec<u32>> = vec![Vec::new(); nrows];
    for &idx in entries.keys() {
        rows[(idx >> ROW_SHIFT) as usize].push(idx & ((1 << ROW_SHIFT) - 1));
    }
    let mut order: Vec<usize> = (0..nrows).collect();
    order.sort_by_key(|&r| (std::cmp::Reverse(rows[r].len()), r));
    let mut used: Vec<bool> = Vec::new();
    let mut offsets = vec![0u32; nrows];
    let mut first_free = 0usize;
    for &r in &order {
        if rows[r].is_empty() {
            continue;
        }
        let min_col = *rows[r].iter().min().expect("non-empty") as usize;
        let mut start = first_free.saturating_sub(min_col);
        loop {
            if rows[r]
                .iter()
                .all(|&c| !used.get(start + c as usize).copied().unwrap_or(false))
            {
                break;
            }
            start += 1;
        }
        for &c in &rows[r] {
            let pos = start + c as usize;
            if used.len() <= pos {
                used.resize(pos + 1, false);
            }
            used[pos] = true;
        }
        while first_free < used.len() && used[first_free] {
            first_free += 1;
        }
        offsets[r] = (start as u32).wrapping_sub((r as u32) << ROW_SHIFT);
    }
    // Both tables are padded to powers of two so that lookups index them
    // with a mask: no bounds check and no panic on the hot path.
    offsets.resize(offsets.len().next_power_of_two(), 0);
    let mut table = vec![0u16; used.len().next_power_of_two()];
    for (&idx, &v) in &entries {
        let pos = idx.wrapping_add(offsets[(idx >> ROW_SHIFT) as usize]) as usize;
        assert_eq!(table[pos], 0, "perfect hash collision");
        table[pos] = v;
    }

    let mut out = String::new();
    let keys: Vec<u64> = DELTAS.iter().map(|d| BASE + d).collect();
    writeln!(out, "const RANK_KEYS: [u64; 13] = {keys:?};").unwrap();
    writeln!(out, "const KEY_LOW: u32 = {low};").unwrap();
    writeln!(out, "const ROW_SHIFT: u32 = {ROW_SHIFT};").unwrap();
    writeln!(
        out,
        "static ROW_OFFSETS: [u32; {}] = {:?};",
        offsets.len(),
        offsets
    )
    .unwrap();
    writeln!(
        out,
        "static RANK_TABLE: [u16; {}] = {:?};",
        table.len(),
        table
    )
    .unwrap();
    writeln!(
        out,
        "static FLUSH_TABLE: [u16; {}] = {:?};",
        flush.len(),
        flush
    )
    .unwrap();
    let path = std::path::Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("tables.rs");
    std::fs::write(path, out).expect("write tables.rs");
}
