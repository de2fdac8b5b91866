//! The fold: a tournament's entries and its room of tables.

use std::collections::{BTreeMap, BTreeSet};

use imbl::{OrdMap, OrdSet, Vector};

use serde::{Deserialize, Serialize};

use crate::model::{
    Chips, Elimination, EntryId, LateGroup, Move, MoveReason, PlayerId, Seat, SeatingEvent,
    Settings, TableNo,
};

/// The most seats a table has.
pub const MAX_SEATS: usize = 10;

/// One table as seating sees it. Seats hold where players are or are
/// going: a moving player already holds the destination seat, and the
/// seat being left is held in the room's `leaving` until the move completes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    pub number: TableNo,
    /// Seats 1 to `size` (a fixed array: a room of a thousand tables is
    /// copied for every decision without allocating).
    pub seats: [Option<EntryId>; MAX_SEATS],
    pub size: u8,
    pub button: Option<Seat>,
    pub big_blind: Option<Seat>,
    pub in_hand: bool,
    pub breaking: bool,
    pub hands: u64,
    /// Played its hand of the current hand-for-hand round.
    pub hand_for_hand_done: bool,
    /// The hand being played is a hand-for-hand hand.
    pub hand_for_hand_hand: bool,
    /// The hand-for-hand round of the last hand begun.
    pub round: Option<u64>,
    /// Held by the floor, with its reason: no hand is dealt until it is
    /// released.
    #[serde(default)]
    pub held: Option<String>,
}

impl Table {
    pub fn new(number: TableNo, size: u8) -> Table {
        Table {
            number,
            seats: [None; MAX_SEATS],
            size,
            button: None,
            big_blind: None,
            in_hand: false,
            breaking: false,
            hands: 0,
            hand_for_hand_done: false,
            hand_for_hand_hand: false,
            round: None,
            held: None,
        }
    }

    pub fn size(&self) -> u8 {
        self.size
    }

    /// Players at (or coming to) the table.
    pub fn count(&self) -> u32 {
        self.seats.iter().filter(|s| s.is_some()).count() as u32
    }

    pub fn occupant(&self, seat: Seat) -> Option<EntryId> {
        self.seats.get(seat as usize - 1).copied().flatten()
    }

    /// The seat of an entry.
    pub fn seat_of(&self, entry: EntryId) -> Option<Seat> {
        self.seats
            .iter()
            .position(|&s| s == Some(entry))
            .map(|i| i as Seat + 1)
    }

    /// Seats clockwise after `seat` (not including it), wrapping around.
    pub fn after(&self, seat: Seat) -> impl Iterator<Item = Seat> + '_ {
        let n = self.size();
        (1..n).map(move |k| (seat - 1 + k) % n + 1)
    }
}

/// The tables, the moves in progress and the round of hand-for-hand.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Room {
    pub settings: Option<Settings>,
    pub tables: OrdMap<TableNo, Table>,
    /// Each table's physical table in the room, with its place in the
    /// room's layout (tables the pool named).
    #[serde(default)]
    pub physical: OrdMap<TableNo, (String, u32)>,
    pub moves: BTreeMap<u64, Move>,
    /// Seats still physically held by a player moving away.
    pub leaving: BTreeSet<(TableNo, Seat)>,
    pub next_move: u64,
    /// A redraw waiting for every table to finish its hand.
    pub redraw: Option<(u32, MoveReason)>,
    /// Counts at which a redraw was done (each once).
    pub redrawn_at: BTreeSet<u32>,
    pub final_table: bool,
    /// The current hand-for-hand round (from 1), when hand-for-hand.
    pub hand_for_hand: Option<u64>,
    pub hand_for_hand_over: bool,
    /// Hand-for-hand periods started so far (the floor may stop one before
    /// the bubble, and seating start another there).
    #[serde(default)]
    pub hand_for_hand_periods: u64,
    pub paid: u32,
    /// Whether payout has set the places paid (once, when registration
    /// closed).
    #[serde(default)]
    pub paid_set: bool,
    /// A satellite's seats (from payout's close): play stops once no more
    /// players are left.
    #[serde(default)]
    pub seats: Option<u32>,
    /// The satellite's seats are won: nothing more is played.
    #[serde(default)]
    pub seats_won: bool,
    /// Players when play started (redraw counts above it never apply).
    pub started_with: u32,
    /// The highest table number ever opened: numbers are never reused, so
    /// a table's log is one table's.
    pub last_table: TableNo,
    /// Entries seated whose table has not yet confirmed it.
    pub unseated: OrdSet<EntryId>,
    /// Players out of the field whose table has not yet removed them
    /// (disqualified, or who gave up their chips for a re-entry): the
    /// seat they still hold.
    #[serde(default)]
    pub removals: BTreeMap<EntryId, Removal>,
    /// Players the director accommodates (special needs, TDA 9): never
    /// moved by balancing, and their table broken only when no other can
    /// be.
    #[serde(default)]
    pub accommodated: BTreeSet<EntryId>,
    /// Add-ons sold whose chips the table has not yet put on the stack:
    /// the table, seat and chips.
    #[serde(default)]
    pub add_ons: BTreeMap<EntryId, (TableNo, Seat, Chips)>,
    /// Rebuys sold whose chips the table has not yet put on the stack:
    /// the table, seat, chips and the entry's rebuy number.
    #[serde(default)]
    pub rebuys: BTreeMap<EntryId, (TableNo, Seat, Chips, u32)>,
    /// Hands ended with busts offered a rebuy (rule 27), by table: not
    /// over at seating until every offer is answered.
    #[serde(default)]
    pub offers: BTreeMap<TableNo, Offers>,
    /// The day's last hands (rule 77), from their draw to the next day.
    #[serde(default)]
    pub last_hands: Option<LastHands>,
    /// The last day's bags, from the count on (the next day starts from
    /// them; the next count replaces them).
    #[serde(default)]
    pub bags: Option<crate::Bags>,
    /// Every earlier day's bags, the first day's first (the chip counts
    /// each day ended with, kept once the next count replaces `bags`).
    #[serde(default)]
    pub earlier_bags: Vec<crate::Bags>,
    /// Days started after the first (the day being played is this + 1).
    #[serde(default)]
    pub days_resumed: u32,
}

