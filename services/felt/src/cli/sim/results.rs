//! Tables that record results only (`felt sim --results-only`): their
//! dealers play hands the table service never sees, the floor records
//! each bust with who won the chips, and stacks are counted where the
//! service's record does not know them.

#[allow(clippy::wildcard_imports)]
use super::*;

use pb::execute_request::Command as C;

/// The hands of its own a `--results-only` table's tablet is down for,
/// as its dealer counts them (recorded or not): from its 10th hand until
/// before its 40th. Counted in hands, not on the clock, so that a run
/// switches and comes back however fast the machine plays.
const TABLET_DOWN: std::ops::Range<u64> = 10..40;

/// How long an unrecorded hand takes on the real clock (against running
/// services): as long as a recorded one takes to play through them.
const UNRECORDED_HAND: Duration = Duration::from_millis(50);

/// What a table's dealer did about results only before a recorded hand.
pub(super) enum Unrecorded {
    /// Played a hand the table service never saw.
    Dealt,
    /// Did what was due before the next hand (switched, counted, waited).
    Played,
    /// The table closed.
    Closed,
    /// The table records actions: deal through the services.
    Recording,
}

/// One seated player as the physical table knows them.
struct Player {
    seat: u32,
    entry: u64,
    /// On the service's record.
    recorded: u64,
    /// In front of the player.
    real: u64,
}

/// What a player really holds over what the record says.
fn offset(real: u64, recorded: u64) -> i64 {
    i64::try_from(i128::from(real) - i128::from(recorded)).unwrap_or(0)
}

impl Sim {
    /// Whether `table`'s tablet is down now, its dealer having dealt
    /// `hands`: a multiple of `--results-only`, during [`TABLET_DOWN`],
    /// never in hand-for-hand (the floor has every table deal through the
    /// services there).
    fn tablet_down(&self, table: u32, hands: u64) -> bool {
        self.results_only.is_some_and(|n| table.is_multiple_of(n))
            && TABLET_DOWN.contains(&hands)
            && !self.hand_for_hand.load(Ordering::Relaxed)
    }

    /// The director's command at a table.
    async fn at_table(
        &self,
        what: &str,
        table: u32,
        command_id: String,
        command: C,
    ) -> Result<pb::ExecuteResponse, Status> {
        let execute = pb::ExecuteRequest {
            provenance: None,
            table: Some(pb::TableRef {
                tournament_id: self.tournament.clone(),
                table,
            }),
            command_id,
            command: Some(command),
        };
        again(what, || {
            let mut c = self.tables(table);
            let req = self.request(execute.clone());
            async move { c.execute(req).await }
        })
        .await
    }

    pub(super) async fn table_view(&self, table: u32) -> Result<pb::TableView, Status> {
        let get = pb::GetTableRequest {
            table: Some(pb::TableRef {
                tournament_id: self.tournament.clone(),
                table,
            }),
        };
        let got = again("read a table", || {
            let mut c = self.tables(table);
            let req = self.request(get.clone());
            async move { c.get_table(req).await }
        })
        .await?;
        Ok(got.table.unwrap_or_default())
    }

    /// The seated players, with the chips the simulation knows they
    /// really hold.
    fn players(&self, view: &pb::TableView) -> Vec<Player> {
        let real = self
            .real
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        view.seats
            .iter()
            .filter(|s| s.entry != 0)
            .map(|s| Player {
                seat: s.seat,
                entry: s.entry,
                recorded: s.stack,
                // The record plus what it does not know: the offset stays
                // through hands the table records.
                real: u64::try_from(
                    i128::from(s.stack) + i128::from(real.get(&s.entry).copied().unwrap_or(0)),
                )
                .unwrap_or(0),
            })
            .collect()
    }

