#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Sign-in against a fake protected resource and authorization server on loopback (tests/fake.rs), with a
//! "browser" that follows the authorization redirect.

mod fake;
mod kept;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use futures::future::BoxFuture;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, RequestId};
use rmcp::transport::streamable_http_client::StreamableHttpClient;
use serde_json::Value;
use sha2::Digest as _;

use super::client::{AuthHttpClient, Pending};
use super::*;
use crate::secrets::Secret;
use fake::{Fake, Setup, CLIENT_SECRET, CODE, REFRESHED, TOKEN};

/// Consents (or not) and follows the redirect as a browser would, recording what it was shown.
struct Browser {
    consent: bool,
    open: bool,
    /// How long the "user" takes in the browser.
    delay: Duration,
    prompts: Mutex<Vec<SignInPrompt>>,
}

impl Browser {
    fn new(consent: bool, open: bool) -> Arc<Browser> {
        Arc::new(Browser {
            consent,
            open,
            delay: Duration::ZERO,
            prompts: Mutex::default(),
        })
    }
}

impl SignInAgent for Browser {
    fn consent(&self, prompt: SignInPrompt) -> BoxFuture<'_, bool> {
        self.prompts.lock().unwrap().push(prompt);
        Box::pin(async move { self.consent })
    }

    fn open(&self, review: crate::question::url::UrlReview) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move {
            if self.open {
                let url = review.normalized.unwrap();
                let delay = self.delay;
                tokio::spawn(async move {
                    tokio::time::sleep(delay).await;
                    reqwest::get(url).await.map(|_| ())
                });
            }
            Ok(())
        })
    }
}

struct Run {
    fake: Fake,
    browser: Arc<Browser>,
    store: TokenStore,
    result: Result<(), AuthError>,
}

async fn sign_in(setup: Setup, challenge: &str, browser: Arc<Browser>) -> Run {
    let fake = Fake::start(setup).await;
    let store = TokenStore::memory();
    let mut options = AuthOptions::new(browser.clone(), store.clone());
    options.sign_in_timeout = Duration::from_secs(20);
    let client = AuthHttpClient::new("srv", &fake.mcp(), Some(options))
        .await
        .unwrap();
    let result = client
        .resolve(Pending::SignIn {
            challenge: challenge.to_string(),
        })
        .await;
    Run {
        fake,
        browser,
        store,
        result,
    }
}

fn s256(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(sha2::Sha256::digest(verifier.as_bytes()))
}

#[tokio::test]
async fn signs_in_with_discovery_in_spec_order_pkce_and_resource() {
    let setup = Setup {
        prm_path_based: false,
        openid_only: true,
        ..Setup::default()
    };
    let run = sign_in(
        setup,
        r#"Bearer scope="read write""#,
        Browser::new(true, true),
    )
    .await;
    run.result.unwrap();
    let paths = run.fake.paths();
    let at = |p: &str| {
        paths
            .iter()
            .position(|x| x == p)
            .unwrap_or_else(|| panic!("{p} not in {paths:?}"))
    };
    // No resource_metadata in the challenge: the path-based PRM first, then the root one.
    assert!(
        at("/.well-known/oauth-protected-resource/mcp")
            < at("/.well-known/oauth-protected-resource")
    );
    // RFC 8414 OAuth metadata before OpenID.
    assert!(
        at("/.well-known/oauth-authorization-server") < at("/.well-known/openid-configuration")
    );
    let register = &run.fake.requests("/register")[0];
    let registration: Value = serde_json::from_str(&register.body).unwrap();
    assert_eq!(registration["application_type"], "native");
    let authorize = &run.fake.requests("/authorize")[0].query;
    assert_eq!(authorize["code_challenge_method"], "S256");
    assert_eq!(authorize["resource"], run.fake.mcp());
    assert_eq!(authorize["scope"], "read write");
    assert_eq!(authorize["client_id"], "cid-1");
    assert!(
        authorize["redirect_uri"].starts_with("http://127.0.0.1:"),
        "{authorize:?}"
    );
    let token = run.fake.requests("/token")[0].form();
    assert_eq!(s256(&token["code_verifier"]), authorize["code_challenge"]);
    assert_eq!(token["code"], CODE);
    assert_eq!(token["resource"], run.fake.mcp());
    // The consent card showed the page that was opened, reviewed.
    let prompts = run.browser.prompts.lock().unwrap().clone();
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].review.host.as_deref(), Some("127.0.0.1"));
    assert_eq!(prompts[0].scopes, ["read", "write"]);
    assert_eq!(prompts[0].issuer.as_deref(), Some(run.fake.base.as_str()));
    let status = status(&run.store, "srv").await.unwrap();
    assert!(status.signed_in && status.refreshable, "{status:?}");
    assert_eq!(status.issuer.as_deref(), Some(run.fake.base.as_str()));
}

