//! The other services as a service deployed apart reaches them: the table
//! service for seating and the clock (seats, moves and deals sent over
//! gRPC with their command ids), seating for the clock (the floor's
//! hand-for-hand), the clock for the table service (time-bank cards an
//! action took).

use felt_proto::v1 as pb;
use felt_proto::v1::clock_service_client::ClockServiceClient;
use felt_proto::v1::seating_service_client::SeatingServiceClient;
use felt_proto::v1::table_service_client::TableServiceClient;
use felt_table::{Command, Deal};
use felt_tournament::{ClockService, Refusal, Remote, RemoteError, Sent, TableService};
use felt_vocabulary::ErrorKind;
use tonic::Code;
use tonic::transport::Channel;

/// A lazily connected channel to `url` (connected again after the service
/// restarts), given as `flag`.
fn lazy(url: &str, flag: &str) -> Result<Channel, super::ServeError> {
    Ok(tonic::transport::Endpoint::from_shared(url.to_string())
        .map_err(|e| super::ServeError::settings(format!("{flag} {url}: {e}")))?
        .connect_lazy())
}

/// The services' own token on a request.
fn bearer<T>(req: &mut tonic::Request<T>, token: &str) -> Result<(), ()> {
    let value = format!("Bearer {token}").parse().map_err(|_| ())?;
    req.metadata_mut().insert("authorization", value);
    Ok(())
}

/// The service token could not be sent: refused before anything was.
fn token_refused() -> RemoteError {
    RemoteError::Refused(Refusal::here(
        ErrorKind::Malformed,
        "TokenNotHeaderValue",
        "the token is not a header value".into(),
    ))
}

/// A peer's answer as the conductor takes it: a refusal (the request or
/// the state forbids it) is not sent again; anything else may be.
/// The refusal keeps the kind and reason the peer classified it with.
fn refusal(s: tonic::Status) -> RemoteError {
    match s.code() {
        Code::InvalidArgument
        | Code::FailedPrecondition
        | Code::PermissionDenied
        | Code::Unauthenticated
        | Code::NotFound
        | Code::AlreadyExists => RemoteError::Refused(super::status::refusal_of(&s)),
        _ => RemoteError::Unavailable(format!("{}: {}", s.code(), s.message())),
    }
}

/// A client of the table service, calling with one token.
pub(crate) struct RemoteTables {
    client: TableServiceClient<Channel>,
    token: String,
}

impl RemoteTables {
    /// Connects lazily (and again after the service restarts).
    pub(crate) fn new(url: &str, token: String) -> Result<RemoteTables, super::ServeError> {
        Ok(RemoteTables {
            client: TableServiceClient::new(lazy(url, "--tables")?),
            token,
        })
    }
}

fn level(l: &felt_table::Level) -> pb::Level {
    super::convert::pb_level(l)
}

