//! Secrets in the OS keyring: provider API keys (`wharf secret set openai`) and the `${input:ID}` values of mcp.json.
//!
//! Every entry is stored under the service [`SERVICE`] (`wharf`) with the secret's name as the user name, so other
//! tools find it by the same two attributes (`secret-tool lookup service wharf username openai`).
//!
//! Two backends, chosen once per process ([`SecretStore::open`]) and logged once:
//! - the **Secret Service** (GNOME Keyring, KWallet, KeePassXC...) over the D-Bus session bus, when one answers there:
//!   it persists on disk, encrypted with the user's login;
//! - else the **kernel keyutils** session keyring (also linked into the user's persistent keyring): kept in kernel
//!   memory only, so it is gone after a reboot or once the user's keyrings expire, but it works on a headless machine
//!   with no D-Bus at all.
//!
//! keyring 3 compiled with both backends picks the Secret Service as its default and never falls back, so the
//! credentials are built explicitly here (`SsCredential` / `KeyutilsCredential`) rather than through `Entry::new`.
//!
//! A value never reaches a log line, an error message or a `Debug` print: it travels as a [`Secret`], whose `Debug`
//! and `Display` print `***`, and errors are built from the keyring's reason only (a stored value that is not UTF-8
//! comes back from keyring with its bytes inside: that error is mapped without them).

mod backend;
mod input;

use std::fmt;
use std::sync::OnceLock;
use std::time::Duration;

pub use input::{read_value, HiddenInput};

/// The service every Wharf secret is stored under (the Secret Service `service` attribute; the keyutils description
/// is `keyring-rs:NAME@wharf`). Plain `wharf`, the command's own name, so a user finds it with the usual tools.
pub const SERVICE: &str = "wharf";

/// The longest value accepted: the kernel's limit for a `user` key's payload, so that a value stored through the
/// Secret Service could be stored through keyutils too.
pub const MAX_VALUE_BYTES: usize = 32_767;

/// The longest name accepted (keyutils descriptions are limited to 4095 bytes, with `keyring-rs:` and `@wharf`).
pub const MAX_NAME_BYTES: usize = 256;

/// How long the Secret Service may take to answer the first call (D-Bus may have to start it) before the session
/// bus counts as having none. A service that hangs would otherwise hang every command that needs a key.
const PROBE_TIMEOUT: Duration = Duration::from_secs(15);

