//! What a seating command means: one function per command. After every
//! command that changes who is where, the room is put in order (`order`):
//! hand-for-hand on or off, redraws, tables broken, tables balanced; each
//! only at tables between hands.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha20Rng;

use crate::SeatingError;
use crate::model::{
    Elimination, EntryId, PlayerId, Seat, SeatingCommand, SeatingEvent, Seed, Settings, TableNo,
};
use crate::order::{Work, seat_new_entry, split_evenly, tidy};
use crate::state::{EntryStatus, SeatingState, Table};

/// What a command means, or why it is refused (nothing changes then).
/// `seed` is the decision's randomness, drawn by the service when it
/// decides: a decision that draws (a late seat, the start's seats, tables
/// broken, a redraw) records it last, as `Drawn`.
pub fn decide(
    state: &SeatingState,
    command: &SeatingCommand,
    seed: &Seed,
) -> Result<Vec<SeatingEvent>, SeatingError> {
    let mut rng = ChaCha20Rng::from_seed(*seed);
    let mut events = decide_with(state, command, &mut rng)?;
    if rng.get_word_pos() != 0 {
        events.push(SeatingEvent::Drawn { seed: *seed });
    }
    Ok(events)
}

fn decide_with(state: &SeatingState, command: &SeatingCommand, rng: &mut ChaCha20Rng) -> Decided {
    use SeatingCommand::*;
    let Some(settings) = state.settings() else {
        return match command {
            Create { name, settings } => create(name, settings),
            _ => Err(SeatingError::NotCreated),
        };
    };
    if let Some(reason) = &state.cancelled {
        return Err(SeatingError::Cancelled {
            reason: reason.clone(),
        });
    }
    match command {
        Create { .. } => Err(SeatingError::AlreadyCreated),
        Cancel { reason } => cancel(state, reason),
        // The busiest command needs no copy of the room.
        BeginHand { table } => {
            gate(state, *table)?;
            Ok(vec![SeatingEvent::HandBegun { table: *table }])
        }
        RegisterMany { players, level } => register_many(state, players, *level, rng),
        Register {
            player,
            name,
            level,
        } => register(state, settings, player, name, *level, false, rng),
        RedeemTicket {
            player,
            name,
            level,
            ticket,
        } => redeem_ticket(state, settings, player, name, *level, ticket, rng),
        RecordTicket {
            ticket,
            cash_if_second,
        } => record_ticket(state, ticket, *cash_if_second),
        Unregister {
            entry,
            reason,
            fee_kept,
        } => unregister(state, *entry, reason, *fee_kept),
        Paid { payment, command } => paid(state, payment, command, rng),
        Start => start(state, settings, rng),
        CloseRegistration => close_registration(state, rng),
        SetPaid { paid } => set_paid(state, *paid, rng),
        StartHandForHand => start_hand_for_hand(state),
        StopHandForHand => stop_hand_for_hand(state),
        HoldTable { table, reason } => hold_table(state, *table, reason),
        Disqualify { entry, reason } => disqualify(state, settings, *entry, reason),
        MovePlayer {
            entry,
            table,
            seat,
            reason,
        } => move_player(state, *entry, *table, *seat, reason),
        SeatAlternates { count } => seat_alternates(state, settings, *count, rng),
        Accommodate {
            entry,
            accommodated,
            reason,
        } => accommodate(state, *entry, *accommodated, reason),
        ReEnterBySurrender {
            player,
            name,
            level,
        } => re_enter_by_surrender(state, settings, player, name, *level, rng),
        RemovalCompleted { entry, stack } => removal_completed(state, *entry, *stack, rng),
        SellAddOn { entry, level } => sell_add_on(state, settings, *entry, *level),
        AddOnDelivered { entry } => {
            let &(table, _, chips) = state
                .room
                .add_ons
                .get(entry)
                .ok_or(SeatingError::NoAddOnPending { entry: *entry })?;
            Ok(vec![SeatingEvent::AddOnDelivered {
                entry: *entry,
                table,
                chips,
            }])
        }
        SellRebuy {
            entry,
            level,
            stack,
            hands,
        } => sell_rebuy(state, settings, *entry, *level, *stack, *hands, rng),
        DeclineRebuy { entry } => {
            let table = offered(state, *entry)?;
            answered(
                state,
                SeatingEvent::RebuyDeclined {
                    entry: *entry,
                    table,
                },
                table,
                rng,
            )
        }
        PlayLastHands { hands } => {
            if !state.started {
                return Err(SeatingError::NotStarted);
            }
            if *hands != 0 && !(2..=5).contains(hands) {
                return Err(SeatingError::InvalidLastHands { hands: *hands });
            }
            if let Some(l) = &state.room.last_hands {
                return Err(SeatingError::LastHandsAlreadyDrawn { hands: l.hands });
            }
            let mut work = Work::on(state);
            work.emit(SeatingEvent::LastHandsDrawn { hands: *hands });
            tidy(&mut work, rng);
            Ok(work.events)
        }
        ResumeDay => {
            if state.room.last_hands.is_none() {
                return Err(SeatingError::NoDayEnded);
            }
            if let Some(b) = &state.room.bags
                && !b.sealed
                && !b.resumed
            {
                return Err(SeatingError::BagsNotSealed { open: b.bags.len() });
            }
            let new_draw = state
                .room
                .bags
                .as_ref()
                .is_some_and(|b| b.sealed && !b.resumed);
            let mut work = Work::on(state);
            work.emit(SeatingEvent::DayResumed);
            // Rule 7: the day starts from the sealed bags, every seat drawn
            // afresh.
            let players = work.room.players();
            if new_draw && players > 1 {
                work.emit(SeatingEvent::RedrawCalled {
                    players,
                    reason: crate::model::MoveReason::NewDay,
                });
            }
            tidy(&mut work, rng);
            Ok(work.events)
        }
        BagStacks { stacks, uncounted } => crate::bags::bag_stacks(state, stacks, uncounted),
        ConfirmBag { entry, by } => crate::bags::confirm_bag(state, *entry, *by),
        SealBags => crate::bags::seal_bags(state),
        AdvanceFlights { bags, out, resume } => crate::flights::advance(state, bags, *out, *resume),
        SetSeats { seats } => {
            if let Some(seats) = state.room.seats {
                return Err(SeatingError::SeatsAlreadySet { seats });
            }
            let mut work = Work::on(state);
            work.emit(SeatingEvent::SeatsSet { seats: *seats });
            seats_won(state, &mut work);
            Ok(work.events)
        }
        CloseRebuys => {
            if settings.rebuy.is_none() {
                return Err(SeatingError::NoRebuys);
            }
            if state.rebuys_closed {
                return Err(SeatingError::RebuysAlreadyClosed);
            }
            Ok(vec![SeatingEvent::RebuysClosed])
        }
        RebuyDelivered { entry } => {
            let &(table, _, chips, number) = state
                .room
                .rebuys
                .get(entry)
                .ok_or(SeatingError::NoRebuyPending { entry: *entry })?;
            Ok(vec![SeatingEvent::RebuyDelivered {
                entry: *entry,
                table,
                chips,
                number,
            }])
        }
        ReleaseTable { table } => release_table(state, *table),
        OpenLateEntries { reason } => open_late_entries(state, reason),
        AnnounceLate { entry } => announce_late(state, settings, *entry),
        NameTable {
            table,
            name,
            position,
        } => {
            if !state.room.tables.contains_key(table) {
                return Err(SeatingError::NoSuchTable { table: *table });
            }
            Ok(vec![SeatingEvent::TableNamed {
                table: *table,
                name: name.clone(),
                position: *position,
            }])
        }
        ReplaceNoShow {
            entry,
            played,
            reason,
        } => replace_no_show(state, settings, *entry, *played, reason, rng),
        CloseLateEntries => close_late_entries(state),
        HandEnded {
            table,
            button,
            big_blind,
            busted,
        } => hand_ended(state, *table, *button, *big_blind, busted, true, true, rng),
        ResultRecorded {
            table,
            button,
            big_blind,
            busted,
        } => result_recorded(state, *table, *button, *big_blind, busted, rng),
        SeatConfirmed { entry } => seat_confirmed(state, *entry, rng),
        MoveCompleted { id, stack } => move_completed(state, *id, *stack, rng),
    }
}

