//! `decide`: what a command means at this table, as events, or why not.

use felt_cards::{Card, Hand, HandRank};

use crate::chips::{Push, read_push};
use crate::model::*;
use crate::rejection::Rejection;
use crate::state::{HandState, Phase, TableState, apply};

mod action;
mod corrections;
mod deal;
mod results;
mod showdown;
pub(crate) use showdown::build_pots;

pub use showdown::eliminators;

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
        // A table never opened has no state of play to refuse by.
        if self.state.size == 0 && !matches!(command, Command::OpenTable { .. }) {
            return Err(Rejection::TableNotOpen);
        }
        match command {
            Command::OpenTable { seats, rules } => self.open_table(*seats, *rules),
            Command::SeatPlayer {
                seat,
                player,
                stack,
                carried,
            } => self.seat_player(*seat, *player, *stack, *carried),
            Command::RemovePlayer { seat } => self.remove_player(*seat),
            Command::SetAbsent { seat, absent } => self.set_absent(*seat, *absent),
            Command::DrawButton { seed } => self.draw_button(seed),
            Command::StartHand {
                level,
                deal,
                button,
            } => self.start_hand(level, deal, *button),
            Command::EnterHoleCards { seat, cards } => self.enter_hole_cards(*seat, cards),
            Command::DealBoard { cards } => self.deal_board(cards),
            Command::Act { seat, action } => self.act_in_turn(*seat, action),
            Command::ActOutOfTurn { seat, action } => self.act_out_of_turn(*seat, action),
            Command::PushChips {
                seat,
                chips,
                declaration,
                in_front,
            } => self.push_chips(*seat, chips, *declaration, in_front),
            Command::Disqualify {
                seat,
                player,
                reason,
            } => self.disqualify(*seat, *player, reason),
            Command::Surrender { seat, player } => self.surrender(*seat, *player, false),
            Command::RemoveNoShow { seat, player } => self.surrender(*seat, *player, true),
            Command::CallClock { seat } => self.call_clock(*seat),
            Command::TimeOut { seat } => self.time_out(*seat),
            Command::Misdeal { reason, deal } => self.misdeal(reason, deal),
            Command::Rule { ruling, reason } => self.rule(ruling, reason),
            Command::Penalize {
                seat,
                player,
                penalty,
                reason,
            } => self.penalize(*seat, *player, *penalty, reason),
            Command::Show { seat, cards } => self.show(*seat, cards.as_ref()),
            Command::Muck { seat } => self.muck(*seat),
            Command::PushPot { pot, winners } => self.push_pot(*pot, winners),
            Command::AddEntropy { entropy } => self.add_entropy(entropy),
            Command::AskToSee { seat, of, cards } => self.ask_to_see(*seat, *of, cards.as_ref()),
            Command::SetRecording { recording, reason } => self.set_recording(*recording, reason),
            Command::RecordResult {
                button,
                busted,
                by,
                occurred_at,
            } => self.record_result(*button, busted, by, *occurred_at),
            Command::CountStacks { count, stacks } => self.count_stacks(count, stacks),
            Command::CorrectStack {
                seat,
                player,
                stack,
                concerns,
                reason,
            } => self.correct_stack(*seat, *player, *stack, concerns, reason),
            Command::RemoveChips {
                seat,
                player,
                amount,
                removal,
                reason,
            } => self.remove_chips(*seat, *player, *amount, *removal, reason),
            Command::ColourUp {
                leaving,
                smallest,
                race,
            } => self.colour_up(*leaving, *smallest, race),
            Command::AddOn {
                seat,
                player,
                chips,
            } => self.add_on(*seat, *player, *chips, None),
            Command::Rebuy {
                seat,
                player,
                chips,
                number,
            } => self.add_on(*seat, *player, *chips, Some(*number)),
        }
    }

    fn open_table(&mut self, seats: u8, rules: HouseRules) -> Result<(), Rejection> {
        if self.state.size != 0 {
            return Err(Rejection::TableAlreadyOpen);
        }
        if !(2..=MAX_SEATS as u8).contains(&seats) {
            return Err(Rejection::InvalidTableSize { seats });
        }
        self.emit(TableEvent::TableOpened { seats, rules });
        Ok(())
    }

    fn seat_player(
        &mut self,
        seat: Seat,
        player: EntryId,
        stack: Chips,
        carried: Carried,
    ) -> Result<(), Rejection> {
        self.check_seat(seat)?;
        if self.state.seat(seat).is_some() {
            return Err(Rejection::SeatOccupied { seat });
        }
        if let Some(at) =
            (1..=self.state.size).find(|&s| self.state.seat(s).is_some_and(|p| p.player == player))
        {
            return Err(Rejection::AlreadySeated { player, seat: at });
        }
        if stack == 0 {
            return Err(Rejection::EmptyStack);
        }
        let total = u128::from(self.state.chips_in_play()) + u128::from(stack);
        if total > u128::from(MAX_CHIPS) {
            return Err(Rejection::TooManyChips {
                stack,
                total,
                max: MAX_CHIPS,
            });
        }
        self.emit(TableEvent::PlayerSeated {
            seat,
            player,
            stack,
            carried,
        });
        Ok(())
    }

    fn remove_player(&mut self, seat: Seat) -> Result<(), Rejection> {
        self.check_seat(seat)?;
        let occupant = *self.state.seat(seat).ok_or(Rejection::SeatEmpty { seat })?;
        if self
            .state
            .hand
            .as_ref()
            .is_some_and(|h| h.player(seat).is_some())
        {
            return Err(Rejection::PlayerInHand { seat });
        }
        self.emit(TableEvent::PlayerRemoved {
            seat,
            player: occupant.player,
            stack: occupant.stack,
            carried: Carried {
                penalty_hands: occupant.penalty_hands,
                absent: occupant.absent,
                offences: occupant.offences,
            },
        });
        Ok(())
    }

    fn disqualify(&mut self, seat: Seat, player: EntryId, reason: &str) -> Result<(), Rejection> {
        self.holds(seat, player)?;
        corrections::bounded(reason, "a disqualification's reason")?;
        if let Some(h) = &self.state.hand
            && h.player(seat).is_some()
        {
            return Err(Rejection::DisqualifiedInHand {
                seat,
                number: h.number,
            });
        }
        let stack = self.state.seat(seat).map_or(0, |p| p.stack);
        self.emit(TableEvent::PlayerDisqualified {
            seat,
            player,
            stack,
            reason: reason.to_owned(),
        });
        Ok(())
    }

    /// A player leaves the table and the chips of their seat leave play:
    /// they gave them up for a new entry, or never arrived (`no_show`).
    fn surrender(&mut self, seat: Seat, player: EntryId, no_show: bool) -> Result<(), Rejection> {
        self.holds(seat, player)?;
        if let Some(h) = &self.state.hand
            && h.player(seat).is_some()
        {
            return Err(if no_show {
                Rejection::NoShowInHand {
                    seat,
                    number: h.number,
                }
            } else {
                Rejection::SurrenderInHand {
                    seat,
                    number: h.number,
                }
            });
        }
        let stack = self.state.seat(seat).map_or(0, |p| p.stack);
        self.emit(if no_show {
            TableEvent::NoShowRemoved {
                seat,
                player,
                stack,
            }
        } else {
            TableEvent::StackSurrendered {
                seat,
                player,
                stack,
            }
        });
        Ok(())
    }

    fn set_absent(&mut self, seat: Seat, absent: bool) -> Result<(), Rejection> {
        self.check_seat(seat)?;
        self.state.seat(seat).ok_or(Rejection::SeatEmpty { seat })?;
        self.emit(TableEvent::AbsenceChanged { seat, absent });
        Ok(())
    }

    fn penalize(
        &mut self,
        seat: Seat,
        player: Option<EntryId>,
        penalty: Penalty,
        reason: &str,
    ) -> Result<(), Rejection> {
        self.check_seat(seat)?;
        let sitting = self.state.seat(seat).ok_or(Rejection::SeatEmpty { seat })?;
        let player = player.unwrap_or(sitting.player);
        self.holds(seat, player)?;
        if !reason.is_empty() {
            corrections::bounded(reason, "a penalty's reason")?;
        }
        let offence = self
            .state
            .seat(seat)
            .map_or(0, |p| p.offences)
            .saturating_add(1);
        let penalty = match penalty {
            // Repeated offences escalate by the house's scale (TDA 71).
            Penalty::Next => self
                .state
                .rules
                .penalty_scale
                .step(offence)
                .ok_or(Rejection::ScaleEndsInDisqualification { offence })?,
            given => given,
        };
        let reason = reason.to_owned();
        let hands = match penalty {
            Penalty::Warning => {
                self.emit(TableEvent::WarningGiven {
                    seat,
                    player,
                    offence,
                    reason,
                });
                return Ok(());
            }
            Penalty::Hands(hands) => hands,
            // One hand per player at the table when the offence occurred,
            // the offender included, times the orbits (TDA 71).
            Penalty::Orbits(orbits) => {
                let players = self.state.seats.iter().flatten().count() as u32;
                players * u32::from(orbits)
            }
            Penalty::Next => 0,
        };
        if hands == 0 {
            return Err(Rejection::InvalidPenalty);
        }
        self.emit(TableEvent::PenaltyGiven {
            seat,
            player,
            hands,
            offence,
            reason,
        });
        Ok(())
    }
}
