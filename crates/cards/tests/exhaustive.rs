//! Every five-card and every seven-card hand, counted by category.

use felt_cards::{Card, Hand, evaluate};

fn category_counts(ranks: &[u64]) -> ([u64; 9], usize) {
    let mut counts = [0u64; 9];
    let mut distinct = 0;
    for (value, &n) in ranks.iter().enumerate().skip(1) {
        if n > 0 {
            distinct += 1;
            counts[felt_cards::HandRank(value as u16).category() as usize] += n;
        }
    }
    assert_eq!(ranks[0], 0, "no hand may evaluate to strength 0");
    (counts, distinct)
}

#[test]
fn all_five_card_hands() {
    let cards: Vec<Card> = Card::all().collect();
    let mut seen = vec![0u64; 7463];
    for a in 0..52 {
        for b in a + 1..52 {
            for c in b + 1..52 {
                for d in c + 1..52 {
                    for e in d + 1..52 {
                        let five = [cards[a], cards[b], cards[c], cards[d], cards[e]];
                        let hand = Hand::from_cards(&five).unwrap();
                        seen[hand.rank().0 as usize] += 1;
                    }
                }
            }
        }
    }
    let (counts, distinct) = category_counts(&seen);
    assert_eq!(distinct, 7462);
    assert_eq!(counts.iter().sum::<u64>(), 2_598_960);
    assert_eq!(
        counts,
        [
            1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 40
        ]
    );
}

#[test]
fn all_seven_card_hands() {
    let mut seen = vec![0u64; 7463];
    felt_cards::sample::for_each_seven_card_hand(|hand| seen[hand.rank().0 as usize] += 1);
    let (counts, distinct) = category_counts(&seen);
    assert_eq!(distinct, 4824);
    assert_eq!(counts.iter().sum::<u64>(), 133_784_560);
    assert_eq!(
        counts,
        [
            23_294_460, 58_627_800, 31_433_400, 6_461_620, 6_180_020, 4_047_644, 3_473_184,
            224_848, 41_584
        ]
    );
}

#[test]
fn six_card_hands_through_the_checked_api() {
    // A sample of six-card hands: the checked API agrees with the fast one.
    let cards: Vec<Card> = Card::all().collect();
    let mut checked = 0;
    for a in (0..52).step_by(3) {
        for b in (a + 1..52).step_by(5) {
            for c in (b + 1..52).step_by(7) {
                for d in c + 1..52 {
                    for e in d + 1..52 {
                        for f in (e + 1..52).step_by(11) {
                            let six = [cards[a], cards[b], cards[c], cards[d], cards[e], cards[f]];
                            let eval = evaluate(&six).unwrap();
                            assert_eq!(eval.rank, Hand::from_cards(&six).unwrap().rank());
                            assert_eq!(
                                Hand::from_cards(&eval.best).unwrap().rank(),
                                eval.rank,
                                "{six:?}"
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 10_000);
}
