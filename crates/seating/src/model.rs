//! Settings, commands and events.

use serde::{Deserialize, Serialize};

pub use felt_vocabulary::{Chips, EntryId, PlayerId, Seat, TableNo};
/// Randomness handed in (seat draws): 32 bytes for ChaCha20.
pub type Seed = [u8; 32];

/// Which table breaks next (TDA 10: a predetermined procedure).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum BreakOrder {
    #[default]
    HighestNumbered,
    LowestNumbered,
    /// This order first; tables not listed then by highest number.
    Listed(Vec<TableNo>),
    /// The room's layout (its physical tables, `TableNamed`): the table
    /// placed last in the layout first; tables with no physical table
    /// before them, by highest number.
    Layout,
}

/// When tables are balanced and when a short table stops (TDA 11).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Balance {
    /// Tables may differ by this many players before a move (1: within one).
    pub tolerance: u8,
    /// A table this many or more players short of the longest stops until
    /// balanced (TDA 11 in full-table events: 3).
    pub stop_short_by: Option<u8>,
    /// A table with fewer players than this stops (while other tables
    /// play) until balanced (seed 003: play on down to 6, stop at 5).
    pub stop_below: Option<u8>,
}

impl Balance {
    pub const TDA: Balance = Balance {
        tolerance: 1,
        stop_short_by: Some(3),
        stop_below: None,
    };
    /// Seed 003's club rule: keep playing with 6 or more.
    pub const CLUB: Balance = Balance {
        tolerance: 1,
        stop_short_by: None,
        stop_below: Some(6),
    };
}

/// A tournament's seating settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Seats per table (2 to 10; 6, 8, 9 or 10 in practice).
    pub table_size: u8,
    pub starting_stack: Chips,
    /// Registration stays open through this level (0: until play starts).
    pub late_registration_level: u32,
    /// A cap on entries; registrations beyond it are alternates.
    pub max_entries: Option<u32>,
    /// Re-entries allowed per player (0: a freezeout).
    pub re_entries: u32,
    pub balance: Balance,
    pub break_order: BreakOrder,
    /// Players at the final table (RP9; seed 002 sets it per event).
    pub final_table: u8,
    /// Player counts at which every table is redrawn (seed 002, 10C).
    pub redraws_at: Vec<u32>,
    /// The redraw points worked out from the field as seed 002 (10C) sets
    /// them ([`redraws_for_field`]), instead of `redraws_at`.
    #[serde(default)]
    pub redraws_by_field: bool,
    /// Places paid (from payout; 0 until known).
    pub paid: u32,
    /// Hand-for-hand starts this many players from the money (RP8).
    pub hand_for_hand_distance: u32,
    /// Where a disqualified player finishes (a house rule).
    #[serde(default)]
    pub disqualification: Disqualification,
    /// A player may give up their chips to buy a new entry (TDA 8, second
    /// paragraph: where the house allows it).
    #[serde(default)]
    pub re_entry_by_surrender: bool,
    /// Seed 003's late-arrival rule: a player who has not arrived this
    /// many minutes of play after the start, and did not call ahead, may
    /// be replaced by the first alternate (`None`: the TDA's, an absent
    /// player is dealt in and blinded until they arrive, never replaced).
    #[serde(default)]
    pub late_arrival_minutes: Option<u32>,
    /// The add-on the house sells (`None`: none): one per entry, to a
    /// seated player, through the break after its last level.
    #[serde(default)]
    pub add_on: Option<AddOnTerms>,
    /// The rebuys the house sells (`None`: none; rule 27): to a player
    /// who busted (and, under `AtOrBelowStart`, to a seated player whose
    /// stack is at or below the starting stack), up to a limit per entry,
    /// through the break after their last level.
    #[serde(default)]
    pub rebuy: Option<RebuyTerms>,
    /// Each day's end by a count of players ("play down to 36"), day 1
    /// first (0, or a day past the list: none that day): hand-for-hand
    /// as the count nears (`hand_for_hand_distance`), and the day is over
    /// once a round leaves this many or fewer.
    #[serde(default)]
    pub play_down_to: Vec<u32>,
    /// A satellite (its seats come from payout when registration closes):
    /// once registration is closed no hand begins before they are known,
    /// and play stops once no more players are left than seats.
    #[serde(default)]
    pub satellite: bool,
    /// A Day 1 flight of an event (issue 28): its number, from 1 (0: not
    /// a flight). Its entries are numbered from `flight × FLIGHT_ENTRIES +
    /// 1`, so every flight's entries keep their numbers in the event.
    #[serde(default)]
    pub flight: u32,
    /// An event fed by Day 1 flights (`None`: not one): its Day 2 starts
    /// from the flights' sealed bags, a player's stacks taken by this
    /// policy.
    #[serde(default)]
    pub flights: Option<FlightStacks>,
    /// An event's rules for entering its flights (issue 28), checked when
    /// a player enters one of them.
    #[serde(default)]
    pub flight_entries: FlightEntries,
}

