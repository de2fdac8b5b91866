//! Commands, events and the values they carry.

use felt_cards::{Card, Commitment, HandRank, Seed};
use serde::{Deserialize, Serialize};

pub use crate::race::{ChipRace, Raced};
pub use felt_vocabulary::{AnteFormat, Chips, EntryId, Level, MAX_CHIPS, Seat};

/// The most seats a table can have.
pub const MAX_SEATS: usize = 10;

/// What happens when the big blind is all-in for less than a full blind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ShortBigBlind {
    /// The live convention (Robert's Rules, most card rooms): the others call
    /// the full big blind and raise to at least two big blinds.
    #[default]
    CallFullBlind,
    /// Online rooms and PokerKit: the amount to call is what was posted.
    CallAmountPosted,
}

/// Who gets the chips of a split pot that do not divide evenly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OddChips {
    /// TDA 20: split as evenly as the smallest chip in play allows, the odd
    /// chips one at a time from the first winner left of the button.
    #[default]
    OneEachFromTheButton,
    /// PokerKit: every odd chip to the first winner left of the button.
    AllToTheFirstWinner,
}

/// Where rule books differ, a per-tournament choice; defaults are TDA 2019
/// and live practice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HouseRules {
    pub short_big_blind: ShortBigBlind,
    pub odd_chips: OddChips,
    /// How repeated offences escalate (TDA 71: "repeated infractions are
    /// subject to escalating penalties").
    #[serde(default)]
    pub penalty_scale: PenaltyScale,
    /// What counts as substantial action (after which no misdeal).
    #[serde(default)]
    pub substantial_action: SubstantialAction,
    /// Who is dealt into a misdeal's re-deal.
    #[serde(default)]
    pub misdeal_redeal: MisdealRedeal,
    /// Whether short all-in raises reopen the betting.
    #[serde(default)]
    pub reopening: Reopening,
}

/// What counts as substantial action (a misdeal may be declared only
/// before it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SubstantialAction {
    /// TDA 36: any two actions in turn of which one puts chips in, or any
    /// three actions.
    #[default]
    Tda,
    /// Seed 002: two actions in turn that both put chips in (a bet, raise
    /// or call), or any three actions.
    Series,
}

/// Who is dealt into a misdeal's re-deal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MisdealRedeal {
    /// TDA 35: an exact copy; a player away from the seat for the
    /// original deal has a dead hand in the re-deal too.
    #[default]
    ExactCopy,
    /// Seed 002 (B): a player away for the original deal plays the
    /// re-deal normally if back at the seat.
    AbsentPlay,
}

/// Whether short all-in raises reopen the betting for players who have
/// acted (seed 004 lists the houses' variants).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Reopening {
    /// TDA 47: short all-ins that together make a full raise reopen it.
    #[default]
    Cumulative,
    /// Only a full bet or raise reopens: a short all-in is a call to those
    /// who have acted, however many follow.
    Never,
    /// An all-in raise of at least half the minimum raise reopens it.
    HalfRaise,
}

impl HouseRules {
    /// PokerKit's behaviour, the reference of the PHH format: how online
    /// hands were played.
    pub const POKERKIT: HouseRules = HouseRules {
        short_big_blind: ShortBigBlind::CallAmountPosted,
        odd_chips: OddChips::AllToTheFirstWinner,
        penalty_scale: PenaltyScale::Tda,
        substantial_action: SubstantialAction::Tda,
        misdeal_redeal: MisdealRedeal::ExactCopy,
        reopening: Reopening::Cumulative,
    };
}

/// A house's scale of escalating penalties: the penalty for a player's
/// first offence, second, and so on; past its last step, disqualification.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PenaltyScale {
    /// A verbal warning, then one, two, three and four orbits (TDA 71;
    /// seed 001: "one, two, three or four orbits, or disqualification";
    /// seed 003, 2b: "from 1 to 4").
    #[default]
    Tda,
    /// Seed 002 (B): a verbal warning, then three hands, one, two and
    /// three orbits.
    Series,
}

