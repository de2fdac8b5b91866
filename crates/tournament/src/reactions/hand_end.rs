//! A table's hand end: to seating, and seating's busts on to payout.

use std::collections::BTreeMap;

use felt_payout::Bust;
use felt_seating::{Elimination, EntryId, SeatingCommand, SeatingEvent, SeatingState, TableNo};
use felt_table::{Seat, TableEvent};

use super::Order;
use crate::aggregates::Seating;
use crate::runner::Cause;

/// A finished hand as seating needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandSummary {
    pub number: u64,
    pub button: Seat,
    pub big_blind: Seat,
    /// Busted entries with their chips at the start of the hand.
    pub busted: Vec<(EntryId, u64)>,
    /// For each busted entry, who won their last chips (their bounty's
    /// collectors), as the table named them.
    pub eliminators: BTreeMap<EntryId, Eliminators>,
    /// The hand was played through the table (`false`: a results-only
    /// table's result, which no hand was granted for).
    pub recorded: bool,
    /// When the hand was played: the time the floor gave a result entered
    /// late, else when the table recorded its end (the follower fills it
    /// from the log; `None` until then).
    pub occurred_at: Option<i64>,
}

/// Who won a busted entry's last chips: the winners of the highest pot it
/// was in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Eliminators {
    /// The entries, named by the table as the hand ended.
    Entries(Vec<EntryId>),
    /// Only their seats: a hand recorded before the table named them. The
    /// entries are whoever sits there when the hand end is handled.
    Seats(Vec<Seat>),
}

impl HandSummary {
    /// The summary of a hand from its events (`HandStarted` to `HandEnded`).
    pub fn from_events<'a>(
        events: impl IntoIterator<Item = &'a TableEvent>,
    ) -> Option<HandSummary> {
        let mut start = None;
        // Every pot awarded (for the eliminators of hands recorded before
        // the table named them).
        let mut pots: Vec<&TableEvent> = Vec::new();
        for e in events {
            match e {
                TableEvent::PotAwarded { .. } => pots.push(e),
                TableEvent::HandStarted {
                    number,
                    button,
                    big_blind,
                    ..
                } => start = Some((*number, *button, *big_blind)),
                TableEvent::ResultRecorded {
                    number,
                    button,
                    big_blind,
                    busted,
                    occurred_at,
                    ..
                } => {
                    return Some(HandSummary {
                        occurred_at: *occurred_at,
                        number: *number,
                        button: *button,
                        big_blind: *big_blind,
                        busted: busted
                            .iter()
                            .map(|b| (b.player, b.starting_stack))
                            .collect(),
                        eliminators: busted
                            .iter()
                            .map(|b| (b.player, Eliminators::Entries(b.by.clone())))
                            .collect(),
                        recorded: false,
                    });
                }
                TableEvent::HandEnded { number, busted, .. } => {
                    let (n, button, big_blind) = start?;
                    if n != *number {
                        return None;
                    }
                    let eliminators = busted
                        .iter()
                        .map(|b| {
                            let seats = felt_table::eliminators(pots.iter().copied(), b.seat);
                            let by = if b.by.is_empty() && !seats.is_empty() {
                                Eliminators::Seats(seats)
                            } else {
                                Eliminators::Entries(b.by.clone())
                            };
                            (b.player, by)
                        })
                        .collect();
                    return Some(HandSummary {
                        number: n,
                        button,
                        big_blind,
                        busted: busted
                            .iter()
                            .map(|b| (b.player, b.starting_stack))
                            .collect(),
                        eliminators,
                        recorded: true,
                        occurred_at: None,
                    });
                }
                _ => {}
            }
        }
        None
    }
}

/// A table's hand end, to seating: the button and big blind it played (for
/// the next hand's, TDA 32) and who busted, each with their starting stack
/// and the entries that won their last chips (for a hand recorded before
/// the table named them, the entries `occupant` seats in the winning
/// seats), under `hand-{table}-{n}-ended`. A results-only table's result
/// goes as `ResultRecorded` (no hand was granted for it).
pub fn to_seating(
    table: TableNo,
    hand: &HandSummary,
    occupant: impl Fn(Seat) -> Option<EntryId>,
) -> Order<SeatingCommand> {
    let busted = hand
        .busted
        .iter()
        .map(|&(entry, starting_stack)| Elimination {
            entry,
            starting_stack,
            by: match hand.eliminators.get(&entry) {
                Some(Eliminators::Entries(entries)) => entries.clone(),
                Some(Eliminators::Seats(seats)) => {
                    seats.iter().filter_map(|&s| occupant(s)).collect()
                }
                None => Vec::new(),
            },
            occurred_at: hand.occurred_at,
        })
        .collect();
    let (button, big_blind) = (hand.button, hand.big_blind);
    Order::new(
        format!("hand-{table}-{}-ended", hand.number),
        if hand.recorded {
            SeatingCommand::HandEnded {
                table,
                button,
                big_blind,
                busted,
            }
        } else {
            SeatingCommand::ResultRecorded {
                table,
                button,
                big_blind,
                busted,
            }
        },
    )
}

