//! The clock service over gRPC: queries and partner streams of a
//! tournament's clock, the floor's controls, and the ticker that records
//! each level change as the time reaches it.

use felt_clock::{
    ClockCommand, ClockEvent, ClockSettings, ClockState, Period, Status as ClockStatus, Structure,
};
use felt_eventlog::EventLog;
use felt_proto::v1 as pb;
use felt_proto::v1::clock_service_server::ClockService;
use felt_tournament::aggregates::clock_stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};
use tracing::Instrument;

use super::auth::{Role, role};
use super::convert::pb_level;
use super::shared::{Ctx, floor_or_director, follow_stream, handled};
use super::status::{log as log_status, tournament as tournament_status};

pub(crate) struct ClockApi<L: EventLog> {
    ctx: Ctx<L>,
    /// Seating, when this process does not run it (`--seating`).
    seating: Option<super::remote::RemoteSeating>,
}

impl<L: EventLog + 'static> ClockApi<L> {
    pub(crate) fn new(ctx: Ctx<L>, seating: Option<super::remote::RemoteSeating>) -> Self {
        ClockApi { ctx, seating }
    }

    /// The floor's hand-for-hand, which seating decides and gates the
    /// tables by; the clock follows seating's decision, as the reaction
    /// `hand_for_hand::to_clock` (run here before answering). Whether the
    /// command was a repeat.
    async fn floor_hand_for_hand(
        &self,
        t: &str,
        start: bool,
        command_id: &str,
        at: i64,
    ) -> Result<bool, Status> {
        let conductor = &self.ctx.conductor;
        if conductor.hosts().seating {
            return conductor
                .floor_hand_for_hand(t, start, command_id, at)
                .await
                .map_err(tournament_status);
        }
        let seating = self.seating.as_ref().ok_or_else(|| {
            Status::failed_precondition(
                "hand-for-hand is seating's to decide, and this clock service runs apart from seating without knowing where it is (--seating URL)",
            )
        })?;
        let answer = seating.hand_for_hand(t, command_id, start).await?;
        // The clock hears of it before the floor is answered.
        conductor
            .react(t, answer.version)
            .await
            .map_err(tournament_status)?;
        Ok(answer.duplicate)
    }
}

/// What the clock shows at `now`, for the wire.
pub(crate) fn view(tournament: &str, state: &ClockState, version: u64, now: i64) -> pb::ClockView {
    let v = state.view(now);
    let (status, pause_reason, round, waiting, hands) = match &v.status {
        ClockStatus::NotStarted => (pb::ClockStatus::NotStarted, "", 0, vec![], 0),
        ClockStatus::Running { .. } => (pb::ClockStatus::Running, "", 0, vec![], 0),
        ClockStatus::Paused { reason } => (pb::ClockStatus::Paused, reason.as_str(), 0, vec![], 0),
        ClockStatus::HandForHand { round, waiting, .. } => (
            pb::ClockStatus::HandForHand,
            "",
            *round,
            waiting.iter().copied().collect(),
            0,
        ),
        ClockStatus::EndOfDay { hands } => {
            (pb::ClockStatus::EndOfDay, "", 0, vec![], u32::from(*hands))
        }
        ClockStatus::DayOver => (pb::ClockStatus::DayOver, "", 0, vec![], 0),
        ClockStatus::EndOfDayDue => (pb::ClockStatus::EndOfDayDue, "", 0, vec![], 0),
        ClockStatus::Finished => (pb::ClockStatus::Finished, "", 0, vec![], 0),
    };
    pb::ClockView {
        tournament_id: tournament.into(),
        version,
        as_of_ms: now,
        status: status.into(),
        pause_reason: pause_reason.into(),
        level: v.level.unwrap_or(0),
        on_break: v.on_break,
        blinds: v.blinds.as_ref().map(pb_level),
        remaining_ms: v.remaining,
        next_level: v.next_level.as_ref().map(pb_level),
        next_break_in_ms: v.next_break_in,
        day: v.day,
        hand_for_hand_round: round,
        waiting_tables: waiting,
        end_of_day_hands: hands,
        structure_name: state
            .configured()
            .map(|s| s.name.clone())
            .unwrap_or_default(),
    }
}