/// The day's last hands (seed 002, rule 77): how many every table plays
/// after the draw, how many each has begun, and whether all are played.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastHands {
    pub hands: u8,
    pub begun: BTreeMap<TableNo, u8>,
    pub over: bool,
}

impl LastHands {
    /// The hands `table` has still to begin today.
    pub fn left(&self, table: TableNo) -> u8 {
        self.hands
            .saturating_sub(self.begun.get(&table).copied().unwrap_or(0))
    }
}

/// A hand whose busted players are being offered a rebuy: its end as the
/// table recorded it, the busts still to record, and who has yet to
/// answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offers {
    pub button: Seat,
    pub big_blind: Seat,
    /// The hand's busts not (or not yet) bought back, in the table's order.
    pub busted: Vec<Elimination>,
    pub waiting: BTreeSet<EntryId>,
}

/// A player out of the field whose table is still to remove them and
/// their chips.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Removal {
    pub table: TableNo,
    pub seat: Seat,
    /// The director's reason for a disqualification.
    pub reason: String,
    /// They gave up their chips for a re-entry (TDA 8), not disqualified.
    pub surrender: bool,
    /// They never arrived and an alternate replaced them (seed 003).
    #[serde(default)]
    pub no_show: bool,
}

impl Room {
    /// The number for the next table opened.
    pub fn next_table(&self) -> TableNo {
        self.last_table + 1
    }

    /// Whether the player in this seat may be moved now: sitting there
    /// (not still arriving by a move or being seated) and not leaving it.
    pub fn movable(&self, table: TableNo, seat: Seat) -> bool {
        let Some(entry) = self.tables.get(&table).and_then(|t| t.occupant(seat)) else {
            return false;
        };
        !self.leaving.contains(&(table, seat))
            && !self.unseated.contains(&entry)
            && !self.removals.contains_key(&entry)
            && !self.moves.values().any(|m| m.entry == entry)
            && !self.deciding(entry)
    }

    /// Day `day`'s bags (0: the last day bagged), if it was bagged.
    pub fn bags_of_day(&self, day: u32) -> Option<&crate::Bags> {
        if day == 0 {
            return self.bags.as_ref();
        }
        self.earlier_bags
            .iter()
            .chain(self.bags.as_ref())
            .find(|b| b.day == day)
    }

    /// Whether `entry` busted in a hand whose rebuy offers are still open
    /// (rule 27): seated here, no longer at the table.
    pub fn deciding(&self, entry: EntryId) -> bool {
        self.offers
            .values()
            .any(|o| o.busted.iter().any(|b| b.entry == entry))
    }
}

impl Room {
    /// Changes every table.
    fn every_table(&mut self, mut change: impl FnMut(&mut Table)) {
        let numbers: Vec<TableNo> = self.tables.keys().copied().collect();
        for n in numbers {
            if let Some(t) = self.tables.get_mut(&n) {
                change(t);
            }
        }
    }

    /// Players in the tournament (seated or moving; not a disqualified
    /// player still at their table).
    pub fn players(&self) -> u32 {
        self.tables.values().map(Table::count).sum::<u32>() - self.removals.len() as u32
    }

    /// Moves from or to the table not yet carried out.
    pub fn pending_at(&self, table: TableNo) -> usize {
        self.moves
            .values()
            .filter(|m| m.from.0 == table || m.to.0 == table)
            .count()
    }