#[tokio::test]
async fn scope_comes_from_the_challenge_else_the_resource_metadata_else_none() {
    let with_prm = Setup {
        prm_path_based: true,
        prm_scopes: Some(vec!["prm:a"]),
        ..Setup::default()
    };
    let run = sign_in(
        with_prm.clone(),
        r#"Bearer scope="chal:x""#,
        Browser::new(true, true),
    )
    .await;
    run.result.unwrap();
    assert_eq!(run.fake.requests("/authorize")[0].query["scope"], "chal:x");
    let run = sign_in(with_prm, "Bearer", Browser::new(true, true)).await;
    run.result.unwrap();
    assert_eq!(run.fake.requests("/authorize")[0].query["scope"], "prm:a");
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
    assert!(!run.fake.requests("/authorize")[0]
        .query
        .contains_key("scope"));
}

#[tokio::test]
async fn the_redirect_issuer_is_checked_when_the_server_says_it_sends_one() {
    let iss = |redirect_iss| Setup {
        prm_path_based: true,
        iss_supported: true,
        redirect_iss,
        ..Setup::default()
    };
    let run = sign_in(iss(Some("")), "Bearer", Browser::new(true, true)).await;
    run.result.unwrap();
    for wrong in [Some("http://evil.example"), None] {
        let run = sign_in(iss(wrong), "Bearer", Browser::new(true, true)).await;
        assert!(
            matches!(run.result, Err(AuthError::BadResponse { .. })),
            "{wrong:?}: {:?}",
            run.result
        );
        assert!(
            run.fake.requests("/token").is_empty(),
            "{wrong:?}: the code was exchanged"
        );
        assert!(!status(&run.store, "srv").await.unwrap().signed_in);
    }
}

#[tokio::test]
async fn declined_denied_and_abandoned_sign_ins_say_so() {
    let setup = Setup {
        prm_path_based: true,
        ..Setup::default()
    };
    let run = sign_in(setup.clone(), "Bearer", Browser::new(false, true)).await;
    assert!(
        matches!(run.result, Err(AuthError::Declined { .. })),
        "{:?}",
        run.result
    );
    assert!(run.fake.requests("/authorize").is_empty());

    let run = sign_in(
        Setup {
            deny: true,
            ..setup.clone()
        },
        "Bearer",
        Browser::new(true, true),
    )
    .await;
    match run.result {
        Err(AuthError::Declined { reason, .. }) => {
            assert_eq!(
                reason.as_deref(),
                Some("the authorization server says: user said no")
            )
        }
        other => panic!("{other:?}"),
    }

    let fake = Fake::start(setup).await;
    let mut options = AuthOptions::new(Browser::new(true, false), TokenStore::memory());
    options.sign_in_timeout = Duration::from_millis(300);
    let client = AuthHttpClient::new("srv", &fake.mcp(), Some(options))
        .await
        .unwrap();
    let err = client
        .resolve(Pending::SignIn {
            challenge: "Bearer".into(),
        })
        .await
        .unwrap_err();
    assert!(matches!(err, AuthError::Timeout { .. }), "{err:?}");
    assert!(err.to_string().contains("browser"), "{err}");
}

