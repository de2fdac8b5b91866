//! The seating service over gRPC: the front door of a tournament (create,
//! register, start), the dealers' "may I deal?", and the room for seat
//! finders and partners. Hand ends reach it from the tables' events
//! ([`follower`]), not from the dealers.

use std::sync::Arc;

use felt_eventlog::EventLog;
use felt_payout::{MoneySettings, PercentTable, SimultaneousBusts, Structure as PayStructure};
use felt_proto::v1 as pb;
use felt_proto::v1::seating_service_server::SeatingService;
use felt_seating::{
    Balance, EntryId, EntryInfo, EntryStatus, SeatingEvent, SeatingState, Settings,
};
use felt_tournament::aggregates::seating_stream;
use felt_tournament::{Begin, DealMode, TournamentSpec};
use felt_vocabulary::{ErrorKind, PlayerId, TournamentId};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::auth::{Role, role};
use super::convert;
use super::shared::{Ctx, Draw, ServiceInputs, director, floor_or_director, follow_stream};
use super::status::{log as log_status, tournament as tournament_status};

pub(crate) struct SeatingApi<L: EventLog> {
    ctx: Ctx<L>,
    /// The people registry, which the seating service writes.
    people: felt_service::Handler<super::people::People, L>,
    /// The registry as this process folds it: told at once of what it
    /// issues or revokes.
    credentials: Arc<super::people::Credentials>,
    /// The deployment's key, from which a credential's secret is drawn.
    key: super::auth::SeatKey,
}

impl<L: EventLog + 'static> SeatingApi<L> {
    pub(crate) fn new(
        ctx: Ctx<L>,
        credentials: Arc<super::people::Credentials>,
        key: super::auth::SeatKey,
    ) -> Self {
        let people = felt_service::Handler::new(ctx.conductor.seating.log().clone());
        SeatingApi {
            ctx,
            people,
            credentials,
            key,
        }
    }

    /// The time played since the start by the tournament's clock, now:
    /// what seed 003's late-arrival tolerance is measured in.
    async fn played(&self, t: &str) -> Result<u64, Status> {
        let clock = self.clock(t).await?;
        Ok(u64::try_from(clock.played(self.ctx.now())).unwrap_or(0))
    }

    /// The clock's level now (on a break, the level before it; 0 before
    /// the start): the add-on's window is judged by it.
    async fn level_now(&self, t: &str) -> Result<u32, Status> {
        Ok(self.clock(t).await?.level_number_at(self.ctx.now()))
    }

    /// A seated entry's stack as their table has it now, with the number
    /// of hands seating had seen the table end when it was read (read
    /// first: a hand that ends while the stack is read makes seating refuse
    /// the reading as stale). An entry not seated: 0 chips, and seating
    /// names why it is refused.
    async fn stack_now(&self, t: &str, entry: EntryId) -> Result<(u64, u64), Status> {
        self.ctx.known(t).await?;
        let seating = self
            .ctx
            .conductor
            .seating_state(t)
            .await
            .map_err(tournament_status)?;
        let Some(felt_seating::EntryStatus::Seated { table, seat }) =
            seating.entries().get(&entry).map(|e| e.status)
        else {
            return Ok((0, 0));
        };
        let hands = seating.room().tables.get(&table).map_or(0, |t| t.hands);
        let state = self
            .ctx
            .conductor
            .table_state(t, table)
            .await
            .map_err(tournament_status)?;
        let stack = state
            .seat(seat)
            .filter(|s| s.player == entry)
            .map_or(0, |s| s.stack);
        Ok((stack, hands))
    }

    /// Every seated entry's stack as their table has it now (bag and
    /// tag, once the day is over: no hand changes them meanwhile; seating
    /// names any entry left out or not in play), and the results-only
    /// tables whose stacks are an estimate (not counted since their last
    /// result).
    async fn stacks_in_play(
        &self,
        t: &str,
    ) -> Result<(Vec<(EntryId, u64)>, Vec<felt_seating::TableNo>), Status> {
        self.ctx.known(t).await?;
        // A day's last hand may have sent players to new seats: the count
        // waits (a few seconds at most) for the carrier to seat them, as
        // a stack in the middle of a move is at neither table (seating
        // refuses the count while one is).
        let since = std::time::Instant::now();
        let seating = loop {
            let seating = self
                .ctx
                .conductor
                .seating_state(t)
                .await
                .map_err(tournament_status)?;
            if seating.room().moves.is_empty() || since.elapsed() > MOVES_SETTLE {
                break seating;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        };
        let (mut stacks, mut uncounted) = (Vec::new(), Vec::new());
        for (&number, table) in &seating.room().tables {
            let state = self
                .ctx
                .conductor
                .table_state(t, number)
                .await
                .map_err(tournament_status)?;
            if state.uncounted() {
                uncounted.push(number);
            }
            for (i, entry) in table.seats.iter().enumerate() {
                let Some(entry) = entry else { continue };
                let seat = u8::try_from(i + 1).unwrap_or(u8::MAX);
                let stack = state
                    .seat(seat)
                    .filter(|s| s.player == *entry)
                    .map_or(0, |s| s.stack);
                stacks.push((*entry, stack));
            }
        }
        Ok((stacks, uncounted))
    }

    /// The bag list: the tournament's own, largest first; an event fed by
    /// flights, until it bags its own, every flight's bags together (the
    /// chip counts going into its Day 2), each line naming its flight.
    async fn bag_lines(&self, t: &str, day: u32) -> Result<pb::GetBagsResponse, Status> {
        let state = self.state(t).await?;
        let event = state.settings().is_some_and(|s| s.flights.is_some());
        if !event || state.room().bags.is_some() || day > 1 {
            return self.own_bag_lines(t, day).await;
        }
        let flights = self
            .ctx
            .conductor
            .flights_of(t)
            .await
            .map_err(tournament_status)?;
        let mut all = pb::GetBagsResponse {
            sealed: !flights.is_empty(),
            ..Default::default()
        };
        for (number, f) in flights {
            let part = self.own_bag_lines(&f, 0).await?;
            all.day = all.day.max(part.day);
            all.sealed &= part.sealed;
            all.chips = all.chips.saturating_add(part.chips);
            all.bags.extend(part.bags.into_iter().map(|b| pb::BagLine {
                flight: number,
                ..b
            }));
        }
        all.bags.sort_by(|a, b| {
            b.chips
                .cmp(&a.chips)
                .then(a.flight.cmp(&b.flight))
                .then(a.bag.cmp(&b.bag))
        });
        for (line, rank) in all.bags.iter_mut().zip(1u32..) {
            line.rank = rank;
        }
        Ok(all)
    }

    /// The tournament's own bags of day `day` (0: the last day bagged),
    /// largest first.
    async fn own_bag_lines(&self, t: &str, day: u32) -> Result<pb::GetBagsResponse, Status> {
        let state = self.state(t).await?;
        let Some(bags) = state.room().bags_of_day(day) else {
            let day = if day == 0 {
                self.clock(t).await?.day()
            } else {
                day
            };
            return Ok(pb::GetBagsResponse {
                day,
                ..Default::default()
            });
        };
        // (States kept before a bag list knew its day: the clock's.)
        let day = match bags.day {
            0 => self.clock(t).await?.day(),
            day => day,
        };
        let mut lines: Vec<pb::BagLine> = bags
            .bags
            .iter()
            .map(|(entry, b)| {
                let info = state.entries().get(entry);
                // Where they sat at the count (a list kept before it was
                // recorded: where they sit now).
                let (table, seat) = match (b.table, info.map(|e| e.status)) {
                    (0, Some(felt_seating::EntryStatus::Seated { table, seat })) => {
                        (table, u32::from(seat))
                    }
                    (0, _) => (0, 0),
                    (table, _) => (table, u32::from(b.seat)),
                };
                pb::BagLine {
                    rank: 0,
                    bag: b.number,
                    entry: entry.get(),
                    name: info.map(|e| e.name.clone()).unwrap_or_default(),
                    chips: b.chips,
                    player_confirmed: b.player,
                    staff_confirmed: b.staff,
                    table,
                    seat,
                    flight: 0,
                }
            })
            .collect();
        lines.sort_by(|a, b| b.chips.cmp(&a.chips).then(a.bag.cmp(&b.bag)));
        for (line, rank) in lines.iter_mut().zip(1u32..) {
            line.rank = rank;
        }
        Ok(pb::GetBagsResponse {
            bags: lines,
            chips: u64::try_from(bags.chips()).unwrap_or(u64::MAX),
            sealed: bags.sealed,
            day,
        })
    }

    /// The tournament's clock, as this process reads it.
    async fn clock(&self, t: &str) -> Result<std::sync::Arc<felt_clock::ClockState>, Status> {
        self.ctx.known(t).await?;
        self.ctx
            .conductor
            .clock_state(t)
            .await
            .map_err(tournament_status)
    }

    /// A command to the people registry (the director's), under the
    /// request's fingerprint; the registry this process knows is brought
    /// up to the decision before the answer.
    async fn people(
        &self,
        command_id: &str,
        request: &impl felt_proto::prost::Message,
        command: felt_people::PeopleCommand,
    ) -> Result<felt_service::Outcome<super::people::People>, Status> {
        let stream = super::people::stream().map_err(super::status::log)?;
        let from = felt_service::Provenance {
            request: super::shared::fingerprint(request),
            ..Default::default()
        };
        let out = self
            .people
            .handle_from(&stream, command_id, self.ctx.now(), &from, &command)
            .await
            .map_err(|e| super::status::refused(&e))?;
        self.credentials.advance(&out.state, out.version);
        Ok(out)
    }

    async fn state(&self, t: &str) -> Result<Arc<SeatingState>, Status> {
        self.ctx.seating(t).await
    }
}

