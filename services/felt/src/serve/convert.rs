//! Proto messages to domain commands and domain state to proto views: the
//! only place the two meet. Malformed input is an `INVALID_ARGUMENT` that
//! names the field.

use felt_cards::{Card, Seed};
use felt_proto::v1 as pb;
use felt_table::{
    AnteFormat, Command, Deal, Declaration, EntryId, HouseRules, Level, OddChips, Penalty,
    PlayerAction, Ruling, Seat, ShortBigBlind, TableEvent, TableState,
};
use tonic::Status;

fn invalid(what: impl std::fmt::Display) -> Status {
    Status::invalid_argument(what.to_string())
}

fn seat(n: u32, field: &str) -> Result<Seat, Status> {
    Seat::try_from(n).map_err(|_| invalid(format!("{field}: seat {n} is not a seat number")))
}

fn cards(texts: &[String], field: &str) -> Result<Vec<Card>, Status> {
    texts
        .iter()
        .map(|t| {
            t.parse::<Card>()
                .map_err(|e| invalid(format!("{field}: {e}")))
        })
        .collect()
}

fn two(texts: &[String], field: &str) -> Result<[Card; 2], Status> {
    match cards(texts, field)?.as_slice() {
        [a, b] => Ok([*a, *b]),
        other => Err(invalid(format!("{field}: two cards, not {}", other.len()))),
    }
}

/// A deal as asked for; a digital one is dealt from `deck`'s seed, which
/// the service draws (no request carries a seed).
fn deal(d: Option<&pb::Deal>, field: &str, deck: &dyn Fn() -> Seed) -> Result<Deal, Status> {
    match d.and_then(|d| d.kind.as_ref()) {
        Some(pb::deal::Kind::Digital(_)) => Ok(Deal::Digital { seed: deck() }),
        Some(pb::deal::Kind::Physical(_)) => Ok(Deal::Physical),
        Some(pb::deal::Kind::Shared(_)) => Ok(Deal::Shared { seed: deck() }),
        None => Err(invalid(format!("{field}: digital or physical is required"))),
    }
}

fn level(l: Option<&pb::Level>) -> Result<Level, Status> {
    let l = l.ok_or_else(|| invalid("start_hand.level is required"))?;
    Ok(Level {
        small_blind: l.small_blind,
        big_blind: l.big_blind,
        ante: l.ante,
        ante_format: known_ante_format(l.ante_format)
            .ok_or_else(|| invalid("level.ante_format: unknown value"))?,
        smallest_chip: l.smallest_chip.max(1),
    })
}

/// An ante format from the wire (an unknown value: none).
pub(crate) fn ante_format(f: i32) -> AnteFormat {
    known_ante_format(f).unwrap_or(AnteFormat::None)
}

/// An ante format from the wire; `None` for a value the contract does not
/// name.
pub(crate) fn known_ante_format(f: i32) -> Option<AnteFormat> {
    match pb::AnteFormat::try_from(f).ok()? {
        pb::AnteFormat::PerPlayer => Some(AnteFormat::PerPlayer),
        pb::AnteFormat::BigBlind => Some(AnteFormat::BigBlind),
        pb::AnteFormat::None | pb::AnteFormat::Unspecified => Some(AnteFormat::None),
    }
}

pub(crate) fn rules(r: Option<&pb::HouseRules>) -> HouseRules {
    let mut rules = HouseRules::default();
    if let Some(r) = r {
        if r.short_big_blind() == pb::ShortBigBlind::CallAmountPosted {
            rules.short_big_blind = ShortBigBlind::CallAmountPosted;
        }
        if r.odd_chips() == pb::OddChips::AllToTheFirstWinner {
            rules.odd_chips = OddChips::AllToTheFirstWinner;
        }
        if r.penalty_scale() == pb::PenaltyScale::Series {
            rules.penalty_scale = felt_table::PenaltyScale::Series;
        }
        if r.substantial_action() == pb::SubstantialAction::Series {
            rules.substantial_action = felt_table::SubstantialAction::Series;
        }
        if r.misdeal_redeal() == pb::MisdealRedeal::AbsentPlay {
            rules.misdeal_redeal = felt_table::MisdealRedeal::AbsentPlay;
        }
        rules.reopening = match r.reopening() {
            pb::Reopening::Never => felt_table::Reopening::Never,
            pb::Reopening::HalfRaise => felt_table::Reopening::HalfRaise,
            pb::Reopening::Cumulative | pb::Reopening::Unspecified => {
                felt_table::Reopening::Cumulative
            }
        };
    }
    rules
}

