//! Partner reach: a browser's gRPC-Web and CORS on the services' own port,
//! and the client examples in `examples/` run as a partner would run them,
//! against `felt up`.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use felt_proto::prost::Message as _;
use felt_proto::v1 as pb;

mod common;
use common::browser::Browser;
use common::{Hand, Up, open_tournament, play_hand, with};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One HTTP/1.1 exchange on a fresh connection: the status line, the
/// headers (names lowercased) and the body, de-chunked.
fn http1(addr: &str, head: &str, body: &[u8]) -> (String, Vec<(String, String)>, Vec<u8>) {
    let mut s = std::net::TcpStream::connect(addr).expect("connect");
    write!(
        s,
        "{head}Host: {addr}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .expect("send the head");
    s.write_all(body).expect("send the body");
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read the answer");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8(raw[..split].to_vec()).expect("a text head");
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap_or_default().to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.to_ascii_lowercase(), v.to_string()))
        .collect();
    let mut rest = &raw[split + 4..];
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked {
        let mut body = Vec::new();
        loop {
            let end = rest
                .windows(2)
                .position(|w| w == b"\r\n")
                .expect("a chunk size");
            let size = usize::from_str_radix(std::str::from_utf8(&rest[..end]).unwrap(), 16)
                .expect("a hex chunk size");
            if size == 0 {
                break body;
            }
            body.extend_from_slice(&rest[end + 2..end + 2 + size]);
            rest = &rest[end + 2 + size + 2..];
        }
    } else {
        rest.to_vec()
    };
    (status, headers, body)
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// A gRPC-Web body: each frame's flag byte and its bytes.
fn frames(mut body: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    while body.len() >= 5 {
        let len = u32::from_be_bytes(body[1..5].try_into().unwrap()) as usize;
        out.push((body[0], body[5..5 + len].to_vec()));
        body = &body[5 + len..];
    }
    assert!(body.is_empty(), "a frame cut short");
    out
}

