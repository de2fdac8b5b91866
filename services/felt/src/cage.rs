//! A tournament's cage, as the payout service reports and exports it:
//! every payment taken (buy-ins, re-entries, add-ons, rebuys) and every
//! refund, bounty and prize paid, in the order they were recorded, with
//! who took or paid it, the totals, and the checks that they balance to
//! the pool, the fees, the bounties and the prizes. Read from seating's
//! and payout's events; it decides nothing.

use felt_payout::{IdDocument, Money, MoneySettings, PayoutEvent, PayoutState};
use felt_seating::{Payment, Purchase, SeatingEvent, SeatingState};
use felt_vocabulary::EntryId;

/// What a line of the cage is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Kind {
    BuyIn,
    AddOn,
    Rebuy,
    Refund,
    BountyPaid,
    PrizePaid,
    /// A satellite's seat won: its ticket leaves these books for the
    /// target's, where it buys an entry.
    TicketIssued,
    /// A ticket issued here turned into cash (its player's second seat in
    /// the target, by the house's rule): paid with the prize.
    TicketCashed,
}

/// One movement of money at the cage.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Line {
    /// When it was recorded, in milliseconds since the Unix epoch.
    pub at: i64,
    pub kind: Kind,
    pub entry: EntryId,
    pub player: String,
    pub name: String,
    pub money_in: Money,
    pub money_out: Money,
    /// Withheld from a prize under the house's tax rule.
    pub withheld: Money,
    /// How it was paid in, where the cage recorded it.
    pub payment: Option<Payment>,
    /// The person whose credential recorded it.
    pub cashier: String,
    /// A refund's reason, an alternate's money held, a rebuy's number.
    pub note: String,
    /// The identity document checked before a prize was paid.
    pub document: Option<IdDocument>,
}

/// The cage's totals.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Totals {
    pub taken_in: Money,
    pub refunded: Money,
    /// Of what stays in: to the prize pool (entries, add-ons, rebuys).
    pub collected: Money,
    pub fees: Money,
    /// Of what stays in: to fund the bounties.
    pub bounty_fund: Money,
    /// Alternates' money, held until they are seated or refunded.
    pub held_for_alternates: Money,
    /// What the house adds to reach the guarantee.
    pub overlay: Money,
    pub prizes_awarded: Money,
    pub prizes_paid: Money,
    pub withheld: Money,
    pub prizes_unpaid: Money,
    pub bounties_paid: Money,
    /// A satellite's seats won, as tickets.
    pub tickets_issued: Money,
    /// Of those, turned into cash (a player's second seat in the target).
    pub tickets_cashed: Money,
    /// Payments taken with no method recorded.
    pub unrecorded_payments: u32,
}

/// One check of the books.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Check {
    pub name: String,
    pub ok: bool,
    pub detail: String,
}

/// The cage's books for one tournament.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Cage {
    pub currency: String,
    pub lines: Vec<Line>,
    pub totals: Totals,
    pub checks: Vec<Check>,
}

impl Cage {
    /// Whether every check holds.
    pub fn balances(&self) -> bool {
        self.checks.iter().all(|c| c.ok)
    }
}

/// Why the books could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CageError {
    #[error("cannot read the log: {0}")]
    Log(#[from] felt_eventlog::LogError),
    #[error("tournament {0:?} has no money settings")]
    NoSettings(String),
}

