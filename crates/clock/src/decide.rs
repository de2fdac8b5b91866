//! The clock's decider: what each command means at its time, one function
//! per command, or why it is refused (nothing changes then). Every timed
//! command first records the period boundaries the clock passed by then.

use crate::ClockError;
use crate::clock::{
    ClockCommand, ClockEvent, ClockSettings, ClockState, DayEndRule, Millis, Status, card_from,
    rule_77_stop,
};
use crate::structure::{Period, Structure};
use felt_vocabulary::{EntryId, TableNo};

/// What a command means, or why it is refused (nothing changes then).
/// `seed` is the randomness a command that draws is handed (only
/// `DrawEndOfDay` draws; others are handed zeros).
pub fn decide(
    state: &ClockState,
    command: &ClockCommand,
    seed: &[u8; 32],
) -> Result<Vec<ClockEvent>, ClockError> {
    use ClockCommand::*;
    let Some(at) = command.at() else {
        // Only `Configure` has no time.
        return match command {
            Configure {
                structure,
                settings,
            } => configure(state, structure, settings),
            _ => Err(ClockError::NotConfigured),
        };
    };
    if state.status == Status::Finished {
        // Over: a tick or the end again changes nothing, a time-bank card
        // an action took before the end is still recorded, and nothing
        // else is taken.
        return match command {
            Tick { .. } | Finish { .. } => Ok(Vec::new()),
            UseTimeBank { at, player, cards } => {
                Now::at(state, *at)?.use_time_bank(*at, *player, *cards)
            }
            _ => Err(ClockError::Finished),
        };
    }
    let now = Now::at(state, at)?;
    let decided = match command {
        Configure { .. } => Err(ClockError::AlreadyConfigured),
        Start { at } => now.start(*at),
        Pause { at, reason } => now.pause(*at, reason),
        Resume { at, reason } => now.resume(*at, reason),
        Tick { .. } => Ok(Vec::new()),
        SetRemaining { at, remaining } => now.set_remaining(*at, *remaining),
        AddTime { at, millis } => now.add_time(*at, *millis),
        JumpToLevel { at, level } => now.jump_to_level(*at, *level),
        StartHandForHand { at, tables } => now.start_hand_for_hand(*at, tables),
        TableFinishedHand { at, table } => now.table_done(*at, *table, true),
        RemoveTable { at, table } => now.table_done(*at, *table, false),
        StopHandForHand { at } => now.stop_hand_for_hand(*at),
        EndDayAfter { at, hands } => now.end_day_after(*at, *hands, None),
        DrawEndOfDay { at } => now.end_day_after(*at, card_from(seed), Some(*seed)),
        EndDay { at } => now.end_day(*at),
        StartDay { at } => now.start_day(*at),
        StartFrom {
            at,
            day,
            level,
            remaining,
        } => now.start_from(*at, *day, *level, *remaining),
        UseTimeBank { at, player, cards } => now.use_time_bank(*at, *player, *cards),
        ColourUp {
            at,
            leaving,
            smallest,
            reason,
        } => now.colour_up(*at, *leaving, *smallest, reason),
        Finish { at } => now.finish(*at),
    }?;
    let mut events = now.passed;
    events.extend(decided);
    Ok(events)
}

/// `Configure`: once, with a valid structure and settings.
fn configure(
    state: &ClockState,
    structure: &Structure,
    settings: &ClockSettings,
) -> Result<Vec<ClockEvent>, ClockError> {
    if state.structure.is_some() {
        return Err(ClockError::AlreadyConfigured);
    }
    structure.validate()?;
    settings.action.validate()?;
    let levels = structure.levels();
    let mut last = 0;
    for &level in &settings.day_end.last_levels {
        if level <= last || level > levels {
            return Err(ClockError::InvalidSetting {
                reason: format!(
                    "each day's last level must come after the day before's and be one of the structure's {levels}, not {level}"
                ),
            });
        }
        last = level;
    }
    if settings.hand_for_hand_millis <= 0 {
        return Err(ClockError::InvalidSetting {
            reason: "the hand-for-hand deduction must be positive".into(),
        });
    }
    Ok(vec![ClockEvent::Configured {
        structure: structure.clone(),
        settings: settings.clone(),
    }])
}

/// The clock at a command's time: the boundaries it passed by then
/// recorded (`passed`), and the state after them.
struct Now<'a> {
    structure: &'a Structure,
    passed: Vec<ClockEvent>,
    s: ClockState,
    /// Time left in the current period at the command's time.
    remaining: Millis,
}

