//! The room put in order after a command: new entries seated, hand-for-hand
//! on or off, redraws, tables broken and balanced, empty tables closed.
//! Each step emits events into a scratch copy of the room, so later steps
//! see earlier ones.

use rand::seq::{IndexedRandom, SliceRandom};
use rand_chacha::ChaCha20Rng;

use crate::model::{
    BreakOrder, EntryId, Move, MoveReason, Seat, SeatReason, SeatingEvent, Settings, TableNo,
};
use crate::state::{Room, SeatingState, Table};

/// The events being decided, applied to a scratch copy of the room as they
/// are made, so later decisions see earlier ones.
pub(crate) struct Work {
    pub(crate) room: Room,
    pub(crate) events: Vec<SeatingEvent>,
    /// Whether a late entry may still come (registration open, with late
    /// registration): the final table waits for the close.
    entries_may_come: bool,
    /// The field so far: entries and re-entries (seed 002's redraw points).
    entries: u32,
}

impl Work {
    /// Deciding on `state`'s room.
    pub(crate) fn on(state: &SeatingState) -> Self {
        Work {
            room: state.room.clone(),
            events: Vec::new(),
            entries: state.entries_in(),
            entries_may_come: !state.registration_closed
                && state
                    .settings()
                    .is_some_and(|s| s.late_registration_level > 0),
        }
    }

    pub(crate) fn emit(&mut self, event: SeatingEvent) {
        if matches!(event, SeatingEvent::RegistrationClosed) {
            self.entries_may_come = false;
        }
        self.room.apply(&event);
        self.events.push(event);
    }

    fn settings(&self) -> &Settings {
        self.room
            .settings
            .as_ref()
            .expect("work starts from a configured room")
    }

    pub(crate) fn start_move(
        &mut self,
        entry: EntryId,
        from: (TableNo, Seat),
        to: (TableNo, Seat),
        reason: MoveReason,
        detail: String,
    ) {
        let id = self.room.next_move.max(1);
        self.emit(SeatingEvent::MoveStarted {
            r#move: Move {
                id,
                entry,
                from,
                to,
                reason,
            },
            detail,
        });
    }
}

/// Splits players across tables as evenly as possible, the first tables
/// taking the extra players.
pub(crate) fn split_evenly<'a>(
    players: &'a [EntryId],
    tables: &[TableNo],
) -> Vec<(TableNo, &'a [EntryId])> {
    let n = tables.len();
    let base = players.len() / n;
    let extra = players.len() % n;
    let mut out = Vec::with_capacity(n);
    let mut at = 0;
    for (i, &t) in tables.iter().enumerate() {
        let k = base + usize::from(i < extra);
        out.push((t, &players[at..at + k]));
        at += k;
    }
    out
}

/// Tables that can receive players, with their counts.
fn open_tables(room: &Room) -> impl Iterator<Item = &Table> {
    room.tables.values().filter(|t| !t.breaking)
}

/// A random free seat at one of the shortest tables that has one (TDA 8,
/// 10: a random draw, keeping the tables even).
fn random_free_seat(room: &Room, rng: &mut ChaCha20Rng) -> Option<(TableNo, Seat)> {
    let has_free = |t: &Table| (1..=t.size()).any(|s| seat_free(room, t, s));
    let min = open_tables(room)
        .filter(|t| t.count() < u32::from(t.size()) && has_free(t))
        .map(Table::count)
        .min()?;
    let shortest: Vec<&Table> = open_tables(room)
        .filter(|t| t.count() == min && has_free(t))
        .collect();
    let table = shortest.choose(rng)?;
    let seats: Vec<Seat> = (1..=table.size())
        .filter(|&s| seat_free(room, table, s))
        .collect();
    Some((table.number, *seats.choose(rng)?))
}

/// A seat nobody holds, nor is still leaving.
fn seat_free(room: &Room, t: &Table, seat: Seat) -> bool {
    t.occupant(seat).is_none()
        && (room.leaving.is_empty() || !room.leaving.contains(&(t.number, seat)))
}

pub(crate) fn seat_new_entry(work: &mut Work, entry: EntryId, rng: &mut ChaCha20Rng) {
    let stack = work.settings().starting_stack;
    let (table, seat) = match random_free_seat(&work.room, rng) {
        Some(at) => at,
        None => {
            // Every table is full: open the next one.
            let number = work.room.next_table();
            let size = work.settings().table_size;
            work.emit(SeatingEvent::TableOpened {
                table: number,
                seats: size,
            });
            let mut seats: Vec<Seat> = (1..=size).collect();
            seats.shuffle(rng);
            (number, seats[0])
        }
    };
    work.emit(SeatingEvent::Seated {
        entry,
        table,
        seat,
        stack,
        reason: SeatReason::LateEntry,
    });
}

