//! Seating's decisions answered: the runner hands them out in the log's
//! order, the pure reactions say what to send, and it is sent here.

#[allow(clippy::wildcard_imports)]
use super::*;

use crate::runner::Cause;

impl<L: EventLog + 'static> Conductor<L> {
    /// Runs the reactions to tournament `t`'s seating decisions up to its
    /// version `upto` (and to every decision the log holds before them),
    /// those not yet run.
    pub async fn react(&self, t: &str, upto: u64) -> Result<()> {
        let stream = seating_stream(t)?;
        let mut run = self.reactions.lock(self.seating.log().as_ref()).await;
        while let Some(cause) = run.next(&stream, upto).await? {
            self.react_to(&cause).await?;
            run.done(&cause).await?;
        }
        Ok(())
    }

    /// Runs the reactions to every seating decision of every tournament
    /// the log holds now: after a crash, what a chain had left to do.
    pub async fn react_to_all(&self) -> Result<()> {
        let log = self.seating.log().clone();
        for created in crate::aggregates::tournaments(log.as_ref()).await? {
            let t = created.tournament.as_str();
            let version = log.version(&seating_stream(t)?).await?;
            self.react(t, version).await?;
        }
        Ok(())
    }

    /// Sends the reactions to one seating decision: its busts to payout,
    /// the hand-for-hand rounds no table still plays to payout, its
    /// hand-for-hand facts and closed tables to the clock. A refusal is
    /// not sent again (a repeat of an earlier answer, or a ruling the
    /// audit shows); the log failing or a target out of reach is an error,
    /// and the decision is handed out again.
    async fn react_to(&self, cause: &Cause<Seating>) -> Result<()> {
        let t = cause.stream.tournament.as_str();
        let at = cause.recorded_at;
        if let Some(order) = reactions::hand_end::busts(cause) {
            self.pay_order(t, at, order).await?;
        }
        for order in reactions::hand_end::rounds_over(cause) {
            self.pay_order(t, at, order).await?;
        }
        for e in &cause.events {
            let orders = {
                let clock = self.clock_state(t).await?;
                reactions::hand_for_hand::to_clock(e, &cause.state, &clock, at)
            };
            for order in orders {
                self.clock_hfh(t, at, order).await?;
            }
        }
        Ok(())
    }

    /// A reaction's command to payout; a refusal is reported, not an error.
    async fn pay_order(
        &self,
        t: &str,
        at: Millis,
        order: Order<felt_payout::Command>,
    ) -> Result<()> {
        match self.pay_cmd(t, &order.id, at, order.command).await {
            Ok(_) => Ok(()),
            // A round that held no busts.
            Err(TournamentError::Payout(felt_payout::PayoutError::NoRoundHeld { .. })) => Ok(()),
            Err(TournamentError::Payout(e)) => {
                tracing::warn!(%e, id = order.id, t, "payout refused a reaction's command");
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// A hand-for-hand message to the clock; refusals are reported, not
    /// errors (the clock may have had it from the floor).
    async fn clock_hfh(&self, t: &str, at: Millis, order: Order<ClockCommand>) -> Result<()> {
        let command = order.command;
        match self
            .clock_cmd(t, &order.id, at, |at| command.clone().at_time(at))
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