fn grpc_web_call(
    addr: &str,
    path: &str,
    token: Option<&str>,
    msg: &impl felt_proto::prost::Message,
) -> (String, Vec<(String, String)>, Vec<u8>) {
    let bytes = msg.encode_to_vec();
    let mut framed = vec![0u8];
    framed.extend_from_slice(&u32::try_from(bytes.len()).unwrap().to_be_bytes());
    framed.extend_from_slice(&bytes);
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    http1(
        addr,
        &format!(
            "POST {path} HTTP/1.1\r\nContent-Type: application/grpc-web+proto\r\nX-Grpc-Web: 1\r\nOrigin: https://overlay.example\r\n{auth}"
        ),
        &framed,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_calls_every_service_over_grpc_web_from_another_origin() {
    let dir = tempfile::tempdir().unwrap();
    let up = Up::start(&[], &dir.path().join("up")).await;
    let director = up.token("director").to_string();
    let partner = up.token("partner").to_string();
    // Given a tournament created over gRPC,
    up.seating()
        .create_tournament(with(
            pb::CreateTournamentRequest {
                deal: pb::DealMode::Digital.into(),
                tournament_id: "web".into(),
                name: "Browser night".into(),
                structure: Some(pb::create_tournament_request::Structure::Preset(
                    pb::StructurePreset::Turbo.into(),
                )),
                table_size: 9,
                money: Some(pb::MoneySettings {
                    currency: "USD".into(),
                    buy_in: 10_000,
                    ..Default::default()
                }),
                ..Default::default()
            },
            &director,
        ))
        .await
        .expect("create");
    // when a page on another origin asks first (a CORS preflight), then
    // it may send the token and gRPC-Web's headers, and read the status,
    let (status, headers, _) = http1(
        &up.addr,
        "OPTIONS /felt.v1.ClockService/GetClock HTTP/1.1\r\nOrigin: https://overlay.example\r\nAccess-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: authorization,content-type,x-grpc-web\r\n",
        b"",
    );
    assert!(status.starts_with("HTTP/1.1 200"), "{status} {headers:?}");
    assert_eq!(header(&headers, "access-control-allow-origin"), Some("*"));
    let allowed = header(&headers, "access-control-allow-headers").unwrap_or_default();
    for h in ["authorization", "content-type", "x-grpc-web"] {
        assert!(allowed.contains(h), "{h} not allowed: {allowed}");
    }
    // and its calls are answered in gRPC-Web by each service on the port:
    // seating's list, the clock's view, payout's results (an empty list),
    // each status in a trailer frame, readable across origins.
    let (status, headers, body) = grpc_web_call(
        &up.addr,
        "/felt.v1.SeatingService/ListTournaments",
        Some(&partner),
        &pb::ListTournamentsRequest::default(),
    );
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    assert_eq!(
        header(&headers, "content-type"),
        Some("application/grpc-web+proto")
    );
    assert_eq!(header(&headers, "access-control-allow-origin"), Some("*"));
    assert!(
        header(&headers, "access-control-expose-headers")
            .unwrap_or_default()
            .contains("grpc-status"),
        "{headers:?}"
    );
    let got = frames(&body);
    assert_eq!(got.len(), 2, "a message and a trailer: {got:?}");
    let list = pb::ListTournamentsResponse::decode(&got[0].1[..]).expect("a list");
    assert_eq!(list.tournaments.len(), 1, "{list:?}");
    assert_eq!(list.tournaments[0].name, "Browser night");
    assert_eq!(got[1].0, 0x80, "the trailer frame");
    assert!(
        String::from_utf8_lossy(&got[1].1).contains("grpc-status:0"),
        "{:?}",
        String::from_utf8_lossy(&got[1].1)
    );
    let (_, _, body) = grpc_web_call(
        &up.addr,
        "/felt.v1.ClockService/GetClock",
        Some(&partner),
        &pb::GetClockRequest {
            tournament_id: "web".into(),
        },
    );
    let clock = pb::GetClockResponse::decode(&frames(&body)[0].1[..])
        .expect("a clock")
        .clock
        .expect("a view");
    assert_eq!(clock.status(), pb::ClockStatus::NotStarted);
    assert_eq!(clock.blinds.map(|l| l.big_blind), Some(200));
    // A refusal reaches the page with its code, its message and felt's
    // reason: no token, then a tournament that does not exist.
    let (_, headers, _) = grpc_web_call(
        &up.addr,
        "/felt.v1.PayoutService/GetResults",
        None,
        &pb::GetResultsRequest {
            tournament_id: "web".into(),
        },
    );
    assert_eq!(header(&headers, "grpc-status"), Some("16"), "{headers:?}");
    let (_, headers, body) = grpc_web_call(
        &up.addr,
        "/felt.v1.PayoutService/GetResults",
        Some(&partner),
        &pb::GetResultsRequest {
            tournament_id: "nowhere".into(),
        },
    );
    let trailer_or_header = |name: &str| {
        header(&headers, name).map(str::to_string).or_else(|| {
            frames(&body)
                .iter()
                .filter(|(flag, _)| flag & 0x80 != 0)
                .flat_map(|(_, t)| {
                    String::from_utf8_lossy(t)
                        .split("\r\n")
                        .filter_map(|l| l.split_once(':'))
                        .filter(|(k, _)| k.eq_ignore_ascii_case(name))
                        .map(|(_, v)| v.trim().to_string())
                        .collect::<Vec<_>>()
                })
                .next()
        })
    };
    assert_eq!(trailer_or_header("grpc-status").as_deref(), Some("5"));
    assert!(
        trailer_or_header("grpc-message")
            .unwrap_or_default()
            .contains("nowhere"),
        "{headers:?}"
    );
    // The room display's pages on the same port stay same-origin only
    // (they hold a cookie): no CORS answer for them.
    let (status, headers, _) = http1(
        &up.addr,
        &format!(
            "GET /api/t/web/tables HTTP/1.1\r\nOrigin: https://overlay.example\r\nAuthorization: Bearer {partner}\r\n"
        ),
        b"",
    );
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    assert_eq!(header(&headers, "access-control-allow-origin"), None);
    // A ruling's refusal carries felt's reason and its kind for the page.
    let (_, headers, _) = grpc_web_call(
        &up.addr,
        "/felt.v1.SeatingService/StartTournament",
        Some(&director),
        &pb::StartTournamentRequest {
            tournament_id: "web".into(),
        },
    );
    assert_eq!(header(&headers, "grpc-status"), Some("9"), "{headers:?}");
    assert!(header(&headers, "felt-rejection").is_some(), "{headers:?}");
    assert!(
        header(&headers, "grpc-status-details-bin").is_some(),
        "{headers:?}"
    );
}

/// The Python the test command prepares (with grpcio-tools).
fn python() -> PathBuf {
    let python = std::env::var_os("FELT_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/tools/venv/bin/python"));
    assert!(
        python.exists(),
        "the Python example needs grpcio-tools in {} (scripts/test installs it)",
        python.display()
    );
    python
}

/// What the command-line examples print, checked against payout's own
/// results: created and registered, the clock followed running, five busts
/// recorded, every place seen on the results stream, the winner's prize,
/// and the final list as payout has it.
async fn example_said(up: &Up, t: &str, out: &std::process::Output) {
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains(&format!("created {t}\nregistered 6 players")),
        "{said}"
    );
    assert!(said.contains("CLOCK_STATUS_RUNNING"), "{said}");
    assert_eq!(said.matches("floor: entry").count(), 5, "{said}");
    let placed: Vec<&str> = said.lines().filter(|l| l.starts_with("placed:")).collect();
    assert_eq!(placed.len(), 6, "{said}");
    let results = common::results(&up.channel, t, up.token("director")).await;
    let mut rows = results.results;
    rows.sort_by_key(|r| r.first);
    let winner = &rows[0];
    assert_eq!((winner.first, winner.prize), (1, 60_000), "{rows:?}");
    assert!(
        said.contains(&format!("placed: entry {} at 1, prize 60000", winner.entry)),
        "{said}"
    );
    let printed: Vec<&str> = said.lines().filter(|l| l.starts_with("result:")).collect();
    let expected: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "result: {} {} ({}) {}.{:02} USD",
                r.first,
                r.name,
                r.player_id,
                r.prize / 100,
                r.prize % 100
            )
        })
        .collect();
    assert_eq!(printed, expected, "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_example_runs_a_tournament_and_follows_its_clock_and_results() {
    let dir = tempfile::tempdir().unwrap();
    let up = Up::start(&[], &dir.path().join("up")).await;
    // Given felt up, when the example runs as its README says (the client
    // generated from the protos as it starts),
    let out = Command::new(python())
        .arg(root().join("examples/python/felt_example.py"))
        .args(["--address", &up.addr])
        .args(["--director", up.token("director")])
        .args(["--floor", up.token("floor")])
        .args(["--partner", up.token("partner")])
        .args(["--tournament", "py", "--players", "6"])
        .arg("--generated")
        .arg(dir.path().join("generated"))
        .output()
        .expect("run the Python example");
    // then it ran the tournament and followed it as payout recorded it.
    example_said(&up, "py", &out).await;
}