/// Puts the room in order after a change.
pub(crate) fn tidy(work: &mut Work, rng: &mut ChaCha20Rng) {
    order(work, rng);
    last_hands_played(work);
}

/// The day's last hands (rule 77) are played once every table has begun
/// them all and ended them (a table left with fewer than two players
/// plays no more): the day is over.
fn last_hands_played(work: &mut Work) {
    let room = &work.room;
    let Some(l) = &room.last_hands else {
        return;
    };
    if !l.over
        && room
            .tables
            .values()
            .all(|t| !t.in_hand && (l.left(t.number) == 0 || t.count() < 2))
    {
        work.emit(SeatingEvent::LastHandsPlayed);
    }
}

fn order(work: &mut Work, rng: &mut ChaCha20Rng) {
    hand_for_hand(work);
    play_down(work);
    // Nobody is moved while a disqualified player still holds a seat: the
    // room is put in order once their table has removed them.
    if work.room.removals.is_empty() {
        if redraws(work, rng) {
            return;
        }
        break_tables(work, rng);
        balance(work);
        close_empty(work);
    }
    hand_for_hand_round(work);
}

/// A day that ends at a count of players ("play down to 36"): hand for
/// hand once the count is within `hand_for_hand_distance` of it, and once
/// every table has ended its hand with that many or fewer left, the day is
/// over (no more hands: `LastHandsDrawn` with none).
fn play_down(work: &mut Work) {
    let room = &work.room;
    if room.last_hands.is_some() {
        return;
    }
    let target = work.settings().play_down_on(room.days_resumed);
    if target == 0 {
        return;
    }
    let players = room.players();
    if players <= target {
        if room.tables.values().any(|t| t.in_hand) {
            return;
        }
        if room.hand_for_hand.is_some() {
            work.emit(SeatingEvent::HandForHandEnded {
                remaining: players,
                round: room.hand_for_hand,
            });
        }
        work.emit(SeatingEvent::LastHandsDrawn { hands: 0 });
    } else if room.hand_for_hand.is_none()
        && players <= target.saturating_add(work.settings().hand_for_hand_distance)
        && room.tables.len() > 1
    {
        work.emit(SeatingEvent::HandForHandStarted {
            remaining: players,
            paid: target,
        });
    }
}

fn hand_for_hand(work: &mut Work) {
    let room = &work.room;
    let paid = room.paid;
    if paid == 0 || room.hand_for_hand_over {
        return;
    }
    let players = room.players();
    let distance = work.settings().hand_for_hand_distance;
    if room.hand_for_hand.is_none()
        && players > paid
        && players <= paid + distance
        && room.tables.len() > 1
    {
        work.emit(SeatingEvent::HandForHandStarted {
            remaining: players,
            paid,
        });
    } else if room.hand_for_hand.is_some() && players <= paid {
        work.emit(SeatingEvent::HandForHandEnded {
            remaining: players,
            round: room.hand_for_hand,
        });
    }
}

/// Calls and carries out redraws; true while one is pending (no other
/// seat changes then).
fn redraws(work: &mut Work, rng: &mut ChaCha20Rng) -> bool {
    let players = work.room.players();
    let tables = work.room.tables.len();
    if work.room.redraw.is_none() && players > 1 && tables > 1 {
        let settings = work.settings();
        // The final table is drawn once no late entry can come: one
        // seated after it would find no seat there.
        if !work.room.final_table && players <= u32::from(settings.final_table) {
            if work.entries_may_come {
                return false;
            }
            work.emit(SeatingEvent::RedrawCalled {
                players,
                reason: MoveReason::FinalTable,
            });
        } else {
            let mut counts = if settings.redraws_by_field {
                crate::model::redraws_for_field(work.entries, settings.table_size)
            } else {
                settings.redraws_at.clone()
            };
            counts.sort_unstable();
            if let Some(&at) = counts.iter().find(|&&c| {
                players <= c && c < work.room.started_with && !work.room.redrawn_at.contains(&c)
            }) {
                work.emit(SeatingEvent::RedrawCalled {
                    players: at,
                    reason: MoveReason::Redraw,
                });
            }
        }
    }
    let Some((_, reason)) = work.room.redraw else {
        return false;
    };
    if work.room.tables.values().any(|t| t.in_hand)
        || !work.room.moves.is_empty()
        || !work.room.unseated.is_empty()
    {
        return true;
    }
    redraw(work, reason, rng);
    false
}

