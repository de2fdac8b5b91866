//! Seating's events on the wire, typed (`felt.v1.SeatingEvent`'s `kind`):
//! the one place the domain's shape and the contract's meet for them.

use felt_proto::v1 as pb;
use felt_proto::v1::seating_event as se;
use felt_seating::{
    BreakOrder, Disqualification, EntryId, MoveReason, SeatReason, SeatingEvent, Settings,
};

fn entries(es: &[EntryId]) -> Vec<u64> {
    es.iter().map(|e| e.get()).collect()
}

/// Why a move was made, on the wire.
pub(crate) fn move_reason(r: MoveReason) -> pb::MoveReason {
    match r {
        MoveReason::Balance => pb::MoveReason::Balance,
        MoveReason::TableBroken => pb::MoveReason::TableBroken,
        MoveReason::Redraw => pb::MoveReason::Redraw,
        MoveReason::FinalTable => pb::MoveReason::FinalTable,
        MoveReason::NewDay => pb::MoveReason::NewDay,
        MoveReason::Floor => pb::MoveReason::Floor,
    }
}

fn settings(s: &Settings) -> pb::SeatingSettings {
    pb::SeatingSettings {
        table_size: s.table_size.into(),
        starting_stack: s.starting_stack,
        late_registration_level: s.late_registration_level,
        max_entries: s.max_entries,
        re_entries: s.re_entries,
        balance: Some(pb::Balance {
            tolerance: s.balance.tolerance.into(),
            stop_short_by: s.balance.stop_short_by.map(u32::from),
            stop_below: s.balance.stop_below.map(u32::from),
        }),
        break_order: Some(pb::BreakOrder {
            kind: Some(match &s.break_order {
                BreakOrder::HighestNumbered => {
                    pb::break_order::Kind::HighestNumbered(pb::HighestNumbered {})
                }
                BreakOrder::LowestNumbered => {
                    pb::break_order::Kind::LowestNumbered(pb::LowestNumbered {})
                }
                BreakOrder::Layout => pb::break_order::Kind::RoomLayout(pb::RoomLayout {}),
                BreakOrder::Listed(tables) => pb::break_order::Kind::Listed(pb::ListedTables {
                    tables: tables.clone(),
                }),
            }),
        }),
        final_table: s.final_table.into(),
        redraws_at: s.redraws_at.clone(),
        redraws_by_field_size: s.redraws_by_field,
        paid: s.paid,
        hand_for_hand_distance: s.hand_for_hand_distance,
        disqualification: match s.disqualification {
            Disqualification::PlacedAsTheyStand => pb::DisqualificationRule::PlacedAsTheyStand,
            Disqualification::NotPlaced => pb::DisqualificationRule::NotPlaced,
        }
        .into(),
        re_entry_by_surrender: s.re_entry_by_surrender,
        late_arrival_minutes: s.late_arrival_minutes,
        add_on: s.add_on.map(|a| pb::AddOnTerms {
            chips: a.chips,
            last_level: a.last_level,
        }),
        rebuy: s.rebuy.map(|r| pb::RebuyTerms {
            chips: r.chips,
            last_level: r.last_level,
            limit: r.limit,
            condition: match r.condition {
                felt_seating::RebuyCondition::AtOrBelowStart => pb::RebuyCondition::AtOrBelowStart,
                felt_seating::RebuyCondition::Busted => pb::RebuyCondition::Busted,
            }
            .into(),
        }),
        play_down_to: s.play_down_to.clone(),
        satellite: s.satellite,
        flight: s.flight,
        flights: s.flights.map(|stacks| pb::FlightsSettings {
            stacks: match stacks {
                felt_seating::FlightStacks::Best => pb::FlightStacks::Best,
                felt_seating::FlightStacks::First => pb::FlightStacks::First,
                felt_seating::FlightStacks::Added => pb::FlightStacks::Added,
            }
            .into(),
            entries_per_player: s.flight_entries.per_player,
            no_entry_after_bag: s.flight_entries.none_after_bag,
            unplayed_refund: match s.flight_entries.unplayed_refund {
                felt_seating::UnplayedRefund::Full => pb::UnplayedRefund::Full,
                felt_seating::UnplayedRefund::KeepFee => pb::UnplayedRefund::KeepFee,
            }
            .into(),
        }),
    }
}

