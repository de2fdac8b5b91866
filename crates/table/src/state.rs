//! The table's state and `evolve`, the fold over its events.

use felt_cards::{Card, Deck};

use crate::model::*;

/// A player in a seat. `stack` is the chips behind: chips put into the pot
/// during a hand have left it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeatState {
    pub player: EntryId,
    pub stack: Chips,
    pub absent: bool,
    /// Hands left to miss under a penalty (TDA 71).
    pub penalty_hands: u32,
    /// Offences the player was penalised for (warnings included), here
    /// and at the tables they came from: the house scale's count.
    pub offences: u32,
    /// Seated since the table's last hand and not yet dealt in: waits while
    /// between the button and the small blind (TDA 8, 10).
    pub new: bool,
}

/// A pot: its chips and the seats that can win it.
pub type Pot = (Chips, Vec<Seat>);

/// A seat's part in the current hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InHand {
    pub starting_stack: Chips,
    /// Put in on this street (blinds included, antes not).
    pub street: Chips,
    /// Put in during the whole hand (antes included).
    pub total: Chips,
    /// Of `total`, the ante: dead money in the main pot.
    pub ante: Chips,
    pub folded: bool,
    pub all_in: bool,
    /// Has acted since the last full bet or raise.
    pub acted: bool,
    /// The street's bet when this player last acted: short all-ins that
    /// together reach a full raise reopen the betting for them (TDA 47).
    pub bet_when_acted: Chips,
    pub hole: Option<[Card; 2]>,
    pub shown: bool,
    /// Killed by the floor or the deal (absent, penalty): a re-deal after a
    /// misdeal kills it again (TDA 35).
    pub dead: bool,
    /// Dealt while the player serves a penalty: the hand counts towards it.
    pub penalized: bool,
    /// Away from the seat when the hand was dealt (TDA 30).
    pub away: bool,
    /// What the player's words or gestures bound their next action to
    /// (TDA 46, 55), until they act.
    pub bound: Option<Bound>,
}

/// Where a hand is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Cards are not out yet (blinds being posted).
    Dealing,
    Betting,
    /// Betting on the street is over; the next street's cards are due.
    AwaitingBoard,
    /// All betting is over and the board is complete: hands are tabled.
    Showdown,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandState {
    pub number: u64,
    pub level: Level,
    pub button: Seat,
    pub small_blind: Option<Seat>,
    pub big_blind: Seat,
    pub deal: Deal,
    pub deck: Option<Deck>,
    pub street: Street,
    pub board: Vec<Card>,
    pub players: [Option<InHand>; MAX_SEATS],
    /// The street's highest bet to call.
    pub current_bet: Chips,
    /// The size of the largest full bet or raise of the street (TDA 43).
    pub min_raise: Chips,
    pub to_act: Option<Seat>,
    /// The last player to bet or raise on the current street.
    pub aggressor: Option<Seat>,
    pub phase: Phase,
    /// Chips already awarded from the pots.
    pub awarded: Chips,
    /// The pots already awarded, by number (0: the main pot).
    pub pots_awarded: Vec<usize>,
    /// The first bet of the street (preflop, the big blind): an undercall
    /// facing it is a call (TDA 51).
    pub opening_bet: Chips,
    /// Actions in turn, and those that put chips in: substantial action
    /// (TDA 36) ends the time a misdeal can be called.
    pub actions: u32,
    pub chip_actions: u32,
    /// Actions taken out of turn, waiting for the action to reach them (TDA 53).
    pub out_of_turn: Vec<(Seat, PlayerAction, Chips)>,
    /// The table's house rules for substantial action and reopening, as
    /// the hand was dealt.
    pub substantial_rule: SubstantialAction,
    pub reopening: Reopening,
    /// The table's blind positions before this hand, restored by a misdeal.
    pub(crate) previous_blinds: (Option<Seat>, Option<Seat>),
}

/// What the player to act may do, as the dealer's screen shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub seat: Seat,
    pub to_call: Chips,
    /// The chips behind.
    pub stack: Chips,
    /// The smallest and largest total the player may bet or raise to on
    /// this street (TDA 43, no cap in no-limit); `None` when betting is not
    /// open to them (TDA 47) or they can only call all-in.
    pub min_to: Option<Chips>,
    pub max_to: Option<Chips>,
}

