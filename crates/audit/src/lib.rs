//! The whole-tournament audit: every stream of a tournament replayed from
//! the log and checked, alone and against the others. The `felt audit`
//! command line and the tests call it; it prints nothing, and what it finds
//! comes back as an [`Audit`].
//!
//! It deliberately knows no service, no network and no command: it reads
//! envelopes, folds them with the deciders' own `apply`, and compares.

use std::collections::{BTreeMap, HashMap};

use felt_clock::ClockState;
use felt_eventlog::{Envelope, EventLog, Filter, LogError, StreamId, verify_chain};
use felt_payout::PayoutState;
use felt_seating::{EntryId, EntryStatus, SeatingEvent, SeatingState, TableNo};
use felt_table::{TableEvent, TableState};
use felt_tournament::aggregates::{self, clock_stream, payout_stream, seating_stream};
use serde::de::DeserializeOwned;

mod narrate;
pub use narrate::narrate;

/// Why the audit could not run (a failed check is not an error: it is in
/// the [`Audit`]).
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error(transparent)]
    Log(#[from] LogError),
    #[error("the log holds no tournament")]
    Empty,
    #[error("the log holds no tournament {0:?}")]
    NoSuchTournament(String),
    #[error("tournament {0} has no seating: is it in this log?")]
    NoSeating(String),
}

type Result<T, E = AuditError> = std::result::Result<T, E>;

/// What the audit found: the tally of its checks, and what it has to say
/// in the order it found it (a failed check, a tournament passed over, a
/// note on one still in play).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Audit {
    /// The tournaments looked at (those passed over included).
    pub tournaments: usize,
    /// The events replayed.
    pub events: u64,
    pub passed: u64,
    pub failed: u64,
    pub lines: Vec<Line>,
}

/// One thing the audit says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// A check that failed: what was checked, and how it failed.
    Failed { check: String, why: String },
    /// A tournament never wholly created: the services ignore it.
    Skipped { tournament: String, missing: String },
    /// Something worth knowing that is not a failure.
    Note(String),
}

impl std::fmt::Display for Line {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Line::Failed { check, why } => write!(f, "FAILED {check}: {why}"),
            Line::Skipped {
                tournament,
                missing,
            } => write!(
                f,
                "SKIPPED {tournament}: never wholly created ({missing} never accepted it); the services ignore it"
            ),
            Line::Note(note) => f.write_str(note),
        }
    }
}

impl Audit {
    /// Every check passed.
    pub fn clean(&self) -> bool {
        self.failed == 0
    }

    /// The checks that failed, by what was checked.
    pub fn failures(&self) -> impl Iterator<Item = &str> {
        self.lines.iter().filter_map(|l| match l {
            Line::Failed { check, .. } => Some(check.as_str()),
            _ => None,
        })
    }

    fn check(&mut self, what: &str, result: Result<(), String>) {
        match result {
            Ok(()) => self.passed += 1,
            Err(why) => {
                self.failed += 1;
                self.lines.push(Line::Failed {
                    check: what.to_string(),
                    why,
                });
            }
        }
    }

    fn note(&mut self, note: String) {
        self.lines.push(Line::Note(note));
    }
}

/// Where the audit reads a tournament's streams from.
trait Streams {
    /// A stream's envelopes from its first.
    async fn read(&mut self, stream: &StreamId) -> Result<Vec<Envelope>>;
}

/// One read of the log per stream (the embedded log reads a stream of
/// 1,000 events in a quarter of a millisecond).
struct PerStream<'a, L>(&'a L);

impl<L: EventLog> Streams for PerStream<'_, L> {
    async fn read(&mut self, stream: &StreamId) -> Result<Vec<Envelope>> {
        Ok(self.0.read(stream, 1).await?)
    }
}

/// The log read once ([`EventLog::read_all`]), its tournaments' (or one
/// tournament's) streams kept. On NATS, reading a subject of a large
/// stream makes the server search its blocks for it: a 10,000-entrant
/// tournament's 1,112 tables took 23 s that way, the server's core busy
/// throughout, where one pass replays 700,000 events a second.
struct Replayed(HashMap<StreamId, Vec<Envelope>>);

impl Replayed {
    async fn read<L: EventLog>(log: &L, only: Option<&str>) -> Result<Replayed> {
        let mut streams: HashMap<StreamId, Vec<Envelope>> = HashMap::new();
        let filter = Filter {
            id: None,
            tournament: only.map(str::to_string),
            kind: None,
        };
        log.read_all(&filter, |c| {
            streams.entry(c.stream).or_default().extend(c.envelopes);
            Ok(())
        })
        .await?;
        Ok(Replayed(streams))
    }
}

impl Streams for Replayed {
    async fn read(&mut self, stream: &StreamId) -> Result<Vec<Envelope>> {
        Ok(self.0.remove(stream).unwrap_or_default())
    }
}

/// Checks the tournament `only` (every tournament in the log without it):
/// hash chains, every stream's fold, every digital deal against its
/// committed seed, every pot against the cards, chips conserved at every
/// hand and across the tournament, seating against the tables, places and
/// prizes against the busts. A log altered by hand gives failed checks,
/// never a panic; an error is only the log failing, or no tournament to
/// check. It reads the log once per stream (the embedded log reads a
/// stream of 1,000 events in a quarter of a millisecond).
pub async fn verify<L: EventLog>(log: &L, only: Option<&str>) -> Result<Audit> {
    verify_all(log, &mut PerStream(log), only).await
}

/// [`verify`], reading the whole log once instead (NATS: see [`Replayed`]).
pub async fn verify_read_once<L: EventLog>(log: &L, only: Option<&str>) -> Result<Audit> {
    let mut streams = Replayed::read(log, only).await?;
    verify_all(log, &mut streams, only).await
}

