//! The words every felt crate shares, defined once.
//!
//! [`ErrorKind`]: what kind of error an error is, which every library
//! crate's error reports of itself ([`Classified`]), so the edge maps a
//! kind to a gRPC code in one table and a caller knows whether sending the
//! same request again can help, without knowing the crate that refused.
//!
//! [`ids`]: the identities and amounts every crate and the wire use
//! (tournament, table, entry, player, seat, chips, money, moments, a
//! level's blinds), each
//! defined here and nowhere else.
//!
//! This crate depends on nothing of felt's and decides nothing: it names,
//! it does not rule.

pub mod ids;

pub use ids::{
    AnteFormat, Chips, EntryId, IdError, Level, MAX_CHIPS, Millis, Money, PersonId, PlayerId, Seat,
    TableNo, TournamentId,
};

/// What kind of error an error is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The request itself is malformed (a value out of its range, a field
    /// missing): only a corrected request can succeed.
    Malformed,
    /// A rule or the state of play forbids it now (the message names the
    /// rule): the same request may succeed once the state changes.
    Refused,
    /// What it names does not exist: a tournament never created, a table
    /// never opened, an entry, a hand.
    NotFound,
    /// What it would create exists already.
    AlreadyExists,
    /// Decided on a state that was no longer the latest: sent again, it is
    /// decided on the latest.
    Conflict,
    /// The service or its log is away: the same request, sent again with
    /// the same command id, is stored once.
    Unavailable,
    /// felt's own fault: an invariant broken, a log that does not add up.
    Internal,
}

impl ErrorKind {
    /// Every kind, in the order of the list above.
    pub const ALL: [ErrorKind; 7] = [
        ErrorKind::Malformed,
        ErrorKind::Refused,
        ErrorKind::NotFound,
        ErrorKind::AlreadyExists,
        ErrorKind::Conflict,
        ErrorKind::Unavailable,
        ErrorKind::Internal,
    ];

    /// Whether sending the same request again, unchanged, can help.
    pub fn retryable(self) -> bool {
        matches!(self, ErrorKind::Conflict | ErrorKind::Unavailable)
    }

    /// The kind's name, as it travels in metadata.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Malformed => "malformed",
            ErrorKind::Refused => "refused",
            ErrorKind::NotFound => "not-found",
            ErrorKind::AlreadyExists => "already-exists",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::Internal => "internal",
        }
    }
}

impl std::str::FromStr for ErrorKind {
    type Err = UnknownKind;

    /// A kind from its name ([`ErrorKind::as_str`]).
    fn from_str(name: &str) -> Result<Self, UnknownKind> {
        ErrorKind::ALL
            .into_iter()
            .find(|k| k.as_str() == name)
            .ok_or_else(|| UnknownKind(name.chars().take(40).collect()))
    }
}

/// A name that is no [`ErrorKind`]'s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownKind(pub String);

impl std::fmt::Display for UnknownKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no error kind is named {:?}", self.0)
    }
}

impl std::error::Error for UnknownKind {}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error that knows what kind it is, and its reason: a short stable
/// name for machines (its variant's name, e.g. `RaiseBelowMinimum`), which
/// a partner may match on while the message is for people.
pub trait Classified: std::error::Error {
    fn kind(&self) -> ErrorKind;
    fn reason(&self) -> &str;
    /// The rule a ruling follows ("TDA 43", "seed 002, 77"), for a refusal
    /// that applies one; the message quotes it too.
    fn rule(&self) -> Option<&str> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_conflict_or_a_service_away_is_worth_sending_again() {
        let retryable: Vec<ErrorKind> = ErrorKind::ALL
            .into_iter()
            .filter(|k| k.retryable())
            .collect();
        assert_eq!(retryable, [ErrorKind::Conflict, ErrorKind::Unavailable]);
    }

    #[test]
    fn each_kind_has_its_own_name_and_is_read_back_from_it() {
        let mut names: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ErrorKind::ALL.len());
        for kind in ErrorKind::ALL {
            assert_eq!(kind.as_str().parse(), Ok(kind));
        }
        assert_eq!("gone".parse::<ErrorKind>(), Err(UnknownKind("gone".into())));
    }
}
