//! A tournament's money as a decider: entries and add-ons make the pool,
//! closing registration fixes the pay sheet, busts become places and
//! prizes (and bounties), deals replace the prizes still to be won.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::deal::{DealResult, DealTerms, deal};
use crate::places::{Bust, PlaceGroup, SimultaneousBusts, place, share};
use crate::pool::{MoneySettings, Pool};
use crate::sheet::PaySheet;
use crate::state::PayoutState;
use crate::{EntryId, Money, PayoutError, PlayerId};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Command {
    Configure {
        name: String,
        settings: MoneySettings,
        busts: SimultaneousBusts,
    },
    /// An entry (or re-entry: a new entry number) from seating.
    RecordEntry {
        entry: EntryId,
        player: PlayerId,
    },
    /// Many entries at once, each as `RecordEntry` takes it, all or none.
    RecordEntries {
        entries: Vec<(EntryId, PlayerId)>,
    },
    /// A part of an event's Day 1 flight, once every flight has bagged
    /// (issue 28): its entries, add-ons and rebuys go into the event's one
    /// pool, its entries out wait for `CloseFlights`.
    RecordFlight {
        record: crate::FlightRecord,
    },
    /// Every flight is recorded: the entries that did not reach Day 2
    /// wait for the close, placed below every stack that did.
    CloseFlights,
    RecordAddOn {
        entry: EntryId,
    },
    /// A rebuy bought by a live entry (rule 27).
    RecordRebuy {
        entry: EntryId,
    },
    /// An entry unregistered before registration closed: its money is
    /// refunded, out of the pool.
    RemoveEntry {
        entry: EntryId,
    },
    /// Late registration is over: the pool and the pay sheet are fixed, and
    /// the busts that waited are placed (the first
    /// [`PLACED_PER_DECISION`] groups; `PlaceWaiting` places the rest).
    CloseRegistration,
    /// Places the next waiting busts, oldest first.
    PlaceWaiting,
    /// The busts of one hand: at one table, or at several in the same
    /// hand-for-hand hand.
    RecordBusts {
        busts: Vec<Bust>,
    },
    /// The busts of one table's hand in hand-for-hand round `round`: held
    /// until every table has played the round, then placed together with
    /// the round's other busts (RP8: players out in the same hand-for-hand
    /// hand share their places).
    HoldBusts {
        round: u64,
        busts: Vec<Bust>,
    },
    /// Hand-for-hand round `round` is over at every table: its held busts
    /// are placed together, as one hand's.
    PlaceRound {
        round: u64,
    },
    ProposeDeal {
        terms: DealTerms,
    },
    ConsentToDeal {
        entry: EntryId,
    },
    /// A player refused, or the floor withdrew the proposal.
    WithdrawDeal,
    /// A satellite's play is over: the players left, no more than its
    /// seats, each win one (seating's word once every hand being played
    /// has ended). Placed together, first to last of them.
    AwardSeats {
        entries: Vec<EntryId>,
    },
    /// The target event found `entry`'s ticket to be its player's second
    /// seat there (one won in another satellite first), and this
    /// satellite's house pays a second seat in cash: the ticket is void
    /// and its value is paid by the cage beside the prize.
    CashTicket {
        entry: EntryId,
    },
    /// The cage pays a placed entry's prize to its winner, having checked
    /// their identity document; the house's withholding applies.
    PayPrize {
        entry: EntryId,
        document: IdDocument,
        /// The winner's tax number, where on file (at most 32 characters).
        tax_number: Option<String>,
    },
}

