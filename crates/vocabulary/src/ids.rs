//! Identities and amounts, each defined once for every crate and for the
//! conversion to and from the wire.
//!
//! An entry is one buy-in (a registration or a re-entry, in one flight),
//! numbered by seating from 1; a player is a person, who may hold several
//! entries across re-entries and flights. At a table an entry is who sits
//! in a seat: the table never knows the person.

use serde::{Deserialize, Serialize};

/// An entry in a tournament: seating's entry number, from 1. It is who
/// sits at a table, who busts and who is paid.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct EntryId(pub u64);

impl EntryId {
    /// The entry's number.
    pub const fn get(self) -> u64 {
        self.0
    }
}

impl From<u64> for EntryId {
    fn from(number: u64) -> EntryId {
        EntryId(number)
    }
}

impl From<EntryId> for u64 {
    fn from(entry: EntryId) -> u64 {
        entry.0
    }
}

impl std::str::FromStr for EntryId {
    type Err = std::num::ParseIntError;

    /// An entry from its number as people write it ("42").
    fn from_str(number: &str) -> Result<EntryId, Self::Err> {
        number.parse().map(EntryId)
    }
}

impl std::fmt::Display for EntryId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// A table's number in its tournament, from 1: the same number on the
/// wire, in every stream's name and in every crate.
pub type TableNo = u32;

/// A seat as the dealer says it: 1 to the table's size.
pub type Seat = u8;

/// Chips are whole numbers, always; every sum is checked.
pub type Chips = u64;

/// The most chips a table holds (2^60), stacks and pot together, and the
/// largest blind, ante or chip a level may name: under it, no sum, raise
/// or split the engine makes can overflow (ten seats' shares of a pot in
/// the smallest chip included), so no chip can vanish through arithmetic.
pub const MAX_CHIPS: Chips = 1 << 60;

/// Money in integer minor units (cents, centavos); every sum is checked.
pub type Money = u64;

/// A moment: milliseconds since the Unix epoch, always handed in (no
/// domain crate reads a clock).
pub type Millis = i64;

/// How antes are taken.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
pub enum AnteFormat {
    #[default]
    None,
    /// Every player dealt in posts the ante.
    PerPlayer,
    /// The big blind posts one ante for the table, before the blind (RP11).
    BigBlind,
}

/// The blinds and antes a hand is played with: the clock's level when the
/// hand starts (TDA 23), recorded in the hand so its log folds on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Level {
    pub small_blind: Chips,
    pub big_blind: Chips,
    pub ante: Chips,
    pub ante_format: AnteFormat,
    /// The smallest chip denomination in play: odd chips are split in it (TDA 20).
    pub smallest_chip: Chips,
}

impl Level {
    /// Blinds without ante, the smallest chip 1.
    pub fn blinds(small_blind: Chips, big_blind: Chips) -> Level {
        Level {
            small_blind,
            big_blind,
            ante: 0,
            ante_format: AnteFormat::None,
            smallest_chip: 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_stored_as_its_bare_number() {
        let entry = EntryId(42);
        assert_eq!(serde_json::to_string(&entry).unwrap(), "42");
        let packed = rmp_serde::to_vec(&entry).unwrap();
        assert_eq!(packed, rmp_serde::to_vec(&42u64).unwrap());
        assert_eq!(rmp_serde::from_slice::<EntryId>(&packed).unwrap(), entry);
        assert_eq!(entry.to_string(), "42");
        assert_eq!("42".parse(), Ok(entry));
        assert!("forty-two".parse::<EntryId>().is_err());
    }
}
