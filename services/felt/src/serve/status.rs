//! The one place domain and log errors become gRPC statuses.

use felt_eventlog::LogError;
use felt_service::HandleError;
use felt_table::Rejection;
use tonic::Status;
use tonic::metadata::MetadataValue;

/// The rejection's kind, for machines: its variant name.
fn kind(r: &Rejection) -> String {
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
