//! The HTTP client of a Streamable HTTP connection: reqwest's until the server first answers `401`. Without
//! [`AuthOptions`] the challenge is only left for the connection to report. With them, from then on it is rmcp's
//! `AuthClient` (the bearer token on every request, one silent refresh when the server rejects it; made only then,
//! as it costs about as much as a reqwest client), and the challenge is answered here:
//!
//! - while the connection is being set up, the request fails at once and the connection signs in outside its probe
//!   timeout ([`AuthHttpClient::take_pending`], [`AuthHttpClient::resolve`]), then connects again;
//! - once connected, the request waits for the sign-in (`401`) or the step-up (`403 insufficient_scope`, at most
//!   [`MAX_STEP_UPS`] for one request) and is sent again. Concurrent requests that meet the same challenge wait for
//!   one sign-in.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::{AuthClient, AuthError as RmcpAuthError};
use rmcp::transport::streamable_http_client::SseError;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::Sse;

use super::store::ServerCredentials;
use super::{flow, AuthError, AuthOptions, MAX_STEP_UPS};
use crate::events::SignInState;
use screening::ScreeningClient;

type HttpError = StreamableHttpError<reqwest::Error>;

/// A challenge met while connecting, to answer before connecting again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pending {
    SignIn { challenge: String },
    StepUp { scope: String },
}