pub(super) fn wire(envelopes: &[felt_eventlog::Envelope]) -> Result<Vec<pb::ClockEvent>, Status> {
    envelopes
        .iter()
        .map(|env| {
            let event: ClockEvent = env.decode().map_err(log_status)?;
            Ok(pb::ClockEvent {
                sequence: env.sequence,
                r#type: event.name().into(),
                kind: Some(clock_event(&event)),
            })
        })
        .collect()
}

/// A structure for the wire: each period with its level number (0 for a
/// break), its blinds or its colour-up.
pub(crate) fn structure(s: &Structure) -> pb::Structure {
    pb::Structure {
        name: s.name.clone(),
        starting_stack: s.starting_stack,
        periods: s
            .periods
            .iter()
            .enumerate()
            .map(|(i, p)| match p {
                Period::Level(l) => pb::Period {
                    level: s.level_number(i).unwrap_or(0),
                    minutes: l.minutes,
                    blinds: Some(pb_level(&l.level())),
                    color_up: 0,
                },
                Period::Break(b) => pb::Period {
                    level: 0,
                    minutes: b.minutes,
                    blinds: None,
                    color_up: b.color_up.unwrap_or(0),
                },
            })
            .collect(),
    }
}

fn settings(s: &ClockSettings) -> pb::ClockSettings {
    let a = &s.action;
    pb::ClockSettings {
        hand_for_hand_ms: s.hand_for_hand_millis,
        action: Some(pb::ActionClockSettings {
            enabled: a.enabled,
            grace_ms: a.grace_millis,
            decision_ms: a.decision_millis,
            card_ms: a.card_millis,
            cards_per_day: a.cards_per_day,
            called_ms: a.called_millis,
            countdown_ms: a.countdown_millis,
        }),
        day_end: Some(pb::DayEndSettings {
            rule: match s.day_end.rule {
                felt_clock::DayEndRule::Rule77 => pb::DayEndRule::Rule77,
                felt_clock::DayEndRule::LevelEnd => pb::DayEndRule::LevelEnd,
            }
            .into(),
            card: match s.day_end.card {
                felt_clock::DayEndCard::Drawn => pb::DayEndCard::Drawn,
                felt_clock::DayEndCard::Entered => pb::DayEndCard::Entered,
            }
            .into(),
            last_levels: s.day_end.last_levels.clone(),
            // (Seating's: see CreateTournament.)
            players_left: Vec::new(),
        }),
    }
}

/// How each day ends, from the wire (the clock checks the levels against
/// the structure when it is configured).
pub(crate) fn day_end(d: &pb::DayEndSettings) -> Result<felt_clock::DayEnd, Status> {
    let rule = match pb::DayEndRule::try_from(d.rule) {
        Ok(pb::DayEndRule::Unspecified | pb::DayEndRule::Rule77) => felt_clock::DayEndRule::Rule77,
        Ok(pb::DayEndRule::LevelEnd) => felt_clock::DayEndRule::LevelEnd,
        Err(_) => {
            return Err(Status::invalid_argument(
                "day_end.rule: rule 77 or the level's end",
            ));
        }
    };
    let card = match pb::DayEndCard::try_from(d.card) {
        Ok(pb::DayEndCard::Unspecified | pb::DayEndCard::Drawn) => felt_clock::DayEndCard::Drawn,
        Ok(pb::DayEndCard::Entered) => felt_clock::DayEndCard::Entered,
        Err(_) => {
            return Err(Status::invalid_argument(
                "day_end.card: drawn by the service or entered by the director",
            ));
        }
    };
    if d.last_levels.len() > 64 || d.players_left.len() > 64 {
        return Err(Status::invalid_argument(
            "day_end.last_levels, day_end.players_left: at most 64 days",
        ));
    }
    Ok(felt_clock::DayEnd {
        rule,
        card,
        last_levels: d.last_levels.clone(),
    })
}

