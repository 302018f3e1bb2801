//! The loopback listener the authorization server's redirect comes back to (RFC 8252 §7.3): `127.0.0.1` on a port
//! of its own, path `/callback`. It answers each request with a small page and waits, up to a deadline, for the one
//! that carries the `state` of this sign-in; requests with another state (a stale tab, a page probing the port) get
//! an error page and do not end the wait.
//!
//! One GET request head is all it reads, so a minimal HTTP/1.1 reading is enough here; no server framework.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use url::Url;

use crate::secrets::Secret;

/// The longest request head read: a redirect carries a code, a state and an issuer, well under this.
const MAX_HEAD_BYTES: usize = 16 * 1024;
/// How long one connection may take to send its head, so a silent one cannot hold the listener.
const HEAD_TIMEOUT: Duration = Duration::from_secs(5);

/// What came back on the redirect.
#[derive(Debug)]
pub enum Redirect {
    /// `code` (kept as a [`Secret`]: it is worth a token until used), and `iss` when the server sent one.
    Code { code: Secret, iss: Option<String> },
    /// The authorization server said no (`error=access_denied` when the user refused), with its description.
    Error {
        error: String,
        description: Option<String>,
    },
}

/// Why no redirect was taken.
#[derive(Debug, PartialEq, Eq)]
pub enum WaitError {
    Timeout,
    Io(String),
}

pub struct Listener {
    listener: TcpListener,
    port: u16,
}

impl Listener {
    /// Listens on 127.0.0.1, on `port` when given (a step-up must come back to the redirect URI the client
    /// registered), else on a port the system picks.
    pub async fn bind(port: Option<u16>) -> std::io::Result<Listener> {
        let listener =
            TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port.unwrap_or(0)))).await?;
        let port = listener.local_addr()?.port();
        Ok(Listener { listener, port })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    /// Waits for the redirect that carries `state`, at most `timeout`.
    pub async fn wait(&self, state: &str, timeout: Duration) -> Result<Redirect, WaitError> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let accepted = tokio::time::timeout_at(deadline, self.listener.accept()).await;
            let (stream, _) = match accepted {
                Err(_) => return Err(WaitError::Timeout),
                Ok(Err(e)) => return Err(WaitError::Io(e.to_string())),
                Ok(Ok(s)) => s,
            };
            if let Some(redirect) = serve(stream, state).await {
                return Ok(redirect);
            }
        }
    }
}

/// Answers one connection; the redirect when it is the one awaited.
async fn serve(mut stream: TcpStream, state: &str) -> Option<Redirect> {
    let head = match tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut stream)).await {
        Ok(Some(head)) => head,
        _ => return None,
    };
    let (status, page, outcome) = match parse(&head, state) {
        Parsed::NotCallback => ("404 Not Found", PAGE_NOT_FOUND, None),
        Parsed::WrongState => ("400 Bad Request", PAGE_STALE, None),
        Parsed::Done(Redirect::Error { error, description }) => (
            "200 OK",
            PAGE_REFUSED,
            Some(Redirect::Error { error, description }),
        ),
        Parsed::Done(r) => ("200 OK", PAGE_DONE, Some(r)),
    };
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nConnection: close\r\n\r\n{page}",
        page.len()
    );
    // The page is a courtesy: the redirect counts even if the browser went away before reading it.
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
    outcome
}

async fn read_head(stream: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        if buf.len() > MAX_HEAD_BYTES {
            return None;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    String::from_utf8(buf).ok()
}

enum Parsed {
    NotCallback,
    WrongState,
    Done(Redirect),
}

fn parse(head: &str, state: &str) -> Parsed {
    let mut words = head.lines().next().unwrap_or_default().split(' ');
    let (Some("GET"), Some(target)) = (words.next(), words.next()) else {
        return Parsed::NotCallback;
    };
    let Ok(url) = Url::parse("http://127.0.0.1").and_then(|base| base.join(target)) else {
        return Parsed::NotCallback;
    };
    if url.path() != "/callback" {
        return Parsed::NotCallback;
    }
    let get = |key: &str| {
        url.query_pairs()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.into_owned())
    };
    // Checked in constant time would not matter here: the state is single-use and the port is local.
    if get("state").as_deref() != Some(state) {
        return Parsed::WrongState;
    }
    if let Some(error) = get("error") {
        return Parsed::Done(Redirect::Error {
            error,
            description: get("error_description"),
        });
    }
    match get("code") {
        Some(code) => Parsed::Done(Redirect::Code {
            code: Secret::new(code),
            iss: get("iss"),
        }),
        None => Parsed::Done(Redirect::Error {
            error: "invalid_request".into(),
            description: Some("the redirect carried no authorization code".into()),
        }),
    }
}

const PAGE_DONE: &str = "<!doctype html><meta charset=utf-8><title>Wharf: signed in</title>\
<body style=\"font-family:system-ui;margin:3em\"><h1>Signed in</h1>\
<p>You can close this tab and return to Wharf.</p></body>";
const PAGE_REFUSED: &str = "<!doctype html><meta charset=utf-8><title>Wharf: not signed in</title>\
<body style=\"font-family:system-ui;margin:3em\"><h1>Not signed in</h1>\
<p>The sign-in was refused. Return to Wharf for details.</p></body>";
const PAGE_STALE: &str = "<!doctype html><meta charset=utf-8><title>Wharf</title>\
<body style=\"font-family:system-ui;margin:3em\"><h1>Unknown sign-in</h1>\
<p>This page does not belong to the sign-in Wharf is waiting for. Return to Wharf and start again.</p></body>";
const PAGE_NOT_FOUND: &str = "<!doctype html><title>Not found</title>";

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    async fn get(port: u16, target: &str) -> String {
        let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        s.write_all(format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
            .await
            .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        out
    }

    #[tokio::test]
    async fn takes_only_the_redirect_with_its_state() {
        let l = Listener::bind(None).await.unwrap();
        assert!(l.redirect_uri().starts_with("http://127.0.0.1:"));
        let port = l.port();
        let client = tokio::spawn(async move {
            let other = get(port, "/favicon.ico").await;
            let stale = get(port, "/callback?code=c0&state=old").await;
            let done = get(port, "/callback?code=c%2B1&state=s1&iss=https%3A%2F%2Fas").await;
            (other, stale, done)
        });
        let r = l.wait("s1", Duration::from_secs(20)).await.unwrap();
        let (other, stale, done) = client.await.unwrap();
        assert!(other.starts_with("HTTP/1.1 404"), "{other}");
        assert!(stale.starts_with("HTTP/1.1 400"), "{stale}");
        assert!(done.contains("return to Wharf"), "{done}");
        match r {
            Redirect::Code { code, iss } => {
                assert_eq!(code.expose(), "c+1");
                assert_eq!(iss.as_deref(), Some("https://as"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn reports_a_refusal_and_times_out() {
        let l = Listener::bind(None).await.unwrap();
        let port = l.port();
        let client = tokio::spawn(async move {
            get(
                port,
                "/callback?error=access_denied&error_description=no&state=s",
            )
            .await
        });
        match l.wait("s", Duration::from_secs(20)).await.unwrap() {
            Redirect::Error { error, description } => {
                assert_eq!(error, "access_denied");
                assert_eq!(description.as_deref(), Some("no"));
            }
            other => panic!("{other:?}"),
        }
        assert!(client.await.unwrap().contains("Not signed in"));
        let quiet = Listener::bind(None).await.unwrap();
        assert_eq!(
            quiet
                .wait("s", Duration::from_millis(50))
                .await
                .unwrap_err(),
            WaitError::Timeout
        );
    }
}
