//! Every string a request carries, bounded before anything reads it: a
//! documented maximum length and character set per kind of field (the
//! `.proto` comments say the same). A refusal is `INVALID_ARGUMENT` naming
//! the field and quoting at most a short prefix of what was sent.

use felt_proto::v1 as pb;
use felt_vocabulary::{PlayerId, TournamentId};
use tonic::Status;

/// Command ids: printable ASCII, no spaces.
pub(crate) const COMMAND_ID: usize = 128;
/// A tournament's or a player's name: any characters but control ones.
pub(crate) const NAME: usize = 100;
/// A pause's, a misdeal's or a ruling's reason.
pub(crate) const REASON: usize = 500;
/// A seat finder's query.
pub(crate) const QUERY: usize = 100;
/// Periods (levels and breaks) of a structure sent period by period.
pub(crate) const PERIODS: usize = 500;
/// A structure as TOML or JSON.
pub(crate) const STRUCTURE: usize = 64 * 1024;
/// A card ("Ah", "Td").
pub(crate) const CARD: usize = 2;
/// A causation or correlation id a service sends (a stream and a
/// sequence or command id).
pub(crate) const PROVENANCE: usize = 400;
/// Players in one RegisterMany.
pub(crate) const REGISTRANTS: usize = 10_000;

pub(crate) use felt_vocabulary::ids::prefix;

fn invalid(field: &str, why: String) -> Status {
    Status::invalid_argument(format!("{field}: {why}"))
}

fn length(field: &str, value: &str, max: usize) -> Result<(), Status> {
    let n = value.chars().count();
    if n > max {
        return Err(invalid(
            field,
            format!("at most {max} characters, not {n} ({:?})", prefix(value)),
        ));
    }
    Ok(())
}

/// An id by its type's own rule (empty passes: "required" is the
/// handler's to say).
fn by_rule(
    field: &str,
    value: &str,
    check: fn(&str) -> Result<(), felt_vocabulary::IdError>,
) -> Result<(), Status> {
    if value.is_empty() {
        return Ok(());
    }
    check(value).map_err(|e| invalid(field, e.to_string()))
}

/// A tournament id, by [`TournamentId`]'s rule.
pub(crate) fn id(field: &str, value: &str) -> Result<(), Status> {
    by_rule(field, value, TournamentId::check)
}

/// A player id, by [`PlayerId`]'s rule.
fn player(field: &str, value: &str) -> Result<(), Status> {
    by_rule(field, value, PlayerId::check)
}

/// Printable ASCII without spaces.
fn token(field: &str, value: &str, max: usize) -> Result<(), Status> {
    length(field, value, max)?;
    if !value.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(invalid(
            field,
            format!(
                "printable ASCII characters without spaces only ({:?})",
                prefix(value)
            ),
        ));
    }
    Ok(())
}

/// Text of any characters but control ones.
pub(crate) fn text(field: &str, value: &str, max: usize) -> Result<(), Status> {
    length(field, value, max)?;
    if value.chars().any(char::is_control) {
        return Err(invalid(
            field,
            format!("no control characters ({:?})", prefix(value)),
        ));
    }
    Ok(())
}

fn cards(field: &str, cards: &[String]) -> Result<(), Status> {
    if cards.len() > 5 {
        return Err(invalid(
            field,
            format!("at most 5 cards, not {}", cards.len()),
        ));
    }
    cards.iter().try_for_each(|c| text(field, c, CARD))
}

/// A request whose strings are bounded.
pub(crate) trait Bounded {
    /// Refuses the first string over its bound.
    fn bounded(&self) -> Result<(), Status>;
}

/// Checks a request's strings.
pub(crate) fn check<T: Bounded>(request: &T) -> Result<(), Status> {
    request.bounded()
}

fn table_ref(t: Option<&pb::TableRef>) -> Result<(), Status> {
    if let Some(t) = t {
        id("table.tournament_id", &t.tournament_id)?;
    }
    Ok(())
}

/// Requests that carry only a tournament id.
macro_rules! tournament_only {
    ($($t:ty),* $(,)?) => {$(
        impl Bounded for $t {
            fn bounded(&self) -> Result<(), Status> {
                id("tournament_id", &self.tournament_id)
            }
        }
    )*};
}

tournament_only!(
    pb::GetClockRequest,
    pb::GetStructureRequest,
    pb::WatchClockRequest,
    pb::GetPayoutsRequest,
    pb::GetResultsRequest,
    pb::ExportResultsRequest,
    pb::WatchResultsRequest,
    pb::GetCageRequest,
    pb::ExportCageRequest,
    pb::StartTournamentRequest,
    pb::CloseRegistrationRequest,
    pb::BeginHandRequest,
    pb::GetTableMapRequest,
    pb::GetStandingsRequest,
    pb::GetMovesRequest,
    pb::GetBagsRequest,
    pb::ExportBagsRequest,
    pb::WatchSeatingRequest,
    pb::WatchTournamentTablesRequest,
);