/// The identity document the cage checked before paying: its kind and a
/// reference to it (never a copy).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdDocument {
    pub kind: IdDocumentKind,
    /// 1 to 64 characters, no control characters.
    pub reference: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum IdDocumentKind {
    IdentityCard,
    Passport,
    DrivingLicence,
    Other,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PayoutEvent {
    Configured {
        name: String,
        settings: MoneySettings,
        busts: SimultaneousBusts,
    },
    EntryRecorded {
        entry: EntryId,
        player: PlayerId,
    },
    AddOnRecorded {
        entry: EntryId,
    },
    RebuyRecorded {
        entry: EntryId,
    },
    EntryRemoved {
        entry: EntryId,
    },
    RegistrationClosed {
        pool: Pool,
        sheet: PaySheet,
    },
    /// An add-on bought after registration closed: the pool and the pay
    /// sheet grow with its price (the places paid stay).
    PoolGrown {
        pool: Pool,
        sheet: PaySheet,
    },
    /// A part of an event's Day 1 flight recorded: its entries, add-ons
    /// and rebuys are the event's, its entries out wait for the close.
    FlightRecorded {
        record: crate::FlightRecord,
    },
    /// An event's Day 1 flights are all recorded: their entries out wait
    /// for the close (bags not advanced first, then Day 1's busts
    /// interleaved by flight), numbered in the order they went out.
    FlightsRecorded {
        flights: Vec<u32>,
    },
    /// Busts as reported, before places can be given (during registration).
    Busted {
        busts: Vec<Bust>,
    },
    /// Busts of a hand-for-hand round, held until the round is over.
    BustsHeld {
        round: u64,
        busts: Vec<Bust>,
    },
    /// A hand-for-hand round is over: its held busts are placed (the
    /// events that follow), no longer held.
    RoundReleased {
        round: u64,
    },
    /// Players given places, with what each wins.
    Placed {
        group: PlaceGroup,
        prizes: Vec<(EntryId, Money)>,
    },
    /// A busted player's bounty: paid to the winners of their chips, and in
    /// a progressive knockout partly added to the winners' own bounties.
    BountyCollected {
        from: EntryId,
        paid: Vec<(EntryId, Money)>,
        added: Vec<(EntryId, Money)>,
    },
    DealProposed {
        terms: DealTerms,
        result: DealResult,
    },
    DealConsented {
        entry: EntryId,
    },
    DealMade {
        result: DealResult,
    },
    DealWithdrawn,
    /// A disqualified entry placed nowhere (the house rule): `place` is
    /// left empty and its `prize` is forfeited, paid to nobody.
    PlaceForfeited {
        entry: EntryId,
        place: u32,
        prize: Money,
    },
    /// The bounty on a head nobody won (a disqualified entry): paid to
    /// nobody.
    BountyForfeited {
        entry: EntryId,
        amount: Money,
    },
    /// The cage paid `entry`'s prize: `gross`, less `withheld` under the
    /// house's tax rule, `net` handed over; the document it checked.
    PrizePaid {
        entry: EntryId,
        gross: Money,
        withheld: Money,
        net: Money,
        document: IdDocument,
        tax_number: Option<String>,
    },
    /// A satellite's seat won: a ticket worth `value`, bound to the
    /// `target` event and redeemed at its registration by `player`.
    TicketAwarded {
        entry: EntryId,
        player: PlayerId,
        target: String,
        value: Money,
    },
    /// `entry`'s ticket was its player's second seat in the target event
    /// (the target's word): void, its `value` paid in cash by the house's
    /// rule for a second seat.
    TicketCashed {
        entry: EntryId,
        value: Money,
    },
}

impl PayoutEvent {
    pub fn name(&self) -> &'static str {
        match self {
            PayoutEvent::Configured { .. } => "Configured",
            PayoutEvent::EntryRecorded { .. } => "EntryRecorded",
            PayoutEvent::AddOnRecorded { .. } => "AddOnRecorded",
            PayoutEvent::RebuyRecorded { .. } => "RebuyRecorded",
            PayoutEvent::PrizePaid { .. } => "PrizePaid",
            PayoutEvent::PoolGrown { .. } => "PoolGrown",
            PayoutEvent::EntryRemoved { .. } => "EntryRemoved",
            PayoutEvent::RegistrationClosed { .. } => "RegistrationClosed",
            PayoutEvent::Busted { .. } => "Busted",
            PayoutEvent::FlightsRecorded { .. } => "FlightsRecorded",
            PayoutEvent::FlightRecorded { .. } => "FlightRecorded",
            PayoutEvent::BustsHeld { .. } => "BustsHeld",
            PayoutEvent::RoundReleased { .. } => "RoundReleased",
            PayoutEvent::Placed { .. } => "Placed",
            PayoutEvent::BountyCollected { .. } => "BountyCollected",
            PayoutEvent::DealProposed { .. } => "DealProposed",
            PayoutEvent::DealConsented { .. } => "DealConsented",
            PayoutEvent::DealMade { .. } => "DealMade",
            PayoutEvent::DealWithdrawn => "DealWithdrawn",
            PayoutEvent::PlaceForfeited { .. } => "PlaceForfeited",
            PayoutEvent::BountyForfeited { .. } => "BountyForfeited",
            PayoutEvent::TicketAwarded { .. } => "TicketAwarded",
            PayoutEvent::TicketCashed { .. } => "TicketCashed",
        }
    }
}

