//! What follows a command by itself: the next street or player, held
//! out-of-turn actions, hands tabled, pots built and awarded (TDA 16–21)
//! and the hand ended.

#[allow(clippy::wildcard_imports)]
use super::*;

impl Decider<'_> {
    /// What follows by itself once a command's events are in: the next
    /// street in a digital deal, hands tabled, pots awarded, the hand ended.
    pub(super) fn follow_up(&mut self) {
        loop {
            let Some(h) = self.state.hand.as_ref() else {
                return;
            };
            if h.live().count() <= 1 && h.phase != Phase::Dealing {
                self.award();
                return;
            }
            match h.phase {
                Phase::Betting => {
                    if !self.resolve_out_of_turn() {
                        return;
                    }
                }
                Phase::Dealing => return,
                Phase::AwaitingBoard => {
                    if h.deck.is_none() {
                        return;
                    }
                    let Some(street) = h.street.next() else {
                        return;
                    };
                    if h.can_act_count() <= 1 {
                        // All-in: every live hand is tabled (TDA 16).
                        self.show_all();
                    }
                    let Some(deck) = self.state.hand.as_ref().and_then(|h| h.deck.as_ref()) else {
                        return;
                    };
                    let top = deck.remaining();
                    let (burn, cards) = (top.first().copied(), top.get(1..1 + street.cards()));
                    let Some(cards) = cards else { return };
                    let cards = cards.to_vec();
                    self.emit(TableEvent::StreetDealt {
                        street,
                        cards,
                        burn,
                    });
                }
                Phase::Showdown => {
                    if h.deck.is_some() {
                        // Every hand tabled at an all-in (TDA 16); else in
                        // order, a losing hand mucked (TDA 17).
                        if h.all_in_showdown() {
                            self.show_all();
                        } else {
                            self.show_in_order();
                        }
                    }
                    let h = self.state.hand.as_ref();
                    if h.is_some_and(|h| h.live().all(|(_, p)| p.shown)) {
                        self.award();
                    }
                    return;
                }
            }
        }
    }

    /// When the action reaches a seat that acted out of turn: the action
    /// stands if what it faces is unchanged (or it folded), else it is void
    /// (TDA 53). Returns whether anything was resolved.
    pub(super) fn resolve_out_of_turn(&mut self) -> bool {
        let Some(h) = self.state.hand.as_ref() else {
            return false;
        };
        let Some(seat) = h.to_act else {
            return false;
        };
        let Some(&(_, action, facing)) = h.out_of_turn.iter().find(|o| o.0 == seat) else {
            return false;
        };
        let current = h.current_bet;
        let void = |reason: String| TableEvent::OutOfTurnVoided { seat, reason };
        let event = if action == PlayerAction::Fold || current == facing {
            self.act_as(seat, &action).unwrap_or_else(|e| {
                void(format!("the out-of-turn action is no longer possible: {e}"))
            })
        } else {
            void(format!(
                "the action changed from {facing} to {current} before seat {seat}'s turn: its out-of-turn action does not bind it (TDA 53)"
            ))
        };
        self.emit(event);
        true
    }

    /// Tables every live hand in showdown order (TDA 17): the last bettor or
    /// raiser on the final street first, else the first seat after the button.
    pub(super) fn show_all(&mut self) {
        let Some(h) = self.state.hand.as_ref() else {
            return;
        };
        let order: Vec<(Seat, [Card; 2])> = self
            .state
            .showdown_order()
            .into_iter()
            .filter_map(|s| {
                let p = h.player(s)?;
                (!p.shown).then_some((s, p.hole?))
            })
            .collect();
        for (seat, cards) in order {
            self.emit(TableEvent::CardsShown { seat, cards });
        }
    }

    /// Tables the live hands in showdown order (TDA 17) at a digital deal
    /// without an all-in: each hand that beats or ties every hand tabled
    /// before it is tabled, any other is mucked unseen.
    pub(super) fn show_in_order(&mut self) {
        let mut best: Option<HandRank> = None;
        for seat in self.state.showdown_order() {
            let Some(h) = self.state.hand.as_ref() else {
                return;
            };
            let Some(p) = h.player(seat) else { continue };
            let rank = rank_of(h, p.hole);
            if p.shown {
                best = best.max(rank);
                continue;
            }
            let Some(cards) = p.hole else { continue };
            if best.is_none() || rank >= best {
                best = best.max(rank);
                self.emit(TableEvent::CardsShown { seat, cards });
            } else {
                self.emit(TableEvent::CardsMucked { seat });
            }
        }
    }

    /// Returns the uncalled bet, awards the pots not yet awarded from the
    /// last side pot to the main pot (TDA 21), and ends the hand.
    pub(super) fn award(&mut self) {
        let Some(h) = self.state.hand.clone() else {
            return;
        };
        let size = self.state.size;
        if h.live().count() == 0 {
            // Every hand is dead (all players away): nobody can win the
            // pot, so every chip goes back to whoever put it in.
            for s in 1..=size {
                if let Some(p) = h.player(s).filter(|p| p.total > 0) {
                    self.emit(TableEvent::UncalledBetReturned {
                        seat: s,
                        amount: p.total,
                    });
                }
            }
            self.end_hand();
            return;
        }
        let (uncalled, pots) = h.settled_pots();
        if let Some((seat, amount)) = uncalled {
            self.emit(TableEvent::UncalledBetReturned { seat, amount });
        }
        let ranks: Vec<(Seat, Option<HandRank>)> = (1..=size)
            .filter_map(|s| h.player(s).map(|p| (s, rank_of(&h, p.hole))))
            .collect();
        let rank = |s: &Seat| ranks.iter().find(|r| r.0 == *s).and_then(|r| r.1);
        let mut awards: Vec<Award> = pots
            .into_iter()
            .enumerate()
            .filter(|(pot, _)| !h.pots_awarded.contains(pot))
            .map(|(pot, (amount, eligible))| {
                let best = eligible.iter().filter_map(rank).max();
                let winners: Vec<Seat> = if eligible.len() > 1 && best.is_some() {
                    eligible
                        .iter()
                        .copied()
                        .filter(|s| rank(s) == best)
                        .collect()
                } else {
                    eligible.clone()
                };
                Award {
                    pot,
                    amount,
                    contested: eligible.len() > 1,
                    eligible,
                    winners: self.ordered_from_the_button(&winners),
                }
            })
            .collect();
        let odd_chips = self.state.rules.odd_chips;
        if odd_chips == OddChips::AllToTheFirstWinner {
            awards = merge_alike(awards);
        }
        for award in awards.into_iter().rev() {
            let rank = |s: Seat| if award.contested { rank(&s) } else { None };
            let shares = self.split(award.amount, &award.winners, rank);
            self.emit(TableEvent::PotAwarded {
                pot: award.pot,
                amount: award.amount,
                eligible: award.eligible,
                shares,
            });
        }
        self.end_hand();
    }

    /// `seats` in order from the first left of the button: who gets the
    /// odd chips first (TDA 20).
    pub(super) fn ordered_from_the_button(&self, seats: &[Seat]) -> Vec<Seat> {
        let button = self.state.hand.as_ref().map_or(0, |h| h.button);
        self.state
            .seats_after(button)
            .filter(|s| seats.contains(s))
            .collect()
    }

    /// A pot's shares among its winners (in order from the button): as
    /// evenly as the smallest chip in play allows, the odd chips by the
    /// house's rule (TDA 20).
    pub(super) fn split(
        &self,
        amount: Chips,
        winners: &[Seat],
        rank: impl Fn(Seat) -> Option<HandRank>,
    ) -> Vec<Share> {
        let chip = self
            .state
            .hand
            .as_ref()
            .map_or(1, |h| h.level.smallest_chip.max(1));
        let odd_chips = self.state.rules.odd_chips;
        let n = (winners.len() as Chips).max(1);
        let each = amount / (n * chip) * chip;
        let mut rest = amount - each * n;
        winners
            .iter()
            .map(|&seat| {
                let odd = match odd_chips {
                    OddChips::OneEachFromTheButton => rest.min(chip),
                    OddChips::AllToTheFirstWinner => rest,
                };
                rest -= odd;
                Share {
                    seat,
                    amount: each + odd,
                    rank: rank(seat),
                }
            })
            .collect()
    }

    /// A pot (or the floor's award, `by_floor`) to named seats: the uncalled
    /// bet back first, the pot split exactly among them, and the hand ended
    /// once no pot is left.
    pub(super) fn award_named(&mut self, pot: usize, winners: &[Seat], ranked: bool) {
        let Some(h) = self.state.hand.clone() else {
            return;
        };
        let (uncalled, pots) = h.settled_pots();
        let Some((amount, eligible)) = pots.get(pot).cloned() else {
            return;
        };
        if let Some((seat, amount)) = uncalled {
            self.emit(TableEvent::UncalledBetReturned { seat, amount });
        }
        let winners = self.ordered_from_the_button(winners);
        let contested = ranked && eligible.len() > 1;
        let shares = self.split(amount, &winners, |s| {
            contested
                .then(|| rank_of(&h, h.player(s).and_then(|p| p.hole)))
                .flatten()
        });
        self.emit(TableEvent::PotAwarded {
            pot,
            amount,
            eligible,
            shares,
        });
        let done = self
            .state
            .hand
            .as_ref()
            .is_some_and(|h| (0..pots.len()).all(|p| h.pots_awarded.contains(&p)));
        if done {
            self.end_hand();
        }
    }

    /// Ends the hand once every chip is awarded: stacks and busts.
    pub(super) fn end_hand(&mut self) {
        let Some(h) = self.state.hand.as_ref() else {
            return;
        };
        let number = h.number;
        if let Deal::Shared { seed } = h.deal {
            self.emit(TableEvent::SecretRevealed { secret: seed });
        }
        let Some(h) = self.state.hand.as_ref() else {
            return;
        };
        let stacks: Vec<(Seat, Chips)> = (1..=self.state.size)
            .filter(|&s| h.player(s).is_some())
            .map(|s| (s, self.state.seat(s).map_or(0, |p| p.stack)))
            .collect();
        let busted = stacks
            .iter()
            .filter(|(_, stack)| *stack == 0)
            .filter_map(|&(seat, _)| {
                Some(Bust {
                    seat,
                    player: self.state.seat(seat)?.player,
                    starting_stack: h.player(seat)?.starting_stack,
                    by: self
                        .eliminators(seat)
                        .into_iter()
                        .filter_map(|s| Some(self.state.seat(s)?.player))
                        .collect(),
                })
            })
            .collect();
        self.emit(TableEvent::HandEnded {
            number,
            stacks,
            busted,
        });
    }

    /// [`eliminators`] among the pots this decision awarded.
    fn eliminators(&self, seat: Seat) -> Vec<Seat> {
        eliminators(&self.events, seat)
    }
}

