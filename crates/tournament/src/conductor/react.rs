//! The services' decisions answered: a runner per kind of stream hands
//! them out in the log's order, the pure reactions say what to send, and
//! it is sent here.

#[allow(clippy::wildcard_imports)]
use super::*;

use crate::runner::Cause;

/// How long a service following the log on its own waits on one runner
/// before it lets the front door's calls have it.
const FOLLOW_WAIT: std::time::Duration = std::time::Duration::from_millis(250);

impl<L: EventLog + 'static> Conductor<L> {
    /// Runs the reactions to tournament `t`'s seating decisions up to its
    /// version `upto` (and to every decision the log holds before them),
    /// those not yet run that this process hosts the targets of. How many
    /// decisions were answered. Where seating alone is hosted, its own
    /// reactions (the room's pool) are left to [`Conductor::follow_reactions`]
    /// in the background: nobody waits on them.
    pub async fn react(&self, t: &str, upto: u64) -> Result<usize> {
        let answered = self.react_here(t, upto).await?;
        // Another tournament these sent to (a satellite's ticket to its
        // event) answers in turn, in one process.
        if answered > 0 && self.hosts.all() {
            self.settle_elsewhere().await?;
        }
        Ok(answered)
    }

    /// [`Self::react`] for `t` alone.
    async fn react_here(&self, t: &str, upto: u64) -> Result<usize> {
        if !(self.hosts.payout || self.hosts.clock) {
            return Ok(0);
        }
        let stream = seating_stream(t)?;
        let mut run = self.reactions.lock(self.seating.log().as_ref()).await;
        let mut answered = 0;
        while let Some(cause) = run.next(&stream, upto).await? {
            self.react_to(&cause).await?;
            run.done(&cause).await?;
            answered += 1;
        }
        drop(run);
        // In one process, payout's decisions these brought on (the winner
        // placed by a hand's busts) stop the clock before the report ends.
        if answered > 0 && self.hosts.all() {
            let payout = self.seating.log().version(&payout_stream(t)?).await?;
            self.react_to_payout(t, payout).await?;
        }
        Ok(answered)
    }

    /// Runs every reaction to tournament `t`'s clock, seating and payout
    /// decisions the log holds (those whose targets this process hosts),
    /// and to the decisions they bring on, until none is left: a chain
    /// started by the clock (registration closing at a level) or by the
    /// floor is carried to its end, whichever of its steps a crash cut it
    /// at.
    /// A chain that reaches another tournament (a satellite's ticket to
    /// its event, a second seat back to the satellite) is carried there
    /// too, in one process.
    pub async fn settle(&self, t: &str) -> Result<()> {
        self.settle_one(t).await?;
        self.settle_elsewhere().await
    }

    /// Settles the tournaments a reaction sent to from another's decision,
    /// until none is left (in one process; deployed apart, each service's
    /// runners follow every tournament).
    async fn settle_elsewhere(&self) -> Result<()> {
        loop {
            let next = self
                .elsewhere
                .lock()
                .expect("the set of tournaments to settle")
                .pop_first();
            let Some(t) = next else {
                return Ok(());
            };
            self.settle_one(&t).await?;
        }
    }

    /// Notes that a reaction sent to tournament `t` from another's
    /// decision: in one process, its reactions run once the sender's have.
    fn sent_elsewhere(&self, t: &str) {
        if self.hosts.all() {
            self.elsewhere
                .lock()
                .expect("the set of tournaments to settle")
                .insert(t.to_string());
        }
    }

    async fn settle_one(&self, t: &str) -> Result<()> {
        let log = self.seating.log().clone();
        loop {
            let clock = log.version(&clock_stream(t)?).await?;
            let mut answered = self.react_to_clock(t, clock).await?;
            let seating = log.version(&seating_stream(t)?).await?;
            answered += self.react_here(t, seating).await?;
            let payout = log.version(&payout_stream(t)?).await?;
            answered += self.react_to_payout(t, payout).await?;
            if answered == 0 {
                return Ok(());
            }
        }
    }

    /// Runs the reactions to every decision of every tournament the log
    /// holds now: after a crash, what a chain had left to do.
    pub async fn react_to_all(&self) -> Result<()> {
        let log = self.seating.log().clone();
        let registry = log.version(&registry_stream()?).await?;
        self.react_to_registry(registry).await?;
        for created in crate::aggregates::tournaments(log.as_ref()).await? {
            self.settle(created.tournament.as_str()).await?;
            self.carry_out(created.tournament.as_str()).await?;
        }
        Ok(())
    }

    /// The registry's entries up to its version `upto`, where the clock or
    /// payout is hosted.
    pub(super) async fn react_to_registry(&self, upto: u64) -> Result<usize> {
        if !(self.hosts.clock || self.hosts.payout) {
            return Ok(0);
        }
        let stream = registry_stream()?;
        let mut run = self
            .registry_reactions
            .lock(self.seating.log().as_ref())
            .await;
        let mut answered = 0;
        while let Some(cause) = run.next(&stream, upto).await? {
            self.answer_registry(&cause).await?;
            run.done(&cause).await?;
            answered += 1;
        }
        Ok(answered)
    }

    /// The clock's decisions up to `upto`, where seating is hosted.
    async fn react_to_clock(&self, t: &str, upto: u64) -> Result<usize> {
        if !self.hosts.seating {
            return Ok(0);
        }
        let stream = clock_stream(t)?;
        let mut run = self.clock_reactions.lock(self.clock.log().as_ref()).await;
        let mut answered = 0;
        while let Some(cause) = run.next(&stream, upto).await? {
            self.answer_clock(&cause).await?;
            run.done(&cause).await?;
            answered += 1;
        }
        Ok(answered)
    }

    /// Payout's decisions up to `upto`, where payout, seating or the clock
    /// is hosted.
    async fn react_to_payout(&self, t: &str, upto: u64) -> Result<usize> {
        if !(self.hosts.payout || self.hosts.seating || self.hosts.clock) {
            return Ok(0);
        }
        let stream = payout_stream(t)?;
        let mut run = self.payout_reactions.lock(self.payout.log().as_ref()).await;
        let mut answered = 0;
        while let Some(cause) = run.next(&stream, upto).await? {
            self.answer_payout(&cause).await?;
            run.done(&cause).await?;
            answered += 1;
        }
        Ok(answered)
    }

    /// What a service deployed on its own does in the background: runs the
    /// reactions whose targets it hosts to every tournament's decisions as
    /// they are committed, each kind by its own runner. (Seating's carrier
    /// is run by seating's hand ends, front door and tables asking to
    /// deal.)
    /// Returns only with an error (the log out of reach), after which it is
    /// started again from the runners' recorded positions.
    pub async fn follow_reactions(&self) -> Result<()> {
        let seating = self.follow_seating();
        let clock = async {
            if !self.hosts.seating {
                return Ok(());
            }
            loop {
                let mut run = self.clock_reactions.lock(self.clock.log().as_ref()).await;
                while let Some(cause) = run.next_within(FOLLOW_WAIT).await? {
                    self.answer_clock(&cause).await?;
                    run.done(&cause).await?;
                }
                drop(run);
                tokio::task::yield_now().await;
            }
        };
        let payout = async {
            if !(self.hosts.payout || self.hosts.seating || self.hosts.clock) {
                return Ok(());
            }
            loop {
                let mut run = self.payout_reactions.lock(self.payout.log().as_ref()).await;
                while let Some(cause) = run.next_within(FOLLOW_WAIT).await? {
                    self.answer_payout(&cause).await?;
                    run.done(&cause).await?;
                }
                drop(run);
                tokio::task::yield_now().await;
            }
        };
        let registry = async {
            if !(self.hosts.clock || self.hosts.payout) {
                return Ok(());
            }
            loop {
                let mut run = self
                    .registry_reactions
                    .lock(self.seating.log().as_ref())
                    .await;
                while let Some(cause) = run.next_within(FOLLOW_WAIT).await? {
                    self.answer_registry(&cause).await?;
                    run.done(&cause).await?;
                }
                drop(run);
                tokio::task::yield_now().await;
            }
        };
        tokio::try_join!(seating, clock, payout, registry).map(|_| ())
    }

    /// Runs the reactions to seating's decisions as they are committed.
    /// Every process hosts a target of them (seating's own: the room's
    /// pool).
    async fn follow_seating(&self) -> Result<()> {
        loop {
            let mut run = self.reactions.lock(self.seating.log().as_ref()).await;
            while let Some(cause) = run.next_within(FOLLOW_WAIT).await? {
                self.react_to(&cause).await?;
                run.done(&cause).await?;
            }
            drop(run);
            tokio::task::yield_now().await;
        }
    }

    /// A tournament recorded in the registry: the clock and payout take up
    /// their parts of its definition (each where hosted).
    async fn answer_registry(&self, cause: &Cause<Registry>) -> Result<()> {
        if self.hosts.clock {
            for (t, order) in reactions::creation::to_clock(cause) {
                self.clock_order(&t, cause, order).await?;
            }
        }
        if self.hosts.payout {
            for (t, order) in reactions::creation::to_payout(cause) {
                self.pay_order(&t, cause, order).await?;
            }
        }
        Ok(())
    }

    /// The clock's start or level past late registration closes it at
    /// seating, and past the rebuys' last level closes them (seating
    /// hosted).
    async fn answer_clock(&self, cause: &Cause<Clock>) -> Result<()> {
        let t = cause.stream.tournament.as_str();
        let orders = {
            // Seating as the log has it now (another process may have
            // closed registration).
            let (seating, _) = self.seating.state(&seating_stream(t)?).await?;
            let mut orders: Vec<_> = [
                reactions::registration::level_closes(cause, &seating),
                reactions::registration::rebuys_close(cause, &seating),
            ]
            .into_iter()
            .flatten()
            .collect();
            orders.extend(reactions::day::to_seating(cause, &seating));
            orders
        };
        for order in orders {
            self.seat_order(t, cause, order).await?;
        }
        Ok(())
    }

    /// Payout's close places the busts still waiting (payout hosted) and
    /// tells seating the places paid (seating hosted); its first place
    /// stops the clock for good (the clock hosted); a satellite's ticket
    /// goes to its event's ledger (seating hosted).
    async fn answer_payout(&self, cause: &Cause<Payout>) -> Result<()> {
        let t = cause.stream.tournament.as_str();
        if self.hosts.clock
            && let Some(order) = reactions::over::to_clock(cause)
        {
            self.clock_order(t, cause, order).await?;
        }
        if self.hosts.payout {
            let first = reactions::registration::place_waiting(cause);
            let mut n = first.len();
            for order in first {
                self.pay_order(t, cause, order).await?;
            }
            // Busts recorded while those were placed joined the queue
            // behind them: on, a decision at a time, until none waits
            // (payout decides in one order, so a bust after that is placed
            // at once). Counting the decisions at the close alone left a
            // flight's last 2,014 busts unplaced (session 37).
            while n > 0 {
                n += 1;
                let order = reactions::registration::place_waiting_next(cause, n);
                if !self.pay_order(t, cause, order).await? {
                    break;
                }
            }
        }
        if self.hosts.seating {
            let orders = [
                reactions::registration::paid(cause),
                reactions::registration::seats(cause),
            ];
            for order in orders.into_iter().flatten() {
                self.seat_order(t, cause, order).await?;
            }
            for (target, order) in reactions::tickets::to_target(cause) {
                self.seat_order(&target, cause, order).await?;
                self.sent_elsewhere(&target);
            }
        }
        Ok(())
    }

    /// Sends the reactions to one seating decision whose targets this
    /// process hosts: entries paid in and refunded, its busts and the
    /// hand-for-hand rounds no table still plays, and the close of
    /// registration to payout; the start, hand-for-hand facts and closed
    /// tables to the clock; the tables it opens and closes to the room's
    /// pool (where seating is hosted, the pool's writer). A refusal is not sent again (a repeat of an
    /// earlier answer, or a ruling the audit shows); the log failing or a
    /// target out of reach is an error, and the decision is handed out
    /// again.
    async fn react_to(&self, cause: &Cause<Seating>) -> Result<()> {
        let t = cause.stream.tournament.as_str();
        let at = cause.recorded_at;
        if self.hosts.payout {
            for order in reactions::entries::to_payout(cause) {
                self.pay_order(t, cause, order).await?;
            }
            if let Some(order) = reactions::registration::to_payout(cause) {
                self.pay_order(t, cause, order).await?;
            }
            if let Some(order) = reactions::hand_end::busts(cause) {
                self.pay_order(t, cause, order).await?;
            }
            for order in reactions::hand_end::late_busts(cause) {
                self.pay_order(t, cause, order).await?;
            }
            for order in reactions::hand_end::rounds_over(cause) {
                self.pay_order(t, cause, order).await?;
            }
            if let Some(order) = reactions::hand_end::seats_won(cause) {
                self.pay_order(t, cause, order).await?;
            }
            for (satellite, order) in reactions::tickets::to_satellite(cause) {
                self.pay_order(&satellite, cause, order).await?;
                self.sent_elsewhere(&satellite);
            }
        }
        if self.hosts.seating {
            for order in reactions::room::to_room(cause) {
                self.room_order(cause, order).await?;
            }
        }
        if self.hosts.clock {
            if let Some(order) = reactions::entries::clock_starts(cause) {
                self.clock_order(t, cause, order).await?;
            }
            for e in &cause.events {
                let orders = {
                    let clock = self.clock_state(t).await?;
                    let mut orders =
                        reactions::hand_for_hand::to_clock(e, &cause.state, &clock, at);
                    orders.extend(reactions::day::to_clock(e, &clock, at));
                    orders
                };
                for order in orders {
                    self.clock_order(t, cause, order).await?;
                }
            }
        }
        Ok(())
    }

    /// A reaction's command to payout; a refusal is reported, not an error.
    /// Whether payout took it (false: refused).
    async fn pay_order<A: felt_service::Aggregate>(
        &self,
        t: &str,
        cause: &Cause<A>,
        order: Order<felt_payout::Command>,
    ) -> Result<bool> {
        let (at, from) = (cause.recorded_at, cause.provenance());
        match self.pay_from(t, &order.id, at, order.command, &from).await {
            Ok(_) => Ok(true),
            // A round that held no busts; the waiting busts placed by fewer
            // decisions than their count; a close payout had already; entries
            // it had already (recorded by a front door before entries were
            // a reaction).
            Err(TournamentError::Payout(
                felt_payout::PayoutError::NoRoundHeld { .. }
                | felt_payout::PayoutError::NothingWaiting
                | felt_payout::PayoutError::RegistrationClosed
                | felt_payout::PayoutError::DuplicateEntry { .. },
            )) => Ok(false),
            Err(TournamentError::Payout(e)) => {
                tracing::warn!(%e, id = order.id, t, "payout refused a reaction's command");
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// A reaction's command to the room's pool (only once the director laid
    /// the room out: a room without a layout has nothing to give), and the
    /// physical table it gave, to the tournament's seating. A refusal is
    /// reported, not an error.
    async fn room_order(
        &self,
        cause: &Cause<Seating>,
        order: Order<felt_room::RoomCommand>,
    ) -> Result<()> {
        if !self.room_state().await?.laid_out() {
            return Ok(());
        }
        let (at, from) = (cause.recorded_at, cause.provenance());
        let out = match self.room_from(&order.id, at, order.command, &from).await {
            Ok(out) => out,
            Err(TournamentError::Room(e)) => {
                tracing::warn!(%e, id = order.id, "the room refused a reaction's command");
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        let room = crate::aggregates::room_stream()?;
        let named_from =
            crate::runner::provenance(&room, out.first, &order.id, from.correlation_id.as_deref());
        for (t, named) in reactions::room::named(out.first, &out.events) {
            match self
                .seat_from(&t, &named.id, at, named.command, &named_from)
                .await
            {
                Ok(_) => {}
                // (The table closed meanwhile.)
                Err(TournamentError::Seating(e)) => {
                    tracing::warn!(%e, id = named.id, t, "seating refused a table's name");
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// A reaction's command to seating; a refusal is reported, not an
    /// error.
    async fn seat_order<A: felt_service::Aggregate>(
        &self,
        t: &str,
        cause: &Cause<A>,
        order: Order<SeatingCommand>,
    ) -> Result<()> {
        let (at, from) = (cause.recorded_at, cause.provenance());
        match self.seat_from(t, &order.id, at, order.command, &from).await {
            Ok(_) => Ok(()),
            // A close or places paid seating had already (from the floor,
            // or the chain run before under other ids).
            Err(TournamentError::Seating(
                SeatingError::RegistrationClosed
                | SeatingError::PaidAlreadySet { .. }
                | SeatingError::SeatsAlreadySet { .. },
            )) => Ok(()),
            Err(TournamentError::Seating(e)) => {
                tracing::warn!(%e, id = order.id, t, "seating refused a reaction's command");
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// A reaction's command to the clock (its part of the definition, its
    /// start, hand-for-hand news);
    /// refusals are reported, not errors (the clock may have had it from
    /// the floor).
    async fn clock_order<A: felt_service::Aggregate>(
        &self,
        t: &str,
        cause: &Cause<A>,
        order: Order<ClockCommand>,
    ) -> Result<()> {
        let (command, from) = (order.command, cause.provenance());
        let make = |at| command.clone().at_time(at);
        match self
            .clock_from(t, &order.id, cause.recorded_at, make, &from)
            .await
        {
            Ok(_) => Ok(()),
            Err(TournamentError::Clock(e)) => {
                tracing::debug!(%e, id = order.id, t, "the clock refused a reaction's command");
                Ok(())
            }
            Err(e) => Err(e),
        }
    }
}