impl PenaltyScale {
    /// The penalty for a player's offence number `offence` (1 for the
    /// first); `None` past the scale: disqualification.
    pub fn step(self, offence: u32) -> Option<Penalty> {
        let steps: &[Penalty] = match self {
            PenaltyScale::Tda => &[
                Penalty::Warning,
                Penalty::Orbits(1),
                Penalty::Orbits(2),
                Penalty::Orbits(3),
                Penalty::Orbits(4),
            ],
            PenaltyScale::Series => &[
                Penalty::Warning,
                Penalty::Hands(3),
                Penalty::Orbits(1),
                Penalty::Orbits(2),
                Penalty::Orbits(3),
            ],
        };
        let k = usize::try_from(offence.checked_sub(1)?).ok()?;
        steps.get(k).copied()
    }
}

/// A penalty the floor gives (TDA 71).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Penalty {
    /// A verbal warning: recorded, no hand missed.
    Warning,
    /// A number of hands missed.
    Hands(u32),
    /// One hand per player at the table, the offender included, times the
    /// orbits.
    Orbits(u8),
    /// The house scale's step for the player's next offence
    /// ([`PenaltyScale::step`]).
    Next,
}

/// What a player takes with them from table to table besides their chips:
/// the hands left of a penalty, whether they are away from the table, and
/// the offences they were penalised for (for the house scale). Seating's
/// moves carry it from the seat left to the seat taken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Carried {
    #[serde(default)]
    pub penalty_hands: u32,
    #[serde(default)]
    pub absent: bool,
    #[serde(default)]
    pub offences: u32,
}

impl Carried {
    /// Nothing to carry.
    pub fn is_none(&self) -> bool {
        *self == Carried::default()
    }
}

/// How cards reach the players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Deal {
    /// The engine deals from a deck shuffled with this seed (handed in).
    Digital { seed: Seed },
    /// A dealer deals real cards: hole cards are unknown until tabled or
    /// entered, and the dealer enters the board.
    Physical,
    /// A deck neither side chooses: the engine deals from this secret (the
    /// service's, committed to when the hand starts) mixed with the
    /// entropy the table's device adds after seeing the commitment
    /// ([`Seed::mixed`]); no card is dealt before it. The secret is
    /// revealed when the hand ends.
    Shared { seed: Seed },
}

/// What a table records of its hands: the room's choice per table, or a
/// tablet down mid-day. A table switches only between hands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Recording {
    /// The dealer records every hand, action by action.
    #[default]
    Actions,
    /// No hand is recorded: the floor records each hand's result that
    /// matters to the room (a bust with who won the chips, the button
    /// where it stands) and each stack at the counts the room makes.
    ResultsOnly,
}

/// The longest name of a count (a break, a colour-up, the end of a day).
pub const MAX_COUNT_NAME: usize = 64;

/// The longest reason a correction of chips gives, and the longest name
/// of the moment it concerns.
pub const MAX_REASON: usize = 500;

/// What a correction of chips concerns (it never re-decides a hand: it
/// takes effect before the next one).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Concerns {
    /// A hand this table recorded, by its number: a pot miscounted as it
    /// was pushed (TDA 22), contested before the next hand.
    Hand(u64),
    /// A moment the floor names: a move, a break, chips found later.
    Moment(String),
}

/// Why chips leave play (seed 000).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Removal {
    /// Chips a player hid or carried out of sight are forfeited and taken
    /// out of the competition (TDA 63).
    Hidden,
    /// The director takes chips out of play at their discretion (TDA 25).
    Director,
}

impl Removal {
    /// The rule a removal applies.
    pub fn rule(self) -> &'static str {
        match self {
            Removal::Hidden => "TDA 63",
            Removal::Director => "TDA 25",
        }
    }
}

