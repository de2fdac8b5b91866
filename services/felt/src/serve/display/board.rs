//! One tournament's board: what every screen of it shows, kept from the
//! services' partner streams and sent whole on every change.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use felt_proto::v1 as pb;
use serde::Serialize;
use tokio::sync::{Notify, watch};

use super::{Display, coalesce};
use crate::serve::Now;

/// How often at most a screen is sent standings or payouts again while
/// hands end and players bust.
const REFRESH_GAP: Duration = Duration::from_millis(200);
/// How long a lost stream waits before it follows again.
const RECONNECT: Duration = Duration::from_millis(500);
/// Finishers a board carries (best first: the paid places and the latest
/// busts).
const FINISHERS: usize = 60;
/// Recent moves a board carries.
const MOVES: usize = 20;

#[derive(Clone, Serialize, Default)]
struct LevelJson {
    small_blind: u64,
    big_blind: u64,
    ante: u64,
}

fn level(l: Option<&pb::Level>) -> Option<LevelJson> {
    l.map(|l| LevelJson {
        small_blind: l.small_blind,
        big_blind: l.big_blind,
        ante: l.ante,
    })
}

#[derive(Clone, Serialize, Default)]
struct ClockJson {
    status: &'static str,
    pause_reason: String,
    structure: String,
    day: u32,
    level: u32,
    on_break: bool,
    blinds: Option<LevelJson>,
    next_level: Option<LevelJson>,
    /// Time left when the view was taken (`as_of_ms`, service time).
    remaining_ms: i64,
    next_break_in_ms: Option<i64>,
    as_of_ms: i64,
    hand_for_hand_round: u64,
    waiting_tables: Vec<u32>,
    end_of_day_hands: u32,
}

fn clock_json(c: &pb::ClockView) -> ClockJson {
    use pb::ClockStatus as S;
    ClockJson {
        status: match c.status() {
            S::Unspecified | S::NotStarted => "not started",
            S::Running => "running",
            S::Paused => "paused",
            S::HandForHand => "hand for hand",
            S::EndOfDayDue => "stopped for the day's card",
            S::EndOfDay => "end of day",
            S::DayOver => "day over",
            S::Finished => "finished",
        },
        pause_reason: c.pause_reason.clone(),
        structure: c.structure_name.clone(),
        day: c.day,
        level: c.level,
        on_break: c.on_break,
        blinds: level(c.blinds.as_ref()),
        next_level: level(c.next_level.as_ref()),
        remaining_ms: c.remaining_ms,
        next_break_in_ms: c.next_break_in_ms,
        as_of_ms: c.as_of_ms,
        hand_for_hand_round: c.hand_for_hand_round,
        waiting_tables: c.waiting_tables.clone(),
        end_of_day_hands: c.end_of_day_hands,
    }
}

#[derive(Clone, Serialize, Default)]
struct StandingsJson {
    started: bool,
    registration_closed: bool,
    entries: u32,
    players_left: u32,
    tables: u32,
    starting_stack: u64,
    average_stack: u64,
    paid: u32,
    hand_for_hand: bool,
    final_table: bool,
    alternates: u32,
}

fn standings_json(s: &pb::GetStandingsResponse) -> StandingsJson {
    StandingsJson {
        started: s.started,
        registration_closed: s.registration_closed,
        entries: s.entries,
        players_left: s.players_left,
        tables: s.tables,
        starting_stack: s.starting_stack,
        average_stack: s.average_stack,
        paid: s.paid,
        hand_for_hand: s.hand_for_hand,
        final_table: s.final_table,
        alternates: s.alternates,
    }
}

#[derive(Clone, Serialize, Default)]
struct PayLineJson {
    first: u32,
    last: u32,
    amount: u64,
}

#[derive(Clone, Serialize, Default)]
struct PayJson {
    currency: String,
    minor_per_major: u32,
    entries: u32,
    add_ons: u32,
    rebuys: u32,
    pool_fixed: bool,
    prize_pool: u64,
    overlay: u64,
    paid: u32,
    sheet: Vec<PayLineJson>,
    deals: u32,
    deal_proposed: bool,
}

#[derive(Clone, Serialize, Default)]
struct ResultJson {
    first: u32,
    last: u32,
    entry: u64,
    name: String,
    prize: u64,
    bounties: u64,
    /// Of `prize`, a satellite's seat in `ticket_target` (0: none).
    ticket: u64,
    ticket_target: String,
}

