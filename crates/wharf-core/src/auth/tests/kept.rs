//! Kept sign-ins: per server and issuer, taken up again in a later run, refreshed (with the registered client's
//! secret when it has one), never printed.

use super::*;

#[tokio::test]
async fn sign_ins_are_kept_per_server_and_issuer_and_never_printed() {
    let run = sign_in(
        Setup {
            prm_path_based: true,
            ..Setup::default()
        },
        "Bearer",
        Browser::new(true, true),
    )
    .await;
    run.result.unwrap();
    let TokenStore::Memory(map) = &run.store else {
        unreachable!()
    };
    let entry = map
        .lock()
        .unwrap()
        .get(&TokenStore::entry_name("srv"))
        .cloned()
        .unwrap();
    let entry: Value = serde_json::from_str(&entry).unwrap();
    assert_eq!(entry["current"], run.fake.base.as_str());
    assert!(entry["by_issuer"][run.fake.base.as_str()]["token_response"].is_object());
    // Another server name, even for the same URL, has no sign-in.
    assert!(!status(&run.store, "other").await.unwrap().signed_in);
    let shown = format!(
        "{:?} {}",
        status(&run.store, "srv").await.unwrap(),
        serde_json::to_string(&status(&run.store, "srv").await.unwrap()).unwrap()
    );
    for secret in [TOKEN, "refresh-SECRET", CODE] {
        assert!(!shown.contains(secret), "{shown}");
    }
    assert!(sign_out(&run.store, "srv").await.unwrap());
    assert!(!status(&run.store, "srv").await.unwrap().signed_in);
    assert!(!sign_out(&run.store, "srv").await.unwrap());

    let mut options = AuthOptions::new(Browser::new(true, true), TokenStore::memory());
    options.preregistered.insert(
        "srv".into(),
        PreRegistered {
            client_id: "pre".into(),
            client_secret: Some(Secret::new("client-SECRET")),
        },
    );
    assert!(!format!("{options:?}").contains("client-SECRET"));
}

/// Answers every question the same way and keeps what it was asked.

#[tokio::test]
async fn a_kept_sign_in_is_taken_up_before_any_browser() {
    let run = sign_in(
        Setup {
            prm_path_based: true,
            ..Setup::default()
        },
        "Bearer",
        Browser::new(true, true),
    )
    .await;
    run.result.unwrap();
    // The next run of Wharf, same store: the first 401 resumes the kept sign-in, no page is shown.
    let browser = Browser::new(true, true);
    let options = AuthOptions::new(browser.clone(), run.store.clone());
    let client = AuthHttpClient::new("srv", &run.fake.mcp(), Some(options))
        .await
        .unwrap();
    client
        .resolve(Pending::SignIn {
            challenge: "Bearer".into(),
        })
        .await
        .unwrap();
    assert!(browser.prompts.lock().unwrap().is_empty());
    assert_eq!(run.fake.requests("/authorize").len(), 1);
    // A second 401 means the kept token is no good: now the browser.
    client
        .resolve(Pending::SignIn {
            challenge: "Bearer".into(),
        })
        .await
        .unwrap();
    assert_eq!(browser.prompts.lock().unwrap().len(), 1);
    assert_eq!(run.fake.requests("/authorize").len(), 2);
}

#[tokio::test]
async fn an_expired_token_is_refreshed_without_the_browser() {
    let fake = Fake::start(Setup {
        prm_path_based: true,
        expiring: true,
        ..Setup::default()
    })
    .await;
    let browser = Browser::new(true, true);
    let store = TokenStore::memory();
    let client = AuthHttpClient::new(
        "srv",
        &fake.mcp(),
        Some(AuthOptions::new(browser.clone(), store.clone())),
    )
    .await
    .unwrap();
    client
        .resolve(Pending::SignIn {
            challenge: "Bearer".into(),
        })
        .await
        .unwrap();
    client.set_interactive();
    let ping = ClientJsonRpcMessage::request(
        ClientRequest::PingRequest(Default::default()),
        RequestId::Number(1),
    );
    client
        .post_message(Arc::from(fake.mcp()), ping, None, None, HashMap::new())
        .await
        .unwrap();
    let grants: Vec<HashMap<String, String>> =
        fake.requests("/token").iter().map(|r| r.form()).collect();
    assert_eq!(grants.len(), 2, "{grants:?}");
    assert_eq!(grants[1]["grant_type"], "refresh_token");
    assert_eq!(grants[1]["refresh_token"], "refresh-SECRET");
    let sent: Vec<String> = fake
        .requests("/mcp")
        .into_iter()
        .filter_map(|p| p.bearer)
        .collect();
    assert_eq!(sent, [REFRESHED]);
    assert_eq!(browser.prompts.lock().unwrap().len(), 1);
    // The refreshed token is the one kept.
    let TokenStore::Memory(map) = &store else {
        unreachable!()
    };
    let kept = map.lock().unwrap()[&TokenStore::entry_name("srv")].clone();
    assert!(kept.contains(REFRESHED) && !kept.contains(TOKEN));
}

