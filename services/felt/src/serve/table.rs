//! The table service over gRPC: a thin edge over `felt_service::Handler`
//! with the table as its aggregate.

use std::sync::Arc;

use felt_eventlog::{EventLog, Fanout, Filter, StreamId};
use felt_proto::v1 as pb;
use felt_proto::v1::table_service_server::TableService;
use felt_service::Handler;
use felt_table::{TableEvent, TableState};
use felt_tablelog::Table;
use felt_tournament::Conductor;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};
use tracing::Instrument;

use super::auth::{Role, role};
use super::convert;
use super::shared::{Draw, Now, Seeds};
use super::status::{log as log_status, status};

/// The table service on a log.
pub(crate) struct TableApi<L: EventLog> {
    handler: Arc<Handler<Table, L>>,
    /// Judges timeouts against the tournament's clock.
    conductor: Arc<Conductor<L>>,
    /// After this long past a hand's end, partners get it whole: every
    /// hole card, and the seed that dealt them.
    broadcast_delay: Option<std::time::Duration>,
    /// Every digital deal's seed.
    seeds: Seeds,
    /// The key of the seats' credentials.
    seat_key: super::auth::SeatKey,
    /// The service's one clock: every event's recorded time, and when a
    /// hand's delay has run.
    now: Now,
    /// Partners' table watchers: one subscription of the log for all.
    watch: Arc<Fanout<L>>,
}

impl<L: EventLog> TableApi<L> {
    /// On the conductor's table handler, shared with the rest of the process.
    pub(crate) fn new(
        conductor: Arc<Conductor<L>>,
        broadcast_delay: Option<std::time::Duration>,
        seeds: Seeds,
        seat_key: super::auth::SeatKey,
        now: Now,
        watch: Arc<Fanout<L>>,
    ) -> Self {
        TableApi {
            handler: conductor.tables.clone(),
            conductor,
            broadcast_delay,
            seeds,
            seat_key,
            now,
            watch,
        }
    }

    /// Whether `role` sees the whole of a hand that ended at `ended_at`
    /// (`None`: still in progress, when only felt's services do).
    fn sees_whole_hand(&self, role: &Role, ended_at: Option<i64>) -> bool {
        let delay = self
            .broadcast_delay
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        role.sees_cards_in_the_air()
            || (ended_at.is_some() && role.sees_finished_hands())
            || matches!((delay, ended_at), (Some(d), Some(at)) if (self.now)() >= at.saturating_add(d))
    }
}

/// A table a request names: its tournament and its number.
#[derive(Clone)]
struct TableAt {
    tournament_id: String,
    number: felt_vocabulary::TableNo,
}

impl TableAt {
    fn wire(&self) -> pb::TableRef {
        pb::TableRef {
            tournament_id: self.tournament_id.clone(),
            table: self.number,
        }
    }
}

fn stream_of(table: Option<&pb::TableRef>) -> Result<(StreamId, TableAt), Status> {
    let table = table.ok_or_else(|| Status::invalid_argument("table is required"))?;
    if table.table == 0 {
        return Err(Status::invalid_argument(
            "table.table: tables are numbered from 1",
        ));
    }
    let stream = felt_tablelog::stream(&table.tournament_id, table.table)
        .map_err(|e| Status::invalid_argument(format!("table: {e}")))?;
    Ok((
        stream,
        TableAt {
            tournament_id: table.tournament_id.clone(),
            number: table.table,
        },
    ))
}

/// The events of hand `number`, with their sequences: from its last
/// `HandStarted` (a misdeal's re-deal) to its `HandEnded`, or to the end of
/// the log while it is in progress.
/// Where a command comes from, as a felt service sent it: refused from
/// anyone else (a person's command starts its own chain).
fn provenance(
    sent: Option<&pb::Provenance>,
    role: &Role,
) -> Result<felt_service::Provenance, Status> {
    let Some(sent) = sent else {
        return Ok(felt_service::Provenance::default());
    };
    if *role != Role::Service {
        return Err(Status::permission_denied(
            "provenance: only felt's own services say where a command comes from",
        ));
    }
    let given = |id: &str| (!id.is_empty()).then(|| id.to_owned());
    Ok(felt_service::Provenance {
        trace: None,
        request: None,
        causation_id: given(&sent.causation_id),
        correlation_id: given(&sent.correlation_id),
        actor: None,
    })
}