/// Seating's event for the wire.
pub(crate) fn to_wire(e: &SeatingEvent) -> se::Kind {
    match e {
        SeatingEvent::Created { name, settings: s } => se::Kind::Created(se::Created {
            name: name.clone(),
            settings: Some(settings(s)),
        }),
        SeatingEvent::Registered {
            entry,
            player,
            name,
            re_entry,
            alternate,
        } => se::Kind::Registered(se::Registered {
            entry: entry.get(),
            player_id: player.to_string(),
            name: name.clone(),
            re_entry: *re_entry,
            alternate: *alternate,
        }),
        SeatingEvent::Unregistered {
            entry,
            alternate,
            reason,
            fee_kept,
        } => se::Kind::Unregistered(se::Unregistered {
            entry: entry.get(),
            alternate: *alternate,
            reason: reason.clone(),
            fee_kept: *fee_kept,
        }),
        SeatingEvent::Cancelled { reason } => se::Kind::Cancelled(se::Cancelled {
            reason: reason.clone(),
        }),
        SeatingEvent::PaymentTaken {
            entry,
            purchase,
            payment,
        } => se::Kind::PaymentTaken(se::PaymentTaken {
            entry: entry.get(),
            purchase: match purchase {
                felt_seating::Purchase::Entry => pb::PurchaseKind::Entry,
                felt_seating::Purchase::AddOn => pb::PurchaseKind::AddOn,
                felt_seating::Purchase::Rebuy { .. } => pb::PurchaseKind::Rebuy,
            }
            .into(),
            rebuy: match purchase {
                felt_seating::Purchase::Rebuy { number } => *number,
                _ => 0,
            },
            payment: Some(super::payout_events::payment(payment)),
        }),
        SeatingEvent::AlternatePromoted { entry } => {
            se::Kind::AlternatePromoted(se::AlternatePromoted { entry: entry.get() })
        }
        SeatingEvent::Started { players } => se::Kind::Started(se::Started { players: *players }),
        SeatingEvent::RegistrationClosed => se::Kind::RegistrationClosed(se::RegistrationClosed {}),
        SeatingEvent::PaidSet { paid } => se::Kind::PaidSet(se::PaidSet { paid: *paid }),
        SeatingEvent::TableOpened { table, seats } => se::Kind::TableOpened(se::TableOpened {
            table: *table,
            seats: (*seats).into(),
        }),
        SeatingEvent::SeatsDrawn { stack, seats } => se::Kind::SeatsDrawn(se::SeatsDrawn {
            stack: *stack,
            seats: seats
                .iter()
                .map(|&(entry, table, seat)| pb::DrawnSeat {
                    entry: entry.get(),
                    table,
                    seat: seat.into(),
                })
                .collect(),
        }),
        SeatingEvent::Seated {
            entry,
            table,
            seat,
            stack,
            reason,
        } => se::Kind::Seated(se::Seated {
            entry: entry.get(),
            table: *table,
            seat: (*seat).into(),
            stack: *stack,
            reason: match reason {
                SeatReason::LateEntry => pb::SeatReason::LateEntry,
            }
            .into(),
        }),
        SeatingEvent::SeatConfirmed { entry } => {
            se::Kind::SeatConfirmed(se::SeatConfirmed { entry: entry.get() })
        }
        SeatingEvent::HandBegun { table } => se::Kind::HandBegun(se::HandBegun { table: *table }),
        SeatingEvent::HandEnded {
            table,
            button,
            big_blind,
            hand_for_hand_round,
        } => se::Kind::HandEnded(se::HandEnded {
            table: *table,
            button: (*button).into(),
            big_blind: (*big_blind).into(),
            hand_for_hand_round: *hand_for_hand_round,
        }),
        SeatingEvent::Busted {
            entry,
            table,
            starting_stack,
            by,
            remaining,
            hand_for_hand_round,
            occurred_at,
            held,
        } => se::Kind::Busted(se::Busted {
            entry: entry.get(),
            table: *table,
            starting_stack: *starting_stack,
            by: entries(by),
            remaining: *remaining,
            hand_for_hand_round: *hand_for_hand_round,
            occurred_at_ms: *occurred_at,
            held: *held,
        }),
        SeatingEvent::RebuysOffered {
            table,
            button,
            big_blind,
            busted,
            offered,
        } => se::Kind::RebuysOffered(se::RebuysOffered {
            table: *table,
            button: u32::from(*button),
            big_blind: u32::from(*big_blind),
            busted: busted
                .iter()
                .map(|b| se::OfferedBust {
                    entry: b.entry.get(),
                    starting_stack: b.starting_stack,
                    by: entries(&b.by),
                    occurred_at_ms: b.occurred_at,
                })
                .collect(),
            offered: entries(offered),
        }),
        SeatingEvent::RebuyDeclined { entry, table } => {
            se::Kind::RebuyDeclined(se::RebuyDeclined {
                entry: entry.get(),
                table: *table,
            })
        }
        SeatingEvent::RebuysClosed => se::Kind::RebuysClosed(se::RebuysClosed {}),
        SeatingEvent::LastHandsDrawn { hands } => se::Kind::LastHandsDrawn(se::LastHandsDrawn {
            hands: u32::from(*hands),
        }),
        SeatingEvent::LastHandsPlayed => se::Kind::LastHandsPlayed(se::LastHandsPlayed {}),
        SeatingEvent::DayResumed => se::Kind::DayResumed(se::DayResumed {}),
        SeatingEvent::StacksBagged { bags } => se::Kind::StacksBagged(se::StacksBagged {
            bags: bags
                .iter()
                .map(|b| se::Bag {
                    entry: b.entry.get(),
                    number: b.number,
                    chips: b.chips,
                })
                .collect(),
        }),
        SeatingEvent::BagRecounted { entry, chips } => se::Kind::BagRecounted(se::BagRecounted {
            entry: entry.get(),
            chips: *chips,
        }),
        SeatingEvent::BagConfirmed { entry, by } => se::Kind::BagConfirmed(se::BagConfirmed {
            entry: entry.get(),
            by: match by {
                felt_seating::BagWitness::Player => pb::BagWitness::Player,
                felt_seating::BagWitness::Staff => pb::BagWitness::Staff,
            }
            .into(),
        }),
        SeatingEvent::BagsSealed { bags, chips } => se::Kind::BagsSealed(se::BagsSealed {
            bags: *bags,
            chips: *chips,
        }),
        SeatingEvent::SeatsSet { seats } => se::Kind::SeatsSet(se::SeatsSet { seats: *seats }),
        SeatingEvent::SeatsWon { entries } => se::Kind::SeatsWon(se::SeatsWon {
            entries: entries.iter().map(|e| e.get()).collect(),
        }),
        SeatingEvent::TicketRecorded { ticket } => se::Kind::TicketRecorded(se::TicketRecorded {
            ticket: Some(ticket_of(ticket)),
            player_id: ticket.holder.to_string(),
        }),
        SeatingEvent::TicketVoided { ticket, held } => se::Kind::TicketVoided(se::TicketVoided {
            ticket: Some(ticket_of(ticket)),
            player_id: ticket.holder.to_string(),
            held: held.rsplit_once('/').map(|(satellite, entry)| pb::Ticket {
                satellite_tournament_id: satellite.to_string(),
                entry: entry.parse().unwrap_or_default(),
            }),
        }),
        SeatingEvent::FlightsAdvanced {
            advanced,
            forfeited,
            out_before,
            resume,
        } => se::Kind::FlightsAdvanced(se::FlightsAdvanced {
            resume: resume.map(|r| se::DayResume {
                day: r.day,
                level: r.level,
                remaining_ms: r.remaining_ms,
            }),
            advanced: advanced
                .iter()
                .map(|a| se::AdvancedStack {
                    entry: a.entry.get(),
                    player_id: a.player.to_string(),
                    name: a.name.clone(),
                    chips: a.chips,
                    bags: a.bags.iter().map(|e| e.get()).collect(),
                })
                .collect(),
            forfeited: forfeited
                .iter()
                .map(|b| se::FlightBag {
                    flight: b.flight,
                    entry: b.entry.get(),
                    player_id: b.player.to_string(),
                    name: b.name.clone(),
                    bag: b.bag,
                    chips: b.chips,
                })
                .collect(),
            out_before: *out_before,
        }),
        SeatingEvent::TableNamed {
            table,
            name,
            position,
        } => se::Kind::TableNamed(se::TableNamed {
            table: *table,
            name: name.clone(),
            position: *position,
        }),
        SeatingEvent::LateAnnounced { entry } => {
            se::Kind::LateAnnounced(se::LateAnnounced { entry: entry.get() })
        }
        SeatingEvent::NoShowReplaced {
            entry,
            table,
            seat,
            alternate,
            reason,
        } => se::Kind::NoShowReplaced(se::NoShowReplaced {
            entry: entry.get(),
            table: *table,
            seat: (*seat).into(),
            alternate: alternate.get(),
            reason: reason.clone(),
        }),
        SeatingEvent::LateEntriesOpened { reason } => {
            se::Kind::LateEntriesOpened(se::LateEntriesOpened {
                reason: reason.clone(),
            })
        }
        SeatingEvent::LateEntriesClosed { groups } => {
            se::Kind::LateEntriesClosed(se::LateEntriesClosed {
                hands: groups
                    .iter()
                    .map(|g| se::LateHand {
                        table: g.table,
                        occurred_at_ms: g.occurred_at,
                        entries: g.busts.iter().map(|b| b.entry.get()).collect(),
                    })
                    .collect(),
            })
        }
        SeatingEvent::TableBreaking { table } => {
            se::Kind::TableBreaking(se::TableBreaking { table: *table })
        }
        SeatingEvent::MoveStarted { r#move, detail } => se::Kind::MoveStarted(se::MoveStarted {
            id: r#move.id,
            entry: r#move.entry.get(),
            from_table: r#move.from.0,
            from_seat: r#move.from.1.into(),
            to_table: r#move.to.0,
            to_seat: r#move.to.1.into(),
            reason: move_reason(r#move.reason).into(),
            detail: detail.clone(),
        }),
        SeatingEvent::MoveCompleted { id, stack } => se::Kind::MoveCompleted(se::MoveCompleted {
            id: *id,
            stack: *stack,
        }),
        SeatingEvent::MoveVoided { id } => se::Kind::MoveVoided(se::MoveVoided { id: *id }),
        SeatingEvent::TableHeld { table, reason } => se::Kind::TableHeld(se::TableHeld {
            table: *table,
            reason: reason.clone(),
        }),
        SeatingEvent::TableReleased { table } => {
            se::Kind::TableReleased(se::TableReleased { table: *table })
        }
        SeatingEvent::Disqualified {
            entry,
            table,
            seat,
            reason,
            placed,
            remaining,
        } => se::Kind::Disqualified(se::Disqualified {
            entry: entry.get(),
            table: *table,
            seat: (*seat).into(),
            reason: reason.clone(),
            placed: *placed,
            remaining: *remaining,
        }),
        SeatingEvent::Surrendered {
            entry,
            table,
            seat,
            remaining,
        } => se::Kind::Surrendered(se::Surrendered {
            entry: entry.get(),
            table: *table,
            seat: (*seat).into(),
            remaining: *remaining,
        }),
        SeatingEvent::Accommodated {
            entry,
            accommodated,
            reason,
        } => se::Kind::Accommodated(se::Accommodated {
            entry: entry.get(),
            accommodated: *accommodated,
            reason: reason.clone(),
        }),
        SeatingEvent::RemovalCompleted { entry, stack } => {
            se::Kind::RemovalCompleted(se::RemovalCompleted {
                entry: entry.get(),
                stack: *stack,
            })
        }
        SeatingEvent::TableClosed { table } => {
            se::Kind::TableClosed(se::TableClosed { table: *table })
        }
        SeatingEvent::AddOnSold {
            entry,
            table,
            seat,
            chips,
        } => se::Kind::AddOnSold(se::AddOnSold {
            entry: entry.get(),
            table: *table,
            seat: (*seat).into(),
            chips: *chips,
        }),
        SeatingEvent::AddOnDelivered {
            entry,
            table,
            chips,
        } => se::Kind::AddOnDelivered(se::AddOnDelivered {
            entry: entry.get(),
            table: *table,
            chips: *chips,
        }),
        SeatingEvent::RebuySold {
            entry,
            table,
            seat,
            chips,
            stack,
            number,
        } => se::Kind::RebuySold(se::RebuySold {
            entry: entry.get(),
            table: *table,
            seat: (*seat).into(),
            chips: *chips,
            stack: *stack,
            number: *number,
        }),
        SeatingEvent::RebuyDelivered {
            entry,
            table,
            chips,
            number,
        } => se::Kind::RebuyDelivered(se::RebuyDelivered {
            entry: entry.get(),
            table: *table,
            chips: *chips,
            number: *number,
        }),
        SeatingEvent::RedrawCalled { players, reason } => {
            se::Kind::RedrawCalled(se::RedrawCalled {
                players: *players,
                reason: move_reason(*reason).into(),
            })
        }
        SeatingEvent::Redrawn { reason } => se::Kind::Redrawn(se::Redrawn {
            reason: move_reason(*reason).into(),
        }),
        SeatingEvent::HandForHandStarted { remaining, paid } => {
            se::Kind::HandForHandStarted(se::HandForHandStarted {
                remaining: *remaining,
                paid: *paid,
            })
        }
        SeatingEvent::HandForHandRound { round } => {
            se::Kind::HandForHandRound(se::HandForHandRound { round: *round })
        }
        SeatingEvent::HandForHandEnded { remaining, round } => {
            se::Kind::HandForHandEnded(se::HandForHandEnded {
                remaining: *remaining,
                round: *round,
            })
        }
        SeatingEvent::Drawn { seed } => se::Kind::Drawn(se::Drawn {
            seed: seed.to_vec(),
        }),
    }
}