#[tokio::test]
async fn a_registered_client_secret_is_kept_and_used_to_refresh_in_a_later_run() {
    let run = sign_in(
        Setup {
            prm_path_based: true,
            expiring: true,
            confidential: true,
            ..Setup::default()
        },
        "Bearer",
        Browser::new(true, true),
    )
    .await;
    run.result.unwrap();
    let registration: Value =
        serde_json::from_str(&run.fake.requests("/register")[0].body).unwrap();
    assert_eq!(registration["application_type"], "native");
    // The next run: the kept (expired) sign-in is taken up, then refreshed as the confidential client it is.
    let browser = Browser::new(true, true);
    let client = AuthHttpClient::new(
        "srv",
        &run.fake.mcp(),
        Some(AuthOptions::new(browser.clone(), run.store.clone())),
    )
    .await
    .unwrap();
    client
        .resolve(Pending::SignIn {
            challenge: "Bearer".into(),
        })
        .await
        .unwrap();
    client.set_interactive();
    let ping = ClientJsonRpcMessage::request(
        ClientRequest::PingRequest(Default::default()),
        RequestId::Number(1),
    );
    client
        .post_message(Arc::from(run.fake.mcp()), ping, None, None, HashMap::new())
        .await
        .unwrap();
    assert!(browser.prompts.lock().unwrap().is_empty());
    let tokens = run.fake.requests("/token");
    let refresh = tokens.last().unwrap();
    assert_eq!(refresh.form()["grant_type"], "refresh_token");
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("cid-1:{CLIENT_SECRET}"));
    assert_eq!(
        refresh.authorization.as_deref(),
        Some(format!("Basic {basic}").as_str())
    );
}

#[tokio::test]
async fn a_server_moved_to_another_url_signs_in_afresh() {
    let run = sign_in(
        Setup {
            prm_path_based: true,
            ..Setup::default()
        },
        "Bearer",
        Browser::new(true, true),
    )
    .await;
    run.result.unwrap();
    // Same server name, same store, same authorization server (same issuer), another URL: the kept token was
    // issued for the old resource and is not taken up (nor sent) there.
    let moved = Fake::start(Setup {
        prm_path_based: true,
        authorization_server: Some(Box::leak(run.fake.base.clone().into_boxed_str())),
        ..Setup::default()
    })
    .await;
    let browser = Browser::new(true, true);
    let client = AuthHttpClient::new(
        "srv",
        &moved.mcp(),
        Some(AuthOptions::new(browser.clone(), run.store.clone())),
    )
    .await
    .unwrap();
    client
        .resolve(Pending::SignIn {
            challenge: "Bearer".into(),
        })
        .await
        .unwrap();
    assert_eq!(browser.prompts.lock().unwrap().len(), 1);
    let authorize = run.fake.requests("/authorize");
    assert_eq!(authorize.len(), 2);
    assert_eq!(authorize[1].query["resource"], moved.mcp());
}

/// The front ends learn of sign-ins from events: started, then signed in (with the issuer) or failed (with the
/// error the user reads); signing out is told too. No token, code or secret in any of them. The status says when
/// the token expires.
#[tokio::test]
async fn sign_ins_and_sign_outs_are_told_as_events_without_secrets() {
    let record = |events: &Arc<Mutex<Vec<HostEvent>>>| {
        let events = events.clone();
        EventSink::new(move |e| events.lock().unwrap().push(e))
    };
    let states = |events: &Arc<Mutex<Vec<HostEvent>>>| {
        events
            .lock()
            .unwrap()
            .iter()
            .filter_map(|e| match e {
                HostEvent::SignIn {
                    server,
                    state,
                    issuer,
                    step_up,
                    error,
                } => {
                    assert_eq!(server, "srv");
                    assert!(!step_up);
                    Some((*state, issuer.clone(), error.clone()))
                }
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    for consent in [true, false] {
        let fake = Fake::start(Setup::default()).await;
        let store = TokenStore::memory();
        let events = Arc::new(Mutex::new(Vec::new()));
        let mut options = AuthOptions::new(Browser::new(consent, true), store.clone());
        options.sign_in_timeout = Duration::from_secs(20);
        options.events = record(&events);
        let client = AuthHttpClient::new("srv", &fake.mcp(), Some(options))
            .await
            .unwrap();
        let result = client
            .resolve(Pending::SignIn {
                challenge: "Bearer".into(),
            })
            .await;
        let told = states(&events);
        assert_eq!(told.len(), 2, "{told:?}");
        assert_eq!(told[0], (SignInState::Started, None, None));
        if consent {
            result.unwrap();
            assert_eq!(
                told[1],
                (SignInState::SignedIn, Some(fake.base.clone()), None)
            );
            let status = status(&store, "srv").await.unwrap();
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs();
            let expires = status.expires_at.unwrap();
            assert!(
                (now + 3500..=now + 3700).contains(&expires),
                "{expires} vs {now}"
            );
            let sink = record(&events);
            assert!(sign_out_and_tell(&store, "srv", &sink).await.unwrap());
            assert!(!sign_out_and_tell(&store, "srv", &sink).await.unwrap());
            let told = states(&events);
            assert_eq!(told.len(), 3, "one sign-out told: {told:?}");
            assert_eq!(told[2], (SignInState::SignedOut, None, None));
        } else {
            let error = result.unwrap_err().to_string();
            assert_eq!(told[1], (SignInState::Failed, None, Some(error)));
        }
        let shown = serde_json::to_string(&*events.lock().unwrap()).unwrap();
        for secret in [TOKEN, "refresh-SECRET", CODE, CLIENT_SECRET] {
            assert!(!shown.contains(secret), "{shown}");
        }
    }
}
