//! Partners' webhooks: given the registry's events, when a partner's or
//! the house's command, then events or a refusal; and the signature a
//! partner checks each delivery with (issue 29: "deliveries are signed
//! (HMAC-SHA256 with a per-partner secret, timestamped)").

use std::collections::BTreeSet;

use felt_webhooks::*;
use proptest::prelude::*;

fn create(tournament: &str, owner: &str, url: &str, scopes: &[Scope]) -> WebhookCommand {
    WebhookCommand::Create {
        tournament: tournament.parse().unwrap(),
        owner: owner.into(),
        url: url.into(),
        scopes: scopes.iter().copied().collect(),
        at: 1_000,
    }
}

fn given(commands: Vec<WebhookCommand>) -> WebhooksState {
    let mut state = WebhooksState::default();
    for command in commands {
        let events = decide(&state, &command).unwrap_or_else(|e| panic!("{command:?}: {e}"));
        for e in &events {
            state.apply(e);
        }
    }
    state
}

#[test]
fn a_partner_registers_a_url_for_a_tournament_and_the_kinds_it_receives() {
    let state = given(vec![]);
    let then = decide(
        &state,
        &create(
            "main",
            "tv",
            "https://tv.example/felt",
            &[Scope::Clock, Scope::Results],
        ),
    );
    assert_eq!(
        then,
        Ok(vec![WebhookEvent::Created(Webhook {
            id: 1,
            tournament: "main".parse().unwrap(),
            owner: "tv".into(),
            url: "https://tv.example/felt".into(),
            scopes: BTreeSet::from([Scope::Clock, Scope::Results]),
            created_at: 1_000,
            deleted_at: None,
            failing: None,
        })])
    );
    // Numbers go on across tournaments, and a deleted one's is never
    // given again.
    let state = given(vec![
        create("main", "tv", "https://tv.example/a", &[Scope::Clock]),
        WebhookCommand::Delete {
            id: 1,
            owner: None,
            at: 2_000,
        },
        create("side", "tv", "https://tv.example/a", &[Scope::Clock]),
    ]);
    assert_eq!(state.webhooks().keys().copied().collect::<Vec<_>>(), [1, 2]);
    assert_eq!(state.live().map(|w| w.id).collect::<Vec<_>>(), [2]);
}

#[test]
fn a_webhook_without_a_usable_url_or_any_scope_is_refused() {
    let state = given(vec![]);
    for (url, why) in [
        ("ftp://tv.example/x", "http or https"),
        ("not a url", "relative URL without a base"),
        ("https://user:pw@tv.example/", "no user name or password"),
        ("http://", "empty host"),
    ] {
        match decide(&state, &create("main", "tv", url, &[Scope::Clock])) {
            Err(WebhookError::InvalidUrl { why: got }) => {
                assert!(got.contains(why), "{url}: {got}")
            }
            other => panic!("{url}: {other:?}"),
        }
    }
    let long = format!("https://tv.example/{}", "a".repeat(MAX_URL));
    assert!(matches!(
        decide(&state, &create("main", "tv", &long, &[Scope::Clock])),
        Err(WebhookError::InvalidUrl { why }) if why.contains("at most 2048 characters")
    ));
    assert_eq!(
        decide(&state, &create("main", "tv", "https://tv.example/", &[])),
        Err(WebhookError::NoScopes)
    );
    assert_eq!(
        decide(
            &state,
            &create("main", "", "https://tv.example/", &[Scope::Tables])
        ),
        Err(WebhookError::InvalidOwner { len: 0 })
    );
}

