//! A table's hand end: to seating, and seating's busts on to payout.

use std::collections::BTreeMap;

use felt_cards::Seed;
use felt_payout::{Bust, PayoutState};
use felt_seating::{EntryId, SeatingCommand, SeatingEvent, SeatingState, TableNo};
use felt_table::{Seat, TableEvent};

use super::Order;

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
                                Eliminators::Entries(b.by.iter().map(|p| p.0).collect())
                            };
                            (b.player.0, by)
                        })
                        .collect();
                    return Some(HandSummary {
                        number: n,
                        button,
                        big_blind,
                        busted: busted
                            .iter()
                            .map(|b| (b.player.0, b.starting_stack))
                            .collect(),
                        eliminators,
                    });
                }
                _ => {}
            }
        }
        None
    }
}

/// A table's hand end, to seating: the button and big blind it played (for
/// the next hand's, TDA 32) and who busted, under `hand-{table}-{n}-ended`.
pub fn to_seating(table: TableNo, hand: &HandSummary, seed: Seed) -> Order<SeatingCommand> {
    Order::new(
        format!("hand-{table}-{}-ended", hand.number),
        SeatingCommand::HandEnded {
            table,
            button: hand.button,
            big_blind: hand.big_blind,
            busted: hand.busted.iter().map(|b| b.0).collect(),
            seed: seed.0,
        },
    )
}

/// Seating's busts of one hand, as payout takes them: placed now, or held
/// by payout for the end of their hand-for-hand round (RP8: players out in
/// the same hand-for-hand round share their places). Either way under
/// `busts-{table}-{n}`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Busts {
    /// The busts of a hand outside hand-for-hand: placed now.
    pub now: Option<Order<felt_payout::Command>>,
    /// The busts of a hand-for-hand hand: held by payout for the round.
    pub held: Option<Order<felt_payout::Command>>,
}

/// The busts seating recorded for a table's hand (`decided`: the events of
/// its `HandEnded`), each with its starting stack, the entries that won its
/// chips (for a hand recorded before the table named them, the entries
/// `occupant` now seats in the winning seats) and its number in seating's
/// order out.
pub fn busts(
    table: TableNo,
    hand: &HandSummary,
    decided: &[SeatingEvent],
    seating: &SeatingState,
    occupant: impl Fn(Seat) -> Option<EntryId>,
) -> Busts {
    let stacks: BTreeMap<EntryId, u64> = hand.busted.iter().copied().collect();
    let mut now = Vec::new();
    let mut held: Option<(u64, Vec<Bust>)> = None;
    for e in decided {
        let SeatingEvent::Busted {
            entry,
            table: at,
            hand_for_hand_round,
            ..
        } = e
        else {
            continue;
        };
        let bust = Bust {
            entry: *entry,
            table: *at,
            starting_stack: stacks.get(entry).copied().unwrap_or(0),
            by: match hand.eliminators.get(entry) {
                Some(Eliminators::Entries(entries)) => entries.clone(),
                Some(Eliminators::Seats(seats)) => {
                    seats.iter().filter_map(|&s| occupant(s)).collect()
                }
                None => Vec::new(),
            },
            // Its turn out, for its place: a hand end reported again after
            // a crash reaches payout after later ones.
            out: seating.out().get(entry).copied(),
        };
        match hand_for_hand_round {
            // One hand's busts are all of the table's round.
            Some(round) => held
                .get_or_insert_with(|| (*round, Vec::new()))
                .1
                .push(bust),
            None => now.push(bust),
        }
    }
    let id = || format!("busts-{table}-{}", hand.number);
    Busts {
        now: (!now.is_empty())
            .then(|| Order::new(id(), felt_payout::Command::RecordBusts { busts: now })),
        held: held.map(|(round, busts)| {
            Order::new(id(), felt_payout::Command::HoldBusts { round, busts })
        }),
    }
}

/// Whether hand-for-hand round `round` is over: no table still plays it.
pub fn round_over(seating: &SeatingState, round: u64) -> bool {
    !seating
        .room()
        .tables
        .values()
        .any(|t| t.in_hand && t.round == Some(round))
}

/// Every round payout holds busts for that no table still plays, to be
/// placed: each under an id naming the round and its entries (a round
/// number may come again in a later hand-for-hand period; its entries
/// never do).
pub fn rounds_over(
    seating: &SeatingState,
    payout: &PayoutState,
) -> Vec<Order<felt_payout::Command>> {
    payout
        .held()
        .iter()
        .filter(|(round, _)| round_over(seating, **round))
        .map(|(&round, busts)| {
            let entries: Vec<String> = busts.iter().map(|b| b.entry.to_string()).collect();
            Order::new(
                format!("busts-round-{round}-{}", entries.join("-")),
                felt_payout::Command::PlaceRound { round },
            )
        })
        .collect()
}
