//! The holes a first probe found, tried again against `felt up` as a new
//! user and an attacker would: a refused creation that poisoned the
//! registry, money and chips that wrapped, strings of any length, an audit
//! that called unfinished tournaments failed, and logs written before the
//! fixes that still hold half-created tournaments.

use std::path::Path;
use std::process::Command;

use felt_proto::v1 as pb;
use felt_proto::v1::table_service_client::TableServiceClient;
use tonic::Code;

mod common;
use common::{Up, presales, with};

fn create(id: &str) -> pb::CreateTournamentRequest {
    pb::CreateTournamentRequest {
        deal: pb::DealMode::Digital.into(),
        tournament_id: id.into(),
        name: format!("Probe {id}"),
        structure: Some(pb::create_tournament_request::Structure::Preset(
            pb::StructurePreset::Turbo.into(),
        )),
        table_size: 9,
        money: Some(pb::MoneySettings {
            currency: "BRL".into(),
            buy_in: 4_000,
            fee: 1_000,
            ..Default::default()
        }),
        ..Default::default()
    }
}

async fn listed(up: &Up) -> Vec<String> {
    up.seating()
        .list_tournaments(with(pb::ListTournamentsRequest {}, up.token("partner")))
        .await
        .expect("the list")
        .into_inner()
        .tournaments
        .into_iter()
        .map(|t| t.tournament_id)
        .collect()
}

/// `felt audit verify` on a data folder: whether it passed, and its output.
fn audit(data: &Path) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_felt"))
        .args(["audit", "verify", "--data"])
        .arg(data)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run felt audit");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// A creation refused for its table size or its action clock leaves
/// nothing anywhere: the list, the display's index and the audit go on
/// for every other tournament, and the id can be created properly after.
/// Unfinished tournaments are audited as what they are, not as failures.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_creation_leaves_nothing_behind_and_unfinished_play_audits_clean() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut up = Up::start(&[], &data).await;
    let director = up.token("director").to_string();
    let mut seating = up.seating();

    // One tournament registered but not started, one with a hand dealt.
    seating
        .create_tournament(with(create("waiting"), &director))
        .await
        .expect("created");
    presales(&mut up.seating(), "waiting", 3, up.token("director")).await;
    seating
        .create_tournament(with(create("live"), &director))
        .await
        .expect("created");
    presales(&mut up.seating(), "live", 4, up.token("director")).await;
    seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: "live".into(),
            },
            &director,
        ))
        .await
        .expect("started");
    let begun = seating
        .begin_hand(with(
            pb::BeginHandRequest {
                tournament_id: "live".into(),
                table: 1,
            },
            &director,
        ))
        .await
        .expect("a hand")
        .into_inner();
    assert!(
        matches!(
            begun.outcome,
            Some(pb::begin_hand_response::Outcome::Dealt(_))
        ),
        "{begun:?}"
    );

    // Refused: a table of one seat, a table of eleven, an action clock
    // with a negative decision time.
    let mut one_seat = create("broken");
    one_seat.table_size = 1;
    let mut eleven = create("broken");
    eleven.table_size = 11;
    let mut bad_clock = create("broken");
    bad_clock.action_clock = Some(pb::ActionClockSettings {
        enabled: true,
        decision_ms: -5,
        ..Default::default()
    });
    for (what, request) in [
        ("one seat", one_seat),
        ("eleven seats", eleven),
        ("a negative decision time", bad_clock),
    ] {
        let e = seating
            .create_tournament(with(request, &director))
            .await
            .expect_err(what);
        assert!(
            matches!(e.code(), Code::FailedPrecondition | Code::InvalidArgument),
            "{what}: {e:?}"
        );
        let mut names = listed(&up).await;
        names.sort();
        assert_eq!(names, ["live", "waiting"], "after {what}");
        let e = seating
            .get_standings(with(
                pb::GetStandingsRequest {
                    tournament_id: "broken".into(),
                },
                &director,
            ))
            .await
            .unwrap_err();
        assert_eq!(e.code(), Code::NotFound, "after {what}");
    }
    // The room display's index lists the others.
    let index = display_list(&up.addr, up.token("partner")).await;
    assert!(
        index.contains("\"live\"") && index.contains("\"waiting\""),
        "{index}"
    );

    // The audit: nothing refused is in the log, the tournament not started
    // and the hand in progress are said as such, and nothing fails.
    up.stop();
    let (ok, out) = audit(&data);
    assert!(ok && out.contains(" 0 failed"), "{out}");
    assert!(
        out.contains("waiting: not started (3 entries registered)"),
        "{out}"
    );
    assert!(
        out.contains("live: in play, 1 hand(s) in progress (table 1 hand 1)"),
        "{out}"
    );
    assert!(!out.contains("broken") && !out.contains("SKIPPED"), "{out}");

    // The id was never taken: created now, properly.
    let up = Up::start(&[], &data).await;
    let created = up
        .seating()
        .create_tournament(with(create("broken"), up.token("director")))
        .await
        .expect("created after all")
        .into_inner();
    assert!(!created.existed);
    assert!(listed(&up).await.contains(&"broken".to_string()));
}