#[test]
fn one_url_is_registered_once_per_tournament_and_a_tournament_has_a_bounded_number() {
    let state = given(vec![create(
        "main",
        "tv",
        "https://tv.example/a",
        &[Scope::Clock],
    )]);
    assert_eq!(
        decide(
            &state,
            &create("main", "app", "https://tv.example/a", &[Scope::Seating])
        ),
        Err(WebhookError::AlreadyRegistered {
            id: 1,
            tournament: "main".parse().unwrap()
        })
    );
    let full = given(
        (0..MAX_PER_TOURNAMENT)
            .map(|i| {
                create(
                    "main",
                    "tv",
                    &format!("https://tv.example/{i}"),
                    &[Scope::Clock],
                )
            })
            .collect(),
    );
    assert_eq!(
        decide(
            &full,
            &create("main", "tv", "https://tv.example/x", &[Scope::Clock])
        ),
        Err(WebhookError::TooMany {
            tournament: "main".parse().unwrap()
        })
    );
    // Another tournament's count is its own.
    assert!(
        decide(
            &full,
            &create("side", "tv", "https://tv.example/x", &[Scope::Clock])
        )
        .is_ok()
    );
}

#[test]
fn a_partner_deletes_only_its_own_webhooks_the_house_any_and_each_once() {
    let state = given(vec![create(
        "main",
        "tv",
        "https://tv.example/a",
        &[Scope::Clock],
    )]);
    let delete = |owner: Option<&str>| WebhookCommand::Delete {
        id: 1,
        owner: owner.map(str::to_string),
        at: 5_000,
    };
    assert_eq!(
        decide(&state, &delete(Some("app"))),
        Err(WebhookError::NotYours { id: 1 })
    );
    assert_eq!(
        decide(&state, &delete(Some("tv"))),
        Ok(vec![WebhookEvent::Deleted { id: 1, at: 5_000 }])
    );
    let deleted = given(vec![
        create("main", "tv", "https://tv.example/a", &[Scope::Clock]),
        delete(None),
    ]);
    assert_eq!(deleted.webhooks()[&1].deleted_at, Some(5_000));
    assert_eq!(
        decide(&deleted, &delete(None)),
        Err(WebhookError::AlreadyDeleted { id: 1 })
    );
    assert_eq!(
        decide(
            &deleted,
            &WebhookCommand::Delete {
                id: 9,
                owner: None,
                at: 0
            }
        ),
        Err(WebhookError::NoSuchWebhook { id: 9 })
    );
}

/// Issue 29: deliveries "are retried with backoff and recorded": an outage
/// of the partner's URL is in the log, from its first failure to the post
/// that went through again.
#[test]
fn an_outage_is_recorded_once_from_its_first_failure_to_its_recovery() {
    let failing = |event: &str| WebhookCommand::RecordFailing {
        id: 1,
        event_id: event.into(),
        error: "answered 500 Internal Server Error\n".into(),
        at: 2_000,
    };
    let recovered = WebhookCommand::RecordRecovered {
        id: 1,
        event_id: "main/clock/main/1".into(),
        failed: 3,
        at: 9_000,
    };
    let registered = vec![create("main", "tv", "https://tv.example/", &[Scope::Clock])];
    let state = given(registered.clone());
    // A recovery with no outage records nothing.
    assert_eq!(decide(&state, &recovered), Ok(vec![]));
    assert_eq!(
        decide(&state, &failing("main/clock/main/1")),
        Ok(vec![WebhookEvent::DeliveryFailing {
            id: 1,
            event_id: "main/clock/main/1".into(),
            error: "answered 500 Internal Server Error".into(),
            at: 2_000,
        }])
    );
    let state = given([registered.clone(), vec![failing("main/clock/main/1")]].concat());
    assert_eq!(
        state.webhooks()[&1].failing.as_ref().map(|f| f.since),
        Some(2_000)
    );
    // The same outage is recorded once, however many posts fail.
    assert_eq!(decide(&state, &failing("main/clock/main/2")), Ok(vec![]));
    assert_eq!(
        decide(&state, &recovered),
        Ok(vec![WebhookEvent::DeliveryRecovered {
            id: 1,
            event_id: "main/clock/main/1".into(),
            failed: 3,
            at: 9_000,
        }])
    );
    let state = given(
        [
            registered,
            vec![failing("main/clock/main/1"), recovered.clone()],
        ]
        .concat(),
    );
    assert_eq!(state.webhooks()[&1].failing, None);
    assert_eq!(
        decide(
            &state,
            &WebhookCommand::RecordFailing {
                id: 7,
                event_id: "x".into(),
                error: "x".into(),
                at: 0
            }
        ),
        Err(WebhookError::NoSuchWebhook { id: 7 })
    );
}