/// The seats that won the last chips of `seat`: the winners (but `seat`)
/// of the highest pot it was eligible for among a hand's `events` (its
/// bounty's collectors, in a knockout).
pub fn eliminators<'a>(events: impl IntoIterator<Item = &'a TableEvent>, seat: Seat) -> Vec<Seat> {
    events
        .into_iter()
        .filter_map(|e| match e {
            TableEvent::PotAwarded {
                pot,
                eligible,
                shares,
                ..
            } if eligible.contains(&seat) => Some((*pot, shares)),
            _ => None,
        })
        .max_by_key(|(pot, _)| *pot)
        .map(|(_, shares)| {
            shares
                .iter()
                .map(|s| s.seat)
                .filter(|s| *s != seat)
                .collect()
        })
        .unwrap_or_default()
}

/// A pot with its winners, before the chips are split.
pub(super) struct Award {
    pot: usize,
    amount: Chips,
    eligible: Vec<Seat>,
    contested: bool,
    winners: Vec<Seat>,
}

/// PokerKit's way: pots whose contenders (eligible players who win some
/// pot) are the same are awarded as one, so their odd chips are counted
/// together. Each merged pot keeps the number of its first pot.
pub(super) fn merge_alike(awards: Vec<Award>) -> Vec<Award> {
    let contenders: Vec<Seat> = awards.iter().flat_map(|a| a.winners.clone()).collect();
    let key = |a: &Award| -> Vec<Seat> {
        a.eligible
            .iter()
            .copied()
            .filter(|s| contenders.contains(s))
            .collect()
    };
    let mut merged: Vec<(Vec<Seat>, Award)> = Vec::new();
    for award in awards {
        let k = key(&award);
        match merged.iter_mut().find(|(key, _)| *key == k) {
            Some((_, into)) => into.amount += award.amount,
            None => merged.push((k, award)),
        }
    }
    merged.into_iter().map(|(_, a)| a).collect()
}

