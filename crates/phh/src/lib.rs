//! PHH, the poker research community's hand-history format: parse a
//! no-limit hold'em hand, replay it through the same table decider the
//! service uses (there is no second replayer), and write hands back out.
//!
//! Conventions of the format: players are listed by position, p1 the small
//! blind and the last player the button (heads-up the button posts the small
//! blind); `cbr X` bets or raises to X, `cc` checks or calls, `f` folds,
//! `sm CARDS` shows and `sm` alone mucks; `d dh` deals hole cards (`????`
//! unknown) and `d db` the board.

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

mod export;

pub use export::export;

use felt_cards::Card;
use felt_table::{
    AnteFormat, Chips, Command, Deal, EntryId, HouseRules, Level, PlayerAction, Rejection, Seat,
    TableEvent, TableState, execute,
};
use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PhhError {
    #[error("not valid PHH: {0}")]
    Toml(String),
    #[error("variant {0} is not no-limit hold'em (NT)")]
    Variant(String),
    #[error("{0}")]
    Unsupported(String),
    #[error("action {index} \"{action}\": {reason}")]
    BadAction {
        index: usize,
        action: String,
        reason: String,
    },
    #[error("action {index} \"{action}\" refused: {rejection}")]
    Refused {
        index: usize,
        action: String,
        rejection: Rejection,
    },
    #[error("the hand did not finish: {0}")]
    Unfinished(String),
}

/// A number in a PHH file: chips are integers, but some files record half
/// chips of a split pot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Amount {
    Int(i64),
    Float(f64),
}

impl<'de> Deserialize<'de> for Amount {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Amount, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Amount;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number of chips")
            }
            fn visit_i64<E>(self, v: i64) -> Result<Amount, E> {
                Ok(Amount::Int(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Amount, E> {
                i64::try_from(v).map(Amount::Int).map_err(E::custom)
            }
            fn visit_f64<E>(self, v: f64) -> Result<Amount, E> {
                Ok(Amount::Float(v))
            }
        }
        d.deserialize_any(Visitor)
    }
}

impl Amount {
    pub fn as_f64(self) -> f64 {
        match self {
            Amount::Int(i) => i as f64,
            Amount::Float(f) => f,
        }
    }

    fn chips(self, what: &str) -> Result<Chips, PhhError> {
        match self {
            Amount::Int(i) if i >= 0 => Ok(i as Chips),
            Amount::Float(f) if f >= 0.0 && f.fract() == 0.0 => Ok(f as Chips),
            other => Err(PhhError::Unsupported(format!(
                "{what} must be whole chips, got {}",
                other.as_f64()
            ))),
        }
    }
}

/// The fields of a PHH file that replaying needs.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PhhHand {
    pub variant: String,
    #[serde(default)]
    pub antes: Vec<Amount>,
    pub blinds_or_straddles: Vec<Amount>,
    #[serde(default)]
    pub min_bet: Option<Amount>,
    pub starting_stacks: Vec<Amount>,
    pub actions: Vec<String>,
    #[serde(default)]
    pub finishing_stacks: Option<Vec<Amount>>,
}

impl PhhHand {
    pub fn parse(text: &str) -> Result<PhhHand, PhhError> {
        toml::from_str(text).map_err(|e| PhhError::Toml(e.to_string().trim().to_string()))
    }
}

/// A replayed hand: the table's events and the chips each player (by PHH
/// position, p1 first) ended with.
#[derive(Debug, Clone)]
pub struct Replay {
    pub events: Vec<TableEvent>,
    pub state: TableState,
    pub finishing_stacks: Vec<Chips>,
}

struct Runner {
    state: TableState,
    events: Vec<TableEvent>,
}

impl Runner {
    fn run(&mut self, index: usize, action: &str, command: &Command) -> Result<(), PhhError> {
        let events = execute(&mut self.state, command).map_err(|rejection| PhhError::Refused {
            index,
            action: action.to_string(),
            rejection,
        })?;
        self.events.extend(events);
        Ok(())
    }
}