/// A satellite's ticket as the contract names it: its satellite and the
/// entry that won it.
fn ticket_of(ticket: &felt_seating::Ticket) -> pb::Ticket {
    pb::Ticket {
        satellite_tournament_id: ticket.satellite.clone(),
        entry: ticket.entry.get(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use felt_seating::Move;

    /// Seed 003's club settings go out whole: play on down to 6 (a table
    /// below 6 stops), no stop three short.
    #[test]
    fn a_created_tournament_sends_its_seating_settings() {
        let se::Kind::Created(c) = to_wire(&SeatingEvent::Created {
            name: "Torneio".into(),
            settings: Settings::club(),
        }) else {
            panic!("not created")
        };
        let s = c.settings.expect("the settings");
        assert_eq!((s.table_size, s.starting_stack), (9, 6_000));
        assert_eq!(s.max_entries, Some(27));
        assert_eq!(
            s.balance,
            Some(pb::Balance {
                tolerance: 1,
                stop_short_by: None,
                stop_below: Some(6),
            })
        );
        assert!(matches!(
            s.break_order.and_then(|b| b.kind),
            Some(pb::break_order::Kind::HighestNumbered(_))
        ));
    }

    #[test]
    fn a_move_names_its_entry_seats_and_reason() {
        let started = to_wire(&SeatingEvent::MoveStarted {
            r#move: Move {
                id: 4,
                entry: EntryId(118),
                from: (7, 3),
                to: (2, 9),
                reason: MoveReason::TableBroken,
            },
            detail: "table 7 breaks".into(),
        });
        assert_eq!(
            started,
            se::Kind::MoveStarted(se::MoveStarted {
                id: 4,
                entry: 118,
                from_table: 7,
                from_seat: 3,
                to_table: 2,
                to_seat: 9,
                reason: pb::MoveReason::TableBroken.into(),
                detail: "table 7 breaks".into(),
            })
        );
    }
}