fn settings(state: &PayoutState) -> Result<&MoneySettings, PayoutError> {
    state.settings.as_ref().ok_or(PayoutError::NotConfigured)
}

/// What a command means, or why it is refused. Nothing is changed on a refusal.
pub fn decide(state: &PayoutState, command: &Command) -> Result<Vec<PayoutEvent>, PayoutError> {
    let mut events = decide_places(state, command)?;
    if let Some(terms) = state
        .settings
        .as_ref()
        .and_then(|s| s.structure.satellite())
    {
        tickets(state, terms, &mut events);
    }
    Ok(events)
}

/// A satellite's seats: after each place in the seats, its ticket (a
/// player who already won one here gets the house's alternative; a place
/// shared across the last seat, or a deal's prize below a seat, is cash).
fn tickets(state: &PayoutState, terms: &crate::SatelliteTerms, events: &mut Vec<PayoutEvent>) {
    let Some(sheet) = state.sheet.as_ref().or_else(|| {
        events.iter().find_map(|e| match e {
            PayoutEvent::RegistrationClosed { sheet, .. } => Some(sheet),
            _ => None,
        })
    }) else {
        return;
    };
    let seats = terms.seats_on(sheet);
    let mut holders: BTreeSet<PlayerId> = state
        .entries
        .values()
        .filter(|e| e.ticket > 0)
        .map(|e| e.player.clone())
        .collect();
    let mut out = Vec::with_capacity(events.len());
    for e in events.drain(..) {
        let won: Vec<(EntryId, Money)> = match &e {
            PayoutEvent::Placed { group, prizes } if group.last <= seats => prizes.clone(),
            _ => Vec::new(),
        };
        out.push(e);
        for (entry, prize) in won {
            let Some(player) = state.entries.get(&entry).map(|x| x.player.clone()) else {
                continue;
            };
            let second = holders.contains(&player);
            if prize < terms.seat || (second && terms.second_seat == crate::SecondSeat::Cash) {
                continue;
            }
            holders.insert(player.clone());
            out.push(PayoutEvent::TicketAwarded {
                entry,
                player,
                target: terms.target.clone(),
                value: terms.seat,
            });
        }
    }
    *events = out;
}

/// What a command means before a satellite's tickets.
fn decide_places(state: &PayoutState, command: &Command) -> Decided {
    match command {
        Command::Configure {
            name,
            settings,
            busts,
        } => configure(state, name, settings, busts),
        Command::RecordEntry { entry, player } => record_entry(state, entry, player),
        Command::RecordEntries { entries } => record_entries(state, entries),
        Command::RecordFlight { record } => crate::flights::record_flight(state, record),
        Command::CloseFlights => crate::flights::close_flights(state),
        Command::RemoveEntry { entry } => remove_entry(state, entry),
        Command::RecordAddOn { entry } => record_bought(state, entry, false),
        Command::RecordRebuy { entry } => record_bought(state, entry, true),
        Command::PayPrize {
            entry,
            document,
            tax_number,
        } => pay_prize(state, *entry, document, tax_number.as_deref()),
        Command::CloseRegistration => close_registration(state),
        Command::PlaceWaiting => place_more_waiting(state),
        Command::RecordBusts { busts } => record_busts(state, busts),
        Command::HoldBusts { round, busts } => hold_busts(state, *round, busts),
        Command::PlaceRound { round } => place_round(state, *round),
        Command::ProposeDeal { terms } => propose_deal(state, terms),
        Command::ConsentToDeal { entry } => consent_to_deal(state, entry),
        Command::WithdrawDeal => withdraw_deal(state),
        Command::AwardSeats { entries } => award_seats(state, entries),
        Command::CashTicket { entry } => cash_ticket(state, *entry),
    }
}

type Decided = Result<Vec<PayoutEvent>, PayoutError>;

/// The money settings, once.
fn configure(
    state: &PayoutState,
    name: &str,
    settings: &MoneySettings,
    busts: &SimultaneousBusts,
) -> Decided {
    if state.settings.is_some() {
        return Err(PayoutError::AlreadyConfigured);
    }
    settings.check()?;
    Ok(vec![PayoutEvent::Configured {
        name: name.to_string(),
        settings: settings.clone(),
        busts: *busts,
    }])
}

