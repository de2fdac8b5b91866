//! The table service as a real process (`felt serve table`), driven over
//! gRPC: whole hands, retries, rejections and their status codes, roles,
//! secrecy of hole cards, a kill -9 mid-hand, and a third-party client
//! (`buf curl`) working through reflection alone.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use felt_proto::v1 as pb;
use felt_proto::v1::table_service_client::TableServiceClient;
use pb::execute_request::Command as C;
use tonic::transport::Channel;
use tonic::{Code, Request};

struct Service {
    child: Child,
    addr: String,
}

impl Service {
    fn start(data: &Path) -> Service {
        Service::spawn(&["--data", data.to_str().expect("a path")])
    }

    /// On the embedded log, exporting traces to an OTLP endpoint.
    fn exporting(data: &Path, otlp: &str) -> Service {
        Service::spawn(&["--data", data.to_str().expect("a path"), "--otlp", otlp])
    }

    /// A replica on NATS JetStream.
    fn on_nats(url: &str) -> Service {
        Service::spawn(&["--nats", url])
    }

    fn spawn(log: &[&str]) -> Service {
        let mut child = Command::new(env!("CARGO_BIN_EXE_felt"))
            .args(["serve", "table", "--listen", "127.0.0.1:0"])
            .args(log)
            .args([
                "--token",
                "director=boss",
                "--token",
                "floor=floor",
                "--token",
                "dealer:t1/1=dealer-1",
                "--token",
                "dealer:t1/2=dealer-2",
                "--token",
                "partner=tv",
                "--token",
                "service=peer",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start felt serve table");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("read the address");
        let addr = line
            .trim()
            .rsplit(' ')
            .next()
            .expect("an address")
            .to_string();
        Service { child, addr }
    }

    async fn client(&self) -> TableServiceClient<Channel> {
        TableServiceClient::connect(format!("http://{}", self.addr))
            .await
            .expect("connect")
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        self.kill();
    }
}

fn table(number: u32) -> Option<pb::TableRef> {
    Some(pb::TableRef {
        tournament_id: "t1".into(),
        table: number,
    })
}

fn with_token<T>(msg: T, token: &str) -> Request<T> {
    let mut req = Request::new(msg);
    req.metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    req
}

fn exec(id: &str, command: C) -> pb::ExecuteRequest {
    pb::ExecuteRequest {
        provenance: None,
        table: table(1),
        command_id: id.into(),
        command: Some(command),
    }
}

fn act(seat: u32, kind: pb::action::Kind) -> C {
    C::Act(pb::Act {
        seat,
        action: Some(pb::Action { kind: Some(kind) }),
    })
}

/// A digital hand at 50/100 on table t1/1 (the service draws the seed).
fn start_hand(id: &str, button: Option<u32>) -> pb::ExecuteRequest {
    exec(
        id,
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
            button,
        }),
    )
}

/// Opens table t1/1 with three players and starts a digital hand.
async fn set_up(client: &mut TableServiceClient<Channel>) {
    let mut setup = vec![exec(
        "open",
        C::OpenTable(pb::OpenTable {
            seats: 6,
            rules: None,
        }),
    )];
    for seat in 1..=3 {
        setup.push(exec(
            &format!("seat-{seat}"),
            C::SeatPlayer(pb::SeatPlayer {
                seat,
                entry: 100 + u64::from(seat),
                stack: 5000,
                carried: Default::default(),
            }),
        ));
    }
    for req in setup {
        client
            .execute(with_token(req, "boss"))
            .await
            .expect("setup");
    }
    let start = start_hand("start-1", Some(3));
    client
        .execute(with_token(start, "dealer-1"))
        .await
        .expect("start");
}

/// Hand 1 of table t1/1 as a partner reads it.
async fn partner_history(client: &mut TableServiceClient<Channel>) -> pb::GetHandHistoryResponse {
    client
        .get_hand_history(with_token(
            pb::GetHandHistoryRequest {
                table: table(1),
                hand_number: 1,
            },
            "tv",
        ))
        .await
        .unwrap()
        .into_inner()
}