type Decided = Result<Vec<SeatingEvent>, SeatingError>;

/// A tournament's seating, once, with valid settings.
fn create(name: &str, settings: &Settings) -> Decided {
    check_settings(settings)?;
    Ok(vec![SeatingEvent::Created {
        name: name.to_string(),
        settings: settings.clone(),
    }])
}

/// Many registrations at once, each decided as `Register`, in order, their
/// draws one after the other: all or none.
fn register_many(
    state: &SeatingState,
    players: &[(PlayerId, String)],
    level: u32,
    rng: &mut ChaCha20Rng,
) -> Decided {
    if players.is_empty() {
        return Err(SeatingError::NoPlayer);
    }
    let mut scratch = state.clone();
    let mut events = Vec::new();
    for (player, name) in players {
        let one = decide_with(
            &scratch,
            &SeatingCommand::Register {
                player: player.clone(),
                name: name.clone(),
                level,
            },
            rng,
        )?;
        for e in &one {
            scratch.apply(e);
        }
        events.extend(one);
    }
    Ok(events)
}

/// A satellite's seat in this event won, in the ledger of seats won. A
/// player who already holds one here (in the ledger, or redeemed) gets
/// the satellite's alternative for a second seat: where that is cash,
/// this ticket is void (never redeemed; the satellite pays its value). A
/// ticket already redeemed (its word came late) is recorded as it is.
fn record_ticket(
    state: &SeatingState,
    ticket: &crate::model::Ticket,
    cash_if_second: bool,
) -> Decided {
    let reference = ticket.reference();
    if state.ledger(&reference).is_some() {
        return Err(SeatingError::TicketKnown { reference });
    }
    let redeemed = state.tickets.contains_key(&reference);
    match state.seat_held(&ticket.holder, &reference) {
        Some(held) if cash_if_second && !redeemed => Ok(vec![SeatingEvent::TicketVoided {
            ticket: ticket.clone(),
            held: held.to_string(),
        }]),
        _ => Ok(vec![SeatingEvent::TicketRecorded {
            ticket: ticket.clone(),
        }]),
    }
}

/// A registration paid by a satellite's ticket: the ticket is the
/// holder's and redeemed once; the entry is outside the cap (a seat won
/// is a seat), and the cage records the ticket as its payment.
fn redeem_ticket(
    state: &SeatingState,
    settings: &Settings,
    player: &PlayerId,
    name: &str,
    level: u32,
    ticket: &crate::model::Ticket,
    rng: &mut ChaCha20Rng,
) -> Decided {
    let reference = ticket.reference();
    if ticket.holder != *player {
        return Err(SeatingError::TicketNotTheirs {
            reference,
            holder: ticket.holder.clone(),
            player: player.clone(),
        });
    }
    if let Some(&entry) = state.tickets.get(&reference) {
        return Err(SeatingError::TicketRedeemed { reference, entry });
    }
    if let Some((player, true)) = state.ledger(&reference) {
        let held = state
            .seat_held(player, &reference)
            .unwrap_or_default()
            .to_string();
        return Err(SeatingError::TicketVoid {
            reference,
            player: player.clone(),
            held,
        });
    }
    let mut events = register(state, settings, player, name, level, true, rng)?;
    let Some(entry) = events.iter().find_map(|e| match e {
        SeatingEvent::Registered { entry, .. } => Some(*entry),
        _ => None,
    }) else {
        return Ok(events);
    };
    events.push(SeatingEvent::PaymentTaken {
        entry,
        purchase: crate::model::Purchase::Entry,
        payment: crate::model::Payment {
            method: crate::model::PaymentMethod::Ticket,
            reference,
        },
    });
    Ok(events)
}

/// A registration or a re-entry, within the settings' limits; once play
/// started, a late entry is seated at once (TDA 7). `outside_cap`: a
/// ticket's entry, never an alternate.
fn register(
    state: &SeatingState,
    settings: &Settings,
    player: &PlayerId,
    name: &str,
    level: u32,
    outside_cap: bool,
    rng: &mut ChaCha20Rng,
) -> Decided {
    let mut work = Work::on(state);
    if state.registration_closed {
        return Err(SeatingError::RegistrationClosed);
    }
    if state.started && level > settings.late_registration_level {
        return Err(SeatingError::LateRegistrationOver {
            level,
            last: settings.late_registration_level,
        });
    }
    let entries = state.by_player.get(player).map_or(&[][..], |v| &v[..]);
    if entries
        .iter()
        .any(|e| state.entries[e].status == EntryStatus::Disqualified)
    {
        return Err(SeatingError::PlayerDisqualified {
            player: player.clone(),
        });
    }
    let live: Vec<EntryId> = entries
        .iter()
        .copied()
        .filter(|e| {
            !matches!(
                state.entries[e].status,
                EntryStatus::Busted | EntryStatus::Unregistered
            )
        })
        .collect();
    if let Some(&entry) = live.first() {
        return Err(SeatingError::AlreadyRegistered {
            player: player.clone(),
            entry,
        });
    }
    let busted = entries
        .iter()
        .filter(|e| state.entries[*e].status == EntryStatus::Busted)
        .count() as u32;
    let re_entry = busted > 0;
    if re_entry && busted > settings.re_entries {
        return Err(SeatingError::ReEntryLimit {
            player: player.clone(),
            limit: settings.re_entries,
        });
    }
    // Tickets' entries are outside the cap.
    let capped = state
        .entries_in()
        .saturating_sub(u32::try_from(state.tickets.len()).unwrap_or(u32::MAX));
    let alternate = !outside_cap && settings.max_entries.is_some_and(|max| capped >= max);
    if !alternate && state.entries_in() >= crate::MAX_ENTRIES {
        return Err(SeatingError::FieldFull {
            max: crate::MAX_ENTRIES,
        });
    }
    // A flight's entries keep their numbers in its event.
    let entry = EntryId(
        u64::from(settings.flight) * crate::FLIGHT_ENTRIES + state.entries.len() as u64 + 1,
    );
    work.emit(SeatingEvent::Registered {
        entry,
        player: player.clone(),
        name: name.to_string(),
        re_entry,
        alternate,
    });
    if state.started && !alternate {
        seat_new_entry(&mut work, entry, rng);
        tidy(&mut work, rng);
    }
    Ok(work.events)
}

