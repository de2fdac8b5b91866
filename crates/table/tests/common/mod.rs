//! The given/when/then helpers the rule tests share.
#![allow(dead_code)]

use felt_cards::Card;
use felt_table::*;

pub(crate) type Award = (usize, Chips, Vec<(Seat, Chips)>);

pub(crate) struct Table {
    pub(crate) state: TableState,
    pub(crate) log: Vec<TableEvent>,
}

pub(crate) fn level(sb: Chips, bb: Chips) -> Level {
    Level::blinds(sb, bb)
}

/// Given: a table with these stacks in seats 1..n.
pub(crate) fn table(stacks: &[Chips]) -> Table {
    table_with(stacks, HouseRules::default())
}

pub(crate) fn table_with(stacks: &[Chips], rules: HouseRules) -> Table {
    let mut t = Table {
        state: TableState::default(),
        log: Vec::new(),
    };
    t.ok(Command::OpenTable {
        seats: stacks.len() as u8,
        rules,
    });
    for (i, &stack) in stacks.iter().enumerate() {
        t.ok(Command::SeatPlayer {
            seat: i as Seat + 1,
            player: EntryId(100 + i as u64),
            stack,
            carried: Default::default(),
        });
    }
    t
}

pub(crate) fn cards(s: &str) -> Vec<Card> {
    Card::parse_many(s).unwrap()
}

pub(crate) fn two(s: &str) -> [Card; 2] {
    let c = cards(s);
    [c[0], c[1]]
}

impl Table {
    /// When: a command that must be accepted; its events are applied.
    pub(crate) fn ok(&mut self, command: Command) -> Vec<TableEvent> {
        let events = decide(&self.state, &command)
            .unwrap_or_else(|e| panic!("{command:?} was refused: {e}"));
        for e in &events {
            self.state = evolve(self.state.clone(), e);
        }
        self.log.extend(events.iter().cloned());
        events
    }

    /// When: a command that must be refused; then nothing changes.
    pub(crate) fn refused(&self, command: Command) -> String {
        let before = self.state.clone();
        let err = decide(&self.state, &command).expect_err("the command should be refused");
        assert_eq!(self.state, before);
        err.to_string()
    }

    pub(crate) fn start(&mut self, level: Level, button: Option<Seat>) -> Vec<TableEvent> {
        self.ok(Command::StartHand {
            level,
            deal: Deal::Physical,
            button,
        })
    }

    pub(crate) fn act(&mut self, seat: Seat, action: PlayerAction) -> Vec<TableEvent> {
        self.ok(Command::Act { seat, action })
    }

    pub(crate) fn refuse(&self, seat: Seat, action: PlayerAction) -> String {
        self.refused(Command::Act { seat, action })
    }

    /// When: chips put out (TDA 40–46); then: how they were read.
    pub(crate) fn push(
        &mut self,
        seat: Seat,
        chips: &[Chips],
        declaration: Option<Declaration>,
        in_front: Option<&[Chips]>,
    ) -> PlayerAction {
        let events = self.ok(Command::PushChips {
            seat,
            chips: chips.to_vec(),
            declaration,
            in_front: in_front.map(<[Chips]>::to_vec),
        });
        events
            .iter()
            .find_map(|e| match e {
                TableEvent::ChipsRead { read_as, .. } => Some(*read_as),
                _ => None,
            })
            .expect("a ChipsRead event")
    }

    /// When: chips put out silently by the player to act; then the reading.
    pub(crate) fn silently(&mut self, chips: &[Chips]) -> PlayerAction {
        let seat = self.to_act().expect("a player to act");
        self.push(seat, chips, None, None)
    }

    /// The chips the seat has put in on this street.
    pub(crate) fn street_bet(&self, seat: Seat) -> Chips {
        self.hand().player(seat).map_or(0, |p| p.street)
    }

    pub(crate) fn hand(&self) -> &HandState {
        self.state.hand().expect("a hand in progress")
    }

    pub(crate) fn to_act(&self) -> Option<Seat> {
        self.state.hand().and_then(|h| h.to_act)
    }

    pub(crate) fn stack(&self, seat: Seat) -> Chips {
        self.state.seat(seat).map_or(0, |s| s.stack)
    }

    pub(crate) fn board(&mut self, s: &str) {
        self.ok(Command::DealBoard { cards: cards(s) });
    }

    pub(crate) fn show(&mut self, seat: Seat, s: &str) -> Vec<TableEvent> {
        self.ok(Command::Show {
            seat,
            cards: Some(two(s)),
        })
    }

    /// Each pot awarded: its number, amount and (seat, share) pairs.
    pub(crate) fn awards(&self) -> Vec<Award> {
        self.log
            .iter()
            .filter_map(|e| match e {
                TableEvent::PotAwarded {
                    pot,
                    amount,
                    shares,
                    ..
                } => Some((
                    *pot,
                    *amount,
                    shares.iter().map(|s| (s.seat, s.amount)).collect(),
                )),
                _ => None,
            })
            .collect()
    }
}
