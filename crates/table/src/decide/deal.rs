//! Dealing: a hand started (the level, the button, blinds and antes, a
//! digital deal from its committed seed), cards entered and shown at a
//! physical deal, misdeals re-dealt (TDA 35, 36) and the floor's rulings.

#[allow(clippy::wildcard_imports)]
use super::*;

impl Decider<'_> {
    pub(super) fn enter_hole_cards(
        &mut self,
        seat: Seat,
        cards: &[Card; 2],
    ) -> Result<(), Rejection> {
        let h = self.hand()?;
        if h.deal != Deal::Physical {
            return Err(Rejection::NotPhysicalDeal);
        }
        let p = h.player(seat).ok_or(Rejection::NotLive { seat })?;
        if p.hole == Some(*cards) {
            return Ok(());
        }
        if p.hole.is_some() {
            return Err(Rejection::CardsDiffer { seat });
        }
        check_new_cards(h, cards)?;
        self.emit(TableEvent::HoleCardsEntered {
            seat,
            cards: *cards,
        });
        Ok(())
    }

    pub(super) fn deal_board(&mut self, cards: &[Card]) -> Result<(), Rejection> {
        let h = self.hand()?;
        if h.deal != Deal::Physical {
            return Err(Rejection::NotPhysicalDeal);
        }
        let Some(street) = h.street.next().filter(|_| h.phase == Phase::AwaitingBoard) else {
            return Err(Rejection::BoardNotDue { street: h.street });
        };
        if cards.len() != street.cards() {
            return Err(Rejection::WrongBoardCount {
                street,
                expected: street.cards(),
                got: cards.len(),
            });
        }
        check_new_cards(h, cards)?;
        self.emit(TableEvent::StreetDealt {
            street,
            cards: cards.to_vec(),
            burn: None,
        });
        Ok(())
    }

    pub(super) fn show(&mut self, seat: Seat, cards: Option<&[Card; 2]>) -> Result<(), Rejection> {
        let h = self.hand()?;
        let p = h
            .player(seat)
            .filter(|p| !p.folded)
            .ok_or(Rejection::NotLive { seat })?;
        if !h.betting_over() {
            return Err(Rejection::BettingNotOver);
        }
        let cards = match (p.hole, cards) {
            (Some(dealt), Some(shown)) if !same_cards(&dealt, shown) => {
                return Err(Rejection::CardsDiffer { seat });
            }
            (Some(dealt), _) => dealt,
            (None, Some(shown)) => {
                check_new_cards(h, shown)?;
                *shown
            }
            (None, None) => return Err(Rejection::CardsUnknown { seat }),
        };
        if !p.shown {
            self.emit(TableEvent::CardsShown { seat, cards });
        }
        Ok(())
    }

    pub(super) fn muck(&mut self, seat: Seat) -> Result<(), Rejection> {
        let h = self.hand()?;
        let p = h
            .player(seat)
            .filter(|p| !p.folded)
            .ok_or(Rejection::NotLive { seat })?;
        if !h.betting_over() {
            return Err(Rejection::BettingNotOver);
        }
        if p.shown {
            return Err(Rejection::HandTabled { seat });
        }
        if h.all_in_showdown() {
            return Err(Rejection::MustTable { seat });
        }
        self.emit(TableEvent::CardsMucked { seat });
        Ok(())
    }

    /// A pot pushed by the dealer at a showdown read without entering the
    /// cards: to eligible seats only (TDA 21), and never against the
    /// cards the table knows (TDA 12).
    pub(super) fn push_pot(&mut self, pot: usize, winners: &[Seat]) -> Result<(), Rejection> {
        let h = self.hand()?;
        if h.deal != Deal::Physical {
            return Err(Rejection::DigitalCardsSpeak);
        }
        if h.phase != Phase::Showdown || h.live().count() < 2 {
            return Err(Rejection::NotAtShowdown);
        }
        let mut named = winners.to_vec();
        named.sort_unstable();
        named.dedup();
        if named.is_empty() || named.len() != winners.len() {
            return Err(Rejection::InvalidWinners);
        }
        let eligible = pot_for_award(h, pot)?;
        for &seat in winners {
            if !eligible.contains(&seat) {
                return Err(Rejection::NotEligible {
                    seat,
                    pot,
                    eligible,
                });
            }
        }
        let rank = |s: Seat| showdown::rank_of(h, h.player(s).and_then(|p| p.hole));
        for &winner in winners {
            let Some(mine) = rank(winner) else { continue };
            if let Some(&better) = eligible
                .iter()
                .find(|&&o| rank(o).is_some_and(|r| r > mine))
            {
                return Err(Rejection::CardsSpeak {
                    pot,
                    winner,
                    better,
                });
            }
        }
        self.award_named(pot, winners, true);
        Ok(())
    }

    /// A caller asks to see the hand they called on the river (TDA 18).
    pub(super) fn ask_to_see(
        &mut self,
        seat: Seat,
        of: Seat,
        cards: Option<&[Card; 2]>,
    ) -> Result<(), Rejection> {
        let h = self.hand()?;
        let refuse = |why: &str| {
            Err(Rejection::CannotAskToSee {
                seat,
                of,
                why: why.into(),
            })
        };
        if h.phase != Phase::Showdown {
            return refuse("the hand is not at its showdown");
        }
        if h.player(seat).is_none_or(|p| p.folded) {
            return refuse("they no longer hold their cards");
        }
        if seat == of {
            return refuse("it is their own hand");
        }
        let Some(p) = h.player(of).filter(|p| !p.folded) else {
            return refuse("that hand is no longer live");
        };
        if h.aggressor != Some(of) {
            return refuse(
                "only the last aggressor's hand on the river was called; any other request is the director's to grant",
            );
        }
        if p.shown {
            return refuse("it is already tabled");
        }
        let cards = match (p.hole, cards) {
            (Some(dealt), Some(shown)) if !same_cards(&dealt, shown) => {
                return Err(Rejection::CardsDiffer { seat: of });
            }
            (Some(dealt), _) => dealt,
            (None, Some(shown)) => {
                check_new_cards(h, shown)?;
                *shown
            }
            (None, None) => return Err(Rejection::CardsUnknown { seat: of }),
        };
        self.emit(TableEvent::ShowAsked { seat: of, by: seat });
        self.emit(TableEvent::CardsShown { seat: of, cards });
        Ok(())
    }

    /// The first button by high card (seed 003), before the first hand.
    pub(super) fn draw_button(&mut self, seed: &felt_cards::Seed) -> Result<(), Rejection> {
        let st = &self.state;
        if st.hands_started > 0 || st.drawn_button.is_some() {
            return Err(Rejection::ButtonAlreadyDrawn);
        }
        let seats: Vec<Seat> = (1..=st.size)
            .filter(|&s| st.seat(s).is_some_and(|p| p.stack > 0))
            .collect();
        if seats.len() < 2 {
            return Err(Rejection::NotEnoughPlayers { count: seats.len() });
        }
        let (cards, button) = crate::audit::button_draw(seed, &seats);
        self.emit(TableEvent::ButtonDrawn {
            seed: *seed,
            cards,
            button,
        });
        Ok(())
    }

    pub(super) fn start_hand(
        &mut self,
        level: &Level,
        deal: &Deal,
        button: Option<Seat>,
    ) -> Result<(), Rejection> {
        let st = &self.state;
        if st.size == 0 {
            return Err(Rejection::TableNotOpen);
        }
        if let Some(h) = &st.hand {
            return Err(Rejection::HandInProgress { number: h.number });
        }
        if st.recording == Recording::ResultsOnly {
            return Err(Rejection::ResultsOnly);
        }
        validate_level(level)?;
        let eligible = |s: Seat| st.seat(s).is_some_and(|p| p.stack > 0);
        let seats: Vec<Seat> = (1..=st.size).filter(|&s| eligible(s)).collect();
        if seats.len() < 2 {
            return Err(Rejection::NotEnoughPlayers { count: seats.len() });
        }
        let next = |from: Seat| st.seats_after(from).find(|&s| eligible(s)).unwrap_or(from);
        let heads_up = seats.len() == 2;
        let (button, small_blind, big_blind) = match (button, st.last_big_blind) {
            (Some(_), _) | (None, None) => {
                // (The button drawn by high card, if it was drawn.)
                let b = button
                    .or(st.drawn_button.filter(|&d| eligible(d)))
                    .unwrap_or(seats[0]);
                if b == 0 || b > st.size || !eligible(b) {
                    return Err(Rejection::InvalidButton { seat: b });
                }
                if heads_up {
                    // Heads-up the button posts the small blind (TDA 34).
                    (b, Some(b), next(b))
                } else {
                    let sb = next(b);
                    (b, Some(sb), next(sb))
                }
            }
            (None, Some(last_bb)) => {
                // The big blind moves forward one player; nobody misses it
                // and nobody posts it twice in a row (TDA 32, 34).
                let bb = next(last_bb);
                if heads_up {
                    let other = *seats.iter().find(|&&s| s != bb).unwrap_or(&bb);
                    (other, Some(other), bb)
                } else {
                    let sb = eligible(last_bb).then_some(last_bb).filter(|&s| s != bb);
                    let mut button = st.last_small_blind_position.unwrap_or(last_bb);
                    if button == bb || Some(button) == sb {
                        // Too few players behind the blinds: the button goes
                        // to the player before the small blind.
                        let first = sb.unwrap_or(bb);
                        button = (1..st.size)
                            .map(|k| ((first - 1 + st.size - k) % st.size) + 1)
                            .find(|&s| eligible(s))
                            .unwrap_or(first);
                    }
                    (button, sb, bb)
                }
            }
        };
        // A player new at the table in a seat between the button and the
        // small blind is dealt in only once the button has passed (TDA 8, 10).
        let waits = |s: Seat| -> bool {
            let Some(last_bb) = st.last_big_blind else {
                return false;
            };
            let sb = small_blind.unwrap_or(last_bb);
            st.seat(s).is_some_and(|p| p.new)
                && st
                    .seats_after(button)
                    .take_while(|&x| x != sb)
                    .any(|x| x == s)
        };
        let stacks: Vec<(Seat, Chips)> = seats
            .iter()
            .filter(|&&s| s == big_blind || !waits(s))
            .map(|&s| (s, st.seat(s).map_or(0, |p| p.stack)))
            .collect();
        if stacks.len() < 2 {
            return Err(Rejection::NotEnoughPlayers {
                count: stacks.len(),
            });
        }
        self.deal_hand(
            TableEvent::HandStarted {
                number: st.hands_started + 1,
                level: *level,
                button,
                small_blind,
                big_blind,
                stacks,
                deal: *deal,
                commitment: commitment_of(deal),
            },
            &[],
        );
        Ok(())
    }

    /// Starts a hand from its `HandStarted` event: antes, blinds, the deal,
    /// and the hands that are dead from the start (absent players, TDA 30;
    /// penalties, TDA 71; `dead`, those dead in a misdealt original).
    pub(super) fn deal_hand(&mut self, started: TableEvent, dead: &[Seat]) {
        let TableEvent::HandStarted {
            level,
            button,
            small_blind,
            big_blind,
            ref stacks,
            ..
        } = started
        else {
            return;
        };
        let started_kind = started.clone();
        let st = &self.state;
        let kills: Vec<(Seat, &str)> = stacks
            .iter()
            .filter_map(|&(s, _)| {
                let seat = st.seat(s)?;
                if seat.penalty_hands > 0 {
                    Some((s, "the player is serving a penalty (TDA 71)"))
                } else if seat.absent {
                    Some((
                        s,
                        "player not at the seat when the cards were dealt (TDA 30)",
                    ))
                } else if dead.contains(&s) {
                    Some((s, "dead in the misdealt hand, dead in its re-deal (TDA 35)"))
                } else {
                    None
                }
            })
            .collect();
        // Dealing order: from the seat after the button, clockwise.
        let order: Vec<Seat> = st
            .seats_after(button)
            .filter(|s| stacks.iter().any(|&(seat, _)| seat == *s))
            .collect();
        self.emit(started);
        let stack = |d: &Decider, s: Seat| d.state.seat(s).map_or(0, |p| p.stack);
        match level.ante_format {
            AnteFormat::None => {}
            AnteFormat::PerPlayer => {
                for &s in &order {
                    let amount = level.ante.min(stack(self, s));
                    self.emit(TableEvent::AntePosted { seat: s, amount });
                }
            }
            AnteFormat::BigBlind => {
                // The big-blind ante is posted first and never reduced for
                // the blind's sake (RP11).
                let amount = level.ante.min(stack(self, big_blind));
                self.emit(TableEvent::AntePosted {
                    seat: big_blind,
                    amount,
                });
            }
        }
        if let Some(sb) = small_blind {
            let amount = level.small_blind.min(stack(self, sb));
            self.emit(TableEvent::BlindPosted {
                seat: sb,
                blind: Blind::Small,
                amount,
            });
        }
        let amount = level.big_blind.min(stack(self, big_blind));
        self.emit(TableEvent::BlindPosted {
            seat: big_blind,
            blind: Blind::Big,
            amount,
        });
        if let TableEvent::HandStarted {
            deal: Deal::Shared { .. },
            ..
        } = started_kind
        {
            // No card before the table's entropy: the dead hands are
            // known already.
            for (seat, reason) in kills {
                self.emit(TableEvent::HandKilled {
                    seat,
                    reason: reason.into(),
                });
            }
            return;
        }
        self.deal_hole_cards(&order);
        for (seat, reason) in kills {
            self.emit(TableEvent::HandKilled {
                seat,
                reason: reason.into(),
            });
        }
    }

    /// The hole cards, two rounds from the deck in dealing order (a
    /// physical deal's unknown).
    fn deal_hole_cards(&mut self, order: &[Seat]) {
        let cards = match self.state.hand.as_ref().and_then(|h| h.deck.as_ref()) {
            Some(deck) => {
                let top = deck.remaining();
                let n = order.len();
                order
                    .iter()
                    .enumerate()
                    .map(|(i, &s)| (s, Some([top[i], top[i + n]])))
                    .collect()
            }
            None => order.iter().map(|&s| (s, None)).collect(),
        };
        self.emit(TableEvent::HoleCardsDealt { cards });
    }

    /// The table's entropy for a shared deal: the deck is the committed
    /// secret mixed with it, and the cards go out.
    pub(super) fn add_entropy(&mut self, entropy: &felt_cards::Seed) -> Result<(), Rejection> {
        let h = self.hand()?;
        if !matches!(h.deal, Deal::Shared { .. }) {
            return Err(Rejection::EntropyNotDue);
        }
        if h.deck.is_some() {
            return Err(Rejection::EntropyAlreadyAdded);
        }
        let order: Vec<Seat> = self
            .state
            .seats_after(h.button)
            .filter(|&s| h.player(s).is_some())
            .collect();
        self.emit(TableEvent::EntropyAdded { entropy: *entropy });
        self.deal_hole_cards(&order);
        Ok(())
    }

    /// A misdeal (TDA 35): all chips back, and an exact copy dealt again —
    /// the same button, blinds, level and players, only the cards new.
    pub(super) fn misdeal(&mut self, reason: &str, deal: &Deal) -> Result<(), Rejection> {
        let h = self.hand()?;
        if h.substantial_action() || h.street != Street::Preflop {
            return Err(Rejection::MisdealTooLate);
        }
        if !matches!(deal, Deal::Physical) && *deal == h.deal {
            return Err(Rejection::SameSeed);
        }
        // An exact copy: the dead stay dead (TDA 35); by seed 002's house
        // rule a player away for the original deal plays the re-deal if
        // back (still away, their hand dies again by TDA 30).
        let absent_play = self.state.rules.misdeal_redeal == MisdealRedeal::AbsentPlay;
        let dead: Vec<Seat> = (1..=self.state.size)
            .filter(|&s| {
                h.player(s)
                    .is_some_and(|p| p.dead && !(absent_play && p.away))
            })
            .collect();
        let again = TableEvent::HandStarted {
            number: h.number,
            level: h.level,
            button: h.button,
            small_blind: h.small_blind,
            big_blind: h.big_blind,
            stacks: (1..=self.state.size)
                .filter_map(|s| h.player(s).map(|p| (s, p.starting_stack)))
                .collect(),
            deal: *deal,
            commitment: commitment_of(deal),
        };
        self.emit(TableEvent::MisdealDeclared {
            number: h.number,
            reason: reason.into(),
        });
        self.deal_hand(again, &dead);
        Ok(())
    }

    pub(super) fn rule(&mut self, ruling: &Ruling, reason: &str) -> Result<(), Rejection> {
        let h = self.hand()?;
        let ruled = TableEvent::FloorRuled {
            ruling: *ruling,
            reason: reason.into(),
        };
        match *ruling {
            Ruling::KillHand { seat } => {
                let p = h
                    .player(seat)
                    .filter(|p| !p.folded)
                    .ok_or(Rejection::NotLive { seat })?;
                if p.shown {
                    return Err(Rejection::HandTabled { seat });
                }
                if !h.pots_awarded.is_empty() {
                    return Err(Rejection::PotsBeingAwarded);
                }
                // A bet or raise nobody has called yet goes back to the
                // killed hand (TDA 15, 65); before the flop the blind to
                // call stays in.
                let others = (1..=self.state.size)
                    .filter(|&s| s != seat)
                    .filter_map(|s| h.player(s).map(|o| o.street))
                    .max()
                    .unwrap_or(0);
                let blind = if h.street == Street::Preflop {
                    h.opening_bet
                } else {
                    0
                };
                let uncalled = p.street.saturating_sub(others.max(blind));
                self.emit(ruled);
                if uncalled > 0 {
                    self.emit(TableEvent::UncalledBetReturned {
                        seat,
                        amount: uncalled,
                    });
                }
                self.emit(TableEvent::HandKilled {
                    seat,
                    reason: format!("killed by the floor: {reason} (TDA 1)"),
                });
            }
            Ruling::AwardPot { seat, pot } => {
                let eligible = pot_for_award(h, pot)?;
                if !eligible.contains(&seat) {
                    return Err(Rejection::NotEligible {
                        seat,
                        pot,
                        eligible,
                    });
                }
                let pots = h.settled_pots().1.len();
                let settled = h.to_act.is_none()
                    && h.phase != Phase::Dealing
                    && (h.betting_over() || pots == 1);
                if !settled {
                    return Err(Rejection::PotStillOpen { pot });
                }
                self.emit(ruled);
                self.award_named(pot, &[seat], false);
            }
            Ruling::FouledDeck => {
                if !h.pots_awarded.is_empty() {
                    return Err(Rejection::PotsBeingAwarded);
                }
                let number = h.number;
                self.emit(ruled);
                self.emit(TableEvent::HandVoided { number });
                self.end_hand();
            }
            Ruling::ForfeitUndercall { seat, amount } => {
                let Some(to_act) = h.to_act else {
                    return Err(Rejection::NoActionPending { street: h.street });
                };
                if seat != to_act {
                    return Err(Rejection::OutOfTurn { seat, to_act });
                }
                let to_call = h.to_call(seat);
                let stack = self.state.seat(seat).map_or(0, |s| s.stack);
                if amount == 0 || amount >= to_call || amount >= stack {
                    return Err(Rejection::InvalidForfeit {
                        seat,
                        amount,
                        to_call,
                    });
                }
                self.emit(ruled);
                self.emit(TableEvent::UndercallForfeited { seat, amount });
            }
        }
        Ok(())
    }
}

