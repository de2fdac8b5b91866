//! Pay sheets: how a prize pool is paid out by finishing place.
//!
//! Two ways to make one:
//!
//! * [`PercentTable`]: a posted table of percentages by field size, as most
//!   clubs use (seed 003's room posts one).
//! * [`Curve`]: a generated structure for any field, in the manner of Musco,
//!   Sviridenko and Thaler ("Determining Tournament Payout Structures for
//!   Daily Fantasy Sports", arXiv 1601.04203), simplified to a closed form:
//!
//!   1. pay `ceil(entries × paid share)` places (default 15%), fewer if the
//!      pool cannot pay each of them the minimum cash;
//!   2. the minimum cash is a multiple of the buy-in (default 1.5×), rounded
//!      up to a nice amount;
//!   3. below the final table, places are grouped into bands that widen
//!      with the place (3 places, then 9, 27, 45, 90, …; a band is at most
//!      about a quarter of its first place number);
//!   4. the last band is paid the minimum cash, and place `i` above it
//!      `m + (P − n·m) · (i^−α − L^−α) / Σ_{j<L} (j^−α − L^−α)`, where `L`
//!      is the last band's first place: every place the minimum cash plus a
//!      share of the rest on a power-law curve (α, the steepness, defaults
//!      to 1), smooth and steeper at the top; each band pays the mean of
//!      the curve over its places;
//!   5. every amount is rounded down to a nice step: the largest of
//!      1, 5, 10, 50, 100, 500, … currency units that is at most 1/20 of the
//!      amount (so each step divides every larger one, which keeps the
//!      sheet non-increasing after rounding);
//!   6. the remainder is spent from 2nd place down, raising a band by one
//!      step where that is no more than rounding to the nearest step and
//!      keeps it below the band above; what is left goes to the winner. The
//!      sheet then sums to the pool exactly.

use serde::{Deserialize, Serialize};

use crate::{Money, PayoutError};

/// Places `first..=last` are each paid `each`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Band {
    pub first: u32,
    pub last: u32,
    pub each: Money,
}

impl Band {
    pub fn places(&self) -> u32 {
        self.last - self.first + 1
    }

    pub fn total(&self) -> Money {
        self.each * Money::from(self.places())
    }
}

/// What each finishing place wins.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaySheet {
    pub pool: Money,
    pub bands: Vec<Band>,
}

impl PaySheet {
    /// How many places are paid.
    pub fn paid(&self) -> u32 {
        self.bands.last().map_or(0, |b| b.last)
    }

    /// The prize of a finishing place (0 outside the money).
    pub fn prize(&self, place: u32) -> Money {
        self.bands
            .iter()
            .find(|b| (b.first..=b.last).contains(&place))
            .map_or(0, |b| b.each)
    }

    /// The prizes of places 1 to `paid`, one by one.
    pub fn prizes(&self) -> Vec<Money> {
        (1..=self.paid()).map(|p| self.prize(p)).collect()
    }

    pub fn total(&self) -> Money {
        self.bands.iter().map(Band::total).sum()
    }

    /// Checks what every sheet must be: bands contiguous from 1st place,
    /// never paying a lower place more than a higher one, summing to the
    /// pool exactly.
    pub fn check(&self) -> Result<(), PayoutError> {
        let mut next = 1;
        let mut above = Money::MAX;
        for band in &self.bands {
            if band.first != next || band.last < band.first {
                return Err(PayoutError::InvalidSheet {
                    reason: format!(
                        "band {}-{} does not follow place {}",
                        band.first,
                        band.last,
                        next - 1
                    ),
                });
            }
            if band.each > above {
                return Err(PayoutError::InvalidSheet {
                    reason: format!(
                        "place {} would win more than place {}",
                        band.first,
                        band.first - 1
                    ),
                });
            }
            above = band.each;
            next = band.last + 1;
        }
        if self.total() != self.pool {
            return Err(PayoutError::SheetDoesNotAddUp {
                total: self.total(),
                pool: self.pool,
            });
        }
        Ok(())
    }

