//! Sign-in to Streamable HTTP servers that answer `401` (MCP authorization: OAuth 2.1 with PKCE).
//!
//! The protocol work is rmcp's `auth` module (built on the `oauth2` crate), which already does what the spec and the
//! conformance suite ask of a client: Protected Resource Metadata discovery (the challenge's `resource_metadata`,
//! then path-based, then root), authorization server metadata (RFC 8414 and OpenID, path insertion order), client
//! identification (pre-registered, then Client ID Metadata Document, then Dynamic Client Registration with
//! `application_type`), PKCE S256, RFC 8707 `resource`, scope selection and the union on step-up, the RFC 9207 `iss`
//! check, issuer-bound stored credentials and refresh. Wharf adds what is the host's business:
//!
//! - [`client::AuthHttpClient`]: the HTTP client of an authorized connection, which reacts to `401` and to `403
//!   insufficient_scope` by signing in (or stepping up, a bounded number of times) and retrying the request;
//! - the browser step through a [`SignInAgent`]: a consent card showing the reviewed URL (the same review as URL
//!   elicitation), then the hardened system-browser opening, and a loopback listener for the redirect
//!   ([`callback`]);
//! - the tokens in the OS keyring, per server and issuer ([`store`]), with [`sign_out`] and [`status`];
//! - errors a user can act on ([`AuthError`]). No token, code or secret reaches a log, an event or an error.

pub mod callback;
pub mod client;
mod flow;
pub mod store;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde::Serialize;

use crate::broker::Broker;
use crate::elicitation::url_check;
use crate::events::{EventSink, HostEvent, SignInState};
use crate::question::url::{UrlPhase, UrlReview};
use crate::question::{InputAnswer, InputKind, InputRequest, InputView};
pub use store::{sign_out, status, SignInStatus, TokenStore};

/// How long the user has to finish signing in in the browser before Wharf stops waiting.
pub const DEFAULT_SIGN_IN_TIMEOUT: Duration = Duration::from_secs(300);

/// How many times one request may re-authorize for more scopes after `403 insufficient_scope`. With the first
/// sign-in that makes at most three authorization requests for a server that never accepts (the suite's bound).
pub const MAX_STEP_UPS: u32 = 2;

/// Log directives every Wharf subscriber appends to the user's `WHARF_LOG`: rmcp's auth module logs the
/// authorization code at debug level (and token responses may follow), so below info it is never shown, whatever
/// level the rest of the log is at. Each is a `tracing_subscriber::EnvFilter` directive.
pub const LOG_CAPS: &[&str] = &["rmcp::transport::auth=info", "oauth2=info"];

/// Why a sign-in did not happen. Each message says what went wrong in words a user can act on; none holds a token,
/// an authorization code or a client secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error("{server} needs sign-in, but this command cannot sign in (no browser step available)")]
    NotAvailable { server: String },
    #[error("the authorization server of {server} could not be reached: {reason}")]
    Unreachable { server: String, reason: String },
    #[error("the authorization metadata of {server} is invalid: {reason}")]
    InvalidMetadata { server: String, reason: String },
    #[error("sign-in to {server} was declined{}", detail(.reason))]
    Declined {
        server: String,
        reason: Option<String>,
    },
    #[error(
        "sign-in to {server} was not finished within {} s (was the browser window closed?)",
        .waited.as_secs()
    )]
    Timeout { server: String, waited: Duration },
    #[error("the sign-in page for {server} could not be opened: {reason}")]
    Browser { server: String, reason: String },
    #[error("could not listen for the sign-in redirect on 127.0.0.1: {0}")]
    Listener(String),
    #[error("the sign-in response for {server} was refused: {reason}")]
    BadResponse { server: String, reason: String },
    #[error("the authorization server of {server} refused: {reason}")]
    Rejected { server: String, reason: String },
    #[error("{server} still answers 'insufficient scope' after {attempts} step-up sign-ins")]
    StepUpLimit { server: String, attempts: u32 },
    #[error("the sign-in to {server} stopped unexpectedly: {reason}")]
    Stopped { server: String, reason: String },
    #[error("the stored sign-in of {server} could not be used: {reason}")]
    Store { server: String, reason: String },
}

fn detail(reason: &Option<String>) -> String {
    reason
        .as_ref()
        .map(|r| format!(": {r}"))
        .unwrap_or_default()
}

pub use crate::config::oauth::{parse_client, PreRegistered};

/// What a connection needs to sign in: who asks the user, where tokens live, how the client identifies itself.
#[derive(Clone)]
pub struct AuthOptions {
    pub agent: Arc<dyn SignInAgent>,
    pub store: TokenStore,
    /// Clients registered beforehand, by server name: used instead of any registration.
    pub preregistered: HashMap<String, PreRegistered>,
    /// The https URL of Wharf's Client ID Metadata Document, used as the client id when the authorization server
    /// supports them. None: Wharf hosts no document yet, so servers register dynamically.
    pub client_metadata_url: Option<String>,
    /// How long the browser step may take.
    pub sign_in_timeout: Duration,
    /// Where sign-ins are told as they start, succeed and fail (the host's sink, set per connection).
    pub events: EventSink,
}

