//! A tournament's money as payout's events leave it.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::deal::DealResult;
use crate::deal::DealTerms;
use crate::decide::PayoutEvent;
use crate::places::{Bust, SimultaneousBusts};
use crate::pool::{MoneySettings, Pool};
use crate::sheet::PaySheet;
use crate::{EntryId, Money, PlayerId};

/// One entry's money.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub player: PlayerId,
    pub add_ons: u32,
    /// Rebuys bought (rule 27).
    #[serde(default)]
    pub rebuys: u32,
    /// The bounty on this entry's head now.
    pub bounty: Money,
    /// Bounties this entry collected, paid.
    pub bounties_won: Money,
    pub busted: bool,
    /// Places `first..=last` (shared when first < last).
    pub place: Option<(u32, u32)>,
    pub prize: Money,
    /// Disqualified and placed nowhere: the place they stood in was left
    /// empty and its prize forfeited.
    #[serde(default)]
    pub forfeited: Option<(u32, Money)>,
    /// Of `prize`, what was won as a satellite's ticket (0: none).
    #[serde(default)]
    pub ticket: Money,
}

/// A deal on the table, waiting for every player's consent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    pub terms: DealTerms,
    pub result: DealResult,
    pub consents: BTreeSet<EntryId>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PayoutState {
    pub(crate) name: String,
    pub(crate) settings: Option<MoneySettings>,
    pub(crate) rule: SimultaneousBusts,
    pub(crate) entries: BTreeMap<EntryId, Entry>,
    /// Every place given, by its first place and holder, with its last:
    /// a new bust's places are checked free without reading every entry.
    #[serde(default)]
    pub(crate) places: BTreeMap<(u32, EntryId), u32>,
    pub(crate) add_ons: u32,
    #[serde(default)]
    pub(crate) rebuys: u32,
    /// Prizes the cage paid, by entry: gross, withheld.
    #[serde(default)]
    pub(crate) paid: BTreeMap<EntryId, (Money, Money)>,
    /// Set when registration closed.
    pub(crate) pool: Option<Pool>,
    pub(crate) sheet: Option<PaySheet>,
    /// Busts waiting for registration to close, one group per hand.
    pub(crate) waiting: Vec<Vec<Bust>>,
    /// Hand-for-hand busts held until their round is over, by round.
    #[serde(default)]
    pub(crate) held: BTreeMap<u64, Vec<Bust>>,
    pub(crate) busted: u32,
    /// An event's flights are recorded (issue 28).
    #[serde(default)]
    pub(crate) flights_recorded: bool,
    /// An event's flights' entries out, until the flights are closed.
    #[serde(default)]
    pub(crate) flight_outs: crate::flights::FlightOuts,
    /// Prizes by place still to be won (from the sheet, or a deal).
    pub(crate) prizes: Vec<Money>,
    /// Amounts the last deal guarantees each player still in.
    pub(crate) guaranteed: BTreeMap<EntryId, Money>,
    pub(crate) proposal: Option<Proposal>,
    pub(crate) deals: u32,
    /// Prizes and bounties forfeited (disqualifications): paid to nobody.
    #[serde(default)]
    pub(crate) forfeited: Money,
}

impl PayoutState {
    /// The tournament's name, as configured.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The money settings, once configured.
    pub fn settings(&self) -> Option<&MoneySettings> {
        self.settings.as_ref()
    }

    /// How simultaneous busts are placed.
    pub fn rule(&self) -> SimultaneousBusts {
        self.rule
    }

    /// Every entry's money, by entry.
    pub fn entries(&self) -> &BTreeMap<EntryId, Entry> {
        &self.entries
    }

    /// One entry's money.
    pub fn entry(&self, entry: EntryId) -> Option<&Entry> {
        self.entries.get(&entry)
    }

    /// Add-ons bought in all.
    pub fn add_ons(&self) -> u32 {
        self.add_ons
    }

    /// Prizes the cage paid, by entry: gross and withheld.
    pub fn paid(&self) -> &BTreeMap<EntryId, (Money, Money)> {
        &self.paid
    }

