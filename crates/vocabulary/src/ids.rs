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

/// Why a text is not an id: what was sent is quoted up to 16 characters.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    #[error("{what} is required")]
    Empty { what: &'static str },
    #[error("{what} is at most {max} characters, not {len} ({start:?})")]
    TooLong {
        what: &'static str,
        max: usize,
        len: usize,
        start: String,
    },
    #[error("{what} is {allowed} only ({start:?})")]
    Characters {
        what: &'static str,
        allowed: &'static str,
        start: String,
    },
}

impl crate::Classified for IdError {
    fn kind(&self) -> crate::ErrorKind {
        crate::ErrorKind::Malformed
    }

    fn reason(&self) -> &str {
        "InvalidId"
    }
}

/// A byte of a name that is part of a stream's (a tournament id, a
/// stream's kind and id, a log consumer's): a letter, a digit, '-' or
/// '_' (no '.', which separates a NATS subject's parts).
pub fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

/// At most the first 16 characters of a refused input, to quote it in an
/// error without echoing all of it.
pub fn prefix(text: &str) -> String {
    match text.char_indices().nth(16) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// Checks an id's text: 1 to `max` characters, each `allowed`.
fn check(
    what: &'static str,
    text: &str,
    max: usize,
    allowed: (&'static str, fn(u8) -> bool),
) -> Result<(), IdError> {
    if text.is_empty() {
        return Err(IdError::Empty { what });
    }
    let len = text.chars().count();
    if len > max {
        return Err(IdError::TooLong {
            what,
            max,
            len,
            start: prefix(text),
        });
    }
    if !text.bytes().all(allowed.1) {
        return Err(IdError::Characters {
            what,
            allowed: allowed.0,
            start: prefix(text),
        });
    }
    Ok(())
}

macro_rules! text_id {
    ($(#[$doc:meta])* $name:ident, $what:literal, $max:expr, $allowed:literal, $test:expr) => {
        $(#[$doc])*
        ///
        /// Made with [`Self::new`], which checks it; read back from stored
        /// events as it was stored (`#[serde(transparent)]`: the bare
        /// string, byte for byte what a `String` was).
        #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// The longest id, in characters.
            pub const MAX: usize = $max;
            /// The characters an id may use, as the wire documents them.
            pub const ALLOWED: &'static str = $allowed;

            /// The id, if `text` is one.
            pub fn new(text: impl Into<String>) -> Result<$name, IdError> {
                let text = text.into();
                $name::check(&text)?;
                Ok($name(text))
            }

            /// Whether `text` is an id (the error names what is wrong).
            pub fn check(text: &str) -> Result<(), IdError> {
                check($what, text, $name::MAX, ($allowed, $test))
            }

            /// The id's text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl std::ops::Deref for $name {
            type Target = str;

            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl std::borrow::Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl std::str::FromStr for $name {
            type Err = IdError;

            fn from_str(text: &str) -> Result<$name, IdError> {
                $name::new(text)
            }
        }

        impl TryFrom<String> for $name {
            type Error = IdError;

            fn try_from(text: String) -> Result<$name, IdError> {
                $name::new(text)
            }
        }

        impl TryFrom<&str> for $name {
            type Error = IdError;

            fn try_from(text: &str) -> Result<$name, IdError> {
                $name::new(text)
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }
    };
}

text_id!(
    /// A tournament, as its creator named it ("bigone-2026-d1a"): the
    /// first part of every stream's name, so letters, digits, '-' and '_'.
    TournamentId,
    "a tournament id",
    64,
    "letters, digits, '-' and '_'",
    name_byte
);

text_id!(
    /// A player: the person, as the room or a partner's system knows them
    /// (a player card's number, an account). One player may hold several
    /// entries across re-entries and flights; a table never sees it.
    PlayerId,
    "a player id",
    64,
    "printable ASCII characters without spaces",
    |b| b.is_ascii_graphic()
);

text_id!(
    /// A member of staff: the director, a floor person, a dealer, a
    /// partner's integration, as the director named them when issuing
    /// their credential ("ana.souza"). Every decision a person's command
    /// brings names them.
    PersonId,
    "a person id",
    64,
    "printable ASCII characters without spaces",
    |b| b.is_ascii_graphic()
);

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

    #[test]
    fn a_tournament_id_is_letters_digits_dashes_and_underscores() {
        let id = TournamentId::new("big-50_d1a").unwrap();
        assert_eq!(id.as_str(), "big-50_d1a");
        assert_eq!(
            TournamentId::new(""),
            Err(IdError::Empty {
                what: "a tournament id"
            })
        );
        let e = TournamentId::new("big 50").unwrap_err();
        assert_eq!(
            e.to_string(),
            "a tournament id is letters, digits, '-' and '_' only (\"big 50\")"
        );
        assert!(TournamentId::new("x".repeat(64)).is_ok());
        let e = TournamentId::new("x".repeat(65)).unwrap_err();
        assert!(
            matches!(
                e,
                IdError::TooLong {
                    max: 64,
                    len: 65,
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(
            "a.b".parse::<TournamentId>().is_err(),
            "a stream name's separator"
        );
    }

    #[test]
    fn a_player_id_is_printable_ascii_without_spaces() {
        assert!(PlayerId::new("WSOP#1234-5678").is_ok());
        assert!(PlayerId::new("ana maria").is_err());
        assert!(PlayerId::new("joão").is_err());
        assert!(PlayerId::new("").is_err());
        assert!(PlayerId::new("p".repeat(65)).is_err());
        let e = PlayerId::new("tab\there").unwrap_err();
        assert_eq!(crate::Classified::kind(&e), crate::ErrorKind::Malformed);
    }

    #[test]
    fn a_text_id_is_stored_as_its_bare_string() {
        let player = PlayerId::new("p7").unwrap();
        assert_eq!(serde_json::to_string(&player).unwrap(), "\"p7\"");
        let packed = rmp_serde::to_vec(&player).unwrap();
        assert_eq!(packed, rmp_serde::to_vec("p7").unwrap());
        assert_eq!(rmp_serde::from_slice::<PlayerId>(&packed).unwrap(), player);
        let tournament = TournamentId::new("sunday").unwrap();
        assert_eq!(
            rmp_serde::to_vec(&tournament).unwrap(),
            rmp_serde::to_vec("sunday").unwrap()
        );
    }
}
