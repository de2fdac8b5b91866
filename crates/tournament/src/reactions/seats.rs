//! Seating's tables, seats and moves, carried to the tables and back: a
//! table seating opened is opened at the table service; a seat drawn for a
//! new entry is taken there and confirmed to seating; a move (TDA 8–10)
//! removes the player at one table, seats them with the chips they had at
//! the other and is completed at seating. Every id names the entry or the
//! move seating numbered, so each step is taken once whichever a restart
//! resumes.
//!
//! [`carry`] says, for one seating decision, all that is to be carried out
//! then; the carrier (`seating-carrier`, a [`crate::runner`]) hands it
//! seating's decisions in the log's order, so the moves a decision brings
//! on are carried out after those of the decisions before it.

use felt_seating::{
    EntryId, EntryStatus, Move, SeatingCommand, SeatingEvent, SeatingState, TableNo,
};
use felt_table::{Carried, Command, HouseRules, Seat, TableEvent};

use super::{Order, TableOrder};
use crate::aggregates::Seating;
use crate::runner::Cause;

/// Whether a seating event gives the tables something to do: a table
/// opened, seats drawn, a late entry seated, a player to move.
pub fn wanted(event: &SeatingEvent) -> bool {
    matches!(
        event,
        SeatingEvent::TableOpened { .. }
            | SeatingEvent::SeatsDrawn { .. }
            | SeatingEvent::Seated { .. }
            | SeatingEvent::AddOnSold { .. }
            | SeatingEvent::RebuySold { .. }
            | SeatingEvent::MoveStarted { .. }
            | SeatingEvent::Disqualified { .. }
            | SeatingEvent::Surrendered { .. }
            | SeatingEvent::NoShowReplaced { .. }
    )
}

/// What one seating decision leaves the tables to do, in the order it is
/// done: the tables it opened opened; every seat no table has confirmed
/// taken and confirmed; then every move not yet completed, all removals
/// before any new seat (a redraw can swap seats), each completed at
/// seating with the chips it moved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Carry {
    pub open: Vec<TableOrder>,
    /// Each seat taken at its table, then confirmed at seating.
    pub seats: Vec<(TableOrder, Order<SeatingCommand>)>,
    /// Each move: [`move_out`], then [`move_in`] and [`move_done`] with
    /// the chips (and what else the player carries) [`moved_with`] finds
    /// in the removal.
    pub moves: Vec<Move>,
    /// Each disqualified player to remove ([`disqualify`]), then
    /// [`removed`] at seating with the chips [`disqualified_with`] finds.
    pub removals: Vec<(EntryId, TableOrder)>,
    /// Each add-on's chips put on the stack ([`add_on`]), then
    /// [`add_on_delivered`] at seating.
    pub add_ons: Vec<(EntryId, TableOrder)>,
    /// Each rebuy's chips put on the stack ([`rebuy`]), then
    /// [`rebuy_delivered`] at seating.
    pub rebuys: Vec<(EntryId, TableOrder)>,
}

impl Carry {
    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
            && self.seats.is_empty()
            && self.moves.is_empty()
            && self.removals.is_empty()
            && self.add_ons.is_empty()
            && self.rebuys.is_empty()
    }

    /// What of it concerns `table`: its opening, the seats taken there,
    /// and the moves out of it or into it (each whole).
    #[must_use]
    pub fn at(self, table: TableNo) -> Carry {
        Carry {
            open: self.open.into_iter().filter(|o| o.table == table).collect(),
            seats: self
                .seats
                .into_iter()
                .filter(|(take, _)| take.table == table)
                .collect(),
            moves: self
                .moves
                .into_iter()
                .filter(|m| m.from.0 == table || m.to.0 == table)
                .collect(),
            removals: self
                .removals
                .into_iter()
                .filter(|(_, order)| order.table == table)
                .collect(),
            add_ons: self
                .add_ons
                .into_iter()
                .filter(|(_, order)| order.table == table)
                .collect(),
            rebuys: self
                .rebuys
                .into_iter()
                .filter(|(_, order)| order.table == table)
                .collect(),
        }
    }
}