fn entry_view(entry: EntryId, info: &EntryInfo) -> pb::EntryView {
    let (status, table, seat) = match info.status {
        EntryStatus::Alternate => (pb::EntryStatus::Alternate, 0, 0),
        EntryStatus::Registered => (pb::EntryStatus::Registered, 0, 0),
        EntryStatus::Seated { table, seat } => (pb::EntryStatus::Seated, table, u32::from(seat)),
        EntryStatus::Busted => (pb::EntryStatus::Busted, 0, 0),
        EntryStatus::Disqualified => (pb::EntryStatus::Disqualified, 0, 0),
        EntryStatus::Unregistered => (pb::EntryStatus::Unregistered, 0, 0),
    };
    pb::EntryView {
        entry: entry.get(),
        player_id: info.player.to_string(),
        name: info.name.clone(),
        re_entry: info.re_entry,
        status: status.into(),
        table,
        seat,
        moving: info.moving.is_some(),
    }
}

use super::seating_events::move_reason;

/// A payment from the wire (`None`: none recorded).
fn payment(p: Option<&pb::Payment>, field: &str) -> Result<Option<felt_seating::Payment>, Status> {
    let Some(p) = p else { return Ok(None) };
    let method = match pb::PaymentMethod::try_from(p.method) {
        Ok(pb::PaymentMethod::Cash) => felt_seating::PaymentMethod::Cash,
        Ok(pb::PaymentMethod::Card) => felt_seating::PaymentMethod::Card,
        Ok(pb::PaymentMethod::Transfer) => felt_seating::PaymentMethod::Transfer,
        Ok(pb::PaymentMethod::Voucher) => felt_seating::PaymentMethod::Voucher,
        Ok(pb::PaymentMethod::Ticket) => {
            return Err(invalid(format!(
                "{field}.method: a satellite's ticket is named in the registration's `ticket`, not paid as a payment"
            )));
        }
        _ => {
            return Err(invalid(format!(
                "{field}.method: PAYMENT_METHOD_CASH, _CARD, _TRANSFER or _VOUCHER is required"
            )));
        }
    };
    Ok(Some(felt_seating::Payment {
        method,
        reference: p.reference.clone(),
    }))
}

/// A role from the wire, as the people registry grants it.
fn grant(role: Option<&pb::StaffRole>) -> Result<felt_people::Grant, Status> {
    let role = role.ok_or_else(|| invalid("role is required"))?;
    Ok(match role.kind() {
        pb::StaffRoleKind::Director => felt_people::Grant::Director,
        pb::StaffRoleKind::Floor => felt_people::Grant::Floor,
        pb::StaffRoleKind::Partner => felt_people::Grant::Partner,
        pb::StaffRoleKind::Cashier => felt_people::Grant::Cashier,
        pb::StaffRoleKind::Dealer => felt_people::Grant::Dealer {
            tournament: role
                .tournament_id
                .parse()
                .map_err(|e| invalid(format!("role.tournament_id: {e}")))?,
            table: match role.table {
                0 => {
                    return Err(invalid(
                        "role.table: a dealer's table is its number, from 1",
                    ));
                }
                n => n,
            },
        },
        pb::StaffRoleKind::Unspecified => {
            return Err(invalid(
                "role.kind: STAFF_ROLE_KIND_DIRECTOR, _FLOOR, _PARTNER, _DEALER or _CASHIER is required",
            ));
        }
    })
}

/// A grant on the wire.
fn staff_role(grant: &felt_people::Grant) -> pb::StaffRole {
    match grant {
        felt_people::Grant::Director => pb::StaffRole {
            kind: pb::StaffRoleKind::Director.into(),
            ..Default::default()
        },
        felt_people::Grant::Floor => pb::StaffRole {
            kind: pb::StaffRoleKind::Floor.into(),
            ..Default::default()
        },
        felt_people::Grant::Partner => pb::StaffRole {
            kind: pb::StaffRoleKind::Partner.into(),
            ..Default::default()
        },
        felt_people::Grant::Cashier => pb::StaffRole {
            kind: pb::StaffRoleKind::Cashier.into(),
            ..Default::default()
        },
        felt_people::Grant::Dealer { tournament, table } => pb::StaffRole {
            kind: pb::StaffRoleKind::Dealer.into(),
            tournament_id: tournament.to_string(),
            table: *table,
        },
    }
}

fn invalid(what: impl std::fmt::Display) -> Status {
    Status::invalid_argument(what.to_string())
}

/// A structure as a director sends it, period by period: a level has its
/// blinds, a break has none.
fn typed_structure(s: &pb::Structure) -> Result<felt_clock::Structure, felt_clock::ClockError> {
    let periods = s
        .periods
        .iter()
        .map(|p| match &p.blinds {
            Some(l) => felt_clock::Period::Level(felt_clock::LevelSpec {
                small_blind: l.small_blind,
                big_blind: l.big_blind,
                ante: l.ante,
                ante_format: convert::ante_format(l.ante_format),
                minutes: p.minutes,
                smallest_chip: l.smallest_chip,
            }),
            None => felt_clock::Period::Break(felt_clock::BreakSpec {
                minutes: p.minutes,
                color_up: (p.color_up > 0).then_some(p.color_up),
            }),
        })
        .collect();
    felt_clock::Structure::new(s.name.clone(), s.starting_stack, periods)
}

