//! Where sign-ins are kept: one OS keyring entry per server (`oauth:SERVER`), holding the credentials per
//! authorization server issuer. Two servers never share an entry even when their URLs are equal, and credentials
//! from one issuer are never sent to another (rmcp also drops them when the server moves to a new issuer).
//!
//! rmcp asks its credential store for the token before every request, so each connection's store reads the
//! keyring once and then answers from memory; saves go to both.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::transport::auth::{AuthError as RmcpAuthError, CredentialStore, StoredCredentials};
use serde::{Deserialize, Serialize};

use super::AuthError;
use crate::secrets::{Secret, SecretStore};

/// The keyring, or a map in memory where there is none (the conformance suite, tests).
#[derive(Clone)]
pub enum TokenStore {
    Keyring(SecretStore),
    /// The keyring of this machine, looked for only when a sign-in is first read or written (finding it may take
    /// seconds, and most runs never sign in); where there is none, the map: sign-ins last for this run.
    Os(Arc<Mutex<HashMap<String, String>>>),
    Memory(Arc<Mutex<HashMap<String, String>>>),
}

impl fmt::Debug for TokenStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenStore::Keyring(s) => write!(f, "Keyring({})", s.backend()),
            TokenStore::Os(_) => f.write_str("Os"),
            TokenStore::Memory(_) => f.write_str("Memory"),
        }
    }
}

impl TokenStore {
    pub fn memory() -> Self {
        TokenStore::Memory(Arc::default())
    }

    pub fn os() -> Self {
        TokenStore::Os(Arc::default())
    }

    /// What an `Os` store stands for now: the keyring when there is one, else its map (said once).
    fn resolve(&self) -> TokenStore {
        match self {
            TokenStore::Os(map) => match SecretStore::open() {
                Ok(s) => TokenStore::Keyring(s),
                Err(e) => {
                    static SAID: std::sync::Once = std::sync::Once::new();
                    SAID.call_once(|| tracing::warn!("{e}: sign-ins are kept for this run only"));
                    TokenStore::Memory(map.clone())
                }
            },
            other => other.clone(),
        }
    }

    /// The keyring entry of a server's sign-ins.
    pub fn entry_name(server: &str) -> String {
        format!("oauth:{server}")
    }

    async fn read(&self, server: &str) -> Result<Option<String>, String> {
        let name = Self::entry_name(server);
        match self.resolve() {
            TokenStore::Keyring(s) => s
                .get_async(name)
                .await
                .map(|v| v.map(Secret::into_inner))
                .map_err(|e| e.to_string()),
            TokenStore::Memory(m) | TokenStore::Os(m) => {
                Ok(m.lock().map_err(|e| e.to_string())?.get(&name).cloned())
            }
        }
    }

    async fn write(&self, server: &str, value: Option<String>) -> Result<bool, String> {
        let name = Self::entry_name(server);
        match (self.resolve(), value) {
            (TokenStore::Keyring(s), Some(v)) => s
                .set_async(name, Secret::new(v))
                .await
                .map(|()| true)
                .map_err(|e| e.to_string()),
            (TokenStore::Keyring(s), None) => s.delete_async(name).await.map_err(|e| e.to_string()),
            (TokenStore::Memory(m) | TokenStore::Os(m), v) => {
                let mut map = m.lock().map_err(|e| e.to_string())?;
                Ok(match v {
                    Some(v) => {
                        map.insert(name, v);
                        true
                    }
                    None => map.remove(&name).is_some(),
                })
            }
        }
    }
}

/// What one keyring entry holds. The issuer key of credentials without a known issuer is "".
#[derive(Default, Serialize, Deserialize)]
struct Entry {
    /// The server URL the sign-in was made for: a server whose entry now names another URL starts afresh, so its
    /// token never goes to a resource it was not issued for.
    #[serde(default)]
    resource: String,
    current: String,
    by_issuer: BTreeMap<String, StoredCredentials>,
    /// The secrets registration gave Wharf's client, by issuer (rmcp's credentials keep only the client id).
    #[serde(default)]
    client_secrets: BTreeMap<String, String>,
}

impl Entry {
    fn parse(text: Option<String>) -> Entry {
        // An entry that no longer parses (written by another version) is a sign-in to do again, not an error.
        text.and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }
}

/// One server's credentials, as rmcp's `CredentialStore`.
///
/// rmcp's client asks the store for a token before every request and sends whatever it finds. A kept token is only
/// handed out once the sign-in has been taken up ([`ServerCredentials::arm`]: metadata discovered, issuer compared,
/// client configured for refresh), so until then requests go without one and the server's 401 starts that.
#[derive(Clone)]
pub struct ServerCredentials {
    server: String,
    resource: String,
    store: TokenStore,
    cache: Arc<tokio::sync::Mutex<Option<Entry>>>,
    armed: Arc<AtomicBool>,
}

impl ServerCredentials {
    /// The credentials of `server`, whose URL is `resource`.
    pub fn new(server: &str, resource: &str, store: TokenStore) -> Self {
        ServerCredentials {
            server: server.to_string(),
            resource: resource.to_string(),
            store,
            cache: Arc::default(),
            armed: Arc::default(),
        }
    }

