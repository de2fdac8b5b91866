//! What the tests that drive felt's services over gRPC share: a caller's
//! token, and a dealer with bots at one table.

#![allow(dead_code)]

pub(crate) mod browser;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use felt_proto::v1 as pb;
use felt_proto::v1::clock_service_client::ClockServiceClient;
use felt_proto::v1::payout_service_client::PayoutServiceClient;
use felt_proto::v1::seating_service_client::SeatingServiceClient;
use felt_proto::v1::table_service_client::TableServiceClient;
use tonic::transport::Channel;
use tonic::{Code, Request, Status};

/// `felt up` as a real process, with a channel to it and its tokens.
pub(crate) struct Up {
    pub(crate) addr: String,
    child: Child,
    pub(crate) channel: Channel,
    pub(crate) tokens: std::collections::HashMap<String, String>,
}

/// A block of ports free now, `base + offset` for each offset, below the
/// kernel's ephemeral ports (32768 and up on Linux): a port a test
/// restarts a killed service on must stay free meanwhile, not be taken as
/// the local end of some client's connection (port 0 hands out ephemeral
/// ports, so it will not do for those).
pub(crate) fn free_block(offsets: &[u16]) -> u16 {
    static TRIED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let span = offsets.iter().max().copied().unwrap_or(0) + 1;
    let slots = u64::from((32_000 - 20_000) / span);
    let free = |port: u16| std::net::TcpListener::bind(("127.0.0.1", port)).is_ok();
    (0..1_000)
        .map(|_| {
            let i = TRIED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let seed = u64::from(std::process::id()) * 7_919 + i * 104_729;
            20_000 + (seed % slots) as u16 * span
        })
        .find(|base| offsets.iter().all(|o| free(base + o)))
        .expect("a free block of ports")
}

impl Up {
    /// On a port a restart can have again.
    pub(crate) async fn start(log: &[&str], data: &Path) -> Up {
        let listen = format!("127.0.0.1:{}", free_block(&[0]));
        Up::start_at(&listen, log, data).await
    }

    /// On a given address (a restart on the same port).
    pub(crate) async fn start_at(listen: &str, log: &[&str], data: &Path) -> Up {
        let mut child = Command::new(env!("CARGO_BIN_EXE_felt"))
            .args(["up", "--listen", listen, "--data"])
            .arg(data)
            .args(log)
            .env("RUST_BACKTRACE", "0")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start felt up");
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        let mut lines = Vec::new();
        let mut tokens = std::collections::HashMap::new();
        while tokens.len() < 3 {
            let mut line = String::new();
            assert!(
                out.read_line(&mut line).expect("read") > 0,
                "felt up stopped: {lines:?}"
            );
            if let Some(rest) = line.trim().strip_prefix("token ") {
                let (role, token) = rest.split_once(": ").expect("role: token");
                tokens.insert(role.to_string(), token.to_string());
            }
            lines.push(line);
        }
        let addr = lines[0].trim().rsplit(' ').next().expect("an address");
        assert!(lines[0].starts_with("felt up listening on"), "{lines:?}");
        let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
            .expect("endpoint")
            .connect()
            .await
            .expect("connect");
        Up {
            addr: addr.to_string(),
            child,
            channel,
            tokens,
        }
    }

    pub(crate) fn token(&self, role: &str) -> &str {
        &self.tokens[role]
    }

    pub(crate) fn seating(&self) -> SeatingServiceClient<Channel> {
        SeatingServiceClient::new(self.channel.clone())
    }
    pub(crate) fn clock(&self) -> ClockServiceClient<Channel> {
        ClockServiceClient::new(self.channel.clone())
    }
    pub(crate) fn payout(&self) -> PayoutServiceClient<Channel> {
        PayoutServiceClient::new(self.channel.clone())
    }

    /// A floor's clock control at `tournament`; the clock after it.
    pub(crate) async fn control(
        &self,
        tournament: &str,
        id: &str,
        command: pb::control_clock_request::Command,
    ) -> pb::ClockView {
        self.clock()
            .control_clock(with(
                pb::ControlClockRequest {
                    tournament_id: tournament.into(),
                    command_id: id.into(),
                    command: Some(command),
                },
                self.token("floor"),
            ))
            .await
            .expect("control the clock")
            .into_inner()
            .clock
            .expect("a view")
    }