/// An entry withdrawn before play; the first alternate takes its place.
/// A purchase with its payment: decided as the purchase, then each thing
/// it bought recorded as paid with `payment`.
fn paid(
    state: &SeatingState,
    payment: &crate::model::Payment,
    command: &SeatingCommand,
    rng: &mut ChaCha20Rng,
) -> Decided {
    use crate::model::Purchase;
    text("a payment's reference", &payment.reference, MAX_REFERENCE).map_err(|e| {
        SeatingError::InvalidPayment {
            reason: e.to_string(),
        }
    })?;
    if payment.method == crate::model::PaymentMethod::Ticket {
        return Err(SeatingError::InvalidPayment {
            reason: "a satellite's ticket is redeemed by naming it at registration, not recorded as a payment".into(),
        });
    }
    if !matches!(
        command,
        SeatingCommand::Register { .. }
            | SeatingCommand::RegisterMany { .. }
            | SeatingCommand::ReEnterBySurrender { .. }
            | SeatingCommand::SellAddOn { .. }
            | SeatingCommand::SellRebuy { .. }
    ) {
        return Err(SeatingError::InvalidPayment {
            reason: "a payment goes with a registration, a re-entry, an add-on or a rebuy".into(),
        });
    }
    let mut events = decide_with(state, command, rng)?;
    let taken: Vec<SeatingEvent> = events
        .iter()
        .filter_map(|e| {
            let (entry, purchase) = match e {
                SeatingEvent::Registered { entry, .. } => (*entry, Purchase::Entry),
                SeatingEvent::AddOnSold { entry, .. } => (*entry, Purchase::AddOn),
                SeatingEvent::RebuySold { entry, number, .. } => {
                    (*entry, Purchase::Rebuy { number: *number })
                }
                _ => return None,
            };
            Some(SeatingEvent::PaymentTaken {
                entry,
                purchase,
                payment: payment.clone(),
            })
        })
        .collect();
    events.extend(taken);
    Ok(events)
}

/// The longest reason a refund or a cancellation gives, and the longest
/// payment reference.
const MAX_REASON: usize = 500;
const MAX_REFERENCE: usize = 64;

/// Text of at most `max` characters, none a control character (empty
/// allowed: where one is required, the caller says so).
fn text(what: &'static str, value: &str, max: usize) -> Result<(), SeatingError> {
    let len = value.chars().count();
    if len > max || value.chars().any(char::is_control) {
        return Err(SeatingError::InvalidText { what, len, max });
    }
    Ok(())
}

/// Players left and places paid, once the money is reached: payout has
/// paid prizes from the pool, which grows no more (no add-on, no rebuy).
fn in_the_money(state: &SeatingState) -> Option<(u32, u32)> {
    let (left, paid) = (state.room.players(), state.room.paid);
    (paid > 0 && left < paid).then_some((left, paid))
}

/// The director cancels the tournament before play: every entry, the
/// alternates' too, refunded with the reason.
fn cancel(state: &SeatingState, reason: &str) -> Decided {
    if reason.trim().is_empty() {
        return Err(SeatingError::NoReason);
    }
    text("a cancellation's reason", reason, MAX_REASON)?;
    if state.started {
        return Err(SeatingError::CancelAfterStart);
    }
    let refund = format!("the tournament was cancelled: {reason}");
    let mut events: Vec<SeatingEvent> = state
        .entries
        .iter()
        .filter(|(_, e)| matches!(e.status, EntryStatus::Registered | EntryStatus::Alternate))
        .map(|(&entry, e)| SeatingEvent::Unregistered {
            entry,
            alternate: e.status == EntryStatus::Alternate,
            reason: refund.clone(),
            fee_kept: false,
        })
        .collect();
    events.push(SeatingEvent::Cancelled {
        reason: reason.to_string(),
    });
    Ok(events)
}

fn unregister(state: &SeatingState, entry: EntryId, reason: &str, fee_kept: bool) -> Decided {
    text("a refund's reason", reason, MAX_REASON)?;
    let mut work = Work::on(state);
    let e = state
        .entries
        .get(&entry)
        .ok_or(SeatingError::NoSuchEntry { entry })?;
    if state.started {
        return Err(SeatingError::AlreadyPlaying { entry });
    }
    if !matches!(e.status, EntryStatus::Registered | EntryStatus::Alternate) {
        return Err(SeatingError::NoSuchEntry { entry });
    }
    // A ticket's entry was outside the cap: nobody takes its place.
    let ticket = state.tickets.values().any(|&t| t == entry);
    work.emit(SeatingEvent::Unregistered {
        entry,
        alternate: e.status == EntryStatus::Alternate,
        reason: reason.to_string(),
        fee_kept: fee_kept && !ticket,
    });
    if e.status == EntryStatus::Registered
        && !ticket
        && let Some((&first, _)) = state
            .entries
            .iter()
            .find(|(_, e)| e.status == EntryStatus::Alternate)
    {
        work.emit(SeatingEvent::AlternatePromoted { entry: first });
    }
    Ok(work.events)
}

/// Play starts: tables opened and every entry drawn a seat (TDA 7).
fn start(state: &SeatingState, settings: &Settings, rng: &mut ChaCha20Rng) -> Decided {
    let mut work = Work::on(state);
    if state.started {
        return Err(SeatingError::AlreadyStarted);
    }
    let mut players: Vec<EntryId> = state
        .entries
        .iter()
        .filter(|(_, e)| e.status == EntryStatus::Registered)
        .map(|(&id, _)| id)
        .collect();
    if players.len() < 2 {
        return Err(SeatingError::TooFewPlayers {
            players: players.len() as u32,
        });
    }
    let size = u32::from(settings.table_size);
    let n = (players.len() as u32).div_ceil(size);
    work.emit(SeatingEvent::Started {
        players: players.len() as u32,
    });
    for t in 1..=n {
        work.emit(SeatingEvent::TableOpened {
            table: t,
            seats: settings.table_size,
        });
    }
    // TDA 7: random seats, tables filled evenly.
    players.shuffle(rng);
    let tables: Vec<TableNo> = (1..=n).collect();
    let mut drawn = Vec::with_capacity(players.len());
    for (table, group) in split_evenly(&players, &tables) {
        let mut seats: Vec<Seat> = (1..=settings.table_size).collect();
        seats.shuffle(rng);
        for (entry, seat) in group.iter().zip(seats) {
            drawn.push((*entry, table, seat));
        }
    }
    // One fact for the whole draw: ten thousand seats are a small
    // message, ten thousand events a large one.
    work.emit(SeatingEvent::SeatsDrawn {
        stack: settings.starting_stack,
        seats: drawn,
    });
    tidy(&mut work, rng);
    Ok(work.events)
}