async fn get_table(client: &mut TableServiceClient<Channel>, token: &str) -> pb::TableView {
    client
        .get_table(with_token(pb::GetTableRequest { table: table(1) }, token))
        .await
        .expect("get table")
        .into_inner()
        .table
        .expect("a table")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dealers_play_a_hand_and_every_rule_and_role_is_enforced() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&dir.path().join("data"));
    let mut client = service.client().await;
    set_up(&mut client).await;
    let view = get_table(&mut client, "dealer-1").await;
    let hand = view.hand.clone().expect("a hand");
    assert_eq!((hand.button, hand.big_blind, hand.to_act), (3, 2, Some(3)));
    assert_eq!((hand.to_call, hand.min_raise_to), (100, Some(200)));
    assert_eq!(hand.deck_commitment.len(), 64);
    assert_eq!(hand.pots.len(), 1);
    assert_eq!(hand.pots[0].amount, 150);
    assert_eq!(hand.pots[0].eligible_seats, [1, 2, 3]);

    // A rule violation: FAILED_PRECONDITION with the rule, nothing stored.
    let err = client
        .execute(with_token(
            exec("bad-raise", act(3, pb::action::Kind::RaiseTo(150))),
            "dealer-1",
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition);
    assert_eq!(
        err.message(),
        "raise to 150 is below the minimum raise to 200 (TDA 43)"
    );
    assert_eq!(
        err.metadata().get("felt-rejection").unwrap(),
        "RaiseBelowMinimum"
    );
    assert_eq!(get_table(&mut client, "boss").await.version, view.version);

    // Malformed: INVALID_ARGUMENT naming the field.
    let err = client
        .execute(with_token(
            pb::ExecuteRequest {
                provenance: None,
                table: table(1),
                command_id: "x".into(),
                command: None,
            },
            "dealer-1",
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("command"), "{}", err.message());
    let err = client
        .execute(with_token(
            exec("y", act(3, pb::action::Kind::Call(pb::Call {}))),
            "nobody",
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated);
    let err = client
        .execute(Request::new(exec(
            "z",
            act(3, pb::action::Kind::Call(pb::Call {})),
        )))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated);
    for token in ["tv", "dealer-2"] {
        let err = client
            .execute(with_token(
                exec("w", act(3, pb::action::Kind::Call(pb::Call {}))),
                token,
            ))
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::PermissionDenied, "{token}");
    }
    let err = client
        .execute(with_token(
            exec(
                "kill",
                C::Rule(pb::Rule {
                    ruling: Some(pb::Ruling {
                        kind: Some(pb::ruling::Kind::KillHandSeat(1)),
                    }),
                    reason: "x".into(),
                }),
            ),
            "dealer-1",
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);

    // A call, and its retry: the same answer, one call.
    let call = exec("call-3", act(3, pb::action::Kind::Call(pb::Call {})));
    let first = client
        .execute(with_token(call.clone(), "dealer-1"))
        .await
        .unwrap()
        .into_inner();
    let again = client
        .execute(with_token(call, "dealer-1"))
        .await
        .unwrap()
        .into_inner();
    assert!(!first.duplicate && again.duplicate);
    assert_eq!(again.events, first.events);
    assert_eq!(first.events[0].r#type, "ActionTaken");
    assert_eq!(again.version, first.version);

    // The rest of the hand: everyone calls and checks it down.
    let mut k = 0;
    loop {
        let view = get_table(&mut client, "dealer-1").await;
        let Some(hand) = view.hand else { break };
        let seat = hand.to_act.expect("someone to act");
        let kind = if hand.to_call > 0 {
            pb::action::Kind::Call(pb::Call {})
        } else {
            pb::action::Kind::Check(pb::Check {})
        };
        client
            .execute(with_token(
                exec(&format!("a{k}"), act(seat, kind)),
                "dealer-1",
            ))
            .await
            .unwrap();
        k += 1;
    }
    let view = get_table(&mut client, "tv").await;
    assert_eq!(view.hands_played, 1);
    let total: u64 = view.seats.iter().map(|s| s.stack).sum();
    assert_eq!(total, 15_000, "chips are conserved");
    // The hand as PHH, as an auditor gets it; it replays to its stacks.
    let phh = client
        .get_hand_phh(with_token(
            pb::GetHandPhhRequest {
                table: table(1),
                hand_number: 1,
            },
            "boss",
        ))
        .await
        .unwrap()
        .into_inner()
        .phh;
    assert_eq!(
        felt_phh::verify(&phh, felt_table::HouseRules::default()),
        felt_phh::Verdict::Passed,
        "{phh}"
    );
}

/// Executes a command at table t1/1 with a token; the events' types.
async fn run(
    client: &mut TableServiceClient<Channel>,
    id: &str,
    command: C,
    token: &str,
) -> Result<Vec<pb::Event>, tonic::Status> {
    client
        .execute(with_token(exec(id, command), token))
        .await
        .map(|r| r.into_inner().events)
}

fn board(cards: &str) -> C {
    C::DealBoard(pb::DealBoard {
        cards: cards.split(' ').map(String::from).collect(),
    })
}

fn physical_hand(button: Option<u32>) -> C {
    C::StartHand(pb::StartHand {
        level: Some(pb::Level {
            small_blind: 50,
            big_blind: 100,
            ante: 0,
            ante_format: pb::AnteFormat::None as i32,
            smallest_chip: 25,
        }),
        deal: Some(pb::Deal {
            kind: Some(pb::deal::Kind::Physical(pb::PhysicalDeal {})),
        }),
        button,
    })
}

fn ruling(kind: pb::ruling::Kind, reason: &str) -> C {
    C::Rule(pb::Rule {
        ruling: Some(pb::Ruling { kind: Some(kind) }),
        reason: reason.into(),
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_physical_showdown_and_the_floors_rulings_go_by_the_rules_over_grpc() {
    use pb::action::Kind as A;
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&dir.path().join("data"));
    let mut client = service.client().await;
    let c = &mut client;
    let open = C::OpenTable(pb::OpenTable {
        seats: 3,
        rules: None,
    });
    run(c, "open", open, "boss").await.unwrap();
    for (seat, stack) in [(1, 300), (2, 1000), (3, 1000)] {
        let sit = C::SeatPlayer(pb::SeatPlayer {
            seat,
            entry: 100 + u64::from(seat),
            stack,
            carried: Default::default(),
        });
        run(c, &format!("seat-{seat}"), sit, "boss").await.unwrap();
    }
    // Hand 1: seat 1 all in for 300, seats 2 and 3 check it down.
    run(c, "start-1", physical_hand(Some(3)), "dealer-1")
        .await
        .unwrap();
    run(c, "h1-1", act(3, A::RaiseTo(600)), "dealer-1")
        .await
        .unwrap();
    run(c, "h1-2", act(1, A::AllIn(pb::AllIn {})), "dealer-1")
        .await
        .unwrap();
    run(c, "h1-3", act(2, A::Call(pb::Call {})), "dealer-1")
        .await
        .unwrap();
    for (i, street) in ["2c 7d 9h", "Js", "3s"].into_iter().enumerate() {
        run(c, &format!("h1-b{i}"), board(street), "dealer-1")
            .await
            .unwrap();
        for seat in [2, 3] {
            let check = act(seat, A::Check(pb::Check {}));
            run(c, &format!("h1-c{i}-{seat}"), check, "dealer-1")
                .await
                .unwrap();
        }
    }
    let hand = get_table(c, "dealer-1").await.hand.expect("a hand");
    assert_eq!(hand.phase(), pb::HandPhase::Showdown);
    assert_eq!(
        hand.to_show, None,
        "at an all-in every hand is tabled at once"
    );
    assert_eq!(
        hand.pots
            .iter()
            .map(|p| (p.amount, p.eligible_seats.clone()))
            .collect::<Vec<_>>(),
        [(900, vec![1, 2, 3]), (600, vec![2, 3])]
    );
    let err = run(c, "muck-2", C::Muck(pb::Muck { seat: 2 }), "dealer-1")
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition);
    assert_eq!(err.metadata().get("felt-rejection").unwrap(), "MustTable");
    assert!(err.message().ends_with("(TDA 16)"), "{}", err.message());
    // The dealer reads the hands without entering them and pushes each pot.
    let push = |pot: u32, winners: Vec<u32>| C::PushPot(pb::PushPot { pot, winners });
    let err = run(c, "push-x", push(1, vec![1]), "dealer-1")
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition);
    assert_eq!(
        err.message(),
        "seat 1 is not eligible for pot 1: the pot goes only to [2, 3] (TDA 21)"
    );
    let err = run(c, "push-y", push(12, vec![1]), "dealer-1")
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    run(c, "push-1", push(1, vec![2]), "dealer-1")
        .await
        .unwrap();
    let pots = get_table(c, "dealer-1").await.hand.expect("a hand").pots;
    assert_eq!(
        pots.iter().map(|p| p.awarded).collect::<Vec<_>>(),
        [false, true]
    );
    let events = run(c, "push-0", push(0, vec![1, 3]), "dealer-1")
        .await
        .unwrap();
    assert_eq!(events.last().map(|e| e.r#type.as_str()), Some("HandEnded"));
    let stacks = |v: &pb::TableView| v.seats.iter().map(|s| s.stack).collect::<Vec<_>>();
    assert_eq!(stacks(&get_table(c, "tv").await), [450, 1000, 850]);

    // Hand 2: a fouled deck found after substantial action voids it.
    run(c, "start-2", physical_hand(None), "dealer-1")
        .await
        .unwrap();
    let before = get_table(c, "tv").await.hand.expect("hand 2");
    let seat = before.to_act.expect("someone to act");
    run(c, "h2-1", act(seat, A::RaiseTo(300)), "dealer-1")
        .await
        .unwrap();
    let fouled = ruling(
        pb::ruling::Kind::FouledDeck(pb::FouledDeck {}),
        "two aces of spades",
    );
    let err = run(c, "void", fouled.clone(), "dealer-1")
        .await
        .unwrap_err();
    assert_eq!(
        err.code(),
        Code::PermissionDenied,
        "a ruling is the floor's"
    );
    let events = run(c, "void", fouled, "floor").await.unwrap();
    let types: Vec<&str> = events.iter().map(|e| e.r#type.as_str()).collect();
    assert_eq!(types, ["FloorRuled", "HandVoided", "HandEnded"]);
    let view = get_table(c, "tv").await;
    assert_eq!(stacks(&view), [450, 1000, 850]);
    assert!(view.hand.is_none());

    // Hand 3, dealt from the same button: the floor awards the pot by name.
    run(c, "start-3", physical_hand(None), "dealer-1")
        .await
        .unwrap();
    let again = get_table(c, "tv").await.hand.expect("hand 3");
    assert_eq!(
        (again.button, again.big_blind),
        (before.button, before.big_blind)
    );
    let mut k = 0;
    while let Some(hand) = get_table(c, "tv").await.hand.filter(|h| h.to_act.is_some()) {
        let seat = hand.to_act.unwrap_or_default();
        let kind = if hand.to_call > 0 {
            A::Call(pb::Call {})
        } else {
            A::Check(pb::Check {})
        };
        run(c, &format!("h3-{k}"), act(seat, kind), "dealer-1")
            .await
            .unwrap();
        k += 1;
    }
    let award = |seat: u32, pot: u32| {
        ruling(
            pb::ruling::Kind::AwardPot(pb::AwardPot { seat, pot }),
            "the others agreed to split it (collusion)",
        )
    };
    let err = run(c, "award-x", award(2, 1), "floor").await.unwrap_err();
    assert_eq!(
        err.message(),
        "there is no pot 1: the hand has 1 (0 is the main pot)"
    );
    let events = run(c, "award", award(2, 0), "floor").await.unwrap();
    let ruled = events
        .first()
        .and_then(|e| e.event.clone())
        .and_then(|e| e.kind);
    assert!(
        matches!(
            &ruled,
            Some(pb::table_event::Kind::FloorRuled(r)) if matches!(
                r.ruling.as_ref().and_then(|r| r.kind.as_ref()),
                Some(pb::ruling::Kind::AwardPot(pb::AwardPot { seat: 2, pot: 0 }))
            )
        ),
        "{ruled:?}"
    );
    assert_eq!(stacks(&get_table(c, "tv").await), [350, 1200, 750]);
}

/// A deck neither side chooses, checked by a partner from what its own
/// token reads alone: the commitment published as the hand starts, the
/// table's entropy, and the secret revealed as it ends give the deck, off
/// which every board card and tabled hand came.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partner_verifies_a_shared_deal_from_the_commitment_the_entropy_and_the_secret() {
    use felt_cards::{Card, Deck, Seed};
    use pb::action::Kind as A;
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&dir.path().join("data"));
    let mut client = service.client().await;
    let c = &mut client;
    let open = C::OpenTable(pb::OpenTable {
        seats: 3,
        rules: None,
    });
    run(c, "open", open, "boss").await.unwrap();
    for seat in 1..=3 {
        let sit = C::SeatPlayer(pb::SeatPlayer {
            seat,
            entry: 100 + u64::from(seat),
            stack: 5000,
            carried: Default::default(),
        });
        run(c, &format!("seat-{seat}"), sit, "boss").await.unwrap();
    }
    let mut start = physical_hand(Some(3));
    if let C::StartHand(s) = &mut start {
        s.deal = Some(pb::Deal {
            kind: Some(pb::deal::Kind::Shared(pb::SharedDeal {})),
        });
    }
    let started = run(c, "start-1", start, "dealer-1").await.unwrap();
    let types: Vec<&str> = started.iter().map(|e| e.r#type.as_str()).collect();
    assert!(
        !types.contains(&"HoleCardsDealt"),
        "no card before the entropy: {types:?}"
    );
    let sealed = started.iter().find_map(deal_of).cloned();
    assert_eq!(
        sealed,
        Some(pb::deal_record::Kind::Shared(pb::SharedDealRecord {
            secret: vec![]
        })),
        "the dealer's device sees the commitment, never the secret"
    );
    let hand = get_table(c, "tv").await.hand.expect("a hand");
    assert_eq!(hand.phase(), pb::HandPhase::Dealing);
    assert_eq!(hand.to_act, None);
    assert_eq!(hand.deck_commitment.len(), 64);

    // The entropy is the table's: not a felt service's, and 32 bytes.
    let entropy = |bytes: Vec<u8>| C::AddEntropy(pb::AddEntropy { entropy: bytes });
    let err = run(c, "e0", entropy(vec![1; 32]), "peer")
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);
    let err = run(c, "e1", entropy(vec![1; 31]), "dealer-1")
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(
        err.message().contains("exactly 32 bytes"),
        "{}",
        err.message()
    );
    let mine: Vec<u8> = (0..32).map(|i| i * 7 + 3).collect();
    let dealt = run(c, "e2", entropy(mine.clone()), "dealer-1")
        .await
        .unwrap();
    let types: Vec<&str> = dealt.iter().map(|e| e.r#type.as_str()).collect();
    assert_eq!(types, ["EntropyAdded", "HoleCardsDealt"]);
    // Everyone calls and checks down: a showdown.
    let mut k = 0;
    while let Some(hand) = get_table(c, "tv").await.hand {
        let seat = hand.to_act.expect("someone to act");
        let kind = if hand.to_call > 0 {
            A::Call(pb::Call {})
        } else {
            A::Check(pb::Check {})
        };
        run(c, &format!("a{k}"), act(seat, kind), "dealer-1")
            .await
            .unwrap();
        k += 1;
    }

    // The partner's own reading of the hand.
    let events = partner_history(c).await.events;
    let kinds: Vec<pb::table_event::Kind> = events
        .iter()
        .filter_map(|e| e.event.clone().and_then(|e| e.kind))
        .collect();
    use pb::table_event::Kind as K;
    let (commitment, order) = kinds
        .iter()
        .find_map(|k| match k {
            K::HandStarted(h) => Some((h.commitment.clone(), h.button)),
            _ => None,
        })
        .expect("the hand's start");
    let secret = kinds
        .iter()
        .find_map(|k| match k {
            K::SecretRevealed(r) => Some(r.secret.clone()),
            _ => None,
        })
        .expect("the secret, revealed as the hand ended");
    let added = kinds
        .iter()
        .find_map(|k| match k {
            K::EntropyAdded(e) => Some(e.entropy.clone()),
            _ => None,
        })
        .expect("the table's entropy");
    assert_eq!(added, mine);
    let secret = Seed(secret.try_into().expect("32 bytes"));
    assert_eq!(
        secret.commitment().0.to_vec(),
        commitment,
        "the secret was committed to"
    );
    let deck = Deck::shuffled(secret.mixed(&Seed(added.try_into().unwrap())));
    let cards = deck.order();
    // Dealt two rounds from the seat after the button (3): seats 1, 2, 3.
    assert_eq!(order, 3);
    let hole = |seat: u32| [cards[seat as usize - 1], cards[seat as usize + 2]];
    // The flop after a burn, the turn and river each after one.
    let board: Vec<Card> = kinds
        .iter()
        .filter_map(|k| match k {
            K::StreetDealt(s) => Some(s.cards.clone()),
            _ => None,
        })
        .flatten()
        .map(|c| c.parse().unwrap())
        .collect();
    assert_eq!(board, [cards[7], cards[8], cards[9], cards[11], cards[13]]);
    let shown: Vec<(u32, Vec<String>)> = kinds
        .iter()
        .filter_map(|k| match k {
            K::CardsShown(s) => Some((s.seat, s.cards.clone())),
            _ => None,
        })
        .collect();
    assert!(!shown.is_empty(), "a hand tabled");
    for (seat, tabled) in shown {
        let tabled: Vec<Card> = tabled.iter().map(|c| c.parse().unwrap()).collect();
        assert_eq!(
            tabled,
            hole(seat),
            "seat {seat}'s tabled hand came off the deck"
        );
    }
}

/// A seat's own credential: issued to the table's device for the player
/// in the seat, it reads that table with the seat's own two cards only,
/// acts for that seat only, and stops working once the entry leaves it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_credential_sees_its_own_cards_and_acts_for_its_own_seat_only() {
    use pb::action::Kind as A;
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&dir.path().join("data"));
    let mut client = service.client().await;
    set_up(&mut client).await;
    let issue = |token: &str, seat: u32| {
        let mut client = client.clone();
        let req = with_token(
            pb::IssueSeatCredentialRequest {
                table: table(1),
                seat,
            },
            token,
        );
        async move {
            client
                .issue_seat_credential(req)
                .await
                .map(|r| r.into_inner())
        }
    };
    for token in ["tv", "dealer-2"] {
        let err = issue(token, 3).await.unwrap_err();
        assert_eq!(err.code(), Code::PermissionDenied, "{token}");
    }
    let issued = issue("dealer-1", 3).await.unwrap();
    assert_eq!(issued.entry, 103);
    let mine = issued.token;
    // Its own two cards, as dealt; nobody else's.
    let whole = get_table(&mut client, "peer").await;
    let seen = get_table(&mut client, &mine).await;
    for (s, w) in seen.seats.iter().zip(&whole.seats) {
        if s.seat == 3 {
            assert_eq!(s.hole_cards.len(), 2);
            assert_eq!(s.hole_cards, w.hole_cards);
        } else {
            assert!(s.hole_cards.is_empty(), "seat {}", s.seat);
        }
    }
    // It acts for seat 3 only, and only as a player does.
    let err = run(&mut client, "x1", act(1, A::Fold(pb::Fold {})), &mine)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);
    let fouled = ruling(pb::ruling::Kind::FouledDeck(pb::FouledDeck {}), "x");
    let err = run(&mut client, "x2", fouled, &mine).await.unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);
    run(&mut client, "call-3", act(3, A::Call(pb::Call {})), &mine)
        .await
        .unwrap();
    // Its own table only, and not a forged one.
    let err = client
        .get_table(with_token(pb::GetTableRequest { table: table(2) }, &mine))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);
    let forged = mine.replace(".3.103.", ".1.101.");
    let err = client
        .get_table(with_token(pb::GetTableRequest { table: table(1) }, &forged))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated);
    // The hand ends; the player leaves the seat: the credential is void.
    let mut k = 0;
    while let Some(seat) = get_table(&mut client, "tv")
        .await
        .hand
        .and_then(|h| h.to_act)
    {
        let fold = act(seat, A::Fold(pb::Fold {}));
        run(&mut client, &format!("f{k}"), fold, "dealer-1")
            .await
            .unwrap();
        k += 1;
    }
    let leave = C::RemovePlayer(pb::RemovePlayer { seat: 3 });
    run(&mut client, "leave-3", leave, "boss").await.unwrap();
    run(
        &mut client,
        "start-2",
        start_hand("start-2", None).command.unwrap(),
        "dealer-1",
    )
    .await
    .unwrap();
    let err = run(&mut client, "late", act(3, A::Fold(pb::Fold {})), &mine)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);
    assert!(
        err.message().contains("no longer holds"),
        "{}",
        err.message()
    );
    // A call the table took while the seat was its own, sent again (its
    // answer lost to a restart) after the player left, is answered as the
    // repeat it is, showing no hole card of the seat's new holder.
    let again = client
        .execute(with_token(
            exec("call-3", act(3, A::Call(pb::Call {}))),
            &mine,
        ))
        .await
        .expect("a repeat of an acknowledged call")
        .into_inner();
    assert!(again.duplicate);
    let view = again.table.expect("the table");
    assert!(view.seats.iter().all(|s| s.hole_cards.is_empty()));
    // Under its own command id only: another request under it is refused.
    let err = run(&mut client, "call-3", act(3, A::Fold(pb::Fold {})), &mine)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::AlreadyExists, "{}", err.message());
}