/// The span of entry numbers each flight of an event has: flight n's are
/// numbered from n × this + 1 (the event's own from 1).
pub const FLIGHT_ENTRIES: u64 = 10_000_000;

/// Which stacks advance to Day 2 when a player bagged in more than one
/// flight (issue 28): every bagged chip reaches Day 2 or is forfeited.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum FlightStacks {
    /// The largest bag (the earliest flight's of equal bags); the others
    /// are forfeited.
    #[default]
    Best,
    /// The bag of the earliest flight; the later ones are forfeited.
    First,
    /// All of them, added into one stack (the earliest flight's entry).
    Added,
}

/// Who may enter an event's flights, across all of them (issue 28).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlightEntries {
    /// The most entries one player may buy across the event's flights,
    /// re-entries and tickets included (0: no limit beyond each flight's).
    pub per_player: u32,
    /// A player who bagged chips in one flight enters no other: refused at
    /// registration, and an entry bought before the bag in a flight not
    /// yet started is refunded when that flight starts.
    pub none_after_bag: bool,
    /// What a flight bought but not played is refunded (an entry refunded
    /// because its player bagged in another flight).
    #[serde(default)]
    pub unplayed_refund: UnplayedRefund,
}

/// The house's rule for a flight bought but not played (issue 28).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnplayedRefund {
    /// The whole price, fee included.
    #[default]
    Full,
    /// The price less the fee, which the house keeps.
    KeepFee,
}

/// A flight's sealed bag, handed to its event's Day 2.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlightBag {
    /// The flight's number.
    pub flight: u32,
    pub entry: EntryId,
    pub player: PlayerId,
    pub name: String,
    /// The bag's number in its flight.
    pub bag: u32,
    pub chips: Chips,
}

/// A stack that reached the event's Day 2: the entry that plays it, and
/// the bags whose chips it holds (one, or several where they are added).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdvancedStack {
    pub entry: EntryId,
    pub player: PlayerId,
    pub name: String,
    pub chips: Chips,
    pub bags: Vec<EntryId>,
}

/// Where an event's first day after its flights resumes the structure
/// (issue 28): the day it is (the flights were Day 1), and the level and
/// the time left in it the flights' day ended with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DayResume {
    pub day: u32,
    pub level: u32,
    pub remaining_ms: i64,
}

/// How the cage took a payment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PaymentMethod {
    Cash,
    Card,
    Transfer,
    /// A voucher: a satellite's seat, a prize taken as a buy-in.
    Voucher,
    /// A satellite's ticket to this event, redeemed at registration
    /// (`RedeemTicket`; its reference is the ticket's).
    Ticket,
}

/// A satellite's ticket to this event, as the service found it in the
/// satellite's payout: won by `entry` there, held by `holder`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ticket {
    /// The satellite's tournament id.
    pub satellite: String,
    pub entry: EntryId,
    pub holder: PlayerId,
}

impl Ticket {
    /// How the cage's records name it: `<satellite>/<entry>`.
    pub fn reference(&self) -> String {
        format!("{}/{}", self.satellite, self.entry)
    }
}

/// A payment the cage took: how, and its own reference (a card slip, a
/// transfer's id, a voucher's number; at most 64 characters).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Payment {
    pub method: PaymentMethod,
    pub reference: String,
}

/// What a payment bought.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Purchase {
    /// An entry: a buy-in, a re-entry, an alternate's place.
    Entry,
    AddOn,
    /// The entry's `number`-th rebuy.
    Rebuy {
        number: u32,
    },
}

/// Rebuys (rule 27): the chips one puts on a stack, the last level they
/// are sold in (and the break after it), how many an entry may buy, and
/// who may buy one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RebuyTerms {
    pub chips: Chips,
    pub last_level: u32,
    pub limit: u32,
    #[serde(default)]
    pub condition: RebuyCondition,
}

/// Who the house sells a rebuy to. Either way a player who busts while
/// rebuys are sold is offered one before their table's next hand, which
/// waits for their answer: a player cannot let a hand pass (rule 27).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RebuyCondition {
    /// A player at or below the starting stack between their table's
    /// hands, or busted.
    #[default]
    AtOrBelowStart,
    /// Only a player who busted.
    Busted,
}

