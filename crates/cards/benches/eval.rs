//! felt's evaluator side by side with rs_poker 5.0 on the same hands.
//!
//! `cargo bench -p felt-cards --bench eval`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use felt_cards::sample::{for_each_seven_card_hand, random_hands};
use felt_cards::{Card, Hand, Seed};
use rs_poker::core::{Card as RsCard, SevenCardAccum, Suit as RsSuit, Value as RsValue};

const HANDS: usize = 1 << 20;

fn to_rs(card: Card) -> RsCard {
    RsCard::new(
        RsValue::from_u8(card.rank().index()),
        RsSuit::from_u8(card.suit().index()),
    )
}

fn random(c: &mut Criterion) {
    let hands = random_hands(HANDS, Seed::from_u64(1));
    let rs_hands: Vec<[RsCard; 7]> = hands.iter().map(|h| h.map(to_rs)).collect();
    let mut group = c.benchmark_group("random 7-card hands");
    group.throughput(Throughput::Elements(HANDS as u64));
    group.bench_function("felt", |b| {
        b.iter(|| {
            black_box(&hands)
                .iter()
                .map(|h| u64::from(h.iter().fold(Hand::EMPTY, |acc, &c| acc.with(c)).rank().0))
                .sum::<u64>()
        })
    });
    group.bench_function("rs_poker 5.0.0", |b| {
        b.iter(|| {
            black_box(&rs_hands)
                .iter()
                .map(|h| {
                    let mut acc = SevenCardAccum::new();
                    h.iter().for_each(|&c| acc.add(c));
                    u64::from(acc.rank().value_bits())
                })
                .sum::<u64>()
        })
    });
    group.finish();
}

fn sequential(c: &mut Criterion) {
    let rs_cards: Vec<RsCard> = Card::all().map(to_rs).collect();
    let mut group = c.benchmark_group("all 133,784,560 7-card hands");
    group.sample_size(10);
    group.throughput(Throughput::Elements(133_784_560));
    group.bench_function("felt", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for_each_seven_card_hand(|h| sum += u64::from(h.rank().0));
            black_box(sum)
        })
    });
    group.bench_function("rs_poker 5.0.0", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            let n = rs_cards.len();
            for a in 0..n {
                let mut ha = SevenCardAccum::new();
                ha.add(rs_cards[a]);
                for b in a + 1..n {
                    let mut hb = ha;
                    hb.add(rs_cards[b]);
                    for c in b + 1..n {
                        let mut hc = hb;
                        hc.add(rs_cards[c]);
                        for d in c + 1..n {
                            let mut hd = hc;
                            hd.add(rs_cards[d]);
                            for e in d + 1..n {
                                let mut he = hd;
                                he.add(rs_cards[e]);
                                for f in e + 1..n {
                                    let mut hf = he;
                                    hf.add(rs_cards[f]);
                                    for g in &rs_cards[f + 1..] {
                                        let mut hg = hf;
                                        hg.add(*g);
                                        sum += u64::from(hg.rank().value_bits());
                                    }
                                }
                            }
                        }
                    }
                }
            }
            black_box(sum)
        })
    });
    group.finish();
}

criterion_group!(benches, random, sequential);
criterion_main!(benches);
