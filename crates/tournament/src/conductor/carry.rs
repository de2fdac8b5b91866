//! What a hand end brings on, and seating's decisions carried out: the
//! reactions in [`crate::reactions`] run over the services' states, their
//! commands sent.

#[allow(clippy::wildcard_imports)]
use super::*;

use crate::runner::Cause;

impl<L: EventLog + 'static> Conductor<L> {
    /// A hand ended at a table: seating places the busts, moves players and
    /// runs hand-for-hand; payout places the busts; the clock deducts
    /// hand-for-hand time.
    pub async fn hand_ended(
        &self,
        t: &str,
        table: TableNo,
        hand: &HandSummary,
        now: Millis,
    ) -> Result<()> {
        self.hand_ended_in_turn(t, table, hand, now, None, &Provenance::default())
            .await
    }

    /// [`Conductor::hand_ended`], seating deciding it only in its `turn`
    /// (after the hand ends reported before it), and the next one's turn
    /// coming once its busts are with payout; seating's decision records
    /// that the table's decision `from` names caused it.
    pub async fn hand_ended_in_turn(
        &self,
        t: &str,
        table: TableNo,
        hand: &HandSummary,
        now: Millis,
        mut turn: Option<Turn>,
        from: &Provenance,
    ) -> Result<()> {
        if let Some(turn) = turn.as_mut() {
            turn.come().await;
        }
        // Who collects each bounty: the table named them. A hand recorded
        // before it did names only the winning seats: their entries are
        // read from the log (a dealer may have played the hand through
        // another handler, the table service).
        let by_seat = hand
            .eliminators
            .values()
            .any(|e| matches!(e, reactions::hand_end::Eliminators::Seats(_)));
        let table_state = if by_seat {
            Some(
                self.tables
                    .state(&felt_tablelog::stream(t, table)?)
                    .await?
                    .0,
            )
        } else {
            None
        };
        // Seating orders the busts (and numbers them: payout places them by
        // their numbers).
        let order = reactions::hand_end::to_seating(table, hand, |s| {
            table_state.as_ref()?.seat(s).map(|p| p.player)
        });
        drop(table_state);
        let out = self
            .seat_from(t, &order.id, now, order.command, from)
            .await?;
        drop(out.state);
        // The next hand end may go to seating: the runner carries this
        // one's busts to payout, and its news to the clock, in the log's
        // order.
        drop(turn);
        self.react(t, out.last).await?;
        self.carry_out(t).await?;
        Ok(())
    }

    /// Whether payout has every one of these busts (placed, waiting for
    /// registration to close, or held for the end of their hand-for-hand
    /// round): a hand end seating recorded whose busts are not there was
    /// cut short between the two (a crash).
    pub async fn busts_recorded(&self, t: &str, entries: &[EntryId]) -> Result<bool> {
        let payout = self.payout_state(t).await?;
        Ok(entries.iter().all(|e| {
            payout.entries().get(e).is_some_and(|p| p.busted)
                || payout
                    .held()
                    .values()
                    .any(|busts| busts.iter().any(|b| b.entry == *e))
        }))
    }

    /// The carrier: seating's tables, seats and moves carried out at the
    /// tables for tournament `t`'s decisions up to its version now, and
    /// for those the carrying brings on (a seat confirmed that calls a
    /// redraw), each decision in the log's order ([`reactions::seats::carry`]).
    /// Only where seating is hosted: elsewhere seating's own carrier does
    /// it. Then the reactions to what seating decided meanwhile (a table
    /// closed) are run.
    pub async fn carry_out(&self, t: &str) -> Result<()> {
        if !self.hosts.seating {
            return Ok(());
        }
        let stream = seating_stream(t)?;
        let log = self.seating.log().clone();
        let mut upto = log.version(&stream).await?;
        let mut decided = 0;
        {
            let mut run = self.carrier.lock(log.as_ref()).await;
            while let Some(cause) = run.next(&stream, upto).await? {
                let last = self.carry(&cause).await?;
                run.done(&cause).await?;
                if cause.stream == stream {
                    upto = upto.max(last);
                    decided = decided.max(last);
                }
            }
        }
        self.react(t, decided).await?;
        Ok(())
    }

    /// Carries out at the tables what one seating decision leaves to do,
    /// at its time and naming it as the cause. A step refused (by a table
    /// or by seating) is reported and the rest goes on: sending it again
    /// would be refused again. The version of seating's last decision
    /// here (0 if none).
    pub(super) async fn carry(&self, cause: &Cause<Seating>) -> Result<u64> {
        let t = cause.stream.tournament.as_str();
        let work = reactions::seats::carry(cause, self.rules(t).await?);
        self.carry_work(t, work, cause.recorded_at, &cause.provenance())
            .await
    }

    /// What seating's state now leaves pending at `table`, carried again
    /// at `now` where seating is hosted: a step refused when its decision was
    /// carried (a player to remove from a table then playing a hand) is
    /// sent again when the tables ask to deal, under the same ids, so
    /// every step done before is answered as a repeat. A step sent for
    /// the first time names as its cause the seating decision whose state
    /// left it pending (seating's latest).
    pub(super) async fn carry_pending(&self, t: &str, table: TableNo, now: Millis) -> Result<()> {
        if !self.hosts.seating {
            return Ok(());
        }
        let stream = seating_stream(t)?;
        let (state, version) = self.seating.cached_state(&stream).await?;
        // Only what the asking table waits for: every table asks while
        // the room waits, several times a second.
        let work = reactions::seats::pending(&state).at(table);
        drop(state);
        if work.is_empty() {
            return Ok(());
        }
        let from = self.decision_at(&stream, version).await?;
        let decided = self.carry_work(t, work, now, &from).await?;
        self.react(t, decided).await?;
        Ok(())
    }

    /// Where the decisions caused by the seating decision holding event
    /// `sequence` come from: that decision and its chain.
    async fn decision_at(
        &self,
        stream: &felt_eventlog::StreamId,
        sequence: u64,
    ) -> Result<Provenance> {
        let held = self.seating.log().read(stream, sequence).await?;
        let Some(event) = held.first().filter(|e| e.sequence == sequence) else {
            return Ok(Provenance::default());
        };
        // The decision's first event, as seating's handler recorded it.
        let first = self
            .seating
            .decided(stream, &event.command_id)
            .await?
            .map_or(sequence, |(first, _)| first);
        Ok(crate::runner::provenance(
            stream,
            first,
            &event.command_id,
            event.correlation_id.as_deref(),
        ))
    }

    /// Carries out one [`reactions::seats::Carry`] at `at`, recording
    /// `from`.
    async fn carry_work(
        &self,
        t: &str,
        work: reactions::seats::Carry,
        at: Millis,
        from: &Provenance,
    ) -> Result<u64> {
        if work.is_empty() {
            return Ok(0);
        }
        for order in work.open {
            refused(self.table_order(t, at, order, from).await)?;
        }
        let mut decided = 0;
        for (take, confirm) in work.seats {
            if refused(self.table_order(t, at, take, from).await)?.is_some() {
                let out = self.seat_from(t, &confirm.id, at, confirm.command, from);
                if let Some(out) = refused(out.await)? {
                    decided = out.last;
                }
            }
        }
        // Disqualified players leave their tables (refused while they play
        // a hand: sent again once it ends).
        for (entry, order) in work.removals {
            let Some(out) = refused(self.table_order(t, at, order, from).await)? else {
                continue;
            };
            let Some(stack) = reactions::seats::disqualified_with(entry, &out.events) else {
                continue;
            };
            let done = reactions::seats::removed(entry, stack);
            if let Some(out) = refused(self.seat_from(t, &done.id, at, done.command, from).await)? {
                decided = out.last;
            }
        }
        // Add-ons' chips on their stacks (between hands: seating sold
        // them so, and holds the table's next hand for them).
        for (entry, order) in work.add_ons {
            if refused(self.table_order(t, at, order, from).await)?.is_none() {
                continue;
            }
            let done = reactions::seats::add_on_delivered(entry);
            if let Some(out) = refused(self.seat_from(t, &done.id, at, done.command, from).await)? {
                decided = out.last;
            }
        }
        // Rebuys' chips likewise (rule 27: the player plays the next hand
        // with them).
        for (entry, order) in work.rebuys {
            let Command::Rebuy { number, .. } = order.command else {
                continue;
            };
            if refused(self.table_order(t, at, order, from).await)?.is_none() {
                continue;
            }
            let done = reactions::seats::rebuy_delivered(entry, number);
            if let Some(out) = refused(self.seat_from(t, &done.id, at, done.command, from).await)? {
                decided = out.last;
            }
        }
        // The players leave their tables at once (the appends to
        // different tables share a commit), then take their new seats at
        // once; seating hears of each move in order.
        let outs = futures::future::join_all(
            work.moves
                .iter()
                .map(|m| self.table_order(t, at, reactions::seats::move_out(m), from)),
        )
        .await;
        let mut moved = Vec::new();
        for (m, out) in work.moves.iter().zip(outs) {
            let Some(out) = refused(out)? else { continue };
            match reactions::seats::moved_with(m, &out.events) {
                Some(with) => moved.push((m, with)),
                None => tracing::warn!(
                    t,
                    id = m.id,
                    entry = %m.entry,
                    "a move's removal removed someone else"
                ),
            }
        }
        let ins = futures::future::join_all(moved.iter().map(|(m, (stack, carried))| {
            self.table_order(t, at, reactions::seats::move_in(m, *stack, *carried), from)
        }))
        .await;
        for ((m, (stack, _)), seated) in moved.iter().zip(ins) {
            if refused(seated)?.is_none() {
                continue;
            }
            let order = reactions::seats::move_done(m, *stack);
            if let Some(out) = refused(self.seat_from(t, &order.id, at, order.command, from).await)?
            {
                decided = out.last;
            }
        }
        Ok(decided)
    }

    /// A reaction's command to one of the tournament's tables, recording
    /// where it comes from.
    pub(super) async fn table_order(
        &self,
        t: &str,
        now: Millis,
        order: TableOrder,
        from: &Provenance,
    ) -> Result<Outcome<Table>> {
        self.table_from(t, order.table, &order.id, now, order.command, from)
            .await
    }

    /// The tournament's house rules: as created, or after a restart as the
    /// registry recorded them.
    pub(super) async fn rules(&self, t: &str) -> Result<HouseRules> {
        Ok(self.terms(t).await?.0)
    }

    /// How the tournament's hands are dealt.
    pub(super) async fn deal_mode(&self, t: &str) -> Result<DealMode> {
        Ok(self.terms(t).await?.1)
    }

    /// The tournament's house rules and deal mode: as created, or after a
    /// restart as the registry recorded them.
    async fn terms(&self, t: &str) -> Result<(HouseRules, DealMode)> {
        let known = self
            .terms
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(t)
            .copied();
        if let Some(terms) = known {
            return Ok(terms);
        }
        let terms = crate::aggregates::tournaments(self.seating.log().as_ref())
            .await?
            .into_iter()
            .find(|c| c.tournament == t)
            .map_or((HouseRules::default(), DealMode::before_modes()), |c| {
                (c.rules, c.deal)
            });
        self.terms
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(t.into(), terms);
        Ok(terms)
    }
}

/// A step's answer; `None` if it was refused (reported: sending it again
/// would be refused again). The log failing or a service out of reach is
/// an error: the decision is carried again.
fn refused<T>(answer: Result<T>) -> Result<Option<T>> {
    match answer {
        Ok(out) => Ok(Some(out)),
        Err(
            e @ (TournamentError::Table { .. }
            | TournamentError::TableRefused { .. }
            | TournamentError::Seating(_)),
        ) => {
            tracing::warn!(%e, "a step of seating's seats and moves was refused");
            Ok(None)
        }
        Err(e) => Err(e),
    }
}