/// The books of tournament `t` as `log` has them now.
pub async fn from_log<L: felt_eventlog::EventLog>(log: &L, t: &str) -> Result<Cage, CageError> {
    use felt_tournament::aggregates::{payout_stream, seating_stream};
    fn recorded<E: serde::de::DeserializeOwned>(
        envs: &[felt_eventlog::Envelope],
    ) -> Result<Vec<Recorded<E>>, CageError> {
        envs.iter()
            .map(|env| {
                Ok(Recorded {
                    at: env.recorded_at,
                    actor: env.actor.clone(),
                    event: env.decode()?,
                })
            })
            .collect()
    }
    let mut seating_events: Vec<Recorded<SeatingEvent>> =
        recorded(&log.read(&seating_stream(t)?, 1).await?)?;
    let payout_events: Vec<Recorded<PayoutEvent>> =
        recorded(&log.read(&payout_stream(t)?, 1).await?)?;
    let mut seating = SeatingState::default();
    for r in &seating_events {
        seating.apply(&r.event);
    }
    // An event fed by flights (issue 28): its pool is every flight's
    // entries, so its books take in what each flight's cage took for them
    // (each flight's own books list the same money, collected for here).
    let mut names = std::collections::HashMap::new();
    if seating.settings().is_some_and(|s| s.flights.is_some()) {
        for f in felt_tournament::aggregates::flights_of(log, t).await? {
            let flight: Vec<Recorded<SeatingEvent>> =
                recorded(&log.read(&seating_stream(f.as_str())?, 1).await?)?;
            for r in flight {
                match &r.event {
                    SeatingEvent::Registered {
                        entry,
                        player,
                        name,
                        ..
                    } => {
                        names.insert(*entry, (player.to_string(), name.clone()));
                    }
                    SeatingEvent::PaymentTaken { .. }
                    | SeatingEvent::AddOnSold { .. }
                    | SeatingEvent::RebuySold { .. }
                    | SeatingEvent::Unregistered { .. }
                    | SeatingEvent::NoShowReplaced { .. } => {}
                    _ => continue,
                }
                seating_events.push(r);
            }
        }
    }
    let mut payout = PayoutState::default();
    for r in &payout_events {
        payout.apply(&r.event);
    }
    let settings = payout
        .settings()
        .ok_or_else(|| CageError::NoSettings(t.to_string()))?
        .clone();
    let mut cage = books(
        &settings,
        &seating_events,
        &payout_events,
        &seating,
        &payout,
    );
    for l in cage.lines.iter_mut().filter(|l| l.player.is_empty()) {
        if let Some((player, name)) = names.get(&l.entry) {
            l.player.clone_from(player);
            l.name.clone_from(name);
        }
    }
    Ok(cage)
}

/// A recorded event with when and by whom.
#[derive(Debug)]
pub struct Recorded<E> {
    pub at: i64,
    pub actor: Option<String>,
    pub event: E,
}