    pub fn apply(&mut self, event: &SeatingEvent) {
        match event {
            SeatingEvent::Created { settings, .. } => {
                self.paid = settings.paid;
                self.settings = Some(settings.clone());
            }
            SeatingEvent::PaidSet { paid } => {
                self.paid = *paid;
                self.paid_set = true;
            }
            SeatingEvent::SeatsSet { seats } => self.seats = Some(*seats),
            SeatingEvent::SeatsWon { .. } => self.seats_won = true,
            SeatingEvent::TableOpened { table, seats } => {
                self.last_table = self.last_table.max(*table);
                self.tables.insert(*table, Table::new(*table, *seats));
            }
            SeatingEvent::TableNamed {
                table,
                name,
                position,
            } => {
                if self.tables.contains_key(table) {
                    self.physical.insert(*table, (name.clone(), *position));
                }
            }
            SeatingEvent::Seated {
                entry, table, seat, ..
            } => {
                if let Some(t) = self.tables.get_mut(table) {
                    t.seats[*seat as usize - 1] = Some(*entry);
                }
                self.unseated.insert(*entry);
            }
            SeatingEvent::SeatConfirmed { entry } => {
                self.unseated.remove(entry);
            }
            SeatingEvent::SeatsDrawn { seats, .. } => {
                for &(entry, table, seat) in seats {
                    if let Some(t) = self.tables.get_mut(&table) {
                        t.seats[seat as usize - 1] = Some(entry);
                    }
                    self.unseated.insert(entry);
                }
            }
            SeatingEvent::HandBegun { table } => {
                if let Some(l) = self.last_hands.as_mut() {
                    let n = l.begun.entry(*table).or_default();
                    *n = n.saturating_add(1);
                }
                let hfh = self.hand_for_hand.is_some();
                if let Some(t) = self.tables.get_mut(table) {
                    t.in_hand = true;
                    t.hand_for_hand_hand = hfh;
                    t.round = self.hand_for_hand;
                }
            }
            SeatingEvent::HandEnded {
                table,
                button,
                big_blind,
                ..
            } => {
                let hfh = self.hand_for_hand.is_some();
                self.offers.remove(table);
                if let Some(t) = self.tables.get_mut(table) {
                    t.in_hand = false;
                    t.hands += 1;
                    t.button = Some(*button);
                    t.big_blind = Some(*big_blind);
                    if hfh && t.hand_for_hand_hand {
                        t.hand_for_hand_done = true;
                    }
                    t.hand_for_hand_hand = false;
                }
            }
            SeatingEvent::Busted { entry, table, .. } => {
                if let Some(t) = self.tables.get_mut(table)
                    && let Some(s) = t.seat_of(*entry)
                {
                    t.seats[s as usize - 1] = None;
                }
            }
            SeatingEvent::TableBreaking { table } => {
                if let Some(t) = self.tables.get_mut(table) {
                    t.breaking = true;
                }
            }
            SeatingEvent::MoveStarted { r#move, .. } => {
                let m = *r#move;
                if let Some(t) = self.tables.get_mut(&m.from.0)
                    && t.seats[m.from.1 as usize - 1] == Some(m.entry)
                {
                    t.seats[m.from.1 as usize - 1] = None;
                }
                if let Some(t) = self.tables.get_mut(&m.to.0) {
                    t.seats[m.to.1 as usize - 1] = Some(m.entry);
                }
                self.leaving.insert(m.from);
                self.moves.insert(m.id, m);
                self.next_move = self.next_move.max(m.id + 1);
            }
            SeatingEvent::MoveCompleted { id, .. } => {
                if let Some(m) = self.moves.remove(id) {
                    self.leaving.remove(&m.from);
                }
            }
            SeatingEvent::MoveVoided { id } => {
                if let Some(m) = self.moves.remove(id) {
                    self.leaving.remove(&m.from);
                    if let Some(t) = self.tables.get_mut(&m.to.0)
                        && t.seats[m.to.1 as usize - 1] == Some(m.entry)
                    {
                        t.seats[m.to.1 as usize - 1] = None;
                    }
                    if let Some(t) = self.tables.get_mut(&m.from.0) {
                        t.seats[m.from.1 as usize - 1] = Some(m.entry);
                    }
                }
            }
            SeatingEvent::TableClosed { table } => {
                self.tables.remove(table);
                self.physical.remove(table);
            }
            SeatingEvent::Disqualified {
                entry,
                table,
                seat,
                reason,
                ..
            } => {
                self.removals.insert(
                    *entry,
                    Removal {
                        table: *table,
                        seat: *seat,
                        reason: reason.clone(),
                        surrender: false,
                        no_show: false,
                    },
                );
            }
            SeatingEvent::NoShowReplaced {
                entry,
                table,
                seat,
                reason,
                ..
            } => {
                self.removals.insert(
                    *entry,
                    Removal {
                        table: *table,
                        seat: *seat,
                        reason: reason.clone(),
                        surrender: false,
                        no_show: true,
                    },
                );
            }
            SeatingEvent::Surrendered {
                entry, table, seat, ..
            } => {
                self.removals.insert(
                    *entry,
                    Removal {
                        table: *table,
                        seat: *seat,
                        reason: String::new(),
                        surrender: true,
                        no_show: false,
                    },
                );
            }
            SeatingEvent::AddOnSold {
                entry,
                table,
                seat,
                chips,
            } => {
                self.add_ons.insert(*entry, (*table, *seat, *chips));
            }
            SeatingEvent::AddOnDelivered { entry, .. } => {
                self.add_ons.remove(entry);
            }
            SeatingEvent::RebuySold {
                entry,
                table,
                seat,
                chips,
                number,
                ..
            } => {
                self.rebuys.insert(*entry, (*table, *seat, *chips, *number));
                if let Some(o) = self.offers.get_mut(table)
                    && o.waiting.remove(entry)
                {
                    o.busted.retain(|b| b.entry != *entry);
                }
            }
            SeatingEvent::RebuysOffered {
                table,
                button,
                big_blind,
                busted,
                offered,
            } => {
                self.offers.insert(
                    *table,
                    Offers {
                        button: *button,
                        big_blind: *big_blind,
                        busted: busted.clone(),
                        waiting: offered.iter().copied().collect(),
                    },
                );
            }
            SeatingEvent::RebuyDeclined { entry, table } => {
                if let Some(o) = self.offers.get_mut(table) {
                    o.waiting.remove(entry);
                }
            }
            SeatingEvent::RebuyDelivered { entry, .. } => {
                self.rebuys.remove(entry);
            }
            SeatingEvent::RemovalCompleted { entry, .. } => {
                if let Some(r) = self.removals.remove(entry)
                    && let Some(t) = self.tables.get_mut(&r.table)
                    && t.seats[r.seat as usize - 1] == Some(*entry)
                {
                    t.seats[r.seat as usize - 1] = None;
                }
            }
            SeatingEvent::Accommodated {
                entry,
                accommodated,
                ..
            } => {
                if *accommodated {
                    self.accommodated.insert(*entry);
                } else {
                    self.accommodated.remove(entry);
                }
            }
            SeatingEvent::TableHeld { table, reason } => {
                if let Some(t) = self.tables.get_mut(table) {
                    t.held = Some(reason.clone());
                }
            }
            SeatingEvent::TableReleased { table } => {
                if let Some(t) = self.tables.get_mut(table) {
                    t.held = None;
                }
            }
            SeatingEvent::RedrawCalled { players, reason } => {
                self.redraw = Some((*players, *reason));
                if *reason == MoveReason::FinalTable {
                    self.final_table = true;
                } else if *reason != MoveReason::NewDay {
                    self.redrawn_at.insert(*players);
                }
            }
            SeatingEvent::Redrawn { .. } => self.redraw = None,
            SeatingEvent::Started { players } => self.started_with = *players,
            SeatingEvent::HandForHandStarted { .. } => {
                self.hand_for_hand = Some(1);
                self.hand_for_hand_periods += 1;
                self.every_table(|t| t.hand_for_hand_done = false);
            }
            SeatingEvent::HandForHandRound { round } => {
                self.hand_for_hand = Some(round + 1);
                self.every_table(|t| t.hand_for_hand_done = false);
            }
            SeatingEvent::HandForHandEnded { remaining, .. } => {
                self.hand_for_hand = None;
                // In the money it is over for good; stopped by the floor
                // before the bubble, it comes back there.
                self.hand_for_hand_over = self.paid > 0 && *remaining <= self.paid;
            }
            SeatingEvent::Registered { .. }
            | SeatingEvent::Unregistered { .. }
            | SeatingEvent::AlternatePromoted { .. }
            | SeatingEvent::RegistrationClosed
            | SeatingEvent::LateEntriesOpened { .. }
            | SeatingEvent::LateEntriesClosed { .. }
            | SeatingEvent::LateAnnounced { .. }
            | SeatingEvent::PaymentTaken { .. }
            | SeatingEvent::Cancelled { .. }
            | SeatingEvent::TicketRecorded { .. }
            | SeatingEvent::TicketVoided { .. }
            | SeatingEvent::RebuysClosed
            | SeatingEvent::Drawn { .. } => {}
            // The event's first day is the day after its flights'.
            SeatingEvent::FlightsAdvanced { resume, .. } => {
                if let Some(r) = resume {
                    self.days_resumed = r.day.saturating_sub(1);
                }
            }
            SeatingEvent::LastHandsDrawn { hands } => {
                self.last_hands = Some(LastHands {
                    hands: *hands,
                    ..LastHands::default()
                });
            }
            SeatingEvent::LastHandsPlayed => {
                if let Some(l) = self.last_hands.as_mut() {
                    l.over = true;
                }
            }
            SeatingEvent::DayResumed => {
                self.last_hands = None;
                self.days_resumed += 1;
                if let Some(b) = self.bags.as_mut().filter(|b| b.sealed) {
                    b.resumed = true;
                }
            }
            SeatingEvent::StacksBagged { bags } => {
                if let Some(done) = self.bags.take() {
                    self.earlier_bags.push(done);
                }
                // (Where each player sits as the stacks are counted.)
                let seats: BTreeMap<EntryId, (TableNo, u8)> = self
                    .tables
                    .iter()
                    .flat_map(|(&table, t)| {
                        t.seats
                            .iter()
                            .zip(1u8..)
                            .filter_map(move |(e, seat)| e.map(|e| (e, (table, seat))))
                    })
                    .collect();
                self.bags = Some(crate::Bags {
                    day: self.days_resumed + 1,
                    bags: bags
                        .iter()
                        .map(|b| {
                            let (table, seat) = seats.get(&b.entry).copied().unwrap_or((0, 0));
                            (
                                b.entry,
                                crate::BagState {
                                    number: b.number,
                                    chips: b.chips,
                                    player: false,
                                    staff: false,
                                    table,
                                    seat,
                                },
                            )
                        })
                        .collect(),
                    sealed: false,
                    resumed: false,
                });
            }
            SeatingEvent::BagRecounted { entry, chips } => {
                if let Some(b) = self.bags.as_mut().and_then(|b| b.bags.get_mut(entry)) {
                    b.chips = *chips;
                    b.player = false;
                    b.staff = false;
                }
            }
            SeatingEvent::BagConfirmed { entry, by } => {
                if let Some(b) = self.bags.as_mut().and_then(|b| b.bags.get_mut(entry)) {
                    match by {
                        crate::BagWitness::Player => b.player = true,
                        crate::BagWitness::Staff => b.staff = true,
                    }
                }
            }
            SeatingEvent::BagsSealed { .. } => {
                if let Some(b) = self.bags.as_mut() {
                    b.sealed = true;
                }
            }
        }
    }
}