/// The table level a PHH hand was played with.
pub fn level_of(hand: &PhhHand) -> Result<Level, PhhError> {
    let n = hand.starting_stacks.len();
    let blinds: Vec<Chips> = hand
        .blinds_or_straddles
        .iter()
        .map(|a| a.chips("blinds"))
        .collect::<Result<_, _>>()?;
    if blinds.iter().skip(2).any(|&b| b > 0) {
        return Err(PhhError::Unsupported("straddles are not supported".into()));
    }
    let (small_blind, big_blind) = (
        blinds.first().copied().unwrap_or(0),
        blinds.get(1).copied().unwrap_or(0),
    );
    let antes: Vec<Chips> = hand
        .antes
        .iter()
        .map(|a| a.chips("antes"))
        .collect::<Result<_, _>>()?;
    let nonzero: Vec<(usize, Chips)> = antes
        .iter()
        .copied()
        .enumerate()
        .filter(|a| a.1 > 0)
        .collect();
    // The big blind's ante is the second entry: p2's, or heads-up, where
    // the format (as PokerKit) applies antes and blinds reversed, p1's — the
    // big blind, since the button posts the small blind.
    let bb_position = 1;
    let (ante, ante_format) = match nonzero.as_slice() {
        [] => (0, AnteFormat::None),
        [(i, a)] if *i == bb_position && n > 1 => (*a, AnteFormat::BigBlind),
        all if all.len() == n && all.iter().all(|a| a.1 == all[0].1) => {
            (all[0].1, AnteFormat::PerPlayer)
        }
        _ => {
            return Err(PhhError::Unsupported(format!(
                "antes {antes:?} are neither uniform nor a big-blind ante"
            )));
        }
    };
    Ok(Level {
        small_blind,
        big_blind,
        ante,
        ante_format,
        smallest_chip: 1,
    })
}

/// Replays a PHH hand through the table decider.
pub fn replay(hand: &PhhHand, rules: HouseRules) -> Result<Replay, PhhError> {
    if hand.variant != "NT" {
        return Err(PhhError::Variant(hand.variant.clone()));
    }
    let n = hand.starting_stacks.len();
    if !(2..=10).contains(&n) {
        return Err(PhhError::Unsupported(format!(
            "{n} players: a table seats 2 to 10"
        )));
    }
    let level = level_of(hand)?;
    let mut r = Runner {
        state: TableState::default(),
        events: Vec::new(),
    };
    let setup = |i: usize| format!("setup {i}");
    r.run(
        0,
        &setup(0),
        &Command::OpenTable {
            seats: n as u8,
            rules,
        },
    )?;
    for (i, stack) in hand.starting_stacks.iter().enumerate() {
        let seat = i as Seat + 1;
        r.run(
            0,
            &setup(seat as usize),
            &Command::SeatPlayer {
                seat,
                player: EntryId(seat as u64),
                stack: stack.chips("starting stacks")?,
                carried: Default::default(),
            },
        )?;
    }
    r.run(
        0,
        "start",
        &Command::StartHand {
            level,
            deal: Deal::Physical,
            button: Some(n as Seat),
        },
    )?;
    for (index, line) in hand.actions.iter().enumerate() {
        let text = line.split('#').next().unwrap_or("").trim();
        let bad = |reason: &str| PhhError::BadAction {
            index,
            action: line.clone(),
            reason: reason.to_string(),
        };
        // At most four words ("d dh p1 AcKd"); a fifth makes it no action.
        let mut buf = [""; 5];
        let mut len = 0;
        for word in text.split_whitespace().take(5) {
            buf[len] = word;
            len += 1;
        }
        let words = &buf[..len];
        let seat_of = |w: &str| -> Result<Seat, PhhError> {
            w.strip_prefix('p')
                .and_then(|n| n.parse::<Seat>().ok())
                .filter(|&s| s >= 1 && usize::from(s) <= n)
                .ok_or_else(|| bad("expected a player p1..pN"))
        };
        let command = match words {
            ["d", "dh", player, cards] => {
                let seat = seat_of(player)?;
                if cards.contains('?') {
                    continue;
                }
                let cards = two_cards(cards).map_err(|e| bad(&e))?;
                Command::EnterHoleCards { seat, cards }
            }
            ["d", "db", cards] => Command::DealBoard {
                cards: Card::parse_many(cards).map_err(|e| bad(&e.to_string()))?,
            },
            [player, "f"] => Command::Act {
                seat: seat_of(player)?,
                action: PlayerAction::Fold,
            },
            [player, "cc"] => {
                let seat = seat_of(player)?;
                let to_call = r.state.hand().map_or(0, |h| h.to_call(seat));
                let nobody_to_act = r.state.hand().is_some_and(|h| h.to_act.is_none());
                if nobody_to_act && to_call == 0 {
                    // PokerKit asks the last player with chips to check
                    // when nobody is left to bet against; felt closes the
                    // betting instead. The check changes nothing.
                    continue;
                }
                Command::Act {
                    seat,
                    action: if to_call == 0 {
                        PlayerAction::Check
                    } else {
                        PlayerAction::Call
                    },
                }
            }
            [player, "cbr", amount] => {
                let seat = seat_of(player)?;
                let to: Chips = amount
                    .parse()
                    .map_err(|_| bad("amount must be whole chips"))?;
                let open = r.state.hand().is_some_and(|h| h.current_bet > 0);
                Command::Act {
                    seat,
                    action: if open {
                        PlayerAction::Raise { to }
                    } else {
                        PlayerAction::Bet { to }
                    },
                }
            }
            [player, "sm"] => Command::Muck {
                seat: seat_of(player)?,
            },
            [player, "sm", cards] if cards.contains('?') => Command::Muck {
                seat: seat_of(player)?,
            },
            [player, "sm", cards] => Command::Show {
                seat: seat_of(player)?,
                cards: Some(two_cards(cards).map_err(|e| bad(&e))?),
            },
            _ => return Err(bad("not a no-limit hold'em action")),
        };
        r.run(index, line, &command)?;
    }
    if let Some(h) = &r.state.hand() {
        return Err(PhhError::Unfinished(format!(
            "hand {} is still in the {:?} phase on the {}",
            h.number, h.phase, h.street
        )));
    }
    let finishing_stacks = (1..=n as Seat)
        .map(|s| r.state.seat(s).map_or(0, |p| p.stack))
        .collect();
    Ok(Replay {
        events: r.events,
        state: r.state,
        finishing_stacks,
    })
}