/// The books from seating's and payout's events and states.
pub fn books(
    settings: &MoneySettings,
    seating_events: &[Recorded<SeatingEvent>],
    payout_events: &[Recorded<PayoutEvent>],
    seating: &SeatingState,
    payout: &PayoutState,
) -> Cage {
    let price = settings.entry_price();
    let who = |entry: &EntryId| {
        seating
            .entries()
            .get(entry)
            .map(|e| (e.player.to_string(), e.name.clone()))
            .unwrap_or_default()
    };
    // Each payment with what it bought, and who took it.
    let mut payments = std::collections::HashMap::new();
    for r in seating_events {
        if let SeatingEvent::PaymentTaken {
            entry,
            purchase,
            payment,
        } = &r.event
        {
            payments.insert((*entry, *purchase), (payment.clone(), r.actor.clone()));
        }
    }
    let mut lines = Vec::new();
    let line = |at: i64, kind: Kind, entry: EntryId, money_in: Money, money_out: Money| {
        let (player, name) = who(&entry);
        Line {
            at,
            kind,
            entry,
            player,
            name,
            money_in,
            money_out,
            withheld: 0,
            payment: None,
            cashier: String::new(),
            note: String::new(),
            document: None,
        }
    };
    let bought = |l: &mut Line, purchase: Purchase, actor: &Option<String>| match payments
        .get(&(l.entry, purchase))
    {
        Some((payment, by)) => {
            l.payment = Some(payment.clone());
            l.cashier = by.clone().unwrap_or_default();
        }
        None => l.cashier = actor.clone().unwrap_or_default(),
    };
    for r in seating_events {
        let l = match &r.event {
            SeatingEvent::Registered {
                entry, alternate, ..
            } => {
                let mut l = line(r.at, Kind::BuyIn, *entry, price, 0);
                if *alternate {
                    l.note = "an alternate: held until seated".into();
                }
                bought(&mut l, Purchase::Entry, &r.actor);
                l
            }
            SeatingEvent::AddOnSold { entry, .. } => {
                let mut l = line(r.at, Kind::AddOn, *entry, settings.add_on, 0);
                bought(&mut l, Purchase::AddOn, &r.actor);
                l
            }
            SeatingEvent::RebuySold { entry, number, .. } => {
                let mut l = line(r.at, Kind::Rebuy, *entry, settings.rebuy, 0);
                l.note = format!("rebuy {number}");
                bought(&mut l, Purchase::Rebuy { number: *number }, &r.actor);
                l
            }
            SeatingEvent::Unregistered {
                entry,
                reason,
                fee_kept,
                ..
            } => {
                // A flight bought but not played, where the house keeps
                // the fee by its rule.
                let kept = if *fee_kept { settings.fee } else { 0 };
                let mut l = line(r.at, Kind::Refund, *entry, 0, price.saturating_sub(kept));
                l.note = if *fee_kept {
                    format!("{reason} (the house keeps the fee)")
                } else {
                    reason.clone()
                };
                l.cashier = r.actor.clone().unwrap_or_default();
                l
            }
            SeatingEvent::NoShowReplaced { entry, reason, .. } => {
                let mut l = line(r.at, Kind::Refund, *entry, 0, price);
                l.note = format!("replaced as a no-show: {reason}");
                l.cashier = r.actor.clone().unwrap_or_default();
                l
            }
            _ => continue,
        };
        lines.push(l);
    }
    for r in payout_events {
        match &r.event {
            PayoutEvent::BountyCollected { paid, .. } => {
                for (entry, amount) in paid.iter().filter(|(_, a)| *a > 0) {
                    lines.push(line(r.at, Kind::BountyPaid, *entry, 0, *amount));
                }
            }
            PayoutEvent::PrizePaid {
                entry,
                withheld,
                net,
                document,
                tax_number,
                ..
            } => {
                let mut l = line(r.at, Kind::PrizePaid, *entry, 0, *net);
                l.withheld = *withheld;
                l.document = Some(document.clone());
                l.cashier = r.actor.clone().unwrap_or_default();
                if tax_number.is_none() {
                    l.note = "no tax number on file".into();
                }
                lines.push(l);
            }
            PayoutEvent::TicketAwarded {
                entry,
                target,
                value,
                ..
            } => {
                let mut l = line(r.at, Kind::TicketIssued, *entry, 0, *value);
                l.note = format!("a seat in {target}");
                lines.push(l);
            }
            PayoutEvent::TicketCashed { entry, value } => {
                // Not money in or out: the ticket's value joins the prize
                // the cage pays.
                let mut l = line(r.at, Kind::TicketCashed, *entry, 0, 0);
                l.note = format!(
                    "the player's second seat in the target: its ticket ({}) is paid in cash with the prize",
                    crate::results::show(*value)
                );
                lines.push(l);
            }
            _ => {}
        }
    }
    lines.sort_by_key(|l| l.at);

    // The totals, checked arithmetic throughout (u128: a field of the
    // largest size at the largest price fits many times over).
    let sum = |f: &dyn Fn(&Line) -> Money| -> u128 { lines.iter().map(|l| u128::from(f(l))).sum() };
    let entries = payout.entries().len() as u128;
    let alternates = seating
        .entries()
        .values()
        .filter(|e| e.status == felt_seating::EntryStatus::Alternate)
        .count() as u128;
    let collected = payout.pool().map_or_else(
        || {
            entries * u128::from(settings.buy_in)
                + u128::from(payout.add_ons()) * u128::from(settings.add_on)
                + u128::from(payout.rebuys()) * u128::from(settings.rebuy)
        },
        |p| u128::from(p.collected),
    );
    let prizes_awarded: u128 = payout.entries().values().map(|e| u128::from(e.prize)).sum();
    let paid_gross: u128 = payout.paid().values().map(|p| u128::from(p.0)).sum();
    let fees_kept = seating_events
        .iter()
        .filter(|r| matches!(r.event, SeatingEvent::Unregistered { fee_kept: true, .. }))
        .count() as u128;
    // The tickets standing (a cashed one is cash again).
    let tickets: u128 = payout
        .entries()
        .values()
        .map(|e| u128::from(e.ticket))
        .sum();
    let cashed: u128 = payout_events
        .iter()
        .map(|r| match &r.event {
            PayoutEvent::TicketCashed { value, .. } => u128::from(*value),
            _ => 0,
        })
        .sum();
    let wide = |m: u128| Money::try_from(m).unwrap_or(Money::MAX);
    let totals = Totals {
        taken_in: wide(sum(&|l| l.money_in)),
        refunded: wide(sum(&|l| {
            if l.kind == Kind::Refund {
                l.money_out
            } else {
                0
            }
        })),
        collected: wide(collected),
        // The fees of the entries in, and those the house kept from a
        // flight bought but not played.
        fees: wide((entries + fees_kept) * u128::from(settings.fee)),
        bounty_fund: wide(entries * u128::from(settings.bounty)),
        held_for_alternates: wide(alternates * u128::from(price)),
        overlay: payout.pool().map_or(0, |p| p.overlay),
        prizes_awarded: wide(prizes_awarded),
        prizes_paid: wide(sum(&|l| {
            if l.kind == Kind::PrizePaid {
                l.money_out
            } else {
                0
            }
        })),
        withheld: wide(sum(&|l| l.withheld)),
        prizes_unpaid: wide(prizes_awarded.saturating_sub(paid_gross + tickets)),
        bounties_paid: wide(sum(&|l| {
            if l.kind == Kind::BountyPaid {
                l.money_out
            } else {
                0
            }
        })),
        tickets_issued: wide(tickets + cashed),
        tickets_cashed: wide(cashed),
        unrecorded_payments: lines
            .iter()
            .filter(|l| matches!(l.kind, Kind::BuyIn | Kind::AddOn | Kind::Rebuy))
            .filter(|l| l.payment.is_none())
            .count() as u32,
    };

    let mut checks = Vec::new();
    let mut check = |name: &str, ok: bool, detail: String| {
        checks.push(Check {
            name: name.into(),
            ok,
            detail,
        });
    };
    let m = |v: u128| crate::results::show(wide(v));
    let kept = u128::from(totals.taken_in).saturating_sub(u128::from(totals.refunded));
    let owed = collected
        + u128::from(totals.fees)
        + u128::from(totals.bounty_fund)
        + u128::from(totals.held_for_alternates);
    check(
        "what the cage kept is the pool's, the fees', the bounties' and the alternates'",
        kept == owed,
        format!(
            "taken in {} less refunds {} = {}; to the pool {}, fees {}, bounties {}, held for alternates {}",
            m(totals.taken_in.into()),
            m(totals.refunded.into()),
            m(kept),
            m(collected),
            m(totals.fees.into()),
            m(totals.bounty_fund.into()),
            m(totals.held_for_alternates.into())
        ),
    );
    let pool = payout.pool().map(|p| u128::from(p.prize_pool));
    let finished =
        !payout.entries().is_empty() && payout.entries().values().all(|e| e.place.is_some());
    if let (Some(pool), true) = (pool, finished) {
        check(
            "the prizes awarded are the prize pool",
            prizes_awarded == pool,
            format!(
                "awarded {}, pool {} (overlay {})",
                m(prizes_awarded),
                m(pool),
                m(totals.overlay.into())
            ),
        );
    }
    let wrong: Vec<String> = payout
        .paid()
        .iter()
        .filter(|(entry, (gross, _))| {
            payout.entry(**entry).map(|e| e.prize - e.ticket) != Some(*gross)
        })
        .map(|(entry, (gross, _))| format!("entry {entry} paid {}", m((*gross).into())))
        .collect();
    check(
        "each prize paid is the prize awarded",
        wrong.is_empty(),
        if wrong.is_empty() {
            format!("{} paid", payout.paid().len())
        } else {
            wrong.join(", ")
        },
    );
    check(
        "the prizes paid, issued as tickets (less those cashed), withheld and unpaid are the prizes awarded",
        u128::from(totals.prizes_paid)
            + tickets
            + u128::from(totals.withheld)
            + u128::from(totals.prizes_unpaid)
            == prizes_awarded,
        format!(
            "paid {}, tickets {} ({} cashed), withheld {}, unpaid {}, awarded {}",
            m(totals.prizes_paid.into()),
            m(totals.tickets_issued.into()),
            m(totals.tickets_cashed.into()),
            m(totals.withheld.into()),
            m(totals.prizes_unpaid.into()),
            m(prizes_awarded)
        ),
    );
    Cage {
        currency: settings.currency.clone(),
        lines,
        totals,
        checks,
    }
}

