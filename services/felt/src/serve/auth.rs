//! Who is calling: a bearer token per caller, mapped to a role by the
//! service's configuration (`--token ROLE=TOKEN`). Every call of the felt
//! API carries one; a call without a known token is refused.

use std::collections::HashMap;
use std::sync::Arc;

use felt_vocabulary::{TableNo, TournamentId};
use tonic::{Request, Status};

/// What a caller may do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// Everything, every table.
    Director,
    /// Rulings, misdeals and penalties, and every dealer command, every table.
    Floor,
    /// Dealer commands at one table, and reads of that table only; hole
    /// cards only once tabled (a lost tablet exposes one table's play,
    /// never a card in the air).
    Dealer {
        tournament: TournamentId,
        table: TableNo,
    },
    /// Read-only, every table; hole cards only once tabled.
    Partner,
    /// The cage (a person's credential only): registrations and refunds,
    /// add-ons and rebuys sold, prizes paid; otherwise reads as a partner.
    Cashier,
    /// Another felt service: seating's carrier sending seats and moves to
    /// the table service when they are deployed apart. A credential given
    /// to the services only, never to a person, so a service can tell its
    /// peers from people. It may send table commands and read them whole;
    /// nothing a person does at seating, the clock or payout, and the room
    /// display does not take it.
    Service,
    /// A seated player's own credential ([`SeatKey`]): acts for that seat
    /// only, and reads that table with its own two cards, for as long as
    /// the entry holds the seat.
    Seat {
        tournament: TournamentId,
        table: TableNo,
        seat: u8,
        entry: u64,
    },
}

impl Role {
    /// The role as `--token` spells it.
    pub(crate) fn name(&self) -> String {
        match self {
            Role::Director => "director".into(),
            Role::Floor => "floor".into(),
            Role::Partner => "partner".into(),
            Role::Cashier => "cashier".into(),
            Role::Service => "service".into(),
            Role::Dealer { tournament, table } => format!("dealer:{tournament}/{table}"),
            Role::Seat {
                tournament,
                table,
                seat,
                ..
            } => format!("seat:{tournament}/{table}/{seat}"),
        }
    }

    /// Whether the role sees cards in the air (hole cards not tabled, burn
    /// cards, a digital deal's seed or secret) during a hand. No person
    /// does, not even the director: only felt's own services, which read
    /// a table's answers whole (seating reads a deal as the table service
    /// drew it). The visibility policy is in ARCHITECTURE.md.
    pub(crate) fn sees_cards_in_the_air(&self) -> bool {
        matches!(self, Role::Service)
    }

    /// Whether the role sees a finished hand whole as soon as it ends: the
    /// director, the floor and felt's services. Partners and dealers see it
    /// whole once the broadcast delay has passed, if one is configured.
    pub(crate) fn sees_finished_hands(&self) -> bool {
        matches!(self, Role::Director | Role::Floor | Role::Service)
    }

    /// Refuses a dealer reading another table than their own; every other
    /// role reads every table (with the cards its role allows).
    pub(crate) fn reads_table(&self, tournament: &str, table: TableNo) -> Result<(), Status> {
        match self {
            Role::Dealer {
                tournament: t,
                table: n,
            } if t.as_str() != tournament || *n != table => Err(Status::permission_denied(
                format!("a dealer reads only their own table ({t}/{n})"),
            )),
            Role::Seat {
                tournament: t,
                table: n,
                ..
            } if t.as_str() != tournament || *n != table => Err(Status::permission_denied(
                format!("a seat's credential reads only its own table ({t}/{n})"),
            )),
            _ => Ok(()),
        }
    }

    /// Refuses a dealer (or a seat) reading a whole tournament's tables.
    pub(crate) fn reads_every_table(&self) -> Result<(), Status> {
        match self {
            Role::Seat { .. } => Err(Status::permission_denied(
                "a seat's credential reads only its own table",
            )),
            Role::Dealer { tournament, table } => Err(Status::permission_denied(format!(
                "a dealer reads only their own table ({tournament}/{table}): watch it with WatchTable"
            ))),
            _ => Ok(()),
        }
    }
}