    /// Keeps the secret registration gave the client of the current issuer (call after the sign-in is saved).
    pub async fn keep_client_secret(&self, secret: Secret) -> Result<(), RmcpAuthError> {
        self.with_entry(|e| {
            e.client_secrets
                .insert(e.current.clone(), secret.into_inner());
            ((), true)
        })
        .await
    }

    /// The kept client secret of the current issuer.
    pub async fn client_secret(&self) -> Option<String> {
        self.with_entry(|e| (e.client_secrets.get(&e.current).cloned(), false))
            .await
            .ok()
            .flatten()
    }

    /// The authorization server of the current sign-in, when it is known.
    pub async fn issuer(&self) -> Option<String> {
        self.with_entry(|e| (Some(e.current.clone()).filter(|i| !i.is_empty()), false))
            .await
            .ok()
            .flatten()
    }

    /// From now on the kept credentials are handed to rmcp.
    pub fn arm(&self) {
        self.armed.store(true, Ordering::SeqCst);
    }

    async fn with_entry<T>(
        &self,
        f: impl FnOnce(&mut Entry) -> (T, bool),
    ) -> Result<T, RmcpAuthError> {
        let mut cache = self.cache.lock().await;
        if cache.is_none() {
            let text = self.store.read(&self.server).await.map_err(store_error)?;
            let entry = Entry::parse(text);
            *cache = Some(if entry.resource == self.resource {
                entry
            } else {
                Entry::default()
            });
        }
        let entry = cache.get_or_insert_with(Entry::default);
        entry.resource.clone_from(&self.resource);
        let (out, changed) = f(entry);
        if changed {
            let value = if entry.by_issuer.is_empty() {
                None
            } else {
                Some(serde_json::to_string(entry).map_err(|e| store_error(e.to_string()))?)
            };
            self.store
                .write(&self.server, value)
                .await
                .map_err(store_error)?;
        }
        Ok(out)
    }
}

/// The tokens a sign-in holds are masked in everything Wharf prints from now on, whoever echoes them.
fn learn_tokens(credentials: &StoredCredentials) {
    use oauth2::TokenResponse;
    if let Some(tokens) = &credentials.token_response {
        crate::redact::learn_runtime_secret(tokens.access_token().secret());
        if let Some(refresh) = tokens.refresh_token() {
            crate::redact::learn_runtime_secret(refresh.secret());
        }
    }
}

fn store_error(reason: String) -> RmcpAuthError {
    RmcpAuthError::CredentialStoreError(reason)
}

#[async_trait::async_trait]
impl CredentialStore for ServerCredentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, RmcpAuthError> {
        if !self.armed.load(Ordering::SeqCst) {
            return Ok(None);
        }
        let found = self
            .with_entry(|e| (e.by_issuer.get(&e.current).cloned(), false))
            .await?;
        if let Some(credentials) = &found {
            learn_tokens(credentials);
        }
        Ok(found)
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), RmcpAuthError> {
        learn_tokens(&credentials);
        // What was just saved came from this run's own sign-in.
        self.arm();
        self.with_entry(|e| {
            let issuer = credentials.issuer.clone().unwrap_or_default();
            e.current = issuer.clone();
            e.by_issuer.insert(issuer, credentials);
            ((), true)
        })
        .await
    }

    async fn clear(&self) -> Result<(), RmcpAuthError> {
        self.with_entry(|e| {
            let current = e.current.clone();
            ((), e.by_issuer.remove(&current).is_some())
        })
        .await
    }
}

/// Whether a server has a sign-in, for the app's and `wharf`'s status per server. No token in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SignInStatus {
    pub signed_in: bool,
    pub issuer: Option<String>,
    pub scopes: Vec<String>,
    /// Whether the sign-in can be renewed without the browser.
    pub refreshable: bool,
    /// When the access token expires (seconds since the Unix epoch), when the authorization server said.
    #[ts(type = "number | null")]
    pub expires_at: Option<u64>,
}

/// The sign-in kept for `server`.
pub async fn status(store: &TokenStore, server: &str) -> Result<SignInStatus, AuthError> {
    let text = store
        .read(server)
        .await
        .map_err(|reason| AuthError::Store {
            server: server.to_string(),
            reason,
        })?;
    let entry = Entry::parse(text);
    let current = entry.by_issuer.get(&entry.current);
    let token = current.and_then(|c| c.token_response.as_ref());
    Ok(SignInStatus {
        signed_in: token.is_some(),
        issuer: current
            .and_then(|c| c.issuer.clone())
            .filter(|i| !i.is_empty()),
        scopes: current
            .map(|c| c.granted_scopes.clone())
            .unwrap_or_default(),
        refreshable: token.is_some_and(|t| {
            use oauth2::TokenResponse;
            use rmcp::transport::auth::OAuthTokenResponse;
            OAuthTokenResponse::refresh_token(t).is_some()
        }),
        expires_at: token.and_then(|t| {
            use oauth2::TokenResponse;
            let received = current.and_then(|c| c.token_received_at)?;
            Some(received.saturating_add(t.expires_in()?.as_secs()))
        }),
    })
}

/// Forgets every sign-in of `server` (all issuers). True when there was one. Connections already open keep their
/// token until they end.
pub async fn sign_out(store: &TokenStore, server: &str) -> Result<bool, AuthError> {
    store
        .write(server, None)
        .await
        .map_err(|reason| AuthError::Store {
            server: server.to_string(),
            reason,
        })
}
