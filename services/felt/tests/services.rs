//! The four services deployed apart: `felt serve table|seating|clock|payout`
//! as separate processes on one real nats-server, seating calling the
//! table service over gRPC. Seating seats 500
//! players on 56 tables, dealers play every table over gRPC, seating breaks
//! and balances tables as the bots bust players, and is killed (-9) and
//! started again halfway; the tournament still ends with every entry placed
//! once, the prizes adding up to the pool, and the audit passing. The room
//! display runs as its own process too (`felt serve display`) and its
//! board follows the services to the end.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tonic::Request;
use tonic::transport::Channel;

use felt_proto::v1 as pb;
use felt_proto::v1::clock_service_client::ClockServiceClient;
use felt_proto::v1::payout_service_client::PayoutServiceClient;
use felt_proto::v1::seating_service_client::SeatingServiceClient;

mod common;
use common::{channel, check_results, with};

/// One service process on a fixed port (so callers reconnect to it after
/// a restart).
struct Service {
    child: Child,
    name: &'static str,
    port: u16,
    nats: String,
    extra: Vec<String>,
}

impl Service {
    fn start(name: &'static str, nats: &str, extra: &[String]) -> Service {
        let mut s = Service {
            child: spawn(name, nats, common::free_block(&[0]), extra),
            name,
            port: 0,
            nats: nats.into(),
            extra: extra.to_vec(),
        };
        s.port = wait_ready(&mut s.child, name);
        s
    }

    fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// kill -9, then the same service again on the same port.
    fn restart(&mut self) {
        self.kill();
        self.child = spawn(self.name, &self.nats, self.port, &self.extra);
        wait_ready(&mut self.child, self.name);
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        self.kill();
    }
}

fn spawn(name: &str, nats: &str, port: u16, extra: &[String]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_felt"))
        .args(["serve", name, "--nats", nats, "--listen"])
        .arg(format!("127.0.0.1:{port}"))
        .args(extra)
        .args(["--token", "director=boss", "--token", "floor=floor"])
        .args(["--token", "partner=tv", "--token", "service=peer"])
        .env("RUST_BACKTRACE", "0")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start a service")
}

/// Waits for the service's "listening on" line; its port.
fn wait_ready(child: &mut Child, name: &str) -> u16 {
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("read");
    assert!(
        line.starts_with(&format!("felt {name} service listening on")),
        "{line:?}"
    );
    line.trim()
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("a port")
}

/// `felt serve display` as its own process, reading the other services.
struct Display {
    child: Child,
    addr: String,
}

impl Display {
    fn start(clock: &str, seating: &str, payout: &str) -> Display {
        let mut child = Command::new(env!("CARGO_BIN_EXE_felt"))
            .args(["serve", "display", "--listen", "127.0.0.1:0"])
            .args(["--clock", &format!("http://{clock}")])
            .args(["--seating", &format!("http://{seating}")])
            .args(["--payout", &format!("http://{payout}")])
            .args(["--token", "partner=tv"])
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the display");
        let port = wait_ready(&mut child, "display");
        Display {
            child,
            addr: format!("127.0.0.1:{port}"),
        }
    }