pub(crate) fn action(a: Option<&pb::Action>) -> Result<PlayerAction, Status> {
    use pb::action::Kind;
    Ok(match a.and_then(|a| a.kind.as_ref()) {
        Some(Kind::Fold(_)) => PlayerAction::Fold,
        Some(Kind::Check(_)) => PlayerAction::Check,
        Some(Kind::Call(_)) => PlayerAction::Call,
        Some(Kind::BetTo(to)) => PlayerAction::Bet { to: *to },
        Some(Kind::RaiseTo(to)) => PlayerAction::Raise { to: *to },
        Some(Kind::AllIn(_)) => PlayerAction::AllIn,
        None => {
            return Err(invalid(
                "action: one of fold, check, call, bet_to, raise_to, all_in is required",
            ));
        }
    })
}

/// What a player said, from the wire.
pub(crate) fn declaration(k: &pb::declaration::Kind) -> Declaration {
    match k {
        pb::declaration::Kind::Call(_) => Declaration::Call,
        pb::declaration::Kind::Raise(_) => Declaration::Raise,
        pb::declaration::Kind::AllIn(_) => Declaration::AllIn,
        pb::declaration::Kind::Amount(n) => Declaration::Amount(*n),
        pb::declaration::Kind::Check(_) => Declaration::Check,
    }
}

/// A floor ruling from the wire; `field` names where it was.
pub(crate) fn ruling(r: Option<&pb::Ruling>, field: &str) -> Result<Ruling, Status> {
    Ok(match r.and_then(|r| r.kind.as_ref()) {
        Some(pb::ruling::Kind::KillHandSeat(s)) => Ruling::KillHand {
            seat: seat(*s, &format!("{field}.kill_hand_seat"))?,
        },
        Some(pb::ruling::Kind::AwardPotSeat(s)) => Ruling::AwardPot {
            seat: seat(*s, &format!("{field}.award_pot_seat"))?,
            pot: 0,
        },
        Some(pb::ruling::Kind::AwardPot(a)) => Ruling::AwardPot {
            seat: seat(a.seat, &format!("{field}.award_pot.seat"))?,
            pot: pot(a.pot, &format!("{field}.award_pot.pot"))?,
        },
        Some(pb::ruling::Kind::FouledDeck(_)) => Ruling::FouledDeck,
        Some(pb::ruling::Kind::ForfeitUndercall(f)) => Ruling::ForfeitUndercall {
            seat: seat(f.seat, &format!("{field}.forfeit_undercall.seat"))?,
            amount: f.amount,
        },
        None => return Err(invalid(format!("{field} is required"))),
    })
}

/// A pot's number from the wire: a hand has at most one pot per seat.
fn pot(n: u32, field: &str) -> Result<usize, Status> {
    usize::try_from(n)
        .ok()
        .filter(|&n| n < felt_table::MAX_SEATS)
        .ok_or_else(|| invalid(format!("{field}: a pot is 0 to 9, not {n}")))
}