impl<'a> Now<'a> {
    fn at(state: &'a ClockState, at: Millis) -> Result<Self, ClockError> {
        let structure = state.structure()?;
        if at < state.last {
            return Err(ClockError::TimeWentBack {
                at,
                last: state.last,
            });
        }
        let passed = catch_up(state, at);
        let mut s = state.clone();
        for e in &passed {
            s.apply(e);
        }
        let remaining = s.remaining_at(at);
        Ok(Now {
            structure,
            passed,
            s,
            remaining,
        })
    }

    fn wrong(&self, command: &str) -> ClockError {
        ClockError::WrongState {
            command: command.into(),
            status: status_name(&self.s.status).into(),
        }
    }

    /// Neither before the start nor between days.
    fn in_play(&self, command: &str) -> Result<(), ClockError> {
        if matches!(self.s.status, Status::NotStarted | Status::DayOver) {
            return Err(self.wrong(command));
        }
        Ok(())
    }

    fn period_millis(&self) -> Millis {
        self.structure.periods[self.s.period].millis()
    }

    /// Play is over: the clock stops for good where it is (after the
    /// periods it passed by then).
    fn finish(&self, at: Millis) -> Result<Vec<ClockEvent>, ClockError> {
        if self.s.status == Status::NotStarted {
            return Err(ClockError::NotStarted);
        }
        Ok(vec![ClockEvent::Finished {
            at,
            remaining: self.remaining,
        }])
    }

    fn start(&self, at: Millis) -> Result<Vec<ClockEvent>, ClockError> {
        if self.s.status != Status::NotStarted {
            return Err(self.wrong("start"));
        }
        Ok(vec![ClockEvent::Started { at }])
    }

    fn pause(&self, at: Millis, reason: &str) -> Result<Vec<ClockEvent>, ClockError> {
        if self.s.running_since().is_none() {
            return Err(self.wrong("pause"));
        }
        Ok(vec![ClockEvent::Paused {
            at,
            reason: reason.into(),
            remaining: self.remaining,
        }])
    }

    fn resume(&self, at: Millis, reason: &str) -> Result<Vec<ClockEvent>, ClockError> {
        if !matches!(self.s.status, Status::Paused { .. }) {
            return Err(self.wrong("resume"));
        }
        Ok(vec![ClockEvent::Resumed {
            at,
            reason: reason.into(),
        }])
    }

    fn set_remaining(&self, at: Millis, remaining: Millis) -> Result<Vec<ClockEvent>, ClockError> {
        if remaining < 0 || remaining > self.period_millis() {
            return Err(ClockError::InvalidRemaining {
                remaining,
                period: self.period_millis(),
            });
        }
        self.in_play("set the time")?;
        Ok(vec![ClockEvent::RemainingSet { at, remaining }])
    }

    fn add_time(&self, at: Millis, millis: Millis) -> Result<Vec<ClockEvent>, ClockError> {
        self.in_play("add time")?;
        let remaining = self.remaining + millis;
        if remaining < 0 {
            return Err(ClockError::InvalidRemaining {
                remaining,
                period: self.period_millis(),
            });
        }
        Ok(vec![ClockEvent::RemainingSet { at, remaining }])
    }

    fn jump_to_level(&self, at: Millis, level: u32) -> Result<Vec<ClockEvent>, ClockError> {
        let period = self
            .structure
            .period_of_level(level)
            .ok_or(ClockError::NoSuchLevel {
                level,
                levels: self.structure.levels(),
            })?;
        self.in_play("jump to a level")?;
        Ok(vec![ClockEvent::JumpedToLevel { at, period }])
    }

    /// RP8: the clock stops and each hand-for-hand hand takes a fixed time.
    fn start_hand_for_hand(
        &self,
        at: Millis,
        tables: &[u32],
    ) -> Result<Vec<ClockEvent>, ClockError> {
        if self.s.running_since().is_none() && !matches!(self.s.status, Status::Paused { .. }) {
            return Err(self.wrong("start hand-for-hand"));
        }
        if tables.is_empty() {
            return Err(ClockError::NoTables);
        }
        Ok(vec![ClockEvent::HandForHandStarted {
            at,
            tables: tables.to_vec(),
            remaining: self.remaining,
        }])
    }

