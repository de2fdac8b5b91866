//! `felt up` as a real process: the four services on one port, driven only
//! over gRPC. The director creates a tournament and registers players at
//! seating, dealers ask seating before each hand and play it at the table
//! service, seating learns of hand ends from the tables' events, the clock
//! ticks and is paused from the floor, payout places every bust; the
//! tournament is played to a winner, the results add up to the pool, and a
//! restart finds every tournament where it was.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use felt_proto::v1 as pb;
use tonic::Code;

mod common;
use common::{Up, audit_passes, check_results, with};

const T: &str = "thursday";

fn create() -> pb::CreateTournamentRequest {
    pb::CreateTournamentRequest {
        deal: pb::DealMode::Digital.into(),
        tournament_id: T.into(),
        name: "Thursday Turbo".into(),
        structure: Some(pb::create_tournament_request::Structure::Preset(
            pb::StructurePreset::Turbo.into(),
        )),
        table_size: 6,
        money: Some(pb::MoneySettings {
            currency: "BRL".into(),
            buy_in: 4_000,
            fee: 1_000,
            pay_sheet: pb::PaySheetKind::Club.into(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The director registers `player` in `t` under command `id` ("Player
/// <id>"), paid by a satellite's `ticket` where one is given.
fn register_paid_by(
    up: &Up,
    director: &str,
    t: &str,
    id: &str,
    player: &str,
    ticket: Option<pb::Ticket>,
) -> impl std::future::Future<Output = Result<tonic::Response<pb::RegisterResponse>, tonic::Status>>
+ use<> {
    let mut seating = up.seating();
    let req = with(
        pb::RegisterRequest {
            tournament_id: t.into(),
            command_id: id.into(),
            player_id: player.into(),
            name: format!("Player {player}"),
            give_up_chips: false,
            payment: None,
            ticket,
        },
        director,
    );
    async move { seating.register(req).await }
}

async fn standings(up: &Up) -> pb::GetStandingsResponse {
    up.seating()
        .get_standings(with(
            pb::GetStandingsRequest {
                tournament_id: T.into(),
            },
            up.token("partner"),
        ))
        .await
        .expect("standings")
        .into_inner()
}

async fn clock(up: &Up) -> pb::ClockView {
    up.clock()
        .get_clock(with(
            pb::GetClockRequest {
                tournament_id: T.into(),
            },
            up.token("partner"),
        ))
        .await
        .expect("clock")
        .into_inner()
        .clock
        .expect("a view")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn felt_up_plays_a_tournament_to_a_winner_over_grpc_on_the_embedded_log() {
    let dir = tempfile::tempdir().unwrap();
    tournament(&[], dir.path()).await;
    // The audit finds what felt up wrote, in the same data folder.
    let out = Command::new(env!("CARGO_BIN_EXE_felt"))
        .args(["audit", "verify", "--data"])
        .arg(dir.path())
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run felt audit");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("1 tournament(s)") && text.contains(" 0 failed"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn felt_up_plays_a_tournament_to_a_winner_over_grpc_on_jetstream() {
    let nats = felt_testkit::NatsServer::start().expect("nats-server");
    let dir = tempfile::tempdir().unwrap();
    tournament(&["--nats", &nats.url()], dir.path()).await;
}

async fn tournament(log: &[&str], data: &Path) {
    let mut up = Up::start(log, data).await;
    let director = up.token("director").to_string();
    let floor = up.token("floor").to_string();
    let partner = up.token("partner").to_string();
    let mut seating = up.seating();

    // Bad input changes nothing and says why.
    let mut bad = create();
    // (A preset this contract does not name.)
    bad.structure = Some(pb::create_tournament_request::Structure::Preset(99));
    let e = seating
        .create_tournament(with(bad, &director))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message().contains("preset: bhpoker, main event or turbo"),
        "{e:?}"
    );
    let e = seating
        .create_tournament(with(create(), &partner))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    let e = up
        .clock()
        .get_clock(with(
            pb::GetClockRequest {
                tournament_id: T.into(),
            },
            &partner,
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e:?}");

    // The director creates the tournament; each service keeps its part.
    let created = seating
        .create_tournament(with(create(), &director))
        .await
        .expect("create")
        .into_inner();
    assert!(!created.existed);
    // The same definition again is the same creation; another under the
    // same id is refused, and nothing of the first changes.
    let again = seating
        .create_tournament(with(create(), &director))
        .await
        .expect("the same creation")
        .into_inner();
    assert!(again.existed);
    let mut other = create();
    other.table_size = 9;
    let taken = seating
        .create_tournament(with(other, &director))
        .await
        .unwrap_err();
    assert_eq!(taken.code(), Code::AlreadyExists, "{taken:?}");
    assert!(taken.message().contains("another definition"), "{taken:?}");
    assert_eq!(
        taken.metadata().get("felt-rejection").unwrap(),
        "TournamentExists"
    );
    assert_eq!(
        taken.metadata().get("felt-error-kind").unwrap(),
        "already-exists"
    );
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
    assert_eq!(structure.name, "Turbo");
    for i in 1..=10 {
        let entry = seating
            .register(with(
                pb::RegisterRequest {
                    payment: None,
                    tournament_id: T.into(),
                    command_id: format!("reg-{i}"),
                    player_id: format!("p{i}"),
                    name: format!("Player {i:02}"),
                    give_up_chips: false,
                    ticket: None,
                },
                &floor,
            ))
            .await
            .expect("register")
            .into_inner()
            .entry
            .expect("an entry");
        assert_eq!(entry.status(), pb::EntryStatus::Registered);
    }
    // Presales come in as one list.
    let listed = seating
        .register_many(with(
            pb::RegisterManyRequest {
                payment: None,
                tournament_id: T.into(),
                command_id: "presales".into(),
                players: (11..=14)
                    .map(|i| pb::Registrant {
                        player_id: format!("p{i}"),
                        name: format!("Player {i:02}"),
                    })
                    .collect(),
            },
            &floor,
        ))
        .await
        .expect("register many")
        .into_inner();
    assert_eq!(
        listed.entries.iter().map(|e| e.entry).collect::<Vec<_>>(),
        vec![11, 12, 13, 14]
    );
    // A second registration of the same player is refused, naming them.
    let e = seating
        .register(with(
            pb::RegisterRequest {
                payment: None,
                tournament_id: T.into(),
                command_id: "reg-again".into(),
                player_id: "p3".into(),
                name: "Player 03".into(),
                give_up_chips: false,
                ticket: None,
            },
            &floor,
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert!(
        e.message().contains("player p3 is already registered"),
        "{e:?}"
    );
    assert_eq!(
        e.metadata().get("felt-rejection").unwrap(),
        "AlreadyRegistered"
    );
    // One unregisters before play: refunded, out of the pool.
    seating
        .unregister(with(
            pb::UnregisterRequest {
                reason: String::new(),
                tournament_id: T.into(),
                entry: 14,
            },
            &floor,
        ))
        .await
        .expect("unregister");
    let started = seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: T.into(),
            },
            &director,
        ))
        .await
        .expect("start")
        .into_inner();
    assert_eq!((started.players, started.tables), (13, 3));
    let map = seating
        .get_table_map(with(
            pb::GetTableMapRequest {
                tournament_id: T.into(),
            },
            &partner,
        ))
        .await
        .expect("map")
        .into_inner();
    let mut sizes: Vec<u32> = map.tables.iter().map(|t| t.players).collect();
    sizes.sort_unstable();
    assert_eq!(sizes, vec![4, 4, 5]);
    let s = standings(&up).await;
    assert_eq!((s.entries, s.players_left, s.tables), (13, 13, 3));
    assert_eq!(s.average_stack, structure.starting_stack);

    // The clock is running at level 1; the room's screen follows it.
    let view = clock(&up).await;
    assert_eq!(view.status(), pb::ClockStatus::Running);
    assert_eq!((view.level, view.structure_name.as_str()), (1, "Turbo"));
    let mut watch = up
        .clock()
        .watch_clock(with(
            pb::WatchClockRequest {
                tournament_id: T.into(),
                after_version: 0,
            },
            &partner,
        ))
        .await
        .expect("watch")
        .into_inner();
    let snapshot = watch.message().await.unwrap().unwrap();
    assert_eq!(snapshot.clock.unwrap().level, 1);
    // The floor sets two tenths of a second left: the ticker records level
    // 2 as the time reaches it, and the screen sees it without asking.
    up.control(
        T,
        "short",
        pb::control_clock_request::Command::SetRemaining(pb::SetRemaining { remaining_ms: 200 }),
    )
    .await;
    let level_two = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let item = watch.message().await.unwrap().unwrap();
            if item.clock.as_ref().unwrap().level == 2 {
                return item;
            }
        }
    })
    .await
    .expect("level 2 reached the screen");
    assert!(
        level_two.events.iter().any(|e| e.r#type == "PeriodStarted"),
        "{level_two:?}"
    );
    // A partner cannot touch the clock; the floor can pause it.
    let e = up
        .clock()
        .control_clock(with(
            pb::ControlClockRequest {
                tournament_id: T.into(),
                command_id: "p".into(),
                command: Some(pb::control_clock_request::Command::Pause(pb::Pause {
                    reason: "x".into(),
                })),
            },
            &partner,
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    let paused = up
        .control(
            T,
            "pause-1",
            pb::control_clock_request::Command::Pause(pb::Pause {
                reason: "a ruling at table 2".into(),
            }),
        )
        .await;
    assert_eq!(paused.status(), pb::ClockStatus::Paused);
    let item = watch.message().await.unwrap().unwrap();
    assert_eq!(
        item.clock.unwrap().pause_reason,
        "a ruling at table 2",
        "the pause reached the screen"
    );
    // Pausing a paused clock is refused and changes nothing.
    let e = up
        .clock()
        .control_clock(with(
            pb::ControlClockRequest {
                tournament_id: T.into(),
                command_id: "pause-2".into(),
                command: Some(pb::control_clock_request::Command::Pause(pb::Pause {
                    reason: "again".into(),
                })),
            },
            &floor,
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert!(e.message().contains("the clock is paused"), "{e:?}");

    // Stopped and started again, felt up finds the tournament where it
    // was: the same paused time left, the same tokens.
    let before = clock(&up).await;
    let tokens = up.tokens.clone();
    up.stop();
    let up = Up::start(log, data).await;
    assert_eq!(up.tokens, tokens);
    let after = clock(&up).await;
    assert_eq!(
        (after.level, after.remaining_ms, after.status()),
        (before.level, before.remaining_ms, pb::ClockStatus::Paused)
    );
    up.control(
        T,
        "resume-1",
        pb::control_clock_request::Command::Resume(pb::Resume {
            reason: "ruling made".into(),
        }),
    )
    .await;

    // Registration closes: the pool is fixed (13 entries of 40 reais).
    let closed = up
        .seating()
        .close_registration(with(
            pb::CloseRegistrationRequest {
                tournament_id: T.into(),
            },
            &director,
        ))
        .await
        .expect("close")
        .into_inner();
    assert_eq!(closed.entries, 13);
    let payouts = up
        .payout()
        .get_payouts(with(
            pb::GetPayoutsRequest {
                tournament_id: T.into(),
            },
            &partner,
        ))
        .await
        .expect("payouts")
        .into_inner();
    assert_eq!((payouts.prize_pool, payouts.entries), (52_000, 13));
    assert!(payouts.pool_fixed && payouts.paid >= 2, "{payouts:?}");

    // Dealers play every table until one player is left.
    let mut dealers = Vec::new();
    let up = std::sync::Arc::new(up);
    for table in 1..=3 {
        let up = up.clone();
        let floor = floor.clone();
        dealers.push(tokio::spawn(async move {
            common::deal_table(up.channel.clone(), up.channel.clone(), T, table, &floor).await
        }));
    }
    let mut hands = 0;
    for d in dealers {
        hands += d.await.expect("a dealer");
    }
    assert!(hands > 3, "{hands} hands");
    let end = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
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
                .into_inner();
            if results.results.len() == 13 {
                return results;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("every entry placed");
    check_results(&end.results, 13, 52_000);
    let winner = &end.results[0];
    assert_eq!(winner.first, 1);
    // Play is over: the clock stopped for good (its level and time left
    // frozen), and the floor's clock commands are refused, saying why.
    let mut stopped = clock(&up).await;
    for _ in 0..100 {
        if stopped.status() == pb::ClockStatus::Finished {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        stopped = clock(&up).await;
    }
    assert_eq!(stopped.status(), pb::ClockStatus::Finished, "{stopped:?}");
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let later = clock(&up).await;
    assert_eq!(
        (later.level, later.remaining_ms),
        (stopped.level, stopped.remaining_ms)
    );
    let refused = up
        .clock()
        .control_clock(with(
            pb::ControlClockRequest {
                tournament_id: T.into(),
                command_id: "resume-after-the-end".into(),
                command: Some(pb::control_clock_request::Command::Resume(pb::Resume {
                    reason: "one more".into(),
                })),
            },
            &floor,
        ))
        .await
        .expect_err("the clock is over");
    assert!(
        refused.message().contains("play is over"),
        "{}",
        refused.message()
    );
    // The seat finder finds the winner by part of their name.
    let found = up
        .seating()
        .find_seat(with(
            pb::FindSeatRequest {
                tournament_id: T.into(),
                query: winner.name.to_lowercase().replace("player ", ""),
            },
            &partner,
        ))
        .await
        .expect("find")
        .into_inner();
    assert!(
        found
            .entries
            .iter()
            .any(|e| e.entry == winner.entry && e.status() == pb::EntryStatus::Seated),
        "{found:?}"
    );
    // Players moved as tables emptied, each move with its reason.
    let moves = up
        .seating()
        .get_moves(with(
            pb::GetMovesRequest {
                tournament_id: T.into(),
                last: 0,
            },
            &partner,
        ))
        .await
        .expect("moves")
        .into_inner();
    assert!(!moves.moves.is_empty());
    assert!(
        moves.moves.iter().all(|m| m.completed
            && m.reason() != pb::MoveReason::Unspecified
            && (m.from_table != m.to_table || m.reason() == pb::MoveReason::FinalTable)),
        "{moves:?}"
    );
    // A partner's results stream from the start carries every place.
    let mut results = up
        .payout()
        .watch_results(with(
            pb::WatchResultsRequest {
                tournament_id: T.into(),
                after_version: 0,
            },
            &partner,
        ))
        .await
        .expect("watch results")
        .into_inner();
    let mut placed = 0;
    let mut last = 0;
    while placed < 13 {
        let item = tokio::time::timeout(Duration::from_secs(10), results.message())
            .await
            .expect("more results")
            .unwrap()
            .unwrap();
        for e in item.events {
            assert!(e.sequence > last, "in order, no repeats");
            last = e.sequence;
            if let Some(pb::payout_event::Kind::Placed(p)) = &e.kind {
                assert_eq!(e.r#type, "Placed");
                assert_eq!(p.entries.len(), p.prizes.len(), "{p:?}");
                placed += p.entries.len();
            }
        }
    }
    let csv = up
        .payout()
        .export_results(with(
            pb::ExportResultsRequest {
                tournament_id: T.into(),
                format: pb::ExportFormat::Csv.into(),
            },
            &partner,
        ))
        .await
        .expect("export")
        .into_inner();
    assert_eq!(csv.content_type, "text/csv");
    assert_eq!(csv.body.lines().count(), 14, "{}", csv.body);
}

/// One command at table 1 of tournament `t`.
async fn at_table(
    up: &Up,
    t: &str,
    id: &str,
    role: &str,
    command: pb::execute_request::Command,
) -> Result<pb::ExecuteResponse, tonic::Status> {
    felt_proto::v1::table_service_client::TableServiceClient::new(up.channel.clone())
        .execute(with(
            pb::ExecuteRequest {
                provenance: None,
                table: Some(pb::TableRef {
                    tournament_id: t.into(),
                    table: 1,
                }),
                command_id: id.into(),
                command: Some(command),
            },
            up.token(role),
        ))
        .await
        .map(tonic::Response::into_inner)
}

fn types(out: &pb::ExecuteResponse) -> Vec<&str> {
    out.events.iter().map(|e| e.r#type.as_str()).collect()
}

/// The action clock of seed 002 and a called clock (TDA 29) at the table
/// service: a timeout claimed early is refused with the time left and
/// changes nothing; once the time (and a time-bank card) is gone, the hand
/// is dead facing a bet, and a check otherwise.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_table_service_times_players_out_by_the_action_clock_and_a_called_clock() {
    use pb::execute_request::Command as C;
    let dir = tempfile::tempdir().unwrap();
    let up = Up::start(&[], dir.path()).await;
    let t = "shot";
    let mut create = create();
    create.tournament_id = t.into();
    create.action_clock = Some(pb::ActionClockSettings {
        enabled: true,
        grace_ms: 1,
        decision_ms: 300,
        card_ms: 1_500,
        cards_per_day: 1,
        called_ms: 400,
        countdown_ms: 100,
    });
    let mut seating = up.seating();
    seating
        .create_tournament(with(create, up.token("director")))
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
            up.token("floor"),
        ))
        .await
        .expect("register");
    seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: t.into(),
            },
            up.token("director"),
        ))
        .await
        .expect("start");
    // A hand dealt at table 1, once seating has heard the last one end.
    let begin = async || {
        for _ in 0..100 {
            let out = up
                .seating()
                .begin_hand(with(
                    pb::BeginHandRequest {
                        tournament_id: t.into(),
                        table: 1,
                    },
                    up.token("director"),
                ))
                .await
                .expect("begin")
                .into_inner();
            if let Some(pb::begin_hand_response::Outcome::Dealt(d)) = out.outcome {
                let view = d.table.unwrap();
                let director = up.token("director");
                return common::add_entropy(up.channel.clone(), t, 1, view, director).await;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("no hand dealt");
    };

    // Hand 1, heads-up: the button faces the big blind.
    let view = begin().await;
    let hand = view.hand.unwrap();
    assert_eq!(hand.number, 1);
    let first = hand.to_act.unwrap();
    let other = view
        .seats
        .iter()
        .map(|s| s.seat)
        .find(|&s| s != first)
        .unwrap();
    let time_out = |seat| C::TimeOut(pb::TimeOut { seat });
    let e = at_table(&up, t, "to-1", "floor", time_out(first))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert!(
        e.message().contains(&format!("seat {first} still has")),
        "{e:?}"
    );
    // Past the shot clock the time-bank card runs (1.5 s more).
    tokio::time::sleep(Duration::from_millis(600)).await;
    let e = at_table(&up, t, "to-1", "floor", time_out(first))
        .await
        .unwrap_err();
    assert!(e.message().contains("still has"), "{e:?}");
    // Not this player's turn: the table says whose it is.
    let e = at_table(&up, t, "to-x", "floor", time_out(other))
        .await
        .unwrap_err();
    assert!(e.message().contains("TDA 29"), "{e:?}");
    // Card gone: a dead hand facing the big blind.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let out = at_table(&up, t, "to-1", "floor", time_out(first))
        .await
        .expect("timed out");
    assert_eq!(types(&out)[..2], ["TimedOut", "ActionTaken"]);
    assert!(
        matches!(
            taken(&out.events[1]),
            Some(pb::action_record::Kind::Fold(_))
        ),
        "{:?}",
        out.events[1]
    );
    // A retry gets the first answer, whatever the time.
    let again = at_table(&up, t, "to-1", "floor", time_out(first))
        .await
        .expect("retry");
    assert!(again.duplicate);
    assert_eq!(again.events, out.events);

    let hand = begin().await.hand.unwrap();
    assert_eq!(hand.number, 2);
    // The player to act calls; the first player, now the big blind, has
    // nothing to call and no card left: out of time after the shot clock.
    let caller = hand.to_act.unwrap();
    assert_eq!(caller, other);
    // The caller takes longer than the shot clock: their card is used.
    tokio::time::sleep(Duration::from_millis(400)).await;
    at_table(
        &up,
        t,
        "call-2",
        "director",
        C::Act(pb::Act {
            seat: caller,
            action: Some(pb::Action {
                kind: Some(pb::action::Kind::Call(pb::Call {})),
            }),
        }),
    )
    .await
    .expect("call");
    tokio::time::sleep(Duration::from_millis(400)).await;
    let out = at_table(&up, t, "to-2", "floor", time_out(first))
        .await
        .expect("no card left");
    assert!(
        matches!(
            taken(&out.events[1]),
            Some(pb::action_record::Kind::Check(_))
        ),
        "{:?}",
        out.events[1]
    );

    // On the flop the floor calls the clock: the called time runs, not
    // the shot clock.
    let view = out.table.unwrap().hand.unwrap();
    let to_act = view.to_act.unwrap();
    let called = at_table(
        &up,
        t,
        "clock-3",
        "floor",
        C::CallClock(pb::CallClock { seat: to_act }),
    )
    .await
    .expect("clock called");
    assert_eq!(types(&called), ["ClockCalled"]);
    let e = at_table(&up, t, "to-3", "floor", time_out(to_act))
        .await
        .unwrap_err();
    assert!(e.message().contains("still has"), "{e:?}");
    tokio::time::sleep(Duration::from_millis(700)).await;
    let out = at_table(&up, t, "to-3", "floor", time_out(to_act))
        .await
        .expect("the called clock ran out");
    assert_eq!(types(&out)[0], "TimedOut");
    assert!(
        matches!(
            taken(&out.events[1]),
            Some(pb::action_record::Kind::Check(_))
        ),
        "{:?}",
        out.events[1]
    );
    // The caller's card went on their call: the shot clock alone now.
    let next = out.table.unwrap().hand.unwrap().to_act.unwrap();
    assert_eq!(next, other);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let out = at_table(&up, t, "to-4", "floor", time_out(other))
        .await
        .expect("the caller's card is gone");
    assert_eq!(types(&out)[..2], ["TimedOut", "ActionTaken"]);

    // Hand-for-hand from the floor goes to seating first, which needs two
    // tables in play.
    let e = up
        .clock()
        .control_clock(with(
            pb::ControlClockRequest {
                tournament_id: t.into(),
                command_id: "hfh".into(),
                command: Some(pb::control_clock_request::Command::StartHandForHand(
                    pb::StartHandForHand {},
                )),
            },
            up.token("floor"),
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("two tables in play"), "{e:?}");
}

/// The action an `ActionTaken` event records.
fn taken(e: &pb::Event) -> Option<&pb::action_record::Kind> {
    match e.event.as_ref()?.kind.as_ref()? {
        pb::table_event::Kind::ActionTaken(a) => a.action.as_ref()?.kind.as_ref(),
        _ => None,
    }
}

/// What a refusal says of its kind, for a program: its code, its reason and
/// its kind in the metadata.
fn said(e: &tonic::Status) -> (Code, String, String) {
    let header = |name: &str| {
        e.metadata()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    (
        e.code(),
        header("felt-rejection"),
        header("felt-error-kind"),
    )
}

/// Every service answers a tournament (or table) never created NOT_FOUND,
/// and a command id already used for another request ALREADY_EXISTS,
/// changing nothing; the same request again is answered as the first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_service_says_not_found_and_already_exists() {
    use pb::control_clock_request::Command as Clock;
    let dir = tempfile::tempdir().unwrap();
    let up = Up::start(&[], dir.path()).await;
    let director = up.token("director").to_string();
    let floor = up.token("floor").to_string();
    let t = "weekday";
    let mut seating = up.seating();
    common::open_tournament(&mut seating, t, "Weekday", "USD", 4, &director).await;

    // NOT_FOUND, at each service, for a tournament never created.
    let typo = "weekdya";
    let e = seating
        .get_standings(with(
            pb::GetStandingsRequest {
                tournament_id: typo.into(),
            },
            &director,
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "seating: {e:?}");
    let e = up
        .clock()
        .get_clock(with(
            pb::GetClockRequest {
                tournament_id: typo.into(),
            },
            &director,
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "clock: {e:?}");
    let e = up
        .payout()
        .get_payouts(with(
            pb::GetPayoutsRequest {
                tournament_id: typo.into(),
            },
            &director,
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "payout: {e:?}");
    let e = felt_proto::v1::table_service_client::TableServiceClient::new(up.channel.clone())
        .get_table(with(
            pb::GetTableRequest {
                table: Some(pb::TableRef {
                    tournament_id: typo.into(),
                    table: 1,
                }),
            },
            &director,
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "table: {e:?}");

    // ALREADY_EXISTS at seating: a registration's command id for another
    // player, and the presales list's for another list, in a tournament
    // still registering. The same request again is answered as the first
    // time.
    let sunday = "sunday";
    common::create_tournament(&mut seating, sunday, "Sunday", "USD", &director).await;
    common::presales(&mut seating, sunday, 4, &director).await;
    let register = |command_id: &str, player: &str| pb::RegisterRequest {
        payment: None,
        tournament_id: sunday.into(),
        command_id: command_id.into(),
        player_id: player.into(),
        name: format!("Late {player}"),
        give_up_chips: false,
        ticket: None,
    };
    let late = seating
        .register(with(register("late-1", "p9"), &floor))
        .await
        .expect("a late registration")
        .into_inner()
        .entry
        .expect("an entry");
    let again = seating
        .register(with(register("late-1", "p9"), &floor))
        .await
        .expect("the same registration again")
        .into_inner()
        .entry
        .expect("an entry");
    assert_eq!(again.entry, late.entry);
    let e = seating
        .register(with(register("late-1", "p10"), &floor))
        .await
        .unwrap_err();
    assert_eq!(
        said(&e),
        (
            Code::AlreadyExists,
            "CommandIdReused".into(),
            "already-exists".into()
        )
    );
    assert!(e.message().contains("fingerprint"), "{e:?}");
    let e = seating
        .register_many(with(
            pb::RegisterManyRequest {
                payment: None,
                tournament_id: sunday.into(),
                command_id: "presales".into(),
                players: vec![pb::Registrant {
                    player_id: "p11".into(),
                    name: "Player 11".into(),
                }],
            },
            &floor,
        ))
        .await
        .unwrap_err();
    assert_eq!(said(&e).1, "CommandIdReused", "{e:?}");
    let standings = seating
        .get_standings(with(
            pb::GetStandingsRequest {
                tournament_id: sunday.into(),
            },
            &director,
        ))
        .await
        .expect("standings")
        .into_inner();
    assert_eq!(standings.entries, 5, "p10 and p11 were not registered");

    // ALREADY_EXISTS at the clock: a pause's command id for another pause.
    let pause = |id: &str, reason: &str| pb::ControlClockRequest {
        tournament_id: t.into(),
        command_id: id.into(),
        command: Some(Clock::Pause(pb::Pause {
            reason: reason.into(),
        })),
    };
    let paused = up
        .control(
            t,
            "pause-1",
            Clock::Pause(pb::Pause {
                reason: "dinner".into(),
            }),
        )
        .await;
    let again = up
        .clock()
        .control_clock(with(pause("pause-1", "dinner"), &floor))
        .await
        .expect("the same pause again")
        .into_inner();
    assert!(again.duplicate);
    let e = up
        .clock()
        .control_clock(with(pause("pause-1", "a ruling"), &floor))
        .await
        .unwrap_err();
    assert_eq!(
        said(&e),
        (
            Code::AlreadyExists,
            "CommandIdReused".into(),
            "already-exists".into()
        )
    );
    let clock = up
        .clock()
        .get_clock(with(
            pb::GetClockRequest {
                tournament_id: t.into(),
            },
            &floor,
        ))
        .await
        .expect("the clock")
        .into_inner()
        .clock
        .expect("a view");
    assert_eq!(clock.pause_reason, paused.pause_reason);

    // ALREADY_EXISTS at payout: a deal's command id for other terms.
    seating
        .close_registration(with(
            pb::CloseRegistrationRequest {
                tournament_id: t.into(),
            },
            &director,
        ))
        .await
        .expect("close");
    let deal = |id: &str, method: pb::DealMethod| pb::DealRequest {
        tournament_id: t.into(),
        command_id: id.into(),
        action: Some(pb::deal_request::Action::Propose(pb::DealTerms {
            method: method.into(),
            players: (1..=4)
                .map(|entry| pb::DealPlayer {
                    entry,
                    chips: 1_000 * entry,
                    amount: 0,
                })
                .collect(),
            ..Default::default()
        })),
    };
    let proposed = up
        .payout()
        .deal(with(deal("deal-1", pb::DealMethod::ChipChop), &floor))
        .await
        .expect("a chip chop proposed")
        .into_inner();
    assert!(!proposed.duplicate);
    let again = up
        .payout()
        .deal(with(deal("deal-1", pb::DealMethod::ChipChop), &floor))
        .await
        .expect("the same proposal again")
        .into_inner();
    assert!(again.duplicate);
    let e = up
        .payout()
        .deal(with(deal("deal-1", pb::DealMethod::Icm), &floor))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::AlreadyExists, "{e:?}");
    assert_eq!(said(&e).1, "CommandIdReused");

    // ALREADY_EXISTS at seating: the tournament under the same id, with
    // another definition.
    let e = seating
        .create_tournament(with(
            pb::CreateTournamentRequest {
                deal: pb::DealMode::Digital.into(),
                tournament_id: t.into(),
                name: "Weekday".into(),
                structure: Some(pb::create_tournament_request::Structure::Preset(
                    pb::StructurePreset::MainEvent.into(),
                )),
                table_size: 9,
                money: Some(pb::MoneySettings {
                    currency: "USD".into(),
                    buy_in: 10_000,
                    fee: 1_000,
                    ..Default::default()
                }),
                ..Default::default()
            },
            &director,
        ))
        .await
        .unwrap_err();
    assert_eq!(
        said(&e),
        (
            Code::AlreadyExists,
            "TournamentExists".into(),
            "already-exists".into()
        )
    );
}

/// Issue 25's "done when": a tournament created over gRPC with the
/// physical deal, played to a winner at a `felt up` process by dealers
/// entering what a tablet would, every second table recording results
/// only for part of the event (its floor recording each bust with who won
/// the chips, and counting every stack before the table records actions
/// again); `felt audit verify` passes on what it wrote and says which
/// hands were not recorded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn felt_up_plays_a_physical_tournament_with_results_only_tables_to_a_winner() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("up");
    let mut up = Up::start(&[], &data).await;
    let url = format!("http://{}", up.addr);
    let director = up.token("director").to_string();
    let sim = {
        let url = url.clone();
        tokio::task::spawn_blocking(move || {
            std::process::Command::new(env!("CARGO_BIN_EXE_felt"))
                .args(["sim", "--quiet", "--seed", "4", "--entrants", "80"])
                .args(["--tournament", "live-results", "--deal", "physical"])
                .args(["--results-only", "2", "--level-seconds", "2"])
                .args(["--seating", &url, "--table", &url, "--clock", &url])
                .args(["--payout", &url, "--token", &director])
                .env("RUST_BACKTRACE", "0")
                .output()
                .expect("run felt sim")
        })
        .await
        .unwrap()
    };
    let said = String::from_utf8_lossy(&sim.stdout);
    assert!(
        sim.status.success() && said.contains("winner: Player"),
        "{said}{}",
        String::from_utf8_lossy(&sim.stderr)
    );
    up.stop();
    let data = data.to_str().unwrap();
    audit_passes(&["--data", data, "--tournament", "live-results"]);
    let audit = std::process::Command::new(env!("CARGO_BIN_EXE_felt"))
        .args([
            "audit",
            "verify",
            "--data",
            data,
            "--tournament",
            "live-results",
        ])
        .output()
        .expect("run felt audit");
    let audit = String::from_utf8_lossy(&audit.stdout);
    assert!(
        audit.contains("results only after hand")
            && audit.contains("the hands played were not recorded"),
        "{audit}"
    );
    // The tablets came back: every stack counted, actions recorded again.
    assert!(audit.contains("count \"tablet back\""), "{audit}");
    assert!(audit.contains(" until hand "), "{audit}");
}

/// Table 1 of tournament `t`, as the director reads it.
async fn view(up: &Up, t: &str) -> pb::TableView {
    felt_proto::v1::table_service_client::TableServiceClient::new(up.channel.clone())
        .get_table(with(
            pb::GetTableRequest {
                table: Some(pb::TableRef {
                    tournament_id: t.into(),
                    table: 1,
                }),
            },
            up.token("director"),
        ))
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap()
}

/// Issue 26: at a table seating runs, no person's token opens the table,
/// seats or removes a player, or deals a hand directly at the table
/// service, whatever its role: only seating does (through its grant, at
/// the clock's level). A table of no tournament seating runs is still
/// the director's to run by hand.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_persons_token_goes_around_seating_at_its_tables() {
    use pb::execute_request::Command as C;
    let dir = tempfile::tempdir().unwrap();
    let up = Up::start(&[], dir.path()).await;
    let director = up.token("director").to_string();
    let t = "seated";
    common::open_tournament(&mut up.seating(), t, "Seated", "USD", 12, &director).await;
    let raw = [
        C::OpenTable(pb::OpenTable {
            seats: 9,
            rules: None,
        }),
        C::SeatPlayer(pb::SeatPlayer {
            seat: 9,
            entry: 999,
            stack: 1_000_000,
            carried: Default::default(),
        }),
        C::RemovePlayer(pb::RemovePlayer { seat: 1 }),
        C::StartHand(pb::StartHand {
            level: Some(pb::Level {
                small_blind: 50,
                big_blind: 100,
                ante: 0,
                ante_format: pb::AnteFormat::None as i32,
                smallest_chip: 25,
            }),
            deal: Some(pb::Deal {
                kind: Some(pb::deal::Kind::Digital(pb::DigitalDeal {})),
            }),
            button: Some(1),
        }),
    ];
    let before = view(&up, t).await;
    for role in ["director", "floor"] {
        for (k, command) in raw.iter().enumerate() {
            let e = at_table(&up, t, &format!("raw-{role}-{k}"), role, command.clone())
                .await
                .unwrap_err();
            assert_eq!(e.code(), Code::PermissionDenied, "{role} {k}: {e:?}");
            assert!(e.message().contains("run by seating"), "{}", e.message());
        }
    }
    // Nothing changed at the table: its seats are seating's.
    let after = view(&up, t).await;
    assert!(after.hand.is_none());
    assert_eq!(after.seats, before.seats);
    assert!(after.seats.iter().all(|s| s.entry != 999));
    // A cash game's table, of no tournament: the director's to run.
    at_table(&up, "cash", "open", "director", raw[0].clone())
        .await
        .unwrap();
}

/// Issue 26: the floor holds a table while it rules (seed 000, rule 1):
/// seating tells its dealer to wait, with the floor's reason, until the
/// floor releases it; partners watching seating see both; nobody but the
/// floor or the director holds a table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_floor_holds_a_table_while_it_rules_and_releases_it() {
    use pb::begin_hand_response::Outcome;
    let dir = tempfile::tempdir().unwrap();
    let up = Up::start(&[], dir.path()).await;
    let director = up.token("director").to_string();
    let t = "held";
    let mut seating = up.seating();
    common::open_tournament(&mut seating, t, "Held", "USD", 12, &director).await;
    let hold = |id: &str, hold: bool, reason: &str, role: &str| {
        let mut seating = up.seating();
        let req = with(
            pb::HoldTableRequest {
                tournament_id: t.into(),
                command_id: id.into(),
                table: 1,
                hold,
                reason: reason.into(),
            },
            up.token(role),
        );
        async move {
            seating
                .hold_table(req)
                .await
                .map(tonic::Response::into_inner)
        }
    };
    let begin = || {
        let mut seating = up.seating();
        let req = with(
            pb::BeginHandRequest {
                tournament_id: t.into(),
                table: 1,
            },
            &director,
        );
        async move {
            seating
                .begin_hand(req)
                .await
                .unwrap()
                .into_inner()
                .outcome
                .unwrap()
        }
    };
    let e = hold("p", true, "a look", "partner").await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let e = hold("r", false, "", "floor").await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("not held"), "{}", e.message());
    hold("h1", true, "ruling on a misread hand", "floor")
        .await
        .unwrap();
    match begin().await {
        Outcome::Wait(why) => assert!(
            why.contains("held by the floor: ruling on a misread hand"),
            "{why}"
        ),
        other => panic!("{other:?}"),
    }
    let e = hold("h2", true, "again", "director").await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    hold("r1", false, "", "floor").await.unwrap();
    assert!(matches!(begin().await, Outcome::Dealt(_)));
    // Partners watching seating see the hold and the release.
    let mut watch = seating
        .watch_seating(with(
            pb::WatchSeatingRequest {
                tournament_id: t.into(),
                ..Default::default()
            },
            up.token("partner"),
        ))
        .await
        .unwrap()
        .into_inner();
    let mut seen = Vec::new();
    while let Ok(Some(Ok(batch))) = tokio::time::timeout(
        Duration::from_secs(2),
        tokio_stream::StreamExt::next(&mut watch),
    )
    .await
    {
        seen.extend(batch.events.into_iter().map(|e| e.r#type));
        if seen.iter().any(|s| s == "TableReleased") {
            break;
        }
    }
    assert!(seen.iter().any(|s| s == "TableHeld"), "{seen:?}");
    assert!(seen.iter().any(|s| s == "TableReleased"), "{seen:?}");
}

/// The director disqualifies a player (TDA 71) at seating through `felt
/// up`: the floor may not; the player leaves the field at once and their
/// table removes them and their chips from play; partners watching
/// seating see it with its reason; the tournament is played to a winner,
/// the disqualified entry placed as they stood (the default house rule),
/// and `felt audit verify` passes and names the chips removed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_director_disqualifies_a_player_and_the_tournament_plays_on() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("up");
    let mut up = Up::start(&[], &data).await;
    let director = up.token("director").to_string();
    let t = "dq";
    let mut seating = up.seating();
    common::open_tournament(&mut seating, t, "Disqualified", "USD", 12, &director).await;
    let found = seating
        .find_seat(with(
            pb::FindSeatRequest {
                tournament_id: t.into(),
                query: "Player 07".into(),
            },
            &director,
        ))
        .await
        .unwrap()
        .into_inner()
        .entries
        .remove(0);
    let (entry, table) = (found.entry, found.table);
    let dq = |id: &str, role: &str, reason: &str| {
        let mut seating = up.seating();
        let req = with(
            pb::FloorRequest {
                tournament_id: t.into(),
                command_id: id.into(),
                command: Some(pb::floor_request::Command::Disqualify(
                    pb::DisqualifyEntry {
                        entry,
                        reason: reason.into(),
                    },
                )),
            },
            up.token(role),
        );
        async move { seating.floor(req).await.map(tonic::Response::into_inner) }
    };
    let e = dq("dq-1", "floor", "chip passing").await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let e = dq("dq-1", "director", "").await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    let done = dq("dq-1", "director", "chip passing").await.unwrap();
    assert!(!done.duplicate);
    assert!(
        dq("dq-1", "director", "chip passing")
            .await
            .unwrap()
            .duplicate
    );
    // Out of the field; gone from the table with their chips.
    let standings = seating
        .get_standings(with(
            pb::GetStandingsRequest {
                tournament_id: t.into(),
            },
            &director,
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(standings.players_left, 11);
    let view = felt_proto::v1::table_service_client::TableServiceClient::new(up.channel.clone())
        .get_table(with(
            pb::GetTableRequest {
                table: Some(pb::TableRef {
                    tournament_id: t.into(),
                    table,
                }),
            },
            &director,
        ))
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    assert!(view.seats.iter().all(|s| s.entry != entry), "{view:?}");
    // Partners see the disqualification with its reason.
    let mut watch = seating
        .watch_seating(with(
            pb::WatchSeatingRequest {
                tournament_id: t.into(),
                ..Default::default()
            },
            up.token("partner"),
        ))
        .await
        .unwrap()
        .into_inner();
    let mut seen = None;
    while let Ok(Some(Ok(batch))) = tokio::time::timeout(
        Duration::from_secs(2),
        tokio_stream::StreamExt::next(&mut watch),
    )
    .await
    {
        seen = batch.events.iter().find_map(|e| match &e.kind {
            Some(pb::seating_event::Kind::Disqualified(d)) => Some(d.clone()),
            _ => None,
        });
        if seen.is_some() {
            break;
        }
    }
    let seen = seen.expect("the disqualification in seating's stream");
    assert_eq!((seen.entry, seen.reason.as_str()), (entry, "chip passing"));
    // Played to a winner.
    let dealers = common::dealers(&up.channel, t, 1..=2, &director);
    for d in dealers {
        d.await.expect("a dealer");
    }
    let end = common::all_placed(&up.channel, t, 12, &director).await;
    let placed = end.results.iter().find(|r| r.entry == entry).unwrap();
    assert_eq!((placed.first, placed.last), (12, 12), "{placed:?}");
    up.stop();
    let data = data.to_str().unwrap();
    let audit = audit_passes(&["--data", data, "--tournament", t]);
    assert!(
        audit.contains(&format!("(entry {entry}) disqualified")),
        "{audit}"
    );
}

/// The floor's toolbox through one `felt up` (issue 26): a field capped at
/// ten with an alternate waiting; the floor moves a player found in the
/// wrong seat, seats the alternate after the start, penalises a player at
/// the table that will break and corrects a stack; the director
/// disqualifies a player; the room runs on paper, and the floor enters two
/// busts afterwards with the time each happened, placed in that order. The
/// penalty goes on at the penalised player's new table after the break;
/// the tournament is played to a winner, every
/// entry is placed, and `felt audit verify` passes, naming the correction
/// and the disqualification.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_floors_toolbox_runs_a_tournament_to_a_winner() {
    use pb::execute_request::Command as C;
    use pb::floor_request::Command as F;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("up");
    let mut up = Up::start(&[], &data).await;
    let director = up.token("director").to_string();
    let floor_token = up.token("floor").to_string();
    let t = "toolbox";
    let mut seating = up.seating();
    seating
        .create_tournament(with(
            pb::CreateTournamentRequest {
                deal: pb::DealMode::Digital.into(),
                tournament_id: t.into(),
                name: "Toolbox".into(),
                structure: Some(pb::create_tournament_request::Structure::Preset(
                    pb::StructurePreset::Turbo.into(),
                )),
                table_size: 5,
                max_entries: 10,
                late_registration_level: 2,
                // Seed 003's late-arrival rule, with no tolerance to wait.
                late_arrival_minutes: Some(0),
                money: Some(pb::MoneySettings {
                    currency: "USD".into(),
                    buy_in: 10_000,
                    fee: 1_000,
                    ..Default::default()
                }),
                ..Default::default()
            },
            &director,
        ))
        .await
        .expect("create");
    common::presales(&mut seating, t, 12, &director).await;
    seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: t.into(),
            },
            &director,
        ))
        .await
        .expect("start");
    let map = || {
        let mut seating = up.seating();
        let req = with(
            pb::GetTableMapRequest {
                tournament_id: t.into(),
            },
            &director,
        );
        async move { seating.get_table_map(req).await.unwrap().into_inner() }
    };
    let floor = |id: &str, command: F, token: &str| {
        let mut seating = up.seating();
        let req = with(
            pb::FloorRequest {
                tournament_id: t.into(),
                command_id: id.into(),
                command: Some(command),
            },
            token,
        );
        async move { seating.floor(req).await.map(tonic::Response::into_inner) }
    };
    let tables = felt_proto::v1::table_service_client::TableServiceClient::new(up.channel.clone());
    let at_table = |table: u32, id: &str, command: C, token: &str| {
        let mut tables = tables.clone();
        let req = with(
            pb::ExecuteRequest {
                table: Some(pb::TableRef {
                    tournament_id: t.into(),
                    table,
                }),
                command_id: id.into(),
                command: Some(command),
                provenance: None,
            },
            token,
        );
        async move { tables.execute(req).await.map(tonic::Response::into_inner) }
    };
    // Ten seated at two full tables of five; the eleventh waits.
    let room = map().await;
    assert_eq!(
        room.tables.iter().map(|t| t.players).collect::<Vec<_>>(),
        [5, 5]
    );
    // A player found in the wrong seat moves to the one the floor names,
    // with their chips.
    // The alternate is seated after the start: every table is full, so a
    // third opens.
    floor(
        "alternate",
        F::SeatAlternates(pb::SeatAlternates { count: 1 }),
        &floor_token,
    )
    .await
    .expect("the alternate seated");
    let room = map().await;
    assert_eq!(room.tables.len(), 3, "{room:?}");
    let wrong = room.tables[0].occupants[0].clone();
    let (to_table, free) = room
        .tables
        .iter()
        .skip(1)
        .find_map(|r| {
            let free = (1..=r.seats).find(|s| r.occupants.iter().all(|o| o.seat != *s))?;
            Some((r.table, free))
        })
        .expect("a free seat");
    floor(
        "wrong-seat",
        F::MovePlayer(pb::MovePlayer {
            entry: wrong.entry,
            table: to_table,
            seat: free,
            reason: "sat at table 1, drawn for another".into(),
        }),
        &floor_token,
    )
    .await
    .expect("the floor's move");
    // A player who never arrived gives their seat to the next alternate
    // (seed 003); one who called ahead keeps theirs.
    let room = map().await;
    let mut others = room
        .tables
        .iter()
        .flat_map(|t| t.occupants.clone())
        .filter(|o| o.entry != wrong.entry && o.entry != 11);
    let (no_show, caller) = (others.next().unwrap(), others.next().unwrap());
    floor(
        "called",
        F::AnnounceLate(pb::AnnounceLate {
            entry: caller.entry,
        }),
        &floor_token,
    )
    .await
    .expect("a late arrival announced");
    let refused = floor(
        "replace-caller",
        F::ReplaceNoShow(pb::ReplaceNoShow {
            entry: caller.entry,
            reason: "not seen".into(),
        }),
        &floor_token,
    )
    .await
    .unwrap_err();
    assert!(refused.message().contains("called ahead"), "{refused:?}");
    floor(
        "no-show",
        F::ReplaceNoShow(pb::ReplaceNoShow {
            entry: no_show.entry,
            reason: "not seen since the draw".into(),
        }),
        &floor_token,
    )
    .await
    .expect("the no-show replaced");
    let room = map().await;
    let everyone: Vec<pb::EntryView> = room
        .tables
        .iter()
        .flat_map(|t| t.occupants.clone())
        .collect();
    assert_eq!(everyone.len(), 11, "{room:?}");
    assert!(everyone.iter().any(|o| o.entry == 11));
    assert!(
        everyone.iter().any(|o| o.entry == 12),
        "the second alternate seated"
    );
    assert!(everyone.iter().all(|o| o.entry != no_show.entry));
    let moves = seating
        .get_moves(with(
            pb::GetMovesRequest {
                tournament_id: t.into(),
                last: 0,
            },
            &director,
        ))
        .await
        .unwrap()
        .into_inner()
        .moves;
    assert!(
        moves.iter().any(|m| m.entry == wrong.entry
            && (m.to_table, m.to_seat) == (to_table, free)
            && m.reason() == pb::MoveReason::Floor
            && m.detail == "sat at table 1, drawn for another"
            && m.completed),
        "{moves:?}"
    );
    // Registration closes: the pool is fixed at eleven entries.
    seating
        .close_registration(with(
            pb::CloseRegistrationRequest {
                tournament_id: t.into(),
            },
            &director,
        ))
        .await
        .expect("close");
    // A penalty at table 3, which will break (the highest number) once
    // nine are left.
    let penalised = room
        .tables
        .iter()
        .find(|r| r.table == 3)
        .unwrap()
        .occupants
        .iter()
        .find(|o| o.entry != wrong.entry)
        .unwrap()
        .clone();
    at_table(
        3,
        "penalty",
        C::Penalize(pb::Penalize {
            seat: penalised.seat,
            entry: penalised.entry,
            kind: pb::PenaltyKind::Hands.into(),
            hands: 40,
            reason: "exposed a card with action pending".into(),
            ..Default::default()
        }),
        &floor_token,
    )
    .await
    .expect("the penalty");
    // A stack corrected at table 1, before its first hand.
    let fixed = room.tables[0].occupants[0].clone();
    at_table(
        1,
        "fix",
        C::CorrectStack(pb::CorrectStack {
            seat: fixed.seat,
            entry: fixed.entry,
            stack: 20_500,
            concerns: Some(pb::Concerns {
                kind: Some(pb::concerns::Kind::Moment("the draw".into())),
            }),
            reason: "a 500 chip left in the seat".into(),
        }),
        &floor_token,
    )
    .await
    .expect("the correction");
    // The director disqualifies a player at table 1.
    let dq = room.tables[0]
        .occupants
        .iter()
        .find(|o| o.entry != fixed.entry)
        .unwrap()
        .clone();
    floor(
        "dq",
        F::Disqualify(pb::DisqualifyEntry {
            entry: dq.entry,
            reason: "chip passing".into(),
        }),
        &director,
    )
    .await
    .expect("the disqualification");
    // The room ran on paper: the floor opens its late entries and enters
    // two results afterwards with the time each happened, table 2's of
    // five minutes ago before table 1's of ten; closing them places table
    // 1's bust below table 2's, in the order they happened. Both tables
    // are counted and record every action again before the dealers
    // start.
    // The floor's or the director's only.
    let partner = up.token("partner").to_string();
    let refused = floor(
        "late-by-partner",
        F::LateEntries(pb::LateEntries {
            open: true,
            reason: "a partner's try".into(),
        }),
        &partner,
    )
    .await
    .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::PermissionDenied, "{refused:?}");
    floor(
        "late-open",
        F::LateEntries(pb::LateEntries {
            open: true,
            reason: "tablets down at tables 1 and 2".into(),
        }),
        &floor_token,
    )
    .await
    .expect("the late entries open");
    let recording = |table: u32, recording: pb::Recording| {
        at_table(
            table,
            &format!("recording-{table}-{}", recording.as_str_name()),
            C::SetRecording(pb::SetRecording {
                recording: recording.into(),
                reason: "the tablet is down".into(),
            }),
            &floor_token,
        )
    };
    let now_ms = || {
        i64::try_from(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_millis(),
        )
        .unwrap()
    };
    let seats_at = |table: u32| {
        let mut tables = tables.clone();
        let req = with(
            pb::GetTableRequest {
                table: Some(pb::TableRef {
                    tournament_id: t.into(),
                    table,
                }),
            },
            &director,
        );
        async move {
            tables
                .get_table(req)
                .await
                .unwrap()
                .into_inner()
                .table
                .unwrap()
                .seats
        }
    };
    let mut late_out = Vec::new();
    for (table, minutes_ago) in [(2, 5), (1, 10)] {
        recording(table, pb::Recording::ResultsOnly)
            .await
            .expect("results only");
        let seats = seats_at(table).await;
        let mut players = seats
            .iter()
            .filter(|s| ![penalised.entry, fixed.entry, dq.entry].contains(&s.entry));
        let (out, winner) = (players.next().unwrap(), players.next().unwrap());
        at_table(
            table,
            &format!("late-{table}"),
            C::RecordResult(pb::RecordResult {
                button: winner.seat,
                busted: vec![pb::SeatEntry {
                    seat: out.seat,
                    entry: out.entry,
                }],
                by: vec![pb::SeatEntry {
                    seat: winner.seat,
                    entry: winner.entry,
                }],
                occurred_at_ms: Some(now_ms() - minutes_ago * 60_000),
            }),
            &floor_token,
        )
        .await
        .expect("a result entered late");
        late_out.push(out.entry);
    }
    // Held: out of the field, placed by nobody yet.
    let placed = |entry: u64| {
        let channel = up.channel.clone();
        let director = director.clone();
        async move {
            common::results(&channel, t, &director)
                .await
                .results
                .into_iter()
                .find(|r| r.entry == entry)
        }
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(placed(late_out[0]).await, None, "held until the close");
    floor(
        "late-close",
        F::LateEntries(pb::LateEntries {
            open: false,
            reason: String::new(),
        }),
        &floor_token,
    )
    .await
    .expect("the late entries close");
    let (table_2s, table_1s) = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            if let (Some(a), Some(b)) = (placed(late_out[0]).await, placed(late_out[1]).await) {
                return (a, b);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("both placed once the late entries closed");
    assert_eq!(
        table_1s.first,
        table_2s.first + 1,
        "10 minutes ago finishes below 5 minutes ago: {table_1s:?} {table_2s:?}"
    );
    // Counted (table 3's players may be arriving as it breaks), and back
    // to recording every action.
    for table in [1, 2] {
        tokio::time::timeout(Duration::from_secs(20), async {
            for k in 0.. {
                let stacks = seats_at(table)
                    .await
                    .iter()
                    .map(|s| pb::SeatStack {
                        seat: s.seat,
                        entry: s.entry,
                        chips: s.stack,
                    })
                    .collect();
                let counted = at_table(
                    table,
                    &format!("count-{table}-{k}"),
                    C::CountStacks(pb::CountStacks {
                        count: "back from paper".into(),
                        stacks,
                    }),
                    &floor_token,
                )
                .await;
                if counted.is_ok() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .expect("the table counted");
        recording(table, pb::Recording::Actions)
            .await
            .expect("recording actions again");
    }
    // Dealers play every table; table 3 broke when the late results left
    // eight, and the penalised player serves the rest at their new table.
    let dealers = common::dealers(&up.channel, t, 1..=3, &director);
    // The penalised player's seat away from table 3, once they sit there.
    let moved_seat = || {
        let mut tables = tables.clone();
        let mut seating = up.seating();
        let find = with(
            pb::FindSeatRequest {
                tournament_id: t.into(),
                query: penalised.entry.to_string(),
            },
            &director,
        );
        let director = director.clone();
        async move {
            let found = seating.find_seat(find).await.unwrap().into_inner();
            let at = found
                .entries
                .into_iter()
                .find(|e| e.entry == penalised.entry)?;
            if at.table == 3 || at.table == 0 {
                return None;
            }
            let req = with(
                pb::GetTableRequest {
                    table: Some(pb::TableRef {
                        tournament_id: t.into(),
                        table: at.table,
                    }),
                },
                &director,
            );
            let view = tables.get_table(req).await.ok()?.into_inner().table?;
            view.seats.into_iter().find(|s| s.entry == penalised.entry)
        }
    };
    let carried = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            if let Some(s) = moved_seat().await {
                return s.penalty_hands;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the penalised player moved when table 3 broke");
    assert!(carried > 0, "the penalty came with the player");
    let moved = up
        .seating()
        .get_moves(with(
            pb::GetMovesRequest {
                tournament_id: t.into(),
                last: 0,
            },
            &director,
        ))
        .await
        .unwrap()
        .into_inner()
        .moves;
    let last = moved
        .iter()
        .rev()
        .find(|m| m.entry == penalised.entry)
        .expect("the penalised player's move");
    assert_eq!(last.reason(), pb::MoveReason::TableBroken, "{last:?}");
    // Served there, hand by hand.
    tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            match moved_seat().await {
                Some(s) if s.penalty_hands < carried => return,
                _ => tokio::time::sleep(Duration::from_millis(10)).await,
            }
        }
    })
    .await
    .expect("a hand of the penalty served at the new table");
    for d in dealers {
        d.await.expect("a dealer");
    }
    let end = common::all_placed(&up.channel, t, 11, &director).await;
    check_results(&end.results, 11, 110_000);
    up.stop();
    let data = data.to_str().unwrap();
    let audit = audit_passes(&["--data", data, "--tournament", t]);
    // The correction names who asked for it.
    assert!(
        audit.contains("(the draw) (by floor): a 500 chip left in the seat"),
        "{audit}"
    );
    assert!(
        audit.contains(&format!(
            "(entry {}) never arrived, replaced by an alternate",
            no_show.entry
        )),
        "{audit}"
    );
    assert!(
        audit.contains(&format!("(entry {}) disqualified", dq.entry)),
        "{audit}"
    );
}

/// People, not roles: the director issues a floor person and a partner
/// their own credentials (only the director may); each works for what
/// its role allows, the decisions a person's requests bring name them in
/// the log, a credential is listed without its secret, the same request
/// sent again gives the same secret, and a revoked credential is refused
/// at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_director_issues_and_revokes_credentials_that_name_their_person() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("up");
    let mut up = Up::start(&[], &data).await;
    let director = up.token("director").to_string();
    let t = "people";
    let mut seating = up.seating();
    common::open_tournament(&mut seating, t, "People", "USD", 12, &director).await;
    let issue = |id: &str, person: &str, kind: pb::StaffRoleKind, token: &str| {
        let mut seating = up.seating();
        let req = with(
            pb::IssueCredentialRequest {
                command_id: id.into(),
                person_id: person.into(),
                name: format!("{person}'s name"),
                role: Some(pb::StaffRole {
                    kind: kind.into(),
                    ..Default::default()
                }),
            },
            token,
        );
        async move {
            seating
                .issue_credential(req)
                .await
                .map(tonic::Response::into_inner)
        }
    };
    let e = issue(
        "c-1",
        "ana.souza",
        pb::StaffRoleKind::Floor,
        up.token("floor"),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let ana = issue("c-1", "ana.souza", pb::StaffRoleKind::Floor, &director)
        .await
        .unwrap();
    let again = issue("c-1", "ana.souza", pb::StaffRoleKind::Floor, &director)
        .await
        .unwrap();
    assert!(again.duplicate);
    assert_eq!(
        (again.credential, &again.token),
        (ana.credential, &ana.token)
    );
    let tv = issue("c-2", "tv.overlay", pb::StaffRoleKind::Partner, &director)
        .await
        .unwrap();
    let hold = |id: &str, token: &str| {
        let mut seating = up.seating();
        let req = with(
            pb::HoldTableRequest {
                tournament_id: t.into(),
                command_id: id.into(),
                table: 1,
                hold: true,
                reason: "a ruling".into(),
            },
            token,
        );
        async move { seating.hold_table(req).await }
    };
    // A partner's credential reads and may not hold a table; Ana may.
    let e = hold("h-tv", &tv.token).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    hold("h-ana", &ana.token)
        .await
        .expect("ana holds the table");
    // Listed without secrets.
    let list = seating
        .list_credentials(with(pb::ListCredentialsRequest {}, &director))
        .await
        .unwrap()
        .into_inner();
    let people: Vec<(&str, pb::StaffRoleKind, bool)> = list
        .credentials
        .iter()
        .map(|c| {
            (
                c.person_id.as_str(),
                c.role.as_ref().unwrap().kind(),
                c.revoked,
            )
        })
        .collect();
    assert_eq!(
        people,
        [
            ("ana.souza", pb::StaffRoleKind::Floor, false),
            ("tv.overlay", pb::StaffRoleKind::Partner, false)
        ]
    );
    assert!(!format!("{list:?}").contains(&ana.token));
    // Every table seating opens has its dealer's credential, for its
    // tablet: the floor's to hand out; the same every time it is asked.
    let dealer = |table: u32, token: &str| {
        let mut seating = up.seating();
        let req = with(
            pb::IssueDealerCredentialRequest {
                tournament_id: t.into(),
                table,
            },
            token,
        );
        async move {
            seating
                .issue_dealer_credential(req)
                .await
                .map(tonic::Response::into_inner)
        }
    };
    let e = dealer(2, &tv.token).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let e = dealer(99, up.token("floor")).await.unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e:?}");
    let table_2 = dealer(2, up.token("floor")).await.unwrap();
    assert_eq!(dealer(2, &director).await.unwrap().token, table_2.token);
    let begin = |table: u32, token: &str| {
        let mut seating = up.seating();
        let req = with(
            pb::BeginHandRequest {
                tournament_id: t.into(),
                table,
            },
            token,
        );
        async move { seating.begin_hand(req).await }
    };
    begin(2, &table_2.token)
        .await
        .expect("the dealer begins a hand at their own table");
    let e = begin(1, &table_2.token).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    // Revoked, it stops; the table's next credential replaces it.
    seating
        .revoke_credential(with(
            pb::RevokeCredentialRequest {
                command_id: "r-dealer".into(),
                credential: table_2.credential,
                reason: "tablet lost".into(),
            },
            &director,
        ))
        .await
        .expect("revoked");
    let e = begin(2, &table_2.token).await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
    let next = dealer(2, up.token("floor")).await.unwrap();
    assert_ne!(next.token, table_2.token);
    assert!(!next.duplicate);
    // Revoked: refused at once.
    seating
        .revoke_credential(with(
            pb::RevokeCredentialRequest {
                command_id: "r-1".into(),
                credential: ana.credential,
                reason: "left the event".into(),
            },
            &director,
        ))
        .await
        .expect("revoked");
    let e = hold("h-ana-2", &ana.token).await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
    up.stop();
    // Started again, felt knows its people from the log.
    let mut up = Up::start(&[], &data).await;
    let read = |token: &str| {
        let mut seating = up.seating();
        let req = with(
            pb::GetStandingsRequest {
                tournament_id: t.into(),
            },
            token,
        );
        async move { seating.get_standings(req).await }
    };
    let known = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if read(&tv.token).await.is_ok() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(
        known.is_ok(),
        "the partner's credential works after a restart"
    );
    let e = read(&ana.token).await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
    up.stop();
    // The log names Ana on the hold she asked for, and the director on
    // the tournament's creation.
    let log = felt_eventlog::EmbeddedLog::open(&data.join("log.redb")).unwrap();
    let seating_stream = felt_eventlog::StreamId::new(t, "seating", "main").unwrap();
    let events = felt_eventlog::EventLog::read(&log, &seating_stream, 1)
        .await
        .unwrap();
    let held = events
        .iter()
        .find(|e| e.event_type == "TableHeld")
        .expect("the hold");
    assert_eq!(held.actor.as_deref(), Some("ana.souza"));
    assert_eq!(events[0].actor.as_deref(), Some("director"));
}

/// A player re-enters by giving up their chips where the house allows it
/// (TDA 8): the old entry is out, its chips leave play at its table, the
/// new entry is seated; played to a winner, both entries are placed and
/// the audit names the chips given up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_re_enters_by_giving_up_their_chips() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("up");
    let mut up = Up::start(&[], &data).await;
    let director = up.token("director").to_string();
    let t = "surrender";
    let mut seating = up.seating();
    seating
        .create_tournament(with(
            pb::CreateTournamentRequest {
                deal: pb::DealMode::Digital.into(),
                tournament_id: t.into(),
                name: "Surrender".into(),
                structure: Some(pb::create_tournament_request::Structure::Preset(
                    pb::StructurePreset::Turbo.into(),
                )),
                table_size: 9,
                late_registration_level: 2,
                re_entries: 1,
                re_entry_by_surrender: true,
                money: Some(pb::MoneySettings {
                    currency: "USD".into(),
                    buy_in: 10_000,
                    fee: 1_000,
                    ..Default::default()
                }),
                ..Default::default()
            },
            &director,
        ))
        .await
        .expect("create");
    common::presales(&mut seating, t, 12, &director).await;
    seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: t.into(),
            },
            &director,
        ))
        .await
        .expect("start");
    let again = seating
        .register(with(
            pb::RegisterRequest {
                payment: None,
                tournament_id: t.into(),
                command_id: "p7-again".into(),
                player_id: "p7".into(),
                name: "Player 07".into(),
                give_up_chips: true,
                ticket: None,
            },
            &director,
        ))
        .await
        .expect("the re-entry")
        .into_inner()
        .entry
        .unwrap();
    assert_eq!(again.entry, 13);
    let found = seating
        .find_seat(with(
            pb::FindSeatRequest {
                tournament_id: t.into(),
                query: "p7".into(),
            },
            &director,
        ))
        .await
        .unwrap()
        .into_inner()
        .entries;
    let statuses: Vec<(u64, pb::EntryStatus)> =
        found.iter().map(|e| (e.entry, e.status())).collect();
    assert_eq!(
        statuses,
        [(7, pb::EntryStatus::Busted), (13, pb::EntryStatus::Seated)]
    );
    seating
        .close_registration(with(
            pb::CloseRegistrationRequest {
                tournament_id: t.into(),
            },
            &director,
        ))
        .await
        .expect("close");
    let dealers = common::dealers(&up.channel, t, 1..=2, &director);
    for d in dealers {
        d.await.expect("a dealer");
    }
    let end = common::all_placed(&up.channel, t, 13, &director).await;
    check_results(&end.results, 13, 130_000);
    let old = end.results.iter().find(|r| r.entry == 7).unwrap();
    assert_eq!((old.first, old.last), (13, 13));
    up.stop();
    let data = data.to_str().unwrap();
    let audit = audit_passes(&["--data", data, "--tournament", t]);
    assert!(audit.contains("(entry 7) gave up 20000 chips"), "{audit}");
}

/// The room's physical tables are one pool (issue 26, seats): the director
/// lays the room out (only the director may), two events running at once
/// take their tables from it in the layout's order, never one the other
/// holds, and a table one event breaks is free for the next event's table.
/// The table map names each table's physical table; the tournament whose
/// break order follows the layout breaks the table placed last.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_room_is_one_pool_of_named_tables_for_every_event() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("up");
    let up = Up::start(&[], &data).await;
    let director = up.token("director").to_string();
    let mut seating = up.seating();
    let layout = |id: &str, names: &[&str]| pb::SetRoomLayoutRequest {
        command_id: id.into(),
        tables: names
            .iter()
            .map(|n| pb::PhysicalTable {
                name: (*n).into(),
                seats: 5,
            })
            .collect(),
    };
    let names = ["Red 1", "Red 2", "Red 3", "Blue 1", "Blue 2"];
    let refused = seating
        .set_room_layout(with(layout("by-floor", &names), up.token("floor")))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::PermissionDenied, "{refused:?}");
    seating
        .set_room_layout(with(layout("room", &names), &director))
        .await
        .expect("the layout");
    let create = |t: &str, order: Option<pb::break_order::Kind>| pb::CreateTournamentRequest {
        deal: pb::DealMode::Digital.into(),
        tournament_id: t.into(),
        name: t.into(),
        structure: Some(pb::create_tournament_request::Structure::Preset(
            pb::StructurePreset::Turbo.into(),
        )),
        table_size: 5,
        break_order: order.map(|kind| pb::BreakOrder { kind: Some(kind) }),
        money: Some(pb::MoneySettings {
            currency: "USD".into(),
            buy_in: 1_000,
            ..Default::default()
        }),
        ..Default::default()
    };
    let map = |t: &'static str| {
        let mut seating = up.seating();
        let req = with(
            pb::GetTableMapRequest {
                tournament_id: t.into(),
            },
            &director,
        );
        async move { seating.get_table_map(req).await.unwrap().into_inner() }
    };
    let named = |t: &'static str, count: usize| async move {
        tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                let m = map(t).await;
                let names: Vec<(u32, String)> = m
                    .tables
                    .iter()
                    .map(|r| (r.table, r.physical_table.clone()))
                    .collect();
                if names.len() == count && names.iter().all(|(_, n)| !n.is_empty()) {
                    return names;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .expect("every table named from the room's pool")
    };
    // The first event: three tables of five, in the layout's order.
    seating
        .create_tournament(with(
            create(
                "early",
                Some(pb::break_order::Kind::RoomLayout(pb::RoomLayout {})),
            ),
            &director,
        ))
        .await
        .expect("create");
    common::presales(&mut seating, "early", 11, &director).await;
    seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: "early".into(),
            },
            &director,
        ))
        .await
        .expect("start");
    let early = named("early", 3).await;
    assert_eq!(
        early,
        [
            (1, "Red 1".into()),
            (2, "Red 2".into()),
            (3, "Red 3".into())
        ]
    );
    // The second event, running at once: the free tables, never one of
    // the first's.
    seating
        .create_tournament(with(create("late", None), &director))
        .await
        .expect("create");
    common::presales(&mut seating, "late", 6, &director).await;
    seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: "late".into(),
            },
            &director,
        ))
        .await
        .expect("start");
    let late = named("late", 2).await;
    assert_eq!(late, [(1, "Blue 1".into()), (2, "Blue 2".into())]);
    let room = seating
        .get_room(with(pb::GetRoomRequest {}, up.token("partner")))
        .await
        .unwrap()
        .into_inner();
    let held: Vec<(String, String, u32)> = room
        .tables
        .iter()
        .map(|p| {
            (
                p.table.as_ref().unwrap().name.clone(),
                p.tournament_id.clone(),
                p.tournament_table,
            )
        })
        .collect();
    assert_eq!(
        held,
        [
            ("Red 1".into(), "early".into(), 1),
            ("Red 2".into(), "early".into(), 2),
            ("Red 3".into(), "early".into(), 3),
            ("Blue 1".into(), "late".into(), 1),
            ("Blue 2".into(), "late".into(), 2),
        ]
    );
    // A table in use stays in the layout.
    let refused = seating
        .set_room_layout(with(layout("shrink", &names[..4]), &director))
        .await
        .unwrap_err();
    assert!(
        refused
            .message()
            .contains("Blue 2 is in use by late table 2"),
        "{refused:?}"
    );
    // The first event plays until a table breaks: Red 3, the one placed
    // last in the layout (table 3 here), and its physical table is free.
    let dealers = common::dealers(&up.channel, "early", 1..=3, &director);
    let freed = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let m = map("early").await;
            if m.tables.len() == 2 {
                return m;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("a table of the first event broke");
    assert!(
        freed.tables.iter().all(|r| r.physical_table != "Red 3"),
        "{freed:?}"
    );
    for d in &dealers {
        d.abort();
    }
    // The next event's table takes the first free table of the layout
    // (Red 3, or Red 2 had the first event broken another meanwhile). The
    // dealers stopped, a hand that ended before may still break a table:
    // the room is read once it has stayed the same for a second.
    let read_room = || {
        let mut seating = up.seating();
        let req = with(pb::GetRoomRequest {}, &director);
        async move { seating.get_room(req).await.unwrap().into_inner() }
    };
    let room = tokio::time::timeout(Duration::from_secs(60), async {
        let mut last = read_room().await;
        let mut same = 0;
        while same < 5 {
            tokio::time::sleep(Duration::from_millis(200)).await;
            let now = read_room().await;
            same = if now == last { same + 1 } else { 0 };
            last = now;
        }
        last
    })
    .await
    .expect("the room settles once the dealers stop");
    let first_free = room
        .tables
        .iter()
        .find(|p| p.tournament_id.is_empty())
        .map(|p| p.table.as_ref().unwrap().name.clone())
        .expect("a free table");
    assert!(first_free == "Red 3" || first_free == "Red 2", "{room:?}");
    seating
        .create_tournament(with(create("next", None), &director))
        .await
        .expect("create");
    common::presales(&mut seating, "next", 4, &director).await;
    seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: "next".into(),
            },
            &director,
        ))
        .await
        .expect("start");
    assert_eq!(named("next", 1).await, [(1, first_free)]);
}