#[derive(Clone, Serialize, Default)]
struct MoveJson {
    id: u64,
    entry: u64,
    name: String,
    from_table: u32,
    from_seat: u32,
    to_table: u32,
    to_seat: u32,
    reason: &'static str,
    /// The floor's reason, for a move the floor made.
    detail: String,
    completed: bool,
    /// When seating decided it (service time), if the stream said.
    at_ms: Option<i64>,
}

/// A ruling on a player the room is told of: a disqualification, with
/// its reason.
#[derive(Clone, Serialize, Default)]
struct RulingJson {
    entry: u64,
    /// Found by the entry's number once the board asks seating.
    name: String,
    table: u32,
    what: &'static str,
    reason: String,
    at_ms: i64,
}

/// What a screen gets: everything it shows, whole.
#[derive(Clone, Serialize, Default)]
pub(super) struct BoardJson {
    tournament: String,
    name: String,
    /// Whether every stream behind the board is connected.
    live: bool,
    /// The service time this document was sent at: with `clock.as_of_ms`
    /// the screen knows how old the clock's time left is.
    sent_ms: i64,
    clock: Option<ClockJson>,
    standings: Option<StandingsJson>,
    pay: Option<PayJson>,
    results: Vec<ResultJson>,
    finished: usize,
    moves: Vec<MoveJson>,
    /// The latest rulings on players (disqualifications), newest first.
    rulings: Vec<RulingJson>,
    /// Seating's stream version: the lobby reloads its table map when it
    /// moves.
    seating_version: u64,
}

/// Which stream behind the board.
#[derive(Clone, Copy)]
enum Part {
    Clock = 0,
    Seating = 1,
    Payout = 2,
}

pub(super) struct Board {
    tournament: String,
    state: Mutex<(BoardJson, [bool; 3])>,
    tx: watch::Sender<Arc<str>>,
    now: Now,
    seating_poke: Notify,
    payout_poke: Notify,
    /// When each move was decided, from seating's stream.
    move_times: Mutex<HashMap<u64, i64>>,
    /// Rulings on players from seating's stream, oldest first.
    rulings: Mutex<Vec<RulingJson>>,
}

impl Board {
    pub(super) fn new(tournament: &str, standings: pb::GetStandingsResponse, now: Now) -> Board {
        let json = BoardJson {
            tournament: tournament.into(),
            name: standings.name.clone(),
            standings: Some(standings_json(&standings)),
            ..BoardJson::default()
        };
        let text = serde_json::to_string(&json).unwrap_or_default();
        Board {
            tournament: tournament.into(),
            state: Mutex::new((json, [false; 3])),
            tx: watch::Sender::new(Arc::from(text)),
            now,
            seating_poke: Notify::new(),
            payout_poke: Notify::new(),
            move_times: Mutex::default(),
            rulings: Mutex::default(),
        }
    }

    pub(super) fn subscribe(&self) -> watch::Receiver<Arc<str>> {
        self.tx.subscribe()
    }

    /// Changes the board and sends it to every screen.
    fn update(&self, change: impl FnOnce(&mut BoardJson)) {
        let mut state = self.state.lock().expect("board");
        change(&mut state.0);
        state.0.sent_ms = (self.now)();
        match serde_json::to_string(&state.0) {
            Ok(text) => {
                self.tx.send_replace(Arc::from(text));
            }
            Err(e) => tracing::warn!(%e, tournament = %self.tournament, "cannot write the board"),
        }
    }

    fn connected(&self, part: Part, on: bool) {
        let live = {
            let mut state = self.state.lock().expect("board");
            state.1[part as usize] = on;
            state.1.iter().all(|c| *c)
        };
        self.update(|b| b.live = live);
    }
}

/// Follows the tournament's streams for as long as the process runs.
pub(super) fn follow(display: Arc<Display>, board: Arc<Board>) {
    tokio::spawn(follow_clock(display.clone(), board.clone()));
    tokio::spawn(follow_seating(display.clone(), board.clone()));
    tokio::spawn(follow_payout(display.clone(), board.clone()));
    tokio::spawn(refresh_seating(display.clone(), board.clone()));
    tokio::spawn(refresh_payout(display, board));
}

