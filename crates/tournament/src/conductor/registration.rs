//! Creating a tournament, entries in and out, starting it, closing
//! registration and the clock's ticks.

#[allow(clippy::wildcard_imports)]
use super::*;
use felt_seating::Payment;

/// How long a creation waits for the clock and payout deployed apart to
/// take up their parts.
const PARTS_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

impl<L: EventLog + 'static> Conductor<L> {
    /// Creates the tournament, all or nothing: each part is decided first
    /// on an empty history (a part refused writes nothing anywhere); then
    /// the registry records it with its whole definition and seating takes
    /// its part, and the clock and payout take up theirs as reactions to
    /// the registry's fact, each in its own service. Answers once all
    /// three parts are in the log. A creation cut short by a crash is
    /// finished by creating it again: the registry's and seating's command
    /// ids are the same, and the reactions run from the registry's fact.
    pub async fn create(&self, t: &TournamentId, spec: &TournamentSpec, now: Millis) -> Result<()> {
        let seating = SeatingCommand::Create {
            name: spec.name.clone(),
            settings: spec.seating.clone(),
        };
        let definition = spec.definition();
        felt_seating::decide(&SeatingState::default(), &seating, &[0; 32])?;
        felt_clock::decide(
            &felt_clock::ClockState::default(),
            &ClockCommand::Configure {
                structure: definition.structure.clone(),
                settings: definition.clock.clone(),
            },
            &[0; 32],
        )?;
        felt_payout::decide(
            &felt_payout::PayoutState::default(),
            &felt_payout::Command::Configure {
                name: spec.name.clone(),
                settings: definition.money.clone(),
                busts: definition.busts,
            },
        )?;
        let log = self.seating.log().clone();
        crate::aggregates::register_tournament(
            log.as_ref(),
            t,
            &spec.name,
            spec.rules,
            spec.deal,
            Some(definition),
            now,
        )
        .await?;
        self.seat_cmd(t, "create", now, seating).await?;
        self.terms
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(t.to_string(), (spec.rules, spec.deal));
        let registry = log.version(&registry_stream()?).await?;
        self.react_to_registry(registry).await?;
        // Deployed apart: the clock and payout take up their parts as they
        // follow the log.
        let mut wait = std::time::Duration::from_millis(5);
        let deadline = tokio::time::Instant::now() + PARTS_WAIT;
        loop {
            let parts = crate::aggregates::parts(log.as_ref(), t).await?;
            if parts.whole() {
                return Ok(());
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(TournamentError::PartsMissing {
                    tournament: t.to_string(),
                    missing: parts.missing(),
                });
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(std::time::Duration::from_millis(200));
        }
    }

    /// The clock's level number now (0 before it starts).
    pub(super) async fn level_now(&self, t: &str, now: Millis) -> Result<u32> {
        Ok(self.clock_state(t).await?.level_number_at(now))
    }

    /// Registers an entry (or a re-entry); seats it if play has started.
    /// Payout records its money as a reaction to seating's decision.
    pub async fn register(
        &self,
        t: &str,
        command_id: &str,
        player: &PlayerId,
        name: &str,
        now: Millis,
    ) -> Result<EntryId> {
        self.register_from(
            t,
            command_id,
            player,
            name,
            now,
            &Provenance::default(),
            None,
        )
        .await
    }

    /// [`Self::register`] for a request from outside: its fingerprint
    /// (`from.request`) is kept with the decision, and the command id sent
    /// again with another request is refused (`CommandIdReused`). The
    /// fingerprint is the request's, not the command's: a retry at a later
    /// level is the same request.
    #[allow(clippy::too_many_arguments)]
    pub async fn register_from(
        &self,
        t: &str,
        command_id: &str,
        player: &PlayerId,
        name: &str,
        now: Millis,
        from: &Provenance,
        payment: Option<Payment>,
    ) -> Result<EntryId> {
        self.enter(
            t,
            command_id,
            player,
            name,
            now,
            from,
            Entering::Paid(payment),
        )
        .await
    }

    /// A registration paid by a satellite's ticket, entry `entry` of
    /// `satellite`: the ticket is checked in the satellite's payout (a seat
    /// won there, bound to `t`, worth `t`'s price of an entry), then the
    /// entry is registered outside the cap and the ticket redeemed once.
    #[allow(clippy::too_many_arguments)]
    pub async fn redeem_ticket_from(
        &self,
        t: &str,
        command_id: &str,
        player: &PlayerId,
        name: &str,
        now: Millis,
        from: &Provenance,
        satellite: &str,
        entry: EntryId,
    ) -> Result<EntryId> {
        let reference = format!("{satellite}/{entry}");
        let invalid = |reason: String| TournamentError::TicketInvalid {
            reference: reference.clone(),
            reason,
        };
        let won = self.payout_state(satellite).await?;
        let terms = won
            .settings()
            .and_then(|s| s.structure.satellite())
            .ok_or_else(|| invalid(format!("tournament {satellite} is not a satellite")))?;
        // A seat in an event is redeemed into the event or any of its
        // Day 1 flights.
        let here = self.payout_state(t).await?;
        let event = here
            .settings()
            .and_then(|s| s.structure.flight_of())
            .unwrap_or(t);
        if terms.target != event {
            return Err(invalid(format!(
                "its seats are in {}, not in {event}",
                terms.target
            )));
        }
        // Not a second seat the satellite pays in cash (the event's
        // ledger; read again by seating's decision where the event is
        // this tournament).
        if let Some((holder, true)) = self.seating_state(event).await?.ledger(&reference) {
            return Err(invalid(format!(
                "it was {holder}'s second seat in {event}: its satellite's house pays it in cash"
            )));
        }
        let holder = won
            .entry(entry)
            .filter(|e| e.ticket > 0)
            .ok_or_else(|| invalid(format!("entry {entry} of {satellite} won no seat")))?;
        let price = here
            .settings()
            .map(felt_payout::MoneySettings::entry_price)
            .ok_or(felt_payout::PayoutError::NotConfigured)?;
        if holder.ticket != price {
            return Err(invalid(format!(
                "it is worth {}, and an entry here costs {price}",
                holder.ticket
            )));
        }
        // (Once across the event, not in another of its flights: checked
        // where the entry is registered, under the event's lock.)
        let ticket = felt_seating::Ticket {
            satellite: satellite.to_string(),
            entry,
            holder: holder.player.clone(),
        };
        self.enter(
            t,
            command_id,
            player,
            name,
            now,
            from,
            Entering::Ticket(ticket),
        )
        .await
    }

    /// [`Self::register_from`] for a player who gives up their live
    /// entry's chips to buy this one (TDA 8, where the house allows it).
    #[allow(clippy::too_many_arguments)]
    pub async fn re_enter_by_surrender_from(
        &self,
        t: &str,
        command_id: &str,
        player: &PlayerId,
        name: &str,
        now: Millis,
        from: &Provenance,
        payment: Option<Payment>,
    ) -> Result<EntryId> {
        self.enter(
            t,
            command_id,
            player,
            name,
            now,
            from,
            Entering::Surrender(payment),
        )
        .await
    }

    /// Flight `t`'s event and its lock, held while a registration's checks
    /// across the event's flights and its entry are decided (`None`: not a
    /// flight). Every flight's seating is written by the one seating
    /// service, so within it the checks and the entry are one step.
    async fn flight_lock(
        &self,
        t: &str,
    ) -> Result<Option<(String, tokio::sync::OwnedMutexGuard<()>)>> {
        let payout = self.payout_state(t).await?;
        let Some(event) = payout.settings().and_then(|s| s.structure.flight_of()) else {
            return Ok(None);
        };
        let lock = self
            .event_locks
            .lock()
            .expect("the events' locks")
            .entry(event.to_string())
            .or_default()
            .clone();
        Ok(Some((event.to_string(), lock.lock_owned().await)))
    }

    /// A satellite's ticket redeemed once across `event`: not in another
    /// of its flights than `t`.
    async fn ticket_free_across(
        &self,
        t: &str,
        event: &str,
        ticket: &felt_seating::Ticket,
    ) -> Result<()> {
        let reference = ticket.reference();
        for (_, flight) in self.flights_of(event).await? {
            if flight == t {
                continue;
            }
            if let Some(there) = self.seating_state(&flight).await?.ticket(&reference) {
                return Err(TournamentError::TicketInvalid {
                    reference,
                    reason: format!("it is already redeemed in flight {flight} (entry {there})"),
                });
            }
        }
        Ok(())
    }

    /// Flight `t`'s event (from its pay structure) and that event's rules
    /// for entering its flights; `None` when `t` is no flight.
    async fn flight_rules(&self, t: &str) -> Result<Option<(String, felt_seating::FlightEntries)>> {
        let payout = self.payout_state(t).await?;
        let Some(event) = payout.settings().and_then(|s| s.structure.flight_of()) else {
            return Ok(None);
        };
        let rules = self
            .seating_state(event)
            .await?
            .settings()
            .map(|s| s.flight_entries)
            .unwrap_or_default();
        Ok(Some((event.to_string(), rules)))
    }

    /// Issue 28: the event's rules across its flights, for players entering
    /// flight `t` (nothing to check elsewhere, or for a command already
    /// decided: a retry is answered as it was). Each player's entries are
    /// counted in every flight as they stand now, this one's included.
    pub(super) async fn flight_entries_allowed(
        &self,
        t: &str,
        command_id: &str,
        players: &[&PlayerId],
    ) -> Result<()> {
        let here = self.seating_state(t).await?;
        if here.settings().is_none_or(|s| s.flight == 0)
            || self
                .seating
                .recorded(&seating_stream(t)?, command_id)
                .await?
        {
            return Ok(());
        }
        let Some((event, rules)) = self.flight_rules(t).await? else {
            return Ok(());
        };
        if rules == felt_seating::FlightEntries::default() {
            return Ok(());
        }
        let event = event.as_str();
        let flights = self.flights_of(event).await?;
        let mut states = Vec::with_capacity(flights.len());
        for (_, f) in &flights {
            states.push((f.as_str(), self.seating_state(f).await?));
        }
        // A batch counts each of its players once more per line.
        let mut asked: std::collections::HashMap<&PlayerId, u32> = Default::default();
        for &player in players {
            let refused = |reason: String| TournamentError::FlightEntryRefused {
                player: player.clone(),
                reason,
            };
            let mut entries = 0u32;
            for (f, seating) in &states {
                // (A refunded entry is no longer theirs.)
                entries = entries.saturating_add(seating.entries_held(player).len() as u32);
                if rules.none_after_bag
                    && *f != t
                    && let Some(entry) = seating.sealed_bag_of(player)
                {
                    return Err(refused(format!(
                        "they bagged chips in flight {f} (entry {entry}), and event {event} allows no entry after a bag"
                    )));
                }
            }
            let count = asked.entry(player).or_default();
            *count += 1;
            if rules.per_player > 0 && entries.saturating_add(*count) > rules.per_player {
                return Err(refused(format!(
                    "they hold {entries} entries across event {event}'s flights, and it allows {} a player",
                    rules.per_player
                )));
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    async fn enter(
        &self,
        t: &str,
        command_id: &str,
        player: &PlayerId,
        name: &str,
        now: Millis,
        from: &Provenance,
        how: Entering,
    ) -> Result<EntryId> {
        // A flight's checks across its event and the entry are one step.
        let held = self.flight_lock(t).await?;
        self.flight_entries_allowed(t, command_id, &[player])
            .await?;
        if let (Entering::Ticket(ticket), Some(event)) = (&how, &held) {
            self.ticket_free_across(t, &event.0, ticket).await?;
        }
        let level = self.level_now(t, now).await?;
        let (player, name) = (player.clone(), name.to_string());
        let command = match how {
            Entering::Surrender(payment) => SeatingCommand::ReEnterBySurrender {
                player,
                name,
                level,
            }
            .paid(payment),
            Entering::Paid(payment) => SeatingCommand::Register {
                player,
                name,
                level,
            }
            .paid(payment),
            Entering::Ticket(ticket) => SeatingCommand::RedeemTicket {
                player,
                name,
                level,
                ticket,
            },
        };
        let out = self.seat_from(t, command_id, now, command, from).await?;
        drop(held);
        let entry = out
            .events
            .iter()
            .find_map(|e| match e {
                SeatingEvent::Registered { entry, .. } => Some(*entry),
                _ => None,
            })
            .ok_or_else(|| {
                TournamentError::Inconsistent("a registration without an entry".into())
            })?;
        self.react(t, out.version).await?;
        self.carry_out(t).await?;
        Ok(entry)
    }

    /// Registers many entries at once (presales, a partner's list), a few
    /// hundred per decision: each as `register` would take it. Returns the
    /// entries in order.
    pub async fn register_many(
        &self,
        t: &str,
        command_id: &str,
        players: &[(PlayerId, String)],
        now: Millis,
    ) -> Result<Vec<EntryId>> {
        self.register_many_from(t, command_id, players, now, &Provenance::default(), None)
            .await
    }

    /// [`Self::register_many`] for a request from outside: every part's
    /// decision keeps the whole request's fingerprint, so the command id
    /// sent again with another list is refused (`CommandIdReused`).
    pub async fn register_many_from(
        &self,
        t: &str,
        command_id: &str,
        players: &[(PlayerId, String)],
        now: Millis,
        from: &Provenance,
        payment: Option<Payment>,
    ) -> Result<Vec<EntryId>> {
        let names: Vec<&PlayerId> = players.iter().map(|(p, _)| p).collect();
        let _held = self.flight_lock(t).await?;
        self.flight_entries_allowed(t, &format!("{command_id}-0"), &names)
            .await?;
        let level = self.level_now(t, now).await?;
        let mut out = Vec::with_capacity(players.len());
        for (k, chunk) in players.chunks(REGISTERED_PER_DECISION).enumerate() {
            let decided = self
                .seat_from(
                    t,
                    &format!("{command_id}-{k}"),
                    now,
                    SeatingCommand::RegisterMany {
                        players: chunk.to_vec(),
                        level,
                    }
                    .paid(payment.clone()),
                    from,
                )
                .await?;
            out.extend(decided.events.iter().filter_map(|e| match e {
                SeatingEvent::Registered { entry, .. } => Some(*entry),
                _ => None,
            }));
            self.react(t, decided.version).await?;
            self.carry_out(t).await?;
        }
        Ok(out)
    }

    /// Unregisters an entry before play: out of the field at seating; payout
    /// refunds its money, and records the first alternate's who takes its
    /// place, as reactions to seating's decision.
    pub async fn unregister(
        &self,
        t: &str,
        entry: EntryId,
        reason: &str,
        now: Millis,
    ) -> Result<()> {
        self.refund(t, entry, reason, false, now).await
    }

    /// [`Self::unregister`], where the house keeps the fee (`fee_kept`: a
    /// flight bought but not played, by its rule).
    async fn refund(
        &self,
        t: &str,
        entry: EntryId,
        reason: &str,
        fee_kept: bool,
        now: Millis,
    ) -> Result<()> {
        let decided = self
            .seat_cmd(
                t,
                &format!("unregister-{entry}"),
                now,
                SeatingCommand::Unregister {
                    entry,
                    reason: reason.to_string(),
                    fee_kept,
                },
            )
            .await?;
        self.react(t, decided.version).await?;
        Ok(())
    }

    /// Issue 28: a flight bought but not played is refunded by the house's
    /// rule (in full, or less the fee the house keeps). Where its event
    /// allows no entry after a bag, every entry here of a player who bagged
    /// chips in another of its flights is refunded before this flight
    /// starts (each once, by its entry).
    async fn refund_bagged_elsewhere(&self, t: &str, now: Millis) -> Result<()> {
        let here = self.seating_state(t).await?;
        if here.started() || here.settings().is_none_or(|s| s.flight == 0) {
            return Ok(());
        }
        let Some((event, rules)) = self.flight_rules(t).await? else {
            return Ok(());
        };
        if !rules.none_after_bag {
            return Ok(());
        }
        let mut refunds = Vec::new();
        for (_, f) in self.flights_of(&event).await? {
            if f == t {
                continue;
            }
            let there = self.seating_state(&f).await?;
            for player in here.by_player().keys() {
                if there.sealed_bag_of(player).is_none() {
                    continue;
                }
                for entry in here.entries_held(player) {
                    refunds.push((
                        entry,
                        format!(
                            "bagged chips in flight {f}: event {event} allows no entry after a bag"
                        ),
                    ));
                }
            }
        }
        let fee_kept = rules.unplayed_refund == felt_seating::UnplayedRefund::KeepFee;
        for (entry, reason) in refunds {
            self.refund(t, entry, &reason, fee_kept, now).await?;
        }
        Ok(())
    }

    /// Draws the seats and opens the tables; the clock starts (which closes
    /// registration at once when there is no late registration).
    pub async fn start(&self, t: &str, now: Millis) -> Result<()> {
        self.refund_bagged_elsewhere(t, now).await?;
        self.seat_cmd(t, "start", now, SeatingCommand::Start)
            .await?;
        self.carry_out(t).await?;
        // The clock starts as the reaction to seating's start.
        self.settle(t).await?;
        self.carry_out(t).await
    }

    /// The floor closes registration: seating records it, and the chain it
    /// brings on (payout's pool and pay sheet, the busts that waited placed,
    /// seating told the places paid) runs to its end. Closing it again
    /// finishes a chain a crash cut short.
    pub async fn close_registration(&self, t: &str, now: Millis) -> Result<()> {
        match self
            .seat_cmd(
                t,
                "close-registration",
                now,
                SeatingCommand::CloseRegistration,
            )
            .await
        {
            Ok(_) | Err(TournamentError::Seating(SeatingError::RegistrationClosed)) => {}
            Err(e) => return Err(e),
        }
        self.settle(t).await?;
        self.carry_out(t).await
    }

    /// Cancels the tournament before play: every entry refunded with the
    /// reason (payout's refunds are reactions); the entries refunded.
    pub async fn cancel(
        &self,
        t: &str,
        command_id: &str,
        reason: &str,
        now: Millis,
        from: &Provenance,
    ) -> Result<u32> {
        let out = self
            .seat_from(
                t,
                command_id,
                now,
                SeatingCommand::Cancel {
                    reason: reason.to_string(),
                },
                from,
            )
            .await?;
        self.react(t, out.version).await?;
        Ok(out
            .events
            .iter()
            .filter(|e| matches!(e, SeatingEvent::Unregistered { .. }))
            .count() as u32)
    }

    /// The tournaments whose clock runs, or has the day's card to draw
    /// (rule 77), as the log has it now: another process may have paused
    /// or started one. What the clock service's ticker ticks. A clock seen
    /// finished is not read again: it is stopped for good (the clock
    /// takes no command after its end that could start it).
    pub async fn running_clocks(&self) -> Result<Vec<String>> {
        let log = self.clock.log().clone();
        let finished = |t: &str| {
            self.finished_clocks
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .contains(t)
        };
        let mut running = Vec::new();
        for created in crate::aggregates::tournaments(log.as_ref()).await? {
            let t = created.tournament.as_str();
            if finished(t) {
                continue;
            }
            let Ok((clock, _)) = self.clock.state(&clock_stream(t)?).await else {
                continue;
            };
            match clock.status() {
                felt_clock::Status::Finished => {
                    self.finished_clocks
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .insert(t.to_string());
                }
                felt_clock::Status::Running { .. } => running.push(t.to_string()),
                _ if clock.card_to_draw() => running.push(t.to_string()),
                _ => {}
            }
        }
        Ok(running)
    }

    /// Records the level changes passed by `now`; the reactions to them
    /// (late registration closed after its last level) follow, as do the
    /// reactions to a level the floor jumped to while registration is open.
    pub async fn tick(&self, t: &str, now: Millis) -> Result<()> {
        let mut clock = self.clock_state(t).await?;
        let mut passed = clock.due(now);
        if passed {
            clock = self
                .clock_cmd(t, &format!("tick-{now}"), now, |at| ClockCommand::Tick {
                    at,
                })
                .await?
                .state;
        }
        // Rule 77: the clock stopped itself for the day's card, which the
        // service draws at once (once a day: the id is the day's).
        if clock.card_to_draw() {
            let day = clock.day();
            self.clock_cmd(t, &format!("day-{day}-card"), now, |at| {
                ClockCommand::DrawEndOfDay { at }
            })
            .await?;
            passed = true;
        }
        let open = {
            let seating = self.seating_state(t).await?;
            seating.started() && !seating.registration_closed()
        };
        if passed || open {
            self.settle(t).await?;
            if self.hosts.seating {
                self.carry_out(t).await?;
            }
        }
        Ok(())
    }
}

/// How an entry is bought.
enum Entering {
    Paid(Option<Payment>),
    /// By giving up a live entry's chips (TDA 8).
    Surrender(Option<Payment>),
    /// By a satellite's ticket.
    Ticket(felt_seating::Ticket),
}