/// Where an entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EntryStatus {
    /// Beyond the cap: waiting for a place.
    Alternate,
    /// Registered, play not started.
    Registered,
    Seated {
        table: TableNo,
        seat: Seat,
    },
    Busted,
    /// Out of the field by the director's ruling (TDA 71).
    Disqualified,
    Unregistered,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryInfo {
    pub player: PlayerId,
    pub name: String,
    pub re_entry: bool,
    pub status: EntryStatus,
    /// The table has seated the entry (for a newly seated entry).
    pub confirmed: bool,
    /// A move in progress.
    pub moving: Option<u64>,
}

/// A completed or pending move, for the balancing history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveRecord {
    pub r#move: Move,
    pub detail: String,
    pub completed: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatingState {
    pub(crate) name: String,
    pub(crate) started: bool,
    pub(crate) registration_closed: bool,
    /// Cancelled before play, with the director's reason.
    #[serde(default)]
    pub(crate) cancelled: Option<String>,
    pub(crate) entries: OrdMap<EntryId, EntryInfo>,
    /// The entries in the field (neither alternates nor unregistered),
    /// kept as they change: read after every hand, never counted again.
    #[serde(default)]
    pub(crate) field: u32,
    /// A player's entries, in order.
    pub(crate) by_player: OrdMap<PlayerId, Vec<EntryId>>,
    pub(crate) room: Room,
    /// Every move, in order, with its reason.
    pub(crate) history: Vector<MoveRecord>,
    /// Entries seated but not yet confirmed by their table.
    pub(crate) unconfirmed: OrdSet<EntryId>,
    /// Each busted entry's number in the order players went out (1: the
    /// first): the k-th out of a field of N finishes N - k + 1, whatever
    /// order payout hears of the busts in.
    #[serde(default)]
    pub(crate) out: OrdMap<EntryId, u32>,
    /// The late entries, while the floor enters facts late.
    #[serde(default)]
    pub(crate) late: Option<LateEntries>,
    /// Players who called ahead to say they will be late (seed 003).
    #[serde(default)]
    pub(crate) announced: OrdSet<EntryId>,
    /// Entries replaced as no-shows (seed 003): seated with chips, then
    /// out of the field, refunded.
    #[serde(default)]
    pub(crate) no_shows: OrdSet<EntryId>,
    /// The add-ons sold, by entry, with their chips.
    #[serde(default)]
    pub(crate) add_ons: OrdMap<EntryId, Chips>,
    /// The rebuys sold, by entry: how many, and their chips in all.
    #[serde(default)]
    pub(crate) rebuys: OrdMap<EntryId, (u32, Chips)>,
    /// The clock passed the rebuys' last level: none is offered or sold.
    #[serde(default)]
    pub(crate) rebuys_closed: bool,
    /// Satellites' tickets redeemed, by reference, with the entry each
    /// bought (a refunded entry's ticket is free again).
    #[serde(default)]
    pub(crate) tickets: OrdMap<String, EntryId>,
    /// The event's ledger of satellites' seats won here, by reference:
    /// whose, and whether it is void (a second seat the satellite pays in
    /// cash).
    #[serde(default)]
    pub(crate) ledger: OrdMap<String, (PlayerId, bool)>,
    /// An event's stacks from its flights' bags (issue 28), by entry:
    /// each seated with these chips instead of the starting stack.
    #[serde(default)]
    pub(crate) stacks: OrdMap<EntryId, Chips>,
    /// The flights' entries out before this event's first bust (its
    /// numbers in the order players went out follow theirs).
    #[serde(default)]
    pub(crate) out_base: u32,
    /// The flights have advanced to this event.
    #[serde(default)]
    pub(crate) flights_advanced: bool,
    /// Where the event's day resumes the structure, from its flights.
    #[serde(default)]
    pub(crate) flights_resume: Option<crate::DayResume>,
}

