//! The `"oauth"` member of a server's entry: a client registered beforehand with the server's authorization server.

use std::fmt;

use crate::secrets::Secret;

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
    expand: &dyn Fn(&str, &str) -> Result<String, String>,
) -> Result<Option<PreRegistered>, String> {
    use serde_json::Value;
    let oauth = match def.get("oauth") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(o)) => o,
        Some(_) => return Err("\"oauth\" must be an object".into()),
    };
    let text = |key: &str| match oauth.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => expand(s, &format!("oauth.{key}")).map(Some),
        Some(_) => Err(format!("\"oauth.{key}\" must be a string")),
    };
    let client_id = text("clientId")?
        .filter(|id| !id.trim().is_empty())
        .ok_or_else(|| "\"oauth\" needs a \"clientId\"".to_string())?;
    Ok(Some(PreRegistered {
        client_id,
        client_secret: text("clientSecret")?.map(Secret::new),
    }))
}