    /// Rebuys bought in all (rule 27).
    pub fn rebuys(&self) -> u32 {
        self.rebuys
    }

    /// The prize pool, once registration closed.
    pub fn pool(&self) -> Option<&Pool> {
        self.pool.as_ref()
    }

    /// The pay sheet, once registration closed.
    pub fn sheet(&self) -> Option<&PaySheet> {
        self.sheet.as_ref()
    }

    /// Busts waiting for registration to close, one group per hand.
    pub fn waiting(&self) -> &[Vec<Bust>] {
        &self.waiting
    }

    /// Hand-for-hand busts held until their round is over, by round.
    pub fn held(&self) -> &BTreeMap<u64, Vec<Bust>> {
        &self.held
    }

    /// Entries busted so far.
    pub fn busted(&self) -> u32 {
        self.busted
    }

    /// Prizes by place still to be won (from the sheet, or a deal).
    pub fn prizes(&self) -> &[Money] {
        &self.prizes
    }

    /// Amounts the last deal guarantees each player still in.
    pub fn guaranteed(&self) -> &BTreeMap<EntryId, Money> {
        &self.guaranteed
    }

    /// The deal waiting for every player's consent, if any.
    pub fn proposal(&self) -> Option<&Proposal> {
        self.proposal.as_ref()
    }

    /// Deals made so far.
    pub fn deals(&self) -> u32 {
        self.deals
    }

    /// Prizes and bounties forfeited by disqualified entries: paid to
    /// nobody.
    pub fn forfeited(&self) -> Money {
        self.forfeited
    }

    /// The waiting group that holds `entries` (the oldest) loses them.
    fn settle_waiting(&mut self, entries: &[EntryId]) {
        let first_waiting = self
            .waiting
            .first()
            .is_some_and(|w| w.iter().any(|b| entries.contains(&b.entry)));
        if first_waiting {
            let w = &mut self.waiting[0];
            w.retain(|b| !entries.contains(&b.entry));
            if w.is_empty() {
                self.waiting.remove(0);
            }
        }
    }

    /// Entries not yet busted.
    pub fn remaining(&self) -> u32 {
        self.entries.len() as u32 - self.busted
    }

    /// The prize for a finishing place now.
    pub(crate) fn prize(&self, place: u32) -> Money {
        self.prizes.get(place as usize - 1).copied().unwrap_or(0)
    }

    /// Finishing results, best place first.
    pub fn results(&self) -> Vec<(EntryId, &Entry)> {
        let mut out: Vec<(EntryId, &Entry)> = self
            .entries
            .iter()
            .filter(|(_, e)| e.place.is_some())
            .map(|(&id, e)| (id, e))
            .collect();
        out.sort_by_key(|(id, e)| (e.place, *id));
        out
    }

