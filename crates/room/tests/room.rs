//! The room's physical tables: given the room, when a command, then events
//! or a refusal.

use felt_room::{
    EventTable, PhysicalTable, RoomCommand, RoomError, RoomEvent, RoomState, TournamentId, decide,
};

fn run(state: &mut RoomState, command: RoomCommand) -> Vec<RoomEvent> {
    let events = decide(state, &command).unwrap_or_else(|e| panic!("{command:?}: {e}"));
    for e in &events {
        state.apply(e);
    }
    events
}

fn table(name: &str, seats: u8) -> PhysicalTable {
    PhysicalTable {
        name: name.into(),
        seats,
    }
}

fn at(tournament: &str, table: u32) -> EventTable {
    EventTable {
        tournament: TournamentId::new(tournament).unwrap(),
        table,
    }
}

/// A room of four tables: A1 to A3 of nine seats, then B1 of six.
fn room() -> RoomState {
    let mut state = RoomState::default();
    run(
        &mut state,
        RoomCommand::SetLayout {
            tables: vec![
                table("A1", 9),
                table("A2", 9),
                table("B1", 6),
                table("A3", 9),
            ],
        },
    );
    state
}

/// Issue 26 (seats): "the room's physical tables are one pool, named as
/// the room names them, shared by the events running at once". Given a
/// room laid out, when two events open tables, then each gets the first
/// free physical table of the layout with its seats, never one the other
/// holds; a closed table's physical table is free for either.
#[test]
fn events_running_at_once_draw_their_tables_from_one_pool() {
    let mut state = room();
    let assign = |t: &str, n: u32, seats: u8| RoomCommand::Assign {
        at: at(t, n),
        seats,
    };
    assert_eq!(
        run(&mut state, assign("main", 1, 9)),
        [RoomEvent::Assigned {
            at: at("main", 1),
            name: "A1".into(),
            position: 0,
        }]
    );
    // Another event's first table: the next free one, not A1.
    assert_eq!(
        run(&mut state, assign("turbo", 1, 9)),
        [RoomEvent::Assigned {
            at: at("turbo", 1),
            name: "A2".into(),
            position: 1,
        }]
    );
    // A nine-handed table passes over the six-seat B1.
    assert_eq!(
        run(&mut state, assign("main", 2, 9)),
        [RoomEvent::Assigned {
            at: at("main", 2),
            name: "A3".into(),
            position: 3,
        }]
    );
    // Asked again (a reaction run twice), nothing changes.
    assert_eq!(run(&mut state, assign("main", 2, 9)), []);
    // None free with nine seats: the table plays under its number alone.
    assert_eq!(
        run(&mut state, assign("turbo", 2, 9)),
        [RoomEvent::NoneFree {
            at: at("turbo", 2),
            seats: 9,
        }]
    );
    // A six-handed table fits B1.
    assert_eq!(state.physical(&at("main", 2)), Some(("A3", 3)));
    run(&mut state, assign("turbo", 3, 6));
    assert_eq!(state.physical(&at("turbo", 3)), Some(("B1", 2)));
    // Main's table 1 closes: A1 is free for the next table of any event.
    assert_eq!(
        run(&mut state, RoomCommand::Release { at: at("main", 1) }),
        [RoomEvent::Released {
            at: at("main", 1),
            name: "A1".into(),
        }]
    );
    run(&mut state, assign("turbo", 4, 9));
    assert_eq!(state.holder("A1"), Some(&at("turbo", 4)));
    // Releasing a table the pool never gave is nothing.
    assert_eq!(
        run(&mut state, RoomCommand::Release { at: at("turbo", 2) }),
        []
    );
}

/// The layout is the director's: names as the room uses them, each once,
/// 2 to 10 seats; a table in use stays in it, with its seats, until its
/// event table closes.
#[test]
fn a_layout_names_each_table_once_and_keeps_the_tables_in_use() {
    let mut state = room();
    let set = |tables: Vec<PhysicalTable>| RoomCommand::SetLayout { tables };
    assert_eq!(
        decide(&state, &set(vec![table("A1", 9), table("A1", 8)])),
        Err(RoomError::NameTwice { name: "A1".into() })
    );
    assert_eq!(
        decide(&state, &set(vec![table("", 9)])),
        Err(RoomError::InvalidName { len: 0, max: 32 })
    );
    assert_eq!(
        decide(&state, &set(vec![table("C1", 11)])),
        Err(RoomError::InvalidSeats {
            name: "C1".into(),
            seats: 11
        })
    );
    run(
        &mut state,
        RoomCommand::Assign {
            at: at("main", 1),
            seats: 9,
        },
    );
    assert_eq!(
        decide(&state, &set(vec![table("A2", 9)])),
        Err(RoomError::InUse {
            name: "A1".into(),
            tournament: TournamentId::new("main").unwrap(),
            table: 1
        })
    );
    assert_eq!(
        decide(&state, &set(vec![table("A1", 8)])),
        Err(RoomError::InUse {
            name: "A1".into(),
            tournament: TournamentId::new("main").unwrap(),
            table: 1
        })
    );
    // Reordered and grown, with A1 kept: A1 is now at position 2.
    run(
        &mut state,
        set(vec![table("C1", 10), table("C2", 10), table("A1", 9)]),
    );
    assert_eq!(state.physical(&at("main", 1)), Some(("A1", 2)));
}
