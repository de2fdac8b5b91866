//! The floor's corrections of chips between hands: a stack set right, and
//! chips taken out of play. Each names what it concerns and why, and takes
//! effect before the next hand; none re-decides a recorded hand.

use super::Decider;
use crate::model::*;
use crate::rejection::Rejection;

pub(super) fn bounded(text: &str, what: &'static str) -> Result<(), Rejection> {
    let len = text.chars().count();
    if len == 0 || len > MAX_REASON || text.chars().any(char::is_control) {
        return Err(Rejection::InvalidText {
            what,
            len,
            max: MAX_REASON,
        });
    }
    Ok(())
}

impl Decider<'_> {
    /// The correction's reason and what it concerns are well formed, and a
    /// hand it names is the one a pot's count may still be contested for.
    fn concerns(&self, concerns: &Concerns, reason: &str) -> Result<(), Rejection> {
        bounded(reason, "a correction's reason")?;
        match concerns {
            Concerns::Moment(m) => bounded(m, "the moment a correction concerns"),
            &Concerns::Hand(number) => {
                let last = self.state.hands_started;
                if number == 0 || number > last {
                    Err(Rejection::NoSuchHand {
                        number,
                        played: last,
                    })
                } else if number < last {
                    // Counting errors in pushing a pot may be contested
                    // until substantial action in the next hand (TDA 22):
                    // a hand is past once another was dealt after it.
                    Err(Rejection::PotContestTooLate { number, last })
                } else {
                    Ok(())
                }
            }
        }
    }

    pub(super) fn correct_stack(
        &mut self,
        seat: Seat,
        player: EntryId,
        stack: Chips,
        concerns: &Concerns,
        reason: &str,
    ) -> Result<(), Rejection> {
        self.between_hands()?;
        self.holds(seat, player)?;
        self.concerns(concerns, reason)?;
        let from = self.state.seat(seat).map_or(0, |p| p.stack);
        if stack == 0 {
            return Err(Rejection::CorrectedToNothing { seat });
        }
        if stack == from {
            return Err(Rejection::StackUnchanged { seat, stack });
        }
        let total = u128::from(self.state.chips_in_play()) - u128::from(from) + u128::from(stack);
        if total > u128::from(MAX_CHIPS) {
            return Err(Rejection::CorrectionTooLarge {
                total,
                max: MAX_CHIPS,
            });
        }
        self.emit(TableEvent::StackCorrected {
            seat,
            player,
            from,
            to: stack,
            concerns: concerns.clone(),
            reason: reason.to_owned(),
        });
        Ok(())
    }

    pub(super) fn remove_chips(
        &mut self,
        seat: Seat,
        player: EntryId,
        amount: Chips,
        removal: Removal,
        reason: &str,
    ) -> Result<(), Rejection> {
        self.between_hands()?;
        self.holds(seat, player)?;
        bounded(reason, "a removal's reason")?;
        let stack = self.state.seat(seat).map_or(0, |p| p.stack);
        if amount == 0 {
            return Err(Rejection::NothingToRemove);
        }
        if amount >= stack {
            return Err(Rejection::RemovalTooLarge {
                seat,
                amount,
                stack,
            });
        }
        self.emit(TableEvent::ChipsRemoved {
            seat,
            player,
            amount,
            removal,
            reason: reason.to_owned(),
        });
        Ok(())
    }

    /// A colour-up between hands: the race decided, the smallest chip
    /// from here on (TDA 24, 25).
    pub(super) fn colour_up(
        &mut self,
        leaving: Chips,
        smallest: Chips,
        race: &ChipRace,
    ) -> Result<(), Rejection> {
        if self.state.size == 0 {
            return Err(Rejection::TableNotOpen);
        }
        self.between_hands()?;
        let stacks: Vec<(Seat, EntryId, Chips)> = (1..=self.state.size)
            .filter_map(|s| self.state.seat(s).map(|p| (s, p.player, p.stack)))
            .filter(|(_, _, stack)| *stack > 0)
            .collect();
        let raced = crate::race::chip_race(leaving, smallest, &stacks, race)?;
        let total = u128::from(self.state.chips_in_play())
            + raced
                .iter()
                .map(|r| u128::from(r.after.saturating_sub(r.before)))
                .sum::<u128>();
        if total > u128::from(MAX_CHIPS) {
            return Err(Rejection::CountTooLarge {
                total,
                max: MAX_CHIPS,
            });
        }
        self.emit(TableEvent::ColouredUp {
            leaving,
            smallest,
            seed: match race {
                ChipRace::Drawn { seed } => Some(*seed),
                ChipRace::Entered { .. } => None,
            },
            raced,
        });
        Ok(())
    }

    /// An add-on's chips (or the `rebuy`-th rebuy's) on the stack of the
    /// player seating sold it to, between hands.
    pub(super) fn add_on(
        &mut self,
        seat: Seat,
        player: EntryId,
        chips: Chips,
        rebuy: Option<u32>,
    ) -> Result<(), Rejection> {
        self.between_hands()?;
        // A player busted in the last hand rebuys into the seat they left.
        let rebuys_in = rebuy.is_some()
            && self.state.seat(seat).is_none()
            && self.state.last_busted.contains(&(seat, player));
        if !rebuys_in {
            self.holds(seat, player)?;
        }
        if chips == 0 {
            return Err(Rejection::EmptyStack);
        }
        let total = u128::from(self.state.chips_in_play()) + u128::from(chips);
        if total > u128::from(MAX_CHIPS) {
            return Err(Rejection::CountTooLarge {
                total,
                max: MAX_CHIPS,
            });
        }
        self.emit(match rebuy {
            None => TableEvent::AddOnAdded {
                seat,
                player,
                chips,
            },
            Some(number) => TableEvent::RebuyAdded {
                seat,
                player,
                chips,
                number,
            },
        });
        Ok(())
    }
}