/// The books as CSV: one row per line, then the totals and the checks.
pub fn csv(cage: &Cage) -> String {
    use std::fmt::Write;
    let money = crate::results::show;
    let field = crate::results::csv;
    let mut out = String::from(
        "recorded_at_ms,kind,entry,player,name,in,out,withheld,method,reference,cashier,document,note\n",
    );
    for l in &cage.lines {
        let _ = writeln!(
            out,
            "{},{:?},{},{},{},{},{},{},{},{},{},{},{}",
            l.at,
            l.kind,
            l.entry,
            field(&l.player),
            field(&l.name),
            money(l.money_in),
            money(l.money_out),
            money(l.withheld),
            l.payment
                .as_ref()
                .map_or(String::new(), |p| format!("{:?}", p.method)),
            field(l.payment.as_ref().map_or("", |p| p.reference.as_str())),
            field(&l.cashier),
            field(&l.document.as_ref().map_or(String::new(), |d| {
                format!("{:?} {}", d.kind, d.reference)
            })),
            field(&l.note),
        );
    }
    let t = &cage.totals;
    for (name, value) in [
        ("taken in", t.taken_in),
        ("refunded", t.refunded),
        ("collected for the pool", t.collected),
        ("fees", t.fees),
        ("bounty fund", t.bounty_fund),
        ("held for alternates", t.held_for_alternates),
        ("overlay", t.overlay),
        ("prizes awarded", t.prizes_awarded),
        ("prizes paid", t.prizes_paid),
        ("tickets issued", t.tickets_issued),
        ("tickets cashed", t.tickets_cashed),
        ("withheld", t.withheld),
        ("prizes unpaid", t.prizes_unpaid),
        ("bounties paid", t.bounties_paid),
    ] {
        let _ = writeln!(out, ",total,,,{},{},,,,,,,", field(name), money(value));
    }
    for c in &cage.checks {
        let _ = writeln!(
            out,
            ",check,,,{},{},,,,,,,{}",
            field(&c.name),
            if c.ok { "ok" } else { "FAILED" },
            field(&c.detail)
        );
    }
    out
}