/// A table: its seats and, between `HandStarted` and `HandEnded`, a hand.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableState {
    /// Number of seats; 0 until the table is opened.
    pub(crate) size: u8,
    pub(crate) rules: HouseRules,
    pub(crate) seats: [Option<SeatState>; MAX_SEATS],
    pub(crate) hands_started: u64,
    /// Position of the last hand's big blind and small blind (which may have
    /// been dead): the dead-button rule moves both forward (TDA 32).
    pub(crate) last_big_blind: Option<Seat>,
    pub(crate) last_small_blind_position: Option<Seat>,
    pub(crate) hand: Option<HandState>,
    pub(crate) recording: Recording,
    /// When the last result entered with a time happened.
    pub(crate) last_result_at: Option<i64>,
    /// Results were recorded since the stacks were last counted: the
    /// stacks are the table's estimate until the next count.
    pub(crate) uncounted: bool,
    /// The first button, drawn by high card before the first hand.
    pub(crate) drawn_button: Option<Seat>,
    /// The smallest chip in play as the table last played or raced: the
    /// last hand's level's, or the last colour-up's (0 before either).
    pub(crate) smallest_chip: Chips,
    /// The seats the last hand (or the results since) busted, with their
    /// players: a busted player's rebuy seats them again before the next
    /// hand.
    pub(crate) last_busted: Vec<(Seat, EntryId)>,
}

pub(crate) fn idx(seat: Seat) -> usize {
    usize::from(seat.wrapping_sub(1))
}

impl TableState {
    /// Number of seats; 0 until the table is opened.
    pub fn size(&self) -> u8 {
        self.size
    }

    pub fn rules(&self) -> &HouseRules {
        &self.rules
    }

    /// Every seat, seat 1 first (only the first [`TableState::size`] exist).
    pub fn seats(&self) -> &[Option<SeatState>] {
        &self.seats[..usize::from(self.size).min(MAX_SEATS)]
    }

    /// Hands started at this table so far.
    pub fn hands_started(&self) -> u64 {
        self.hands_started
    }

    /// Position of the last hand's big blind (which may have been dead).
    pub fn last_big_blind(&self) -> Option<Seat> {
        self.last_big_blind
    }

    /// Position of the last hand's small blind (which may have been dead).
    pub fn last_small_blind_position(&self) -> Option<Seat> {
        self.last_small_blind_position
    }

    /// What the table records of its hands.
    pub fn recording(&self) -> Recording {
        self.recording
    }

    /// Whether results were recorded since the stacks were last counted
    /// (the stacks are then an estimate: the busted players' chips went
    /// to their winners, the other hands played are not known).
    pub fn uncounted(&self) -> bool {
        self.uncounted
    }

    /// The smallest chip in play as the table last played or raced: the
    /// last hand's level's, or the last colour-up's (0 before either).
    pub fn smallest_chip(&self) -> Chips {
        self.smallest_chip
    }

    /// The chip race a hand at `level` waits for: the table last played
    /// (or raced) with a smaller chip than the level's, and a stack still
    /// holds chips under the level's (TDA 24). The chip leaving play.
    pub fn colour_up_due(&self, level: &Level) -> Option<Chips> {
        let last = self.smallest_chip;
        (last > 0
            && level.smallest_chip > last
            && self
                .seats()
                .iter()
                .flatten()
                .any(|s| s.stack > 0 && !s.stack.is_multiple_of(level.smallest_chip)))
        .then_some(last)
    }

    /// The hand being played, between `HandStarted` and `HandEnded`.
    pub fn hand(&self) -> Option<&HandState> {
        self.hand.as_ref()
    }

    pub fn seat(&self, seat: Seat) -> Option<&SeatState> {
        self.seats.get(idx(seat)).and_then(|s| s.as_ref())
    }

    /// Seats after `from` in clockwise order, wrapping, `from` itself last.
    pub fn seats_after(&self, from: Seat) -> impl Iterator<Item = Seat> + use<> {
        let size = self.size.max(1);
        (1..=size).map(move |k| (from.wrapping_sub(1).wrapping_add(k) % size) + 1)
    }

    /// The choices of the player to act, if a player is to act.
    pub fn options(&self) -> Option<Options> {
        let h = self.hand.as_ref()?;
        let seat = h.to_act?;
        let p = h.player(seat)?;
        let stack = self.seat(seat).map_or(0, |s| s.stack);
        let to_call = h.current_bet.saturating_sub(p.street);
        let all_in_to = p.street + stack;
        let open = if h.current_bet == 0 {
            Some(h.level.big_blind.min(all_in_to))
        } else if all_in_to > h.current_bet && h.reopened_for(p) {
            Some((h.current_bet + h.min_raise).min(all_in_to))
        } else {
            None
        };
        Some(Options {
            seat,
            to_call: to_call.min(stack),
            stack,
            min_to: open,
            max_to: open.map(|_| all_in_to),
        })
    }