/// The HTTP client of every Streamable HTTP connection, made as rmcp makes its own default one, which Wharf replaced
/// to put sign-in underneath:
/// - no idle connections kept: a connection reused before the previous answer's body was read to the end stalls
///   for Linux's 40 ms delayed ACK (measured: 22 calls/s instead of 1,100 against the python server);
/// - redirects followed only within the server's origin and only when they keep the method and body (307, 308), so
///   a request (and a token it carries) never goes to another host.
fn plain_http_client(server: &str) -> Result<reqwest::Client, AuthError> {
    const MAX_REDIRECTS: usize = 10;
    let policy = reqwest::redirect::Policy::custom(|attempt| {
        let keeps_body = matches!(
            attempt.status(),
            reqwest::StatusCode::TEMPORARY_REDIRECT | reqwest::StatusCode::PERMANENT_REDIRECT
        );
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if !keeps_body || !same_origin {
            attempt.stop()
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else {
            attempt.follow()
        }
    });
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .redirect(policy)
        .build()
        .map_err(|e| AuthError::Stopped {
            server: server.to_string(),
            reason: format!("cannot make the HTTP client: {e}"),
        })
}

#[derive(Clone)]
pub struct AuthHttpClient {
    plain: ScreeningClient,
    auth: Arc<tokio::sync::OnceCell<AuthClient<ScreeningClient>>>,
    shared: Arc<Shared>,
}

struct Shared {
    server: String,
    url: String,
    options: Option<AuthOptions>,
    creds: Option<ServerCredentials>,
    interactive: AtomicBool,
    pending: Mutex<Option<Pending>>,
    /// Held for a whole sign-in; holds the port of the redirect URI the client registered.
    signing_in: tokio::sync::Mutex<Option<u16>>,
    /// Bumped by every completed sign-in, so a request that failed before it just tries again.
    generation: AtomicU64,
    /// Whether the sign-in kept in the store is still to be tried (once, before any browser).
    resumable: AtomicBool,
}

impl AuthHttpClient {
    pub async fn new(
        server: &str,
        url: &str,
        options: Option<AuthOptions>,
    ) -> Result<Self, AuthError> {
        let creds = options
            .as_ref()
            .map(|o| ServerCredentials::new(server, url, o.store.clone()));
        Ok(AuthHttpClient {
            plain: ScreeningClient::new(plain_http_client(server)?),
            auth: Arc::default(),
            shared: Arc::new(Shared {
                server: server.to_string(),
                url: url.to_string(),
                options,
                creds,
                interactive: AtomicBool::new(false),
                pending: Mutex::new(None),
                signing_in: tokio::sync::Mutex::new(None),
                generation: AtomicU64::new(0),
                resumable: AtomicBool::new(true),
            }),
        })
    }

    /// From now on challenges are answered inline (the connection is up).
    pub fn set_interactive(&self) {
        self.shared.interactive.store(true, Ordering::SeqCst);
    }

    /// The challenge that made the last request fail while connecting, if any.
    pub fn take_pending(&self) -> Option<Pending> {
        self.shared.pending.lock().ok().and_then(|mut p| p.take())
    }

    /// Answers a challenge met while connecting.
    pub async fn resolve(&self, pending: Pending) -> Result<(), AuthError> {
        let generation = self.shared.generation.load(Ordering::SeqCst);
        match pending {
            Pending::SignIn { challenge } => self.sign_in(&challenge, generation).await.map(drop),
            Pending::StepUp { scope } => self.step_up(&scope, generation).await,
        }
    }

    /// What a sign-in needs; the authorized client is made on the first call.
    async fn options(
        &self,
    ) -> Result<
        (
            &AuthOptions,
            &ServerCredentials,
            &AuthClient<ScreeningClient>,
        ),
        AuthError,
    > {
        let s = &self.shared;
        let (Some(options), Some(creds)) = (&s.options, &s.creds) else {
            return Err(AuthError::NotAvailable {
                server: s.server.clone(),
            });
        };
        let client = self
            .auth
            .get_or_try_init(|| async {
                // The keyring is read at the first sign-in (a kept one is resumed then), not here.
                let manager = flow::manager(&s.server, &s.url, creds).await?;
                Ok::<_, AuthError>(AuthClient::new(self.plain.clone(), manager))
            })
            .await?;
        Ok((options, creds, client))
    }

    /// The kept sign-in, when there is one not tried yet: no user involved, so it is tried even while connecting.
    /// True when it was taken up (or another request signed in meanwhile): the request may be sent again.
    async fn resume(&self, seen: u64) -> Result<bool, AuthError> {
        let (options, creds, client) = self.options().await?;
        let _signing_in = self.shared.signing_in.lock().await;
        let s = &self.shared;
        if s.generation.load(Ordering::SeqCst) != seen {
            return Ok(true);
        }
        if !s.resumable.swap(false, Ordering::SeqCst) {
            return Ok(false);
        }
        let pre = options.preregistered.get(&s.server);
        let Some(manager) = flow::resume(&s.server, &s.url, creds, pre).await? else {
            return Ok(false);
        };
        *client.auth_manager.lock().await = manager;
        s.generation.fetch_add(1, Ordering::SeqCst);
        tracing::info!(server = %s.server, "kept sign-in resumed");
        Ok(true)
    }

    /// The kept sign-in when there is one not tried yet, else the browser. True when the browser was used.
    async fn sign_in(&self, challenge: &str, seen: u64) -> Result<bool, AuthError> {
        if self.resume(seen).await? {
            return Ok(false);
        }
        let (options, creds, client) = self.options().await?;
        let mut port = self.shared.signing_in.lock().await;
        let s = &self.shared;
        if s.generation.load(Ordering::SeqCst) != seen {
            return Ok(false);
        }
        let tell = |state, issuer, error| {
            let event = super::sign_in_event(&s.server, state, issuer, false, error);
            options.events.emit(event);
        };
        tell(SignInState::Started, None, None);
        let (manager, used) =
            match flow::sign_in(&s.server, &s.url, options, creds, challenge, *port).await {
                Ok(done) => done,
                Err(e) => {
                    tell(SignInState::Failed, None, Some(&e));
                    return Err(e);
                }
            };
        *client.auth_manager.lock().await = manager;
        *port = Some(used);
        s.generation.fetch_add(1, Ordering::SeqCst);
        tracing::info!(server = %s.server, "signed in");
        tell(SignInState::SignedIn, creds.issuer().await, None);
        Ok(true)
    }

    async fn step_up(&self, scope: &str, seen: u64) -> Result<(), AuthError> {
        let (options, creds, client) = self.options().await?;
        let port = self.shared.signing_in.lock().await;
        if self.shared.generation.load(Ordering::SeqCst) != seen {
            return Ok(());
        }
        let server = &self.shared.server;
        let issuer = creds.issuer().await;
        let tell = |state, error| {
            let event = super::sign_in_event(server, state, issuer.clone(), true, error);
            options.events.emit(event);
        };
        tell(SignInState::Started, None);
        if let Err(e) = flow::step_up(server, options, &client.auth_manager, scope, *port).await {
            tell(SignInState::Failed, Some(&e));
            return Err(e);
        }
        self.shared.generation.fetch_add(1, Ordering::SeqCst);
        tracing::info!(server = %server, "signed in with more scopes");
        tell(SignInState::SignedIn, None);
        Ok(())
    }

    /// Runs `call`, answering the challenges it meets (see the module comment).
    async fn react<T, F, Fut>(&self, call: F) -> Result<T, HttpError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, HttpError>>,
    {
        let mut signed_in = false;
        let mut step_ups = 0;
        loop {
            let seen = self.shared.generation.load(Ordering::SeqCst);
            let err = match call().await {
                Ok(v) => {
                    if step_ups > 0 {
                        if let Some(a) = self.auth.get() {
                            a.auth_manager
                                .lock()
                                .await
                                .reset_scope_upgrade_attempts()
                                .await;
                        }
                    }
                    return Ok(v);
                }
                Err(e) => e,
            };
            let pending = match &err {
                StreamableHttpError::AuthRequired(e) if !signed_in => Pending::SignIn {
                    challenge: e.www_authenticate_header.clone(),
                },
                StreamableHttpError::InsufficientScope(e) if step_ups < MAX_STEP_UPS => {
                    match &e.required_scope {
                        Some(scope) => Pending::StepUp {
                            scope: scope.clone(),
                        },
                        None => return Err(err),
                    }
                }
                StreamableHttpError::InsufficientScope(_) if self.shared.options.is_some() => {
                    let why = AuthError::StepUpLimit {
                        server: self.shared.server.clone(),
                        attempts: step_ups,
                    };
                    tracing::warn!(server = %self.shared.server, "{why}");
                    return Err(StreamableHttpError::Auth(
                        RmcpAuthError::AuthorizationFailed(why.to_string()),
                    ));
                }
                _ => return Err(err),
            };
            if !self.shared.interactive.load(Ordering::SeqCst) {
                // A kept sign-in is taken up at once (no user to wait for); only the browser waits for the
                // connection to step out of its probe timeout.
                let resumed = match &pending {
                    Pending::SignIn { .. } if self.shared.options.is_some() => {
                        self.resume(seen).await.unwrap_or(false)
                    }
                    _ => false,
                };
                if resumed {
                    continue;
                }
                if let Ok(mut p) = self.shared.pending.lock() {
                    *p = Some(pending);
                }
                return Err(err);
            }
            if matches!(pending, Pending::StepUp { .. }) {
                step_ups += 1;
            }
            // Its own task: a call that times out or is cancelled while the user is in the browser drops this
            // future, but the sign-in goes on and the next call has its token.
            let this = self.clone();
            let answered = tokio::spawn(async move {
                match pending {
                    Pending::SignIn { challenge } => this.sign_in(&challenge, seen).await,
                    Pending::StepUp { scope } => this.step_up(&scope, seen).await.map(|()| false),
                }
            })
            .await
            .unwrap_or_else(|e| {
                Err(AuthError::Stopped {
                    server: self.shared.server.clone(),
                    reason: e.to_string(),
                })
            })
            .map(|browser| signed_in |= browser);
            if let Err(why) = answered {
                tracing::warn!(server = %self.shared.server, "{why}");
                return Err(StreamableHttpError::Auth(
                    RmcpAuthError::AuthorizationFailed(why.to_string()),
                ));
            }
        }
    }
}

/// One call through the authorized client once there is one, else the plain one.
macro_rules! dispatch {
    ($client:expr, $method:ident($($arg:expr),*)) => {
        match $client.auth.get() {
            Some(c) => c.$method($($arg),*).await,
            None => $client.plain.$method($($arg),*).await,
        }
    };
}

impl StreamableHttpClient for AuthHttpClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.react(|| {
            let (uri, message, session_id, auth_header, custom_headers) = (
                uri.clone(),
                message.clone(),
                session_id.clone(),
                auth_header.clone(),
                custom_headers.clone(),
            );
            async move {
                dispatch!(
                    self,
                    post_message(uri, message, session_id, auth_header, custom_headers)
                )
            }
        })
        .await
        .map(screen_post)
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.react(|| {
            let (uri, message, session_id, auth_header, custom_headers) = (
                uri.clone(),
                message.clone(),
                session_id.clone(),
                auth_header.clone(),
                custom_headers.clone(),
            );
            async move {
                dispatch!(
                    self,
                    post_message_with_response_limits(
                        uri,
                        message,
                        session_id,
                        auth_header,
                        custom_headers,
                        limits
                    )
                )
            }
        })
        .await
        .map(screen_post)
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        // Ending a session is no reason to open a browser: no challenge is answered here.
        dispatch!(
            self,
            delete_session(uri, session_id, auth_header, custom_headers)
        )
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        dispatch!(
            self,
            get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
        )
        .map(screen_stream)
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        // A stream the server refuses is not a call the user waits on; the POSTs meet the same challenge.
        dispatch!(
            self,
            get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size
            )
        )
        .map(screen_stream)
    }
}

/// Each event of a server's stream passes `crate::raw_message::screen` before rmcp reads it, as every line of a
/// stdio server does: the requests and input-required results Wharf must see as the server wrote them.
fn screen_stream(
    stream: BoxStream<'static, Result<Sse, SseError>>,
) -> BoxStream<'static, Result<Sse, SseError>> {
    use futures::StreamExt;
    stream
        .map(|event| {
            event.map(|mut sse| {
                if let Some(data) = sse
                    .data
                    .as_deref()
                    .and_then(crate::raw_message::screen_sse_data)
                {
                    sse.data = Some(data);
                }
                sse
            })
        })
        .boxed()
}

/// A JSON answer was screened as it was read (see `screening`); a stream is screened event by event.
fn screen_post(response: StreamableHttpPostResponse) -> StreamableHttpPostResponse {
    match response {
        StreamableHttpPostResponse::Sse(stream, session) => {
            StreamableHttpPostResponse::Sse(screen_stream(stream), session)
        }
        other => other,
    }
}

mod screening;