/// [`verify`], reading the streams from `streams`.
async fn verify_all<L: EventLog>(
    log: &L,
    streams: &mut impl Streams,
    only: Option<&str>,
) -> Result<Audit> {
    let tournaments: Vec<String> = match only {
        Some(t) => vec![t.to_string()],
        None => aggregates::tournaments(log)
            .await?
            .into_iter()
            .map(|t| t.tournament.to_string())
            .collect(),
    };
    if tournaments.is_empty() {
        return Err(AuditError::Empty);
    }
    let mut report = Audit {
        tournaments: tournaments.len(),
        ..Audit::default()
    };
    // Each event's tickets redeemed and not refunded, by reference: where.
    let mut across: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for t in &tournaments {
        // A tournament a log written before creation was all or nothing
        // holds half created (a part refused its definition) is reported
        // and passed over: it never played, and the services ignore it.
        let parts = aggregates::parts(log, t).await?;
        if !parts.seating && only.is_some() {
            return Err(AuditError::NoSuchTournament(t.clone()));
        }
        if !parts.whole() {
            report.lines.push(Line::Skipped {
                tournament: t.clone(),
                missing: parts.missing().to_string(),
            });
            continue;
        }
        let mut redeemed = Vec::new();
        let mut advanced = None;
        let events =
            verify_tournament(streams, t, &mut report, &mut redeemed, &mut advanced).await?;
        report.events += events;
        if let Some(event) = check_tickets(log, t, &redeemed, &mut report).await? {
            let refs = across.entry(event).or_default();
            for (entry, _, reference, refunded) in redeemed {
                if !refunded {
                    refs.entry(reference)
                        .or_default()
                        .push(format!("{t}/{entry}"));
                }
            }
        }
        if let Some(advanced) = advanced {
            check_flights(log, t, &advanced, &mut report).await?;
        }
    }
    // A seat in an event buys one entry across the event and its flights.
    for (event, refs) in across {
        let tournaments: std::collections::BTreeSet<&str> = refs
            .values()
            .flatten()
            .filter_map(|at| at.split_once('/').map(|(t, _)| t))
            .collect();
        if tournaments.len() < 2 {
            continue;
        }
        let twice: Vec<String> = refs
            .iter()
            .filter(|(_, at)| at.len() > 1)
            .map(|(r, at)| format!("{r} in {}", at.join(" and ")))
            .collect();
        report.check(
            &format!("{event}: each ticket buys one entry across its flights"),
            if twice.is_empty() {
                Ok(())
            } else {
                Err(format!("redeemed twice: {}", twice.join(", ")))
            },
        );
    }
    Ok(report)
}

/// A stream read whole, its chain checked, its events decoded; a failure
/// names the stream and the event. `None` when an event cannot be decoded.
async fn load<E: DeserializeOwned>(
    streams: &mut impl Streams,
    stream: &StreamId,
    report: &mut Audit,
) -> Result<Option<(Vec<E>, Vec<Envelope>)>> {
    let envelopes = streams.read(stream).await?;
    report.check(
        &format!("{stream}: hash chain"),
        verify_chain(&envelopes).map_err(|b| b.to_string()),
    );
    let mut events = Vec::with_capacity(envelopes.len());
    for env in &envelopes {
        match env.decode::<E>() {
            Ok(e) => events.push(e),
            Err(e) => {
                report.check(
                    &format!("{stream}: event {} ({})", env.sequence, env.event_type),
                    Err(e.to_string()),
                );
                return Ok(None);
            }
        }
    }
    // A broken chain is reported; the events still go through every
    // other check.
    Ok(Some((events, envelopes)))
}

/// A stream's events folded into its state; `None` (the failure
/// reported against `stream`) when the state cannot take them: a log
/// altered by hand may hold events no decider would have made, and the
/// audit says so instead of crashing.
fn fold<S: Default, E>(
    stream: &str,
    events: &[E],
    apply: impl Fn(&mut S, &E),
    report: &mut Audit,
) -> Option<S> {
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let folded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut state = S::default();
        for e in events {
            apply(&mut state, e);
        }
        state
    }));
    std::panic::set_hook(quiet);
    match folded {
        Ok(state) => Some(state),
        Err(panic) => {
            let why = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_string()))
                .unwrap_or_else(|| "no reason given".into());
            report.check(
                &format!("{stream}: its events fold into a state"),
                Err(format!("they cannot: {why}")),
            );
            None
        }
    }
}

/// A satellite's ticket an entry was bought with: the entry, its player,
/// the ticket's reference, and whether the entry was refunded since.
type Redeemed = (EntryId, felt_seating::PlayerId, String, bool);

/// An event's stacks from its flights' bags, the bags forfeited, and
/// where its day resumed the structure.
type Advanced = (
    Vec<felt_seating::AdvancedStack>,
    Vec<felt_seating::FlightBag>,
    Option<felt_seating::DayResume>,
);