pub(super) fn hand_events(
    events: &[TableEvent],
    number: u64,
) -> Option<(Vec<(u64, TableEvent)>, bool)> {
    let start = events
        .iter()
        .rposition(|e| matches!(e, TableEvent::HandStarted { number: n, .. } if *n == number))?;
    let end = events[start..]
        .iter()
        .position(|e| matches!(e, TableEvent::HandEnded { .. }))
        .map(|i| start + i);
    let last = end.unwrap_or(events.len() - 1);
    let out = (start..=last)
        .map(|i| (i as u64 + 1, events[i].clone()))
        .collect();
    Some((out, end.is_some()))
}

/// NOT_FOUND for a table whose stream holds nothing: a typo'd id is told
/// so, not shown an empty table.
fn never_opened(table: &TableAt) -> Status {
    Status::not_found(format!(
        "table {:?} of tournament {:?} was never opened",
        table.number, table.tournament_id
    ))
}

/// When a finished hand ended: its `HandEnded`'s recorded time.
fn hand_end_time(hand: &[(u64, TableEvent)], finished: bool, times: &[i64]) -> Option<i64> {
    let (seq, _) = hand.last().filter(|_| finished)?;
    times
        .get(usize::try_from(*seq).ok()?.checked_sub(1)?)
        .copied()
}

/// Events for the wire: `whole`, as recorded; otherwise without the cards
/// in the air ([`convert::for_partners`]).
pub(super) fn wire(events: &[(u64, TableEvent)], whole: bool) -> Vec<pb::Event> {
    if whole {
        events
            .iter()
            .map(|(s, e)| convert::event(*s, e, false))
            .collect()
    } else {
        convert::for_partners(events)
    }
}

impl<L: EventLog + 'static> TableApi<L> {
    /// Whether seating runs tournament `t`'s tables (it created it).
    async fn seating_runs(&self, t: &str) -> Result<bool, Status> {
        let seating = self
            .conductor
            .seating_state(t)
            .await
            .map_err(super::status::tournament)?;
        Ok(seating.settings().is_some())
    }

    /// A table's events, and when each was recorded.
    async fn load(&self, stream: &StreamId) -> Result<(Vec<TableEvent>, Vec<i64>), Status> {
        let envelopes = self
            .handler
            .log()
            .read(stream, 1)
            .await
            .map_err(log_status)?;
        let times = envelopes.iter().map(|e| e.recorded_at).collect();
        let events = envelopes
            .iter()
            .map(felt_tablelog::decode)
            .collect::<Result<_, _>>()
            .map_err(log_status)?;
        Ok((events, times))
    }

    /// Hand `number` of a table: its events with their sequences, whether it
    /// is finished, and whether `role` may see all of it.
    async fn hand(
        &self,
        table: Option<&pb::TableRef>,
        number: u64,
        role: &Role,
    ) -> Result<(Vec<(u64, TableEvent)>, bool, bool), Status> {
        let (stream, table) = stream_of(table)?;
        role.reads_table(&table.tournament_id, table.number)?;
        let (events, times) = self.load(&stream).await?;
        if events.is_empty() {
            return Err(never_opened(&table));
        }
        let (hand, finished) = hand_events(&events, number)
            .ok_or_else(|| Status::not_found(format!("hand {number} was not dealt here")))?;
        let whole = self.sees_whole_hand(role, hand_end_time(&hand, finished, &times));
        Ok((hand, finished, whole))
    }

    async fn view(
        &self,
        stream: &StreamId,
        table: TableAt,
        role: &Role,
    ) -> Result<pb::TableView, Status> {
        let (state, version): (Arc<TableState>, u64) =
            self.handler.state(stream).await.map_err(log_status)?;
        if version == 0 {
            return Err(never_opened(&table));
        }
        Ok(convert::view(
            table.wire(),
            &state,
            version,
            convert::Sight::of(role),
        ))
    }
}