    /// Counts every stack at the table under `count` (the service learns
    /// what its record did not know); the simulation then forgets those
    /// players' real chips.
    async fn count(&self, table: u32, view: &pb::TableView, count: &str) -> Result<bool, Status> {
        let players = self.players(view);
        let counted = self
            .at_table(
                "count the stacks",
                table,
                format!("count-v{}", view.version),
                C::CountStacks(pb::CountStacks {
                    count: count.into(),
                    stacks: players
                        .iter()
                        .map(|p| pb::SeatStack {
                            seat: p.seat,
                            entry: p.entry,
                            chips: p.real,
                        })
                        .collect(),
                }),
            )
            .await;
        match counted {
            Ok(_) => {
                let mut real = self
                    .real
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                for p in &players {
                    real.remove(&p.entry);
                }
                Ok(true)
            }
            // A player moved meanwhile: counted again at the next turn.
            Err(e) if e.code() == Code::FailedPrecondition => {
                tracing::debug!(table, %e, "count refused");
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    async fn set_recording(
        &self,
        table: u32,
        version: u64,
        recording: pb::Recording,
        reason: &str,
    ) -> Result<(), Status> {
        self.at_table(
            "switch what the table records",
            table,
            format!("recording-v{version}"),
            C::SetRecording(pb::SetRecording {
                recording: recording.into(),
                reason: reason.into(),
            }),
        )
        .await
        .map(|_| ())
    }

    /// Before a recorded hand (the table's dealer having dealt `hands`):
    /// the table switches to results only (or back, once every stack is
    /// counted), plays a hand unrecorded, or counts the players who
    /// arrived from a results-only table.
    pub(super) async fn unrecorded(
        &self,
        table: u32,
        hands: u64,
        look: bool,
        rng: &mut ChaCha8Rng,
    ) -> anyhow::Result<Unrecorded> {
        let down = self.tablet_down(table, hands);
        let knows_all = self
            .real
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .is_empty();
        let may_be_down =
            table.is_multiple_of(self.results_only.unwrap_or(1)) && hands <= TABLET_DOWN.end;
        if !down && knows_all && !may_be_down && !look {
            return Ok(Unrecorded::Recording);
        }
        let view = match self.table_view(table).await {
            Ok(view) => view,
            // Seating opened the table; its carrier has not yet.
            Err(e) if e.code() == Code::NotFound => {
                tokio::time::sleep(Duration::from_millis(5)).await;
                return Ok(Unrecorded::Played);
            }
            Err(e) => return Err(e.into()),
        };
        if view.hand.is_some() {
            // A hand dealt before a restart: played out as recorded.
            return Ok(Unrecorded::Recording);
        }
        let results_only = view.recording() == pb::Recording::ResultsOnly;
        match (down, results_only) {
            (true, false) => {
                self.set_recording(
                    table,
                    view.version,
                    pb::Recording::ResultsOnly,
                    "tablet down",
                )
                .await?;
                Ok(Unrecorded::Played)
            }
            (true, true) => self.play_unrecorded(table, &view, rng).await,
            (false, true) => {
                if self.count(table, &view, "tablet back").await? {
                    let view = self.table_view(table).await?;
                    self.set_recording(table, view.version, pb::Recording::Actions, "tablet back")
                        .await?;
                }
                Ok(Unrecorded::Played)
            }
            (false, false) => {
                let players = self.players(&view);
                if players.iter().any(|p| p.real != p.recorded) {
                    self.count(table, &view, &format!("arrivals at table {table}"))
                        .await?;
                } else {
                    let mut real = self
                        .real
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    for p in &players {
                        real.remove(&p.entry);
                    }
                }
                Ok(Unrecorded::Recording)
            }
        }
    }

    /// After a recorded hand: a player it busted whose chips the record
    /// did not all know (arrived from a results-only table and dealt in
    /// before a count) leaves what it did not know with the first player
    /// left at the table, counted there before the next hand, so no chip
    /// of the simulation's room appears or vanishes.
    pub(super) fn keep_offsets(&self, busted: &[u64], view: &pb::TableView) {
        if self.results_only.is_none() || busted.is_empty() {
            return;
        }
        let mut real = self
            .real
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let left: i64 = busted.iter().filter_map(|e| real.remove(e)).sum();
        if left != 0
            && let Some(heir) = view.seats.iter().find(|s| s.entry != 0)
        {
            *real.entry(heir.entry).or_insert(0) += left;
        }
    }

    /// A hand the table service never sees: two players contest a pot,
    /// sometimes all in. A bust is recorded by the floor with who won the
    /// chips; any other hand changes only the chips in front of the
    /// players, which the service learns at the next count.
    async fn play_unrecorded(
        &self,
        table: u32,
        view: &pb::TableView,
        rng: &mut ChaCha8Rng,
    ) -> anyhow::Result<Unrecorded> {
        if self.on_break.load(Ordering::Relaxed) {
            // Nobody deals on a break; on simulated time the room's clock
            // moves on to its end.
            if self.simulated {
                let clock = self.clock_view().await?;
                if clock.on_break {
                    self.clock
                        .at_least(self.clock.now() + clock.remaining_ms.max(1));
                }
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
            return Ok(Unrecorded::Played);
        }
        let mut players = self.players(view);
        if players.len() < 2 {
            let map = again("get the table map", || {
                let mut c = self.seating();
                let req = self.request(pb::GetTableMapRequest {
                    tournament_id: self.tournament.clone(),
                });
                async move { c.get_table_map(req).await }
            })
            .await?;
            if !map.tables.iter().any(|t| t.table == table) {
                return Ok(Unrecorded::Closed);
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
            return Ok(Unrecorded::Played);
        }
        let n = players.len();
        let a = rng.next_u32() as usize % n;
        let b = (a + 1 + rng.next_u32() as usize % (n - 1)) % n;
        let (winner, loser) = if rng.next_u32().is_multiple_of(2) {
            (a, b)
        } else {
            (b, a)
        };
        let covered = players[a].real.min(players[b].real);
        let pot = if rng.next_u32().is_multiple_of(10) {
            covered
        } else {
            (covered / 5).max(1)
        };
        // The button: the seat after the last hand's big blind's small
        // blind, as the table turned it.
        let button = players[(view.hands_played as usize + rng.next_u32() as usize % 2) % n].seat;
        players[loser].real -= pot;
        players[winner].real += pot;
        if players[loser].real == 0 {
            let result = self
                .at_table(
                    "record a bust",
                    table,
                    format!(
                        "result-{}-out-{}",
                        view.hands_played + 1,
                        players[loser].entry
                    ),
                    C::RecordResult(pb::RecordResult {
                        button,
                        busted: vec![pb::SeatEntry {
                            seat: players[loser].seat,
                            entry: players[loser].entry,
                        }],
                        by: vec![pb::SeatEntry {
                            seat: players[winner].seat,
                            entry: players[winner].entry,
                        }],
                        occurred_at_ms: None,
                    }),
                )
                .await;
            match result {
                Ok(_) => {
                    {
                        let mut real = self
                            .real
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner);
                        real.remove(&players[loser].entry);
                        // The record gives the winner the loser's recorded chips.
                        let w = &players[winner];
                        let recorded = w.recorded + players[loser].recorded;
                        real.insert(w.entry, offset(w.real, recorded));
                    }
                    self.re_enter(&[players[loser].entry], rng).await?;
                }
                // The table changed meanwhile (a player moved): the hand
                // is played again with the table as it is.
                Err(e) if e.code() == Code::FailedPrecondition => {
                    tracing::debug!(table, %e, "result refused");
                    return Ok(Unrecorded::Played);
                }
                Err(e) => return Err(e.into()),
            }
        } else {
            let mut real = self
                .real
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            for p in &players {
                real.insert(p.entry, offset(p.real, p.recorded));
            }
        }
        self.hands.fetch_add(1, Ordering::Relaxed);
        self.clock.hand_played();
        if !self.pace.is_zero() {
            tokio::time::sleep(self.pace).await;
        } else if !self.simulated {
            // On the real clock a hand takes a while, recorded or not.
            tokio::time::sleep(UNRECORDED_HAND).await;
        }
        Ok(Unrecorded::Dealt)
    }
}