    /// Builds a sheet from per-place prizes, merging equal neighbours.
    pub fn from_prizes(pool: Money, prizes: &[Money]) -> PaySheet {
        let mut bands: Vec<Band> = Vec::new();
        for (i, &each) in prizes.iter().enumerate() {
            let place = i as u32 + 1;
            match bands.last_mut() {
                Some(b) if b.each == each => b.last = place,
                _ => bands.push(Band {
                    first: place,
                    last: place,
                    each,
                }),
            }
        }
        PaySheet { pool, bands }
    }
}

/// How a tournament's pay sheet is made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Structure {
    Percentages(PercentTable),
    Generated(Curve),
    /// A satellite: its prizes are seats in another event.
    Satellite(SatelliteTerms),
    /// A Day 1 flight of `event` (issue 28): it pays no place of its own;
    /// its entries, their money and their places are the event's.
    Flight {
        event: String,
    },
}

impl Structure {
    /// The sheet for a pool, a field and a buy-in (the price of one entry,
    /// fee included, against which the minimum cash is measured).
    pub fn sheet(&self, pool: Money, entries: u32, buy_in: Money) -> Result<PaySheet, PayoutError> {
        match self {
            Structure::Percentages(table) => table.sheet(pool, entries),
            Structure::Generated(curve) => curve.sheet(pool, entries, buy_in),
            Structure::Satellite(terms) => Ok(terms.sheet(pool)),
            Structure::Flight { .. } => Ok(PaySheet {
                pool,
                bands: Vec::new(),
            }),
        }
    }

    /// The event a flight's pool goes to, where this is a flight.
    pub fn flight_of(&self) -> Option<&str> {
        match self {
            Structure::Flight { event } => Some(event),
            _ => None,
        }
    }

    /// The satellite's terms, where this is one.
    pub fn satellite(&self) -> Option<&SatelliteTerms> {
        match self {
            Structure::Satellite(terms) => Some(terms),
            _ => None,
        }
    }
}

/// The longest target tournament id a satellite names (as seating's ids).
pub const MAX_TARGET: usize = 64;

/// A satellite's prizes: as many seats in the `target` event as the pool
/// buys, each a ticket worth `seat` (the target's entry price), redeemed
/// at its registration; what is left over is paid in cash by the house's
/// `remainder` rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SatelliteTerms {
    /// The event the seats are in (its tournament id, at most
    /// [`MAX_TARGET`] characters).
    pub target: String,
    /// One seat's value: the target's price of an entry.
    pub seat: Money,
    pub remainder: Remainder,
    /// Whether the house lets the last players make a deal.
    pub deals: bool,
    /// What a player who has already won a seat here wins with another.
    pub second_seat: SecondSeat,
}

/// Where the cash left over after the seats goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Remainder {
    /// To the first place out of the seats (the "bubble" prize).
    #[default]
    NextPlace,
    /// Split among the seats' winners, in cash beside their tickets (odd
    /// units to the higher places).
    SplitAmongSeats,
}

/// The house's alternative for a second seat won by one player (a
/// re-entry that finishes in the seats too).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SecondSeat {
    /// The seat's value in cash.
    #[default]
    Cash,
    /// Another ticket (for another flight or a re-entry).
    Ticket,
}

impl SatelliteTerms {
    /// How many seats a pool buys.
    pub fn seats(&self, pool: Money) -> u32 {
        u32::try_from(pool / self.seat.max(1)).unwrap_or(u32::MAX)
    }

    /// The sheet: `seats` places at the seat's value, the rest by the
    /// remainder rule (a pool smaller than one seat: all of it to first).
    pub fn sheet(&self, pool: Money) -> PaySheet {
        let seats = self.seats(pool);
        let rest = pool - Money::from(seats) * self.seat;
        let mut prizes = vec![self.seat; seats as usize];
        match self.remainder {
            _ if rest == 0 => {}
            Remainder::SplitAmongSeats if seats > 0 => {
                for (p, extra) in prizes.iter_mut().zip(crate::share(rest, seats as usize)) {
                    *p += extra;
                }
            }
            _ => prizes.push(rest),
        }
        PaySheet::from_prizes(pool, &prizes)
    }