/// An entry (or re-entry) from seating, while registration is open.
fn record_entry(state: &PayoutState, entry: &EntryId, player: &PlayerId) -> Decided {
    settings(state)?;
    if state.pool.is_some() {
        return Err(PayoutError::RegistrationClosed);
    }
    if state.entries.contains_key(entry) {
        return Err(PayoutError::DuplicateEntry { entry: *entry });
    }
    if state.entries.len() >= crate::MAX_FIELD as usize {
        return Err(PayoutError::TooMuch {
            what: "entries".into(),
            max: crate::MAX_FIELD.into(),
        });
    }
    Ok(vec![PayoutEvent::EntryRecorded {
        entry: *entry,
        player: player.clone(),
    }])
}

/// Many entries at once, each as `RecordEntry` takes it: all or none.
fn record_entries(state: &PayoutState, entries: &[(EntryId, PlayerId)]) -> Decided {
    if entries.is_empty() {
        return Err(PayoutError::NoEntries);
    }
    let mut scratch = state.clone();
    let mut events = Vec::with_capacity(entries.len());
    for (entry, player) in entries {
        let one = decide(
            &scratch,
            &Command::RecordEntry {
                entry: *entry,
                player: player.clone(),
            },
        )?;
        for e in &one {
            scratch.apply(e);
        }
        events.extend(one);
    }
    Ok(events)
}

/// An entry withdrawn before it busted, while registration is open.
fn remove_entry(state: &PayoutState, entry: &EntryId) -> Decided {
    settings(state)?;
    if state.pool.is_some() {
        return Err(PayoutError::RegistrationClosed);
    }
    let e = state
        .entries
        .get(entry)
        .ok_or(PayoutError::NoSuchEntry { entry: *entry })?;
    if e.busted || state.waiting.iter().flatten().any(|b| b.entry == *entry) {
        return Err(PayoutError::EntryBusted { entry: *entry });
    }
    Ok(vec![PayoutEvent::EntryRemoved { entry: *entry }])
}

/// An add-on (or a `rebuy`) bought by a live entry.
fn record_bought(state: &PayoutState, entry: &EntryId, rebuy: bool) -> Decided {
    let s = settings(state)?;
    if !rebuy && s.add_on == 0 {
        return Err(PayoutError::NoAddOns);
    }
    if rebuy && s.rebuy == 0 {
        return Err(PayoutError::NoRebuys);
    }
    let e = state
        .entries
        .get(entry)
        .ok_or(PayoutError::NoSuchEntry { entry: *entry })?;
    if e.busted {
        return Err(PayoutError::EntryBusted { entry: *entry });
    }
    if state.add_ons.max(state.rebuys) >= crate::MAX_FIELD {
        return Err(PayoutError::TooMuch {
            what: "add-ons or rebuys".into(),
            max: crate::MAX_FIELD.into(),
        });
    }
    let (add_ons, rebuys) = if rebuy {
        (state.add_ons, state.rebuys + 1)
    } else {
        (state.add_ons + 1, state.rebuys)
    };
    let mut events = vec![if rebuy {
        PayoutEvent::RebuyRecorded { entry: *entry }
    } else {
        PayoutEvent::AddOnRecorded { entry: *entry }
    }];
    // After the close, the fixed pool grows with the price, as long as
    // nobody has been paid a prize from it.
    if let (Some(_), Some(before)) = (state.pool, &state.sheet) {
        if state.entries.values().any(|e| e.prize > 0) {
            return Err(PayoutError::AddOnAfterMoney);
        }
        let entries = state.entries.len() as u32;
        let pool = s.pool_bought(entries, add_ons, rebuys)?;
        let sheet = s.sheet_bought(entries, add_ons, rebuys)?;
        if sheet.paid() != before.paid() {
            return Err(PayoutError::AddOnChangesPlaces {
                before: before.paid(),
                now: sheet.paid(),
            });
        }
        events.push(PayoutEvent::PoolGrown { pool, sheet });
    }
    Ok(events)
}

