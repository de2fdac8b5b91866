//! The fast evaluator against a slow, obviously correct one.

use felt_cards::{Card, Category, Hand, evaluate};
use proptest::prelude::*;

/// Category (0 = high card … 8 = straight flush) and tie-break ranks of five
/// cards, written the way the rule book defines them.
fn reference5(five: &[Card]) -> (u8, Vec<u8>) {
    let mut ranks: Vec<u8> = five.iter().map(|c| c.rank().index()).collect();
    ranks.sort_unstable_by(|a, b| b.cmp(a));
    let flush = five.iter().all(|c| c.suit() == five[0].suit());
    let distinct = {
        let mut r = ranks.clone();
        r.dedup();
        r.len() == 5
    };
    let straight_top = if distinct && ranks[0] - ranks[4] == 4 {
        Some(ranks[0])
    } else if ranks == [12, 3, 2, 1, 0] {
        Some(3)
    } else {
        None
    };
    // Groups of equal rank, biggest group first, then higher rank first.
    let mut groups: Vec<(usize, u8)> = Vec::new();
    for &r in &ranks {
        match groups.iter_mut().find(|g| g.1 == r) {
            Some(g) => g.0 += 1,
            None => groups.push((1, r)),
        }
    }
    groups.sort_unstable_by(|a, b| b.cmp(a));
    let shape: Vec<usize> = groups.iter().map(|g| g.0).collect();
    let by_groups: Vec<u8> = groups.iter().map(|g| g.1).collect();
    match (straight_top, flush, shape.as_slice()) {
        (Some(top), true, _) => (8, vec![top]),
        (_, _, [4, 1]) => (7, by_groups),
        (_, _, [3, 2]) => (6, by_groups),
        (_, true, _) => (5, ranks),
        (Some(top), false, _) => (4, vec![top]),
        (_, _, [3, 1, 1]) => (3, by_groups),
        (_, _, [2, 2, 1]) => (2, by_groups),
        (_, _, [2, 1, 1, 1]) => (1, by_groups),
        _ => (0, ranks),
    }
}

/// The best of every five-card subset.
fn reference(cards: &[Card]) -> (u8, Vec<u8>) {
    let n = cards.len();
    let mut best = (0, vec![]);
    for skip in 0..(1u32 << n) {
        if skip.count_ones() as usize == n - 5 {
            let five: Vec<Card> = (0..n)
                .filter(|i| skip >> i & 1 == 0)
                .map(|i| cards[i])
                .collect();
            best = best.max(reference5(&five));
        }
    }
    best
}

fn hand() -> impl Strategy<Value = Vec<Card>> {
    proptest::sample::subsequence((0u8..52).collect::<Vec<_>>(), 5..=7)
        .prop_shuffle()
        .prop_map(|ix| {
            ix.into_iter()
                .map(|i| Card::from_index(i).unwrap())
                .collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn agrees_with_the_reference(a in hand(), b in hand()) {
        let (fa, fb) = (evaluate(&a).unwrap(), evaluate(&b).unwrap());
        let (ra, rb) = (reference(&a), reference(&b));
        prop_assert_eq!(fa.category() as u8, ra.0);
        prop_assert_eq!(fb.category() as u8, rb.0);
        prop_assert_eq!(fa.rank.cmp(&fb.rank), ra.cmp(&rb), "{:?} vs {:?}", a, b);
        // The best five cards make the whole hand's strength.
        prop_assert_eq!(reference5(&fa.best), ra);
        prop_assert_eq!(Hand::from_cards(&fa.best).unwrap().rank(), fa.rank);
    }

    #[test]
    fn order_of_cards_does_not_matter(mut a in hand()) {
        let before = evaluate(&a).unwrap();
        a.reverse();
        prop_assert_eq!(evaluate(&a).unwrap(), before);
    }
}

#[test]
fn reference_knows_the_categories() {
    let check = |s: &str, cat: Category| {
        let cards = Card::parse_many(s).unwrap();
        assert_eq!(reference(&cards).0, cat as u8, "{s}");
        assert_eq!(evaluate(&cards).unwrap().category(), cat, "{s}");
    };
    check("Ah 2h 3h 4h 5h 9c Kd", Category::StraightFlush);
    check("9c 9d 9h 9s 2c", Category::FourOfAKind);
    check("9c 9d 9h 2s 2c 2d", Category::FullHouse);
    check("Ac 9c 7c 5c 2c", Category::Flush);
    check("Ac 2d 3c 4c 5h", Category::Straight);
    check("9c 9d 9h 3s 2c", Category::ThreeOfAKind);
    check("9c 9d 3h 3s 2c 2d Ks", Category::TwoPair);
    check("9c 9d 3h 4s 2c", Category::Pair);
    check("Ac Jd 3h 4s 2c", Category::HighCard);
}