/// Parses `director=T`, `floor=T`, `partner=T`, `service=T` or
/// `dealer:<tournament>/<table>=T`.
pub fn parse_token(spec: &str) -> Result<(String, Role), String> {
    let (role, token) = spec
        .split_once('=')
        .ok_or_else(|| format!("token {spec:?}: expected ROLE=TOKEN"))?;
    if token.is_empty() {
        return Err(format!("token {spec:?}: the token is empty"));
    }
    let role = match role {
        "director" => Role::Director,
        "floor" => Role::Floor,
        "partner" => Role::Partner,
        "cashier" => Role::Cashier,
        "service" => Role::Service,
        other => match other
            .strip_prefix("dealer:")
            .and_then(|t| t.split_once('/'))
        {
            Some((tournament, table)) => {
                let tournament =
                    TournamentId::new(tournament).map_err(|e| format!("token {spec:?}: {e}"))?;
                let table = table
                    .parse::<TableNo>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| {
                        format!("token {spec:?}: a dealer's table is its number, from 1")
                    })?;
                Role::Dealer { tournament, table }
            }
            _ => {
                return Err(format!(
                    "token {spec:?}: the role is director, floor, partner, service or dealer:<tournament>/<table>"
                ));
            }
        },
    };
    Ok((token.into(), role))
}

/// `felt up`'s tokens when none are given: one each for the director, the
/// floor and partners, drawn at the first start and kept in the data
/// folder (`tokens`, readable by its owner only) so they outlive restarts.
pub fn room_tokens(data: &std::path::Path) -> Result<Vec<(String, Role)>, super::ServeError> {
    let path = data.join("tokens");
    if let Ok(text) = std::fs::read_to_string(&path) {
        return text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| parse_token(l.trim()).map_err(|e| super::ServeError::file(&path, e)))
            .collect();
    }
    std::fs::create_dir_all(data)?;
    let tokens: Vec<(String, Role)> = [Role::Director, Role::Floor, Role::Partner]
        .into_iter()
        .map(|role| {
            let seed = super::shared::fresh_seed();
            let token: String = seed.0[..16].iter().map(|b| format!("{b:02x}")).collect();
            (token, role)
        })
        .collect();
    let text: String = tokens
        .iter()
        .map(|(t, r)| format!("{}={t}\n", r.name()))
        .collect();
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    std::io::Write::write_all(&mut options.open(&path)?, text.as_bytes())?;
    Ok(tokens)
}

/// The webhooks' key of a `felt up`: drawn at the first start and kept in
/// the data folder (`webhook-key`, readable by its owner only), so a
/// webhook's secret outlives restarts.
pub fn webhook_key(data: &std::path::Path) -> Result<felt_webhooks::Key, super::ServeError> {
    let path = data.join("webhook-key");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(_) => {
            std::fs::create_dir_all(data)?;
            let seed = super::shared::fresh_seed();
            let text: String = seed.0.iter().map(|b| format!("{b:02x}")).collect();
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            std::io::Write::write_all(&mut options.open(&path)?, text.as_bytes())?;
            text
        }
    };
    felt_webhooks::Key::from_secret(text.trim()).map_err(|e| super::ServeError::file(&path, e))
}

/// The key of the seats' credentials: a seat's token is
/// `seat.<tournament>.<table>.<seat>.<entry>.<mac>`, the mac an
/// HMAC-SHA-256 (first 16 bytes, hex) of those four under this key. The
/// deployment's secret (`--seat-key`), the same at every replica; else
/// drawn when the service starts, and a restarted service issues new
/// credentials.
#[derive(Clone)]
pub struct SeatKey([u8; 32]);

impl std::fmt::Debug for SeatKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SeatKey(..)")
    }
}

type SeatMac = hmac::Hmac<sha2::Sha256>;

impl SeatKey {
    pub fn new(key: [u8; 32]) -> SeatKey {
        SeatKey(key)
    }

    /// The key from the deployment's secret: 32 to 256 characters (such
    /// as `od -An -N16 -tx1 /dev/urandom` draws), hashed to the key.
    pub fn from_secret(secret: &str) -> Result<SeatKey, String> {
        use sha2::Digest;
        let n = secret.chars().count();
        if !(32..=256).contains(&n) {
            return Err(format!(
                "--seat-key (FELT_SEAT_KEY): {n} characters, 32 to 256 wanted (draw one with: od -An -N16 -tx1 /dev/urandom | tr -d ' \\n')"
            ));
        }
        let mut hash = sha2::Sha256::new();
        hash.update(b"felt-seat-key-v1|");
        hash.update(secret.as_bytes());
        Ok(SeatKey(hash.finalize().into()))
    }