/// No card of `secret` in `text`, as a proto string ("Ah") or inside an
/// event's JSON (\"Ah\").
fn assert_secret(text: &str, secret: &[String]) {
    for card in secret {
        assert!(
            !text.contains(&format!("\"{card}\"")),
            "{card} leaked: {text}"
        );
        assert!(
            !text.contains(&format!("\\\"{card}\\\"")),
            "{card} leaked: {text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partners_never_see_an_untabled_hole_card() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&dir.path().join("data"));
    let mut client = service.client().await;
    set_up(&mut client).await;
    let mut watch = client
        .watch_table(with_token(
            pb::WatchTableRequest {
                table: table(1),
                after_version: 0,
            },
            "tv",
        ))
        .await
        .unwrap()
        .into_inner();
    // During the hand no person's token sees a card in the air: not the
    // director, the floor, a partner or the dealer; only felt's own
    // services read the table whole.
    let dealer = get_table(&mut client, "peer").await;
    assert!(dealer.seats.iter().all(|s| s.hole_cards.len() == 2));
    for token in ["boss", "floor", "tv", "dealer-1"] {
        let view = get_table(&mut client, token).await;
        assert!(
            view.seats.iter().all(|s| s.hole_cards.is_empty()),
            "{token}"
        );
        let history = client
            .get_hand_history(with_token(
                pb::GetHandHistoryRequest {
                    table: table(1),
                    hand_number: 1,
                },
                token,
            ))
            .await
            .unwrap()
            .into_inner();
        let hidden: Vec<String> = dealer
            .seats
            .iter()
            .flat_map(|s| s.hole_cards.clone())
            .collect();
        assert_secret(&format!("{history:?}"), &hidden);
    }
    // Seat 3 folds, seat 1 folds: seat 2 wins without showing.
    for (i, seat) in [3, 1].into_iter().enumerate() {
        client
            .execute(with_token(
                exec(
                    &format!("f{i}"),
                    act(seat, pb::action::Kind::Fold(pb::Fold {})),
                ),
                "dealer-1",
            ))
            .await
            .unwrap();
    }
    let secret: Vec<String> = dealer
        .seats
        .iter()
        .flat_map(|s| s.hole_cards.clone())
        .collect();
    let mut saw_end = false;
    let mut saw_snapshot = false;
    while !saw_end {
        let item = tokio::time::timeout(std::time::Duration::from_secs(10), watch.message())
            .await
            .expect("a message in time")
            .unwrap()
            .expect("the stream goes on");
        assert_secret(&format!("{item:?}"), &secret);
        match item.item {
            Some(pb::watch_table_response::Item::Snapshot(_)) => saw_snapshot = true,
            Some(pb::watch_table_response::Item::Event(e)) => {
                saw_end = e.r#type == "HandEnded";
            }
            None => {}
        }
    }
    assert!(saw_snapshot);
    // The tournament's stream, from the start of the log, too.
    let mut tournament = client
        .watch_tournament_tables(with_token(
            pb::WatchTournamentTablesRequest {
                tournament_id: "t1".into(),
                after_position: 0,
            },
            "tv",
        ))
        .await
        .unwrap()
        .into_inner();
    let mut ended = false;
    let mut dealt = false;
    while !ended {
        let item = tokio::time::timeout(std::time::Duration::from_secs(10), tournament.message())
            .await
            .expect("a message in time")
            .unwrap()
            .expect("the stream goes on");
        assert_secret(&format!("{item:?}"), &secret);
        assert_eq!(item.table, table(1));
        dealt |= item.events.iter().any(|e| e.r#type == "HoleCardsDealt");
        ended = item.events.iter().any(|e| e.r#type == "HandEnded");
    }
    assert!(dealt, "the deal went out, without its cards");
    // The history and the PHH of the finished hand keep them secret too.
    let history = partner_history(&mut client).await;
    let started = history
        .events
        .iter()
        .find(|e| e.r#type == "HandStarted")
        .unwrap();
    assert!(
        matches!(deal_of(started), Some(pb::deal_record::Kind::Sealed(_))),
        "{started:?}"
    );
    assert_secret(&format!("{history:?}"), &secret);
    let phh = client
        .get_hand_phh(with_token(
            pb::GetHandPhhRequest {
                table: table(1),
                hand_number: 1,
            },
            "tv",
        ))
        .await
        .unwrap()
        .into_inner()
        .phh;
    assert!(phh.contains("d dh p1 ????"), "{phh}");
}

/// The first message of a table's watch as `token` gets it: the stream,
/// or the refusal.
async fn watch(
    client: &mut TableServiceClient<Channel>,
    token: &str,
) -> Result<tonic::Streaming<pb::WatchTableResponse>, tonic::Status> {
    client
        .watch_table(with_token(
            pb::WatchTableRequest {
                table: table(1),
                after_version: 0,
            },
            token,
        ))
        .await
        .map(tonic::Response::into_inner)
}

/// Every item of a stream until `done` says so (at most 10 s apart).
async fn read_until<T: std::fmt::Debug>(
    stream: &mut tonic::Streaming<T>,
    done: impl Fn(&str) -> bool,
) -> String {
    let mut text = String::new();
    while !done(&text) {
        let item = tokio::time::timeout(std::time::Duration::from_secs(10), stream.message())
            .await
            .expect("a message in time")
            .unwrap()
            .expect("the stream goes on");
        text.push_str(&format!("{item:?}\n"));
    }
    text
}

/// The visibility policy (ARCHITECTURE.md): a dealer's token reads its own
/// table only; during a hand no person's token, the director's included,
/// reads a hole card or a burn card in the air, on any read path; once the
/// hand is over the director and the floor read it whole. (The probes: one
/// lost tablet read every table's hole cards live; partners got burn cards
/// as soon as they were dealt; a director's token read every card live.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_read_is_scoped_to_the_callers_role() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&dir.path().join("data"));
    let mut client = service.client().await;
    set_up(&mut client).await;
    let mut watches = Vec::new();
    for token in ["boss", "floor", "dealer-1", "tv"] {
        watches.push((token, watch(&mut client, token).await.expect("a watch")));
    }
    let mut everything = Vec::new();
    for token in ["boss", "tv"] {
        let stream = client
            .watch_tournament_tables(with_token(
                pb::WatchTournamentTablesRequest {
                    tournament_id: "t1".into(),
                    after_position: 0,
                },
                token,
            ))
            .await
            .unwrap()
            .into_inner();
        everything.push((token, stream));
    }
    // Everyone calls, the big blind checks: the flop is burnt and dealt.
    for (i, (seat, kind)) in [
        (3, pb::action::Kind::Call(pb::Call {})),
        (1, pb::action::Kind::Call(pb::Call {})),
        (2, pb::action::Kind::Check(pb::Check {})),
    ]
    .into_iter()
    .enumerate()
    {
        client
            .execute(with_token(
                exec(&format!("pre{i}"), act(seat, kind)),
                "dealer-1",
            ))
            .await
            .unwrap();
    }
    // (Felt's own services read the table whole: the cards to look for.)
    let full = get_table(&mut client, "peer").await;
    assert_eq!(full.hand.as_ref().map(|h| h.board.len()), Some(3));
    let secret: Vec<String> = full
        .seats
        .iter()
        .flat_map(|s| s.hole_cards.clone())
        .collect();
    assert_eq!(secret.len(), 6);

    // Another table's dealer reads nothing here, by any path.
    let denied = |r: Result<(), tonic::Status>, what: &str| {
        let e = r.expect_err(what);
        assert_eq!(e.code(), Code::PermissionDenied, "{what}: {e:?}");
        assert!(e.message().contains("own table"), "{}", e.message());
    };
    denied(
        client
            .get_table(with_token(
                pb::GetTableRequest { table: table(1) },
                "dealer-2",
            ))
            .await
            .map(|_| ()),
        "GetTable",
    );
    denied(
        client
            .get_hand_history(with_token(
                pb::GetHandHistoryRequest {
                    table: table(1),
                    hand_number: 1,
                },
                "dealer-2",
            ))
            .await
            .map(|_| ()),
        "GetHandHistory",
    );
    denied(
        client
            .get_hand_phh(with_token(
                pb::GetHandPhhRequest {
                    table: table(1),
                    hand_number: 1,
                },
                "dealer-2",
            ))
            .await
            .map(|_| ()),
        "GetHandPhh",
    );
    denied(
        watch(&mut client, "dealer-2").await.map(|_| ()),
        "WatchTable",
    );
    for dealer in ["dealer-1", "dealer-2"] {
        denied(
            client
                .watch_tournament_tables(with_token(
                    pb::WatchTournamentTablesRequest {
                        tournament_id: "t1".into(),
                        after_position: 0,
                    },
                    dealer,
                ))
                .await
                .map(|_| ()),
            "WatchTournamentTables",
        );
    }

    // The table now, the hand so far, and live: no person sees a hole card
    // or the burn card.
    let tokens = ["boss", "floor", "dealer-1", "tv"];
    for token in tokens {
        let view = get_table(&mut client, token).await;
        let shown = view
            .seats
            .iter()
            .filter(|s| !s.hole_cards.is_empty())
            .count();
        assert_eq!(shown, 0, "{token}");
    }
    let reader = client.clone();
    let history_of = move |token: &'static str| {
        let mut client = reader.clone();
        async move {
            client
                .get_hand_history(with_token(
                    pb::GetHandHistoryRequest {
                        table: table(1),
                        hand_number: 1,
                    },
                    token,
                ))
                .await
                .unwrap()
                .into_inner()
        }
    };
    let burn_of = |history: &pb::GetHandHistoryResponse| {
        let flop = history
            .events
            .iter()
            .find(|e| e.r#type == "StreetDealt")
            .expect("the flop");
        match flop.event.as_ref().and_then(|e| e.kind.as_ref()) {
            Some(pb::table_event::Kind::StreetDealt(s)) => s.burn.clone(),
            other => panic!("not the flop: {other:?}"),
        }
    };
    for token in tokens {
        let history = history_of(token).await;
        assert_eq!(burn_of(&history), "", "{token}");
        assert_secret(&format!("{history:?}"), &secret);
    }
    for (token, mut stream) in watches {
        let text = read_until(&mut stream, |t| t.contains("StreetDealt")).await;
        assert!(text.contains("burn: \"\""), "{token}: {text}");
        assert_secret(&text, &secret);
    }
    for (token, mut stream) in everything {
        let text = read_until(&mut stream, |t| t.contains("StreetDealt")).await;
        assert!(text.contains("burn: \"\""), "{token}: {text}");
        assert_secret(&text, &secret);
    }
    // The hand's PHH waits for its end, for everyone.
    let e = client
        .get_hand_phh(with_token(
            pb::GetHandPhhRequest {
                table: table(1),
                hand_number: 1,
            },
            "dealer-1",
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    // Once the hand is over, the director and the floor read it whole; the
    // dealer and partners (no broadcast delay here) never do.
    let mut k = 0;
    while let Some(seat) = get_table(&mut client, "tv")
        .await
        .hand
        .and_then(|h| h.to_act)
    {
        let fold = act(seat, pb::action::Kind::Fold(pb::Fold {}));
        client
            .execute(with_token(exec(&format!("end{k}"), fold), "dealer-1"))
            .await
            .unwrap();
        k += 1;
    }
    assert!(
        get_table(&mut client, "tv").await.hand.is_none(),
        "the hand is over"
    );
    for (token, sees) in [
        ("boss", true),
        ("floor", true),
        ("dealer-1", false),
        ("tv", false),
    ] {
        let history = history_of(token).await;
        assert_eq!(!burn_of(&history).is_empty(), sees, "{token}");
        let text = format!("{history:?}");
        let seen = secret
            .iter()
            .filter(|c| text.contains(&format!("\"{c}\"")))
            .count();
        assert_eq!(seen == secret.len(), sees, "{token}: {text}");
    }
}

/// No caller chooses a deck: a hand and a misdeal's re-deal each get a
/// seed the service draws, committed to in the view and revealed with the
/// hand, and no two are the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_deck_is_drawn_by_the_service() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&dir.path().join("data"));
    let mut client = service.client().await;
    set_up(&mut client).await;
    let commitment = |v: &pb::TableView| v.hand.as_ref().unwrap().deck_commitment.clone();
    let first = commitment(&get_table(&mut client, "boss").await);
    let misdeal = exec(
        "misdeal-1",
        C::Misdeal(pb::Misdeal {
            reason: "a card exposed in the deal".into(),
            deal: Some(pb::Deal {
                kind: Some(pb::deal::Kind::Digital(pb::DigitalDeal {})),
            }),
        }),
    );
    client
        .execute(with_token(misdeal.clone(), "floor"))
        .await
        .expect("a misdeal");
    let redealt = get_table(&mut client, "boss").await;
    let second = commitment(&redealt);
    assert_ne!(first, second, "the re-deal has a deck of its own");
    // Sent again, the misdeal changes nothing (its seed is not drawn anew).
    let again = client
        .execute(with_token(misdeal, "floor"))
        .await
        .unwrap()
        .into_inner();
    assert!(again.duplicate);
    assert_eq!(commitment(&get_table(&mut client, "boss").await), second);
    // A deal without a kind is refused, naming the field.
    let e = client
        .execute(with_token(
            exec(
                "misdeal-2",
                C::Misdeal(pb::Misdeal {
                    reason: "again".into(),
                    deal: Some(pb::Deal { kind: None }),
                }),
            ),
            "floor",
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(e.message(), "misdeal.deal: digital or physical is required");
    // Every hand's seed is revealed once it is over, and follows its
    // commitment: the audit's check of the deals.
    let mut k = 0;
    while let Some(hand) = get_table(&mut client, "boss").await.hand {
        let seat = hand.to_act.expect("someone to act");
        client
            .execute(with_token(
                exec(
                    &format!("fold{k}"),
                    act(seat, pb::action::Kind::Fold(pb::Fold {})),
                ),
                "dealer-1",
            ))
            .await
            .unwrap();
        k += 1;
    }
    client
        .execute(with_token(start_hand("start-2", None), "dealer-1"))
        .await
        .expect("hand 2");
    let third = commitment(&get_table(&mut client, "boss").await);
    assert!(third != first && third != second);
    drop(service);
    let log = felt_eventlog::EmbeddedLog::open(&dir.path().join("data").join("log.redb")).unwrap();
    let stream = felt_tablelog::stream("t1", 1).unwrap();
    let events = felt_tablelog::load(&log, &stream).await.unwrap();
    assert_eq!(felt_table::check_deals(&events).map(|n| n > 0), Ok(true));
}

/// Seating's seats and moves, sent with the services' own token, record
/// the seating decision they carry out; nobody else may say where a
/// command comes from.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_from_a_felt_service_records_where_it_comes_from() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&dir.path().join("data"));
    let mut client = service.client().await;
    let from = pb::Provenance {
        causation_id: "t1.seating.main@12".into(),
        correlation_id: "t1.seating.main/start".into(),
    };
    let open = pb::ExecuteRequest {
        provenance: Some(from.clone()),
        ..exec(
            "open",
            C::OpenTable(pb::OpenTable {
                seats: 6,
                rules: None,
            }),
        )
    };
    // A person may not: refused, and nothing is recorded.
    for token in ["boss", "floor", "dealer-1"] {
        let e = client
            .execute(with_token(open.clone(), token))
            .await
            .unwrap_err();
        assert_eq!(e.code(), Code::PermissionDenied, "{token}: {e:?}");
        assert!(e.message().starts_with("provenance: "), "{}", e.message());
    }
    // Over its bound: refused by name.
    let long = pb::ExecuteRequest {
        provenance: Some(pb::Provenance {
            causation_id: "x".repeat(401),
            correlation_id: String::new(),
        }),
        ..open.clone()
    };
    let e = client.execute(with_token(long, "peer")).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(
        e.message()
            .starts_with("provenance.causation_id: at most 400"),
        "{}",
        e.message()
    );
    client
        .execute(with_token(open, "peer"))
        .await
        .expect("the services' own token");
    // A command without it records none.
    client
        .execute(with_token(
            exec(
                "seat-1",
                C::SeatPlayer(pb::SeatPlayer {
                    seat: 1,
                    entry: 101,
                    stack: 5000,
                    carried: Default::default(),
                }),
            ),
            "boss",
        ))
        .await
        .unwrap();
    drop(service);
    let log = felt_eventlog::EmbeddedLog::open(&dir.path().join("data").join("log.redb")).unwrap();
    let stream = felt_tablelog::stream("t1", 1).unwrap();
    let envelopes = felt_eventlog::EventLog::read(&log, &stream, 1)
        .await
        .unwrap();
    let recorded: Vec<_> = envelopes
        .iter()
        .map(|e| {
            (
                e.command_id.as_str(),
                e.causation_id.as_deref(),
                e.correlation_id.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        recorded,
        [
            (
                "open",
                Some("t1.seating.main@12"),
                Some("t1.seating.main/start")
            ),
            ("seat-1", None, None),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_killed_mid_hand_comes_back_with_the_same_table() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    killed_mid_hand(|| Service::start(&data)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_on_jetstream_killed_mid_hand_comes_back_with_the_same_table() {
    let nats = felt_testkit::NatsServer::start().expect("nats-server");
    killed_mid_hand(|| Service::on_nats(&nats.url())).await;
}

/// Plays into a hand, kills the service (SIGKILL), starts it again.
async fn killed_mid_hand(start: impl Fn() -> Service) {
    let mut service = start();
    let mut client = service.client().await;
    set_up(&mut client).await;
    client
        .execute(with_token(
            exec("c3", act(3, pb::action::Kind::Call(pb::Call {}))),
            "dealer-1",
        ))
        .await
        .unwrap();
    let before = get_table(&mut client, "boss").await;
    service.kill();
    let service = start();
    let mut client = service.client().await;
    assert_eq!(get_table(&mut client, "boss").await, before);
    // A partner's stream resumes after the version it had reached: the
    // next event is the first it had not seen.
    let mut watch = client
        .watch_table(with_token(
            pb::WatchTableRequest {
                table: table(1),
                after_version: before.version - 2,
            },
            "tv",
        ))
        .await
        .unwrap()
        .into_inner();
    for expected in before.version - 1..=before.version {
        let item = tokio::time::timeout(std::time::Duration::from_secs(10), watch.message())
            .await
            .expect("in time")
            .unwrap()
            .expect("an event");
        match item.item {
            Some(pb::watch_table_response::Item::Event(e)) => assert_eq!(e.sequence, expected),
            other => panic!("expected event {expected}, got {other:?}"),
        }
    }
    // The tablet retries the call it sent before the crash: stored once.
    let again = client
        .execute(with_token(
            exec("c3", act(3, pb::action::Kind::Call(pb::Call {}))),
            "dealer-1",
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(again.duplicate);
    assert_eq!(again.version, before.version);
    // And the hand goes on.
    client
        .execute(with_token(
            exec("c1", act(1, pb::action::Kind::Call(pb::Call {}))),
            "dealer-1",
        ))
        .await
        .unwrap();
}

fn buf() -> PathBuf {
    std::env::var_os("BUF").map_or_else(
        || {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../target/tools/npm/node_modules/.bin/buf")
        },
        PathBuf::from,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn buf_curl_lists_and_calls_the_service_through_reflection_alone() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&dir.path().join("data"));
    let mut client = service.client().await;
    set_up(&mut client).await;
    let base = format!("http://{}", service.addr);
    let buf = buf();
    assert!(
        buf.exists(),
        "buf is expected at {} (scripts/test installs it)",
        buf.display()
    );
    let list = Command::new(&buf)
        .args([
            "curl",
            "--protocol",
            "grpc",
            "--http2-prior-knowledge",
            "--list-methods",
        ])
        .arg(&base)
        .output()
        .unwrap();
    let methods = String::from_utf8_lossy(&list.stdout);
    assert!(
        list.status.success(),
        "{}",
        String::from_utf8_lossy(&list.stderr)
    );
    assert!(
        methods.contains("felt.v1.TableService/Execute"),
        "{methods}"
    );
    assert!(
        methods.contains("felt.v1.TableService/WatchTable"),
        "{methods}"
    );
    let call = Command::new(&buf)
        .args(["curl", "--protocol", "grpc", "--http2-prior-knowledge"])
        .args(["-H", "authorization: Bearer tv"])
        .args(["-d", r#"{"table": {"tournament_id": "t1", "table": 1}}"#])
        .arg(format!("{base}/felt.v1.TableService/GetTable"))
        .output()
        .unwrap();
    let body = String::from_utf8_lossy(&call.stdout);
    assert!(
        call.status.success(),
        "{}",
        String::from_utf8_lossy(&call.stderr)
    );
    assert!(body.contains("\"toCall\": \"100\""), "{body}");
    assert!(body.contains("\"handsPlayed\": \"1\""), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_on_jetstream_store_every_action_once() {
    let nats = felt_testkit::NatsServer::start().expect("nats-server");
    let a = Service::on_nats(&nats.url());
    let b = Service::on_nats(&nats.url());
    let (mut ca, mut cb) = (a.client().await, b.client().await);
    set_up(&mut ca).await;
    // Each action reaches both replicas at once with the same command id
    // (a tablet retrying through the other replica): one stores it, both
    // answer with its events.
    let mut k = 0;
    loop {
        let view = get_table(&mut ca, "dealer-1").await;
        let Some(hand) = view.hand else { break };
        let seat = hand.to_act.expect("someone to act");
        let kind = if hand.to_call > 0 {
            pb::action::Kind::Call(pb::Call {})
        } else {
            pb::action::Kind::Check(pb::Check {})
        };
        let req = exec(&format!("a{k}"), act(seat, kind));
        let (ra, rb) = tokio::join!(
            ca.execute(with_token(req.clone(), "dealer-1")),
            cb.execute(with_token(req, "dealer-1"))
        );
        let (ra, rb) = (ra.unwrap().into_inner(), rb.unwrap().into_inner());
        assert_eq!(ra.events, rb.events);
        assert!(
            ra.duplicate != rb.duplicate,
            "exactly one replica stored a{k}"
        );
        k += 1;
    }
    assert!(k >= 3);
    let (va, vb) = (
        get_table(&mut ca, "boss").await,
        get_table(&mut cb, "boss").await,
    );
    assert_eq!(va, vb);
    assert_eq!(va.hands_played, 1);
    // Two different commands for the same turn, one at each replica: one
    // wins, the other is decided again on the new state and refused.
    let start = start_hand("start-2", None);
    ca.execute(with_token(start, "dealer-1")).await.unwrap();
    let seat = get_table(&mut ca, "boss")
        .await
        .hand
        .unwrap()
        .to_act
        .unwrap();
    let (ra, rb) = tokio::join!(
        ca.execute(with_token(
            exec("fold-x", act(seat, pb::action::Kind::Fold(pb::Fold {}))),
            "dealer-1"
        )),
        cb.execute(with_token(
            exec("call-y", act(seat, pb::action::Kind::Call(pb::Call {}))),
            "dealer-1"
        ))
    );
    let refused = [&ra, &rb].iter().filter(|r| r.is_err()).count();
    assert_eq!(refused, 1, "{ra:?} {rb:?}");
    let err = ra.err().or(rb.err()).unwrap();
    assert_eq!(err.code(), Code::FailedPrecondition, "{err:?}");
    assert_eq!(
        get_table(&mut ca, "boss").await,
        get_table(&mut cb, "boss").await
    );
}

/// Replicas of the table service given the same seat key: a seated
/// player's credential one replica issued works at the other (a tablet's
/// calls go to either); a replica with a key of its own refuses it; a key
/// too short to be a secret is refused at start, naming the setting.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_credential_works_at_every_replica_given_the_same_seat_key() {
    let nats = felt_testkit::NatsServer::start().expect("nats-server");
    let key = "5f0c2a9d41e7b3866a0d9c1e2f4b7a31";
    let a = Service::spawn(&["--nats", &nats.url(), "--seat-key", key]);
    let b = Service::spawn(&["--nats", &nats.url(), "--seat-key", key]);
    let c = Service::on_nats(&nats.url());
    let mut ca = a.client().await;
    set_up(&mut ca).await;
    let issued = ca
        .issue_seat_credential(with_token(
            pb::IssueSeatCredentialRequest {
                table: table(1),
                seat: 3,
            },
            "dealer-1",
        ))
        .await
        .unwrap()
        .into_inner();
    let whole = get_table(&mut ca, "peer").await;
    let mut cb = b.client().await;
    let seen = get_table(&mut cb, &issued.token).await;
    let own = |v: &pb::TableView| {
        v.seats
            .iter()
            .find(|s| s.seat == 3)
            .map(|s| s.hole_cards.clone())
            .unwrap_or_default()
    };
    assert_eq!(own(&seen).len(), 2);
    assert_eq!(own(&seen), own(&whole));
    assert!(
        seen.seats
            .iter()
            .filter(|s| s.seat != 3)
            .all(|s| s.hole_cards.is_empty())
    );
    let err = c
        .client()
        .await
        .get_table(with_token(
            pb::GetTableRequest { table: table(1) },
            &issued.token,
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated);
    let out = Command::new(env!("CARGO_BIN_EXE_felt"))
        .args(["serve", "table", "--listen", "127.0.0.1:0", "--nats"])
        .arg(nats.url())
        .env("FELT_SEAT_KEY", "too-short")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        said.contains("--seat-key (FELT_SEAT_KEY): 9 characters"),
        "{said}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callers_trace_follows_the_command_into_the_nats_message() {
    let nats = felt_testkit::NatsServer::start().expect("nats-server");
    let service = Service::on_nats(&nats.url());
    let mut client = service.client().await;
    let trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    let mut req = with_token(
        exec(
            "open",
            C::OpenTable(pb::OpenTable {
                seats: 6,
                rules: None,
            }),
        ),
        "boss",
    );
    req.metadata_mut().insert(
        "traceparent",
        format!("00-{trace_id}-00f067aa0ba902b7-01")
            .parse()
            .unwrap(),
    );
    client.execute(req).await.unwrap();
    let js = async_nats::jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    let stream = js.get_stream("FELT").await.unwrap();
    let msg = stream
        .direct_get_last_for_subject("felt.t1.table.1")
        .await
        .unwrap();
    let traceparent = msg
        .headers
        .get("traceparent")
        .map(|v| v.as_str().to_string())
        .expect("a traceparent header");
    // The same trace, continued by the service's own span.
    assert!(
        traceparent.starts_with(&format!("00-{trace_id}-")),
        "{traceparent}"
    );
    assert!(!traceparent.contains("00f067aa0ba902b7"), "{traceparent}");
}

mod collector {
    use std::sync::{Arc, Mutex};

    use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
        TraceService, TraceServiceServer,
    };
    use opentelemetry_proto::tonic::collector::trace::v1::{
        ExportTraceServiceRequest, ExportTraceServiceResponse,
    };
    use tonic::{Request, Response, Status};

    /// Spans received: (name, attributes as "key=value").
    pub(super) type Spans = Arc<Mutex<Vec<(String, Vec<String>)>>>;

    struct Collector(Spans);

    #[tonic::async_trait]
    impl TraceService for Collector {
        async fn export(
            &self,
            request: Request<ExportTraceServiceRequest>,
        ) -> Result<Response<ExportTraceServiceResponse>, Status> {
            let mut spans = self.0.lock().unwrap();
            for rs in request.into_inner().resource_spans {
                for ss in rs.scope_spans {
                    for span in ss.spans {
                        let attrs = span
                            .attributes
                            .iter()
                            .map(|a| format!("{}={:?}", a.key, a.value))
                            .collect();
                        spans.push((span.name, attrs));
                    }
                }
            }
            Ok(Response::new(ExportTraceServiceResponse::default()))
        }
    }

    /// A stand-in OTLP/gRPC collector on a free port.
    pub(super) async fn start() -> (String, Spans) {
        let spans = Spans::default();
        let incoming =
            tonic::transport::server::TcpIncoming::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = incoming.local_addr().unwrap();
        let service = TraceServiceServer::new(Collector(spans.clone()));
        tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(service)
                .serve_with_incoming(incoming),
        );
        (format!("http://{addr}"), spans)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_command_is_a_span_exported_over_otlp() {
    let (endpoint, spans) = collector::start().await;
    let dir = tempfile::tempdir().unwrap();
    let service = Service::exporting(&dir.path().join("data"), &endpoint);
    let mut client = service.client().await;
    set_up(&mut client).await;
    // The batch goes out within the exporter's delay (5 s by default).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let found = spans.lock().unwrap().iter().any(|(name, attrs)| {
            name == "command"
                && attrs
                    .iter()
                    .any(|a| a.contains("command_id") && a.contains("start-1"))
                && attrs
                    .iter()
                    .any(|a| a.starts_with("table=") && a.contains('1'))
                && attrs.iter().any(|a| a.starts_with("hand="))
        });
        if found {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no span of the start-1 command: {:?}",
            spans.lock().unwrap()
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_reads_its_configuration_from_a_file_and_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("felt.toml");
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:0\"\ndata = {:?}\ntokens = [\"director=from-file\"]\n",
            dir.path().join("data")
        ),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_felt"))
        .args(["serve", "table"])
        .env("FELT_CONFIG", &config)
        .env(
            "FELT_TOKENS",
            "partner=from-env,director=boss,dealer:t1/1=dealer-1",
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let service = Service {
        child,
        addr: line.trim().rsplit(' ').next().unwrap().to_string(),
    };
    let mut client = service.client().await;
    // The environment's tokens replace the file's.
    set_up(&mut client).await;
    assert!(get_table(&mut client, "from-env").await.hand.is_some());
    let err = client
        .get_table(with_token(
            pb::GetTableRequest { table: table(1) },
            "from-file",
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated);
    assert!(dir.path().join("data/log.redb").is_file());
    // A misspelt setting is named, and nothing starts.
    std::fs::write(&config, "lisen = \"127.0.0.1:0\"\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_felt"))
        .args(["serve", "table", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unknown field `lisen`"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_broadcast_delay_partners_get_the_whole_hand_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let service = Service::spawn(&["--data", data.to_str().unwrap(), "--broadcast-delay", "2"]);
    let mut client = service.client().await;
    set_up(&mut client).await;
    // (Felt's own services read the table whole: the cards to look for.)
    let dealt = get_table(&mut client, "peer").await;
    for (i, seat) in [3, 1].into_iter().enumerate() {
        client
            .execute(with_token(
                exec(
                    &format!("f{i}"),
                    act(seat, pb::action::Kind::Fold(pb::Fold {})),
                ),
                "dealer-1",
            ))
            .await
            .unwrap();
    }
    let phh = |client: &mut TableServiceClient<Channel>| {
        let mut client = client.clone();
        async move {
            client
                .get_hand_phh(with_token(
                    pb::GetHandPhhRequest {
                        table: table(1),
                        hand_number: 1,
                    },
                    "tv",
                ))
                .await
                .unwrap()
                .into_inner()
                .phh
        }
    };
    let seat_1: String = dealt.seats[0].hole_cards.concat();
    let before = phh(&mut client).await;
    assert!(
        before.contains("????") && !before.contains(&seat_1),
        "{before}"
    );
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    let after = phh(&mut client).await;
    assert!(
        after.contains(&seat_1) && !after.contains("????"),
        "{after}"
    );
    let history = partner_history(&mut client).await;
    let started = history
        .events
        .iter()
        .find(|e| e.r#type == "HandStarted")
        .unwrap();
    assert!(
        matches!(deal_of(started), Some(pb::deal_record::Kind::Seed(seed)) if seed.len() == 32),
        "the seed, for auditors: {started:?}"
    );
}

/// A CA, a certificate for the service (localhost) and one for a caller.
fn certificates(dir: &Path) -> (PathBuf, PathBuf, PathBuf, String, String) {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
    let issue = |name: &str| {
        let key = KeyPair::generate().unwrap();
        let cert = CertificateParams::new(vec![name.to_string()])
            .unwrap()
            .signed_by(&key, &ca)
            .unwrap();
        (cert.pem(), key.serialize_pem())
    };
    let (server_cert, server_key) = issue("localhost");
    let (client_cert, client_key) = issue("dealer-tablet");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let ca_path = write("ca.pem", &ca.pem());
    let cert_path = write("server.pem", &server_cert);
    let key_path = write("server.key", &server_key);
    (ca_path, cert_path, key_path, client_cert, client_key)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_mtls_only_callers_with_a_certificate_of_the_ca_get_through() {
    use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity};
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, key, client_cert, client_key) = certificates(dir.path());
    let data = dir.path().join("data");
    let service = Service::spawn(&[
        "--data",
        data.to_str().unwrap(),
        "--tls-cert",
        cert.to_str().unwrap(),
        "--tls-key",
        key.to_str().unwrap(),
        "--tls-client-ca",
        ca.to_str().unwrap(),
    ]);
    let port = service.addr.rsplit(':').next().unwrap().to_string();
    let ca_pem = std::fs::read_to_string(&ca).unwrap();
    let endpoint = |identity: Option<Identity>| {
        let mut tls = ClientTlsConfig::new()
            .ca_certificate(Certificate::from_pem(&ca_pem))
            .domain_name("localhost");
        if let Some(identity) = identity {
            tls = tls.identity(identity);
        }
        Endpoint::from_shared(format!("https://localhost:{port}"))
            .unwrap()
            .tls_config(tls)
            .unwrap()
    };
    // With the caller's certificate (and a token): served.
    let channel = endpoint(Some(Identity::from_pem(&client_cert, &client_key)))
        .connect()
        .await
        .expect("an mTLS connection");
    let mut client = TableServiceClient::new(channel);
    set_up(&mut client).await;
    assert!(get_table(&mut client, "tv").await.hand.is_some());
    // Without one: no connection, nothing served.
    let refused = match endpoint(None).connect().await {
        Err(_) => true,
        Ok(channel) => TableServiceClient::new(channel)
            .get_table(with_token(pb::GetTableRequest { table: table(1) }, "tv"))
            .await
            .is_err(),
    };
    assert!(refused, "a caller without a certificate was served");
    // Plain text: refused too.
    let plain = TableServiceClient::connect(format!("http://127.0.0.1:{port}")).await;
    let refused = match plain {
        Err(_) => true,
        Ok(mut c) => c
            .get_table(with_token(pb::GetTableRequest { table: table(1) }, "tv"))
            .await
            .is_err(),
    };
    assert!(refused);
}

/// A table id nobody opened (a typo) is NOT_FOUND wherever it is named,
/// not an empty table; the table that was opened is still found.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_never_opened_is_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&dir.path().join("data"));
    let mut client = service.client().await;
    set_up(&mut client).await;
    let never = "never opened";
    let e = client
        .get_table(with_token(pb::GetTableRequest { table: table(7) }, "boss"))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e:?}");
    assert!(
        e.message()
            .contains("table 7 of tournament \"t1\" was never opened"),
        "{e:?}"
    );
    let e = client
        .watch_table(with_token(
            pb::WatchTableRequest {
                table: table(7),
                after_version: 0,
            },
            "tv",
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e:?}");
    assert!(e.message().contains(never), "{e:?}");
    let e = client
        .get_hand_history(with_token(
            pb::GetHandHistoryRequest {
                table: table(7),
                hand_number: 1,
            },
            "tv",
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e:?}");
    assert!(e.message().contains(never), "{e:?}");
    // A command for it: refused by the table's rule, with its kind.
    let mut fold = exec("fold-at-7", act(1, pb::action::Kind::Fold(pb::Fold {})));
    fold.table = table(7);
    let e = client.execute(with_token(fold, "boss")).await.unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e:?}");
    assert_eq!(e.metadata().get("felt-rejection").unwrap(), "TableNotOpen");
    assert_eq!(e.metadata().get("felt-error-kind").unwrap(), "not-found");
    // Nothing was stored for it, and table 1 is there as it was.
    let e = client
        .get_table(with_token(pb::GetTableRequest { table: table(7) }, "boss"))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e:?}");
    assert!(get_table(&mut client, "boss").await.version > 0);
}

/// A command id names one request: sent again it is answered as the first
/// time (a digital start too, though the service draws a new seed for each
/// request); sent with another command it is ALREADY_EXISTS and nothing
/// changes; the other command goes through under its own id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_id_used_again_for_another_command_is_already_exists() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&dir.path().join("data"));
    let mut client = service.client().await;
    set_up(&mut client).await;
    let again = client
        .execute(with_token(start_hand("start-1", Some(3)), "dealer-1"))
        .await
        .expect("the same start again")
        .into_inner();
    assert!(again.duplicate);
    let before = get_table(&mut client, "boss").await;
    let to_act = before
        .hand
        .as_ref()
        .and_then(|h| h.to_act)
        .expect("someone to act");
    let fold = exec("start-1", act(to_act, pb::action::Kind::Fold(pb::Fold {})));
    let e = client
        .execute(with_token(fold, "dealer-1"))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::AlreadyExists, "{e:?}");
    assert!(e.message().contains("\"start-1\""), "{e:?}");
    assert_eq!(
        e.metadata().get("felt-rejection").unwrap(),
        "CommandIdReused"
    );
    assert_eq!(get_table(&mut client, "boss").await.version, before.version);
    let fold = exec("fold-1", act(to_act, pb::action::Kind::Fold(pb::Fold {})));
    let folded = client
        .execute(with_token(fold, "dealer-1"))
        .await
        .expect("the fold under its own id")
        .into_inner();
    assert!(!folded.duplicate);
}

/// How a `HandStarted` event says its hand was dealt.
fn deal_of(e: &pb::Event) -> Option<&pb::deal_record::Kind> {
    match e.event.as_ref()?.kind.as_ref()? {
        pb::table_event::Kind::HandStarted(h) => h.deal.as_ref()?.kind.as_ref(),
        _ => None,
    }
}

/// A results-only table over gRPC: the floor switches it, records a bust
/// with who won the chips, and counts the stacks; a dealer may do none of
/// it; bad results are refused naming the problem; partners read the
/// facts; the view says what the table records and that its stacks are an
/// estimate until the count.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_floor_runs_a_results_only_table_over_grpc() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&dir.path().join("data"));
    let mut client = service.client().await;
    run(
        &mut client,
        "open",
        C::OpenTable(pb::OpenTable {
            seats: 6,
            rules: None,
        }),
        "boss",
    )
    .await
    .unwrap();
    for seat in 1..=3 {
        run(
            &mut client,
            &format!("seat-{seat}"),
            C::SeatPlayer(pb::SeatPlayer {
                seat,
                entry: 100 + u64::from(seat),
                stack: 5000,
                carried: Default::default(),
            }),
            "boss",
        )
        .await
        .unwrap();
    }
    let down = C::SetRecording(pb::SetRecording {
        recording: pb::Recording::ResultsOnly.into(),
        reason: "tablet down".into(),
    });
    let e = run(&mut client, "down", down.clone(), "dealer-1")
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::PermissionDenied);
    run(&mut client, "down", down, "floor").await.unwrap();
    let view = get_table(&mut client, "tv").await;
    assert_eq!(view.recording(), pb::Recording::ResultsOnly);
    // The dealer's tablet cannot deal here.
    let e = client
        .execute(with_token(start_hand("start", Some(1)), "dealer-1"))
        .await
        .unwrap_err();
    assert!(e.message().contains("records results only"), "{e:?}");
    let bust = |entry: u64| {
        C::RecordResult(pb::RecordResult {
            button: 1,
            busted: vec![pb::SeatEntry { seat: 3, entry }],
            by: vec![pb::SeatEntry {
                seat: 1,
                entry: 101,
            }],
            occurred_at_ms: None,
        })
    };
    // The wrong player named for the seat changes nothing.
    let e = run(&mut client, "bust", bust(999), "floor")
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::FailedPrecondition);
    assert!(
        e.message()
            .contains("seat 3 holds entry 103, not entry 999"),
        "{e:?}"
    );
    let e = run(&mut client, "bust", bust(103), "dealer-1")
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::PermissionDenied);
    let events = run(&mut client, "bust", bust(103), "floor").await.unwrap();
    let Some(pb::table_event::Kind::ResultRecorded(r)) =
        events[0].event.as_ref().and_then(|e| e.kind.clone())
    else {
        panic!("{events:?}")
    };
    assert_eq!((r.number, r.button, r.big_blind), (1, 1, 3));
    assert_eq!(r.busted[0].entry, 103);
    assert_eq!(r.busted[0].by, vec![101]);
    assert_eq!(
        r.shares,
        vec![pb::SeatChips {
            seat: 1,
            chips: 5000
        }]
    );
    let view = get_table(&mut client, "tv").await;
    assert!(view.stacks_estimated);
    assert_eq!(view.seats.len(), 2);
    // Back to recording actions only after a count.
    let back = C::SetRecording(pb::SetRecording {
        recording: pb::Recording::Actions.into(),
        reason: "tablet back".into(),
    });
    let e = run(&mut client, "back", back.clone(), "floor")
        .await
        .unwrap_err();
    assert!(e.message().contains("count every stack"), "{e:?}");
    let count = C::CountStacks(pb::CountStacks {
        count: "tablet back".into(),
        stacks: vec![
            pb::SeatStack {
                seat: 1,
                entry: 101,
                chips: 9_000,
            },
            pb::SeatStack {
                seat: 2,
                entry: 102,
                chips: 6_000,
            },
        ],
    });
    let events = run(&mut client, "count", count, "floor").await.unwrap();
    let Some(pb::table_event::Kind::StacksCounted(c)) =
        events[0].event.as_ref().and_then(|e| e.kind.clone())
    else {
        panic!("{events:?}")
    };
    assert_eq!((c.expected, c.counted), (15_000, 15_000));
    run(&mut client, "back", back, "floor").await.unwrap();
    let view = get_table(&mut client, "tv").await;
    assert_eq!(view.recording(), pb::Recording::Actions);
    assert!(!view.stacks_estimated);
    assert_eq!(view.seats[0].stack, 9_000);
}

/// The floor corrects a stack after a miscounted pot (TDA 22) and removes
/// hidden chips from play (TDA 63), between hands, over gRPC: the floor's
/// and the director's commands only, each its own event that a partner
/// reads, malformed input refused by field, a ruling by its rule.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_floor_corrects_a_stack_and_removes_chips_between_hands() {
    use pb::action::Kind as A;
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&dir.path().join("data"));
    let mut client = service.client().await;
    set_up(&mut client).await;
    let correct = |stack: u64, concerns: Option<pb::concerns::Kind>| {
        C::CorrectStack(pb::CorrectStack {
            seat: 1,
            entry: 101,
            stack,
            concerns: concerns.map(|kind| pb::Concerns { kind: Some(kind) }),
            reason: "the pot was pushed 200 short".into(),
        })
    };
    let hand_1 = || Some(pb::concerns::Kind::Hand(1));
    // During the hand: refused, nothing changes.
    let e = run(&mut client, "fix", correct(5_200, hand_1()), "floor")
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("in progress"), "{e:?}");
    // Hand 1 played out: everyone folds to the big blind.
    while let Some(seat) = get_table(&mut client, "tv")
        .await
        .hand
        .and_then(|h| h.to_act)
    {
        let fold = act(seat, A::Fold(pb::Fold {}));
        run(&mut client, &format!("fold-{seat}"), fold, "dealer-1")
            .await
            .unwrap();
    }
    let before = get_table(&mut client, "tv").await;
    // Not the dealer's, not a partner's.
    for token in ["dealer-1", "tv"] {
        let e = run(&mut client, "fix", correct(5_200, hand_1()), token)
            .await
            .unwrap_err();
        assert_eq!(e.code(), Code::PermissionDenied, "{token}");
    }
    // Malformed: what it concerns is required.
    let e = run(&mut client, "fix", correct(5_200, None), "floor")
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("correct_stack.concerns"), "{e:?}");
    let e = run(
        &mut client,
        "fix",
        correct(0, Some(pb::concerns::Kind::Moment("count".into()))),
        "floor",
    )
    .await
    .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert_eq!(
        e.metadata().get("felt-rule").and_then(|v| v.to_str().ok()),
        Some("TDA 71")
    );
    assert_eq!(get_table(&mut client, "tv").await.version, before.version);
    // The floor's correction, then the director's removal.
    let events = run(&mut client, "fix", correct(5_200, hand_1()), "floor")
        .await
        .unwrap();
    let Some(pb::table_event::Kind::StackCorrected(c)) =
        events[0].event.as_ref().and_then(|e| e.kind.clone())
    else {
        panic!("{events:?}")
    };
    let was = before.seats[0].stack;
    assert_eq!((c.seat, c.entry, c.from, c.to), (1, 101, was, 5_200));
    assert_eq!(c.concerns.and_then(|c| c.kind), hand_1());
    let remove = C::RemoveChips(pb::RemoveChips {
        seat: 2,
        entry: 102,
        amount: 500,
        removal: pb::Removal::Hidden.into(),
        reason: "a 500 chip in a jacket pocket".into(),
    });
    run(&mut client, "hidden", remove, "boss").await.unwrap();
    let after = get_table(&mut client, "tv").await;
    assert_eq!(after.seats[0].stack, 5_200);
    assert_eq!(after.seats[1].stack, before.seats[1].stack - 500);
    // A partner reads both in the table's history.
    let mut watch = client
        .watch_table(with_token(
            pb::WatchTableRequest {
                table: table(1),
                after_version: before.version,
            },
            "tv",
        ))
        .await
        .unwrap()
        .into_inner();
    let mut seen = Vec::new();
    while seen.len() < 2 {
        let item = tokio::time::timeout(std::time::Duration::from_secs(10), watch.message())
            .await
            .expect("a message in time")
            .unwrap()
            .expect("the stream goes on");
        if let Some(pb::watch_table_response::Item::Event(e)) = item.item {
            seen.push(e.r#type);
        }
    }
    assert_eq!(seen, ["StackCorrected", "ChipsRemoved"]);
}

/// The floor's discipline over gRPC (TDA 71): a warning and the house
/// scale's next step, each with its reason and the offence's number; the
/// floor's and the director's only; a kind without a reason is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_floor_warns_and_penalises_by_the_house_scale() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&dir.path().join("data"));
    let mut client = service.client().await;
    set_up(&mut client).await;
    let penalize = |kind: pb::PenaltyKind, reason: &str| {
        C::Penalize(pb::Penalize {
            seat: 2,
            entry: 102,
            kind: kind.into(),
            reason: reason.into(),
            ..Default::default()
        })
    };
    let e = run(
        &mut client,
        "w0",
        penalize(pb::PenaltyKind::Warning, ""),
        "floor",
    )
    .await
    .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("penalize.reason"), "{e:?}");
    let e = run(
        &mut client,
        "w1",
        penalize(pb::PenaltyKind::Warning, "soft play"),
        "dealer-1",
    )
    .await
    .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    let warned = run(
        &mut client,
        "w1",
        penalize(pb::PenaltyKind::Warning, "soft play"),
        "floor",
    )
    .await
    .unwrap();
    let Some(pb::table_event::Kind::WarningGiven(w)) =
        warned[0].event.as_ref().and_then(|e| e.kind.clone())
    else {
        panic!("{warned:?}")
    };
    assert_eq!((w.seat, w.entry, w.offence), (2, 102, 1));
    assert_eq!(w.reason, "soft play");
    let next = run(
        &mut client,
        "p2",
        penalize(pb::PenaltyKind::Next, "soft play again"),
        "boss",
    )
    .await
    .unwrap();
    let Some(pb::table_event::Kind::PenaltyGiven(p)) =
        next[0].event.as_ref().and_then(|e| e.kind.clone())
    else {
        panic!("{next:?}")
    };
    // The TDA scale's second step: one orbit, one hand per player (3).
    assert_eq!((p.hands, p.offence), (3, 2));
    let view = get_table(&mut client, "tv").await;
    assert_eq!(view.seats[1].penalty_hands, 3);
}

/// Colour-ups over gRPC (TDA 24): the dealer enters the race run with
/// real cards, or the engine deals it from a seed the service draws;
/// between hands only, a race naming the wrong number of winners refused
/// with the rule, nothing changed; a partner reads the race.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dealer_enters_a_chip_race_and_the_engine_deals_one() {
    use pb::action::Kind as A;
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&dir.path().join("data"));
    let mut client = service.client().await;
    set_up(&mut client).await;
    let colour_up = |leaving: u64, smallest: u64, race: Option<pb::colour_up::Race>| {
        C::ColourUp(pb::ColourUp {
            leaving,
            smallest,
            race,
        })
    };
    let entered = |winners: &[u32]| {
        Some(pb::colour_up::Race::Entered(pb::EnteredRace {
            winners: winners.to_vec(),
        }))
    };
    // During the hand: refused.
    let e = run(
        &mut client,
        "race",
        colour_up(50, 100, entered(&[2])),
        "dealer-1",
    )
    .await
    .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    while let Some(seat) = get_table(&mut client, "tv")
        .await
        .hand
        .and_then(|h| h.to_act)
    {
        let fold = act(seat, A::Fold(pb::Fold {}));
        run(&mut client, &format!("fold-{seat}"), fold, "dealer-1")
            .await
            .unwrap();
    }
    let before = get_table(&mut client, "tv").await;
    let stacks: Vec<u64> = before.seats.iter().map(|s| s.stack).collect();
    // The blinds moved 50: two stacks put up 50 each, one chip of 100.
    let mut odd: Vec<u32> = before
        .seats
        .iter()
        .filter(|s| s.stack % 100 != 0)
        .map(|s| s.seat)
        .collect();
    // (The larger first: it wins the dealer's race below.)
    odd.sort_by_key(|&s| std::cmp::Reverse(before.seats[s as usize - 1].stack));
    assert_eq!(odd.len(), 2, "{stacks:?}");
    // Not a partner's; a race is required; one winner for one chip.
    let e = run(
        &mut client,
        "race",
        colour_up(50, 100, entered(&[odd[0]])),
        "tv",
    )
    .await
    .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    let e = run(&mut client, "race", colour_up(50, 100, None), "dealer-1")
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("colour_up.race"), "{e:?}");
    let e = run(
        &mut client,
        "race",
        colour_up(50, 100, entered(&odd)),
        "dealer-1",
    )
    .await
    .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert_eq!(
        e.metadata().get("felt-rule").and_then(|v| v.to_str().ok()),
        Some("TDA 24")
    );
    assert_eq!(get_table(&mut client, "tv").await.version, before.version);
    // The dealer's race: the larger odd stack wins the chip.
    let events = run(
        &mut client,
        "race",
        colour_up(50, 100, entered(&odd[..1])),
        "dealer-1",
    )
    .await
    .unwrap();
    let Some(pb::table_event::Kind::ColouredUp(c)) =
        events[0].event.as_ref().and_then(|e| e.kind.clone())
    else {
        panic!("{events:?}")
    };
    assert!(c.seed.is_empty(), "entered by the dealer");
    let results: Vec<(u32, u64, bool, u64)> = c
        .raced
        .iter()
        .map(|r| (r.seat, r.odd, r.won, r.after))
        .collect();
    let stack_of = |seat: u32| stacks[seat as usize - 1];
    let mut expected = [
        (odd[0], 50, true, stack_of(odd[0]) + 50),
        (odd[1], 50, false, stack_of(odd[1]) - 50),
    ];
    expected.sort_unstable();
    assert_eq!(results, expected, "in seat order");
    let after = get_table(&mut client, "tv").await;
    assert!(after.seats.iter().all(|s| s.stack % 100 == 0), "{after:?}");
    // The director's unscheduled colour-up of the 100 (TDA 25), dealt by
    // the engine from a seed the service drew.
    let drawn = Some(pb::colour_up::Race::Drawn(pb::DrawnRace {}));
    let events = run(
        &mut client,
        "race-100",
        colour_up(100, 1_000, drawn),
        "boss",
    )
    .await
    .unwrap();
    let Some(pb::table_event::Kind::ColouredUp(c)) =
        events[0].event.as_ref().and_then(|e| e.kind.clone())
    else {
        panic!("{events:?}")
    };
    assert_eq!(c.seed.len(), 32, "the engine's seed is recorded");
    assert!(c.raced.iter().all(|r| r.cards.len() as u64 == r.odd / 100));
    let total = |t: &pb::TableView| t.seats.iter().map(|s| s.stack).sum::<u64>();
    let put_up: u64 = c.raced.iter().map(|r| r.odd).sum();
    let given = c.raced.iter().filter(|r| r.won).count() as u64;
    // (The value put up in chips of 1,000, rounded half up.)
    assert_eq!(given, (put_up + 500) / 1_000);
    let now = get_table(&mut client, "tv").await;
    assert_eq!(total(&now), total(&after) - put_up + given * 1_000);
}
