//! Declarations and out-of-turn action, completed (seed 000, TDA 46, 53,
//! 55), as given events / when command / then events or rejection.

mod common;

use common::*;
use felt_table::*;

use PlayerAction::*;

/// Given: three players see a flop for 100 each (button 3; seat 1 first
/// to act after the flop).
fn on_the_flop() -> Table {
    let mut t = table(&[1000, 1000, 1000]);
    t.start(level(50, 100), Some(3));
    t.act(3, Call);
    t.act(1, Call);
    t.act(2, Check);
    t.board("2c 7d 9h");
    t
}

fn bound(events: &[TableEvent]) -> Option<(Seat, Bound, String)> {
    events.iter().find_map(|e| match e {
        TableEvent::ActionBound { seat, bound, rule } => Some((*seat, *bound, rule.clone())),
        _ => None,
    })
}

#[test]
fn an_out_of_turn_call_with_nothing_to_call_binds_as_a_check() {
    // TDA 55: "Se um jogador não enfrenta uma aposta e declara
    // \"paguei/call\", será considerado um check"; TDA 53: the action out of
    // turn binds if the action does not change.
    let mut t = on_the_flop();
    let events = t.ok(Command::ActOutOfTurn {
        seat: 2,
        action: Call,
    });
    assert_eq!(
        events,
        [TableEvent::OutOfTurnAction {
            seat: 2,
            action: Check,
            facing: 0
        }]
    );
    let events = t.act(1, Check);
    assert!(events.contains(&TableEvent::ActionTaken {
        seat: 2,
        action: ActionTaken::Check,
        all_in: false
    }));
    assert_eq!(t.to_act(), Some(3));

    // The action changed (a bet) before it reached seat 2: the check is void
    // and seat 2 has every option.
    let mut t = on_the_flop();
    t.ok(Command::ActOutOfTurn {
        seat: 2,
        action: Call,
    });
    let events = t.act(1, Bet { to: 200 });
    assert!(
        events
            .iter()
            .any(|e| matches!(e, TableEvent::OutOfTurnVoided { seat: 2, .. }))
    );
    assert_eq!(t.to_act(), Some(2));
}

#[test]
fn check_declared_facing_a_bet_binds_the_player_to_call_or_fold() {
    // TDA 55: "Um jogador declarando \"mesa/check\", quando enfrentar uma
    // aposta poderá pagar ou desistir, mas não poderá aumentar."
    let mut t = on_the_flop();
    t.act(1, Bet { to: 200 });
    let events = t.ok(Command::PushChips {
        seat: 2,
        chips: vec![],
        declaration: Some(Declaration::Check),
        in_front: None,
    });
    assert_eq!(
        bound(&events),
        Some((
            2,
            Bound::CallOrFold,
            "\"check\" facing a bet: the player may call or fold, not raise (TDA 55)".into()
        ))
    );
    assert_eq!(t.to_act(), Some(2), "the player still has to act");
    let refused = "seat 2 declared \"check\" facing a bet: it may call or fold, not raise (TDA 55)";
    assert_eq!(t.refuse(2, Raise { to: 600 }), refused);
    assert_eq!(t.refuse(2, AllIn), refused);
    assert_eq!(t.silently(&[500, 100]), Call, "chips now can only call");
    assert_eq!(t.to_act(), Some(3));

    // "Check" and chips at once, facing a bet: a call, never a raise.
    let mut t = on_the_flop();
    t.act(1, Bet { to: 200 });
    let read = t.push(2, &[500], Some(Declaration::Check), None);
    assert_eq!(read, Call);
    assert_eq!(t.street_bet(2), 200);

    // With no bet to face, "check" is a check.
    let mut t = on_the_flop();
    assert_eq!(t.push(1, &[], Some(Declaration::Check), None), Check);
    assert_eq!(t.to_act(), Some(2));
}

#[test]
fn chips_of_an_earlier_bet_pulled_back_facing_a_raise_bind_the_player_to_call_or_raise() {
    // TDA 46: "Enquanto enfrentando um aumento, claramente recolher fichas
    // antes de apostar, compromete o jogador com um pagamento ou um aumento,
    // ele não poderá retornar as fichas e desistir da mão."
    let mut t = table(&[1000, 1000, 1000]);
    t.start(level(50, 100), Some(3));
    t.act(3, Raise { to: 600 });
    t.act(1, Fold);
    // The big blind pulls its 100 back without a word.
    let events = t.ok(Command::PushChips {
        seat: 2,
        chips: vec![],
        declaration: None,
        in_front: Some(vec![]),
    });
    assert_eq!(
        bound(&events),
        Some((
            2,
            Bound::CallOrRaise,
            "the chips of an earlier bet pulled back facing a raise: a call or a raise, not a fold (TDA 46)"
                .into()
        ))
    );
    assert_eq!(
        t.refuse(2, Fold),
        "seat 2 pulled back the chips of its earlier bet facing a raise: it must call or raise, not fold (TDA 46)"
    );
    // Out of time, the player bound not to fold calls.
    let events = t.ok(Command::TimeOut { seat: 2 });
    assert!(events.contains(&TableEvent::ActionTaken {
        seat: 2,
        action: ActionTaken::Call { amount: 500 },
        all_in: false
    }));
    assert_eq!(t.hand().phase, Phase::AwaitingBoard);

    // Nothing pulled back and nothing put out is still no action.
    let mut t = table(&[1000, 1000, 1000]);
    t.start(level(50, 100), Some(3));
    t.act(3, Raise { to: 600 });
    t.act(1, Fold);
    assert_eq!(
        t.refused(Command::PushChips {
            seat: 2,
            chips: vec![],
            declaration: None,
            in_front: None,
        }),
        "seat 2 put out no chips and declared nothing"
    );
}