/// The domain command an `ExecuteRequest` carries; a digital deal's seed
/// comes from `deck`.
pub(crate) fn command(
    req: &pb::ExecuteRequest,
    deck: &dyn Fn() -> Seed,
) -> Result<Command, Status> {
    use pb::execute_request::Command as C;
    let c = req
        .command
        .as_ref()
        .ok_or_else(|| invalid("command: one command is required"))?;
    Ok(match c {
        C::OpenTable(o) => Command::OpenTable {
            seats: u8::try_from(o.seats).map_err(|_| invalid("open_table.seats: 2 to 10"))?,
            rules: rules(o.rules.as_ref()),
        },
        C::SeatPlayer(s) => Command::SeatPlayer {
            seat: seat(s.seat, "seat_player.seat")?,
            player: EntryId(s.entry),
            stack: s.stack,
            carried: super::table_events::from_carried(s.carried.as_ref()),
        },
        C::RemovePlayer(r) => Command::RemovePlayer {
            seat: seat(r.seat, "remove_player.seat")?,
        },
        C::SetAbsent(a) => Command::SetAbsent {
            seat: seat(a.seat, "set_absent.seat")?,
            absent: a.absent,
        },
        C::StartHand(s) => Command::StartHand {
            level: level(s.level.as_ref())?,
            deal: deal(s.deal.as_ref(), "start_hand.deal", deck)?,
            button: s.button.map(|b| seat(b, "start_hand.button")).transpose()?,
        },
        C::EnterHoleCards(e) => Command::EnterHoleCards {
            seat: seat(e.seat, "enter_hole_cards.seat")?,
            cards: two(&e.cards, "enter_hole_cards.cards")?,
        },
        C::DealBoard(d) => Command::DealBoard {
            cards: cards(&d.cards, "deal_board.cards")?,
        },
        C::Act(a) => Command::Act {
            seat: seat(a.seat, "act.seat")?,
            action: action(a.action.as_ref())?,
        },
        C::ActOutOfTurn(a) => Command::ActOutOfTurn {
            seat: seat(a.seat, "act_out_of_turn.seat")?,
            action: action(a.action.as_ref())?,
        },
        C::PushChips(p) => Command::PushChips {
            seat: seat(p.seat, "push_chips.seat")?,
            chips: p.chips.clone(),
            declaration: p
                .declaration
                .as_ref()
                .and_then(|d| d.kind.as_ref())
                .map(declaration),
            in_front: p.in_front.as_ref().map(|f| f.chips.clone()),
        },
        C::Show(s) => Command::Show {
            seat: seat(s.seat, "show.seat")?,
            cards: if s.cards.is_empty() {
                None
            } else {
                Some(two(&s.cards, "show.cards")?)
            },
        },
        C::Muck(m) => Command::Muck {
            seat: seat(m.seat, "muck.seat")?,
        },
        C::Misdeal(m) => Command::Misdeal {
            reason: m.reason.clone(),
            deal: deal(m.deal.as_ref(), "misdeal.deal", deck)?,
        },
        C::Rule(r) => Command::Rule {
            ruling: ruling(r.ruling.as_ref(), "rule.ruling")?,
            reason: r.reason.clone(),
        },
        C::Penalize(p) => {
            let orbits =
                || u8::try_from(p.orbits).map_err(|_| invalid("penalize.orbits: at most 255"));
            let kind = pb::PenaltyKind::try_from(p.kind)
                .map_err(|_| invalid(format!("penalize.kind: {} is not a kind", p.kind)))?;
            if kind != pb::PenaltyKind::Unspecified && p.reason.is_empty() {
                return Err(invalid("penalize.reason is required with penalize.kind"));
            }
            Command::Penalize {
                seat: seat(p.seat, "penalize.seat")?,
                player: (p.entry != 0).then_some(EntryId(p.entry)),
                penalty: match kind {
                    pb::PenaltyKind::Unspecified | pb::PenaltyKind::Orbits => {
                        Penalty::Orbits(orbits()?)
                    }
                    pb::PenaltyKind::Warning => Penalty::Warning,
                    pb::PenaltyKind::Hands => Penalty::Hands(p.hands),
                    pb::PenaltyKind::Next => Penalty::Next,
                },
                reason: p.reason.clone(),
            }
        }
        C::CallClock(c) => Command::CallClock {
            seat: seat(c.seat, "call_clock.seat")?,
        },
        C::TimeOut(t) => Command::TimeOut {
            seat: seat(t.seat, "time_out.seat")?,
        },
        C::PushPot(p) => Command::PushPot {
            pot: pot(p.pot, "push_pot.pot")?,
            winners: {
                if p.winners.len() > felt_table::MAX_SEATS {
                    return Err(invalid(format!(
                        "push_pot.winners: at most {} seats, not {}",
                        felt_table::MAX_SEATS,
                        p.winners.len()
                    )));
                }
                p.winners
                    .iter()
                    .map(|&w| seat(w, "push_pot.winners"))
                    .collect::<Result<_, _>>()?
            },
        },
        C::AddEntropy(a) => Command::AddEntropy {
            entropy: Seed(<[u8; 32]>::try_from(a.entropy.as_slice()).map_err(|_| {
                invalid(format!(
                    "add_entropy.entropy: exactly 32 bytes, not {}",
                    a.entropy.len()
                ))
            })?),
        },
        C::SetRecording(r) => Command::SetRecording {
            recording: match pb::Recording::try_from(r.recording) {
                Ok(pb::Recording::Actions) => felt_table::Recording::Actions,
                Ok(pb::Recording::ResultsOnly) => felt_table::Recording::ResultsOnly,
                _ => {
                    return Err(invalid(
                        "set_recording.recording: RECORDING_ACTIONS or RECORDING_RESULTS_ONLY is required",
                    ));
                }
            },
            reason: r.reason.clone(),
        },
        C::RecordResult(r) => Command::RecordResult {
            button: seat(r.button, "record_result.button")?,
            busted: r
                .busted
                .iter()
                .map(|s| Ok((seat(s.seat, "record_result.busted.seat")?, EntryId(s.entry))))
                .collect::<Result<_, Status>>()?,
            by: r
                .by
                .iter()
                .map(|s| Ok((seat(s.seat, "record_result.by.seat")?, EntryId(s.entry))))
                .collect::<Result<_, Status>>()?,
            occurred_at: match r.occurred_at_ms {
                Some(at) if at <= 0 => {
                    return Err(Status::invalid_argument(
                        "record_result.occurred_at_ms: a time after the Unix epoch, in milliseconds",
                    ));
                }
                at => at,
            },
        },
        C::CountStacks(c) => Command::CountStacks {
            count: c.count.clone(),
            stacks: c
                .stacks
                .iter()
                .map(|s| {
                    Ok((
                        seat(s.seat, "count_stacks.stacks.seat")?,
                        EntryId(s.entry),
                        s.chips,
                    ))
                })
                .collect::<Result<_, Status>>()?,
        },
        C::CorrectStack(c) => Command::CorrectStack {
            seat: seat(c.seat, "correct_stack.seat")?,
            player: EntryId(c.entry),
            stack: c.stack,
            concerns: super::table_events::from_concerns(
                c.concerns.as_ref(),
                "correct_stack.concerns",
            )
            .map_err(invalid)?,
            reason: c.reason.clone(),
        },
        C::RemoveChips(r) => Command::RemoveChips {
            seat: seat(r.seat, "remove_chips.seat")?,
            player: EntryId(r.entry),
            amount: r.amount,
            removal: super::table_events::from_removal(r.removal, "remove_chips.removal")
                .map_err(invalid)?,
            reason: r.reason.clone(),
        },
        C::Disqualify(d) => Command::Disqualify {
            seat: seat(d.seat, "disqualify.seat")?,
            player: EntryId(d.entry),
            reason: d.reason.clone(),
        },
        C::DrawButton(_) => Command::DrawButton { seed: deck() },
        C::AddOn(a) => Command::AddOn {
            seat: seat(a.seat, "add_on.seat")?,
            player: EntryId(a.entry),
            chips: a.chips,
        },
        C::Rebuy(r) => Command::Rebuy {
            seat: seat(r.seat, "rebuy.seat")?,
            player: EntryId(r.entry),
            chips: r.chips,
            number: r.number,
        },
        C::ColourUp(c) => Command::ColourUp {
            leaving: c.leaving,
            smallest: c.smallest,
            race: match &c.race {
                Some(pb::colour_up::Race::Drawn(_)) => felt_table::ChipRace::Drawn { seed: deck() },
                Some(pb::colour_up::Race::Entered(e)) => felt_table::ChipRace::Entered {
                    winners: e
                        .winners
                        .iter()
                        .map(|&w| seat(w, "colour_up.entered.winners"))
                        .collect::<Result<_, Status>>()?,
                },
                None => {
                    return Err(Status::invalid_argument(
                        "colour_up.race: drawn (the engine deals the race) or entered (the dealer's winners)",
                    ));
                }
            },
        },
        C::Surrender(s) => Command::Surrender {
            seat: seat(s.seat, "surrender.seat")?,
            player: EntryId(s.entry),
        },
        C::RemoveNoShow(s) => Command::RemoveNoShow {
            seat: seat(s.seat, "remove_no_show.seat")?,
            player: EntryId(s.entry),
        },
        C::AskToSee(a) => Command::AskToSee {
            seat: seat(a.seat, "ask_to_see.seat")?,
            of: seat(a.of_seat, "ask_to_see.of_seat")?,
            cards: if a.cards.is_empty() {
                None
            } else {
                Some(two(&a.cards, "ask_to_see.cards")?)
            },
        },
    })
}