    pub(crate) fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Up {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A request carrying a bearer token.
pub(crate) fn with<T>(msg: T, token: &str) -> Request<T> {
    let mut req = Request::new(msg);
    req.metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    req
}

/// A lazily connected channel: it reconnects when a service restarts.
pub(crate) fn channel(addr: &str) -> Channel {
    tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .expect("endpoint")
        .connect_lazy()
}

/// Whether a call failed because the service was away (restarting): the
/// same call with the same command id is then safe to send again.
fn away(s: &Status) -> bool {
    matches!(
        s.code(),
        Code::Unavailable | Code::Unknown | Code::Cancelled
    )
}

/// Sends a call until the service answers (at most a minute).
async fn retry<T, F, Fut>(mut call: F) -> Result<T, Status>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, Status>>,
{
    let mut last = None;
    for _ in 0..600 {
        match call().await {
            Err(s) if away(&s) => {
                last = Some(s);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            other => return other,
        }
    }
    Err(last.unwrap_or_else(|| Status::unavailable("never answered")))
}

/// A turbo tournament of `players` presold entries ("Player 1" …), table
/// size 9, buy-in 10,000 and fee 1,000 (in `currency`; the generated pay
/// sheet), created, registered
/// and started by `token`; what the start said.
pub(crate) async fn open_tournament(
    seating: &mut SeatingServiceClient<Channel>,
    id: &str,
    name: &str,
    currency: &str,
    players: u32,
    token: &str,
) -> pb::StartTournamentResponse {
    create_tournament(seating, id, name, currency, token).await;
    presales(seating, id, players, token).await;
    seating
        .start_tournament(with(
            pb::StartTournamentRequest {
                tournament_id: id.into(),
            },
            token,
        ))
        .await
        .expect("start")
        .into_inner()
}

/// A turbo, tables of 9, a buy-in of 100.00 and a fee of 10.00 in
/// `currency`, dealt digitally: created, not started.
pub(crate) async fn create_tournament(
    seating: &mut SeatingServiceClient<Channel>,
    id: &str,
    name: &str,
    currency: &str,
    token: &str,
) {
    seating
        .create_tournament(with(
            pb::CreateTournamentRequest {
                deal: pb::DealMode::Digital.into(),
                tournament_id: id.into(),
                name: name.into(),
                structure: Some(pb::create_tournament_request::Structure::Preset(
                    pb::StructurePreset::Turbo.into(),
                )),
                table_size: 9,
                money: Some(pb::MoneySettings {
                    currency: currency.into(),
                    buy_in: 10_000,
                    fee: 1_000,
                    ..Default::default()
                }),
                ..Default::default()
            },
            token,
        ))
        .await
        .expect("create");
}

/// Presold entries "Player 01" … (player ids p1 …) registered in one list.
pub(crate) async fn presales(
    seating: &mut SeatingServiceClient<Channel>,
    id: &str,
    players: u32,
    token: &str,
) {
    seating
        .register_many(with(
            pb::RegisterManyRequest {
                payment: None,
                tournament_id: id.into(),
                command_id: "presales".into(),
                players: (1..=players)
                    .map(|i| pb::Registrant {
                        player_id: format!("p{i}"),
                        name: format!("Player {i:02}"),
                    })
                    .collect(),
            },
            token,
        ))
        .await
        .expect("register");
}

/// What one ask to deal came to.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Hand {
    /// A hand was dealt and played out.
    Played,
    /// The table waits (for other tables, a break, a move).
    Wait,
    /// The table is closed.
    Closed,
}

/// Asks seating to deal at `table` and, if it deals, plays the hand with
/// The floor records that each player offered a rebuy at `table` (rule 27)
/// declines it: the hand ends at seating with their busts.
async fn decline_rebuys(
    seating: &SeatingServiceClient<Channel>,
    tournament: &str,
    table: u32,
    token: &str,
) {
    let map = retry(|| {
        let mut c = seating.clone();
        let req = with(
            pb::GetTableMapRequest {
                tournament_id: tournament.into(),
            },
            token,
        );
        async move { c.get_table_map(req).await }
    })
    .await
    .expect("table map")
    .into_inner();
    let Some(at) = map.tables.iter().find(|t| t.table == table) else {
        return;
    };
    for &entry in &at.rebuy_offers {
        let answer = with(
            pb::FloorRequest {
                tournament_id: tournament.into(),
                command_id: format!("decline-{table}-{entry}-{}", at.hands),
                command: Some(pb::floor_request::Command::DeclineRebuy(pb::DeclineRebuy {
                    entry,
                })),
            },
            token,
        );
        // Refused: answered meanwhile.
        let _ = seating.clone().floor(answer).await;
    }
}

/// bots over gRPC only: the player to act checks when free, else goes all
/// in or folds, by `roll`.
pub(crate) async fn play_hand(
    seating: &SeatingServiceClient<Channel>,
    tables: &TableServiceClient<Channel>,
    tournament: &str,
    table: u32,
    token: &str,
    roll: &mut u64,
) -> Hand {
    let begin = retry(|| {
        let mut c = seating.clone();
        let req = with(
            pb::BeginHandRequest {
                tournament_id: tournament.into(),
                table,
            },
            token,
        );
        async move { c.begin_hand(req).await }
    })
    .await
    .expect("begin hand")
    .into_inner();
    use pb::begin_hand_response::Outcome;
    let mut view = match begin.outcome.expect("an outcome") {
        Outcome::Closed(_) => return Hand::Closed,
        Outcome::Wait(why) if why.contains("may rebuy") => {
            decline_rebuys(seating, tournament, table, token).await;
            return Hand::Wait;
        }
        Outcome::OnBreakMs(_) => {
            // (The floor answers rebuy offers during a break too.)
            decline_rebuys(seating, tournament, table, token).await;
            return Hand::Wait;
        }
        Outcome::Wait(_) => return Hand::Wait,
        Outcome::RaceDue(due) => {
            enter_race(tables, tournament, table, &due, token).await;
            return Hand::Wait;
        }
        Outcome::Dealt(dealt) => dealt.table.expect("the table"),
    };
    let mut k = 0;
    while let Some(hand) = view.hand.as_ref() {
        k += 1;
        *roll = roll
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        use pb::action::Kind;
        use pb::execute_request::Command as C;
        let command = match hand.to_act {
            Some(seat) => {
                let kind = if hand.to_call == 0 {
                    Kind::Check(pb::Check {})
                } else if (*roll >> 33) % 100 < 35 {
                    Kind::AllIn(pb::AllIn {})
                } else {
                    Kind::Fold(pb::Fold {})
                };
                C::Act(pb::Act {
                    seat,
                    action: Some(pb::Action { kind: Some(kind) }),
                })
            }
            // A shared deck waits for the table's entropy.
            None if hand.phase() == pb::HandPhase::Dealing => C::AddEntropy(pb::AddEntropy {
                entropy: roll.to_le_bytes().repeat(4),
            }),
            None => break,
        };
        let req = pb::ExecuteRequest {
            provenance: None,
            table: Some(pb::TableRef {
                tournament_id: tournament.into(),
                table,
            }),
            command_id: format!("h{}-{k}", hand.number),
            command: Some(command),
        };
        let out = retry(|| {
            let mut c = tables.clone();
            let req = with(req.clone(), token);
            async move { c.execute(req).await }
        })
        .await
        .expect("act")
        .into_inner();
        view = out.table.expect("the table");
    }
    Hand::Played
}

/// A physical table's dealer enters the chip race seating asked for (TDA
/// 24): the lowest seats with odd chips win the chips the race gives.
pub(crate) async fn enter_race(
    tables: &TableServiceClient<Channel>,
    tournament: &str,
    table: u32,
    due: &pb::ChipRaceDue,
    token: &str,
) {
    let at = || {
        Some(pb::TableRef {
            tournament_id: tournament.into(),
            table,
        })
    };
    let view = retry(|| {
        let mut c = tables.clone();
        let req = with(pb::GetTableRequest { table: at() }, token);
        async move { c.get_table(req).await }
    })
    .await
    .expect("the table")
    .into_inner()
    .table
    .expect("the table");
    let odd: Vec<(u32, u64)> = view
        .seats
        .iter()
        .filter(|s| s.stack % due.smallest != 0)
        .map(|s| (s.seat, s.stack % due.smallest))
        .collect();
    let put_up: u64 = odd.iter().map(|o| o.1).sum();
    let given = usize::try_from((put_up + due.smallest / 2) / due.smallest).unwrap();
    let race = pb::ColourUp {
        leaving: due.leaving,
        smallest: due.smallest,
        race: Some(pb::colour_up::Race::Entered(pb::EnteredRace {
            winners: odd.iter().take(given).map(|o| o.0).collect(),
        })),
    };
    let req = pb::ExecuteRequest {
        provenance: None,
        table: at(),
        command_id: format!("race-{}", due.smallest),
        command: Some(pb::execute_request::Command::ColourUp(race)),
    };
    retry(|| {
        let mut c = tables.clone();
        let req = with(req.clone(), token);
        async move { c.execute(req).await }
    })
    .await
    .expect("the race entered");
}

/// A hand of a shared deck waits for the table's entropy: the table's
/// device (`token`) adds it, and the table as it then stands comes back.
pub(crate) async fn add_entropy(
    tables: Channel,
    tournament: &str,
    table: u32,
    view: pb::TableView,
    token: &str,
) -> pb::TableView {
    let Some(hand) = view
        .hand
        .as_ref()
        .filter(|h| h.phase() == pb::HandPhase::Dealing)
    else {
        return view;
    };
    let req = pb::ExecuteRequest {
        provenance: None,
        table: Some(pb::TableRef {
            tournament_id: tournament.into(),
            table,
        }),
        command_id: format!("h{}-entropy", hand.number),
        command: Some(pb::execute_request::Command::AddEntropy(pb::AddEntropy {
            entropy: hand.number.to_le_bytes().repeat(4),
        })),
    };
    TableServiceClient::new(tables)
        .execute(with(req, token))
        .await
        .expect("add entropy")
        .into_inner()
        .table
        .expect("the table")
}

/// A dealer and bots at one table ([`play_hand`]) until the table closes
/// or play is over (one player left, a satellite's seats won); returns the
/// hands dealt.
pub(crate) async fn deal_table(
    seating: Channel,
    tables: Channel,
    tournament: &str,
    table: u32,
    token: &str,
) -> u64 {
    deal_table_paced(seating, tables, tournament, table, token, Duration::ZERO).await
}

/// [`deal_table`], resting `pace` after each hand (as a live table does).
pub(crate) async fn deal_table_paced(
    seating: Channel,
    tables: Channel,
    tournament: &str,
    table: u32,
    token: &str,
    pace: Duration,
) -> u64 {
    let seating = SeatingServiceClient::new(seating);
    let tables = TableServiceClient::new(tables);
    let mut hands = 0;
    let mut roll = u64::from(table) * 7919;
    for _ in 0..200_000 {
        match play_hand(&seating, &tables, tournament, table, token, &mut roll).await {
            Hand::Closed => return hands,
            Hand::Played => {
                hands += 1;
                tokio::time::sleep(pace).await;
            }
            Hand::Wait => {
                let standings = retry(|| {
                    let mut c = seating.clone();
                    let req = with(
                        pb::GetStandingsRequest {
                            tournament_id: tournament.into(),
                        },
                        token,
                    );
                    async move { c.get_standings(req).await }
                })
                .await
                .expect("standings")
                .into_inner();
                if standings.players_left <= 1 || standings.finished {
                    return hands;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }
    panic!("table {table} never finished");
}

/// The results payout has for `tournament` now.
pub(crate) async fn results(
    payout: &Channel,
    tournament: &str,
    token: &str,
) -> pb::GetResultsResponse {
    PayoutServiceClient::new(payout.clone())
        .get_results(with(
            pb::GetResultsRequest {
                tournament_id: tournament.into(),
            },
            token,
        ))
        .await
        .expect("results")
        .into_inner()
}

/// `felt audit verify` with `args` (the log, a tournament) passes; what
/// it reported.
pub(crate) fn audit_passes(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_felt"))
        .args(["audit", "verify"])
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run felt audit");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains(" 0 failed"),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.into_owned()
}

/// A dealer and bots at each of `tables` of `tournament` ([`deal_table`]),
/// each in a task of its own, until the tournament is over.
pub(crate) fn dealers(
    channel: &Channel,
    tournament: &'static str,
    tables: std::ops::RangeInclusive<u32>,
    token: &str,
) -> Vec<tokio::task::JoinHandle<u64>> {
    tables
        .map(|table| {
            let (channel, token) = (channel.clone(), token.to_string());
            tokio::spawn(async move {
                deal_table(channel.clone(), channel, tournament, table, &token).await
            })
        })
        .collect()
}

/// The results once payout has placed `entries` entries of `tournament`
/// (within 20 s, else the test fails).
pub(crate) async fn all_placed(
    payout: &Channel,
    tournament: &str,
    entries: usize,
    token: &str,
) -> pb::GetResultsResponse {
    tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let found = results(payout, tournament, token).await;
            if found.results.len() == entries {
                return found;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("every entry placed")
}

/// Checks finishing results: every place from 1 to `entries` taken once
/// (busts in one hand-for-hand hand share theirs), prizes summing to `pool`.
pub(crate) fn check_results(results: &[pb::ResultRow], entries: u32, pool: u64) {
    let mut covered = Vec::new();
    for r in results {
        let sharing = results
            .iter()
            .filter(|o| (o.first, o.last) == (r.first, r.last))
            .count();
        assert_eq!(sharing as u32, r.last - r.first + 1, "{r:?}");
        if !covered.contains(&r.first) {
            covered.extend(r.first..=r.last);
        }
    }
    covered.sort_unstable();
    assert_eq!(covered, (1..=entries).collect::<Vec<_>>());
    assert_eq!(results.iter().map(|r| r.prize).sum::<u64>(), pool);
}