impl AuthOptions {
    pub fn new(agent: Arc<dyn SignInAgent>, store: TokenStore) -> Self {
        AuthOptions {
            agent,
            store,
            preregistered: HashMap::new(),
            client_metadata_url: None,
            sign_in_timeout: DEFAULT_SIGN_IN_TIMEOUT,
            events: EventSink::discard(),
        }
    }
}

impl fmt::Debug for AuthOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthOptions")
            .field("store", &self.store)
            .field("preregistered", &self.preregistered)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("sign_in_timeout", &self.sign_in_timeout)
            .finish()
    }
}

/// Forgets every sign-in of `server`, as [`sign_out`], and tells `events` when there was one (the app and `wharf
/// session` show sign-in status from the events).
pub async fn sign_out_and_tell(
    store: &TokenStore,
    server: &str,
    events: &EventSink,
) -> Result<bool, AuthError> {
    let forgotten = sign_out(store, server).await?;
    if forgotten {
        events.emit(sign_in_event(
            server,
            SignInState::SignedOut,
            None,
            false,
            None,
        ));
    }
    Ok(forgotten)
}

pub(crate) fn sign_in_event(
    server: &str,
    state: SignInState,
    issuer: Option<String>,
    step_up: bool,
    error: Option<&AuthError>,
) -> HostEvent {
    HostEvent::SignIn {
        server: server.to_string(),
        state,
        issuer,
        step_up,
        error: error.map(ToString::to_string),
    }
}

/// What the consent card shows before the browser opens.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SignInPrompt {
    pub server: String,
    /// The authorization server, as its metadata names itself.
    pub issuer: Option<String>,
    pub scopes: Vec<String>,
    /// True when the server asked for more scopes than the current sign-in has.
    pub step_up: bool,
    /// The authorization URL reviewed like any URL a server wants opened (full URL, host, warnings).
    pub review: UrlReview,
}

/// The user's side of a sign-in: the app's dialog and browser, the terminal, or a script in tests.
pub trait SignInAgent: Send + Sync {
    /// Shows the consent card; true when the user agrees to open the page.
    fn consent(&self, prompt: SignInPrompt) -> BoxFuture<'_, bool>;

    /// Opens the reviewed page. The default is the system browser, as URL elicitation opens it.
    fn open(&self, review: UrlReview) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move {
            tokio::task::spawn_blocking(move || url_check::open_in_browser(&review))
                .await
                .map_err(|e| e.to_string())?
                .map_err(|e| e.to_string())
        })
    }
}

/// Asks through the host's input broker, as the consent card of URL elicitation (server, full URL, host, warnings):
/// the app's dialog, the terminal prompt of `wharf`, or `--answers`. Accept opens the page.
pub struct BrokerConsent {
    broker: Broker,
}

impl BrokerConsent {
    /// `broker` must declare URL elicitation (Wharf's own brokers do); with it undeclared every sign-in is declined.
    pub fn new(broker: Broker) -> Self {
        BrokerConsent { broker }
    }
}

impl SignInAgent for BrokerConsent {
    fn consent(&self, prompt: SignInPrompt) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            let host = prompt.review.display_host.clone().unwrap_or_default();
            let message = if prompt.step_up {
                format!(
                    "{} needs more permissions: sign in again at {host}",
                    prompt.server
                )
            } else {
                format!("{} needs you to sign in at {host}", prompt.server)
            };
            let request = InputRequest {
                server: prompt.server.clone(),
                kind: InputKind::ElicitationUrl,
                cause: Some("signing in".into()),
                origin: None,
                params: serde_json::json!({
                    "mode": "url", "message": message, "url": prompt.review.url,
                }),
                view: Some(InputView::Url {
                    message,
                    review: Box::new(prompt.review),
                    elicitation_id: None,
                    phase: UrlPhase::Consent,
                }),
                check: None,
            };
            match self.broker.ask(request).await {
                Ok(answer) => matches!(answer, InputAnswer::Accept { .. }),
                Err(refused) => {
                    tracing::warn!(server = %prompt.server, "sign-in not asked: {refused:?}");
                    false
                }
            }
        })
    }
}

/// Consents to every sign-in whose page the review allows: for runs with no user (the conformance suite), where
/// the "browser" is whatever `$BROWSER` names.
pub struct ConsentAll;

impl SignInAgent for ConsentAll {
    fn consent(&self, prompt: SignInPrompt) -> BoxFuture<'_, bool> {
        tracing::info!(server = %prompt.server, host = ?prompt.review.host, "sign-in consented without asking");
        Box::pin(async { true })
    }
}