async fn verify_tournament(
    streams: &mut impl Streams,
    t: &str,
    report: &mut Audit,
    redeemed: &mut Vec<Redeemed>,
    advanced: &mut Option<Advanced>,
) -> Result<u64> {
    let mut count = 0u64;
    let Some((seating_events, envs)) =
        load::<SeatingEvent>(streams, &seating_stream(t)?, report).await?
    else {
        return Ok(count);
    };
    for e in &seating_events {
        match e {
            SeatingEvent::Registered { entry, player, .. } => {
                redeemed.push((*entry, player.clone(), String::new(), false));
            }
            SeatingEvent::PaymentTaken { entry, payment, .. }
                if payment.method == felt_seating::PaymentMethod::Ticket =>
            {
                if let Some(r) = redeemed.iter_mut().rev().find(|r| r.0 == *entry) {
                    r.2.clone_from(&payment.reference);
                }
            }
            SeatingEvent::Unregistered { entry, .. } => {
                if let Some(r) = redeemed.iter_mut().rev().find(|r| r.0 == *entry) {
                    r.3 = true;
                }
            }
            SeatingEvent::FlightsAdvanced {
                advanced: stacks,
                forfeited,
                resume,
                ..
            } => *advanced = Some((stacks.clone(), forfeited.clone(), *resume)),
            _ => {}
        }
    }
    redeemed.retain(|r| !r.2.is_empty());
    count += envs.len() as u64;
    let Some(seating) = fold(
        &format!("{t}.seating"),
        &seating_events,
        SeatingState::apply,
        report,
    ) else {
        return Ok(count);
    };
    let settings = seating
        .settings()
        .ok_or_else(|| AuditError::NoSeating(t.to_string()))?
        .clone();
    let clock = load::<felt_clock::ClockEvent>(streams, &clock_stream(t)?, report).await?;
    if let Some((events, envs)) = &clock {
        count += envs.len() as u64;
        if let Some(state) =
            fold::<ClockState, _>(&format!("{t}.clock"), events, ClockState::apply, report)
        {
            report.check(
                &format!("{t}: the clock"),
                (state.remaining() >= 0)
                    .then_some(())
                    .ok_or_else(|| "negative time left".into()),
            );
        }
        // Rule 77's cards: one the service drew is the card its recorded
        // seed gives; one the director entered is noted as such.
        for e in events {
            if let felt_clock::ClockEvent::EndOfDayDrawn { hands, draw, .. } = e {
                match draw {
                    Some(seed) => {
                        let card = felt_clock::card_from(seed);
                        report.check(
                            &format!("{t}: the day's card (rule 77)"),
                            (card == *hands).then_some(()).ok_or_else(|| {
                                format!("{hands} hands recorded, but the recorded draw gives {card}")
                            }),
                        );
                        report.note(format!(
                            "{t}: the day's last {hands} hands (rule 77), drawn by the service from its recorded seed"
                        ));
                    }
                    None => report.note(format!(
                        "{t}: the day's last {hands} hands (rule 77), the card entered by the director"
                    )),
                }
            }
        }
    }
    let payout = load::<felt_payout::PayoutEvent>(streams, &payout_stream(t)?, report).await?;
    if !seating.started() {
        // Nothing dealt yet: nothing on a table to check.
        report.note(format!(
            "{t}: not started ({} entries registered): no table to check yet",
            seating.entries_in()
        ));
        return Ok(count);
    }

    // Every table ever opened (numbers are never reused). Counts of chips
    // are 128-bit: no stack, however large, can wrap them into agreeing.
    let mut on_tables: BTreeMap<EntryId, (u32, u64)> = BTreeMap::new();
    let mut chips_total = 0u128;
    let mut in_progress = Vec::new();
    // Every count of the stacks: table, name, chips expected and counted.
    let mut counts: Vec<(TableNo, String, u64, u64)> = Vec::new();
    // The floor's corrections: chips a correction added to play, and chips
    // it (or a removal) took out.
    let (mut corrected_in, mut corrected_out) = (0u128, 0u128);
    // The add-ons' chips the tables put on stacks, by entry.
    let mut added_on: BTreeMap<EntryId, u64> = BTreeMap::new();
    // The rebuys' the tables put on stacks, by entry: how many, what chips.
    let mut rebought: BTreeMap<EntryId, (u32, u64)> = BTreeMap::new();
    for table in 1..=seating.room().last_table {
        let stream = felt_tablelog::stream(t, table)?;
        let Some((events, envs)) = load::<TableEvent>(streams, &stream, report).await? else {
            continue;
        };
        count += envs.len() as u64;
        report.check(
            &format!("{stream}: deals follow their seeds"),
            felt_table::check_deals(&events)
                .map(|_| ())
                .map_err(|e| e.to_string()),
        );
        report.check(
            &format!("{stream}: pots follow the cards, hands keep their chips"),
            felt_table::check_awards(&events)
                .map(|_| ())
                .map_err(|e| e.to_string()),
        );
        let Some(state) =
            fold::<TableState, _>(&stream.to_string(), &events, TableState::apply, report)
        else {
            continue;
        };
        // Counts add what they found over the table's record, or take off
        // what they did not find.
        let (mut seated, mut removed) = (0u128, 0u128);
        let mut unrecorded = Unrecorded::default();
        for (e, env) in events.iter().zip(&envs) {
            // Who asked for a ruling, as the log names them.
            let by = env
                .actor
                .as_deref()
                .map_or_else(String::new, |a| format!(" (by {a})"));
            match e {
                TableEvent::PlayerSeated { stack, .. } => seated += u128::from(*stack),
                TableEvent::PlayerRemoved { stack, .. } => removed += u128::from(*stack),
                TableEvent::StacksCounted {
                    count,
                    expected,
                    counted,
                    ..
                } => {
                    seated += u128::from(*counted);
                    removed += u128::from(*expected);
                    counts.push((table, count.clone(), *expected, *counted));
                }
                TableEvent::StackCorrected {
                    seat,
                    player,
                    from,
                    to,
                    concerns,
                    reason,
                } => {
                    seated += u128::from(*to);
                    removed += u128::from(*from);
                    corrected_in += u128::from(to.saturating_sub(*from));
                    corrected_out += u128::from(from.saturating_sub(*to));
                    let concerns = match concerns {
                        felt_table::Concerns::Hand(n) => format!("hand {n}"),
                        felt_table::Concerns::Moment(m) => m.clone(),
                    };
                    report.note(format!(
                        "{t}: table {table}, after hand {}: the floor corrected seat {seat} (entry {player}) from {from} to {to} chips ({concerns}){by}: {reason}",
                        unrecorded.hands
                    ));
                }
                TableEvent::PlayerDisqualified {
                    seat,
                    player,
                    stack,
                    reason,
                } => {
                    removed += u128::from(*stack);
                    corrected_out += u128::from(*stack);
                    report.note(format!(
                        "{t}: table {table}, after hand {}: seat {seat} (entry {player}) disqualified, {stack} chips removed from play (TDA 71){by}: {reason}",
                        unrecorded.hands
                    ));
                }
                TableEvent::StackSurrendered {
                    seat,
                    player,
                    stack,
                }
                | TableEvent::NoShowRemoved {
                    seat,
                    player,
                    stack,
                } => {
                    removed += u128::from(*stack);
                    corrected_out += u128::from(*stack);
                    let why = if matches!(e, TableEvent::NoShowRemoved { .. }) {
                        format!(
                            "never arrived, replaced by an alternate: {stack} chips removed from play (seed 003)"
                        )
                    } else {
                        format!("gave up {stack} chips for a new entry, removed from play (TDA 8)")
                    };
                    report.note(format!(
                        "{t}: table {table}, after hand {}: seat {seat} (entry {player}) {why}",
                        unrecorded.hands
                    ));
                }
                TableEvent::AddOnAdded { player, chips, .. } => {
                    seated += u128::from(*chips);
                    *added_on.entry(*player).or_default() += *chips;
                }
                TableEvent::RebuyAdded { player, chips, .. } => {
                    seated += u128::from(*chips);
                    let r = rebought.entry(*player).or_default();
                    *r = (r.0 + 1, r.1.saturating_add(*chips));
                }
                TableEvent::ColouredUp {
                    leaving,
                    smallest,
                    seed,
                    raced,
                } => {
                    let before: u128 = raced.iter().map(|r| u128::from(r.before)).sum();
                    let after: u128 = raced.iter().map(|r| u128::from(r.after)).sum();
                    removed += before;
                    seated += after;
                    corrected_in += after.saturating_sub(before);
                    corrected_out += before.saturating_sub(after);
                    let put_up: u128 = raced.iter().map(|r| u128::from(r.odd)).sum();
                    let won = raced.iter().filter(|r| r.won).count();
                    let saved = raced.iter().filter(|r| r.saved).count();
                    report.note(format!(
                        "{t}: table {table}, after hand {}: colour-up of the {leaving} chip (TDA 24){by}: {} stacks put up {put_up}, {won} won a chip of {smallest}{}, race {}; {before} chips before, {after} after",
                        unrecorded.hands,
                        raced.len(),
                        if saved > 0 { format!(", {saved} kept one (nobody is out by the race)") } else { String::new() },
                        if seed.is_some() { "dealt by the engine from its seed" } else { "entered by the dealer" },
                    ));
                }
                TableEvent::ChipsRemoved {
                    seat,
                    player,
                    amount,
                    removal,
                    reason,
                } => {
                    removed += u128::from(*amount);
                    corrected_out += u128::from(*amount);
                    report.note(format!(
                        "{t}: table {table}, after hand {}: {amount} chips of seat {seat} (entry {player}) removed from play ({}){by}: {reason}",
                        unrecorded.hands,
                        removal.rule()
                    ));
                }
                _ => {}
            }
            unrecorded.see(e);
        }
        if let Some(said) = unrecorded.said(table) {
            report.note(format!("{t}: {said}"));
        }
        // A hand being played has chips in the middle: they are on the
        // table too.
        let in_hand = state.hand().map_or(0, |h| {
            in_progress.push(format!("table {table} hand {}", h.number));
            u128::from(h.pot())
        });
        let on_table: u128 = (1..=state.size())
            .filter_map(|s| state.seat(s))
            .map(|p| u128::from(p.stack))
            .sum::<u128>()
            + in_hand;
        report.check(
            &format!("{stream}: chips seated less chips removed are the chips on the table"),
            (seated.checked_sub(removed) == Some(on_table))
                .then_some(())
                .ok_or_else(|| {
                    format!("{seated} seated, {removed} removed, {on_table} on the table")
                }),
        );
        chips_total += on_table;
        for s in 1..=state.size() {
            if let Some(p) = state.seat(s)
                && p.stack > 0
            {
                on_tables.insert(p.player, (table, p.stack));
            }
        }
        // Seating agrees with the table on who sits where.
        // (A player who busted and is deciding on a rebuy holds their seat
        // at seating, their chips gone from the table, and so does one who
        // bought it until its chips reach the table: rule 27.)
        let room = seating.room().tables.get(&table);
        let disagree: Vec<String> = (1..=state.size())
            .filter_map(|s| {
                let at_table = state.seat(s).filter(|p| p.stack > 0).map(|p| p.player);
                let in_seating = room.and_then(|r| r.occupant(s)).filter(|e| {
                    !(seating.room().deciding(*e)
                        || at_table.is_none() && seating.room().rebuys.contains_key(e))
                });
                (at_table != in_seating)
                    .then(|| format!("seat {s}: table {at_table:?}, seating {in_seating:?}"))
            })
            .collect();
        report.check(
            &format!("{stream}: seats agree with seating"),
            if disagree.is_empty() {
                Ok(())
            } else {
                Err(disagree.join("; "))
            },
        );
    }
    // (A no-show's chips were on a table until their removal.)
    let entries = u128::from(seating.entries_in()) + seating.no_shows().len() as u128;
    // The add-ons' chips: each on a stack once, for an add-on seating
    // sold with those chips (one still on its way is noted).
    let sold = seating.add_ons();
    let strays: Vec<String> = added_on
        .iter()
        .filter(|(entry, chips)| sold.get(*entry) != Some(*chips))
        .map(|(entry, chips)| format!("entry {entry}: {chips}"))
        .collect();
    report.check(
        &format!("{t}: add-on chips on the tables are add-ons sold"),
        if strays.is_empty() {
            Ok(())
        } else {
            Err(format!("not as sold: {}", strays.join(", ")))
        },
    );
    let on_the_way = sold.keys().filter(|e| !added_on.contains_key(e)).count();
    let add_on_chips: u128 = added_on.values().map(|&c| u128::from(c)).sum();
    if !sold.is_empty() {
        report.note(format!(
            "{t}: {} add-on(s) sold, {add_on_chips} chips on the tables{}",
            sold.len(),
            if on_the_way > 0 {
                format!(", {on_the_way} on the way to their stack")
            } else {
                String::new()
            }
        ));
    }
    // The rebuys' chips (rule 27): each on a stack once, for a rebuy
    // seating sold with those chips (the last one still on its way to the
    // table is not yet on it).
    let rebuys_sold = seating.rebuys();
    let on_its_way = &seating.room().rebuys;
    let strays: Vec<String> = rebuys_sold
        .keys()
        .chain(rebought.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter_map(|e| {
            let (n, chips) = rebuys_sold.get(e).copied().unwrap_or((0, 0));
            let expected = match on_its_way.get(e) {
                Some(&(_, _, c, _)) => (n.saturating_sub(1), chips.saturating_sub(c)),
                None => (n, chips),
            };
            let on_tables = rebought.get(e).copied().unwrap_or((0, 0));
            (expected != on_tables).then(|| {
                format!(
                    "entry {e}: {} rebuy(s) of {} chips sold and delivered, {} of {} on the tables",
                    expected.0, expected.1, on_tables.0, on_tables.1
                )
            })
        })
        .collect();
    report.check(
        &format!("{t}: rebuy chips on the tables are rebuys sold (rule 27)"),
        if strays.is_empty() {
            Ok(())
        } else {
            Err(format!("not as sold: {}", strays.join(", ")))
        },
    );
    check_bags(t, &seating_events, report);
    let rebuy_chips: u128 = rebought.values().map(|&(_, c)| u128::from(c)).sum();
    // Offers to busted players (rule 27): those not declined nor still
    // open were bought.
    let (offered, declined) = seating_events
        .iter()
        .fold((0u32, 0u32), |(o, d), e| match e {
            SeatingEvent::RebuysOffered { offered, .. } => (o + offered.len() as u32, d),
            SeatingEvent::RebuyDeclined { .. } => (o, d + 1),
            _ => (o, d),
        });
    let open: u32 = seating
        .room()
        .offers
        .values()
        .map(|o| o.waiting.len() as u32)
        .sum();
    let taken = offered.saturating_sub(declined + open);
    if !rebuys_sold.is_empty() || offered > 0 {
        report.note(format!(
            "{t}: {} rebuy(s) sold to {} entries ({taken} of {offered} offered when busted, {declined} declined), {rebuy_chips} chips on the tables{}",
            rebuys_sold.values().map(|r| r.0).sum::<u32>(),
            rebuys_sold.len(),
            if on_its_way.is_empty() {
                String::new()
            } else {
                format!(", {} on the way to their stack", on_its_way.len())
            }
        ));
    }
    // Chips bought in (entries, add-ons and rebuys), and what the floor's
    // corrections put in or took out.
    // An event's stacks from its flights' bags came in with their chips
    // (issue 28), every other entry with the starting stack.
    let from_flights = seating.flight_stacks();
    let flight_chips: u128 = from_flights.values().map(|&c| u128::from(c)).sum();
    let bought = (entries.saturating_sub(from_flights.len() as u128)
        * u128::from(settings.starting_stack)
        + flight_chips
        + add_on_chips
        + rebuy_chips
        + corrected_in)
        .saturating_sub(corrected_out);
    check_counts(t, &counts, report);
    let (found, missed) = counts.iter().fold((0u128, 0u128), |(f, m), c| {
        (
            f + u128::from(c.3.saturating_sub(c.2)),
            m + u128::from(c.2.saturating_sub(c.3)),
        )
    });
    report.check(
        &format!("{t}: every chip of {entries} entries is on a table"),
        (chips_total == bought).then_some(()).ok_or_else(|| {
            if found == 0 && missed == 0 {
                format!(
                    "{chips_total} chips on the tables, {bought} bought in (the floor's corrections included)"
                )
            } else {
                format!(
                    "{chips_total} chips on the tables, {bought} bought in: the counts found {found} more and {missed} fewer than the tables' records, not yet reconciled by a count of every table they moved between"
                )
            }
        }),
    );
    if !in_progress.is_empty() {
        report.note(format!(
            "{t}: in play, {} hand(s) in progress ({}): their chips in the middle are counted on their tables",
            in_progress.len(),
            in_progress.join(", ")
        ));
    }
    let alive: Vec<EntryId> = seating
        .entries()
        .iter()
        .filter(|(id, e)| {
            matches!(e.status, EntryStatus::Seated { .. })
                && !seating.room().deciding(**id)
                && (on_tables.contains_key(*id) || !seating.room().rebuys.contains_key(*id))
        })
        .map(|(id, _)| *id)
        .collect();
    let with_chips: Vec<EntryId> = on_tables.keys().copied().collect();
    report.check(
        &format!("{t}: the players with chips are the players seating has seated"),
        (alive == with_chips)
            .then_some(())
            .ok_or_else(|| format!("seating {alive:?}, tables {with_chips:?}")),
    );

    if let Some((events, envs)) = &payout {
        count += envs.len() as u64;
        if let Some(state) =
            fold::<PayoutState, _>(&format!("{t}.payout"), events, PayoutState::apply, report)
        {
            check_places(t, &seating_events, &seating, &state, report);
            // Every add-on seating sold is paid into the pool.
            report.check(
                &format!("{t}: every add-on sold is in the pool"),
                (state.add_ons() as usize == seating.add_ons().len())
                    .then_some(())
                    .ok_or_else(|| {
                        format!(
                            "seating sold {}, payout holds {}",
                            seating.add_ons().len(),
                            state.add_ons()
                        )
                    }),
            );
            // Every rebuy seating sold is paid into the pool.
            let sold: u32 = seating.rebuys().values().map(|r| r.0).sum();
            report.check(
                &format!("{t}: every rebuy sold is in the pool (rule 27)"),
                (state.rebuys() == sold)
                    .then_some(())
                    .ok_or_else(|| format!("seating sold {sold}, payout holds {}", state.rebuys())),
            );
        }
    }
    Ok(count)
}

/// What a table did not record: its stretches of results only, and the
/// results the floor reported in them.
#[derive(Default)]
struct Unrecorded {
    stretches: Vec<Stretch>,
    hands: u64,
}

/// A stretch of results only: after which hand it began, the results and
/// busts reported, the hand after which actions were recorded again.
struct Stretch {
    after: u64,
    results: u64,
    busts: usize,
    until: Option<u64>,
}

impl Unrecorded {
    fn see(&mut self, e: &TableEvent) {
        match e {
            TableEvent::HandStarted { number, .. } => self.hands = *number,
            TableEvent::RecordingSet { recording, .. } => {
                if *recording == felt_table::Recording::ResultsOnly {
                    self.stretches.push(Stretch {
                        after: self.hands,
                        results: 0,
                        busts: 0,
                        until: None,
                    });
                } else if let Some(last) = self.stretches.last_mut() {
                    last.until = Some(self.hands);
                }
            }
            TableEvent::ResultRecorded { number, busted, .. } => {
                self.hands = *number;
                if let Some(last) = self.stretches.last_mut() {
                    last.results += 1;
                    last.busts += busted.len();
                }
            }
            _ => {}
        }
    }

    /// The audit's note: which hands were not recorded.
    fn said(&self, table: TableNo) -> Option<String> {
        if self.stretches.is_empty() {
            return None;
        }
        let parts: Vec<String> = self
            .stretches
            .iter()
            .map(|s| {
                let until = match s.until {
                    Some(n) => format!("until hand {n}"),
                    None => "until now".to_string(),
                };
                format!(
                    "results only after hand {} {until}: the hands played were not recorded, {} result(s) reported by the floor with {} bust(s)",
                    s.after, s.results, s.busts
                )
            })
            .collect();
        Some(format!("table {table}: {}", parts.join("; ")))
    }
}

/// The counts of the stacks, by name: what each found against the tables'
/// records. A difference is a finding (chips the record did not know of,
/// or missing from it), reported; the chips on the tables are checked
/// against the chips bought in with them.
fn check_counts(t: &str, counts: &[(TableNo, String, u64, u64)], report: &mut Audit) {
    let mut by_name: BTreeMap<&str, (Vec<TableNo>, u128, u128)> = BTreeMap::new();
    for (table, name, expected, counted) in counts {
        let e = by_name.entry(name.as_str()).or_default();
        e.0.push(*table);
        e.1 += u128::from(*expected);
        e.2 += u128::from(*counted);
    }
    for (name, (tables, expected, counted)) in by_name {
        let tables: Vec<String> = tables.iter().map(ToString::to_string).collect();
        report.note(format!(
            "{t}: count {name:?} at table(s) {}: {counted} chips counted, {expected} on the tables' records{}",
            tables.join(", "),
            if counted == expected {
                String::new()
            } else if counted > expected {
                format!(" ({} more)", counted - expected)
            } else {
                format!(" ({} fewer)", expected - counted)
            }
        ));
    }
}

/// Places and prizes against the busts seating recorded: each bust group's
/// places are the ones the order of busts gives; once the tournament is
/// over, the prizes add up to the pool and the bounties paid to the
/// bounties bought in.
/// Bag and tag: each day's sealed bags, and every player a new day's draw
/// moved arriving with exactly the chips of their sealed bag (a table
/// correction after the seal would show here).
/// Every entry bought with a satellite's ticket names a seat that
/// satellite awarded to that player, bound to this event and worth its
/// price of an entry; no ticket buys two entries that stayed in. The
/// event the tickets are seats in (a flight's, its event), for the check
/// across an event's flights.
async fn check_tickets<L: EventLog>(
    log: &L,
    t: &str,
    redeemed: &[Redeemed],
    report: &mut Audit,
) -> Result<Option<String>> {
    if redeemed.is_empty() {
        return Ok(None);
    }
    let mut read = PerStream(log);
    let payout = |envs: Vec<Envelope>| -> Vec<felt_payout::PayoutEvent> {
        envs.iter().filter_map(|e| e.decode().ok()).collect()
    };
    let configured = payout(read.read(&payout_stream(t)?).await?)
        .into_iter()
        .find_map(|e| match e {
            felt_payout::PayoutEvent::Configured { settings, .. } => Some(settings),
            _ => None,
        });
    let price = configured
        .as_ref()
        .map(felt_payout::MoneySettings::entry_price);
    // A flight's tickets are seats in its event.
    let event = configured
        .as_ref()
        .and_then(|s| s.structure.flight_of())
        .unwrap_or(t)
        .to_string();
    let mut satellites: BTreeMap<String, Vec<felt_payout::PayoutEvent>> = BTreeMap::new();
    let mut live: BTreeMap<&str, u32> = BTreeMap::new();
    for (entry, player, reference, refunded) in redeemed {
        if !refunded {
            *live.entry(reference).or_default() += 1;
        }
        let found = match reference.rsplit_once('/') {
            Some((sat, won)) => match (won.parse::<u64>(), payout_stream(sat)) {
                (Ok(won), Ok(stream)) => {
                    if !satellites.contains_key(sat) {
                        let events = payout(read.read(&stream).await?);
                        satellites.insert(sat.to_string(), events);
                    }
                    let cashed = satellites[sat].iter().any(|e| {
                        matches!(e, felt_payout::PayoutEvent::TicketCashed { entry, .. } if entry.get() == won)
                    });
                    satellites[sat].iter().find_map(|e| match e {
                        felt_payout::PayoutEvent::TicketAwarded {
                            entry,
                            player,
                            target,
                            value,
                        } if entry.get() == won => {
                            Some((player.clone(), target.clone(), *value, cashed))
                        }
                        _ => None,
                    })
                }
                _ => None,
            },
            None => None,
        };
        report.check(
            &format!("{t}: entry {entry}'s ticket {reference}"),
            match found {
                None => Err("no such seat was awarded".into()),
                Some((holder, target, _, _)) if target != event || holder != *player => Err(
                    format!("the seat was {holder}'s in {target}, not {player}'s in {event}"),
                ),
                Some((_, _, value, _)) if Some(value) != price => Err(format!(
                    "worth {value}, an entry costs {}",
                    price.unwrap_or_default()
                )),
                Some((.., true)) => {
                    Err("the satellite paid this seat in cash (its player's second seat)".into())
                }
                Some(_) => Ok(()),
            },
        );
    }
    let twice: Vec<&str> = live
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(r, _)| *r)
        .collect();
    report.check(
        &format!("{t}: each ticket buys one entry"),
        if twice.is_empty() {
            Ok(())
        } else {
            Err(format!("redeemed twice: {}", twice.join(", ")))
        },
    );
    report.note(format!(
        "{t}: {} entries bought with satellites' tickets",
        live.values().sum::<u32>()
    ));
    Ok(Some(event))
}