/// An add-on: the chips it puts on a stack and the last level it is sold
/// in (and the break after it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddOnTerms {
    pub chips: Chips,
    pub last_level: u32,
}

/// Where a disqualified player finishes: the rule books leave it to the
/// house.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Disqualification {
    /// In the place they stood when disqualified, as if out then, and paid
    /// its prize.
    #[default]
    PlacedAsTheyStand,
    /// In no place and paid nothing: the place they stood in is left
    /// empty and its prize forfeited.
    NotPlaced,
}

/// Seed 002, 10C: with 100 to 200 entries (re-entries included), a redraw
/// at twice the table size (18 at tables of 9, 16 at tables of 8); above
/// 200, at three times and twice (27 and 18, or 24 and 16); with fewer,
/// none but the final table's draw. Highest first.
pub fn redraws_for_field(entries: u32, table_size: u8) -> Vec<u32> {
    let size = u32::from(table_size);
    match entries {
        0..100 => Vec::new(),
        100..=200 => vec![2 * size],
        _ => vec![3 * size, 2 * size],
    }
}

impl Settings {
    /// TDA defaults for tables of `size`.
    pub fn tda(table_size: u8, starting_stack: Chips) -> Settings {
        Settings {
            table_size,
            starting_stack,
            late_registration_level: 0,
            max_entries: None,
            re_entries: 0,
            balance: Balance::TDA,
            break_order: BreakOrder::HighestNumbered,
            final_table: table_size,
            redraws_at: Vec::new(),
            redraws_by_field: false,
            paid: 0,
            hand_for_hand_distance: 1,
            disqualification: Disqualification::PlacedAsTheyStand,
            re_entry_by_surrender: false,
            late_arrival_minutes: None,
            add_on: None,
            rebuy: None,
            play_down_to: Vec::new(),
            satellite: false,
            flight: 0,
            flights: None,
            flight_entries: FlightEntries::default(),
        }
    }

    /// The count day `day` (0: day 1) is played down to (0: none).
    pub fn play_down_on(&self, day: u32) -> u32 {
        self.play_down_to.get(day as usize).copied().unwrap_or(0)
    }

    /// Seed 003: tables of 9, 6,000 chips, at most 27 players, play on
    /// down to 6.
    pub fn club() -> Settings {
        Settings {
            max_entries: Some(27),
            balance: Balance::CLUB,
            ..Settings::tda(9, 6_000)
        }
    }
}

/// Why a player was seated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SeatReason {
    /// A late registration or re-entry, at a random open seat (TDA 8).
    LateEntry,
}

/// Why a player was moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MoveReason {
    /// From a long table to a short one (TDA 11).
    Balance,
    /// The table broke (TDA 10).
    TableBroken,
    /// A redraw at a set player count (seed 002, 10C).
    Redraw,
    /// The final table's draw (RP9).
    FinalTable,
    /// The floor moved the player to a seat it named: a player found in
    /// the wrong seat moves to the right one with their current stack
    /// (TDA 7).
    Floor,
    /// A new day (Day 2 and later) starts from the sealed bags with a
    /// fresh random draw for every seat (rule 7).
    NewDay,
}

/// A player the table busted in a hand, as the table recorded it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Elimination {
    pub entry: EntryId,
    /// Their chips when the hand began.
    pub starting_stack: Chips,
    /// The entries that won their last chips (the winners of the highest
    /// pot they were in): their bounty's collectors.
    pub by: Vec<EntryId>,
    /// When it happened (milliseconds since the Unix epoch): the time the
    /// floor gave a fact entered late, else when the table recorded it
    /// (`None` in commands from before seating kept it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occurred_at: Option<i64>,
}

impl Elimination {
    /// A bust the table recorded nothing more of.
    pub fn of(entry: EntryId) -> Elimination {
        Elimination {
            entry,
            starting_stack: 0,
            by: Vec::new(),
            occurred_at: None,
        }
    }
}

/// The busts of one hand held while the floor entered facts late, placed
/// in the order they happened when the floor closed the late entries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LateGroup {
    pub table: TableNo,
    /// When the hand was played (`None`: not known, placed after the
    /// groups whose time is, in the order they were entered).
    pub occurred_at: Option<i64>,
    pub busts: Vec<Elimination>,
}

