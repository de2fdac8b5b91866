//! Results-only tables: switching what a table records, a hand known by
//! its result, and the counts of every stack.

use super::Decider;
use crate::model::*;
use crate::rejection::Rejection;

impl Recording {
    /// How the table's record reads in a sentence.
    pub fn describe(self) -> &'static str {
        match self {
            Recording::Actions => "every action",
            Recording::ResultsOnly => "results only",
        }
    }
}

impl Decider<'_> {
    /// The seat holds the entry named for it.
    pub(super) fn holds(&self, seat: Seat, named: EntryId) -> Result<(), Rejection> {
        self.check_seat(seat)?;
        let sitting = self
            .state
            .seat(seat)
            .ok_or(Rejection::SeatEmpty { seat })?
            .player;
        if sitting != named {
            return Err(Rejection::NotInSeat {
                seat,
                named,
                sitting,
            });
        }
        Ok(())
    }

    pub(super) fn between_hands(&self) -> Result<(), Rejection> {
        match &self.state.hand {
            Some(h) => Err(Rejection::HandInProgress { number: h.number }),
            None => Ok(()),
        }
    }

    pub(super) fn set_recording(
        &mut self,
        recording: Recording,
        reason: &str,
    ) -> Result<(), Rejection> {
        self.between_hands()?;
        if self.state.recording == recording {
            return Err(Rejection::RecordingUnchanged {
                recording: recording.describe(),
            });
        }
        if recording == Recording::Actions && self.state.uncounted {
            return Err(Rejection::CountBeforeRecording);
        }
        self.emit(TableEvent::RecordingSet {
            recording,
            reason: reason.to_owned(),
        });
        Ok(())
    }

    pub(super) fn record_result(
        &mut self,
        button: Seat,
        busted: &[(Seat, EntryId)],
        by: &[(Seat, EntryId)],
        occurred_at: Option<i64>,
    ) -> Result<(), Rejection> {
        if self.state.recording != Recording::ResultsOnly {
            return Err(Rejection::RecordsActions);
        }
        // One table's hands happen one after another.
        if let (Some(at), Some(previous)) = (occurred_at, self.state.last_result_at)
            && at < previous
        {
            return Err(Rejection::ResultBeforePrevious { at, previous });
        }
        self.between_hands()?;
        self.check_seat(button)?;
        let mut named = Vec::new();
        for &(seat, entry) in busted.iter().chain(by) {
            self.holds(seat, entry)?;
            if named.contains(&seat) {
                return Err(
                    if busted.iter().any(|b| b.0 == seat) && by.iter().any(|w| w.0 == seat) {
                        Rejection::WinnerBusted { seat }
                    } else {
                        Rejection::SeatNamedTwice { seat }
                    },
                );
            }
            named.push(seat);
        }
        if !busted.is_empty() && by.is_empty() {
            return Err(Rejection::BustWithoutWinner);
        }
        if busted.is_empty() && !by.is_empty() {
            return Err(Rejection::WinnerWithoutBust);
        }
        let busted: Vec<Seat> = busted.iter().map(|b| b.0).collect();
        let by: Vec<Seat> = by.iter().map(|w| w.0).collect();
        let st = &*self.state;
        // The positions of the hand played, from the button reported
        // (players who busted in it were in it).
        let in_play = |s: Seat| st.seat(s).is_some_and(|p| p.stack > 0);
        let players = (1..=st.size).filter(|&s| in_play(s)).count();
        let next = |from: Seat| st.seats_after(from).find(|&s| in_play(s)).unwrap_or(from);
        let (small_blind, big_blind) = if players == 2 && in_play(button) {
            // Heads-up the button posts the small blind (TDA 34).
            (Some(button), next(button))
        } else {
            let sb = next(button);
            (Some(sb), next(sb))
        };
        let entry = |s: Seat| st.seat(s).map(|p| p.player);
        let winners: Vec<EntryId> = by.iter().filter_map(|&s| entry(s)).collect();
        let busts: Vec<Bust> = busted
            .iter()
            .filter_map(|&seat| {
                st.seat(seat).map(|p| Bust {
                    seat,
                    player: p.player,
                    starting_stack: p.stack,
                    by: winners.clone(),
                })
            })
            .collect();
        // The busted chips, split evenly among the winners; the odd chips
        // one each from the first winner left of the button (TDA 20).
        let total: Chips = busts.iter().map(|b| b.starting_stack).sum();
        let mut order: Vec<Seat> = st.seats_after(button).filter(|s| by.contains(s)).collect();
        order.dedup();
        let mut shares: Vec<(Seat, Chips)> = Vec::new();
        if let Some(count) = Chips::try_from(order.len()).ok().filter(|&n| n > 0) {
            let (each, odd) = (total / count, total % count);
            for (k, &seat) in order.iter().enumerate() {
                let extra = Chips::from((k as Chips) < odd);
                shares.push((seat, each + extra));
            }
        }
        let number = st.hands_started + 1;
        self.emit(TableEvent::ResultRecorded {
            number,
            button,
            small_blind,
            big_blind,
            busted: busts,
            shares,
            occurred_at,
        });
        Ok(())
    }

    pub(super) fn count_stacks(
        &mut self,
        count: &str,
        stacks: &[(Seat, EntryId, Chips)],
    ) -> Result<(), Rejection> {
        let len = count.chars().count();
        if len == 0 || len > MAX_COUNT_NAME {
            return Err(Rejection::InvalidCountName {
                len,
                max: MAX_COUNT_NAME,
            });
        }
        self.between_hands()?;
        let mut named = Vec::new();
        let mut total: u128 = 0;
        for &(seat, entry, chips) in stacks {
            self.holds(seat, entry)?;
            if named.contains(&seat) {
                return Err(Rejection::SeatNamedTwice { seat });
            }
            if chips == 0 {
                return Err(Rejection::CountedEmpty { seat });
            }
            named.push(seat);
            total += u128::from(chips);
        }
        if let Some(seat) =
            (1..=self.state.size).find(|&s| self.state.seat(s).is_some() && !named.contains(&s))
        {
            return Err(Rejection::SeatNotCounted { seat });
        }
        let counted = Chips::try_from(total)
            .ok()
            .filter(|&c| c <= MAX_CHIPS)
            .ok_or(Rejection::CountTooLarge {
                total,
                max: MAX_CHIPS,
            })?;
        let mut stacks: Vec<(Seat, Chips)> = stacks.iter().map(|&(s, _, c)| (s, c)).collect();
        stacks.sort_unstable();
        self.emit(TableEvent::StacksCounted {
            count: count.to_owned(),
            stacks,
            expected: self.state.chips_in_play(),
            counted,
        });
        Ok(())
    }
}