/// The floor's late entries: why they were opened, and the busts held
/// since, hand by hand in the order seating heard of them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LateEntries {
    pub reason: String,
    pub held: Vec<LateGroup>,
}

impl LateEntries {
    /// The held busts in the order they happened: by time, the groups
    /// without one last, each tie in the order seating heard of them.
    pub fn in_order(&self) -> Vec<LateGroup> {
        let mut groups = self.held.clone();
        groups.sort_by_key(|g| (g.occurred_at.is_none(), g.occurred_at));
        groups
    }
}

impl SeatingState {
    /// The tournament's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The add-ons sold, by entry, with their chips.
    pub fn add_ons(&self) -> &OrdMap<EntryId, Chips> {
        &self.add_ons
    }

    /// The rebuys sold (rule 27), by entry: how many, and their chips in
    /// all.
    pub fn rebuys(&self) -> &OrdMap<EntryId, (u32, Chips)> {
        &self.rebuys
    }

    /// Whether the rebuys' window has closed (rule 27).
    pub fn rebuys_closed(&self) -> bool {
        self.rebuys_closed
    }

    /// Whether play has started.
    pub fn started(&self) -> bool {
        self.started
    }

    /// Whether registration is closed.
    pub fn registration_closed(&self) -> bool {
        self.registration_closed
    }

