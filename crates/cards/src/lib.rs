//! Cards, seeded decks and an exact hold'em hand evaluator.
//!
//! Everything here is pure: no IO, no clock, and the only randomness is the
//! seed a caller hands to [`Deck::shuffled`].
//!
//! ```
//! use felt_cards::{evaluate, Card};
//! let cards = Card::parse_many("Qs Qh Qd 4c 4s 9h 2d").unwrap();
//! let hand = evaluate(&cards).unwrap();
//! assert_eq!(hand.to_string(), "queens full of fours");
//! ```

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

mod card;
mod deck;
mod eval;
pub mod sample;

pub use card::{Card, Rank, Suit};
pub use deck::{Commitment, Deck, Seed};
pub use eval::{Category, Evaluation, Hand, HandRank, evaluate};

/// Everything that can go wrong with cards, decks and evaluation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CardsError {
    #[error("invalid card \"{input}\": {reason}")]
    InvalidCard { input: String, reason: String },
    #[error("invalid seed \"{input}\": {reason}")]
    InvalidSeed { input: String, reason: String },
    #[error("a hand is evaluated from 5 to 7 cards, got {count}")]
    WrongCardCount { count: usize },
    #[error("card {card} appears twice")]
    DuplicateCard { card: Card },
    #[error("the deck is exhausted")]
    DeckExhausted,
}
