//! A table's dealer and its bots, and sending a call again while its
//! service is away.

#[allow(clippy::wildcard_imports)]
use super::*;

/// Whether a call failed because its service was away (killed, restarting,
/// its log's leader moving) or lost a race: sent again with the same
/// command id, it is stored once.
pub(super) fn away(status: &Status) -> bool {
    matches!(
        status.code(),
        Code::Unavailable | Code::Unknown | Code::Cancelled | Code::Aborted
    )
}

/// How long a call is sent again while its service is away.
pub(super) const PATIENCE: Duration = Duration::from_secs(120);
/// A table told to wait this long is said to wait (the log shows why).
pub(super) const WAIT_NOTED: Duration = Duration::from_secs(10);

/// Since when a table has been told to wait, and why: said once it is
/// long, a failure past [`PATIENCE`] if `strict`. A new reason starts
/// the count again.
#[derive(Default)]
pub(super) struct Waiting(Option<(Instant, String, bool)>);

impl Waiting {
    pub(super) fn note(
        &mut self,
        table: u32,
        by: &str,
        why: String,
        strict: bool,
    ) -> anyhow::Result<()> {
        let (since, said, told) = self
            .0
            .get_or_insert_with(|| (Instant::now(), why.clone(), false));
        if *said != why {
            (*since, *said, *told) = (Instant::now(), why, false);
        }
        let waited = since.elapsed();
        anyhow::ensure!(
            waited < PATIENCE || !strict,
            "table {table} waited {}s for {by}: {said}",
            waited.as_secs()
        );
        if waited > WAIT_NOTED && !*told {
            *told = true;
            tracing::warn!(table, waited_s = waited.as_secs(), reason = %said, "a table waits long");
        }
        Ok(())
    }
}

/// Calls sent again because their service was away (reported at the end).
pub(super) static SENT_AGAIN: AtomicU64 = AtomicU64::new(0);