    pub fn apply(&mut self, event: &PayoutEvent) {
        match event {
            PayoutEvent::Configured {
                name,
                settings,
                busts,
            } => {
                self.name.clone_from(name);
                self.settings = Some(settings.clone());
                self.rule = *busts;
            }
            PayoutEvent::EntryRecorded { entry, player } => {
                let bounty = self.settings.as_ref().map_or(0, |s| s.bounty);
                self.entries.insert(
                    *entry,
                    Entry {
                        player: player.clone(),
                        add_ons: 0,
                        rebuys: 0,
                        bounty,
                        bounties_won: 0,
                        busted: false,
                        place: None,
                        prize: 0,
                        forfeited: None,
                        ticket: 0,
                    },
                );
            }
            PayoutEvent::EntryRemoved { entry } => {
                if let Some(e) = self.entries.remove(entry) {
                    self.add_ons -= e.add_ons;
                    self.rebuys -= e.rebuys;
                }
            }
            PayoutEvent::AddOnRecorded { entry } => {
                self.add_ons += 1;
                if let Some(e) = self.entries.get_mut(entry) {
                    e.add_ons += 1;
                }
            }
            PayoutEvent::PrizePaid {
                entry,
                gross,
                withheld,
                ..
            } => {
                self.paid.insert(*entry, (*gross, *withheld));
            }
            PayoutEvent::RebuyRecorded { entry } => {
                self.rebuys += 1;
                if let Some(e) = self.entries.get_mut(entry) {
                    e.rebuys += 1;
                }
            }
            PayoutEvent::RegistrationClosed { pool, sheet }
            | PayoutEvent::PoolGrown { pool, sheet } => {
                self.pool = Some(*pool);
                self.prizes = sheet.prizes();
                self.sheet = Some(sheet.clone());
            }
            PayoutEvent::FlightRecorded { record } => self.flight_recorded(record),
            PayoutEvent::FlightsRecorded { .. } => self.flights_closed(),
            PayoutEvent::Busted { busts } => {
                for b in busts {
                    if let Some(e) = self.entries.get_mut(&b.entry) {
                        e.busted = true;
                    }
                }
                self.busted += busts.len() as u32;
                self.waiting.push(busts.clone());
            }
            PayoutEvent::BustsHeld { round, busts } => {
                self.held
                    .entry(*round)
                    .or_default()
                    .extend(busts.iter().cloned());
            }
            PayoutEvent::RoundReleased { round } => {
                self.held.remove(round);
            }
            PayoutEvent::Placed { group, prizes } => {
                for (id, prize) in prizes {
                    if let Some(e) = self.entries.get_mut(id) {
                        if !e.busted && group.first > 1 {
                            self.busted += 1;
                        }
                        if group.first > 1 {
                            e.busted = true;
                        }
                        if let Some((first, _)) = e.place {
                            self.places.remove(&(first, *id));
                        }
                        e.place = Some((group.first, group.last));
                        self.places.insert((group.first, *id), group.last);
                        e.prize = *prize;
                    }
                }
                self.settle_waiting(&group.entries);
            }
            PayoutEvent::PlaceForfeited {
                entry,
                place,
                prize,
            } => {
                if let Some(e) = self.entries.get_mut(entry) {
                    if !e.busted {
                        self.busted += 1;
                    }
                    e.busted = true;
                    e.forfeited = Some((*place, *prize));
                }
                self.forfeited += prize;
                self.settle_waiting(&[*entry]);
            }
            PayoutEvent::TicketAwarded { entry, value, .. } => {
                if let Some(e) = self.entries.get_mut(entry) {
                    e.ticket = *value;
                }
            }
            PayoutEvent::TicketCashed { entry, .. } => {
                if let Some(e) = self.entries.get_mut(entry) {
                    e.ticket = 0;
                }
            }
            PayoutEvent::BountyForfeited { entry, amount } => {
                if let Some(e) = self.entries.get_mut(entry) {
                    e.bounty = 0;
                }
                self.forfeited += amount;
            }
            PayoutEvent::BountyCollected { from, paid, added } => {
                if let Some(e) = self.entries.get_mut(from) {
                    e.bounty = 0;
                }
                for (id, m) in paid {
                    if let Some(e) = self.entries.get_mut(id) {
                        e.bounties_won += m;
                    }
                }
                for (id, m) in added {
                    if let Some(e) = self.entries.get_mut(id) {
                        e.bounty += m;
                    }
                }
            }
            PayoutEvent::DealProposed { terms, result } => {
                self.proposal = Some(Proposal {
                    terms: terms.clone(),
                    result: result.clone(),
                    consents: BTreeSet::new(),
                });
            }
            PayoutEvent::DealConsented { entry } => {
                if let Some(p) = &mut self.proposal {
                    p.consents.insert(*entry);
                }
            }
            PayoutEvent::DealMade { result } => {
                let n = result.play_for.len();
                self.prizes.truncate(0);
                self.prizes.extend(&result.play_for);
                self.prizes.resize(n, 0);
                for (id, m) in &result.guaranteed {
                    *self.guaranteed.entry(*id).or_default() += m;
                }
                self.proposal = None;
                self.deals += 1;
            }
            PayoutEvent::DealWithdrawn => self.proposal = None,
        }
    }
}
