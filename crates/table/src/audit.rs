//! Checking a digital deal after the fact: the seed matches the commitment
//! published when the hand started, and every card dealt, burnt and turned
//! came off the deck that seed shuffles, in order.

use felt_cards::{Card, Commitment, Deck};

use crate::model::{Deal, TableEvent};

/// Why a recorded deal does not follow from its seed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    #[error("hand {hand}: a digital deal without a deck commitment")]
    MissingCommitment { hand: u64 },
    #[error("hand {hand}: the seed's commitment is {expected}, the hand published {recorded}")]
    CommitmentMismatch {
        hand: u64,
        recorded: Commitment,
        expected: Commitment,
    },
    #[error("hand {hand}: {what} is {found}, the deck shuffled from the seed gives {expected}")]
    CardMismatch {
        hand: u64,
        what: String,
        found: Card,
        expected: Card,
    },
    #[error("hand {hand}: {what} was dealt from an empty deck")]
    DeckExhausted { hand: u64, what: String },
}

/// Checks every digital deal in a table's events; returns how many deals
/// (re-deals after a misdeal included) were checked.
pub fn check_deals<'a>(
    events: impl IntoIterator<Item = &'a TableEvent>,
) -> Result<usize, DealError> {
    let mut checked = 0;
    let mut deck: Option<(u64, Deck)> = None;
    for event in events {
        match event {
            TableEvent::HandStarted {
                number,
                deal,
                commitment,
                ..
            } => {
                deck = None;
                if let Deal::Digital { seed } = deal {
                    let expected = seed.commitment();
                    match commitment {
                        None => return Err(DealError::MissingCommitment { hand: *number }),
                        Some(c) if *c != expected => {
                            return Err(DealError::CommitmentMismatch {
                                hand: *number,
                                recorded: *c,
                                expected,
                            });
                        }
                        Some(_) => {}
                    }
                    deck = Some((*number, Deck::shuffled(*seed)));
                    checked += 1;
                }
            }
            TableEvent::HoleCardsDealt { cards } => {
                let Some((hand, deck)) = deck.as_mut() else {
                    continue;
                };
                let n = cards.len();
                let top: Vec<Card> = deck.remaining().iter().take(2 * n).copied().collect();
                for (i, (seat, hole)) in cards.iter().enumerate() {
                    let Some(hole) = hole else { continue };
                    for (round, card) in hole.iter().enumerate() {
                        let what = format!("seat {seat}'s card {}", round + 1);
                        let expected = *top.get(i + round * n).ok_or(DealError::DeckExhausted {
                            hand: *hand,
                            what: what.clone(),
                        })?;
                        if *card != expected {
                            return Err(DealError::CardMismatch {
                                hand: *hand,
                                what,
                                found: *card,
                                expected,
                            });
                        }
                    }
                }
                for _ in 0..2 * n {
                    let _ = deck.deal();
                }
            }
            TableEvent::StreetDealt {
                street,
                cards,
                burn,
            } => {
                let Some((hand, deck)) = deck.as_mut() else {
                    continue;
                };
                let burnt = burn.iter().map(|c| (format!("the {street} burn"), *c));
                let turned = cards
                    .iter()
                    .enumerate()
                    .map(|(i, c)| (format!("{street} card {}", i + 1), *c));
                for (what, card) in burnt.chain(turned) {
                    let expected = deck.deal().map_err(|_| DealError::DeckExhausted {
                        hand: *hand,
                        what: what.clone(),
                    })?;
                    if card != expected {
                        return Err(DealError::CardMismatch {
                            hand: *hand,
                            what,
                            found: card,
                            expected,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    Ok(checked)
}