    /// A table finished its hand-for-hand hand (`finished`), or broke and is
    /// no longer waited for. When no table is waited for any more, the
    /// round's time is taken off the clock.
    fn table_done(
        &self,
        at: Millis,
        table: TableNo,
        finished: bool,
    ) -> Result<Vec<ClockEvent>, ClockError> {
        let Status::HandForHand {
            round,
            tables,
            waiting,
        } = &self.s.status
        else {
            return Err(self.wrong("finish a hand-for-hand hand"));
        };
        if !tables.contains(&table) {
            return Err(ClockError::NotInHandForHand { table });
        }
        if finished && !waiting.contains(&table) {
            return Err(ClockError::TableAlreadyFinished {
                table,
                round: *round,
            });
        }
        let mut events = vec![if finished {
            ClockEvent::TableFinishedHand { at, table }
        } else {
            ClockEvent::TableRemoved { at, table }
        }];
        let mut left = waiting.clone();
        let was_waiting = left.remove(&table);
        if was_waiting && left.is_empty() && (finished || tables.len() > 1) {
            events.extend(deduct(
                &self.s,
                self.structure,
                at,
                *round,
                self.s.settings.hand_for_hand_millis,
            ));
        }
        Ok(events)
    }

    /// Between rounds only: a round being played is finished first.
    fn stop_hand_for_hand(&self, at: Millis) -> Result<Vec<ClockEvent>, ClockError> {
        let Status::HandForHand {
            round,
            waiting,
            tables,
        } = &self.s.status
        else {
            return Err(self.wrong("stop hand-for-hand"));
        };
        if waiting.len() != tables.len() {
            return Err(ClockError::HandForHandRoundOpen {
                round: *round,
                waiting: waiting.len(),
            });
        }
        Ok(vec![ClockEvent::HandForHandStopped { at }])
    }

    /// Seed 002, 77: the clock stops (or stopped itself) and every table
    /// plays a card's number (2 to 5) of hands more: the director's card,
    /// or the one the service drew from `draw`.
    fn end_day_after(
        &self,
        at: Millis,
        hands: u8,
        draw: Option<[u8; 32]>,
    ) -> Result<Vec<ClockEvent>, ClockError> {
        if !(2..=5).contains(&hands) {
            return Err(ClockError::InvalidDraw { hands });
        }
        if self.s.running_since().is_none()
            && !matches!(self.s.status, Status::Paused { .. } | Status::EndOfDayDue)
        {
            return Err(self.wrong("end the day"));
        }
        Ok(vec![ClockEvent::EndOfDayDrawn {
            at,
            hands,
            remaining: self.remaining,
            draw,
        }])
    }

    /// The day's play is over: after its last hands, or while the clock
    /// runs (a day seating ended at its count of players).
    fn end_day(&self, at: Millis) -> Result<Vec<ClockEvent>, ClockError> {
        if !matches!(
            self.s.status,
            Status::EndOfDay { .. } | Status::Running { .. } | Status::Paused { .. }
        ) {
            return Err(self.wrong("end the day"));
        }
        Ok(vec![ClockEvent::DayEnded {
            at,
            day: self.s.day,
        }])
    }

    fn start_day(&self, at: Millis) -> Result<Vec<ClockEvent>, ClockError> {
        if self.s.status != Status::DayOver {
            return Err(self.wrong("start the next day"));
        }
        Ok(vec![ClockEvent::DayStarted {
            at,
            day: self.s.day + 1,
        }])
    }

    /// Issue 28: an event fed by flights starts its day where they ended:
    /// started, on that day, at that level with that time left.
    fn start_from(
        &self,
        at: Millis,
        day: u32,
        level: u32,
        remaining: Millis,
    ) -> Result<Vec<ClockEvent>, ClockError> {
        let mut events = self.start(at)?;
        let structure = self.structure;
        let period = structure
            .period_of_level(level)
            .ok_or(ClockError::NoSuchLevel {
                level,
                levels: structure.levels(),
            })?;
        let millis = structure.periods[period].millis();
        if remaining <= 0 || remaining > millis {
            return Err(ClockError::InvalidRemaining {
                remaining,
                period: millis,
            });
        }
        if day == 0 {
            return Err(ClockError::InvalidDay { day });
        }
        if day > 1 {
            events.push(ClockEvent::DayStarted { at, day });
        }
        if period != 0 {
            events.push(ClockEvent::JumpedToLevel { at, period });
        }
        if remaining != millis {
            events.push(ClockEvent::RemainingSet { at, remaining });
        }
        Ok(events)
    }

