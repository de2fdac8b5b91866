//! What a hand end brings on, and seating's decisions carried out: the
//! reactions in [`crate::reactions`] run over the services' states, their
//! commands sent.

#[allow(clippy::wildcard_imports)]
use super::*;

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
                    .state(&felt_tablelog::stream(t, &table.to_string())?)
                    .await?
                    .0,
            )
        } else {
            None
        };
        // Seating orders the busts (and numbers them: payout places them by
        // their numbers).
        let order = reactions::hand_end::to_seating(table, hand, |s| {
            table_state.as_ref()?.seat(s).map(|p| p.player.0)
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
        self.carry_out(t, now).await?;
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

    /// Opens new tables, seats new entries and carries out every pending
    /// move (all removals before any seating, so a redraw can swap seats).
    pub async fn carry_out(&self, t: &str, now: Millis) -> Result<()> {
        let _one = self.carrying.lock().await;
        self.carry_out_locked(t, now).await
    }

    /// [`Conductor::carry_out`], its lock held.
    pub(super) async fn carry_out_locked(&self, t: &str, now: Millis) -> Result<()> {
        loop {
            let state = self.seating_state(t).await?;
            let stack = state.settings().map_or(0, |s| s.starting_stack);
            let to_open = self.tables_to_open(t, &state);
            let seats = reactions::seats::unconfirmed(&state);
            let moves: Vec<felt_seating::Move> = state.room().moves.values().copied().collect();
            // Seating's state is shared with its handler: let go of it before
            // the next seating command, or that command copies it.
            drop(state);
            self.open_tables(t, now, to_open).await?;
            // Seating's version after its last decision here.
            let mut decided = 0;
            for (entry, table, seat) in seats {
                self.table_order(t, now, reactions::seats::seat(entry, table, seat, stack))
                    .await?;
                let order = reactions::seats::seated(entry);
                decided = self.seat_cmd(t, &order.id, now, order.command).await?.last;
            }
            // What the seats confirmed brought on (a closed table, a redraw)
            // is answered before the moves are carried out.
            self.react(t, decided).await?;
            if moves.is_empty() && decided == 0 {
                return Ok(());
            }
            // The players leave their tables at once (the appends to
            // different tables share a commit), then take their new seats
            // at once; seating hears of each move in order.
            let outs = futures::future::try_join_all(
                moves
                    .iter()
                    .map(|m| self.table_order(t, now, reactions::seats::move_out(m))),
            )
            .await?;
            let mut stacks = BTreeMap::new();
            for (m, out) in moves.iter().zip(outs) {
                let stack = reactions::seats::stack_moved(m, &out.events).ok_or_else(|| {
                    TournamentError::Inconsistent(format!(
                        "move {}: no removal of entry {}",
                        m.id, m.entry
                    ))
                })?;
                stacks.insert(m.id, stack);
            }
            futures::future::try_join_all(
                moves
                    .iter()
                    .map(|m| self.table_order(t, now, reactions::seats::move_in(m, stacks[&m.id]))),
            )
            .await?;
            for m in &moves {
                let order = reactions::seats::move_done(m, stacks[&m.id]);
                decided = self.seat_cmd(t, &order.id, now, order.command).await?.last;
            }
            self.react(t, decided).await?;
        }
    }

    /// A reaction's command to one of the tournament's tables.
    pub(super) async fn table_order(
        &self,
        t: &str,
        now: Millis,
        order: TableOrder,
    ) -> Result<Outcome<Table>> {
        self.table_cmd(t, order.table, &order.id, now, order.command)
            .await
    }

    /// Tables seating has opened that the table service may not know yet.
    pub(super) fn tables_to_open(&self, t: &str, state: &SeatingState) -> Vec<(TableNo, u8)> {
        let opened = self
            .opened
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        state
            .room()
            .tables
            .values()
            .filter(|tb| !opened.contains(&(t.to_string(), tb.number)))
            .map(|tb| (tb.number, tb.size()))
            .collect()
    }

    /// The tournament's house rules: as created, or after a restart as the
    /// registry recorded them.
    pub(super) async fn rules(&self, t: &str) -> Result<HouseRules> {
        let known = self
            .rules
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(t)
            .copied();
        if let Some(rules) = known {
            return Ok(rules);
        }
        let rules = crate::aggregates::tournaments(self.seating.log().as_ref())
            .await?
            .into_iter()
            .find(|c| c.tournament == t)
            .map(|c| c.rules)
            .unwrap_or_default();
        self.rules
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(t.into(), rules);
        Ok(rules)
    }

    /// Opens tables at the table service.
    pub(super) async fn open_tables(
        &self,
        t: &str,
        now: Millis,
        tables: Vec<(TableNo, u8)>,
    ) -> Result<()> {
        if tables.is_empty() {
            return Ok(());
        }
        let rules = self.rules(t).await?;
        for (table, seats) in tables {
            self.table_order(t, now, reactions::seats::open(table, seats, rules))
                .await?;
            self.opened
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert((t.to_string(), table));
        }
        Ok(())
    }
}
