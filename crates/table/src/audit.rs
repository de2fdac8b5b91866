//! Checking a digital deal after the fact: the seed matches the commitment
//! published when the hand started, and every card dealt, burnt and turned
//! came off the deck that seed shuffles (a shared deal's: the secret mixed
//! with the table's entropy), in order.

use felt_cards::{Card, Commitment, Deck};

use crate::model::{Chips, Deal, Seat, TableEvent};
use crate::state::TableState;

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
    #[error("hand {hand}: the secret revealed is not the one the hand was dealt from")]
    SecretMismatch { hand: u64 },
    #[error("the first button's draw does not follow from its seed")]
    ButtonMismatch,
    #[error("the chip race of the {leaving} chip does not follow from its seed")]
    RaceMismatch { leaving: crate::Chips },
}

/// The first button by high card: one card to each of `seats` (in seat
/// order) from the deck `seed` shuffles; the highest card by rank, then
/// suit (spades, hearts, diamonds, clubs), takes the button.
pub(crate) fn button_draw(seed: &felt_cards::Seed, seats: &[Seat]) -> (Vec<(Seat, Card)>, Seat) {
    let deck = Deck::shuffled(*seed);
    let cards: Vec<(Seat, Card)> = seats
        .iter()
        .copied()
        .zip(deck.order().iter().copied())
        .collect();
    let button = cards
        .iter()
        .max_by_key(|(_, c)| (c.rank(), c.suit()))
        .map_or(0, |(s, _)| *s);
    (cards, button)
}