/// Issue 27 through one `felt up`: a house selling a 20,000-chip add-on for
/// 50.00 through the break after level 2, and up to two 10,000-chip
/// rebuys for 100.00 to a player at or below the starting stack (rule 27).
/// Before the first hand the floor sells a rebuy (a partner may not; a
/// second, above the starting stack, is refused); a hand at each table at
/// 25/50; level 2 runs out, and at the break the floor sells the add-on
/// (one per entry), on the stack before the next hand, both prices in the
/// pool (`GetPayouts`). The floor jumps past the break that colours up the
/// 25s (TDA 24): each table where a stack holds one races them off before
/// its next hand, every stack a multiple of 100 right after; at 200/400
/// the director colours up the 100s off the structure (TDA 25; refused to
/// the floor, and for a chip not the smallest), and the tables race those.
/// Played to a winner; `felt audit verify` deals each race again and
/// accounts every chip, and the cage's books balance.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn felt_up_colours_up_sells_an_add_on_and_a_rebuy_and_accounts_every_chip() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("up");
    let mut up = Up::start(&[], &data).await;
    let director = up.token("director").to_string();
    let t = "addon";
    let mut seating = up.seating();
    let mut create = create();
    create.tournament_id = t.into();
    create.table_size = 9;
    // The 25s leave at the break after level 2; level 4 on is paid in 200s.
    let level = |sb: u64, bb: u64, smallest: &str| {
        format!(
            "[[periods]]\nkind = \"level\"\nsmall_blind = {sb}\nbig_blind = {bb}\nminutes = 20\n{smallest}"
        )
    };
    create.structure = Some(pb::create_tournament_request::Structure::StructureText(
        [
            "name = \"Colour-ups\"\nstarting_stack = 20000\n".to_string(),
            level(25, 50, ""),
            level(50, 100, ""),
            "[[periods]]\nkind = \"break\"\nminutes = 10\ncolor_up = 25\n".into(),
            level(100, 200, "smallest_chip = 100\n"),
            level(200, 400, ""),
            level(400, 800, ""),
            level(1_000, 2_000, ""),
            level(2_000, 4_000, ""),
            level(5_000, 10_000, ""),
            level(10_000, 20_000, ""),
        ]
        .concat(),
    ));
    create.money = Some(pb::MoneySettings {
        currency: "USD".into(),
        buy_in: 10_000,
        fee: 1_000,
        add_on: 5_000,
        rebuy: 10_000,
        ..Default::default()
    });
    create.rebuy = Some(pb::RebuyTerms {
        chips: 10_000,
        last_level: 2,
        limit: 2,
        condition: pb::RebuyCondition::AtOrBelowStart.into(),
    });
    // The chips and the price go together.
    let mut priced_only = create.clone();
    priced_only.tournament_id = "priced".into();
    let e = seating
        .create_tournament(with(priced_only, &director))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    create.add_on = Some(pb::AddOnTerms {
        chips: 20_000,
        last_level: 2,
    });
    seating
        .create_tournament(with(create, &director))
        .await
        .expect("create");
    common::presales(&mut seating, t, 12, &director).await;
    seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: t.into(),
            },
            &director,
        ))
        .await
        .expect("start");
    let rebuyer = seating
        .find_seat(with(
            pb::FindSeatRequest {
                tournament_id: t.into(),
                query: "Player 06".into(),
            },
            &director,
        ))
        .await
        .unwrap()
        .into_inner()
        .entries
        .remove(0);
    let rebuy = |id: &str, entry: u64, role: &str| {
        let mut seating = up.seating();
        let req = with(
            pb::FloorRequest {
                tournament_id: t.into(),
                command_id: id.into(),
                command: Some(pb::floor_request::Command::SellRebuy(pb::SellRebuy {
                    payment: None,
                    entry,
                })),
            },
            up.token(role),
        );
        async move { seating.floor(req).await.map(tonic::Response::into_inner) }
    };
    let sell = |id: &str, entry: u64, role: &str| {
        let mut seating = up.seating();
        let req = with(
            pb::FloorRequest {
                tournament_id: t.into(),
                command_id: id.into(),
                command: Some(pb::floor_request::Command::SellAddOn(pb::SellAddOn {
                    payment: None,
                    entry,
                })),
            },
            up.token(role),
        );
        async move { seating.floor(req).await.map(tonic::Response::into_inner) }
    };
    // A rebuy before the first hand: not the partner's to sell; to a
    // player at the starting stack, sold; a second, above it, refused.
    let e = rebuy("r-1", rebuyer.entry, "partner").await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    rebuy("r-1", rebuyer.entry, "floor")
        .await
        .expect("rebuy sold");
    let e = rebuy("r-2", rebuyer.entry, "floor").await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("rule 27"), "{e:?}");
    let rebuyer_table =
        felt_proto::v1::table_service_client::TableServiceClient::new(up.channel.clone())
            .get_table(with(
                pb::GetTableRequest {
                    table: Some(pb::TableRef {
                        tournament_id: t.into(),
                        table: rebuyer.table,
                    }),
                },
                &director,
            ))
            .await
            .unwrap()
            .into_inner()
            .table
            .unwrap();
    let seat = rebuyer_table
        .seats
        .iter()
        .find(|s| s.entry == rebuyer.entry)
        .unwrap();
    assert_eq!(seat.stack, 20_000 + 10_000, "{rebuyer_table:?}");
    // The colour-ups: a hand at each table at 25/50, then past the break
    // that colours up the 25s, a hand at each table after its race.
    let tables = felt_proto::v1::table_service_client::TableServiceClient::new(up.channel.clone());
    let play_one = |roll: u64| {
        let (seating, tables, director) = (up.seating(), tables.clone(), director.clone());
        async move {
            let mut roll = roll;
            for table in 1..=2 {
                for _ in 0..500 {
                    match common::play_hand(&seating, &tables, t, table, &director, &mut roll).await
                    {
                        common::Hand::Played => break,
                        common::Hand::Wait => tokio::time::sleep(Duration::from_millis(10)).await,
                        common::Hand::Closed => panic!("table {table} closed"),
                    }
                }
            }
        }
    };
    let stacks = |table: u32| {
        let (mut tables, director) = (tables.clone(), director.clone());
        async move {
            tables
                .get_table(with(
                    pb::GetTableRequest {
                        table: Some(pb::TableRef {
                            tournament_id: t.into(),
                            table,
                        }),
                    },
                    &director,
                ))
                .await
                .unwrap()
                .into_inner()
                .table
                .unwrap()
                .seats
                .iter()
                .map(|s| s.stack)
                .collect::<Vec<u64>>()
        }
    };
    play_one(11).await;
    // A race is due where a stack holds chips the level no longer has.
    let due = |modulo: u64| {
        let stacks = &stacks;
        async move {
            let mut due = false;
            for table in 1..=2 {
                due |= stacks(table).await.iter().any(|s| s % modulo != 0);
            }
            due
        }
    };
    let due_25 = due(100).await;
    // Level 2 runs out: the break, where the floor sells the add-on (a
    // partner may not; one per entry), on the stack before the next hand,
    // the price in the pool.
    up.control(
        t,
        "jump-2",
        pb::control_clock_request::Command::JumpToLevel(pb::JumpToLevel { level: 2 }),
    )
    .await;
    let on_break = up
        .control(
            t,
            "end-2",
            pb::control_clock_request::Command::SetRemaining(pb::SetRemaining { remaining_ms: 1 }),
        )
        .await;
    if !on_break.on_break {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let stack_of = |table: u32, entry: u64| {
        let (mut tables, director) = (
            felt_proto::v1::table_service_client::TableServiceClient::new(up.channel.clone()),
            director.clone(),
        );
        async move {
            let view = tables
                .get_table(with(
                    pb::GetTableRequest {
                        table: Some(pb::TableRef {
                            tournament_id: t.into(),
                            table,
                        }),
                    },
                    &director,
                ))
                .await
                .unwrap()
                .into_inner()
                .table
                .unwrap();
            view.seats
                .iter()
                .find(|s| s.entry == entry)
                .map(|s| s.stack)
                .unwrap()
        }
    };
    // (A player still seated after the first hands, at rest.)
    let map = up
        .seating()
        .get_table_map(with(
            pb::GetTableMapRequest {
                tournament_id: t.into(),
            },
            &director,
        ))
        .await
        .expect("the table map")
        .into_inner();
    // (Not a player who busted and is deciding on a rebuy: their seat is
    // held at seating, their chips gone from the table.)
    let (entry, table) = map
        .tables
        .iter()
        .flat_map(|t| {
            t.occupants
                .iter()
                .filter(|o| !t.rebuy_offers.contains(&o.entry))
        })
        .find(|o| !o.moving && o.entry != rebuyer.entry)
        .map(|o| (o.entry, o.table))
        .expect("a player seated");
    let before = stack_of(table, entry).await;
    let e = sell("a-1", entry, "partner").await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    sell("a-1", entry, "floor")
        .await
        .expect("sold at the break");
    let e = sell("a-2", entry, "floor").await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("one per entry"), "{e:?}");
    assert_eq!(stack_of(table, entry).await, before + 20_000);
    let clock_now = up
        .clock()
        .get_clock(with(
            pb::GetClockRequest {
                tournament_id: t.into(),
            },
            &director,
        ))
        .await
        .expect("the clock")
        .into_inner()
        .clock
        .unwrap();
    assert!(clock_now.on_break, "sold at the break: {clock_now:?}");
    let payouts = up
        .payout()
        .get_payouts(with(
            pb::GetPayoutsRequest {
                tournament_id: t.into(),
            },
            up.token("partner"),
        ))
        .await
        .expect("payouts")
        .into_inner();
    assert_eq!(
        (payouts.entries, payouts.add_ons, payouts.rebuys),
        (12, 1, 1),
        "{payouts:?}"
    );
    up.control(
        t,
        "jump-3",
        pb::control_clock_request::Command::JumpToLevel(pb::JumpToLevel { level: 3 }),
    )
    .await;
    play_one(12).await;
    for table in 1..=2 {
        let stacks = stacks(table).await;
        assert!(
            stacks.iter().all(|s| s % 100 == 0),
            "table {table} after the race of the 25s: {stacks:?}"
        );
    }
    // At 200/400 the director colours up the 100s (TDA 25).
    up.control(
        t,
        "jump-4",
        pb::control_clock_request::Command::JumpToLevel(pb::JumpToLevel { level: 4 }),
    )
    .await;
    let colour_up = |id: &str, leaving: u64, role: &str| {
        let mut clock = up.clock();
        let req = with(
            pb::ControlClockRequest {
                tournament_id: t.into(),
                command_id: id.into(),
                command: Some(pb::control_clock_request::Command::ColourUp(
                    pb::ColourUpNow {
                        leaving,
                        smallest: 200,
                        reason: "the 100s ran short".into(),
                    },
                )),
            },
            up.token(role),
        );
        async move {
            clock
                .control_clock(req)
                .await
                .map(tonic::Response::into_inner)
        }
    };
    let due_100 = due(200).await;
    let e = colour_up("c-0", 100, "floor").await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let e = colour_up("c-0", 25, "director").await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("TDA 25"), "{e:?}");
    let clock = colour_up("c-1", 100, "director")
        .await
        .expect("coloured up")
        .clock
        .unwrap();
    assert_eq!(clock.blinds.unwrap().smallest_chip, 200);
    play_one(13).await;
    for table in 1..=2 {
        let stacks = stacks(table).await;
        assert!(
            stacks.iter().all(|s| s % 200 == 0),
            "table {table} after the race of the 100s: {stacks:?}"
        );
    }
    // Played to a winner; the pool paid out is the entries' and the
    // add-on's.
    for d in common::dealers(&up.channel, t, 1..=2, &director) {
        d.await.expect("a dealer");
    }
    let end = common::all_placed(&up.channel, t, 12, &director).await;
    let paid: u64 = end.results.iter().map(|r| r.prize).sum();
    assert_eq!(paid, 12 * 10_000 + 5_000 + 10_000);
    up.stop();
    let data = data.to_str().unwrap();
    let audit = audit_passes(&["--data", data, "--tournament", t]);
    assert!(
        audit.contains("1 add-on(s) sold, 20000 chips on the tables"),
        "{audit}"
    );
    assert!(
        // (Players busting in the window were offered one: the dealers'
        // floor declined each.)
        audit.contains("1 rebuy(s) sold to 1 entries (0 of ")
            && audit.contains(" declined), 10000 chips on the tables"),
        "{audit}"
    );
    assert_eq!(
        (
            audit.contains("colour-up of the 25 chip"),
            audit.contains("colour-up of the 100 chip")
        ),
        (due_25, due_100),
        "{audit}"
    );
    // The cage's books of this tournament balance.
    let (ok, books, stderr) = {
        let out = Command::new(env!("CARGO_BIN_EXE_felt"))
            .args(["payout", "cage", "--tournament", t, "--data", data])
            .output()
            .expect("felt payout cage");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert!(ok && !books.contains("FAILED"), "{books}{stderr}");
    assert!(
        books.contains("12 buy-in(s), 1 add-on(s), 1 rebuy(s)"),
        "{books}"
    );
}

