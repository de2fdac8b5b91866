//! Finishing places from busts.
//!
//! Busts of one hand at one table are placed by their chips at the start
//! of the hand, the larger stack finishing higher; equal stacks share
//! (seed 003, TDA RP8). Busts in the same hand-for-hand hand at different
//! tables depend on the house rule:
//!
//! * [`SimultaneousBusts::ShareAcrossTables`] (TDA RP8, WSOP): each table's
//!   busts are ranked by stack; players of the same rank at different
//!   tables tie and share the sum of their places' prizes equally.
//! * [`SimultaneousBusts::ByStartingStack`] (seed 003): all of them are
//!   placed by starting stack, whichever table they were at.

use serde::{Deserialize, Serialize};

use crate::{EntryId, Money};

/// The house rule for busts in the same hand-for-hand hand at different tables.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SimultaneousBusts {
    #[default]
    ShareAcrossTables,
    ByStartingStack,
}

/// A player out of chips.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bust {
    pub entry: EntryId,
    pub table: u32,
    /// Chips at the start of the hand.
    pub starting_stack: u64,
    /// The entries that won the busted player's chips (bounties go to them).
    pub by: Vec<EntryId>,
    /// The bust's number in the order seating recorded players out (1:
    /// the first), when seating gave it: the busts of a hand then take
    /// their places from it, whatever order they reach payout in (after a
    /// crash a hand end may be reported again after later ones).
    #[serde(default)]
    pub out: Option<u32>,
    /// Disqualified under the house rule that places them nowhere: the
    /// place they stood in is left empty and its prize forfeited.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub forfeit: bool,
}

/// Players sharing places `first..=last` (one player: a place of their own).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlaceGroup {
    pub entries: Vec<EntryId>,
    pub first: u32,
    pub last: u32,
}

/// Places the busts of one hand (one table, or one hand-for-hand hand
/// across tables) when `remaining` players were left before it: the busts
/// take places `remaining − busts + 1 ..= remaining`.
pub fn place(remaining: u32, busts: &[Bust], rule: SimultaneousBusts) -> Vec<PlaceGroup> {
    // Rank key per bust: a smaller key finishes higher.
    let one_table = busts
        .iter()
        .all(|o| busts.first().is_some_and(|f| f.table == o.table));
    let keys: Vec<u64> = busts
        .iter()
        .map(|b| match rule {
            // On one table (or by house rule everywhere): by stack, equal
            // stacks sharing.
            SimultaneousBusts::ByStartingStack => u64::MAX - b.starting_stack,
            SimultaneousBusts::ShareAcrossTables if one_table => u64::MAX - b.starting_stack,
            // Across tables: the rank at one's own table (how many there had
            // more chips); equal ranks share.
            SimultaneousBusts::ShareAcrossTables => busts
                .iter()
                .filter(|o| o.table == b.table && o.starting_stack > b.starting_stack)
                .count() as u64,
        })
        .collect();
    let mut order: Vec<usize> = (0..busts.len()).collect();
    order.sort_by(|&a, &b| {
        keys[a]
            .cmp(&keys[b])
            .then(busts[a].entry.cmp(&busts[b].entry))
    });
    let mut groups = Vec::new();
    let mut place = remaining + 1 - busts.len() as u32;
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() && keys[order[j]] == keys[order[i]] {
            j += 1;
        }
        let entries: Vec<EntryId> = order[i..j].iter().map(|&k| busts[k].entry).collect();
        let n = entries.len() as u32;
        groups.push(PlaceGroup {
            entries,
            first: place,
            last: place + n - 1,
        });
        place += n;
        i = j;
    }
    groups
}

/// Splits the prizes of places shared by `count` players: equal shares,
/// the units that do not divide one each to the first in the given order.
pub fn share(prizes_total: Money, count: usize) -> Vec<Money> {
    let n = count as Money;
    let each = prizes_total / n;
    let odd = (prizes_total % n) as usize;
    (0..count).map(|i| each + Money::from(i < odd)).collect()
}