/// Registration closes; the room is put in order again (a final table
/// that waited for the close is drawn).
fn close_registration(state: &SeatingState, rng: &mut ChaCha20Rng) -> Decided {
    let mut work = Work::on(state);
    if state.registration_closed {
        return Err(SeatingError::RegistrationClosed);
    }
    work.emit(SeatingEvent::RegistrationClosed);
    if state.started {
        tidy(&mut work, rng);
    }
    Ok(work.events)
}

/// The number of places paid; the room is put in order again (the final
/// table, hand-for-hand).
fn set_paid(state: &SeatingState, paid: u32, rng: &mut ChaCha20Rng) -> Decided {
    let mut work = Work::on(state);
    if state.room.paid_set {
        return Err(SeatingError::PaidAlreadySet {
            paid: state.room.paid,
        });
    }
    work.emit(SeatingEvent::PaidSet { paid });
    if state.started {
        tidy(&mut work, rng);
    }
    Ok(work.events)
}

/// The floor starts hand-for-hand (RP8).
fn start_hand_for_hand(state: &SeatingState) -> Decided {
    let mut work = Work::on(state);
    if !state.started {
        return Err(SeatingError::NotStarted);
    }
    let refused = |reason: String| Err(SeatingError::HandForHand { reason });
    if state.room.hand_for_hand.is_some() {
        return refused("already being played".into());
    }
    let playing = state
        .room
        .tables
        .values()
        .filter(|t| t.count() >= 2)
        .count();
    if playing < 2 {
        return refused(format!("it needs two tables in play, there are {playing}"));
    }
    work.emit(SeatingEvent::HandForHandStarted {
        remaining: state.room.players(),
        paid: state.room.paid,
    });
    Ok(work.events)
}

fn stop_hand_for_hand(state: &SeatingState) -> Decided {
    let mut work = Work::on(state);
    if state.room.hand_for_hand.is_none() {
        return Err(SeatingError::HandForHand {
            reason: "it is not being played".into(),
        });
    }
    work.emit(SeatingEvent::HandForHandEnded {
        remaining: state.room.players(),
        round: state.room.hand_for_hand,
    });
    Ok(work.events)
}

