//! Pay sheets for big fields and exact ICM: `cargo bench -p felt-payout`.

use criterion::{Criterion, criterion_group, criterion_main};
use felt_payout::{MoneySettings, icm};
use std::hint::black_box;

fn sheets(c: &mut Criterion) {
    let settings = MoneySettings::generated(1_000_000, 0);
    c.bench_function("pay sheet, 10,000 entries", |b| {
        b.iter(|| settings.sheet(black_box(10_000), 0).map(|s| s.bands.len()))
    });
}

fn equities(c: &mut Criterion) {
    for n in [10usize, 20] {
        let stacks: Vec<u64> = (1..=n as u64).map(|i| 10_000 * i + 777 * (i % 3)).collect();
        let prizes: Vec<u64> = (0..n as u64).map(|i| 1_000_000 / (i + 1)).collect();
        c.bench_function(&format!("ICM, {n} players"), |b| {
            b.iter(|| icm::equities(black_box(&stacks), black_box(&prizes)))
        });
    }
}

criterion_group!(benches, sheets, equities);
criterion_main!(benches);