    /// Every entry, by entry.
    pub fn entries(&self) -> &OrdMap<EntryId, EntryInfo> {
        &self.entries
    }

    /// One entry.
    pub fn entry(&self, entry: EntryId) -> Option<&EntryInfo> {
        self.entries.get(&entry)
    }

    /// A player's entries, in order.
    pub fn by_player(&self) -> &OrdMap<PlayerId, Vec<EntryId>> {
        &self.by_player
    }

    /// The entries `player` holds: every one registered and not refunded.
    pub fn entries_held(&self, player: &PlayerId) -> Vec<EntryId> {
        self.by_player
            .get(player)
            .into_iter()
            .flatten()
            .copied()
            .filter(|e| {
                self.entries
                    .get(e)
                    .is_some_and(|i| i.status != EntryStatus::Unregistered)
            })
            .collect()
    }

    /// `player`'s entry in the day's sealed bags, if they bagged chips.
    pub fn sealed_bag_of(&self, player: &PlayerId) -> Option<EntryId> {
        let bags = self.room().bags.as_ref().filter(|b| b.sealed)?;
        self.by_player
            .get(player)?
            .iter()
            .copied()
            .find(|e| bags.bags.contains_key(e))
    }

    /// The room: its tables, seats and pending moves.
    pub fn room(&self) -> &Room {
        &self.room
    }

    /// Every move, in order, with its reason.
    pub fn history(&self) -> &Vector<MoveRecord> {
        &self.history
    }

    /// Entries seated but not yet confirmed by their table.
    pub fn unconfirmed(&self) -> &OrdSet<EntryId> {
        &self.unconfirmed
    }

    /// Each busted entry's number in the order players went out (1: the
    /// first).
    /// The chips `entry` is seated with: its flights' bags in an event,
    /// else the starting stack.
    pub fn stack_of(&self, entry: EntryId) -> Chips {
        self.stacks
            .get(&entry)
            .copied()
            .unwrap_or_else(|| self.room.settings.as_ref().map_or(0, |s| s.starting_stack))
    }

    /// The entry a satellite's ticket (by its reference) bought here.
    pub fn ticket(&self, reference: &str) -> Option<EntryId> {
        self.tickets.get(reference).copied()
    }

    /// A satellite's ticket (by its reference) in this event's ledger of
    /// seats won: whose, and whether it is void (its player's second seat,
    /// paid in cash by the satellite).
    pub fn ledger(&self, reference: &str) -> Option<(&PlayerId, bool)> {
        self.ledger.get(reference).map(|(p, void)| (p, *void))
    }

    /// A seat in this event `player` holds other than `reference`: a
    /// ticket in the ledger not void, or one redeemed here. Its reference.
    pub fn seat_held(&self, player: &PlayerId, reference: &str) -> Option<&str> {
        self.ledger
            .iter()
            .find(|(r, (p, void))| p == player && !void && r.as_str() != reference)
            .map(|(r, _)| r.as_str())
            .or_else(|| {
                self.tickets
                    .iter()
                    .find(|(r, e)| {
                        r.as_str() != reference
                            && self.entries.get(*e).is_some_and(|x| x.player == *player)
                    })
                    .map(|(r, _)| r.as_str())
            })
    }

    /// An event's stacks from its flights' bags, by entry.
    pub fn flight_stacks(&self) -> &OrdMap<EntryId, Chips> {
        &self.stacks
    }

    /// Whether the flights have advanced to this event.
    pub fn flights_advanced(&self) -> bool {
        self.flights_advanced
    }

    /// Where the event's day resumes the structure, from its flights.
    pub fn flights_resume(&self) -> Option<crate::DayResume> {
        self.flights_resume
    }

    /// The next bust's number in the order players went out.
    fn next_out(&self) -> u32 {
        self.out_base + self.out.len() as u32 + 1
    }

    pub fn out(&self) -> &OrdMap<EntryId, u32> {
        &self.out
    }

    /// Entries replaced as no-shows (seed 003): their chips were on a
    /// table before they left play.
    pub fn no_shows(&self) -> &OrdSet<EntryId> {
        &self.no_shows
    }

    /// The late entries, while the floor enters facts late.
    pub fn late(&self) -> Option<&LateEntries> {
        self.late.as_ref()
    }

    pub fn settings(&self) -> Option<&Settings> {
        self.room.settings.as_ref()
    }

    /// Entries counted in the field (registered or playing).
    pub fn entries_in(&self) -> u32 {
        self.field
    }

