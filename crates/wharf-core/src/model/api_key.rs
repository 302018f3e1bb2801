//! The API key of a provider: read from the OS keyring under the name the configuration gives, and held while a
//! request is under way where no `Debug` output can show it.

use std::fmt;

use super::ProviderConfig;

/// Why the API key a provider entry names could not be had.
#[derive(Debug, thiserror::Error)]
pub enum ApiKeyError {
    #[error("cannot open the keyring for the API key {name}: {reason}")]
    Keyring { name: String, reason: String },
    #[error("cannot read the API key {name} from the keyring: {reason}")]
    Read { name: String, reason: String },
    #[error(
        "no API key is stored under \"{0}\": store it with `wharf secret set {0}` or in the app's settings"
    )]
    Missing(String),
}

/// The API key `provider.apiKeySecret` names, from the OS keyring; none for an entry that names none.
pub async fn api_key(
    provider: &ProviderConfig,
) -> Result<Option<crate::secrets::Secret>, ApiKeyError> {
    let Some(name) = &provider.api_key_secret else {
        return Ok(None);
    };
    let store = crate::secrets::SecretStore::open().map_err(|e| ApiKeyError::Keyring {
        name: name.clone(),
        reason: e.to_string(),
    })?;
    match store.get_async(name.clone()).await {
        Ok(Some(key)) => Ok(Some(key)),
        Ok(None) => Err(ApiKeyError::Missing(name.clone())),
        Err(e) => Err(ApiKeyError::Read {
            name: name.clone(),
            reason: e.to_string(),
        }),
    }
}

/// The API key while a request is under way. Its `Debug` never shows it, so no `{:?}` of a struct that holds one
/// can leak it.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct ApiKey(String);

impl ApiKey {
    /// Surrounding whitespace (a newline from `echo KEY |`) is never part of a key and would make an invalid header.
    pub(super) fn new(key: &str) -> Self {
        ApiKey(key.trim().to_string())
    }

    pub(super) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}
