//! A room driven by simulated tables: hands begun when seating allows,
//! busts at random, moves and seats carried out at once.

#![allow(dead_code)]

use felt_seating::EntryId;
use felt_seating::{
    Elimination, EntryStatus, MoveReason, SeatingCommand, SeatingError, SeatingEvent, SeatingState,
    Settings, TableNo, decide,
};

/// The seed a decision that draws nothing is handed.
pub(crate) const NO_DRAW: [u8; 32] = [0; 32];

/// Decides and applies a command, with a seed of its own (one the
/// command's text gives, so a test runs the same every time).
pub(crate) fn run(state: &mut SeatingState, command: SeatingCommand) -> Vec<SeatingEvent> {
    let seed = seed_of(&command);
    run_with(state, command, seed)
}

/// Decides and applies a command handed `seed`.
pub(crate) fn run_with(
    state: &mut SeatingState,
    command: SeatingCommand,
    seed: [u8; 32],
) -> Vec<SeatingEvent> {
    try_run_with(state, command.clone(), seed).unwrap_or_else(|e| panic!("{command:?}: {e}"))
}

pub(crate) fn try_run(
    state: &mut SeatingState,
    command: SeatingCommand,
) -> Result<Vec<SeatingEvent>, SeatingError> {
    let seed = seed_of(&command);
    try_run_with(state, command, seed)
}

pub(crate) fn try_run_with(
    state: &mut SeatingState,
    command: SeatingCommand,
    seed: [u8; 32],
) -> Result<Vec<SeatingEvent>, SeatingError> {
    let events = decide(state, &command, &seed)?;
    for e in &events {
        state.apply(e);
    }
    Ok(events)
}

/// A seed of the command's own, from its text.
pub(crate) fn seed_of(command: &SeatingCommand) -> [u8; 32] {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    format!("{command:?}").hash(&mut h);
    seed(h.finish())
}

pub(crate) fn seed(n: u64) -> [u8; 32] {
    let mut s = [0u8; 32];
    s[..8].copy_from_slice(&n.to_le_bytes());
    s
}

/// A tournament with `n` registered players, not started.
pub(crate) fn registered(settings: Settings, n: u64) -> SeatingState {
    let mut state = SeatingState::default();
    run(
        &mut state,
        SeatingCommand::Create {
            name: "test".into(),
            settings,
        },
    );
    for i in 1..=n {
        run_with(
            &mut state,
            SeatingCommand::Register {
                player: format!("p{i}").parse().unwrap(),
                name: format!("Player {i}"),
                level: 0,
            },
            seed(i),
        );
    }
    state
}