    /// The seat due to table its hand at a showdown without an all-in
    /// (TDA 17): the last aggressor on the river first, else the first live
    /// seat left of the button, then each live hand in turn that is neither
    /// tabled nor mucked. `None` outside the showdown, or when every live
    /// hand must be tabled at once (an all-in, TDA 16).
    pub fn to_show(&self) -> Option<Seat> {
        let h = self.hand.as_ref()?;
        if h.phase != Phase::Showdown || h.all_in_showdown() {
            return None;
        }
        self.showdown_order()
            .into_iter()
            .find(|&s| h.player(s).is_some_and(|p| !p.shown))
    }

    /// The live seats in the order they table their hands (TDA 17).
    pub(crate) fn showdown_order(&self) -> Vec<Seat> {
        let Some(h) = self.hand.as_ref() else {
            return Vec::new();
        };
        let live = |s: Seat| h.player(s).is_some_and(|p| !p.folded);
        let first = h
            .aggressor
            .filter(|&a| live(a))
            .unwrap_or(h.button % self.size.max(1) + 1);
        std::iter::once(first)
            .chain(self.seats_after(first))
            .take(usize::from(self.size))
            .filter(|&s| live(s))
            .collect()
    }

    /// Total chips on the table: stacks behind plus everything in the pot.
    pub fn chips_in_play(&self) -> Chips {
        let behind: Chips = self.seats.iter().flatten().map(|s| s.stack).sum();
        let pot = self.hand.as_ref().map_or(0, |h| h.pot());
        behind + pot
    }
}

impl HandState {
    pub fn player(&self, seat: Seat) -> Option<&InHand> {
        self.players.get(idx(seat)).and_then(|p| p.as_ref())
    }

    pub(crate) fn player_mut(&mut self, seat: Seat) -> Option<&mut InHand> {
        self.players.get_mut(idx(seat)).and_then(|p| p.as_mut())
    }

    /// The chips in the middle: everything put in, less what was awarded.
    pub fn pot(&self) -> Chips {
        let put_in: Chips = self.players.iter().flatten().map(|p| p.total).sum();
        put_in - self.awarded
    }

    /// What each seat has put in towards the pots' levels (live or not),
    /// and the dead money that goes to the main pot: the big blind's ante
    /// is dead (RP11); antes every player posts count in the levels.
    pub(crate) fn contributions(&self) -> (Vec<(Seat, Chips, bool)>, Chips) {
        let dead = |p: &InHand| match self.level.ante_format {
            AnteFormat::BigBlind => p.ante,
            AnteFormat::None | AnteFormat::PerPlayer => 0,
        };
        let bets = self
            .players
            .iter()
            .enumerate()
            .filter_map(|(i, p)| {
                p.as_ref()
                    .map(|p| (i as Seat + 1, p.total - dead(p), !p.folded))
            })
            .collect();
        (bets, self.players.iter().flatten().map(dead).sum())
    }

    /// The pots as they stand, the main pot first, each with the seats that
    /// can win it (TDA 21): a side pot starts at each all-in player's level;
    /// above the last, everything in play, open to every live player who is
    /// not all in below it. Bets of the street count in full.
    pub fn pots(&self) -> Vec<(Chips, Vec<Seat>)> {
        let (bets, dead) = self.contributions();
        let all_in = |seat: Seat| self.player(seat).is_some_and(|p| p.all_in);
        let mut levels: Vec<Chips> = bets
            .iter()
            .filter(|b| b.2 && all_in(b.0))
            .map(|b| b.1)
            .collect();
        levels.sort_unstable();
        levels.dedup();
        let mut pots = Vec::new();
        let mut prev = 0;
        for &level in &levels {
            let amount: Chips = bets.iter().map(|b| b.1.min(level) - b.1.min(prev)).sum();
            let eligible = bets
                .iter()
                .filter(|b| b.2 && b.1 >= level)
                .map(|b| b.0)
                .collect();
            pots.push((amount, eligible));
            prev = level;
        }
        let rest: Chips = bets.iter().map(|b| b.1 - b.1.min(prev)).sum();
        let open: Vec<Seat> = bets
            .iter()
            .filter(|b| b.2 && !(all_in(b.0) && b.1 <= prev))
            .map(|b| b.0)
            .collect();
        if rest > 0 || pots.is_empty() {
            pots.push((rest, open));
        }
        if let Some(main) = pots.first_mut() {
            main.0 += dead;
        }
        pots
    }

