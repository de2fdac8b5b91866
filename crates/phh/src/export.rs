//! Writing a hand felt played as PHH, so auditors can take it to other tools.

use std::fmt::Write as _;

use felt_cards::Card;
use felt_table::{ActionTaken, AnteFormat, Blind, Chips, Seat, TableEvent};

use crate::PhhError;

fn cards(cs: &[Card]) -> String {
    cs.iter().map(|c| c.to_string()).collect()
}

fn list(values: &[Chips]) -> String {
    let items: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    format!("[{}]", items.join(", "))
}

/// Writes one hand (the events from its `HandStarted` to its `HandEnded`)
/// as PHH. Positions follow the format: p1 is the first seat after the
/// button, the button last; each `pK` comment names the felt seat.
pub fn export(events: &[TableEvent]) -> Result<String, PhhError> {
    let missing = |what: &str| PhhError::Unsupported(format!("the events hold no {what}"));
    let (level, button, stacks) = events
        .iter()
        .find_map(|e| match e {
            TableEvent::HandStarted {
                level,
                button,
                stacks,
                ..
            } => Some((*level, *button, stacks.clone())),
            _ => None,
        })
        .ok_or_else(|| missing("HandStarted"))?;
    // Positions: clockwise from the seat after the button.
    let mut order: Vec<(Seat, Chips)> = stacks.clone();
    order.sort_by_key(|(s, _)| (*s <= button, *s));
    let n = order.len();
    let pos = |seat: Seat| order.iter().position(|(s, _)| *s == seat).map(|i| i + 1);
    let p = |seat: Seat| -> Result<usize, PhhError> {
        pos(seat).ok_or_else(|| PhhError::Unsupported(format!("seat {seat} is not in the hand")))
    };
    let (mut antes, mut blinds) = (vec![0; n], vec![0; n]);
    let heads_up = n == 2;
    let mut actions: Vec<String> = Vec::new();
    let mut finishing: Option<Vec<Chips>> = None;
    for e in events {
        match e {
            TableEvent::AntePosted { seat, amount } => {
                // Heads-up the format applies antes reversed, like blinds.
                let i = p(*seat)? - 1;
                antes[if heads_up { 1 - i } else { i }] += amount;
            }
            TableEvent::BlindPosted {
                seat,
                blind,
                amount,
            } => {
                // Heads-up the format lists [small, big] and applies them reversed.
                let i = match (heads_up, blind) {
                    (true, Blind::Small) => 0,
                    (true, Blind::Big) => 1,
                    (false, _) => p(*seat)? - 1,
                };
                blinds[i] += amount;
            }
            TableEvent::HoleCardsDealt { cards: dealt } => {
                let mut dealt = dealt.clone();
                dealt.sort_by_key(|(s, _)| pos(*s));
                for (seat, hole) in dealt {
                    let text = hole.map_or("????".to_string(), |h| cards(&h));
                    actions.push(format!("d dh p{} {text}", p(seat)?));
                }
            }
            TableEvent::HoleCardsEntered { .. } => {}
            TableEvent::HandKilled { seat, .. } => actions.push(format!("p{} f", p(*seat)?)),
            TableEvent::ActionTaken { seat, action, .. } => {
                let k = p(*seat)?;
                actions.push(match action {
                    ActionTaken::Fold => format!("p{k} f"),
                    ActionTaken::Check | ActionTaken::Call { .. } => format!("p{k} cc"),
                    ActionTaken::Bet { to, .. } | ActionTaken::Raise { to, .. } => {
                        format!("p{k} cbr {to}")
                    }
                });
            }
            TableEvent::StreetDealt { cards: board, .. } => {
                actions.push(format!("d db {}", cards(board)));
            }
            TableEvent::CardsShown { seat, cards: hole } => {
                actions.push(format!("p{} sm {}", p(*seat)?, cards(hole)));
            }
            TableEvent::CardsMucked { seat } => actions.push(format!("p{} sm", p(*seat)?)),
            TableEvent::HandEnded { stacks, .. } => {
                let mut f = vec![0; n];
                for (seat, stack) in stacks {
                    f[p(*seat)? - 1] = *stack;
                }
                finishing = Some(f);
            }
            _ => {}
        }
    }
    let uniform = antes.iter().all(|&a| a == antes[0]);
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "variant = 'NT'");
    let _ = writeln!(
        w,
        "ante_trimming_status = {}",
        level.ante_format == AnteFormat::PerPlayer && uniform
    );
    let _ = writeln!(w, "antes = {}", list(&antes));
    let _ = writeln!(w, "blinds_or_straddles = {}", list(&blinds));
    let _ = writeln!(w, "min_bet = {}", level.big_blind);
    let starting: Vec<Chips> = order.iter().map(|(_, s)| *s).collect();
    let _ = writeln!(w, "starting_stacks = {}", list(&starting));
    let _ = writeln!(w, "actions = [");
    for a in &actions {
        let _ = writeln!(w, "  '{a}',");
    }
    let _ = writeln!(w, "]");
    let seats: Vec<String> = order.iter().map(|(s, _)| format!("'seat {s}'")).collect();
    let _ = writeln!(w, "players = [{}]", seats.join(", "));
    if let Some(f) = finishing {
        let _ = writeln!(w, "finishing_stacks = {}", list(&f));
    }
    Ok(out)
}
