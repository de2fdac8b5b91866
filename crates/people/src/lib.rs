//! The deployment's people and their credentials, as a pure decider.
//!
//! The director issues a credential to a person (a floor person, a dealer,
//! another director, a partner's integration) for a role; the service
//! draws the secret and hands this decider only its SHA-256 hash, which is
//! all the log keeps. A credential is revoked with a reason and never
//! works again. Every service folds these events to know, for a bearer
//! token's hash, who is calling and as what.
//!
//! ```text
//! decide(&PeopleState, &PeopleCommand) -> Result<Vec<PeopleEvent>, PeopleError>
//! PeopleState::apply(&mut self, &PeopleEvent)
//! ```

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

pub use felt_vocabulary::{PersonId, TableNo, TournamentId};

/// The longest name a person is given, and the longest reason.
pub const MAX_NAME: usize = 100;
pub const MAX_REASON: usize = 500;

/// What a credential lets its holder do.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Grant {
    /// Everything, every tournament.
    Director,
    /// Rulings, holds and corrections, and every dealer command, every table.
    Floor,
    /// Read-only, every tournament; hole cards once tabled.
    Partner,
    /// The cage: buy-ins, re-entries, add-ons, rebuys and refunds sold
    /// and made, prizes paid; reads like a partner.
    Cashier,
    /// A dealer's tablet at one table: its hands and reads, nothing else.
    Dealer {
        tournament: TournamentId,
        table: TableNo,
    },
}

/// A credential's SHA-256 hash: what the log keeps of its secret.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SecretHash(#[serde(with = "serde_bytes")] pub [u8; 32]);

impl std::fmt::Debug for SecretHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretHash(")?;
        self.0[..4].iter().try_for_each(|b| write!(f, "{b:02x}"))?;
        f.write_str("…)")
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PeopleCommand {
    /// A credential for `person` (called `name`) as `grant`, whose secret
    /// hashes to `hash`.
    Issue {
        person: PersonId,
        name: String,
        grant: Grant,
        hash: SecretHash,
    },
    /// Credential `credential` stops working, for `reason`.
    Revoke { credential: u64, reason: String },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PeopleEvent {
    /// Credential number `credential` (from 1) was issued.
    Issued {
        credential: u64,
        person: PersonId,
        name: String,
        grant: Grant,
        hash: SecretHash,
    },
    Revoked {
        credential: u64,
        reason: String,
    },
}

impl PeopleEvent {
    pub fn name(&self) -> &'static str {
        match self {
            PeopleEvent::Issued { .. } => "Issued",
            PeopleEvent::Revoked { .. } => "Revoked",
        }
    }
}

/// Why a command about people is refused; nothing changes then.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, strum::IntoStaticStr)]
pub enum PeopleError {
    #[error("{what} is 1 to {max} characters without control characters, not {len}")]
    InvalidText {
        what: &'static str,
        len: usize,
        max: usize,
    },
    #[error("a credential with this secret exists already")]
    SecretInUse,
    #[error("no credential {credential}")]
    NoSuchCredential { credential: u64 },
    #[error("credential {credential} was revoked already: {reason}")]
    AlreadyRevoked { credential: u64, reason: String },
}

impl felt_vocabulary::Classified for PeopleError {
    fn kind(&self) -> felt_vocabulary::ErrorKind {
        use felt_vocabulary::ErrorKind;
        match self {
            PeopleError::InvalidText { .. } => ErrorKind::Malformed,
            PeopleError::SecretInUse => ErrorKind::AlreadyExists,
            PeopleError::NoSuchCredential { .. } => ErrorKind::NotFound,
            PeopleError::AlreadyRevoked { .. } => ErrorKind::Refused,
        }
    }

    fn reason(&self) -> &str {
        self.into()
    }

    fn rule(&self) -> Option<&str> {
        None
    }
}

/// One credential as the log knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Credential {
    pub person: PersonId,
    pub name: String,
    pub grant: Grant,
    pub hash: SecretHash,
    /// Why it was revoked, once it was.
    pub revoked: Option<String>,
}

/// Every credential ever issued, by number, and the live ones by hash.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PeopleState {
    credentials: BTreeMap<u64, Credential>,
    live: HashMap<SecretHash, u64>,
}

impl PeopleState {
    /// Every credential, by number (revoked ones too).
    pub fn credentials(&self) -> &BTreeMap<u64, Credential> {
        &self.credentials
    }

    /// The live credential whose secret hashes to `hash`: its number and
    /// what it is.
    pub fn live(&self, hash: &SecretHash) -> Option<(u64, &Credential)> {
        let n = *self.live.get(hash)?;
        self.credentials.get(&n).map(|c| (n, c))
    }

    pub fn apply(&mut self, event: &PeopleEvent) {
        match event {
            PeopleEvent::Issued {
                credential,
                person,
                name,
                grant,
                hash,
            } => {
                self.credentials.insert(
                    *credential,
                    Credential {
                        person: person.clone(),
                        name: name.clone(),
                        grant: grant.clone(),
                        hash: *hash,
                        revoked: None,
                    },
                );
                self.live.insert(*hash, *credential);
            }
            PeopleEvent::Revoked { credential, reason } => {
                if let Some(c) = self.credentials.get_mut(credential) {
                    c.revoked = Some(reason.clone());
                    self.live.remove(&c.hash);
                }
            }
        }
    }
}

fn text(what: &'static str, text: &str, max: usize) -> Result<(), PeopleError> {
    let len = text.chars().count();
    if len == 0 || len > max || text.chars().any(char::is_control) {
        return Err(PeopleError::InvalidText { what, len, max });
    }
    Ok(())
}

/// What a command means, or why it is refused.
pub fn decide(
    state: &PeopleState,
    command: &PeopleCommand,
) -> Result<Vec<PeopleEvent>, PeopleError> {
    match command {
        PeopleCommand::Issue {
            person,
            name,
            grant,
            hash,
        } => {
            text("a person's name", name, MAX_NAME)?;
            if state.credentials.values().any(|c| c.hash == *hash) {
                return Err(PeopleError::SecretInUse);
            }
            Ok(vec![PeopleEvent::Issued {
                credential: state.credentials.len() as u64 + 1,
                person: person.clone(),
                name: name.clone(),
                grant: grant.clone(),
                hash: *hash,
            }])
        }
        PeopleCommand::Revoke { credential, reason } => {
            text("a revocation's reason", reason, MAX_REASON)?;
            let c = state
                .credentials
                .get(credential)
                .ok_or(PeopleError::NoSuchCredential {
                    credential: *credential,
                })?;
            if let Some(why) = &c.revoked {
                return Err(PeopleError::AlreadyRevoked {
                    credential: *credential,
                    reason: why.clone(),
                });
            }
            Ok(vec![PeopleEvent::Revoked {
                credential: *credential,
                reason: reason.clone(),
            }])
        }
    }
}
