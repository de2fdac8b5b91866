//! Payout's events on the wire, typed (`felt.v1.PayoutEvent`'s `kind`):
//! the one place the domain's shape and the contract's meet for them.

use felt_payout::{
    Bust, DealMethod, DealResult, DealTerms, EntryId, Money, PaySheet, PayoutEvent, Pool,
    SimultaneousBusts, Structure,
};
use felt_proto::v1 as pb;
use felt_proto::v1::payout_event as pe;

fn entries(es: &[EntryId]) -> Vec<u64> {
    es.iter().map(|e| e.get()).collect()
}

fn entry_money(pairs: &[(EntryId, Money)]) -> Vec<pb::EntryMoney> {
    pairs
        .iter()
        .map(|&(entry, amount)| pb::EntryMoney {
            entry: entry.get(),
            amount,
        })
        .collect()
}

fn busts(bs: &[Bust]) -> Vec<pb::PayoutBust> {
    bs.iter()
        .map(|b| pb::PayoutBust {
            entry: b.entry.get(),
            table: b.table,
            starting_stack: b.starting_stack,
            by: entries(&b.by),
            out: b.out,
            forfeit: b.forfeit,
        })
        .collect()
}

/// A pay sheet as lines: places first..last each win an amount.
pub(crate) fn sheet(s: &PaySheet) -> Vec<pb::PayLine> {
    s.bands
        .iter()
        .map(|b| pb::PayLine {
            first: b.first,
            last: b.last,
            amount: b.each,
        })
        .collect()
}

fn pool(p: &Pool) -> pb::Pool {
    pb::Pool {
        entries: p.entries,
        add_ons: p.add_ons,
        rebuys: p.rebuys,
        collected: p.collected,
        overlay: p.overlay,
        prize_pool: p.prize_pool,
        fees: p.fees,
        bounties: p.bounties,
    }
}

fn structure(s: &Structure) -> pb::PayStructure {
    let kind = match s {
        Structure::Percentages(t) => pb::pay_structure::Kind::Percentages(pb::PercentTable {
            rows: t
                .rows
                .iter()
                .map(|r| pb::PercentRow {
                    max_entries: r.max_entries,
                    basis_points: r.basis_points.clone(),
                })
                .collect(),
            unit: t.unit,
        }),
        Structure::Generated(c) => pb::pay_structure::Kind::Generated(pb::PayCurve {
            paid_permille: c.paid_permille,
            min_cash_permille: c.min_cash_permille,
            steepness_milli: c.steepness_milli,
            final_table: c.final_table,
            unit: c.unit,
        }),
        Structure::Satellite(t) => pb::pay_structure::Kind::Satellite(pb::Satellite {
            target_tournament_id: t.target.clone(),
            seat: t.seat,
            remainder: match t.remainder {
                felt_payout::Remainder::NextPlace => pb::SatelliteRemainder::NextPlace,
                felt_payout::Remainder::SplitAmongSeats => pb::SatelliteRemainder::SplitAmongSeats,
            }
            .into(),
            deals_allowed: t.deals,
            second_seat: match t.second_seat {
                felt_payout::SecondSeat::Cash => pb::SecondSeat::Cash,
                felt_payout::SecondSeat::Ticket => pb::SecondSeat::Ticket,
            }
            .into(),
        }),
        Structure::Flight { event } => pb::pay_structure::Kind::Flight(pb::FlightPay {
            event_tournament_id: event.clone(),
        }),
    };
    pb::PayStructure { kind: Some(kind) }
}

/// The rule for simultaneous busts on the wire.
pub(crate) fn simultaneous_busts(b: SimultaneousBusts) -> pb::SimultaneousBusts {
    match b {
        SimultaneousBusts::ShareAcrossTables => pb::SimultaneousBusts::ShareAcrossTables,
        SimultaneousBusts::ByStartingStack => pb::SimultaneousBusts::ByStartingStack,
    }
}