/// What the tables are to do after seating's decision `cause`: the tables
/// it opened (with the tournament's house `rules`), and every seat and
/// move seating's state after it leaves pending ([`pending`]). Seats and
/// moves an earlier decision left pending are carried again under their
/// own ids: the tables and seating answer a repeat with their first answer.
pub fn carry(cause: &Cause<Seating>, rules: HouseRules) -> Carry {
    let open = cause
        .events
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::TableOpened { table, seats } => Some(open(*table, *seats, rules)),
            _ => None,
        })
        .collect();
    Carry {
        open,
        ..pending(&cause.state)
    }
}

/// Every seat and move seating's state leaves pending (no table to open).
pub fn pending(state: &SeatingState) -> Carry {
    let seats = unconfirmed(state)
        .into_iter()
        .map(|(entry, table, at)| (seat(entry, table, at, state.stack_of(entry)), seated(entry)))
        .collect();
    Carry {
        open: Vec::new(),
        seats,
        moves: state.room().moves.values().copied().collect(),
        removals: state
            .room()
            .removals
            .iter()
            .map(|(&entry, r)| {
                let order = if r.no_show {
                    no_show(entry, r.table, r.seat)
                } else if r.surrender {
                    surrender(entry, r.table, r.seat)
                } else {
                    disqualify(entry, r.table, r.seat, &r.reason)
                };
                (entry, order)
            })
            .collect(),
        add_ons: state
            .room()
            .add_ons
            .iter()
            .map(|(&entry, &(table, seat, chips))| (entry, add_on(entry, table, seat, chips)))
            .collect(),
        rebuys: state
            .room()
            .rebuys
            .iter()
            .map(|(&entry, &(table, seat, chips, number))| {
                (entry, rebuy(entry, table, seat, chips, number))
            })
            .collect(),
    }
}

/// A rebuy's chips go on the player's stack, under an id naming the entry
/// and the rebuy's number.
pub fn rebuy(entry: EntryId, table: TableNo, seat: Seat, chips: u64, number: u32) -> TableOrder {
    TableOrder {
        table,
        id: format!("rebuy-{entry}-{number}"),
        command: Command::Rebuy {
            seat,
            player: entry,
            chips,
            number,
        },
    }
}

/// The table put the rebuy's chips on the stack: seating lets its next
/// hand be dealt.
pub fn rebuy_delivered(entry: EntryId, number: u32) -> Order<SeatingCommand> {
    Order::new(
        format!("rebuy-{entry}-{number}-done"),
        SeatingCommand::RebuyDelivered { entry },
    )
}

/// An add-on's chips go on the player's stack, under an id naming the
/// entry (one add-on per entry).
pub fn add_on(entry: EntryId, table: TableNo, seat: Seat, chips: u64) -> TableOrder {
    TableOrder {
        table,
        id: format!("add-on-{entry}"),
        command: Command::AddOn {
            seat,
            player: entry,
            chips,
        },
    }
}

/// The table put the add-on's chips on the stack: seating lets its next
/// hand be dealt.
pub fn add_on_delivered(entry: EntryId) -> Order<SeatingCommand> {
    Order::new(
        format!("add-on-{entry}-done"),
        SeatingCommand::AddOnDelivered { entry },
    )
}

/// A disqualified player leaves their table, their chips out of play
/// (TDA 71), under an id naming the entry.
pub fn disqualify(entry: EntryId, table: TableNo, seat: Seat, reason: &str) -> TableOrder {
    TableOrder {
        table,
        id: format!("dq-{entry}"),
        command: Command::Disqualify {
            seat,
            player: entry,
            reason: reason.to_string(),
        },
    }
}

/// A player who gave up their chips for a new entry leaves their table,
/// the chips out of play (TDA 8), under an id naming the entry.
pub fn surrender(entry: EntryId, table: TableNo, seat: Seat) -> TableOrder {
    TableOrder {
        table,
        id: format!("surrender-{entry}"),
        command: Command::Surrender {
            seat,
            player: entry,
        },
    }
}