    /// The seats paid by a sheet made by [`SatelliteTerms::sheet`].
    pub fn seats_on(&self, sheet: &PaySheet) -> u32 {
        self.seats(sheet.pool)
    }

    pub fn check(&self) -> Result<(), PayoutError> {
        let invalid = |reason: String| PayoutError::InvalidStructure { reason };
        if self.seat == 0 {
            return Err(invalid("a satellite's seat is worth more than zero".into()));
        }
        if self.target.is_empty()
            || self.target.len() > MAX_TARGET
            || !self.target.bytes().all(|b| b.is_ascii_graphic())
        {
            return Err(invalid(format!(
                "a satellite's target is a tournament id of 1 to {MAX_TARGET} printable characters, not {:?}",
                crate::prefix(&self.target)
            )));
        }
        if self.seat > crate::MAX_ENTRY_PRICE {
            return Err(PayoutError::TooMuch {
                what: format!("a satellite's seat ({} minor units)", self.seat),
                max: crate::MAX_ENTRY_PRICE,
            });
        }
        Ok(())
    }
}

/// One row of a posted table: the percentages (in hundredths of a percent)
/// paid to places 1, 2, … when the field has at most `max_entries`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PercentRow {
    pub max_entries: u32,
    pub basis_points: Vec<u32>,
}

/// A posted percentage table. Each amount is rounded down to the currency
/// unit; the remainder goes to the winner.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PercentTable {
    pub rows: Vec<PercentRow>,
    /// The smallest amount paid, in minor units (100 for whole reais).
    pub unit: Money,
}

impl PercentTable {
    /// A club table for fields up to 60, like the one a club such as seed
    /// 003's posts (its own is not in the rule book).
    pub fn club() -> PercentTable {
        let row = |max_entries, bp: &[u32]| PercentRow {
            max_entries,
            basis_points: bp.to_vec(),
        };
        PercentTable {
            rows: vec![
                row(9, &[6500, 3500]),
                row(18, &[5000, 3000, 2000]),
                row(27, &[4500, 2700, 1700, 1100]),
                row(36, &[4000, 2500, 1600, 1100, 800]),
                row(45, &[3700, 2300, 1500, 1000, 800, 700]),
                row(60, &[3400, 2100, 1400, 1000, 800, 700, 600]),
            ],
            unit: 100,
        }
    }

    /// Checks the table: rows by growing field, each summing to 100% and
    /// never paying a lower place more.
    pub fn check(&self) -> Result<(), PayoutError> {
        let mut last_max = 0;
        for row in &self.rows {
            let invalid = |reason: String| PayoutError::InvalidStructure {
                reason: format!("row for up to {} entries: {reason}", row.max_entries),
            };
            if row.max_entries <= last_max {
                return Err(invalid(
                    "rows must be in order of growing field size".into(),
                ));
            }
            last_max = row.max_entries;
            let sum: u32 = row.basis_points.iter().sum();
            if sum != 10_000 {
                return Err(invalid(format!(
                    "percentages add up to {}.{:02}%, not 100%",
                    sum / 100,
                    sum % 100
                )));
            }
            if row.basis_points.windows(2).any(|w| w[1] > w[0]) {
                return Err(invalid(
                    "a lower place is paid more than a higher one".into(),
                ));
            }
            if row.basis_points.len() as u32 > row.max_entries {
                return Err(invalid("pays more places than there are entries".into()));
            }
        }
        if self.unit == 0 {
            return Err(PayoutError::InvalidStructure {
                reason: "the currency unit must be positive".into(),
            });
        }
        Ok(())
    }