fn terms(t: &DealTerms) -> pb::DealTerms {
    let (method, amounts, save_amount, save_places) = match &t.method {
        DealMethod::Icm => (pb::DealMethod::Icm, &[][..], 0, 0),
        DealMethod::ChipChop => (pb::DealMethod::ChipChop, &[][..], 0, 0),
        DealMethod::Save { amount, places } => (pb::DealMethod::Save, &[][..], *amount, *places),
        DealMethod::Amounts(amounts) => (pb::DealMethod::Amounts, amounts.as_slice(), 0, 0),
    };
    pb::DealTerms {
        method: method.into(),
        players: t
            .players
            .iter()
            .enumerate()
            .map(|(i, &(entry, chips))| pb::DealPlayer {
                entry: entry.get(),
                chips,
                amount: amounts.get(i).copied().unwrap_or(0),
            })
            .collect(),
        play_for: t.play_for,
        save_amount,
        save_places,
    }
}

fn result(r: &DealResult) -> pb::DealResult {
    pb::DealResult {
        guaranteed: entry_money(&r.guaranteed),
        play_for: r.play_for.clone(),
    }
}

/// Payout's event for the wire.
pub(crate) fn to_wire(e: &PayoutEvent) -> pe::Kind {
    match e {
        PayoutEvent::Configured {
            name,
            settings: m,
            busts: rule,
        } => pe::Kind::Configured(pe::Configured {
            name: name.clone(),
            currency: m.currency.clone(),
            minor_per_major: m.minor_per_major,
            buy_in: m.buy_in,
            fee: m.fee,
            bounty: m.bounty,
            progressive: m.progressive,
            add_on: m.add_on,
            guarantee: m.guarantee,
            structure: Some(structure(&m.structure)),
            busts: simultaneous_busts(*rule).into(),
            rebuy: m.rebuy,
            withholding: m.withholding.map(|w| pb::Withholding {
                threshold: w.threshold,
                rate_bp: w.rate_bp,
                rate_without_tax_number_bp: w.rate_without_tax_number_bp,
            }),
        }),
        PayoutEvent::EntryRecorded { entry, player } => {
            pe::Kind::EntryRecorded(pe::EntryRecorded {
                entry: entry.get(),
                player_id: player.to_string(),
            })
        }
        PayoutEvent::AddOnRecorded { entry } => {
            pe::Kind::AddOnRecorded(pe::AddOnRecorded { entry: entry.get() })
        }
        PayoutEvent::RebuyRecorded { entry } => {
            pe::Kind::RebuyRecorded(pe::RebuyRecorded { entry: entry.get() })
        }
        PayoutEvent::PrizePaid {
            entry,
            gross,
            withheld,
            net,
            document,
            tax_number,
        } => pe::Kind::PrizePaid(pe::PrizePaid {
            entry: entry.get(),
            gross: *gross,
            withheld: *withheld,
            net: *net,
            document: Some(self::document(document)),
            tax_number: tax_number.clone().unwrap_or_default(),
        }),
        PayoutEvent::EntryRemoved { entry } => {
            pe::Kind::EntryRemoved(pe::EntryRemoved { entry: entry.get() })
        }
        PayoutEvent::RegistrationClosed { pool: p, sheet: s } => {
            pe::Kind::RegistrationClosed(pe::RegistrationClosed {
                pool: Some(pool(p)),
                sheet: sheet(s),
            })
        }
        PayoutEvent::PoolGrown { pool: p, sheet: s } => pe::Kind::PoolGrown(pe::PoolGrown {
            pool: Some(pool(p)),
            sheet: sheet(s),
        }),
        PayoutEvent::Busted { busts: b } => pe::Kind::Busted(pe::Busted { busts: busts(b) }),
        PayoutEvent::BustsHeld { round, busts: b } => pe::Kind::BustsHeld(pe::BustsHeld {
            round: *round,
            busts: busts(b),
        }),
        PayoutEvent::RoundReleased { round } => {
            pe::Kind::RoundReleased(pe::RoundReleased { round: *round })
        }
        PayoutEvent::Placed { group, prizes } => pe::Kind::Placed(pe::Placed {
            entries: entries(&group.entries),
            first: group.first,
            last: group.last,
            prizes: entry_money(prizes),
        }),
        PayoutEvent::BountyCollected { from, paid, added } => {
            pe::Kind::BountyCollected(pe::BountyCollected {
                from: from.get(),
                paid: entry_money(paid),
                added: entry_money(added),
            })
        }
        PayoutEvent::DealProposed {
            terms: t,
            result: r,
        } => pe::Kind::DealProposed(pe::DealProposed {
            terms: Some(terms(t)),
            result: Some(result(r)),
        }),
        PayoutEvent::DealConsented { entry } => {
            pe::Kind::DealConsented(pe::DealConsented { entry: entry.get() })
        }
        PayoutEvent::DealMade { result: r } => pe::Kind::DealMade(pe::DealMade {
            result: Some(result(r)),
        }),
        PayoutEvent::DealWithdrawn => pe::Kind::DealWithdrawn(pe::DealWithdrawn {}),
        PayoutEvent::PlaceForfeited {
            entry,
            place,
            prize,
        } => pe::Kind::PlaceForfeited(pe::PlaceForfeited {
            entry: entry.get(),
            place: *place,
            prize: *prize,
        }),
        PayoutEvent::BountyForfeited { entry, amount } => {
            pe::Kind::BountyForfeited(pe::BountyForfeited {
                entry: entry.get(),
                amount: *amount,
            })
        }
        PayoutEvent::TicketAwarded {
            entry,
            player,
            target,
            value,
        } => pe::Kind::TicketAwarded(pe::TicketAwarded {
            entry: entry.get(),
            player_id: player.to_string(),
            target_tournament_id: target.clone(),
            value: *value,
        }),
        PayoutEvent::TicketCashed { entry, value } => pe::Kind::TicketCashed(pe::TicketCashed {
            entry: entry.get(),
            value: *value,
        }),
        PayoutEvent::FlightRecorded { record: r } => pe::Kind::FlightRecorded(pe::FlightRecorded {
            flight: r.flight,
            field: r.field,
            entries: r.entries.iter().map(|(e, _)| e.get()).collect(),
            add_ons: r.add_ons.len() as u32,
            rebuys: r.rebuys.len() as u32,
            out: r.out.len() as u32,
            not_advanced: r.not_advanced.iter().map(|e| e.get()).collect(),
        }),
        PayoutEvent::FlightsRecorded { flights } => {
            pe::Kind::FlightsRecorded(pe::FlightsRecorded {
                flights: flights.clone(),
            })
        }
    }
}

