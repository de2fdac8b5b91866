//! Series rankings: points per finishing place from a table, multiplied by
//! the event's factor (seed 002, 4.12.5: 1.4 for the Main Event Light, 2
//! for the High Rollers), plus points for taking part (seed 003: 5), summed
//! over the events of a series into a leaderboard.
//!
//! Points are kept in hundredths so factors like 1.4 stay exact.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{PayoutError, PlayerId};

/// The points a series gives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointsTable {
    /// Points for places 1, 2, … (places beyond score nothing but attendance).
    pub by_place: Vec<u64>,
    /// Points for taking part, not multiplied.
    pub attendance: u64,
}

impl PointsTable {
    /// A club table like seed 003's (attendance 5 points).
    pub fn club() -> PointsTable {
        PointsTable {
            by_place: vec![
                100, 80, 65, 55, 45, 38, 32, 27, 23, 20, 17, 15, 13, 11, 10, 9, 8, 7, 6, 5,
            ],
            attendance: 5,
        }
    }

    /// Points, in hundredths, for a place in an event with a factor in
    /// thousandths (1400 = ×1.4). Rounded half up to the hundredth.
    pub fn points(&self, place: u32, factor_milli: u32) -> u64 {
        let base = place
            .checked_sub(1)
            .and_then(|i| self.by_place.get(i as usize))
            .copied()
            .unwrap_or(0);
        (base * 100 * u64::from(factor_milli) + 500) / 1000 + self.attendance * 100
    }
}

/// One event of a series: its factor and who finished where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventResult {
    pub name: String,
    pub factor_milli: u32,
    /// (player, place): a player's identity across events, not an entry.
    pub places: Vec<(PlayerId, u32)>,
}

/// A leaderboard row: a player, points in hundredths, events played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    pub player: PlayerId,
    pub points: u64,
    pub events: u32,
}

/// The series leaderboard, best first (ties by name). A player appearing
/// twice in one event (re-entries) scores their best place once.
pub fn leaderboard(
    table: &PointsTable,
    events: &[EventResult],
) -> Result<Vec<Standing>, PayoutError> {
    let mut totals: BTreeMap<&PlayerId, (u64, u32)> = BTreeMap::new();
    for event in events {
        if event.factor_milli == 0 {
            return Err(PayoutError::InvalidStructure {
                reason: format!("event {}: the factor must be positive", event.name),
            });
        }
        let mut best: BTreeMap<&PlayerId, u32> = BTreeMap::new();
        for (player, place) in &event.places {
            if *place == 0 {
                return Err(PayoutError::InvalidStructure {
                    reason: format!("event {}: {player} has place 0", event.name),
                });
            }
            let b = best.entry(player).or_insert(*place);
            *b = (*b).min(*place);
        }
        for (player, place) in best {
            let t = totals.entry(player).or_default();
            t.0 += table.points(place, event.factor_milli);
            t.1 += 1;
        }
    }
    let mut out: Vec<Standing> = totals
        .into_iter()
        .map(|(player, (points, events))| Standing {
            player: (*player).clone(),
            points,
            events,
        })
        .collect();
    out.sort_by(|a, b| b.points.cmp(&a.points).then(a.player.cmp(&b.player)));
    Ok(out)
}