    fn mac(&self, tournament: &str, table: TableNo, seat: u8, entry: u64) -> SeatMac {
        use hmac::Mac;
        let mut mac = <SeatMac as Mac>::new_from_slice(&self.0).expect("any key length");
        mac.update(format!("felt-seat-v1|{tournament}|{table}|{seat}|{entry}").as_bytes());
        mac
    }

    /// The credential of `entry` at `seat` of a table.
    pub(crate) fn issue(&self, tournament: &str, table: TableNo, seat: u8, entry: u64) -> String {
        use hmac::Mac;
        let tag = self
            .mac(tournament, table, seat, entry)
            .finalize()
            .into_bytes();
        let hex: String = tag[..16].iter().map(|b| format!("{b:02x}")).collect();
        format!("seat.{tournament}.{table}.{seat}.{entry}.{hex}")
    }

    /// A person's credential's secret, from the request that issues it:
    /// the same command id gives the same secret under the same key (a
    /// retry is answered with it), and nobody without the key can say it.
    pub(crate) fn person_secret(&self, command_id: &str) -> String {
        use hmac::Mac;
        let mut mac = <SeatMac as Mac>::new_from_slice(&self.0).expect("any key length");
        mac.update(format!("felt-credential-v1|{command_id}").as_bytes());
        let tag = mac.finalize().into_bytes();
        let hex: String = tag[..16].iter().map(|b| format!("{b:02x}")).collect();
        format!("p.{hex}")
    }

    /// The secret of the `generation`th dealer credential of a table.
    pub(crate) fn dealer_secret(
        &self,
        tournament: &str,
        table: TableNo,
        generation: u64,
    ) -> String {
        use hmac::Mac;
        let mut mac = <SeatMac as Mac>::new_from_slice(&self.0).expect("any key length");
        mac.update(format!("felt-dealer-v1|{tournament}|{table}|{generation}").as_bytes());
        let tag = mac.finalize().into_bytes();
        let hex: String = tag[..16].iter().map(|b| format!("{b:02x}")).collect();
        format!("d.{hex}")
    }

    /// The role a seat's token stands for, if this key issued it.
    fn verify(&self, token: &str) -> Option<Role> {
        use hmac::Mac;
        let mut parts = token.split('.');
        let (Some("seat"), Some(t), Some(table), Some(seat), Some(entry), Some(hex), None) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            return None;
        };
        let tournament = TournamentId::new(t).ok()?;
        let (table, seat, entry) = (table.parse().ok()?, seat.parse().ok()?, entry.parse().ok()?);
        if hex.len() != 32 {
            return None;
        }
        let tag: Vec<u8> = (0..16)
            .map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
            .collect::<Option<_>>()?;
        self.mac(t, table, seat, entry)
            .verify_truncated_left(&tag)
            .ok()?;
        Some(Role::Seat {
            tournament,
            table,
            seat,
            entry,
        })
    }
}

/// Who calls, as the decisions their requests bring name them: the
/// person a credential was issued to, or the role a deployment's own
/// token stands for (`director`, `floor`, `dealer:<t>/<n>`, a seat).
/// felt's own `service` credential is nobody.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Actor(pub Option<String>);

/// The interceptor: puts the caller's role, and who they are, into the
/// request: a deployment token (`--token`), a person's credential the
/// director issued (found by its hash in the people registry, live), or
/// a seat's credential.
pub fn authenticate(
    tokens: Arc<HashMap<String, Role>>,
    people: Arc<super::people::Credentials>,
    seats: SeatKey,
) -> impl Fn(Request<()>) -> Result<Request<()>, Status> + Clone {
    move |mut req: Request<()>| {
        let token = req
            .metadata()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .ok_or_else(|| {
                Status::unauthenticated(
                    "a bearer token is required (authorization: Bearer <token>)",
                )
            })?;
        let (role, actor) = if let Some(role) = tokens.get(token) {
            (role.clone(), (*role != Role::Service).then(|| role.name()))
        } else if let Some((role, person)) = people.lookup(token) {
            (role, Some(person))
        } else if let Some(role) = seats.verify(token) {
            let name = role.name();
            (role, Some(name))
        } else {
            return Err(Status::unauthenticated("the bearer token is not known"));
        };
        req.extensions_mut().insert(role);
        req.extensions_mut().insert(Actor(actor));
        Ok(req)
    }
}