/// A payment on the wire.
pub(crate) fn payment(p: &felt_seating::Payment) -> pb::Payment {
    pb::Payment {
        method: match p.method {
            felt_seating::PaymentMethod::Cash => pb::PaymentMethod::Cash,
            felt_seating::PaymentMethod::Card => pb::PaymentMethod::Card,
            felt_seating::PaymentMethod::Transfer => pb::PaymentMethod::Transfer,
            felt_seating::PaymentMethod::Voucher => pb::PaymentMethod::Voucher,
            felt_seating::PaymentMethod::Ticket => pb::PaymentMethod::Ticket,
        }
        .into(),
        reference: p.reference.clone(),
    }
}

/// An identity document on the wire.
pub(crate) fn document(d: &felt_payout::IdDocument) -> pb::IdDocument {
    pb::IdDocument {
        kind: match d.kind {
            felt_payout::IdDocumentKind::IdentityCard => pb::IdDocumentKind::IdentityCard,
            felt_payout::IdDocumentKind::Passport => pb::IdDocumentKind::Passport,
            felt_payout::IdDocumentKind::DrivingLicence => pb::IdDocumentKind::DrivingLicence,
            felt_payout::IdDocumentKind::Other => pb::IdDocumentKind::Other,
        }
        .into(),
        reference: d.reference.clone(),
    }
}