/// A player who never arrived leaves their table, replaced by an
/// alternate, the chips of their seat out of play (seed 003), under an id
/// naming the entry.
pub fn no_show(entry: EntryId, table: TableNo, seat: Seat) -> TableOrder {
    TableOrder {
        table,
        id: format!("no-show-{entry}"),
        command: Command::RemoveNoShow {
            seat,
            player: entry,
        },
    }
}

/// The chips a player out of the field (disqualified, or who gave up
/// their chips) left play with, from the table's events: `None` if they
/// do not remove that player.
pub fn disqualified_with(entry: EntryId, removal: &[TableEvent]) -> Option<u64> {
    removal.iter().find_map(|e| match e {
        TableEvent::PlayerDisqualified { player, stack, .. }
        | TableEvent::StackSurrendered { player, stack, .. }
        | TableEvent::NoShowRemoved { player, stack, .. }
            if *player == entry =>
        {
            Some(*stack)
        }
        _ => None,
    })
}

/// The table removed the disqualified player: seating frees the seat.
pub fn removed(entry: EntryId, stack: u64) -> Order<SeatingCommand> {
    Order::new(
        format!("dq-{entry}-done"),
        SeatingCommand::RemovalCompleted { entry, stack },
    )
}

/// A table seating opened, opened at the table service with the
/// tournament's house rules.
pub fn open(table: TableNo, seats: u8, rules: HouseRules) -> TableOrder {
    TableOrder {
        table,
        id: "open".into(),
        command: Command::OpenTable { seats, rules },
    }
}

/// The seats seating drew that no table has confirmed yet: `(entry,
/// table, seat)`, in entry order. An entry being moved is the move's.
pub fn unconfirmed(seating: &SeatingState) -> Vec<(EntryId, TableNo, Seat)> {
    seating
        .unconfirmed()
        .iter()
        .filter_map(|&entry| {
            let info = seating.entries().get(&entry)?;
            match info.status {
                EntryStatus::Seated { table, seat } if info.moving.is_none() => {
                    Some((entry, table, seat))
                }
                _ => None,
            }
        })
        .collect()
}

/// A new entry takes the seat seating drew, with the starting stack.
pub fn seat(entry: EntryId, table: TableNo, seat: Seat, stack: u64) -> TableOrder {
    TableOrder {
        table,
        id: format!("seat-{entry}"),
        command: Command::SeatPlayer {
            seat,
            player: entry,
            stack,
            carried: Carried::default(),
        },
    }
}

/// The table seated the entry: seating confirms it (a redraw that waited
/// for the seat is drawn then, from seating's own seed).
pub fn seated(entry: EntryId) -> Order<SeatingCommand> {
    Order::new(
        format!("seated-{entry}"),
        SeatingCommand::SeatConfirmed { entry },
    )
}

/// A move's first step: the player leaves the table they were at.
pub fn move_out(m: &Move) -> TableOrder {
    TableOrder {
        table: m.from.0,
        id: format!("move-{}-out", m.id),
        command: Command::RemovePlayer { seat: m.from.1 },
    }
}

/// The chips a move's player left their table with, and what else they
/// carry (a penalty's hands left, absence, offences), from the events of
/// its removal: `None` if they do not remove that player.
pub fn moved_with(m: &Move, removal: &[TableEvent]) -> Option<(u64, Carried)> {
    removal.iter().find_map(|e| match e {
        TableEvent::PlayerRemoved {
            stack,
            player,
            carried,
            ..
        } if *player == m.entry => Some((*stack, *carried)),
        _ => None,
    })
}

/// A move's second step: the player takes their new seat with the chips
/// they left the other table with (TDA 10: a moved player keeps their
/// chips), still serving their penalty and still away if they were
/// (TDA 71, 30).
pub fn move_in(m: &Move, stack: u64, carried: Carried) -> TableOrder {
    TableOrder {
        table: m.to.0,
        id: format!("move-{}-in", m.id),
        command: Command::SeatPlayer {
            seat: m.to.1,
            player: m.entry,
            stack,
            carried,
        },
    }
}

/// A move's last step: seating hears it is done, with the chips moved.
pub fn move_done(m: &Move, stack: u64) -> Order<SeatingCommand> {
    Order::new(
        format!("move-{}-done", m.id),
        SeatingCommand::MoveCompleted { id: m.id, stack },
    )
}
