//! The aggregate the handler's tests run: chips in a box.

#![allow(dead_code)]

use felt_service::Aggregate;

/// Chips in a box: put some in, take some out, never more than are there.
/// `Q`: whether its appends are queued (`Aggregate::QUEUES`).
#[derive(Debug)]
pub(crate) struct Chips<const Q: bool = false>;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Refused {
    #[error("cannot take {want}: {have} in the box")]
    TooFew { want: u64, have: u64 },
}

impl felt_vocabulary::Classified for Refused {
    fn kind(&self) -> felt_vocabulary::ErrorKind {
        felt_vocabulary::ErrorKind::Refused
    }

    fn reason(&self) -> &str {
        "TooFew"
    }
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) enum Moved {
    In(u64),
    Out(u64),
}

pub(crate) enum Move {
    Put(u64),
    Take(u64),
}

impl<const Q: bool> Aggregate for Chips<Q> {
    type State = u64;
    type Command = Move;
    type Event = Moved;
    type Rejection = Refused;
    const SCHEMA: u16 = 1;
    const QUEUES: bool = Q;

    fn decide(have: &u64, command: &Move, _: &felt_service::Seed) -> Result<Vec<Moved>, Refused> {
        match *command {
            Move::Put(n) => Ok(vec![Moved::In(n)]),
            Move::Take(0) => Ok(vec![]),
            Move::Take(want) if want > *have => Err(Refused::TooFew { want, have: *have }),
            Move::Take(n) => Ok(vec![Moved::Out(n)]),
        }
    }

    fn apply(have: &mut u64, event: &Moved) {
        match event {
            Moved::In(n) => *have += n,
            Moved::Out(n) => *have -= n,
        }
    }

    fn event_type(event: &Moved) -> &'static str {
        match event {
            Moved::In(_) => "In",
            Moved::Out(_) => "Out",
        }
    }
}
