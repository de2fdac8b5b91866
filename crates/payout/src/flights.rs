//! An event's one pool from its Day 1 flights (issue 28). Each flight
//! collects its entries' money and places nobody (`Structure::Flight`);
//! once every flight has bagged, the event records them all, a part at a
//! time (`RecordFlight`: each decision small enough for any log's
//! message): every flight's entries, add-ons and rebuys are its entries,
//! add-ons and rebuys. `CloseFlights` then puts the entries that did not
//! reach Day 2 in line for the close, below every stack that did. Flights
//! out at the same point of their own field finish side by side: each
//! flight's busts are interleaved by how far through its field they went
//! out, so every flight takes a share of the lowest places (those paid
//! included) in proportion to its entries. Bags that did not advance as
//! their own entry (forfeited, or added into another) finish lowest.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::decide::PayoutEvent;
use crate::{Bust, EntryId, PayoutError, PayoutState, PlayerId};

/// One flight as its event records it, or a part of one.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlightRecord {
    /// The flight's number (from 1).
    pub flight: u32,
    /// The flight's whole field: every entry that stayed in it.
    pub field: u32,
    /// Entries of the field (all of them, or this part's).
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

/// The entries a `RecordFlight` may carry at most (each decision stays
/// far below a log message's bound).
pub const FLIGHT_PART: usize = 2_000;

/// The flights' entries out, in line for the close: the bags that did
/// not advance first, then Day 1's busts, each flight's k-th out of n at
/// k/n of the way through its field.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FlightOuts {
    /// (k, field, flight, entry).
    pub(crate) busts: Vec<(u32, u32, u32, EntryId)>,
    /// (flight, entry).
    pub(crate) not_advanced: Vec<(u32, EntryId)>,
    pub(crate) flights: BTreeSet<u32>,
}

impl FlightOuts {
    /// The entries out, the first out first.
    pub(crate) fn in_order(&self) -> Vec<EntryId> {
        let mut busts = self.busts.clone();
        // k/n before k'/n' when k·n' < k'·n; the earlier flight first on
        // a tie.
        busts.sort_by(|a, b| {
            (u64::from(a.0) * u64::from(b.1))
                .cmp(&(u64::from(b.0) * u64::from(a.1)))
                .then((a.2, a.3).cmp(&(b.2, b.3)))
        });
        let mut not_advanced = self.not_advanced.clone();
        not_advanced.sort();
        not_advanced
            .into_iter()
            .map(|(_, e)| e)
            .chain(busts.into_iter().map(|b| b.3))
            .collect()
    }
}

type Decided = Result<Vec<PayoutEvent>, PayoutError>;

fn refused(reason: &str) -> PayoutError {
    PayoutError::FlightsRefused {
        reason: reason.into(),
    }
}

/// Whether the event can take its flights now.
fn open(state: &PayoutState) -> Result<&crate::MoneySettings, PayoutError> {
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
    if state.pool.is_some() {
        return Err(PayoutError::RegistrationClosed);
    }
    Ok(s)
}

pub(crate) fn record_flight(state: &PayoutState, r: &FlightRecord) -> Decided {
    let s = open(state)?;
    if r.flight == 0 {
        return Err(refused("flights are numbered from 1"));
    }
    if r.entries.len() > FLIGHT_PART
        || r.out.len() > FLIGHT_PART
        || r.not_advanced.len() > FLIGHT_PART
        || r.add_ons.len() > FLIGHT_PART
        || r.rebuys.len() > FLIGHT_PART * 100
    {
        return Err(PayoutError::TooMuch {
            what: "a flight's part".into(),
            max: FLIGHT_PART as u64,
        });
    }
    if state.entries.len() + r.entries.len() > crate::MAX_FIELD as usize {
        return Err(PayoutError::TooMuch {
            what: "entries".into(),
            max: crate::MAX_FIELD.into(),
        });
    }
    let mut new = BTreeSet::new();
    for (entry, _) in &r.entries {
        if state.entries.contains_key(entry) || !new.insert(*entry) {
            return Err(PayoutError::DuplicateEntry { entry: *entry });
        }
    }
    let known = |e: &EntryId| new.contains(e) || state.entries.contains_key(e);
    if !r.add_ons.is_empty() && s.add_on == 0 {
        return Err(PayoutError::NoAddOns);
    }
    if !r.rebuys.is_empty() && s.rebuy == 0 {
        return Err(PayoutError::NoRebuys);
    }
    for e in r.add_ons.iter().chain(&r.rebuys).chain(&r.not_advanced) {
        if !known(e) {
            return Err(PayoutError::NoSuchEntry { entry: *e });
        }
    }
    for &(entry, out) in &r.out {
        if !known(&entry) {
            return Err(PayoutError::NoSuchEntry { entry });
        }
        if out == 0 || out > r.field {
            return Err(PayoutError::OutOfField {
                entry,
                out,
                field: r.field,
            });
        }
    }
    Ok(vec![PayoutEvent::FlightRecorded { record: r.clone() }])
}

pub(crate) fn close_flights(state: &PayoutState) -> Decided {
    open(state)?;
    if state.flight_outs.flights.is_empty() {
        return Err(PayoutError::NoEntries);
    }
    let mut seen = BTreeSet::new();
    for entry in state.flight_outs.in_order() {
        if !seen.insert(entry) || state.entries.get(&entry).is_none_or(|e| e.busted) {
            return Err(PayoutError::EntryBusted { entry });
        }
    }
    Ok(vec![PayoutEvent::FlightsRecorded {
        flights: state.flight_outs.flights.iter().copied().collect(),
    }])
}

impl PayoutState {
    /// A flight's part recorded: its entries, add-ons and rebuys are
    /// this event's; its entries out wait for the flights' close.
    pub(crate) fn flight_recorded(&mut self, r: &FlightRecord) {
        for (entry, player) in &r.entries {
            self.apply(&PayoutEvent::EntryRecorded {
                entry: *entry,
                player: player.clone(),
            });
        }
        for entry in &r.add_ons {
            self.apply(&PayoutEvent::AddOnRecorded { entry: *entry });
        }
        for entry in &r.rebuys {
            self.apply(&PayoutEvent::RebuyRecorded { entry: *entry });
        }
        self.flight_outs.flights.insert(r.flight);
        self.flight_outs.busts.extend(
            r.out
                .iter()
                .map(|&(entry, k)| (k, r.field, r.flight, entry)),
        );
        self.flight_outs
            .not_advanced
            .extend(r.not_advanced.iter().map(|&e| (r.flight, e)));
    }

    /// The flights closed: their entries out wait for the close, one at
    /// a time, numbered in the order they went out.
    pub(crate) fn flights_closed(&mut self) {
        for (n, entry) in (1u32..).zip(self.flight_outs.in_order()) {
            self.apply(&PayoutEvent::Busted {
                busts: vec![Bust {
                    entry,
                    table: 0,
                    starting_stack: 0,
                    by: Vec::new(),
                    out: Some(n),
                    forfeit: false,
                }],
            });
        }
        self.flight_outs.busts.clear();
        self.flight_outs.not_advanced.clear();
        self.flights_recorded = true;
    }
}