/// The clock stream: a snapshot, then the clock after every change. A
/// lost stream starts again from a snapshot.
async fn follow_clock(d: Arc<Display>, b: Arc<Board>) {
    loop {
        let req = d.request(pb::WatchClockRequest {
            tournament_id: b.tournament.clone(),
            after_version: 0,
        });
        match d.clock().watch_clock(req).await {
            Ok(response) => {
                let mut stream = response.into_inner();
                b.connected(Part::Clock, true);
                loop {
                    match stream.message().await {
                        Ok(Some(item)) => {
                            if let Some(view) = item.clock {
                                b.update(|board| board.clock = Some(clock_json(&view)));
                            }
                        }
                        Ok(None) => break,
                        Err(e) => {
                            tracing::debug!(%e, tournament = %b.tournament, "clock stream lost");
                            break;
                        }
                    }
                }
            }
            Err(e) => tracing::debug!(%e, tournament = %b.tournament, "cannot follow the clock"),
        }
        b.connected(Part::Clock, false);
        tokio::time::sleep(RECONNECT).await;
    }
}

/// Seating's stream: each batch of events asks for fresh standings and
/// moves; the moves' times are taken from it. A lost stream resumes after
/// the last event seen.
async fn follow_seating(d: Arc<Display>, b: Arc<Board>) {
    let mut after = 0;
    loop {
        let req = d.request(pb::WatchSeatingRequest {
            tournament_id: b.tournament.clone(),
            after_version: after,
        });
        match d.seating().watch_seating(req).await {
            Ok(response) => {
                let mut stream = response.into_inner();
                b.connected(Part::Seating, true);
                b.seating_poke.notify_one();
                while let Ok(Some(item)) = stream.message().await {
                    let mut times = b.move_times.lock().expect("move times");
                    let mut rulings = b.rulings.lock().expect("rulings");
                    for e in &item.events {
                        after = after.max(e.sequence);
                        match &e.kind {
                            Some(pb::seating_event::Kind::MoveStarted(m)) => {
                                times.insert(m.id, e.recorded_at_ms);
                            }
                            Some(pb::seating_event::Kind::Disqualified(q)) => {
                                rulings.push(RulingJson {
                                    entry: q.entry,
                                    name: String::new(),
                                    table: q.table,
                                    what: "disqualified",
                                    reason: q.reason.clone(),
                                    at_ms: e.recorded_at_ms,
                                });
                                let extra = rulings.len().saturating_sub(MOVES);
                                rulings.drain(..extra);
                            }
                            _ => {}
                        }
                    }
                    drop((times, rulings));
                    b.seating_poke.notify_one();
                }
            }
            Err(e) => tracing::debug!(%e, tournament = %b.tournament, "cannot follow seating"),
        }
        b.connected(Part::Seating, false);
        tokio::time::sleep(RECONNECT).await;
    }
}

/// Payout's stream: each batch asks for the pay sheet and results again.
async fn follow_payout(d: Arc<Display>, b: Arc<Board>) {
    let mut after = 0;
    loop {
        let req = d.request(pb::WatchResultsRequest {
            tournament_id: b.tournament.clone(),
            after_version: after,
        });
        match d.payout().watch_results(req).await {
            Ok(response) => {
                let mut stream = response.into_inner();
                b.connected(Part::Payout, true);
                b.payout_poke.notify_one();
                while let Ok(Some(item)) = stream.message().await {
                    if let Some(last) = item.events.iter().map(|e| e.sequence).max() {
                        after = after.max(last);
                    }
                    b.payout_poke.notify_one();
                }
            }
            Err(e) => tracing::debug!(%e, tournament = %b.tournament, "cannot follow payout"),
        }
        b.connected(Part::Payout, false);
        tokio::time::sleep(RECONNECT).await;
    }
}

fn move_reason(r: pb::MoveReason) -> &'static str {
    match r {
        pb::MoveReason::Balance => "balance",
        pb::MoveReason::TableBroken => "table broken",
        pb::MoveReason::Redraw => "redraw",
        pb::MoveReason::FinalTable => "final table",
        pb::MoveReason::Floor => "floor",
        pb::MoveReason::NewDay => "new day's draw",
        pb::MoveReason::Unspecified => "move",
    }
}

/// The board's rulings, newest first, each with the player's name (asked
/// of seating by entry number, once).
async fn named_rulings(d: &Display, b: &Board) -> Vec<RulingJson> {
    let unnamed: Vec<u64> = {
        let rulings = b.rulings.lock().expect("rulings");
        rulings
            .iter()
            .filter(|r| r.name.is_empty())
            .map(|r| r.entry)
            .collect()
    };
    for entry in unnamed {
        let found = d
            .seating()
            .find_seat(d.request(pb::FindSeatRequest {
                tournament_id: b.tournament.clone(),
                query: entry.to_string(),
            }))
            .await;
        if let Some(name) = found.ok().and_then(|f| {
            f.into_inner()
                .entries
                .into_iter()
                .find(|e| e.entry == entry)
                .map(|e| e.name)
        }) {
            let mut rulings = b.rulings.lock().expect("rulings");
            for r in rulings.iter_mut().filter(|r| r.entry == entry) {
                r.name.clone_from(&name);
            }
        }
    }
    let rulings = b.rulings.lock().expect("rulings");
    rulings.iter().rev().cloned().collect()
}