/// A clock's event for the wire.
fn clock_event(e: &ClockEvent) -> pb::clock_event::Kind {
    use pb::clock_event as ce;
    // (A structure has at most a few hundred periods.)
    let period = |p: usize| u32::try_from(p).unwrap_or(u32::MAX);
    match e {
        ClockEvent::Configured {
            structure: s,
            settings: c,
        } => ce::Kind::Configured(ce::Configured {
            structure: Some(structure(s)),
            settings: Some(settings(c)),
        }),
        ClockEvent::Started { at } => ce::Kind::Started(ce::Started { at_ms: *at }),
        ClockEvent::PeriodStarted {
            at,
            period: p,
            remaining,
        } => ce::Kind::PeriodStarted(ce::PeriodStarted {
            at_ms: *at,
            period: period(*p),
            remaining_ms: *remaining,
        }),
        ClockEvent::Paused {
            at,
            reason,
            remaining,
        } => ce::Kind::Paused(ce::Paused {
            at_ms: *at,
            reason: reason.clone(),
            remaining_ms: *remaining,
        }),
        ClockEvent::Resumed { at, reason } => ce::Kind::Resumed(ce::Resumed {
            at_ms: *at,
            reason: reason.clone(),
        }),
        ClockEvent::RemainingSet { at, remaining } => ce::Kind::RemainingSet(ce::RemainingSet {
            at_ms: *at,
            remaining_ms: *remaining,
        }),
        ClockEvent::JumpedToLevel { at, period: p } => ce::Kind::JumpedToLevel(ce::JumpedToLevel {
            at_ms: *at,
            period: period(*p),
        }),
        ClockEvent::HandForHandStarted {
            at,
            tables,
            remaining,
        } => ce::Kind::HandForHandStarted(ce::HandForHandStarted {
            at_ms: *at,
            tables: tables.clone(),
            remaining_ms: *remaining,
        }),
        ClockEvent::TableFinishedHand { at, table } => {
            ce::Kind::TableFinishedHand(ce::TableFinishedHand {
                at_ms: *at,
                table: *table,
            })
        }
        ClockEvent::TableRemoved { at, table } => ce::Kind::TableRemoved(ce::TableRemoved {
            at_ms: *at,
            table: *table,
        }),
        ClockEvent::HandForHandRoundEnded {
            at,
            round,
            deducted,
        } => ce::Kind::HandForHandRoundEnded(ce::HandForHandRoundEnded {
            at_ms: *at,
            round: *round,
            deducted_ms: *deducted,
        }),
        ClockEvent::HandForHandStopped { at } => {
            ce::Kind::HandForHandStopped(ce::HandForHandStopped { at_ms: *at })
        }
        ClockEvent::EndOfDayDue { at, remaining } => ce::Kind::EndOfDayDue(ce::EndOfDayDue {
            at_ms: *at,
            remaining_ms: *remaining,
        }),
        ClockEvent::EndOfDayDrawn {
            at,
            hands,
            remaining,
            draw,
        } => ce::Kind::EndOfDayDrawn(ce::EndOfDayDrawn {
            at_ms: *at,
            hands: (*hands).into(),
            remaining_ms: *remaining,
            draw_seed: draw.map(|d| d.to_vec()).unwrap_or_default(),
        }),
        ClockEvent::LastLevelEnded { at, level } => ce::Kind::LastLevelEnded(ce::LastLevelEnded {
            at_ms: *at,
            level: *level,
        }),
        ClockEvent::Finished { at, remaining } => ce::Kind::Finished(ce::Finished {
            at_ms: *at,
            remaining_ms: *remaining,
        }),
        ClockEvent::DayEnded { at, day } => ce::Kind::DayEnded(ce::DayEnded {
            at_ms: *at,
            day: *day,
        }),
        ClockEvent::DayStarted { at, day } => ce::Kind::DayStarted(ce::DayStarted {
            at_ms: *at,
            day: *day,
        }),
        ClockEvent::TimeBankUsed { at, player, cards } => {
            ce::Kind::TimeBankUsed(ce::TimeBankUsed {
                at_ms: *at,
                entry: player.get(),
                cards: (*cards).into(),
            })
        }
        ClockEvent::ColouredUp {
            at,
            leaving,
            smallest,
            reason,
        } => ce::Kind::ColouredUp(ce::ColouredUp {
            at_ms: *at,
            leaving: *leaving,
            smallest: *smallest,
            reason: reason.clone(),
        }),
    }
}