#[tokio::test]
async fn step_up_asks_for_the_union_of_scopes_a_bounded_number_of_times() {
    let fake = Fake::start(Setup {
        prm_path_based: true,
        ..Setup::default()
    })
    .await;
    let store = TokenStore::memory();
    let options = AuthOptions::new(Browser::new(true, true), store.clone());
    let client = AuthHttpClient::new("srv", &fake.mcp(), Some(options))
        .await
        .unwrap();
    client
        .resolve(Pending::SignIn {
            challenge: r#"Bearer scope="a""#.into(),
        })
        .await
        .unwrap();
    // The fake MCP endpoint answers every POST with 403 insufficient_scope (scope="b").
    client.set_interactive();
    let ping = ClientJsonRpcMessage::request(
        ClientRequest::PingRequest(Default::default()),
        RequestId::Number(1),
    );
    let err = client
        .post_message(Arc::from(fake.mcp()), ping, None, None, HashMap::new())
        .await
        .map(|_| ())
        .unwrap_err();
    assert!(err.to_string().contains("step-up"), "{err}");
    let authorize = fake.requests("/authorize");
    assert_eq!(authorize.len(), 1 + MAX_STEP_UPS as usize);
    let second: Vec<&str> = authorize[1].query["scope"].split(' ').collect();
    assert!(second.contains(&"a") && second.contains(&"b"), "{second:?}");
    // The request and each retry carried the token (discovery's own unauthenticated GET of /mcp aside).
    let sent: Vec<_> = fake
        .requests("/mcp")
        .into_iter()
        .filter_map(|p| p.bearer)
        .collect();
    assert_eq!(sent, vec![TOKEN; 1 + MAX_STEP_UPS as usize]);
}

struct Asked {
    accept: bool,
    requests: Mutex<Vec<crate::question::InputRequest>>,
}

impl crate::broker::UserAgent for Asked {
    fn answer(
        &self,
        request: crate::question::InputRequest,
    ) -> BoxFuture<'_, crate::question::InputAnswer> {
        self.requests.lock().unwrap().push(request);
        let answer = if self.accept {
            crate::question::InputAnswer::Accept { content: None }
        } else {
            crate::question::InputAnswer::Decline
        };
        Box::pin(async move { answer })
    }
}

#[tokio::test]
async fn the_broker_shows_the_sign_in_as_a_url_consent_card() {
    use crate::broker::{Broker, DeclaredCapabilities};
    use crate::question::{InputKind, InputView};
    let page = "https://login.example.com/authorize?client_id=c&state=s";
    let prompt = || SignInPrompt {
        server: "notes".into(),
        issuer: Some("https://login.example.com".into()),
        scopes: vec!["read".into()],
        step_up: false,
        review: crate::elicitation::url_check::review(page),
    };
    for accept in [true, false] {
        let user = Arc::new(Asked {
            accept,
            requests: Mutex::default(),
        });
        let consent = BrokerConsent::new(Broker::new(DeclaredCapabilities::SERVED, user.clone()));
        assert_eq!(consent.consent(prompt()).await, accept);
        let asked = user.requests.lock().unwrap().clone();
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0].kind, InputKind::ElicitationUrl);
        assert_eq!(asked[0].server, "notes");
        match &asked[0].view {
            Some(InputView::Url {
                message, review, ..
            }) => {
                assert!(message.contains("notes") && message.contains("login.example.com"));
                assert_eq!(review.url, page);
            }
            other => panic!("{other:?}"),
        }
    }
    // A broker that may not ask about URLs declines without asking.
    let user = Arc::new(Asked {
        accept: true,
        requests: Mutex::default(),
    });
    let consent = BrokerConsent::new(Broker::new(DeclaredCapabilities::default(), user.clone()));
    assert!(!consent.consent(prompt()).await);
    assert!(user.requests.lock().unwrap().is_empty());
}

