//! The room's physical tables: a table seating opens takes the first free
//! physical table of the room's layout from the pool every tournament
//! shares, and gives it back when seating closes it; seating learns which
//! one (for the room's break order, and to show it).

use felt_room::{EventTable, RoomCommand, RoomEvent};
use felt_seating::{SeatingCommand, SeatingEvent};

use super::Order;
use crate::aggregates::Seating;
use crate::runner::Cause;

/// Seating's tables opened and closed, to the room's pool, under ids
/// naming the tournament and seating's decision (the pool's stream is
/// every tournament's).
pub fn to_room(cause: &Cause<Seating>) -> Vec<Order<RoomCommand>> {
    let tournament = &cause.stream.tournament;
    let Ok(t) = felt_vocabulary::TournamentId::new(tournament.as_str()) else {
        return Vec::new();
    };
    cause
        .events
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::TableOpened { table, seats } => Some(Order::new(
                format!("{tournament}-{}", cause.id(&format!("room-{table}"))),
                RoomCommand::Assign {
                    at: EventTable {
                        tournament: t.clone(),
                        table: *table,
                    },
                    seats: *seats,
                },
            )),
            SeatingEvent::TableClosed { table } => Some(Order::new(
                format!("{tournament}-{}", cause.id(&format!("room-{table}"))),
                RoomCommand::Release {
                    at: EventTable {
                        tournament: t.clone(),
                        table: *table,
                    },
                },
            )),
            _ => None,
        })
        .collect()
}

/// The pool's decision `events` (its first event at `first` in the pool's
/// stream), to the tournament's seating: each table it gave a physical
/// table is named so, under an id naming that decision.
pub fn named(first: u64, events: &[RoomEvent]) -> Vec<(String, Order<SeatingCommand>)> {
    events
        .iter()
        .filter_map(|e| match e {
            RoomEvent::Assigned { at, name, position } => Some((
                at.tournament.to_string(),
                Order::new(
                    format!("room-{first}-named-{}", at.table),
                    SeatingCommand::NameTable {
                        table: at.table,
                        name: name.clone(),
                        position: *position,
                    },
                ),
            )),
            _ => None,
        })
        .collect()
}