/// An npm example built as its README says (`npm run build`: the client
/// generated from the protos, type-checked, bundled); its folder.
fn npm_build(example: &str) -> PathBuf {
    let dir = root().join("examples").join(example);
    assert!(
        dir.join("node_modules").exists(),
        "run `npm ci` in {} first (scripts/test does)",
        dir.display()
    );
    let out = Command::new("npm")
        .args(["run", "build", "--silent"])
        .current_dir(&dir)
        .output()
        .expect("run npm");
    assert!(
        out.status.success(),
        "npm run build in {}: {}\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typescript_example_runs_a_tournament_and_follows_its_clock_and_results() {
    let example = npm_build("typescript");
    let dir = tempfile::tempdir().unwrap();
    let up = Up::start(&[], &dir.path().join("up")).await;
    // Given felt up, when the Node example runs as its README says,
    let out = Command::new("node")
        .arg(example.join("dist/example.mjs"))
        .args(["--address", &up.addr])
        .args(["--director", up.token("director")])
        .args(["--floor", up.token("floor")])
        .args(["--partner", up.token("partner")])
        .args(["--tournament", "ts", "--players", "6"])
        .output()
        .expect("run the TypeScript example");
    // then it ran the tournament and followed it as payout recorded it.
    example_said(&up, "ts", &out).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_example_follows_a_table_and_the_clock_live_in_a_browser_over_grpc_web() {
    let example = npm_build("web");
    let dir = tempfile::tempdir().unwrap();
    let up = Up::start(&[], &dir.path().join("up")).await;
    let director = up.token("director").to_string();
    let mut seating = up.seating();
    open_tournament(&mut seating, "live", "Web night", "USD", 4, &director).await;
    // Given the page opened from a file (another origin than felt's) with
    // a partner's token,
    let mut browser = Browser::start();
    let page = format!(
        "file://{}?felt=http://{}&token={}&tournament=live&table=1",
        example
            .join("index.html")
            .canonicalize()
            .expect("the page")
            .display(),
        up.addr,
        up.token("partner")
    );
    browser.open("web", &page);
    // then it follows the clock and the table over gRPC-Web,
    browser.wait("web", "#connection", "live over gRPC-Web");
    browser.wait("web", "#clock-status", "RUNNING");
    browser.wait("web", "#clock-level", "level 1: 100/200");
    browser.wait("web", "#table-hands", "0 hands played");
    let seats = browser.text("web", "#seats");
    assert_eq!(seats.lines().count(), 4, "{seats}");
    // counting the clock down between changes,
    let before = browser.text("web", "#clock-remaining");
    tokio::time::sleep(std::time::Duration::from_millis(1_500)).await;
    let after = browser.text("web", "#clock-remaining");
    assert_ne!(before, after, "the clock counts down");
    // when a hand is played, its events and the chips that moved reach
    // the page without a reload,
    let tables = felt_proto::v1::table_service_client::TableServiceClient::new(up.channel.clone());
    let mut roll = 7;
    let hand = play_hand(&seating, &tables, "live", 1, &director, &mut roll).await;
    assert_eq!(hand, Hand::Played);
    browser.wait("web", "#events", "HandStarted");
    browser.wait("web", "#events", "HandEnded");
    browser.wait("web", "#table-hands", "1 hands played");
    let view = tables
        .clone()
        .get_table(with(
            pb::GetTableRequest {
                table: Some(pb::TableRef {
                    tournament_id: "live".into(),
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
    for s in view.seats.iter().filter(|s| s.entry > 0) {
        browser.wait(
            "web",
            &format!("#seats tr[data-seat=\"{}\"]", s.seat),
            &format!("{}\t{}\t{}", s.seat, s.entry, s.stack),
        );
    }
    // and when the floor pauses the clock, the page shows it paused.
    up.control(
        "live",
        "pause",
        pb::control_clock_request::Command::Pause(pb::Pause {
            reason: "a ruling".into(),
        }),
    )
    .await;
    browser.wait("web", "#clock-status", "PAUSED");
    browser.screenshot("web", "web-example.png");
}