/// The cage's books on the wire.
pub(crate) fn cage(c: &crate::cage::Cage, minor_per_major: u32) -> pb::GetCageResponse {
    use crate::cage::Kind;
    let t = &c.totals;
    pb::GetCageResponse {
        currency: c.currency.clone(),
        minor_per_major,
        lines: c
            .lines
            .iter()
            .map(|l| pb::CageLine {
                recorded_at_ms: l.at,
                kind: match l.kind {
                    Kind::BuyIn => pb::CageLineKind::BuyIn,
                    Kind::AddOn => pb::CageLineKind::AddOn,
                    Kind::Rebuy => pb::CageLineKind::Rebuy,
                    Kind::Refund => pb::CageLineKind::Refund,
                    Kind::BountyPaid => pb::CageLineKind::BountyPaid,
                    Kind::PrizePaid => pb::CageLineKind::PrizePaid,
                    Kind::TicketIssued => pb::CageLineKind::TicketIssued,
                    Kind::TicketCashed => pb::CageLineKind::TicketCashed,
                }
                .into(),
                entry: l.entry.get(),
                player_id: l.player.clone(),
                name: l.name.clone(),
                money_in: l.money_in,
                money_out: l.money_out,
                withheld: l.withheld,
                payment: l.payment.as_ref().map(payment),
                cashier: l.cashier.clone(),
                note: l.note.clone(),
                document: l.document.as_ref().map(document),
            })
            .collect(),
        totals: Some(pb::CageTotals {
            taken_in: t.taken_in,
            refunded: t.refunded,
            collected: t.collected,
            fees: t.fees,
            bounty_fund: t.bounty_fund,
            held_for_alternates: t.held_for_alternates,
            overlay: t.overlay,
            prizes_awarded: t.prizes_awarded,
            prizes_paid: t.prizes_paid,
            withheld: t.withheld,
            prizes_unpaid: t.prizes_unpaid,
            bounties_paid: t.bounties_paid,
            tickets_issued: t.tickets_issued,
            tickets_cashed: t.tickets_cashed,
            unrecorded_payments: t.unrecorded_payments,
        }),
        checks: c
            .checks
            .iter()
            .map(|k| pb::CageCheck {
                name: k.name.clone(),
                ok: k.ok,
                detail: k.detail.clone(),
            })
            .collect(),
        balances: c.balances(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use felt_payout::{MoneySettings, PlaceGroup};

    /// Seed 003's club money goes out whole: its posted table, not a name.
    #[test]
    fn a_configured_payout_sends_its_money_and_its_posted_table() {
        let club = MoneySettings::club();
        let pe::Kind::Configured(c) = to_wire(&PayoutEvent::Configured {
            name: "Torneio".into(),
            settings: club.clone(),
            busts: SimultaneousBusts::ByStartingStack,
        }) else {
            panic!("not configured")
        };
        assert_eq!(
            (c.currency.as_str(), c.buy_in, c.fee),
            ("BRL", 4_000, 1_000)
        );
        assert_eq!(c.busts(), pb::SimultaneousBusts::ByStartingStack);
        let Some(pb::pay_structure::Kind::Percentages(table)) = c.structure.and_then(|s| s.kind)
        else {
            panic!("the club's posted table")
        };
        let Structure::Percentages(posted) = &club.structure else {
            panic!("seed 003 posts a table")
        };
        assert_eq!(table.rows.len(), posted.rows.len());
        assert_eq!(table.rows[0].basis_points, posted.rows[0].basis_points);
    }

    #[test]
    fn places_bounties_and_deals_name_their_entries() {
        let placed = to_wire(&PayoutEvent::Placed {
            group: PlaceGroup {
                entries: vec![EntryId(12), EntryId(40)],
                first: 6,
                last: 7,
            },
            prizes: vec![(EntryId(12), 4_500), (EntryId(40), 4_500)],
        });
        assert_eq!(
            placed,
            pe::Kind::Placed(pe::Placed {
                entries: vec![12, 40],
                first: 6,
                last: 7,
                prizes: vec![
                    pb::EntryMoney {
                        entry: 12,
                        amount: 4_500
                    },
                    pb::EntryMoney {
                        entry: 40,
                        amount: 4_500
                    },
                ],
            })
        );
        let proposed = to_wire(&PayoutEvent::DealProposed {
            terms: DealTerms {
                players: vec![(EntryId(3), 60_000), (EntryId(9), 40_000)],
                method: DealMethod::Amounts(vec![7_000, 5_000]),
                play_for: 1_000,
            },
            result: DealResult {
                guaranteed: vec![(EntryId(3), 7_000), (EntryId(9), 5_000)],
                play_for: vec![1_000],
            },
        });
        let pe::Kind::DealProposed(d) = proposed else {
            panic!("not a deal")
        };
        let t = d.terms.unwrap();
        assert_eq!(t.method(), pb::DealMethod::Amounts);
        let players: Vec<(u64, u64, u64)> = t
            .players
            .iter()
            .map(|p| (p.entry, p.chips, p.amount))
            .collect();
        assert_eq!(players, [(3, 60_000, 7_000), (9, 40_000, 5_000)]);
        assert_eq!(d.result.unwrap().play_for, [1_000]);
    }
}