/// Issue 27's cage through one `felt up`: the director issues a cashier's
/// credential; the cashier sells ten presales by one transfer and two
/// walk-ins in cash and by card, refunds one of them with a reason, sells
/// an add-on and a rebuy with their payments; the tournament is played to
/// a winner; the cashier pays every prize against an identity document,
/// the house withholding 25% of a prize of 30.00 or more (30% without a tax
/// number on file). The cage's books list every payment with its method,
/// reference and cashier, the refund with its reason, each prize paid with
/// what was withheld, and they balance to the pool, the fees and the
/// prizes; a partner may not read them; the CSV export says the same.
/// Another event, cancelled by the director before play, refunds every
/// entry with the reason, keeps nothing, and takes no more entries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cage_takes_payments_refunds_pays_prizes_and_its_books_balance() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("up");
    let up = Up::start(&[], &data).await;
    let director = up.token("director").to_string();
    let t = "cage";
    let mut seating = up.seating();
    let mut create = create();
    create.tournament_id = t.into();
    create.table_size = 9;
    create.money = Some(pb::MoneySettings {
        currency: "USD".into(),
        buy_in: 10_000,
        fee: 1_000,
        add_on: 5_000,
        rebuy: 10_000,
        withholding: Some(pb::Withholding {
            threshold: 3_000,
            rate_bp: 2_500,
            rate_without_tax_number_bp: 3_000,
        }),
        ..Default::default()
    });
    create.add_on = Some(pb::AddOnTerms {
        chips: 20_000,
        last_level: 2,
    });
    // (The condition unset: at or below the starting stack.)
    create.rebuy = Some(pb::RebuyTerms {
        chips: 10_000,
        last_level: 2,
        limit: 1,
        ..Default::default()
    });
    seating
        .create_tournament(with(create, &director))
        .await
        .expect("create");
    let cashier = seating
        .issue_credential(with(
            pb::IssueCredentialRequest {
                command_id: "cashier-1".into(),
                person_id: "rita.caixa".into(),
                name: "Rita".into(),
                role: Some(pb::StaffRole {
                    kind: pb::StaffRoleKind::Cashier.into(),
                    ..Default::default()
                }),
            },
            &director,
        ))
        .await
        .expect("a cashier's credential")
        .into_inner()
        .token;
    let pay = |method: pb::PaymentMethod, reference: &str| {
        Some(pb::Payment {
            method: method.into(),
            reference: reference.into(),
        })
    };
    seating
        .register_many(with(
            pb::RegisterManyRequest {
                tournament_id: t.into(),
                command_id: "presales".into(),
                players: (1..=10)
                    .map(|i| pb::Registrant {
                        player_id: format!("p{i}"),
                        name: format!("Player {i:02}"),
                    })
                    .collect(),
                payment: pay(pb::PaymentMethod::Transfer, "batch 1"),
            },
            &cashier,
        ))
        .await
        .expect("presales");
    let walk_in = |id: &str, method: pb::PaymentMethod, slip: &str| {
        let mut seating = up.seating();
        let req = with(
            pb::RegisterRequest {
                tournament_id: t.into(),
                command_id: id.into(),
                player_id: id.into(),
                name: format!("Walk-in {id}"),
                give_up_chips: false,
                payment: pay(method, slip),
                ticket: None,
            },
            &cashier,
        );
        async move { seating.register(req).await.expect("a walk-in").into_inner() }
    };
    walk_in("w1", pb::PaymentMethod::Cash, "slip 1").await;
    let leaving = walk_in("w2", pb::PaymentMethod::Card, "slip 2")
        .await
        .entry
        .unwrap()
        .entry;
    seating
        .unregister(with(
            pb::UnregisterRequest {
                tournament_id: t.into(),
                entry: leaving,
                reason: "called away before the start".into(),
            },
            &cashier,
        ))
        .await
        .expect("a refund");
    // The cashier rules nothing.
    let e = seating
        .hold_table(with(
            pb::HoldTableRequest {
                tournament_id: t.into(),
                command_id: "h".into(),
                table: 1,
                hold: true,
                reason: "no".into(),
            },
            &cashier,
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: t.into(),
            },
            &director,
        ))
        .await
        .expect("start");
    let floor = |id: &str, command: pb::floor_request::Command| {
        let mut seating = up.seating();
        let req = with(
            pb::FloorRequest {
                tournament_id: t.into(),
                command_id: id.into(),
                command: Some(command),
            },
            &cashier,
        );
        async move { seating.floor(req).await.expect("sold") }
    };
    floor(
        "ao-1",
        pb::floor_request::Command::SellAddOn(pb::SellAddOn {
            entry: 1,
            payment: pay(pb::PaymentMethod::Cash, "ao slip"),
        }),
    )
    .await;
    floor(
        "rb-1",
        pb::floor_request::Command::SellRebuy(pb::SellRebuy {
            entry: 2,
            payment: pay(pb::PaymentMethod::Card, "rb slip"),
        }),
    )
    .await;
    for d in common::dealers(&up.channel, t, 1..=2, &director) {
        d.await.expect("a dealer");
    }
    let end = common::all_placed(&up.channel, t, 11, &director).await;
    // Every prize paid at the cage, the winner with a tax number on file.
    let mut payout = up.payout();
    for r in end.results.iter().filter(|r| r.prize > 0) {
        let taxed = r.first == 1;
        let paid = payout
            .pay_prize(with(
                pb::PayPrizeRequest {
                    tournament_id: t.into(),
                    command_id: format!("pay-{}", r.entry),
                    entry: r.entry,
                    document: Some(pb::IdDocument {
                        kind: pb::IdDocumentKind::Passport.into(),
                        reference: format!("P-{}", r.entry),
                    }),
                    tax_number: if taxed {
                        "123-45".into()
                    } else {
                        String::new()
                    },
                },
                &cashier,
            ))
            .await
            .expect("a prize paid")
            .into_inner();
        let rate = if taxed { 25 } else { 30 };
        let withheld = if r.prize >= 3_000 {
            r.prize * rate / 100
        } else {
            0
        };
        assert_eq!(
            (paid.gross, paid.withheld, paid.net),
            (r.prize, withheld, r.prize - withheld),
            "{r:?}"
        );
    }
    let winner = end.results.iter().find(|r| r.first == 1).unwrap();
    let again = payout
        .pay_prize(with(
            pb::PayPrizeRequest {
                tournament_id: t.into(),
                command_id: "pay-again".into(),
                entry: winner.entry,
                document: Some(pb::IdDocument {
                    kind: pb::IdDocumentKind::Passport.into(),
                    reference: "P".into(),
                }),
                tax_number: String::new(),
            },
            &cashier,
        ))
        .await
        .unwrap_err();
    assert_eq!(again.code(), Code::AlreadyExists, "{again:?}");
    // The books.
    let e = payout
        .get_cage(with(
            pb::GetCageRequest {
                tournament_id: t.into(),
            },
            up.token("partner"),
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let books = payout
        .get_cage(with(
            pb::GetCageRequest {
                tournament_id: t.into(),
            },
            &cashier,
        ))
        .await
        .expect("the cage's books")
        .into_inner();
    assert!(books.balances, "{:?}", books.checks);
    // (The field is placed: the prizes are checked against the pool too.)
    assert_eq!(books.checks.len(), 4, "{:?}", books.checks);
    let totals = books.totals.unwrap();
    assert_eq!(totals.taken_in, 12 * 11_000 + 5_000 + 10_000);
    assert_eq!(totals.refunded, 11_000);
    assert_eq!(totals.collected, 11 * 10_000 + 5_000 + 10_000);
    assert_eq!(totals.fees, 11 * 1_000);
    assert_eq!(totals.prizes_unpaid, 0);
    assert_eq!(totals.unrecorded_payments, 0);
    assert_eq!(
        totals.prizes_paid + totals.withheld,
        totals.prizes_awarded,
        "{totals:?}"
    );
    let kind = |k: pb::CageLineKind| {
        books
            .lines
            .iter()
            .filter(move |l| l.kind == i32::from(k))
            .collect::<Vec<_>>()
    };
    let buy_ins = kind(pb::CageLineKind::BuyIn);
    assert_eq!(buy_ins.len(), 12);
    assert!(
        buy_ins
            .iter()
            .all(|l| l.cashier == "rita.caixa" && l.payment.is_some()),
        "{buy_ins:?}"
    );
    let refund = kind(pb::CageLineKind::Refund);
    assert_eq!(refund.len(), 1);
    assert_eq!(
        (
            refund[0].entry,
            refund[0].money_out,
            refund[0].note.as_str()
        ),
        (leaving, 11_000, "called away before the start")
    );
    let rebuy = kind(pb::CageLineKind::Rebuy);
    assert_eq!(
        rebuy[0].payment.as_ref().map(|p| p.reference.as_str()),
        Some("rb slip")
    );
    assert!(
        kind(pb::CageLineKind::PrizePaid)
            .iter()
            .all(|l| l.document.is_some() && l.cashier == "rita.caixa")
    );
    let csv = payout
        .export_cage(with(
            pb::ExportCageRequest {
                tournament_id: t.into(),
                format: pb::ExportFormat::Csv.into(),
            },
            &cashier,
        ))
        .await
        .expect("the export")
        .into_inner()
        .body;
    assert!(csv.contains("Transfer,batch 1,rita.caixa"), "{csv}");
    assert!(csv.contains(",check,") && !csv.contains("FAILED"), "{csv}");

    // Another event cancelled before play: every entry refunded with the
    // reason (the director's to do, not the cashier's), nothing kept.
    let mut other = self::create();
    other.tournament_id = "off".into();
    other.money = Some(pb::MoneySettings {
        currency: "USD".into(),
        buy_in: 10_000,
        fee: 1_000,
        ..Default::default()
    });
    seating
        .create_tournament(with(other, &director))
        .await
        .expect("create");
    seating
        .register_many(with(
            pb::RegisterManyRequest {
                tournament_id: "off".into(),
                command_id: "off-presales".into(),
                players: (1..=3)
                    .map(|i| pb::Registrant {
                        player_id: format!("o{i}"),
                        name: format!("Other {i}"),
                    })
                    .collect(),
                payment: pay(pb::PaymentMethod::Cash, "off batch"),
            },
            &cashier,
        ))
        .await
        .expect("presales");
    let cancel = |token: &str| {
        let mut seating = up.seating();
        let req = with(
            pb::CancelTournamentRequest {
                tournament_id: "off".into(),
                command_id: "cancel".into(),
                reason: "the room lost power".into(),
            },
            token,
        );
        async move { seating.cancel_tournament(req).await }
    };
    let e = cancel(&cashier).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let cancelled = cancel(&director).await.expect("cancelled").into_inner();
    assert_eq!(cancelled.refunded, 3);
    let books = payout
        .get_cage(with(
            pb::GetCageRequest {
                tournament_id: "off".into(),
            },
            &cashier,
        ))
        .await
        .expect("the books")
        .into_inner();
    assert!(books.balances, "{:?}", books.checks);
    let totals = books.totals.unwrap();
    assert_eq!((totals.taken_in, totals.refunded), (33_000, 33_000));
    let refunds: Vec<_> = books
        .lines
        .iter()
        .filter(|l| l.kind == i32::from(pb::CageLineKind::Refund))
        .collect();
    assert_eq!(refunds.len(), 3);
    assert!(
        refunds
            .iter()
            .all(|l| l.note == "the tournament was cancelled: the room lost power"),
        "{refunds:?}"
    );
    let e = seating
        .register(with(
            pb::RegisterRequest {
                tournament_id: "off".into(),
                command_id: "late".into(),
                player_id: "late".into(),
                name: "Late".into(),
                give_up_chips: false,
                payment: None,
                ticket: None,
            },
            &cashier,
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("cancelled"), "{e:?}");
}

/// Seed 002, rule 77 through one `felt up`: the floor stops the day with
/// a drawn 2 before any hand; every table plays exactly two hands and
/// waits (the table map says none are left to play there), the clock's
/// day ends by itself once the last table has played them, and the next
/// day started, the tables deal again and play to a winner; the audit
/// passes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn felt_up_ends_a_day_after_the_drawn_hands_at_every_table_and_plays_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("up");
    let mut up = Up::start(&[], &data).await;
    let director = up.token("director").to_string();
    let t = "days";
    let mut seating = up.seating();
    let mut create = create();
    create.tournament_id = t.into();
    create.table_size = 9;
    seating
        .create_tournament(with(create, &director))
        .await
        .expect("create");
    common::presales(&mut seating, t, 18, &director).await;
    seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: t.into(),
            },
            &director,
        ))
        .await
        .expect("start");
    let drawn = up
        .control(
            t,
            "day-1-draw",
            pb::control_clock_request::Command::EndDayAfter(pb::EndDayAfter { hands: 2 }),
        )
        .await;
    assert_eq!(drawn.status(), pb::ClockStatus::EndOfDay);
    let dealers = common::dealers(&up.channel, t, 1..=2, &director);
    let clock = || {
        let (mut c, director) = (up.clock(), director.clone());
        async move {
            c.get_clock(with(
                pb::GetClockRequest {
                    tournament_id: t.into(),
                },
                &director,
            ))
            .await
            .expect("the clock")
            .into_inner()
            .clock
            .expect("a view")
        }
    };
    let ended = tokio::time::timeout(Duration::from_secs(60), async {
        while clock().await.status() != pb::ClockStatus::DayOver {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    let map = seating
        .get_table_map(with(
            pb::GetTableMapRequest {
                tournament_id: t.into(),
            },
            &director,
        ))
        .await
        .expect("the table map")
        .into_inner();
    assert!(
        ended.is_ok(),
        "the day did not end by itself after the drawn hands: {:?}, {map:?}",
        clock().await
    );
    assert!(!map.tables.is_empty());
    for table in &map.tables {
        assert_eq!(
            (table.hands, table.in_hand, table.last_hands_left),
            (2, false, Some(0)),
            "{table:?}"
        );
    }
    // Still two each a moment later: nobody deals on a day that is over.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let again = seating
        .get_table_map(with(
            pb::GetTableMapRequest {
                tournament_id: t.into(),
            },
            &director,
        ))
        .await
        .expect("the table map")
        .into_inner();
    assert!(again.tables.iter().all(|t| t.hands == 2), "{again:?}");
    up.control(
        t,
        "day-2-start",
        pb::control_clock_request::Command::StartDay(pb::StartDay {}),
    )
    .await;
    for d in dealers {
        d.await.expect("a dealer");
    }
    let end = common::all_placed(&up.channel, t, 18, &director).await;
    assert_eq!(end.results.len(), 18);
    up.stop();
    audit_passes(&["--data", data.to_str().unwrap(), "--tournament", t]);
}

/// Seed 002, rule 77 by the tournament's setting, through `felt up`: the
/// day ends after level 1. When the floor sets the clock to just over ten
/// minutes left, the clock stops itself at ten, the service draws the card
/// at once (no one enters it) and records its seed; every table then
/// plays exactly that many hands and the day ends, the audit checking the
/// card against its seed. Then bag and tag: every survivor's stack read
/// from the tables into a numbered bag (every chip in play bagged), the
/// seal refused while a disputed bag waits, the floor's correction at the
/// table counted again, the next day refused until the bags are sealed,
/// then sealed, exported as CSV and served to the room display's bag
/// page; Day 2 draws every seat afresh from them (rule 7), the audit
/// checking each mover arrives with their bag's chips. A second tournament whose day ends at level 1's
/// end stops when the level runs out, with the hands being played as the
/// last (none here), and its next day starts at level 2. A third, played
/// down to 12 players, ends its day when a hand-for-hand round reaches
/// 12 or fewer, and plays on to a winner the next day.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn felt_up_stops_the_clock_itself_draws_the_days_card_bags_the_stacks_and_ends_days_at_a_level_or_a_count()
 {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("up");
    let mut up = Up::start(&[], &data).await;
    let director = up.token("director").to_string();
    let mut seating = up.seating();
    for (t, rule) in [
        ("drawn", pb::DayEndRule::Rule77),
        ("level", pb::DayEndRule::LevelEnd),
        ("count", pb::DayEndRule::Unspecified),
    ] {
        let mut create = create();
        create.tournament_id = t.into();
        create.table_size = 9;
        create.day_end = Some(if t == "count" {
            // Played down to 12 on day 1, whatever the level.
            pb::DayEndSettings {
                players_left: vec![12],
                ..Default::default()
            }
        } else {
            pb::DayEndSettings {
                rule: rule.into(),
                card: pb::DayEndCard::Unspecified.into(),
                // ("level" ends day 2 at level 2's end.)
                last_levels: if t == "level" { vec![1, 2] } else { vec![1] },
                players_left: Vec::new(),
            }
        });
        seating
            .create_tournament(with(create, &director))
            .await
            .expect("create");
        common::presales(&mut seating, t, 18, &director).await;
        seating
            .start_tournament(with(
                pb::StartTournamentRequest {
                    tournament_id: t.into(),
                },
                &director,
            ))
            .await
            .expect("start");
    }
    let clock = |t: &'static str| {
        let (mut c, director) = (up.clock(), director.clone());
        async move {
            c.get_clock(with(
                pb::GetClockRequest {
                    tournament_id: t.into(),
                },
                &director,
            ))
            .await
            .expect("the clock")
            .into_inner()
            .clock
            .expect("a view")
        }
    };
    let until = |t: &'static str, status: pb::ClockStatus| async move {
        tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                let view = clock(t).await;
                if view.status() == status {
                    return view;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{t}: the clock never reached {status:?}"))
    };
    // Rule 77: just over ten minutes left of the day's last level.
    up.control(
        "drawn",
        "near-the-end",
        pb::control_clock_request::Command::SetRemaining(pb::SetRemaining {
            remaining_ms: 10 * 60_000 + 500,
        }),
    )
    .await;
    let drawn = until("drawn", pb::ClockStatus::EndOfDay).await;
    let hands = drawn.end_of_day_hands;
    assert!((2..=5).contains(&hands), "{drawn:?}");
    assert_eq!(drawn.remaining_ms, 10 * 60_000, "{drawn:?}");
    let dealers = common::dealers(&up.channel, "drawn", 1..=2, &director);
    until("drawn", pb::ClockStatus::DayOver).await;
    let map = seating
        .get_table_map(with(
            pb::GetTableMapRequest {
                tournament_id: "drawn".into(),
            },
            &director,
        ))
        .await
        .expect("the table map")
        .into_inner();
    assert!(!map.tables.is_empty());
    for table in &map.tables {
        assert_eq!(
            (table.hands, table.in_hand, table.last_hands_left),
            (u64::from(hands), false, Some(0)),
            "{table:?}"
        );
    }
    // Bag and tag: every survivor's stack read from their table, numbered.
    let floor_token = up.token("floor").to_string();
    let floor = |id: &str, command: pb::floor_request::Command| {
        let mut seating = up.seating();
        let req = with(
            pb::FloorRequest {
                tournament_id: "drawn".into(),
                command_id: id.into(),
                command: Some(command),
            },
            &floor_token,
        );
        async move { seating.floor(req).await.map(tonic::Response::into_inner) }
    };
    let bags = || {
        let mut seating = up.seating();
        let req = with(
            pb::GetBagsRequest {
                tournament_id: "drawn".into(),
                ..Default::default()
            },
            &director,
        );
        async move { seating.get_bags(req).await.expect("the bags").into_inner() }
    };
    use pb::floor_request::Command as F;
    let confirm = |entry: u64, by: pb::BagWitness| {
        F::ConfirmBag(pb::ConfirmBag {
            entry,
            by: by.into(),
        })
    };
    let early = floor("early", F::SealBags(pb::SealBags {}))
        .await
        .unwrap_err();
    assert!(
        early.message().contains("no stacks are bagged"),
        "{early:?}"
    );
    floor("bag", F::BagStacks(pb::BagStacks {}))
        .await
        .expect("the stacks bagged");
    let list = bags().await;
    let survivors: u64 = map.tables.iter().map(|t| u64::from(t.players)).sum();
    assert_eq!(list.bags.len() as u64, survivors, "{list:?}");
    // Every chip in play is in a bag: 18 starting stacks of the turbo's.
    assert_eq!(list.chips, 18 * 20_000, "{list:?}");
    assert!(!list.sealed);
    assert!(list.bags.windows(2).all(|w| w[0].chips >= w[1].chips));
    let mut numbers: Vec<u32> = list.bags.iter().map(|b| b.bag).collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=survivors as u32).collect::<Vec<_>>());
    // The player at table 1 disputes their count: every other bag is
    // confirmed by both, theirs only by them.
    let disputed = list
        .bags
        .iter()
        .find(|b| b.table == 1)
        .expect("a bag from table 1")
        .clone();
    for b in &list.bags {
        floor(
            &format!("player-{}", b.entry),
            confirm(b.entry, pb::BagWitness::Player),
        )
        .await
        .expect("the player's confirmation");
        if b.entry != disputed.entry {
            floor(
                &format!("staff-{}", b.entry),
                confirm(b.entry, pb::BagWitness::Staff),
            )
            .await
            .expect("the staff's confirmation");
        }
    }
    let open = floor("seal-1", F::SealBags(pb::SealBags {}))
        .await
        .unwrap_err();
    assert_eq!(open.code(), Code::FailedPrecondition, "{open:?}");
    assert!(open.message().contains("not yet confirmed"), "{open:?}");
    // The floor corrects the stack at the table; counted again, that bag
    // holds the corrected count and must be confirmed again.
    at_table(
        &up,
        "drawn",
        "bag-fix",
        "floor",
        pb::execute_request::Command::CorrectStack(pb::CorrectStack {
            seat: disputed.seat,
            entry: disputed.entry,
            stack: disputed.chips - 100,
            concerns: Some(pb::Concerns {
                kind: Some(pb::concerns::Kind::Moment("the bag count".into())),
            }),
            reason: "a 100 chip counted twice".into(),
        }),
    )
    .await
    .expect("the correction");
    floor("bag-again", F::BagStacks(pb::BagStacks {}))
        .await
        .expect("counted again");
    let list = bags().await;
    let again = list
        .bags
        .iter()
        .find(|b| b.entry == disputed.entry)
        .unwrap();
    assert_eq!(
        (again.chips, again.bag, again.player_confirmed),
        (disputed.chips - 100, disputed.bag, false),
        "{again:?}"
    );
    for by in [pb::BagWitness::Player, pb::BagWitness::Staff] {
        floor(&format!("again-{by:?}"), confirm(disputed.entry, by))
            .await
            .expect("confirmed again");
    }
    // No next day before the bags are sealed.
    let early = up
        .clock()
        .control_clock(with(
            pb::ControlClockRequest {
                tournament_id: "drawn".into(),
                command_id: "day-2-too-soon".into(),
                command: Some(pb::control_clock_request::Command::StartDay(
                    pb::StartDay {},
                )),
            },
            &floor_token,
        ))
        .await
        .unwrap_err();
    assert_eq!(early.code(), Code::FailedPrecondition, "{early:?}");
    assert!(early.message().contains("not sealed"), "{early:?}");
    floor("seal", F::SealBags(pb::SealBags {}))
        .await
        .expect("sealed");
    let sealed = bags().await;
    assert!(sealed.sealed);
    assert_eq!(sealed.chips, 18 * 20_000 - 100);
    // Printable, and on the room display's bag page.
    let csv = up
        .seating()
        .export_bags(with(
            pb::ExportBagsRequest {
                tournament_id: "drawn".into(),
                format: pb::ExportFormat::Csv.into(),
                ..Default::default()
            },
            &director,
        ))
        .await
        .expect("the CSV")
        .into_inner();
    assert_eq!(csv.content_type, "text/csv");
    assert_eq!(
        csv.body.lines().count() as u64,
        survivors + 1,
        "{}",
        csv.body
    );
    assert!(
        csv.body.starts_with("rank,bag,entry,name,chips"),
        "{}",
        csv.body
    );
    let page = {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(&up.addr).expect("the display");
        write!(
            s,
            "GET /api/t/drawn/bags HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nConnection: close\r\n\r\n",
            up.addr,
            up.token("partner")
        )
        .expect("send");
        let mut text = String::new();
        let _ = s.read_to_string(&mut text);
        text
    };
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(page.contains("\"sealed\": true"), "{page}");
    up.control(
        "drawn",
        "day-2-start",
        pb::control_clock_request::Command::StartDay(pb::StartDay {}),
    )
    .await;
    // Day 2 draws every seat afresh from the bags (rule 7).
    let moves = up
        .seating()
        .get_moves(with(
            pb::GetMovesRequest {
                tournament_id: "drawn".into(),
                last: 0,
            },
            &director,
        ))
        .await
        .expect("the moves")
        .into_inner();
    assert!(
        moves
            .moves
            .iter()
            .any(|m| m.reason() == pb::MoveReason::NewDay),
        "{moves:?}"
    );
    for d in dealers {
        d.await.expect("a dealer");
    }
    common::all_placed(&up.channel, "drawn", 18, &director).await;

    // At the level's end: nobody dealt, so the day is over at once.
    up.control(
        "level",
        "level-end",
        pb::control_clock_request::Command::SetRemaining(pb::SetRemaining { remaining_ms: 300 }),
    )
    .await;
    let over = until("level", pb::ClockStatus::DayOver).await;
    assert_eq!(over.level, 1, "{over:?}");
    // Each day's bags stay readable after the next day's count.
    let floor_level = |id: String, command: pb::floor_request::Command| {
        let mut seating = up.seating();
        let req = with(
            pb::FloorRequest {
                tournament_id: "level".into(),
                command_id: id,
                command: Some(command),
            },
            &floor_token,
        );
        async move { seating.floor(req).await.expect("the floor's command") }
    };
    let bags_of = |day: u32| {
        let mut seating = up.seating();
        let req = with(
            pb::GetBagsRequest {
                tournament_id: "level".into(),
                day,
            },
            &director,
        );
        async move { seating.get_bags(req).await.expect("the bags").into_inner() }
    };
    floor_level("bag".into(), F::BagStacks(pb::BagStacks {})).await;
    let day_1 = bags_of(0).await;
    for b in &day_1.bags {
        for by in [pb::BagWitness::Player, pb::BagWitness::Staff] {
            floor_level(format!("ok-{}-{by:?}", b.entry), confirm(b.entry, by)).await;
        }
    }
    floor_level("seal".into(), F::SealBags(pb::SealBags {})).await;
    let day_1 = bags_of(0).await;
    assert_eq!((day_1.day, day_1.sealed, day_1.bags.len()), (1, true, 18));
    let next = up
        .control(
            "level",
            "day-2-start",
            pb::control_clock_request::Command::StartDay(pb::StartDay {}),
        )
        .await;
    assert_eq!((next.level, next.day), (2, 2), "{next:?}");
    up.control(
        "level",
        "level-2-end",
        pb::control_clock_request::Command::SetRemaining(pb::SetRemaining { remaining_ms: 300 }),
    )
    .await;
    let over = until("level", pb::ClockStatus::DayOver).await;
    assert_eq!((over.day, over.level), (2, 2), "{over:?}");
    // (Day 2's draw may still be moving players when its day ends at
    // once: the count waits for every move.)
    floor_level("bag-day-2".into(), F::BagStacks(pb::BagStacks {})).await;
    let day_2 = bags_of(0).await;
    assert_eq!((day_2.day, day_2.sealed), (2, false), "{day_2:?}");
    assert_eq!(day_2.chips, 18 * 20_000);
    assert_eq!(bags_of(2).await, day_2);
    assert_eq!(bags_of(1).await, day_1, "day 1's list, kept");
    assert_eq!(bags_of(3).await.bags.len(), 0);
    let page = {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(&up.addr).expect("the display");
        write!(
            s,
            "GET /api/t/level/bags?day=1 HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nConnection: close\r\n\r\n",
            up.addr,
            up.token("partner")
        )
        .expect("send");
        let mut text = String::new();
        let _ = s.read_to_string(&mut text);
        text
    };
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(
        page.contains("\"day\": 1") && page.contains("\"sealed\": true"),
        "{page}"
    );

    // Played down to 12: hand-for-hand near it, the day over at 12 or
    // fewer (a round's busts all count), the clock's day ended with it.
    let dealers = common::dealers(&up.channel, "count", 1..=2, &director);
    let over = until("count", pb::ClockStatus::DayOver).await;
    assert_eq!(over.day, 1, "{over:?}");
    let standings = seating
        .get_standings(with(
            pb::GetStandingsRequest {
                tournament_id: "count".into(),
            },
            &director,
        ))
        .await
        .expect("the standings")
        .into_inner();
    // (A round may bust several at once: 12 or fewer, never none.)
    assert!((1..=12).contains(&standings.players_left), "{standings:?}");
    up.control(
        "count",
        "day-2-start",
        pb::control_clock_request::Command::StartDay(pb::StartDay {}),
    )
    .await;
    for d in dealers {
        d.await.expect("a dealer");
    }
    common::all_placed(&up.channel, "count", 18, &director).await;
    up.stop();
    let text = audit_passes(&["--data", data.to_str().unwrap()]);
    assert!(
        text.contains(&format!(
            "drawn: the day's last {hands} hands (rule 77), drawn by the service from its recorded seed"
        )),
        "{text}"
    );
    assert!(
        text.contains("drawn: 1 day(s) bagged and sealed;"),
        "{text}"
    );
}

