//! The money settings of a tournament and the prize pool they make.

use serde::{Deserialize, Serialize};

use crate::sheet::{Curve, PercentTable, Structure};
use crate::{Money, PayoutError};

/// A tournament's money, in integer minor units of one currency.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoneySettings {
    /// ISO 4217 code, e.g. "BRL".
    pub currency: String,
    /// Minor units per major unit (100 for reais and dollars).
    pub minor_per_major: u32,
    /// Of each entry's price, what goes to the prize pool (seed 003: R$ 40).
    pub buy_in: Money,
    /// Of each entry's price, the house's fee or rake (seed 003: R$ 10).
    pub fee: Money,
    /// Of each entry's price, what funds the entry's bounty (0: none).
    pub bounty: Money,
    /// Progressive knockout: half of a collected bounty is paid, half goes
    /// on the collector's own head.
    pub progressive: bool,
    /// An add-on's price to the prize pool (0: no add-ons).
    pub add_on: Money,
    /// A rebuy's price to the prize pool (0: no rebuys; rule 27).
    #[serde(default)]
    pub rebuy: Money,
    /// The least the prize pool will be; the house covers the overlay.
    pub guarantee: Money,
    /// What the cage withholds from a prize it pays (`None`: nothing).
    #[serde(default)]
    pub withholding: Option<Withholding>,
    pub structure: Structure,
}

/// A tax rule the cage applies when it pays a prize: a prize of
/// `threshold` or more has `rate_bp` (basis points: 2,500 is 25%) of the
/// whole of it withheld, or `rate_without_tax_number_bp` where the winner
/// has no tax number on file; a smaller prize nothing. Rounded down to the
/// minor unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Withholding {
    pub threshold: Money,
    pub rate_bp: u32,
    pub rate_without_tax_number_bp: u32,
}

impl Withholding {
    /// What is withheld from a prize of `gross`.
    pub fn of(&self, gross: Money, tax_number: bool) -> Money {
        if gross < self.threshold {
            return 0;
        }
        let rate = if tax_number {
            self.rate_bp
        } else {
            self.rate_without_tax_number_bp
        };
        // At most 10,000 bp: never more than the prize, and it fits.
        let withheld = u128::from(gross) * u128::from(rate.min(10_000)) / 10_000;
        Money::try_from(withheld).unwrap_or(gross)
    }
}

impl MoneySettings {
    /// Seed 003: R$ 40 + R$ 10, freezeout, the club's posted table.
    pub fn club() -> MoneySettings {
        MoneySettings {
            currency: "BRL".into(),
            minor_per_major: 100,
            buy_in: 4_000,
            fee: 1_000,
            bounty: 0,
            progressive: false,
            add_on: 0,
            rebuy: 0,
            guarantee: 0,
            withholding: None,
            structure: Structure::Percentages(PercentTable::club()),
        }
    }

    /// A big-field event with the generated structure.
    pub fn generated(buy_in: Money, fee: Money) -> MoneySettings {
        MoneySettings {
            currency: "USD".into(),
            minor_per_major: 100,
            buy_in,
            fee,
            bounty: 0,
            progressive: false,
            add_on: 0,
            rebuy: 0,
            guarantee: 0,
            withholding: None,
            structure: Structure::Generated(Curve::default()),
        }
    }

    /// The price a player pays for one entry (checked at configuration:
    /// at most [`crate::MAX_ENTRY_PRICE`]).
    pub fn entry_price(&self) -> Money {
        self.buy_in
            .saturating_add(self.fee)
            .saturating_add(self.bounty)
    }

