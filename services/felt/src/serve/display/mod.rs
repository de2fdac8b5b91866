//! The room display: the clock screen, the seat finder and lobby, and the
//! pay board, as web pages served beside the gRPC API (HTTP/1.1 on the same
//! port).
//!
//! The pages are fed live by server-sent events. Behind them, for each
//! tournament a screen shows, this module follows the services' partner
//! streams (WatchClock, WatchSeating, WatchResults) as a partner would, over
//! gRPC with a partner token, and keeps one board: the clock view, the
//! standings, the pay sheet, the finishers and the recent moves. Every
//! change of the board goes to every open page as one JSON document. The
//! pages never read the event log; the gateway reads only what partners
//! may read.
//!
//! Browsers are let in with any token of the deployment (`?token=` once,
//! then a cookie); everything here is read-only.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use felt_proto::v1 as pb;
use felt_proto::v1::clock_service_client::ClockServiceClient;
use felt_proto::v1::payout_service_client::PayoutServiceClient;
use felt_proto::v1::seating_service_client::SeatingServiceClient;
use serde::Serialize;
use tokio::sync::{Notify, watch};
use tonic::body::Body;
use tonic::codegen::http;
use tower::ServiceExt;
use tower::util::BoxCloneSyncService;

use super::Now;
use super::auth::Role;

mod board;

use board::Board;

/// A gRPC upstream: a channel to a service elsewhere, or this process's own
/// routes called in process.
pub(crate) type Grpc =
    BoxCloneSyncService<http::Request<Body>, http::Response<Body>, tonic::transport::Error>;

/// This process's gRPC routes as an upstream (`felt up`).
pub(crate) fn in_process(routes: tonic::service::Routes) -> Grpc {
    BoxCloneSyncService::new(ServiceExt::<http::Request<Body>>::map_err(
        routes,
        |never| match never {},
    ))
}

/// A service elsewhere as an upstream (`felt serve display`).
pub(crate) fn remote(url: &str) -> Result<Grpc, super::ServeError> {
    let channel = tonic::transport::Endpoint::from_shared(url.to_string())
        .map_err(|e| super::ServeError::Upstream {
            url: url.to_string(),
            reason: e.to_string(),
        })?
        .connect_lazy();
    Ok(BoxCloneSyncService::new(channel))
}

/// Where the display reads from, and who may look.
pub(crate) struct Display {
    clock: Grpc,
    seating: Grpc,
    payout: Grpc,
    /// The partner token the display calls the services with.
    token: String,
    /// Every token of the deployment: any of them may look.
    viewers: HashMap<String, Role>,
    now: Now,
    boards: Mutex<HashMap<String, watch::Receiver<Arc<str>>>>,
}

impl Display {
    /// A display reading `clock`, `seating` and `payout`, calling them with
    /// the first partner token of `tokens`.
    pub(crate) fn new(
        clock: Grpc,
        seating: Grpc,
        payout: Grpc,
        tokens: &[(String, Role)],
        now: Now,
    ) -> Result<Arc<Display>, super::ServeError> {
        let token = tokens
            .iter()
            .find(|(_, role)| *role == Role::Partner)
            .map(|(token, _)| token.clone())
            .ok_or_else(|| {
                super::ServeError::settings("the room display needs a partner token to read with")
            })?;
        Ok(Arc::new(Display {
            clock,
            seating,
            payout,
            token,
            // People's tokens only: the services' own lets no browser in.
            viewers: tokens
                .iter()
                .filter(|(_, role)| *role != Role::Service)
                .cloned()
                .collect(),
            now,
            boards: Mutex::default(),
        }))
    }

    fn request<T>(&self, msg: T) -> tonic::Request<T> {
        let mut req = tonic::Request::new(msg);
        if let Ok(value) = format!("Bearer {}", self.token).parse() {
            req.metadata_mut().insert("authorization", value);
        }
        req
    }

    fn clock(&self) -> ClockServiceClient<Grpc> {
        ClockServiceClient::new(self.clock.clone())
    }
    fn seating(&self) -> SeatingServiceClient<Grpc> {
        SeatingServiceClient::new(self.seating.clone())
    }
    fn payout(&self) -> PayoutServiceClient<Grpc> {
        PayoutServiceClient::new(self.payout.clone())
    }

    /// The board of a tournament, followed from the first page that asks.
    async fn board(self: &Arc<Self>, tournament: &str) -> Result<watch::Receiver<Arc<str>>, Shown> {
        if let Some(rx) = self.boards.lock().expect("boards").get(tournament) {
            return Ok(rx.clone());
        }
        // Only a tournament the services know gets a board.
        let standings = self
            .seating()
            .get_standings(self.request(pb::GetStandingsRequest {
                tournament_id: tournament.into(),
            }))
            .await
            .map_err(Shown::from)?
            .into_inner();
        let mut boards = self.boards.lock().expect("boards");
        if let Some(rx) = boards.get(tournament) {
            return Ok(rx.clone());
        }
        let board = Board::new(tournament, standings, self.now.clone());
        let rx = board.subscribe();
        boards.insert(tournament.to_string(), rx.clone());
        drop(boards);
        board::follow(self.clone(), Arc::new(board));
        Ok(rx)
    }