/// The conductor's table commands on the wire.
fn wire(c: &Command) -> Result<pb::execute_request::Command, RemoteError> {
    use pb::execute_request::Command as C;
    Ok(match c {
        Command::OpenTable { seats, rules } => C::OpenTable(pb::OpenTable {
            seats: u32::from(*seats),
            rules: Some(super::table_events::rules(rules)),
        }),
        Command::SeatPlayer {
            seat,
            player,
            stack,
            carried,
        } => C::SeatPlayer(pb::SeatPlayer {
            seat: u32::from(*seat),
            entry: player.0,
            stack: *stack,
            carried: super::table_events::carried(carried),
        }),
        Command::RemovePlayer { seat } => C::RemovePlayer(pb::RemovePlayer {
            seat: u32::from(*seat),
        }),
        Command::Disqualify {
            seat,
            player,
            reason,
        } => C::Disqualify(pb::Disqualify {
            seat: u32::from(*seat),
            entry: player.0,
            reason: reason.clone(),
        }),
        // The table service draws the seed itself.
        Command::DrawButton { .. } => C::DrawButton(pb::DrawButton {}),
        Command::AddOn {
            seat,
            player,
            chips,
        } => C::AddOn(pb::AddOn {
            seat: u32::from(*seat),
            entry: player.0,
            chips: *chips,
        }),
        Command::Rebuy {
            seat,
            player,
            chips,
            number,
        } => C::Rebuy(pb::Rebuy {
            seat: u32::from(*seat),
            entry: player.0,
            chips: *chips,
            number: *number,
        }),
        Command::ColourUp {
            leaving,
            smallest,
            race,
        } => C::ColourUp(pb::ColourUp {
            leaving: *leaving,
            smallest: *smallest,
            race: Some(match race {
                // (As the button's draw: the table service's seed.)
                felt_table::ChipRace::Drawn { .. } => pb::colour_up::Race::Drawn(pb::DrawnRace {}),
                felt_table::ChipRace::Entered { winners } => {
                    pb::colour_up::Race::Entered(pb::EnteredRace {
                        winners: winners.iter().map(|&w| u32::from(w)).collect(),
                    })
                }
            }),
        }),
        Command::Surrender { seat, player } => C::Surrender(pb::Surrender {
            seat: u32::from(*seat),
            entry: player.0,
        }),
        Command::RemoveNoShow { seat, player } => C::RemoveNoShow(pb::RemoveNoShow {
            seat: u32::from(*seat),
            entry: player.0,
        }),
        // The table service draws a digital deck's seed itself.
        Command::StartHand {
            level: l,
            deal,
            button,
        } => C::StartHand(pb::StartHand {
            level: Some(level(l)),
            deal: Some(pb::Deal {
                kind: Some(match deal {
                    Deal::Digital { .. } => pb::deal::Kind::Digital(pb::DigitalDeal {}),
                    Deal::Shared { .. } => pb::deal::Kind::Shared(pb::SharedDeal {}),
                    Deal::Physical => pb::deal::Kind::Physical(pb::PhysicalDeal {}),
                }),
            }),
            button: button.map(u32::from),
        }),
        other => {
            return Err(RemoteError::Refused(Refusal::here(
                ErrorKind::Internal,
                "NotSentBySeating",
                format!("{other:?} is not sent to the table service by seating"),
            )));
        }
    })
}

impl TableService for RemoteTables {
    fn execute<'a>(
        &'a self,
        tournament: &'a str,
        table: u32,
        command_id: &'a str,
        command: &'a Command,
        from: &'a felt_service::Provenance,
    ) -> Remote<'a> {
        Box::pin(async move {
            let provenance =
                (from.causation_id.is_some() || from.correlation_id.is_some()).then(|| {
                    pb::Provenance {
                        causation_id: from.causation_id.clone().unwrap_or_default(),
                        correlation_id: from.correlation_id.clone().unwrap_or_default(),
                    }
                });
            let mut req = tonic::Request::new(pb::ExecuteRequest {
                table: Some(pb::TableRef {
                    tournament_id: tournament.into(),
                    table,
                }),
                command_id: command_id.into(),
                provenance,
                command: Some(wire(command)?),
            });
            bearer(&mut req, &self.token).map_err(|()| token_refused())?;
            let answer = self
                .client
                .clone()
                .execute(req)
                .await
                .map_err(refusal)?
                .into_inner();
            let events = answer
                .events
                .iter()
                .map(super::table_events::from_event)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| {
                    RemoteError::Refused(Refusal::here(
                        ErrorKind::Internal,
                        "UnreadableEvent",
                        format!("an event the table service sent: {e}"),
                    ))
                })?;
            Ok((events, answer.duplicate))
        })
    }
}

/// The seating service as the clock reaches it when they are deployed
/// apart: the floor's hand-for-hand, which is seating's to decide.
#[derive(Clone)]
pub(crate) struct RemoteSeating {
    client: SeatingServiceClient<Channel>,
    token: String,
}

impl RemoteSeating {
    /// Connects lazily (and again after the service restarts).
    pub(crate) fn new(url: &str, token: String) -> Result<RemoteSeating, super::ServeError> {
        Ok(RemoteSeating {
            client: SeatingServiceClient::new(lazy(url, "--seating")?),
            token,
        })
    }