/// An event's Day 2 against its flights' sealed bags (issue 28): every
/// bag of every flight of `t` either makes one of its stacks (a stack
/// holds exactly its bags' chips) or is forfeited with its chips, and
/// nothing else reached Day 2.
async fn check_flights<L: EventLog>(
    log: &L,
    t: &str,
    (stacks, forfeited, resume): &Advanced,
    report: &mut Audit,
) -> Result<()> {
    let mut read = PerStream(log);
    // Every flight's sealed bags, by entry (flight entries are numbered
    // apart, so one map holds them all).
    let mut left: BTreeMap<EntryId, u64> = BTreeMap::new();
    // Where the furthest flight's day ended.
    let mut furthest: Option<felt_clock::ResumeAt> = None;
    let flights = aggregates::flights_of(log, t).await?;
    for f in &flights {
        let mut seating = SeatingState::default();
        for e in read.read(&seating_stream(f.as_str())?).await? {
            if let Ok(e) = e.decode::<SeatingEvent>() {
                seating.apply(&e);
            }
        }
        if let Some(bags) = seating.room().bags.as_ref().filter(|b| b.sealed) {
            left.extend(bags.bags.iter().map(|(&e, b)| (e, b.chips)));
        }
        let mut clock = ClockState::default();
        for e in read.read(&clock_stream(f.as_str())?).await? {
            if let Ok(e) = e.decode::<felt_clock::ClockEvent>() {
                clock.apply(&e);
            }
        }
        furthest = furthest.max(clock.resume_at());
    }
    // Recorded before the resume was kept: nothing to check.
    if let Some(r) = resume {
        report.check(
            &format!("{t}: Day 2 resumed the structure where the furthest flight's day ended"),
            match furthest {
                Some(at)
                    if r.day == at.day + 1
                        && r.level == at.level
                        && r.remaining_ms <= at.remaining =>
                {
                    Ok(())
                }
                other => Err(format!(
                    "resumed on day {} at level {} with {} ms left; the flights ended at {other:?}",
                    r.day, r.level, r.remaining_ms
                )),
            },
        );
    }
    let mut wrong = Vec::new();
    for s in stacks {
        let chips: Option<u64> = s
            .bags
            .iter()
            .map(|b| left.remove(b))
            .try_fold(0u64, |sum, c| sum.checked_add(c?));
        if chips != Some(s.chips) {
            wrong.push(format!(
                "entry {} plays {} chips from bags {:?}, which held {chips:?}",
                s.entry, s.chips, s.bags
            ));
        }
    }
    for f in forfeited {
        if left.remove(&f.entry) != Some(f.chips) {
            wrong.push(format!(
                "entry {}'s bag of {} chips forfeited is not a sealed bag of flight {}",
                f.entry, f.chips, f.flight
            ));
        }
    }
    if !left.is_empty() {
        wrong.push(format!(
            "{} sealed bags reached neither Day 2 nor the forfeits: {:?}",
            left.len(),
            left.keys().take(5).collect::<Vec<_>>()
        ));
    }
    report.check(
        &format!(
            "{t}: every bag of its {} flights reached Day 2 or was forfeited",
            flights.len()
        ),
        if wrong.is_empty() {
            Ok(())
        } else {
            Err(wrong.join(", "))
        },
    );
    Ok(())
}