#[test]
fn each_scope_is_one_kind_of_stream() {
    for (scope, kind) in [
        (Scope::Clock, "clock"),
        (Scope::Seating, "seating"),
        (Scope::Results, "payout"),
        (Scope::Tables, "table"),
        (Scope::Hands, "table"),
    ] {
        assert_eq!(scope.kind(), kind);
    }
}

/// Issue 29: "hole cards only under the broadcast-delay rule": whole hands
/// wait for the delay, so they go on a webhook of their own.
#[test]
fn whole_hands_are_a_webhook_of_their_own() {
    let state = given(vec![]);
    assert_eq!(
        decide(
            &state,
            &create(
                "main",
                "tv",
                "https://tv.example/",
                &[Scope::Hands, Scope::Clock]
            )
        ),
        Err(WebhookError::HandsAlone)
    );
    assert!(
        decide(
            &state,
            &create("main", "tv", "https://tv.example/", &[Scope::Hands])
        )
        .is_ok()
    );
}

#[test]
fn a_webhook_secret_derives_from_the_key_and_the_webhook_alone() {
    let key = Key::from_secret(&"k".repeat(32)).unwrap();
    let again = Key::from_secret(&"k".repeat(32)).unwrap();
    let other = Key::from_secret(&"j".repeat(32)).unwrap();
    assert_eq!(key.secret(1), again.secret(1));
    assert_ne!(key.secret(1), key.secret(2));
    assert_ne!(key.secret(1), other.secret(1));
    assert!(key.secret(1).expose().starts_with("whsec_"));
    assert_eq!(key.secret(1).expose().len(), 6 + 64);
    assert_eq!(
        Key::from_secret("short").unwrap_err(),
        WebhookError::InvalidKey { len: 5 }
    );
}

#[test]
fn a_stale_or_malformed_signature_is_refused() {
    let secret = Key::new([3; 32]).secret(7);
    let header = signature(&secret, 10_000, b"body");
    assert_eq!(
        verify(secret.expose(), &header, b"body", 10_500, 300_000),
        Ok(10_000)
    );
    assert_eq!(
        verify(secret.expose(), &header, b"body", 10_000 + 300_001, 300_000),
        Err(SignatureError::Stale {
            age_ms: 300_001,
            tolerance_ms: 300_000
        })
    );
    for bad in ["", "t=1", "v1=00", "t=x,v1=00", "t=10000,v1=zz"] {
        assert_eq!(
            verify(secret.expose(), bad, b"body", 10_000, 300_000),
            Err(SignatureError::Malformed),
            "{bad}"
        );
    }
}

proptest! {
    /// A signature checks under its secret for its body and time, and
    /// under nothing else.
    #[test]
    fn a_signature_holds_for_its_body_time_and_secret_only(
        body in proptest::collection::vec(any::<u8>(), 0..512),
        flip in any::<usize>(),
        t in 0i64..4_000_000_000_000,
        id in 1u64..1_000,
    ) {
        let key = Key::new([9; 32]);
        let secret = key.secret(id);
        let header = signature(&secret, t, &body);
        prop_assert_eq!(verify(secret.expose(), &header, &body, t, 1_000), Ok(t));
        prop_assert_eq!(
            verify(key.secret(id + 1).expose(), &header, &body, t, 1_000),
            Err(SignatureError::Mismatch)
        );
        let mut changed = body.clone();
        if changed.is_empty() {
            changed.push(0);
        } else {
            let i = flip % changed.len();
            changed[i] ^= 1;
        }
        prop_assert_eq!(
            verify(secret.expose(), &header, &changed, t, 1_000),
            Err(SignatureError::Mismatch)
        );
        // The same body signed at another time does not pass as this one.
        let later = header.replacen(&format!("t={t}"), &format!("t={}", t + 1), 1);
        prop_assert_eq!(
            verify(secret.expose(), &later, &body, t, 1_000),
            Err(SignatureError::Mismatch)
        );
    }
}