    pub fn sheet(&self, pool: Money, entries: u32) -> Result<PaySheet, PayoutError> {
        self.check()?;
        let row = self.rows.iter().find(|r| r.max_entries >= entries).ok_or(
            PayoutError::FieldTooLarge {
                entries,
                max: self.rows.last().map_or(0, |r| r.max_entries),
            },
        )?;
        let paid = (row.basis_points.len() as u32).min(entries.max(1));
        let mut prizes: Vec<Money> = row.basis_points[..paid as usize]
            .iter()
            .map(|&bp| mul_div(pool, Money::from(bp), 10_000) / self.unit * self.unit)
            .collect();
        let rest = pool - prizes.iter().sum::<Money>();
        prizes[0] += rest;
        Ok(PaySheet::from_prizes(pool, &prizes))
    }
}

/// The generated structure's settings (see the module's documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Curve {
    /// Share of the field paid, in permille (150 = 15%).
    pub paid_permille: u32,
    /// The minimum cash as a multiple of the buy-in, in permille (1500 = 1.5×).
    pub min_cash_permille: u32,
    /// The curve's exponent α in thousandths (1000 = 1.0; higher is steeper).
    pub steepness_milli: u32,
    /// Places paid one by one (the final table).
    pub final_table: u32,
    /// The smallest amount paid, in minor units (100 for whole units of currency).
    pub unit: Money,
}

impl Default for Curve {
    fn default() -> Self {
        Curve {
            paid_permille: 150,
            min_cash_permille: 1500,
            steepness_milli: 1000,
            final_table: 9,
            unit: 100,
        }
    }
}

/// Band widths below the final table.
const BAND_WIDTHS: [u32; 12] = [3, 9, 27, 45, 90, 180, 360, 720, 1440, 2880, 5760, 11520];

/// The nice step for an amount: the largest of unit × 1, 5, 10, 50, … that
/// is at most amount / 20 (at least the unit).
fn nice_step(amount: f64, unit: Money) -> Money {
    let mut step = unit;
    let mut five = true;
    loop {
        let next = if five { step * 5 } else { step * 2 };
        if (next as f64) * 20.0 > amount {
            return step;
        }
        step = next;
        five = !five;
    }
}

/// `a × b / c` without overflow for money amounts.
pub(crate) fn mul_div(a: Money, b: Money, c: Money) -> Money {
    (u128::from(a) * u128::from(b) / u128::from(c)) as Money
}

impl Curve {
    pub fn check(&self) -> Result<(), PayoutError> {
        let invalid = |reason: &str| {
            Err(PayoutError::InvalidStructure {
                reason: reason.into(),
            })
        };
        if self.paid_permille == 0 || self.paid_permille > 1000 {
            return invalid("the share of the field paid must be between 0.1% and 100%");
        }
        if self.min_cash_permille < 1000 {
            return invalid("the minimum cash must be at least the buy-in");
        }
        if self.steepness_milli == 0 {
            return invalid("the curve's steepness must be positive");
        }
        if self.final_table == 0 {
            return invalid("the final table pays at least one place");
        }
        if self.unit == 0 {
            return invalid("the currency unit must be positive");
        }
        Ok(())
    }

