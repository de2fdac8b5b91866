//! One hand as a floor person reads it.

use felt_table::{TableEvent, TableState};

/// A hand as a floor person reads it.
pub fn narrate(state: &mut TableState, events: &[TableEvent]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for e in events {
        let line = match e {
            TableEvent::HandStarted {
                number,
                level,
                button,
                small_blind,
                big_blind,
                stacks,
                ..
            } => format!(
                "hand {number}: blinds {}/{}{} — button seat {button}, small blind {}, big blind seat {big_blind}\n  stacks: {}",
                level.small_blind,
                level.big_blind,
                if level.ante > 0 {
                    format!(", ante {} ({:?})", level.ante, level.ante_format)
                } else {
                    String::new()
                },
                small_blind.map_or("none (dead)".into(), |s| format!("seat {s}")),
                stacks
                    .iter()
                    .map(|(s, c)| format!("seat {s} {c}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            TableEvent::AntePosted { seat, amount } => {
                format!("seat {seat} posts an ante of {amount}")
            }
            TableEvent::BlindPosted {
                seat,
                blind,
                amount,
            } => format!("seat {seat} posts the {blind:?} blind of {amount}"),
            TableEvent::HoleCardsDealt { cards } => format!(
                "hole cards: {}",
                cards
                    .iter()
                    .map(|(s, c)| format!(
                        "seat {s} {}",
                        c.map_or("??".into(), |c| format!("{}{}", c[0], c[1]))
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            TableEvent::ActionTaken {
                seat,
                action,
                all_in,
            } => format!(
                "seat {seat}: {action:?}{}",
                if *all_in { " (all in)" } else { "" }
            ),
            TableEvent::ChipsRead {
                seat,
                read_as,
                rule,
                ..
            } => format!("seat {seat}'s chips read as {read_as:?} ({rule})"),
            TableEvent::StreetDealt { street, cards, .. } => format!(
                "{street}: {}",
                cards
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            TableEvent::CardsShown { seat, cards } => {
                let board = state
                    .hand()
                    .as_ref()
                    .map(|h| h.board.clone())
                    .unwrap_or_default();
                let all: Vec<felt_cards::Card> =
                    board.iter().chain(cards.iter()).copied().collect();
                let name = felt_cards::evaluate(&all)
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default();
                format!("seat {seat} shows {}{}{name}", cards[0], cards[1])
            }
            TableEvent::UncalledBetReturned { seat, amount } => {
                format!("{amount} uncalled returned to seat {seat}")
            }
            TableEvent::CardsMucked { seat } => format!("seat {seat} mucks"),
            TableEvent::ShowAsked { seat, by } => {
                format!("seat {by} asks to see seat {seat}'s hand, which it called (TDA 18)")
            }
            TableEvent::HandVoided { number } => {
                format!("hand {number} is void: every chip put in goes back (TDA 35)")
            }
            TableEvent::ClockCalled { seat } => {
                format!("the floor calls the clock on seat {seat} (TDA 29)")
            }
            TableEvent::TimedOut { seat } => format!(
                "seat {seat} is out of time: a dead hand facing a bet, else a check (seed 002, TDA 29)"
            ),
            TableEvent::PotAwarded {
                pot,
                amount,
                eligible,
                shares,
            } => format!(
                "{} of {amount} to {}{}",
                if *pot == 0 {
                    "main pot".to_string()
                } else {
                    format!("side pot {pot}")
                },
                shares
                    .iter()
                    .map(|s| format!("seat {} ({})", s.seat, s.amount))
                    .collect::<Vec<_>>()
                    .join(", "),
                if eligible.len() > 1 && shares.iter().all(|s| s.rank.is_none()) {
                    " — contested, no winning hand entered: pushed by the dealer or awarded by the floor"
                } else {
                    ""
                }
            ),
            TableEvent::HandEnded { stacks, busted, .. } => format!(
                "hand over — stacks: {}{}",
                stacks
                    .iter()
                    .map(|(s, c)| format!("seat {s} {c}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                if busted.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; out: {}",
                        busted
                            .iter()
                            .map(|b| format!("seat {}", b.seat))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
            ),
            other => format!("{other:?}"),
        };
        state.apply(e);
        let _ = writeln!(out, "{line}");
        if let Some(h) = &state.hand()
            && matches!(
                e,
                TableEvent::ActionTaken { .. } | TableEvent::BlindPosted { .. }
            )
        {
            let side = h.pots();
            let pot: u64 = side.iter().map(|p| p.0).sum();
            let _ = writeln!(
                out,
                "    pot {pot}{}; {}",
                if side.len() > 1 {
                    format!(" ({} pots)", side.len())
                } else {
                    String::new()
                },
                match state.options() {
                    Some(o) => format!(
                        "seat {} to act: {} to call{}",
                        o.seat,
                        o.to_call,
                        o.min_to.map_or(String::new(), |m| format!(
                            ", raise to at least {m} (TDA 43)"
                        ))
                    ),
                    None => "betting closed".into(),
                }
            );
        }
    }
    out
}