/// The room display's list of tournaments (what its index page shows),
/// over plain HTTP/1.1 as a browser with the token's cookie asks for it.
async fn display_list(addr: &str, token: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut socket = tokio::net::TcpStream::connect(addr).await.expect("connect");
    socket
        .write_all(
            format!(
                "GET /api/tournaments HTTP/1.1\r\nHost: {addr}\r\nCookie: felt_token={token}\r\nConnection: close\r\n\r\n"
            )
            .as_bytes(),
        )
        .await
        .expect("send");
    let mut answer = Vec::new();
    socket.read_to_end(&mut answer).await.expect("read");
    let text = String::from_utf8_lossy(&answer).into_owned();
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    text
}

/// Money and chips whose totals could wrap, and strings of any length, are
/// refused when the tournament is created, naming the bound, and leave
/// nothing behind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn amounts_that_could_wrap_and_unbounded_strings_are_refused_at_creation() {
    let dir = tempfile::tempdir().unwrap();
    let up = Up::start(&[], &dir.path().join("data")).await;
    let director = up.token("director").to_string();
    let mut seating = up.seating();
    let refused = |request: pb::CreateTournamentRequest| {
        let mut seating = seating.clone();
        let director = director.clone();
        async move {
            seating
                .create_tournament(with(request, &director))
                .await
                .expect_err("refused")
        }
    };
    // The probe: a buy-in of 2^64 - 1 with three entries gave a prize pool
    // of 2^64 - 3.
    let mut huge = create("huge");
    huge.money.as_mut().unwrap().buy_in = u64::MAX;
    let e = refused(huge).await;
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(
        e.message().contains("at most 9007199254"),
        "{}",
        e.message()
    );
    // A starting stack no field could count.
    let mut stack = create("stack");
    stack.structure = Some(pb::create_tournament_request::Structure::StructureText(
        "name = \"Huge\"\nstarting_stack = 18446744073709551615\n[[periods]]\nkind = \"level\"\nsmall_blind = 100\nbig_blind = 200\nminutes = 20\n".into(),
    ));
    let e = refused(stack).await;
    assert!(
        e.message().contains("chips a tournament may have in play"),
        "{}",
        e.message()
    );
    // A currency that is no ISO 4217 code.
    let mut currency = create("money");
    currency.money.as_mut().unwrap().currency = "reais".into();
    let e = refused(currency).await;
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("ISO 4217"), "{}", e.message());
    // A name of a megabyte: refused, quoting only its start.
    let mut long = create("long");
    long.name = "x".repeat(1 << 20);
    let e = refused(long).await;
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().starts_with("name: at most 100 characters"),
        "{}",
        e.message()
    );
    assert!(
        e.message().len() < 200,
        "{} bytes quoted",
        e.message().len()
    );
    // An id too long for a stream, or of other characters.
    for id in ["a".repeat(65), "a.b".to_string()] {
        let e = refused(create(&id)).await;
        assert_eq!(e.code(), Code::InvalidArgument);
        assert!(e.message().len() < 200, "{}", e.message());
    }
    assert!(listed(&up).await.is_empty());
    // A player's name and id are bounded too.
    seating
        .create_tournament(with(create("fine"), &director))
        .await
        .expect("created");
    let e = seating
        .register(with(
            pb::RegisterRequest {
                payment: None,
                tournament_id: "fine".into(),
                command_id: "r1".into(),
                player_id: "p 1".into(),
                name: "Ana".into(),
                give_up_chips: false,
                ticket: None,
            },
            &director,
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().starts_with("player_id:"), "{}", e.message());
}