/// The seats that can win pot `pot` once betting is over, if it exists
/// and is still to award.
fn pot_for_award(h: &HandState, pot: usize) -> Result<Vec<Seat>, Rejection> {
    let pots = h.settled_pots().1;
    let (_, eligible) = pots.get(pot).ok_or(Rejection::NoSuchPot {
        pot,
        pots: pots.len(),
    })?;
    if h.pots_awarded.contains(&pot) {
        return Err(Rejection::PotAlreadyAwarded { pot });
    }
    Ok(eligible.clone())
}

pub(super) fn commitment_of(deal: &Deal) -> Option<felt_cards::Commitment> {
    match deal {
        Deal::Digital { seed } | Deal::Shared { seed } => Some(seed.commitment()),
        Deal::Physical => None,
    }
}

pub(super) fn same_cards(a: &[Card; 2], b: &[Card; 2]) -> bool {
    (a[0] == b[0] && a[1] == b[1]) || (a[0] == b[1] && a[1] == b[0])
}

/// New cards must be distinct and not already on the board or in a known hand.
pub(super) fn check_new_cards(h: &HandState, cards: &[Card]) -> Result<(), Rejection> {
    let bit = |c: &Card| 1u64 << c.index();
    let mut seen: u64 = h.board.iter().map(bit).fold(0, |a, b| a | b);
    for p in h.players.iter().flatten() {
        seen |= p.hole.iter().flatten().map(bit).fold(0, |a, b| a | b);
    }
    for card in cards {
        if seen & bit(card) != 0 {
            return Err(Rejection::DuplicateCard { card: *card });
        }
        seen |= bit(card);
    }
    Ok(())
}

pub(super) fn validate_level(level: &Level) -> Result<(), Rejection> {
    let bad = |reason: &str| {
        Err(Rejection::InvalidLevel {
            reason: reason.into(),
        })
    };
    if level.big_blind == 0 {
        return bad("the big blind must be positive");
    }
    if level.small_blind > level.big_blind {
        return bad("the small blind exceeds the big blind");
    }
    if level.smallest_chip == 0 {
        return bad("the smallest chip must be positive");
    }
    if level.big_blind > MAX_CHIPS || level.ante > MAX_CHIPS {
        return bad("a blind or ante is over the chips a table holds (2^60)");
    }
    if level.smallest_chip > level.big_blind {
        return bad("the smallest chip is larger than the big blind");
    }
    match (level.ante_format, level.ante) {
        (AnteFormat::None, a) if a > 0 => bad("an ante is set but the ante format is none"),
        (AnteFormat::PerPlayer | AnteFormat::BigBlind, 0) => bad("the ante format needs an ante"),
        _ => Ok(()),
    }
}
