//! The payout service over gRPC: the pool and pay sheet, results as they
//! happen, exports, and deals at the final table.

use std::sync::Arc;

use felt_eventlog::EventLog;
use felt_payout::{DealMethod, DealTerms, EntryId, PayoutEvent, PayoutState};
use felt_proto::v1 as pb;
use felt_proto::v1::payout_service_server::PayoutService;
use felt_tournament::aggregates::payout_stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::auth::role;
use super::shared::{Ctx, floor_or_director, follow_stream, handled};
use super::status::log as log_status;

pub(crate) struct PayoutApi<L: EventLog> {
    ctx: Ctx<L>,
}

impl<L: EventLog + 'static> PayoutApi<L> {
    pub(crate) fn new(ctx: Ctx<L>) -> Self {
        PayoutApi { ctx }
    }

    async fn state(&self, t: &str) -> Result<Arc<PayoutState>, Status> {
        self.ctx.payout(t).await
    }

    async fn seating(&self, t: &str) -> Result<Arc<felt_seating::SeatingState>, Status> {
        self.ctx.seating(t).await
    }

    /// The cage's books for `t`, from seating's and payout's events.
    async fn cage(&self, t: &str) -> Result<crate::cage::Cage, Status> {
        self.ctx.known(t).await?;
        crate::cage::from_log(self.ctx.conductor.payout.log().as_ref(), t)
            .await
            .map_err(|e| match e {
                crate::cage::CageError::Log(e) => log_status(e),
                e @ crate::cage::CageError::NoSettings(_) => Status::not_found(e.to_string()),
            })
    }
}

pub(super) fn events(
    envelopes: &[felt_eventlog::Envelope],
) -> Result<Vec<pb::PayoutEvent>, Status> {
    envelopes
        .iter()
        .map(|env| {
            let event: PayoutEvent = env.decode().map_err(log_status)?;
            Ok(pb::PayoutEvent {
                sequence: env.sequence,
                r#type: event.name().into(),
                recorded_at_ms: env.recorded_at,
                kind: Some(super::payout_events::to_wire(&event)),
            })
        })
        .collect()
}

fn terms(t: &pb::DealTerms) -> Result<DealTerms, Status> {
    let method = match pb::DealMethod::try_from(t.method) {
        Ok(pb::DealMethod::Icm) => DealMethod::Icm,
        Ok(pb::DealMethod::ChipChop) => DealMethod::ChipChop,
        Ok(pb::DealMethod::Save) => DealMethod::Save {
            amount: t.save_amount,
            places: t.save_places,
        },
        Ok(pb::DealMethod::Amounts) => {
            DealMethod::Amounts(t.players.iter().map(|p| p.amount).collect())
        }
        _ => {
            return Err(Status::invalid_argument(
                "propose.method: icm, chip chop, save or amounts",
            ));
        }
    };
    Ok(DealTerms {
        players: t
            .players
            .iter()
            .map(|p| (EntryId(p.entry), p.chips))
            .collect(),
        method,
        play_for: t.play_for,
    })
}

