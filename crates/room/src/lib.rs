//! The room's physical tables, as a pure decider: one pool shared by every
//! event running at once.
//!
//! The director lays the room out: its tables named as the room names them
//! ("A1", "Red 12"), each with its seats, in the order the room fills them
//! (from the final table's corner outwards, say). When a tournament's
//! seating opens a table, the pool gives it the first free physical table
//! in that order with the seats it needs; when seating closes it, the
//! physical table is free again for any event. A tournament whose break
//! order follows the layout breaks the table placed last first.
//!
//! The decider knows nothing of seating's rules: it hands out physical
//! tables, never two events one table, and says when none is free (the
//! tournament's table then plays under its number alone).
//!
//! ```text
//! decide(&RoomState, &RoomCommand) -> Result<Vec<RoomEvent>, RoomError>
//! RoomState::apply(&mut self, &RoomEvent)
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use felt_vocabulary::{TableNo, TournamentId};

/// The longest name a physical table is given.
pub const MAX_NAME: usize = 32;
/// The most physical tables a room lays out.
pub const MAX_TABLES: usize = 2_000;

/// One physical table of the room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhysicalTable {
    /// As the room names it: 1 to 32 characters, no control characters,
    /// unique in the room.
    pub name: String,
    /// Its seats: 2 to 10.
    pub seats: u8,
}

/// A tournament's table (by its number in that tournament).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct EventTable {
    pub tournament: TournamentId,
    pub table: TableNo,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RoomCommand {
    /// The director lays the room out: its tables in the order the room
    /// fills them. Tables in use stay in it.
    SetLayout { tables: Vec<PhysicalTable> },
    /// Seating opened a table of `seats` seats: the first free physical
    /// table of the layout with at least as many.
    Assign { at: EventTable, seats: u8 },
    /// Seating closed a table: its physical table is free again.
    Release { at: EventTable },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RoomEvent {
    LayoutSet {
        tables: Vec<PhysicalTable>,
    },
    /// The physical table `name`, at `position` in the layout (0: the
    /// first filled), now holds the tournament's table.
    Assigned {
        at: EventTable,
        name: String,
        position: u32,
    },
    /// No physical table of the layout was free with the seats asked: the
    /// tournament's table plays under its number alone.
    NoneFree {
        at: EventTable,
        seats: u8,
    },
    Released {
        at: EventTable,
        name: String,
    },
}

impl RoomEvent {
    pub fn name(&self) -> &'static str {
        match self {
            RoomEvent::LayoutSet { .. } => "LayoutSet",
            RoomEvent::Assigned { .. } => "Assigned",
            RoomEvent::NoneFree { .. } => "NoneFree",
            RoomEvent::Released { .. } => "Released",
        }
    }
}

/// Why a command about the room is refused; nothing changes then.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, strum::IntoStaticStr)]
pub enum RoomError {
    #[error(
        "a physical table's name is 1 to {max} characters without control characters, not {len}"
    )]
    InvalidName { len: usize, max: usize },
    #[error("physical table {name} has {seats} seats: a table has 2 to 10")]
    InvalidSeats { name: String, seats: u8 },
    #[error("physical table {name} is laid out twice")]
    NameTwice { name: String },
    #[error("a room lays out at most {max} tables, not {count}")]
    TooManyTables { count: usize, max: usize },
    #[error(
        "physical table {name} is in use by {tournament} table {table}: it stays in the layout until that table closes"
    )]
    InUse {
        name: String,
        tournament: TournamentId,
        table: TableNo,
    },
}

impl felt_vocabulary::Classified for RoomError {
    fn kind(&self) -> felt_vocabulary::ErrorKind {
        use felt_vocabulary::ErrorKind;
        match self {
            RoomError::InvalidName { .. }
            | RoomError::InvalidSeats { .. }
            | RoomError::NameTwice { .. }
            | RoomError::TooManyTables { .. } => ErrorKind::Malformed,
            RoomError::InUse { .. } => ErrorKind::Refused,
        }
    }

    fn reason(&self) -> &str {
        self.into()
    }

    fn rule(&self) -> Option<&str> {
        None
    }
}