    /// The pots once betting is over: the uncalled part of the biggest bet,
    /// which goes back first, and the pots built without it, the main pot
    /// first, each with the seats that can win it: the pots a showdown
    /// awards, numbered as `PushPot` and `AwardPot` name them.
    pub fn settled_pots(&self) -> (Option<(Seat, Chips)>, Vec<Pot>) {
        let (mut bets, antes) = self.contributions();
        let mut sorted: Vec<Chips> = bets.iter().map(|c| c.1).collect();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let (top, second) = (
            sorted.first().copied().unwrap_or(0),
            sorted.get(1).copied().unwrap_or(0),
        );
        let mut uncalled = None;
        if top > second
            && let Some(c) = bets.iter_mut().find(|c| c.1 == top && c.2)
        {
            uncalled = Some((c.0, top - second));
            c.1 = second;
        }
        (uncalled, crate::decide::build_pots(&bets, antes))
    }

    /// Seats still holding cards.
    pub fn live(&self) -> impl Iterator<Item = (Seat, &InHand)> {
        self.players
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.as_ref().map(|p| (i as Seat + 1, p)))
            .filter(|(_, p)| !p.folded)
    }

    /// Seats that can still bet: live and not all-in.
    pub fn can_act_count(&self) -> usize {
        self.live().filter(|(_, p)| !p.all_in).count()
    }

    pub fn to_call(&self, seat: Seat) -> Chips {
        self.player(seat)
            .map_or(0, |p| self.current_bet.saturating_sub(p.street))
    }

    fn needs_action(&self, p: &InHand, can_act: usize) -> bool {
        !p.folded && !p.all_in && (p.street < self.current_bet || (!p.acted && can_act >= 2))
    }

    /// The next seat after `from` that must act, if any.
    pub(crate) fn next_to_act(&self, from: Seat, size: u8) -> Option<Seat> {
        let can_act = self.can_act_count();
        (1..=size)
            .map(|k| (from.wrapping_sub(1).wrapping_add(k) % size) + 1)
            .find(|&s| {
                self.player(s)
                    .is_some_and(|p| self.needs_action(p, can_act))
            })
    }

    /// Passes the action to the next seat after `from` that must act, or,
    /// when nobody must, closes the street's betting.
    fn pass_action(&mut self, from: Seat, size: u8) {
        self.to_act = self.next_to_act(from, size);
        if self.to_act.is_none() {
            self.close_betting();
        }
    }

    /// After the street's betting ends: what comes next.
    fn close_betting(&mut self) {
        self.to_act = None;
        self.phase = if self.street == Street::River {
            Phase::Showdown
        } else {
            Phase::AwaitingBoard
        };
    }

    /// Whether a player may still raise: not yet acted on this street, or
    /// facing a full raise since, possibly made of several short all-ins
    /// (TDA 47).
    pub fn reopened_for(&self, p: &InHand) -> bool {
        !p.acted
            || (self.reopening == Reopening::Cumulative
                && self.current_bet.saturating_sub(p.bet_when_acted) >= self.min_raise)
    }

    /// Substantial action (TDA 36): two actions in turn of which one put
    /// chips in, or any three actions; by seed 002's house rule, two that
    /// both put chips in. Posting blinds does not count.
    pub fn substantial_action(&self) -> bool {
        let chips_needed = match self.substantial_rule {
            SubstantialAction::Tda => 1,
            SubstantialAction::Series => 2,
        };
        self.actions >= 3 || (self.actions >= 2 && self.chip_actions >= chips_needed)
    }

    /// Betting is over with a player all in: every live hand is tabled and
    /// none may be mucked (TDA 16).
    pub fn all_in_showdown(&self) -> bool {
        self.live().count() >= 2 && self.betting_over() && self.live().any(|(_, p)| p.all_in)
    }

    /// True when no more betting can happen in this hand.
    pub fn betting_over(&self) -> bool {
        self.live().count() <= 1
            || self.phase == Phase::Showdown
            || (self.phase != Phase::Betting && self.can_act_count() <= 1)
    }
}

impl TableState {
    /// `evolve` in place: applies one event without moving the state.
    pub fn apply(&mut self, event: &TableEvent) {
        apply(self, event);
    }
}

/// The fold: applies one event. Events are facts already decided, so evolve
/// never fails; it only does the bookkeeping that follows from them.
pub fn evolve(mut state: TableState, event: &TableEvent) -> TableState {
    apply(&mut state, event);
    state
}