/// Checks every digital deal in a table's events; returns how many deals
/// (re-deals after a misdeal included) were checked.
pub fn check_deals<'a>(
    events: impl IntoIterator<Item = &'a TableEvent>,
) -> Result<usize, DealError> {
    let mut checked = 0;
    let mut deck: Option<(u64, Deck)> = None;
    // A shared deal's hand and secret, until its entropy is added.
    let mut shared: Option<(u64, felt_cards::Seed)> = None;
    for event in events {
        match event {
            TableEvent::ButtonDrawn {
                seed,
                cards,
                button,
            } => {
                let seats: Vec<Seat> = cards.iter().map(|(s, _)| *s).collect();
                if button_draw(seed, &seats) != (cards.clone(), *button) {
                    return Err(DealError::ButtonMismatch);
                }
            }
            // The engine's chip race, dealt again from its seed.
            TableEvent::ColouredUp {
                leaving,
                smallest,
                seed: Some(seed),
                raced,
            } => {
                let stacks: Vec<_> = raced.iter().map(|r| (r.seat, r.player, r.before)).collect();
                let race = crate::ChipRace::Drawn { seed: *seed };
                if crate::chip_race(*leaving, *smallest, &stacks, &race).as_ref() != Ok(raced) {
                    return Err(DealError::RaceMismatch { leaving: *leaving });
                }
            }
            TableEvent::EntropyAdded { entropy } => {
                if let Some((hand, secret)) = shared {
                    deck = Some((hand, Deck::shuffled(secret.mixed(entropy))));
                    checked += 1;
                }
            }
            TableEvent::SecretRevealed { secret } => {
                if let Some((hand, dealt)) = shared
                    && dealt != *secret
                {
                    return Err(DealError::SecretMismatch { hand });
                }
            }
            TableEvent::HandStarted {
                number,
                deal,
                commitment,
                ..
            } => {
                deck = None;
                shared = None;
                if let Deal::Digital { seed } | Deal::Shared { seed } = deal {
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
                    if matches!(deal, Deal::Shared { .. }) {
                        shared = Some((*number, *seed));
                    } else {
                        deck = Some((*number, Deck::shuffled(*seed)));
                        checked += 1;
                    }
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

/// Why a recorded award does not follow from the cards and the chips.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AwardError {
    #[error("hand {hand}, pot {pot}: the shares add up to {shares}, the pot is {amount}")]
    SharesDoNotAddUp {
        hand: u64,
        pot: usize,
        shares: u128,
        amount: Chips,
    },
    #[error("hand {hand}, pot {pot}: {recorded}, but {expected}")]
    PotMismatch {
        hand: u64,
        pot: usize,
        recorded: String,
        expected: String,
    },
    #[error(
        "hand {hand}, pot {pot}: the cards give it to seats {expected:?}, the award to {recorded:?}"
    )]
    WrongWinners {
        hand: u64,
        pot: usize,
        recorded: Vec<Seat>,
        expected: Vec<Seat>,
    },
    /// Summed without wrapping: chips that arithmetic made vanish show.
    #[error("hand {hand}: {start} chips at the start, {end} at the end")]
    ChipsNotConserved { hand: u64, start: u128, end: u128 },
}

/// Checks every pot awarded in a table's events against a recomputation:
/// only players still in the hand eligible, the winners from the cards
/// (the best hand among the eligible, when the cards are known), the
/// shares adding up to the pot, and each hand ending with the chips it
/// started with. Returns how many pots were checked. Pots awarded by a
/// floor ruling are checked for their total only.
pub fn check_awards<'a>(
    events: impl IntoIterator<Item = &'a TableEvent>,
) -> Result<usize, AwardError> {
    let mut state = TableState::default();
    let mut checked = 0;
    let mut ruled = false;
    // Sums are taken in 128 bits: no stack, however large, wraps them.
    let mut start_chips: u128 = 0;
    for event in events {
        match event {
            TableEvent::HandStarted { stacks, .. } => {
                ruled = false;
                start_chips = stacks.iter().map(|s| u128::from(s.1)).sum();
            }
            TableEvent::FloorRuled { .. } => ruled = true,
            TableEvent::PotAwarded {
                pot,
                amount,
                eligible,
                shares,
            } => {
                let Some(h) = state.hand.as_ref() else {
                    state.apply(event);
                    continue;
                };
                let hand = h.number;
                let total: u128 = shares.iter().map(|s| u128::from(s.amount)).sum();
                if total != u128::from(*amount) {
                    return Err(AwardError::SharesDoNotAddUp {
                        hand,
                        pot: *pot,
                        shares: total,
                        amount: *amount,
                    });
                }
                if !ruled {
                    if let Some(&seat) = eligible
                        .iter()
                        .find(|&&s| h.player(s).is_none_or(|p| p.folded || p.dead))
                    {
                        return Err(AwardError::PotMismatch {
                            hand,
                            pot: *pot,
                            recorded: format!("seat {seat} eligible"),
                            expected: format!("seat {seat} out of the hand"),
                        });
                    }
                    let ranks: Vec<(Seat, Option<felt_cards::HandRank>)> = eligible
                        .iter()
                        .map(|&s| (s, h.player(s).and_then(|p| rank(&h.board, p.hole))))
                        .collect();
                    let mut expected: Vec<Seat> =
                        if eligible.len() > 1 && ranks.iter().all(|r| r.1.is_some()) {
                            let best = ranks.iter().filter_map(|r| r.1).max();
                            ranks.iter().filter(|r| r.1 == best).map(|r| r.0).collect()
                        } else if eligible.len() == 1 {
                            eligible.clone()
                        } else {
                            // Cards not all known (a physical deal, unshown):
                            // the dealer's award stands.
                            shares.iter().map(|s| s.seat).collect()
                        };
                    let mut recorded: Vec<Seat> = shares.iter().map(|s| s.seat).collect();
                    expected.sort_unstable();
                    recorded.sort_unstable();
                    if expected != recorded {
                        return Err(AwardError::WrongWinners {
                            hand,
                            pot: *pot,
                            recorded,
                            expected,
                        });
                    }
                }
                checked += 1;
            }
            TableEvent::HandEnded { number, stacks, .. } => {
                let end: u128 = stacks.iter().map(|s| u128::from(s.1)).sum();
                if end != start_chips {
                    return Err(AwardError::ChipsNotConserved {
                        hand: *number,
                        start: start_chips,
                        end,
                    });
                }
            }
            _ => {}
        }
        state.apply(event);
    }
    Ok(checked)
}

fn rank(board: &[Card], hole: Option<[Card; 2]>) -> Option<felt_cards::HandRank> {
    let hole = hole?;
    if board.len() != 5 {
        return None;
    }
    let cards: Vec<Card> = board.iter().chain(hole.iter()).copied().collect();
    felt_cards::Hand::from_cards(&cards).map(|h| h.rank())
}
