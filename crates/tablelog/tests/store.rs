//! A table played through the engine, stored in the embedded log, read
//! back: the same events, the same state, each hand exportable as PHH.

use felt_cards::Seed;
use felt_eventlog::{EmbeddedLog, EventLog, Expected, verify_chain};
use felt_table::*;

fn play(state: &mut TableState, command: Command) -> Vec<TableEvent> {
    execute(state, &command).unwrap_or_else(|e| panic!("{command:?}: {e}"))
}

#[tokio::test]
async fn a_table_stored_and_loaded_folds_to_the_same_state_and_exports_its_hands() {
    let dir = tempfile::tempdir().unwrap();
    let log = EmbeddedLog::open(&dir.path().join("log.redb")).unwrap();
    let stream = felt_tablelog::stream("t1", 7).unwrap();
    let mut state = TableState::default();
    let mut commands = vec![Command::OpenTable {
        seats: 3,
        rules: HouseRules::default(),
    }];
    for seat in 1..=3 {
        commands.push(Command::SeatPlayer {
            seat,
            player: EntryId(seat.into()),
            stack: 1000,
            carried: Default::default(),
        });
    }
    let mut version = 0;
    let mut pending = Vec::new();
    for (i, c) in commands.into_iter().enumerate() {
        pending.push((play(&mut state, c), i));
    }
    // Two hands, digital deal: everyone calls, then checks to the river.
    for hand in 0..2u64 {
        let start = Command::StartHand {
            level: Level::blinds(10, 20),
            deal: Deal::Digital {
                seed: Seed::from_u64(hand),
            },
            button: (hand == 0).then_some(3),
        };
        pending.push((play(&mut state, start), 100 + hand as usize));
        let mut k = 0;
        while let Some(o) = state.options() {
            let action = if o.to_call > 0 {
                PlayerAction::Call
            } else {
                PlayerAction::Check
            };
            let act = Command::Act {
                seat: o.seat,
                action,
            };
            pending.push((play(&mut state, act), 1000 * (hand as usize + 1) + k));
            k += 1;
        }
        assert!(state.hand().is_none());
    }
    for (events, id) in &pending {
        let a = felt_tablelog::append(
            &log,
            &stream,
            Expected::Exactly(version),
            &format!("cmd-{id}"),
            1_764_500_000_000,
            events,
        )
        .await
        .unwrap();
        version = a.last;
    }
    let envelopes = log.read(&stream, 1).await.unwrap();
    assert_eq!(verify_chain(&envelopes), Ok(()));
    assert_eq!(envelopes[0].event_type, "TableOpened");
    let loaded = felt_tablelog::load(&log, &stream).await.unwrap();
    let written: Vec<TableEvent> = pending.into_iter().flat_map(|p| p.0).collect();
    assert_eq!(loaded, written);
    assert_eq!(replay(&loaded), state);
    let hands = felt_tablelog::hands(&loaded);
    assert_eq!(hands.iter().map(|h| h.number).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(check_deals(&loaded), Ok(2));
    for hand in hands {
        let phh = felt_phh::export(hand.events).unwrap();
        assert_eq!(
            felt_phh::verify(&phh, HouseRules::default()),
            felt_phh::Verdict::Passed,
            "{phh}"
        );
    }
}