fn check_bags(t: &str, seating_events: &[SeatingEvent], report: &mut Audit) {
    for e in seating_events {
        if let SeatingEvent::FlightsAdvanced {
            advanced,
            forfeited,
            out_before,
            resume,
        } = e
        {
            let kept: u128 = advanced.iter().map(|a| u128::from(a.chips)).sum();
            let lost: u128 = forfeited.iter().map(|b| u128::from(b.chips)).sum();
            let bags: usize = advanced.iter().map(|a| a.bags.len()).sum();
            let resumed = resume.map_or(String::new(), |r| {
                format!(
                    "; day {} from level {} with {} s left",
                    r.day,
                    r.level,
                    r.remaining_ms / 1_000
                )
            });
            report.note(format!(
                "{t}: Day 2 from the flights: {} stacks of {kept} chips from {bags} bags, {} bags of {lost} chips forfeited, {out_before} flight entries out before{resumed}",
                advanced.len(),
                forfeited.len()
            ));
        }
    }
    let mut bags: BTreeMap<EntryId, u64> = BTreeMap::new();
    let mut sealed: BTreeMap<EntryId, u64> = BTreeMap::new();
    let mut moving: BTreeMap<u64, EntryId> = BTreeMap::new();
    let (mut days, mut arrived, mut wrong) = (0u32, 0u32, Vec::new());
    for e in seating_events {
        match e {
            SeatingEvent::StacksBagged { bags: list } => {
                bags = list.iter().map(|b| (b.entry, b.chips)).collect();
            }
            SeatingEvent::BagRecounted { entry, chips } => {
                bags.insert(*entry, *chips);
            }
            SeatingEvent::BagsSealed { bags: n, chips } => {
                days += 1;
                let total: u128 = bags.values().map(|&c| u128::from(c)).sum();
                report.check(
                    &format!("{t}: the sealed bags hold what was bagged"),
                    (total == u128::from(*chips) && *n as usize == bags.len())
                        .then_some(())
                        .ok_or_else(|| {
                            format!(
                                "{n} bags of {chips} chips sealed, {} of {total} counted",
                                bags.len()
                            )
                        }),
                );
                sealed = std::mem::take(&mut bags);
            }
            SeatingEvent::MoveStarted { r#move: m, .. }
                if m.reason == felt_seating::MoveReason::NewDay =>
            {
                moving.insert(m.id, m.entry);
            }
            SeatingEvent::MoveCompleted { id, stack } => {
                // (An entry registered after the bags has none: it plays
                // its starting stack.)
                if let Some(bag) = moving.remove(id).and_then(|e| Some((e, *sealed.get(&e)?))) {
                    arrived += 1;
                    if bag.1 != *stack {
                        wrong.push(format!(
                            "entry {} arrived with {stack}, bagged {}",
                            bag.0, bag.1
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    if days == 0 {
        return;
    }
    report.check(
        &format!("{t}: a new day's seats drawn from the sealed bags carry their chips"),
        if wrong.is_empty() {
            Ok(())
        } else {
            Err(wrong.join(", "))
        },
    );
    report.note(format!(
        "{t}: {days} day(s) bagged and sealed; {arrived} players moved by a new day's draw with their bags' chips"
    ));
}

fn check_places(
    t: &str,
    seating_events: &[SeatingEvent],
    seating: &SeatingState,
    payout: &PayoutState,
    report: &mut Audit,
) {
    // Busts grouped as they were placed: one hand at one table, or one
    // hand-for-hand hand across tables; the k-th bust of a field of N
    // finishes N - k + 1 (late entries count: the field is the final one).
    #[derive(PartialEq)]
    enum Key {
        Hand(usize),
        Round(u64),
        /// The k-th hand a close of the late entries placed.
        Late(usize, usize),
    }
    let mut groups: Vec<(Key, Vec<EntryId>)> = Vec::new();
    let mut hand = 0usize;
    // Busts the floor's late entries held, not yet placed: placed when
    // they close, hand by hand in the order they happened.
    let mut held: Vec<(EntryId, Option<i64>)> = Vec::new();
    let mut wrong = Vec::new();
    // An event's flights' entries out before its first bust (issue 28).
    let mut out_before = 0u32;
    for (i, e) in seating_events.iter().enumerate() {
        match e {
            SeatingEvent::FlightsAdvanced { out_before: n, .. } => out_before = *n,
            SeatingEvent::HandEnded { .. } => hand = i,
            SeatingEvent::Busted {
                entry,
                occurred_at,
                held: true,
                ..
            } => held.push((*entry, *occurred_at)),
            SeatingEvent::LateEntriesClosed { groups: late } => {
                let closed: Vec<(EntryId, Option<i64>)> = late
                    .iter()
                    .flat_map(|g| g.busts.iter().map(|b| (b.entry, g.occurred_at)))
                    .collect();
                let mut expected = std::mem::take(&mut held);
                expected.sort_by_key(|&(_, at)| (at.is_none(), at));
                if closed != expected {
                    wrong.push(format!(
                        "the late entries closed with {closed:?}, not the busts they held in the order they happened {expected:?}"
                    ));
                }
                for (k, g) in late.iter().enumerate() {
                    groups.push((Key::Late(i, k), g.busts.iter().map(|b| b.entry).collect()));
                }
            }
            SeatingEvent::Busted {
                entry,
                hand_for_hand_round,
                ..
            } => {
                let key = hand_for_hand_round.map_or(Key::Hand(hand), Key::Round);
                match groups.last_mut() {
                    Some((k, g)) if *k == key => g.push(*entry),
                    _ => groups.push((key, vec![*entry])),
                }
            }
            // Out at once, in no hand: a group of its own.
            SeatingEvent::Disqualified { entry, .. } | SeatingEvent::Surrendered { entry, .. } => {
                groups.push((Key::Hand(i), vec![*entry]));
            }
            _ => {}
        }
    }
    let Some(pool) = payout.pool() else {
        // Busts wait for the final field while registration is open.
        if seating.registration_closed() {
            report.check(
                &format!("{t}: payout"),
                Err("seating closed registration, payout never did: no prize pool".into()),
            );
        } else {
            report.note(format!(
                "{t}: registration still open: places and prizes are checked once it closes"
            ));
        }
        return;
    };
    let field = pool.entries;
    let mut out = out_before;
    for (_, group) in &groups {
        let n = u32::try_from(group.len()).unwrap_or(u32::MAX);
        // (A log altered by hand may hold more busts than entries.)
        let Some(low) = field
            .checked_sub(out)
            .and_then(|left| left.checked_sub(n))
            .map(|below| below + 1)
        else {
            wrong.push(format!(
                "{} busts recorded, more than the {field} entries",
                u64::from(out) + group.len() as u64
            ));
            break;
        };
        let high = field - out;
        for entry in group {
            let e = payout.entries().get(entry);
            // A disqualification placed nowhere leaves its place empty.
            let place = e.and_then(|e| e.place.or(e.forfeited.map(|(p, _)| (p, p))));
            match place {
                Some((first, last)) if first >= low && last <= high => {}
                other => wrong.push(format!(
                    "entry {entry} placed {other:?}, its bust gives {low}-{high}"
                )),
            }
        }
        out += n;
    }
    let over = seating.room().players() == 1;
    if over {
        let winner = seating
            .entries()
            .iter()
            .find(|(_, e)| matches!(e.status, EntryStatus::Seated { .. }))
            .map(|(id, _)| *id);
        if let Some(w) = winner
            && payout.entries().get(&w).and_then(|e| e.place) != Some((1, 1))
        {
            wrong.push(format!(
                "entry {w}, the last with chips, is not placed first"
            ));
        }
        // Prizes paid, and those disqualified entries forfeited.
        let forfeited: u128 = payout
            .entries()
            .values()
            .filter_map(|e| e.forfeited)
            .map(|(_, prize)| u128::from(prize))
            .sum();
        let paid: u128 = payout.entries().values().map(|e| u128::from(e.prize)).sum();
        if paid + forfeited != u128::from(pool.prize_pool) {
            wrong.push(format!(
                "prizes add up to {paid} and {forfeited} forfeited, the pool is {}",
                pool.prize_pool
            ));
        }
        // Every bounty bought in was collected.
        let bounties: u128 = payout
            .entries()
            .values()
            .map(|e| u128::from(e.bounties_won))
            .sum();
        let bounties_forfeited = u128::from(payout.forfeited()).saturating_sub(forfeited);
        if bounties + bounties_forfeited != u128::from(pool.bounties) {
            wrong.push(format!(
                "bounties paid add up to {bounties} and {bounties_forfeited} forfeited, {} were bought in",
                pool.bounties
            ));
        }
    }
    report.check(
        &format!("{t}: places and prizes follow the busts"),
        if wrong.is_empty() {
            Ok(())
        } else {
            Err(wrong.join("; "))
        },
    );
}
