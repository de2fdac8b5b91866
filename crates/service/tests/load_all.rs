//! A handler loads a tournament's aggregates of a kind in one pass over the
//! log, on both backends; on NATS it does so by itself at the first one
//! asked for, since reading streams one by one there costs the log's
//! length each.

use std::sync::Arc;

use felt_eventlog::{EmbeddedLog, EventLog, NatsLog, NatsSettings, StreamId};
use felt_service::Handler;
use felt_testkit::NatsServer;

mod common;
use common::{Chips, Move};

fn boxed(tournament: &str, id: u32) -> StreamId {
    StreamId::new(tournament, "box", &id.to_string()).unwrap()
}

/// Given a writer put `10 * id + k` chips in boxes 1..=5 of "t1" in
/// rounds k = 1..=3 (and as many in "t2"'s boxes and some in "t1"'s jar),
/// when a second handler that has box 1 in memory loads "t1"'s boxes,
/// then it has all five at the writer's states and versions, and goes on
/// appending from them.
async fn loads_a_tournaments_boxes<L: EventLog + 'static>(writer: Arc<L>, reader: Arc<L>) {
    let a: Handler<Chips, L> = Handler::new(writer);
    for round in 1..=3u64 {
        for id in 1..=5 {
            let put = Move::Put(10 * id as u64 + round);
            a.handle(&boxed("t1", id), &format!("t1-{id}-{round}"), 1, &put)
                .await
                .unwrap();
            a.handle(&boxed("t2", id), &format!("t2-{id}-{round}"), 1, &put)
                .await
                .unwrap();
        }
        let other = StreamId::new("t1", "jar", "1").unwrap();
        a.handle(&other, &format!("jar-{round}"), 1, &Move::Put(1))
            .await
            .unwrap();
    }
    let b: Handler<Chips, L> = Handler::new(reader);
    // One aggregate already in memory is left as it is.
    let (state, version) = b.cached_state(&boxed("t1", 1)).await.unwrap();
    assert_eq!((*state, version), (36, 3));
    // (On NATS, asking for it loaded the others already.)
    let loaded = b.load_all("t1", "box").await.unwrap();
    assert_eq!(loaded, if L::BULK_LOADS { 0 } else { 4 });
    for id in 1..=5u32 {
        let (state, version) = b.cached_state(&boxed("t1", id)).await.unwrap();
        assert_eq!((*state, version), (30 * id as u64 + 6, 3), "box {id}");
        // And the next command appends at the version after.
        let out = b
            .handle(
                &boxed("t1", id),
                &format!("take-{id}"),
                2,
                &Move::Take(id as u64),
            )
            .await
            .unwrap();
        assert_eq!(
            (*out.state, out.version),
            (29 * id as u64 + 6, 4),
            "box {id}"
        );
    }
    // A retried command is recognised from what was loaded.
    let again = b
        .handle(&boxed("t1", 2), "t1-2-1", 3, &Move::Put(999))
        .await
        .unwrap();
    assert!(again.duplicate);
    assert_eq!(again.version, 4);
}

#[tokio::test]
async fn a_handler_loads_a_tournaments_aggregates_in_one_pass_on_the_embedded_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(EmbeddedLog::open(&dir.path().join("log.redb")).unwrap());
    loads_a_tournaments_boxes(log.clone(), log).await;
}

async fn connect(server: &NatsServer) -> Arc<NatsLog> {
    Arc::new(
        NatsLog::connect(&server.url(), &NatsSettings::default())
            .await
            .unwrap(),
    )
}

#[tokio::test]
async fn a_handler_loads_a_tournaments_aggregates_in_one_pass_on_nats() {
    let server = NatsServer::start().unwrap();
    loads_a_tournaments_boxes(connect(&server).await, connect(&server).await).await;
}

/// On NATS the first aggregate asked for loads its tournament's others:
/// a box another writer changes after that is shown as it was loaded
/// until a read catches up with the log.
#[tokio::test]
async fn on_nats_the_first_aggregate_asked_for_loads_its_tournaments_others() {
    let server = NatsServer::start().unwrap();
    let a: Handler<Chips, NatsLog> = Handler::new(connect(&server).await);
    for id in 1..=3 {
        a.handle(
            &boxed("t1", id),
            &format!("put-{id}"),
            1,
            &Move::Put(id as u64),
        )
        .await
        .unwrap();
    }
    let b: Handler<Chips, NatsLog> = Handler::new(connect(&server).await);
    // Given B has taken one chip from box 1 (its first aggregate),
    let out = b
        .handle(&boxed("t1", 1), "take-1", 2, &Move::Take(1))
        .await
        .unwrap();
    assert_eq!((*out.state, out.version), (0, 2));
    // when A then puts 5 more in box 3,
    a.handle(&boxed("t1", 3), "more-3", 3, &Move::Put(5))
        .await
        .unwrap();
    // then B shows box 3 as loaded with box 1, before A's chips,
    let (state, version) = b.cached_state(&boxed("t1", 3)).await.unwrap();
    assert_eq!((*state, version), (3, 1));
    // and a read caught up with the log shows them.
    let (state, version) = b.state(&boxed("t1", 3)).await.unwrap();
    assert_eq!((*state, version), (8, 2));
    // A box created after the load is read when first asked for.
    a.handle(&boxed("t1", 4), "put-4", 4, &Move::Put(4))
        .await
        .unwrap();
    let (state, version) = b.cached_state(&boxed("t1", 4)).await.unwrap();
    assert_eq!((*state, version), (4, 1));
    // A command refused on B's stale view of box 2 is decided again on
    // the log's: A put 5 more chips in after B loaded it.
    a.handle(&boxed("t1", 2), "more-2", 5, &Move::Put(5))
        .await
        .unwrap();
    let out = b
        .handle(&boxed("t1", 2), "take-6", 6, &Move::Take(6))
        .await
        .unwrap();
    assert_eq!((*out.state, out.version), (1, 3));
}
