//! The chip race of a colour-up (TDA 24): the chips of a denomination
//! leaving play that do not make up a chip still in play are raced off.
//!
//! Each stack's odd chips (what is left over the smallest chip still in
//! play) are put up; their total, in the smallest chip still in play
//! rounded to the nearest (half up, the house practice felt follows: TDA
//! 24 leaves the count to the room), is the number of chips the race
//! gives. Each racer gets one card per odd chip, dealt round the table
//! from seat 1; the highest cards (by rank, then spades, hearts,
//! diamonds, clubs) win one chip each, at most one per player. Nobody is
//! out by the race: a player who would lose their last chip gets one chip
//! of the smallest denomination still in play. Whatever else the odd chips
//! were worth leaves play.

use felt_cards::{Card, Deck, Seed};

use crate::model::{Chips, EntryId, MAX_CHIPS, Seat};
use crate::rejection::Rejection;

/// How a chip race's winners are found.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ChipRace {
    /// At a digital table the engine deals the race's cards from the deck
    /// `seed` shuffles (handed the seed by the service that draws it).
    Drawn { seed: Seed },
    /// The dealer ran it with real cards and enters the seats that won a
    /// chip.
    Entered { winners: Vec<Seat> },
}

/// One stack in a chip race: what it held, the odd chips it put up, the
/// cards it was dealt (a drawn race), whether it won a chip, and what it
/// holds after.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Raced {
    pub seat: Seat,
    pub player: EntryId,
    pub before: Chips,
    /// The value of the chips it put up (under the smallest chip still in
    /// play).
    pub odd: Chips,
    pub cards: Vec<Card>,
    pub won: bool,
    /// A player who would have lost their last chip keeps one chip of the
    /// smallest denomination still in play.
    pub saved: bool,
    pub after: Chips,
}

/// The most cards a race deals: one deck.
const DECK: usize = 52;

/// The race of `stacks` (seat, player, chips; seat order) when the
/// `leaving` chip goes and `smallest` is the smallest chip still in play:
/// every stack that puts chips up, with its result.
pub fn chip_race(
    leaving: Chips,
    smallest: Chips,
    stacks: &[(Seat, EntryId, Chips)],
    race: &ChipRace,
) -> Result<Vec<Raced>, Rejection> {
    if leaving == 0 || smallest <= leaving || !smallest.is_multiple_of(leaving) {
        return Err(Rejection::ColourUpChips { leaving, smallest });
    }
    let mut raced: Vec<Raced> = stacks
        .iter()
        .filter(|(_, _, stack)| !stack.is_multiple_of(smallest))
        .map(|&(seat, player, before)| Raced {
            seat,
            player,
            before,
            odd: before % smallest,
            cards: Vec::new(),
            won: false,
            saved: false,
            after: before,
        })
        .collect();
    if raced.is_empty() {
        return Err(Rejection::NothingToRace { smallest });
    }
    let put_up: u128 = raced.iter().map(|r| u128::from(r.odd)).sum();
    let small = u128::from(smallest);
    // Rounded half up; fewer than the racers, since each put up less than
    // one chip.
    let given = usize::try_from((put_up + small / 2) / small).unwrap_or(usize::MAX);
    let winners: Vec<Seat> = match race {
        ChipRace::Entered { winners } => {
            for (i, w) in winners.iter().enumerate() {
                if !raced.iter().any(|r| r.seat == *w) {
                    return Err(Rejection::NotRacing { seat: *w });
                }
                if winners[..i].contains(w) {
                    return Err(Rejection::SeatNamedTwice { seat: *w });
                }
            }
            if winners.len() != given {
                return Err(Rejection::RaceWinners {
                    expected: given,
                    named: winners.len(),
                    put_up: put_up.try_into().unwrap_or(Chips::MAX),
                    smallest,
                });
            }
            winners.clone()
        }
        ChipRace::Drawn { seed } => {
            deal(&mut raced, leaving, *seed);
            let mut best: Vec<(Card, Seat)> = raced
                .iter()
                .filter_map(|r| {
                    r.cards
                        .iter()
                        .max_by_key(|c| (c.rank(), c.suit()))
                        .map(|c| (*c, r.seat))
                })
                .collect();
            best.sort_by_key(|(c, _)| std::cmp::Reverse((c.rank(), c.suit())));
            best.into_iter().take(given).map(|(_, s)| s).collect()
        }
    };
    for r in &mut raced {
        r.won = winners.contains(&r.seat);
        let kept = r.before - r.odd;
        r.after = if r.won {
            kept.checked_add(smallest).ok_or(Rejection::CountTooLarge {
                total: u128::from(kept) + small,
                max: MAX_CHIPS,
            })?
        } else if kept == 0 {
            r.saved = true;
            smallest
        } else {
            kept
        };
    }
    Ok(raced)
}

/// Deals each racer one card per odd chip (of the `leaving` chip), round
/// the table from seat 1, from the deck `seed` shuffles; if one deck is
/// not enough, each racer gets as many as the deck shares out evenly.
fn deal(raced: &mut [Raced], leaving: Chips, seed: Seed) {
    let wanted: Vec<usize> = raced
        .iter()
        .map(|r| usize::try_from(r.odd.div_ceil(leaving)).unwrap_or(DECK))
        .collect();
    let cap = if wanted.iter().sum::<usize>() > DECK {
        DECK / raced.len().max(1)
    } else {
        DECK
    };
    let mut deck = Deck::shuffled(seed);
    let rounds = wanted.iter().copied().max().unwrap_or(0).min(cap);
    for round in 0..rounds {
        for (r, &n) in raced.iter_mut().zip(&wanted) {
            if round < n.min(cap)
                && let Ok(card) = deck.deal()
            {
                r.cards.push(card);
            }
        }
    }
}