/// The books as text: the totals and the checks, then a count of the
/// lines by kind (the lines themselves are the CSV's).
pub fn text(cage: &Cage) -> String {
    use std::fmt::Write;
    let money = crate::results::show;
    let t = &cage.totals;
    let mut out = String::new();
    let count = |k: Kind| cage.lines.iter().filter(|l| l.kind == k).count();
    let _ = writeln!(
        out,
        "{} buy-in(s), {} add-on(s), {} rebuy(s), {} refund(s), {} bounty payment(s), {} prize(s) paid; {} payment(s) without a method recorded",
        count(Kind::BuyIn),
        count(Kind::AddOn),
        count(Kind::Rebuy),
        count(Kind::Refund),
        count(Kind::BountyPaid),
        count(Kind::PrizePaid),
        t.unrecorded_payments
    );
    let _ = writeln!(
        out,
        "{cur} taken in {}, refunded {}; to the pool {}, fees {}, bounties {}, held for alternates {}, overlay {}",
        money(t.taken_in),
        money(t.refunded),
        money(t.collected),
        money(t.fees),
        money(t.bounty_fund),
        money(t.held_for_alternates),
        money(t.overlay),
        cur = cage.currency,
    );
    let _ = writeln!(
        out,
        "prizes awarded {}: paid {}, as tickets {} ({} of them cashed), withheld {}, unpaid {}; bounties paid {}",
        money(t.prizes_awarded),
        money(t.prizes_paid),
        money(t.tickets_issued),
        money(t.tickets_cashed),
        money(t.withheld),
        money(t.prizes_unpaid),
        money(t.bounties_paid),
    );
    for c in &cage.checks {
        let _ = writeln!(
            out,
            "{} {}: {}",
            if c.ok { "ok    " } else { "FAILED" },
            c.name,
            c.detail
        );
    }
    out
}