/// The floor's request as a clock command at `at`.
fn command(c: &pb::control_clock_request::Command, at: i64) -> Result<ClockCommand, Status> {
    use pb::control_clock_request::Command as C;
    Ok(match c {
        C::Pause(p) => ClockCommand::Pause {
            at,
            reason: p.reason.clone(),
        },
        C::Resume(r) => ClockCommand::Resume {
            at,
            reason: r.reason.clone(),
        },
        C::SetRemaining(s) => ClockCommand::SetRemaining {
            at,
            remaining: s.remaining_ms,
        },
        C::AddTime(a) => ClockCommand::AddTime {
            at,
            millis: a.millis,
        },
        C::JumpToLevel(j) => ClockCommand::JumpToLevel { at, level: j.level },
        C::StartHandForHand(_) | C::StopHandForHand(_) => {
            return Err(Status::internal(
                "hand-for-hand is started and stopped at seating first",
            ));
        }
        C::EndDayAfter(e) => ClockCommand::EndDayAfter {
            at,
            hands: u8::try_from(e.hands).map_err(|_| {
                Status::invalid_argument(format!(
                    "end_day_after.hands: the draw is a card from 2 to 5, not {}",
                    e.hands
                ))
            })?,
        },
        C::DrawEndOfDay(_) => ClockCommand::DrawEndOfDay { at },
        C::EndDay(_) => ClockCommand::EndDay { at },
        C::StartDay(_) => ClockCommand::StartDay { at },
        C::UseTimeBank(u) => ClockCommand::UseTimeBank {
            at,
            player: felt_clock::EntryId(u.entry),
            cards: u8::try_from(u.cards)
                .map_err(|_| Status::invalid_argument("use_time_bank.cards: too many"))?,
        },
        C::ColourUp(c) => ClockCommand::ColourUp {
            at,
            leaving: c.leaving,
            smallest: c.smallest,
            reason: c.reason.clone(),
        },
    })
}