/// Main pot first: each level of the live players' bets makes a pot that
/// every live player who bet that much is eligible for; the antes are dead
/// money in the main pot, which every live player is eligible for (a
/// player all-in on the ante makes a main pot of antes alone).
pub(crate) fn build_pots(bets: &[(Seat, Chips, bool)], antes: Chips) -> Vec<(Chips, Vec<Seat>)> {
    let mut levels: Vec<Chips> = bets.iter().filter(|t| t.2).map(|t| t.1).collect();
    levels.sort_unstable();
    levels.dedup();
    let mut pots: Vec<(Chips, Vec<Seat>)> = Vec::new();
    let mut prev = 0;
    for level in levels {
        let amount: Chips = bets.iter().map(|t| t.1.min(level) - t.1.min(prev)).sum();
        let eligible: Vec<Seat> = bets
            .iter()
            .filter(|t| t.2 && t.1 >= level)
            .map(|t| t.0)
            .collect();
        if amount > 0 || pots.is_empty() {
            pots.push((amount, eligible));
        }
        prev = level;
    }
    // Bets of folded players above every live level (not reachable by
    // betting, kept so no chip is ever lost) go to the last pot.
    let rest: Chips = bets.iter().map(|t| t.1 - t.1.min(prev)).sum();
    if let Some(last) = pots.last_mut() {
        last.0 += rest;
    }
    if let Some(main) = pots.first_mut() {
        main.0 += antes;
    }
    pots
}

pub(super) fn rank_of(h: &HandState, hole: Option<[Card; 2]>) -> Option<HandRank> {
    let hole = hole?;
    if h.board.len() != 5 {
        return None;
    }
    let hand = h
        .board
        .iter()
        .chain(hole.iter())
        .try_fold(Hand::EMPTY, |acc, &c| {
            (!acc.contains(c)).then(|| acc.with(c))
        })?;
    Some(hand.rank())
}