/// The cage pays a placed entry's prize, once, to a winner whose document
/// it checked, withholding what the house's tax rule says.
fn pay_prize(
    state: &PayoutState,
    entry: EntryId,
    document: &IdDocument,
    tax_number: Option<&str>,
) -> Decided {
    let s = settings(state)?;
    let e = state
        .entries
        .get(&entry)
        .ok_or(PayoutError::NoSuchEntry { entry })?;
    if e.place.is_none() || e.prize == 0 {
        return Err(PayoutError::NoPrize { entry });
    }
    if e.prize == e.ticket {
        return Err(PayoutError::PrizeIsTicket { entry });
    }
    if state.paid.contains_key(&entry) {
        return Err(PayoutError::PrizeAlreadyPaid { entry });
    }
    let text = |what: &str, value: &str, max: usize| {
        if value.trim().is_empty()
            || value.chars().count() > max
            || value.chars().any(char::is_control)
        {
            Err(PayoutError::InvalidCage {
                reason: format!("{what} is 1 to {max} characters, no control characters"),
            })
        } else {
            Ok(())
        }
    };
    text("the document's reference", &document.reference, 64)?;
    if let Some(n) = tax_number {
        text("the tax number", n, 32)?;
    }
    // A seat's ticket is not cash: the cage pays what is beside it.
    let gross = e.prize - e.ticket;
    let withheld = s
        .withholding
        .map_or(0, |w| w.of(gross, tax_number.is_some()));
    Ok(vec![PayoutEvent::PrizePaid {
        entry,
        gross,
        withheld,
        net: gross - withheld,
        document: document.clone(),
        tax_number: tax_number.map(str::to_string),
    }])
}

/// The pool and the pay sheet fixed; the busts that waited are placed.
fn close_registration(state: &PayoutState) -> Decided {
    let s = settings(state)?;
    if state.pool.is_some() {
        return Err(PayoutError::RegistrationClosed);
    }
    let entries = state.entries.len() as u32;
    if entries == 0 {
        return Err(PayoutError::NoEntries);
    }
    let pool = s.pool_bought(entries, state.add_ons, state.rebuys)?;
    let sheet = s.sheet_bought(entries, state.add_ons, state.rebuys)?;
    let mut events = vec![PayoutEvent::RegistrationClosed {
        pool,
        sheet: sheet.clone(),
    }];
    // Place the busts that waited, in order, on the fixed sheet.
    events.extend(place_waiting(state, &sheet.prizes(), entries));
    Ok(events)
}

/// More of the busts that waited for the close placed.
fn place_more_waiting(state: &PayoutState) -> Decided {
    if state.pool.is_none() {
        return Err(PayoutError::RegistrationOpen);
    }
    if state.waiting.is_empty() {
        return Err(PayoutError::NothingWaiting);
    }
    Ok(place_waiting(
        state,
        &state.prizes,
        state.entries.len() as u32,
    ))
}

/// A hand's busts: their bounties, and places (or a wait for the close).
fn record_busts(state: &PayoutState, busts: &[Bust]) -> Decided {
    settings(state)?;
    check_not_held(state, busts)?;
    place_busts(state, busts)
}

/// A ticket the target found to be its player's second seat there, paid
/// in cash where this satellite's house says so; not once its prize is
/// paid (the cage paid only the cash beside the ticket).
fn cash_ticket(state: &PayoutState, entry: EntryId) -> Decided {
    let s = settings(state)?;
    let terms = s.structure.satellite().ok_or(PayoutError::NotASatellite)?;
    if terms.second_seat != crate::SecondSeat::Cash {
        return Err(PayoutError::SecondSeatIsTicket { entry });
    }
    let e = state
        .entries
        .get(&entry)
        .ok_or(PayoutError::NoSuchEntry { entry })?;
    if e.ticket == 0 {
        return Err(PayoutError::NoTicket { entry });
    }
    if state.paid.contains_key(&entry) {
        return Err(PayoutError::PrizeAlreadyPaid { entry });
    }
    Ok(vec![PayoutEvent::TicketCashed {
        entry,
        value: e.ticket,
    }])
}

