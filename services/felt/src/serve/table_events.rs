//! A table's events on the wire, typed (`felt.v1.TableEvent`), and back:
//! the table service sends them, and a service that reaches the table
//! service over gRPC reads them back into the domain's events. The one
//! place the two shapes meet; [`to_wire`] then [`from_wire`] gives back
//! every event the caller may see whole.

use felt_cards::{Card, Category, Commitment, HandRank, Seed};
use felt_proto::v1 as pb;
use felt_proto::v1::table_event as te;
use felt_table::{
    ActionTaken, Blind, Bound, Bust, Carried, Concerns, Deal, Declaration, EntryId, HouseRules,
    Level, OddChips, PenaltyScale, PlayerAction, Recording, Removal, Ruling, Seat, Share,
    ShortBigBlind, Street, TableEvent,
};

/// Why an event from the wire is not a table's event: the field, and
/// what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("table event {field}: {problem}")]
pub(crate) struct Unreadable {
    field: &'static str,
    problem: String,
}

fn bad(field: &'static str, problem: impl Into<String>) -> Unreadable {
    Unreadable {
        field,
        problem: problem.into(),
    }
}

type Read<T> = Result<T, Unreadable>;

fn cards(cs: &[Card]) -> Vec<String> {
    cs.iter().map(ToString::to_string).collect()
}

fn card_list(texts: &[String], field: &'static str) -> Read<Vec<Card>> {
    texts
        .iter()
        .map(|t| t.parse::<Card>().map_err(|e| bad(field, e.to_string())))
        .collect()
}

fn two(texts: &[String], field: &'static str) -> Read<[Card; 2]> {
    match card_list(texts, field)?.as_slice() {
        [a, b] => Ok([*a, *b]),
        other => Err(bad(field, format!("two cards, not {}", other.len()))),
    }
}

fn seat(n: u32, field: &'static str) -> Read<Seat> {
    Seat::try_from(n).map_err(|_| bad(field, format!("{n} is not a seat number")))
}

fn seats(ns: &[u32], field: &'static str) -> Read<Vec<Seat>> {
    ns.iter().map(|&n| seat(n, field)).collect()
}

fn bytes32(b: &[u8], field: &'static str) -> Read<[u8; 32]> {
    b.try_into()
        .map_err(|_| bad(field, format!("32 bytes, not {}", b.len())))
}

fn seat_chips(stacks: &[(Seat, u64)]) -> Vec<pb::SeatChips> {
    stacks
        .iter()
        .map(|&(seat, chips)| pb::SeatChips {
            seat: seat.into(),
            chips,
        })
        .collect()
}

fn from_seat_chips(stacks: &[pb::SeatChips], field: &'static str) -> Read<Vec<(Seat, u64)>> {
    stacks
        .iter()
        .map(|s| Ok((seat(s.seat, field)?, s.chips)))
        .collect()
}

fn level(l: &Level) -> pb::Level {
    super::convert::pb_level(l)
}

fn from_level(l: Option<&pb::Level>) -> Read<Level> {
    let l = l.ok_or_else(|| bad("hand_started.level", "is required"))?;
    Ok(Level {
        small_blind: l.small_blind,
        big_blind: l.big_blind,
        ante: l.ante,
        ante_format: super::convert::known_ante_format(l.ante_format)
            .ok_or_else(|| bad("hand_started.level.ante_format", "unknown value"))?,
        smallest_chip: l.smallest_chip,
    })
}

/// House rules on the wire.
pub(crate) fn rules(r: &HouseRules) -> pb::HouseRules {
    pb::HouseRules {
        short_big_blind: match r.short_big_blind {
            ShortBigBlind::CallFullBlind => pb::ShortBigBlind::CallFullBlind,
            ShortBigBlind::CallAmountPosted => pb::ShortBigBlind::CallAmountPosted,
        }
        .into(),
        odd_chips: match r.odd_chips {
            OddChips::OneEachFromTheButton => pb::OddChips::OneEachFromTheButton,
            OddChips::AllToTheFirstWinner => pb::OddChips::AllToTheFirstWinner,
        }
        .into(),
        penalty_scale: match r.penalty_scale {
            PenaltyScale::Tda => pb::PenaltyScale::Tda,
            PenaltyScale::Series => pb::PenaltyScale::Series,
        }
        .into(),
        substantial_action: match r.substantial_action {
            felt_table::SubstantialAction::Tda => pb::SubstantialAction::Tda,
            felt_table::SubstantialAction::Series => pb::SubstantialAction::Series,
        }
        .into(),
        misdeal_redeal: match r.misdeal_redeal {
            felt_table::MisdealRedeal::ExactCopy => pb::MisdealRedeal::ExactCopy,
            felt_table::MisdealRedeal::AbsentPlay => pb::MisdealRedeal::AbsentPlay,
        }
        .into(),
        reopening: match r.reopening {
            felt_table::Reopening::Cumulative => pb::Reopening::Cumulative,
            felt_table::Reopening::Never => pb::Reopening::Never,
            felt_table::Reopening::HalfRaise => pb::Reopening::HalfRaise,
        }
        .into(),
    }
}

/// What a player carries between seats, on the wire (none: absent).
pub(crate) fn carried(c: &Carried) -> Option<pb::Carried> {
    (!c.is_none()).then_some(pb::Carried {
        penalty_hands: c.penalty_hands,
        absent: c.absent,
        offences: c.offences,
    })
}

/// What a player carries between seats, from the wire.
pub(crate) fn from_carried(c: Option<&pb::Carried>) -> Carried {
    c.map_or_else(Carried::default, |c| Carried {
        penalty_hands: c.penalty_hands,
        absent: c.absent,
        offences: c.offences,
    })
}

fn action(a: &PlayerAction) -> pb::Action {
    use pb::action::Kind;
    let kind = match *a {
        PlayerAction::Fold => Kind::Fold(pb::Fold {}),
        PlayerAction::Check => Kind::Check(pb::Check {}),
        PlayerAction::Call => Kind::Call(pb::Call {}),
        PlayerAction::Bet { to } => Kind::BetTo(to),
        PlayerAction::Raise { to } => Kind::RaiseTo(to),
        PlayerAction::AllIn => Kind::AllIn(pb::AllIn {}),
    };
    pb::Action { kind: Some(kind) }
}

/// A refusal of `convert`'s reading, as this field's.
fn unreadable(field: &'static str) -> impl Fn(tonic::Status) -> Unreadable {
    move |s| bad(field, s.message())
}

fn from_action(a: Option<&pb::Action>, field: &'static str) -> Read<PlayerAction> {
    super::convert::action(a).map_err(unreadable(field))
}