    /// The token a browser shows, if it is one of the deployment's.
    fn viewer(&self, headers: &HeaderMap, query: Option<&str>) -> Option<String> {
        let from_cookie = headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|c| c.trim().strip_prefix("felt_token="))
            .map(str::to_string);
        let from_header = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::to_string);
        query
            .map(str::to_string)
            .into_iter()
            .chain(from_header)
            .chain(from_cookie)
            .find(|t| self.viewers.contains_key(t))
    }
}

/// An error as a page or an API call shows it.
#[derive(Debug)]
struct Shown {
    status: StatusCode,
    message: String,
}

impl From<tonic::Status> for Shown {
    fn from(s: tonic::Status) -> Shown {
        let status = match s.code() {
            tonic::Code::NotFound => StatusCode::NOT_FOUND,
            tonic::Code::InvalidArgument => StatusCode::BAD_REQUEST,
            tonic::Code::Unauthenticated | tonic::Code::PermissionDenied => StatusCode::BAD_GATEWAY,
            _ => StatusCode::SERVICE_UNAVAILABLE,
        };
        Shown {
            status,
            message: s.message().to_string(),
        }
    }
}

impl IntoResponse for Shown {
    fn into_response(self) -> Response {
        (
            self.status,
            axum::Json(serde_json::json!({ "error": self.message })),
        )
            .into_response()
    }
}

fn unauthorized() -> Shown {
    Shown {
        status: StatusCode::UNAUTHORIZED,
        message: "a token is required: open the page once with ?token=<partner token>".into(),
    }
}

/// The display's routes, to merge beside the gRPC services.
pub(crate) fn router(display: Arc<Display>) -> Router {
    Router::new()
        .route("/", page_route(INDEX))
        .route("/t/{id}/clock", page_route(CLOCK))
        .route("/t/{id}/lobby", page_route(LOBBY))
        .route("/t/{id}/pay", page_route(PAY))
        .route("/t/{id}/bags", page_route(BAGS))
        .route("/assets/display.css", get(css))
        .route("/assets/display.js", get(js))
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
        .route("/api/tournaments", get(api_tournaments))
        .route("/api/t/{id}/events", get(api_events))
        .route("/api/t/{id}/find", get(api_find))
        .route("/api/t/{id}/tables", get(api_tables))
        .route("/api/t/{id}/bags", get(api_bags))
        .with_state(display)
}

#[derive(serde::Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

const INDEX: &str = include_str!("assets/index.html");
const CLOCK: &str = include_str!("assets/clock.html");
const LOBBY: &str = include_str!("assets/lobby.html");
const PAY: &str = include_str!("assets/pay.html");
const BAGS: &str = include_str!("assets/bags.html");
const LOGIN: &str = include_str!("assets/login.html");

/// A page: with a known token (from the query, once) it is served and the
/// token kept in a cookie; without one, the page asking for it.
fn page(
    display: &Display,
    headers: &HeaderMap,
    query: &TokenQuery,
    html: &'static str,
) -> Response {
    let Some(token) = display.viewer(headers, query.token.as_deref()) else {
        return (StatusCode::UNAUTHORIZED, Html(LOGIN)).into_response();
    };
    let mut response = Html(html).into_response();
    if query.token.is_some() {
        // A year: a TV stays logged in.
        let cookie =
            format!("felt_token={token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000");
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().insert(header::SET_COOKIE, value);
        }
    }
    response
}

/// The route of one page.
fn page_route(html: &'static str) -> axum::routing::MethodRouter<Arc<Display>> {
    get(
        move |State(d): State<Arc<Display>>, headers: HeaderMap, Query(q): Query<TokenQuery>| async move {
            page(&d, &headers, &q, html)
        },
    )
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

async fn css() -> Response {
    asset(
        "text/css; charset=utf-8",
        include_str!("assets/display.css"),
    )
}

async fn js() -> Response {
    asset(
        "text/javascript; charset=utf-8",
        include_str!("assets/display.js"),
    )
}

#[derive(Serialize)]
struct TournamentJson {
    id: String,
    name: String,
    started: bool,
    registration_closed: bool,
    entries: u32,
    players_left: u32,
}

async fn api_tournaments(
    State(d): State<Arc<Display>>,
    headers: HeaderMap,
) -> Result<Response, Shown> {
    d.viewer(&headers, None).ok_or_else(unauthorized)?;
    let list = d
        .seating()
        .list_tournaments(d.request(pb::ListTournamentsRequest {}))
        .await?
        .into_inner();
    let list: Vec<TournamentJson> = list
        .tournaments
        .into_iter()
        .map(|t| TournamentJson {
            id: t.tournament_id,
            name: t.name,
            started: t.started,
            registration_closed: t.registration_closed,
            entries: t.entries,
            players_left: t.players_left,
        })
        .collect();
    Ok(axum::Json(list).into_response())
}

/// The board of a tournament now, then every change, as server-sent
/// events; a browser that loses the connection reconnects by itself and
/// gets the board whole again.
async fn api_events(
    State(d): State<Arc<Display>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, Shown> {
    d.viewer(&headers, None).ok_or_else(unauthorized)?;
    let rx = d.board(&id).await?;
    let stream =
        tokio_stream::StreamExt::map(tokio_stream::wrappers::WatchStream::new(rx), |json| {
            Ok::<_, std::convert::Infallible>(Event::default().event("board").data(&*json))
        });
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(10)))
        .into_response())
}