#[tonic::async_trait]
impl<L: EventLog + 'static> PayoutService for PayoutApi<L> {
    async fn get_payouts(
        &self,
        request: Request<pb::GetPayoutsRequest>,
    ) -> Result<Response<pb::GetPayoutsResponse>, Status> {
        super::limits::check(request.get_ref())?;
        role(&request)?;
        let t = request.into_inner().tournament_id;
        let state = self.state(&t).await?;
        let settings = state
            .settings()
            .ok_or_else(|| Status::not_found(format!("tournament {t:?} has no money settings")))?;
        let pool = state.pool();
        let sheet = state
            .sheet()
            .map(super::payout_events::sheet)
            .unwrap_or_default();
        let entries = state.entries().len() as u32;
        Ok(Response::new(pb::GetPayoutsResponse {
            name: state.name().to_string(),
            currency: settings.currency.clone(),
            minor_per_major: settings.minor_per_major,
            entries,
            add_ons: state.add_ons(),
            rebuys: state.rebuys(),
            pool_fixed: pool.is_some(),
            // Before the close: what the entries so far have put in.
            prize_pool: pool.map_or_else(
                || {
                    u64::from(entries) * settings.buy_in
                        + u64::from(state.add_ons()) * settings.add_on
                        + u64::from(state.rebuys()) * settings.rebuy
                },
                |p| p.prize_pool,
            ),
            overlay: pool.map_or(0, |p| p.overlay),
            fees: pool.map_or(u64::from(entries) * settings.fee, |p| p.fees),
            bounties: pool.map_or(u64::from(entries) * settings.bounty, |p| p.bounties),
            sheet,
            paid: state.sheet().map_or(0, felt_payout::PaySheet::paid),
            players_left: state.remaining(),
            prizes_left: state.prizes().to_vec(),
            deals: state.deals(),
            deal_consents: state
                .proposal()
                .map(|p| p.consents.iter().map(|e| e.get()).collect())
                .unwrap_or_default(),
            deal_proposed: state.proposal().is_some(),
        }))
    }

    async fn get_results(
        &self,
        request: Request<pb::GetResultsRequest>,
    ) -> Result<Response<pb::GetResultsResponse>, Status> {
        super::limits::check(request.get_ref())?;
        role(&request)?;
        let t = request.into_inner().tournament_id;
        let state = self.state(&t).await?;
        let seating = self.seating(&t).await?;
        let settings_target = state
            .settings()
            .and_then(|s| s.structure.satellite())
            .map(|s| s.target.clone())
            .unwrap_or_default();
        let results = state
            .results()
            .into_iter()
            .map(|(entry, e)| {
                let (first, last) = e.place.unwrap_or((0, 0));
                pb::ResultRow {
                    first,
                    last,
                    entry: entry.get(),
                    player_id: e.player.to_string(),
                    name: seating
                        .entries()
                        .get(&entry)
                        .map(|s| s.name.clone())
                        .unwrap_or_default(),
                    prize: e.prize,
                    bounties: e.bounties_won,
                    prize_paid: state.paid().contains_key(&entry),
                    withheld: state.paid().get(&entry).map_or(0, |p| p.1),
                    ticket: e.ticket,
                    ticket_target: if e.ticket > 0 {
                        settings_target.clone()
                    } else {
                        String::new()
                    },
                }
            })
            .collect();
        let settings = state.settings();
        Ok(Response::new(pb::GetResultsResponse {
            results,
            currency: settings.map(|s| s.currency.clone()).unwrap_or_default(),
            minor_per_major: settings.map_or(100, |s| s.minor_per_major),
        }))
    }

    async fn export_results(
        &self,
        request: Request<pb::ExportResultsRequest>,
    ) -> Result<Response<pb::ExportResultsResponse>, Status> {
        super::limits::check(request.get_ref())?;
        role(&request)?;
        let req = request.into_inner();
        let (format, content_type) = match pb::ExportFormat::try_from(req.format) {
            Ok(pb::ExportFormat::Csv) => (crate::results::Format::Csv, "text/csv"),
            Ok(pb::ExportFormat::Json) => (crate::results::Format::Json, "application/json"),
            _ => return Err(Status::invalid_argument("format: csv or json")),
        };
        let state = self.state(&req.tournament_id).await?;
        let seating = self.seating(&req.tournament_id).await?;
        let rows = crate::results::result_rows(&state, &seating);
        let body = crate::results::render_results(&rows, format)
            .map_err(|e| Status::internal(e.to_string()))?;
        Ok(Response::new(pb::ExportResultsResponse {
            content_type: content_type.into(),
            body,
        }))
    }

    async fn deal(
        &self,
        request: Request<pb::DealRequest>,
    ) -> Result<Response<pb::DealResponse>, Status> {
        super::limits::check(request.get_ref())?;
        floor_or_director(&role(&request)?, "a deal")?;
        let req = request.into_inner();
        if req.command_id.is_empty() {
            return Err(Status::invalid_argument("command_id is required"));
        }
        use pb::deal_request::Action;
        let command = match req
            .action
            .as_ref()
            .ok_or_else(|| Status::invalid_argument("action is required"))?
        {
            Action::Propose(t) => felt_payout::Command::ProposeDeal { terms: terms(t)? },
            Action::Consent(entry) => felt_payout::Command::ConsentToDeal {
                entry: EntryId(*entry),
            },
            Action::Withdraw(_) => felt_payout::Command::WithdrawDeal,
        };
        self.ctx.known(&req.tournament_id).await?;
        let stream = payout_stream(&req.tournament_id).map_err(log_status)?;
        let handler = &self.ctx.conductor.payout;
        let from = felt_service::Provenance {
            request: super::shared::fingerprint(&req),
            ..felt_service::Provenance::default()
        };
        let out = handler
            .handle_from(&stream, &req.command_id, self.ctx.now(), &from, &command)
            .await
            .map_err(|e| handled(e, felt_tournament::TournamentError::Payout))?;
        // A deal agreed places everyone left: in one process the clock
        // stops before the floor is answered (deployed apart, the clock
        // follows payout's decisions itself).
        if self.ctx.conductor.hosts().all() {
            self.ctx
                .conductor
                .settle(&req.tournament_id)
                .await
                .map_err(super::status::tournament)?;
        }
        let envelopes = handler
            .log()
            .read(&stream, out.first)
            .await
            .map_err(log_status)?;
        Ok(Response::new(pb::DealResponse {
            events: events(&envelopes[..out.events.len().min(envelopes.len())])?,
            duplicate: out.duplicate,
        }))
    }

    async fn pay_prize(
        &self,
        request: Request<pb::PayPrizeRequest>,
    ) -> Result<Response<pb::PayPrizeResponse>, Status> {
        super::limits::check(request.get_ref())?;
        super::shared::cage(&role(&request)?, "paying a prize")?;
        let req = request.into_inner();
        if req.command_id.is_empty() {
            return Err(Status::invalid_argument("command_id is required"));
        }
        let document = req
            .document
            .as_ref()
            .ok_or_else(|| Status::invalid_argument("document is required"))?;
        let kind = match pb::IdDocumentKind::try_from(document.kind) {
            Ok(pb::IdDocumentKind::IdentityCard) => felt_payout::IdDocumentKind::IdentityCard,
            Ok(pb::IdDocumentKind::Passport) => felt_payout::IdDocumentKind::Passport,
            Ok(pb::IdDocumentKind::DrivingLicence) => felt_payout::IdDocumentKind::DrivingLicence,
            Ok(pb::IdDocumentKind::Other) => felt_payout::IdDocumentKind::Other,
            _ => {
                return Err(Status::invalid_argument(
                    "document.kind: ID_DOCUMENT_KIND_IDENTITY_CARD, _PASSPORT, _DRIVING_LICENCE or _OTHER is required",
                ));
            }
        };
        let command = felt_payout::Command::PayPrize {
            entry: EntryId(req.entry),
            document: felt_payout::IdDocument {
                kind,
                reference: document.reference.clone(),
            },
            tax_number: (!req.tax_number.is_empty()).then(|| req.tax_number.clone()),
        };
        self.ctx.known(&req.tournament_id).await?;
        let stream = payout_stream(&req.tournament_id).map_err(log_status)?;
        let from = felt_service::Provenance {
            request: super::shared::fingerprint(&req),
            ..felt_service::Provenance::default()
        };
        self.ctx
            .conductor
            .payout
            .handle_from(&stream, &req.command_id, self.ctx.now(), &from, &command)
            .await
            .map_err(|e| handled(e, felt_tournament::TournamentError::Payout))?;
        // (A repeat answers with what the first paid.)
        let state = self.state(&req.tournament_id).await?;
        let (gross, withheld) = state
            .paid()
            .get(&EntryId(req.entry))
            .copied()
            .ok_or_else(|| Status::internal("the prize paid is not in payout's state"))?;
        Ok(Response::new(pb::PayPrizeResponse {
            gross,
            withheld,
            net: gross - withheld,
        }))
    }

    async fn get_cage(
        &self,
        request: Request<pb::GetCageRequest>,
    ) -> Result<Response<pb::GetCageResponse>, Status> {
        super::limits::check(request.get_ref())?;
        super::shared::cage(&role(&request)?, "the cage's books")?;
        let t = request.into_inner().tournament_id;
        let cage = self.cage(&t).await?;
        let state = self.state(&t).await?;
        Ok(Response::new(super::payout_events::cage(
            &cage,
            state.settings().map_or(100, |s| s.minor_per_major),
        )))
    }

    async fn export_cage(
        &self,
        request: Request<pb::ExportCageRequest>,
    ) -> Result<Response<pb::ExportCageResponse>, Status> {
        super::limits::check(request.get_ref())?;
        super::shared::cage(&role(&request)?, "the cage's books")?;
        let req = request.into_inner();
        let cage = self.cage(&req.tournament_id).await?;
        let (content_type, body) = match pb::ExportFormat::try_from(req.format) {
            Ok(pb::ExportFormat::Csv) => ("text/csv", crate::cage::csv(&cage)),
            Ok(pb::ExportFormat::Json) => (
                "application/json",
                serde_json::to_string_pretty(&cage).map_err(|e| Status::internal(e.to_string()))?,
            ),
            _ => return Err(Status::invalid_argument("format: csv or json")),
        };
        Ok(Response::new(pb::ExportCageResponse {
            content_type: content_type.into(),
            body,
        }))
    }

    type WatchResultsStream = ReceiverStream<Result<pb::WatchResultsResponse, Status>>;

    async fn watch_results(
        &self,
        request: Request<pb::WatchResultsRequest>,
    ) -> Result<Response<Self::WatchResultsStream>, Status> {
        super::limits::check(request.get_ref())?;
        role(&request)?;
        let req = request.into_inner();
        self.ctx.known(&req.tournament_id).await?;
        let stream = payout_stream(&req.tournament_id).map_err(log_status)?;
        let mut decisions = follow_stream(&self.ctx.watch, stream, req.after_version);
        let (tx, rx) = tokio::sync::mpsc::channel(64);
        tokio::spawn(async move {
            while let Some(next) = decisions.recv().await {
                let item = next.and_then(|followed| {
                    Ok(pb::WatchResultsResponse {
                        events: events(&followed.envelopes)?,
                        resumed: followed.resumed,
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