    /// Hand-for-hand started (or stopped) at seating under `command_id`,
    /// sent again while seating is out of reach (the id makes a repeat
    /// harmless); seating's refusal comes back as it is.
    pub(crate) async fn hand_for_hand(
        &self,
        tournament: &str,
        command_id: &str,
        start: bool,
    ) -> Result<pb::HandForHandResponse, tonic::Status> {
        let action = if start {
            pb::HandForHandAction::Start
        } else {
            pb::HandForHandAction::Stop
        };
        let mut attempt = 0u32;
        loop {
            let mut req = tonic::Request::new(pb::HandForHandRequest {
                tournament_id: tournament.into(),
                command_id: command_id.into(),
                action: action.into(),
            });
            bearer(&mut req, &self.token)
                .map_err(|()| tonic::Status::internal("the service token is not a header value"))?;
            match self.client.clone().hand_for_hand(req).await {
                Ok(answer) => return Ok(answer.into_inner()),
                Err(s) if s.code() == Code::Unavailable && attempt < 5 => {
                    attempt += 1;
                    tracing::warn!(%s, command_id, attempt, "the seating service failed: sending again");
                    tokio::time::sleep(std::time::Duration::from_millis(50 << attempt)).await;
                }
                Err(s) => return Err(s),
            }
        }
    }
}

/// The clock service as the table service reaches it when they are
/// deployed apart: the time-bank cards an action took, which the clock
/// records.
pub(crate) struct RemoteClock {
    client: ClockServiceClient<Channel>,
    token: String,
}

impl RemoteClock {
    /// Connects lazily (and again after the service restarts).
    pub(crate) fn new(url: &str, token: String) -> Result<RemoteClock, super::ServeError> {
        Ok(RemoteClock {
            client: ClockServiceClient::new(lazy(url, "--clock")?),
            token,
        })
    }
}