/// The room: its layout, and which event table holds each physical one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoomState {
    layout: Vec<PhysicalTable>,
    /// Physical table name -> the event table it holds.
    used: BTreeMap<String, EventTable>,
    /// The event table -> its physical table's name.
    held: BTreeMap<EventTable, String>,
}

impl RoomState {
    /// The room's tables in the order it fills them.
    pub fn layout(&self) -> &[PhysicalTable] {
        &self.layout
    }

    /// Whether the director laid the room out.
    pub fn laid_out(&self) -> bool {
        !self.layout.is_empty()
    }

    /// The event table a physical table holds, if any.
    pub fn holder(&self, name: &str) -> Option<&EventTable> {
        self.used.get(name)
    }

    /// The physical table an event table plays at, if any, with its
    /// position in the layout.
    pub fn physical(&self, at: &EventTable) -> Option<(&str, u32)> {
        let name = self.held.get(at)?;
        let position = self.layout.iter().position(|t| &t.name == name)?;
        Some((name.as_str(), u32::try_from(position).unwrap_or(u32::MAX)))
    }

    pub fn apply(&mut self, event: &RoomEvent) {
        match event {
            RoomEvent::LayoutSet { tables } => self.layout.clone_from(tables),
            RoomEvent::Assigned { at, name, .. } => {
                self.used.insert(name.clone(), at.clone());
                self.held.insert(at.clone(), name.clone());
            }
            RoomEvent::Released { at, name } => {
                self.used.remove(name);
                self.held.remove(at);
            }
            RoomEvent::NoneFree { .. } => {}
        }
    }
}

/// What a command means, or why it is refused.
pub fn decide(state: &RoomState, command: &RoomCommand) -> Result<Vec<RoomEvent>, RoomError> {
    match command {
        RoomCommand::SetLayout { tables } => set_layout(state, tables),
        RoomCommand::Assign { at, seats } => Ok(assign(state, at, *seats)),
        RoomCommand::Release { at } => Ok(state
            .held
            .get(at)
            .map(|name| RoomEvent::Released {
                at: at.clone(),
                name: name.clone(),
            })
            .into_iter()
            .collect()),
    }
}

fn set_layout(state: &RoomState, tables: &[PhysicalTable]) -> Result<Vec<RoomEvent>, RoomError> {
    if tables.len() > MAX_TABLES {
        return Err(RoomError::TooManyTables {
            count: tables.len(),
            max: MAX_TABLES,
        });
    }
    let mut names = std::collections::BTreeSet::new();
    for t in tables {
        let len = t.name.chars().count();
        if len == 0 || len > MAX_NAME || t.name.chars().any(char::is_control) {
            return Err(RoomError::InvalidName { len, max: MAX_NAME });
        }
        if !(2..=10).contains(&t.seats) {
            return Err(RoomError::InvalidSeats {
                name: t.name.clone(),
                seats: t.seats,
            });
        }
        if !names.insert(t.name.as_str()) {
            return Err(RoomError::NameTwice {
                name: t.name.clone(),
            });
        }
    }
    // A table in use keeps its place until its event table closes (its
    // seats, too: players sit at it).
    for (name, at) in &state.used {
        let kept = tables.iter().find(|t| &t.name == name);
        let before = state.layout.iter().find(|t| &t.name == name);
        if kept.is_none() || kept.map(|t| t.seats) != before.map(|t| t.seats) {
            return Err(RoomError::InUse {
                name: name.clone(),
                tournament: at.tournament.clone(),
                table: at.table,
            });
        }
    }
    Ok(vec![RoomEvent::LayoutSet {
        tables: tables.to_vec(),
    }])
}

/// The first free physical table with the seats: nothing when the event
/// table has one already (asked again), `NoneFree` when none is.
fn assign(state: &RoomState, at: &EventTable, seats: u8) -> Vec<RoomEvent> {
    if state.held.contains_key(at) {
        return Vec::new();
    }
    let free = state
        .layout
        .iter()
        .enumerate()
        .find(|(_, t)| t.seats >= seats && !state.used.contains_key(&t.name));
    vec![match free {
        Some((position, t)) => RoomEvent::Assigned {
            at: at.clone(),
            name: t.name.clone(),
            position: u32::try_from(position).unwrap_or(u32::MAX),
        },
        None => RoomEvent::NoneFree {
            at: at.clone(),
            seats,
        },
    }]
}