thread_local! {
    /// Redraws brought on by a completed move or a confirmed seat, and
    /// checked to follow the seed handed in ([`carry_out`]).
    pub(crate) static REDRAWS_CHECKED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The seats a redraw (or the final table's draw) in `events` gives.
fn redrawn(events: &[SeatingEvent]) -> Option<Vec<(u64, TableNo, u8)>> {
    events
        .iter()
        .any(|e| matches!(e, SeatingEvent::Redrawn { .. }))
        .then(|| {
            events
                .iter()
                .filter_map(|e| match e {
                    SeatingEvent::MoveStarted { r#move, .. } => {
                        Some((r#move.entry.get(), r#move.to.0, r#move.to.1))
                    }
                    _ => None,
                })
                .collect()
        })
}

/// Decides a command that may bring on a redraw; if it does, the redraw
/// must follow the seed handed in (three seeds cannot all draw the same),
/// and the decision records that seed last.
pub(crate) fn run_seeded_with(
    state: &mut SeatingState,
    command: SeatingCommand,
    seed: [u8; 32],
) -> Vec<SeatingEvent> {
    let events = decide(state, &command, &seed).unwrap_or_else(|e| panic!("{command:?}: {e}"));
    if let Some(drawn) = redrawn(&events) {
        assert_eq!(
            events.last(),
            Some(&SeatingEvent::Drawn { seed }),
            "{command:?}: a redraw records its seed"
        );
        let other = |n: u8| {
            let again = decide(state, &command, &[n; 32]).expect("decided once");
            redrawn(&again).expect("the same redraw")
        };
        assert!(
            drawn != other(0xa1) || drawn != other(0xb2),
            "{command:?}: the redraw does not follow the seed handed in"
        );
        REDRAWS_CHECKED.set(REDRAWS_CHECKED.get() + 1);
    }
    for e in &events {
        state.apply(e);
    }
    events
}

/// Completes every move and confirms every seat, as the service does,
/// each with a seed of its own for the draws it brings on.
pub(crate) fn carry_out(state: &mut SeatingState) -> Vec<SeatingEvent> {
    let mut all = Vec::new();
    loop {
        let mut commands: Vec<(SeatingCommand, [u8; 32])> = state
            .room()
            .moves
            .keys()
            .map(|&id| {
                let done = SeatingCommand::MoveCompleted { id, stack: 1_000 };
                (done, seed(id ^ 0x6d6f_7665))
            })
            .collect();
        commands.extend(state.unconfirmed().iter().map(|&entry| {
            let confirmed = SeatingCommand::SeatConfirmed { entry };
            (confirmed, seed(entry.get() ^ 0x7365_6174))
        }));
        if commands.is_empty() {
            return all;
        }
        for (c, seed) in commands {
            all.extend(run_seeded_with(state, c, seed));
        }
    }
}

/// Checks what must always hold: every live entry in exactly one seat,
/// no seat held twice.
pub(crate) fn check_seats(state: &SeatingState) {
    // The field as kept equals the field counted.
    let counted = state
        .entries()
        .values()
        .filter(|e| {
            !matches!(
                e.status,
                felt_seating::EntryStatus::Alternate | felt_seating::EntryStatus::Unregistered
            )
        })
        .count() as u32;
    assert_eq!(state.entries_in(), counted, "the field kept and counted");
    let mut seen = std::collections::BTreeMap::new();
    for t in state.room().tables.values() {
        for (i, s) in t.seats.iter().enumerate() {
            if let Some(e) = s {
                assert!(
                    seen.insert(*e, (t.number, i + 1)).is_none(),
                    "entry {e} seated twice"
                );
            }
        }
    }
    for (id, e) in state.entries() {
        match e.status {
            EntryStatus::Seated { table, seat } => {
                assert_eq!(
                    seen.get(id),
                    Some(&(table, seat as usize)),
                    "entry {id} is not where it says"
                );
            }
            _ => assert!(
                !seen.contains_key(id),
                "entry {id} ({:?}) holds a seat",
                e.status
            ),
        }
    }
}

pub(crate) fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// What a simulated tournament saw.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    pub(crate) moves: Vec<(MoveReason, TableNo, TableNo)>,
    pub(crate) hands: u64,
    pub(crate) final_table_formed_at: Option<u32>,
}

/// Plays to a winner: each round, every table that may begins and ends a
/// hand, busting players at random. Checks the invariants after every
/// command.
pub(crate) fn play_out(state: &mut SeatingState, mut x: u64) -> Seen {
    let mut seen = Seen::default();
    let settings = state.settings().cloned().expect("created");
    carry_out(state);
    let mut idle_rounds = 0;
    while state.room().players() > 1 {
        let tables: Vec<TableNo> = state.room().tables.keys().copied().collect();
        let mut played = false;
        for table in tables {
            if !state.room().tables.contains_key(&table) {
                continue;
            }
            if decide(state, &SeatingCommand::BeginHand { table }, &NO_DRAW).is_err() {
                continue;
            }
            let longest = state
                .room()
                .tables
                .values()
                .map(|t| t.count())
                .max()
                .unwrap_or(0);
            let count = state.room().tables[&table].count();
            if let Some(short) = settings.balance.stop_short_by {
                assert!(
                    longest < count + u32::from(short),
                    "table {table} plays {count} against {longest}"
                );
            }
            run(state, SeatingCommand::BeginHand { table });
            seen.hands += 1;
            played = true;
            let t = &state.room().tables[&table];
            let occupants: Vec<u64> = t.seats.iter().flatten().map(|e| e.get()).collect();
            let players = state.room().players();
            let mut busted = Vec::new();
            for &e in &occupants {
                if xorshift(&mut x).is_multiple_of(7)
                    && (busted.len() as u32) + 1 < players
                    && busted.len() + 1 < occupants.len()
                {
                    busted.push(e);
                }
            }
            let size = t.size();
            let bb = (t.hands % u64::from(size)) as u8 + 1;
            let events = run_with(
                state,
                SeatingCommand::HandEnded {
                    table,
                    button: bb,
                    big_blind: bb,
                    busted: busted
                        .iter()
                        .copied()
                        .map(|e| Elimination::of(EntryId(e)))
                        .collect(),
                },
                seed(xorshift(&mut x)),
            );
            for e in &events {
                if let SeatingEvent::MoveStarted { r#move, .. } = e {
                    seen.moves.push((r#move.reason, r#move.from.0, r#move.to.0));
                    if r#move.reason == MoveReason::Balance {
                        let from = state.room().tables[&r#move.from.0].count();
                        let to = state.room().tables[&r#move.to.0].count();
                        assert!(from + 1 >= to, "balance move from {from} to {to} players");
                    }
                }
                if let SeatingEvent::RedrawCalled {
                    reason: MoveReason::FinalTable,
                    players,
                } = e
                {
                    seen.final_table_formed_at = Some(*players);
                }
            }
            check_seats(state);
            if xorshift(&mut x).is_multiple_of(3) {
                carry_out(state);
                check_seats(state);
            }
            if state.room().players() <= 1 {
                break;
            }
        }
        carry_out(state);
        check_seats(state);
        if !played {
            idle_rounds += 1;
            assert!(idle_rounds < 3, "no table can play: {:?}", state.room());
        } else {
            idle_rounds = 0;
        }
        // Between rounds, all tables idle and moves done: balanced.
        let counts: Vec<u32> = state
            .room()
            .tables
            .values()
            .filter(|t| !t.breaking)
            .map(|t| t.count())
            .collect();
        if counts.len() > 1 && state.room().redraw.is_none() {
            let (max, min) = (counts.iter().max().unwrap(), counts.iter().min().unwrap());
            assert!(
                max - min <= u32::from(settings.balance.tolerance),
                "unbalanced: {counts:?}"
            );
        }
    }
    seen
}
