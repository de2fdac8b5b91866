//! Colour-ups and the chip race (TDA 24, 25), as given events / when the
//! command / then events or a refusal quoting the rule.

mod common;

use common::*;
use felt_cards::Seed;
use felt_table::*;

fn entered(winners: &[Seat]) -> Command {
    Command::ColourUp {
        leaving: 25,
        smallest: 100,
        race: ChipRace::Entered {
            winners: winners.to_vec(),
        },
    }
}

fn drawn(seed: u64) -> Command {
    Command::ColourUp {
        leaving: 25,
        smallest: 100,
        race: ChipRace::Drawn {
            seed: Seed::from_u64(seed),
        },
    }
}

/// The raced stacks of a `ColouredUp`: (seat, odd, won, saved, after).
fn raced(events: &[TableEvent]) -> Vec<(Seat, Chips, bool, bool, Chips)> {
    let [TableEvent::ColouredUp { raced, .. }] = events else {
        panic!("{events:?}")
    };
    raced
        .iter()
        .map(|r| (r.seat, r.odd, r.won, r.saved, r.after))
        .collect()
}

#[test]
fn the_dealer_enters_the_race_and_each_odd_stack_is_rounded_by_it() {
    // Seed 000 rule 24: "Nos color-ups programados, haverá o chip-race a
    // partir do assento 1, com um máximo de uma única ficha dada a um
    // jogador."
    // Given four stacks when the 25 chip leaves and 100 is the smallest:
    // seat 1 puts up 75, seat 2 50, seat 3 none, seat 4 25 (150 in all:
    // two chips of 100, rounded half up)
    let mut t = table(&[1075, 2050, 3000, 925]);
    // When the dealer enters seats 2 and 4 as the race's winners
    let events = t.ok(entered(&[4, 2]));
    // Then seat 1 loses its odd chips, seats 2 and 4 get one chip each,
    // seat 3 does not race
    assert_eq!(
        raced(&events),
        [
            (1, 75, false, false, 1000),
            (2, 50, true, false, 2100),
            (4, 25, true, false, 1000)
        ]
    );
    assert_eq!(
        (t.stack(1), t.stack(2), t.stack(3), t.stack(4)),
        (1000, 2100, 3000, 1000)
    );
    assert_eq!(t.state.smallest_chip(), 100);
}

#[test]
fn a_race_names_as_many_winners_as_chips_it_gives_and_only_racers() {
    // Seed 000 rule 24 (as above): one chip per winner, at most one each.
    let t = table(&[1075, 2050, 3000, 925]);
    // 150 put up: two chips
    let one = t.refused(entered(&[2]));
    assert!(
        one.contains("gives 2 chips of 100") && one.contains("TDA 24"),
        "{one}"
    );
    // seat 3 put nothing up
    let not = t.refused(entered(&[2, 3]));
    assert!(not.contains("seat 3 put no chips up"), "{not}");
    // one chip each
    let twice = t.refused(entered(&[2, 2]));
    assert!(twice.contains("seat 2 is named twice"), "{twice}");
}

#[test]
fn nobody_is_out_by_the_race() {
    // Seed 000 rule 24: "Os jogadores não podem ser eliminados de um
    // evento: um jogador que perder a ficha restante em um chip race
    // receberá uma ficha da mais baixa denominação ainda em jogo."
    // Given seat 3 holds one 25 chip and nothing else (175 put up: two
    // chips)
    let mut t = table(&[1075, 1075, 25]);
    // When seats 1 and 2 win the race
    let events = t.ok(entered(&[1, 2]));
    // Then seat 3 keeps one chip of 100
    assert_eq!(raced(&events)[2], (3, 25, false, true, 100));
    assert_eq!(t.stack(3), 100);
}

#[test]
fn the_engine_draws_the_race_from_its_seed_one_card_per_odd_chip_from_seat_1() {
    // Seed 000 rule 24 (as above). Given a digital table with odd chips
    let mut t = table(&[1075, 2050, 3000, 925, 1025]);
    // When the engine runs the race from a seed
    let events = t.ok(drawn(7));
    let TableEvent::ColouredUp { seed, raced, .. } = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(*seed, Some(Seed::from_u64(7)));
    // Then each racer got one card per odd 25 chip (3, 2, 1, 1)
    let dealt: Vec<(Seat, usize)> = raced.iter().map(|r| (r.seat, r.cards.len())).collect();
    assert_eq!(dealt, [(1, 3), (2, 2), (4, 1), (5, 1)]);
    // and the highest cards won: 175 put up gives two chips
    let best = |r: &Raced| r.cards.iter().map(|c| (c.rank(), c.suit())).max().unwrap();
    let mut by_card: Vec<&Raced> = raced.iter().collect();
    by_card.sort_by_key(|r| std::cmp::Reverse(best(r)));
    let winners: Vec<Seat> = by_card[..2].iter().map(|r| r.seat).collect();
    for r in raced {
        assert_eq!(r.won, winners.contains(&r.seat), "seat {}", r.seat);
    }
    // The same seed gives the same race (the audit draws it again)
    let again = table(&[1075, 2050, 3000, 925, 1025]);
    assert_eq!(decide(&again.state, &drawn(7)).unwrap(), events);
}

#[test]
fn a_colour_up_waits_for_the_hand_and_needs_odd_chips_and_a_chip_that_divides() {
    // Seed 000 rule 24: the race is run between hands.
    let mut t = table(&[1075, 2050, 3000]);
    t.start(level(25, 50), Some(1));
    let during = t.refused(entered(&[1]));
    assert!(during.contains("hand 1 is still in progress"), "{during}");
    // Seed 000 rule 24: "As fichas de denominação removidas que não
    // completem o total de, pelo menos, o menor valor ainda em jogo"
    let even = table(&[1000, 2000]);
    let nothing = even.refused(entered(&[]));
    assert!(nothing.contains("nothing to race"), "{nothing}");
    let odd = table(&[1075, 2050]);
    let chips = odd.refused(Command::ColourUp {
        leaving: 25,
        smallest: 60,
        race: ChipRace::Entered { winners: vec![] },
    });
    assert!(
        chips.contains("not 25 for 60") && chips.contains("TDA 24"),
        "{chips}"
    );
}

#[test]
fn a_hand_after_a_colour_up_of_its_smallest_chip_waits_for_the_race() {
    // Seed 000 rule 24: the next hand is dealt with the raced stacks.
    // Given a hand played with the 25 chip
    let mut t = table(&[1075, 2050, 3000]);
    let mut first = level(25, 50);
    first.smallest_chip = 25;
    t.start(first, Some(1));
    t.act(1, PlayerAction::Fold);
    t.act(2, PlayerAction::Fold);
    assert_eq!(t.state.smallest_chip(), 25);
    // When the next level's smallest chip is 100, the race is due (the
    // 25 chip leaves)
    let mut next = level(100, 200);
    next.smallest_chip = 100;
    assert_eq!(t.state.colour_up_due(&next), Some(25));
    assert_eq!(t.state.colour_up_due(&first), None);
    // and once run, it is not
    t.ok(drawn(3));
    assert_eq!(t.state.colour_up_due(&next), None);
}