    /// Follows the board's server-sent events until one satisfies `done`
    /// (at most a minute).
    fn board_until(
        &self,
        tournament: &str,
        done: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        use std::io::Write;
        let mut stream = std::net::TcpStream::connect(&self.addr).expect("connect to the display");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .expect("timeout");
        // HTTP/1.0: the events come unchunked until the connection closes.
        write!(
            stream,
            "GET /api/t/{tournament}/events HTTP/1.0\r\nCookie: felt_token=tv\r\n\r\n"
        )
        .expect("ask");
        let mut lines = BufReader::new(stream).lines();
        let status = lines.next().expect("a status").expect("read");
        assert!(status.contains(" 200 "), "{status}");
        for line in lines {
            let line = line.expect("the display kept sending");
            if let Some(data) = line.strip_prefix("data: ") {
                let board: serde_json::Value = serde_json::from_str(data).expect("a board");
                if done(&board) {
                    return board;
                }
            }
        }
        panic!("the board's stream ended");
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const T: &str = "main";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn separate_services_on_jetstream_seat_500_players_on_56_tables_and_play_to_a_winner() {
    let nats = felt_testkit::NatsServer::start().expect("nats-server");
    let url = nats.url();
    let tables = Service::start("table", &url, &[]);
    // Seating and the clock send seats, moves and deals to the table
    // service over gRPC.
    let to_tables = ["--tables".to_string(), format!("http://{}", tables.addr())];
    let mut seating_service = Service::start("seating", &url, &to_tables);
    let _clock = Service::start("clock", &url, &to_tables);
    let payout_service = Service::start("payout", &url, &[]);
    let display = Display::start(
        &_clock.addr(),
        &seating_service.addr(),
        &payout_service.addr(),
    );
    let seating_channel = channel(&seating_service.addr());
    let mut seating = SeatingServiceClient::new(seating_channel.clone());

    seating
        .create_tournament(with(
            pb::CreateTournamentRequest {
                deal: pb::DealMode::Digital.into(),
                tournament_id: T.into(),
                name: "Main Event".into(),
                structure: Some(pb::create_tournament_request::Structure::Preset(
                    pb::StructurePreset::Turbo.into(),
                )),
                table_size: 9,
                money: Some(pb::MoneySettings {
                    buy_in: 10_000,
                    fee: 1_000,
                    ..Default::default()
                }),
                ..Default::default()
            },
            "boss",
        ))
        .await
        .expect("create");
    let began = Instant::now();
    for i in 1..=500 {
        seating
            .register(with(
                pb::RegisterRequest {
                    payment: None,
                    tournament_id: T.into(),
                    command_id: format!("r{i}"),
                    player_id: format!("p{i}"),
                    name: format!("Player {i}"),
                    give_up_chips: false,
                    ticket: None,
                },
                "floor",
            ))
            .await
            .expect("register");
    }
    let registering = began.elapsed();
    // The services' own credential, with which seating sends the table
    // service seats and moves, is no person's: it registers nobody.
    let refused = seating
        .register(with(
            pb::RegisterRequest {
                payment: None,
                tournament_id: T.into(),
                command_id: "r-peer".into(),
                player_id: "p-peer".into(),
                name: "Nobody".into(),
                give_up_chips: false,
                ticket: None,
            },
            "peer",
        ))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::PermissionDenied, "{refused:?}");
    let started = seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: T.into(),
            },
            "boss",
        ))
        .await
        .expect("start")
        .into_inner();
    assert_eq!((started.players, started.tables), (500, 56));
    let map = seating
        .get_table_map(with(
            pb::GetTableMapRequest {
                tournament_id: T.into(),
            },
            "tv",
        ))
        .await
        .expect("map")
        .into_inner();
    // Filled evenly: 500 on 56 tables of 9 is 52 tables of 9 and 4 of 8.
    assert_eq!(map.tables.len(), 56);
    assert!(map.tables.iter().all(|t| (8..=9).contains(&t.players)));

    // Dealers at every table; seating is killed and comes back halfway.
    let mut dealers = Vec::new();
    for table in 1..=56 {
        let (s, t) = (seating_channel.clone(), channel(&tables.addr()));
        dealers.push(tokio::spawn(async move {
            common::deal_table(s, t, T, table, "floor").await
        }));
    }
    let playing = Instant::now();
    loop {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let left = seating
            .get_standings(with(
                pb::GetStandingsRequest {
                    tournament_id: T.into(),
                },
                "tv",
            ))
            .await
            .expect("standings")
            .into_inner()
            .players_left;
        if left <= 250 {
            seating_service.restart();
            break;
        }
    }
    let mut hands = 0;
    let all = async {
        for d in dealers {
            hands += d.await.expect("a dealer");
        }
    };
    tokio::time::timeout(Duration::from_secs(240), all)
        .await
        .expect("the tournament finished within four minutes");
    let played = playing.elapsed();

    let payout = channel(&payout_service.addr());
    let results = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let r = common::results(&payout, T, "tv").await;
            if r.results.len() == 500 {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("every entry placed");
    let pool = PayoutServiceClient::new(payout)
        .get_payouts(with(
            pb::GetPayoutsRequest {
                tournament_id: T.into(),
            },
            "tv",
        ))
        .await
        .expect("payouts")
        .into_inner()
        .prize_pool;
    assert_eq!(pool, 500 * 10_000);
    check_results(&results.results, 500, pool);
    // Every move was carried out, from one table to another, with a reason.
    let mut seating = SeatingServiceClient::new(seating_channel);
    let mut moves_up_to = async |last: u32| {
        seating
            .get_moves(with(
                pb::GetMovesRequest {
                    tournament_id: T.into(),
                    last,
                },
                "tv",
            ))
            .await
            .expect("moves")
            .into_inner()
            .moves
    };
    let moves = moves_up_to(0).await;
    assert!(moves.len() > 56, "{} moves", moves.len());
    // A display asks for the last few only.
    assert_eq!(moves_up_to(5).await, moves[moves.len() - 5..]);
    assert_eq!(moves_up_to(100_000).await, moves);
    assert!(moves.iter().all(|m| m.completed));
    assert!(moves.iter().any(|m| m.reason() == pb::MoveReason::Balance));
    assert!(
        moves
            .iter()
            .any(|m| m.reason() == pb::MoveReason::TableBroken)
    );
    // Tables opened and seats taken, sent over gRPC, record the seating
    // decision each carries out and the chain it belongs to.
    let log = felt_eventlog::NatsLog::connect(&url, &felt_eventlog::NatsSettings::default())
        .await
        .expect("the log");
    let mut carried = 0;
    for table in 1..=56 {
        let stream = felt_tablelog::stream(T, table).unwrap();
        for e in felt_eventlog::EventLog::read(&log, &stream, 1)
            .await
            .unwrap()
        {
            if matches!(e.event_type.as_str(), "TableOpened" | "PlayerSeated") {
                carried += 1;
                assert!(
                    e.causation_id
                        .as_deref()
                        .is_some_and(|c| c.starts_with("main.seating.main@"))
                        && e.correlation_id.is_some(),
                    "{} at table {table}: {:?} {:?}",
                    e.event_type,
                    e.causation_id,
                    e.correlation_id
                );
            }
        }
    }
    assert!(carried > 500 + 56, "{carried} carried");
    println!(
        "500 registrations in {registering:?}; {hands} hands in {played:?} ({:.0} hands/s), {} moves",
        hands as f64 / played.as_secs_f64(),
        moves.len()
    );
    // The display process followed it all: its board (what the screens
    // get) shows the winner, every entry placed and the moves.
    let board = display.board_until(T, |b| {
        b["standings"]["players_left"] == 1
            && b["finished"] == 500
            && b["seating_version"].as_u64() > Some(0)
    });
    assert_eq!(board["name"], "Main Event");
    assert_eq!(board["live"], true);
    assert_eq!(board["pay"]["prize_pool"], 500 * 10_000);
    assert_eq!(board["results"][0]["first"], 1);
    assert_eq!(
        board["results"][0]["name"],
        results.results[0].name.as_str()
    );
    assert_eq!(board["moves"].as_array().map(Vec::len), Some(20));
    // The clock, a process of its own, stopped for good once payout
    // placed the winner (following payout's decisions in the log).
    let clock = channel(&_clock.addr());
    let mut status = pb::ClockStatus::Unspecified;
    for _ in 0..100 {
        status = clock_view(&clock, T).await.status();
        if status == pb::ClockStatus::Finished {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(status, pb::ClockStatus::Finished);
    common::audit_passes(&["--nats", &url]);
}

/// Seating deployed apart from the tables calls them with the services' own
/// credential: without one it does not start, and says which flag it needs.
#[test]
fn seating_apart_from_the_tables_needs_the_services_own_token() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_felt"))
        .args(["serve", "seating", "--listen", "127.0.0.1:0", "--data"])
        .arg(dir.path())
        .args(["--tables", "http://127.0.0.1:9", "--token", "director=boss"])
        .env("RUST_LOG", "off")
        .output()
        .expect("run felt serve");
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("--token service=TOKEN"), "{said}");
}