pub(crate) fn apply(state: &mut TableState, event: &TableEvent) {
    let size = state.size;
    match event {
        TableEvent::TableOpened { seats, rules } => {
            state.size = *seats;
            state.rules = *rules;
        }
        TableEvent::PlayerSeated {
            seat,
            player,
            stack,
            carried,
        } => {
            if let Some(slot) = state.seats.get_mut(idx(*seat)) {
                *slot = Some(SeatState {
                    player: *player,
                    stack: *stack,
                    absent: carried.absent,
                    penalty_hands: carried.penalty_hands,
                    offences: carried.offences,
                    new: true,
                });
            }
        }
        TableEvent::PlayerRemoved { seat, .. }
        | TableEvent::PlayerDisqualified { seat, .. }
        | TableEvent::StackSurrendered { seat, .. }
        | TableEvent::NoShowRemoved { seat, .. } => {
            if let Some(slot) = state.seats.get_mut(idx(*seat)) {
                *slot = None;
            }
        }
        TableEvent::AbsenceChanged { seat, absent } => {
            if let Some(Some(s)) = state.seats.get_mut(idx(*seat)) {
                s.absent = *absent;
            }
        }
        TableEvent::HandStarted {
            number,
            level,
            button,
            small_blind,
            big_blind,
            stacks,
            deal,
            ..
        } => {
            state.smallest_chip = level.smallest_chip;
            state.last_busted.clear();
            let mut players = [None; MAX_SEATS];
            for &(seat, _) in stacks {
                if let Some(Some(s)) = state.seats.get_mut(idx(seat)) {
                    s.new = false;
                }
            }
            for &(seat, stack) in stacks {
                let penalized = state.seat(seat).is_some_and(|s| s.penalty_hands > 0);
                let away = state.seat(seat).is_some_and(|s| s.absent);
                if let Some(p) = players.get_mut(idx(seat)) {
                    *p = Some(InHand {
                        starting_stack: stack,
                        street: 0,
                        total: 0,
                        ante: 0,
                        folded: false,
                        all_in: false,
                        acted: false,
                        bet_when_acted: 0,
                        hole: None,
                        shown: false,
                        dead: false,
                        penalized,
                        away,
                        bound: None,
                    });
                }
            }
            state.hands_started = *number;
            let previous_blinds = (state.last_big_blind, state.last_small_blind_position);
            // A dead small blind's position is where the last big blind was.
            let sb_position = small_blind.or(state.last_big_blind).unwrap_or(*button);
            state.last_small_blind_position = Some(sb_position);
            state.last_big_blind = Some(*big_blind);
            state.hand = Some(HandState {
                number: *number,
                level: *level,
                button: *button,
                small_blind: *small_blind,
                big_blind: *big_blind,
                deal: *deal,
                deck: match deal {
                    Deal::Digital { seed } => Some(Deck::shuffled(*seed)),
                    Deal::Physical | Deal::Shared { .. } => None,
                },
                street: Street::Preflop,
                board: Vec::with_capacity(5),
                players,
                current_bet: 0,
                min_raise: level.big_blind,
                to_act: None,
                aggressor: None,
                phase: Phase::Dealing,
                awarded: 0,
                pots_awarded: Vec::new(),
                opening_bet: 0,
                actions: 0,
                chip_actions: 0,
                out_of_turn: Vec::new(),
                previous_blinds,
                substantial_rule: state.rules.substantial_action,
                reopening: state.rules.reopening,
            });
        }
        TableEvent::AntePosted { seat, amount } => {
            commit(state, *seat, *amount, false);
            if let Some(p) = state.hand.as_mut().and_then(|h| h.player_mut(*seat)) {
                p.ante += amount;
            }
        }
        TableEvent::BlindPosted {
            seat,
            blind,
            amount,
        } => {
            commit(state, *seat, *amount, true);
            let rules = state.rules;
            if let Some(h) = state.hand.as_mut() {
                h.current_bet = match (blind, rules.short_big_blind) {
                    (Blind::Big, ShortBigBlind::CallFullBlind) => h.level.big_blind,
                    _ => h.current_bet.max(*amount),
                };
                h.opening_bet = h.current_bet;
            }
        }
        TableEvent::HoleCardsDealt { cards } => {
            if let Some(h) = state.hand.as_mut() {
                if let Some(deck) = h.deck.as_mut() {
                    // Dealt one at a time from the seat after the button: two
                    // rounds of cards leave the deck.
                    for _ in 0..cards.len() * 2 {
                        let _ = deck.deal();
                    }
                }
                for (seat, hole) in cards {
                    if let Some(p) = h.player_mut(*seat) {
                        p.hole = *hole;
                    }
                }
                h.phase = Phase::Betting;
                h.pass_action(h.big_blind, size);
            }
        }
        TableEvent::HoleCardsEntered { seat, cards } => {
            if let Some(p) = state.hand.as_mut().and_then(|h| h.player_mut(*seat)) {
                p.hole = Some(*cards);
            }
        }
        TableEvent::HandKilled { seat, .. } => {
            if let Some(h) = state.hand.as_mut() {
                if let Some(p) = h.player_mut(*seat) {
                    p.folded = true;
                    p.dead = true;
                }
                if h.to_act == Some(*seat) {
                    h.pass_action(*seat, size);
                }
            }
        }
        TableEvent::ActionTaken {
            seat,
            action,
            all_in,
        } => {
            let amount = match action {
                ActionTaken::Call { amount }
                | ActionTaken::Bet { amount, .. }
                | ActionTaken::Raise { amount, .. } => *amount,
                _ => 0,
            };
            commit(state, *seat, amount, true);
            let Some(h) = state.hand.as_mut() else { return };
            h.out_of_turn.retain(|o| o.0 != *seat);
            h.actions += 1;
            h.chip_actions += u32::from(amount > 0);
            let before = h.current_bet;
            if let ActionTaken::Bet { to, .. } = action {
                h.opening_bet = *to;
            }
            if let ActionTaken::Bet { to, .. } | ActionTaken::Raise { to, .. } = action {
                let raise = to.saturating_sub(before);
                h.current_bet = *to;
                h.aggressor = Some(*seat);
                if raise >= h.min_raise {
                    // A full bet or raise: everyone else may act again.
                    h.min_raise = raise;
                    for p in h.players.iter_mut().flatten() {
                        p.acted = false;
                    }
                } else if *all_in
                    && h.reopening == Reopening::HalfRaise
                    && raise.saturating_mul(2) >= h.min_raise
                {
                    // A house's half-raise rule: a short all-in of half
                    // the minimum raise or more reopens the betting.
                    for p in h.players.iter_mut().flatten() {
                        p.acted = false;
                    }
                }
            }
            let bet = h.current_bet;
            if let Some(p) = h.player_mut(*seat) {
                p.bound = None;
                p.acted = true;
                p.bet_when_acted = bet;
                p.all_in = p.all_in || *all_in;
                if matches!(action, ActionTaken::Fold) {
                    p.folded = true;
                }
            }
            h.pass_action(*seat, size);
        }
        TableEvent::StreetDealt {
            street,
            cards,
            burn,
        } => {
            if let Some(h) = state.hand.as_mut() {
                if let Some(deck) = h.deck.as_mut() {
                    for _ in 0..cards.len() + usize::from(burn.is_some()) {
                        let _ = deck.deal();
                    }
                }
                h.board.extend_from_slice(cards);
                h.street = *street;
                h.current_bet = 0;
                h.opening_bet = 0;
                h.out_of_turn.clear();
                h.min_raise = h.level.big_blind;
                h.aggressor = None;
                for p in h.players.iter_mut().flatten() {
                    p.street = 0;
                    p.acted = false;
                    p.bet_when_acted = 0;
                }
                h.phase = Phase::Betting;
                h.pass_action(h.button, size);
            }
        }
        TableEvent::CardsShown { seat, cards } => {
            if let Some(p) = state.hand.as_mut().and_then(|h| h.player_mut(*seat)) {
                p.hole = Some(*cards);
                p.shown = true;
            }
        }
        TableEvent::CardsMucked { seat } => {
            if let Some(p) = state.hand.as_mut().and_then(|h| h.player_mut(*seat)) {
                p.folded = true;
            }
        }
        TableEvent::UncalledBetReturned { seat, amount } => {
            let full_blind = state.rules.short_big_blind == ShortBigBlind::CallFullBlind;
            if let Some(h) = state.hand.as_mut()
                && let Some(p) = h.player_mut(*seat)
            {
                p.total = p.total.saturating_sub(*amount);
                p.street = p.street.saturating_sub(*amount);
                if h.phase == Phase::Betting {
                    // A killed hand's bet back while betting goes on
                    // (TDA 15, 65): the others face the biggest bet left,
                    // and before the flop at least the big blind.
                    let left = h.players.iter().flatten().map(|p| p.street).max();
                    let blind = if h.street == Street::Preflop && full_blind {
                        h.level.big_blind
                    } else {
                        0
                    };
                    h.current_bet = left.unwrap_or(0).max(blind).min(h.current_bet);
                }
            }
            if let Some(Some(s)) = state.seats.get_mut(idx(*seat)) {
                s.stack += amount;
            }
        }
        TableEvent::PotAwarded {
            pot,
            amount,
            shares,
            ..
        } => {
            if let Some(h) = state.hand.as_mut() {
                h.awarded += amount;
                h.pots_awarded.push(*pot);
            }
            for share in shares {
                if let Some(Some(s)) = state.seats.get_mut(idx(share.seat)) {
                    s.stack += share.amount;
                }
            }
        }
        TableEvent::MisdealDeclared { .. }
        | TableEvent::UndercallForfeited { .. }
        | TableEvent::OutOfTurnAction { .. }
        | TableEvent::OutOfTurnVoided { .. }
        | TableEvent::HandVoided { .. }
        | TableEvent::ActionBound { .. }
        | TableEvent::EntropyAdded { .. }
        | TableEvent::PenaltyGiven { .. }
        | TableEvent::WarningGiven { .. }
        | TableEvent::ButtonDrawn { .. } => apply_ruling(state, event),
        // Records of how a ruling was reached; their effects are events of their own.
        TableEvent::ChipsRead { .. }
        | TableEvent::ShowAsked { .. }
        | TableEvent::SecretRevealed { .. }
        | TableEvent::FloorRuled { .. }
        | TableEvent::ClockCalled { .. }
        | TableEvent::TimedOut { .. } => {}
        TableEvent::RecordingSet { recording, .. } => state.recording = *recording,
        TableEvent::ResultRecorded {
            number,
            button,
            small_blind,
            big_blind,
            busted,
            shares,
            occurred_at,
        } => {
            state.hands_started = *number;
            if occurred_at.is_some() {
                state.last_result_at = *occurred_at;
            }
            state.last_small_blind_position = Some(small_blind.unwrap_or(*button));
            state.last_big_blind = Some(*big_blind);
            for b in busted {
                if let Some(slot) = state.seats.get_mut(idx(b.seat)) {
                    *slot = None;
                }
            }
            for (seat, amount) in shares {
                if let Some(Some(s)) = state.seats.get_mut(idx(*seat)) {
                    s.stack = s.stack.saturating_add(*amount);
                }
            }
            for s in state.seats.iter_mut().flatten() {
                s.new = false;
            }
            state.uncounted = true;
            // (A results-only table records no hand start: its busts since
            // the last recorded hand are kept, the latest for each seat.)
            for b in busted {
                state.last_busted.retain(|l| l.0 != b.seat);
                state.last_busted.push((b.seat, b.player));
            }
        }
        TableEvent::StacksCounted { stacks, .. } => {
            for (seat, stack) in stacks {
                if let Some(Some(s)) = state.seats.get_mut(idx(*seat)) {
                    s.stack = *stack;
                }
            }
            state.uncounted = false;
        }
        TableEvent::StackCorrected { seat, to, .. } => {
            if let Some(Some(s)) = state.seats.get_mut(idx(*seat)) {
                s.stack = *to;
            }
        }
        TableEvent::ChipsRemoved { seat, amount, .. } => {
            if let Some(Some(s)) = state.seats.get_mut(idx(*seat)) {
                s.stack = s.stack.saturating_sub(*amount);
            }
        }
        TableEvent::AddOnAdded { seat, chips, .. } => {
            if let Some(Some(s)) = state.seats.get_mut(idx(*seat)) {
                s.stack = s.stack.saturating_add(*chips);
            }
        }
        TableEvent::RebuyAdded {
            seat,
            player,
            chips,
            ..
        } => match state.seats.get_mut(idx(*seat)) {
            Some(Some(s)) => s.stack = s.stack.saturating_add(*chips),
            // A busted player bought back in: seated again with the chips.
            Some(slot) => {
                *slot = Some(SeatState {
                    player: *player,
                    stack: *chips,
                    absent: false,
                    penalty_hands: 0,
                    offences: 0,
                    new: false,
                });
                state.last_busted.retain(|b| b.0 != *seat);
            }
            None => {}
        },
        TableEvent::ColouredUp {
            smallest, raced, ..
        } => {
            for r in raced {
                if let Some(Some(s)) = state.seats.get_mut(idx(r.seat)) {
                    s.stack = r.after;
                }
            }
            state.smallest_chip = *smallest;
        }
        TableEvent::HandEnded { busted, .. } => {
            // Each hand dealt during a penalty counts towards it (TDA 71).
            if let Some(h) = state.hand.take() {
                for (i, p) in h.players.iter().enumerate() {
                    if p.is_some_and(|p| p.penalized)
                        && let Some(Some(s)) = state.seats.get_mut(i)
                    {
                        s.penalty_hands = s.penalty_hands.saturating_sub(1);
                    }
                }
            }
            for b in busted {
                if let Some(slot) = state.seats.get_mut(idx(b.seat)) {
                    *slot = None;
                }
            }
            state.last_busted = busted.iter().map(|b| (b.seat, b.player)).collect();
        }
    }
}

