//! Sampling as the settings screen sees it: the LLM provider (mcp.json's `sampling.provider`), its API key in the OS
//! keyring, and the user's per-server preferences (`sampling.json`).
//!
//! A key goes one way only: `set_secret` stores it and returns nothing; no command reads a value back (the settings
//! say whether one is stored, never what it is), and neither the value nor its length is ever logged.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::edit::FieldError;
use crate::events::NoticeCode;
use crate::facade::command::{CommandError, Reply, Run};
use crate::facade::session::Session;
use crate::facade::ErrorCode;
use crate::model::ProviderConfig;
use crate::sampling::prefs::{Limits, Policy, PreferenceRow};
use crate::sampling::SamplingService;
use crate::secrets::{Secret, SecretError, SecretStore};

/// What the settings screen shows.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct SamplingSettings {
    /// The provider in use; none: sampling requests fail, saying the user should choose one.
    pub provider: Option<ProviderConfig>,
    /// Why the configuration file's `sampling.provider` cannot be used (then `provider` is none).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub provider_error: Option<String>,
    /// Whether the keyring holds the provider's key (`apiKeySecret`); null when it names none or the keyring could
    /// not be asked.
    pub key_stored: Option<bool>,
    /// Why the keyring could not be asked, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub keyring_error: Option<String>,
    pub preferences: Vec<PreferenceRow>,
    /// The keyring that holds the keys (`secret-service` or `keyutils`), once it was opened.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub backend: Option<String>,
    /// The configured servers with the hash of their current definition: a preference stored for another hash does
    /// not apply (the server's command, arguments or URL changed since).
    pub servers: Vec<SamplingServer>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct SamplingServer {
    pub name: String,
    pub definition_hash: String,
}

#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct GetSamplingSettings {}

impl Run for GetSamplingSettings {
    async fn run(self, session: &Session) -> Reply<SamplingSettings> {
        settings(session).await
    }
}

