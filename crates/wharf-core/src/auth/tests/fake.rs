//! The fake protected resource and authorization server of the sign-in tests: one tokio listener on loopback
//! serving both, recording every request; its behaviour set by [`Setup`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use url::Url;

#[derive(Debug, Clone)]
pub(super) struct Req {
    pub path: String,
    pub query: HashMap<String, String>,
    pub bearer: Option<String>,
    pub authorization: Option<String>,
    pub body: String,
}

impl Req {
    pub fn form(&self) -> HashMap<String, String> {
        url::form_urlencoded::parse(self.body.as_bytes())
            .into_owned()
            .collect()
    }
}

/// How the fake authorization server behaves.
#[derive(Clone, Default)]
pub(super) struct Setup {
    /// PRM served at the path-based well-known URL (else only at the root one).
    pub prm_path_based: bool,
    pub prm_scopes: Option<Vec<&'static str>>,
    /// AS metadata served at the OpenID URL only (else at the OAuth one).
    pub openid_only: bool,
    pub iss_supported: bool,
    /// What the redirect carries as `iss`: None omits it, Some("") the right issuer, else that value.
    pub redirect_iss: Option<&'static str>,
    /// The redirect says access_denied instead of giving a code.
    pub deny: bool,
    /// The first token is already expired; a refresh gives [`REFRESHED`], which `/mcp` accepts (it refuses all
    /// else with 401). Without it `/mcp` answers every request 403 insufficient_scope.
    pub expiring: bool,
    /// Registration gives a client secret, to be sent with client_secret_basic.
    pub confidential: bool,
    /// The authorization server the resource metadata names, when not this fake itself.
    pub authorization_server: Option<&'static str>,
    /// The `resource` the metadata names, when not this fake's `/mcp`.
    pub resource: Option<&'static str>,
}

pub(super) const CLIENT_SECRET: &str = "client-SECRET-registered";

pub(super) const REFRESHED: &str = "tok-SECRET-refreshed";

pub(super) struct Fake {
    pub base: String,
    log: Arc<Mutex<Vec<Req>>>,
}

impl Fake {
    pub async fn start(setup: Setup) -> Fake {
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

    pub fn mcp(&self) -> String {
        format!("{}/mcp", self.base)
    }

    pub fn requests(&self, path: &str) -> Vec<Req> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.path == path)
            .cloned()
            .collect()
    }

    pub fn paths(&self) -> Vec<String> {
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
        authorization: headers.get("authorization").cloned(),
        body: String::from_utf8_lossy(&body).to_string(),
    })
}

pub(super) const TOKEN: &str = "tok-SECRET-access";
pub(super) const CODE: &str = "code-SECRET-grant";

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
        let server = setup.authorization_server.unwrap_or(base);
        let resource = setup
            .resource
            .map(str::to_string)
            .unwrap_or_else(|| format!("{base}/mcp"));
        let mut v = json!({"resource": resource, "authorization_servers": [server]});
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
                "token_endpoint_auth_methods_supported":
                    [if setup.confidential { "client_secret_basic" } else { "none" }],
            });
            if setup.iss_supported {
                v["authorization_response_iss_parameter_supported"] = json!(true);
            }
            json_ok(v)
        }
        "/register" => (
            "201 Created",
            vec![("Content-Type".into(), "application/json".into())],
            if setup.confidential {
                json!({"client_id": "cid-1", "client_secret": CLIENT_SECRET, "redirect_uris": []})
            } else {
                json!({"client_id": "cid-1", "redirect_uris": []})
            }
            .to_string(),
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
        "/token" if req.form().get("grant_type").map(String::as_str) == Some("refresh_token") => {
            json_ok(json!({
                "access_token": REFRESHED, "token_type": "Bearer", "expires_in": 3600,
                "refresh_token": "refresh-SECRET-2",
            }))
        }
        "/token" => json_ok(json!({
            "access_token": TOKEN, "token_type": "Bearer",
            "expires_in": if setup.expiring { 0 } else { 3600 },
            "refresh_token": "refresh-SECRET",
        })),
        "/mcp" if setup.expiring && req.bearer.as_deref() == Some(REFRESHED) => json_ok(json!({
            "jsonrpc": "2.0", "id": 1, "result": {},
        })),
        "/mcp" if setup.expiring => (
            "401 Unauthorized",
            vec![("WWW-Authenticate".into(), "Bearer".into())],
            String::new(),
        ),
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