/// A betting action as the dealer records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PlayerAction {
    Fold,
    Check,
    Call,
    /// Open the betting on this street: the total the player puts in.
    Bet {
        to: Chips,
    },
    /// Raise the street's bet to this total.
    Raise {
        to: Chips,
    },
    /// Everything the player has: a call, bet or raise depending on the bet.
    AllIn,
}

/// What a player said before (or as) putting chips out (TDA 40).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Declaration {
    /// "Call": binds the player to call the whole current bet (TDA 51).
    Call,
    /// "Raise" without an amount: the raise the chips allow, at least the
    /// minimum (TDA 44, 55).
    Raise,
    /// "All in".
    AllIn,
    /// Only an amount ("fourteen hundred"): the same as silently pushing that
    /// much in chips (TDA 40), read by the 50% standard (TDA 43).
    Amount(Chips),
    /// "Check": with no bet to face, a check; facing a bet, the player may
    /// call or fold but not raise (TDA 55).
    Check,
}

/// What a player's words or gestures bind them to before they act.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Bound {
    /// "Check" declared facing a bet: a call or a fold, never a raise
    /// (TDA 55).
    CallOrFold,
    /// The chips of an earlier bet pulled back facing a raise: a call or a
    /// raise, never a fold (TDA 46).
    CallOrRaise,
}

/// A floor person's decision (TDA 1), recorded with its reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Ruling {
    /// The seat's hand is declared dead.
    KillHand { seat: Seat },
    /// A pot (0: the main pot, then the side pots in order, as
    /// [`crate::HandState::pots`] lists them) goes whole to this seat,
    /// which must be eligible for it (TDA 21). Once no pot is left, the
    /// hand ends. A ruling recorded before pots were named awarded the
    /// whole pot: it reads as pot 0.
    AwardPot {
        seat: Seat,
        #[serde(default)]
        pot: usize,
    },
    /// The deck is fouled or foreign (a duplicated or missing card, a card
    /// of another deck): the hand is void and every chip put in goes back,
    /// whatever the action so far (TDA 35).
    FouledDeck,
    /// An undercall the floor did not make binding (TDA 51): the chips put
    /// out stay in the pot and the hand is folded.
    ForfeitUndercall { seat: Seat, amount: Chips },
}

