//! An event's Day 2 from its Day 1 flights (issue 28). The front door
//! reads every flight of the event (read only, as a ticket is read from
//! its satellite): its sealed bags, its entries and how each went out.
//! Seating decides which stacks advance (the event's policy); payout then
//! records every flight's entries in the event's one pool, with the bags
//! that did not advance and Day 1's busts below the stacks that did.

use super::*;

impl<L: EventLog + 'static> Conductor<L> {
    /// The flights of event `t` (their tournament ids, by flight number).
    pub async fn flights_of(&self, t: &str) -> Result<Vec<(u32, String)>> {
        let log = self.seating.log().clone();
        let mut flights = Vec::new();
        for id in crate::aggregates::flights_of(log.as_ref(), t).await? {
            let id = id.to_string();
            let number = self
                .seating_state(&id)
                .await?
                .settings()
                .map_or(0, |s| s.flight);
            flights.push((number, id));
        }
        flights.sort();
        Ok(flights)
    }

    /// Advances every flight's sealed bags to event `t` (the director's,
    /// once every flight has sealed them). Whether the request was a
    /// repeat, and seating's version after it.
    pub async fn advance_flights(
        &self,
        t: &str,
        command_id: &str,
        now: Millis,
        from: &Provenance,
    ) -> Result<(bool, u64)> {
        let not_ready = |reason: String| TournamentError::FlightsNotReady { reason };
        let flights = self.flights_of(t).await?;
        if flights.is_empty() {
            return Err(not_ready(format!("no tournament is a flight of {t}")));
        }
        let mut bags = Vec::new();
        let mut records = Vec::new();
        let mut out = 0u32;
        // Where the furthest flight's day ended, and that flight.
        let mut furthest: Option<(felt_clock::ResumeAt, &str)> = None;
        for (number, f) in &flights {
            let seating = self.seating_state(f).await?;
            let payout = self.payout_state(f).await?;
            if let Some(at) = self.clock_state(f).await?.resume_at()
                && furthest.is_none_or(|(b, _)| at > b)
            {
                furthest = Some((at, f.as_str()));
            }
            let sealed = seating
                .room()
                .bags
                .as_ref()
                .filter(|b| b.sealed && !b.resumed)
                .ok_or_else(|| not_ready(format!("flight {f} has not sealed its bags")))?;
            for (&entry, b) in &sealed.bags {
                let e = seating
                    .entry(entry)
                    .ok_or(felt_seating::SeatingError::NoSuchEntry { entry })?;
                bags.push(felt_seating::FlightBag {
                    flight: *number,
                    entry,
                    player: e.player.clone(),
                    name: e.name.clone(),
                    bag: b.number,
                    chips: b.chips,
                });
            }
            let entries: Vec<(EntryId, felt_vocabulary::PlayerId)> = payout
                .entries()
                .iter()
                .map(|(&e, en)| (e, en.player.clone()))
                .collect();
            out += (entries.len() - sealed.bags.len()) as u32;
            records.push(felt_payout::FlightRecord {
                flight: *number,
                field: entries.len() as u32,
                add_ons: payout
                    .entries()
                    .iter()
                    .filter(|(_, e)| e.add_ons > 0)
                    .map(|(&e, _)| e)
                    .collect(),
                rebuys: payout
                    .entries()
                    .iter()
                    .flat_map(|(&e, en)| std::iter::repeat_n(e, en.rebuys as usize))
                    .collect(),
                out: seating
                    .out()
                    .iter()
                    .filter(|(e, _)| payout.entry(**e).is_some())
                    .map(|(&e, &k)| (e, k))
                    .collect(),
                not_advanced: Vec::new(),
                entries,
            });
        }
        // The event's structure resumes there (the level's time no longer
        // than the event's own level has).
        let resume = match furthest {
            None => None,
            Some((
                felt_clock::ResumeAt {
                    day,
                    level,
                    remaining: left,
                },
                f,
            )) => {
                let event = self.clock_state(t).await?;
                let structure = event
                    .configured()
                    .ok_or_else(|| not_ready(format!("event {t} has no structure on its clock")))?;
                let period = structure.period_of_level(level).ok_or_else(|| {
                    not_ready(format!(
                        "flight {f}'s day ended at level {level}, past event {t}'s structure of {} levels",
                        structure.levels()
                    ))
                })?;
                Some(felt_seating::DayResume {
                    day: day.saturating_add(1),
                    level,
                    remaining_ms: left.min(structure.periods[period].millis()),
                })
            }
        };
        let advanced = self
            .seat_from(
                t,
                &format!("flights-{command_id}"),
                now,
                SeatingCommand::AdvanceFlights {
                    bags: bags.clone(),
                    out,
                    resume,
                },
                from,
            )
            .await?;
        // The bags that are no entry here: forfeited, or added into one.
        let event = advanced.state.clone();
        for r in &mut records {
            r.not_advanced = bags
                .iter()
                .filter(|b| b.flight == r.flight && event.entry(b.entry).is_none())
                .map(|b| b.entry)
                .collect();
        }
        // A part at a time (each decision one log message), then closed.
        for r in records {
            // Each entry's add-ons, rebuys and bust go with its part.
            let part_of: std::collections::HashMap<EntryId, usize> = r
                .entries
                .iter()
                .enumerate()
                .map(|(i, (e, _))| (*e, i / felt_payout::FLIGHT_PART))
                .collect();
            let parts = r.entries.len().div_ceil(felt_payout::FLIGHT_PART).max(1);
            let of = |e: &EntryId, k: usize| part_of.get(e).copied().unwrap_or(0) == k;
            for k in 0..parts {
                let part = felt_payout::FlightRecord {
                    flight: r.flight,
                    field: r.field,
                    entries: r
                        .entries
                        .iter()
                        .skip(k * felt_payout::FLIGHT_PART)
                        .take(felt_payout::FLIGHT_PART)
                        .cloned()
                        .collect(),
                    add_ons: r.add_ons.iter().filter(|e| of(e, k)).copied().collect(),
                    rebuys: r.rebuys.iter().filter(|e| of(e, k)).copied().collect(),
                    out: r.out.iter().filter(|(e, _)| of(e, k)).copied().collect(),
                    not_advanced: r
                        .not_advanced
                        .iter()
                        .filter(|e| of(e, k))
                        .copied()
                        .collect(),
                };
                self.pay_from(
                    t,
                    &format!("flights-pay-{command_id}-{}-{k}", r.flight),
                    now,
                    felt_payout::Command::RecordFlight { record: part },
                    from,
                )
                .await?;
            }
        }
        self.pay_from(
            t,
            &format!("flights-close-{command_id}"),
            now,
            felt_payout::Command::CloseFlights,
            from,
        )
        .await?;
        Ok((advanced.duplicate, advanced.version))
    }
}
