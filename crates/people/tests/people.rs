//! People and their credentials: given events, when the director's
//! command, then events or a refusal.

use felt_people::*;

fn issue(person: &str, grant: Grant, secret: u8) -> PeopleCommand {
    PeopleCommand::Issue {
        person: person.parse().unwrap(),
        name: format!("{person}'s name"),
        grant,
        hash: SecretHash([secret; 32]),
    }
}

fn run(state: &mut PeopleState, command: PeopleCommand) -> Vec<PeopleEvent> {
    let events = decide(state, &command).unwrap_or_else(|e| panic!("{command:?}: {e}"));
    for e in &events {
        state.apply(e);
    }
    events
}

#[test]
fn a_credential_is_issued_to_a_person_for_a_role_and_found_by_its_hash() {
    let mut state = PeopleState::default();
    let events = run(&mut state, issue("ana", Grant::Floor, 1));
    assert_eq!(
        events,
        [PeopleEvent::Issued {
            credential: 1,
            person: "ana".parse().unwrap(),
            name: "ana's name".into(),
            grant: Grant::Floor,
            hash: SecretHash([1; 32]),
        }]
    );
    let dealer = Grant::Dealer {
        tournament: "main".parse().unwrap(),
        table: 12,
    };
    run(&mut state, issue("bia", dealer.clone(), 2));
    let (n, c) = state.live(&SecretHash([2; 32])).unwrap();
    assert_eq!((n, &c.grant), (2, &dealer));
    assert!(state.live(&SecretHash([3; 32])).is_none());
    // A secret is never issued twice.
    assert_eq!(
        decide(&state, &issue("caio", Grant::Partner, 1)),
        Err(PeopleError::SecretInUse)
    );
}

#[test]
fn a_revoked_credential_is_found_no_more_and_is_revoked_once() {
    let mut state = PeopleState::default();
    run(&mut state, issue("ana", Grant::Floor, 1));
    let revoke = |reason: &str| PeopleCommand::Revoke {
        credential: 1,
        reason: reason.into(),
    };
    assert!(matches!(
        decide(&state, &revoke("")),
        Err(PeopleError::InvalidText { .. })
    ));
    run(&mut state, revoke("left the event"));
    assert!(state.live(&SecretHash([1; 32])).is_none());
    assert_eq!(
        state.credentials()[&1].revoked.as_deref(),
        Some("left the event")
    );
    assert_eq!(
        decide(&state, &revoke("again")).unwrap_err().to_string(),
        "credential 1 was revoked already: left the event"
    );
    assert_eq!(
        decide(
            &state,
            &PeopleCommand::Revoke {
                credential: 9,
                reason: "x".into()
            }
        ),
        Err(PeopleError::NoSuchCredential { credential: 9 })
    );
}

#[test]
fn a_name_is_bounded() {
    let state = PeopleState::default();
    let command = PeopleCommand::Issue {
        person: "ana".parse().unwrap(),
        name: "a".repeat(101),
        grant: Grant::Floor,
        hash: SecretHash([1; 32]),
    };
    assert_eq!(
        decide(&state, &command).unwrap_err().to_string(),
        "a person's name is 1 to 100 characters without control characters, not 101"
    );
}