    pub fn apply(&mut self, event: &SeatingEvent) {
        self.room.apply(event);
        match event {
            SeatingEvent::Created { name, .. } => self.name.clone_from(name),
            SeatingEvent::FlightsAdvanced {
                advanced,
                out_before,
                resume,
                ..
            } => {
                self.flights_resume = *resume;
                for a in advanced {
                    self.field += 1;
                    self.entries.insert(
                        a.entry,
                        EntryInfo {
                            player: a.player.clone(),
                            name: a.name.clone(),
                            re_entry: false,
                            status: EntryStatus::Registered,
                            confirmed: false,
                            moving: None,
                        },
                    );
                    self.by_player
                        .entry(a.player.clone())
                        .or_default()
                        .push(a.entry);
                    self.stacks.insert(a.entry, a.chips);
                }
                self.out_base = *out_before;
                self.flights_advanced = true;
            }
            SeatingEvent::AddOnSold { entry, chips, .. } => {
                self.add_ons.insert(*entry, *chips);
            }
            SeatingEvent::RebuySold { entry, chips, .. } => {
                let (n, all) = self.rebuys.get(entry).copied().unwrap_or((0, 0));
                self.rebuys
                    .insert(*entry, (n + 1, all.saturating_add(*chips)));
            }
            SeatingEvent::Registered {
                entry,
                player,
                name,
                re_entry,
                alternate,
            } => {
                if !*alternate {
                    self.field += 1;
                }
                self.entries.insert(
                    *entry,
                    EntryInfo {
                        player: player.clone(),
                        name: name.clone(),
                        re_entry: *re_entry,
                        status: if *alternate {
                            EntryStatus::Alternate
                        } else {
                            EntryStatus::Registered
                        },
                        confirmed: false,
                        moving: None,
                    },
                );
                self.by_player
                    .entry(player.clone())
                    .or_default()
                    .push(*entry);
            }
            SeatingEvent::TicketRecorded { ticket } => {
                self.ledger
                    .insert(ticket.reference(), (ticket.holder.clone(), false));
            }
            SeatingEvent::TicketVoided { ticket, .. } => {
                self.ledger
                    .insert(ticket.reference(), (ticket.holder.clone(), true));
            }
            SeatingEvent::PaymentTaken { entry, payment, .. }
                if payment.method == crate::PaymentMethod::Ticket =>
            {
                self.tickets.insert(payment.reference.clone(), *entry);
            }
            SeatingEvent::Unregistered { entry, .. } => {
                let freed: Vec<String> = self
                    .tickets
                    .iter()
                    .filter(|(_, e)| *e == entry)
                    .map(|(r, _)| r.clone())
                    .collect();
                for r in freed {
                    self.tickets.remove(&r);
                }
                if let Some(e) = self.entries.get_mut(entry) {
                    let before = in_field(&e.status);
                    e.status = EntryStatus::Unregistered;
                    self.field = (self.field + u32::from(in_field(&e.status)))
                        .saturating_sub(u32::from(before));
                }
            }
            SeatingEvent::AlternatePromoted { entry } => {
                if let Some(e) = self.entries.get_mut(entry) {
                    let before = in_field(&e.status);
                    e.status = EntryStatus::Registered;
                    self.field = (self.field + u32::from(in_field(&e.status)))
                        .saturating_sub(u32::from(before));
                }
            }
            SeatingEvent::Started { .. } => self.started = true,
            SeatingEvent::RebuysClosed => self.rebuys_closed = true,
            SeatingEvent::RegistrationClosed => self.registration_closed = true,
            SeatingEvent::Cancelled { reason } => {
                self.registration_closed = true;
                self.cancelled = Some(reason.clone());
            }
            SeatingEvent::Seated {
                entry, table, seat, ..
            } => {
                if let Some(e) = self.entries.get_mut(entry) {
                    let before = in_field(&e.status);
                    e.status = EntryStatus::Seated {
                        table: *table,
                        seat: *seat,
                    };
                    self.field = (self.field + u32::from(in_field(&e.status)))
                        .saturating_sub(u32::from(before));
                }
                self.unconfirmed.insert(*entry);
            }
            SeatingEvent::SeatsDrawn { seats, .. } => {
                for &(entry, table, seat) in seats {
                    if let Some(e) = self.entries.get_mut(&entry) {
                        let before = in_field(&e.status);
                        e.status = EntryStatus::Seated { table, seat };
                        self.field = (self.field + u32::from(in_field(&e.status)))
                            .saturating_sub(u32::from(before));
                    }
                    self.unconfirmed.insert(entry);
                }
            }
            SeatingEvent::SeatConfirmed { entry } => {
                if let Some(e) = self.entries.get_mut(entry) {
                    e.confirmed = true;
                }
                self.unconfirmed.remove(entry);
            }
            SeatingEvent::Busted {
                entry,
                table,
                starting_stack,
                by,
                occurred_at,
                held,
                ..
            } => {
                if let Some(e) = self.entries.get_mut(entry) {
                    let before = in_field(&e.status);
                    e.status = EntryStatus::Busted;
                    self.field = (self.field + u32::from(in_field(&e.status)))
                        .saturating_sub(u32::from(before));
                }
                match self.late.as_mut() {
                    // Numbered when the late entries close.
                    Some(late) if *held => {
                        let bust = Elimination {
                            entry: *entry,
                            starting_stack: *starting_stack,
                            by: by.clone(),
                            occurred_at: *occurred_at,
                        };
                        // One hand's busts: one table, one time.
                        match late.held.last_mut() {
                            Some(g)
                                if g.table == *table
                                    && g.occurred_at == *occurred_at
                                    && occurred_at.is_some() =>
                            {
                                g.busts.push(bust)
                            }
                            _ => late.held.push(LateGroup {
                                table: *table,
                                occurred_at: *occurred_at,
                                busts: vec![bust],
                            }),
                        }
                    }
                    _ => {
                        let k = self.next_out();
                        self.out.entry(*entry).or_insert(k);
                    }
                }
            }
            SeatingEvent::LateAnnounced { entry } => {
                self.announced.insert(*entry);
            }
            // Out of the field, refunded: as if never registered.
            SeatingEvent::NoShowReplaced { entry, .. } => {
                if let Some(e) = self.entries.get_mut(entry) {
                    let before = in_field(&e.status);
                    e.status = EntryStatus::Unregistered;
                    self.field = (self.field + u32::from(in_field(&e.status)))
                        .saturating_sub(u32::from(before));
                }
                self.no_shows.insert(*entry);
            }
            SeatingEvent::LateEntriesOpened { reason } => {
                self.late = Some(LateEntries {
                    reason: reason.clone(),
                    held: Vec::new(),
                });
            }
            SeatingEvent::LateEntriesClosed { groups } => {
                for b in groups.iter().flat_map(|g| &g.busts) {
                    let k = self.next_out();
                    self.out.entry(b.entry).or_insert(k);
                }
                self.late = None;
            }
            // Out of the field in the order players went out, like a bust.
            SeatingEvent::Disqualified { entry, .. } => {
                if let Some(e) = self.entries.get_mut(entry) {
                    let before = in_field(&e.status);
                    e.status = EntryStatus::Disqualified;
                    self.field = (self.field + u32::from(in_field(&e.status)))
                        .saturating_sub(u32::from(before));
                }
                let k = self.next_out();
                self.out.entry(*entry).or_insert(k);
            }
            // Gave up their chips: out like a bust, placed as they stand.
            SeatingEvent::Surrendered { entry, .. } => {
                if let Some(e) = self.entries.get_mut(entry) {
                    let before = in_field(&e.status);
                    e.status = EntryStatus::Busted;
                    self.field = (self.field + u32::from(in_field(&e.status)))
                        .saturating_sub(u32::from(before));
                }
                let k = self.next_out();
                self.out.entry(*entry).or_insert(k);
            }
            SeatingEvent::MoveStarted { r#move, detail } => {
                if let Some(e) = self.entries.get_mut(&r#move.entry) {
                    let before = in_field(&e.status);
                    e.status = EntryStatus::Seated {
                        table: r#move.to.0,
                        seat: r#move.to.1,
                    };
                    self.field = (self.field + u32::from(in_field(&e.status)))
                        .saturating_sub(u32::from(before));
                    e.moving = Some(r#move.id);
                }
                self.history.push_back(MoveRecord {
                    r#move: *r#move,
                    detail: detail.clone(),
                    completed: false,
                });
            }
            SeatingEvent::MoveCompleted { id, .. } => {
                if let Some(r) = self.history.iter_mut().rev().find(|r| r.r#move.id == *id) {
                    r.completed = true;
                    if let Some(e) = self.entries.get_mut(&r.r#move.entry) {
                        e.moving = None;
                    }
                }
            }
            SeatingEvent::MoveVoided { id } => {
                // A move that never happened leaves no record of moves.
                let at = self.history.iter().rposition(|r| r.r#move.id == *id);
                if let Some(r) = at.map(|i| self.history.remove(i)) {
                    let m = r.r#move;
                    if let Some(e) = self.entries.get_mut(&m.entry) {
                        e.moving = None;
                        let before = in_field(&e.status);
                        e.status = EntryStatus::Seated {
                            table: m.from.0,
                            seat: m.from.1,
                        };
                        self.field = (self.field + u32::from(in_field(&e.status)))
                            .saturating_sub(u32::from(before));
                    }
                }
            }
            _ => {}
        }
    }

    /// Entries whose name or player id contains `text` (case-insensitive),
    /// or whose entry number is `text`: the seat finder.
    pub fn find(&self, text: &str) -> Vec<(EntryId, &EntryInfo)> {
        let needle = text.trim().to_lowercase();
        let number: Option<EntryId> = needle.parse().ok();
        self.entries
            .iter()
            .filter(|(id, e)| {
                Some(**id) == number
                    || e.name.to_lowercase().contains(&needle)
                    || e.player.to_lowercase().contains(&needle)
            })
            .map(|(id, e)| (*id, e))
            .collect()
    }
}

/// Whether an entry in this status counts in the field.
fn in_field(status: &EntryStatus) -> bool {
    !matches!(status, EntryStatus::Alternate | EntryStatus::Unregistered)
}