/// Seating's busts of one hand end, to payout: placed now, or held by
/// payout for the end of their hand-for-hand round (RP8: players out in
/// the same hand-for-hand round share their places). Each bust carries its
/// starting stack, its bounty's collectors and its number in seating's
/// order out (a hand end reported again after a crash reaches payout after
/// later ones). Under the id its seating decision gives `busts`.
pub fn busts(cause: &Cause<Seating>) -> Option<Order<felt_payout::Command>> {
    let mut busts = Vec::new();
    let mut round = None;
    for e in &cause.events {
        match e {
            SeatingEvent::Busted {
                entry,
                table,
                starting_stack,
                by,
                hand_for_hand_round,
                held: false,
                ..
            } => {
                // One hand's busts are all of the table's round.
                round = round.or(*hand_for_hand_round);
                busts.push(Bust {
                    entry: *entry,
                    table: *table,
                    starting_stack: *starting_stack,
                    by: by.clone(),
                    out: cause.state.out().get(entry).copied(),
                    forfeit: false,
                });
            }
            // A player who gave up their chips is out at once, in no hand,
            // placed as they stand.
            SeatingEvent::Surrendered { entry, table, .. } => busts.push(Bust {
                entry: *entry,
                table: *table,
                starting_stack: 0,
                by: Vec::new(),
                out: cause.state.out().get(entry).copied(),
                forfeit: false,
            }),
            // A disqualification is out of the field at once, in no hand:
            // placed as they stand, or in no place (the house rule).
            SeatingEvent::Disqualified {
                entry,
                table,
                placed,
                ..
            } => busts.push(Bust {
                entry: *entry,
                table: *table,
                starting_stack: 0,
                by: Vec::new(),
                out: cause.state.out().get(entry).copied(),
                forfeit: !placed,
            }),
            _ => {}
        }
    }
    if busts.is_empty() {
        return None;
    }
    let command = match round {
        Some(round) => felt_payout::Command::HoldBusts { round, busts },
        None => felt_payout::Command::RecordBusts { busts },
    };
    Some(Order::new(cause.id("busts"), command))
}

/// The floor closed its late entries: the busts seating held meanwhile go
/// to payout hand by hand in the order they happened, each numbered in the
/// order out by that order (payout places them by their numbers), under
/// the ids the decision gives `late-{k}`. (A held bust is sent by nothing
/// else: [`busts`] passes over it.)
pub fn late_busts(cause: &Cause<Seating>) -> Vec<Order<felt_payout::Command>> {
    let mut orders = Vec::new();
    for e in &cause.events {
        let SeatingEvent::LateEntriesClosed { groups } = e else {
            continue;
        };
        for (k, group) in groups.iter().enumerate() {
            let busts = group
                .busts
                .iter()
                .map(|b| Bust {
                    entry: b.entry,
                    table: group.table,
                    starting_stack: b.starting_stack,
                    by: b.by.clone(),
                    out: cause.state.out().get(&b.entry).copied(),
                    forfeit: false,
                })
                .collect();
            orders.push(Order::new(
                cause.id(&format!("late-{}", k + 1)),
                felt_payout::Command::RecordBusts { busts },
            ));
        }
    }
    orders
}

/// Whether hand-for-hand round `round` is over: no table still plays it,
/// and, while it is seating's round, none that can play it has still to
/// (a table not yet dealt its hand of the round, as seating counts them
/// to end the round).
pub fn round_over(seating: &SeatingState, round: u64) -> bool {
    let room = seating.room();
    let playing = room
        .tables
        .values()
        .any(|t| t.in_hand && t.round == Some(round));
    let to_play = room.hand_for_hand == Some(round)
        && room
            .tables
            .values()
            .any(|t| !t.breaking && t.count() >= 2 && !t.hand_for_hand_done);
    !playing && !to_play
}

/// The hand-for-hand rounds a seating decision ended: the rounds of the
/// hands it ended that no table still plays after it. Payout places what
/// it holds for each, together (it has nothing to place for a round
/// without busts, and says so), under the id the decision gives
/// `round-{round}`. Seating's state folded up to the decision is all it
/// reads, so a runner behind another sends the very same commands.
pub fn rounds_over(cause: &Cause<Seating>) -> Vec<Order<felt_payout::Command>> {
    let rounds: std::collections::BTreeSet<u64> = cause
        .events
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::HandEnded {
                hand_for_hand_round: Some(round),
                ..
            } => Some(*round),
            // Recorded before seating kept the round: the table's.
            SeatingEvent::HandEnded { table, .. } => {
                cause.state.room().tables.get(table).and_then(|t| t.round)
            }
            // Seating ended the round (or hand-for-hand) without a hand
            // ending: the last table still to play it broke or emptied.
            SeatingEvent::HandForHandRound { round }
            | SeatingEvent::HandForHandEnded {
                round: Some(round), ..
            } => Some(*round),
            _ => None,
        })
        .collect();
    rounds
        .into_iter()
        .filter(|&round| round_over(&cause.state, round))
        .map(|round| {
            Order::new(
                cause.id(&format!("round-{round}")),
                felt_payout::Command::PlaceRound { round },
            )
        })
        .collect()
}

/// A satellite's play is over (seating's `SeatsWon`): payout places the
/// players left in the seats, each winning one. Sent after the decision's
/// busts and rounds, so every player out is placed below them.
pub fn seats_won(cause: &Cause<Seating>) -> Option<Order<felt_payout::Command>> {
    let entries = cause.events.iter().find_map(|e| match e {
        SeatingEvent::SeatsWon { entries } => Some(entries.clone()),
        _ => None,
    })?;
    Some(Order::new(
        cause.id("seats-won"),
        felt_payout::Command::AwardSeats { entries },
    ))
}