/// A player moving between seats: removed at `from`, seated at `to` with
/// the chips removed. Until completed, both seats are held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Move {
    pub id: u64,
    pub entry: EntryId,
    pub from: (TableNo, Seat),
    pub to: (TableNo, Seat),
    pub reason: MoveReason,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SeatingCommand {
    Create {
        name: String,
        settings: Settings,
    },
    /// A registration, or a re-entry by a player whose entries are all
    /// busted. `level` is the clock's level now (0 before play). Once
    /// play has started the seat is drawn.
    Register {
        player: PlayerId,
        name: String,
        level: u32,
    },
    /// A registration paid by a satellite's ticket to this event (the
    /// service checked it was won, bound here and worth an entry): as
    /// `Register`, outside the entry cap, the ticket redeemed once.
    RedeemTicket {
        player: PlayerId,
        name: String,
        level: u32,
        ticket: Ticket,
    },
    /// A satellite's seat in this event won (payout's `TicketAwarded`,
    /// carried by a reaction): recorded in the event's ledger of seats
    /// won. A player who already holds one here gets the satellite's
    /// alternative for a second seat: where that is cash
    /// (`cash_if_second`), the ticket is void here and the satellite pays
    /// its value.
    RecordTicket {
        ticket: Ticket,
        cash_if_second: bool,
    },
    /// Many registrations at once (a list imported from presales or a
    /// partner's site): each as `Register` would take it, in order, all or
    /// none.
    RegisterMany {
        /// (player, name) of each.
        players: Vec<(PlayerId, String)>,
        level: u32,
    },
    /// Before play starts only.
    /// An entry leaves before play, refunded (an alternate had paid
    /// nothing in), for `reason` (at most 500 characters).
    Unregister {
        entry: EntryId,
        reason: String,
        /// The house keeps the fee (a flight bought but not played, by its
        /// rule); never from a ticket's entry, which frees the ticket.
        fee_kept: bool,
    },
    /// The director cancels the tournament before play: every entry is
    /// refunded with `reason`, and nothing more happens in it.
    Cancel {
        reason: String,
    },
    /// A purchase (`Register`, `RegisterMany`, `ReEnterBySurrender`,
    /// `SellAddOn` or `SellRebuy`) with the payment the cage took for it:
    /// decided as the purchase, each thing bought recorded as paid so.
    Paid {
        payment: Payment,
        command: Box<SeatingCommand>,
    },
    /// Opens the tables and draws every registered player's seat.
    Start,
    CloseRegistration,
    /// Places paid, from payout; the room is put in order again (the
    /// final table's draw).
    SetPaid {
        paid: u32,
    },
    /// A table asks to deal its next hand: granted, or refused with the reason to wait.
    BeginHand {
        table: TableNo,
    },
    /// The floor starts hand-for-hand (RP8) before seating would (or at a
    /// satellite's or a day's end): every table plays one hand at a time.
    StartHandForHand,
    /// The floor ends hand-for-hand.
    StopHandForHand,
    /// The floor holds a table's next hand while it rules there (the
    /// hand in play, if any, is played out), with the reason it gives.
    HoldTable {
        table: TableNo,
        reason: String,
    },
    /// The floor releases a table it held: it deals again when seating
    /// lets it.
    ReleaseTable {
        table: TableNo,
    },
    /// The floor moves a player to a seat it names (a player in the wrong
    /// seat, TDA 7), with the reason it gives; the player keeps their
    /// current stack. Carried out as any move, between hands.
    MovePlayer {
        entry: EntryId,
        table: TableNo,
        seat: Seat,
        reason: String,
    },
    /// The director accommodates a player with special needs (TDA 9: kept
    /// out of balancing, their table the last to break), or stops.
    Accommodate {
        entry: EntryId,
        accommodated: bool,
        reason: String,
    },
    /// A player with a live entry gives up its chips to buy a new one, where
    /// the house allows it (TDA 8, `Settings::re_entry_by_surrender`): the
    /// old entry is out of the field and its chips leave play; the new one
    /// is seated by the random draw, within the re-entry limit.
    ReEnterBySurrender {
        player: PlayerId,
        name: String,
        level: u32,
    },
    /// The floor seats the next `count` alternates, in the order they
    /// registered, once play has begun and while registration is open:
    /// each becomes an entry with a full stack at a seat drawn at random,
    /// dealt in unless between the small blind and the button (TDA 8).
    SeatAlternates {
        count: u32,
    },
    /// The director disqualifies a player (TDA 71): out of the field now,
    /// placed by the house rule; their table removes them and their chips
    /// from play, between hands.
    Disqualify {
        entry: EntryId,
        reason: String,
    },
    /// The floor records that a player called ahead to say they will be
    /// late (seed 003): they sit out until they arrive, never replaced.
    AnnounceLate {
        entry: EntryId,
    },
    /// The floor replaces a player who never arrived by the first
    /// alternate (seed 003's late-arrival rule), `played` milliseconds of
    /// play after the start (the clock's, handed in by the service): the
    /// player's entry leaves the field, refunded, their seat's chips leave
    /// play, and the alternate becomes an entry seated by the draw.
    ReplaceNoShow {
        entry: EntryId,
        played: u64,
        reason: String,
    },
    /// The room's pool gave a table its physical table: `name` as the room
    /// names it, at `position` in the room's layout (0: filled first).
    NameTable {
        table: TableNo,
        name: String,
        position: u32,
    },
    /// The floor is about to enter facts late (the room ran on paper): the
    /// busts seating hears of from now are held, with the time each
    /// happened, and none is placed until the floor closes the late entries.
    OpenLateEntries {
        reason: String,
    },
    /// The late facts are in: the held busts go out in the order they
    /// happened, hand by hand.
    CloseLateEntries,
    /// The table removed a disqualified player, with the chips that left
    /// play.
    RemovalCompleted {
        entry: EntryId,
        stack: Chips,
    },
    /// The floor sells the add-on to a seated player between hands, the
    /// clock at `level` (the level before a break), handed in by the
    /// service: the chips go to the player's table before its next hand.
    SellAddOn {
        entry: EntryId,
        level: u32,
    },
    /// The table put an add-on's chips on the player's stack.
    AddOnDelivered {
        entry: EntryId,
    },
    /// The floor sells a rebuy to a seated player between hands (rule 27),
    /// the clock at `level`, the player's `stack` as their table has it
    /// after its `hands`-th hand (both read by the service: a hand played
    /// since makes the reading stale and the sale is refused): the chips go
    /// to the table before its next hand, which the player plays with them.
    SellRebuy {
        entry: EntryId,
        level: u32,
        stack: Chips,
        hands: u64,
    },
    /// The table put a rebuy's chips on the player's stack.
    RebuyDelivered {
        entry: EntryId,
    },
    /// A player offered a rebuy when they busted does not take it: their
    /// bust is recorded (with the others of that hand once every offer
    /// there is answered).
    DeclineRebuy {
        entry: EntryId,
    },
    /// The clock passed the rebuys' last level (and its break): no rebuy
    /// is offered or sold from now on.
    CloseRebuys,
    /// The day ends (seed 002, rule 77): the clock stopped and a card
    /// drawn says how many more hands (2 to 5) every table plays; 0 at a
    /// day's last level's end: the hands being played are the last.
    PlayLastHands {
        hands: u8,
    },
    /// The next day started: the tables deal again.
    ResumeDay,
    /// Bag and tag once the day is over: each entry in play with its
    /// stack as its table has it (read by the service), and the tables
    /// that record results only whose stacks are not counted since their
    /// last result (an estimate: refused until the floor counts them).
    BagStacks {
        stacks: Vec<(EntryId, Chips)>,
        #[serde(default)]
        uncounted: Vec<TableNo>,
    },
    /// The player or a staff member confirms a bag's count.
    ConfirmBag {
        entry: EntryId,
        by: crate::BagWitness,
    },
    /// The bags are sealed (every one confirmed by both).
    SealBags,
    /// A satellite's seats, from payout when registration closed: play
    /// stops once no more players are left than seats (each wins one).
    SetSeats {
        seats: u32,
    },
    /// An event's Day 2 from its flights' sealed bags (read by the
    /// service); `out` of the flights' entries bagged nothing (busted on
    /// Day 1), and finish below every bag.
    AdvanceFlights {
        bags: Vec<FlightBag>,
        out: u32,
        /// Where the event's day resumes the structure (read from the
        /// flights' clocks), for the clock to start there.
        resume: Option<DayResume>,
    },
    /// A table's hand ended: where the button and the big blind were, who
    /// busted (with what the table recorded of each bust).
    HandEnded {
        table: TableNo,
        button: Seat,
        big_blind: Seat,
        busted: Vec<Elimination>,
    },
    /// A hand played at a table that records results only, known by its
    /// result: no hand was granted (nobody at the table asks), so it
    /// begins and ends here, and counts as the table's hand-for-hand hand.
    ResultRecorded {
        table: TableNo,
        button: Seat,
        big_blind: Seat,
        busted: Vec<Elimination>,
    },
    /// The table seated a newly seated entry (a redraw may have waited
    /// for it).
    SeatConfirmed {
        entry: EntryId,
    },
    /// Both halves of a move were carried out at the tables (a redraw may
    /// have waited for it).
    MoveCompleted {
        id: u64,
        stack: Chips,
    },
}

