//! Seating learns of hand ends from the tables' events (not from whoever
//! dealt the hand): a follower reads every table decision in the log and
//! reports each finished hand to the conductor.
//!
//! Reporting is idempotent (the conductor's command ids derive from the
//! table and hand), so a follower started again from the beginning of the
//! log only reports each table's latest hand again, which finishes whatever
//! a crash interrupted, and skips the hands before it.
//!
//! [`follow`] records how far it has safely got ([`FOLLOWER`], every
//! [`RECORD_EVERY`] table decisions): a position before the start of every
//! hand still being played and after every hand end it reported. Started
//! again, it reads the log from there, not from the beginning.

use std::collections::HashMap;

use felt_clock::Millis;
use felt_eventlog::{Committed, EventLog, Filter, StreamId};
use felt_seating::TableNo;
use felt_table::TableEvent;

use crate::{Conductor, HandSummary, NextTurn, TournamentError, Turn};

/// Collects each table's events from its last `HandStarted` and yields the
/// summary of every hand that ends.
#[derive(Debug, Default)]
pub struct HandFollower {
    hands: HashMap<StreamId, Vec<TableEvent>>,
    /// Where each hand being played began: the log position of the
    /// decision holding its `HandStarted`.
    began: HashMap<StreamId, u64>,
}

impl HandFollower {
    /// Feeds one committed table decision (at log `position`); the hand it
    /// finished, if any.
    pub fn feed(
        &mut self,
        stream: &StreamId,
        position: u64,
        events: Vec<TableEvent>,
    ) -> Option<HandSummary> {
        self.feed_from(stream, position, events).map(|(s, _)| s)
    }

    /// [`HandFollower::feed`], with the position where the finished hand
    /// began.
    fn feed_from(
        &mut self,
        stream: &StreamId,
        position: u64,
        events: Vec<TableEvent>,
    ) -> Option<(HandSummary, u64)> {
        let mut ended = None;
        for event in events {
            let started = matches!(event, TableEvent::HandStarted { .. });
            let ends = matches!(event, TableEvent::HandEnded { .. });
            let hand = self.hands.entry(stream.clone()).or_default();
            if started {
                hand.clear();
                self.began.insert(stream.clone(), position);
            }
            hand.push(event);
            if ends {
                let began = self.began.remove(stream).unwrap_or(position);
                ended = HandSummary::from_events(hand.iter()).map(|s| (s, began));
                hand.clear();
            }
        }
        ended
    }

    /// Feeds a committed table decision as read from the log: the hand it
    /// finished, if any, and the position where that hand began.
    pub fn feed_committed(
        &mut self,
        committed: &Committed,
    ) -> Result<Option<(HandSummary, u64)>, TournamentError> {
        let events = committed
            .envelopes
            .iter()
            .map(felt_tablelog::decode)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(self.feed_from(&committed.stream, committed.position, events))
    }

    /// The position a follower started again may subscribe after, once
    /// every decision up to `done` has been reported: before the start of
    /// every hand still being played (its events are needed whole).
    pub fn resume_after(&self, done: u64) -> u64 {
        self.began
            .values()
            .map(|&p| p.saturating_sub(1))
            .fold(done, u64::min)
    }
}

/// The name the follower records its position under.
pub const FOLLOWER: &str = "seating-follower";
/// Table decisions between two records of the follower's position: at
/// most this many (and the hands being played) are read again after a
/// restart.
pub const RECORD_EVERY: u64 = 1_000;

/// Where the follower gets the time (seating draws its own seeds).
pub trait Inputs: Send + Sync {
    fn now(&self) -> Millis;
}

/// The table number seating gave a table stream, if seating opened it.
fn table_no(stream: &StreamId) -> Option<TableNo> {
    stream.id.parse().ok()
}

/// Reports one committed table decision to the conductor if it ended a hand
/// that is its table's latest.
pub async fn report<L: EventLog + 'static>(
    conductor: &Conductor<L>,
    follower: &mut HandFollower,
    committed: &Committed,
    inputs: &dyn Inputs,
) -> Result<Option<(TableNo, u64)>, TournamentError> {
    match follower.feed_committed(committed)? {
        Some((summary, _)) => {
            let from = ended_by(committed);
            report_summary(conductor, &committed.stream, summary, inputs, None, from).await
        }
        None => Ok(None),
    }
}

/// Where a hand end comes from, as seating's decision records it: the
/// table's decision that ended the hand.
fn ended_by(committed: &Committed) -> felt_service::Provenance {
    let first = committed.envelopes.first();
    crate::runner::provenance(
        &committed.stream,
        first.map_or(0, |e| e.sequence),
        first.map_or("", |e| e.command_id.as_str()),
        first.and_then(|e| e.correlation_id.as_deref()),
    )
}