/// The director's definition as each service's part of it.
fn spec(req: &pb::CreateTournamentRequest) -> Result<TournamentSpec, Status> {
    use pb::create_tournament_request::Structure as S;
    let structure = match &req.structure {
        Some(S::Preset(p)) => {
            felt_clock::Structure::preset(match pb::StructurePreset::try_from(*p) {
                Ok(pb::StructurePreset::Bhpoker) => "bhpoker",
                Ok(pb::StructurePreset::MainEvent) => "main-event",
                Ok(pb::StructurePreset::Turbo) => "turbo",
                _ => return Err(invalid("preset: bhpoker, main event or turbo")),
            })
        }
        Some(S::StructurePeriods(s)) => typed_structure(s),
        Some(S::StructureText(text)) => felt_clock::Structure::parse(text),
        None => {
            return Err(invalid(
                "structure: a preset, structure_periods or a structure_text is required",
            ));
        }
    }
    .map_err(|e| invalid(format!("structure: {e}")))?;
    structure
        .validate()
        .map_err(|e| invalid(format!("structure: {e}")))?;
    let size = match req.table_size {
        0 => 9,
        n => u8::try_from(n).map_err(|_| invalid(format!("table_size: {n} seats")))?,
    };
    let mut seating = Settings::tda(size, structure.starting_stack);
    seating.late_registration_level = req.late_registration_level;
    seating.re_entries = req.re_entries;
    seating.max_entries = (req.max_entries > 0).then_some(req.max_entries);
    seating.balance = match pb::BalanceRule::try_from(req.balance) {
        Ok(pb::BalanceRule::Unspecified | pb::BalanceRule::Tda) => Balance::TDA,
        Ok(pb::BalanceRule::Club) => Balance::CLUB,
        Err(_) => return Err(invalid("balance: tda or club")),
    };
    if req.final_table_size > 0 {
        seating.final_table = u8::try_from(req.final_table_size)
            .map_err(|_| invalid("final_table_size: too large"))?;
    }
    seating.redraws_at.clone_from(&req.redraws_at);
    seating.redraws_by_field = req.redraws_by_field_size;
    seating.re_entry_by_surrender = req.re_entry_by_surrender;
    if let Some(order) = req.break_order.as_ref().and_then(|b| b.kind.as_ref()) {
        use pb::break_order::Kind;
        seating.break_order = match order {
            Kind::HighestNumbered(_) => felt_seating::BreakOrder::HighestNumbered,
            Kind::LowestNumbered(_) => felt_seating::BreakOrder::LowestNumbered,
            Kind::RoomLayout(_) => felt_seating::BreakOrder::Layout,
            Kind::Listed(l) => felt_seating::BreakOrder::Listed(l.tables.clone()),
        };
    }
    seating.late_arrival_minutes = match req.late_arrival_minutes {
        Some(m) if m > 600 => {
            return Err(invalid("late_arrival_minutes: at most 600 minutes of play"));
        }
        m => m,
    };
    seating.disqualification = match pb::DisqualificationRule::try_from(req.disqualification) {
        Ok(pb::DisqualificationRule::Unspecified | pb::DisqualificationRule::PlacedAsTheyStand) => {
            felt_seating::Disqualification::PlacedAsTheyStand
        }
        Ok(pb::DisqualificationRule::NotPlaced) => felt_seating::Disqualification::NotPlaced,
        Err(_) => {
            return Err(invalid(
                "disqualification: placed as they stand or not placed",
            ));
        }
    };
    if req.hand_for_hand_distance > 0 {
        seating.hand_for_hand_distance = req.hand_for_hand_distance;
    }
    let mut clock = felt_clock::ClockSettings::default();
    if req.hand_for_hand_ms > 0 {
        clock.hand_for_hand_millis = req.hand_for_hand_ms;
    }
    if let Some(a) = &req.action_clock {
        let action = &mut clock.action;
        action.enabled = a.enabled;
        let set = |to: &mut i64, ms: i64| {
            if ms != 0 {
                *to = ms;
            }
        };
        set(&mut action.grace_millis, a.grace_ms);
        set(&mut action.decision_millis, a.decision_ms);
        set(&mut action.card_millis, a.card_ms);
        set(&mut action.called_millis, a.called_ms);
        set(&mut action.countdown_millis, a.countdown_ms);
        if a.cards_per_day > 0 {
            action.cards_per_day = a.cards_per_day;
        }
    }
    if let Some(d) = &req.day_end {
        clock.day_end = crate::serve::clock::day_end(d)?;
        seating.play_down_to.clone_from(&d.players_left);
    }
    let m = req.money.clone().unwrap_or_default();
    let mut money = MoneySettings::generated(m.buy_in, m.fee);
    if !m.currency.is_empty() {
        money.currency = m.currency.clone();
    }
    money.bounty = m.bounty;
    money.progressive = m.progressive;
    money.add_on = m.add_on;
    seating.add_on = req.add_on.as_ref().map(|a| felt_seating::AddOnTerms {
        chips: a.chips,
        last_level: a.last_level,
    });
    if seating.add_on.is_some() != (m.add_on > 0) {
        return Err(invalid(
            "add_on: the add-on's chips and window (add_on) and its price (money.add_on) are set together",
        ));
    }
    money.rebuy = m.rebuy;
    money.withholding = m.withholding.map(|w| felt_payout::Withholding {
        threshold: w.threshold,
        rate_bp: w.rate_bp,
        rate_without_tax_number_bp: w.rate_without_tax_number_bp,
    });
    seating.rebuy = match &req.rebuy {
        None => None,
        Some(r) => Some(felt_seating::RebuyTerms {
            chips: r.chips,
            last_level: r.last_level,
            limit: r.limit,
            condition: match pb::RebuyCondition::try_from(r.condition) {
                Ok(pb::RebuyCondition::Unspecified | pb::RebuyCondition::AtOrBelowStart) => {
                    felt_seating::RebuyCondition::AtOrBelowStart
                }
                Ok(pb::RebuyCondition::Busted) => felt_seating::RebuyCondition::Busted,
                Err(_) => return Err(invalid("rebuy.condition: not a RebuyCondition")),
            },
        }),
    };
    if seating.rebuy.is_some() != (m.rebuy > 0) {
        return Err(invalid(
            "rebuy: the rebuys' chips, window and limit (rebuy) and their price (money.rebuy) are set together",
        ));
    }
    money.guarantee = m.guarantee;
    money.structure = match pb::PaySheetKind::try_from(m.pay_sheet) {
        Ok(pb::PaySheetKind::Unspecified | pb::PaySheetKind::Generated) => money.structure,
        Ok(pb::PaySheetKind::Club) => PayStructure::Percentages(PercentTable::club()),
        Err(_) => return Err(invalid("money.pay_sheet: generated or club")),
    };
    if let Some(sat) = &m.satellite {
        if m.pay_sheet != pb::PaySheetKind::Unspecified as i32 {
            return Err(invalid(
                "money.pay_sheet: a satellite pays seats (money.satellite), no pay sheet",
            ));
        }
        money.structure = PayStructure::Satellite(felt_payout::SatelliteTerms {
            target: sat.target_tournament_id.clone(),
            seat: sat.seat,
            remainder: match pb::SatelliteRemainder::try_from(sat.remainder) {
                Ok(pb::SatelliteRemainder::Unspecified | pb::SatelliteRemainder::NextPlace) => {
                    felt_payout::Remainder::NextPlace
                }
                Ok(pb::SatelliteRemainder::SplitAmongSeats) => {
                    felt_payout::Remainder::SplitAmongSeats
                }
                Err(_) => {
                    return Err(invalid(
                        "money.satellite.remainder: not a SatelliteRemainder",
                    ));
                }
            },
            deals: sat.deals_allowed,
            second_seat: match pb::SecondSeat::try_from(sat.second_seat) {
                Ok(pb::SecondSeat::Unspecified | pb::SecondSeat::Cash) => {
                    felt_payout::SecondSeat::Cash
                }
                Ok(pb::SecondSeat::Ticket) => felt_payout::SecondSeat::Ticket,
                Err(_) => return Err(invalid("money.satellite.second_seat: not a SecondSeat")),
            },
        });
        seating.satellite = true;
        if sat.target_tournament_id == req.tournament_id {
            return Err(invalid(
                "money.satellite.target_tournament_id: a satellite's seats are in another event",
            ));
        }
    }
    if let Some(f) = &req.flight {
        if m.satellite.is_some() {
            return Err(invalid("flight: a satellite is not a flight of an event"));
        }
        if !(1..=99).contains(&f.number) {
            return Err(invalid("flight.number: 1 to 99"));
        }
        if f.event_tournament_id == req.tournament_id {
            return Err(invalid(
                "flight.event_tournament_id: a flight's event is another tournament",
            ));
        }
        money.structure = PayStructure::Flight {
            event: f.event_tournament_id.clone(),
        };
        seating.flight = f.number;
    }
    if let Some(f) = &req.flights {
        if req.flight.is_some() || m.satellite.is_some() {
            return Err(invalid(
                "flights: an event fed by flights is neither a flight nor a satellite",
            ));
        }
        if m.bounty > 0 {
            return Err(invalid(
                "flights: bounties are collected in each flight, and an event fed by flights carries none",
            ));
        }
        seating.flights = Some(match pb::FlightStacks::try_from(f.stacks) {
            Ok(pb::FlightStacks::Unspecified | pb::FlightStacks::Best) => {
                felt_seating::FlightStacks::Best
            }
            Ok(pb::FlightStacks::First) => felt_seating::FlightStacks::First,
            Ok(pb::FlightStacks::Added) => felt_seating::FlightStacks::Added,
            Err(_) => return Err(invalid("flights.stacks: not a FlightStacks")),
        });
        seating.flight_entries = felt_seating::FlightEntries {
            per_player: f.entries_per_player,
            none_after_bag: f.no_entry_after_bag,
            unplayed_refund: match pb::UnplayedRefund::try_from(f.unplayed_refund) {
                Ok(pb::UnplayedRefund::Unspecified | pb::UnplayedRefund::Full) => {
                    felt_seating::UnplayedRefund::Full
                }
                Ok(pb::UnplayedRefund::KeepFee) => felt_seating::UnplayedRefund::KeepFee,
                Err(_) => return Err(invalid("flights.unplayed_refund: not an UnplayedRefund")),
            },
        };
    }
    if m.buy_in == 0 && m.guarantee == 0 {
        return Err(invalid("money.buy_in: a tournament needs a prize pool"));
    }
    let busts = match pb::SimultaneousBusts::try_from(req.simultaneous_busts) {
        Ok(pb::SimultaneousBusts::Unspecified | pb::SimultaneousBusts::ShareAcrossTables) => {
            SimultaneousBusts::ShareAcrossTables
        }
        Ok(pb::SimultaneousBusts::ByStartingStack) => SimultaneousBusts::ByStartingStack,
        Err(_) => {
            return Err(invalid(
                "simultaneous_busts: share across tables or by starting stack",
            ));
        }
    };
    Ok(TournamentSpec {
        name: req.name.clone(),
        seating,
        structure,
        clock,
        money,
        busts,
        rules: convert::rules(req.rules.as_ref()),
        deal: match pb::DealMode::try_from(req.deal) {
            Ok(pb::DealMode::Unspecified | pb::DealMode::Physical) => DealMode::Physical,
            // A deck neither side chooses: the table's device adds entropy.
            Ok(pb::DealMode::Digital) => DealMode::Shared,
            Err(_) => {
                return Err(invalid(format!(
                    "deal: no deal mode is numbered {} (DEAL_MODE_PHYSICAL or DEAL_MODE_DIGITAL)",
                    req.deal
                )));
            }
        },
    })
}