async fn settings(session: &Session) -> Reply<SamplingSettings> {
    let sampling = session.sampling()?;
    let provider = sampling.provider();
    let (servers, provider_error) = match session.current_config() {
        Ok(config) => (
            config
                .servers
                .iter()
                .map(|s| SamplingServer {
                    name: s.name.clone(),
                    definition_hash: s.definition_hash(),
                })
                .collect(),
            config.sampling_provider.and_then(Result::err),
        ),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    let mut out = SamplingSettings {
        provider_error,
        key_stored: None,
        keyring_error: None,
        preferences: preferences(sampling).await?,
        backend: None,
        servers,
        provider: None,
    };
    // The keyring is opened only when there is a key to look for (opening it may wait for the Secret Service).
    if let Some(name) = provider.as_ref().and_then(|p| p.api_key_secret.clone()) {
        match key_stored(name).await {
            Ok((stored, backend)) => {
                out.key_stored = Some(stored);
                out.backend = Some(backend);
            }
            Err(e) => out.keyring_error = Some(e.to_string()),
        }
    }
    out.provider = provider;
    report_prefs_notices(session, sampling);
    Ok(out)
}

/// Whether a secret called `name` is stored, and in which keyring. The value read is dropped unseen.
async fn key_stored(name: String) -> Result<(bool, String), SecretError> {
    let store = open_store().await?;
    let found = store.get_async(name).await?;
    Ok((found.is_some(), store.backend().as_str().to_string()))
}

async fn open_store() -> Result<SecretStore, SecretError> {
    // The first open probes the session bus (up to seconds): off the async threads.
    tokio::task::spawn_blocking(SecretStore::open)
        .await
        .map_err(|e| SecretError::Other(format!("the keyring task failed: {e}")))?
}

/// The preferences file is read and written under a lock that another Wharf may hold for a moment: off the async
/// threads.
async fn preferences(sampling: &Arc<SamplingService>) -> Reply<Vec<PreferenceRow>> {
    let sampling = sampling.clone();
    tokio::task::spawn_blocking(move || sampling.prefs.list())
        .await
        .map_err(|e| {
            CommandError::new(
                ErrorCode::Internal,
                format!("cannot list the preferences: {e}"),
            )
        })
}

/// Problems with the preferences file found since it was opened (set aside as corrupt by a read or a write): each
/// once, as a notice.
fn report_prefs_notices(session: &Session, sampling: &SamplingService) {
    for message in sampling.prefs.take_notices() {
        tracing::warn!("{message}");
        session.notice(NoticeCode::PreferencesSetAside, message);
    }
}

/// Saves the provider into mcp.json's `sampling.provider` (none removes it), every other key kept, and uses it at
/// once. It is checked as the file's own would be: an API key in it is refused (keys go to the keyring).
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SaveSamplingProvider {
    pub provider: Option<Value>,
}

impl Run for SaveSamplingProvider {
    async fn run(self, session: &Session) -> Reply<SamplingSettings> {
        let provider = checked_provider(self.provider.as_ref())?;
        // Without a provider of its own, chat uses the sampling one: applying the file tells both.
        session
            .apply(|doc| {
                doc.set_sampling_provider(provider.as_ref()).map_err(|e| {
                    CommandError::new(ErrorCode::Config, format!("{}: {e}", doc.path.display()))
                })
            })
            .await?;
        match &provider {
            Some(p) => tracing::info!(kind = ?p.kind, model = p.model, "sampling provider saved"),
            None => tracing::info!("sampling provider removed"),
        }
        settings(session).await
    }
}

/// The provider the window sent, read as mcp.json's would be.
fn checked_provider(provider: Option<&Value>) -> Reply<Option<ProviderConfig>> {
    match provider {
        None | Some(Value::Null) => Ok(None),
        Some(value) => ProviderConfig::from_json(value).map(Some).map_err(|e| {
            let message = e.to_string();
            let mut error = CommandError::new(ErrorCode::Invalid, message.clone());
            error.fields = e
                .key
                .map(|field| FieldError { field, message })
                .into_iter()
                .collect();
            error
        }),
    }
}

/// Stores a secret (a provider's API key) in the OS keyring, replacing the one there was. The value is never
/// returned, logged or echoed; the window clears its field once this answers.
#[derive(Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SetSecret {
    pub name: String,
    pub value: String,
}

impl Run for SetSecret {
    async fn run(self, _session: &Session) -> Reply<()> {
        let SetSecret { name, value } = self;
        let value = Secret::new(value);
        let store = open_store().await.map_err(keyring_error)?;
        store
            .set_async(name.clone(), value)
            .await
            .map_err(keyring_error)?;
        tracing::info!(
            name,
            backend = store.backend().as_str(),
            "secret stored from the settings"
        );
        Ok(())
    }
}

/// Deletes a secret from the keyring: true when there was one.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct DeleteSecret {
    pub name: String,
}

impl Run for DeleteSecret {
    async fn run(self, _session: &Session) -> Reply<bool> {
        let store = open_store().await.map_err(keyring_error)?;
        let deleted = store
            .delete_async(self.name.clone())
            .await
            .map_err(keyring_error)?;
        tracing::info!(
            name = self.name,
            deleted,
            "secret deleted from the settings"
        );
        Ok(deleted)
    }
}

pub(crate) fn keyring_error(e: SecretError) -> CommandError {
    CommandError::new(e.code(), e.to_string())
}

/// Stores the user's choice for a server, for its current definition (a changed definition asks again). No limits
/// means none.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SetSamplingPreference {
    pub server: String,
    pub policy: Policy,
    pub limits: Option<Limits>,
}