/// Whether a command is the floor's: rulings, misdeals, penalties,
/// calling the clock, what a table records, its results and counts, and
/// corrections of chips.
pub(crate) fn is_floor_command(c: &Command) -> bool {
    matches!(
        c,
        Command::Rule { .. }
            | Command::Misdeal { .. }
            | Command::Penalize { .. }
            | Command::CallClock { .. }
            | Command::SetRecording { .. }
            | Command::RecordResult { .. }
            | Command::CountStacks { .. }
            | Command::CorrectStack { .. }
            | Command::RemoveChips { .. }
            | Command::Disqualify { .. }
            | Command::Surrender { .. }
            | Command::RemoveNoShow { .. }
    )
}

/// A table's record for the wire.
pub(crate) fn recording(r: felt_table::Recording) -> pb::Recording {
    match r {
        felt_table::Recording::Actions => pb::Recording::Actions,
        felt_table::Recording::ResultsOnly => pb::Recording::ResultsOnly,
    }
}

/// An event for the wire; with `sealed`, a digital deal's seed is left
/// out (it deals every card: partners see the commitment only, until the
/// hand is over and audited).
pub(crate) fn event(sequence: u64, e: &TableEvent, sealed: bool) -> pb::Event {
    pb::Event {
        sequence,
        r#type: e.name().into(),
        event: Some(super::table_events::to_wire(e, sealed)),
    }
}