/// Whether a tournament created as `created` (its registry entry, and the
/// settings seating keeps) is the one `spec` defines.
fn defines(
    created: &felt_tournament::aggregates::TournamentCreated,
    seating: Option<&Settings>,
    spec: &TournamentSpec,
) -> bool {
    created.name == spec.name
        && created.rules == spec.rules
        && created.deal == spec.deal
        && created
            .definition
            .as_ref()
            .is_none_or(|d| *d == spec.definition())
        && seating == Some(&spec.seating)
}

#[tonic::async_trait]
impl<L: EventLog + 'static> SeatingService for SeatingApi<L> {
    async fn create_tournament(
        &self,
        request: Request<pb::CreateTournamentRequest>,
    ) -> Result<Response<pb::CreateTournamentResponse>, Status> {
        super::limits::check(request.get_ref())?;
        director(&role(&request)?, "creating a tournament")?;
        let req = request.into_inner();
        let t = TournamentId::new(req.tournament_id.as_str())
            .map_err(|e| invalid(format!("tournament_id: {e}")))?;
        if req.name.is_empty() {
            return Err(invalid("name is required"));
        }
        let spec = spec(&req)?;
        // Created: in the registry (which comes last). A creation cut short
        // is finished now.
        let log = self.ctx.conductor.seating.log();
        let registered = felt_tournament::aggregates::tournaments(log.as_ref())
            .await
            .map_err(log_status)?
            .into_iter()
            .find(|c| c.tournament == t);
        let existed = registered.is_some()
            && felt_tournament::aggregates::parts(log.as_ref(), &t)
                .await
                .map_err(log_status)?
                .whole();
        if let Some(created) = registered.filter(|_| existed) {
            // The same definition again is the same creation (a retry);
            // another is refused: the id is taken.
            let seating = self.state(&t).await?;
            if !defines(&created, seating.settings(), &spec) {
                return Err(super::status::classified(
                    ErrorKind::AlreadyExists,
                    "TournamentExists",
                    None,
                    format!(
                        "tournament {t:?} exists with another definition: send the same \
                         definition, or create it under another id"
                    ),
                ));
            }
        } else {
            self.ctx
                .conductor
                .create(&t, &spec, self.ctx.now())
                .await
                .map_err(tournament_status)?;
            tracing::info!(tournament = %t, name = %req.name, "tournament created");
        }
        Ok(Response::new(pb::CreateTournamentResponse {
            tournament_id: t.into(),
            existed,
        }))
    }

    async fn list_tournaments(
        &self,
        request: Request<pb::ListTournamentsRequest>,
    ) -> Result<Response<pb::ListTournamentsResponse>, Status> {
        super::limits::check(request.get_ref())?;
        role(&request)?;
        let all =
            felt_tournament::aggregates::tournaments(self.ctx.conductor.seating.log().as_ref())
                .await
                .map_err(log_status)?;
        let mut tournaments = Vec::with_capacity(all.len());
        for t in all {
            // One tournament a log written before creation was all or
            // nothing holds half created is passed over, not the list.
            if let Err(e) = self.ctx.known(&t.tournament).await {
                tracing::warn!(tournament = %t.tournament, reason = e.message(), "not listed");
                continue;
            }
            let s = self.state(&t.tournament).await?;
            tournaments.push(pb::TournamentSummary {
                tournament_id: t.tournament.into(),
                name: t.name,
                started: s.started(),
                registration_closed: s.registration_closed(),
                entries: s.entries_in(),
                players_left: s.room().players(),
            });
        }
        Ok(Response::new(pb::ListTournamentsResponse { tournaments }))
    }

    async fn register(
        &self,
        request: Request<pb::RegisterRequest>,
    ) -> Result<Response<pb::RegisterResponse>, Status> {
        super::limits::check(request.get_ref())?;
        super::shared::cage(&role(&request)?, "registering players")?;
        let req = request.into_inner();
        if req.command_id.is_empty() {
            return Err(invalid("command_id is required"));
        }
        if req.player_id.is_empty() {
            return Err(invalid("player_id is required"));
        }
        let player = PlayerId::new(req.player_id.as_str())
            .map_err(|e| invalid(format!("player_id: {e}")))?;
        self.ctx.known(&req.tournament_id).await?;
        let from = felt_service::Provenance {
            request: super::shared::fingerprint(&req),
            ..felt_service::Provenance::default()
        };
        let conductor = &self.ctx.conductor;
        let (t, id, now) = (&req.tournament_id, &req.command_id, self.ctx.now());
        let paid = payment(req.payment.as_ref(), "payment")?;
        let entry = if let Some(ticket) = &req.ticket {
            if paid.is_some() || req.give_up_chips {
                return Err(invalid(
                    "ticket: a satellite's ticket pays for the entry by itself (no payment, no chips given up)",
                ));
            }
            if ticket.entry == 0 {
                return Err(invalid("ticket.entry is required"));
            }
            self.ctx.known(&ticket.satellite_tournament_id).await?;
            conductor
                .redeem_ticket_from(
                    t,
                    id,
                    &player,
                    &req.name,
                    now,
                    &from,
                    &ticket.satellite_tournament_id,
                    felt_seating::EntryId(ticket.entry),
                )
                .await
        } else if req.give_up_chips {
            conductor
                .re_enter_by_surrender_from(t, id, &player, &req.name, now, &from, paid)
                .await
        } else {
            conductor
                .register_from(t, id, &player, &req.name, now, &from, paid)
                .await
        }
        .map_err(tournament_status)?;
        let state = self.state(&req.tournament_id).await?;
        let info = state
            .entries()
            .get(&entry)
            .ok_or_else(|| Status::internal(format!("entry {entry} is not in seating")))?;
        Ok(Response::new(pb::RegisterResponse {
            entry: Some(entry_view(entry, info)),
        }))
    }

    async fn register_many(
        &self,
        request: Request<pb::RegisterManyRequest>,
    ) -> Result<Response<pb::RegisterManyResponse>, Status> {
        super::limits::check(request.get_ref())?;
        super::shared::cage(&role(&request)?, "registering players")?;
        let req = request.into_inner();
        if req.command_id.is_empty() {
            return Err(invalid("command_id is required"));
        }
        if let Some(i) = req.players.iter().position(|p| p.player_id.is_empty()) {
            return Err(invalid(format!("players[{i}].player_id is required")));
        }
        self.ctx.known(&req.tournament_id).await?;
        let from = felt_service::Provenance {
            request: super::shared::fingerprint(&req),
            ..felt_service::Provenance::default()
        };
        let players = req
            .players
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                PlayerId::new(p.player_id)
                    .map(|player| (player, p.name))
                    .map_err(|e| invalid(format!("players[{i}].player_id: {e}")))
            })
            .collect::<Result<Vec<_>, Status>>()?;
        let paid = payment(req.payment.as_ref(), "payment")?;
        let entries = self
            .ctx
            .conductor
            .register_many_from(
                &req.tournament_id,
                &req.command_id,
                &players,
                self.ctx.now(),
                &from,
                paid,
            )
            .await
            .map_err(tournament_status)?;
        let state = self.state(&req.tournament_id).await?;
        let entries = entries
            .iter()
            .filter_map(|e| state.entries().get(e).map(|info| entry_view(*e, info)))
            .collect();
        Ok(Response::new(pb::RegisterManyResponse { entries }))
    }

    async fn unregister(
        &self,
        request: Request<pb::UnregisterRequest>,
    ) -> Result<Response<pb::UnregisterResponse>, Status> {
        super::limits::check(request.get_ref())?;
        super::shared::cage(&role(&request)?, "unregistering players")?;
        let req = request.into_inner();
        self.ctx.known(&req.tournament_id).await?;
        self.ctx
            .conductor
            .unregister(
                &req.tournament_id,
                EntryId(req.entry),
                if req.reason.trim().is_empty() {
                    "the player unregistered"
                } else {
                    &req.reason
                },
                self.ctx.now(),
            )
            .await
            .map_err(tournament_status)?;
        Ok(Response::new(pb::UnregisterResponse {}))
    }

    async fn start_tournament(
        &self,
        request: Request<pb::StartTournamentRequest>,
    ) -> Result<Response<pb::StartTournamentResponse>, Status> {
        super::limits::check(request.get_ref())?;
        director(&role(&request)?, "starting play")?;
        let req = request.into_inner();
        self.ctx.known(&req.tournament_id).await?;
        self.ctx
            .conductor
            .start(&req.tournament_id, self.ctx.now())
            .await
            .map_err(tournament_status)?;
        let state = self.state(&req.tournament_id).await?;
        Ok(Response::new(pb::StartTournamentResponse {
            tables: state.room().tables.len() as u32,
            players: state.room().players(),
        }))
    }

    async fn close_registration(
        &self,
        request: Request<pb::CloseRegistrationRequest>,
    ) -> Result<Response<pb::CloseRegistrationResponse>, Status> {
        super::limits::check(request.get_ref())?;
        director(&role(&request)?, "closing registration")?;
        let t = request.into_inner().tournament_id;
        self.ctx.known(&t).await?;
        self.ctx
            .conductor
            .close_registration(&t, self.ctx.now())
            .await
            .map_err(tournament_status)?;
        let state = self.state(&t).await?;
        Ok(Response::new(pb::CloseRegistrationResponse {
            entries: state.entries_in(),
            paid: state.room().paid,
        }))
    }

    async fn cancel_tournament(
        &self,
        request: Request<pb::CancelTournamentRequest>,
    ) -> Result<Response<pb::CancelTournamentResponse>, Status> {
        super::limits::check(request.get_ref())?;
        director(&role(&request)?, "cancelling a tournament")?;
        let req = request.into_inner();
        if req.command_id.is_empty() {
            return Err(invalid("command_id is required"));
        }
        if req.reason.trim().is_empty() {
            return Err(invalid("reason is required"));
        }
        self.ctx.known(&req.tournament_id).await?;
        let from = felt_service::Provenance {
            request: super::shared::fingerprint(&req),
            ..felt_service::Provenance::default()
        };
        let refunded = self
            .ctx
            .conductor
            .cancel(
                &req.tournament_id,
                &req.command_id,
                &req.reason,
                self.ctx.now(),
                &from,
            )
            .await
            .map_err(tournament_status)?;
        Ok(Response::new(pb::CancelTournamentResponse { refunded }))
    }

    async fn hold_table(
        &self,
        request: Request<pb::HoldTableRequest>,
    ) -> Result<Response<pb::HoldTableResponse>, Status> {
        super::limits::check(request.get_ref())?;
        floor_or_director(&role(&request)?, "holding a table")?;
        let req = request.into_inner();
        if req.command_id.is_empty() {
            return Err(Status::invalid_argument("command_id is required"));
        }
        let t = req.tournament_id;
        self.ctx.known(&t).await?;
        let (duplicate, version) = self
            .ctx
            .conductor
            .floor_hold_table(
                &t,
                req.table,
                req.hold,
                &req.reason,
                &req.command_id,
                self.ctx.now(),
            )
            .await
            .map_err(tournament_status)?;
        Ok(Response::new(pb::HoldTableResponse { duplicate, version }))
    }

    async fn issue_credential(
        &self,
        request: Request<pb::IssueCredentialRequest>,
    ) -> Result<Response<pb::IssueCredentialResponse>, Status> {
        super::limits::check(request.get_ref())?;
        super::shared::director(&role(&request)?, "issuing a credential")?;
        let req = request.into_inner();
        if req.command_id.is_empty() {
            return Err(Status::invalid_argument("command_id is required"));
        }
        let person: felt_people::PersonId = req
            .person_id
            .parse()
            .map_err(|e| invalid(format!("person_id: {e}")))?;
        let grant = grant(req.role.as_ref())?;
        let token = self.key.person_secret(&req.command_id);
        let command = felt_people::PeopleCommand::Issue {
            person,
            name: req.name.clone(),
            grant,
            hash: super::people::hash(&token),
        };
        let out = self.people(&req.command_id, &req, command).await?;
        let credential = out
            .events
            .iter()
            .find_map(|e| match e {
                felt_people::PeopleEvent::Issued { credential, hash, .. } => {
                    // (A retry under another key: its secret is not this.)
                    (*hash == super::people::hash(&token)).then_some(*credential)
                }
                _ => None,
            })
            .ok_or_else(|| {
                Status::failed_precondition(
                    "this credential was issued under another key: its secret cannot be given again; revoke it and issue another",
                )
            })?;
        Ok(Response::new(pb::IssueCredentialResponse {
            credential,
            token,
            duplicate: out.duplicate,
        }))
    }

    async fn revoke_credential(
        &self,
        request: Request<pb::RevokeCredentialRequest>,
    ) -> Result<Response<pb::RevokeCredentialResponse>, Status> {
        super::limits::check(request.get_ref())?;
        super::shared::director(&role(&request)?, "revoking a credential")?;
        let req = request.into_inner();
        if req.command_id.is_empty() {
            return Err(Status::invalid_argument("command_id is required"));
        }
        let command = felt_people::PeopleCommand::Revoke {
            credential: req.credential,
            reason: req.reason.clone(),
        };
        let out = self.people(&req.command_id, &req, command).await?;
        Ok(Response::new(pb::RevokeCredentialResponse {
            duplicate: out.duplicate,
        }))
    }

    async fn issue_dealer_credential(
        &self,
        request: Request<pb::IssueDealerCredentialRequest>,
    ) -> Result<Response<pb::IssueDealerCredentialResponse>, Status> {
        super::limits::check(request.get_ref())?;
        super::shared::floor_or_director(&role(&request)?, "a table's dealer credential")?;
        let req = request.into_inner();
        let t = &req.tournament_id;
        let table = req.table;
        if !self.state(t).await?.room().tables.contains_key(&table) {
            return Err(Status::not_found(format!(
                "table {table} of {t} is not open at seating"
            )));
        }
        let tournament: felt_people::TournamentId = t
            .parse()
            .map_err(|e| invalid(format!("tournament_id: {e}")))?;
        let grant = felt_people::Grant::Dealer {
            tournament: tournament.clone(),
            table,
        };
        let stream = super::people::stream().map_err(super::status::log)?;
        let (state, _) = self
            .people
            .state(&stream)
            .await
            .map_err(super::status::log)?;
        // The table's dealer credentials so far: the live one is answered
        // again; with none live, the next is issued.
        let mine: Vec<(u64, bool, felt_people::SecretHash)> = state
            .credentials()
            .iter()
            .filter(|(_, c)| c.grant == grant)
            .map(|(&n, c)| (n, c.revoked.is_none(), c.hash))
            .collect();
        drop(state);
        if let Some(generation) = mine.iter().position(|&(_, live, _)| live) {
            let (credential, _, hash) = mine[generation];
            let token = self.key.dealer_secret(t, table, generation as u64 + 1);
            if super::people::hash(&token) != hash {
                return Err(Status::failed_precondition(format!(
                    "table {table}'s dealer credential {credential} was issued under another key (a restart without --seat-key): it still works where it is; revoke it to issue the next"
                )));
            }
            return Ok(Response::new(pb::IssueDealerCredentialResponse {
                credential,
                token,
                duplicate: true,
            }));
        }
        let generation = mine.len() as u64 + 1;
        let token = self.key.dealer_secret(t, table, generation);
        let person: felt_people::PersonId = format!("dealer:{t}/{table}")
            .parse()
            .map_err(|e| invalid(format!("{e}")))?;
        let command = felt_people::PeopleCommand::Issue {
            person,
            name: format!("the dealer of table {table}"),
            grant,
            hash: super::people::hash(&token),
        };
        let id = format!("dealer-{t}-{table}-{generation}");
        let out = self.people(&id, &req, command).await?;
        let credential = out
            .events
            .iter()
            .find_map(|e| match e {
                felt_people::PeopleEvent::Issued { credential, .. } => Some(*credential),
                _ => None,
            })
            .unwrap_or_default();
        Ok(Response::new(pb::IssueDealerCredentialResponse {
            credential,
            token,
            duplicate: out.duplicate,
        }))
    }

    async fn list_credentials(
        &self,
        request: Request<pb::ListCredentialsRequest>,
    ) -> Result<Response<pb::ListCredentialsResponse>, Status> {
        super::limits::check(request.get_ref())?;
        super::shared::director(&role(&request)?, "listing credentials")?;
        let stream = super::people::stream().map_err(super::status::log)?;
        let (state, version) = self
            .people
            .state(&stream)
            .await
            .map_err(super::status::log)?;
        self.credentials.advance(&state, version);
        let credentials = state
            .credentials()
            .iter()
            .map(|(&n, c)| pb::CredentialView {
                credential: n,
                person_id: c.person.to_string(),
                name: c.name.clone(),
                role: Some(staff_role(&c.grant)),
                revoked: c.revoked.is_some(),
                revoked_reason: c.revoked.clone().unwrap_or_default(),
            })
            .collect();
        Ok(Response::new(pb::ListCredentialsResponse { credentials }))
    }

    async fn set_room_layout(
        &self,
        request: Request<pb::SetRoomLayoutRequest>,
    ) -> Result<Response<pb::SetRoomLayoutResponse>, Status> {
        super::limits::check(request.get_ref())?;
        super::shared::director(&role(&request)?, "laying the room out")?;
        let req = request.into_inner();
        if req.command_id.is_empty() {
            return Err(invalid("command_id is required"));
        }
        let tables = req
            .tables
            .iter()
            .map(|t| {
                Ok(felt_room::PhysicalTable {
                    name: t.name.clone(),
                    seats: u8::try_from(t.seats)
                        .map_err(|_| invalid("tables.seats: a table has 2 to 10 seats"))?,
                })
            })
            .collect::<Result<Vec<_>, Status>>()?;
        let from = felt_service::Provenance {
            request: super::shared::fingerprint(&req),
            ..Default::default()
        };
        let (duplicate, version) = self
            .ctx
            .conductor
            .set_room_layout(tables, &req.command_id, self.ctx.now(), &from)
            .await
            .map_err(tournament_status)?;
        Ok(Response::new(pb::SetRoomLayoutResponse {
            duplicate,
            version,
        }))
    }

    async fn get_room(
        &self,
        request: Request<pb::GetRoomRequest>,
    ) -> Result<Response<pb::GetRoomResponse>, Status> {
        super::limits::check(request.get_ref())?;
        role(&request)?;
        let room = self
            .ctx
            .conductor
            .room_state()
            .await
            .map_err(tournament_status)?;
        let tables = room
            .layout()
            .iter()
            .map(|t| {
                let holder = room.holder(&t.name);
                pb::RoomPlace {
                    table: Some(pb::PhysicalTable {
                        name: t.name.clone(),
                        seats: u32::from(t.seats),
                    }),
                    tournament_id: holder.map(|h| h.tournament.to_string()).unwrap_or_default(),
                    tournament_table: holder.map_or(0, |h| h.table),
                }
            })
            .collect();
        Ok(Response::new(pb::GetRoomResponse { tables }))
    }

    async fn floor(
        &self,
        request: Request<pb::FloorRequest>,
    ) -> Result<Response<pb::FloorResponse>, Status> {
        use pb::floor_request::Command as C;
        super::limits::check(request.get_ref())?;
        let role = role(&request)?;
        let req = request.into_inner();
        if req.command_id.is_empty() {
            return Err(Status::invalid_argument("command_id is required"));
        }
        let command = match &req.command {
            Some(C::Disqualify(d)) => {
                super::shared::director(&role, "disqualifying a player (TDA 71)")?;
                if d.reason.trim().is_empty() {
                    return Err(invalid("disqualify.reason is required"));
                }
                felt_seating::SeatingCommand::Disqualify {
                    entry: EntryId(d.entry),
                    reason: d.reason.clone(),
                }
            }
            Some(C::MovePlayer(m)) => {
                super::shared::floor_or_director(&role, "moving a player to a seat")?;
                if m.reason.trim().is_empty() {
                    return Err(invalid("move_player.reason is required"));
                }
                felt_seating::SeatingCommand::MovePlayer {
                    entry: EntryId(m.entry),
                    table: m.table,
                    seat: u8::try_from(m.seat)
                        .map_err(|_| invalid("move_player.seat: a seat is 1 to 10"))?,
                    reason: m.reason.clone(),
                }
            }
            Some(C::Accommodate(a)) => {
                super::shared::director(&role, "accommodating a player (TDA 9)")?;
                felt_seating::SeatingCommand::Accommodate {
                    entry: EntryId(a.entry),
                    accommodated: a.accommodated,
                    reason: a.reason.clone(),
                }
            }
            Some(C::SeatAlternates(a)) => {
                super::shared::floor_or_director(&role, "seating alternates")?;
                felt_seating::SeatingCommand::SeatAlternates { count: a.count }
            }
            Some(C::AnnounceLate(a)) => {
                super::shared::floor_or_director(&role, "recording a late arrival")?;
                felt_seating::SeatingCommand::AnnounceLate {
                    entry: EntryId(a.entry),
                }
            }
            Some(C::ReplaceNoShow(r)) => {
                super::shared::floor_or_director(&role, "replacing a no-show (seed 003)")?;
                if r.reason.trim().is_empty() {
                    return Err(invalid("replace_no_show.reason is required"));
                }
                felt_seating::SeatingCommand::ReplaceNoShow {
                    entry: EntryId(r.entry),
                    played: self.played(&req.tournament_id).await?,
                    reason: r.reason.clone(),
                }
            }
            Some(C::SellAddOn(a)) => {
                super::shared::cage(&role, "selling an add-on")?;
                felt_seating::SeatingCommand::SellAddOn {
                    entry: EntryId(a.entry),
                    level: self.level_now(&req.tournament_id).await?,
                }
                .paid(payment(a.payment.as_ref(), "sell_add_on.payment")?)
            }
            Some(C::SellRebuy(r)) => {
                super::shared::cage(&role, "selling a rebuy (rule 27)")?;
                let (stack, hands) = self.stack_now(&req.tournament_id, EntryId(r.entry)).await?;
                felt_seating::SeatingCommand::SellRebuy {
                    entry: EntryId(r.entry),
                    level: self.level_now(&req.tournament_id).await?,
                    stack,
                    hands,
                }
                .paid(payment(r.payment.as_ref(), "sell_rebuy.payment")?)
            }
            Some(C::DeclineRebuy(d)) => {
                super::shared::floor_or_director(&role, "answering a rebuy offer (rule 27)")?;
                felt_seating::SeatingCommand::DeclineRebuy {
                    entry: EntryId(d.entry),
                }
            }
            Some(C::BagStacks(_)) => {
                super::shared::floor_or_director(&role, "bagging the stacks")?;
                let (stacks, uncounted) = self.stacks_in_play(&req.tournament_id).await?;
                felt_seating::SeatingCommand::BagStacks { stacks, uncounted }
            }
            Some(C::ConfirmBag(c)) => {
                super::shared::floor_or_director(&role, "confirming a bag's count")?;
                felt_seating::SeatingCommand::ConfirmBag {
                    entry: EntryId(c.entry),
                    by: match pb::BagWitness::try_from(c.by) {
                        Ok(pb::BagWitness::Player) => felt_seating::BagWitness::Player,
                        Ok(pb::BagWitness::Staff) => felt_seating::BagWitness::Staff,
                        _ => return Err(invalid("confirm_bag.by: the player or the staff")),
                    },
                }
            }
            Some(C::SealBags(_)) => {
                super::shared::floor_or_director(&role, "sealing the bags")?;
                felt_seating::SeatingCommand::SealBags
            }
            Some(C::AdvanceFlights(_)) => {
                super::shared::director(&role, "advancing the flights to Day 2")?;
                let t = &req.tournament_id;
                self.ctx.known(t).await?;
                let from = felt_service::Provenance {
                    request: super::shared::fingerprint(&req),
                    ..Default::default()
                };
                let (duplicate, version) = self
                    .ctx
                    .conductor
                    .advance_flights(t, &req.command_id, self.ctx.now(), &from)
                    .await
                    .map_err(tournament_status)?;
                return Ok(Response::new(pb::FloorResponse { duplicate, version }));
            }
            Some(C::LateEntries(l)) => {
                super::shared::floor_or_director(&role, "entering facts late")?;
                if l.open {
                    if l.reason.trim().is_empty() {
                        return Err(invalid("late_entries.reason is required to open them"));
                    }
                    felt_seating::SeatingCommand::OpenLateEntries {
                        reason: l.reason.clone(),
                    }
                } else {
                    felt_seating::SeatingCommand::CloseLateEntries
                }
            }
            None => return Err(invalid("command is required")),
        };
        let t = &req.tournament_id;
        self.ctx.known(t).await?;
        let from = felt_service::Provenance {
            request: super::shared::fingerprint(&req),
            ..Default::default()
        };
        let (duplicate, version) = self
            .ctx
            .conductor
            .floor(t, command, &req.command_id, self.ctx.now(), &from)
            .await
            .map_err(tournament_status)?;
        Ok(Response::new(pb::FloorResponse { duplicate, version }))
    }

    async fn hand_for_hand(
        &self,
        request: Request<pb::HandForHandRequest>,
    ) -> Result<Response<pb::HandForHandResponse>, Status> {
        super::limits::check(request.get_ref())?;
        // The clock service hands on what the floor asked of it.
        let role = role(&request)?;
        if role != Role::Service {
            floor_or_director(&role, "hand-for-hand")?;
        }
        let req = request.into_inner();
        if req.command_id.is_empty() {
            return Err(Status::invalid_argument("command_id is required"));
        }
        let start = match pb::HandForHandAction::try_from(req.action) {
            Ok(pb::HandForHandAction::Start) => true,
            Ok(pb::HandForHandAction::Stop) => false,
            _ => {
                return Err(Status::invalid_argument(
                    "action: HAND_FOR_HAND_ACTION_START or HAND_FOR_HAND_ACTION_STOP",
                ));
            }
        };
        let t = req.tournament_id;
        self.ctx.known(&t).await?;
        let duplicate = self
            .ctx
            .conductor
            .floor_hand_for_hand(&t, start, &req.command_id, self.ctx.now())
            .await
            .map_err(tournament_status)?;
        let stream = seating_stream(&t).map_err(log_status)?;
        let (state, version) = self
            .ctx
            .conductor
            .seating
            .state(&stream)
            .await
            .map_err(log_status)?;
        Ok(Response::new(pb::HandForHandResponse {
            duplicate,
            hand_for_hand: state.room().hand_for_hand.is_some(),
            version,
        }))
    }

    async fn begin_hand(
        &self,
        request: Request<pb::BeginHandRequest>,
    ) -> Result<Response<pb::BeginHandResponse>, Status> {
        super::limits::check(request.get_ref())?;
        let role = role(&request)?;
        let req = request.into_inner();
        match &role {
            Role::Director | Role::Floor => {}
            Role::Dealer { tournament, table }
                if tournament.as_str() == req.tournament_id && *table == req.table => {}
            _ => {
                return Err(Status::permission_denied(
                    "a hand is begun by its table's dealer or the floor",
                ));
            }
        }
        self.ctx.known(&req.tournament_id).await?;
        // The deck's seed is the service's to draw, never the caller's.
        let seeds = self.ctx.seeds.clone();
        let tournament = req.tournament_id.clone();
        let table = req.table;
        let deck = move |hand: u64| {
            seeds.draw(Draw::Deck {
                tournament: &tournament,
                table,
                hand,
            })
        };
        // A table told to wait (mostly for its last hand's end to reach
        // seating from the log) is answered when seating lets it deal, or
        // after a while: the dealer does not have to ask again and again.
        let deadline = tokio::time::Instant::now() + BEGIN_WAIT;
        let table_progress = self.ctx.progress.of(&req.tournament_id, req.table);
        let begin = loop {
            let progress = table_progress.notified();
            tokio::pin!(progress);
            progress.as_mut().enable();
            let begin = self
                .ctx
                .conductor
                .begin_hand(&req.tournament_id, req.table, self.ctx.now(), &deck)
                .await
                .map_err(tournament_status)?;
            let now = tokio::time::Instant::now();
            match begin {
                Begin::Wait(_) if now < deadline => {
                    let pause = (deadline - now).min(BEGIN_RECHECK);
                    let _ = tokio::time::timeout(pause, progress).await;
                }
                other => break other,
            }
        };
        use pb::begin_hand_response::Outcome;
        let outcome = match begin {
            Begin::Started(_, state, version) => {
                let hand = state.hand();
                Outcome::Dealt(pb::HandDealt {
                    hand_number: hand.map_or(0, |h| h.number),
                    level: hand.map(|h| convert::pb_level(&h.level)),
                    table: Some(convert::view(
                        pb::TableRef {
                            tournament_id: req.tournament_id.clone(),
                            table: req.table,
                        },
                        &state,
                        version,
                        convert::Sight::of(&role),
                    )),
                })
            }
            Begin::Wait(reason) => Outcome::Wait(reason),
            Begin::OnBreak(ms) => Outcome::OnBreakMs(ms),
            Begin::Closed => Outcome::Closed(true),
            Begin::RaceDue { leaving, smallest } => {
                Outcome::RaceDue(pb::ChipRaceDue { leaving, smallest })
            }
        };
        Ok(Response::new(pb::BeginHandResponse {
            outcome: Some(outcome),
        }))
    }

    async fn find_seat(
        &self,
        request: Request<pb::FindSeatRequest>,
    ) -> Result<Response<pb::FindSeatResponse>, Status> {
        super::limits::check(request.get_ref())?;
        role(&request)?;
        let req = request.into_inner();
        let query = req.query.trim().to_lowercase();
        if query.is_empty() {
            return Err(invalid("query: type part of a name or an entry number"));
        }
        let state = self.state(&req.tournament_id).await?;
        let number: Option<EntryId> = query.parse().ok();
        let entries = state
            .entries()
            .iter()
            .filter(|(id, info)| {
                Some(**id) == number
                    || info.player.to_lowercase() == query
                    || info.name.to_lowercase().contains(&query)
            })
            .take(100)
            .map(|(id, info)| entry_view(*id, info))
            .collect();
        Ok(Response::new(pb::FindSeatResponse { entries }))
    }

    async fn get_table_map(
        &self,
        request: Request<pb::GetTableMapRequest>,
    ) -> Result<Response<pb::GetTableMapResponse>, Status> {
        super::limits::check(request.get_ref())?;
        role(&request)?;
        let state = self.state(&request.into_inner().tournament_id).await?;
        let tables = state
            .room()
            .tables
            .values()
            .map(|t| pb::RoomTable {
                table: t.number,
                seats: u32::from(t.size()),
                players: t.count(),
                in_hand: t.in_hand,
                breaking: t.breaking,
                hands: t.hands,
                occupants: (1..=t.size())
                    .filter_map(|s| t.occupant(s))
                    .filter_map(|e| state.entries().get(&e).map(|info| entry_view(e, info)))
                    .collect(),
                physical_table: state
                    .room()
                    .physical
                    .get(&t.number)
                    .map(|(name, _)| name.clone())
                    .unwrap_or_default(),
                rebuy_offers: state
                    .room()
                    .offers
                    .get(&t.number)
                    .map(|o| o.waiting.iter().map(|e| e.get()).collect())
                    .unwrap_or_default(),
                last_hands_left: state
                    .room()
                    .last_hands
                    .as_ref()
                    .map(|l| u32::from(l.left(t.number))),
            })
            .collect();
        Ok(Response::new(pb::GetTableMapResponse {
            tables,
            final_table: state.room().final_table,
        }))
    }

    async fn get_standings(
        &self,
        request: Request<pb::GetStandingsRequest>,
    ) -> Result<Response<pb::GetStandingsResponse>, Status> {
        super::limits::check(request.get_ref())?;
        role(&request)?;
        let state = self.state(&request.into_inner().tournament_id).await?;
        let stack = state.settings().map_or(0, |s| s.starting_stack);
        let entries = state.entries_in();
        let left = state.room().players();
        // Chips are conserved: every entry brought one starting stack.
        let in_play = if state.started() {
            u64::from(entries) * stack
        } else {
            0
        };
        Ok(Response::new(pb::GetStandingsResponse {
            name: state.name().to_string(),
            started: state.started(),
            registration_closed: state.registration_closed(),
            entries,
            players_left: left,
            tables: state.room().tables.len() as u32,
            starting_stack: stack,
            average_stack: in_play.checked_div(u64::from(left)).unwrap_or(0),
            paid: state.room().paid,
            hand_for_hand: state.room().hand_for_hand.is_some(),
            final_table: state.room().final_table,
            alternates: state
                .entries()
                .values()
                .filter(|e| e.status == EntryStatus::Alternate)
                .count() as u32,
            // (One player left while late registration is open is no
            // winner yet: a late entrant may still come.)
            finished: state.room().seats_won
                || (state.started() && state.registration_closed() && left <= 1),
            seats: state.room().seats.unwrap_or(0),
        }))
    }

    async fn get_moves(
        &self,
        request: Request<pb::GetMovesRequest>,
    ) -> Result<Response<pb::GetMovesResponse>, Status> {
        super::limits::check(request.get_ref())?;
        role(&request)?;
        let request = request.into_inner();
        let state = self.state(&request.tournament_id).await?;
        let skip = match request.last {
            0 => 0,
            last => state.history().len().saturating_sub(last as usize),
        };
        let moves = state
            .history()
            .skip(skip)
            .iter()
            .map(|r| {
                let m = &r.r#move;
                pb::MoveView {
                    id: m.id,
                    entry: m.entry.get(),
                    name: state
                        .entries()
                        .get(&m.entry)
                        .map(|e| e.name.clone())
                        .unwrap_or_default(),
                    from_table: m.from.0,
                    from_seat: u32::from(m.from.1),
                    to_table: m.to.0,
                    to_seat: u32::from(m.to.1),
                    reason: move_reason(m.reason).into(),
                    detail: r.detail.clone(),
                    completed: r.completed,
                }
            })
            .collect();
        Ok(Response::new(pb::GetMovesResponse { moves }))
    }

    async fn get_bags(
        &self,
        request: Request<pb::GetBagsRequest>,
    ) -> Result<Response<pb::GetBagsResponse>, Status> {
        super::limits::check(request.get_ref())?;
        role(&request)?;
        let req = request.into_inner();
        Ok(Response::new(
            self.bag_lines(&req.tournament_id, req.day).await?,
        ))
    }

    async fn export_bags(
        &self,
        request: Request<pb::ExportBagsRequest>,
    ) -> Result<Response<pb::ExportBagsResponse>, Status> {
        super::limits::check(request.get_ref())?;
        role(&request)?;
        let req = request.into_inner();
        let bags = self.bag_lines(&req.tournament_id, req.day).await?;
        let (content_type, body) = match pb::ExportFormat::try_from(req.format) {
            Ok(pb::ExportFormat::Csv) => ("text/csv", crate::bags::csv(&bags)),
            Ok(pb::ExportFormat::Json) => (
                "application/json",
                crate::bags::json(&bags).map_err(|e| Status::internal(e.to_string()))?,
            ),
            _ => return Err(Status::invalid_argument("format: csv or json")),
        };
        Ok(Response::new(pb::ExportBagsResponse {
            content_type: content_type.into(),
            body,
        }))
    }

    type WatchSeatingStream = ReceiverStream<Result<pb::WatchSeatingResponse, Status>>;

    async fn watch_seating(
        &self,
        request: Request<pb::WatchSeatingRequest>,
    ) -> Result<Response<Self::WatchSeatingStream>, Status> {
        super::limits::check(request.get_ref())?;
        role(&request)?;
        let req = request.into_inner();
        self.ctx.known(&req.tournament_id).await?;
        let stream = seating_stream(&req.tournament_id).map_err(log_status)?;
        let mut decisions = follow_stream(&self.ctx.watch, stream, req.after_version);
        let (tx, rx) = tokio::sync::mpsc::channel(64);
        tokio::spawn(async move {
            while let Some(next) = decisions.recv().await {
                let item = next.and_then(|followed| {
                    Ok(pb::WatchSeatingResponse {
                        events: wire(&followed.envelopes)?,
                        resumed: followed.resumed,
                    })
                });
                if tx.send(item).await.is_err() {
                    return;
                }
            }
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }
}

/// Seating's events as partners get them.
pub(super) fn wire(envelopes: &[felt_eventlog::Envelope]) -> Result<Vec<pb::SeatingEvent>, Status> {
    envelopes
        .iter()
        .map(|env| {
            let event: SeatingEvent = env.decode().map_err(log_status)?;
            Ok(pb::SeatingEvent {
                sequence: env.sequence,
                r#type: event.name().into(),
                recorded_at_ms: env.recorded_at,
                kind: Some(super::seating_events::to_wire(&event)),
            })
        })
        .collect()
}

/// How long a count of the stacks waits for the moves in flight.
const MOVES_SETTLE: std::time::Duration = std::time::Duration::from_secs(5);
/// How long BeginHand holds a table told to wait before answering so.
const BEGIN_WAIT: std::time::Duration = std::time::Duration::from_secs(1);
/// How often a held BeginHand asks seating again without being told.
const BEGIN_RECHECK: std::time::Duration = std::time::Duration::from_millis(250);

/// Follows the tables' events and reports every hand end to seating,
/// payout and the clock, from the position the follower last recorded;
/// after an error (the log unreachable), starts again from there, which
/// reports the hands after it again (each report is idempotent). Runs
/// until the process stops.
pub(crate) async fn follower<L: EventLog + 'static>(ctx: Ctx<L>) {
    let inputs = ServiceInputs(ctx.now.clone());
    loop {
        let result = felt_tournament::follow::follow(
            &ctx.conductor,
            &inputs,
            &|tournament: &str, table: u32, hand: u64| {
                tracing::debug!(tournament, table, hand, "hand end reported");
                ctx.progress.of(tournament, table).notify_waiters();
            },
        )
        .await;
        match result {
            Ok(()) => return,
            Err(e) => {
                tracing::warn!(%e, "following the tables failed: starting again");
                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pb::create_tournament_request::Structure as S;

    fn request(structure: S) -> pb::CreateTournamentRequest {
        pb::CreateTournamentRequest {
            tournament_id: "t".into(),
            name: "Club".into(),
            structure: Some(structure),
            money: Some(pb::MoneySettings {
                buy_in: 4_000,
                fee: 1_000,
                pay_sheet: pb::PaySheetKind::Club.into(),
                ..Default::default()
            }),
            balance: pb::BalanceRule::Club.into(),
            simultaneous_busts: pb::SimultaneousBusts::ByStartingStack.into(),
            ..Default::default()
        }
    }

    /// Seed 003's structure, sent period by period as GetStructure shows
    /// it, defines the same tournament as its preset.
    #[test]
    fn a_structure_sent_period_by_period_is_the_one_it_shows() {
        let bhpoker = felt_clock::Structure::bhpoker();
        let typed = spec(&request(S::StructurePeriods(
            super::super::clock::structure(&bhpoker),
        )))
        .unwrap();
        let preset = spec(&request(S::Preset(pb::StructurePreset::Bhpoker.into()))).unwrap();
        assert_eq!(typed.structure, bhpoker);
        assert_eq!(typed, preset);
        assert_eq!(typed.seating.balance, Balance::CLUB);
        assert_eq!(typed.busts, SimultaneousBusts::ByStartingStack);
        assert!(matches!(
            typed.money.structure,
            PayStructure::Percentages(_)
        ));
    }

    #[test]
    fn a_structure_that_colours_up_a_chip_not_in_play_is_refused_naming_the_break() {
        let mut periods = super::super::clock::structure(&felt_clock::Structure::bhpoker());
        // The first break colours up the 100 chip; the smallest in play is 25.
        periods.periods[6].color_up = 100;
        let refused = spec(&request(S::StructurePeriods(periods))).unwrap_err();
        assert_eq!(refused.code(), tonic::Code::InvalidArgument);
        assert!(
            refused.message().contains("the break after level 6"),
            "{refused:?}"
        );
        let refused = spec(&pb::CreateTournamentRequest {
            balance: 7,
            ..request(S::Preset(pb::StructurePreset::Turbo.into()))
        })
        .unwrap_err();
        assert_eq!(refused.message(), "balance: tda or club");
    }
}