/// Issue 28's satellites through one `felt up`: a satellite of 12 at
/// 2,200 pays two seats in a full main event (its price 11,000) and the
/// 2,000 left to third in cash; deals are refused there; play stops once
/// no more players are left than seats, each winning one; the seat winners
/// register with their tickets in the main event's Day 1A, full, outside
/// its cap, each ticket once across the event's flights and only by its
/// holder; a ticket is no cash at the cage, and the tournaments' books
/// balance and their audits pass.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_satellites_seats_are_tickets_redeemed_into_a_full_flight_of_the_event() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("up");
    let mut up = Up::start(&[], &data).await;
    let director = up.token("director").to_string();
    // The event, its Day 1A (full at two entries) and its Day 1B.
    let (event, main, day_1b, sat) = ("main-event", "main-event-1a", "main-event-1b", "sat-1");
    let mut seating = up.seating();
    let mut target = create();
    target.tournament_id = event.into();
    target.money = Some(pb::MoneySettings {
        currency: "USD".into(),
        buy_in: 10_000,
        fee: 1_000,
        ..Default::default()
    });
    target.flights = Some(pb::FlightsSettings::default());
    seating
        .create_tournament(with(target.clone(), &director))
        .await
        .expect("the main event");
    for (number, flight) in [(1, main), (2, day_1b)] {
        let mut day_1 = target.clone();
        day_1.tournament_id = flight.into();
        day_1.flights = None;
        day_1.flight = Some(pb::FlightOf {
            event_tournament_id: event.into(),
            number,
        });
        day_1.max_entries = 2;
        seating
            .create_tournament(with(day_1, &director))
            .await
            .expect("a Day 1 flight");
    }
    let mut satellite = create();
    satellite.tournament_id = sat.into();
    satellite.money = Some(pb::MoneySettings {
        currency: "USD".into(),
        buy_in: 2_000,
        fee: 200,
        satellite: Some(pb::Satellite {
            target_tournament_id: event.into(),
            seat: 11_000,
            remainder: pb::SatelliteRemainder::NextPlace.into(),
            deals_allowed: false,
            second_seat: pb::SecondSeat::Cash.into(),
        }),
        ..Default::default()
    });
    seating
        .create_tournament(with(satellite, &director))
        .await
        .expect("the satellite");
    let register = |t: &str, id: &str, player: &str, ticket: Option<pb::Ticket>| {
        register_paid_by(&up, &director, t, id, player, ticket)
    };
    // The main event is full: a third buy-in is an alternate.
    for p in ["m1", "m2"] {
        register(main, p, p, None).await.expect("a main entry");
    }
    let alternate = register(main, "m3", "m3", None)
        .await
        .expect("an alternate")
        .into_inner()
        .entry
        .unwrap();
    assert_eq!(
        alternate.status,
        i32::from(pb::EntryStatus::Alternate),
        "{alternate:?}"
    );
    for i in 1..=12 {
        let p = format!("s{i}");
        register(sat, &p, &p, None)
            .await
            .expect("a satellite entry");
    }
    // No deal in this satellite, by the house's word.
    let refused = up
        .payout()
        .deal(with(
            pb::DealRequest {
                tournament_id: sat.into(),
                command_id: "deal".into(),
                action: Some(pb::deal_request::Action::Propose(pb::DealTerms {
                    method: pb::DealMethod::ChipChop.into(),
                    players: (1..=2)
                        .map(|entry| pb::DealPlayer {
                            entry,
                            chips: 1_000,
                            amount: 0,
                        })
                        .collect(),
                    ..Default::default()
                })),
            },
            &director,
        ))
        .await
        .unwrap_err();
    assert!(
        refused.message().contains("no deals in this satellite"),
        "{refused:?}"
    );
    seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: sat.into(),
            },
            &director,
        ))
        .await
        .expect("start the satellite");
    for d in common::dealers(&up.channel, "sat-1", 1..=2, &director) {
        d.await.expect("a dealer");
    }
    let end = common::all_placed(&up.channel, sat, 12, &director).await;
    check_results(&end.results, 12, 24_000);
    // Play stopped once no more players were left than the two seats:
    // each left won one (two sharing places 1 and 2; or, where two went
    // out in the hand that left one, the one alone, and of those two the
    // one who started the hand with more chips finished second, a seat).
    let seated: Vec<pb::ResultRow> = end
        .results
        .iter()
        .filter(|r| r.ticket > 0)
        .cloned()
        .collect();
    assert!((1..=2).contains(&seated.len()), "{:?}", end.results);
    let n = seated.len() as u32;
    let mut places: Vec<(u32, u32)> = seated.iter().map(|r| (r.first, r.last)).collect();
    places.sort_unstable();
    let shared = vec![(1, n); seated.len()];
    let apart: Vec<(u32, u32)> = (1..=n).map(|p| (p, p)).collect();
    assert!(places == shared || places == apart, "{seated:?}");
    for r in &seated {
        assert_eq!(
            (r.prize, r.ticket, r.ticket_target.as_str()),
            (11_000, 11_000, event),
            "{r:?}"
        );
    }
    let standings = up
        .seating()
        .get_standings(with(
            pb::GetStandingsRequest {
                tournament_id: sat.into(),
            },
            &director,
        ))
        .await
        .expect("standings")
        .into_inner();
    // Still seated: the seats sharing place 1 (both, or the one alone).
    let still_in = seated.iter().filter(|r| r.first == 1).count();
    assert!(
        standings.finished && standings.players_left as usize == still_in && standings.seats == 2,
        "{standings:?}"
    );
    // The rest of the pool is cash: 2,000 to third, or shared at the bubble.
    let cash: Vec<&pb::ResultRow> = end
        .results
        .iter()
        .filter(|r| r.ticket == 0 && r.prize > 0)
        .collect();
    assert_eq!(
        cash.iter().map(|r| r.prize).sum::<u64>(),
        24_000 - 11_000 * seated.len() as u64,
        "{cash:?}"
    );
    let third = cash[0].clone();
    // The room display's pay page shows each seat as a seat in the event.
    let board = {
        use std::io::{BufRead, Write};
        let mut s = std::net::TcpStream::connect(&up.addr).expect("the display");
        s.set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        write!(
            s,
            "GET /api/t/sat-1/events HTTP/1.0\r\nAuthorization: Bearer {}\r\n\r\n",
            up.token("partner")
        )
        .expect("send");
        std::io::BufReader::new(s)
            .lines()
            .map_while(Result::ok)
            .filter_map(|l| l.strip_prefix("data: ").map(str::to_string))
            .map(|d| serde_json::from_str::<serde_json::Value>(&d).expect("a board"))
            .find(|b| b["finished"].as_u64() == Some(12))
            .expect("the board with every result")
    };
    let on_board = board["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["ticket_target"] == event && r["ticket"] == 11_000)
        .count();
    assert_eq!(on_board, seated.len(), "{board}");
    // The cage pays third in cash; a seat is no cash.
    let mut payout = up.payout();
    let pay = |entry: u64| {
        with(
            pb::PayPrizeRequest {
                tournament_id: sat.into(),
                command_id: format!("pay-{entry}"),
                entry,
                document: Some(pb::IdDocument {
                    kind: pb::IdDocumentKind::Passport.into(),
                    reference: format!("P-{entry}"),
                }),
                tax_number: String::new(),
            },
            &director,
        )
    };
    payout
        .pay_prize(pay(third.entry))
        .await
        .expect("third paid");
    let e = payout.pay_prize(pay(seated[0].entry)).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("is a seat"), "{e:?}");
    let books = payout
        .get_cage(with(
            pb::GetCageRequest {
                tournament_id: sat.into(),
            },
            &director,
        ))
        .await
        .expect("the satellite's books")
        .into_inner();
    assert!(books.balances, "{:?}", books.checks);
    let totals = books.totals.unwrap();
    assert_eq!(
        totals.tickets_issued,
        11_000 * seated.len() as u64,
        "{totals:?}"
    );
    assert_eq!(totals.prizes_unpaid, 0, "{totals:?}");
    let issued = books
        .lines
        .iter()
        .filter(|l| l.kind == i32::from(pb::CageLineKind::TicketIssued))
        .count();
    assert_eq!(issued, seated.len());
    // The seat winners redeem their tickets in the full main event.
    let ticket = |entry: u64| {
        Some(pb::Ticket {
            satellite_tournament_id: sat.into(),
            entry,
        })
    };
    let first = seated[0].clone();
    let e = register(main, "thief", "thief", ticket(first.entry))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("not thief's"), "{e:?}");
    let e = register(main, "no-seat", &third.player_id, ticket(third.entry))
        .await
        .unwrap_err();
    assert!(e.message().contains("won no seat"), "{e:?}");
    let e = register(sat, "wrong-event", &first.player_id, ticket(first.entry))
        .await
        .unwrap_err();
    assert!(e.message().contains("not in sat-1"), "{e:?}");
    for (i, r) in seated.iter().enumerate() {
        let entry = register(main, &format!("t{i}"), &r.player_id, ticket(r.entry))
            .await
            .expect("a ticket redeemed")
            .into_inner()
            .entry
            .unwrap();
        assert_eq!(
            entry.status,
            i32::from(pb::EntryStatus::Registered),
            "outside the cap: {entry:?}"
        );
    }
    let e = register(main, "t1-again", &first.player_id, ticket(first.entry))
        .await
        .unwrap_err();
    assert!(e.message().contains("already"), "{e:?}");
    // Once across the event: not again in its Day 1B.
    let e = register(day_1b, "t1-1b", &first.player_id, ticket(first.entry))
        .await
        .unwrap_err();
    assert!(
        e.message()
            .contains("already redeemed in flight main-event-1a"),
        "{e:?}"
    );
    // Its value is in the main event's pool: an entry at 10,000 each.
    let pool = payout
        .get_payouts(with(
            pb::GetPayoutsRequest {
                tournament_id: main.into(),
            },
            &director,
        ))
        .await
        .expect("the main event's payouts")
        .into_inner();
    assert_eq!(pool.entries as usize, 2 + seated.len(), "{pool:?}");
    let books = payout
        .get_cage(with(
            pb::GetCageRequest {
                tournament_id: main.into(),
            },
            &director,
        ))
        .await
        .expect("the main event's books")
        .into_inner();
    assert!(books.balances, "{:?}", books.checks);
    let tickets: Vec<String> = books
        .lines
        .iter()
        .filter_map(|l| l.payment.as_ref())
        .filter(|p| p.method == i32::from(pb::PaymentMethod::Ticket))
        .map(|p| p.reference.clone())
        .collect();
    assert_eq!(
        tickets,
        seated
            .iter()
            .map(|r| format!("sat-1/{}", r.entry))
            .collect::<Vec<_>>()
    );
    up.stop();
    let data = data.to_str().unwrap();
    audit_passes(&["--data", data, "--tournament", sat]);
    let audit = audit_passes(&["--data", data, "--tournament", main]);
    assert!(
        audit.contains(&format!(
            "main-event-1a: {} entries bought with satellites' tickets",
            seated.len()
        )),
        "{audit}"
    );
    audit_passes(&["--data", data]);
}