#[tonic::async_trait]
impl<L: EventLog + 'static> TableService for TableApi<L> {
    async fn execute(
        &self,
        request: Request<pb::ExecuteRequest>,
    ) -> Result<Response<pb::ExecuteResponse>, Status> {
        super::limits::check(request.get_ref())?;
        let role = role(&request)?;
        let metadata = request.metadata().clone();
        let mut req = request.into_inner();
        let (stream, table) = stream_of(req.table.as_ref())?;
        if req.command_id.is_empty() {
            return Err(Status::invalid_argument("command_id is required"));
        }
        let command = convert::command(&req, &|| {
            self.seeds.draw(Draw::TableDeal {
                tournament: &table.tournament_id,
                table: table.number,
                command_id: &req.command_id,
            })
        })?;
        if let felt_table::Command::RecordResult {
            occurred_at: Some(at),
            ..
        } = &command
            && *at > (self.now)()
        {
            return Err(Status::invalid_argument(format!(
                "record_result.occurred_at_ms: {at} is in the future: a fact entered late happened already"
            )));
        }
        match &role {
            // A shared deck's entropy is the table's: a felt service adding
            // it would choose the cards with its own secret.
            Role::Service if matches!(command, felt_table::Command::AddEntropy { .. }) => {
                return Err(Status::permission_denied(
                    "a shared deck's entropy comes from the table's device, never from a felt service",
                ));
            }
            // The service identity: seating's seats and moves.
            Role::Director | Role::Floor | Role::Service => {}
            Role::Dealer {
                tournament,
                table: t,
            } if tournament.as_str() == table.tournament_id && *t == table.number => {
                if convert::is_floor_command(&command) {
                    return Err(Status::permission_denied(
                        "rulings, misdeals and penalties are the floor's (TDA 1)",
                    ));
                }
            }
            Role::Dealer { .. } => {
                return Err(Status::permission_denied(
                    "a dealer acts only at their own table",
                ));
            }
            Role::Partner => return Err(Status::permission_denied("partners are read-only")),
            Role::Cashier => {
                return Err(Status::permission_denied(
                    "a cashier's credential is for the cage, not a table",
                ));
            }
            Role::Seat {
                tournament,
                table: t,
                seat,
                entry,
            } => {
                let own = match &command {
                    felt_table::Command::Act { seat: s, .. }
                    | felt_table::Command::PushChips { seat: s, .. } => s == seat,
                    _ => false,
                };
                if tournament.as_str() != table.tournament_id || *t != table.number || !own {
                    return Err(Status::permission_denied(format!(
                        "a seat's credential acts only for its own seat ({tournament}/{t}, seat {seat}): a bet, a call, a check or a fold"
                    )));
                }
                let (state, _) = self.handler.state(&stream).await.map_err(log_status)?;
                // A command the table took while the seat was the entry's,
                // sent again once it left (its answer lost to a restart),
                // is answered as the repeat it is.
                if state.seat(*seat).map(|p| p.player.0) != Some(*entry)
                    && !self
                        .handler
                        .recorded(&stream, &req.command_id)
                        .await
                        .map_err(log_status)?
                {
                    return Err(Status::permission_denied(format!(
                        "this credential was entry {entry}'s at seat {seat}, which it no longer holds"
                    )));
                }
            }
        }
        // A table seating runs is opened, seated and dealt by seating
        // alone: no person's token goes around it (nor around the clock's
        // level, which seating's grant deals the hand at).
        if role != Role::Service
            && matches!(
                command,
                felt_table::Command::OpenTable { .. }
                    | felt_table::Command::SeatPlayer { .. }
                    | felt_table::Command::RemovePlayer { .. }
                    | felt_table::Command::StartHand { .. }
                    | felt_table::Command::Disqualify { .. }
                    | felt_table::Command::Surrender { .. }
                    | felt_table::Command::RemoveNoShow { .. }
                    | felt_table::Command::DrawButton { .. }
                    | felt_table::Command::AddOn { .. }
                    | felt_table::Command::Rebuy { .. }
            )
            && self.seating_runs(&table.tournament_id).await?
        {
            return Err(Status::permission_denied(format!(
                "table {}/{} is run by seating: it opens the table, seats and moves its players, and grants each hand (BeginHand); the floor's seat changes go through the seating service",
                table.tournament_id, table.number
            )));
        }
        // (Taken out of the request: the fingerprint below is of the
        // command as asked, which a service's retry may word anew.)
        let provenance = provenance(req.provenance.take().as_ref(), &role)?;
        let span = tracing::info_span!(
            "command",
            tournament = %table.tournament_id,
            table = table.number,
            command_id = %req.command_id,
            hand = tracing::field::Empty,
        );
        crate::telemetry::follow_caller(&span, &metadata);
        let from = felt_service::Provenance {
            trace: crate::telemetry::traceparent(&span),
            request: super::shared::fingerprint(&req),
            ..provenance
        };
        let outcome = if let felt_table::Command::TimeOut { seat } = command {
            // The time is judged against the tournament's clock first.
            let number = table.number;
            self.conductor
                .time_out(
                    &table.tournament_id,
                    number,
                    seat,
                    &req.command_id,
                    (self.now)(),
                    &from,
                )
                .instrument(span.clone())
                .await
                .map_err(super::status::tournament)?
        } else {
            if let felt_table::Command::Act { seat, .. }
            | felt_table::Command::PushChips { seat, .. } = &command
            {
                let number = table.number;
                // On the action clock, the time-bank cards this decision
                // took are recorded first.
                self.conductor
                    .act_in_time(
                        &table.tournament_id,
                        number,
                        *seat,
                        &req.command_id,
                        (self.now)(),
                    )
                    .instrument(span.clone())
                    .await
                    .map_err(super::status::tournament)?;
            }
            self.handler
                .handle_from(&stream, &req.command_id, (self.now)(), &from, &command)
                .instrument(span.clone())
                .await
                .map_err(status)?
        };
        if let Some(h) = &outcome.state.hand() {
            span.record("hand", h.number);
        }
        let events: Vec<(u64, TableEvent)> = outcome
            .events
            .iter()
            .enumerate()
            .map(|(i, e)| (outcome.first + i as u64, e.clone()))
            .collect();
        Ok(Response::new(pb::ExecuteResponse {
            events: wire(&events, role.sees_cards_in_the_air()),
            version: outcome.version,
            duplicate: outcome.duplicate,
            table: Some(convert::view(
                table.wire(),
                &outcome.state,
                outcome.version,
                convert::Sight::of(&role),
            )),
        }))
    }

    async fn get_table(
        &self,
        request: Request<pb::GetTableRequest>,
    ) -> Result<Response<pb::GetTableResponse>, Status> {
        super::limits::check(request.get_ref())?;
        let role = role(&request)?;
        let (stream, table) = stream_of(request.get_ref().table.as_ref())?;
        role.reads_table(&table.tournament_id, table.number)?;
        Ok(Response::new(pb::GetTableResponse {
            table: Some(self.view(&stream, table, &role).await?),
        }))
    }

    async fn get_hand_history(
        &self,
        request: Request<pb::GetHandHistoryRequest>,
    ) -> Result<Response<pb::GetHandHistoryResponse>, Status> {
        super::limits::check(request.get_ref())?;
        let role = role(&request)?;
        let req = request.into_inner();
        let (hand, _, whole) = self
            .hand(req.table.as_ref(), req.hand_number, &role)
            .await?;
        let events = wire(&hand, whole);
        Ok(Response::new(pb::GetHandHistoryResponse { events }))
    }

    async fn get_hand_phh(
        &self,
        request: Request<pb::GetHandPhhRequest>,
    ) -> Result<Response<pb::GetHandPhhResponse>, Status> {
        super::limits::check(request.get_ref())?;
        let role = role(&request)?;
        let req = request.into_inner();
        let (hand, finished, whole) = self
            .hand(req.table.as_ref(), req.hand_number, &role)
            .await?;
        if !finished {
            return Err(Status::failed_precondition(format!(
                "hand {} is still in progress",
                req.hand_number
            )));
        }
        let mut hand: Vec<TableEvent> = hand.into_iter().map(|(_, e)| e).collect();
        if !whole {
            for e in &mut hand {
                if let TableEvent::HoleCardsDealt { cards } = e {
                    for c in cards.iter_mut() {
                        c.1 = None;
                    }
                }
            }
        }
        let phh = felt_phh::export(&hand).map_err(|e| Status::internal(e.to_string()))?;
        Ok(Response::new(pb::GetHandPhhResponse { phh }))
    }

    async fn issue_seat_credential(
        &self,
        request: Request<pb::IssueSeatCredentialRequest>,
    ) -> Result<Response<pb::IssueSeatCredentialResponse>, Status> {
        super::limits::check(request.get_ref())?;
        let role = role(&request)?;
        let req = request.into_inner();
        let (stream, table) = stream_of(req.table.as_ref())?;
        match &role {
            Role::Director | Role::Floor | Role::Dealer { .. } => {
                role.reads_table(&table.tournament_id, table.number)?;
            }
            _ => {
                return Err(Status::permission_denied(
                    "a seat's credential is issued to the director, the floor or the table's dealer",
                ));
            }
        }
        let (state, version) = self.handler.state(&stream).await.map_err(log_status)?;
        if version == 0 {
            return Err(never_opened(&table));
        }
        let seat = u8::try_from(req.seat)
            .ok()
            .filter(|s| (1..=state.size()).contains(s))
            .ok_or_else(|| {
                Status::invalid_argument(format!(
                    "seat: 1 to {} at this table, not {}",
                    state.size(),
                    req.seat
                ))
            })?;
        let entry = state
            .seat(seat)
            .map(|p| p.player.0)
            .ok_or_else(|| Status::failed_precondition(format!("seat {seat} is empty")))?;
        Ok(Response::new(pb::IssueSeatCredentialResponse {
            token: self
                .seat_key
                .issue(&table.tournament_id, table.number, seat, entry),
            entry,
        }))
    }

    type WatchTableStream = ReceiverStream<Result<pb::WatchTableResponse, Status>>;

    async fn watch_table(
        &self,
        request: Request<pb::WatchTableRequest>,
    ) -> Result<Response<Self::WatchTableStream>, Status> {
        super::limits::check(request.get_ref())?;
        let role = role(&request)?;
        let req = request.into_inner();
        let (stream, table) = stream_of(req.table.as_ref())?;
        role.reads_table(&table.tournament_id, table.number)?;
        let mut after = req.after_version;
        let (tx, rx) = mpsc::channel(256);
        let (state, version) = self.handler.state(&stream).await.map_err(log_status)?;
        if version == 0 {
            return Err(never_opened(&table));
        }
        if after == 0 {
            let snapshot = convert::view(table.wire(), &state, version, convert::Sight::of(&role));
            let item = pb::WatchTableResponse {
                item: Some(pb::watch_table_response::Item::Snapshot(snapshot)),
                resumed: false,
            };
            let _ = tx.send(Ok(item)).await;
            after = version;
        }
        // The table's decisions after `after`, in order, with no gap.
        let mut decisions = super::shared::follow_stream(&self.watch, stream, after);
        tokio::spawn(async move {
            // Told with the first event given after the stream was read
            // again (a decision may hold none a partner sees).
            let mut resumed = false;
            while let Some(next) = decisions.recv().await {
                let envelopes = match next {
                    Ok(followed) => {
                        resumed |= followed.resumed;
                        followed.envelopes
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e)).await;
                        return;
                    }
                };
                let mut events = Vec::new();
                for env in &envelopes {
                    match felt_tablelog::decode(env) {
                        Ok(e) => events.push((env.sequence, e)),
                        Err(e) => {
                            let _ = tx.send(Err(log_status(e))).await;
                            return;
                        }
                    }
                }
                for event in wire(&events, role.sees_cards_in_the_air()) {
                    let item = pb::WatchTableResponse {
                        item: Some(pb::watch_table_response::Item::Event(event)),
                        resumed: std::mem::take(&mut resumed),
                    };
                    if tx.send(Ok(item)).await.is_err() {
                        return;
                    }
                }
            }
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    type WatchTournamentTablesStream =
        ReceiverStream<Result<pb::WatchTournamentTablesResponse, Status>>;

    async fn watch_tournament_tables(
        &self,
        request: Request<pb::WatchTournamentTablesRequest>,
    ) -> Result<Response<Self::WatchTournamentTablesStream>, Status> {
        super::limits::check(request.get_ref())?;
        let role = role(&request)?;
        role.reads_every_table()?;
        let req = request.into_inner();
        StreamId::new(&req.tournament_id, "table", "x")
            .map_err(|e| Status::invalid_argument(format!("tournament_id: {e}")))?;
        let filter = Filter {
            id: None,
            tournament: Some(req.tournament_id.clone()),
            kind: Some("table".into()),
        };
        let mut sub = self
            .handler
            .log()
            .subscribe(filter, req.after_position)
            .await
            .map_err(log_status)?;
        let (tx, rx) = mpsc::channel(256);
        tokio::spawn(async move {
            while let Some(next) = sub.next().await {
                let item = next.map_err(log_status).and_then(|c| {
                    let events = c
                        .envelopes
                        .iter()
                        .map(|env| felt_tablelog::decode(env).map(|e| (env.sequence, e)))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(log_status)?;
                    Ok(pb::WatchTournamentTablesResponse {
                        table: Some(pb::TableRef {
                            tournament_id: c.stream.tournament.to_string(),
                            // (Every table stream is named by its number.)
                            table: c.stream.id.parse().unwrap_or(0),
                        }),
                        position: c.position,
                        events: wire(&events, role.sees_cards_in_the_air()),
                    })
                });
                if tx.send(item).await.is_err() {
                    return;
                }
            }
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }
}