    /// The bands of places for `paid` places (amounts not yet set).
    fn bands(&self, paid: u32) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        let mut place = 1;
        while place <= paid.min(self.final_table) {
            out.push((place, place));
            place += 1;
        }
        while place <= paid {
            let width = BAND_WIDTHS
                .iter()
                .rev()
                .find(|&&w| w * 4 <= place)
                .copied()
                .unwrap_or(BAND_WIDTHS[0]);
            let last = (place + width - 1).min(paid);
            out.push((place, last));
            place = last + 1;
        }
        out
    }

    pub fn sheet(&self, pool: Money, entries: u32, buy_in: Money) -> Result<PaySheet, PayoutError> {
        self.check()?;
        if entries == 0 {
            return Err(PayoutError::NoEntries);
        }
        let unit = self.unit;
        if pool < unit {
            return Err(PayoutError::PoolTooSmall { pool, unit });
        }
        let raw_min = mul_div(buy_in, Money::from(self.min_cash_permille), 1000);
        let min_step = nice_step(raw_min as f64, unit);
        let min_cash = raw_min.div_ceil(min_step) * min_step;
        let mut paid = (u64::from(entries) * u64::from(self.paid_permille)).div_ceil(1000) as u32;
        paid = paid.clamp(1, entries);
        if min_cash > 0 && Money::from(paid) * min_cash >= pool {
            // Each place the minimum, and something left for the curve.
            paid = ((pool - 1) / min_cash).clamp(1, u64::from(paid)) as u32;
        }
        if paid == 1 {
            return Ok(PaySheet::from_prizes(pool, &[pool]));
        }
        let ranges = self.bands(paid);
        // The last band is paid the minimum cash; above it the curve is
        // measured from the last band's first place.
        let floor_place = ranges.last().map_or(paid, |r| r.0);
        let alpha = f64::from(self.steepness_milli) / 1000.0;
        let base = f64::from(floor_place).powf(-alpha);
        let weights: Vec<f64> = (1..=paid)
            .map(|i| (f64::from(i).powf(-alpha) - base).max(0.0))
            .collect();
        let h: f64 = weights.iter().sum();
        let spread = (pool - Money::from(paid) * min_cash) as f64;
        let curve = |i: u32| min_cash as f64 + spread * weights[i as usize - 1] / h;

        let mut bands: Vec<Band> = Vec::with_capacity(ranges.len());
        let mut exact = Vec::with_capacity(ranges.len());
        for &(first, last) in &ranges {
            let mean = (first..=last).map(curve).sum::<f64>() / f64::from(last - first + 1);
            let step = nice_step(mean, unit);
            let each = ((mean / step as f64).floor() as Money * step).max(min_cash);
            exact.push((mean, step));
            bands.push(Band { first, last, each });
        }
        // Keep the sheet non-increasing whatever floating point did.
        for i in 1..bands.len() {
            if bands[i].each > bands[i - 1].each {
                bands[i].each = bands[i - 1].each;
            }
        }
        let total: Money = bands.iter().map(Band::total).sum();
        if total > pool {
            return Err(PayoutError::PoolTooSmall {
                pool,
                unit: min_cash,
            });
        }
        let mut left = pool - total;
        // Round to the nearest step where the pool allows, from 2nd place down.
        for i in 1..bands.len() {
            let (mean, step) = exact[i];
            let raised = bands[i].each + step;
            let cost = step * Money::from(bands[i].places());
            if cost <= left
                && (raised as f64) - mean <= step as f64 / 2.0
                && raised <= bands[i - 1].each
            {
                bands[i].each = raised;
                left -= cost;
            }
        }
        bands[0].each += left;
        let sheet = PaySheet { pool, bands };
        sheet.check()?;
        Ok(sheet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_steps_divide_each_other() {
        assert_eq!(nice_step(99.0, 1), 1);
        assert_eq!(nice_step(100.0, 1), 5);
        assert_eq!(nice_step(200.0, 1), 10);
        assert_eq!(nice_step(999.0, 1), 10);
        assert_eq!(nice_step(1000.0, 1), 50);
        assert_eq!(nice_step(2000.0, 1), 100);
        assert_eq!(nice_step(50.0, 100), 100);
    }

    #[test]
    fn band_widths_grow_with_the_place() {
        let curve = Curve::default();
        let bands = curve.bands(200);
        assert_eq!(bands[..9], (1..=9).map(|p| (p, p)).collect::<Vec<_>>()[..]);
        assert_eq!(bands[9], (10, 12));
        assert!(bands.contains(&(37, 45)));
        assert_eq!(bands.last().map(|b| b.1), Some(200));
        for w in bands.windows(2) {
            assert_eq!(w[1].0, w[0].1 + 1);
        }
    }
}