/// The clock of tournament `t`, as a partner reads it.
async fn clock_view(clock: &Channel, t: &str) -> pb::ClockView {
    ClockServiceClient::new(clock.clone())
        .get_clock(with(
            pb::GetClockRequest {
                tournament_id: t.into(),
            },
            "tv",
        ))
        .await
        .expect("the clock")
        .into_inner()
        .clock
        .expect("a view")
}

/// Whether seating plays hand-for-hand in tournament `t`.
async fn seating_hand_for_hand(seating: &Channel, t: &str) -> bool {
    SeatingServiceClient::new(seating.clone())
        .get_standings(with(
            pb::GetStandingsRequest {
                tournament_id: t.into(),
            },
            "tv",
        ))
        .await
        .expect("standings")
        .into_inner()
        .hand_for_hand
}

fn control(
    t: &str,
    id: &str,
    command: pb::control_clock_request::Command,
) -> Request<pb::ControlClockRequest> {
    with(
        pb::ControlClockRequest {
            tournament_id: t.into(),
            command_id: id.into(),
            command: Some(command),
        },
        "floor",
    )
}

/// Issue 23, one writer per stream: hand-for-hand is seating's decision
/// (RP8: seating holds the tables, the clock stops and deducts its time),
/// so the floor's hand-for-hand sent to a clock deployed apart goes to
/// seating (`--seating`) and the clock follows seating's decision. A clock
/// that does not know where seating is refuses it and writes nothing;
/// told, it answers with the clock already in hand-for-hand, a repeat is a
/// repeat, and a stop sent to seating directly reaches the clock too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_floors_hand_for_hand_at_a_clock_apart_from_seating_is_decided_by_seating() {
    use pb::control_clock_request::Command as C;
    let t = "hfh";
    let nats = felt_testkit::NatsServer::start().expect("nats-server");
    let url = nats.url();
    let tables = Service::start("table", &url, &[]);
    let to_tables = ["--tables".to_string(), format!("http://{}", tables.addr())];
    let seating_service = Service::start("seating", &url, &to_tables);
    let mut lost = Service::start("clock", &url, &to_tables);
    let _payout = Service::start("payout", &url, &[]);
    let seating_channel = channel(&seating_service.addr());
    let mut seating = SeatingServiceClient::new(seating_channel.clone());
    seating
        .create_tournament(with(
            pb::CreateTournamentRequest {
                deal: pb::DealMode::Digital.into(),
                tournament_id: t.into(),
                name: "Apart".into(),
                structure: Some(pb::create_tournament_request::Structure::Preset(
                    pb::StructurePreset::Turbo.into(),
                )),
                table_size: 9,
                money: Some(pb::MoneySettings {
                    buy_in: 10_000,
                    fee: 1_000,
                    ..Default::default()
                }),
                ..Default::default()
            },
            "boss",
        ))
        .await
        .expect("create");
    seating
        .register_many(with(
            pb::RegisterManyRequest {
                payment: None,
                tournament_id: t.into(),
                command_id: "presales".into(),
                players: (1..=30)
                    .map(|i| pb::Registrant {
                        player_id: format!("p{i}"),
                        name: format!("Player {i}"),
                    })
                    .collect(),
            },
            "floor",
        ))
        .await
        .expect("register");
    seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: t.into(),
            },
            "boss",
        ))
        .await
        .expect("start");
    // A clock apart from seating that was not told where seating is.
    let refused = ClockServiceClient::new(channel(&lost.addr()))
        .control_clock(control(
            t,
            "hfh-1",
            C::StartHandForHand(pb::StartHandForHand {}),
        ))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::FailedPrecondition);
    assert!(refused.message().contains("--seating URL"), "{refused:?}");
    assert!(!seating_hand_for_hand(&seating_channel, t).await);
    lost.kill();
    // Told where seating is.
    let mut apart = to_tables.to_vec();
    apart.extend([
        "--seating".to_string(),
        format!("http://{}", seating_service.addr()),
    ]);
    let clock_service = Service::start("clock", &url, &apart);
    let clock_channel = channel(&clock_service.addr());
    let mut clock = ClockServiceClient::new(clock_channel.clone());
    let started = clock
        .control_clock(control(
            t,
            "hfh-1",
            C::StartHandForHand(pb::StartHandForHand {}),
        ))
        .await
        .expect("hand-for-hand")
        .into_inner();
    assert!(!started.duplicate);
    assert_eq!(
        started.clock.expect("a view").status(),
        pb::ClockStatus::HandForHand
    );
    assert!(seating_hand_for_hand(&seating_channel, t).await);
    let again = clock
        .control_clock(control(
            t,
            "hfh-1",
            C::StartHandForHand(pb::StartHandForHand {}),
        ))
        .await
        .expect("the same command")
        .into_inner();
    assert!(again.duplicate);
    // Seating's refusal comes back whole: it is already being played.
    let twice = clock
        .control_clock(control(
            t,
            "hfh-2",
            C::StartHandForHand(pb::StartHandForHand {}),
        ))
        .await
        .unwrap_err();
    assert_eq!(twice.code(), tonic::Code::FailedPrecondition, "{twice:?}");
    assert!(
        twice.message().contains("already being played"),
        "{twice:?}"
    );
    // Its kind, reason and rule arrive through the clock as seating
    // classified them: in the google.rpc.ErrorInfo detail and in the
    // metadata.
    {
        use tonic_types::StatusExt;
        let info = twice.get_details_error_info().expect("an ErrorInfo");
        assert_eq!(
            (info.reason.as_str(), info.domain.as_str()),
            ("HandForHand", "felt.poker")
        );
        assert_eq!(
            info.metadata.get("kind").map(String::as_str),
            Some("refused")
        );
        assert_eq!(
            twice.metadata().get("felt-rejection").unwrap(),
            "HandForHand"
        );
        assert_eq!(twice.metadata().get("felt-error-kind").unwrap(), "refused");
        // And the rule it applied, apart from the message.
        assert_eq!(
            info.metadata.get("rule").map(String::as_str),
            Some("TDA RP8")
        );
        assert_eq!(twice.metadata().get("felt-rule").unwrap(), "TDA RP8");
    }
    // The floor stops it at seating; the clock follows on its own.
    let stopped = seating
        .hand_for_hand(with(
            pb::HandForHandRequest {
                tournament_id: t.into(),
                command_id: "hfh-3".into(),
                action: pb::HandForHandAction::Stop.into(),
            },
            "floor",
        ))
        .await
        .expect("stop")
        .into_inner();
    assert!(!stopped.hand_for_hand);
    let deadline = Instant::now() + Duration::from_secs(20);
    while clock_view(&clock_channel, t).await.status() == pb::ClockStatus::HandForHand {
        assert!(
            Instant::now() < deadline,
            "the clock never left hand-for-hand"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // A partner's token decides nothing.
    let partner = seating
        .hand_for_hand(with(
            pb::HandForHandRequest {
                tournament_id: t.into(),
                command_id: "hfh-4".into(),
                action: pb::HandForHandAction::Start.into(),
            },
            "tv",
        ))
        .await
        .unwrap_err();
    assert_eq!(partner.code(), tonic::Code::PermissionDenied);
}

/// Issue 23, one writer per stream: the time-bank cards a player's
/// decision took on the action clock (seed 002: "Action Clock", cards of
/// extra time) are the clock's to record. A table service deployed apart
/// from the clock sends them to the clock (`--clock`) before the table
/// records the time-out; one that does not know where the clock is refuses
/// the time-out, naming the flag, and writes nothing anywhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn time_bank_cards_at_a_table_service_apart_from_the_clock_are_recorded_by_the_clock() {
    use felt_proto::v1::table_service_client::TableServiceClient;
    use pb::execute_request::Command as C;
    let t = "bank";
    let nats = felt_testkit::NatsServer::start().expect("nats-server");
    let url = nats.url();
    // The tables seating sends to; the clock added once it is listening.
    let lost = Service::start("table", &url, &[]);
    let to_tables = ["--tables".to_string(), format!("http://{}", lost.addr())];
    let seating_service = Service::start("seating", &url, &to_tables);
    let mut apart = to_tables.to_vec();
    apart.extend([
        "--seating".to_string(),
        format!("http://{}", seating_service.addr()),
    ]);
    let clock_service = Service::start("clock", &url, &apart);
    let _payout = Service::start("payout", &url, &[]);
    let told = Service::start(
        "table",
        &url,
        &[
            "--clock".to_string(),
            format!("http://{}", clock_service.addr()),
        ],
    );
    let mut seating = SeatingServiceClient::new(channel(&seating_service.addr()));
    seating
        .create_tournament(with(
            pb::CreateTournamentRequest {
                deal: pb::DealMode::Digital.into(),
                tournament_id: t.into(),
                name: "Shot clock".into(),
                structure: Some(pb::create_tournament_request::Structure::Preset(
                    pb::StructurePreset::Turbo.into(),
                )),
                table_size: 9,
                money: Some(pb::MoneySettings {
                    buy_in: 10_000,
                    fee: 1_000,
                    ..Default::default()
                }),
                action_clock: Some(pb::ActionClockSettings {
                    enabled: true,
                    grace_ms: 1,
                    decision_ms: 300,
                    card_ms: 300,
                    cards_per_day: 1,
                    called_ms: 400,
                    countdown_ms: 100,
                }),
                ..Default::default()
            },
            "boss",
        ))
        .await
        .expect("create");
    seating
        .register_many(with(
            pb::RegisterManyRequest {
                payment: None,
                tournament_id: t.into(),
                command_id: "two".into(),
                players: (1..=2)
                    .map(|i| pb::Registrant {
                        player_id: format!("p{i}"),
                        name: format!("Player {i}"),
                    })
                    .collect(),
            },
            "floor",
        ))
        .await
        .expect("register");
    seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: t.into(),
            },
            "boss",
        ))
        .await
        .expect("start");
    let mut dealt = None;
    for _ in 0..200 {
        let out = seating
            .begin_hand(with(
                pb::BeginHandRequest {
                    tournament_id: t.into(),
                    table: 1,
                },
                "boss",
            ))
            .await
            .expect("begin")
            .into_inner();
        if let Some(pb::begin_hand_response::Outcome::Dealt(d)) = out.outcome {
            dealt = d.table;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let dealt = dealt.expect("a hand dealt");
    let dealt = common::add_entropy(channel(&told.addr()), t, 1, dealt, "boss").await;
    let hand = dealt.hand.expect("a hand");
    let seat = hand.to_act.expect("someone to act");
    let clock_channel = channel(&clock_service.addr());
    let before = clock_view(&clock_channel, t).await.version;
    // Past the shot clock and the one card: out of time, the card used.
    tokio::time::sleep(Duration::from_millis(900)).await;
    let time_out_of = |table: &Service, seat: u32| {
        let mut client = TableServiceClient::new(channel(&table.addr()));
        async move {
            client
                .execute(with(
                    pb::ExecuteRequest {
                        provenance: None,
                        table: Some(pb::TableRef {
                            tournament_id: t.into(),
                            table: 1,
                        }),
                        command_id: "to-1".into(),
                        command: Some(C::TimeOut(pb::TimeOut { seat })),
                    },
                    "floor",
                ))
                .await
                .map(tonic::Response::into_inner)
        }
    };
    let time_out = |table: &Service| time_out_of(table, seat);
    let refused = time_out(&lost).await.unwrap_err();
    assert_eq!(
        refused.code(),
        tonic::Code::FailedPrecondition,
        "{refused:?}"
    );
    assert!(refused.message().contains("--clock URL"), "{refused:?}");
    assert_eq!(clock_view(&clock_channel, t).await.version, before);
    let out = time_out(&told).await.expect("timed out");
    let types: Vec<&str> = out.events.iter().map(|e| e.r#type.as_str()).collect();
    assert_eq!(types[..2], ["TimedOut", "ActionTaken"], "{types:?}");
    let again = time_out(&told).await.expect("the same command");
    assert!(again.duplicate);
    // The command id again for another seat's time-out: refused, naming
    // the first request's fingerprint.
    let reused = time_out_of(&told, seat % 9 + 1).await.unwrap_err();
    assert_eq!(reused.code(), tonic::Code::AlreadyExists, "{reused:?}");
    assert!(reused.message().contains("fingerprint"), "{reused:?}");
    // The clock recorded the card.
    let mut watch = ClockServiceClient::new(clock_channel.clone())
        .watch_clock(with(
            pb::WatchClockRequest {
                tournament_id: t.into(),
                after_version: before,
            },
            "tv",
        ))
        .await
        .expect("watch")
        .into_inner();
    let used = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(item) = watch.message().await.expect("the clock's stream") {
            for e in &item.events {
                if let Some(pb::clock_event::Kind::TimeBankUsed(used)) = &e.kind {
                    assert_eq!(e.r#type, "TimeBankUsed");
                    return *used;
                }
            }
        }
        panic!("the clock's stream ended");
    })
    .await
    .expect("the clock recorded no time-bank card");
    assert_eq!(used.cards, 1, "{used:?}");
    assert!(used.entry > 0, "the entry who used it: {used:?}");
}