/// The players left in a satellite, no more than its seats, each win
/// one: placed together in places 1 to their number, sharing those
/// places' prizes (a seat each, and the remainder's shares where the
/// house splits it among the seats).
fn award_seats(state: &PayoutState, entries: &[EntryId]) -> Decided {
    let s = settings(state)?;
    let terms = s.structure.satellite().ok_or(PayoutError::NotASatellite)?;
    let sheet = state.sheet.as_ref().ok_or(PayoutError::RegistrationOpen)?;
    let seats = terms.seats_on(sheet);
    let mut group: Vec<EntryId> = entries.to_vec();
    group.sort_unstable();
    group.dedup();
    if group.is_empty() || group.len() != entries.len() {
        return Err(PayoutError::NoPlayers);
    }
    for id in &group {
        let e = state
            .entries
            .get(id)
            .ok_or(PayoutError::NoSuchEntry { entry: *id })?;
        if e.busted || e.place.is_some() {
            return Err(PayoutError::EntryBusted { entry: *id });
        }
    }
    let n = group.len() as u32;
    if n > seats {
        return Err(PayoutError::SeatsNotWon { left: n, seats });
    }
    let total: Money = (1..=n).map(|p| state.prize(p)).sum();
    let prizes = group
        .iter()
        .copied()
        .zip(share(total, group.len()))
        .collect();
    Ok(vec![PayoutEvent::Placed {
        group: PlaceGroup {
            entries: group,
            first: 1,
            last: n,
        },
        prizes,
    }])
}

/// A hand-for-hand hand's busts, held for the end of their round.
fn hold_busts(state: &PayoutState, round: u64, busts: &[Bust]) -> Decided {
    settings(state)?;
    check_not_held(state, busts)?;
    check_busts(state, busts)?;
    Ok(vec![PayoutEvent::BustsHeld {
        round,
        busts: busts.to_vec(),
    }])
}

/// A hand-for-hand round's held busts, placed together.
fn place_round(state: &PayoutState, round: u64) -> Decided {
    let busts = state
        .held
        .get(&round)
        .ok_or(PayoutError::NoRoundHeld { round })?;
    let mut events = vec![PayoutEvent::RoundReleased { round }];
    events.extend(place_busts(state, busts)?);
    Ok(events)
}

/// An entry held for its hand-for-hand round is placed with the round.
fn check_not_held(state: &PayoutState, busts: &[Bust]) -> Result<(), PayoutError> {
    for b in busts {
        if let Some((&round, _)) = state
            .held
            .iter()
            .find(|(_, held)| held.iter().any(|h| h.entry == b.entry))
        {
            return Err(PayoutError::HeldForRound {
                entry: b.entry,
                round,
            });
        }
    }
    Ok(())
}

/// Busts' bounties, and their places (or a wait for the close).
fn place_busts(state: &PayoutState, busts: &[Bust]) -> Decided {
    let s = settings(state)?;
    check_busts(state, busts)?;
    let mut events = Vec::new();
    for b in busts {
        let bounty = state.entries.get(&b.entry).map_or(0, |e| e.bounty);
        if s.bounty > 0 && bounty > 0 {
            if b.by.is_empty() {
                // Nobody won these chips (a disqualification).
                events.push(PayoutEvent::BountyForfeited {
                    entry: b.entry,
                    amount: bounty,
                });
            } else {
                events.push(bounty_event(s, b, bounty));
            }
        }
    }
    if state.pool.is_none() || !state.waiting.is_empty() {
        // Placed in their turn, after the busts already waiting.
        events.push(PayoutEvent::Busted {
            busts: busts.to_vec(),
        });
        return Ok(events);
    }
    let remaining = state.remaining();
    let left = left_before(state.entries.len() as u32, busts, remaining);
    check_places_free(state, left, busts)?;
    events.extend(placements(state, &state.prizes, left, busts));
    if remaining - busts.len() as u32 == 1 {
        events.extend(winner(state, &state.prizes, &events));
    }
    Ok(events)
}

/// A deal among every player left, with its result.
fn propose_deal(state: &PayoutState, terms: &DealTerms) -> Decided {
    if settings(state)?
        .structure
        .satellite()
        .is_some_and(|t| !t.deals)
    {
        return Err(PayoutError::DealsRefused);
    }
    if state.pool.is_none() {
        return Err(PayoutError::DealBeforeClose);
    }
    if state.proposal.is_some() {
        return Err(PayoutError::DealPending);
    }
    let alive: BTreeSet<EntryId> = state
        .entries
        .iter()
        .filter(|(_, e)| !e.busted)
        .map(|(&id, _)| id)
        .collect();
    let parties: BTreeSet<EntryId> = terms.players.iter().map(|p| p.0).collect();
    if parties != alive || parties.len() != terms.players.len() {
        return Err(PayoutError::DealParties {
            remaining: alive.len(),
        });
    }
    let n = alive.len();
    let prizes: Vec<Money> = (1..=n as u32).map(|p| state.prize(p)).collect();
    let result = deal(terms, &prizes)?;
    Ok(vec![PayoutEvent::DealProposed {
        terms: terms.clone(),
        result,
    }])
}