pub(crate) fn pb_level(l: &Level) -> pb::Level {
    pb::Level {
        small_blind: l.small_blind,
        big_blind: l.big_blind,
        ante: l.ante,
        ante_format: match l.ante_format {
            AnteFormat::None => pb::AnteFormat::None,
            AnteFormat::PerPlayer => pb::AnteFormat::PerPlayer,
            AnteFormat::BigBlind => pb::AnteFormat::BigBlind,
        } as i32,
        smallest_chip: l.smallest_chip,
    }
}

/// The table as the caller may see it: hole cards only once tabled,
/// unless `all_cards` (the dealer's and the floor's view).
/// Which hole cards a caller sees in a view: every one (felt's own
/// services), those tabled (every person), or also a seat's own (that
/// seat's credential, while its entry holds it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sight {
    All,
    Tabled,
    Seat { seat: u8, entry: u64 },
}

impl Sight {
    pub(crate) fn of(role: &super::auth::Role) -> Sight {
        match role {
            super::auth::Role::Seat { seat, entry, .. } => Sight::Seat {
                seat: *seat,
                entry: *entry,
            },
            r if r.sees_cards_in_the_air() => Sight::All,
            _ => Sight::Tabled,
        }
    }
}

pub(crate) fn view(
    table: pb::TableRef,
    state: &TableState,
    version: u64,
    sight: Sight,
) -> pb::TableView {
    let hand = state.hand();
    let seats = (1..=state.size())
        .filter_map(|s| {
            let seat = state.seat(s)?;
            let p = hand.and_then(|h| h.player(s));
            let own = sight
                == Sight::Seat {
                    seat: s,
                    entry: seat.player.0,
                };
            let visible = p.is_some_and(|p| p.shown || own || sight == Sight::All);
            Some(pb::SeatView {
                seat: s.into(),
                entry: seat.player.0,
                stack: seat.stack,
                absent: seat.absent,
                penalty_hands: seat.penalty_hands,
                in_hand: p.is_some(),
                folded: p.is_some_and(|p| p.folded),
                all_in: p.is_some_and(|p| p.all_in),
                street_bet: p.map_or(0, |p| p.street),
                hole_cards: p
                    .and_then(|p| p.hole)
                    .filter(|_| visible)
                    .map(|h| h.iter().map(ToString::to_string).collect())
                    .unwrap_or_default(),
            })
        })
        .collect();
    let options = state.options();
    pb::TableView {
        table: Some(table),
        size: state.size().into(),
        seats,
        hand: hand.map(|h| pb::HandView {
            number: h.number,
            street: super::table_events::street(h.street).into(),
            board: h.board.iter().map(ToString::to_string).collect(),
            button: h.button.into(),
            small_blind: h.small_blind.map(u32::from),
            big_blind: h.big_blind.into(),
            pot: h.pot(),
            current_bet: h.current_bet,
            level: Some(pb_level(&h.level)),
            to_act: h.to_act.map(u32::from),
            to_call: options.map_or(0, |o| o.to_call),
            min_raise_to: options.and_then(|o| o.min_to),
            max_raise_to: options.and_then(|o| o.max_to),
            deck_commitment: match h.deal {
                Deal::Digital { seed } | Deal::Shared { seed } => seed.commitment().to_string(),
                Deal::Physical => String::new(),
            },
            pots: if h.phase == felt_table::Phase::Showdown {
                h.settled_pots().1
            } else {
                h.pots()
            }
            .into_iter()
            .enumerate()
            .map(|(pot, (amount, seats))| pb::Pot {
                amount,
                eligible_seats: seats.into_iter().map(u32::from).collect(),
                awarded: h.pots_awarded.contains(&pot),
            })
            .collect(),
            phase: match h.phase {
                felt_table::Phase::Dealing => pb::HandPhase::Dealing,
                felt_table::Phase::Betting => pb::HandPhase::Betting,
                felt_table::Phase::AwaitingBoard => pb::HandPhase::AwaitingBoard,
                felt_table::Phase::Showdown => pb::HandPhase::Showdown,
            }
            .into(),
            to_show: state.to_show().map(u32::from),
        }),
        hands_played: state.hands_started(),
        version,
        recording: recording(state.recording()).into(),
        stacks_estimated: state.uncounted(),
    }
}

/// A copy of a table's events for those who may not see cards in the
/// air (partners, and dealers): hole cards go out only when tabled
/// (`CardsShown`), never as dealt or entered; burn cards never; a digital
/// deal's seed is sealed (the commitment stays).
pub(crate) fn for_partners(events: &[(u64, TableEvent)]) -> Vec<pb::Event> {
    events
        .iter()
        .filter_map(|(seq, e)| match e {
            TableEvent::HoleCardsEntered { .. } => None,
            TableEvent::StreetDealt { street, cards, .. } => Some(event(
                *seq,
                &TableEvent::StreetDealt {
                    street: *street,
                    cards: cards.clone(),
                    burn: None,
                },
                true,
            )),
            TableEvent::HoleCardsDealt { cards } => Some(event(
                *seq,
                &TableEvent::HoleCardsDealt {
                    cards: cards.iter().map(|(s, _)| (*s, None)).collect(),
                },
                true,
            )),
            other => Some(event(*seq, other, true)),
        })
        .collect()
}