/// A secret value. `Debug` and `Display` print `***`, so a value held in a struct that is logged or printed with
/// `{:?}` does not leak; [`Secret::expose`] is the one way to the text.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The value itself: only for the place that sends it where it belongs (a header, an env variable, the keyring).
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn into_inner(self) -> String {
        self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Why a secret could not be read, stored or deleted. No variant ever holds a value, only names and reasons.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    /// Neither backend can be used here (no Secret Service on the session bus and no kernel keyring), or the chosen
    /// one went away.
    #[error("no OS keyring is available: {0}")]
    Unavailable(String),
    /// The keyring is there but refused: locked and the unlock prompt was dismissed, or access not allowed.
    #[error("the OS keyring refused access: {0}")]
    Denied(String),
    /// The name is empty, too long or holds control characters.
    #[error("invalid secret name {name:?}: {reason}")]
    InvalidName { name: String, reason: &'static str },
    /// The value is empty, too long or not UTF-8 (the value itself is never part of the message).
    #[error("invalid secret value: {0}")]
    InvalidValue(&'static str),
    /// Anything else the keyring or the input reported.
    #[error("OS keyring error: {0}")]
    Other(String),
}

/// Which store holds the secrets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The freedesktop Secret Service on the D-Bus session bus.
    SecretService,
    /// The Linux kernel key retention service (session keyring, linked into the persistent keyring).
    Keyutils,
}

impl Backend {
    /// The name shown to users and in the command's JSON (`"backend": "secret-service"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::SecretService => "secret-service",
            Backend::Keyutils => "keyutils",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The OS keyring, through one backend. Cheap to copy; every call is blocking but safe on any thread, inside a tokio
/// runtime or not (the keyring work runs on a thread of its own, see `backend::off_runtime`); async code that must
/// not block its thread uses the `_async` variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecretStore {
    backend: Backend,
}

impl SecretStore {
    /// The store of this machine: the Secret Service when one answers on the session bus, else keyutils. Decided by
    /// the first call in the process (that one logs the choice at info level) and remembered, failure included.
    pub fn open() -> Result<SecretStore, SecretError> {
        static CHOSEN: OnceLock<Result<Backend, String>> = OnceLock::new();
        CHOSEN
            .get_or_init(detect)
            .clone()
            .map(SecretStore::with_backend)
            .map_err(SecretError::Unavailable)
    }

    /// A store on the given backend, with no detection (whether it works shows on the first call).
    pub fn with_backend(backend: Backend) -> SecretStore {
        SecretStore { backend }
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The secret called `name`, or `None` when there is none.
    pub fn get(&self, name: &str) -> Result<Option<Secret>, SecretError> {
        validate_name(name)?;
        let backend = self.backend;
        let found = backend::off_runtime(|| backend::get(backend, name))?;
        // Whatever echoes it later (a server quoting a header, a provider quoting the key) must not print it.
        if let Some(value) = &found {
            crate::redact::learn_runtime_secret(value);
        }
        tracing::debug!(
            name,
            backend = backend.as_str(),
            found = found.is_some(),
            "secret looked up"
        );
        Ok(found.map(Secret))
    }

    /// Stores `value` as `name`, replacing the value there was.
    pub fn set(&self, name: &str, value: &Secret) -> Result<(), SecretError> {
        validate_name(name)?;
        validate_value(value.expose())?;
        let backend = self.backend;
        backend::off_runtime(|| backend::set(backend, name, value.expose()))
            // The keyring's reasons never quote the value; this keeps it so should one ever start to.
            .map_err(|e| scrub(e, value.expose()))?;
        tracing::debug!(name, backend = backend.as_str(), "secret stored");
        Ok(())
    }

    /// Deletes the secret called `name`: `true` when there was one, `false` when there was none.
    pub fn delete(&self, name: &str) -> Result<bool, SecretError> {
        validate_name(name)?;
        let backend = self.backend;
        let deleted = backend::off_runtime(|| backend::delete(backend, name))?;
        tracing::debug!(name, backend = backend.as_str(), deleted, "secret deleted");
        Ok(deleted)
    }

    /// [`SecretStore::get`] on tokio's blocking pool (the keyring may wait for an unlock prompt).
    pub async fn get_async(self, name: String) -> Result<Option<Secret>, SecretError> {
        blocking(move || self.get(&name)).await
    }

    /// [`SecretStore::set`] on tokio's blocking pool.
    pub async fn set_async(self, name: String, value: Secret) -> Result<(), SecretError> {
        blocking(move || self.set(&name, &value)).await
    }

    /// [`SecretStore::delete`] on tokio's blocking pool.
    pub async fn delete_async(self, name: String) -> Result<bool, SecretError> {
        blocking(move || self.delete(&name)).await
    }
}

/// The keyring name of the value of mcp.json's `${input:ID}`: `input:ID`, so it never collides with a provider key
/// stored by name (`openai`) and a user sees what it is for (`wharf secret set input:web-key`).
/// Adds to `ids` every `${input:ID}` in `value` (any JSON, e.g. a server's definition), each once, in order: the
/// inputs a configuration needs from the keyring.
pub fn collect_input_ids(value: &serde_json::Value, ids: &mut Vec<String>) {
    use serde_json::Value;
    match value {
        Value::String(s) => {
            let mut rest = s.as_str();
            while let Some(start) = rest.find("${input:") {
                let after = &rest[start + "${input:".len()..];
                let Some(end) = after.find('}') else { break };
                let id = after[..end].to_string();
                if !id.is_empty() && !ids.contains(&id) {
                    ids.push(id);
                }
                rest = &after[end + 1..];
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_input_ids(v, ids)),
        Value::Object(map) => map.values().for_each(|v| collect_input_ids(v, ids)),
        _ => {}
    }
}

pub fn input_secret_name(id: &str) -> String {
    format!("input:{id}")
}

/// The stored value of `${input:ID}`, or `None` when the user has not given it yet.
pub fn lookup_input(store: &SecretStore, id: &str) -> Result<Option<Secret>, SecretError> {
    store.get(&input_secret_name(id))
}

/// Stores the value the user gave for `${input:ID}` (asked once, then found by [`lookup_input`]).
pub fn store_input(store: &SecretStore, id: &str, value: &Secret) -> Result<(), SecretError> {
    store.set(&input_secret_name(id), value)
}

/// Refuses the names that cannot be stored faithfully or shown safely: empty or blank, longer than
/// [`MAX_NAME_BYTES`], or holding control characters (a newline would forge a line in the keyring's listings and
/// in Wharf's one-line errors).
pub fn validate_name(name: &str) -> Result<(), SecretError> {
    let reason = if name.trim().is_empty() {
        "it is empty"
    } else if name.len() > MAX_NAME_BYTES {
        "it is longer than 256 bytes"
    } else if name.chars().any(char::is_control) {
        "it holds control characters"
    } else {
        return Ok(());
    };
    Err(SecretError::InvalidName {
        name: name.to_string(),
        reason,
    })
}

fn validate_value(value: &str) -> Result<(), SecretError> {
    if value.is_empty() {
        return Err(SecretError::InvalidValue("it is empty"));
    }
    if value.len() > MAX_VALUE_BYTES {
        return Err(SecretError::InvalidValue(
            "it is longer than 32767 bytes (the kernel keyring's limit)",
        ));
    }
    Ok(())
}

/// Replaces every occurrence of `value` in an error's text with `***`.
fn scrub(error: SecretError, value: &str) -> SecretError {
    let clean = |text: String| {
        if value.is_empty() {
            text
        } else {
            text.replace(value, "***")
        }
    };
    match error {
        SecretError::Unavailable(t) => SecretError::Unavailable(clean(t)),
        SecretError::Denied(t) => SecretError::Denied(clean(t)),
        SecretError::Other(t) => SecretError::Other(clean(t)),
        SecretError::InvalidName { name, reason } => SecretError::InvalidName {
            name: clean(name),
            reason,
        },
        e @ SecretError::InvalidValue(_) => e,
    }
}

/// The backend choice: the Secret Service if it answers a search within [`PROBE_TIMEOUT`], else keyutils if the
/// kernel gives this process a session keyring. Logged once, with the reason the Secret Service was passed over.
fn detect() -> Result<Backend, String> {
    let secret_service = backend::with_timeout(PROBE_TIMEOUT, backend::probe_secret_service)
        .unwrap_or_else(|| {
            Err(format!(
                "the Secret Service did not answer within {} s",
                PROBE_TIMEOUT.as_secs()
            ))
        });
    let why_not = match secret_service {
        Ok(()) => {
            tracing::info!(
                backend = Backend::SecretService.as_str(),
                "secrets: using the Secret Service on the D-Bus session bus"
            );
            return Ok(Backend::SecretService);
        }
        Err(why) => why,
    };
    match backend::off_runtime(backend::probe_keyutils) {
        Ok(()) => {
            tracing::info!(
                backend = Backend::Keyutils.as_str(),
                secret_service = %why_not,
                "secrets: no Secret Service, using the kernel keyutils session keyring (kept in memory only)"
            );
            Ok(Backend::Keyutils)
        }
        Err(why_not_keyutils) => {
            let reason =
                format!("no Secret Service ({why_not}) and no kernel keyring ({why_not_keyutils})");
            tracing::info!("secrets: {reason}");
            Err(reason)
        }
    }
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, SecretError> + Send + 'static,
) -> Result<T, SecretError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| SecretError::Other(format!("the keyring task failed: {e}")))?
}

#[cfg(test)]
mod tests;