/// One party's consent; the last one makes the deal.
fn consent_to_deal(state: &PayoutState, entry: &EntryId) -> Decided {
    let p = state.proposal.as_ref().ok_or(PayoutError::NoDeal)?;
    if !p.terms.players.iter().any(|(id, _)| id == entry) {
        return Err(PayoutError::NotInDeal { entry: *entry });
    }
    if p.consents.contains(entry) {
        return Err(PayoutError::AlreadyConsented { entry: *entry });
    }
    let mut events = vec![PayoutEvent::DealConsented { entry: *entry }];
    if p.consents.len() + 1 == p.terms.players.len() {
        events.push(PayoutEvent::DealMade {
            result: p.result.clone(),
        });
    }
    Ok(events)
}

fn withdraw_deal(state: &PayoutState) -> Decided {
    if state.proposal.is_none() {
        return Err(PayoutError::NoDeal);
    }
    Ok(vec![PayoutEvent::DealWithdrawn])
}

/// The most waiting bust groups one decision places: a decision stays a
/// small message however many busts late registration saw.
pub const PLACED_PER_DECISION: usize = 200;

/// Places the oldest waiting busts (up to [`PLACED_PER_DECISION`] groups),
/// and the winner once the last group leaves one entry.
fn place_waiting(state: &PayoutState, prizes: &[Money], entries: u32) -> Vec<PayoutEvent> {
    let waiting: u32 = state.waiting.iter().map(|w| w.len() as u32).sum();
    // Entries out before the first waiting group.
    let mut remaining = entries - (state.busted - waiting);
    let mut events = Vec::new();
    for busts in state.waiting.iter().take(PLACED_PER_DECISION) {
        let left = left_before(entries, busts, remaining);
        events.extend(placements(state, prizes, left, busts));
        remaining -= busts.len() as u32;
    }
    if remaining == 1 && state.waiting.len() <= PLACED_PER_DECISION {
        events.extend(winner(state, prizes, &events));
    }
    events
}

/// Players left before a hand's busts, who take the places below it: from
/// seating's numbers in the order players went out when the busts carry
/// them (the first of the hand's busts numbered k: the field less the
/// k - 1 out before), else `count`, payout's own count of the busts it
/// has heard of. Numbers are checked by [`check_busts`] against the field
/// as it is then; one that no longer fits (entries removed during late
/// registration since) falls back to the count.
fn left_before(field: u32, busts: &[Bust], count: u32) -> u32 {
    busts
        .iter()
        .map(|b| b.out)
        .collect::<Option<Vec<u32>>>()
        .and_then(|outs| outs.into_iter().min())
        .and_then(|first| (field + 1).checked_sub(first))
        .filter(|&left| left > busts.len() as u32)
        .unwrap_or(count)
}

/// The places a hand's busts take, below `left`, must be nobody's yet.
fn check_places_free(state: &PayoutState, left: u32, busts: &[Bust]) -> Result<(), PayoutError> {
    let low = left + 1 - busts.len() as u32;
    // Places given never overlap (a tie shares one range): the range that
    // starts last at or before `left` is the only one that can reach
    // `low`.
    if let Some((&(first, holder), &last)) =
        state.places.range(..=(left, EntryId(u64::MAX))).next_back()
        && last >= low
    {
        return Err(PayoutError::PlaceTaken {
            place: first.max(low),
            holder,
            entry: busts[0].entry,
        });
    }
    Ok(())
}

fn check_busts(state: &PayoutState, busts: &[Bust]) -> Result<(), PayoutError> {
    if busts.is_empty() {
        return Err(PayoutError::NoBusts);
    }
    // Numbers in the order players went out: all or none, each leaving
    // someone with chips.
    let numbered = busts.iter().filter(|b| b.out.is_some()).count();
    if numbered != 0 && numbered != busts.len() {
        return Err(PayoutError::MixedBustOrder);
    }
    let field = state.entries.len() as u32;
    if let Some((out, entry)) = busts.iter().filter_map(|b| Some((b.out?, b.entry))).min()
        && (out == 0 || out + busts.len() as u32 > field)
    {
        return Err(PayoutError::OutOfField { entry, out, field });
    }
    let mut seen = BTreeSet::new();
    for b in busts {
        let e = state
            .entries
            .get(&b.entry)
            .ok_or(PayoutError::NoSuchEntry { entry: b.entry })?;
        if e.busted || !seen.insert(b.entry) {
            return Err(PayoutError::EntryBusted { entry: b.entry });
        }
    }
    for b in busts {
        for by in &b.by {
            let e = state
                .entries
                .get(by)
                .ok_or(PayoutError::NoSuchEntry { entry: *by })?;
            if e.busted || seen.contains(by) {
                return Err(PayoutError::EntryBusted { entry: *by });
            }
        }
    }
    if busts.len() as u32 >= state.remaining() {
        return Err(PayoutError::EveryoneBusted {
            remaining: state.remaining(),
        });
    }
    Ok(())
}