impl Bounded for pb::ListTournamentsRequest {
    fn bounded(&self) -> Result<(), Status> {
        Ok(())
    }
}

impl Bounded for pb::ControlClockRequest {
    fn bounded(&self) -> Result<(), Status> {
        use pb::control_clock_request::Command;
        id("tournament_id", &self.tournament_id)?;
        token("command_id", &self.command_id, COMMAND_ID)?;
        match &self.command {
            Some(Command::Pause(p)) => text("pause.reason", &p.reason, REASON),
            Some(Command::Resume(r)) => text("resume.reason", &r.reason, REASON),
            Some(Command::ColourUp(c)) => text("colour_up.reason", &c.reason, REASON),
            _ => Ok(()),
        }
    }
}

impl Bounded for pb::HandForHandRequest {
    fn bounded(&self) -> Result<(), Status> {
        id("tournament_id", &self.tournament_id)?;
        token("command_id", &self.command_id, COMMAND_ID)
    }
}

impl Bounded for pb::FloorRequest {
    fn bounded(&self) -> Result<(), Status> {
        use pb::floor_request::Command as C;
        id("tournament_id", &self.tournament_id)?;
        token("command_id", &self.command_id, COMMAND_ID)?;
        match &self.command {
            Some(C::Disqualify(d)) => text("disqualify.reason", &d.reason, REASON),
            Some(C::MovePlayer(m)) => text("move_player.reason", &m.reason, REASON),
            Some(C::SeatAlternates(_)) => Ok(()),
            Some(C::Accommodate(a)) => text("accommodate.reason", &a.reason, REASON),
            Some(C::LateEntries(l)) => text("late_entries.reason", &l.reason, REASON),
            Some(C::ReplaceNoShow(r)) => text("replace_no_show.reason", &r.reason, REASON),
            Some(C::SellAddOn(a)) => payment("sell_add_on.payment.reference", a.payment.as_ref()),
            Some(C::SellRebuy(r)) => payment("sell_rebuy.payment.reference", r.payment.as_ref()),
            Some(
                C::AnnounceLate(_)
                | C::DeclineRebuy(_)
                | C::BagStacks(_)
                | C::ConfirmBag(_)
                | C::SealBags(_)
                | C::AdvanceFlights(_),
            ) => Ok(()),
            None => Ok(()),
        }
    }
}

impl Bounded for pb::IssueCredentialRequest {
    fn bounded(&self) -> Result<(), Status> {
        token("command_id", &self.command_id, COMMAND_ID)?;
        by_rule(
            "person_id",
            &self.person_id,
            felt_vocabulary::PersonId::check,
        )?;
        text("name", &self.name, NAME)?;
        if let Some(r) = &self.role {
            id("role.tournament_id", &r.tournament_id)?;
        }
        Ok(())
    }
}

impl Bounded for pb::RevokeCredentialRequest {
    fn bounded(&self) -> Result<(), Status> {
        token("command_id", &self.command_id, COMMAND_ID)?;
        text("reason", &self.reason, REASON)
    }
}

impl Bounded for pb::IssueDealerCredentialRequest {
    fn bounded(&self) -> Result<(), Status> {
        id("tournament_id", &self.tournament_id)
    }
}

impl Bounded for pb::ListCredentialsRequest {
    fn bounded(&self) -> Result<(), Status> {
        Ok(())
    }
}

impl Bounded for pb::CreateWebhookRequest {
    fn bounded(&self) -> Result<(), Status> {
        id("tournament_id", &self.tournament_id)?;
        token("command_id", &self.command_id, COMMAND_ID)?;
        text("url", &self.url, felt_webhooks::MAX_URL)?;
        if self.scopes.len() > 8 {
            return Err(invalid(
                "scopes",
                format!("at most 8, not {}", self.scopes.len()),
            ));
        }
        Ok(())
    }
}

impl Bounded for pb::ListWebhooksRequest {
    fn bounded(&self) -> Result<(), Status> {
        id("tournament_id", &self.tournament_id)
    }
}

impl Bounded for pb::DeleteWebhookRequest {
    fn bounded(&self) -> Result<(), Status> {
        token("command_id", &self.command_id, COMMAND_ID)
    }
}

impl Bounded for pb::SetRoomLayoutRequest {
    fn bounded(&self) -> Result<(), Status> {
        token("command_id", &self.command_id, COMMAND_ID)?;
        if self.tables.len() > felt_room::MAX_TABLES {
            return Err(invalid(
                "tables",
                format!("at most {} tables", felt_room::MAX_TABLES),
            ));
        }
        self.tables
            .iter()
            .try_for_each(|t| text("tables.name", &t.name, felt_room::MAX_NAME))
    }
}

