//! The clock as a decider. Time is an input: every command carries the
//! time it happens (milliseconds since the Unix epoch), and before deciding
//! it, the clock records every period boundary passed since its last event,
//! each at its exact time, so no level is ever skipped and a replay lands
//! on the same second.

use std::collections::BTreeSet;

use felt_table::Level;
use serde::{Deserialize, Serialize};

use crate::structure::{Period, Structure};
use crate::{ActionClock, ClockError};

/// Milliseconds since the Unix epoch.
pub type Millis = i64;

/// The clock's settings besides the structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockSettings {
    /// Taken off the clock for each hand-for-hand hand (TDA: 2 minutes;
    /// seed 002: 3).
    pub hand_for_hand_millis: i64,
    pub action: ActionClock,
}

impl Default for ClockSettings {
    fn default() -> Self {
        ClockSettings {
            hand_for_hand_millis: 120_000,
            action: ActionClock::default(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClockCommand {
    Configure {
        structure: Structure,
        settings: ClockSettings,
    },
    Start {
        at: Millis,
    },
    Pause {
        at: Millis,
        reason: String,
    },
    Resume {
        at: Millis,
        reason: String,
    },
    /// Records the boundaries passed by `at` (a no-op otherwise).
    Tick {
        at: Millis,
    },
    /// Sets the time left in the current period.
    SetRemaining {
        at: Millis,
        remaining: Millis,
    },
    /// Adds (or with a negative amount takes) time to the current period.
    AddTime {
        at: Millis,
        millis: Millis,
    },
    /// Jumps to a level (1-based), with its full time.
    JumpToLevel {
        at: Millis,
        level: u32,
    },
    /// Hand-for-hand (RP8) on these tables: the clock stops, and each
    /// hand-for-hand hand takes the fixed time off it.
    StartHandForHand {
        at: Millis,
        tables: Vec<u32>,
    },
    /// A table finished its hand-for-hand hand. When every table has, the
    /// round's time is deducted and the next hand may start everywhere.
    TableFinishedHand {
        at: Millis,
        table: u32,
    },
    /// A table broke during hand-for-hand: it is no longer waited for.
    RemoveTable {
        at: Millis,
        table: u32,
    },
    StopHandForHand {
        at: Millis,
    },
    /// End of the day (seed 002, 77): the clock stops and every table plays
    /// this many more hands (the card drawn, 2 to 5).
    EndDayAfter {
        at: Millis,
        hands: u8,
    },
    /// The day's play is over (after the drawn hands).
    EndDay {
        at: Millis,
    },
    /// The next day starts where the last one stopped.
    StartDay {
        at: Millis,
    },
    /// Time-bank cards a player used on the action clock.
    UseTimeBank {
        at: Millis,
        player: u64,
        cards: u8,
    },
}

impl ClockCommand {
    /// The same command at another time (`Configure` has none): a caller
    /// whose time another writer passed sends it again at the clock's last.
    #[must_use]
    pub fn at_time(mut self, time: Millis) -> Self {
        use ClockCommand::*;
        match &mut self {
            Configure { .. } => {}
            Start { at }
            | Pause { at, .. }
            | Resume { at, .. }
            | Tick { at }
            | SetRemaining { at, .. }
            | AddTime { at, .. }
            | JumpToLevel { at, .. }
            | StartHandForHand { at, .. }
            | TableFinishedHand { at, .. }
            | RemoveTable { at, .. }
            | StopHandForHand { at }
            | EndDayAfter { at, .. }
            | EndDay { at }
            | StartDay { at }
            | UseTimeBank { at, .. } => *at = time,
        }
        self
    }

    pub fn at(&self) -> Option<Millis> {
        use ClockCommand::*;
        match self {
            Configure { .. } => None,
            Start { at }
            | Pause { at, .. }
            | Resume { at, .. }
            | Tick { at }
            | SetRemaining { at, .. }
            | AddTime { at, .. }
            | JumpToLevel { at, .. }
            | StartHandForHand { at, .. }
            | TableFinishedHand { at, .. }
            | RemoveTable { at, .. }
            | StopHandForHand { at }
            | EndDayAfter { at, .. }
            | EndDay { at }
            | StartDay { at }
            | UseTimeBank { at, .. } => Some(*at),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClockEvent {
    Configured {
        structure: Structure,
        settings: ClockSettings,
    },
    Started {
        at: Millis,
    },
    /// A period (level or break) began at this exact time, with its full
    /// duration less what was carried over (a hand-for-hand deduction
    /// that went past the end of the last one).
    PeriodStarted {
        at: Millis,
        period: usize,
        remaining: Millis,
    },
    Paused {
        at: Millis,
        reason: String,
        remaining: Millis,
    },
    Resumed {
        at: Millis,
        reason: String,
    },
    RemainingSet {
        at: Millis,
        remaining: Millis,
    },
    JumpedToLevel {
        at: Millis,
        period: usize,
    },
    HandForHandStarted {
        at: Millis,
        tables: Vec<u32>,
        remaining: Millis,
    },
    TableFinishedHand {
        at: Millis,
        table: u32,
    },
    TableRemoved {
        at: Millis,
        table: u32,
    },
    /// Every table finished hand-for-hand hand `round`; `deducted` came off
    /// the clock.
    HandForHandRoundEnded {
        at: Millis,
        round: u64,
        deducted: Millis,
    },
    HandForHandStopped {
        at: Millis,
    },
    EndOfDayDrawn {
        at: Millis,
        hands: u8,
        remaining: Millis,
    },
    DayEnded {
        at: Millis,
        day: u32,
    },
    DayStarted {
        at: Millis,
        day: u32,
    },
    TimeBankUsed {
        at: Millis,
        player: u64,
        cards: u8,
    },
}

impl ClockEvent {
    pub fn name(&self) -> &'static str {
        match self {
            ClockEvent::Configured { .. } => "Configured",
            ClockEvent::Started { .. } => "Started",
            ClockEvent::PeriodStarted { .. } => "PeriodStarted",
            ClockEvent::Paused { .. } => "Paused",
            ClockEvent::Resumed { .. } => "Resumed",
            ClockEvent::RemainingSet { .. } => "RemainingSet",
            ClockEvent::JumpedToLevel { .. } => "JumpedToLevel",
            ClockEvent::HandForHandStarted { .. } => "HandForHandStarted",
            ClockEvent::TableFinishedHand { .. } => "TableFinishedHand",
            ClockEvent::TableRemoved { .. } => "TableRemoved",
            ClockEvent::HandForHandRoundEnded { .. } => "HandForHandRoundEnded",
            ClockEvent::HandForHandStopped { .. } => "HandForHandStopped",
            ClockEvent::EndOfDayDrawn { .. } => "EndOfDayDrawn",
            ClockEvent::DayEnded { .. } => "DayEnded",
            ClockEvent::DayStarted { .. } => "DayStarted",
            ClockEvent::TimeBankUsed { .. } => "TimeBankUsed",
        }
    }
}

/// Whether time is running.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Status {
    #[default]
    NotStarted,
    /// Counting down since `since`, when `remaining` was left.
    Running {
        since: Millis,
    },
    Paused {
        reason: String,
    },
    /// Stopped; hands deduct time. `waiting` are the tables still playing
    /// the current round's hand.
    HandForHand {
        round: u64,
        tables: BTreeSet<u32>,
        waiting: BTreeSet<u32>,
    },
    /// Stopped for the day's last hands.
    EndOfDay {
        hands: u8,
    },
    /// Between days.
    DayOver,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockState {
    pub structure: Option<Structure>,
    pub settings: ClockSettings,
    pub status: Status,
    /// The current period (index into the structure's periods).
    pub period: usize,
    /// Time left in the period when the status last changed (running: at `since`).
    pub remaining: Millis,
    /// The time of the last event.
    pub last: Millis,
    pub day: u32,
    /// Time-bank cards used, by player, this day and in all.
    pub time_banks_used: std::collections::BTreeMap<u64, u32>,
    /// Hand-for-hand periods started so far (the current one's number
    /// while in hand-for-hand).
    #[serde(default)]
    pub hand_for_hand_periods: u64,
    /// In hand-for-hand, when the break being taken began: hands take no
    /// time off a break, it runs on the wall clock.
    #[serde(default)]
    pub hand_for_hand_break: Option<Millis>,
}

/// What the clock shows at a moment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockView {
    pub status: Status,
    pub day: u32,
    pub period: usize,
    /// The level number (None during a break).
    pub level: Option<u32>,
    /// The level being played, or after a break the one coming.
    pub blinds: Option<Level>,
    pub on_break: bool,
    pub remaining: Millis,
    pub next_level: Option<Level>,
    /// Time until the next break starts (None if no break is left).
    pub next_break_in: Option<Millis>,
}

impl ClockState {
    fn structure(&self) -> Result<&Structure, ClockError> {
        self.structure.as_ref().ok_or(ClockError::NotConfigured)
    }

    fn running_since(&self) -> Option<Millis> {
        match self.status {
            Status::Running { since } => Some(since),
            _ => None,
        }
    }

    /// Since when the current period's time runs on the wall clock: while
    /// running, and during a break taken in hand-for-hand.
    fn counting_since(&self) -> Option<Millis> {
        match self.status {
            Status::Running { since } => Some(since),
            Status::HandForHand { .. } => self.hand_for_hand_break,
            _ => None,
        }
    }

    /// Whether the current period is a break.
    fn on_break(&self) -> bool {
        self.structure
            .as_ref()
            .and_then(|s| s.periods.get(self.period))
            .is_some_and(|p| matches!(p, Period::Break(_)))
    }

    /// Time left in the current period at `now`, never negative.
    pub fn remaining_at(&self, now: Millis) -> Millis {
        match self.counting_since() {
            Some(since) => (self.remaining - (now - since).max(0)).max(0),
            None => self.remaining,
        }
    }

    /// What the clock shows at `now` (boundaries passed since the last
    /// event are taken into account, as `Tick` would record them).
    pub fn view(&self, now: Millis) -> ClockView {
        let mut s = self.clone();
        for e in catch_up(self, now) {
            s.apply(&e);
        }
        let structure = s.structure.as_ref();
        let periods = structure.map_or(&[][..], |st| &st.periods[..]);
        let on_break = matches!(periods.get(s.period), Some(Period::Break(_)));
        let remaining = s.remaining_at(now);
        let upcoming_level = |from: usize| {
            periods[from.min(periods.len())..]
                .iter()
                .find_map(|p| match p {
                    Period::Level(l) => Some(l.level()),
                    Period::Break(_) => None,
                })
        };
        let blinds = upcoming_level(s.period);
        let next_level = upcoming_level(s.period + 1);
        let next_break_in = if on_break {
            Some(0)
        } else {
            let mut t = remaining;
            let mut found = None;
            for p in periods.iter().skip(s.period + 1) {
                if matches!(p, Period::Break(_)) {
                    found = Some(t);
                    break;
                }
                t += p.millis();
            }
            found
        };
        ClockView {
            status: s.status.clone(),
            day: s.day,
            period: s.period,
            level: structure.and_then(|st| st.level_number(s.period)),
            blinds,
            on_break,
            remaining,
            next_level,
            next_break_in,
        }
    }

    /// The level a hand starting at `now` is played with (TDA 23: the level
    /// in force when the hand starts). Refused during a break or before
    /// the start.
    pub fn level_for_hand(&self, now: Millis) -> Result<Level, ClockError> {
        let view = self.view(now);
        match view.status {
            Status::NotStarted => return Err(ClockError::NotStarted),
            Status::DayOver => return Err(ClockError::DayOver),
            _ => {}
        }
        if view.on_break {
            return Err(ClockError::OnBreak {
                remaining: view.remaining,
            });
        }
        view.blinds.ok_or(ClockError::NotConfigured)
    }

    pub fn apply(&mut self, event: &ClockEvent) {
        match event {
            ClockEvent::Configured {
                structure,
                settings,
            } => {
                self.structure = Some(structure.clone());
                self.settings = *settings;
                self.period = 0;
                self.remaining = structure.periods.first().map_or(0, Period::millis);
            }
            ClockEvent::Started { at } => {
                self.status = Status::Running { since: *at };
                self.day = 1;
                self.last = *at;
            }
            ClockEvent::PeriodStarted {
                at,
                period,
                remaining,
            } => {
                self.period = *period;
                self.remaining = *remaining;
                if let Status::Running { since } = &mut self.status {
                    *since = *at;
                }
                // In hand-for-hand a break is taken on the wall clock; the
                // level after it waits for hands again.
                if let Status::HandForHand { .. } = self.status {
                    self.hand_for_hand_break = self.on_break().then_some(*at);
                }
                self.last = *at;
            }
            ClockEvent::Paused {
                at,
                reason,
                remaining,
            } => {
                self.status = Status::Paused {
                    reason: reason.clone(),
                };
                self.remaining = *remaining;
                self.last = *at;
            }
            ClockEvent::Resumed { at, .. } => {
                self.status = Status::Running { since: *at };
                self.last = *at;
            }
            ClockEvent::HandForHandStopped { at } => {
                // (A break being taken has run since it began.)
                self.remaining = self.remaining_at(*at);
                self.hand_for_hand_break = None;
                self.status = Status::Running { since: *at };
                self.last = *at;
            }
            ClockEvent::RemainingSet { at, remaining } => {
                self.remaining = *remaining;
                if let Status::Running { since } = &mut self.status {
                    *since = *at;
                }
                if self.hand_for_hand_break.is_some() {
                    self.hand_for_hand_break = Some(*at);
                }
                self.last = *at;
            }
            ClockEvent::JumpedToLevel { at, period } => {
                self.period = *period;
                self.remaining = self
                    .structure
                    .as_ref()
                    .and_then(|s| s.periods.get(*period))
                    .map_or(0, Period::millis);
                if let Status::Running { since } = &mut self.status {
                    *since = *at;
                }
                if let Status::HandForHand { .. } = self.status {
                    self.hand_for_hand_break = self.on_break().then_some(*at);
                }
                self.last = *at;
            }
            ClockEvent::HandForHandStarted {
                at,
                tables,
                remaining,
            } => {
                let tables: BTreeSet<u32> = tables.iter().copied().collect();
                self.hand_for_hand_periods += 1;
                self.status = Status::HandForHand {
                    round: 1,
                    waiting: tables.clone(),
                    tables,
                };
                self.remaining = *remaining;
                // Started during a break: the break runs on.
                self.hand_for_hand_break = self.on_break().then_some(*at);
                self.last = *at;
            }
            ClockEvent::TableFinishedHand { at, table } => {
                if let Status::HandForHand { waiting, .. } = &mut self.status {
                    waiting.remove(table);
                }
                self.last = *at;
            }
            ClockEvent::TableRemoved { at, table } => {
                if let Status::HandForHand {
                    waiting, tables, ..
                } = &mut self.status
                {
                    waiting.remove(table);
                    tables.remove(table);
                }
                self.last = *at;
            }
            ClockEvent::HandForHandRoundEnded {
                at,
                round,
                deducted,
            } => {
                self.remaining -= deducted;
                if let Status::HandForHand {
                    round: r,
                    tables,
                    waiting,
                } = &mut self.status
                {
                    *r = round + 1;
                    *waiting = tables.clone();
                }
                self.last = *at;
            }
            ClockEvent::EndOfDayDrawn {
                at,
                hands,
                remaining,
            } => {
                self.status = Status::EndOfDay { hands: *hands };
                self.remaining = *remaining;
                self.last = *at;
            }
            ClockEvent::DayEnded { at, .. } => {
                self.status = Status::DayOver;
                self.last = *at;
            }
            ClockEvent::DayStarted { at, day } => {
                self.status = Status::Running { since: *at };
                self.day = *day;
                self.last = *at;
            }
            ClockEvent::TimeBankUsed { at, player, cards } => {
                *self.time_banks_used.entry(*player).or_default() += u32::from(*cards);
                self.last = *at;
            }
        }
    }
}

/// The period boundaries a running clock passed by `now`, each at its time.
fn catch_up(state: &ClockState, now: Millis) -> Vec<ClockEvent> {
    let mut events = Vec::new();
    let (Some(structure), Some(mut since)) = (state.structure.as_ref(), state.counting_since())
    else {
        return events;
    };
    // In hand-for-hand only a break runs on the wall clock: the level
    // after it waits for hands.
    let stops_at_a_level = matches!(state.status, Status::HandForHand { .. });
    let mut period = state.period;
    let mut remaining = state.remaining;
    while period + 1 < structure.periods.len() && since + remaining <= now {
        let at = since + remaining;
        period += 1;
        remaining = structure.periods[period].millis();
        since = at;
        events.push(ClockEvent::PeriodStarted {
            at,
            period,
            remaining,
        });
        if stops_at_a_level && matches!(structure.periods[period], Period::Level(_)) {
            break;
        }
    }
    events
}

/// Takes `deduct` off the clock: the periods it runs through start (at
/// `at`), and the last one keeps what is left. Returns the events and the
/// time left after.
fn deduct(
    state: &ClockState,
    structure: &Structure,
    at: Millis,
    round: u64,
    deduct: Millis,
) -> Vec<ClockEvent> {
    let mut events = Vec::new();
    let mut period = state.period;
    let mut remaining = state.remaining;
    let mut left = deduct;
    // A break is taken on the wall clock, not by hands: a deduction that
    // reaches one ends there.
    if matches!(structure.periods.get(period), Some(Period::Break(_))) {
        left = 0;
    }
    while left >= remaining && period + 1 < structure.periods.len() {
        left -= remaining;
        period += 1;
        remaining = structure.periods[period].millis();
        events.push(ClockEvent::PeriodStarted {
            at,
            period,
            remaining,
        });
        if matches!(structure.periods[period], Period::Break(_)) {
            left = 0;
        }
    }
    let deducted = left.min(remaining);
    events.push(ClockEvent::HandForHandRoundEnded {
        at,
        round,
        deducted,
    });
    events
}

/// What a command means, or why it is refused (nothing changes then).
pub fn decide(state: &ClockState, command: &ClockCommand) -> Result<Vec<ClockEvent>, ClockError> {
    if let ClockCommand::Configure {
        structure,
        settings,
    } = command
    {
        if state.structure.is_some() {
            return Err(ClockError::AlreadyConfigured);
        }
        structure.validate()?;
        settings.action.validate()?;
        if settings.hand_for_hand_millis <= 0 {
            return Err(ClockError::InvalidSetting {
                reason: "the hand-for-hand deduction must be positive".into(),
            });
        }
        return Ok(vec![ClockEvent::Configured {
            structure: structure.clone(),
            settings: *settings,
        }]);
    }
    let structure = state.structure()?;
    let at = command.at().unwrap_or(state.last);
    if at < state.last {
        return Err(ClockError::TimeWentBack {
            at,
            last: state.last,
        });
    }
    // First the boundaries passed by now, each at its own time.
    let mut events = catch_up(state, at);
    let mut s = state.clone();
    for e in &events {
        s.apply(e);
    }
    let remaining = s.remaining_at(at);
    let status_name = status_name(&s.status);
    let wrong = |command: &str| ClockError::WrongState {
        command: command.into(),
        status: status_name.into(),
    };
    match command {
        ClockCommand::Configure { .. } => unreachable!("handled above"),
        ClockCommand::Start { at } => {
            if s.status != Status::NotStarted {
                return Err(wrong("start"));
            }
            events.push(ClockEvent::Started { at: *at });
        }
        ClockCommand::Pause { at, reason } => {
            if s.running_since().is_none() {
                return Err(wrong("pause"));
            }
            events.push(ClockEvent::Paused {
                at: *at,
                reason: reason.clone(),
                remaining,
            });
        }
        ClockCommand::Resume { at, reason } => {
            if !matches!(s.status, Status::Paused { .. }) {
                return Err(wrong("resume"));
            }
            events.push(ClockEvent::Resumed {
                at: *at,
                reason: reason.clone(),
            });
        }
        ClockCommand::Tick { .. } => {}
        ClockCommand::SetRemaining { at, remaining } => {
            if *remaining < 0 || *remaining > structure.periods[s.period].millis() {
                return Err(ClockError::InvalidRemaining {
                    remaining: *remaining,
                    period: structure.periods[s.period].millis(),
                });
            }
            if matches!(s.status, Status::NotStarted | Status::DayOver) {
                return Err(wrong("set the time"));
            }
            events.push(ClockEvent::RemainingSet {
                at: *at,
                remaining: *remaining,
            });
        }
        ClockCommand::AddTime { at, millis } => {
            if matches!(s.status, Status::NotStarted | Status::DayOver) {
                return Err(wrong("add time"));
            }
            let new = remaining + millis;
            if new < 0 {
                return Err(ClockError::InvalidRemaining {
                    remaining: new,
                    period: structure.periods[s.period].millis(),
                });
            }
            events.push(ClockEvent::RemainingSet {
                at: *at,
                remaining: new,
            });
        }
        ClockCommand::JumpToLevel { at, level } => {
            let period = structure
                .period_of_level(*level)
                .ok_or(ClockError::NoSuchLevel {
                    level: *level,
                    levels: structure.levels(),
                })?;
            if matches!(s.status, Status::NotStarted | Status::DayOver) {
                return Err(wrong("jump to a level"));
            }
            events.push(ClockEvent::JumpedToLevel { at: *at, period });
        }
        ClockCommand::StartHandForHand { at, tables } => {
            if s.running_since().is_none() && !matches!(s.status, Status::Paused { .. }) {
                return Err(wrong("start hand-for-hand"));
            }
            if tables.is_empty() {
                return Err(ClockError::NoTables);
            }
            events.push(ClockEvent::HandForHandStarted {
                at: *at,
                tables: tables.clone(),
                remaining,
            });
        }
        ClockCommand::TableFinishedHand { at, table } | ClockCommand::RemoveTable { at, table } => {
            let Status::HandForHand {
                round,
                tables,
                waiting,
            } = &s.status
            else {
                return Err(wrong("finish a hand-for-hand hand"));
            };
            if !tables.contains(table) {
                return Err(ClockError::NotInHandForHand { table: *table });
            }
            let finished = matches!(command, ClockCommand::TableFinishedHand { .. });
            if finished && !waiting.contains(table) {
                return Err(ClockError::TableAlreadyFinished {
                    table: *table,
                    round: *round,
                });
            }
            events.push(if finished {
                ClockEvent::TableFinishedHand {
                    at: *at,
                    table: *table,
                }
            } else {
                ClockEvent::TableRemoved {
                    at: *at,
                    table: *table,
                }
            });
            let mut left = waiting.clone();
            let was_waiting = left.remove(table);
            if was_waiting && left.is_empty() && (finished || tables.len() > 1) {
                events.extend(deduct(
                    &s,
                    structure,
                    *at,
                    *round,
                    s.settings.hand_for_hand_millis,
                ));
            }
        }
        ClockCommand::StopHandForHand { at } => {
            let Status::HandForHand {
                round,
                waiting,
                tables,
            } = &s.status
            else {
                return Err(wrong("stop hand-for-hand"));
            };
            if waiting.len() != tables.len() {
                return Err(ClockError::HandForHandRoundOpen {
                    round: *round,
                    waiting: waiting.len(),
                });
            }
            events.push(ClockEvent::HandForHandStopped { at: *at });
        }
        ClockCommand::EndDayAfter { at, hands } => {
            if !(2..=5).contains(hands) {
                return Err(ClockError::InvalidDraw { hands: *hands });
            }
            if s.running_since().is_none() && !matches!(s.status, Status::Paused { .. }) {
                return Err(wrong("end the day"));
            }
            events.push(ClockEvent::EndOfDayDrawn {
                at: *at,
                hands: *hands,
                remaining,
            });
        }
        ClockCommand::EndDay { at } => {
            if !matches!(s.status, Status::EndOfDay { .. }) {
                return Err(wrong("end the day"));
            }
            events.push(ClockEvent::DayEnded {
                at: *at,
                day: s.day,
            });
        }
        ClockCommand::StartDay { at } => {
            if s.status != Status::DayOver {
                return Err(wrong("start the next day"));
            }
            events.push(ClockEvent::DayStarted {
                at: *at,
                day: s.day + 1,
            });
        }
        ClockCommand::UseTimeBank { at, player, cards } => {
            let have = s
                .settings
                .action
                .cards_available(s.day, s.time_banks_used.get(player).copied().unwrap_or(0));
            if *cards == 0 || u32::from(*cards) > have {
                return Err(ClockError::NoTimeBank {
                    player: *player,
                    cards: *cards,
                    have,
                });
            }
            events.push(ClockEvent::TimeBankUsed {
                at: *at,
                player: *player,
                cards: *cards,
            });
        }
    }
    Ok(events)
}

fn status_name(status: &Status) -> &'static str {
    match status {
        Status::NotStarted => "not started",
        Status::Running { .. } => "running",
        Status::Paused { .. } => "paused",
        Status::HandForHand { .. } => "hand-for-hand",
        Status::EndOfDay { .. } => "playing the day's last hands",
        Status::DayOver => "between days",
    }
}
