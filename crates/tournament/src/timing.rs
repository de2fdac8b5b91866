//! Whose time is running at a table, and since when: the turn of the
//! player to act and a called clock, read from the table's events and the
//! times the log recorded them. The action clock (seed 002) and a called
//! clock (TDA 29) are judged from these and the time handed in.

use felt_clock::{ActionClock, Millis, Verdict};
use felt_table::{Chips, Seat, TableEvent, TableState};

/// The player to act and their time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    pub seat: Seat,
    /// When the action reached them.
    pub since: Millis,
    /// When the floor called the clock on them, if it did.
    pub called: Option<Millis>,
    /// What they face: a timeout folds a hand facing a bet, else checks.
    pub to_call: Chips,
}

/// The turn at the end of a table's events (each with its recorded time),
/// if a player is to act.
pub fn turn<'a>(events: impl IntoIterator<Item = (&'a TableEvent, Millis)>) -> Option<Turn> {
    let mut state = TableState::default();
    let mut turn: Option<Turn> = None;
    for (event, at) in events {
        state.apply(event);
        let Some(o) = state.options() else {
            turn = None;
            continue;
        };
        // A new turn: the action moved to another seat, or came back to the
        // same one after an action or a new street.
        let renewed = matches!(
            event,
            TableEvent::HandStarted { .. }
                | TableEvent::ActionTaken { .. }
                | TableEvent::StreetDealt { .. }
        );
        match &mut turn {
            Some(t) if t.seat == o.seat && !renewed => {
                t.to_call = o.to_call;
                if matches!(event, TableEvent::ClockCalled { seat } if *seat == o.seat) {
                    t.called = Some(at);
                }
            }
            _ => {
                turn = Some(Turn {
                    seat: o.seat,
                    since: at,
                    called: None,
                    to_call: o.to_call,
                });
            }
        }
    }
    turn
}

/// Whether the player's time is up at `now`, holding `cards` time-bank
/// cards: a called clock runs its own time (TDA 29); otherwise the action
/// clock, if the tournament uses one. `None`: no clock runs on the player.
pub fn judge(settings: &ActionClock, cards: u32, turn: &Turn, now: Millis) -> Option<Verdict> {
    let facing_bet = turn.to_call > 0;
    match turn.called {
        Some(at) => Some(settings.called(at, now, facing_bet)),
        None if settings.enabled => Some(settings.decision(turn.since, now, cards, facing_bet)),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use felt_table::{Command, Deal, EntryId, HouseRules, Level, PlayerAction};

    /// A table's events, each command recorded at its time.
    struct Log {
        state: TableState,
        events: Vec<(TableEvent, Millis)>,
    }

    impl Log {
        fn run(&mut self, at: Millis, command: Command) {
            let events = felt_table::execute(&mut self.state, &command).expect("legal");
            self.events.extend(events.into_iter().map(|e| (e, at)));
        }
        fn turn(&self) -> Option<Turn> {
            turn(self.events.iter().map(|(e, at)| (e, *at)))
        }
    }

    /// Three players, a physical deal started at time 0: seat 1 to act.
    fn started() -> Log {
        let mut log = Log {
            state: TableState::default(),
            events: Vec::new(),
        };
        log.run(
            0,
            Command::OpenTable {
                seats: 3,
                rules: HouseRules::default(),
            },
        );
        for seat in 1..=3 {
            log.run(
                0,
                Command::SeatPlayer {
                    seat,
                    player: EntryId(u64::from(seat)),
                    stack: 1_000,
                    carried: Default::default(),
                },
            );
        }
        log.run(
            0,
            Command::StartHand {
                level: Level::blinds(50, 100),
                deal: Deal::Physical,
                button: Some(1),
            },
        );
        log
    }

    fn act(seat: Seat, action: PlayerAction) -> Command {
        Command::Act { seat, action }
    }

    #[test]
    fn the_turn_runs_from_when_the_action_reached_the_player() {
        let mut log = started();
        let first = log.turn().unwrap();
        assert_eq!((first.seat, first.since, first.to_call), (1, 0, 100));
        log.run(7_000, act(1, PlayerAction::Call));
        let t = log.turn().unwrap();
        assert_eq!((t.seat, t.since, t.called), (2, 7_000, None));
        // Calling the clock keeps the turn and records when.
        log.run(9_000, Command::CallClock { seat: 2 });
        let t = log.turn().unwrap();
        assert_eq!((t.seat, t.since, t.called), (2, 7_000, Some(9_000)));
        log.run(10_000, act(2, PlayerAction::Call));
        // The big blind, with nothing to call: a check on expiry.
        let t = log.turn().unwrap();
        assert_eq!((t.seat, t.since, t.to_call, t.called), (3, 10_000, 0, None));
        log.run(11_000, act(3, PlayerAction::Check));
        assert_eq!(log.turn(), None, "the flop is due");
    }

    #[test]
    fn a_called_clock_runs_without_an_action_clock_and_nothing_runs_otherwise() {
        let settings = ActionClock::default();
        assert!(!settings.enabled);
        let mut log = started();
        let t = log.turn().unwrap();
        assert_eq!(judge(&settings, 3, &t, 600_000), None);
        log.run(1_000, Command::CallClock { seat: 1 });
        let t = log.turn().unwrap();
        // 25 s and a 5 s countdown from the call (TDA 29); facing the big
        // blind, the hand is dead.
        assert_eq!(
            judge(&settings, 3, &t, 30_999),
            Some(Verdict::Thinking {
                deadline: 31_000,
                cards: 0
            })
        );
        assert_eq!(
            judge(&settings, 3, &t, 31_000),
            Some(Verdict::Expired {
                cards: 0,
                default: felt_clock::TimeoutAction::Fold
            })
        );
        // With the action clock on: 5 s grace, 30 s, then a card of 60 s.
        let on = ActionClock {
            enabled: true,
            ..settings
        };
        let fresh = started().turn().unwrap();
        assert_eq!(
            judge(&on, 1, &fresh, 35_000),
            Some(Verdict::Thinking {
                deadline: 95_000,
                cards: 1
            })
        );
        assert!(matches!(
            judge(&on, 1, &fresh, 95_000),
            Some(Verdict::Expired { cards: 1, .. })
        ));
    }
}