    fn use_time_bank(
        &self,
        at: Millis,
        player: EntryId,
        cards: u8,
    ) -> Result<Vec<ClockEvent>, ClockError> {
        let used = self.s.time_banks_used.get(&player).copied().unwrap_or(0);
        let have = self.s.settings.action.cards_available(self.s.day, used);
        if cards == 0 || u32::from(cards) > have {
            return Err(ClockError::NoTimeBank {
                player,
                cards,
                have,
            });
        }
        Ok(vec![ClockEvent::TimeBankUsed { at, player, cards }])
    }

    /// TDA 25: the director removes the smallest chip in play at any time,
    /// announced (`reason`): the new smallest chip must be larger and pay
    /// every blind and ante from the level in force (or coming, on a
    /// break) on that plays with a smaller chip.
    fn colour_up(
        &self,
        at: Millis,
        leaving: felt_vocabulary::Chips,
        smallest: felt_vocabulary::Chips,
        reason: &str,
    ) -> Result<Vec<ClockEvent>, ClockError> {
        self.in_play("colour up")?;
        if reason.trim().is_empty() {
            return Err(ClockError::InvalidSetting {
                reason: "an unscheduled colour-up is announced with its reason (TDA 25)".into(),
            });
        }
        let view = self.s.view(at);
        let in_play = view.blinds.map_or(0, |l| l.smallest_chip);
        if leaving != in_play {
            return Err(ClockError::NotTheSmallestChip { leaving, in_play });
        }
        if smallest <= leaving {
            return Err(ClockError::ColourUpChip {
                smallest,
                reason: format!("it must be larger than the {leaving} chip leaving"),
            });
        }
        let from = view.period;
        for (period, p) in self.structure.periods.iter().enumerate().skip(from) {
            if let Period::Level(l) = p
                && l.smallest_chip < smallest
                && ![l.small_blind, l.big_blind, l.ante]
                    .iter()
                    .all(|c| c.is_multiple_of(smallest))
            {
                return Err(ClockError::ColourUpChip {
                    smallest,
                    reason: format!(
                        "level {}'s blinds and ante ({} / {}, ante {}) are not multiples of it",
                        self.structure.level_number(period).unwrap_or(0),
                        l.small_blind,
                        l.big_blind,
                        l.ante
                    ),
                });
            }
        }
        Ok(vec![ClockEvent::ColouredUp {
            at,
            leaving,
            smallest,
            reason: reason.to_string(),
        }])
    }
}

/// The period boundaries a running clock passed by `now`, each at its time.
pub(crate) fn catch_up(state: &ClockState, now: Millis) -> Vec<ClockEvent> {
    let mut events = Vec::new();
    let (Some(structure), Some(mut since)) = (state.structure.as_ref(), state.counting_since())
    else {
        return events;
    };
    // In hand-for-hand only a break runs on the wall clock: the level
    // after it waits for hands.
    let stops_at_a_level = matches!(state.status, Status::HandForHand { .. });
    // The day's end at its last level, while the clock runs.
    let day_end = state
        .running_since()
        .and_then(|_| {
            let day = usize::try_from(state.day.checked_sub(1)?).ok()?;
            let level = *state.settings.day_end.last_levels.get(day)?;
            let period = structure.period_of_level(level)?;
            Some((level, period))
        })
        .map(|(level, period)| {
            let stop = match state.settings.day_end.rule {
                DayEndRule::Rule77 => rule_77_stop(structure.periods[period].millis()),
                DayEndRule::LevelEnd => 0,
            };
            (level, period, stop)
        });
    let mut period = state.period;
    let mut remaining = state.remaining;
    loop {
        if let Some((level, last, stop)) = day_end
            && period == last
        {
            let at = (since + (remaining - stop).max(0)).max(state.last);
            if at <= now {
                events.push(match state.settings.day_end.rule {
                    DayEndRule::Rule77 => ClockEvent::EndOfDayDue {
                        at,
                        remaining: remaining.min(stop),
                    },
                    DayEndRule::LevelEnd => ClockEvent::LastLevelEnded { at, level },
                });
                break;
            }
        }
        if !(period + 1 < structure.periods.len() && since + remaining <= now) {
            break;
        }
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

fn status_name(status: &Status) -> &'static str {
    match status {
        Status::NotStarted => "not started",
        Status::Running { .. } => "running",
        Status::Paused { .. } => "paused",
        Status::HandForHand { .. } => "hand-for-hand",
        Status::EndOfDayDue => "stopped for the day's card (rule 77)",
        Status::EndOfDay { .. } => "playing the day's last hands",
        Status::DayOver => "between days",
        Status::Finished => "finished",
    }
}