impl ClockService for RemoteClock {
    fn use_time_bank<'a>(
        &'a self,
        tournament: &'a str,
        command_id: &'a str,
        player: felt_seating::EntryId,
        cards: u8,
    ) -> Sent<'a> {
        Box::pin(async move {
            let mut req = tonic::Request::new(pb::ControlClockRequest {
                tournament_id: tournament.into(),
                command_id: command_id.into(),
                command: Some(pb::control_clock_request::Command::UseTimeBank(
                    pb::UseTimeBank {
                        entry: player.get(),
                        cards: u32::from(cards),
                    },
                )),
            });
            bearer(&mut req, &self.token).map_err(|()| token_refused())?;
            let answer = self
                .client
                .clone()
                .control_clock(req)
                .await
                .map_err(refusal)?;
            Ok(answer.into_inner().duplicate)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use felt_table::{AnteFormat, EntryId, HouseRules, Level};

    /// A table service's refusal, carried by seating to its own caller:
    /// the same code, kind and reason, and the table named.
    #[test]
    fn a_refusal_keeps_its_kind_reason_and_rule_across_a_hop() {
        use felt_service::HandleError;
        use felt_tournament::TournamentError;
        use tonic_types::StatusExt;
        let sent = super::super::status::status(HandleError::Rejected(
            felt_table::Rejection::RaiseBelowMinimum { to: 60, min: 100 },
        ));
        let RemoteError::Refused(first) = refusal(sent) else {
            panic!("a refusal")
        };
        assert_eq!(
            (first.kind, first.reason.as_str(), first.rule.as_deref()),
            (ErrorKind::Refused, "RaiseBelowMinimum", Some("TDA 43"))
        );
        let passed_on = super::super::status::tournament(TournamentError::TableRefused {
            table: 7,
            refusal: first,
        });
        assert_eq!(passed_on.code(), Code::FailedPrecondition);
        assert_eq!(
            passed_on.message(),
            "table 7: raise to 60 is below the minimum raise to 100 (TDA 43)"
        );
        let info = passed_on.get_details_error_info().expect("an ErrorInfo");
        assert_eq!(info.reason, "RaiseBelowMinimum");
        assert_eq!(info.metadata["rule"], "TDA 43");
        assert_eq!(passed_on.metadata().get("felt-rule").unwrap(), "TDA 43");
        assert_eq!(
            passed_on.metadata().get("felt-error-kind").unwrap(),
            "refused"
        );
        // A table never opened stays NOT_FOUND.
        let sent = super::super::status::status(HandleError::Rejected(
            felt_table::Rejection::TableNotOpen,
        ));
        let RemoteError::Refused(second) = refusal(sent) else {
            panic!("a refusal")
        };
        let passed_on = super::super::status::tournament(TournamentError::TableRefused {
            table: 7,
            refusal: second,
        });
        assert_eq!(passed_on.code(), Code::NotFound);
        assert_eq!(
            passed_on.metadata().get("felt-rejection").unwrap(),
            "TableNotOpen"
        );
        // (No rule is cited where none applies.)
        assert!(passed_on.metadata().get("felt-rule").is_none());
        let info = passed_on.get_details_error_info().expect("an ErrorInfo");
        assert!(!info.metadata.contains_key("rule"));
    }

    /// Every command seating sends survives the trip: wire, then the table
    /// service's own reading of it.
    #[test]
    fn seating_commands_read_back_as_sent() {
        let commands = [
            Command::OpenTable {
                seats: 9,
                rules: HouseRules {
                    short_big_blind: felt_table::ShortBigBlind::CallAmountPosted,
                    ..HouseRules::default()
                },
            },
            Command::SeatPlayer {
                seat: 4,
                player: EntryId(77),
                stack: 20_000,
                carried: felt_table::Carried {
                    penalty_hands: 3,
                    absent: true,
                    offences: 1,
                },
            },
            Command::RemovePlayer { seat: 4 },
            Command::Disqualify {
                seat: 4,
                player: EntryId(77),
                reason: "chip passing".into(),
            },
            Command::Surrender {
                seat: 4,
                player: EntryId(77),
            },
            Command::RemoveNoShow {
                seat: 4,
                player: EntryId(77),
            },
            Command::DrawButton {
                seed: felt_cards::Seed::from_u64(7),
            },
            Command::ColourUp {
                leaving: 25,
                smallest: 100,
                race: felt_table::ChipRace::Entered {
                    winners: vec![2, 5],
                },
            },
            Command::AddOn {
                seat: 4,
                player: EntryId(77),
                chips: 10_000,
            },
            Command::Rebuy {
                seat: 5,
                player: EntryId(78),
                chips: 5_000,
                number: 3,
            },
            Command::StartHand {
                level: Level {
                    small_blind: 100,
                    big_blind: 200,
                    ante: 200,
                    ante_format: AnteFormat::BigBlind,
                    smallest_chip: 25,
                },
                deal: Deal::Digital {
                    seed: felt_cards::Seed::from_u64(7),
                },
                button: Some(3),
            },
            // A physical tournament's hands, deployed apart.
            Command::StartHand {
                level: Level::blinds(50, 100),
                deal: Deal::Physical,
                button: None,
            },
            Command::StartHand {
                level: Level::blinds(50, 100),
                deal: Deal::Shared {
                    seed: felt_cards::Seed::from_u64(7),
                },
                button: None,
            },
        ];
        for c in commands {
            let req = pb::ExecuteRequest {
                provenance: None,
                table: None,
                command_id: "x".into(),
                command: Some(wire(&c).unwrap()),
            };
            // (The seed is the table service's: it reads the deal back
            // with the seed it draws.)
            let drawn = felt_cards::Seed::from_u64(7);
            assert_eq!(super::super::convert::command(&req, &|| drawn).unwrap(), c);
        }
        assert!(matches!(
            wire(&Command::Act {
                seat: 1,
                action: felt_table::PlayerAction::Fold
            }),
            Err(RemoteError::Refused(_))
        ));
    }
}