/// Everything a dealer, the floor or seating can ask of a table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Command {
    OpenTable {
        seats: u8,
        rules: HouseRules,
    },
    /// A player takes a seat with their chips, and what they carry from
    /// the table they left (a penalty's hands, absence, offences).
    SeatPlayer {
        seat: Seat,
        player: EntryId,
        stack: Chips,
        carried: Carried,
    },
    RemovePlayer {
        seat: Seat,
    },
    /// A player away from the table (TDA 30) is dealt in, posts, and has a dead hand.
    SetAbsent {
        seat: Seat,
        absent: bool,
    },
    /// Before the table's first hand, the button is drawn by high card
    /// (seed 003: "a organização sorteará o assento onde começará o
    /// botão"): one card to each player from a deck shuffled with `seed`,
    /// the highest (by rank, then spades, hearts, diamonds, clubs) takes
    /// the button. Handed the seed by the service that draws it.
    DrawButton {
        seed: Seed,
    },
    /// `button` is only needed for the table's first hand (the draw for the
    /// button); later hands move it by the dead-button rule (TDA 32).
    StartHand {
        level: Level,
        deal: Deal,
        button: Option<Seat>,
    },
    /// Physical deal: hole cards known to the dealer or an RFID table.
    EnterHoleCards {
        seat: Seat,
        cards: [Card; 2],
    },
    /// Physical deal: the next street's cards.
    DealBoard {
        cards: Vec<Card>,
    },
    Act {
        seat: Seat,
        action: PlayerAction,
    },
    /// An action taken out of turn (TDA 53). The action goes back to the
    /// player whose turn it is; when it reaches this seat the action stands
    /// if what the seat faces has not changed (checks, calls and folds in
    /// between do not change it), and is void otherwise, the player then
    /// having every option. A fold out of turn always stands.
    ActOutOfTurn {
        seat: Seat,
        action: PlayerAction,
    },
    /// Chips put out as the dealer sees them (TDA 40–46): the denominations
    /// of the new chips, what was declared first, and the chips of an
    /// earlier bet on this street still in front of the player (`None`: the
    /// earlier bet is there untouched, in chips of exactly its amount; an
    /// empty list: pulled back completely).
    PushChips {
        seat: Seat,
        chips: Vec<Chips>,
        declaration: Option<Declaration>,
        in_front: Option<Vec<Chips>>,
    },
    /// A misdeal (TDA 35) before substantial action (TDA 36): everything
    /// put in goes back and the hand is dealt again as an exact copy, with
    /// this deal (a new seed in a digital deal).
    Misdeal {
        reason: String,
        deal: Deal,
    },
    /// A floor ruling (TDA 1).
    Rule {
        ruling: Ruling,
        reason: String,
    },
    /// A penalty (TDA 71), the floor's, with its reason: a warning, or
    /// hands to miss (the seat is dealt in, posts, and its hand is dead),
    /// or the house scale's next step for the player. `player` is the
    /// entry the floor sees in the seat (`None`: whoever sits there); the
    /// reason may be empty only where the floor gave none.
    Penalize {
        seat: Seat,
        player: Option<EntryId>,
        penalty: Penalty,
        reason: String,
    },
    /// The player in the seat is disqualified (TDA 71): they leave the
    /// table and their chips leave play. Between hands, or while the
    /// player is not dealt into the hand in play.
    Disqualify {
        seat: Seat,
        player: EntryId,
        reason: String,
    },
    /// The player in the seat gave up their chips to buy a new entry (TDA
    /// 8): they leave the table and the chips leave play. Between hands,
    /// or while the player is not dealt into the hand in play.
    Surrender {
        seat: Seat,
        player: EntryId,
    },
    /// The player in the seat never arrived and is replaced by an
    /// alternate (seed 003's late-arrival rule): they leave the table and
    /// the chips of their seat leave play. Between hands, or while the
    /// player is not dealt into the hand in play.
    RemoveNoShow {
        seat: Seat,
        player: EntryId,
    },
    /// The floor calls the clock on the player to act (TDA 29). Recorded
    /// with its time; the player's time runs from it.
    CallClock {
        seat: Seat,
    },
    /// The player to act ran out of time (the action clock of seed 002, or
    /// a called clock, TDA 29): facing a bet the hand is dead, otherwise the
    /// player checks. The table service judges the time before sending it.
    TimeOut {
        seat: Seat,
    },
    /// Table a hand; `cards` are required in a physical deal unless entered.
    Show {
        seat: Seat,
        cards: Option<[Card; 2]>,
    },
    Muck {
        seat: Seat,
    },
    /// The table's device adds its entropy to a shared deal, after seeing
    /// the hand's commitment: the cards are dealt.
    AddEntropy {
        entropy: Seed,
    },
    /// At a showdown the dealer reads without entering the cards: the
    /// dealer pushes a pot (0: the main pot, as [`crate::HandState::pots`]
    /// lists them) to its winners, who must be eligible for it (TDA 21);
    /// the engine splits it exactly (TDA 20). Only in a physical deal: a
    /// digital deal's cards speak by themselves.
    PushPot {
        pot: usize,
        winners: Vec<Seat>,
    },
    /// A player who called the river bet and still holds their cards asks
    /// to see the hand they called (TDA 18): the last aggressor's hand is
    /// tabled. `cards` as for [`Command::Show`].
    AskToSee {
        seat: Seat,
        of: Seat,
        cards: Option<[Card; 2]>,
    },
    /// Between hands, the table starts or stops recording every action
    /// ([`Recording`]). Back to recording actions only once every stack
    /// was counted after the last result recorded.
    SetRecording {
        recording: Recording,
        reason: String,
    },
    /// At a results-only table, a hand's result as the floor records it:
    /// where the button was, the seats that busted, and the seats that won
    /// their chips (split evenly, odd chips one each from the button, TDA
    /// 20). With nobody busted it records a hand played (the button's
    /// place for balancing, a hand-for-hand hand).
    RecordResult {
        button: Seat,
        /// Each seat with the entry the floor saw in it.
        busted: Vec<(Seat, EntryId)>,
        by: Vec<(Seat, EntryId)>,
        /// When the hand was played (milliseconds since the Unix epoch),
        /// for a result the floor enters late (the room ran on paper); not
        /// before the table's last result entered with a time.
        occurred_at: Option<i64>,
    },
    /// Between hands, every stack at the table as the floor counted it
    /// (a break, a colour-up, the end of a day, a tablet back): the count
    /// replaces the stacks the table knew.
    CountStacks {
        count: String,
        /// Each seat, the entry counted in it, and its chips.
        stacks: Vec<(Seat, EntryId, Chips)>,
    },
    /// Between hands, the floor corrects one player's stack to the chips it
    /// should hold (a pot miscounted, TDA 22; chips found later; an error
    /// in a move), naming the hand or moment it concerns and why.
    CorrectStack {
        seat: Seat,
        player: EntryId,
        stack: Chips,
        concerns: Concerns,
        reason: String,
    },
    /// Between hands, chips taken out of play from a player's stack
    /// (hidden chips forfeited, TDA 63; the director's removal, TDA 25).
    RemoveChips {
        seat: Seat,
        player: EntryId,
        amount: Chips,
        removal: Removal,
        reason: String,
    },
    /// Between hands, the `leaving` chip goes out of play and `smallest`
    /// is the smallest chip still in play: the odd chips are raced off
    /// (TDA 24, scheduled at a break; TDA 25, the director's at any time,
    /// announced). See [`crate::chip_race`].
    ColourUp {
        leaving: Chips,
        smallest: Chips,
        race: ChipRace,
    },
    /// Between hands, an add-on's chips go on the stack of the player
    /// seating sold it to.
    AddOn {
        seat: Seat,
        player: EntryId,
        chips: Chips,
    },
    /// Between hands, a rebuy's chips (the entry's `number`-th, rule 27)
    /// go on the stack of the player seating sold it to.
    Rebuy {
        seat: Seat,
        player: EntryId,
        chips: Chips,
        number: u32,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Street {
    Preflop,
    Flop,
    Turn,
    River,
}

impl Street {
    pub fn next(self) -> Option<Street> {
        match self {
            Street::Preflop => Some(Street::Flop),
            Street::Flop => Some(Street::Turn),
            Street::Turn => Some(Street::River),
            Street::River => None,
        }
    }

    /// Board cards dealt on this street.
    pub fn cards(self) -> usize {
        match self {
            Street::Preflop => 0,
            Street::Flop => 3,
            Street::Turn | Street::River => 1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Street::Preflop => "preflop",
            Street::Flop => "flop",
            Street::Turn => "turn",
            Street::River => "river",
        }
    }
}

impl std::fmt::Display for Street {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Blind {
    Small,
    Big,
}

/// An action as recorded, with the chips it moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ActionTaken {
    Fold,
    Check,
    Call { amount: Chips },
    Bet { to: Chips, amount: Chips },
    Raise { to: Chips, amount: Chips },
}

/// One award of a pot (or a share of one) to a player.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Share {
    pub seat: Seat,
    pub amount: Chips,
    /// The winning hand's strength; `None` when won uncontested.
    pub rank: Option<HandRank>,
}