impl SeatingCommand {
    /// The purchase with the payment the cage took for it, where it took
    /// one (`None`: the command as it is).
    #[must_use]
    pub fn paid(self, payment: Option<Payment>) -> SeatingCommand {
        match payment {
            Some(payment) => SeatingCommand::Paid {
                payment,
                command: Box::new(self),
            },
            None => self,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SeatingEvent {
    Created {
        name: String,
        settings: Settings,
    },
    Registered {
        entry: EntryId,
        player: PlayerId,
        name: String,
        re_entry: bool,
        alternate: bool,
    },
    Unregistered {
        entry: EntryId,
        /// It was an alternate, so it had paid nothing in (recorded since
        /// payout's refund became a reaction to this event).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        alternate: bool,
        /// Why (empty in events recorded before refunds gave one).
        #[serde(default)]
        reason: String,
        /// The house kept the fee: the refund is the price less it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        fee_kept: bool,
    },
    /// The cage took `payment` for what `entry` bought.
    PaymentTaken {
        entry: EntryId,
        purchase: Purchase,
        payment: Payment,
    },
    AlternatePromoted {
        entry: EntryId,
    },
    Started {
        players: u32,
    },
    RegistrationClosed,
    /// The director cancelled the tournament before play, every entry
    /// refunded (each its own `Unregistered` before this).
    Cancelled {
        reason: String,
    },
    PaidSet {
        paid: u32,
    },
    TableOpened {
        table: TableNo,
        seats: u8,
    },
    /// The random draw when play starts (TDA 7): every registered entry's
    /// seat, each with the starting stack.
    SeatsDrawn {
        stack: Chips,
        seats: Vec<(EntryId, TableNo, Seat)>,
    },
    Seated {
        entry: EntryId,
        table: TableNo,
        seat: Seat,
        stack: Chips,
        reason: SeatReason,
    },
    SeatConfirmed {
        entry: EntryId,
    },
    HandBegun {
        table: TableNo,
    },
    HandEnded {
        table: TableNo,
        button: Seat,
        big_blind: Seat,
        /// The hand-for-hand round the hand was played in (`None` outside
        /// hand-for-hand, and in events recorded before seating kept it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hand_for_hand_round: Option<u64>,
    },
    Busted {
        entry: EntryId,
        table: TableNo,
        /// Their chips when the hand began (0 in events recorded before
        /// seating kept it).
        #[serde(default)]
        starting_stack: Chips,
        /// The entries that won their last chips: their bounty's collectors
        /// (empty in events recorded before seating kept them).
        #[serde(default)]
        by: Vec<EntryId>,
        /// Players left after this bust.
        remaining: u32,
        /// The hand-for-hand round of the hand (busts in the same round at
        /// different tables are simultaneous for the places, RP8).
        hand_for_hand_round: Option<u64>,
        /// When it happened, as the table recorded it or the floor entered
        /// it late.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        occurred_at: Option<i64>,
        /// Held with the late entries: out of the field now, numbered in
        /// the order out when the floor closes them.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        held: bool,
    },
    /// The table will break: its players move at its next hand boundary.
    TableBreaking {
        table: TableNo,
    },
    MoveStarted {
        #[serde(flatten)]
        r#move: Move,
        /// Players at the long table and the short one before the move, or
        /// the count that triggered a redraw.
        detail: String,
    },
    MoveCompleted {
        id: u64,
        stack: Chips,
    },
    /// The player busted at the table they were leaving, in a result the
    /// floor recorded before the move was carried out: they never left
    /// their seat, and the seat held for them is free again.
    MoveVoided {
        id: u64,
    },
    TableClosed {
        table: TableNo,
    },
    /// The floor holds the table's next hand while it rules.
    TableHeld {
        table: TableNo,
        reason: String,
    },
    /// The floor released the table.
    TableReleased {
        table: TableNo,
    },
    /// The director disqualified a player (TDA 71): out of the field now
    /// (`remaining` players after it), placed as they stand or in no
    /// place (`placed`, the house rule). Their seat is held until their
    /// table removes them.
    Disqualified {
        entry: EntryId,
        table: TableNo,
        seat: Seat,
        reason: String,
        placed: bool,
        remaining: u32,
    },
    /// The director accommodates a player with special needs (TDA 9), or
    /// stops: balancing never moves them and their table breaks only when
    /// no other can.
    Accommodated {
        entry: EntryId,
        accommodated: bool,
        reason: String,
    },
    /// The table plays at the room's physical table `name`, at `position`
    /// in the room's layout.
    TableNamed {
        table: TableNo,
        name: String,
        position: u32,
    },
    /// A player called ahead to say they will be late (seed 003): never
    /// replaced as a no-show.
    LateAnnounced {
        entry: EntryId,
    },
    /// A player who never arrived was replaced by the first alternate
    /// (seed 003): their entry left the field (refunded), their seat is
    /// held until the table removes them and its chips from play; the
    /// alternate's promotion and seat follow.
    NoShowReplaced {
        entry: EntryId,
        table: TableNo,
        seat: Seat,
        alternate: EntryId,
        reason: String,
    },
    /// The floor opened the late entries, with its reason: busts are held
    /// until it closes them.
    LateEntriesOpened {
        reason: String,
    },
    /// The floor closed the late entries: the held busts, hand by hand in
    /// the order they happened, are out of the field in that order.
    LateEntriesClosed {
        groups: Vec<LateGroup>,
    },
    /// A player gave up their chips to buy a new entry (TDA 8, where the
    /// house allows it): the entry is out of the field, placed as it
    /// stands, its seat held until the table removes the chips from play;
    /// the new entry's registration follows.
    Surrendered {
        entry: EntryId,
        table: TableNo,
        seat: Seat,
        remaining: u32,
    },
    /// The disqualified player's table removed them: `stack` chips left
    /// play with them (0: they lost their chips in the hand they were
    /// playing).
    RemovalCompleted {
        entry: EntryId,
        stack: Chips,
    },
    /// The floor sold the add-on to the player in `seat` at `table`: its
    /// chips go on their stack before the table's next hand (which waits
    /// for them), its price to the pool.
    AddOnSold {
        entry: EntryId,
        table: TableNo,
        seat: Seat,
        chips: Chips,
    },
    /// The table put the add-on's chips on the player's stack.
    AddOnDelivered {
        entry: EntryId,
        table: TableNo,
        chips: Chips,
    },
    /// The floor sold the entry's `number`-th rebuy (rule 27) to the player
    /// in `seat` at `table`, whose stack was `stack`: its chips go on their
    /// stack before the table's next hand (which waits for them), its price
    /// to the pool.
    RebuySold {
        entry: EntryId,
        table: TableNo,
        seat: Seat,
        chips: Chips,
        stack: Chips,
        number: u32,
    },
    /// The table put the rebuy's chips on the player's stack.
    RebuyDelivered {
        entry: EntryId,
        table: TableNo,
        chips: Chips,
        number: u32,
    },
    /// A hand at `table` ended with busts while rebuys are sold, and the
    /// `offered` among them may rebuy (rule 27): the hand is not over at
    /// seating until each has bought one (`RebuySold`, the player stays in
    /// their seat) or declined (`RebuyDeclined`); then it ends as
    /// `HandEnded` with the `busted` who did not rebuy, placed together.
    RebuysOffered {
        table: TableNo,
        button: Seat,
        big_blind: Seat,
        busted: Vec<Elimination>,
        offered: Vec<EntryId>,
    },
    /// A player offered a rebuy declined it.
    RebuyDeclined {
        entry: EntryId,
        table: TableNo,
    },
    /// The rebuys' window closed with the clock past their last level.
    RebuysClosed,
    /// A satellite's seats set: play stops once no more players are left.
    SeatsSet {
        seats: u32,
    },
    /// A satellite's play is over: no more players are left than seats,
    /// and no hand is being played. Each of `entries` wins a seat.
    SeatsWon {
        entries: Vec<EntryId>,
    },
    /// A satellite's seat in this event won: in the ledger of seats won.
    TicketRecorded {
        ticket: Ticket,
    },
    /// A satellite's seat in this event won by a player who already held
    /// one (`held`, its reference), where that satellite's house pays a
    /// second seat in cash: void here, never redeemed.
    TicketVoided {
        ticket: Ticket,
        held: String,
    },
    /// The flights' bags reached the event (issue 28): each `advanced`
    /// stack is an entry here, seated at the start with its chips; the
    /// `forfeited` bags' chips left play under the policy. `out_before`
    /// of the flights' entries are out before the first bust here (busted
    /// on Day 1, or a bag that did not advance as its own entry).
    FlightsAdvanced {
        advanced: Vec<AdvancedStack>,
        forfeited: Vec<FlightBag>,
        out_before: u32,
        /// Where the event's day resumes the structure (absent in events
        /// recorded before it was kept: the clock then starts at level 1).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resume: Option<DayResume>,
    },
    /// Every table plays `hands` more hands, then waits for the next day
    /// (rule 77).
    LastHandsDrawn {
        hands: u8,
    },
    /// Every table has played the day's last hands: the day is over.
    LastHandsPlayed,
    /// The next day started: the tables deal again.
    DayResumed,
    /// Every survivor's stack bagged at the day's end, each bag numbered
    /// (table and seat order).
    StacksBagged {
        bags: Vec<crate::Bag>,
    },
    /// A bag counted again before the seal (a correction at the table
    /// settled a dispute): its confirmations are cleared.
    BagRecounted {
        entry: EntryId,
        chips: Chips,
    },
    /// The player or a staff member confirmed a bag's count.
    BagConfirmed {
        entry: EntryId,
        by: crate::BagWitness,
    },
    /// The day's bags sealed: `bags` of them, `chips` in all.
    BagsSealed {
        bags: u32,
        chips: Chips,
    },
    /// A redraw (or the final table's draw) is waiting for every table to
    /// finish its hand.
    RedrawCalled {
        players: u32,
        reason: MoveReason,
    },
    /// The redraw's moves were all decided.
    Redrawn {
        reason: MoveReason,
    },
    /// Hand-for-hand began with `remaining` players, playing down to
    /// `paid`: the places paid (RP8), or a day's count of players.
    HandForHandStarted {
        remaining: u32,
        paid: u32,
    },
    /// Every table played its hand-for-hand hand; the next may start.
    HandForHandRound {
        round: u64,
    },
    HandForHandEnded {
        remaining: u32,
        /// The round being played when it ended (`None` in events recorded
        /// before seating kept it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        round: Option<u64>,
    },
    /// The seed the decision's draws (seats, the tables to break, a
    /// redraw) were made from, last among its events: the service drew it
    /// when it decided, so anyone can draw them again from the state
    /// before the decision.
    Drawn {
        seed: Seed,
    },
}

impl SeatingEvent {
    pub fn name(&self) -> &'static str {
        use SeatingEvent::*;
        match self {
            Created { .. } => "Created",
            Registered { .. } => "Registered",
            Unregistered { .. } => "Unregistered",
            PaymentTaken { .. } => "PaymentTaken",
            AlternatePromoted { .. } => "AlternatePromoted",
            Started { .. } => "Started",
            RegistrationClosed => "RegistrationClosed",
            Cancelled { .. } => "Cancelled",
            PaidSet { .. } => "PaidSet",
            SeatsSet { .. } => "SeatsSet",
            SeatsWon { .. } => "SeatsWon",
            TicketRecorded { .. } => "TicketRecorded",
            TicketVoided { .. } => "TicketVoided",
            FlightsAdvanced { .. } => "FlightsAdvanced",
            TableOpened { .. } => "TableOpened",
            SeatsDrawn { .. } => "SeatsDrawn",
            Seated { .. } => "Seated",
            SeatConfirmed { .. } => "SeatConfirmed",
            HandBegun { .. } => "HandBegun",
            HandEnded { .. } => "HandEnded",
            Busted { .. } => "Busted",
            TableBreaking { .. } => "TableBreaking",
            MoveStarted { .. } => "MoveStarted",
            MoveCompleted { .. } => "MoveCompleted",
            MoveVoided { .. } => "MoveVoided",
            TableClosed { .. } => "TableClosed",
            TableHeld { .. } => "TableHeld",
            TableReleased { .. } => "TableReleased",
            Disqualified { .. } => "Disqualified",
            Surrendered { .. } => "Surrendered",
            Accommodated { .. } => "Accommodated",
            TableNamed { .. } => "TableNamed",
            LateAnnounced { .. } => "LateAnnounced",
            NoShowReplaced { .. } => "NoShowReplaced",
            LateEntriesOpened { .. } => "LateEntriesOpened",
            LateEntriesClosed { .. } => "LateEntriesClosed",
            RemovalCompleted { .. } => "RemovalCompleted",
            AddOnSold { .. } => "AddOnSold",
            AddOnDelivered { .. } => "AddOnDelivered",
            RebuySold { .. } => "RebuySold",
            RebuyDelivered { .. } => "RebuyDelivered",
            RebuysOffered { .. } => "RebuysOffered",
            RebuyDeclined { .. } => "RebuyDeclined",
            RebuysClosed => "RebuysClosed",
            LastHandsDrawn { .. } => "LastHandsDrawn",
            LastHandsPlayed => "LastHandsPlayed",
            DayResumed => "DayResumed",
            StacksBagged { .. } => "StacksBagged",
            BagRecounted { .. } => "BagRecounted",
            BagConfirmed { .. } => "BagConfirmed",
            BagsSealed { .. } => "BagsSealed",
            RedrawCalled { .. } => "RedrawCalled",
            Redrawn { .. } => "Redrawn",
            HandForHandStarted { .. } => "HandForHandStarted",
            HandForHandRound { .. } => "HandForHandRound",
            HandForHandEnded { .. } => "HandForHandEnded",
            Drawn { .. } => "Drawn",
        }
    }
}