fn bounty_event(s: &MoneySettings, b: &Bust, bounty: Money) -> PayoutEvent {
    let (cash, on_head) = if s.progressive {
        (bounty - bounty / 2, bounty / 2)
    } else {
        (bounty, 0)
    };
    let n = b.by.len().max(1);
    let cash_shares = share(cash, n);
    let head_shares = share(on_head, n);
    PayoutEvent::BountyCollected {
        from: b.entry,
        paid: b.by.iter().copied().zip(cash_shares).collect(),
        added: b
            .by
            .iter()
            .copied()
            .zip(head_shares)
            .filter(|x| x.1 > 0)
            .collect(),
    }
}

/// The places of one hand's busts, and what each wins.
fn placements(
    state: &PayoutState,
    prizes: &[Money],
    remaining: u32,
    busts: &[Bust],
) -> Vec<PayoutEvent> {
    place(remaining, busts, state.rule)
        .into_iter()
        .map(|group| {
            let total: Money = (group.first..=group.last)
                .map(|p| prizes.get(p as usize - 1).copied().unwrap_or(0))
                .sum();
            // A disqualification is a group of its own.
            if let [entry] = group.entries[..]
                && busts.iter().any(|b| b.entry == entry && b.forfeit)
            {
                return PayoutEvent::PlaceForfeited {
                    entry,
                    place: group.first,
                    prize: total,
                };
            }
            let shares = share(total, group.entries.len());
            let prizes = group
                .entries
                .iter()
                .zip(shares)
                .map(|(id, s)| (*id, s + state.guaranteed.get(id).copied().unwrap_or(0)))
                .collect();
            PayoutEvent::Placed { group, prizes }
        })
        .collect()
}

/// First place for the one entry left, after `events`; in a bounty
/// tournament the winner also collects the bounty on their own head.
fn winner(state: &PayoutState, prizes: &[Money], events: &[PayoutEvent]) -> Vec<PayoutEvent> {
    let mut out = Vec::new();
    let Some(placed) = first_place(state, prizes, events) else {
        return out;
    };
    let PayoutEvent::Placed { group, .. } = &placed else {
        return out;
    };
    let id = group.entries[0];
    let added: Money = events
        .iter()
        .filter_map(|e| match e {
            PayoutEvent::BountyCollected { added, .. } => Some(added),
            _ => None,
        })
        .flatten()
        .filter(|(to, _)| *to == id)
        .map(|(_, m)| m)
        .sum();
    let own = state.entries.get(&id).map_or(0, |e| e.bounty) + added;
    out.push(placed);
    if own > 0 {
        out.push(PayoutEvent::BountyCollected {
            from: id,
            paid: vec![(id, own)],
            added: Vec::new(),
        });
    }
    out
}

fn first_place(
    state: &PayoutState,
    prizes: &[Money],
    events: &[PayoutEvent],
) -> Option<PayoutEvent> {
    let placed: BTreeSet<EntryId> = events
        .iter()
        .filter_map(|e| match e {
            PayoutEvent::Placed { group, .. } => Some(group.entries.clone()),
            PayoutEvent::PlaceForfeited { entry, .. } => Some(vec![*entry]),
            _ => None,
        })
        .flatten()
        .collect();
    let (&id, _) = state
        .entries
        .iter()
        .find(|(id, e)| !e.busted && e.place.is_none() && !placed.contains(id))?;
    let prize =
        prizes.first().copied().unwrap_or(0) + state.guaranteed.get(&id).copied().unwrap_or(0);
    Some(PayoutEvent::Placed {
        group: PlaceGroup {
            entries: vec![id],
            first: 1,
            last: 1,
        },
        prizes: vec![(id, prize)],
    })
}