#[tonic::async_trait]
impl<L: EventLog + 'static> ClockService for ClockApi<L> {
    async fn get_clock(
        &self,
        request: Request<pb::GetClockRequest>,
    ) -> Result<Response<pb::GetClockResponse>, Status> {
        super::limits::check(request.get_ref())?;
        role(&request)?;
        let t = request.into_inner().tournament_id;
        self.ctx.known(&t).await?;
        let stream = clock_stream(&t).map_err(log_status)?;
        let (state, version) = self
            .ctx
            .conductor
            .clock
            .state(&stream)
            .await
            .map_err(log_status)?;
        Ok(Response::new(pb::GetClockResponse {
            clock: Some(view(&t, &state, version, self.ctx.now())),
        }))
    }

    async fn get_structure(
        &self,
        request: Request<pb::GetStructureRequest>,
    ) -> Result<Response<pb::GetStructureResponse>, Status> {
        super::limits::check(request.get_ref())?;
        role(&request)?;
        let t = request.into_inner().tournament_id;
        self.ctx.known(&t).await?;
        let state = self
            .ctx
            .conductor
            .clock_state(&t)
            .await
            .map_err(tournament_status)?;
        let s = state
            .configured()
            .ok_or_else(|| Status::not_found(format!("tournament {t:?} has no structure")))?;
        let pb::Structure {
            name,
            starting_stack,
            periods,
        } = structure(s);
        Ok(Response::new(pb::GetStructureResponse {
            name,
            starting_stack,
            periods,
        }))
    }

    async fn control_clock(
        &self,
        request: Request<pb::ControlClockRequest>,
    ) -> Result<Response<pb::ControlClockResponse>, Status> {
        super::limits::check(request.get_ref())?;
        let role = role(&request)?;
        let req = request.into_inner();
        if req.command_id.is_empty() {
            return Err(Status::invalid_argument("command_id is required"));
        }
        let from = felt_service::Provenance {
            request: super::shared::fingerprint(&req),
            ..felt_service::Provenance::default()
        };
        let c = req
            .command
            .ok_or_else(|| Status::invalid_argument("command is required"))?;
        // The table service deployed apart sends the time-bank cards its
        // actions took, and nothing else.
        if !(role == Role::Service
            && matches!(c, pb::control_clock_request::Command::UseTimeBank(_)))
        {
            floor_or_director(&role, "controlling the clock")?;
        }
        if matches!(c, pb::control_clock_request::Command::ColourUp(_)) {
            super::shared::director(&role, "an unscheduled colour-up (TDA 25)")?;
        }
        let t = req.tournament_id;
        self.ctx.known(&t).await?;
        if matches!(c, pb::control_clock_request::Command::StartDay(_)) {
            // The next day starts from the sealed bags (bag and tag).
            let seating = self
                .ctx
                .conductor
                .seating_state(&t)
                .await
                .map_err(tournament_status)?;
            if let Some(b) = seating.room().bags.as_ref().filter(|b| !b.sealed) {
                return Err(Status::failed_precondition(format!(
                    "the {} bags are not sealed: the next day starts from them",
                    b.bags.len()
                )));
            }
        }
        let stream = clock_stream(&t).map_err(log_status)?;
        let mut at = self.ctx.now();
        // Time never goes back: a command at the same instant as the
        // ticker's last record is recorded at that instant.
        let (before, before_version) = self
            .ctx
            .conductor
            .clock
            .state(&stream)
            .await
            .map_err(log_status)?;
        at = at.max(before.last());
        drop(before);
        if let pb::control_clock_request::Command::StartHandForHand(_)
        | pb::control_clock_request::Command::StopHandForHand(_) = c
        {
            // Seating gates the tables; the clock follows it.
            let start = matches!(c, pb::control_clock_request::Command::StartHandForHand(_));
            let duplicate = self
                .floor_hand_for_hand(&t, start, &req.command_id, at)
                .await?;
            let (state, version) = self
                .ctx
                .conductor
                .clock
                .state(&stream)
                .await
                .map_err(log_status)?;
            let envelopes = self
                .ctx
                .conductor
                .clock
                .log()
                .read(&stream, before_version + 1)
                .await
                .map_err(log_status)?;
            return Ok(Response::new(pb::ControlClockResponse {
                events: wire(&envelopes)?,
                duplicate,
                clock: Some(view(&t, &state, version, self.ctx.now())),
            }));
        }
        let command = command(&c, at)?;
        let span = tracing::info_span!("clock", tournament = %t, command_id = %req.command_id);
        let out = self
            .ctx
            .conductor
            .clock
            .handle_from(&stream, &req.command_id, at, &from, &command)
            .instrument(span)
            .await
            .map_err(|e| handled(e, felt_tournament::TournamentError::Clock))?;
        // The day's end and the next day reach seating's tables (rule 77)
        // before the floor is answered, where this process hosts seating
        // (deployed apart, seating follows the clock's decisions itself).
        if self.ctx.conductor.hosts().seating
            && matches!(
                c,
                pb::control_clock_request::Command::EndDayAfter(_)
                    | pb::control_clock_request::Command::DrawEndOfDay(_)
                    | pb::control_clock_request::Command::StartDay(_)
            )
        {
            self.ctx
                .conductor
                .settle(&t)
                .await
                .map_err(tournament_status)?;
        }
        let envelopes = self
            .ctx
            .conductor
            .clock
            .log()
            .read(&stream, out.first)
            .await
            .map_err(log_status)?;
        let events = wire(&envelopes[..out.events.len().min(envelopes.len())])?;
        Ok(Response::new(pb::ControlClockResponse {
            events,
            duplicate: out.duplicate,
            clock: Some(view(&t, &out.state, out.version, self.ctx.now())),
        }))
    }

    type WatchClockStream = ReceiverStream<Result<pb::WatchClockResponse, Status>>;

    async fn watch_clock(
        &self,
        request: Request<pb::WatchClockRequest>,
    ) -> Result<Response<Self::WatchClockStream>, Status> {
        super::limits::check(request.get_ref())?;
        role(&request)?;
        let req = request.into_inner();
        let t = req.tournament_id;
        self.ctx.known(&t).await?;
        let stream = clock_stream(&t).map_err(log_status)?;
        let handler = &self.ctx.conductor.clock;
        let (tx, rx) = tokio::sync::mpsc::channel(64);
        let mut after = req.after_version;
        if after == 0 {
            let (state, version) = handler.state(&stream).await.map_err(log_status)?;
            let _ = tx
                .send(Ok(pb::WatchClockResponse {
                    clock: Some(view(&t, &state, version, self.ctx.now())),
                    events: vec![],
                    resumed: false,
                }))
                .await;
            after = version;
        }
        let mut decisions = follow_stream(&self.ctx.watch, stream, after);
        let ctx = self.ctx.clone();
        tokio::spawn(async move {
            while let Some(next) = decisions.recv().await {
                let item = match next {
                    Ok(super::shared::Followed { envelopes, resumed }) => {
                        let last = envelopes.last().map_or(0, |e| e.sequence);
                        // The clock as of this decision (not any later one).
                        let stream = envelopes[0].stream.clone();
                        let state = ctx
                            .conductor
                            .clock
                            .log()
                            .read(&stream, 1)
                            .await
                            .map_err(log_status)
                            .and_then(|all| {
                                let mut state = ClockState::default();
                                for env in all.iter().take_while(|e| e.sequence <= last) {
                                    state.apply(&env.decode().map_err(log_status)?);
                                }
                                Ok(state)
                            });
                        state.and_then(|state| {
                            Ok(pb::WatchClockResponse {
                                clock: Some(view(&t, &state, last, ctx.now())),
                                events: wire(&envelopes)?,
                                resumed,
                            })
                        })
                    }
                    Err(e) => Err(e),
                };
                if tx.send(item).await.is_err() {
                    return;
                }
            }
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }
}

/// Records each level change of every running clock as the time reaches
/// it (and closes late registration after its last level), so watchers
/// see it the moment it happens. Runs until the process stops.
pub(crate) async fn ticker<L: EventLog + 'static>(ctx: Ctx<L>) {
    let mut interval = tokio::time::interval(std::time::Duration::from_millis(200));
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        interval.tick().await;
        let running = match ctx.conductor.running_clocks().await {
            Ok(t) => t,
            Err(e) => {
                tracing::warn!(%e, "the ticker cannot list the running clocks");
                continue;
            }
        };
        for t in running {
            if let Err(e) = ctx.conductor.tick(&t, ctx.now()).await {
                tracing::warn!(tournament = %t, %e, "tick failed");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pb::clock_event::Kind;

    /// Seed 003's structure goes out typed: levels numbered, its breaks
    /// (after levels 6 and 17) with the chip they colour up.
    #[test]
    fn a_configured_clock_sends_its_structure_and_settings_typed() {
        let mut settings = ClockSettings::default();
        settings.action.enabled = true;
        let configured = ClockEvent::Configured {
            structure: Structure::bhpoker(),
            settings,
        };
        let Kind::Configured(c) = clock_event(&configured) else {
            panic!("not configured")
        };
        let s = c.structure.expect("the structure");
        assert_eq!(
            (s.name.as_str(), s.starting_stack),
            ("BHPoker (seed 003)", 6_000)
        );
        let breaks: Vec<(usize, u64)> = s
            .periods
            .iter()
            .enumerate()
            .filter(|(_, p)| p.blinds.is_none())
            .map(|(i, p)| (i, p.color_up))
            .collect();
        assert_eq!(breaks, [(6, 25), (18, 100)]);
        assert_eq!(s.periods[7].level, 7);
        assert_eq!(s.periods[7].blinds.as_ref().map(|l| l.big_blind), Some(400));
        let c = c.settings.expect("the settings");
        assert_eq!(c.hand_for_hand_ms, 120_000);
        assert!(
            c.action
                .is_some_and(|a| a.enabled && a.decision_ms == 30_000)
        );
    }

    #[test]
    fn every_clock_event_keeps_its_time_and_names_its_kind() {
        let paused = ClockEvent::Paused {
            at: 1_700_000_000_000,
            reason: "dinner".into(),
            remaining: 600_000,
        };
        assert_eq!(
            clock_event(&paused),
            Kind::Paused(pb::clock_event::Paused {
                at_ms: 1_700_000_000_000,
                reason: "dinner".into(),
                remaining_ms: 600_000,
            })
        );
        let used = ClockEvent::TimeBankUsed {
            at: 5,
            player: felt_clock::EntryId(42),
            cards: 2,
        };
        assert_eq!(
            clock_event(&used),
            Kind::TimeBankUsed(pb::clock_event::TimeBankUsed {
                at_ms: 5,
                entry: 42,
                cards: 2,
            })
        );
    }
}
