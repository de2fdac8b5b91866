//! The clock's commands, events and state; its decider is in `decide`.
//! Time is an input: every command carries the time it happens
//! (milliseconds since the Unix epoch), and before deciding it, the clock
//! records every period boundary passed since its last event, each at its
//! exact time, so no level is ever skipped and a replay lands on the same
//! second.

use std::collections::BTreeSet;

use felt_vocabulary::{Chips, EntryId, Level, TableNo};
use serde::{Deserialize, Serialize};

use crate::decide::catch_up;
use crate::structure::{Period, Structure};
use crate::{ActionClock, ClockError};

pub use felt_vocabulary::Millis;

/// The clock's settings besides the structure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockSettings {
    /// Taken off the clock for each hand-for-hand hand (TDA: 2 minutes;
    /// seed 002: 3).
    pub hand_for_hand_millis: i64,
    pub action: ActionClock,
    /// How each day ends at its last level (none named: the director ends
    /// every day with `EndDayAfter`).
    #[serde(default)]
    pub day_end: DayEnd,
}

impl Default for ClockSettings {
    fn default() -> Self {
        ClockSettings {
            hand_for_hand_millis: 120_000,
            action: ActionClock::default(),
            day_end: DayEnd::default(),
        }
    }
}

/// How a day of a multi-day tournament ends at its last level.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DayEnd {
    pub rule: DayEndRule,
    /// Who gives rule 77's card.
    pub card: DayEndCard,
    /// Each day's last level, day 1 first; a day past the list ends when
    /// the director says.
    pub last_levels: Vec<u32>,
}

/// How a day ends at its last level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum DayEndRule {
    /// Seed 002, 77: with 10 minutes left of the last level (15 for levels
    /// of 40 minutes or more) the clock stops itself, a card from two to
    /// five is drawn, and every table plays that many more hands.
    #[default]
    Rule77,
    /// At the last level's end: the hands being played then are the day's
    /// last.
    LevelEnd,
}

/// Who gives rule 77's card.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum DayEndCard {
    /// The service draws it the moment the clock stops, and records the
    /// draw's seed beside the card.
    #[default]
    Drawn,
    /// The director draws a real card and enters it (`EndDayAfter`).
    Entered,
}

/// Rule 77's card from a draw's seed: two to five, each as likely (the
/// seed's first eight bytes, little-endian, modulo four, plus two).
pub fn card_from(seed: &[u8; 32]) -> u8 {
    let mut first = [0u8; 8];
    first.copy_from_slice(&seed[..8]);
    // The remainder is below 4.
    2 + (u64::from_le_bytes(first) % 4) as u8
}

/// Time left of a last level when rule 77 stops the clock: 10 minutes, 15
/// for levels of 40 minutes or more (never more than the level).
pub fn rule_77_stop(level_millis: Millis) -> Millis {
    let minutes = if level_millis >= 40 * 60_000 { 15 } else { 10 };
    (minutes * 60_000).min(level_millis)
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
        tables: Vec<TableNo>,
    },
    /// A table finished its hand-for-hand hand. When every table has, the
    /// round's time is deducted and the next hand may start everywhere.
    TableFinishedHand {
        at: Millis,
        table: TableNo,
    },
    /// A table broke during hand-for-hand: it is no longer waited for.
    RemoveTable {
        at: Millis,
        table: TableNo,
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
    /// Seed 002, 77, the card drawn by the service from the seed the
    /// decision is handed (at the stop, or when the director asks).
    DrawEndOfDay {
        at: Millis,
    },
    /// The day's play is over (after the drawn hands).
    EndDay {
        at: Millis,
    },
    /// The next day starts where the last one stopped.
    StartDay {
        at: Millis,
    },
    /// An event's first day played after its Day 1 flights (issue 28)
    /// starts at the day, the level and the time left in it that the
    /// flights' day ended with (the structure resumed where they stopped).
    StartFrom {
        at: Millis,
        day: u32,
        level: u32,
        remaining: Millis,
    },
    /// Time-bank cards a player used on the action clock.
    UseTimeBank {
        at: Millis,
        player: EntryId,
        cards: u8,
    },
    /// The director's unscheduled colour-up (TDA 25), announced: the
    /// smallest chip in play (`leaving`) leaves now, `smallest` is the
    /// smallest from now on, and every table races it off before its next
    /// hand, as at a scheduled break.
    ColourUp {
        at: Millis,
        leaving: Chips,
        smallest: Chips,
        reason: String,
    },
    /// Play is over (the winner placed, or a satellite's seats won): the
    /// clock stops for good where it is.
    Finish {
        at: Millis,
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
            | DrawEndOfDay { at }
            | EndDay { at }
            | StartDay { at }
            | StartFrom { at, .. }
            | UseTimeBank { at, .. }
            | ColourUp { at, .. }
            | Finish { at } => *at = time,
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
            | DrawEndOfDay { at }
            | EndDay { at }
            | StartDay { at }
            | StartFrom { at, .. }
            | UseTimeBank { at, .. }
            | ColourUp { at, .. }
            | Finish { at } => Some(*at),
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
        tables: Vec<TableNo>,
        remaining: Millis,
    },
    TableFinishedHand {
        at: Millis,
        table: TableNo,
    },
    TableRemoved {
        at: Millis,
        table: TableNo,
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
    /// Seed 002, 77: the clock stopped itself at the set time before
    /// the end of the day's last level; the card is to be drawn.
    EndOfDayDue {
        at: Millis,
        remaining: Millis,
    },
    /// Every table plays `hands` more (rule 77's card); `draw` is the seed
    /// the service drew it from ([`card_from`]), none when the director
    /// entered a real card.
    EndOfDayDrawn {
        at: Millis,
        hands: u8,
        remaining: Millis,
        #[serde(default)]
        draw: Option<[u8; 32]>,
    },
    /// The day's last level ended: the hands being played are its last.
    LastLevelEnded {
        at: Millis,
        level: u32,
    },
    DayEnded {
        at: Millis,
        day: u32,
    },
    /// Play is over: the clock stopped for good with `remaining` left in
    /// its period.
    Finished {
        at: Millis,
        remaining: Millis,
    },
    DayStarted {
        at: Millis,
        day: u32,
    },
    TimeBankUsed {
        at: Millis,
        player: EntryId,
        cards: u8,
    },
    /// The director coloured up off the structure (TDA 25): `leaving` left
    /// play at `at`, and `smallest` is the smallest chip in play from then
    /// on (every level's, where the structure names a smaller one).
    ColouredUp {
        at: Millis,
        leaving: Chips,
        smallest: Chips,
        reason: String,
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
            ClockEvent::EndOfDayDue { .. } => "EndOfDayDue",
            ClockEvent::EndOfDayDrawn { .. } => "EndOfDayDrawn",
            ClockEvent::LastLevelEnded { .. } => "LastLevelEnded",
            ClockEvent::DayEnded { .. } => "DayEnded",
            ClockEvent::Finished { .. } => "Finished",
            ClockEvent::DayStarted { .. } => "DayStarted",
            ClockEvent::TimeBankUsed { .. } => "TimeBankUsed",
            ClockEvent::ColouredUp { .. } => "ColouredUp",
        }
    }
}

