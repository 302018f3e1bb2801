//! The `"oauth"` member of a server's entry: a client registered beforehand with the server's authorization server.

use std::fmt;

use super::expand::ExpandError;
use crate::secrets::Secret;

/// Why the `"oauth"` member cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OAuthEntryError {
    #[error("\"oauth\" must be an object")]
    NotObject,
    #[error("\"oauth.{0}\" must be a string")]
    NotText(String),
    #[error("\"oauth\" needs a \"clientId\"")]
    NoClientId,
    #[error("{0}")]
    Expand(#[from] ExpandError),
}

/// A client registered with an authorization server beforehand (no registration at sign-in).
#[derive(Clone)]
pub struct PreRegistered {
    pub client_id: String,
    pub client_secret: Option<Secret>,
}

impl fmt::Debug for PreRegistered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PreRegistered")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "***"))
            .finish()
    }
}

/// The `"oauth"` member of a server's entry: `{"clientId": "...", "clientSecret": "..."}` (the secret optional, best
/// given as `${input:ID}` so it stays in the keyring). `expand` resolves the variables of a value.
pub fn parse_client(
    def: &serde_json::Map<String, serde_json::Value>,
    expand: &dyn Fn(&str, &str) -> Result<String, ExpandError>,
) -> Result<Option<PreRegistered>, OAuthEntryError> {
    use serde_json::Value;
    let oauth = match def.get("oauth") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(o)) => o,
        Some(_) => return Err(OAuthEntryError::NotObject),
    };
    let text = |key: &str| match oauth.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(expand(s, &format!("oauth.{key}"))?)),
        Some(_) => Err(OAuthEntryError::NotText(key.to_string())),
    };
    let client_id = text("clientId")?
        .filter(|id| !id.trim().is_empty())
        .ok_or(OAuthEntryError::NoClientId)?;
    Ok(Some(PreRegistered {
        client_id,
        client_secret: text("clientSecret")?.map(Secret::new),
    }))
}
