//! The deployment's people: credentials the director issues to a person
//! for a role and revokes, kept as the people registry's events
//! (`felt._registry.people.all`, written by the seating service) with
//! only each secret's SHA-256 hash. Every service process folds the
//! registry as it is committed ([`follow`]) so its interceptor knows, for
//! a bearer token, who calls and as what; the seating process that issues
//! or revokes one knows at once.

use std::sync::{Arc, RwLock};

use felt_eventlog::{EventLog, Filter, LogError, StreamId};
use felt_people::{Grant, PeopleCommand, PeopleError, PeopleEvent, PeopleState, SecretHash};
use felt_service::Aggregate;
use sha2::Digest;

use super::auth::Role;

/// The people registry's stream.
pub(crate) fn stream() -> Result<StreamId, LogError> {
    StreamId::new("_registry", "people", "all")
}

/// The people registry as the service pattern runs it.
#[derive(Debug)]
pub(crate) struct People;

impl Aggregate for People {
    type State = PeopleState;
    type Command = PeopleCommand;
    type Event = PeopleEvent;
    type Rejection = PeopleError;
    const SCHEMA: u16 = 1;

    fn decide(
        state: &PeopleState,
        command: &PeopleCommand,
        _: &felt_service::Seed,
    ) -> Result<Vec<PeopleEvent>, PeopleError> {
        felt_people::decide(state, command)
    }

    fn apply(state: &mut PeopleState, event: &PeopleEvent) {
        state.apply(event);
    }

    fn event_type(event: &PeopleEvent) -> &'static str {
        event.name()
    }
}

/// A secret's hash, as the registry keeps it.
pub(crate) fn hash(secret: &str) -> SecretHash {
    SecretHash(sha2::Sha256::digest(secret.as_bytes()).into())
}

/// The role a grant gives.
pub(crate) fn role(grant: &Grant) -> Role {
    match grant {
        Grant::Director => Role::Director,
        Grant::Floor => Role::Floor,
        Grant::Partner => Role::Partner,
        Grant::Cashier => Role::Cashier,
        Grant::Dealer { tournament, table } => Role::Dealer {
            tournament: tournament.clone(),
            table: *table,
        },
    }
}

/// The registry as this process last folded it, and how far.
#[derive(Debug, Default)]
pub struct Credentials {
    state: RwLock<(PeopleState, u64)>,
}

impl Credentials {
    /// The person a bearer token is a live credential of, with their role.
    pub(crate) fn lookup(&self, token: &str) -> Option<(Role, String)> {
        let state = self
            .state
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (_, c) = state.0.live(&hash(token))?;
        Some((role(&c.grant), c.person.to_string()))
    }

    /// The registry at `version`, if that is newer than what is known (the
    /// issuing process's own decision, known before the log delivers it).
    pub(crate) fn advance(&self, state: &PeopleState, version: u64) {
        let mut known = self
            .state
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if version > known.1 {
            *known = (state.clone(), version);
        }
    }

    /// An event the log delivered, at its sequence: applied once, in order.
    fn deliver(&self, sequence: u64, event: &PeopleEvent) {
        let mut known = self
            .state
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if sequence == known.1 + 1 {
            known.0.apply(event);
            known.1 = sequence;
        }
    }

    fn version(&self) -> u64 {
        self.state
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .1
    }
}

/// Folds the people registry into `credentials` as it is committed, for
/// as long as the process runs (after a failure, again from what it knows).
pub(crate) async fn follow<L: EventLog + 'static>(log: Arc<L>, credentials: Arc<Credentials>) {
    loop {
        if let Err(e) = follow_once(log.as_ref(), &credentials).await {
            tracing::warn!(%e, "following the people registry failed: starting again");
        }
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
}

async fn follow_once<L: EventLog>(log: &L, credentials: &Credentials) -> Result<(), LogError> {
    let stream = stream()?;
    // What is there now, then what is committed after it.
    for env in log.read(&stream, credentials.version() + 1).await? {
        credentials.deliver(env.sequence, &env.decode()?);
    }
    let mut sub = log
        .subscribe(
            Filter {
                id: None,
                tournament: Some(stream.tournament.to_string()),
                kind: Some(stream.kind.clone()),
            },
            0,
        )
        .await?;
    while let Some(committed) = sub.next().await {
        for env in committed?.envelopes {
            if env.sequence > credentials.version() {
                // (A gap: read what was missed first.)
                for missed in log.read(&stream, credentials.version() + 1).await? {
                    if missed.sequence < env.sequence {
                        credentials.deliver(missed.sequence, &missed.decode()?);
                    }
                }
                credentials.deliver(env.sequence, &env.decode()?);
            }
        }
    }
    Ok(())
}