impl Bounded for pb::GetRoomRequest {
    fn bounded(&self) -> Result<(), Status> {
        Ok(())
    }
}

impl Bounded for pb::HoldTableRequest {
    fn bounded(&self) -> Result<(), Status> {
        id("tournament_id", &self.tournament_id)?;
        token("command_id", &self.command_id, COMMAND_ID)?;
        text("reason", &self.reason, REASON)
    }
}

impl Bounded for pb::DealRequest {
    fn bounded(&self) -> Result<(), Status> {
        id("tournament_id", &self.tournament_id)?;
        token("command_id", &self.command_id, COMMAND_ID)
    }
}

impl Bounded for pb::PayPrizeRequest {
    fn bounded(&self) -> Result<(), Status> {
        id("tournament_id", &self.tournament_id)?;
        token("command_id", &self.command_id, COMMAND_ID)?;
        if let Some(d) = &self.document {
            text("document.reference", &d.reference, 64)?;
        }
        text("tax_number", &self.tax_number, 32)
    }
}

impl Bounded for pb::CreateTournamentRequest {
    fn bounded(&self) -> Result<(), Status> {
        use pb::create_tournament_request::Structure;
        id("tournament_id", &self.tournament_id)?;
        text("name", &self.name, NAME)?;
        if let Some(f) = &self.flight {
            id("flight.event_tournament_id", &f.event_tournament_id)?;
        }
        match &self.structure {
            Some(Structure::StructurePeriods(s)) => {
                text("structure_periods.name", &s.name, NAME)?;
                if s.periods.len() > PERIODS {
                    return Err(invalid(
                        "structure_periods.periods",
                        format!("at most {PERIODS}, not {}", s.periods.len()),
                    ));
                }
            }
            Some(Structure::StructureText(s)) => length("structure_text", s, STRUCTURE)?,
            Some(Structure::Preset(_)) | None => {}
        }
        if let Some(m) = &self.money
            && !m.currency.is_empty()
            && !felt_payout::valid_currency(&m.currency)
        {
            return Err(invalid(
                "money.currency",
                format!(
                    "an ISO 4217 code of three capital letters, e.g. \"BRL\", not {:?}",
                    prefix(&m.currency)
                ),
            ));
        }
        if self.redraws_at.len() > 100 {
            return Err(invalid(
                "redraws_at",
                format!("at most 100 counts, not {}", self.redraws_at.len()),
            ));
        }
        Ok(())
    }
}

/// A payment's reference.
const PAYMENT_REFERENCE: usize = 64;

fn payment(field: &str, p: Option<&pb::Payment>) -> Result<(), Status> {
    p.map_or(Ok(()), |p| text(field, &p.reference, PAYMENT_REFERENCE))
}

impl Bounded for pb::CancelTournamentRequest {
    fn bounded(&self) -> Result<(), Status> {
        id("tournament_id", &self.tournament_id)?;
        token("command_id", &self.command_id, COMMAND_ID)?;
        text("reason", &self.reason, REASON)
    }
}

impl Bounded for pb::UnregisterRequest {
    fn bounded(&self) -> Result<(), Status> {
        id("tournament_id", &self.tournament_id)?;
        text("reason", &self.reason, REASON)
    }
}

impl Bounded for pb::RegisterRequest {
    fn bounded(&self) -> Result<(), Status> {
        id("tournament_id", &self.tournament_id)?;
        token("command_id", &self.command_id, COMMAND_ID)?;
        player("player_id", &self.player_id)?;
        payment("payment.reference", self.payment.as_ref())?;
        if let Some(t) = &self.ticket {
            id("ticket.satellite_tournament_id", &t.satellite_tournament_id)?;
        }
        text("name", &self.name, NAME)
    }
}

impl Bounded for pb::RegisterManyRequest {
    fn bounded(&self) -> Result<(), Status> {
        id("tournament_id", &self.tournament_id)?;
        token("command_id", &self.command_id, COMMAND_ID)?;
        if self.players.len() > REGISTRANTS {
            return Err(invalid(
                "players",
                format!(
                    "at most {REGISTRANTS} in one call, not {}",
                    self.players.len()
                ),
            ));
        }
        for (i, p) in self.players.iter().enumerate() {
            player(&format!("players[{i}].player_id"), &p.player_id)?;
            text(&format!("players[{i}].name"), &p.name, NAME)?;
        }
        payment("payment.reference", self.payment.as_ref())
    }
}