fn two_cards(text: &str) -> Result<[Card; 2], String> {
    match Card::parse_many(text)
        .map_err(|e| e.to_string())?
        .as_slice()
    {
        [a, b] => Ok([*a, *b]),
        other => Err(format!("expected two hole cards, got {}", other.len())),
    }
}

/// The outcome of checking one hand against its `finishing_stacks`.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Passed,
    /// The file has no finishing stacks to compare with.
    NoFinishingStacks,
    Mismatch {
        /// PHH position (1-based) of the first differing player.
        position: usize,
        expected: f64,
        got: Chips,
    },
    Failed(PhhError),
}

/// Replays a hand and compares with the file. Fractional finishing stacks
/// (half chips of a split pot) pass when every stack is within half a chip
/// and the totals agree.
pub fn verify(text: &str, rules: HouseRules) -> Verdict {
    let hand = match PhhHand::parse(text) {
        Ok(h) => h,
        Err(e) => return Verdict::Failed(e),
    };
    let Some(expected) = hand.finishing_stacks.as_ref() else {
        return Verdict::NoFinishingStacks;
    };
    let replay = match replay(&hand, rules) {
        Ok(r) => r,
        Err(e) => return Verdict::Failed(e),
    };
    let fractional = expected.iter().any(|a| a.as_f64().fract() != 0.0);
    let total_expected: f64 = expected.iter().map(|a| a.as_f64()).sum();
    let total_got: Chips = replay.finishing_stacks.iter().sum();
    for (i, (e, &got)) in expected.iter().zip(&replay.finishing_stacks).enumerate() {
        let diff = (e.as_f64() - got as f64).abs();
        if (fractional && diff > 0.5) || (!fractional && diff != 0.0) {
            return Verdict::Mismatch {
                position: i + 1,
                expected: e.as_f64(),
                got,
            };
        }
    }
    if expected.len() != replay.finishing_stacks.len()
        || (total_expected - total_got as f64).abs() > 1e-9
    {
        return Verdict::Mismatch {
            position: expected.len().min(replay.finishing_stacks.len()) + 1,
            expected: total_expected,
            got: total_got,
        };
    }
    Verdict::Passed
}