/// Where a day ended, as the next day resumes it: ordered so that a later
/// day, then a later level, then less time left in it, is further on (the
/// furthest of an event's Day 1 flights is where its Day 2 resumes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResumeAt {
    pub day: u32,
    pub level: u32,
    pub remaining: Millis,
}

impl Ord for ResumeAt {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let key = |r: &Self| (r.day, r.level, std::cmp::Reverse(r.remaining));
        key(self).cmp(&key(other))
    }
}

impl PartialOrd for ResumeAt {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
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
    /// Stopped at the day's end (rule 77) until the card is drawn.
    EndOfDayDue,
    /// Stopped for the day's last hands.
    EndOfDay {
        hands: u8,
    },
    /// Between days.
    DayOver,
    /// Play is over: stopped for good.
    Finished,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockState {
    pub(crate) structure: Option<Structure>,
    pub(crate) settings: ClockSettings,
    pub(crate) status: Status,
    /// The current period (index into the structure's periods).
    pub(crate) period: usize,
    /// Time left in the period when the status last changed (running: at `since`).
    pub(crate) remaining: Millis,
    /// The time of the last event.
    pub(crate) last: Millis,
    pub(crate) day: u32,
    /// Time-bank cards used, by player, this day and in all.
    pub(crate) time_banks_used: std::collections::BTreeMap<EntryId, u32>,
    /// Hand-for-hand periods started so far (the current one's number
    /// while in hand-for-hand).
    #[serde(default)]
    pub(crate) hand_for_hand_periods: u64,
    /// In hand-for-hand, when the break being taken began: hands take no
    /// time off a break, it runs on the wall clock.
    #[serde(default)]
    pub(crate) hand_for_hand_break: Option<Millis>,
    /// The smallest chip in play since the director's last unscheduled
    /// colour-up (TDA 25; 0: none): no level plays with a smaller one.
    #[serde(default)]
    pub(crate) smallest_chip: Chips,
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
    /// The structure, once configured.
    pub fn configured(&self) -> Option<&Structure> {
        self.structure.as_ref()
    }

    pub fn settings(&self) -> &ClockSettings {
        &self.settings
    }

    /// The status as of the last event (see [`ClockState::view`] for now).
    pub fn status(&self) -> &Status {
        &self.status
    }

    /// The current period (an index into the structure's periods) as of
    /// the last event.
    pub fn period(&self) -> usize {
        self.period
    }

    /// The day being played (1 from the start).
    pub fn day(&self) -> u32 {
        self.day
    }

    /// Time left in the period when the status last changed (see
    /// [`ClockState::remaining_at`] for now).
    pub fn remaining(&self) -> Millis {
        self.remaining
    }

    /// The time of the last event.
    pub fn last(&self) -> Millis {
        self.last
    }

    /// Time-bank cards `player` has used.
    pub fn time_banks_used(&self, player: EntryId) -> u32 {
        self.time_banks_used.get(&player).copied().unwrap_or(0)
    }

    /// Hand-for-hand periods started so far (the current one's number
    /// while in hand-for-hand).
    pub fn hand_for_hand_periods(&self) -> u64 {
        self.hand_for_hand_periods
    }

    /// Whether the clock has something to record by `now`: a period's
    /// boundary passed, or the day's end reached (rule 77's stop, the last
    /// level's end).
    pub fn due(&self, now: Millis) -> bool {
        !catch_up(self, now).is_empty()
    }

    /// Whether the clock stopped for rule 77's card and the service is to
    /// draw it (the director enters it otherwise).
    pub fn card_to_draw(&self) -> bool {
        self.status == Status::EndOfDayDue && self.settings.day_end.card == DayEndCard::Drawn
    }

    /// The level number at `now`: on a break, the level before it; 0
    /// before the start.
    pub fn level_number_at(&self, now: Millis) -> u32 {
        if self.status == Status::NotStarted {
            return 0;
        }
        self.view(now)
            .level
            .or_else(|| {
                let s = self.structure.as_ref()?;
                (0..self.period).rev().find_map(|p| s.level_number(p))
            })
            .unwrap_or(0)
    }

    /// Where the next day resumes the structure: the level the clock is in
    /// and the time left in it, or, once that level's time has run out or
    /// on a break, the next level with its full time. `None` before the
    /// start or with no level left.
    pub fn resume_point(&self) -> Option<(u32, Millis)> {
        let s = self.structure.as_ref()?;
        if self.status == Status::NotStarted {
            return None;
        }
        if let Some(level) = s.level_number(self.period).filter(|_| self.remaining > 0) {
            return Some((level, self.remaining));
        }
        (self.period + 1..s.periods.len())
            .find_map(|p| Some((s.level_number(p)?, s.periods[p].millis())))
    }

    /// [`ClockState::resume_point`] with the day it ended: where the next
    /// day resumes the structure.
    pub fn resume_at(&self) -> Option<ResumeAt> {
        let (level, remaining) = self.resume_point()?;
        Some(ResumeAt {
            day: self.day,
            level,
            remaining,
        })
    }

    pub(crate) fn structure(&self) -> Result<&Structure, ClockError> {
        self.structure.as_ref().ok_or(ClockError::NotConfigured)
    }

    pub(crate) fn running_since(&self) -> Option<Millis> {
        match self.status {
            Status::Running { since } => Some(since),
            _ => None,
        }
    }

    /// Since when the current period's time runs on the wall clock: while
    /// running, and during a break taken in hand-for-hand.
    pub(crate) fn counting_since(&self) -> Option<Millis> {
        match self.status {
            Status::Running { since } => Some(since),
            Status::HandForHand { .. } => self.hand_for_hand_break,
            _ => None,
        }
    }

    /// Whether the current period is a break.
    pub(crate) fn on_break(&self) -> bool {
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

    /// The time played since the start as of `now`, by the clock (pauses
    /// and time added or taken off count as the clock counted them): every
    /// period before the current one, and what has run of it. 0 before the
    /// start.
    pub fn played(&self, now: Millis) -> Millis {
        if self.status == Status::NotStarted {
            return 0;
        }
        let view = self.view(now);
        let periods = self
            .structure
            .as_ref()
            .map_or(&[][..], |st| &st.periods[..]);
        let before: Millis = periods.iter().take(view.period).map(Period::millis).sum();
        let current = periods.get(view.period).map_or(0, Period::millis);
        before + (current - view.remaining).max(0)
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
                .map(|mut l| {
                    l.smallest_chip = l.smallest_chip.max(s.smallest_chip);
                    l
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
            Status::Finished => return Err(ClockError::Finished),
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
                self.settings = settings.clone();
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
            ClockEvent::EndOfDayDue { at, remaining } => {
                self.status = Status::EndOfDayDue;
                self.remaining = *remaining;
                self.last = *at;
            }
            ClockEvent::EndOfDayDrawn {
                at,
                hands,
                remaining,
                ..
            } => {
                self.status = Status::EndOfDay { hands: *hands };
                self.remaining = *remaining;
                self.last = *at;
            }
            ClockEvent::LastLevelEnded { at, .. } => {
                self.status = Status::EndOfDay { hands: 0 };
                self.remaining = 0;
                self.last = *at;
            }
            ClockEvent::DayEnded { at, .. } => {
                self.remaining = self.remaining_at(*at);
                self.status = Status::DayOver;
                self.last = *at;
            }
            ClockEvent::Finished { at, remaining } => {
                self.remaining = *remaining;
                self.status = Status::Finished;
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
            ClockEvent::ColouredUp { at, smallest, .. } => {
                self.smallest_chip = *smallest;
                self.last = *at;
            }
        }
    }
}
