//! Hands at the tables: a hand granted and dealt, the floor's calls, the
//! action clock's time-outs and time-bank cards.

#[allow(clippy::wildcard_imports)]
use super::*;

/// The numbers past every hand's that a table's deck closure is asked
/// for a chip race's seed at (with the new smallest chip): a race never
/// shares a hand's deck.
pub const RACE_SEEDS: u64 = 1 << 63;

impl<L: EventLog + 'static> Conductor<L> {
    /// Asks to deal the next hand at a table: seating must allow it and the
    /// clock must not be on a break; the hand is played with the clock's
    /// level now (TDA 23) and dealt from the seed `deck` gives for the
    /// hand's number (drawn only when a hand is dealt).
    pub async fn begin_hand(
        &self,
        t: &str,
        table: TableNo,
        now: Millis,
        deck: &(dyn Fn(u64) -> Seed + Send + Sync),
    ) -> Result<Begin> {
        // Once: moves and seats left undone are carried out, then asked again.
        let mut carried = false;
        loop {
            let level = match self.clock_state(t).await?.level_for_hand(now) {
                Ok(level) => level,
                // Play is over (the winner placed): no table deals again.
                Err(ClockError::Finished) => return Ok(Begin::Closed),
                // Deployed apart, the clock service writes the clock stream
                // too (the floor ends or shortens a break there, starts the
                // next day): a break or the day's end is read from the log
                // before a table is held for it.
                Err(ClockError::OnBreak { .. } | ClockError::DayOver) => {
                    match self
                        .clock
                        .state(&clock_stream(t)?)
                        .await?
                        .0
                        .level_for_hand(now)
                    {
                        Ok(level) => level,
                        Err(ClockError::OnBreak { remaining }) => {
                            return Ok(Begin::OnBreak(remaining));
                        }
                        Err(ClockError::DayOver) => {
                            return Ok(Begin::Wait(
                                "the day is over (rule 77): play resumes when the next day starts"
                                    .into(),
                            ));
                        }
                        Err(e) => return Err(e.into()),
                    }
                }
                Err(e) => return Err(e.into()),
            };
            let seating = self.seating_state(t).await?;
            let Some(info) = seating.room().tables.get(&table) else {
                return Ok(Begin::Closed);
            };
            let begun = Begun {
                hand: info.hands + 1,
                last_button: info.button,
                last_bb: info.big_blind,
            };
            // A table whose floor records results only deals nothing
            // through the services: refused before seating grants a hand
            // (which it would then have to void). Seen from this process's
            // view first (no read of the log), then confirmed in the log.
            if !info.in_hand {
                let stream = felt_tablelog::stream(t, table)?;
                let results_only = |s: &felt_table::TableState| {
                    s.recording() == felt_table::Recording::ResultsOnly
                };
                if results_only(&self.tables.cached_state(&stream).await?.0)
                    && results_only(&self.tables.state(&stream).await?.0)
                {
                    return Err(TournamentError::Table {
                        table,
                        source: felt_table::Rejection::ResultsOnly,
                    });
                }
            }
            // Ask the state first: a table told to wait costs no command.
            if let Err(SeatingError::MustWait { reason, .. }) = felt_seating::gate(&seating, table)
            {
                if !info.in_hand {
                    // Moves or seats seating decided that no table has carried
                    // out: a crash cut their carrying out short, and while the
                    // tables wait for them no hand end comes to finish it.
                    // The carrier finishes it (where seating is hosted;
                    // elsewhere seating's own carrier follows the log).
                    if !carried
                        && self.hosts.seating
                        && (!seating.room().moves.is_empty() || !seating.unconfirmed().is_empty())
                    {
                        drop(seating);
                        carried = true;
                        let carried_out = match self.carry_out(t).await {
                            Ok(()) => self.carry_pending(t, table, now).await,
                            Err(e) => Err(e),
                        };
                        if let Err(e) = carried_out {
                            tracing::warn!(%e, table, "carrying out seating's moves failed");
                            return Ok(Begin::Wait(reason));
                        }
                        continue;
                    }
                    return Ok(Begin::Wait(reason));
                }
                drop(seating);
                // Seating has begun a hand here. Being played: a dealer asking
                // again (the first answer lost, say to a restart) gets it back.
                // None in progress: either it ended (and seating will hear of
                // it), or a crash came between seating's grant and the deal.
                // Dealing it under the same command id tells which: a repeat
                // changes nothing, a first deal is the hand seating granted.
                let stream = felt_tablelog::stream(t, table)?;
                // Dealt and over in the table's view as this process last
                // saw it (a view that can only be behind the log): its end
                // is on its way to seating. Known without asking the log,
                // which a thousand tables waiting on their hands' ends
                // otherwise ask hundreds of times a second each.
                let start = format!("start-{}", begun.hand);
                if self.tables.cached_decided(&stream, &start).await?.is_some()
                    && self.tables.cached_state(&stream).await?.0.hand().is_none()
                {
                    return Ok(Begin::Wait(reason));
                }
                let (now_at_table, version) = self.tables.state(&stream).await?;
                if let Some(number) = now_at_table.hand().map(|h| h.number) {
                    let events: Vec<TableEvent> = self
                        .tables
                        .log()
                        .read(&stream, 1)
                        .await?
                        .iter()
                        .map(felt_tablelog::decode)
                        .collect::<std::result::Result<_, _>>()?;
                    let start = events
                    .iter()
                    .rposition(
                        |e| matches!(e, TableEvent::HandStarted { number: n, .. } if *n == number),
                    )
                    .unwrap_or(0);
                    return Ok(Begin::Started(
                        events[start..].to_vec(),
                        now_at_table,
                        version,
                    ));
                }
                // (Seating counts a hand when it ends: the begun one is next.)
                // Dealt and ended: its end is on its way to seating. (Known
                // from the table's command ids, without reading its history.)
                if self.tables.recorded(&stream, &start).await? {
                    return Ok(Begin::Wait(reason));
                }
                return match self.deal(t, table, &begun, level, deck, now).await? {
                    (_, true) => Ok(Begin::Wait(reason)),
                    (begin, false) => Ok(begin),
                };
            }
            drop(seating);
            // A physical table's dealer enters its chip race first.
            if let Some(leaving) = self.race_due(t, table, &level).await? {
                return Ok(Begin::RaceDue {
                    leaving,
                    smallest: level.smallest_chip,
                });
            }
            match self
                .seat_cmd(
                    t,
                    &format!("begin-{table}-{}", begun.hand),
                    now,
                    SeatingCommand::BeginHand { table },
                )
                .await
            {
                Ok(_) => {}
                Err(TournamentError::Seating(SeatingError::MustWait { reason, .. })) => {
                    return Ok(Begin::Wait(reason));
                }
                Err(TournamentError::Seating(SeatingError::NoSuchTable { .. })) => {
                    return Ok(Begin::Closed);
                }
                Err(e) => return Err(e),
            }
            return Ok(self.deal(t, table, &begun, level, deck, now).await?.0);
        }
    }

    /// At a table whose dealer deals real cards, the chip race a colour-up
    /// left due (the chip leaving play): the dealer enters it before the
    /// table's next hand is granted.
    async fn race_due(
        &self,
        t: &str,
        table: TableNo,
        level: &felt_table::Level,
    ) -> Result<Option<felt_table::Chips>> {
        if self.deal_mode(t).await? != DealMode::Physical {
            return Ok(None);
        }
        self.race_pending(t, table, level).await
    }

    /// The chip leaving play that a table's race is due for before a hand
    /// at `level` ([`felt_table::TableState::colour_up_due`]): this
    /// process's view first, the log's once a colour-up may be due.
    async fn race_pending(
        &self,
        t: &str,
        table: TableNo,
        level: &felt_table::Level,
    ) -> Result<Option<felt_table::Chips>> {
        let stream = felt_tablelog::stream(t, table)?;
        if self.tables.cached_state(&stream).await?.0.smallest_chip() >= level.smallest_chip {
            return Ok(None);
        }
        Ok(self.tables.state(&stream).await?.0.colour_up_due(level))
    }

    /// At a table the engine deals, the chip race a colour-up left due
    /// (TDA 24: the table last played with a chip the level no longer
    /// has, and a stack holds some), run before the hand from a seed the
    /// deck gives past every hand's number ([`RACE_SEEDS`] and the new
    /// smallest chip), under `colour-up-{smallest}`. Refused once run (a
    /// hand begun again after a restart): the race stands.
    async fn race_if_due(
        &self,
        t: &str,
        table: TableNo,
        level: &felt_table::Level,
        deck: &(dyn Fn(u64) -> Seed + Send + Sync),
        now: Millis,
    ) -> Result<()> {
        let Some(leaving) = self.race_pending(t, table, level).await? else {
            return Ok(());
        };
        let smallest = level.smallest_chip;
        let race = Command::ColourUp {
            leaving,
            smallest,
            race: felt_table::ChipRace::Drawn {
                seed: deck(RACE_SEEDS | smallest),
            },
        };
        match self
            .table_cmd(t, table, &format!("colour-up-{smallest}"), now, race)
            .await
        {
            Ok(_) | Err(TournamentError::Table { .. } | TournamentError::TableRefused { .. }) => {
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// Deals the hand seating granted at a table; whether it had been dealt
    /// before (the same command id).
    pub(super) async fn deal(
        &self,
        t: &str,
        table: TableNo,
        begun: &Begun,
        level: felt_table::Level,
        deck: &(dyn Fn(u64) -> Seed + Send + Sync),
        now: Millis,
    ) -> Result<(Begin, bool)> {
        let hand = begun.hand;
        if begun.last_button.is_none() {
            // The table's first hand: its button drawn by high card (seed
            // 003). Refused once drawn (a hand begun again after a
            // restart): the draw stands.
            let draw = Command::DrawButton { seed: deck(0) };
            match self.table_cmd(t, table, "draw-button", now, draw).await {
                Ok(_)
                | Err(TournamentError::Table { .. } | TournamentError::TableRefused { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        let mode = self.deal_mode(t).await?;
        if mode != DealMode::Physical {
            self.race_if_due(t, table, &level, deck, now).await?;
        }
        let deal = match mode {
            DealMode::Digital => Deal::Digital { seed: deck(hand) },
            DealMode::Shared => Deal::Shared { seed: deck(hand) },
            DealMode::Physical => Deal::Physical,
        };
        let start = Command::StartHand {
            level,
            deal,
            button: None,
        };
        match self
            .table_cmd(t, table, &format!("start-{hand}"), now, start)
            .await
        {
            Ok(out) => Ok((
                Begin::Started(out.events, out.state, out.version),
                out.duplicate,
            )),
            Err(e @ (TournamentError::Table { .. } | TournamentError::TableRefused { .. })) => {
                let source = match e {
                    TournamentError::Table { source, .. } => source.to_string(),
                    other => other.to_string(),
                };
                // Release the table at seating: no hand was dealt.
                let (button, big_blind) =
                    (begun.last_button.unwrap_or(1), begun.last_bb.unwrap_or(1));
                let id = format!("hand-{table}-{hand}-void");
                let out = self
                    .seat_cmd(
                        t,
                        &id,
                        now,
                        SeatingCommand::HandEnded {
                            table,
                            button,
                            big_blind,
                            busted: Vec::new(),
                        },
                    )
                    .await?;
                self.react(t, out.last).await?;
                Ok((Begin::Wait(source), false))
            }
            Err(e) => Err(e),
        }
    }

    /// Runs a table command (a dealer's or a bot's), returning its outcome.
    pub async fn table(
        &self,
        t: &str,
        table: TableNo,
        command_id: &str,
        now: Millis,
        command: Command,
    ) -> Result<Outcome<Table>> {
        self.table_cmd(t, table, command_id, now, command).await
    }

    /// The floor starts or stops hand-for-hand: at seating, which gates the
    /// tables round by round, then at the clock, which deducts its time.
    /// Whether the command was a repeat.
    pub async fn floor_hand_for_hand(
        &self,
        t: &str,
        start: bool,
        command_id: &str,
        now: Millis,
    ) -> Result<bool> {
        let (command, asked): (_, &[u8]) = if start {
            (SeatingCommand::StartHandForHand, b"start hand-for-hand")
        } else {
            (SeatingCommand::StopHandForHand, b"stop hand-for-hand")
        };
        // The command is the whole request, whoever relays it: the id
        // used again for the other one is refused (CommandIdReused).
        let from = Provenance::of_request(asked);
        let out = self
            .seat_from(t, &format!("floor-{command_id}"), now, command, &from)
            .await?;
        drop(out.state);
        self.react(t, out.last).await?;
        Ok(out.duplicate)
    }

    /// The floor's (or the director's) ruling on entries and seats at
    /// seating (a disqualification), under the caller's command id, with
    /// the request's fingerprint `from`; what it brings on is carried to
    /// the tables and the other services. Whether the command was a
    /// repeat, and seating's version after it.
    pub async fn floor(
        &self,
        t: &str,
        command: SeatingCommand,
        command_id: &str,
        now: Millis,
        from: &Provenance,
    ) -> Result<(bool, u64)> {
        let out = self
            .seat_from(t, &format!("floor-{command_id}"), now, command, from)
            .await?;
        let version = out.version;
        drop(out.state);
        self.react(t, out.last).await?;
        self.carry_out(t).await?;
        Ok((out.duplicate, version))
    }

    /// The floor holds a table's next hand while it rules there, with its
    /// reason, or releases it (`hold` false). Whether the command was a
    /// repeat, and seating's version after it.
    pub async fn floor_hold_table(
        &self,
        t: &str,
        table: TableNo,
        hold: bool,
        reason: &str,
        command_id: &str,
        now: Millis,
    ) -> Result<(bool, u64)> {
        let command = if hold {
            SeatingCommand::HoldTable {
                table,
                reason: reason.to_string(),
            }
        } else {
            SeatingCommand::ReleaseTable { table }
        };
        let asked = format!("hold {table} {hold} {reason}");
        let from = Provenance::of_request(asked.as_bytes());
        let out = self
            .seat_from(t, &format!("floor-{command_id}"), now, command, &from)
            .await?;
        let version = out.version;
        drop(out.state);
        self.react(t, out.last).await?;
        Ok((out.duplicate, version))
    }

    /// The player to act at a table is out of time: judged from when the
    /// action reached them (or the floor called the clock) as the log
    /// recorded it, the clock's action-clock settings and their time-bank
    /// cards, at `now`. Cards the player used are recorded at the clock,
    /// then the table records the fold or check. Refused, changing
    /// nothing, while the player is still in time.
    pub async fn time_out(
        &self,
        t: &str,
        table: TableNo,
        seat: Seat,
        command_id: &str,
        now: Millis,
        from: &Provenance,
    ) -> Result<Outcome<Table>> {
        let stream = felt_tablelog::stream(t, table)?;
        let command = Command::TimeOut { seat };
        // A retry is answered with its first result, whatever the time
        // (and a command id used for another request is refused).
        if self.tables.recorded(&stream, command_id).await? {
            return self
                .table_from(t, table, command_id, now, command, from)
                .await;
        }
        let Some((player, verdict)) = self.on_the_clock(t, table, seat, now).await? else {
            // Not this player's turn: the table says why.
            return self
                .table_from(t, table, command_id, now, command, from)
                .await;
        };
        match verdict {
            None => Err(TournamentError::NoClockRunning { table, seat }),
            Some(felt_clock::Verdict::Thinking { deadline, .. }) => {
                Err(TournamentError::StillInTime {
                    table,
                    seat,
                    left: deadline - now,
                })
            }
            Some(felt_clock::Verdict::Expired { cards, .. }) => {
                self.use_time_bank(t, table, player, cards, command_id, now)
                    .await?;
                self.table_from(t, table, command_id, now, command, from)
                    .await
            }
        }
    }

    /// Before a player's action at a tournament on the action clock: the
    /// time-bank cards they have used on this decision are recorded at
    /// the clock (a card started is a card used).
    pub async fn act_in_time(
        &self,
        t: &str,
        table: TableNo,
        seat: Seat,
        command_id: &str,
        now: Millis,
    ) -> Result<()> {
        if !self.clock_state(t).await?.settings().action.enabled {
            return Ok(());
        }
        let stream = felt_tablelog::stream(t, table)?;
        if self.tables.recorded(&stream, command_id).await? {
            return Ok(());
        }
        if let Some((player, Some(felt_clock::Verdict::Thinking { cards, .. }))) =
            self.on_the_clock(t, table, seat, now).await?
        {
            self.use_time_bank(t, table, player, cards, command_id, now)
                .await?;
        }
        Ok(())
    }

    /// Records time-bank cards a player used (none: nothing).
    pub(super) async fn use_time_bank(
        &self,
        t: &str,
        table: TableNo,
        player: EntryId,
        cards: u32,
        command_id: &str,
        now: Millis,
    ) -> Result<()> {
        if cards == 0 {
            return Ok(());
        }
        let cards = u8::try_from(cards).unwrap_or(u8::MAX);
        let id = format!("timebank-{table}-{command_id}");
        if self.hosts.clock {
            self.clock_cmd(t, &id, now, |at| ClockCommand::UseTimeBank {
                at,
                player,
                cards,
            })
            .await?;
            return Ok(());
        }
        // Deployed apart: the clock service records them, at its time.
        let clock = self
            .remote_clock
            .as_ref()
            .ok_or(TournamentError::ClockElsewhere)?;
        let mut attempt = 0u32;
        loop {
            match clock.use_time_bank(t, &id, player, cards).await {
                Ok(_) => return Ok(()),
                Err(RemoteError::Refused(refusal)) => {
                    return Err(TournamentError::ClockRefused(refusal));
                }
                Err(RemoteError::Unavailable(e)) if attempt < 8 => {
                    attempt += 1;
                    tracing::warn!(%e, %id, attempt, "the clock service failed: sending again");
                    tokio::time::sleep(std::time::Duration::from_millis(50 << attempt.min(5)))
                        .await;
                }
                Err(RemoteError::Unavailable(e)) => {
                    return Err(TournamentError::ClockUnavailable(e));
                }
            }
        }
    }

    /// If `seat` is to act at a table: its player, and how their time
    /// stands at `now` (`None`: no clock runs on them).
    pub(super) async fn on_the_clock(
        &self,
        t: &str,
        table: TableNo,
        seat: Seat,
        now: Millis,
    ) -> Result<Option<(EntryId, Option<felt_clock::Verdict>)>> {
        let stream = felt_tablelog::stream(t, table)?;
        let envelopes = self.tables.log().read(&stream, 1).await?;
        let events: Vec<TableEvent> = envelopes
            .iter()
            .map(felt_tablelog::decode)
            .collect::<std::result::Result<_, _>>()?;
        let Some(turn) =
            crate::timing::turn(events.iter().zip(envelopes.iter().map(|e| e.recorded_at)))
                .filter(|turn| turn.seat == seat)
        else {
            return Ok(None);
        };
        let (state, _) = self.tables.state(&stream).await?;
        let Some(player) = state.seat(seat).map(|s| s.player) else {
            return Ok(None);
        };
        drop(state);
        let clock = self.clock.state(&clock_stream(t)?).await?.0;
        let action = clock.settings().action;
        let used = clock.time_banks_used(player);
        let cards = action.cards_available(clock.day(), used);
        drop(clock);
        Ok(Some((
            player,
            crate::timing::judge(&action, cards, &turn, now),
        )))
    }
}