/// A service behind the interceptor, each call on behalf of its caller.
pub fn guard<S, F: Clone>(
    service: S,
    interceptor: &F,
) -> tonic::service::interceptor::InterceptedService<OnBehalf<S>, F> {
    tonic::service::interceptor::InterceptedService::new(OnBehalf(service), interceptor.clone())
}

/// A service whose every call runs on behalf of the caller the
/// interceptor found ([`felt_service::as_actor`]): the decisions a call
/// brings name them.
#[derive(Clone, Debug)]
pub struct OnBehalf<S>(pub S);

impl<S, B> tower::Service<tonic::codegen::http::Request<B>> for OnBehalf<S>
where
    S: tower::Service<tonic::codegen::http::Request<B>> + Send,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future =
        std::pin::Pin<Box<dyn std::future::Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, req: tonic::codegen::http::Request<B>) -> Self::Future {
        let actor = req.extensions().get::<Actor>().and_then(|a| a.0.clone());
        let call = self.0.call(req);
        Box::pin(felt_service::as_actor(actor, call))
    }
}

impl<S: tonic::server::NamedService> tonic::server::NamedService for OnBehalf<S> {
    const NAME: &'static str = S::NAME;
}

/// The caller's role, as the interceptor recorded it.
pub fn role<T>(req: &Request<T>) -> Result<Role, Status> {
    req.extensions()
        .get::<Role>()
        .cloned()
        .ok_or_else(|| Status::unauthenticated("no credential"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seat_credential_is_the_seat_it_was_issued_for_and_cannot_be_forged() {
        let key = SeatKey::new([7; 32]);
        let token = key.issue("main", 3, 4, 1234);
        assert_eq!(
            key.verify(&token),
            Some(Role::Seat {
                tournament: "main".parse().unwrap(),
                table: 3,
                seat: 4,
                entry: 1234
            })
        );
        // Another seat, entry or key: not a credential.
        let forged = token.replace(".4.1234.", ".5.1234.");
        assert_eq!(key.verify(&forged), None);
        let forged = token.replace(".4.1234.", ".4.1235.");
        assert_eq!(key.verify(&forged), None);
        assert_eq!(SeatKey::new([8; 32]).verify(&token), None);
        assert_eq!(key.verify("seat.main.3.4.1234"), None);
        assert_eq!(key.verify("director"), None);
    }

    #[test]
    fn tokens_parse_into_roles_and_bad_ones_are_named() {
        assert_eq!(
            parse_token("dealer:main/12=abc"),
            Ok((
                "abc".into(),
                Role::Dealer {
                    tournament: "main".parse().unwrap(),
                    table: 12
                }
            ))
        );
        assert_eq!(parse_token("partner=p"), Ok(("p".into(), Role::Partner)));
        assert_eq!(parse_token("service=s"), Ok(("s".into(), Role::Service)));
        // Seating reads the table service's answers whole; no person sees
        // a card in the air, and the director and the floor see a hand
        // whole once it is over.
        assert!(Role::Service.sees_cards_in_the_air());
        for person in [Role::Director, Role::Floor, Role::Partner] {
            assert!(!person.sees_cards_in_the_air(), "{person:?}");
        }
        assert!(Role::Floor.sees_finished_hands() && !Role::Partner.sees_finished_hands());
        assert!(
            parse_token("dealer:main=abc")
                .unwrap_err()
                .contains("dealer:<tournament>/<table>")
        );
        // A dealer's table is a table's number; its tournament an id.
        for bad in [
            "dealer:main/twelve=abc",
            "dealer:main/0=abc",
            "dealer:main/=abc",
        ] {
            assert!(
                parse_token(bad).unwrap_err().contains("its number, from 1"),
                "{bad}"
            );
        }
        assert!(
            parse_token("dealer:main.event/1=abc")
                .unwrap_err()
                .contains("a tournament id is letters, digits")
        );
        assert!(parse_token("floor").unwrap_err().contains("ROLE=TOKEN"));
        assert!(parse_token("floor=").unwrap_err().contains("empty"));
    }
}