/// A player out of chips at the end of a hand.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Bust {
    pub seat: Seat,
    pub player: EntryId,
    /// Chips at the start of the hand: simultaneous busts are placed by it.
    pub starting_stack: Chips,
    /// The players who won the last of these chips: the winners of the
    /// highest pot this player was in (a bounty's collectors). Named by the
    /// table as the hand ends, while they still sit in their seats. Empty
    /// in hands recorded before the table named them.
    #[serde(default)]
    pub by: Vec<EntryId>,
}

/// Every fact a table records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TableEvent {
    TableOpened {
        seats: u8,
        rules: HouseRules,
    },
    PlayerSeated {
        seat: Seat,
        player: EntryId,
        stack: Chips,
        /// What the player brought from the table they left.
        #[serde(default, skip_serializing_if = "Carried::is_none")]
        carried: Carried,
    },
    PlayerRemoved {
        seat: Seat,
        player: EntryId,
        stack: Chips,
        /// What the player takes to their next seat.
        #[serde(default, skip_serializing_if = "Carried::is_none")]
        carried: Carried,
    },
    AbsenceChanged {
        seat: Seat,
        absent: bool,
    },
    HandStarted {
        number: u64,
        level: Level,
        /// The button's position; it may be an empty seat (dead button, TDA 32).
        button: Seat,
        small_blind: Option<Seat>,
        big_blind: Seat,
        /// Seats dealt in, with their stacks at the start of the hand.
        stacks: Vec<(Seat, Chips)>,
        deal: Deal,
        /// In a digital deal, the commitment to the seed ([`Seed::commitment`]):
        /// what players and partners see before the seed is revealed.
        commitment: Option<Commitment>,
    },
    AntePosted {
        seat: Seat,
        amount: Chips,
    },
    BlindPosted {
        seat: Seat,
        blind: Blind,
        amount: Chips,
    },
    /// Hole cards went out; in a digital deal the cards are recorded, in a
    /// physical deal they are unknown (`None`).
    HoleCardsDealt {
        cards: Vec<(Seat, Option<[Card; 2]>)>,
    },
    HoleCardsEntered {
        seat: Seat,
        cards: [Card; 2],
    },
    /// A hand killed before it could act (absent player, TDA 30).
    HandKilled {
        seat: Seat,
        reason: String,
    },
    /// An action out of turn, held until the action reaches the seat (TDA 53).
    OutOfTurnAction {
        seat: Seat,
        action: PlayerAction,
        /// The bet the seat faced when it acted.
        facing: Chips,
    },
    /// The action changed before it reached the seat: its out-of-turn
    /// action does not bind it (TDA 53).
    OutOfTurnVoided {
        seat: Seat,
        reason: String,
    },
    /// What the player said or did binds their action, before they take it
    /// (TDA 46, 55).
    ActionBound {
        seat: Seat,
        bound: Bound,
        rule: String,
    },
    /// How silently pushed chips (or a declaration) were read, and by which
    /// rule; the action follows as its own event.
    ChipsRead {
        seat: Seat,
        chips: Vec<Chips>,
        declaration: Option<Declaration>,
        in_front: Option<Vec<Chips>>,
        read_as: PlayerAction,
        rule: String,
    },
    /// A misdeal (TDA 35): every chip put in goes back; the re-deal follows
    /// as a new `HandStarted` with the same number, button and players.
    MisdealDeclared {
        number: u64,
        reason: String,
    },
    /// A floor ruling (TDA 1) with its reason; its effects follow as events.
    FloorRuled {
        ruling: Ruling,
        reason: String,
    },
    /// Chips put out by an undercall the floor let the player take back by
    /// folding them away (TDA 51): they stay in the pot, the hand is folded.
    UndercallForfeited {
        seat: Seat,
        amount: Chips,
    },
    /// A penalty of hands to miss (TDA 71); `offence` is the player's
    /// count of offences with it (0 in events recorded before it was kept).
    PenaltyGiven {
        seat: Seat,
        player: EntryId,
        hands: u32,
        #[serde(default)]
        offence: u32,
        #[serde(default)]
        reason: String,
    },
    /// A disqualified player left the table; their `stack` left play
    /// with them (TDA 71).
    PlayerDisqualified {
        seat: Seat,
        player: EntryId,
        stack: Chips,
        reason: String,
    },
    /// A player gave up their chips for a new entry (TDA 8): they left
    /// the table and their `stack` left play.
    StackSurrendered {
        seat: Seat,
        player: EntryId,
        stack: Chips,
    },
    /// A player who never arrived left the table, replaced by an
    /// alternate (seed 003): the `stack` of their seat left play.
    NoShowRemoved {
        seat: Seat,
        player: EntryId,
        stack: Chips,
    },
    /// The first button drawn by high card: each seat's card from the deck
    /// `seed` shuffles, and the seat it went to.
    ButtonDrawn {
        seed: Seed,
        cards: Vec<(Seat, Card)>,
        button: Seat,
    },
    /// A verbal warning (TDA 71): recorded, no hand missed.
    WarningGiven {
        seat: Seat,
        player: EntryId,
        offence: u32,
        reason: String,
    },
    /// The clock was called on the player to act (TDA 29).
    ClockCalled {
        seat: Seat,
    },
    /// The player to act ran out of time; the fold or check follows as its
    /// own event.
    TimedOut {
        seat: Seat,
    },
    ActionTaken {
        seat: Seat,
        action: ActionTaken,
        all_in: bool,
    },
    StreetDealt {
        street: Street,
        cards: Vec<Card>,
        burn: Option<Card>,
    },
    CardsShown {
        seat: Seat,
        cards: [Card; 2],
    },
    CardsMucked {
        seat: Seat,
    },
    /// The table's device added its entropy to a shared deal: the deck is
    /// the secret mixed with it, and the hole cards follow.
    EntropyAdded {
        entropy: Seed,
    },
    /// A shared deal's secret, revealed as the hand ends: with the
    /// commitment and the entropy, anyone deals the hand again.
    SecretRevealed {
        secret: Seed,
    },
    /// A caller asked to see the hand they called on the river (TDA 18);
    /// the hand is tabled as its own `CardsShown`.
    ShowAsked {
        seat: Seat,
        by: Seat,
    },
    /// The hand is void (a fouled deck, TDA 35): every chip put in goes
    /// back to whoever put it in, and the blinds are where they were before
    /// it; the hand ends with the stacks it started with.
    HandVoided {
        number: u64,
    },
    UncalledBetReturned {
        seat: Seat,
        amount: Chips,
    },
    /// A pot (0 = the main pot) awarded; side pots go first (TDA 21).
    PotAwarded {
        pot: usize,
        amount: Chips,
        eligible: Vec<Seat>,
        shares: Vec<Share>,
    },
    HandEnded {
        number: u64,
        stacks: Vec<(Seat, Chips)>,
        busted: Vec<Bust>,
    },
    /// The table started or stopped recording every action.
    RecordingSet {
        recording: Recording,
        reason: String,
    },
    /// A hand played at a results-only table, known by its result: its
    /// number, its positions (from the button the floor reported), the
    /// busts (each with the stack the table last knew, which went to the
    /// winners) and the chips each winner received.
    ResultRecorded {
        number: u64,
        button: Seat,
        small_blind: Option<Seat>,
        big_blind: Seat,
        busted: Vec<Bust>,
        shares: Vec<(Seat, Chips)>,
        /// When the hand was played, for a result entered late (`None`:
        /// when it was recorded).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        occurred_at: Option<i64>,
    },
    /// Every stack at the table as counted: `expected` is what the table
    /// held by its own record, `counted` what the count found.
    StacksCounted {
        count: String,
        stacks: Vec<(Seat, Chips)>,
        expected: Chips,
        counted: Chips,
    },
    /// The floor corrected a stack between hands: `from` what the table
    /// held, `to` what the floor ruled it should be.
    StackCorrected {
        seat: Seat,
        player: EntryId,
        from: Chips,
        to: Chips,
        concerns: Concerns,
        reason: String,
    },
    /// Chips taken out of play from a stack between hands.
    ChipsRemoved {
        seat: Seat,
        player: EntryId,
        amount: Chips,
        removal: Removal,
        reason: String,
    },
    /// A colour-up's chip race (TDA 24): every stack that put chips up,
    /// with its result; the seed its cards came from when the engine drew
    /// them. The smallest chip in play is `smallest` from here on.
    ColouredUp {
        leaving: Chips,
        smallest: Chips,
        seed: Option<Seed>,
        raced: Vec<Raced>,
    },
    /// An add-on's chips went on a stack between hands.
    AddOnAdded {
        seat: Seat,
        player: EntryId,
        chips: Chips,
    },
    /// A rebuy's chips (the entry's `number`-th) went on a stack between
    /// hands (rule 27).
    RebuyAdded {
        seat: Seat,
        player: EntryId,
        chips: Chips,
        number: u32,
    },
}