/// Every player draws a new seat at the tables that stay (the ones the
/// break order breaks last); the final table may be a new table of its
/// own size.
fn redraw(work: &mut Work, reason: MoveReason, rng: &mut ChaCha20Rng) {
    let settings = work.settings().clone();
    let mut players: Vec<(EntryId, TableNo, Seat)> = Vec::new();
    for t in work.room.tables.values() {
        for s in 1..=t.size() {
            if let Some(e) = t.occupant(s) {
                players.push((e, t.number, s));
            }
        }
    }
    let order = break_order(&work.room, &settings.break_order);
    let mut targets: Vec<TableNo> = Vec::new();
    let count = players.len() as u32;
    if reason == MoveReason::FinalTable {
        let keep = *order.last().expect("a redraw has tables");
        if settings.final_table != work.room.tables[&keep].size() {
            let number = work.room.next_table();
            work.emit(SeatingEvent::TableOpened {
                table: number,
                seats: settings.final_table,
            });
            targets.push(number);
        } else {
            targets.push(keep);
        }
    } else {
        let n = count.div_ceil(u32::from(settings.table_size)) as usize;
        targets.extend(order.iter().rev().take(n.max(1)));
        targets.sort_unstable();
    }
    players.shuffle(rng);
    let entries: Vec<EntryId> = players.iter().map(|p| p.0).collect();
    let mut assignment = Vec::new();
    for (table, group) in split_evenly(&entries, &targets) {
        let size = work.room.tables[&table].size();
        let mut seats: Vec<Seat> = (1..=size).collect();
        seats.shuffle(rng);
        for (entry, seat) in group.iter().zip(seats) {
            assignment.push((*entry, table, seat));
        }
    }
    for (entry, table, seat) in assignment {
        let (_, from_t, from_s) = *players
            .iter()
            .find(|p| p.0 == entry)
            .expect("drawn from the players");
        if (from_t, from_s) != (table, seat) {
            let detail = format!("{count} players left");
            work.start_move(entry, (from_t, from_s), (table, seat), reason, detail);
        }
    }
    let others: Vec<TableNo> = work
        .room
        .tables
        .keys()
        .copied()
        .filter(|t| !targets.contains(t))
        .collect();
    for table in others {
        work.emit(SeatingEvent::TableBreaking { table });
    }
    work.emit(SeatingEvent::Redrawn { reason });
}

/// Tables in the order they break: first to break first.
fn break_order(room: &Room, order: &BreakOrder) -> Vec<TableNo> {
    let mut tables: Vec<TableNo> = room.tables.keys().copied().collect();
    match order {
        BreakOrder::HighestNumbered => tables.reverse(),
        BreakOrder::LowestNumbered => {}
        BreakOrder::Listed(list) => {
            tables.reverse();
            tables.sort_by_key(|t| list.iter().position(|l| l == t).unwrap_or(usize::MAX));
        }
        BreakOrder::Layout => {
            tables.reverse();
            // Unnamed first (by highest number), then from the layout's
            // end back.
            tables.sort_by_key(|t| {
                std::cmp::Reverse(room.physical.get(t).map(|&(_, position)| position))
            });
        }
    }
    tables
}