/// A log written before creation was all or nothing can hold a registered
/// tournament whose seating, clock or payout refused it: the services list
/// and serve the others, and the audit reports it and goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_created_tournaments_in_an_older_log_are_passed_over_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    {
        // What the old order (registry first) left behind: a tournament
        // whose seating refused it (one seat), and one whose clock did (a
        // bad action clock) after seating took it.
        let log = std::sync::Arc::new(
            felt_eventlog::EmbeddedLog::open(&data.join("log.redb")).expect("a log"),
        );
        let rules = felt_table::HouseRules::default();
        felt_tournament::aggregates::register_tournament(
            log.as_ref(),
            &"seatless".parse().unwrap(),
            "Seatless",
            rules,
            felt_tournament::DealMode::Digital,
            None,
            1,
        )
        .await
        .unwrap();
        felt_tournament::aggregates::register_tournament(
            log.as_ref(),
            &"clockless".parse().unwrap(),
            "Clockless",
            rules,
            felt_tournament::DealMode::Digital,
            None,
            2,
        )
        .await
        .unwrap();
        let seating: felt_service::Handler<felt_tournament::aggregates::Seating, _> =
            felt_service::Handler::new(log.clone());
        seating
            .handle(
                &felt_tournament::aggregates::seating_stream("clockless").unwrap(),
                "create",
                2,
                &felt_seating::SeatingCommand::Create {
                    name: "Clockless".into(),
                    settings: felt_seating::Settings::tda(9, 20_000),
                },
            )
            .await
            .expect("seating took it");
    }
    let mut up = Up::start(&[], &data).await;
    up.seating()
        .create_tournament(with(create("whole"), up.token("director")))
        .await
        .expect("created");
    assert_eq!(listed(&up).await, ["whole"]);
    for t in ["seatless", "clockless"] {
        let e = up
            .seating()
            .get_standings(with(
                pb::GetStandingsRequest {
                    tournament_id: t.into(),
                },
                up.token("director"),
            ))
            .await
            .unwrap_err();
        assert_eq!(e.code(), Code::NotFound, "{t}");
    }
    let index = display_list(&up.addr, up.token("partner")).await;
    assert!(index.contains("\"whole\""), "{index}");
    up.stop();
    let (ok, out) = audit(&data);
    assert!(ok && out.contains(" 0 failed"), "{out}");
    assert!(
        out.contains("SKIPPED seatless: never wholly created (seating and the clock and payout never accepted it)"),
        "{out}"
    );
    assert!(
        out.contains(
            "SKIPPED clockless: never wholly created (the clock and payout never accepted it)"
        ),
        "{out}"
    );
    assert!(out.contains("whole: not started"), "{out}");
}

/// BeginHand answers with the table as GetTable shows it, its version
/// included: a dealer's tablet that keeps the version it was told is not
/// behind from the first hand on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn begin_hand_answers_with_the_tables_real_version() {
    let dir = tempfile::tempdir().unwrap();
    let up = Up::start(&[], &dir.path().join("data")).await;
    let director = up.token("director").to_string();
    let mut seating = up.seating();
    seating
        .create_tournament(with(create("v"), &director))
        .await
        .expect("created");
    presales(&mut up.seating(), "v", 4, &director).await;
    seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: "v".into(),
            },
            &director,
        ))
        .await
        .expect("started");
    let begun = seating
        .begin_hand(with(
            pb::BeginHandRequest {
                tournament_id: "v".into(),
                table: 1,
            },
            &director,
        ))
        .await
        .expect("a hand")
        .into_inner();
    let Some(pb::begin_hand_response::Outcome::Dealt(dealt)) = begun.outcome else {
        panic!("no hand dealt: {begun:?}");
    };
    let told = dealt.table.expect("the table").version;
    let table = TableServiceClient::new(up.channel.clone())
        .get_table(with(
            pb::GetTableRequest {
                table: Some(pb::TableRef {
                    tournament_id: "v".into(),
                    table: 1,
                }),
            },
            &director,
        ))
        .await
        .expect("the table")
        .into_inner()
        .table
        .expect("a view");
    assert!(table.version > 0, "{table:?}");
    assert_eq!(told, table.version);
}