/// Applies the events that only rulings produce.
fn apply_ruling(state: &mut TableState, event: &TableEvent) {
    let size = state.size;
    match event {
        TableEvent::MisdealDeclared { .. } => {
            // Everything put in goes back; the positions are as before.
            if let Some(h) = state.hand.take() {
                for (i, p) in h.players.iter().enumerate() {
                    if let (Some(p), Some(Some(s))) = (p, state.seats.get_mut(i)) {
                        s.stack += p.total;
                    }
                }
                (state.last_big_blind, state.last_small_blind_position) = h.previous_blinds;
            }
        }
        TableEvent::HandVoided { .. } => {
            // Every chip goes back; the hand stays until its end is
            // recorded, with nothing left in the middle.
            if let Some(h) = state.hand.as_mut() {
                for (i, p) in h.players.iter_mut().enumerate() {
                    if let (Some(p), Some(Some(s))) = (p.as_mut(), state.seats.get_mut(i)) {
                        s.stack += p.total;
                        p.total = 0;
                        p.street = 0;
                    }
                }
                h.current_bet = 0;
                h.to_act = None;
                h.phase = Phase::Showdown;
                (state.last_big_blind, state.last_small_blind_position) = h.previous_blinds;
            }
        }
        TableEvent::UndercallForfeited { seat, amount } => {
            commit(state, *seat, *amount, true);
            if let Some(h) = state.hand.as_mut() {
                h.actions += 1;
                h.chip_actions += 1;
                if let Some(p) = h.player_mut(*seat) {
                    p.folded = true;
                    p.acted = true;
                }
                if h.to_act == Some(*seat) {
                    h.pass_action(*seat, size);
                }
            }
        }
        TableEvent::OutOfTurnAction {
            seat,
            action,
            facing,
        } => {
            if let Some(h) = state.hand.as_mut() {
                h.out_of_turn.push((*seat, *action, *facing));
            }
        }
        TableEvent::EntropyAdded { entropy } => {
            if let Some(h) = state.hand.as_mut()
                && let Deal::Shared { seed } = h.deal
            {
                h.deck = Some(Deck::shuffled(seed.mixed(entropy)));
            }
        }
        TableEvent::ActionBound { seat, bound, .. } => {
            if let Some(p) = state.hand.as_mut().and_then(|h| h.player_mut(*seat)) {
                p.bound = Some(*bound);
            }
        }
        TableEvent::OutOfTurnVoided { seat, .. } => {
            if let Some(h) = state.hand.as_mut() {
                h.out_of_turn.retain(|o| o.0 != *seat);
            }
        }
        TableEvent::PenaltyGiven {
            seat,
            hands,
            offence,
            ..
        } => {
            if let Some(Some(s)) = state.seats.get_mut(idx(*seat)) {
                s.penalty_hands = s.penalty_hands.saturating_add(*hands);
                s.offences = s.offences.max(*offence);
            }
        }
        TableEvent::ButtonDrawn { button, .. } => state.drawn_button = Some(*button),
        TableEvent::WarningGiven { seat, offence, .. } => {
            if let Some(Some(s)) = state.seats.get_mut(idx(*seat)) {
                s.offences = s.offences.max(*offence);
            }
        }
        _ => {}
    }
}

/// Moves chips from a seat's stack into the pot.
fn commit(state: &mut TableState, seat: Seat, amount: Chips, counts_for_street: bool) {
    let Some(Some(s)) = state.seats.get_mut(idx(seat)) else {
        return;
    };
    let amount = amount.min(s.stack);
    s.stack -= amount;
    let all_in = s.stack == 0;
    if let Some(p) = state.hand.as_mut().and_then(|h| h.player_mut(seat)) {
        p.total += amount;
        if counts_for_street {
            p.street += amount;
        }
        p.all_in = all_in;
    }
}
