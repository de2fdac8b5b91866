//! Bag and tag at the end of a day (seed 002, rule 77; issue 28): every
//! surviving entry's stack, counted from its table, goes into a numbered
//! bag; the player and a staff member each confirm it; a disputed count
//! is corrected at the table (the floor's stack correction) and counted
//! again, which clears that bag's confirmations; the bags are sealed once
//! every one is confirmed by both, and the next day starts from them. A
//! table that records results only is bagged from the floor's last count,
//! never from an estimate.

use serde::{Deserialize, Serialize};

use crate::model::{Chips, EntryId, SeatingEvent, TableNo};
use crate::state::SeatingState;
use crate::{EntryStatus, SeatingError};

/// One bag as recorded: whose it is, its number and the chips in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bag {
    pub entry: EntryId,
    pub number: u32,
    pub chips: Chips,
}

/// Who confirms a bag's count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum BagWitness {
    /// The player whose chips they are.
    Player,
    /// A staff member (the floor or the director; the decision's actor).
    Staff,
}

/// A bag and who has confirmed its count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BagState {
    pub number: u32,
    pub chips: Chips,
    pub player: bool,
    pub staff: bool,
    /// Where the player sat when the stacks were counted (0 in states kept
    /// before it was).
    #[serde(default)]
    pub table: TableNo,
    #[serde(default)]
    pub seat: u8,
}

impl BagState {
    /// Confirmed by the player and by a staff member.
    pub fn confirmed(&self) -> bool {
        self.player && self.staff
    }
}

/// The day's bags, from the count to the next day's.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bags {
    pub bags: std::collections::BTreeMap<EntryId, BagState>,
    pub sealed: bool,
    /// The next day started from them (its seats drawn afresh).
    #[serde(default)]
    pub resumed: bool,
    /// The day they close (1 for Day 1; 0 in states kept before it was).
    #[serde(default)]
    pub day: u32,
}

impl Bags {
    /// The chips in all the bags.
    pub fn chips(&self) -> u128 {
        self.bags.values().map(|b| u128::from(b.chips)).sum()
    }
}

type Decided = Result<Vec<SeatingEvent>, SeatingError>;

/// The stacks counted at the tables once the day is over: the first count
/// bags every entry in play, numbered in table and seat order; a count
/// again before the seal records each stack that changed (a floor
/// correction settled a dispute), clearing its confirmations. `stacks`
/// must name exactly the entries in play, each with chips.
pub(crate) fn bag_stacks(
    state: &SeatingState,
    stacks: &[(EntryId, Chips)],
    uncounted: &[TableNo],
) -> Decided {
    let room = state.room();
    if !room.last_hands.as_ref().is_some_and(|l| l.over) {
        return Err(SeatingError::DayNotOver);
    }
    if let Some(&table) = uncounted.first() {
        return Err(SeatingError::StacksUncounted { table });
    }
    // A stack in the middle of a move is at neither table.
    if let Some(m) = room.moves.values().next() {
        return Err(SeatingError::StillMoving { entry: m.entry });
    }
    // (The bags a day resumed from are an earlier day's: this day is
    // bagged afresh.)
    let current = room.bags.as_ref().filter(|b| !b.resumed);
    if current.is_some_and(|b| b.sealed) {
        return Err(SeatingError::BagsAlreadySealed);
    }
    let mut counted = std::collections::BTreeMap::new();
    for &(entry, chips) in stacks {
        if !matches!(
            state.entries().get(&entry).map(|e| e.status),
            Some(EntryStatus::Seated { .. })
        ) || room.removals.contains_key(&entry)
        {
            return Err(SeatingError::NotInPlay { entry });
        }
        if chips == 0 {
            return Err(SeatingError::EmptyBag { entry });
        }
        if counted.insert(entry, chips).is_some() {
            return Err(SeatingError::CountedTwice { entry });
        }
    }
    // Every entry in play, in table and seat order.
    let in_play: Vec<EntryId> = room
        .tables
        .values()
        .flat_map(|t| t.seats.iter().flatten().copied())
        .filter(|e| !room.removals.contains_key(e))
        .collect();
    if let Some(&entry) = in_play.iter().find(|e| !counted.contains_key(e)) {
        return Err(SeatingError::NotCounted { entry });
    }
    match current {
        None => {
            let bags = in_play
                .iter()
                .zip(1u32..)
                .map(|(&entry, number)| Bag {
                    entry,
                    number,
                    chips: counted[&entry],
                })
                .collect();
            Ok(vec![SeatingEvent::StacksBagged { bags }])
        }
        Some(bags) => Ok(in_play
            .iter()
            .filter_map(|entry| {
                // (An entry registered since the bags were taken has none.)
                let chips = counted[entry];
                let bag = bags.bags.get(entry)?;
                (bag.chips != chips).then_some(SeatingEvent::BagRecounted {
                    entry: *entry,
                    chips,
                })
            })
            .collect()),
    }
}

/// The player or a staff member confirms a bag's count (once each: again
/// changes nothing).
pub(crate) fn confirm_bag(state: &SeatingState, entry: EntryId, by: BagWitness) -> Decided {
    let bags = state.room().bags.as_ref().ok_or(SeatingError::NoBags)?;
    if bags.sealed {
        return Err(SeatingError::BagsAlreadySealed);
    }
    let bag = bags.bags.get(&entry).ok_or(SeatingError::NoBag { entry })?;
    let done = match by {
        BagWitness::Player => bag.player,
        BagWitness::Staff => bag.staff,
    };
    Ok(if done {
        Vec::new()
    } else {
        vec![SeatingEvent::BagConfirmed { entry, by }]
    })
}

/// The bags sealed: only once every one is confirmed by its player and a
/// staff member.
pub(crate) fn seal_bags(state: &SeatingState) -> Decided {
    let bags = state.room().bags.as_ref().ok_or(SeatingError::NoBags)?;
    if bags.sealed {
        return Err(SeatingError::BagsAlreadySealed);
    }
    let open: Vec<EntryId> = bags
        .bags
        .iter()
        .filter(|(_, b)| !b.confirmed())
        .map(|(e, _)| *e)
        .collect();
    if let Some(&entry) = open.first() {
        return Err(SeatingError::BagsUnconfirmed {
            entry,
            open: open.len(),
        });
    }
    Ok(vec![SeatingEvent::BagsSealed {
        bags: u32::try_from(bags.bags.len()).unwrap_or(u32::MAX),
        chips: u64::try_from(bags.chips()).unwrap_or(u64::MAX),
    }])
}
