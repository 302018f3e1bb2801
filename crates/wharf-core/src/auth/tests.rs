#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Sign-in against a fake protected resource and authorization server on loopback (one tokio listener serving
//! both, recording every request), with a "browser" that follows the authorization redirect.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use futures::future::BoxFuture;
use serde_json::{json, Value};
use sha2::Digest as _;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use url::Url;

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, RequestId};
use rmcp::transport::streamable_http_client::StreamableHttpClient;

use super::client::{AuthHttpClient, Pending};
use super::*;
use crate::secrets::Secret;

#[derive(Debug, Clone)]
struct Req {
    path: String,
    query: HashMap<String, String>,
    bearer: Option<String>,
    body: String,
}

impl Req {
    fn form(&self) -> HashMap<String, String> {
        url::form_urlencoded::parse(self.body.as_bytes())
            .into_owned()
            .collect()
    }
}

/// How the fake authorization server behaves.
#[derive(Clone, Default)]
struct Setup {
    /// PRM served at the path-based well-known URL (else only at the root one).
    prm_path_based: bool,
    prm_scopes: Option<Vec<&'static str>>,
    /// AS metadata served at the OpenID URL only (else at the OAuth one).
    openid_only: bool,
    iss_supported: bool,
    /// What the redirect carries as `iss`: None omits it, Some("") the right issuer, else that value.
    redirect_iss: Option<&'static str>,
    /// The redirect says access_denied instead of giving a code.
    deny: bool,
}

struct Fake {
    base: String,
    log: Arc<Mutex<Vec<Req>>>,
}

impl Fake {
    async fn start(setup: Setup) -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let log = Arc::new(Mutex::new(Vec::new()));
        let (b, l) = (base.clone(), log.clone());
        tokio::spawn(async move {
            loop {
                let (mut s, _) = listener.accept().await.unwrap();
                let (b, l, setup) = (b.clone(), l.clone(), setup.clone());
                tokio::spawn(async move {
                    let Some(req) = read(&mut s).await else {
                        return;
                    };
                    l.lock().unwrap().push(req.clone());
                    let (status, headers, body) = answer(&b, &setup, &req);
                    let mut out = format!(
                        "HTTP/1.1 {status}\r\nConnection: close\r\nContent-Length: {}\r\n",
                        body.len()
                    );
                    for (k, v) in headers {
                        out.push_str(&format!("{k}: {v}\r\n"));
                    }
                    out.push_str("\r\n");
                    out.push_str(&body);
                    let _ = s.write_all(out.as_bytes()).await;
                });
            }
        });
        Fake { base, log }
    }

    fn mcp(&self) -> String {
        format!("{}/mcp", self.base)
    }

    fn requests(&self, path: &str) -> Vec<Req> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.path == path)
            .cloned()
            .collect()
    }

    fn paths(&self) -> Vec<String> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .map(|r| r.path.clone())
            .collect()
    }
}

async fn read(s: &mut tokio::net::TcpStream) -> Option<Req> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.lines();
    let mut first = lines.next()?.split(' ');
    let (_method, target) = (first.next()?, first.next()?.to_string());
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < len {
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    let url = Url::parse("http://x").unwrap().join(&target).ok()?;
    Some(Req {
        path: url.path().to_string(),
        query: url.query_pairs().into_owned().collect(),
        bearer: headers
            .get("authorization")
            .and_then(|h| h.strip_prefix("Bearer "))
            .map(str::to_string),
        body: String::from_utf8_lossy(&body).to_string(),
    })
}

const TOKEN: &str = "tok-SECRET-access";
const CODE: &str = "code-SECRET-grant";

fn answer(base: &str, setup: &Setup, req: &Req) -> (&'static str, Vec<(String, String)>, String) {
    let json_ok = |v: Value| {
        (
            "200 OK",
            vec![("Content-Type".into(), "application/json".into())],
            v.to_string(),
        )
    };
    let not_found = ("404 Not Found", vec![], String::new());
    let prm = || {
        let mut v = json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]});
        if let Some(s) = &setup.prm_scopes {
            v["scopes_supported"] = json!(s);
        }
        json_ok(v)
    };
    match req.path.as_str() {
        "/.well-known/oauth-protected-resource/mcp" if setup.prm_path_based => prm(),
        "/.well-known/oauth-protected-resource" if !setup.prm_path_based => prm(),
        "/.well-known/oauth-authorization-server" if setup.openid_only => not_found,
        "/.well-known/oauth-authorization-server" | "/.well-known/openid-configuration" => {
            let mut v = json!({
                "issuer": base,
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "registration_endpoint": format!("{base}/register"),
                "response_types_supported": ["code"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
            });
            if setup.iss_supported {
                v["authorization_response_iss_parameter_supported"] = json!(true);
            }
            json_ok(v)
        }
        "/register" => (
            "201 Created",
            vec![("Content-Type".into(), "application/json".into())],
            json!({"client_id": "cid-1", "redirect_uris": []}).to_string(),
        ),
        "/authorize" => {
            let mut to = Url::parse(&req.query["redirect_uri"]).unwrap();
            {
                let mut q = to.query_pairs_mut();
                if setup.deny {
                    q.append_pair("error", "access_denied")
                        .append_pair("error_description", "user said no");
                } else {
                    q.append_pair("code", CODE);
                }
                q.append_pair("state", &req.query["state"]);
                match setup.redirect_iss {
                    Some("") => {
                        q.append_pair("iss", base);
                    }
                    Some(other) => {
                        q.append_pair("iss", other);
                    }
                    None => {}
                }
            }
            (
                "302 Found",
                vec![("Location".into(), to.to_string())],
                String::new(),
            )
        }
        "/token" => json_ok(json!({
            "access_token": TOKEN, "token_type": "Bearer", "expires_in": 3600,
            "refresh_token": "refresh-SECRET",
        })),
        "/mcp" => (
            "403 Forbidden",
            vec![(
                "WWW-Authenticate".into(),
                r#"Bearer error="insufficient_scope", scope="b""#.into(),
            )],
            String::new(),
        ),
        _ => not_found,
    }
}

/// Consents (or not) and follows the redirect as a browser would, recording what it was shown.
struct Browser {
    consent: bool,
    open: bool,
    prompts: Mutex<Vec<SignInPrompt>>,
}

impl Browser {
    fn new(consent: bool, open: bool) -> Arc<Browser> {
        Arc::new(Browser {
            consent,
            open,
            prompts: Mutex::default(),
        })
    }
}

impl SignInAgent for Browser {
    fn consent(&self, prompt: SignInPrompt) -> BoxFuture<'_, bool> {
        self.prompts.lock().unwrap().push(prompt);
        Box::pin(async move { self.consent })
    }

    fn open(
        &self,
        review: crate::elicitation::url_check::UrlReview,
    ) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move {
            if self.open {
                let url = review.normalized.unwrap();
                tokio::spawn(async move { reqwest::get(url).await.map(|_| ()) });
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
            assert_eq!(reason.as_deref(), Some("user said no"))
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