fn declaration(d: &Declaration) -> pb::Declaration {
    use pb::declaration::Kind;
    let kind = match *d {
        Declaration::Call => Kind::Call(pb::Call {}),
        Declaration::Raise => Kind::Raise(pb::RaiseDeclared {}),
        Declaration::AllIn => Kind::AllIn(pb::AllIn {}),
        Declaration::Amount(n) => Kind::Amount(n),
        Declaration::Check => Kind::Check(pb::Check {}),
    };
    pb::Declaration { kind: Some(kind) }
}

fn from_declaration(d: &pb::Declaration) -> Read<Declaration> {
    d.kind
        .as_ref()
        .map(super::convert::declaration)
        .ok_or_else(|| bad("chips_read.declaration", "a declaration is required"))
}

fn ruling(r: &Ruling) -> pb::Ruling {
    use pb::ruling::Kind;
    let kind = match *r {
        Ruling::KillHand { seat } => Kind::KillHandSeat(seat.into()),
        Ruling::AwardPot { seat, pot } => Kind::AwardPot(pb::AwardPot {
            seat: seat.into(),
            // (A hand has at most ten pots.)
            pot: u32::try_from(pot).unwrap_or(u32::MAX),
        }),
        Ruling::FouledDeck => Kind::FouledDeck(pb::FouledDeck {}),
        Ruling::ForfeitUndercall { seat, amount } => Kind::ForfeitUndercall(pb::ForfeitUndercall {
            seat: seat.into(),
            amount,
        }),
    };
    pb::Ruling { kind: Some(kind) }
}

fn from_ruling(r: Option<&pb::Ruling>) -> Read<Ruling> {
    const F: &str = "floor_ruled.ruling";
    super::convert::ruling(r, F).map_err(unreadable(F))
}

/// A street on the wire.
pub(crate) fn street(s: Street) -> pb::Street {
    match s {
        Street::Preflop => pb::Street::Preflop,
        Street::Flop => pb::Street::Flop,
        Street::Turn => pb::Street::Turn,
        Street::River => pb::Street::River,
    }
}

fn category(c: Category) -> pb::HandCategory {
    match c {
        Category::HighCard => pb::HandCategory::HighCard,
        Category::Pair => pb::HandCategory::Pair,
        Category::TwoPair => pb::HandCategory::TwoPair,
        Category::ThreeOfAKind => pb::HandCategory::ThreeOfAKind,
        Category::Straight => pb::HandCategory::Straight,
        Category::Flush => pb::HandCategory::Flush,
        Category::FullHouse => pb::HandCategory::FullHouse,
        Category::FourOfAKind => pb::HandCategory::FourOfAKind,
        Category::StraightFlush => pb::HandCategory::StraightFlush,
    }
}

fn action_record(a: &ActionTaken) -> pb::ActionRecord {
    use pb::action_record::Kind;
    let kind = match *a {
        ActionTaken::Fold => Kind::Fold(pb::Fold {}),
        ActionTaken::Check => Kind::Check(pb::Check {}),
        ActionTaken::Call { amount } => Kind::Call(amount),
        ActionTaken::Bet { to, amount } => Kind::Bet(pb::Wager { to, amount }),
        ActionTaken::Raise { to, amount } => Kind::Raise(pb::Wager { to, amount }),
    };
    pb::ActionRecord { kind: Some(kind) }
}

fn from_action_record(a: Option<&pb::ActionRecord>) -> Read<ActionTaken> {
    use pb::action_record::Kind;
    Ok(match a.and_then(|a| a.kind.as_ref()) {
        Some(Kind::Fold(_)) => ActionTaken::Fold,
        Some(Kind::Check(_)) => ActionTaken::Check,
        Some(Kind::Call(amount)) => ActionTaken::Call { amount: *amount },
        Some(Kind::Bet(w)) => ActionTaken::Bet {
            to: w.to,
            amount: w.amount,
        },
        Some(Kind::Raise(w)) => ActionTaken::Raise {
            to: w.to,
            amount: w.amount,
        },
        None => return Err(bad("action_taken.action", "an action is required")),
    })
}

