//! The room display in a real browser: `felt up` as a process, headless
//! Chromium driven by `tests/display/driver.cjs` (playwright-core), and the
//! tournament driven over gRPC at the same time. The clock screen counts
//! down, and a level change, a pause and a bust reach the open pages
//! without a reload; the seat finder finds a player that balancing moved;
//! hand-for-hand shows as a banner; the pages come back by themselves after
//! felt up restarts; the bag page follows bag and tag to the seal. A screenshot
//! of each page is written to `target/artifacts/display/`.

use std::io::{Read, Write};
use std::time::Duration;

use felt_proto::v1 as pb;
use felt_proto::v1::table_service_client::TableServiceClient;

mod common;
use common::browser::Browser;
use common::{Hand, Up, open_tournament, play_hand, with};

/// The status line of a plain HTTP/1.1 GET without credentials.
fn status_of(addr: &str, path: &str) -> String {
    let mut s = std::net::TcpStream::connect(addr).expect("connect");
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut text = String::new();
    let _ = s.read_to_string(&mut text);
    text.lines().next().unwrap_or_default().to_string()
}

/// A chip count as the pages write it (en-US grouping).
fn chips(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Minutes and seconds on the clock screen, as milliseconds.
fn shown_ms(text: &str) -> u64 {
    let parts: Vec<u64> = text
        .trim()
        .split(':')
        .map(|p| p.parse().unwrap_or_else(|_| panic!("time {text:?}")))
        .collect();
    parts.iter().fold(0, |acc, p| acc * 60 + p) * 1000
}

const T: &str = "friday";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_room_screens_follow_the_tournament_live_in_a_browser() {
    let dir = tempfile::tempdir().unwrap();
    let up = Up::start(&[], dir.path()).await;
    let addr = up.addr.clone();
    let director = up.token("director").to_string();
    let partner = up.token("partner").to_string();

    // The pages and their data need a token of the deployment.
    assert!(status_of(&addr, "/t/friday/clock").contains(" 401 "));
    assert!(status_of(&addr, "/api/t/friday/events").contains(" 401 "));

    let mut seating = up.seating();
    // The room's physical tables: the lobby names each table's.
    seating
        .set_room_layout(with(
            pb::SetRoomLayoutRequest {
                command_id: "room".into(),
                tables: ["Red 1", "Red 2", "Red 3", "Red 4"]
                    .into_iter()
                    .map(|name| pb::PhysicalTable {
                        name: name.into(),
                        seats: 9,
                    })
                    .collect(),
            },
            &director,
        ))
        .await
        .expect("the room's layout");
    open_tournament(&mut seating, T, "Friday Deepstack", "BRL", 20, &director).await;
    let structure = up
        .clock()
        .get_structure(with(
            pb::GetStructureRequest {
                tournament_id: T.into(),
            },
            &partner,
        ))
        .await
        .expect("structure")
        .into_inner();
    let blinds_of = |level: u32| {
        let b = structure
            .periods
            .iter()
            .find(|p| p.level == level)
            .and_then(|p| p.blinds.as_ref())
            .expect("the level");
        format!("{} / {}", chips(b.small_blind), chips(b.big_blind))
    };

    let mut browser = Browser::start();

    // The picker, entered once with the token (kept in a cookie).
    assert_eq!(
        browser.open("index", &format!("http://{addr}/?token={partner}")),
        200
    );
    browser.wait("index", "#tournaments", "Friday Deepstack");
    browser.wait("index", "#tournaments", "20 of 20 left");
    browser.screenshot("index", "index.png");

    // The clock screen: level 1 counting down, the field and the pool.
    assert_eq!(
        browser.open("clock", &format!("http://{addr}/t/{T}/clock")),
        200
    );
    browser.wait("clock", "#conn", "live");
    browser.wait("clock", "#name", "Friday Deepstack");
    browser.wait("clock", "#level", "1");
    browser.wait("clock", "#blinds", &blinds_of(1));
    browser.wait("clock", "#players", "20 of 20");
    browser.wait("clock", "#pool", "BRL 2,000");
    let before = shown_ms(&browser.text("clock", "#time"));
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let after = shown_ms(&browser.text("clock", "#time"));
    assert!(
        after < before && before - after <= 4_000,
        "the clock counts down: {before} then {after}"
    );
    browser.screenshot("clock", "clock.png");

    // The floor jumps to level 3: the screen follows without a reload.
    up.control(
        T,
        "jump-3",
        pb::control_clock_request::Command::JumpToLevel(pb::JumpToLevel { level: 3 }),
    )
    .await;
    browser.wait("clock", "#level", "3");
    browser.wait("clock", "#blinds", &blinds_of(3));
    // A pause shows, with its reason, and the time stands still.
    up.control(
        T,
        "pause-1",
        pb::control_clock_request::Command::Pause(pb::Pause {
            reason: "a ruling at table 2".into(),
        }),
    )
    .await;
    browser.wait("clock", "#banner", "CLOCK PAUSED — a ruling at table 2");
    let frozen = browser.text("clock", "#time");
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    assert_eq!(browser.text("clock", "#time"), frozen);
    browser.screenshot("clock", "clock-paused.png");
    up.control(
        T,
        "resume-1",
        pb::control_clock_request::Command::Resume(pb::Resume {
            reason: "ruling made".into(),
        }),
    )
    .await;
    browser.wait_exact("clock", "#banner", "");

    // The pay board and the lobby are open while hands are played.
    assert_eq!(
        browser.open("pay", &format!("http://{addr}/t/{T}/pay")),
        200
    );
    browser.wait("pay", "#pool", "BRL 2,000");
    browser.wait("pay", "#entries", "20");
    assert_eq!(
        browser.open("lobby", &format!("http://{addr}/t/{T}/lobby")),
        200
    );
    browser.wait("lobby", "#moves", "No moves yet");
    browser.wait("lobby", "#tables", "Table 1 (Red 1)");

    // Dealers play hands until players have busted and one has been moved.
    let tables = TableServiceClient::new(up.channel.clone());
    let mut roll = 7919;
    let mut moved = None;
    for round in 0..400u32 {
        let table = round % 3 + 1;
        let _: Hand = play_hand(&seating, &tables, T, table, &director, &mut roll).await;
        let moves = seating
            .get_moves(with(
                pb::GetMovesRequest {
                    tournament_id: T.into(),
                    last: 0,
                },
                &partner,
            ))
            .await
            .expect("moves")
            .into_inner()
            .moves;
        if let Some(m) = moves.into_iter().find(|m| m.completed) {
            moved = Some(m);
            break;
        }
    }
    let moved = moved.expect("balancing moved a player");
    // The last hands' ends reach seating and payout from the log: read
    // once both agree, and still do a moment later.
    let mut seen = None;
    let mut reads = 0;
    let results = loop {
        reads += 1;
        assert!(reads < 100, "seating and payout never agreed: {seen:?}");
        let results = up
            .payout()
            .get_results(with(
                pb::GetResultsRequest {
                    tournament_id: T.into(),
                },
                &partner,
            ))
            .await
            .expect("results")
            .into_inner()
            .results;
        let left = seating
            .get_standings(with(
                pb::GetStandingsRequest {
                    tournament_id: T.into(),
                },
                &partner,
            ))
            .await
            .expect("standings")
            .into_inner()
            .players_left as usize;
        let now = (left, results.len());
        if left + results.len() == 20 && seen == Some(now) {
            break results;
        }
        seen = Some(now);
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    };
    let last = results.last().expect("a bust");
    let left = 20 - results.len();

    // The bust reached every open screen without a reload.
    browser.wait("clock", "#players", &format!("{left} of 20"));
    browser.wait(
        "pay",
        "#results",
        &format!("{} (#{})", last.name, last.entry),
    );
    browser.wait("pay", "#players", &left.to_string());
    browser.screenshot("pay", "pay.png");

    // The seat finder finds the moved player at the new seat, and the move
    // is listed.
    let seat = format!("Table {}, seat {}", moved.to_table, moved.to_seat);
    browser.fill("lobby", "#find", &moved.name.to_lowercase());
    browser.wait("lobby", "#found", &seat);
    browser.wait(
        "lobby",
        "#moves",
        &format!(
            "{} (#{}): table {} seat {} → table {} seat {}",
            moved.name,
            moved.entry,
            moved.from_table,
            moved.from_seat,
            moved.to_table,
            moved.to_seat
        ),
    );
    browser.wait("lobby", "#tables", &format!("Table {}", moved.to_table));

    // The floor moves a player found in the wrong seat to a free one, and
    // the director disqualifies another: the lobby shows both, with the
    // reasons given.
    let map = seating
        .get_table_map(with(
            pb::GetTableMapRequest {
                tournament_id: T.into(),
            },
            &partner,
        ))
        .await
        .expect("the table map")
        .into_inner();
    let mut look = seating.clone();
    let floor = |id: &str, command: pb::floor_request::Command, token: &str| {
        let mut seating = seating.clone();
        let req = with(
            pb::FloorRequest {
                tournament_id: T.into(),
                command_id: id.into(),
                command: Some(command),
            },
            token,
        );
        async move { seating.floor(req).await.expect("the floor's ruling") }
    };
    let victim = map.tables[0].occupants[0].clone();
    floor(
        "dq",
        pb::floor_request::Command::Disqualify(pb::DisqualifyEntry {
            entry: victim.entry,
            reason: "chip passing".into(),
        }),
        &director,
    )
    .await;
    browser.wait(
        "lobby",
        "#rulings",
        &format!(
            "{} (#{}) at table {}: disqualified — chip passing",
            victim.name, victim.entry, victim.table
        ),
    );
    // The seat the disqualified player left is free once their table has
    // removed them (a reaction: the floor's ruling is not yet the table's),
    // and the room may have balanced into it: the floor moves a player from
    // another table to a seat free then.
    let mut tries = 0;
    let (mover, free) = loop {
        tries += 1;
        assert!(tries < 400, "the disqualified player is never removed");
        let map = look
            .get_table_map(with(
                pb::GetTableMapRequest {
                    tournament_id: T.into(),
                },
                &partner,
            ))
            .await
            .expect("the table map")
            .into_inner();
        let gone = map
            .tables
            .iter()
            .all(|t| t.occupants.iter().all(|o| o.entry != victim.entry));
        let free = map.tables.iter().find_map(|t| {
            (1..=t.seats)
                .find(|s| t.occupants.iter().all(|o| o.seat != *s))
                .map(|s| (t.table, s))
        });
        let mover = free.and_then(|(table, _)| {
            map.tables
                .iter()
                .filter(|t| t.table != table)
                .flat_map(|t| t.occupants.iter())
                .find(|o| !o.moving)
                .cloned()
        });
        match (mover, free) {
            (Some(mover), Some(free)) if gone => break (mover, free),
            _ => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    };
    floor(
        "wrong-seat",
        pb::floor_request::Command::MovePlayer(pb::MovePlayer {
            entry: mover.entry,
            table: free.0,
            seat: free.1,
            reason: "found in the wrong seat".into(),
        }),
        up.token("floor"),
    )
    .await;
    browser.wait("lobby", "#moves", "(floor: found in the wrong seat");
    browser.resize("lobby", &format!("http://{addr}/t/{T}/lobby"), 412, 900);
    browser.fill("lobby", "#find", &mover.entry.to_string());
    browser.wait(
        "lobby",
        "#found",
        &format!("Table {}, seat {}", free.0, free.1),
    );
    browser.screenshot("lobby", "lobby.png");

    // Hand-for-hand from the floor is shown in words on the clock screen,
    // and goes away when it stops.
    up.control(
        T,
        "hfh-on",
        pb::control_clock_request::Command::StartHandForHand(pb::StartHandForHand {}),
    )
    .await;
    browser.wait("clock", "#banner", "HAND FOR HAND");
    browser.screenshot("clock", "clock-hand-for-hand.png");
    up.control(
        T,
        "hfh-off",
        pb::control_clock_request::Command::StopHandForHand(pb::StopHandForHand {}),
    )
    .await;
    browser.wait_exact("clock", "#banner", "");

    // felt up stops: the screens say so; it starts again on the same port
    // and they follow it again by themselves.
    let mut up = up;
    up.stop();
    browser.wait("clock", "#conn", "reconnecting");
    let up = Up::start_at(&addr, &[], dir.path()).await;
    browser.wait("clock", "#conn", "live");
    up.control(
        T,
        "jump-5",
        pb::control_clock_request::Command::JumpToLevel(pb::JumpToLevel { level: 5 }),
    )
    .await;
    browser.wait("clock", "#level", "5");
    browser.wait("clock", "#blinds", &blinds_of(5));
}

/// The bag page (bag and tag, issue 28) in a real browser: a day that
/// ends at level 1's end with nobody dealt, every stack bagged, the page
/// shows the chip counts with the day, the bags and the chips in all, and
/// follows each confirmation to the seal without a reload. The day is
/// Day 1A of an event fed by flights: the event's page lists every
/// flight's bags, each with its flight.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bag_page_shows_the_chip_counts_confirmed_and_sealed_live() {
    const B: &str = "bagged";
    const EVENT: &str = "saturday";
    let dir = tempfile::tempdir().unwrap();
    let up = Up::start(&[], dir.path()).await;
    let addr = up.addr.clone();
    let director = up.token("director").to_string();
    let floor = up.token("floor").to_string();
    let partner = up.token("partner").to_string();
    let mut seating = up.seating();
    let day_1 = pb::CreateTournamentRequest {
        deal: pb::DealMode::Digital.into(),
        tournament_id: B.into(),
        name: "Saturday Day 1".into(),
        structure: Some(pb::create_tournament_request::Structure::Preset(
            pb::StructurePreset::Turbo.into(),
        )),
        table_size: 9,
        money: Some(pb::MoneySettings {
            currency: "BRL".into(),
            buy_in: 10_000,
            fee: 1_000,
            ..Default::default()
        }),
        day_end: Some(pb::DayEndSettings {
            rule: pb::DayEndRule::LevelEnd.into(),
            last_levels: vec![1],
            ..Default::default()
        }),
        flight: Some(pb::FlightOf {
            event_tournament_id: EVENT.into(),
            number: 1,
        }),
        ..Default::default()
    };
    seating
        .create_tournament(with(
            pb::CreateTournamentRequest {
                tournament_id: EVENT.into(),
                name: "Saturday".into(),
                day_end: None,
                flight: None,
                flights: Some(pb::FlightsSettings::default()),
                ..day_1.clone()
            },
            &director,
        ))
        .await
        .expect("create the event");
    seating
        .create_tournament(with(day_1, &director))
        .await
        .expect("create");
    common::presales(&mut seating, B, 18, &director).await;
    seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: B.into(),
            },
            &director,
        ))
        .await
        .expect("start");
    // Level 1 runs out before anyone deals: the day is over at once.
    up.control(
        B,
        "end-level-1",
        pb::control_clock_request::Command::SetRemaining(pb::SetRemaining { remaining_ms: 200 }),
    )
    .await;
    tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let clock = up
                .clock()
                .get_clock(with(
                    pb::GetClockRequest {
                        tournament_id: B.into(),
                    },
                    &partner,
                ))
                .await
                .expect("the clock")
                .into_inner()
                .clock
                .expect("a view");
            if clock.status() == pb::ClockStatus::DayOver {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the day ends at level 1's end");
    let floor_call = |id: String, command: pb::floor_request::Command| {
        let mut seating = up.seating();
        let req = with(
            pb::FloorRequest {
                tournament_id: B.into(),
                command_id: id,
                command: Some(command),
            },
            &floor,
        );
        async move { seating.floor(req).await.expect("the floor's command") }
    };
    use pb::floor_request::Command as F;
    floor_call("bag".into(), F::BagStacks(pb::BagStacks {})).await;

    let mut browser = Browser::start();
    assert_eq!(
        browser.open("bags", &format!("http://{addr}/t/{B}/bags?token={partner}")),
        200
    );
    browser.wait("bags", "#name", "Saturday Day 1");
    browser.wait(
        "bags",
        "#bag-summary",
        "day 1 · 18 bags · 360,000 chips · being confirmed",
    );
    browser.wait("bags", "#bags", "Player 01 (#");
    browser.wait("bags", "#bags", "20,000");
    let bags = seating
        .get_bags(with(
            pb::GetBagsRequest {
                tournament_id: B.into(),
                ..Default::default()
            },
            &partner,
        ))
        .await
        .expect("the bags")
        .into_inner();
    for b in &bags.bags {
        for by in [pb::BagWitness::Player, pb::BagWitness::Staff] {
            floor_call(
                format!("ok-{}-{by:?}", b.entry),
                F::ConfirmBag(pb::ConfirmBag {
                    entry: b.entry,
                    by: by.into(),
                }),
            )
            .await;
        }
    }
    browser.wait("bags", "#bags", "player and staff");
    floor_call("seal".into(), F::SealBags(pb::SealBags {})).await;
    browser.wait("bags", "#bag-summary", "sealed");
    browser.screenshot("bags", "bags.png");
    assert_eq!(
        browser.open(
            "event",
            &format!("http://{addr}/t/{EVENT}/bags?token={partner}")
        ),
        200
    );
    browser.wait("event", "#name", "Saturday");
    browser.wait(
        "event",
        "#bag-summary",
        "day 1 · 18 bags · 360,000 chips · sealed",
    );
    browser.wait("event", "#bags", "flight 1 · 1");
    browser.wait("event", "#bags", "Player 01 (#10000001)");
}
