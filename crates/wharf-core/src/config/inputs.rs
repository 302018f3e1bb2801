//! The values of mcp.json's `${input:ID}` (VS Code's `inputs`) that the user still has to give: the ids the
//! configured servers use and the OS keyring lacks, with what the file declares of each. The app asks for them in a
//! card and the `wharf` command on the terminal; both read them here, so both read the file the same way (as JSONC,
//! as every other reader of it does) and skip the same servers (a `"disabled": true` one does not run, so its
//! inputs are not asked for).

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::secrets::{self, SecretError, SecretStore};

/// An `${input:ID}` the configuration uses and the keyring has no value for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct MissingInput {
    pub id: String,
    /// The `description` of its entry in `inputs`, if it has one.
    pub description: Option<String>,
    /// Whether the value is typed hidden: true unless its entry says `"password": false`.
    pub password: bool,
    /// The configured servers that use it, in the file's order.
    pub servers: Vec<String>,
}

/// The configuration file as JSON (read as JSONC, comments allowed); none when it is missing or unreadable (loading
/// the configuration says why).
pub fn read_document(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    super::jsonc::parse(&text).ok()
}

/// [`missing`] against the OS keyring, opened only when the configuration uses an input. Only whether there is a
/// value is asked; a value read is dropped unseen.
pub fn missing_in_keyring(document: &Value) -> Result<Vec<MissingInput>, SecretError> {
    if used_inputs(document).is_empty() {
        return Ok(Vec::new());
    }
    let store = SecretStore::open()?;
    missing(document, &|id| {
        secrets::lookup_input(&store, id).map(|v| v.is_some())
    })
}

/// Whether a configured server that runs uses `${input:id}`: the only ids a front end stores a value for.
pub fn is_used(document: &Value, id: &str) -> bool {
    used_inputs(document).iter().any(|(used, _)| used == id)
}

/// The inputs `document`'s servers use for which `has_value` says there is no value, with their declarations. An
/// id that cannot name a secret (a control character...) is left out: its server's error says why.
pub fn missing(
    document: &Value,
    has_value: &dyn Fn(&str) -> Result<bool, SecretError>,
) -> Result<Vec<MissingInput>, SecretError> {
    let mut out = Vec::new();
    for (id, servers) in used_inputs(document) {
        match has_value(&id) {
            Ok(true) | Err(SecretError::InvalidName { .. }) => continue,
            Ok(false) => {}
            Err(e) => return Err(e),
        }
        let declared = document
            .get("inputs")
            .and_then(Value::as_array)
            .and_then(|inputs| {
                inputs
                    .iter()
                    .find(|i| i.get("id").and_then(Value::as_str) == Some(id.as_str()))
            });
        out.push(MissingInput {
            description: declared
                .and_then(|i| i.get("description"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            password: declared
                .and_then(|i| i.get("password"))
                .and_then(Value::as_bool)
                .unwrap_or(true),
            servers,
            id,
        });
    }
    Ok(out)
}

/// Every `${input:ID}` in the definitions of the servers that run, once each in the order first used, with the
/// names of the servers that use it.
fn used_inputs(document: &Value) -> Vec<(String, Vec<String>)> {
    let mut used: Vec<(String, Vec<String>)> = Vec::new();
    for key in ["servers", "mcpServers"] {
        let Some(servers) = document.get(key).and_then(Value::as_object) else {
            continue;
        };
        for (name, def) in servers {
            if def.get("disabled").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            let mut ids = Vec::new();
            secrets::collect_input_ids(def, &mut ids);
            for id in ids {
                match used.iter_mut().find(|(known, _)| known == &id) {
                    Some((_, names)) => {
                        if !names.contains(name) {
                            names.push(name.clone());
                        }
                    }
                    None => used.push((id, vec![name.clone()])),
                }
            }
        }
    }
    used
}

#[cfg(test)]
mod tests;
