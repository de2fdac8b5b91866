//! Players' actions: in turn, out of turn (TDA 53), chips pushed and read
//! (TDA 40–46, 51, 55), the clock called and a time-out.

#[allow(clippy::wildcard_imports)]
use super::*;

impl Decider<'_> {
    pub(super) fn act_in_turn(
        &mut self,
        seat: Seat,
        action: &PlayerAction,
    ) -> Result<(), Rejection> {
        let event = self.act(seat, action)?;
        self.emit(event);
        Ok(())
    }

    pub(super) fn act_out_of_turn(
        &mut self,
        seat: Seat,
        action: &PlayerAction,
    ) -> Result<(), Rejection> {
        self.check_seat(seat)?;
        let h = self.hand()?;
        if h.to_act.is_none() {
            return Err(Rejection::NoActionPending { street: h.street });
        }
        if h.to_act == Some(seat) {
            return Err(Rejection::NotOutOfTurn { seat });
        }
        let p = h.player(seat).ok_or(Rejection::NotLive { seat })?;
        if p.folded || p.all_in {
            return Err(Rejection::CannotAct { seat });
        }
        if h.out_of_turn.iter().any(|o| o.0 == seat) {
            return Err(Rejection::AlreadyActedOutOfTurn { seat });
        }
        // "Call" with nothing to call binds as a check (TDA 53, 55).
        let action = &match *action {
            PlayerAction::Call if h.to_call(seat) == 0 => PlayerAction::Check,
            other => other,
        };
        // Valid for what the seat faces now.
        self.act_as(seat, action)?;
        let facing = h.current_bet;
        self.emit(TableEvent::OutOfTurnAction {
            seat,
            action: *action,
            facing,
        });
        Ok(())
    }

    pub(super) fn push_chips(
        &mut self,
        seat: Seat,
        chips: &[Chips],
        declaration: Option<Declaration>,
        in_front: &Option<Vec<Chips>>,
    ) -> Result<(), Rejection> {
        let push = Push {
            seat,
            chips,
            declaration,
            in_front: in_front.as_deref(),
        };
        let reading = self.read_chips(&push)?;
        let action = match reading.action {
            crate::chips::Read::Action(action) => action,
            crate::chips::Read::Bound(bound) => {
                self.emit(TableEvent::ActionBound {
                    seat,
                    bound,
                    rule: reading.rule.into(),
                });
                return Ok(());
            }
        };
        let event = self.act(seat, &action)?;
        self.emit(TableEvent::ChipsRead {
            seat,
            chips: chips.to_vec(),
            declaration,
            in_front: in_front.clone(),
            read_as: action,
            rule: reading.rule.into(),
        });
        self.emit(event);
        Ok(())
    }

    pub(super) fn call_clock(&mut self, seat: Seat) -> Result<(), Rejection> {
        self.turn_of(seat)?;
        self.emit(TableEvent::ClockCalled { seat });
        Ok(())
    }

    pub(super) fn time_out(&mut self, seat: Seat) -> Result<(), Rejection> {
        let to_call = self.turn_of(seat)?;
        let bound = self.hand()?.player(seat).and_then(|p| p.bound);
        let action = match (to_call > 0, bound) {
            // Bound not to fold (TDA 46): out of time, the call stands.
            (true, Some(Bound::CallOrRaise)) => PlayerAction::Call,
            (true, _) => PlayerAction::Fold,
            (false, _) => PlayerAction::Check,
        };
        let event = self.act(seat, &action)?;
        self.emit(TableEvent::TimedOut { seat });
        self.emit(event);
        Ok(())
    }

    pub(super) fn read_chips(&self, push: &Push<'_>) -> Result<crate::chips::Reading, Rejection> {
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

    /// Checks that it is `seat`'s turn; what it has to call.
    pub(super) fn turn_of(&self, seat: Seat) -> Result<Chips, Rejection> {
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

    pub(super) fn act(&self, seat: Seat, action: &PlayerAction) -> Result<TableEvent, Rejection> {
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

    /// An action by `seat` as if it were its turn, within what its words
    /// or gestures bound it to (TDA 46, 55).
    pub(super) fn act_as(
        &self,
        seat: Seat,
        action: &PlayerAction,
    ) -> Result<TableEvent, Rejection> {
        let event = self.act_unbound(seat, action)?;
        let bound = self.hand()?.player(seat).and_then(|p| p.bound);
        if let TableEvent::ActionTaken { action: taken, .. } = &event {
            match (bound, taken) {
                (Some(Bound::CallOrFold), ActionTaken::Bet { .. } | ActionTaken::Raise { .. }) => {
                    return Err(Rejection::BoundToCallOrFold { seat });
                }
                (Some(Bound::CallOrRaise), ActionTaken::Fold) => {
                    return Err(Rejection::BoundToCallOrRaise { seat });
                }
                _ => {}
            }
        }
        Ok(event)
    }

    fn act_unbound(&self, seat: Seat, action: &PlayerAction) -> Result<TableEvent, Rejection> {
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
            PlayerAction::AllIn => {
                return self.act_unbound(seat, &PlayerAction::Raise { to: max_to });
            }
        })
    }
}