/// The event for the wire; with `sealed`, a digital deal's seed is left
/// out (the commitment stays).
pub(crate) fn to_wire(e: &TableEvent, sealed: bool) -> pb::TableEvent {
    use te::Kind;
    let kind = match e {
        TableEvent::TableOpened { seats, rules: r } => Kind::TableOpened(te::TableOpened {
            seats: (*seats).into(),
            rules: Some(rules(r)),
        }),
        TableEvent::PlayerSeated {
            seat,
            player,
            stack,
            carried: c,
        } => Kind::PlayerSeated(te::PlayerSeated {
            seat: (*seat).into(),
            entry: player.get(),
            stack: *stack,
            carried: carried(c),
        }),
        TableEvent::PlayerRemoved {
            seat,
            player,
            stack,
            carried: c,
        } => Kind::PlayerRemoved(te::PlayerRemoved {
            seat: (*seat).into(),
            entry: player.get(),
            stack: *stack,
            carried: carried(c),
        }),
        TableEvent::AbsenceChanged { seat, absent } => Kind::AbsenceChanged(te::AbsenceChanged {
            seat: (*seat).into(),
            absent: *absent,
        }),
        TableEvent::HandStarted {
            number,
            level: l,
            button,
            small_blind,
            big_blind,
            stacks,
            deal,
            commitment,
        } => Kind::HandStarted(te::HandStarted {
            number: *number,
            level: Some(level(l)),
            button: (*button).into(),
            small_blind: small_blind.map(u32::from),
            big_blind: (*big_blind).into(),
            stacks: seat_chips(stacks),
            deal: Some(pb::DealRecord {
                kind: Some(match deal {
                    Deal::Physical => pb::deal_record::Kind::Physical(pb::PhysicalDeal {}),
                    Deal::Digital { .. } if sealed => {
                        pb::deal_record::Kind::Sealed(pb::SealedDeal {})
                    }
                    Deal::Digital { seed } => pb::deal_record::Kind::Seed(seed.0.to_vec()),
                    Deal::Shared { seed } => pb::deal_record::Kind::Shared(pb::SharedDealRecord {
                        secret: if sealed { Vec::new() } else { seed.0.to_vec() },
                    }),
                }),
            }),
            commitment: commitment.map(|c| c.0.to_vec()).unwrap_or_default(),
        }),
        TableEvent::AntePosted { seat, amount } => Kind::AntePosted(te::AntePosted {
            seat: (*seat).into(),
            amount: *amount,
        }),
        TableEvent::BlindPosted {
            seat,
            blind,
            amount,
        } => Kind::BlindPosted(te::BlindPosted {
            seat: (*seat).into(),
            blind: match blind {
                Blind::Small => pb::Blind::Small,
                Blind::Big => pb::Blind::Big,
            }
            .into(),
            amount: *amount,
        }),
        TableEvent::HoleCardsDealt { cards: dealt } => Kind::HoleCardsDealt(te::HoleCardsDealt {
            cards: dealt
                .iter()
                .map(|(seat, c)| pb::SeatCards {
                    seat: (*seat).into(),
                    cards: c.map(|c| cards(&c)).unwrap_or_default(),
                })
                .collect(),
        }),
        TableEvent::HoleCardsEntered { seat, cards: c } => {
            Kind::HoleCardsEntered(te::HoleCardsEntered {
                seat: (*seat).into(),
                cards: cards(c),
            })
        }
        TableEvent::HandKilled { seat, reason } => Kind::HandKilled(te::HandKilled {
            seat: (*seat).into(),
            reason: reason.clone(),
        }),
        TableEvent::OutOfTurnAction {
            seat,
            action: a,
            facing,
        } => Kind::OutOfTurnAction(te::OutOfTurnAction {
            seat: (*seat).into(),
            action: Some(action(a)),
            facing: *facing,
        }),
        TableEvent::OutOfTurnVoided { seat, reason } => {
            Kind::OutOfTurnVoided(te::OutOfTurnVoided {
                seat: (*seat).into(),
                reason: reason.clone(),
            })
        }
        TableEvent::ChipsRead {
            seat,
            chips,
            declaration: d,
            in_front,
            read_as,
            rule,
        } => Kind::ChipsRead(te::ChipsRead {
            seat: (*seat).into(),
            chips: chips.clone(),
            declaration: d.as_ref().map(declaration),
            in_front: in_front.as_ref().map(|chips| pb::ChipsInFront {
                chips: chips.clone(),
            }),
            read_as: Some(action(read_as)),
            rule: rule.clone(),
        }),
        TableEvent::MisdealDeclared { number, reason } => {
            Kind::MisdealDeclared(te::MisdealDeclared {
                number: *number,
                reason: reason.clone(),
            })
        }
        TableEvent::FloorRuled { ruling: r, reason } => Kind::FloorRuled(te::FloorRuled {
            ruling: Some(ruling(r)),
            reason: reason.clone(),
        }),
        TableEvent::UndercallForfeited { seat, amount } => {
            Kind::UndercallForfeited(te::UndercallForfeited {
                seat: (*seat).into(),
                amount: *amount,
            })
        }
        TableEvent::PenaltyGiven {
            seat,
            player,
            hands,
            offence,
            reason,
        } => Kind::PenaltyGiven(te::PenaltyGiven {
            seat: (*seat).into(),
            entry: player.get(),
            hands: *hands,
            offence: *offence,
            reason: reason.clone(),
        }),
        TableEvent::PlayerDisqualified {
            seat,
            player,
            stack,
            reason,
        } => Kind::PlayerDisqualified(te::PlayerDisqualified {
            seat: (*seat).into(),
            entry: player.get(),
            stack: *stack,
            reason: reason.clone(),
        }),
        TableEvent::StackSurrendered {
            seat,
            player,
            stack,
        } => Kind::StackSurrendered(te::StackSurrendered {
            seat: (*seat).into(),
            entry: player.get(),
            stack: *stack,
        }),
        TableEvent::NoShowRemoved {
            seat,
            player,
            stack,
        } => Kind::NoShowRemoved(te::NoShowRemoved {
            seat: (*seat).into(),
            entry: player.get(),
            stack: *stack,
        }),
        TableEvent::WarningGiven {
            seat,
            player,
            offence,
            reason,
        } => Kind::WarningGiven(te::WarningGiven {
            seat: (*seat).into(),
            entry: player.get(),
            offence: *offence,
            reason: reason.clone(),
        }),
        TableEvent::ClockCalled { seat } => Kind::ClockCalled(te::ClockCalled {
            seat: (*seat).into(),
        }),
        TableEvent::TimedOut { seat } => Kind::TimedOut(te::TimedOut {
            seat: (*seat).into(),
        }),
        TableEvent::ActionTaken {
            seat,
            action: a,
            all_in,
        } => Kind::ActionTaken(te::ActionTaken {
            seat: (*seat).into(),
            action: Some(action_record(a)),
            all_in: *all_in,
        }),
        TableEvent::StreetDealt {
            street: s,
            cards: c,
            burn,
        } => Kind::StreetDealt(te::StreetDealt {
            street: street(*s).into(),
            cards: cards(c),
            burn: burn.map(|b| b.to_string()).unwrap_or_default(),
        }),
        TableEvent::CardsShown { seat, cards: c } => Kind::CardsShown(te::CardsShown {
            seat: (*seat).into(),
            cards: cards(c),
        }),
        TableEvent::CardsMucked { seat } => Kind::CardsMucked(te::CardsMucked {
            seat: (*seat).into(),
        }),
        TableEvent::ButtonDrawn {
            seed,
            cards: drawn,
            button,
        } => Kind::ButtonDrawn(te::ButtonDrawn {
            seed: seed.0.to_vec(),
            cards: drawn
                .iter()
                .map(|(s, c)| pb::SeatCard {
                    seat: (*s).into(),
                    card: c.to_string(),
                })
                .collect(),
            button: (*button).into(),
        }),
        TableEvent::EntropyAdded { entropy } => Kind::EntropyAdded(te::EntropyAdded {
            entropy: entropy.0.to_vec(),
        }),
        TableEvent::SecretRevealed { secret } => Kind::SecretRevealed(te::SecretRevealed {
            secret: secret.0.to_vec(),
        }),
        TableEvent::ShowAsked { seat, by } => Kind::ShowAsked(te::ShowAsked {
            seat: (*seat).into(),
            by: (*by).into(),
        }),
        TableEvent::HandVoided { number } => Kind::HandVoided(te::HandVoided { number: *number }),
        TableEvent::ActionBound { seat, bound, rule } => Kind::ActionBound(te::ActionBound {
            seat: (*seat).into(),
            bound: match bound {
                Bound::CallOrFold => pb::Bound::CallOrFold,
                Bound::CallOrRaise => pb::Bound::CallOrRaise,
            }
            .into(),
            rule: rule.clone(),
        }),
        TableEvent::UncalledBetReturned { seat, amount } => {
            Kind::UncalledBetReturned(te::UncalledBetReturned {
                seat: (*seat).into(),
                amount: *amount,
            })
        }
        TableEvent::PotAwarded {
            pot,
            amount,
            eligible,
            shares,
        } => Kind::PotAwarded(te::PotAwarded {
            // (A hand has at most ten pots.)
            pot: u32::try_from(*pot).unwrap_or(u32::MAX),
            amount: *amount,
            eligible: eligible.iter().map(|&s| s.into()).collect(),
            shares: shares
                .iter()
                .map(|s| pb::PotShare {
                    seat: s.seat.into(),
                    amount: s.amount,
                    rank: s.rank.map(|r| pb::HandRank {
                        value: r.0.into(),
                        category: category(r.category()).into(),
                    }),
                })
                .collect(),
        }),
        TableEvent::HandEnded {
            number,
            stacks,
            busted,
        } => Kind::HandEnded(te::HandEnded {
            number: *number,
            stacks: seat_chips(stacks),
            busted: busts(busted),
        }),
        TableEvent::RecordingSet { recording, reason } => Kind::RecordingSet(te::RecordingSet {
            recording: super::convert::recording(*recording).into(),
            reason: reason.clone(),
        }),
        TableEvent::ResultRecorded {
            number,
            button,
            small_blind,
            big_blind,
            busted,
            shares,
            occurred_at,
        } => Kind::ResultRecorded(te::ResultRecorded {
            number: *number,
            button: (*button).into(),
            small_blind: small_blind.map(u32::from),
            big_blind: (*big_blind).into(),
            busted: busts(busted),
            shares: seat_chips(shares),
            occurred_at_ms: *occurred_at,
        }),
        TableEvent::StacksCounted {
            count,
            stacks,
            expected,
            counted,
        } => Kind::StacksCounted(te::StacksCounted {
            count: count.clone(),
            stacks: seat_chips(stacks),
            expected: *expected,
            counted: *counted,
        }),
        TableEvent::StackCorrected {
            seat,
            player,
            from,
            to,
            concerns: c,
            reason,
        } => Kind::StackCorrected(te::StackCorrected {
            seat: (*seat).into(),
            entry: player.get(),
            from: *from,
            to: *to,
            concerns: Some(concerns(c)),
            reason: reason.clone(),
        }),
        TableEvent::ChipsRemoved {
            seat,
            player,
            amount,
            removal: r,
            reason,
        } => Kind::ChipsRemoved(te::ChipsRemoved {
            seat: (*seat).into(),
            entry: player.get(),
            amount: *amount,
            removal: removal(*r).into(),
            reason: reason.clone(),
        }),
        TableEvent::AddOnAdded {
            seat,
            player,
            chips,
        } => Kind::AddOnAdded(te::AddOnAdded {
            seat: (*seat).into(),
            entry: player.get(),
            chips: *chips,
        }),
        TableEvent::RebuyAdded {
            seat,
            player,
            chips,
            number,
        } => Kind::RebuyAdded(te::RebuyAdded {
            seat: (*seat).into(),
            entry: player.get(),
            chips: *chips,
            number: *number,
        }),
        TableEvent::ColouredUp {
            leaving,
            smallest,
            seed,
            raced,
        } => Kind::ColouredUp(te::ColouredUp {
            leaving: *leaving,
            smallest: *smallest,
            seed: seed.map(|s| s.0.to_vec()).unwrap_or_default(),
            raced: raced
                .iter()
                .map(|r| te::Raced {
                    seat: r.seat.into(),
                    entry: r.player.get(),
                    before: r.before,
                    odd: r.odd,
                    cards: r.cards.iter().map(ToString::to_string).collect(),
                    won: r.won,
                    saved: r.saved,
                    after: r.after,
                })
                .collect(),
        }),
    };
    pb::TableEvent { kind: Some(kind) }
}

