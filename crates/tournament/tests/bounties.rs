//! A bounty goes to the players who won the busted player's last chips,
//! whatever happens at their table between the hand's end and payout
//! hearing of it.

use felt_cards::Seed;
use felt_clock::{ClockSettings, Millis, Structure};
use felt_eventlog::EmbeddedLog;
use felt_payout::{MoneySettings, SimultaneousBusts};
use felt_seating::EntryId;
use felt_seating::Settings;
use felt_table::{Command, HouseRules, PlayerAction, TableEvent};
use felt_tournament::{Begin, Conductor, HandSummary, TournamentSpec};

const T0: Millis = 1_796_153_400_000;

fn spec() -> TournamentSpec {
    let mut money = MoneySettings::club();
    money.bounty = 1_000;
    TournamentSpec {
        name: "Knockout".into(),
        seating: Settings::club(),
        structure: Structure::bhpoker(),
        clock: ClockSettings::default(),
        money,
        busts: SimultaneousBusts::ByStartingStack,
        rules: HouseRules::default(),
        deal: felt_tournament::DealMode::Digital,
    }
}

/// Plays the rest of table 1's hand: the first two players to act go all
/// in, everyone else folds. The hand's events.
async fn all_in_pair(c: &Conductor<EmbeddedLog>, hand: u64, now: Millis) -> Vec<TableEvent> {
    let mut events = Vec::new();
    let mut all_in = 0;
    for k in 0.. {
        let (state, _) = c
            .tables
            .state(&felt_tablelog::stream("t", 1).unwrap())
            .await
            .unwrap();
        let Some(o) = state.options() else { break };
        let action = if all_in < 2 {
            all_in += 1;
            PlayerAction::AllIn
        } else {
            PlayerAction::Fold
        };
        let out = c
            .table(
                "t",
                1,
                &format!("h{hand}-{k}"),
                now,
                Command::Act {
                    seat: o.seat,
                    action,
                },
            )
            .await
            .unwrap();
        events.extend(out.events);
    }
    events
}

/// Given a hand at table 1 where one player busts another, when the
/// winner leaves the table (a move seating ordered, carried out as the
/// hand ended) before the hand's end reaches payout, then the bounty is
/// still paid to the winner: the winners of the highest pot the busted
/// player was in collect it, as the table named them when the hand ended.
#[test]
fn a_bounty_is_paid_to_the_winner_who_left_the_table_before_the_hand_end_was_handled() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let c = Conductor::new(std::sync::Arc::new(
            EmbeddedLog::open(&dir.path().join("log.redb")).unwrap(),
        ));
        c.create(&"t".parse().unwrap(), &spec(), T0).await.unwrap();
        for i in 1..=18 {
            c.register(
                "t",
                &format!("r{i}"),
                &format!("p{i}").parse().unwrap(),
                &format!("Player {i}"),
                T0,
            )
            .await
            .unwrap();
        }
        c.start("t", T0).await.unwrap();
        for hand in 1..=20_u64 {
            let now = T0 + hand as Millis * 60_000;
            let Begin::Started(start, _, _) = c
                .begin_hand("t", 1, now, &move |_| Seed::from_u64(hand))
                .await
                .unwrap()
            else {
                panic!("table 1 may deal hand {hand}")
            };
            let rest = all_in_pair(&c, hand, now).await;
            let events: Vec<TableEvent> = start.into_iter().chain(rest).collect();
            let busted: Vec<(u8, u64)> = events
                .iter()
                .find_map(|e| match e {
                    TableEvent::HandEnded { busted, .. } => {
                        Some(busted.iter().map(|b| (b.seat, b.player.0)).collect())
                    }
                    _ => None,
                })
                .expect("the hand ended");
            let summary = HandSummary::from_events(events.iter()).unwrap();
            let Some(&(loser_seat, loser)) = busted.first() else {
                c.hand_ended("t", 1, &summary, now).await.unwrap();
                continue;
            };
            let winner_seat = events
                .iter()
                .filter_map(|e| match e {
                    TableEvent::PotAwarded {
                        pot,
                        eligible,
                        shares,
                        ..
                    } if eligible.contains(&loser_seat) => Some((*pot, shares.clone())),
                    _ => None,
                })
                .max_by_key(|p| p.0)
                .map(|p| p.1[0].seat)
                .expect("a pot the loser was in");
            let (table, _) = c
                .tables
                .state(&felt_tablelog::stream("t", 1).unwrap())
                .await
                .unwrap();
            let winner = table.seat(winner_seat).unwrap().player;
            drop(table);
            // The winner leaves before the hand end is handled.
            c.table(
                "t",
                1,
                "winner-leaves",
                now,
                Command::RemovePlayer { seat: winner_seat },
            )
            .await
            .unwrap();
            c.hand_ended("t", 1, &summary, now).await.unwrap();
            let payout = c.payout_state("t").await.unwrap();
            assert!(payout.entries()[&EntryId(loser)].busted);
            assert_eq!(
                payout.entries()[&winner].bounties_won,
                1_000,
                "entry {winner} won entry {loser}'s chips in hand {hand}"
            );
            return;
        }
        panic!("no bust in 20 all-in hands");
    });
}