/// A table's hand ended: its button and big blind, its busts numbered in
/// the order out (with the hand-for-hand round they busted in), and the
/// room put in order.
/// `ends`: the hand in play at the table ends (a result reported after the
/// table began a recorded hand records its busts only). With `offer`,
/// busted players who may rebuy are offered it first (rule 27), and the
/// hand ends once every offer is answered.
#[allow(clippy::too_many_arguments)]
fn hand_ended(
    state: &SeatingState,
    table: TableNo,
    button: Seat,
    big_blind: Seat,
    busted: &[Elimination],
    ends: bool,
    offer: bool,
    rng: &mut ChaCha20Rng,
) -> Decided {
    let mut work = Work::on(state);
    let t = state
        .room
        .tables
        .get(&table)
        .ok_or(SeatingError::NoSuchTable { table })?;
    if !t.in_hand {
        return Err(SeatingError::NoHand { table });
    }
    for s in [button, big_blind] {
        if s == 0 || s > t.size() {
            return Err(SeatingError::NoSuchSeat { table, seat: s });
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    for Elimination { entry, .. } in busted {
        let at = t.seat_of(*entry);
        if at.is_none()
            || !seen.insert(*entry)
            || state.room.leaving.contains(&(table, at.unwrap_or(0)))
        {
            return Err(SeatingError::NotAtTable {
                entry: *entry,
                table,
            });
        }
    }
    // A disqualified player who lost their chips in the hand they were
    // playing has left the table: nothing is left to remove.
    let (gone, busted): (Vec<&Elimination>, Vec<&Elimination>) = busted
        .iter()
        .partition(|b| state.room.removals.contains_key(&b.entry));
    if busted.len() as u32 >= state.room.players() {
        return Err(SeatingError::EveryoneBusted);
    }
    let offered = if ends && offer {
        rebuy_offers(state, &busted)
    } else {
        Vec::new()
    };
    if !offered.is_empty() {
        for b in gone {
            work.emit(SeatingEvent::RemovalCompleted {
                entry: b.entry,
                stack: 0,
            });
        }
        work.emit(SeatingEvent::RebuysOffered {
            table,
            button,
            big_blind,
            busted: busted.into_iter().cloned().collect(),
            offered,
        });
        return Ok(work.events);
    }
    let round = t.round;
    if ends {
        work.emit(SeatingEvent::HandEnded {
            table,
            button,
            big_blind,
            hand_for_hand_round: round,
        });
    }
    for b in gone {
        work.emit(SeatingEvent::RemovalCompleted {
            entry: b.entry,
            stack: 0,
        });
    }
    // While the floor enters facts late, a hand's busts wait to be
    // numbered in the order they happened (a hand-for-hand hand's are
    // placed by their round, RP8, and never wait).
    let held = state.late.is_some() && round.is_none();
    for bust in busted {
        let remaining = work.room.players() - 1;
        work.emit(SeatingEvent::Busted {
            entry: bust.entry,
            table,
            starting_stack: bust.starting_stack,
            by: bust.by.clone(),
            remaining,
            hand_for_hand_round: round,
            occurred_at: bust.occurred_at,
            held,
        });
    }
    tidy(&mut work, rng);
    seats_won(state, &mut work);
    Ok(work.events)
}

/// A satellite's play is over once no more players are left than seats
/// and no table is playing a hand: every player left wins one.
fn seats_won(state: &SeatingState, work: &mut Work) {
    let room = &work.room;
    let Some(seats) = room.seats else { return };
    if room.seats_won
        || !state.started
        || room.players() > seats
        || room.tables.values().any(|t| t.in_hand)
    {
        return;
    }
    let out: std::collections::BTreeSet<EntryId> = work
        .events
        .iter()
        .filter_map(|e| match e {
            SeatingEvent::Busted { entry, .. } => Some(*entry),
            _ => None,
        })
        .chain(room.removals.keys().copied())
        .collect();
    let entries: Vec<EntryId> = state
        .entries
        .iter()
        .filter(|(id, e)| matches!(e.status, EntryStatus::Seated { .. }) && !out.contains(id))
        .map(|(id, _)| *id)
        .collect();
    work.emit(SeatingEvent::SeatsWon { entries });
}

/// The busted players who may rebuy (rule 27): while rebuys are sold and
/// the money is not reached, each with rebuys left.
fn rebuy_offers(state: &SeatingState, busted: &[&Elimination]) -> Vec<EntryId> {
    let Some(terms) = state.settings().and_then(|s| s.rebuy) else {
        return Vec::new();
    };
    if state.rebuys_closed || in_the_money(state).is_some() {
        return Vec::new();
    }
    busted
        .iter()
        .map(|b| b.entry)
        .filter(|e| state.rebuys.get(e).map_or(0, |r| r.0) < terms.limit)
        .collect()
}

/// Whether `table`'s hand is over but for its rebuy offers: chips sold
/// to a player there now reach the stack before its next hand.
fn answering(state: &SeatingState, table: TableNo) -> bool {
    state.room.offers.contains_key(&table)
}

/// The table where `entry` was offered a rebuy and has not answered.
fn offered(state: &SeatingState, entry: EntryId) -> Result<TableNo, SeatingError> {
    state
        .room
        .offers
        .iter()
        .find(|(_, o)| o.waiting.contains(&entry))
        .map(|(t, _)| *t)
        .ok_or(SeatingError::NoRebuyOffer { entry })
}

/// An answer to a rebuy offer at `table`: the last one there ends the
/// hand, recording the busts of those who did not rebuy together.
fn answered(
    state: &SeatingState,
    answer: SeatingEvent,
    table: TableNo,
    rng: &mut ChaCha20Rng,
) -> Decided {
    let mut after = state.clone();
    after.apply(&answer);
    let mut events = vec![answer];
    if let Some(o) = after
        .room
        .offers
        .get(&table)
        .filter(|o| o.waiting.is_empty())
    {
        let (button, big_blind, busted) = (o.button, o.big_blind, o.busted.clone());
        events.extend(hand_ended(
            &after, table, button, big_blind, &busted, true, false, rng,
        )?);
    }
    Ok(events)
}

/// The floor holds a table's next hand while it rules there; the hand in
/// play, if any, is played out.
fn hold_table(state: &SeatingState, table: TableNo, reason: &str) -> Decided {
    if !state.started {
        return Err(SeatingError::NotStarted);
    }
    let t = state
        .room
        .tables
        .get(&table)
        .ok_or(SeatingError::NoSuchTable { table })?;
    if let Some(held) = &t.held {
        return Err(SeatingError::AlreadyHeld {
            table,
            reason: held.clone(),
        });
    }
    if reason.trim().is_empty() {
        return Err(SeatingError::NoReason);
    }
    Ok(vec![SeatingEvent::TableHeld {
        table,
        reason: reason.to_string(),
    }])
}

/// Where a player in play sits, once settled there (not being seated,
/// moved or removed): the floor's rulings on a player take them there.
fn settled(state: &SeatingState, entry: EntryId) -> Result<(TableNo, Seat), SeatingError> {
    if !state.started {
        return Err(SeatingError::NotStarted);
    }
    let e = state
        .entries
        .get(&entry)
        .ok_or(SeatingError::NoSuchEntry { entry })?;
    let EntryStatus::Seated { table, seat } = e.status else {
        return Err(SeatingError::NotPlaying { entry });
    };
    if !state.room.movable(table, seat) {
        return Err(SeatingError::NotSettled { entry });
    }
    Ok((table, seat))
}

/// The floor sells the house's add-on to a seated player, one per entry,
/// through the break after its last level, between their table's hands:
/// the next hand there waits for the chips.
fn sell_add_on(state: &SeatingState, settings: &Settings, entry: EntryId, level: u32) -> Decided {
    let terms = settings.add_on.ok_or(SeatingError::NoAddOn)?;
    let (table, seat) = settled(state, entry)?;
    if level > terms.last_level {
        return Err(SeatingError::AddOnWindowClosed {
            level,
            last: terms.last_level,
        });
    }
    if state.add_ons.contains_key(&entry) {
        return Err(SeatingError::AddOnBought { entry });
    }
    if let Some((left, paid)) = in_the_money(state) {
        return Err(SeatingError::AddOnInTheMoney { left, paid });
    }
    if state.room.tables.get(&table).is_some_and(|t| t.in_hand) && !answering(state, table) {
        return Err(SeatingError::AddOnInHand { table });
    }
    Ok(vec![SeatingEvent::AddOnSold {
        entry,
        table,
        seat,
        chips: terms.chips,
    }])
}

/// The floor sells a rebuy (rule 27): in its window, within the limit,
/// to a seated player between hands whose stack, read after the table's
/// last hand, is at or below the starting stack; the chips reach the
/// stack before the next hand, which waits for them, so a player who
/// announced the rebuy plays that hand with them.
fn sell_rebuy(
    state: &SeatingState,
    settings: &Settings,
    entry: EntryId,
    level: u32,
    stack: crate::model::Chips,
    hands: u64,
    rng: &mut ChaCha20Rng,
) -> Decided {
    let terms = settings.rebuy.ok_or(SeatingError::NoRebuys)?;
    let bought = state.rebuys.get(&entry).map_or(0, |r| r.0);
    // A player who busted while rebuys were sold, offered one: the offer
    // stands whatever the clock did since.
    if let Ok(table) = offered(state, entry) {
        let seat = state
            .room
            .tables
            .get(&table)
            .and_then(|t| t.seat_of(entry))
            .ok_or(SeatingError::NotAtTable { entry, table })?;
        let sold = SeatingEvent::RebuySold {
            entry,
            table,
            seat,
            chips: terms.chips,
            stack: 0,
            number: bought + 1,
        };
        return answered(state, sold, table, rng);
    }
    let (table, seat) = settled(state, entry)?;
    if terms.condition == crate::model::RebuyCondition::Busted {
        return Err(SeatingError::RebuyOnlyWhenBusted { entry });
    }
    if level > terms.last_level || state.rebuys_closed {
        return Err(SeatingError::RebuyWindowClosed {
            level,
            last: terms.last_level,
        });
    }
    if state.room.rebuys.contains_key(&entry) {
        return Err(SeatingError::RebuyOnItsWay { entry });
    }
    if bought >= terms.limit {
        return Err(SeatingError::RebuyLimit {
            entry,
            limit: terms.limit,
        });
    }
    if let Some((left, paid)) = in_the_money(state) {
        return Err(SeatingError::RebuyInTheMoney { left, paid });
    }
    let t = state
        .room
        .tables
        .get(&table)
        .ok_or(SeatingError::NoSuchTable { table })?;
    if t.in_hand && !answering(state, table) {
        return Err(SeatingError::RebuyInHand { table });
    }
    if t.hands != hands {
        return Err(SeatingError::RebuyStackStale {
            table,
            read: hands,
            now: t.hands,
        });
    }
    if stack > settings.starting_stack {
        return Err(SeatingError::RebuyAboveStart {
            entry,
            stack,
            starting: settings.starting_stack,
        });
    }
    Ok(vec![SeatingEvent::RebuySold {
        entry,
        table,
        seat,
        chips: terms.chips,
        stack,
        number: bought + 1,
    }])
}

/// The director disqualifies a player (TDA 71): out of the field now, in
/// the place the house rule gives; the seat is held until the table has
/// removed the player and their chips.
fn disqualify(state: &SeatingState, settings: &Settings, entry: EntryId, reason: &str) -> Decided {
    let (table, seat) = settled(state, entry)?;
    if reason.trim().is_empty() {
        return Err(SeatingError::NoReason);
    }
    if state.late.is_some() {
        return Err(SeatingError::WaitForLateEntries {
            what: "disqualified",
        });
    }
    let players = state.room.players();
    if players < 2 {
        return Err(SeatingError::EveryoneBusted);
    }
    Ok(vec![SeatingEvent::Disqualified {
        entry,
        table,
        seat,
        reason: reason.to_string(),
        placed: settings.disqualification == crate::model::Disqualification::PlacedAsTheyStand,
        remaining: players - 1,
    }])
}

/// The floor records a player's call to say they will be late (seed 003):
/// they sit out until they arrive, and are never replaced.
fn announce_late(state: &SeatingState, settings: &Settings, entry: EntryId) -> Decided {
    if settings.late_arrival_minutes.is_none() {
        return Err(SeatingError::NoLateArrivalRule);
    }
    let e = state
        .entries
        .get(&entry)
        .ok_or(SeatingError::NoSuchEntry { entry })?;
    if !matches!(
        e.status,
        EntryStatus::Registered | EntryStatus::Seated { .. }
    ) {
        return Err(SeatingError::NotPlaying { entry });
    }
    if state.announced.contains(&entry) {
        return Err(SeatingError::ArrivalAnnounced { entry });
    }
    Ok(vec![SeatingEvent::LateAnnounced { entry }])
}

/// Seed 003's late-arrival rule: a player who has not arrived once the
/// tolerance has been played, and did not call ahead, gives their place to
/// the first alternate waiting. Their entry leaves the field (refunded),
/// their table removes them and their seat's chips from play, and the
/// alternate is seated by the draw like a late entry (TDA 8).
fn replace_no_show(
    state: &SeatingState,
    settings: &Settings,
    entry: EntryId,
    played: u64,
    reason: &str,
    rng: &mut ChaCha20Rng,
) -> Decided {
    let minutes = settings
        .late_arrival_minutes
        .ok_or(SeatingError::NoLateArrivalRule)?;
    if !state.started {
        return Err(SeatingError::NotStarted);
    }
    if state.registration_closed {
        return Err(SeatingError::RegistrationClosed);
    }
    if reason.trim().is_empty() {
        return Err(SeatingError::NoReason);
    }
    let (table, seat) = settled(state, entry)?;
    if state.announced.contains(&entry) {
        return Err(SeatingError::ArrivalAnnounced { entry });
    }
    if played < u64::from(minutes) * 60_000 {
        return Err(SeatingError::ToleranceRunning {
            minutes,
            played: played / 60_000,
        });
    }
    let alternate = state
        .entries
        .iter()
        .find(|(_, e)| e.status == EntryStatus::Alternate)
        .map(|(&id, _)| id)
        .ok_or(SeatingError::NoAlternates {
            count: 1,
            waiting: 0,
        })?;
    let mut work = Work::on(state);
    work.emit(SeatingEvent::NoShowReplaced {
        entry,
        table,
        seat,
        alternate,
        reason: reason.to_string(),
    });
    work.emit(SeatingEvent::AlternatePromoted { entry: alternate });
    seat_new_entry(&mut work, alternate, rng);
    tidy(&mut work, rng);
    Ok(work.events)
}

/// The floor opens the late entries before it enters what happened while
/// the room ran on paper: the busts seating hears of from now are held.
fn open_late_entries(state: &SeatingState, reason: &str) -> Decided {
    if reason.trim().is_empty() {
        return Err(SeatingError::NoReason);
    }
    if let Some(late) = &state.late {
        return Err(SeatingError::LateEntriesOpen {
            reason: late.reason.clone(),
        });
    }
    Ok(vec![SeatingEvent::LateEntriesOpened {
        reason: reason.to_string(),
    }])
}

/// The floor closes the late entries: the held busts are out of the field
/// hand by hand in the order they happened, whatever order they were
/// entered in.
fn close_late_entries(state: &SeatingState) -> Decided {
    let late = state.late.as_ref().ok_or(SeatingError::NoLateEntries)?;
    Ok(vec![SeatingEvent::LateEntriesClosed {
        groups: late.in_order(),
    }])
}

/// The director accommodates a player with special needs (TDA 9), or
/// stops; the room is not reordered for it.
fn accommodate(state: &SeatingState, entry: EntryId, on: bool, reason: &str) -> Decided {
    let e = state
        .entries
        .get(&entry)
        .ok_or(SeatingError::NoSuchEntry { entry })?;
    if matches!(
        e.status,
        EntryStatus::Busted | EntryStatus::Disqualified | EntryStatus::Unregistered
    ) {
        return Err(SeatingError::NotPlaying { entry });
    }
    if reason.trim().is_empty() {
        return Err(SeatingError::NoReason);
    }
    if state.room.accommodated.contains(&entry) == on {
        return Err(SeatingError::AlreadyAccommodated {
            entry,
            accommodated: on,
        });
    }
    Ok(vec![SeatingEvent::Accommodated {
        entry,
        accommodated: on,
        reason: reason.to_string(),
    }])
}

/// A player gives up their live entry's chips for a new entry (TDA 8):
/// the old entry is out, placed as it stands, its chips leaving play when
/// its table removes them; the new one is registered as any re-entry.
fn re_enter_by_surrender(
    state: &SeatingState,
    settings: &Settings,
    player: &PlayerId,
    name: &str,
    level: u32,
    rng: &mut ChaCha20Rng,
) -> Decided {
    if !state.started {
        return Err(SeatingError::NotStarted);
    }
    if state.late.is_some() {
        return Err(SeatingError::WaitForLateEntries {
            what: "out by giving up their chips",
        });
    }
    if !settings.re_entry_by_surrender {
        return Err(SeatingError::SurrenderNotAllowed {
            player: player.clone(),
        });
    }
    let live = state
        .by_player
        .get(player)
        .and_then(|entries| {
            entries
                .iter()
                .copied()
                .find(|e| matches!(state.entries[e].status, EntryStatus::Seated { .. }))
        })
        .ok_or_else(|| SeatingError::NothingToSurrender {
            player: player.clone(),
        })?;
    let EntryStatus::Seated { table, seat } = state.entries[&live].status else {
        return Err(SeatingError::NothingToSurrender {
            player: player.clone(),
        });
    };
    let out = state.by_player[player]
        .iter()
        .filter(|e| {
            matches!(
                state.entries[*e].status,
                EntryStatus::Busted | EntryStatus::Disqualified
            )
        })
        .count() as u32;
    if out + 1 > settings.re_entries {
        return Err(SeatingError::ReEntryLimit {
            player: player.clone(),
            limit: settings.re_entries,
        });
    }
    if !state.room.movable(table, seat) {
        return Err(SeatingError::NotSettled { entry: live });
    }
    let mut events = vec![SeatingEvent::Surrendered {
        entry: live,
        table,
        seat,
        remaining: state.room.players() - 1,
    }];
    let mut after = state.clone();
    for e in &events {
        after.apply(e);
    }
    events.extend(register(&after, settings, player, name, level, false, rng)?);
    Ok(events)
}

/// The floor seats the next alternates, in the order they registered:
/// each an entry from now, with a full stack at a seat drawn like a late
/// entry's (TDA 8).
fn seat_alternates(
    state: &SeatingState,
    settings: &Settings,
    count: u32,
    rng: &mut ChaCha20Rng,
) -> Decided {
    if !state.started {
        return Err(SeatingError::NotStarted);
    }
    if state.registration_closed {
        return Err(SeatingError::RegistrationClosed);
    }
    let waiting: Vec<EntryId> = state
        .entries
        .iter()
        .filter(|(_, e)| e.status == EntryStatus::Alternate)
        .map(|(&id, _)| id)
        .collect();
    if count == 0 || count as usize > waiting.len() {
        return Err(SeatingError::NoAlternates {
            count,
            waiting: waiting.len() as u32,
        });
    }
    let field = state.entries_in().saturating_add(count);
    if field > crate::MAX_ENTRIES {
        return Err(SeatingError::FieldFull {
            max: crate::MAX_ENTRIES,
        });
    }
    if settings
        .starting_stack
        .checked_mul(crate::Chips::from(field))
        .is_none_or(|chips| chips > crate::MAX_CHIPS)
    {
        return Err(SeatingError::FieldFull {
            max: state.entries_in(),
        });
    }
    let mut work = Work::on(state);
    for &entry in &waiting[..count as usize] {
        work.emit(SeatingEvent::AlternatePromoted { entry });
        seat_new_entry(&mut work, entry, rng);
    }
    tidy(&mut work, rng);
    Ok(work.events)
}

/// The floor moves a player to a free seat it names (TDA 7: a player in
/// the wrong seat moves to the right one with their current stack).
fn move_player(
    state: &SeatingState,
    entry: EntryId,
    table: TableNo,
    seat: Seat,
    reason: &str,
) -> Decided {
    let (from_table, from_seat) = settled(state, entry)?;
    let t = state
        .room
        .tables
        .get(&table)
        .ok_or(SeatingError::NoSuchTable { table })?;
    if seat == 0 || seat > t.size() {
        return Err(SeatingError::NoSuchSeat { table, seat });
    }
    if (from_table, from_seat) == (table, seat) {
        return Err(SeatingError::AlreadyThere { entry, table, seat });
    }
    if t.occupant(seat).is_some() || state.room.leaving.contains(&(table, seat)) {
        return Err(SeatingError::SeatTaken { table, seat });
    }
    if reason.trim().is_empty() {
        return Err(SeatingError::NoReason);
    }
    let mut work = Work::on(state);
    work.start_move(
        entry,
        (from_table, from_seat),
        (table, seat),
        crate::model::MoveReason::Floor,
        reason.to_string(),
    );
    Ok(work.events)
}

/// The disqualified player's table removed them; the room is put in order.
fn removal_completed(
    state: &SeatingState,
    entry: EntryId,
    stack: crate::model::Chips,
    rng: &mut ChaCha20Rng,
) -> Decided {
    if !state.room.removals.contains_key(&entry) {
        return Err(SeatingError::NoRemoval { entry });
    }
    let mut work = Work::on(state);
    work.emit(SeatingEvent::RemovalCompleted { entry, stack });
    tidy(&mut work, rng);
    Ok(work.events)
}

/// The floor releases a table it held.
fn release_table(state: &SeatingState, table: TableNo) -> Decided {
    let t = state
        .room
        .tables
        .get(&table)
        .ok_or(SeatingError::NoSuchTable { table })?;
    if t.held.is_none() {
        return Err(SeatingError::NotHeld { table });
    }
    Ok(vec![SeatingEvent::TableReleased { table }])
}

/// A hand known only by its result: it begins (unless a hand was granted
/// the table before it switched) and ends in one decision.
fn result_recorded(
    state: &SeatingState,
    table: TableNo,
    button: Seat,
    big_blind: Seat,
    busted: &[Elimination],
    rng: &mut ChaCha20Rng,
) -> Decided {
    let Some(t) = state.room.tables.get(&table) else {
        return result_at_closed_table(state, table, busted, rng);
    };
    // A player the floor busted while seating was moving them out: the
    // table recorded the bust before the move reached it, so the move
    // never happens.
    let mut events: Vec<SeatingEvent> = busted
        .iter()
        .filter_map(|b| {
            state
                .room
                .moves
                .values()
                .find(|m| m.entry == b.entry && m.from.0 == table)
                .map(|m| SeatingEvent::MoveVoided { id: m.id })
        })
        .collect();
    // A result reported late, once the table (back to recording actions)
    // has begun a hand seating granted: its busts are recorded, and the
    // hand in play goes on.
    let ends = !t.in_hand;
    if ends {
        events.push(SeatingEvent::HandBegun { table });
    }
    let mut after = state.clone();
    for e in &events {
        after.apply(e);
    }
    events.extend(hand_ended(
        &after, table, button, big_blind, busted, ends, ends, rng,
    )?);
    Ok(events)
}

/// A result recorded at a table seating has already closed: its players
/// were all on their way elsewhere when the floor recorded the hand (a
/// results-only table is not held for moves). Each bust's move never
/// happens and the bust is recorded; with nobody out there is nothing to
/// decide.
fn result_at_closed_table(
    state: &SeatingState,
    table: TableNo,
    busted: &[Elimination],
    rng: &mut ChaCha20Rng,
) -> Decided {
    let mut work = Work::on(state);
    for b in busted {
        let m = state
            .room
            .moves
            .values()
            .find(|m| m.entry == b.entry && m.from.0 == table)
            .ok_or(SeatingError::NoSuchTable { table })?;
        work.emit(SeatingEvent::MoveVoided { id: m.id });
    }
    if busted.is_empty() {
        return Ok(Vec::new());
    }
    for bust in busted {
        let remaining = work.room.players();
        work.emit(SeatingEvent::Busted {
            entry: bust.entry,
            table,
            starting_stack: bust.starting_stack,
            by: bust.by.clone(),
            remaining,
            hand_for_hand_round: None,
            occurred_at: bust.occurred_at,
            held: state.late.is_some(),
        });
    }
    tidy(&mut work, rng);
    Ok(work.events)
}

/// A table seated a drawn entry.
fn seat_confirmed(state: &SeatingState, entry: EntryId, rng: &mut ChaCha20Rng) -> Decided {
    let mut work = Work::on(state);
    if !state.unconfirmed.contains(&entry) {
        return Err(SeatingError::NothingToConfirm { entry });
    }
    work.emit(SeatingEvent::SeatConfirmed { entry });
    tidy(&mut work, rng);
    Ok(work.events)
}

/// A move was carried out at both tables.
fn move_completed(state: &SeatingState, id: u64, stack: u64, rng: &mut ChaCha20Rng) -> Decided {
    let mut work = Work::on(state);
    if !state.room.moves.contains_key(&id) {
        return Err(SeatingError::NoSuchMove { id });
    }
    work.emit(SeatingEvent::MoveCompleted { id, stack });
    tidy(&mut work, rng);
    Ok(work.events)
}

fn check_settings(s: &Settings) -> Result<(), SeatingError> {
    let bad = |reason: String| Err(SeatingError::InvalidSettings { reason });
    if !(2..=10).contains(&s.table_size) {
        return bad(format!("a table has 2 to 10 seats, not {}", s.table_size));
    }
    if s.starting_stack == 0 {
        return bad("the starting stack must be positive".into());
    }
    if s.play_down_to.len() > 64 || s.play_down_to.iter().any(|&n| n > crate::MAX_ENTRIES) {
        return bad(format!(
            "a day plays down to at most {} players, for at most 64 days",
            crate::MAX_ENTRIES
        ));
    }
    if let Some(r) = s.rebuy
        && (r.chips == 0
            || r.chips > felt_vocabulary::MAX_CHIPS / 2
            || r.last_level == 0
            || !(1..=100).contains(&r.limit))
    {
        return bad(format!(
            "a rebuy puts 1 to {} chips on a stack, is sold through a level from 1, and an entry may buy 1 to 100, not {} chips through level {}, {} each",
            felt_vocabulary::MAX_CHIPS / 2,
            r.chips,
            r.last_level,
            r.limit
        ));
    }
    if let Some(a) = s.add_on
        && (a.chips == 0 || a.chips > felt_vocabulary::MAX_CHIPS / 2 || a.last_level == 0)
    {
        return bad(format!(
            "an add-on puts 1 to {} chips on a stack and is sold through a level from 1, not {} chips through level {}",
            felt_vocabulary::MAX_CHIPS / 2,
            a.chips,
            a.last_level
        ));
    }
    let field = s.max_entries.unwrap_or(crate::MAX_ENTRIES);
    if field > crate::MAX_ENTRIES {
        return bad(format!(
            "a cap of {field} entries is over the largest field, {}",
            crate::MAX_ENTRIES
        ));
    }
    if s.starting_stack
        .checked_mul(crate::Chips::from(field))
        .is_none_or(|chips| chips > crate::MAX_CHIPS)
    {
        return bad(format!(
            "a starting stack of {} chips times a field of {field} entries is over the {} chips a tournament may have in play",
            s.starting_stack,
            crate::MAX_CHIPS
        ));
    }
    if s.redraws_by_field && !s.redraws_at.is_empty() {
        return bad(
            "redraws_at or redraws_by_field_size (seed 002, 10C), not both: the counts are the field's".into(),
        );
    }
    if !(2..=10).contains(&s.final_table) {
        return bad(format!(
            "a final table has 2 to 10 seats, not {}",
            s.final_table
        ));
    }
    if s.balance.tolerance == 0 {
        return bad("tables can never be exactly equal: the tolerance is at least 1".into());
    }
    Ok(())
}

/// Whether a table may deal its next hand now, and why not.
pub fn gate(state: &SeatingState, table: TableNo) -> Result<(), SeatingError> {
    let room = &state.room;
    let settings = state.settings().ok_or(SeatingError::NotCreated)?;
    if !state.started {
        return Err(SeatingError::NotStarted);
    }
    let t = room
        .tables
        .get(&table)
        .ok_or(SeatingError::NoSuchTable { table })?;
    let wait = |reason: String| Err(SeatingError::MustWait { table, reason });
    if settings.satellite && state.registration_closed && room.seats.is_none() {
        return wait("the satellite's seats are being set from its prize pool".into());
    }
    if let Some(seats) = room.seats
        && (room.seats_won || room.players() <= seats)
    {
        return wait(if room.seats_won {
            format!(
                "the satellite is over: the {} players left each won a seat",
                room.players()
            )
        } else {
            format!(
                "no more players are left than the {seats} seats: the hands being played are the last"
            )
        });
    }
    if let Some(l) = &room.last_hands {
        if l.over {
            return wait("the day is over (rule 77): play resumes when the next day starts".into());
        }
        if l.hands == 0 {
            return wait(
                "the day's last level is over: the hands being played are its last, then the day ends"
                    .into(),
            );
        }
        if l.left(table) == 0 {
            return wait(format!(
                "the day's last {} hands are played here (rule 77): waiting for the other tables",
                l.hands
            ));
        }
    }
    // A day played down to a count: once the count is reached (in one
    // hand, before hand-for-hand could start), the hands being played are
    // the day's last; the day ends as they end.
    let target = settings.play_down_on(room.days_resumed);
    if room.last_hands.is_none()
        && room.hand_for_hand.is_none()
        && target > 0
        && room.players() <= target
    {
        return wait(format!(
            "{} players are left, the day's count of {target}: the hands being played are the day's last",
            room.players()
        ));
    }
    if let Some(o) = room.offers.get(&table) {
        let who: Vec<String> = o.waiting.iter().map(ToString::to_string).collect();
        return wait(format!(
            "entry {} busted and may rebuy: the next hand waits for the answer (rule 27)",
            who.join(", ")
        ));
    }
    if t.in_hand {
        return wait("its hand is still being played".into());
    }
    if let Some(reason) = &t.held {
        return wait(format!("held by the floor: {reason}"));
    }
    if t.breaking {
        return wait("the table is breaking".into());
    }
    if room.redraw.is_some() {
        return wait("a redraw is waiting for every table's hand to end".into());
    }
    let pending = room.pending_at(table);
    if pending > 0 {
        return wait(format!("{pending} player moves are being carried out"));
    }
    if let Some((entry, _)) = room.add_ons.iter().find(|(_, a)| a.0 == table) {
        return wait(format!(
            "entry {entry}'s add-on chips are being put on their stack"
        ));
    }
    if let Some((entry, _)) = room.rebuys.iter().find(|(_, r)| r.0 == table) {
        return wait(format!(
            "entry {entry}'s rebuy chips are being put on their stack"
        ));
    }
    if let Some((entry, r)) = room.removals.iter().find(|(_, r)| r.table == table) {
        return wait(format!(
            "entry {entry}, {}, is leaving the table with their chips",
            if r.no_show {
                "replaced as a no-show"
            } else if r.surrender {
                "who gave up their chips for a re-entry"
            } else {
                "disqualified"
            }
        ));
    }
    if t.seats.iter().flatten().any(|e| room.unseated.contains(e)) {
        return wait("players are being seated".into());
    }
    let count = t.count();
    if count < 2 {
        return wait(format!(
            "{count} player: waiting for players to be moved in"
        ));
    }
    if room.tables.len() > 1 {
        let longest = room.tables.values().map(Table::count).max().unwrap_or(0);
        if let Some(short) = settings.balance.stop_short_by
            && longest >= count + u32::from(short)
        {
            return wait(format!(
                "{count} players, {} short of the longest table: play stops until balanced (TDA 11)",
                longest - count
            ));
        }
        if let Some(min) = settings.balance.stop_below
            && count < u32::from(min)
            && longest - count > u32::from(settings.balance.tolerance)
        {
            return wait(format!(
                "{count} players: play stops below {min} until balanced"
            ));
        }
    }
    if room.hand_for_hand.is_some() {
        if t.hand_for_hand_done {
            return wait("hand-for-hand: other tables are still playing this hand".into());
        }
        if room
            .tables
            .values()
            .any(|o| o.in_hand && !o.hand_for_hand_hand)
        {
            return wait("hand-for-hand starts when every table has finished its hand".into());
        }
    }
    Ok(())
}
