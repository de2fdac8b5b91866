//! An event's one pool from its Day 1 flights (issue 28). Each flight
//! collects its entries' money and places nobody (`Structure::Flight`);
//! once every flight has bagged, the event records them all: every
//! flight's entries, add-ons and rebuys are its entries, add-ons and
//! rebuys, and the entries that did not reach Day 2 wait for the close,
//! placed below every stack that did. Flights out at the same point of
//! their own field finish side by side: each flight's busts are
//! interleaved by how far through its field they went out, so every
//! flight takes a share of the lowest places (those paid included) in
//! proportion to its entries. Bags that did not advance as their own
//! entry (forfeited, or added into another) finish lowest.

use serde::{Deserialize, Serialize};

use crate::decide::{Command, PayoutEvent, decide};
use crate::{Bust, EntryId, PayoutError, PayoutState, PlayerId};

/// One flight as its event records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlightRecord {
    /// The flight's number (from 1).
    pub flight: u32,
    /// Every entry that stayed in the flight's field.
    pub entries: Vec<(EntryId, PlayerId)>,
    /// The add-ons sold in the flight, one per entry that bought one.
    pub add_ons: Vec<EntryId>,
    /// The rebuys sold in the flight, one item per rebuy.
    pub rebuys: Vec<EntryId>,
    /// The flight's entries out on Day 1, each with its number in the
    /// order the flight's players went out (1: the first).
    pub out: Vec<(EntryId, u32)>,
    /// The flight's bags that did not advance as their own entry.
    pub not_advanced: Vec<EntryId>,
}

type Decided = Result<Vec<PayoutEvent>, PayoutError>;

pub(crate) fn record_flights(state: &PayoutState, flights: &[FlightRecord]) -> Decided {
    let refused = |reason: &str| PayoutError::FlightsRefused {
        reason: reason.into(),
    };
    let s = state.settings.as_ref().ok_or(PayoutError::NotConfigured)?;
    if s.structure.flight_of().is_some() || s.structure.satellite().is_some() {
        return Err(refused(
            "a flight or a satellite is not an event fed by flights",
        ));
    }
    if s.bounty > 0 {
        return Err(refused(
            "bounties are collected in each flight, and an event fed by flights carries none",
        ));
    }
    if state.flights_recorded {
        return Err(refused("the flights are already recorded"));
    }
    if flights.is_empty() {
        return Err(PayoutError::NoEntries);
    }
    let mut scratch = state.clone();
    let mut events = Vec::new();
    let mut run = |command: Command, events: &mut Vec<PayoutEvent>| -> Result<(), PayoutError> {
        for e in decide(&scratch, &command)? {
            scratch.apply(&e);
            events.push(e);
        }
        Ok(())
    };
    for f in flights {
        if !f.entries.is_empty() {
            run(
                Command::RecordEntries {
                    entries: f.entries.clone(),
                },
                &mut events,
            )?;
        }
        for &entry in &f.add_ons {
            run(Command::RecordAddOn { entry }, &mut events)?;
        }
        for &entry in &f.rebuys {
            run(Command::RecordRebuy { entry }, &mut events)?;
        }
    }
    // Out first: the bags that did not advance, then Day 1's busts, each
    // flight's k-th out of n at k/n of the way through the field.
    let mut order: Vec<(u64, u64, u32, EntryId)> = Vec::new();
    for f in flights {
        let field = f.entries.len() as u64;
        for &(entry, k) in &f.out {
            if k == 0 || u64::from(k) > field {
                return Err(PayoutError::OutOfField {
                    entry,
                    out: k,
                    field: field as u32,
                });
            }
            order.push((u64::from(k), field, f.flight, entry));
        }
    }
    // k/n before k'/n' when k·n' < k'·n; the earlier flight first on a tie.
    order.sort_by(|a, b| {
        (u128::from(a.0) * u128::from(b.1))
            .cmp(&(u128::from(b.0) * u128::from(a.1)))
            .then((a.2, a.3).cmp(&(b.2, b.3)))
    });
    let mut not_advanced: Vec<(u32, EntryId)> = flights
        .iter()
        .flat_map(|f| f.not_advanced.iter().map(move |&e| (f.flight, e)))
        .collect();
    not_advanced.sort();
    let outs = not_advanced
        .into_iter()
        .map(|(_, e)| e)
        .chain(order.into_iter().map(|o| o.3));
    for (n, entry) in (1u32..).zip(outs) {
        let bust = Bust {
            entry,
            table: 0,
            starting_stack: 0,
            by: Vec::new(),
            out: Some(n),
            forfeit: false,
        };
        let e = scratch
            .entries
            .get(&entry)
            .ok_or(PayoutError::NoSuchEntry { entry })?;
        if e.busted {
            return Err(PayoutError::EntryBusted { entry });
        }
        let out = PayoutEvent::Busted { busts: vec![bust] };
        scratch.apply(&out);
        events.push(out);
    }
    events.push(PayoutEvent::FlightsRecorded {
        flights: flights.iter().map(|f| f.flight).collect(),
    });
    Ok(events)
}