/// Issue 28's second seat across satellites through one `felt up`: two
/// satellites into one event, each of two players buying two seats (both
/// won as registration closes); one player wins a seat in both. The
/// event's ledger keeps the first and voids the second, whose satellite's
/// house pays a second seat in cash: its cage pays the whole prize, the
/// void ticket buys no entry, the first does, and every audit passes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_seat_won_in_another_satellite_is_paid_in_cash_by_its_house() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("up");
    let mut up = Up::start(&[], &data).await;
    let director = up.token("director").to_string();
    let mut seating = up.seating();
    let mut target = create();
    target.tournament_id = "main".into();
    target.money = Some(pb::MoneySettings {
        currency: "USD".into(),
        buy_in: 10_000,
        fee: 1_000,
        ..Default::default()
    });
    seating
        .create_tournament(with(target, &director))
        .await
        .expect("the main event");
    let register = |t: &str, id: &str, player: &str, ticket: Option<pb::Ticket>| {
        register_paid_by(&up, &director, t, id, player, ticket)
    };
    let cage = |t: &str| {
        let mut payout = up.payout();
        let req = with(
            pb::GetCageRequest {
                tournament_id: t.into(),
            },
            &director,
        );
        async move { payout.get_cage(req).await.expect("the books").into_inner() }
    };
    // Satellite A first, then B: "twice" plays both.
    for (sat, other) in [("sat-a", "a2"), ("sat-b", "b2")] {
        let mut satellite = create();
        satellite.tournament_id = sat.into();
        satellite.money = Some(pb::MoneySettings {
            currency: "USD".into(),
            buy_in: 11_000,
            fee: 500,
            satellite: Some(pb::Satellite {
                target_tournament_id: "main".into(),
                seat: 11_000,
                remainder: pb::SatelliteRemainder::NextPlace.into(),
                deals_allowed: false,
                second_seat: pb::SecondSeat::Cash.into(),
            }),
            ..Default::default()
        });
        seating
            .create_tournament(with(satellite, &director))
            .await
            .expect("a satellite");
        for p in ["twice", other] {
            register(sat, &format!("{sat}-{p}"), p, None)
                .await
                .expect("a satellite entry");
        }
        seating
            .start_tournament(with(
                pb::StartTournamentRequest {
                    tournament_id: sat.into(),
                },
                &director,
            ))
            .await
            .expect("start a satellite");
        // Registration closes at the start: two players, two seats.
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let issued = cage(sat)
                .await
                .lines
                .iter()
                .filter(|l| l.kind == i32::from(pb::CageLineKind::TicketIssued))
                .count();
            if issued == 2 {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "{sat}'s seats");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    // A's tickets stand; B's for "twice" (entry 1) was cashed.
    let a = cage("sat-a").await;
    assert!(a.balances, "{:?}", a.checks);
    assert_eq!(a.totals.as_ref().unwrap().tickets_cashed, 0);
    let b = cage("sat-b").await;
    assert!(b.balances, "{:?}", b.checks);
    let cashed: Vec<u64> = b
        .lines
        .iter()
        .filter(|l| l.kind == i32::from(pb::CageLineKind::TicketCashed))
        .map(|l| l.entry)
        .collect();
    assert_eq!(cashed, vec![1], "{:?}", b.lines);
    let totals = b.totals.unwrap();
    assert_eq!(
        (totals.tickets_issued, totals.tickets_cashed),
        (22_000, 11_000),
        "{totals:?}"
    );
    // The event's seating says why, as partners see it.
    let mut watch = up
        .seating()
        .watch_seating(with(
            pb::WatchSeatingRequest {
                tournament_id: "main".into(),
                after_version: 0,
            },
            &director,
        ))
        .await
        .expect("watch the event")
        .into_inner();
    let mut ledger = Vec::new();
    while ledger.len() < 4 {
        let item = tokio::time::timeout(Duration::from_secs(30), watch.message())
            .await
            .expect("the event's ledger")
            .expect("a watch item")
            .expect("not ended");
        for e in item.events {
            match e.kind {
                Some(pb::seating_event::Kind::TicketRecorded(r)) => {
                    let t = r.ticket.unwrap();
                    ledger.push(format!(
                        "{}/{} {}",
                        t.satellite_tournament_id, t.entry, r.player_id
                    ));
                }
                Some(pb::seating_event::Kind::TicketVoided(v)) => {
                    let (t, held) = (v.ticket.unwrap(), v.held.unwrap());
                    ledger.push(format!(
                        "{}/{} {} void after {}/{}",
                        t.satellite_tournament_id,
                        t.entry,
                        v.player_id,
                        held.satellite_tournament_id,
                        held.entry
                    ));
                }
                _ => {}
            }
        }
    }
    ledger.sort();
    assert_eq!(
        ledger,
        vec![
            "sat-a/1 twice",
            "sat-a/2 a2",
            "sat-b/1 twice void after sat-a/1",
            "sat-b/2 b2",
        ]
    );
    // The cage pays the second seat whole, in cash.
    let paid = up
        .payout()
        .pay_prize(with(
            pb::PayPrizeRequest {
                tournament_id: "sat-b".into(),
                command_id: "pay-twice".into(),
                entry: 1,
                document: Some(pb::IdDocument {
                    kind: pb::IdDocumentKind::Passport.into(),
                    reference: "P-twice".into(),
                }),
                tax_number: String::new(),
            },
            &director,
        ))
        .await
        .expect("the second seat paid in cash");
    drop(paid);
    let b = cage("sat-b").await;
    assert!(b.balances, "{:?}", b.checks);
    assert_eq!(b.totals.unwrap().prizes_paid, 11_000);
    // The void ticket buys no entry; the first one and B's other do.
    let ticket = |sat: &str, entry: u64| {
        Some(pb::Ticket {
            satellite_tournament_id: sat.into(),
            entry,
        })
    };
    let e = register("main", "void", "twice", ticket("sat-b", 1))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(
        e.message()
            .contains("it was twice's second seat in main: its satellite's house pays it in cash"),
        "{e:?}"
    );
    for (id, player, sat, entry) in [
        ("first", "twice", "sat-a", 1),
        ("a2", "a2", "sat-a", 2),
        ("b2", "b2", "sat-b", 2),
    ] {
        register("main", id, player, ticket(sat, entry))
            .await
            .expect("a ticket redeemed");
    }
    up.stop();
    let data = data.to_str().unwrap();
    let audit = audit_passes(&["--data", data, "--tournament", "main"]);
    assert!(
        audit.contains("main: 3 entries bought with satellites' tickets"),
        "{audit}"
    );
    audit_passes(&["--data", data]);
}