/// Reports a hand that ended at a table stream, if it is the table's
/// latest and seating has not finished hearing of it; in its `turn` at
/// seating.
async fn report_summary<L: EventLog + 'static>(
    conductor: &Conductor<L>,
    stream: &StreamId,
    summary: HandSummary,
    inputs: &dyn Inputs,
    mut turn: Option<Turn>,
    from: felt_service::Provenance,
) -> Result<Option<(TableNo, u64)>, TournamentError> {
    let t = stream.tournament.as_str();
    let Some(table) = table_no(stream) else {
        return Ok(None);
    };
    if !again(conductor, stream, t, table, &summary).await? {
        if let Some(turn) = turn.as_mut() {
            turn.come().await;
        }
        return Ok(None);
    }
    conductor
        .hand_ended_in_turn(t, table, &summary, inputs.now(), turn, &from)
        .await?;
    Ok(Some((table, summary.number)))
}

/// Whether a hand end is (still) to be reported: seating waits for it; or
/// it is the table's latest hand, which is reported again (seating answers
/// a repeat with its first decision, and the moves it brought on are
/// carried out). The hands before a table's latest were reported before it
/// could deal again.
async fn again<L: EventLog + 'static>(
    conductor: &Conductor<L>,
    stream: &StreamId,
    t: &str,
    table: TableNo,
    summary: &HandSummary,
) -> Result<bool, TournamentError> {
    let waiting = match conductor.seating_state(t).await?.room().tables.get(&table) {
        None => return Ok(false),
        Some(info) => info.in_hand,
    };
    // (This process's view of the table never runs ahead of the log.)
    let later = conductor
        .tables
        .cached_state(stream)
        .await?
        .0
        .hands_started()
        > summary.number;
    let latest = !later && !waiting && {
        let (state, _) = conductor.tables.state(stream).await?;
        state.hands_started() == summary.number && state.hand().is_none()
    };
    // A hand end seating recorded reaches payout through payout's runner,
    // whatever happened after seating's decision: nothing to report again.
    Ok(!later && (waiting || latest))
}

/// A report under way comes back with where its hand began, its table
/// stream and what became of it.
type Report = (
    u64,
    StreamId,
    Result<Option<(TableNo, u64)>, TournamentError>,
);

/// Hand ends reported at once, at most: while one hand end's payout and
/// moves are carried out, seating decides the next.
pub const IN_FLIGHT: usize = 32;

/// Follows every table of every tournament in the log from the position
/// it last recorded (the beginning, the first time), reporting each hand
/// end; `reported` is told of each one. Returns when the log closes, or
/// with the first error. First, the reactions to seating's decisions that
/// a crash left unsent are sent.
///
/// Hand ends at different tables are reported concurrently (up to
/// [`IN_FLIGHT`]): seating still decides them one at a time, in the order
/// they ended; payout and the clock hear of seating's decisions in the
/// log's order (the runner), and moves are carried out one at a time (the
/// carrier), but one hand end's payout and moves do not hold up the next
/// one's seating decision. A table's next hand end cannot come before
/// seating has decided its last.
pub async fn follow<L: EventLog + 'static>(
    conductor: &Conductor<L>,
    inputs: &dyn Inputs,
    reported: &(dyn Fn(&str, TableNo, u64) + Send + Sync),
) -> Result<(), TournamentError> {
    use futures::StreamExt as _;
    let filter = Filter {
        tournament: None,
        kind: Some("table".into()),
    };
    let log = conductor.tables.log();
    // What a crash left of seating's reactions is finished first.
    conductor.react_to_all().await?;
    let after = log.recorded_position(FOLLOWER).await?;
    tracing::info!(after, "following the tables");
    let mut sub = log.subscribe(filter, after).await?;
    let mut follower = HandFollower::default();
    let mut unrecorded = 0;
    // The reports under way, and where their hands began (the follower
    // may not resume after those yet).
    let mut reports = futures::stream::FuturesUnordered::new();
    let mut pending: std::collections::BTreeMap<u64, usize> = Default::default();
    // Seating hears of the hand ends in the order they ended.
    let mut next_turn = NextTurn::default();
    let mut open = true;
    while open || !reports.is_empty() {
        tokio::select! {
            Some(done) = reports.next(), if !reports.is_empty() => {
                let (began, stream, result): Report = done;
                if let Some(n) = pending.get_mut(&began) {
                    *n -= 1;
                    if *n == 0 {
                        pending.remove(&began);
                    }
                }
                if let Some((table, hand)) = result? {
                    reported(&stream.tournament, table, hand);
                }
            }
            next = sub.next(), if open && reports.len() < IN_FLIGHT => {
                let Some(next) = next else {
                    open = false;
                    continue;
                };
                let committed = next?;
                if let Some((summary, began)) = follower.feed_committed(&committed)? {
                    *pending.entry(began).or_default() += 1;
                    let stream = committed.stream.clone();
                    let from = ended_by(&committed);
                    let this_turn;
                    (this_turn, next_turn) = next_turn.turn();
                    reports.push(async move {
                        let result =
                            report_summary(conductor, &stream, summary, inputs, Some(this_turn), from)
                                .await;
                        (began, stream, result)
                    });
                }
                unrecorded += 1;
                if unrecorded >= RECORD_EVERY {
                    unrecorded = 0;
                    let done = pending
                        .keys()
                        .next()
                        .map_or(committed.position, |&p| p.saturating_sub(1));
                    let safe = follower.resume_after(done);
                    log.record_position(FOLLOWER, safe).await?;
                }
            }
        }
    }
    Ok(())
}