impl Run for SetSamplingPreference {
    async fn run(self, session: &Session) -> Reply<Vec<PreferenceRow>> {
        let SetSamplingPreference {
            server,
            policy,
            limits,
        } = self;
        let sampling = session.sampling()?;
        let config = session.current_config()?;
        let hash = config
            .server(&server)
            .map(crate::ServerDef::definition_hash)
            .ok_or_else(|| CommandError::unknown_server(&server))?;
        let limits = checked_limits(limits.unwrap_or_default())?;
        let prefs = sampling.clone();
        let name = server.clone();
        tokio::task::spawn_blocking(move || prefs.prefs.set(&name, &hash, policy, limits))
            .await
            .map_err(|e| CommandError::new(ErrorCode::Internal, e.to_string()))?
            .map_err(|e| CommandError::new(ErrorCode::Write, e.to_string()))?;
        tracing::info!(server, ?policy, "sampling preference saved");
        report_prefs_notices(session, sampling);
        preferences(sampling).await
    }
}

/// Model names trimmed, blanks dropped: what the settings' comma-separated field means.
fn checked_limits(mut limits: Limits) -> Reply<Limits> {
    limits.models = limits
        .models
        .iter()
        .map(|m| m.trim().to_string())
        .filter(|m| !m.is_empty())
        .collect();
    if limits.max_tokens == Some(0) {
        return Err(CommandError::new(
            ErrorCode::Invalid,
            "max tokens must be at least 1 (leave it empty for no limit)",
        ));
    }
    Ok(limits)
}

/// Forgets what is stored for a server, and its session allow: it is asked again.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ForgetSamplingPreference {
    pub server: String,
}

impl Run for ForgetSamplingPreference {
    async fn run(self, session: &Session) -> Reply<Vec<PreferenceRow>> {
        let sampling = session.sampling()?;
        let prefs = sampling.clone();
        let name = self.server.clone();
        tokio::task::spawn_blocking(move || prefs.prefs.forget(&name))
            .await
            .map_err(|e| CommandError::new(ErrorCode::Internal, e.to_string()))?
            .map_err(|e| CommandError::new(ErrorCode::Write, e.to_string()))?;
        tracing::info!(server = self.server, "sampling preference forgotten");
        report_prefs_notices(session, sampling);
        preferences(sampling).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_provider_is_validated_as_mcp_json_would_be() {
        assert!(checked_provider(None).expect("none").is_none());
        assert!(checked_provider(Some(&Value::Null))
            .expect("none")
            .is_none());
        let refused = |value: Value| checked_provider(Some(&value)).expect_err("refused");

        let e = refused(json!({"kind": "openai", "model": "m", "apiKey": "sk-very-secret"}));
        assert_eq!(e.code, ErrorCode::Invalid);
        assert!(e.message.contains("apiKey"), "{e:?}");
        assert!(!e.message.contains("sk-very-secret"), "{e:?}");

        assert!(refused(json!({"kind": "gemini", "model": "m"}))
            .message
            .contains("gemini"));
        assert!(refused(json!({"kind": "openai"})).message.contains("model"));
        assert!(
            refused(json!({"kind": "openai", "model": "m", "baseUrl": "ftp://x"}))
                .message
                .contains("baseUrl")
        );
        let e =
            refused(json!({"kind": "openai", "model": "m", "baseUrl": "https://u:pw-secret@x/v1"}));
        assert!(!e.message.contains("pw-secret"), "{e:?}");
        assert!(refused(json!("openai")).message.contains("object"));
    }

    #[test]
    fn limits_are_tidied_and_zero_tokens_refused() {
        let limits = checked_limits(Limits {
            max_tokens: Some(500),
            requests_per_hour: Some(3),
            models: vec![" a ".into(), String::new(), "b".into()],
        })
        .expect("valid");
        assert_eq!(limits.models, ["a", "b"]);
        assert_eq!(limits.max_tokens, Some(500));
        assert!(checked_limits(Limits {
            max_tokens: Some(0),
            ..Limits::default()
        })
        .is_err());
    }
}