#[derive(serde::Deserialize)]
struct FindQuery {
    q: String,
}

#[derive(Serialize)]
pub(crate) struct EntryJson {
    entry: u64,
    name: String,
    re_entry: bool,
    status: &'static str,
    table: u32,
    seat: u32,
    moving: bool,
}

fn entry_json(e: &pb::EntryView) -> EntryJson {
    use pb::EntryStatus as S;
    EntryJson {
        entry: e.entry,
        name: e.name.clone(),
        re_entry: e.re_entry,
        status: match e.status() {
            S::Alternate => "alternate",
            S::Registered => "registered",
            S::Seated => "seated",
            S::Busted => "busted",
            S::Disqualified => "disqualified",
            S::Unregistered => "unregistered",
            S::Unspecified => "unknown",
        },
        table: e.table,
        seat: e.seat,
        moving: e.moving,
    }
}

/// The seat finder: part of a name, a player id or an entry number.
async fn api_find(
    State(d): State<Arc<Display>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(q): Query<FindQuery>,
) -> Result<Response, Shown> {
    d.viewer(&headers, None).ok_or_else(unauthorized)?;
    let query = q.q.trim();
    if query.is_empty() {
        return Ok(axum::Json(Vec::<EntryJson>::new()).into_response());
    }
    let found = d
        .seating()
        .find_seat(d.request(pb::FindSeatRequest {
            tournament_id: id,
            query: query.into(),
        }))
        .await?
        .into_inner();
    let list: Vec<EntryJson> = found.entries.iter().take(50).map(entry_json).collect();
    Ok(axum::Json(list).into_response())
}

#[derive(Serialize)]
struct TableJson {
    table: u32,
    seats: u32,
    players: u32,
    breaking: bool,
    occupants: Vec<EntryJson>,
    /// The room's physical table it plays at ("" if none).
    physical: String,
    /// Players who busted and are deciding on a rebuy (rule 27): the
    /// table's next hand waits for them.
    rebuy_offers: Vec<u64>,
    /// While the day ends (rule 77): the last hands it has still to begin.
    last_hands_left: Option<u32>,
}

/// The table map: each table with its players by seat.
async fn api_tables(
    State(d): State<Arc<Display>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, Shown> {
    d.viewer(&headers, None).ok_or_else(unauthorized)?;
    let map = d
        .seating()
        .get_table_map(d.request(pb::GetTableMapRequest { tournament_id: id }))
        .await?
        .into_inner();
    let tables: Vec<TableJson> = map
        .tables
        .iter()
        .map(|t| TableJson {
            table: t.table,
            seats: t.seats,
            players: t.players,
            breaking: t.breaking,
            occupants: t.occupants.iter().map(entry_json).collect(),
            physical: t.physical_table.clone(),
            rebuy_offers: t.rebuy_offers.clone(),
            last_hands_left: t.last_hands_left,
        })
        .collect();
    Ok(axum::Json(serde_json::json!({
        "final_table": map.final_table,
        "tables": tables,
    }))
    .into_response())
}

/// `?day=N`: a day's bags (unset: the last day bagged).
#[derive(serde::Deserialize)]
struct DayQuery {
    day: Option<u32>,
}

/// The day's bags as the bag page shows them (GetBags), in the JSON export's
/// shape.
async fn api_bags(
    State(d): State<Arc<Display>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(q): Query<DayQuery>,
) -> Result<Response, Shown> {
    d.viewer(&headers, None).ok_or_else(unauthorized)?;
    let bags = d
        .seating()
        .get_bags(d.request(pb::GetBagsRequest {
            tournament_id: id,
            day: q.day.unwrap_or(0),
        }))
        .await?
        .into_inner();
    let body = crate::bags::json(&bags).map_err(|e| Shown {
        status: StatusCode::INTERNAL_SERVER_ERROR,
        message: e.to_string(),
    })?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

/// Wakes a refresher at most every `gap`, however often it is poked.
async fn coalesce(poke: &Notify, gap: Duration) {
    poke.notified().await;
    tokio::time::sleep(gap).await;
}
