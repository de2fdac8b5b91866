//! Balancing a big room: `cargo bench -p felt-seating`.

use criterion::{Criterion, criterion_group, criterion_main};
use felt_seating::EntryId;
use felt_seating::{Elimination, SeatingCommand, SeatingState, Settings, decide};
use std::hint::black_box;

/// 10,000 players on 1,112 tables of 9, play started.
fn big_room() -> SeatingState {
    let mut state = SeatingState::default();
    let run = |state: &mut SeatingState, c: SeatingCommand| {
        for e in decide(state, &c, &[7; 32]).expect("valid") {
            state.apply(&e);
        }
    };
    run(
        &mut state,
        SeatingCommand::Create {
            name: "Main".into(),
            settings: Settings::tda(9, 60_000),
        },
    );
    for i in 0..10_000 {
        run(
            &mut state,
            SeatingCommand::Register {
                player: format!("p{i}").parse().unwrap(),
                name: format!("Player {i}"),
                level: 0,
            },
        );
    }
    run(&mut state, SeatingCommand::Start);
    state
}

fn balancing(c: &mut Criterion) {
    let state = big_room();
    let table = *state.room().tables.keys().next().expect("tables");
    let mut begun = state.clone();
    for e in decide(&begun, &SeatingCommand::BeginHand { table }, &[0; 32]).expect("begins") {
        begun.apply(&e);
    }
    let busted: Vec<EntryId> = begun.room().tables[&table]
        .seats
        .iter()
        .flatten()
        .take(3)
        .copied()
        .collect();
    let end = SeatingCommand::HandEnded {
        table,
        button: 1,
        big_blind: 3,
        busted: busted.into_iter().map(Elimination::of).collect(),
    };
    c.bench_function("hand end with 3 busts and balancing, 1,112 tables", |b| {
        b.iter(|| decide(black_box(&begun), black_box(&end), &[1; 32]).map(|e| e.len()))
    });
}

criterion_group!(benches, balancing);
criterion_main!(benches);