    pub fn check(&self) -> Result<(), PayoutError> {
        if self.minor_per_major == 0 {
            return Err(PayoutError::InvalidStructure {
                reason: "minor units per major unit must be positive".into(),
            });
        }
        if self.buy_in == 0 && self.guarantee == 0 {
            return Err(PayoutError::InvalidStructure {
                reason: "no prize pool: the buy-in and the guarantee are both zero".into(),
            });
        }
        // Every total a field can reach fits, checked once here.
        let price = [self.buy_in, self.fee, self.bounty, self.add_on, self.rebuy]
            .iter()
            .try_fold(0u64, |a, m| a.checked_add(*m));
        if price.is_none_or(|p| p > crate::MAX_ENTRY_PRICE) {
            return Err(PayoutError::TooMuch {
                what: format!(
                    "an entry's buy-in, fee, bounty, add-on and rebuy together ({} + {} + {} + {} + {} minor units), so that {} entries fit the largest pool",
                    self.buy_in,
                    self.fee,
                    self.bounty,
                    self.add_on,
                    self.rebuy,
                    crate::MAX_FIELD
                ),
                max: crate::MAX_ENTRY_PRICE,
            });
        }
        if let Some(w) = self.withholding
            && (w.rate_bp > 10_000 || w.rate_without_tax_number_bp > 10_000)
        {
            return Err(PayoutError::InvalidStructure {
                reason: format!(
                    "a withholding rate is 0 to 10,000 basis points (100%), not {} and {}",
                    w.rate_bp, w.rate_without_tax_number_bp
                ),
            });
        }
        if self.guarantee > crate::MAX_POOL {
            return Err(PayoutError::TooMuch {
                what: format!("the guarantee ({} minor units)", self.guarantee),
                max: crate::MAX_POOL,
            });
        }
        if !crate::valid_currency(&self.currency) {
            return Err(PayoutError::InvalidStructure {
                reason: format!(
                    "the currency is an ISO 4217 code of three capital letters, not {:?}",
                    crate::prefix(&self.currency)
                ),
            });
        }
        match &self.structure {
            Structure::Percentages(t) => t.check(),
            Structure::Generated(c) => c.check(),
            Structure::Satellite(t) => t.check(),
            Structure::Flight { event } => {
                if event.is_empty()
                    || event.len() > crate::MAX_TARGET
                    || !event.bytes().all(|b| b.is_ascii_graphic())
                {
                    return Err(PayoutError::InvalidStructure {
                        reason: format!(
                            "a flight names its event: 1 to {} printable characters",
                            crate::MAX_TARGET
                        ),
                    });
                }
                Ok(())
            }
        }
    }

    /// The prize pool for a field; refused (never wrapped) where a total
    /// would not fit, which configured settings and a field of at most
    /// [`crate::MAX_FIELD`] never reach.
    pub fn pool(&self, entries: u32, add_ons: u32) -> Result<Pool, PayoutError> {
        self.pool_bought(entries, add_ons, 0)
    }

    /// The prize pool for a field that also bought `rebuys` rebuys.
    pub fn pool_bought(
        &self,
        entries: u32,
        add_ons: u32,
        rebuys: u32,
    ) -> Result<Pool, PayoutError> {
        let too_much = |what: &str| PayoutError::TooMuch {
            what: format!("{what} of {entries} entries, {add_ons} add-ons and {rebuys} rebuys"),
            max: crate::MAX_POOL,
        };
        let times = |m: Money, n: u32, what: &str| {
            m.checked_mul(Money::from(n))
                .filter(|t| *t <= crate::MAX_POOL)
                .ok_or_else(|| too_much(what))
        };
        let collected = [
            times(self.buy_in, entries, "the buy-ins")?,
            times(self.add_on, add_ons, "the add-ons")?,
            times(self.rebuy, rebuys, "the rebuys")?,
        ]
        .into_iter()
        .try_fold(0, Money::checked_add)
        .filter(|t| *t <= crate::MAX_POOL)
        .ok_or_else(|| too_much("the prize pool"))?;
        let overlay = self.guarantee.saturating_sub(collected);
        Ok(Pool {
            entries,
            add_ons,
            rebuys,
            collected,
            overlay,
            prize_pool: collected.max(self.guarantee),
            fees: times(self.fee, entries, "the fees")?,
            bounties: times(self.bounty, entries, "the bounties")?,
        })
    }

    /// The pay sheet for a field.
    pub fn sheet(&self, entries: u32, add_ons: u32) -> Result<PaySheet, PayoutError> {
        self.sheet_bought(entries, add_ons, 0)
    }

    /// The pay sheet for a field that also bought `rebuys` rebuys.
    pub fn sheet_bought(
        &self,
        entries: u32,
        add_ons: u32,
        rebuys: u32,
    ) -> Result<PaySheet, PayoutError> {
        let pool = self.pool_bought(entries, add_ons, rebuys)?;
        self.structure
            .sheet(pool.prize_pool, entries, self.entry_price())
    }
}

use crate::sheet::PaySheet;

/// Where the money came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pool {
    pub entries: u32,
    pub add_ons: u32,
    #[serde(default)]
    pub rebuys: u32,
    /// Entries', add-ons' and rebuys' contributions to the prize pool.
    pub collected: Money,
    /// What the house adds to reach the guarantee.
    pub overlay: Money,
    /// What is paid out in prizes: collected plus overlay.
    pub prize_pool: Money,
    /// The house's fees (not in the pool).
    pub fees: Money,
    /// Bounties (paid at each bust, not in the pool).
    pub bounties: Money,
}
