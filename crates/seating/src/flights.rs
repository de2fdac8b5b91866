//! An event fed by several Day 1 flights (issue 28): its Day 2 starts
//! from every flight's sealed bags. A player who bagged in more than one
//! flight plays one stack, taken by the event's policy (the best bag, the
//! first, or all of them added); every bagged chip either reaches Day 2 or
//! is recorded as forfeited. The stacks are seated by the event's start,
//! every seat drawn afresh (rule 7), the survivors of all flights
//! together.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{AdvancedStack, DayResume, FlightBag, FlightStacks, PlayerId, SeatingEvent};
use crate::state::SeatingState;
use crate::{MAX_CHIPS, SeatingError};

type Decided = Result<Vec<SeatingEvent>, SeatingError>;

/// The longest player name a bag carries (as registration's).
const MAX_NAME: usize = 100;

pub(crate) fn advance(
    state: &SeatingState,
    bags: &[FlightBag],
    out: u32,
    resume: Option<DayResume>,
) -> Decided {
    let policy = state
        .room()
        .settings
        .as_ref()
        .and_then(|s| s.flights)
        .ok_or(SeatingError::NotAnEvent)?;
    if state.flights_advanced {
        return Err(SeatingError::FlightsAlreadyAdvanced);
    }
    if state.started {
        return Err(SeatingError::AlreadyStarted);
    }
    if let Some(r) = resume {
        let refused = |reason: &str| SeatingError::InvalidResume {
            day: r.day,
            level: r.level,
            remaining_ms: r.remaining_ms,
            reason: reason.into(),
        };
        if r.day < 2 {
            return Err(refused("the flights were the event's Day 1"));
        }
        if r.level == 0 {
            return Err(refused("levels are numbered from 1"));
        }
        if r.remaining_ms <= 0 {
            return Err(refused("a level resumes with time left in it"));
        }
    }
    let invalid = |b: &FlightBag, reason: &str| SeatingError::InvalidFlightBag {
        flight: b.flight,
        entry: b.entry,
        reason: reason.into(),
    };
    let mut seen = BTreeSet::new();
    let mut by_player: BTreeMap<&PlayerId, Vec<&FlightBag>> = BTreeMap::new();
    for b in bags {
        if b.flight == 0 {
            return Err(invalid(b, "flights are numbered from 1"));
        }
        if b.chips == 0 || b.chips > MAX_CHIPS {
            return Err(invalid(
                b,
                "a bag holds from 1 chip to the most a table holds",
            ));
        }
        if b.name.chars().count() > MAX_NAME || b.name.chars().any(char::is_control) {
            return Err(invalid(b, "the player's name is too long or not printable"));
        }
        if !seen.insert(b.entry) || state.entries.contains_key(&b.entry) {
            return Err(invalid(b, "the entry is bagged twice"));
        }
        by_player.entry(&b.player).or_default().push(b);
    }
    if bags.len() < 2 {
        return Err(SeatingError::TooFewPlayers {
            players: bags.len() as u32,
        });
    }
    let mut advanced = Vec::with_capacity(by_player.len());
    let mut forfeited = Vec::new();
    for (player, mut own) in by_player {
        // The earliest flight's bag first (its entry the lowest there).
        own.sort_by_key(|b| (b.flight, b.entry));
        let (chips, kept) = match policy {
            FlightStacks::Best => {
                let best = own
                    .iter()
                    .copied()
                    .max_by_key(|b| (b.chips, std::cmp::Reverse((b.flight, b.entry))))
                    .unwrap_or(own[0]);
                (best.chips, vec![best])
            }
            FlightStacks::First => (own[0].chips, vec![own[0]]),
            FlightStacks::Added => {
                let sum = own
                    .iter()
                    .try_fold(0u64, |sum, b| sum.checked_add(b.chips))
                    .filter(|&c| c <= MAX_CHIPS)
                    .ok_or_else(|| {
                        invalid(own[0], "the stacks added hold more than a table can")
                    })?;
                (sum, own.clone())
            }
        };
        let entry = kept[0].entry;
        forfeited.extend(
            own.iter()
                .filter(|b| !kept.iter().any(|k| k.entry == b.entry))
                .map(|&b| b.clone()),
        );
        advanced.push(AdvancedStack {
            entry,
            player: player.clone(),
            name: kept[0].name.clone(),
            chips,
            bags: kept.iter().map(|b| b.entry).collect(),
        });
    }
    advanced.sort_by_key(|a| a.entry);
    // Every flight entry that is not a stack here is out before the first
    // bust here: Day 1's busts, and bags that did not advance as their
    // own entry.
    let out_before = out
        .checked_add((bags.len() - advanced.len()) as u32)
        .ok_or(SeatingError::FieldFull {
            max: crate::MAX_ENTRIES,
        })?;
    Ok(vec![SeatingEvent::FlightsAdvanced {
        advanced,
        forfeited,
        out_before,
        resume,
    }])
}