/// What a correction concerns, on the wire.
pub(crate) fn concerns(c: &Concerns) -> pb::Concerns {
    use pb::concerns::Kind;
    pb::Concerns {
        kind: Some(match c {
            Concerns::Hand(n) => Kind::Hand(*n),
            Concerns::Moment(m) => Kind::Moment(m.clone()),
        }),
    }
}

/// What a correction concerns, from the wire.
pub(crate) fn from_concerns(
    c: Option<&pb::Concerns>,
    field: &'static str,
) -> Result<Concerns, String> {
    use pb::concerns::Kind;
    match c.and_then(|c| c.kind.as_ref()) {
        Some(Kind::Hand(n)) => Ok(Concerns::Hand(*n)),
        Some(Kind::Moment(m)) => Ok(Concerns::Moment(m.clone())),
        None => Err(format!("{field}: a hand's number or a moment is required")),
    }
}

/// Why chips left play, on the wire.
pub(crate) fn removal(r: Removal) -> pb::Removal {
    match r {
        Removal::Hidden => pb::Removal::Hidden,
        Removal::Director => pb::Removal::Director,
    }
}

/// Why chips leave play, from the wire.
pub(crate) fn from_removal(r: i32, field: &'static str) -> Result<Removal, String> {
    match pb::Removal::try_from(r) {
        Ok(pb::Removal::Hidden) => Ok(Removal::Hidden),
        Ok(pb::Removal::Director) => Ok(Removal::Director),
        _ => Err(format!(
            "{field}: REMOVAL_HIDDEN or REMOVAL_DIRECTOR is required"
        )),
    }
}

fn busts(busted: &[Bust]) -> Vec<pb::TableBust> {
    busted
        .iter()
        .map(|b| pb::TableBust {
            seat: b.seat.into(),
            entry: b.player.get(),
            starting_stack: b.starting_stack,
            by: b.by.iter().map(|e| e.get()).collect(),
        })
        .collect()
}

fn from_busts(busted: &[pb::TableBust], field: &'static str) -> Read<Vec<Bust>> {
    busted
        .iter()
        .map(|b| {
            Ok(Bust {
                seat: seat(b.seat, field)?,
                player: EntryId(b.entry),
                starting_stack: b.starting_stack,
                by: b.by.iter().map(|&e| EntryId(e)).collect(),
            })
        })
        .collect()
}

/// The event an `Event` carries, as [`from_wire`] reads it.
pub(crate) fn from_event(e: &pb::Event) -> Read<TableEvent> {
    let event = from_wire(
        e.event
            .as_ref()
            .ok_or_else(|| bad("event", "is required"))?,
    )?;
    if event.name() != e.r#type {
        return Err(bad(
            "type",
            format!("{:?} names another event than a {}", e.r#type, event.name()),
        ));
    }
    Ok(event)
}