/// A call, sent again while its service is away (for at most
/// [`PATIENCE`]); its answer or the service's refusal.
pub(super) async fn again<T, F, Fut>(what: &str, mut call: F) -> Result<T, Status>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<tonic::Response<T>, Status>>,
{
    let since = Instant::now();
    let mut tries = 0u32;
    loop {
        match call().await {
            Ok(response) => return Ok(response.into_inner()),
            Err(status) if away(&status) && since.elapsed() < PATIENCE => {
                SENT_AGAIN.fetch_add(1, Ordering::Relaxed);
                tries += 1;
                if tries == 1 {
                    tracing::info!(what, code = ?status.code(), message = status.message(), "service away, sending again");
                } else {
                    tracing::debug!(what, tries, code = ?status.code(), message = status.message(), "service away, sending again");
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(status) => {
                return Err(Status::new(
                    status.code(),
                    format!("{what}: {}", status.message()),
                ));
            }
        }
    }
}

/// [`again`] for a call with no command id (creating, starting): when an
/// earlier send may have been applied before its answer was lost, a
/// refusal of the repeat ("already exists", "already started") means done.
pub(super) async fn once_more<T: Default, F, Fut>(what: &str, mut call: F) -> Result<T, Status>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<tonic::Response<T>, Status>>,
{
    let mut sent = false;
    again(what, || {
        let repeat = std::mem::replace(&mut sent, true);
        let answer = call();
        async move {
            match answer.await {
                Err(s)
                    if repeat
                        && matches!(s.code(), Code::FailedPrecondition | Code::AlreadyExists) =>
                {
                    tracing::info!(what, message = s.message(), "a repeat refused: done before");
                    Ok(tonic::Response::new(T::default()))
                }
                other => other,
            }
        }
    })
    .await
}

/// A bot's action as the table service takes it.
pub(super) fn wire_action(action: PlayerAction) -> pb::action::Kind {
    use pb::action::Kind;
    match action {
        PlayerAction::Fold => Kind::Fold(pb::Fold {}),
        PlayerAction::Check => Kind::Check(pb::Check {}),
        PlayerAction::Call => Kind::Call(pb::Call {}),
        PlayerAction::Bet { to } => Kind::BetTo(to),
        PlayerAction::Raise { to } => Kind::RaiseTo(to),
        PlayerAction::AllIn => Kind::AllIn(pb::AllIn {}),
    }
}

/// The entries a hand's `HandEnded` event (as the table service sends it)
/// says busted.
pub(super) fn busted(event: &pb::Event) -> Vec<u64> {
    match event.event.as_ref().and_then(|e| e.kind.as_ref()) {
        Some(pb::table_event::Kind::HandEnded(h)) => h.busted.iter().map(|b| b.entry).collect(),
        _ => Vec::new(),
    }
}

/// What a physical table's dealer enters when nobody is to act: the next
/// street from the deck, or at showdown the next hand tabled or mucked
/// (odd tables) or the next pot pushed (even tables, which read the hands
/// without entering them); `None`: nothing is due. The deck is the simulation's own, one per
/// table and hand: seat `s` holds its cards `2(s-1)` and `2(s-1)+1`, the
/// board follows from card 20; the table service never sees it.
fn dealt(
    master: u64,
    table: u32,
    view: &pb::TableView,
) -> Option<(String, pb::execute_request::Command)> {
    use pb::execute_request::Command as C;
    let hand = view.hand.as_ref()?;
    let deck = felt_cards::Deck::shuffled(Seed::from_u64(
        master.rotate_left(32) ^ (u64::from(table) << 40) ^ hand.number,
    ));
    let cards = deck.order();
    match hand.phase() {
        pb::HandPhase::AwaitingBoard => {
            let dealt = hand.board.len();
            let street = if dealt == 0 { 3 } else { 1 };
            let board = cards.get(20 + dealt..20 + dealt + street)?;
            Some((
                format!("h{}-board-{dealt}", hand.number),
                C::DealBoard(pb::DealBoard {
                    cards: board.iter().map(ToString::to_string).collect(),
                }),
            ))
        }
        pb::HandPhase::Showdown => {
            let hole = |seat: u32| -> Option<[felt_cards::Card; 2]> {
                let at = usize::try_from(seat.checked_sub(1)?).ok()? * 2;
                Some([*cards.get(at)?, *cards.get(at + 1)?])
            };
            let board: Vec<felt_cards::Card> =
                hand.board.iter().filter_map(|c| c.parse().ok()).collect();
            let rank = |seat: u32| {
                hole(seat).map(|h| {
                    board
                        .iter()
                        .chain(h.iter())
                        .fold(felt_cards::Hand::EMPTY, |a, &c| a.with(c))
                        .rank()
                })
            };
            if table.is_multiple_of(2) {
                // This table's dealer reads the hands without entering
                // them, and pushes each pot, side pots first (TDA 21), to
                // its best hands.
                let (pot, p) = hand
                    .pots
                    .iter()
                    .enumerate()
                    .rev()
                    .find(|(_, p)| !p.awarded)?;
                let best = p.eligible_seats.iter().filter_map(|&s| rank(s)).max()?;
                let winners = p
                    .eligible_seats
                    .iter()
                    .copied()
                    .filter(|&s| rank(s) == Some(best))
                    .collect();
                return Some((
                    format!("h{}-push-{pot}", hand.number),
                    C::PushPot(pb::PushPot {
                        pot: u32::try_from(pot).ok()?,
                        winners,
                    }),
                ));
            }
            // The others table the hands in the order the rules ask (TDA
            // 17; all at once at an all-in, TDA 16), and a hand that cannot
            // beat one tabled before it is mucked.
            let unshown = |s: &&pb::SeatView| s.in_hand && !s.folded && s.hole_cards.is_empty();
            let seat = hand
                .to_show
                .or_else(|| view.seats.iter().find(unshown).map(|s| s.seat))?;
            let best = view
                .seats
                .iter()
                .filter(|s| s.in_hand && !s.folded && !s.hole_cards.is_empty())
                .filter_map(|s| rank(s.seat))
                .max();
            if hand.to_show.is_some() && best.is_some_and(|b| rank(seat) < Some(b)) {
                return Some((
                    format!("h{}-muck-s{seat}", hand.number),
                    C::Muck(pb::Muck { seat }),
                ));
            }
            Some((
                format!("h{}-show-s{seat}", hand.number),
                C::Show(pb::Show {
                    seat,
                    cards: hole(seat)?.iter().map(ToString::to_string).collect(),
                }),
            ))
        }
        _ => None,
    }
}

impl Sim {
    /// One table's dealer and its players' bots: ask seating to deal, play
    /// the hand at the table service; until the table closes or the
    /// tournament is over.
    pub(super) async fn deal(&self, table: u32) -> anyhow::Result<()> {
        use pb::begin_hand_response::Outcome;
        let t = self.tournament.as_str();
        let mut rng = ChaCha8Rng::seed_from_u64(self.master ^ u64::from(table) << 32);
        let mut waiting = Waiting::default();
        // Each seat's credential, by seat and entry.
        let mut seats = std::collections::HashMap::new();
        // Whether to look at the table before the next hand, however the
        // room's schedule says it records.
        let mut look = false;
        // The hands this table's dealer dealt, recorded or not.
        let mut hands = 0u64;
        // `--add-on`: sold at this table in the window's last level or at
        // the first break it sees.
        let mut add_ons_sold = self.add_on_level.is_none();
        self.first_rest(table).await;
        loop {
            if self.over.load(Ordering::Relaxed) {
                return Ok(());
            }
            if self.results_only.is_some() {
                // A table whose tablet is down plays without the table
                // service; one whose players arrived from such a table
                // counts them first.
                match self.unrecorded(table, hands, look, &mut rng).await? {
                    Unrecorded::Dealt => {
                        hands += 1;
                        continue;
                    }
                    Unrecorded::Played => continue,
                    Unrecorded::Closed => return Ok(()),
                    Unrecorded::Recording => {}
                }
            }
            let now = self.clock.now();
            let begin = pb::BeginHandRequest {
                tournament_id: t.into(),
                table,
            };
            // (Asked again after a restart, seating gives back the hand it
            // dealt, or deals the one it granted.)
            let asked = Instant::now();
            let begun = again("begin a hand", || {
                let mut c = self.seating();
                let req = self.request(begin.clone());
                async move { c.begin_hand(req).await }
            })
            .await;
            self.time(true, asked.elapsed());
            let begun = match begun {
                Ok(begun) => {
                    look = false;
                    begun
                }
                // The table still records results only (its count before
                // actions again is due): looked at before the next hand.
                Err(e) if self.results_only.is_some() && e.code() == Code::FailedPrecondition => {
                    tracing::debug!(table, %e, "the table records results only");
                    look = true;
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            let mut view = match begun.outcome {
                None | Some(Outcome::Closed(_)) => return Ok(()),
                Some(Outcome::OnBreakMs(_)) if !add_ons_sold => {
                    add_ons_sold = true;
                    self.sell_add_ons(table).await?;
                    continue;
                }
                Some(Outcome::OnBreakMs(remaining)) => {
                    // A break whose time stands still is a clock that
                    // stopped: said, and after a while a failure.
                    waiting.note(
                        table,
                        "the clock",
                        format!("a break with {remaining} ms left"),
                        true,
                    )?;
                    if self.simulated {
                        self.clock.at_least(now + remaining);
                        tokio::task::yield_now().await;
                    } else {
                        let wait = u64::try_from(remaining).unwrap_or(0).clamp(5, 500);
                        tokio::time::sleep(Duration::from_millis(wait)).await;
                    }
                    continue;
                }
                Some(Outcome::Wait(reason))
                    if reason.contains("may rebuy")
                        && let Some(terms) = self.rebuys =>
                {
                    self.answer_offers(table, terms, &mut rng).await?;
                    waiting.note(table, "seating", reason, true)?;
                    continue;
                }
                Some(Outcome::Wait(reason)) if reason.contains("the day is over") => {
                    self.next_day().await?;
                    continue;
                }
                Some(Outcome::Wait(reason)) => {
                    // Seating waits for the last hand's end (from the log),
                    // a move, or the other tables' hand-for-hand hands.
                    // (Paced for a demo, the other tables may be slow.)
                    // (A last player waiting for registration's close
                    // waits as long as the level lasts.)
                    let strict =
                        self.pace.is_zero() && !self.awaiting_close.load(Ordering::Relaxed);
                    waiting.note(table, "seating", reason, strict)?;
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    continue;
                }
                Some(Outcome::RaceDue(due)) => {
                    self.enter_race(table, &due, &mut rng).await?;
                    continue;
                }
                Some(Outcome::Dealt(dealt)) => {
                    waiting = Waiting::default();
                    dealt.table.unwrap_or_default()
                }
            };
            let mut out = Vec::new();
            while let Some(hand) = view.hand.as_ref() {
                // A bot acts through its seat's own credential, never the
                // director's (the table's device hands it to the player).
                let mut credential = None;
                let (what, command_id, command) = if let Some(seat) = hand.to_act {
                    let entry = view
                        .seats
                        .iter()
                        .find(|s| s.seat == seat)
                        .map_or(0, |s| s.entry);
                    credential = Some(self.seat_credential(table, seat, entry, &mut seats).await?);
                    let facing = bot::Facing {
                        to_call: hand.to_call,
                        min_to: hand.min_raise_to,
                        max_to: hand.max_raise_to,
                        bet: hand.current_bet > 0,
                        preflop: hand.board.is_empty(),
                    };
                    let action = bot::choose(&facing, &mut rng);
                    // The command id names the decision (a seat acts once per
                    // street and bet): the same whether the hand was dealt to
                    // this dealer or given back after a restart.
                    let id = format!(
                        "h{}-{}-s{seat}-b{}-p{}",
                        hand.number,
                        hand.street().as_str_name(),
                        hand.current_bet,
                        hand.pot
                    );
                    let act = pb::execute_request::Command::Act(pb::Act {
                        seat,
                        action: Some(pb::Action {
                            kind: Some(wire_action(action)),
                        }),
                    });
                    ("act", id, act)
                } else if hand.phase() == pb::HandPhase::Dealing {
                    // A shared deck: the table's device adds its entropy
                    // once it has seen the hand's commitment.
                    let mut entropy = vec![0u8; 32];
                    rng.fill_bytes(&mut entropy);
                    let add = pb::execute_request::Command::AddEntropy(pb::AddEntropy { entropy });
                    ("add entropy", format!("h{}-entropy", hand.number), add)
                } else if let Some((id, entered)) =
                    // A physical deal: the dealer enters the next street,
                    // or a hand tabled at showdown.
                    self
                        .physical
                        .then(|| dealt(self.master, table, &view))
                        .flatten()
                {
                    ("deal", id, entered)
                } else {
                    anyhow::bail!(
                        "table {table}, hand {}: nobody to act and the hand not over",
                        hand.number
                    );
                };
                let execute = pb::ExecuteRequest {
                    provenance: None,
                    table: Some(pb::TableRef {
                        tournament_id: t.into(),
                        table,
                    }),
                    command_id,
                    command: Some(command),
                };
                let execute = &execute;
                let send = |token: Option<String>| {
                    again(what, move || {
                        let mut c = self.tables(table);
                        let req = match &token {
                            Some(token) => self.request_as(execute.clone(), token),
                            None => self.request(execute.clone()),
                        };
                        async move { c.execute(req).await }
                    })
                };
                let asked = Instant::now();
                let sent = send(credential.clone()).await;
                self.time(false, asked.elapsed());
                let answer = match sent {
                    // A restarted table service issues new credentials.
                    Err(status)
                        if status.code() == Code::Unauthenticated && credential.is_some() =>
                    {
                        seats.clear();
                        let seat = hand.to_act.unwrap_or_default();
                        let entry = view
                            .seats
                            .iter()
                            .find(|s| s.seat == seat)
                            .map_or(0, |s| s.entry);
                        let fresh = self.seat_credential(table, seat, entry, &mut seats).await?;
                        send(Some(fresh)).await?
                    }
                    other => other?,
                };
                out.extend(answer.events.iter().flat_map(busted));
                view = answer.table.unwrap_or_default();
            }
            self.keep_offsets(&out, &view);
            hands += 1;
            self.hands.fetch_add(1, Ordering::Relaxed);
            self.clock.hand_played();
            self.re_enter(&out, &mut rng).await?;
            if let Some(terms) = self.rebuys {
                self.sell_rebuys(&view, terms).await?;
            }
            // The add-on from the window's last level on: a table that
            // waited for the break could find it over (another table's
            // dealer ends a simulated break as soon as it has done there).
            if !add_ons_sold && self.add_on_level == Some(self.level.load(Ordering::Relaxed)) {
                add_ons_sold = true;
                self.sell_add_ons(table).await?;
            }
            self.rest(table, hands).await;
        }
    }

    /// `--add-on`, at a break: the floor sells the add-on to every other
    /// player seated at the table (seats 1, 3, …); one the house refuses
    /// (its window closed, the player moving) is not sold.
    async fn sell_add_ons(&self, table: u32) -> anyhow::Result<()> {
        let view = self.table_view(table).await?;
        for s in view.seats.iter().filter(|s| s.stack > 0 && s.seat % 2 == 1) {
            let sell = pb::FloorRequest {
                tournament_id: self.tournament.to_string(),
                command_id: format!("add-on-{}", s.entry),
                command: Some(pb::floor_request::Command::SellAddOn(pb::SellAddOn {
                    entry: s.entry,
                    payment: Some(pb::Payment {
                        method: pb::PaymentMethod::Cash.into(),
                        reference: format!("add-on-{}", s.entry),
                    }),
                })),
            };
            match self.floor(sell, "sell an add-on").await {
                Ok(()) => {}
                Err(e) if e.code() == Code::FailedPrecondition => {
                    tracing::debug!(table, entry = s.entry, %e, "no add-on");
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    /// `--rebuys`, after a hand in their window: the floor sells a rebuy to
    /// every player at the table left with `low` chips or fewer who has
    /// rebuys left (rule 27); one the house refuses (the window closed,
    /// the money reached, the player moving, a hand begun meanwhile) is
    /// not sold.
    async fn sell_rebuys(
        &self,
        view: &pb::TableView,
        (limit, last_level, low): (u32, u32, u64),
    ) -> anyhow::Result<()> {
        if self.level.load(Ordering::Relaxed) > last_level {
            return Ok(());
        }
        for s in view.seats.iter().filter(|s| s.stack > 0 && s.stack <= low) {
            if self.rebought(s.entry) < limit {
                self.sell_rebuy(s.entry).await?;
            }
        }
        Ok(())
    }

    /// `--rebuys`, the table waiting for rebuy offers: seating offered one
    /// to each player who busted there in the window with rebuys left
    /// (rule 27). Two in three buy it; the others, and any the house
    /// refuses, decline. An answer that crossed another (the offer already
    /// answered) is refused and ignored.
    async fn answer_offers(
        &self,
        table: u32,
        (limit, _, _): (u32, u32, u64),
        rng: &mut ChaCha8Rng,
    ) -> anyhow::Result<()> {
        let map = self.table_map().await?;
        let offered = map
            .tables
            .iter()
            .find(|t| t.table == table)
            .map(|t| t.rebuy_offers.clone())
            .unwrap_or_default();
        for entry in offered {
            let n = self.rebought(entry);
            if n < limit && !rng.next_u32().is_multiple_of(3) && self.sell_rebuy(entry).await? {
                continue;
            }
            let decline = pb::FloorRequest {
                tournament_id: self.tournament.to_string(),
                command_id: format!("decline-rebuy-{entry}-{n}"),
                command: Some(pb::floor_request::Command::DeclineRebuy(pb::DeclineRebuy {
                    entry,
                })),
            };
            match self.floor(decline, "decline a rebuy").await {
                Ok(()) => {}
                Err(e) if e.code() == Code::FailedPrecondition => {
                    tracing::debug!(entry, %e, "no rebuy offer");
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    /// The floor sells `entry` its next rebuy, paid by card: whether it
    /// was sold (one the house refuses is not).
    async fn sell_rebuy(&self, entry: u64) -> anyhow::Result<bool> {
        let id = format!("rebuy-{entry}-{}", self.rebought(entry) + 1);
        let sell = pb::FloorRequest {
            tournament_id: self.tournament.to_string(),
            command_id: id.clone(),
            command: Some(pb::floor_request::Command::SellRebuy(pb::SellRebuy {
                entry,
                payment: Some(pb::Payment {
                    method: pb::PaymentMethod::Card.into(),
                    reference: id,
                }),
            })),
        };
        match self.floor(sell, "sell a rebuy").await {
            Ok(()) => {
                self.rebought_one(entry);
                Ok(true)
            }
            Err(e) if matches!(e.code(), Code::FailedPrecondition | Code::Aborted) => {
                tracing::debug!(entry, %e, "no rebuy");
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The rebuys `entry` bought in this run (at any table).
    fn rebought(&self, entry: u64) -> u32 {
        let counts = self
            .rebought
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        counts.get(&entry).copied().unwrap_or(0)
    }

    fn rebought_one(&self, entry: u64) {
        *self
            .rebought
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry(entry)
            .or_default() += 1;
    }

    /// The day is over (rule 77's last hands played): the floor bags
    /// every stack, the player and the staff confirm each bag, the bags
    /// are sealed, and the director starts the next day, once (the first
    /// dealer to see the day over does it; the others find it done).
    async fn next_day(&self) -> anyhow::Result<()> {
        let mut days = self.days.lock().await;
        if self.flight && *days > 0 {
            return Ok(());
        }
        let day = *days + 1;
        let bag = |id: String, command: pb::floor_request::Command| pb::FloorRequest {
            tournament_id: self.tournament.to_string(),
            command_id: id,
            command: Some(command),
        };
        use pb::floor_request::Command as F;
        // (Another dealer may have started the next day meanwhile: the
        // tables then have no last hands any more.)
        let map = self.table_map().await?;
        if map.tables.iter().all(|t| t.last_hands_left.is_none()) {
            return Ok(());
        }
        self.floor(
            bag(format!("bag-day-{day}"), F::BagStacks(pb::BagStacks {})),
            "bag the stacks",
        )
        .await?;
        let bags = again("read the bags", || {
            let mut c = self.seating();
            let req = self.request(pb::GetBagsRequest {
                tournament_id: self.tournament.to_string(),
                ..Default::default()
            });
            async move { c.get_bags(req).await }
        })
        .await?;
        if !bags.sealed {
            for b in &bags.bags {
                for (by, who) in [
                    (pb::BagWitness::Player, "player"),
                    (pb::BagWitness::Staff, "staff"),
                ] {
                    self.floor(
                        bag(
                            format!("bag-day-{day}-{}-{who}", b.entry),
                            F::ConfirmBag(pb::ConfirmBag {
                                entry: b.entry,
                                by: by.into(),
                            }),
                        ),
                        "confirm a bag",
                    )
                    .await?;
                }
            }
            self.floor(
                bag(format!("seal-day-{day}"), F::SealBags(pb::SealBags {})),
                "seal the bags",
            )
            .await?;
        }
        if self.flight {
            // A flight's day is its play: its bags go to the event.
            println!(
                "felt sim: {} day 1 over, {} bags sealed ({} chips)",
                self.tournament,
                bags.bags.len(),
                bags.chips
            );
            *days = day;
            self.over.store(true, Ordering::Relaxed);
            return Ok(());
        }
        // The clock ends the day once seating's last hand is in: until
        // then the next day is refused.
        let start = pb::ControlClockRequest {
            tournament_id: self.tournament.to_string(),
            command_id: format!("day-{}-start", day + 1),
            command: Some(pb::control_clock_request::Command::StartDay(
                pb::StartDay {},
            )),
        };
        let since = Instant::now();
        loop {
            let mut c = ClockServiceClient::new(self.up.clock.clone());
            match c.control_clock(self.request(start.clone())).await {
                Ok(_) => break,
                Err(e)
                    if e.code() == Code::FailedPrecondition
                        && since.elapsed() < Duration::from_secs(60) =>
                {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => return Err(anyhow::anyhow!("start day {}: {}", day + 1, e.message())),
            }
        }
        println!(
            "felt sim: day {day} ended, {} bags sealed ({} chips); day {} starts from them",
            bags.bags.len(),
            bags.chips,
            day + 1
        );
        *days = day;
        Ok(())
    }

    /// The room's table map, read again while the services are away.
    async fn table_map(&self) -> Result<pb::GetTableMapResponse, tonic::Status> {
        again("read the table map", || {
            let mut c = self.seating();
            let req = self.request(pb::GetTableMapRequest {
                tournament_id: self.tournament.to_string(),
            });
            async move { c.get_table_map(req).await }
        })
        .await
    }

    /// A floor command, sent again while the services are unreachable.
    pub(super) async fn floor(
        &self,
        request: pb::FloorRequest,
        what: &str,
    ) -> Result<(), tonic::Status> {
        again(what, || {
            let mut c = self.seating();
            let req = self.request(request.clone());
            async move { c.floor(req).await }
        })
        .await
        .map(|_| ())
    }

    /// A physical table's chip race (TDA 24), run with the simulation's
    /// own cards as a dealer runs it with real ones (one card per odd chip
    /// from seat 1, the highest win), and the seats that won entered.
    async fn enter_race(
        &self,
        table: u32,
        due: &pb::ChipRaceDue,
        rng: &mut ChaCha8Rng,
    ) -> anyhow::Result<()> {
        let view = self.table_view(table).await?;
        let stacks: Vec<(u8, felt_table::EntryId, u64)> = view
            .seats
            .iter()
            .filter(|s| s.stack > 0)
            .filter_map(|s| {
                Some((
                    u8::try_from(s.seat).ok()?,
                    felt_table::EntryId(s.entry),
                    s.stack,
                ))
            })
            .collect();
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let drawn = felt_table::ChipRace::Drawn { seed: Seed(seed) };
        let raced = felt_table::chip_race(due.leaving, due.smallest, &stacks, &drawn)?;
        let race = pb::ColourUp {
            leaving: due.leaving,
            smallest: due.smallest,
            race: Some(pb::colour_up::Race::Entered(pb::EnteredRace {
                winners: raced
                    .iter()
                    .filter(|r| r.won)
                    .map(|r| u32::from(r.seat))
                    .collect(),
            })),
        };
        let execute = pb::ExecuteRequest {
            provenance: None,
            table: Some(pb::TableRef {
                tournament_id: self.tournament.to_string(),
                table,
            }),
            command_id: format!("race-{}", due.smallest),
            command: Some(pb::execute_request::Command::ColourUp(race)),
        };
        again("enter a chip race", || {
            let mut c = self.tables(table);
            let req = self.request(execute.clone());
            async move { c.execute(req).await }
        })
        .await?;
        Ok(())
    }

    /// The credential of the entry in a seat, issued by the table service
    /// once per seat and entry (kept in `seats`).
    pub(super) async fn seat_credential(
        &self,
        table: u32,
        seat: u32,
        entry: u64,
        seats: &mut std::collections::HashMap<(u32, u64), String>,
    ) -> anyhow::Result<String> {
        if let Some(token) = seats.get(&(seat, entry)) {
            return Ok(token.clone());
        }
        let issue = pb::IssueSeatCredentialRequest {
            table: Some(pb::TableRef {
                tournament_id: self.tournament.to_string(),
                table,
            }),
            seat,
        };
        let issued = again("issue a seat's credential", || {
            let mut c = self.tables(table);
            let req = self.request(issue.clone());
            async move { c.issue_seat_credential(req).await }
        })
        .await?;
        seats.insert((seat, issued.entry), issued.token.clone());
        Ok(issued.token)
    }

    /// Some busted players re-enter (seating refuses once late registration
    /// is over, or the player re-entered before).
    pub(super) async fn re_enter(
        &self,
        busted: &[u64],
        rng: &mut ChaCha8Rng,
    ) -> anyhow::Result<()> {
        for &entry in busted {
            if rng.next_u32() % 100 >= self.re_entry_percent {
                continue;
            }
            let Some((player, name)) = self
                .entries
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .get(&entry)
                .cloned()
            else {
                continue;
            };
            match self
                .register(format!("re-enter-{entry}"), player, name)
                .await
            {
                Ok(r) => self.remember(r.entry.as_slice()),
                Err(e) if e.code() == Code::FailedPrecondition => {
                    tracing::debug!(%e, "no re-entry");
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }
}
