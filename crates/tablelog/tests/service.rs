//! The table run by the service pattern (`felt_service::Handler`): every
//! action appended exactly once, retries answered with the first answer,
//! rejections appending nothing, replicas racing on one table, and a
//! restart catching up from the log.

use std::sync::Arc;

use felt_cards::Seed;
use felt_eventlog::{EmbeddedLog, EventLog, NatsLog, NatsSettings, verify_chain};
use felt_service::{HandleError, Handler};
use felt_table::*;
use felt_tablelog::Table;
use felt_testkit::NatsServer;

type Tables<L> = Handler<Table, L>;

async fn open_table<L: EventLog>(h: &Tables<L>, stream: &felt_eventlog::StreamId) {
    let mut commands = vec![Command::OpenTable {
        seats: 4,
        rules: HouseRules::default(),
    }];
    for seat in 1..=4 {
        commands.push(Command::SeatPlayer {
            seat,
            player: EntryId(seat.into()),
            stack: 2000,
            carried: Default::default(),
        });
    }
    for (i, c) in commands.iter().enumerate() {
        h.handle(stream, &format!("setup-{i}"), 0, c).await.unwrap();
    }
}

fn start(seed: u64, button: Option<Seat>) -> Command {
    Command::StartHand {
        level: Level::blinds(25, 50),
        deal: Deal::Digital {
            seed: Seed::from_u64(seed),
        },
        button,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_through_the_service_is_stored_once_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.redb");
    let stream = felt_tablelog::stream("t1", 3).unwrap();
    let before = {
        let h = Tables::new(Arc::new(EmbeddedLog::open(&path).unwrap()));
        open_table(&h, &stream).await;
        h.handle(&stream, "start-1", 0, &start(1, Some(4)))
            .await
            .unwrap();
        // Seat 3 calls; its dealer's tablet retries the command: the same
        // answer, and not a second call.
        let call = Command::Act {
            seat: 3,
            action: PlayerAction::Call,
        };
        let first = h.handle(&stream, "call-3", 0, &call).await.unwrap();
        let retry = h.handle(&stream, "call-3", 0, &call).await.unwrap();
        assert!(!first.duplicate && retry.duplicate);
        assert_eq!(retry.events, first.events);
        assert_eq!((retry.first, retry.last), (first.first, first.last));
        assert_eq!(retry.version, first.version);
        // A rule violation: refused with the rule, nothing appended.
        let err = h
            .handle(
                &stream,
                "raise-4",
                0,
                &Command::Act {
                    seat: 4,
                    action: PlayerAction::Raise { to: 60 },
                },
            )
            .await
            .unwrap_err();
        assert_eq!(
            err,
            HandleError::Rejected(Rejection::RaiseBelowMinimum { to: 60, min: 100 })
        );
        assert_eq!(h.log().version(&stream).await.unwrap(), first.version);
        // The hand plays out.
        let mut k = 0;
        loop {
            let (state, _) = h.state(&stream).await.unwrap();
            let Some(o) = state.options() else { break };
            let action = if o.to_call > 0 {
                PlayerAction::Call
            } else {
                PlayerAction::Check
            };
            h.handle(
                &stream,
                &format!("a{k}"),
                0,
                &Command::Act {
                    seat: o.seat,
                    action,
                },
            )
            .await
            .unwrap();
            k += 1;
        }
        let (state, version) = h.state(&stream).await.unwrap();
        assert!(state.hand().is_none());
        (state, version)
    };
    // A restarted service catches up from the log: the same table.
    let log = Arc::new(EmbeddedLog::open(&path).unwrap());
    let h = Tables::new(log.clone());
    assert_eq!(h.state(&stream).await.unwrap(), before);
    let envelopes = log.read(&stream, 1).await.unwrap();
    assert_eq!(envelopes.len() as u64, before.1);
    assert_eq!(verify_chain(&envelopes), Ok(()));
    let events: Vec<TableEvent> = envelopes.iter().map(|e| e.decode().unwrap()).collect();
    assert_eq!(replay(&events), *before.0);
    assert_eq!(check_deals(&events), Ok(1));
    // And still knows the commands it appended before the restart.
    let retry = h
        .handle(
            &stream,
            "call-3",
            0,
            &Command::Act {
                seat: 3,
                action: PlayerAction::Call,
            },
        )
        .await
        .unwrap();
    assert!(retry.duplicate);
    assert_eq!(h.log().version(&stream).await.unwrap(), before.1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_racing_on_one_table_on_jetstream_append_each_action_once() {
    let server = NatsServer::start().unwrap();
    let connect = || async {
        Arc::new(
            NatsLog::connect(&server.url(), &NatsSettings::default())
                .await
                .unwrap(),
        )
    };
    let a = Arc::new(Tables::new(connect().await));
    let b = Arc::new(Tables::new(connect().await));
    let stream = felt_tablelog::stream("t1", 9).unwrap();
    open_table(&a, &stream).await;
    a.handle(&stream, "start", 0, &start(7, Some(4)))
        .await
        .unwrap();
    // Every action goes to both replicas at once, as a tablet that retries
    // against another replica would: the same command id on each.
    let mut k = 0;
    loop {
        let (state, _) = a.state(&stream).await.unwrap();
        let Some(o) = state.options() else { break };
        let action = if o.to_call > 0 {
            PlayerAction::Call
        } else {
            PlayerAction::Check
        };
        let command = Command::Act {
            seat: o.seat,
            action,
        };
        let id = format!("act-{k}");
        let (ra, rb) = tokio::join!(
            a.handle(&stream, &id, 0, &command),
            b.handle(&stream, &id, 0, &command)
        );
        let (ra, rb) = (ra.unwrap(), rb.unwrap());
        // One of them appended it; both answer with the same events.
        assert_eq!(ra.events, rb.events);
        assert_eq!((ra.first, ra.last), (rb.first, rb.last));
        assert!(ra.duplicate != rb.duplicate, "exactly one appended act-{k}");
        k += 1;
        // Replica b may be stale for reads until its next command; a's view
        // drives the hand.
        let _ = b.state(&stream).await.unwrap();
    }
    assert!(k >= 3);
    let (sa, va) = a.state(&stream).await.unwrap();
    let (sb, vb) = b.state(&stream).await.unwrap();
    assert_eq!(va, vb);
    assert_eq!(sa, sb);
    let log = connect().await;
    let envelopes = log.read(&stream, 1).await.unwrap();
    assert_eq!(envelopes.len() as u64, va);
    let acts = envelopes
        .iter()
        .filter(|e| e.command_id.starts_with("act-"));
    let ids: std::collections::BTreeSet<_> = acts.map(|e| e.command_id.clone()).collect();
    assert_eq!(ids.len(), k, "every action appended, none twice");
    let events: Vec<TableEvent> = envelopes.iter().map(|e| e.decode().unwrap()).collect();
    assert_eq!(replay(&events), *sa);
}