/// A table's event from the wire, as the table service recorded it. A
/// sealed deal, or hole cards the caller was not shown, cannot be read
/// back whole: only a caller that sees every card (felt's own services)
/// reads events back.
pub(crate) fn from_wire(e: &pb::TableEvent) -> Read<TableEvent> {
    use te::Kind;
    let kind = e
        .kind
        .as_ref()
        .ok_or_else(|| bad("kind", "one event is required"))?;
    Ok(match kind {
        Kind::TableOpened(o) => TableEvent::TableOpened {
            seats: u8::try_from(o.seats).map_err(|_| bad("table_opened.seats", "at most 10"))?,
            rules: super::convert::rules(o.rules.as_ref()),
        },
        Kind::PlayerSeated(p) => TableEvent::PlayerSeated {
            seat: seat(p.seat, "player_seated.seat")?,
            player: EntryId(p.entry),
            stack: p.stack,
            carried: from_carried(p.carried.as_ref()),
        },
        Kind::PlayerRemoved(p) => TableEvent::PlayerRemoved {
            seat: seat(p.seat, "player_removed.seat")?,
            player: EntryId(p.entry),
            stack: p.stack,
            carried: from_carried(p.carried.as_ref()),
        },
        Kind::AbsenceChanged(a) => TableEvent::AbsenceChanged {
            seat: seat(a.seat, "absence_changed.seat")?,
            absent: a.absent,
        },
        Kind::HandStarted(h) => {
            const F: &str = "hand_started.deal";
            let deal = match h.deal.as_ref().and_then(|d| d.kind.as_ref()) {
                Some(pb::deal_record::Kind::Physical(_)) => Deal::Physical,
                Some(pb::deal_record::Kind::Seed(seed)) => Deal::Digital {
                    seed: Seed(bytes32(seed, F)?),
                },
                Some(pb::deal_record::Kind::Shared(r)) => Deal::Shared {
                    seed: Seed(bytes32(&r.secret, F)?),
                },
                Some(pb::deal_record::Kind::Sealed(_)) => {
                    return Err(bad(F, "the seed is sealed: the hand cannot be read back"));
                }
                None => return Err(bad(F, "a deal is required")),
            };
            TableEvent::HandStarted {
                number: h.number,
                level: from_level(h.level.as_ref())?,
                button: seat(h.button, "hand_started.button")?,
                small_blind: h
                    .small_blind
                    .map(|s| seat(s, "hand_started.small_blind"))
                    .transpose()?,
                big_blind: seat(h.big_blind, "hand_started.big_blind")?,
                stacks: from_seat_chips(&h.stacks, "hand_started.stacks")?,
                deal,
                commitment: if h.commitment.is_empty() {
                    None
                } else {
                    Some(Commitment(bytes32(
                        &h.commitment,
                        "hand_started.commitment",
                    )?))
                },
            }
        }
        Kind::AntePosted(a) => TableEvent::AntePosted {
            seat: seat(a.seat, "ante_posted.seat")?,
            amount: a.amount,
        },
        Kind::BlindPosted(b) => TableEvent::BlindPosted {
            seat: seat(b.seat, "blind_posted.seat")?,
            blind: match pb::Blind::try_from(b.blind) {
                Ok(pb::Blind::Small) => Blind::Small,
                Ok(pb::Blind::Big) => Blind::Big,
                _ => return Err(bad("blind_posted.blind", "small or big")),
            },
            amount: b.amount,
        },
        Kind::HoleCardsDealt(d) => TableEvent::HoleCardsDealt {
            cards: d
                .cards
                .iter()
                .map(|s| {
                    const F: &str = "hole_cards_dealt.cards";
                    let cards = if s.cards.is_empty() {
                        None
                    } else {
                        Some(two(&s.cards, F)?)
                    };
                    Ok((seat(s.seat, F)?, cards))
                })
                .collect::<Read<_>>()?,
        },
        Kind::HoleCardsEntered(h) => TableEvent::HoleCardsEntered {
            seat: seat(h.seat, "hole_cards_entered.seat")?,
            cards: two(&h.cards, "hole_cards_entered.cards")?,
        },
        Kind::HandKilled(k) => TableEvent::HandKilled {
            seat: seat(k.seat, "hand_killed.seat")?,
            reason: k.reason.clone(),
        },
        Kind::OutOfTurnAction(a) => TableEvent::OutOfTurnAction {
            seat: seat(a.seat, "out_of_turn_action.seat")?,
            action: from_action(a.action.as_ref(), "out_of_turn_action.action")?,
            facing: a.facing,
        },
        Kind::OutOfTurnVoided(v) => TableEvent::OutOfTurnVoided {
            seat: seat(v.seat, "out_of_turn_voided.seat")?,
            reason: v.reason.clone(),
        },
        Kind::ChipsRead(c) => TableEvent::ChipsRead {
            seat: seat(c.seat, "chips_read.seat")?,
            chips: c.chips.clone(),
            declaration: c.declaration.as_ref().map(from_declaration).transpose()?,
            in_front: c.in_front.as_ref().map(|f| f.chips.clone()),
            read_as: from_action(c.read_as.as_ref(), "chips_read.read_as")?,
            rule: c.rule.clone(),
        },
        Kind::MisdealDeclared(m) => TableEvent::MisdealDeclared {
            number: m.number,
            reason: m.reason.clone(),
        },
        Kind::FloorRuled(r) => TableEvent::FloorRuled {
            ruling: from_ruling(r.ruling.as_ref())?,
            reason: r.reason.clone(),
        },
        Kind::UndercallForfeited(u) => TableEvent::UndercallForfeited {
            seat: seat(u.seat, "undercall_forfeited.seat")?,
            amount: u.amount,
        },
        Kind::PenaltyGiven(p) => TableEvent::PenaltyGiven {
            seat: seat(p.seat, "penalty_given.seat")?,
            player: EntryId(p.entry),
            hands: p.hands,
            offence: p.offence,
            reason: p.reason.clone(),
        },
        Kind::PlayerDisqualified(d) => TableEvent::PlayerDisqualified {
            seat: seat(d.seat, "player_disqualified.seat")?,
            player: EntryId(d.entry),
            stack: d.stack,
            reason: d.reason.clone(),
        },
        Kind::StackSurrendered(s) => TableEvent::StackSurrendered {
            seat: seat(s.seat, "stack_surrendered.seat")?,
            player: EntryId(s.entry),
            stack: s.stack,
        },
        Kind::NoShowRemoved(s) => TableEvent::NoShowRemoved {
            seat: seat(s.seat, "no_show_removed.seat")?,
            player: EntryId(s.entry),
            stack: s.stack,
        },
        Kind::WarningGiven(w) => TableEvent::WarningGiven {
            seat: seat(w.seat, "warning_given.seat")?,
            player: EntryId(w.entry),
            offence: w.offence,
            reason: w.reason.clone(),
        },
        Kind::ClockCalled(c) => TableEvent::ClockCalled {
            seat: seat(c.seat, "clock_called.seat")?,
        },
        Kind::TimedOut(t) => TableEvent::TimedOut {
            seat: seat(t.seat, "timed_out.seat")?,
        },
        Kind::ActionTaken(a) => TableEvent::ActionTaken {
            seat: seat(a.seat, "action_taken.seat")?,
            action: from_action_record(a.action.as_ref())?,
            all_in: a.all_in,
        },
        Kind::StreetDealt(s) => TableEvent::StreetDealt {
            street: match pb::Street::try_from(s.street) {
                Ok(pb::Street::Preflop) => Street::Preflop,
                Ok(pb::Street::Flop) => Street::Flop,
                Ok(pb::Street::Turn) => Street::Turn,
                Ok(pb::Street::River) => Street::River,
                _ => return Err(bad("street_dealt.street", "preflop, flop, turn or river")),
            },
            cards: card_list(&s.cards, "street_dealt.cards")?,
            burn: if s.burn.is_empty() {
                None
            } else {
                Some(
                    s.burn
                        .parse::<Card>()
                        .map_err(|e| bad("street_dealt.burn", e.to_string()))?,
                )
            },
        },
        Kind::CardsShown(c) => TableEvent::CardsShown {
            seat: seat(c.seat, "cards_shown.seat")?,
            cards: two(&c.cards, "cards_shown.cards")?,
        },
        Kind::CardsMucked(c) => TableEvent::CardsMucked {
            seat: seat(c.seat, "cards_mucked.seat")?,
        },
        Kind::ButtonDrawn(b) => TableEvent::ButtonDrawn {
            seed: Seed(bytes32(&b.seed, "button_drawn.seed")?),
            cards: b
                .cards
                .iter()
                .map(|c| {
                    Ok((
                        seat(c.seat, "button_drawn.cards.seat")?,
                        c.card
                            .parse::<Card>()
                            .map_err(|e| bad("button_drawn.cards.card", e.to_string()))?,
                    ))
                })
                .collect::<Read<_>>()?,
            button: seat(b.button, "button_drawn.button")?,
        },
        Kind::EntropyAdded(e) => TableEvent::EntropyAdded {
            entropy: Seed(bytes32(&e.entropy, "entropy_added.entropy")?),
        },
        Kind::SecretRevealed(r) => TableEvent::SecretRevealed {
            secret: Seed(bytes32(&r.secret, "secret_revealed.secret")?),
        },
        Kind::ShowAsked(a) => TableEvent::ShowAsked {
            seat: seat(a.seat, "show_asked.seat")?,
            by: seat(a.by, "show_asked.by")?,
        },
        Kind::HandVoided(v) => TableEvent::HandVoided { number: v.number },
        Kind::ActionBound(b) => TableEvent::ActionBound {
            seat: seat(b.seat, "action_bound.seat")?,
            bound: match b.bound() {
                pb::Bound::CallOrFold => Bound::CallOrFold,
                pb::Bound::CallOrRaise => Bound::CallOrRaise,
                pb::Bound::Unspecified => {
                    return Err(bad("action_bound.bound", "a bound is required"));
                }
            },
            rule: b.rule.clone(),
        },
        Kind::UncalledBetReturned(u) => TableEvent::UncalledBetReturned {
            seat: seat(u.seat, "uncalled_bet_returned.seat")?,
            amount: u.amount,
        },
        Kind::PotAwarded(p) => TableEvent::PotAwarded {
            pot: usize::try_from(p.pot).map_err(|_| bad("pot_awarded.pot", "too large"))?,
            amount: p.amount,
            eligible: seats(&p.eligible, "pot_awarded.eligible")?,
            shares: p
                .shares
                .iter()
                .map(|s| {
                    const F: &str = "pot_awarded.shares";
                    Ok(Share {
                        seat: seat(s.seat, F)?,
                        amount: s.amount,
                        rank: s
                            .rank
                            .as_ref()
                            .map(|r| {
                                u16::try_from(r.value)
                                    .ok()
                                    .filter(|v| (1..=HandRank::COUNT).contains(v))
                                    .map(HandRank)
                                    .ok_or_else(|| bad(F, format!("no hand ranks {}", r.value)))
                            })
                            .transpose()?,
                    })
                })
                .collect::<Read<_>>()?,
        },
        Kind::HandEnded(h) => TableEvent::HandEnded {
            number: h.number,
            stacks: from_seat_chips(&h.stacks, "hand_ended.stacks")?,
            busted: from_busts(&h.busted, "hand_ended.busted")?,
        },
        Kind::RecordingSet(r) => TableEvent::RecordingSet {
            recording: match pb::Recording::try_from(r.recording) {
                Ok(pb::Recording::Actions) => Recording::Actions,
                Ok(pb::Recording::ResultsOnly) => Recording::ResultsOnly,
                _ => return Err(bad("recording_set.recording", "a recording is required")),
            },
            reason: r.reason.clone(),
        },
        Kind::ResultRecorded(r) => TableEvent::ResultRecorded {
            number: r.number,
            button: seat(r.button, "result_recorded.button")?,
            small_blind: r
                .small_blind
                .map(|s| seat(s, "result_recorded.small_blind"))
                .transpose()?,
            big_blind: seat(r.big_blind, "result_recorded.big_blind")?,
            busted: from_busts(&r.busted, "result_recorded.busted")?,
            shares: from_seat_chips(&r.shares, "result_recorded.shares")?,
            occurred_at: r.occurred_at_ms,
        },
        Kind::StacksCounted(c) => TableEvent::StacksCounted {
            count: c.count.clone(),
            stacks: from_seat_chips(&c.stacks, "stacks_counted.stacks")?,
            expected: c.expected,
            counted: c.counted,
        },
        Kind::StackCorrected(c) => TableEvent::StackCorrected {
            seat: seat(c.seat, "stack_corrected.seat")?,
            player: EntryId(c.entry),
            from: c.from,
            to: c.to,
            concerns: from_concerns(c.concerns.as_ref(), "stack_corrected.concerns")
                .map_err(|e| bad("stack_corrected.concerns", e))?,
            reason: c.reason.clone(),
        },
        Kind::ChipsRemoved(r) => TableEvent::ChipsRemoved {
            seat: seat(r.seat, "chips_removed.seat")?,
            player: EntryId(r.entry),
            amount: r.amount,
            removal: from_removal(r.removal, "chips_removed.removal")
                .map_err(|e| bad("chips_removed.removal", e))?,
            reason: r.reason.clone(),
        },
        Kind::AddOnAdded(a) => TableEvent::AddOnAdded {
            seat: seat(a.seat, "add_on_added.seat")?,
            player: EntryId(a.entry),
            chips: a.chips,
        },
        Kind::RebuyAdded(r) => TableEvent::RebuyAdded {
            seat: seat(r.seat, "rebuy_added.seat")?,
            player: EntryId(r.entry),
            chips: r.chips,
            number: r.number,
        },
        Kind::ColouredUp(c) => TableEvent::ColouredUp {
            leaving: c.leaving,
            smallest: c.smallest,
            seed: if c.seed.is_empty() {
                None
            } else {
                Some(Seed(bytes32(&c.seed, "coloured_up.seed")?))
            },
            raced: c
                .raced
                .iter()
                .map(|r| {
                    Ok(felt_table::Raced {
                        seat: seat(r.seat, "coloured_up.raced.seat")?,
                        player: EntryId(r.entry),
                        before: r.before,
                        odd: r.odd,
                        cards: r
                            .cards
                            .iter()
                            .map(|c| {
                                c.parse::<Card>()
                                    .map_err(|e| bad("coloured_up.raced.cards", e.to_string()))
                            })
                            .collect::<Result<_, _>>()?,
                        won: r.won,
                        saved: r.saved,
                        after: r.after,
                    })
                })
                .collect::<Result<_, _>>()?,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(text: &str) -> Card {
        text.parse().unwrap()
    }

    /// One of every event a table records, its options both set and not.
    fn every_event() -> Vec<TableEvent> {
        let seed = Seed([7; 32]);
        vec![
            TableEvent::TableOpened {
                seats: 9,
                rules: HouseRules::POKERKIT,
            },
            TableEvent::TableOpened {
                seats: 8,
                rules: HouseRules {
                    penalty_scale: PenaltyScale::Series,
                    substantial_action: felt_table::SubstantialAction::Series,
                    misdeal_redeal: felt_table::MisdealRedeal::AbsentPlay,
                    reopening: felt_table::Reopening::HalfRaise,
                    ..HouseRules::default()
                },
            },
            TableEvent::PlayerSeated {
                seat: 3,
                player: EntryId(1_234),
                stack: 20_000,
                carried: Carried::default(),
            },
            TableEvent::PlayerRemoved {
                seat: 3,
                player: EntryId(1_234),
                stack: 18_500,
                carried: Carried {
                    penalty_hands: 4,
                    absent: true,
                    offences: 2,
                },
            },
            TableEvent::PlayerSeated {
                seat: 7,
                player: EntryId(1_234),
                stack: 18_500,
                carried: Carried {
                    penalty_hands: 4,
                    absent: true,
                    offences: 2,
                },
            },
            TableEvent::AbsenceChanged {
                seat: 4,
                absent: true,
            },
            TableEvent::HandStarted {
                number: 12,
                level: Level {
                    small_blind: 100,
                    big_blind: 200,
                    ante: 200,
                    ante_format: felt_table::AnteFormat::BigBlind,
                    smallest_chip: 25,
                },
                button: 2,
                small_blind: Some(3),
                big_blind: 4,
                stacks: vec![(2, 10_000), (3, 9_000), (4, 12_000)],
                deal: Deal::Digital { seed },
                commitment: Some(seed.commitment()),
            },
            TableEvent::HandStarted {
                number: 13,
                level: Level::blinds(100, 200),
                button: 3,
                small_blind: None,
                big_blind: 4,
                stacks: vec![(3, 9_000), (4, 12_000)],
                deal: Deal::Physical,
                commitment: None,
            },
            TableEvent::AntePosted {
                seat: 4,
                amount: 200,
            },
            TableEvent::BlindPosted {
                seat: 3,
                blind: Blind::Small,
                amount: 100,
            },
            TableEvent::BlindPosted {
                seat: 4,
                blind: Blind::Big,
                amount: 200,
            },
            TableEvent::HoleCardsDealt {
                cards: vec![(3, Some([c("Ah"), c("Kd")])), (4, None)],
            },
            TableEvent::HoleCardsEntered {
                seat: 4,
                cards: [c("Tc"), c("Ts")],
            },
            TableEvent::HandKilled {
                seat: 5,
                reason: "absent (TDA 30)".into(),
            },
            TableEvent::OutOfTurnAction {
                seat: 6,
                action: PlayerAction::Raise { to: 600 },
                facing: 200,
            },
            TableEvent::OutOfTurnVoided {
                seat: 6,
                reason: "the action changed (TDA 53)".into(),
            },
            TableEvent::ChipsRead {
                seat: 7,
                chips: vec![500, 100],
                declaration: Some(Declaration::Amount(600)),
                in_front: Some(vec![]),
                read_as: PlayerAction::Bet { to: 600 },
                rule: "TDA 43".into(),
            },
            TableEvent::ChipsRead {
                seat: 7,
                chips: vec![1_000],
                declaration: None,
                in_front: None,
                read_as: PlayerAction::Call,
                rule: "TDA 45".into(),
            },
            TableEvent::MisdealDeclared {
                number: 12,
                reason: "first card exposed (TDA 35)".into(),
            },
            TableEvent::FloorRuled {
                ruling: Ruling::ForfeitUndercall {
                    seat: 7,
                    amount: 150,
                },
                reason: "TDA 51".into(),
            },
            TableEvent::FloorRuled {
                ruling: Ruling::KillHand { seat: 2 },
                reason: "TDA 1".into(),
            },
            TableEvent::UndercallForfeited {
                seat: 7,
                amount: 150,
            },
            TableEvent::PenaltyGiven {
                seat: 8,
                player: EntryId(77),
                hands: 9,
                offence: 2,
                reason: "cards exposed with action pending".into(),
            },
            TableEvent::WarningGiven {
                seat: 8,
                player: EntryId(77),
                offence: 1,
                reason: "excessive chatter".into(),
            },
            TableEvent::PlayerDisqualified {
                seat: 8,
                player: EntryId(77),
                stack: 12_000,
                reason: "chip passing".into(),
            },
            TableEvent::StackSurrendered {
                seat: 4,
                player: EntryId(78),
                stack: 900,
            },
            TableEvent::NoShowRemoved {
                seat: 5,
                player: EntryId(79),
                stack: 8_400,
            },
            TableEvent::ButtonDrawn {
                seed: Seed([3; 32]),
                cards: vec![(1, c("Kd")), (4, c("As")), (6, c("2c"))],
                button: 4,
            },
            TableEvent::ClockCalled { seat: 3 },
            TableEvent::TimedOut { seat: 3 },
            TableEvent::ActionTaken {
                seat: 3,
                action: ActionTaken::Raise {
                    to: 600,
                    amount: 500,
                },
                all_in: false,
            },
            TableEvent::ActionTaken {
                seat: 4,
                action: ActionTaken::Call { amount: 400 },
                all_in: true,
            },
            TableEvent::ActionTaken {
                seat: 2,
                action: ActionTaken::Fold,
                all_in: false,
            },
            TableEvent::StreetDealt {
                street: Street::Flop,
                cards: vec![c("2c"), c("7d"), c("Jh")],
                burn: Some(c("9s")),
            },
            TableEvent::StreetDealt {
                street: Street::River,
                cards: vec![c("Qs")],
                burn: None,
            },
            TableEvent::CardsShown {
                seat: 3,
                cards: [c("Ah"), c("Kd")],
            },
            TableEvent::CardsMucked { seat: 4 },
            TableEvent::ShowAsked { seat: 3, by: 5 },
            TableEvent::EntropyAdded {
                entropy: Seed::from_u64(99),
            },
            TableEvent::SecretRevealed {
                secret: Seed::from_u64(98),
            },
            TableEvent::FloorRuled {
                ruling: Ruling::AwardPot { seat: 4, pot: 1 },
                reason: "TDA 21".into(),
            },
            TableEvent::FloorRuled {
                ruling: Ruling::FouledDeck,
                reason: "two aces of spades (TDA 35)".into(),
            },
            TableEvent::HandVoided { number: 12 },
            TableEvent::ActionBound {
                seat: 2,
                bound: Bound::CallOrFold,
                rule: "TDA 55".into(),
            },
            TableEvent::ActionBound {
                seat: 3,
                bound: Bound::CallOrRaise,
                rule: "TDA 46".into(),
            },
            TableEvent::ChipsRead {
                seat: 2,
                chips: vec![500],
                declaration: Some(Declaration::Check),
                in_front: None,
                read_as: PlayerAction::Call,
                rule: "TDA 55".into(),
            },
            TableEvent::UncalledBetReturned {
                seat: 3,
                amount: 200,
            },
            TableEvent::PotAwarded {
                pot: 1,
                amount: 1_300,
                eligible: vec![3, 4],
                shares: vec![
                    Share {
                        seat: 3,
                        amount: 650,
                        rank: Some(HandRank(6_186)),
                    },
                    Share {
                        seat: 4,
                        amount: 650,
                        rank: None,
                    },
                ],
            },
            TableEvent::HandEnded {
                number: 12,
                stacks: vec![(3, 10_300), (4, 0)],
                busted: vec![Bust {
                    seat: 4,
                    player: EntryId(1_235),
                    starting_stack: 12_000,
                    by: vec![EntryId(1_234)],
                }],
            },
            TableEvent::RecordingSet {
                recording: Recording::ResultsOnly,
                reason: "tablet down".into(),
            },
            TableEvent::ResultRecorded {
                number: 13,
                button: 3,
                small_blind: None,
                big_blind: 5,
                busted: vec![Bust {
                    seat: 6,
                    player: EntryId(1_236),
                    starting_stack: 800,
                    by: vec![EntryId(1_234), EntryId(1_237)],
                }],
                shares: vec![(3, 400), (5, 400)],
                occurred_at: Some(1_765_000_000_000),
            },
            TableEvent::StacksCounted {
                count: "colour-up after level 9".into(),
                stacks: vec![(3, 10_700), (5, 9_100)],
                expected: 19_800,
                counted: 19_800,
            },
            TableEvent::StackCorrected {
                seat: 3,
                player: EntryId(1_234),
                from: 10_700,
                to: 10_200,
                concerns: Concerns::Hand(12),
                reason: "the pot was miscounted".into(),
            },
            TableEvent::StackCorrected {
                seat: 5,
                player: EntryId(1_235),
                from: 9_100,
                to: 9_600,
                concerns: Concerns::Moment("the move from table 4".into()),
                reason: "500 left behind at table 4".into(),
            },
            TableEvent::ChipsRemoved {
                seat: 3,
                player: EntryId(1_234),
                amount: 5_000,
                removal: Removal::Hidden,
                reason: "a 5,000 chip in a pocket".into(),
            },
            TableEvent::ChipsRemoved {
                seat: 5,
                player: EntryId(1_235),
                amount: 100,
                removal: Removal::Director,
                reason: "the 25s leave play".into(),
            },
            TableEvent::ColouredUp {
                leaving: 25,
                smallest: 100,
                seed: Some(Seed([5; 32])),
                raced: vec![
                    felt_table::Raced {
                        seat: 2,
                        player: EntryId(9),
                        before: 1_075,
                        odd: 75,
                        cards: vec![c("Qh"), c("3d"), c("7s")],
                        won: true,
                        saved: false,
                        after: 1_100,
                    },
                    felt_table::Raced {
                        seat: 6,
                        player: EntryId(10),
                        before: 25,
                        odd: 25,
                        cards: vec![c("2c")],
                        won: false,
                        saved: true,
                        after: 100,
                    },
                ],
            },
            TableEvent::AddOnAdded {
                seat: 4,
                player: EntryId(12),
                chips: 10_000,
            },
            TableEvent::RebuyAdded {
                seat: 5,
                player: EntryId(13),
                chips: 5_000,
                number: 2,
            },
            TableEvent::ColouredUp {
                leaving: 25,
                smallest: 100,
                seed: None,
                raced: vec![felt_table::Raced {
                    seat: 1,
                    player: EntryId(11),
                    before: 950,
                    odd: 50,
                    cards: Vec::new(),
                    won: true,
                    saved: false,
                    after: 1_000,
                }],
            },
        ]
    }

    #[test]
    fn every_event_crosses_the_wire_and_reads_back_the_same() {
        let events = every_event();
        let mut kinds: Vec<&str> = events.iter().map(TableEvent::name).collect();
        kinds.sort_unstable();
        kinds.dedup();
        // (All 44 kinds of event a table records.)
        assert_eq!(kinds.len(), 44);
        for (sequence, e) in (1..).zip(&events) {
            let wire = super::super::convert::event(sequence, e, false);
            assert_eq!(wire.r#type, e.name());
            assert_eq!(from_event(&wire).as_ref(), Ok(e));
        }
    }

    /// A partner sees a digital hand's commitment, not its seed; what it
    /// sees cannot be passed off as the hand.
    #[test]
    fn a_sealed_deal_keeps_its_commitment_and_does_not_read_back() {
        let seed = Seed([9; 32]);
        let started = TableEvent::HandStarted {
            number: 1,
            level: Level::blinds(50, 100),
            button: 1,
            small_blind: Some(2),
            big_blind: 3,
            stacks: vec![(1, 500), (2, 500), (3, 500)],
            deal: Deal::Digital { seed },
            commitment: Some(seed.commitment()),
        };
        let wire = to_wire(&started, true);
        let Some(te::Kind::HandStarted(h)) = &wire.kind else {
            panic!("{wire:?}")
        };
        assert_eq!(h.commitment, seed.commitment().0.to_vec());
        assert!(matches!(
            h.deal.as_ref().and_then(|d| d.kind.as_ref()),
            Some(pb::deal_record::Kind::Sealed(_))
        ));
        assert!(!format!("{wire:?}").contains(&format!("{:?}", seed.0)));
        let refused = from_wire(&wire).unwrap_err();
        assert!(refused.to_string().contains("sealed"), "{refused}");
    }

    #[test]
    fn an_event_named_for_another_or_with_a_seat_out_of_range_is_refused() {
        let mut wire = super::super::convert::event(1, &TableEvent::ClockCalled { seat: 3 }, false);
        wire.r#type = "TimedOut".into();
        assert_eq!(from_event(&wire).unwrap_err().field, "type");
        let wire = pb::TableEvent {
            kind: Some(te::Kind::ClockCalled(te::ClockCalled { seat: 300 })),
        };
        let refused = from_wire(&wire).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "table event clock_called.seat: 300 is not a seat number"
        );
    }
}
