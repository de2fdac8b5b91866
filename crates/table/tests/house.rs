//! House switches where the rule books disagree, each a tournament
//! setting with TDA 2019 the default: given a table with the house's
//! rules, when the same play, then each rule book's outcome.

mod common;

use common::*;
use felt_table::*;

use PlayerAction::*;

fn house(edit: impl FnOnce(&mut HouseRules)) -> HouseRules {
    let mut rules = HouseRules::default();
    edit(&mut rules);
    rules
}

/// Seats 1..n with these stacks and the house's rules, the button in the
/// last seat, everyone calling the big blind preflop and the flop dealt:
/// seat 1 acts.
fn on_the_flop(stacks: &[Chips], rules: HouseRules) -> Table {
    let mut t = table_with(stacks, rules);
    let n = stacks.len() as Seat;
    t.start(level(50, 100), Some(n));
    for seat in (3..=n).chain([1]) {
        t.act(seat, Call);
    }
    t.act(2, Check);
    t.board("2c 7d 9h");
    t
}

fn min_to(t: &Table) -> Option<Chips> {
    t.state.options().and_then(|o| o.min_to)
}

/// TDA 47, example 1: on the flop A bets 100, B is all in for 125, C
/// calls, D is all in for 200, E calls: back to A.
fn rule_47_example_1(rules: HouseRules) -> Table {
    let mut t = on_the_flop(&[5000, 225, 5000, 300, 5000, 5000], rules);
    t.act(1, Bet { to: 100 });
    t.act(2, AllIn);
    t.act(3, Call);
    t.act(4, AllIn);
    t.act(5, Call);
    t.act(6, Fold);
    assert_eq!(t.to_act(), Some(1));
    t
}

#[test]
fn short_all_ins_reopen_the_betting_by_the_houses_variant() {
    // TDA 47: "um all-in de menos que um aumento completo não reabre as
    // apostas [...] múltiplos all-ins curtos que juntos somam um aumento
    // completo reabrem" (the default).
    assert_eq!(min_to(&rule_47_example_1(HouseRules::default())), Some(300));
    // Seed 004: "a aposta será apenas considerada como um call e não pode
    // ser considerada como um aumento [...] o apostador original só pode
    // seguir o aumento ou desistir".
    let never = house(|r| r.reopening = Reopening::Never);
    let t = rule_47_example_1(never);
    assert_eq!(min_to(&t), None);
    assert_eq!(
        t.refuse(1, Raise { to: 400 }),
        "seat 1 may only call or fold: the betting was not reopened by a full raise (TDA 47)"
    );
    // Seed 004: "se o valor for superior a metade do aumento mínimo, o
    // jogador que aumentou originalmente pode aumentar novamente". D's
    // all-in raises 75 over 125, more than half of 100.
    let half = house(|r| r.reopening = Reopening::HalfRaise);
    assert_eq!(min_to(&rule_47_example_1(half)), Some(300));
}

#[test]
fn under_the_half_raise_rule_one_short_all_in_of_half_a_raise_reopens() {
    // A bets 100, B is all in for 160 (a raise of 60: short of 100, more
    // than half of it), C calls: back to A.
    let play = |rules| {
        let mut t = on_the_flop(&[5000, 260, 5000, 5000], rules);
        t.act(1, Bet { to: 100 });
        t.act(2, AllIn);
        t.act(3, Call);
        t.act(4, Fold);
        assert_eq!(t.to_act(), Some(1));
        t
    };
    assert_eq!(min_to(&play(HouseRules::default())), None);
    let half = house(|r| r.reopening = Reopening::HalfRaise);
    assert_eq!(min_to(&play(half)), Some(260));
}

/// Four players, the button on seat 4: seat 3 acts first preflop.
fn preflop(rules: HouseRules) -> Table {
    let mut t = table_with(&[1000; 4], rules);
    t.start(level(50, 100), Some(4));
    t
}

fn misdeal() -> Command {
    Command::Misdeal {
        reason: "two cards exposed on the deal".into(),
        deal: Deal::Physical,
    }
}

#[test]
fn substantial_action_follows_the_houses_definition() {
    // TDA 36: "quaisquer 2 ações na vez, pelo menos uma das quais coloca
    // fichas no pote". A call then a fold is substantial.
    let mut t = preflop(HouseRules::default());
    t.act(3, Call);
    t.act(4, Fold);
    assert_eq!(
        t.refused(misdeal()),
        "a misdeal cannot be declared after substantial action: the hand goes on (TDA 35, 36)"
    );
    // Seed 002: "a combinação de duas ações envolvendo dois jogadores
    // colocando fichas no pote": a call then a fold is not; a third
    // action is.
    let series = house(|r| r.substantial_action = SubstantialAction::Series);
    let mut t = preflop(series);
    t.act(3, Call);
    t.act(4, Fold);
    t.ok(misdeal());
    t.act(3, Call);
    t.act(4, Fold);
    t.act(1, Call);
    assert!(t.refused(misdeal()).contains("substantial action"));
    let mut t = preflop(series);
    t.act(3, Call);
    t.act(4, Call);
    assert!(t.refused(misdeal()).contains("substantial action"));
}

#[test]
fn a_player_away_for_the_original_deal_plays_the_redeal_by_the_houses_rule() {
    // Given seat 3 away when the cards are dealt (TDA 30: a dead hand),
    // back before the misdeal.
    let play = |rules| {
        let mut t = table_with(&[1000; 4], rules);
        t.ok(Command::SetAbsent {
            seat: 3,
            absent: true,
        });
        t.start(level(50, 100), Some(4));
        t.ok(Command::SetAbsent {
            seat: 3,
            absent: false,
        });
        t.ok(misdeal())
    };
    let killed = |events: &[TableEvent]| {
        events
            .iter()
            .any(|e| matches!(e, TableEvent::HandKilled { seat: 3, .. }))
    };
    // TDA 35: "a redistribuição deve ser uma exata cópia [...] as cartas
    // são distribuídas aos jogadores [...] que não estavam em seus
    // assentos para a mão original e as suas mãos são mortas".
    assert!(killed(&play(HouseRules::default())));
    // Seed 002 (B): "Em relação aos jogadores que não estavam em seus
    // assentos para a mão original, estes poderão participar normalmente
    // da redistribuição da nova mão."
    let series = house(|r| r.misdeal_redeal = MisdealRedeal::AbsentPlay);
    assert!(!killed(&play(series)));
}