/// The last player left while late registration is open is no winner
/// yet: play is not `finished` (a late entrant may still come, and payout
/// places nobody before the pool is fixed) until registration closes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_player_is_no_winner_while_late_registration_is_open() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("up");
    let up = Up::start(&[], &data).await;
    let director = up.token("director").to_string();
    let t = "late-open";
    let mut seating = up.seating();
    let mut request = create();
    request.tournament_id = t.into();
    request.late_registration_level = 9;
    seating
        .create_tournament(with(request, &director))
        .await
        .expect("create");
    for p in ["a", "b"] {
        seating
            .register(with(
                pb::RegisterRequest {
                    tournament_id: t.into(),
                    command_id: p.into(),
                    player_id: p.into(),
                    name: format!("Player {p}"),
                    give_up_chips: false,
                    payment: None,
                    ticket: None,
                },
                &director,
            ))
            .await
            .expect("register");
    }
    seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: t.into(),
            },
            &director,
        ))
        .await
        .expect("start");
    for d in common::dealers(&up.channel, "late-open", 1..=1, &director) {
        d.await.expect("a dealer");
    }
    let standings = |seating: &mut pb::seating_service_client::SeatingServiceClient<_>| {
        let req = with(
            pb::GetStandingsRequest {
                tournament_id: t.into(),
            },
            &director,
        );
        let mut seating = seating.clone();
        async move {
            seating
                .get_standings(req)
                .await
                .expect("standings")
                .into_inner()
        }
    };
    let open = standings(&mut seating).await;
    assert!(
        open.players_left == 1 && !open.registration_closed && !open.finished,
        "{open:?}"
    );
    seating
        .close_registration(with(
            pb::CloseRegistrationRequest {
                tournament_id: t.into(),
            },
            &director,
        ))
        .await
        .expect("close");
    let closed = standings(&mut seating).await;
    assert!(closed.finished, "{closed:?}");
}

