//! Deals at the final table: the players left agree to split the prizes
//! still to be won, by ICM, by a chip chop, by a save, or by amounts of
//! their own; part of the money may be left to play for.

use serde::{Deserialize, Serialize};

use crate::icm::{self, apportion};
use crate::{EntryId, Money, PayoutError};

/// How the money is split.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DealMethod {
    /// Each player's Malmuth–Harville equity.
    Icm,
    /// Each player the last remaining prize, the rest in proportion to chips.
    ChipChop,
    /// The next `places` places below first are each raised by `amount`,
    /// taken from first place; play goes on for the changed sheet.
    Save { amount: Money, places: u32 },
    /// Amounts the players agreed on, in the order of the players.
    Amounts(Vec<Money>),
}

/// What the players are asked to agree to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealTerms {
    /// The players left, with their chips.
    pub players: Vec<(EntryId, u64)>,
    pub method: DealMethod,
    /// Money taken from first place and left to play for: the winner gets it.
    pub play_for: Money,
}

/// A deal's result: what each player is paid now whatever happens, and
/// the prizes still played for by place (replacing the remaining sheet).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealResult {
    pub guaranteed: Vec<(EntryId, Money)>,
    pub play_for: Vec<Money>,
}

impl DealResult {
    pub fn total(&self) -> Money {
        self.guaranteed.iter().map(|g| g.1).sum::<Money>() + self.play_for.iter().sum::<Money>()
    }
}

/// Works out a deal. `prizes` are the prizes of places 1..=players still to
/// be won (from the pay sheet or an earlier deal).
pub fn deal(terms: &DealTerms, prizes: &[Money]) -> Result<DealResult, PayoutError> {
    let n = terms.players.len();
    if n < 2 {
        return Err(PayoutError::DealNeedsPlayers { players: n });
    }
    if prizes.len() != n {
        return Err(PayoutError::DealPrizes {
            players: n,
            prizes: prizes.len(),
        });
    }
    let total: Money = prizes.iter().sum();
    if terms.play_for > prizes[0] {
        return Err(PayoutError::DealDoesNotAddUp {
            reason: format!(
                "{} left to play for is more than first place's {}",
                terms.play_for, prizes[0]
            ),
        });
    }
    let stacks: Vec<u64> = terms.players.iter().map(|p| p.1).collect();
    let mut rest = prizes.to_vec();
    rest[0] -= terms.play_for;
    let with = |amounts: Vec<Money>| DealResult {
        guaranteed: terms.players.iter().map(|p| p.0).zip(amounts).collect(),
        play_for: std::iter::once(terms.play_for)
            .chain(std::iter::repeat_n(0, n - 1))
            .collect(),
    };
    match &terms.method {
        DealMethod::Icm => {
            // The play-for money is taken off the top before equities.
            let eq = icm::equities(&stacks, &rest)?;
            Ok(with(apportion(total - terms.play_for, &eq)))
        }
        DealMethod::ChipChop => {
            if let Some(i) = stacks.iter().position(|&s| s == 0) {
                return Err(PayoutError::EmptyStack { index: i });
            }
            let last = *rest.iter().min().unwrap_or(&0);
            let left = total - terms.play_for - last * n as Money;
            let shares: Vec<f64> = stacks.iter().map(|&s| s as f64).collect();
            let extra = apportion(left, &shares);
            Ok(with(extra.into_iter().map(|e| e + last).collect()))
        }
        DealMethod::Save { amount, places } => {
            let places = *places as usize;
            if places == 0 || places >= n {
                return Err(PayoutError::DealDoesNotAddUp {
                    reason: format!(
                        "a save raises 1 to {} places below first, not {places}",
                        n - 1
                    ),
                });
            }
            let mut sheet = prizes.to_vec();
            let cost = amount * places as Money;
            if cost > sheet[0] {
                return Err(PayoutError::DealDoesNotAddUp {
                    reason: format!("saving {cost} is more than first place's {}", sheet[0]),
                });
            }
            sheet[0] -= cost;
            for p in sheet.iter_mut().skip(1).take(places) {
                *p += amount;
            }
            if sheet.windows(2).any(|w| w[1] > w[0]) {
                return Err(PayoutError::DealDoesNotAddUp {
                    reason: "the save would pay a lower place more than a higher one".into(),
                });
            }
            Ok(DealResult {
                guaranteed: Vec::new(),
                play_for: sheet,
            })
        }
        DealMethod::Amounts(amounts) => {
            if amounts.len() != n {
                return Err(PayoutError::DealDoesNotAddUp {
                    reason: format!("{} amounts for {n} players", amounts.len()),
                });
            }
            let sum: Money = amounts.iter().sum();
            if sum + terms.play_for != total {
                return Err(PayoutError::DealDoesNotAddUp {
                    reason: format!(
                        "the amounts add up to {sum} and {} is left to play for, but {total} is to be won",
                        terms.play_for
                    ),
                });
            }
            Ok(with(amounts.clone()))
        }
    }
}
