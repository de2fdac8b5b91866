//! The one place domain and log errors become gRPC statuses.

use std::collections::HashMap;

use felt_eventlog::LogError;
use felt_service::HandleError;
use felt_table::Rejection;
use felt_tournament::{Refusal, TournamentError};
use felt_vocabulary::{Classified, ErrorKind};
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

/// The one table from an error's kind to its gRPC code.
pub(crate) fn code(kind: ErrorKind) -> Code {
    match kind {
        ErrorKind::Malformed => Code::InvalidArgument,
        ErrorKind::Refused => Code::FailedPrecondition,
        ErrorKind::NotFound => Code::NotFound,
        ErrorKind::AlreadyExists => Code::AlreadyExists,
        ErrorKind::Conflict => Code::Aborted,
        ErrorKind::Unavailable => Code::Unavailable,
        ErrorKind::Internal => Code::Internal,
    }
}

/// The `domain` of felt's `google.rpc.ErrorInfo`.
pub(crate) const DOMAIN: &str = "felt.poker";

/// A refusal by a decider: its kind's code and its message (the rule, for
/// a poker ruling); for machines, a `google.rpc.ErrorInfo` detail (reason:
/// the refusing error's name, domain [`DOMAIN`], metadata `kind`, and
/// `rule` for a ruling, e.g. "TDA 43") and the same in the
/// `felt-rejection`, `felt-error-kind` and `felt-rule` metadata.
pub(crate) fn refused<E: Classified>(e: &E) -> Status {
    classified(e.kind(), e.reason(), e.rule(), e.to_string())
}

/// A status of `kind`, its reason and rule attached as [`refused`] says.
pub(crate) fn classified(
    kind: ErrorKind,
    reason: &str,
    rule: Option<&str>,
    message: String,
) -> Status {
    let mut metadata = MetadataMap::new();
    if let Ok(v) = MetadataValue::try_from(reason) {
        metadata.insert("felt-rejection", v);
    }
    metadata.insert("felt-error-kind", MetadataValue::from_static(kind.as_str()));
    let mut about = HashMap::from([("kind".to_string(), kind.as_str().to_string())]);
    if let Some(rule) = rule {
        if let Ok(v) = MetadataValue::try_from(rule) {
            metadata.insert("felt-rule", v);
        }
        about.insert("rule".to_string(), rule.to_string());
    }
    let info = ErrorDetails::with_error_info(reason, DOMAIN, about);
    Status::with_error_details_and_metadata(code(kind), message, info, metadata)
}

/// How a refusal from another felt service was classified there: from its
/// `ErrorInfo`, else from its metadata, else from its code alone (the
/// kind [`code`] maps to it; a refusal for any other code).
pub(crate) fn refusal_of(s: &Status) -> Refusal {
    let from_code = ErrorKind::ALL
        .into_iter()
        .find(|&k| code(k) == s.code())
        .unwrap_or(ErrorKind::Refused);
    let message = s.message().to_string();
    if let Some(mut info) = s.get_details_error_info().filter(|i| i.domain == DOMAIN) {
        let kind = info
            .metadata
            .get("kind")
            .and_then(|k| k.parse().ok())
            .unwrap_or(from_code);
        return Refusal {
            kind,
            reason: info.reason,
            rule: info.metadata.remove("rule"),
            message,
        };
    }
    let header = |name: &str| {
        s.metadata()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let kind = header("felt-error-kind")
        .and_then(|k| k.parse().ok())
        .unwrap_or(from_code);
    let reason = header("felt-rejection").unwrap_or_else(|| format!("{:?}", s.code()));
    Refusal {
        kind,
        reason,
        rule: header("felt-rule"),
        message,
    }
}

/// A table's refusal as [`refused`] has it; the log's trouble by its kind
/// (the log away is `UNAVAILABLE`: retry with the same command id),
/// contention `ABORTED`.
pub(crate) fn status(e: HandleError<Rejection>) -> Status {
    refused(&e)
}

/// The log's trouble, as [`status`] has it.
pub(crate) fn log(e: LogError) -> Status {
    refused(&e)
}

/// The one mapping of the conductor's errors to gRPC statuses: each
/// classified by its kind, a refusal another service sent keeping the
/// kind and reason it was sent with. Log trouble as [`log`] has it.
pub(crate) fn tournament(e: TournamentError) -> Status {
    let message = match e {
        TournamentError::Log(e) => return log(e),
        // (The domain's own words, without the service's prefix.)
        TournamentError::Clock(ref c) => c.to_string(),
        TournamentError::Seating(ref c) => c.to_string(),
        TournamentError::Payout(ref c) => c.to_string(),
        TournamentError::Room(ref c) => c.to_string(),
        ref other => other.to_string(),
    };
    classified(e.kind(), e.reason(), e.rule(), message)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// A refusal's code comes from the kind its error reports, and the kind
    /// and the reason travel in the metadata.
    #[test]
    fn a_refusal_says_its_kind_and_reason() {
        let said = |s: &Status| {
            (
                s.code(),
                s.metadata()
                    .get("felt-rejection")
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_string(),
                s.metadata()
                    .get("felt-error-kind")
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_string(),
            )
        };
        let s = status(HandleError::Rejected(Rejection::TableNotOpen));
        assert_eq!(
            said(&s),
            (Code::NotFound, "TableNotOpen".into(), "not-found".into())
        );
        let s = tournament(TournamentError::Seating(
            felt_seating::SeatingError::AlreadyCreated,
        ));
        assert_eq!(
            said(&s),
            (
                Code::AlreadyExists,
                "AlreadyCreated".into(),
                "already-exists".into()
            )
        );
        let s = tournament(TournamentError::Seating(
            felt_seating::SeatingError::NoSuchEntry {
                entry: felt_vocabulary::EntryId(7),
            },
        ));
        assert_eq!(
            said(&s),
            (Code::NotFound, "NoSuchEntry".into(), "not-found".into())
        );
        // The log's trouble is classified by the log: away is retryable,
        // a log that does not read back is felt's own fault.
        let s = log(LogError::Closed);
        assert_eq!(
            said(&s),
            (Code::Unavailable, "Closed".into(), "unavailable".into())
        );
        let s = tournament(TournamentError::Log(LogError::Decode {
            what: "seating-t1".into(),
            reason: "truncated".into(),
        }));
        assert_eq!(
            said(&s),
            (Code::Internal, "Decode".into(), "internal".into())
        );
        let s = status(HandleError::Contended {
            stream: "table-t1-1".into(),
            attempts: 8,
        });
        assert_eq!(
            said(&s),
            (Code::Aborted, "Contended".into(), "conflict".into())
        );
        let s = tournament(TournamentError::Clock(
            felt_clock::ClockError::NotConfigured,
        ));
        assert_eq!(
            said(&s),
            (Code::NotFound, "NotConfigured".into(), "not-found".into())
        );
        let s = tournament(TournamentError::Payout(
            felt_payout::PayoutError::DealNeedsPlayers { players: 1 },
        ));
        assert_eq!(
            said(&s),
            (
                Code::InvalidArgument,
                "DealNeedsPlayers".into(),
                "malformed".into()
            )
        );
        let s = tournament(TournamentError::Clock(felt_clock::ClockError::OnBreak {
            remaining: 5,
        }));
        assert_eq!(
            said(&s),
            (Code::FailedPrecondition, "OnBreak".into(), "refused".into())
        );
    }
}
