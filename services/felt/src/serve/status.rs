//! The one place domain and log errors become gRPC statuses.

use felt_eventlog::LogError;
use felt_service::HandleError;
use felt_table::Rejection;
use felt_tournament::TournamentError;
use tonic::Status;
use tonic::metadata::MetadataValue;

/// The rejection's kind, for machines: its variant name.
fn kind(r: &impl std::fmt::Debug) -> String {
    let debug = format!("{r:?}");
    debug
        .split(|c: char| !c.is_ascii_alphanumeric())
        .next()
        .unwrap_or("Rejection")
        .to_string()
}

/// Rejections that say the request itself is malformed.
fn malformed(r: &Rejection) -> bool {
    matches!(
        r,
        Rejection::InvalidTableSize { .. }
            | Rejection::NoSuchSeat { .. }
            | Rejection::EmptyStack
            | Rejection::InvalidLevel { .. }
            | Rejection::WrongBoardCount { .. }
            | Rejection::NoChipsPushed { .. }
            | Rejection::InvalidPenalty
    )
}

/// `INVALID_ARGUMENT` for malformed input, `FAILED_PRECONDITION` for a rule
/// violation (the rule is in the message); the rejection's kind is in the
/// `felt-rejection` metadata. Log trouble is `UNAVAILABLE` (retry with the
/// same command id), contention `ABORTED`.
pub(crate) fn status(e: HandleError<Rejection>) -> Status {
    match e {
        HandleError::Rejected(r) => {
            let mut s = if malformed(&r) {
                Status::invalid_argument(r.to_string())
            } else {
                Status::failed_precondition(r.to_string())
            };
            if let Ok(v) = MetadataValue::try_from(kind(&r)) {
                s.metadata_mut().insert("felt-rejection", v);
            }
            s
        }
        HandleError::Contended { .. } => Status::aborted(e.to_string()),
        HandleError::Log(LogError::Conflict { .. }) => Status::aborted(e.to_string()),
        HandleError::Log(LogError::InvalidStreamId { .. }) => {
            Status::invalid_argument(e.to_string())
        }
        HandleError::Log(other) => Status::unavailable(other.to_string()),
    }
}

pub(crate) fn log(e: LogError) -> Status {
    status(HandleError::Log(e))
}

/// A refusal by the clock, seating or payout: `INVALID_ARGUMENT` for
/// malformed input, `NOT_FOUND` for a tournament never created,
/// `FAILED_PRECONDITION` for a rule or a state that forbids it; its kind in
/// `felt-rejection`.
fn refused(kind_of: String, message: String, malformed: bool, missing: bool) -> Status {
    let mut s = if missing {
        Status::not_found(message)
    } else if malformed {
        Status::invalid_argument(message)
    } else {
        Status::failed_precondition(message)
    };
    if let Ok(v) = MetadataValue::try_from(kind_of) {
        s.metadata_mut().insert("felt-rejection", v);
    }
    s
}

/// The one mapping of the conductor's errors to gRPC statuses.
pub(crate) fn tournament(e: TournamentError) -> Status {
    use felt_clock::ClockError as C;
    use felt_payout::PayoutError as P;
    use felt_seating::SeatingError as S;
    match e {
        TournamentError::Table { table, source } => {
            let mut s = status(HandleError::Rejected(source));
            let message = format!("table {table}: {}", s.message());
            let metadata = s.metadata().clone();
            s = Status::with_metadata(s.code(), message, metadata);
            s
        }
        TournamentError::Clock(c) => refused(
            kind(&c),
            c.to_string(),
            matches!(
                c,
                C::InvalidStructure { .. }
                    | C::Parse { .. }
                    | C::NoSuchPreset { .. }
                    | C::InvalidSetting { .. }
                    | C::InvalidRemaining { .. }
                    | C::NoSuchLevel { .. }
                    | C::NoTables
                    | C::InvalidDraw { .. }
            ),
            c == C::NotConfigured,
        ),
        TournamentError::Seating(c) => refused(
            kind(&c),
            c.to_string(),
            matches!(
                c,
                S::InvalidSettings { .. } | S::NoPlayer | S::NoSuchSeat { .. }
            ),
            c == S::NotCreated,
        ),
        TournamentError::Payout(c) => refused(
            kind(&c),
            c.to_string(),
            matches!(
                c,
                P::InvalidStructure { .. }
                    | P::InvalidSheet { .. }
                    | P::NoPlayers
                    | P::TooManyForIcm { .. }
                    | P::EmptyStack { .. }
                    | P::DealNeedsPlayers { .. }
                    | P::DealDoesNotAddUp { .. }
            ),
            c == P::NotConfigured,
        ),
        TournamentError::Log(e) => log(e),
        e @ TournamentError::Contended { .. } => Status::aborted(e.to_string()),
        e @ TournamentError::Inconsistent(_) => Status::internal(e.to_string()),
        e @ (TournamentError::TableRefused { .. }
        | TournamentError::ClockRefused(_)
        | TournamentError::ClockElsewhere) => Status::failed_precondition(e.to_string()),
        e @ (TournamentError::TablesUnavailable(_)
        | TournamentError::ClockUnavailable(_)
        | TournamentError::PartsMissing { .. }) => Status::unavailable(e.to_string()),
        e @ (TournamentError::StillInTime { .. } | TournamentError::NoClockRunning { .. }) => {
            Status::failed_precondition(e.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::Code;

    #[test]
    fn rule_violations_and_malformed_input_map_to_their_codes() {
        let s = status(HandleError::Rejected(Rejection::RaiseBelowMinimum {
            to: 60,
            min: 100,
        }));
        assert_eq!(s.code(), Code::FailedPrecondition);
        assert_eq!(
            s.message(),
            "raise to 60 is below the minimum raise to 100 (TDA 43)"
        );
        assert_eq!(
            s.metadata().get("felt-rejection").unwrap(),
            "RaiseBelowMinimum"
        );
        let s = status(HandleError::Rejected(Rejection::NoSuchSeat {
            seat: 11,
            size: 9,
        }));
        assert_eq!(s.code(), Code::InvalidArgument);
        let s = log(LogError::Nats("gone".into()));
        assert_eq!(s.code(), Code::Unavailable);
    }
}