#[test]
fn a_server_entry_names_its_pre_registered_client() {
    let parse = |entry: Value| {
        let expand = |v: &str, _: &str| Ok(v.replace("${input:sec}", "s3cret-value"));
        parse_client(entry.as_object().unwrap(), &expand)
    };
    assert!(parse(serde_json::json!({"url": "https://x"}))
        .unwrap()
        .is_none());
    let client = parse(serde_json::json!({
        "oauth": {"clientId": "wharf-desktop", "clientSecret": "${input:sec}"}
    }))
    .unwrap()
    .unwrap();
    assert_eq!(client.client_id, "wharf-desktop");
    assert_eq!(
        client.client_secret.as_ref().map(Secret::expose),
        Some("s3cret-value")
    );
    assert!(!format!("{client:?}").contains("s3cret"));
    for bad in [
        serde_json::json!({"oauth": "id"}),
        serde_json::json!({"oauth": {}}),
        serde_json::json!({"oauth": {"clientId": 7}}),
        serde_json::json!({"oauth": {"clientId": "a", "clientSecret": []}}),
    ] {
        assert!(parse(bad.clone()).is_err(), "{bad}");
    }
}

#[tokio::test]
async fn an_unreachable_authorization_server_is_named_as_such() {
    // Port 9 on loopback: nothing listens there, the connection is refused at once.
    let run = sign_in(
        Setup {
            prm_path_based: true,
            authorization_server: Some("http://127.0.0.1:9"),
            ..Setup::default()
        },
        "Bearer",
        Browser::new(true, true),
    )
    .await;
    let err = run.result.unwrap_err();
    assert!(matches!(err, AuthError::Unreachable { .. }), "{err:?}");
    assert!(err.to_string().contains("127.0.0.1:9"), "{err}");
    assert!(run.browser.prompts.lock().unwrap().is_empty());
}

#[tokio::test]
async fn metadata_for_another_resource_is_refused_before_any_page() {
    let fake = Fake::start(Setup {
        prm_path_based: true,
        resource: Some("https://evil.example/mcp"),
        ..Setup::default()
    })
    .await;
    let browser = Browser::new(true, true);
    let client = AuthHttpClient::new(
        "srv",
        &fake.mcp(),
        Some(AuthOptions::new(browser.clone(), TokenStore::memory())),
    )
    .await
    .unwrap();
    let challenge = format!(
        r#"Bearer resource_metadata="{}/.well-known/oauth-protected-resource/mcp""#,
        fake.base
    );
    let err = client
        .resolve(Pending::SignIn { challenge })
        .await
        .unwrap_err();
    assert!(matches!(err, AuthError::InvalidMetadata { .. }), "{err:?}");
    assert!(err.to_string().contains("evil.example"), "{err}");
    assert!(fake.requests("/authorize").is_empty());
    assert!(fake.requests("/register").is_empty());
    assert!(browser.prompts.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_sign_in_outlives_the_call_that_started_it() {
    // `expiring`: /mcp answers 401 to anything but the refreshed token, so the call meets a challenge at once.
    let fake = Fake::start(Setup {
        prm_path_based: true,
        expiring: true,
        ..Setup::default()
    })
    .await;
    let browser = Arc::new(Browser {
        consent: true,
        open: true,
        delay: Duration::from_millis(500),
        prompts: Mutex::default(),
    });
    let store = TokenStore::memory();
    let client = AuthHttpClient::new(
        "srv",
        &fake.mcp(),
        Some(AuthOptions::new(browser.clone(), store.clone())),
    )
    .await
    .unwrap();
    client.set_interactive();
    let ping = ClientJsonRpcMessage::request(
        ClientRequest::PingRequest(Default::default()),
        RequestId::Number(1),
    );
    // The call gives up (its timeout) while the user is still in the browser.
    let call = client.post_message(Arc::from(fake.mcp()), ping, None, None, HashMap::new());
    assert!(tokio::time::timeout(Duration::from_millis(100), call)
        .await
        .is_err());
    assert!(!status(&store, "srv").await.unwrap().signed_in);
    // The sign-in finishes anyway: nothing awaits it, so its result is polled, with a deadline.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !status(&store, "srv").await.unwrap().signed_in {
        assert!(tokio::time::Instant::now() < deadline, "never signed in");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(fake.requests("/token").len(), 1);
}
