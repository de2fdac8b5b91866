//! `decide`: what a command means at this table, as events, or why not.

use felt_cards::{Card, Hand, HandRank};

use crate::chips::{Push, read_push};
use crate::model::*;
use crate::rejection::Rejection;
use crate::state::{HandState, Phase, TableState, apply};

/// Decides a command. On success the events, applied in order with
/// [`crate::evolve`], give the new state; on rejection nothing changes.
pub fn decide(state: &TableState, command: &Command) -> Result<Vec<TableEvent>, Rejection> {
    let mut scratch = state.clone();
    execute(&mut scratch, command)
}

/// Decides a command and, when it is accepted, moves `state` to where its
/// events lead (what folding them with [`crate::evolve`] gives), applying
/// each event once, in place. On rejection `state` is unchanged: every
/// command is checked in full before its first event (the property tests
/// hold `execute` to this).
pub fn execute(state: &mut TableState, command: &Command) -> Result<Vec<TableEvent>, Rejection> {
    let mut d = Decider {
        state,
        events: Vec::new(),
    };
    d.command(command)?;
    d.follow_up();
    Ok(d.events)
}

struct Decider<'a> {
    state: &'a mut TableState,
    events: Vec<TableEvent>,
}

impl Decider<'_> {
    fn emit(&mut self, event: TableEvent) {
        apply(self.state, &event);
        self.events.push(event);
    }

    fn hand(&self) -> Result<&HandState, Rejection> {
        self.state.hand.as_ref().ok_or(Rejection::NoHand)
    }

    fn check_seat(&self, seat: Seat) -> Result<(), Rejection> {
        if self.state.size == 0 {
            return Err(Rejection::TableNotOpen);
        }
        if seat == 0 || seat > self.state.size {
            return Err(Rejection::NoSuchSeat {
                seat,
                size: self.state.size,
            });
        }
        Ok(())
    }

    fn command(&mut self, command: &Command) -> Result<(), Rejection> {
        match command {
            Command::OpenTable { seats, rules } => {
                if self.state.size != 0 {
                    return Err(Rejection::TableAlreadyOpen);
                }
                if !(2..=MAX_SEATS as u8).contains(seats) {
                    return Err(Rejection::InvalidTableSize { seats: *seats });
                }
                self.emit(TableEvent::TableOpened {
                    seats: *seats,
                    rules: *rules,
                });
            }
            Command::SeatPlayer {
                seat,
                player,
                stack,
            } => {
                self.check_seat(*seat)?;
                if self.state.seat(*seat).is_some() {
                    return Err(Rejection::SeatOccupied { seat: *seat });
                }
                if let Some(at) = (1..=self.state.size)
                    .find(|&s| self.state.seat(s).is_some_and(|p| p.player == *player))
                {
                    return Err(Rejection::AlreadySeated {
                        player: *player,
                        seat: at,
                    });
                }
                if *stack == 0 {
                    return Err(Rejection::EmptyStack);
                }
                let total = u128::from(self.state.chips_in_play()) + u128::from(*stack);
                if total > u128::from(MAX_CHIPS) {
                    return Err(Rejection::TooManyChips {
                        stack: *stack,
                        total,
                        max: MAX_CHIPS,
                    });
                }
                self.emit(TableEvent::PlayerSeated {
                    seat: *seat,
                    player: *player,
                    stack: *stack,
                });
            }
            Command::RemovePlayer { seat } => {
                self.check_seat(*seat)?;
                let occupant = *self
                    .state
                    .seat(*seat)
                    .ok_or(Rejection::SeatEmpty { seat: *seat })?;
                if self
                    .state
                    .hand
                    .as_ref()
                    .is_some_and(|h| h.player(*seat).is_some())
                {
                    return Err(Rejection::PlayerInHand { seat: *seat });
                }
                self.emit(TableEvent::PlayerRemoved {
                    seat: *seat,
                    player: occupant.player,
                    stack: occupant.stack,
                });
            }
            Command::SetAbsent { seat, absent } => {
                self.check_seat(*seat)?;
                self.state
                    .seat(*seat)
                    .ok_or(Rejection::SeatEmpty { seat: *seat })?;
                self.emit(TableEvent::AbsenceChanged {
                    seat: *seat,
                    absent: *absent,
                });
            }
            Command::StartHand {
                level,
                deal,
                button,
            } => self.start_hand(level, deal, *button)?,
            Command::EnterHoleCards { seat, cards } => {
                let h = self.hand()?;
                if h.deal != Deal::Physical {
                    return Err(Rejection::NotPhysicalDeal);
                }
                let p = h.player(*seat).ok_or(Rejection::NotLive { seat: *seat })?;
                if p.hole == Some(*cards) {
                    return Ok(());
                }
                if p.hole.is_some() {
                    return Err(Rejection::CardsDiffer { seat: *seat });
                }
                check_new_cards(h, cards)?;
                self.emit(TableEvent::HoleCardsEntered {
                    seat: *seat,
                    cards: *cards,
                });
            }
            Command::DealBoard { cards } => {
                let h = self.hand()?;
                if h.deal != Deal::Physical {
                    return Err(Rejection::NotPhysicalDeal);
                }
                let Some(street) = h.street.next().filter(|_| h.phase == Phase::AwaitingBoard)
                else {
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
                    cards: cards.clone(),
                    burn: None,
                });
            }
            Command::Act { seat, action } => {
                let event = self.act(*seat, action)?;
                self.emit(event);
            }
            Command::ActOutOfTurn { seat, action } => {
                self.check_seat(*seat)?;
                let h = self.hand()?;
                if h.to_act.is_none() {
                    return Err(Rejection::NoActionPending { street: h.street });
                }
                if h.to_act == Some(*seat) {
                    return Err(Rejection::NotOutOfTurn { seat: *seat });
                }
                let p = h.player(*seat).ok_or(Rejection::NotLive { seat: *seat })?;
                if p.folded || p.all_in {
                    return Err(Rejection::CannotAct { seat: *seat });
                }
                if h.out_of_turn.iter().any(|o| o.0 == *seat) {
                    return Err(Rejection::AlreadyActedOutOfTurn { seat: *seat });
                }
                // Valid for what the seat faces now.
                self.act_as(*seat, action)?;
                let facing = h.current_bet;
                self.emit(TableEvent::OutOfTurnAction {
                    seat: *seat,
                    action: *action,
                    facing,
                });
            }
            Command::PushChips {
                seat,
                chips,
                declaration,
                in_front,
            } => {
                let push = Push {
                    seat: *seat,
                    chips,
                    declaration: *declaration,
                    in_front: in_front.as_deref(),
                };
                let reading = self.read_chips(&push)?;
                let event = self.act(*seat, &reading.action)?;
                self.emit(TableEvent::ChipsRead {
                    seat: *seat,
                    chips: chips.clone(),
                    declaration: *declaration,
                    in_front: in_front.clone(),
                    read_as: reading.action,
                    rule: reading.rule.into(),
                });
                self.emit(event);
            }
            Command::CallClock { seat } => {
                self.turn_of(*seat)?;
                self.emit(TableEvent::ClockCalled { seat: *seat });
            }
            Command::TimeOut { seat } => {
                let to_call = self.turn_of(*seat)?;
                let action = if to_call > 0 {
                    PlayerAction::Fold
                } else {
                    PlayerAction::Check
                };
                let event = self.act(*seat, &action)?;
                self.emit(TableEvent::TimedOut { seat: *seat });
                self.emit(event);
            }
            Command::Misdeal { reason, deal } => self.misdeal(reason, deal)?,
            Command::Rule { ruling, reason } => self.rule(ruling, reason)?,
            Command::Penalize { seat, orbits } => {
                self.check_seat(*seat)?;
                let offender = self
                    .state
                    .seat(*seat)
                    .ok_or(Rejection::SeatEmpty { seat: *seat })?
                    .player;
                if *orbits == 0 {
                    return Err(Rejection::InvalidPenalty);
                }
                // One hand per player at the table, the offender included,
                // times the orbits (TDA 71).
                let players = self.state.seats.iter().flatten().count() as u32;
                self.emit(TableEvent::PenaltyGiven {
                    seat: *seat,
                    player: offender,
                    hands: players * u32::from(*orbits),
                });
            }
            Command::Show { seat, cards } => {
                let h = self.hand()?;
                let p = h
                    .player(*seat)
                    .filter(|p| !p.folded)
                    .ok_or(Rejection::NotLive { seat: *seat })?;
                if !h.betting_over() {
                    return Err(Rejection::BettingNotOver);
                }
                let cards = match (p.hole, cards) {
                    (Some(dealt), Some(shown)) if !same_cards(&dealt, shown) => {
                        return Err(Rejection::CardsDiffer { seat: *seat });
                    }
                    (Some(dealt), _) => dealt,
                    (None, Some(shown)) => {
                        check_new_cards(h, shown)?;
                        *shown
                    }
                    (None, None) => return Err(Rejection::CardsUnknown { seat: *seat }),
                };
                if !p.shown {
                    self.emit(TableEvent::CardsShown { seat: *seat, cards });
                }
            }
            Command::Muck { seat } => {
                let h = self.hand()?;
                h.player(*seat)
                    .filter(|p| !p.folded)
                    .ok_or(Rejection::NotLive { seat: *seat })?;
                if !h.betting_over() {
                    return Err(Rejection::BettingNotOver);
                }
                self.emit(TableEvent::CardsMucked { seat: *seat });
            }
        }
        Ok(())
    }

    fn start_hand(
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
                let b = button.unwrap_or(seats[0]);
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
    fn deal_hand(&mut self, started: TableEvent, dead: &[Seat]) {
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
        for (seat, reason) in kills {
            self.emit(TableEvent::HandKilled {
                seat,
                reason: reason.into(),
            });
        }
    }

    fn read_chips(&self, push: &Push<'_>) -> Result<crate::chips::Reading, Rejection> {
        let h = self.hand()?;
        let Some(to_act) = h.to_act else {
            return Err(Rejection::NoActionPending { street: h.street });
        };
        if push.seat != to_act {
            self.check_seat(push.seat)?;
            return Err(Rejection::OutOfTurn {
                seat: push.seat,
                to_act,
            });
        }
        let p = h
            .player(push.seat)
            .ok_or(Rejection::NotLive { seat: push.seat })?;
        let stack = self.state.seat(push.seat).map_or(0, |s| s.stack);
        read_push(h, p, stack, push)
    }

    /// A misdeal (TDA 35): all chips back, and an exact copy dealt again —
    /// the same button, blinds, level and players, only the cards new.
    fn misdeal(&mut self, reason: &str, deal: &Deal) -> Result<(), Rejection> {
        let h = self.hand()?;
        if h.substantial_action() || h.street != Street::Preflop {
            return Err(Rejection::MisdealTooLate);
        }
        if matches!(deal, Deal::Digital { .. }) && *deal == h.deal {
            return Err(Rejection::SameSeed);
        }
        let dead: Vec<Seat> = (1..=self.state.size)
            .filter(|&s| h.player(s).is_some_and(|p| p.dead))
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

    fn rule(&mut self, ruling: &Ruling, reason: &str) -> Result<(), Rejection> {
        let h = self.hand()?;
        let ruled = TableEvent::FloorRuled {
            ruling: *ruling,
            reason: reason.into(),
        };
        match *ruling {
            Ruling::KillHand { seat } => {
                h.player(seat)
                    .filter(|p| !p.folded)
                    .ok_or(Rejection::NotLive { seat })?;
                self.emit(ruled);
                self.emit(TableEvent::HandKilled {
                    seat,
                    reason: format!("killed by the floor: {reason} (TDA 1)"),
                });
            }
            Ruling::AwardPot { seat } => {
                h.player(seat).ok_or(Rejection::NotInHand { seat })?;
                let amount = h.pot();
                self.emit(ruled);
                self.emit(TableEvent::PotAwarded {
                    pot: 0,
                    amount,
                    eligible: vec![seat],
                    shares: vec![Share {
                        seat,
                        amount,
                        rank: None,
                    }],
                });
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

    /// Checks that it is `seat`'s turn; what it has to call.
    fn turn_of(&self, seat: Seat) -> Result<Chips, Rejection> {
        let h = self.hand()?;
        let Some(to_act) = h.to_act else {
            return Err(Rejection::NoActionPending { street: h.street });
        };
        if seat != to_act {
            self.check_seat(seat)?;
            return Err(Rejection::NotTheirTurn { seat, to_act });
        }
        let street = h.player(seat).map_or(0, |p| p.street);
        Ok(h.current_bet.saturating_sub(street))
    }

    fn act(&self, seat: Seat, action: &PlayerAction) -> Result<TableEvent, Rejection> {
        let h = self.hand()?;
        let Some(to_act) = h.to_act else {
            return Err(Rejection::NoActionPending { street: h.street });
        };
        if seat != to_act {
            self.check_seat(seat)?;
            return Err(Rejection::OutOfTurn { seat, to_act });
        }
        self.act_as(seat, action)
    }

    /// An action by `seat` as if it were its turn.
    fn act_as(&self, seat: Seat, action: &PlayerAction) -> Result<TableEvent, Rejection> {
        let h = self.hand()?;
        let p = h
            .player(seat)
            .filter(|p| !p.folded)
            .ok_or(Rejection::NotLive { seat })?;
        let stack = self.state.seat(seat).map_or(0, |s| s.stack);
        let to_call = h.current_bet.saturating_sub(p.street);
        let max_to = p.street + stack;
        let reopened = h.reopened_for(p);
        let call = |amount: Chips| {
            let amount = amount.min(stack);
            TableEvent::ActionTaken {
                seat,
                action: ActionTaken::Call { amount },
                all_in: amount == stack,
            }
        };
        let action = match *action {
            PlayerAction::AllIn if stack <= to_call => PlayerAction::Call,
            PlayerAction::AllIn if h.current_bet == 0 => PlayerAction::Bet { to: max_to },
            PlayerAction::AllIn => PlayerAction::Raise { to: max_to },
            other => other,
        };
        Ok(match action {
            PlayerAction::Fold => TableEvent::ActionTaken {
                seat,
                action: ActionTaken::Fold,
                all_in: false,
            },
            PlayerAction::Check => {
                if to_call > 0 {
                    return Err(Rejection::CannotCheck { seat, to_call });
                }
                TableEvent::ActionTaken {
                    seat,
                    action: ActionTaken::Check,
                    all_in: false,
                }
            }
            PlayerAction::Call => {
                if to_call == 0 {
                    return Err(Rejection::NothingToCall { seat });
                }
                call(to_call)
            }
            PlayerAction::Bet { to } => {
                if h.current_bet > 0 {
                    return Err(Rejection::BetFacingBet {
                        current: h.current_bet,
                    });
                }
                if to > max_to {
                    return Err(Rejection::ExceedsStack {
                        seat,
                        to,
                        max: max_to,
                    });
                }
                let min = h.level.big_blind;
                if to < min && to < max_to {
                    return Err(Rejection::BetBelowMinimum { to, min });
                }
                TableEvent::ActionTaken {
                    seat,
                    action: ActionTaken::Bet {
                        to,
                        amount: to - p.street,
                    },
                    all_in: to == max_to,
                }
            }
            PlayerAction::Raise { to } => {
                if h.current_bet == 0 {
                    return Err(Rejection::RaiseWithoutBet);
                }
                if to > max_to {
                    return Err(Rejection::ExceedsStack {
                        seat,
                        to,
                        max: max_to,
                    });
                }
                if to <= h.current_bet {
                    if to == max_to {
                        // All in for no more than the bet: a call.
                        return Ok(call(to_call));
                    }
                    return Err(Rejection::RaiseNotAboveBet {
                        to,
                        current: h.current_bet,
                    });
                }
                if !reopened {
                    return Err(Rejection::BettingNotReopened { seat });
                }
                let min = h.current_bet + h.min_raise;
                if to < min && to < max_to {
                    return Err(Rejection::RaiseBelowMinimum { to, min });
                }
                TableEvent::ActionTaken {
                    seat,
                    action: ActionTaken::Raise {
                        to,
                        amount: to - p.street,
                    },
                    all_in: to == max_to,
                }
            }
            // Rewritten above to a call, bet or raise; kept total without a panic.
            PlayerAction::AllIn => return self.act_as(seat, &PlayerAction::Raise { to: max_to }),
        })
    }

    /// What follows by itself once a command's events are in: the next
    /// street in a digital deal, hands tabled, pots awarded, the hand ended.
    fn follow_up(&mut self) {
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
                        self.show_all();
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
    fn resolve_out_of_turn(&mut self) -> bool {
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
    fn show_all(&mut self) {
        let Some(h) = self.state.hand.as_ref() else {
            return;
        };
        let first = match h.aggressor {
            Some(a) => a,
            None => h.button % self.state.size.max(1) + 1,
        };
        let order: Vec<(Seat, [Card; 2])> = std::iter::once(first)
            .chain(self.state.seats_after(first))
            .take(self.state.size as usize)
            .filter_map(|s| {
                let p = h.player(s)?;
                (!p.folded && !p.shown).then_some((s, p.hole?))
            })
            .collect();
        for (seat, cards) in order {
            self.emit(TableEvent::CardsShown { seat, cards });
        }
    }

    /// Returns the uncalled bet, awards the pots from the last side pot to
    /// the main pot (TDA 21), and ends the hand.
    fn award(&mut self) {
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
        let (mut bets, antes) = h.contributions();
        // The uncalled part of the biggest bet goes back.
        let mut sorted: Vec<Chips> = bets.iter().map(|c| c.1).collect();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let (top, second) = (
            sorted.first().copied().unwrap_or(0),
            sorted.get(1).copied().unwrap_or(0),
        );
        if top > second
            && let Some(c) = bets.iter_mut().find(|c| c.1 == top && c.2)
        {
            let seat = c.0;
            c.1 = second;
            self.emit(TableEvent::UncalledBetReturned {
                seat,
                amount: top - second,
            });
        }
        let pots = build_pots(&bets, antes);
        let ranks: Vec<(Seat, Option<HandRank>)> = (1..=size)
            .filter_map(|s| h.player(s).map(|p| (s, rank_of(&h, p.hole))))
            .collect();
        let rank = |s: &Seat| ranks.iter().find(|r| r.0 == *s).and_then(|r| r.1);
        // Seats in order from the first left of the button: odd chips (TDA 20).
        let order: Vec<Seat> = self.state.seats_after(h.button).collect();
        let mut awards: Vec<Award> = pots
            .into_iter()
            .enumerate()
            .map(|(pot, (amount, eligible))| {
                let best = eligible.iter().filter_map(rank).max();
                let mut winners: Vec<Seat> = if eligible.len() > 1 && best.is_some() {
                    eligible
                        .iter()
                        .copied()
                        .filter(|s| rank(s) == best)
                        .collect()
                } else {
                    eligible.clone()
                };
                winners.sort_by_key(|w| order.iter().position(|s| s == w));
                Award {
                    pot,
                    amount,
                    contested: eligible.len() > 1,
                    eligible,
                    winners,
                }
            })
            .collect();
        let odd_chips = self.state.rules.odd_chips;
        if odd_chips == OddChips::AllToTheFirstWinner {
            awards = merge_alike(awards);
        }
        let chip = h.level.smallest_chip.max(1);
        for award in awards.into_iter().rev() {
            let n = award.winners.len() as Chips;
            let each = award.amount / (n * chip) * chip;
            let mut rest = award.amount - each * n;
            let shares = award
                .winners
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
                        rank: if award.contested { rank(&seat) } else { None },
                    }
                })
                .collect();
            self.emit(TableEvent::PotAwarded {
                pot: award.pot,
                amount: award.amount,
                eligible: award.eligible,
                shares,
            });
        }
        self.end_hand();
    }

    /// Ends the hand once every chip is awarded: stacks and busts.
    fn end_hand(&mut self) {
        let Some(h) = self.state.hand.as_ref() else {
            return;
        };
        let number = h.number;
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
                })
            })
            .collect();
        self.emit(TableEvent::HandEnded {
            number,
            stacks,
            busted,
        });
    }
}

/// A pot with its winners, before the chips are split.
struct Award {
    pot: usize,
    amount: Chips,
    eligible: Vec<Seat>,
    contested: bool,
    winners: Vec<Seat>,
}

/// PokerKit's way: pots whose contenders (eligible players who win some
/// pot) are the same are awarded as one, so their odd chips are counted
/// together. Each merged pot keeps the number of its first pot.
fn merge_alike(awards: Vec<Award>) -> Vec<Award> {
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

fn rank_of(h: &HandState, hole: Option<[Card; 2]>) -> Option<HandRank> {
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

fn commitment_of(deal: &Deal) -> Option<felt_cards::Commitment> {
    match deal {
        Deal::Digital { seed } => Some(seed.commitment()),
        Deal::Physical => None,
    }
}

fn same_cards(a: &[Card; 2], b: &[Card; 2]) -> bool {
    (a[0] == b[0] && a[1] == b[1]) || (a[0] == b[1] && a[1] == b[0])
}

/// New cards must be distinct and not already on the board or in a known hand.
fn check_new_cards(h: &HandState, cards: &[Card]) -> Result<(), Rejection> {
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

fn validate_level(level: &Level) -> Result<(), Rejection> {
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