/// Flight `f` played by dealers at tables 1 and 2 to the end of its day,
/// its stacks bagged, each bag confirmed by the player and the staff, and
/// sealed: the bag list.
async fn flight_to_sealed_bags(up: &Up, f: &'static str, director: &str) -> pb::GetBagsResponse {
    let floor = |id: String, command: pb::floor_request::Command| {
        let mut seating = up.seating();
        let req = with(
            pb::FloorRequest {
                tournament_id: f.into(),
                command_id: id,
                command: Some(command),
            },
            director,
        );
        async move { seating.floor(req).await.expect("the floor's command") }
    };
    use pb::floor_request::Command as F;
    let dealers = common::dealers(&up.channel, f, 1..=2, director);
    tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let view = up
                .clock()
                .get_clock(with(
                    pb::GetClockRequest {
                        tournament_id: f.into(),
                    },
                    director,
                ))
                .await
                .expect("the clock")
                .into_inner()
                .clock
                .expect("a view");
            if view.status() == pb::ClockStatus::DayOver {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{f}: the day never ended"));
    for d in dealers {
        d.abort();
    }
    floor("bag".into(), F::BagStacks(pb::BagStacks {})).await;
    let list = up
        .seating()
        .get_bags(with(
            pb::GetBagsRequest {
                tournament_id: f.into(),
                ..Default::default()
            },
            director,
        ))
        .await
        .expect("the bags")
        .into_inner();
    for b in &list.bags {
        for by in [pb::BagWitness::Player, pb::BagWitness::Staff] {
            floor(
                format!("confirm-{}-{by:?}", b.entry),
                F::ConfirmBag(pb::ConfirmBag {
                    entry: b.entry,
                    by: by.into(),
                }),
            )
            .await;
        }
    }
    floor("seal".into(), F::SealBags(pb::SealBags {})).await;
    list
}

/// Issue 28's entry rules across an event's flights, through `felt up`:
/// an event that allows two entries a player and none after a bag. Given
/// seven players in flight 1 and six of them presold into flight 2, when
/// flight 1 bags, then a bagged player's entry into flight 3 is refused
/// naming the flight they bagged in, a player with two entries already is
/// refused naming the limit, a newcomer enters; and when flight 2 starts,
/// the entries there of players who bagged in flight 1 are refunded by
/// the house's rule (the price less the fee, which it keeps), the others
/// play.
#[tokio::test]
async fn an_events_flights_hold_its_entry_rules_and_refund_a_flight_a_bagged_player_cannot_play() {
    let dir = tempfile::tempdir().unwrap();
    let mut up = Up::start(&[], &dir.path().join("up")).await;
    let director = up.token("director").to_string();
    let mut seating = up.seating();
    let event = "rules";
    let mut ev = create();
    ev.tournament_id = event.into();
    ev.flights = Some(pb::FlightsSettings {
        stacks: pb::FlightStacks::Best.into(),
        entries_per_player: 2,
        no_entry_after_bag: true,
        unplayed_refund: pb::UnplayedRefund::KeepFee.into(),
    });
    seating
        .create_tournament(with(ev.clone(), &director))
        .await
        .expect("the event");
    // Partners read the event's rules from its creation.
    let mut watch = seating
        .watch_seating(with(
            pb::WatchSeatingRequest {
                tournament_id: event.into(),
                ..Default::default()
            },
            up.token("partner"),
        ))
        .await
        .expect("watch the event")
        .into_inner();
    let first = tokio::time::timeout(
        Duration::from_secs(5),
        tokio_stream::StreamExt::next(&mut watch),
    )
    .await
    .expect("the event's first events")
    .expect("a batch")
    .expect("events");
    let Some(pb::seating_event::Kind::Created(created)) = first.events[0].kind.clone() else {
        panic!("{first:?}")
    };
    assert_eq!(created.settings.unwrap().flights, ev.flights);
    drop(watch);
    let flights: [&'static str; 3] = ["rules-1", "rules-2", "rules-3"];
    for (n, f) in (1..).zip(flights) {
        let mut flight = ev.clone();
        flight.tournament_id = f.into();
        flight.flights = None;
        flight.flight = Some(pb::FlightOf {
            event_tournament_id: event.into(),
            number: n,
        });
        flight.day_end = Some(pb::DayEndSettings {
            players_left: vec![3],
            ..Default::default()
        });
        seating
            .create_tournament(with(flight, &director))
            .await
            .expect("a flight");
    }
    let register = |t: &'static str, player: u32| {
        let mut seating = up.seating();
        let req = with(
            pb::RegisterRequest {
                tournament_id: t.into(),
                command_id: format!("p{player}"),
                player_id: format!("p{player}"),
                name: format!("Player {player:02}"),
                payment: Some(pb::Payment {
                    method: pb::PaymentMethod::Cash.into(),
                    reference: format!("slip-{player}"),
                }),
                ..Default::default()
            },
            &director,
        );
        async move { seating.register(req).await }
    };
    common::presales(&mut seating, flights[0], 7, &director).await;
    common::presales(&mut seating, flights[1], 6, &director).await;
    let start = |t: &'static str| {
        let mut seating = up.seating();
        let req = with(
            pb::StartTournamentRequest {
                tournament_id: t.into(),
            },
            &director,
        );
        async move {
            seating
                .start_tournament(req)
                .await
                .expect("a flight's start")
        }
    };
    start(flights[0]).await;
    let bags = flight_to_sealed_bags(&up, flights[0], &director).await;
    // "Player 07" is p7.
    let bagged: std::collections::BTreeSet<u32> = bags
        .bags
        .iter()
        .map(|b| b.name["Player ".len()..].parse().unwrap())
        .collect();
    // (The day ends at three left or fewer: one hand may bust two.)
    assert!((1..=3).contains(&bagged.len()), "{bags:?}");
    for player in 1..=7 {
        let answer = register(flights[2], player).await;
        if bagged.contains(&player) {
            let refused = answer.unwrap_err();
            assert_eq!(refused.code(), Code::FailedPrecondition, "{refused:?}");
            assert!(
                refused.message().contains("bagged chips in flight rules-1"),
                "{refused:?}"
            );
        } else if player <= 6 {
            let refused = answer.unwrap_err();
            assert_eq!(refused.code(), Code::FailedPrecondition, "{refused:?}");
            assert!(
                refused.message().contains(
                    "they hold 2 entries across event rules's flights, and it allows 2 a player"
                ),
                "{refused:?}"
            );
        } else {
            answer.expect("p7, busted in flight 1, enters flight 3");
        }
    }
    register(flights[2], 8).await.expect("a newcomer");
    // Flight 2 starts: the bagged players' entries there are refunded.
    start(flights[1]).await;
    let map = up
        .seating()
        .get_table_map(with(
            pb::GetTableMapRequest {
                tournament_id: flights[1].into(),
            },
            &director,
        ))
        .await
        .expect("the map")
        .into_inner();
    let seated: std::collections::BTreeSet<u32> = map
        .tables
        .iter()
        .flat_map(|t| &t.occupants)
        .map(|o| o.player_id[1..].parse().unwrap())
        .collect();
    let playing: std::collections::BTreeSet<u32> =
        (1..=6).filter(|p| !bagged.contains(p)).collect();
    assert_eq!(seated, playing);
    let books = up
        .payout()
        .get_cage(with(
            pb::GetCageRequest {
                tournament_id: flights[1].into(),
            },
            &director,
        ))
        .await
        .expect("the books")
        .into_inner();
    // Each paid 5,000 (a fee of 1,000 in it): 4,000 back, the fee kept.
    let refunded = (6 - playing.len()) as u64;
    let totals = books.totals.unwrap();
    assert_eq!(totals.refunded, refunded * 4_000, "{totals:?}");
    assert_eq!(
        totals.fees,
        (playing.len() as u64 + refunded) * 1_000,
        "{totals:?}"
    );
    let refunds: Vec<&pb::CageLine> = books
        .lines
        .iter()
        .filter(|l| l.kind == i32::from(pb::CageLineKind::Refund))
        .collect();
    assert_eq!(refunds.len() as u64, refunded);
    assert!(
        refunds.iter().all(|l| l.money_out == 4_000
            && l.note.ends_with("bagged chips in flight rules-1: event rules allows no entry after a bag (the house keeps the fee)")),
        "{refunds:?}"
    );
    assert!(books.balances, "{:?}", books.checks);
    up.stop();
    audit_passes(&["--data", dir.path().join("up").to_str().unwrap()]);
}

