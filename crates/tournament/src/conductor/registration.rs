//! Creating a tournament, entries in and out, starting it, closing
//! registration and the clock's ticks.

#[allow(clippy::wildcard_imports)]
use super::*;

impl<L: EventLog + 'static> Conductor<L> {
    /// Creates the tournament at seating, the clock and payout, all or
    /// nothing: each part is decided first on an empty history (a part
    /// refused writes nothing anywhere), then each is recorded, and the
    /// tournament enters the registry (where listings and the audit find
    /// it) only once all three are. A creation cut short by a crash is
    /// finished by creating it again: each part's command id is the same.
    pub async fn create(&self, t: &str, spec: &TournamentSpec, now: Millis) -> Result<()> {
        let seating = SeatingCommand::Create {
            name: spec.name.clone(),
            settings: spec.seating.clone(),
        };
        let clock = ClockCommand::Configure {
            structure: spec.structure.clone(),
            settings: spec.clock,
        };
        let payout = felt_payout::Command::Configure {
            name: spec.name.clone(),
            settings: spec.money.clone(),
            busts: spec.busts,
        };
        felt_seating::decide(&SeatingState::default(), &seating, &[0; 32])?;
        felt_clock::decide(&felt_clock::ClockState::default(), &clock)?;
        felt_payout::decide(&felt_payout::PayoutState::default(), &payout)?;
        self.seat_cmd(t, "create", now, seating).await?;
        self.clock_cmd(t, "create", now, |_| clock.clone()).await?;
        self.pay_cmd(t, "create", now, payout).await?;
        crate::aggregates::register_tournament(
            self.seating.log().as_ref(),
            t,
            &spec.name,
            spec.rules,
            now,
        )
        .await?;
        self.rules
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(t.into(), spec.rules);
        Ok(())
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
        player: &str,
        name: &str,
        now: Millis,
    ) -> Result<EntryId> {
        let level = self.level_now(t, now).await?;
        let out = self
            .seat_cmd(
                t,
                command_id,
                now,
                SeatingCommand::Register {
                    player: player.into(),
                    name: name.into(),
                    level,
                },
            )
            .await?;
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
        self.carry_out(t, now).await?;
        Ok(entry)
    }

    /// Registers many entries at once (presales, a partner's list), a few
    /// hundred per decision: each as `register` would take it. Returns the
    /// entries in order.
    pub async fn register_many(
        &self,
        t: &str,
        command_id: &str,
        players: &[(String, String)],
        now: Millis,
    ) -> Result<Vec<EntryId>> {
        let level = self.level_now(t, now).await?;
        let mut out = Vec::with_capacity(players.len());
        for (k, chunk) in players.chunks(REGISTERED_PER_DECISION).enumerate() {
            let decided = self
                .seat_cmd(
                    t,
                    &format!("{command_id}-{k}"),
                    now,
                    SeatingCommand::RegisterMany {
                        players: chunk.to_vec(),
                        level,
                    },
                )
                .await?;
            out.extend(decided.events.iter().filter_map(|e| match e {
                SeatingEvent::Registered { entry, .. } => Some(*entry),
                _ => None,
            }));
            self.react(t, decided.version).await?;
            self.carry_out(t, now).await?;
        }
        Ok(out)
    }

    /// Unregisters an entry before play: out of the field at seating; payout
    /// refunds its money, and records the first alternate's who takes its
    /// place, as reactions to seating's decision.
    pub async fn unregister(&self, t: &str, entry: EntryId, now: Millis) -> Result<()> {
        let decided = self
            .seat_cmd(
                t,
                &format!("unregister-{entry}"),
                now,
                SeatingCommand::Unregister { entry },
            )
            .await?;
        self.react(t, decided.version).await?;
        Ok(())
    }

    /// Draws the seats and opens the tables; the clock starts (which closes
    /// registration at once when there is no late registration).
    pub async fn start(&self, t: &str, now: Millis) -> Result<()> {
        self.seat_cmd(t, "start", now, SeatingCommand::Start)
            .await?;
        self.carry_out(t, now).await?;
        // The clock starts as the reaction to seating's start.
        self.settle(t).await?;
        self.carry_out(t, now).await
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
        self.carry_out(t, now).await
    }

    /// Records the level changes passed by `now`; the reactions to them
    /// (late registration closed after its last level) follow, as do the
    /// reactions to a level the floor jumped to while registration is open.
    pub async fn tick(&self, t: &str, now: Millis) -> Result<()> {
        let passed = {
            let clock = self.clock_state(t).await?;
            clock.view(now).period != clock.period()
        };
        if passed {
            self.clock_cmd(t, &format!("tick-{now}"), now, |at| ClockCommand::Tick {
                at,
            })
            .await?;
        }
        let open = {
            let seating = self.seating_state(t).await?;
            seating.started() && !seating.registration_closed()
        };
        if passed || open {
            self.settle(t).await?;
            if self.hosts.seating {
                self.carry_out(t, now).await?;
            }
        }
        Ok(())
    }
}