impl TableEvent {
    /// The event's type name, as the event log records it.
    pub fn name(&self) -> &'static str {
        match self {
            TableEvent::TableOpened { .. } => "TableOpened",
            TableEvent::PlayerSeated { .. } => "PlayerSeated",
            TableEvent::PlayerRemoved { .. } => "PlayerRemoved",
            TableEvent::AbsenceChanged { .. } => "AbsenceChanged",
            TableEvent::HandStarted { .. } => "HandStarted",
            TableEvent::AntePosted { .. } => "AntePosted",
            TableEvent::BlindPosted { .. } => "BlindPosted",
            TableEvent::HoleCardsDealt { .. } => "HoleCardsDealt",
            TableEvent::HoleCardsEntered { .. } => "HoleCardsEntered",
            TableEvent::HandKilled { .. } => "HandKilled",
            TableEvent::OutOfTurnAction { .. } => "OutOfTurnAction",
            TableEvent::OutOfTurnVoided { .. } => "OutOfTurnVoided",
            TableEvent::ChipsRead { .. } => "ChipsRead",
            TableEvent::ActionBound { .. } => "ActionBound",
            TableEvent::MisdealDeclared { .. } => "MisdealDeclared",
            TableEvent::FloorRuled { .. } => "FloorRuled",
            TableEvent::UndercallForfeited { .. } => "UndercallForfeited",
            TableEvent::PenaltyGiven { .. } => "PenaltyGiven",
            TableEvent::WarningGiven { .. } => "WarningGiven",
            TableEvent::PlayerDisqualified { .. } => "PlayerDisqualified",
            TableEvent::StackSurrendered { .. } => "StackSurrendered",
            TableEvent::NoShowRemoved { .. } => "NoShowRemoved",
            TableEvent::ButtonDrawn { .. } => "ButtonDrawn",
            TableEvent::ClockCalled { .. } => "ClockCalled",
            TableEvent::TimedOut { .. } => "TimedOut",
            TableEvent::ActionTaken { .. } => "ActionTaken",
            TableEvent::StreetDealt { .. } => "StreetDealt",
            TableEvent::CardsShown { .. } => "CardsShown",
            TableEvent::CardsMucked { .. } => "CardsMucked",
            TableEvent::ShowAsked { .. } => "ShowAsked",
            TableEvent::EntropyAdded { .. } => "EntropyAdded",
            TableEvent::SecretRevealed { .. } => "SecretRevealed",
            TableEvent::HandVoided { .. } => "HandVoided",
            TableEvent::UncalledBetReturned { .. } => "UncalledBetReturned",
            TableEvent::PotAwarded { .. } => "PotAwarded",
            TableEvent::HandEnded { .. } => "HandEnded",
            TableEvent::RecordingSet { .. } => "RecordingSet",
            TableEvent::ResultRecorded { .. } => "ResultRecorded",
            TableEvent::StacksCounted { .. } => "StacksCounted",
            TableEvent::StackCorrected { .. } => "StackCorrected",
            TableEvent::ChipsRemoved { .. } => "ChipsRemoved",
            TableEvent::ColouredUp { .. } => "ColouredUp",
            TableEvent::AddOnAdded { .. } => "AddOnAdded",
            TableEvent::RebuyAdded { .. } => "RebuyAdded",
        }
    }
}