impl Bounded for pb::FindSeatRequest {
    fn bounded(&self) -> Result<(), Status> {
        id("tournament_id", &self.tournament_id)?;
        text("query", &self.query, QUERY)
    }
}

impl Bounded for pb::ExecuteRequest {
    fn bounded(&self) -> Result<(), Status> {
        use pb::execute_request::Command as C;
        table_ref(self.table.as_ref())?;
        token("command_id", &self.command_id, COMMAND_ID)?;
        if let Some(p) = &self.provenance {
            token("provenance.causation_id", &p.causation_id, PROVENANCE)?;
            token("provenance.correlation_id", &p.correlation_id, PROVENANCE)?;
        }
        match &self.command {
            Some(C::EnterHoleCards(e)) => cards("enter_hole_cards.cards", &e.cards),
            Some(C::DealBoard(d)) => cards("deal_board.cards", &d.cards),
            Some(C::Show(s)) => cards("show.cards", &s.cards),
            Some(C::Misdeal(m)) => text("misdeal.reason", &m.reason, REASON),
            Some(C::Rule(r)) => text("rule.reason", &r.reason, REASON),
            Some(C::SetRecording(r)) => text("set_recording.reason", &r.reason, REASON),
            Some(C::CorrectStack(c)) => {
                if let Some(pb::concerns::Kind::Moment(m)) =
                    c.concerns.as_ref().and_then(|c| c.kind.as_ref())
                {
                    text("correct_stack.concerns.moment", m, REASON)?;
                }
                text("correct_stack.reason", &c.reason, REASON)
            }
            Some(C::RemoveChips(r)) => text("remove_chips.reason", &r.reason, REASON),
            Some(C::ColourUp(pb::ColourUp {
                race: Some(pb::colour_up::Race::Entered(e)),
                ..
            })) => seats("colour_up.entered.winners", e.winners.len()),
            Some(C::Disqualify(d)) => text("disqualify.reason", &d.reason, REASON),
            Some(C::CountStacks(c)) => {
                text("count_stacks.count", &c.count, felt_table::MAX_COUNT_NAME)?;
                seats("count_stacks.stacks", c.stacks.len())
            }
            Some(C::RecordResult(r)) => {
                seats("record_result.busted", r.busted.len())?;
                seats("record_result.by", r.by.len())
            }
            Some(C::PushChips(p)) => {
                let n = p.chips.len() + p.in_front.as_ref().map_or(0, |f| f.chips.len());
                if n > 1_000 {
                    return Err(invalid(
                        "push_chips",
                        format!("at most 1000 chips, not {n}"),
                    ));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// A list of seats: at most one per seat of the largest table.
fn seats(field: &str, n: usize) -> Result<(), Status> {
    if n > felt_table::MAX_SEATS {
        return Err(invalid(
            field,
            format!("at most {} seats, not {n}", felt_table::MAX_SEATS),
        ));
    }
    Ok(())
}

macro_rules! table_only {
    ($($t:ty),* $(,)?) => {$(
        impl Bounded for $t {
            fn bounded(&self) -> Result<(), Status> {
                table_ref(self.table.as_ref())
            }
        }
    )*};
}

table_only!(
    pb::GetTableRequest,
    pb::GetHandHistoryRequest,
    pb::GetHandPhhRequest,
    pb::WatchTableRequest,
    pb::IssueSeatCredentialRequest,
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_string_is_refused_quoting_only_its_start() {
        let name = "x".repeat(10_000);
        let err = text("name", &name, NAME).unwrap_err();
        assert_eq!(err.code(), tonic::Code::InvalidArgument);
        assert!(
            err.message()
                .starts_with("name: at most 100 characters, not 10000")
        );
        assert!(err.message().len() < 120, "{}", err.message());
    }

    #[test]
    fn ids_commands_and_names_keep_to_their_characters() {
        assert!(id("tournament_id", "main-2026_a").is_ok());
        assert!(id("tournament_id", "a.b").is_err());
        assert!(id("tournament_id", &"a".repeat(65)).is_err());
        assert!(token("command_id", "h1-flop-s3", COMMAND_ID).is_ok());
        assert!(token("command_id", "a b", COMMAND_ID).is_err());
        assert!(player("player_id", "WSOP#1234").is_ok());
        let e = player("player_id", "ana maria").unwrap_err();
        assert_eq!(
            e.message(),
            "player_id: a player id is printable ASCII characters without spaces only (\"ana maria\")"
        );
        assert!(text("name", "João Ñandú", NAME).is_ok());
        assert!(text("name", "a\nb", NAME).is_err());
        assert_eq!(prefix("ab"), "ab");
        assert_eq!(prefix(&"é".repeat(20)), format!("{}…", "é".repeat(16)));
    }
}