/// Issue 28's flights through one `felt up`: an event of two Day 1
/// flights, each with its own tables, clock and registration, the same
/// 18 players in both; each flight plays down to 6, bags, confirms and
/// seals; the event takes every flight's bags (a player who bagged in
/// both plays the larger stack, the other forfeited), its start draws
/// the survivors of both flights together, and Day 2 is played to a
/// winner: all 36 entries of both flights are placed from one pool, and
/// the audit passes, every bagged chip on Day 2's tables or forfeited.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_of_two_flights_plays_day_2_from_their_bags_to_a_winner() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("up");
    let mut up = Up::start(&[], &data).await;
    let director = up.token("director").to_string();
    let mut seating = up.seating();
    let event = "big";
    let mut big = create();
    big.tournament_id = event.into();
    big.table_size = 9;
    big.money = Some(pb::MoneySettings {
        currency: "BRL".into(),
        buy_in: 4_000,
        fee: 1_000,
        ..Default::default()
    });
    big.flights = Some(pb::FlightsSettings {
        stacks: pb::FlightStacks::Best.into(),
        ..Default::default()
    });
    seating
        .create_tournament(with(big.clone(), &director))
        .await
        .expect("the event");
    let flights = ["big-1a", "big-1b"];
    for (n, f) in (1..).zip(flights) {
        let mut flight = big.clone();
        flight.tournament_id = f.into();
        flight.flights = None;
        flight.flight = Some(pb::FlightOf {
            event_tournament_id: event.into(),
            number: n,
        });
        flight.day_end = Some(pb::DayEndSettings {
            players_left: vec![6],
            ..Default::default()
        });
        seating
            .create_tournament(with(flight, &director))
            .await
            .expect("a flight");
        common::presales(&mut seating, f, 18, &director).await;
        seating
            .start_tournament(with(
                pb::StartTournamentRequest {
                    tournament_id: f.into(),
                },
                &director,
            ))
            .await
            .expect("a flight's start");
    }
    // The second flight plays on to level 3: Day 2 resumes there.
    up.clock()
        .control_clock(with(
            pb::ControlClockRequest {
                tournament_id: flights[1].into(),
                command_id: "to-level-3".into(),
                command: Some(pb::control_clock_request::Command::JumpToLevel(
                    pb::JumpToLevel { level: 3 },
                )),
            },
            &director,
        ))
        .await
        .expect("the second flight at level 3");
    // Not before every flight has sealed its bags.
    let floor = |t: &str, id: &str, command: pb::floor_request::Command| {
        let mut seating = up.seating();
        let req = with(
            pb::FloorRequest {
                tournament_id: t.into(),
                command_id: id.into(),
                command: Some(command),
            },
            &director,
        );
        async move { seating.floor(req).await.map(tonic::Response::into_inner) }
    };
    use pb::floor_request::Command as F;
    let early = floor(event, "too-soon", F::AdvanceFlights(pb::AdvanceFlights {}))
        .await
        .unwrap_err();
    assert!(
        early.message().contains("has not sealed its bags"),
        "{early:?}"
    );
    let mut bagged = Vec::new();
    for f in flights {
        let list = flight_to_sealed_bags(&up, f, &director).await;
        assert!((1..=6).contains(&list.bags.len()), "{list:?}");
        assert_eq!(list.chips, 18 * 20_000, "{list:?}");
        for b in &list.bags {
            assert!(b.entry > u64::from(if f == "big-1a" { 1u32 } else { 2 }) * 10_000_000);
        }
        bagged.extend(list.bags);
    }
    // The event's list, before Day 2: every flight's bags together, the
    // chip counts partners show going into Day 2.
    let all = up
        .seating()
        .get_bags(with(
            pb::GetBagsRequest {
                tournament_id: event.into(),
                ..Default::default()
            },
            &director,
        ))
        .await
        .expect("the event's bags")
        .into_inner();
    assert!(all.sealed, "{all:?}");
    assert_eq!(all.chips, 2 * 18 * 20_000, "{all:?}");
    assert_eq!(all.bags.len(), bagged.len(), "{all:?}");
    assert!(all.bags.windows(2).all(|w| w[0].chips >= w[1].chips));
    assert!((1..=all.bags.len() as u32).eq(all.bags.iter().map(|b| b.rank)));
    for b in &all.bags {
        let flight = b.entry / 10_000_000;
        assert_eq!(u64::from(b.flight), flight, "{b:?}");
        assert!(
            bagged
                .iter()
                .any(|o| o.entry == b.entry && o.chips == b.chips)
        );
    }
    let csv = up
        .seating()
        .export_bags(with(
            pb::ExportBagsRequest {
                tournament_id: event.into(),
                format: pb::ExportFormat::Csv.into(),
                ..Default::default()
            },
            &director,
        ))
        .await
        .expect("the event's list as CSV")
        .into_inner()
        .body;
    assert!(
        csv.starts_with(
            "rank,bag,entry,name,chips,table,seat,player_confirmed,staff_confirmed,flight\n"
        ),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 1 + bagged.len(), "{csv}");
    floor(event, "day-2", F::AdvanceFlights(pb::AdvanceFlights {}))
        .await
        .expect("the flights advanced");
    let again = floor(event, "day-2", F::AdvanceFlights(pb::AdvanceFlights {}))
        .await
        .expect("a repeat");
    assert!(again.duplicate);
    // One stack a player: the larger of two bags.
    let mut best: std::collections::BTreeMap<String, u64> = Default::default();
    for b in &bagged {
        let chips = best.entry(b.name.clone()).or_default();
        *chips = (*chips).max(b.chips);
    }
    seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: event.into(),
            },
            &director,
        ))
        .await
        .expect("day 2's start");
    // The clock resumes the structure on day 2 where the furthest flight's
    // day ended: level 3, with no more than its time left.
    let resumed = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let view = up
                .clock()
                .get_clock(with(
                    pb::GetClockRequest {
                        tournament_id: event.into(),
                    },
                    &director,
                ))
                .await
                .expect("the clock")
                .into_inner()
                .clock
                .expect("a view");
            if view.status() != pb::ClockStatus::NotStarted {
                return view;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the event's clock started");
    assert_eq!((resumed.day, resumed.level), (2, 3), "{resumed:?}");
    assert!(resumed.remaining_ms > 0, "{resumed:?}");
    let standings = up
        .seating()
        .get_standings(with(
            pb::GetStandingsRequest {
                tournament_id: event.into(),
            },
            &director,
        ))
        .await
        .expect("the standings")
        .into_inner();
    assert_eq!(standings.players_left as usize, best.len(), "{standings:?}");
    let dealers = common::dealers(&up.channel, event, 1..=2, &director);
    for d in dealers {
        d.await.expect("a dealer");
    }
    let results = common::all_placed(&up.channel, event, 36, &director).await;
    let first = results
        .results
        .iter()
        .find(|r| r.first == 1)
        .expect("a winner");
    assert!(first.prize > 0, "{first:?}");
    // The event's books take in every flight's buy-ins for its pool, and
    // award it whole; each flight's balance with nothing awarded there.
    let cage = |t: &'static str| {
        let mut payout = up.payout();
        let req = with(
            pb::GetCageRequest {
                tournament_id: t.into(),
            },
            &director,
        );
        async move { payout.get_cage(req).await.expect("the books").into_inner() }
    };
    let books = cage(event).await;
    assert!(books.balances, "{:?}", books.checks);
    let totals = books.totals.unwrap();
    assert_eq!(totals.taken_in, 36 * 5_000, "{totals:?}");
    assert_eq!(totals.collected, 36 * 4_000, "{totals:?}");
    assert_eq!(totals.prizes_awarded, 36 * 4_000, "{totals:?}");
    for f in flights {
        let books = cage(f).await;
        assert!(books.balances, "{:?}", books.checks);
        assert_eq!(books.totals.unwrap().prizes_awarded, 0);
    }
    up.stop();
    let text = audit_passes(&["--data", data.to_str().unwrap()]);
    assert!(text.contains("big: Day 2 from the flights: "), "{text}");
    assert!(text.contains(" 0 failed"), "{text}");
}