/// Breaks tables while the players fit at one table fewer (TDA 10), and
/// moves the players of breaking tables that are between hands.
fn break_tables(work: &mut Work, rng: &mut ChaCha20Rng) {
    let size = u32::from(work.settings().table_size);
    let needed = work.room.players().div_ceil(size).max(1) as usize;
    while open_tables(&work.room).count() > needed {
        let order = break_order(&work.room, &work.settings().break_order);
        // A table with an accommodated player (TDA 9) breaks last.
        let accommodates = |t: &TableNo| {
            work.room.tables[t]
                .seats
                .iter()
                .flatten()
                .any(|e| work.room.accommodated.contains(e))
        };
        let Some(&table) = order
            .iter()
            .find(|t| !work.room.tables[*t].breaking && !accommodates(t))
            .or_else(|| order.iter().find(|t| !work.room.tables[*t].breaking))
        else {
            break;
        };
        work.emit(SeatingEvent::TableBreaking { table });
    }
    let breaking: Vec<TableNo> = work
        .room
        .tables
        .values()
        .filter(|t| t.breaking && !t.in_hand)
        .map(|t| t.number)
        .collect();
    for table in breaking {
        // A double random draw: the players in random order, each to a
        // random open seat (at the shortest tables, keeping them even).
        let t = &work.room.tables[&table];
        let mut players: Vec<(EntryId, Seat)> = (1..=t.size())
            .filter(|&s| work.room.movable(table, s))
            .filter_map(|s| t.occupant(s).map(|e| (e, s)))
            .collect();
        players.shuffle(rng);
        for (entry, seat) in players {
            let Some(to) = random_free_seat(&work.room, rng) else {
                break;
            };
            work.start_move(
                entry,
                (table, seat),
                to,
                MoveReason::TableBroken,
                format!("table {table} broke"),
            );
        }
    }
}

/// TDA 11: while the longest table has more than `tolerance` players more
/// than the shortest, the player due the big blind next at a long table
/// between hands moves to the worst position at the shortest table: the
/// free seat that gets the big blind soonest (never the small blind).
fn balance(work: &mut Work) {
    let tolerance = u32::from(work.settings().balance.tolerance);
    for _ in 0..work.room.players() {
        let open: Vec<&Table> = open_tables(&work.room).collect();
        if open.len() < 2 {
            return;
        }
        let max = open.iter().map(|t| t.count()).max().unwrap_or(0);
        let min = open.iter().map(|t| t.count()).min().unwrap_or(0);
        if max - min <= tolerance {
            return;
        }
        let Some(long) = open
            .iter()
            .find(|t| t.count() == max && !t.in_hand)
            .map(|t| t.number)
        else {
            return;
        };
        let Some(short) = open
            .iter()
            .find(|t| t.count() == min && (1..=t.size()).any(|s| seat_free(&work.room, t, s)))
            .map(|t| t.number)
        else {
            return;
        };
        let l = &work.room.tables[&long];
        let mover = next_big_blind(&work.room, l);
        let s = &work.room.tables[&short];
        let to = worst_seat(&work.room, s);
        let (Some((entry, from)), Some(to)) = (mover, to) else {
            return;
        };
        let detail = format!("table {long} had {max}, table {short} had {min}");
        work.start_move(
            entry,
            (long, from),
            (short, to),
            MoveReason::Balance,
            detail,
        );
    }
}

/// The player who would post the big blind next (after the last hand's big
/// blind, clockwise); before any hand, the first player after seat 1.
fn next_big_blind(room: &Room, t: &Table) -> Option<(EntryId, Seat)> {
    let from = t.big_blind.unwrap_or(t.size());
    t.after(from)
        .chain(std::iter::once(from))
        .filter(|&s| room.movable(t.number, s))
        .filter_map(|s| t.occupant(s).map(|e| (e, s)))
        // Passing over an accommodated player (TDA 9): the next one.
        .find(|(e, _)| !room.accommodated.contains(e))
}

/// The free seat that gets the big blind soonest: the first free seat
/// clockwise after the last hand's big blind.
fn worst_seat(room: &Room, t: &Table) -> Option<Seat> {
    let from = t.big_blind.unwrap_or(t.size());
    t.after(from)
        .chain(std::iter::once(from))
        .find(|&s| seat_free(room, t, s))
}

/// Closes breaking tables left empty with nothing pending.
fn close_empty(work: &mut Work) {
    let empty: Vec<TableNo> = work
        .room
        .tables
        .values()
        .filter(|t| t.breaking && t.count() == 0 && work.room.pending_at(t.number) == 0)
        .map(|t| t.number)
        .collect();
    for table in empty {
        work.emit(SeatingEvent::TableClosed { table });
    }
}

/// Ends the hand-for-hand round when every table that can play has.
fn hand_for_hand_round(work: &mut Work) {
    let Some(round) = work.room.hand_for_hand else {
        return;
    };
    let mut playing = work
        .room
        .tables
        .values()
        .filter(|t| !t.breaking && t.count() >= 2)
        .peekable();
    if playing.peek().is_none() {
        return;
    }
    if playing.all(|t| t.hand_for_hand_done && !t.in_hand) {
        work.emit(SeatingEvent::HandForHandRound { round });
    }
}