async fn refresh_seating(d: Arc<Display>, b: Arc<Board>) {
    loop {
        coalesce(&b.seating_poke, REFRESH_GAP).await;
        let id = b.tournament.clone();
        let standings = d
            .seating()
            .get_standings(d.request(pb::GetStandingsRequest {
                tournament_id: id.clone(),
            }))
            .await;
        let moves = d
            .seating()
            .get_moves(d.request(pb::GetMovesRequest {
                tournament_id: id,
                last: MOVES as u32,
            }))
            .await;
        match (standings, moves) {
            (Ok(standings), Ok(moves)) => {
                let standings = standings.into_inner();
                let times = b.move_times.lock().expect("move times").clone();
                let moves: Vec<MoveJson> = moves
                    .into_inner()
                    .moves
                    .iter()
                    .rev()
                    .take(MOVES)
                    .map(|m| MoveJson {
                        id: m.id,
                        entry: m.entry,
                        name: m.name.clone(),
                        from_table: m.from_table,
                        from_seat: m.from_seat,
                        to_table: m.to_table,
                        to_seat: m.to_seat,
                        reason: move_reason(m.reason()),
                        detail: if m.reason() == pb::MoveReason::Floor {
                            m.detail.clone()
                        } else {
                            String::new()
                        },
                        completed: m.completed,
                        at_ms: times.get(&m.id).copied(),
                    })
                    .collect();
                let rulings = named_rulings(&d, &b).await;
                b.update(|board| {
                    board.name = standings.name.clone();
                    board.standings = Some(standings_json(&standings));
                    board.moves = moves;
                    board.rulings = rulings;
                    board.seating_version += 1;
                });
            }
            (Err(e), _) | (_, Err(e)) => {
                tracing::debug!(%e, tournament = %b.tournament, "cannot read standings");
                tokio::time::sleep(RECONNECT).await;
                b.seating_poke.notify_one();
            }
        }
    }
}

async fn refresh_payout(d: Arc<Display>, b: Arc<Board>) {
    loop {
        coalesce(&b.payout_poke, REFRESH_GAP).await;
        let id = b.tournament.clone();
        let payouts = d
            .payout()
            .get_payouts(d.request(pb::GetPayoutsRequest {
                tournament_id: id.clone(),
            }))
            .await;
        let results = d
            .payout()
            .get_results(d.request(pb::GetResultsRequest { tournament_id: id }))
            .await;
        match (payouts, results) {
            (Ok(p), Ok(r)) => {
                let p = p.into_inner();
                let rows = r.into_inner().results;
                let pay = PayJson {
                    currency: p.currency,
                    minor_per_major: p.minor_per_major,
                    entries: p.entries,
                    add_ons: p.add_ons,
                    rebuys: p.rebuys,
                    pool_fixed: p.pool_fixed,
                    prize_pool: p.prize_pool,
                    overlay: p.overlay,
                    paid: p.paid,
                    sheet: p
                        .sheet
                        .iter()
                        .map(|l| PayLineJson {
                            first: l.first,
                            last: l.last,
                            amount: l.amount,
                        })
                        .collect(),
                    deals: p.deals,
                    deal_proposed: p.deal_proposed,
                };
                let finished = rows.len();
                let results: Vec<ResultJson> = rows
                    .into_iter()
                    .take(FINISHERS)
                    .map(|r| ResultJson {
                        first: r.first,
                        last: r.last,
                        entry: r.entry,
                        name: r.name,
                        prize: r.prize,
                        bounties: r.bounties,
                        ticket: r.ticket,
                        ticket_target: r.ticket_target,
                    })
                    .collect();
                b.update(|board| {
                    board.pay = Some(pay);
                    board.results = results;
                    board.finished = finished;
                });
            }
            (Err(e), _) | (_, Err(e)) => {
                tracing::debug!(%e, tournament = %b.tournament, "cannot read payouts");
                tokio::time::sleep(RECONNECT).await;
                b.payout_poke.notify_one();
            }
        }
    }
}
