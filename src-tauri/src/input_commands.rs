//! The values of mcp.json's `${input:ID}` (VS Code's `inputs`), as the window asks for them: which ids the configured
//! servers use and the OS keyring lacks (`missing_inputs`), and the user's value for one (`provide_input`), stored as
//! the secret `input:ID` and followed by the configuration applied again, so the servers that failed for want of it
//! start. The ids are found as the `wharf` command finds them (`crates/wharf-cli/src/inputs.rs`): every
//! `${input:ID}` in the servers' definitions, read from the file as JSON.
//!
//! A value goes one way only: no command returns one, and neither a value nor its length is ever logged. Every
//! keyring call runs off the async threads (opening the keyring may wait for the Secret Service, a lookup for an
//! unlock prompt).

use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use tauri::State;
use wharf_core::secrets::{self, Secret, SecretError, SecretStore};
use wharf_core::Config;

use crate::commands::CommandError;
use crate::sampling_commands::keyring_error;
use crate::shell::Shell;

type Reply<T> = Result<T, CommandError>;

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

/// The inputs the configured servers use and the keyring lacks, in the order they are first used.
#[tauri::command]
pub async fn missing_inputs(shell: State<'_, Shell>) -> Reply<Vec<MissingInput>> {
    let path = shell.config_path.clone();
    blocking(move || {
        let Some(root) = read_root(&path) else {
            return Ok(Vec::new());
        };
        keyring_missing(&root)
    })
    .await
}

/// Stores the user's value for `${input:ID}` in the keyring (the id must be one the configured servers use), then
/// applies the configuration again: the servers whose definitions it completes restart with it. Answers the inputs
/// still missing. The value is never returned nor logged.
#[tauri::command]
pub async fn provide_input(
    shell: State<'_, Shell>,
    id: String,
    value: String,
) -> Reply<Vec<MissingInput>> {
    let value = Secret::new(value);
    let path = shell.config_path.clone();
    let folders = shell.host.workspace().folders();
    let (config, remaining) = blocking(move || {
        let root = read_root(&path).unwrap_or(Value::Null);
        if !used_inputs(&root).iter().any(|(used, _)| used == &id) {
            return Err(CommandError::new(
                "unknown_input",
                format!("no configured server uses ${{input:{id}}}"),
            ));
        }
        let store = SecretStore::open().map_err(keyring_error)?;
        secrets::store_input(&store, &id, &value).map_err(keyring_error)?;
        drop(value);
        tracing::info!(
            input = id,
            backend = store.backend().as_str(),
            "input value stored from the app"
        );
        // Read with the value now in the keyring (the workspace folders too: a server may name them).
        let config = Config::load_with_workspace(&path, &folders)?;
        Ok((config, keyring_missing(&root)?))
    })
    .await?;
    shell.reconfigure(config).await;
    Ok(remaining)
}

/// Runs `work` on the blocking pool: it reads the configuration file and asks the keyring.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> Reply<T> + Send + 'static) -> Reply<T> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(|e| CommandError::new("internal", format!("the keyring task failed: {e}")))?
}

/// The configuration file as JSON (read as JSONC, comments allowed); none when it is missing or unreadable (the
/// startup report says why).
fn read_root(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    wharf_core::config::jsonc::parse(&text).ok()
}

/// [`missing`] against the OS keyring, opened only when the configuration uses an input.
fn keyring_missing(root: &Value) -> Reply<Vec<MissingInput>> {
    if used_inputs(root).is_empty() {
        return Ok(Vec::new());
    }
    let store = SecretStore::open().map_err(keyring_error)?;
    // Only whether there is a value: the one read is dropped unseen.
    missing(root, &|id| {
        secrets::lookup_input(&store, id).map(|v| v.is_some())
    })
    .map_err(keyring_error)
}

/// The inputs `root`'s servers use for which `has_value` says there is no value, with their declarations. An id
/// that cannot name a secret (a control character...) is left out: its server's error says why.
fn missing(
    root: &Value,
    has_value: &dyn Fn(&str) -> Result<bool, SecretError>,
) -> Result<Vec<MissingInput>, SecretError> {
    let mut out = Vec::new();
    for (id, servers) in used_inputs(root) {
        match has_value(&id) {
            Ok(true) | Err(SecretError::InvalidName { .. }) => continue,
            Ok(false) => {}
            Err(e) => return Err(e),
        }
        let declared = root
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

/// Every `${input:ID}` in the definitions of the servers that run (a `"disabled": true` one does not), once each in
/// the order first used, with the names of the servers that use it.
fn used_inputs(root: &Value) -> Vec<(String, Vec<String>)> {
    let mut used: Vec<(String, Vec<String>)> = Vec::new();
    for key in ["servers", "mcpServers"] {
        let Some(servers) = root.get(key).and_then(Value::as_object) else {
            continue;
        };
        for (name, def) in servers {
            if def.get("disabled").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            let mut ids = Vec::new();
            wharf_core::secrets::collect_input_ids(def, &mut ids);
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
mod tests {
    use super::*;
    use serde_json::json;
    use std::cell::RefCell;

    /// A keyring that holds `stored` and records every name it was asked about.
    struct FakeKeyring {
        stored: Vec<&'static str>,
        asked: RefCell<Vec<String>>,
    }

    impl FakeKeyring {
        fn new(stored: &[&'static str]) -> Self {
            FakeKeyring {
                stored: stored.to_vec(),
                asked: RefCell::new(Vec::new()),
            }
        }

        fn has(&self, id: &str) -> Result<bool, SecretError> {
            self.asked.borrow_mut().push(id.to_owned());
            // The real store refuses such names the same way.
            secrets::validate_name(&secrets::input_secret_name(id))?;
            Ok(self.stored.contains(&id))
        }
    }

    fn ids(found: &[MissingInput]) -> Vec<&str> {
        found.iter().map(|m| m.id.as_str()).collect()
    }

    #[test]
    fn the_servers_inputs_without_a_value_are_found_with_their_declarations() {
        let root = json!({
            "servers": {
                "web": {"url": "http://127.0.0.1:3011/mcp",
                        "headers": {"X-Key": "${input:web-key}", "X-Both": "${input:user}:${input:web-key}"}},
                "fs": {"command": "node", "args": ["--token=${input:user}", "${input:port}"],
                       "env": {"TOKEN": "${env:HOME}"}},
                "off": {"command": "x", "args": ["${input:disabled-only}"], "disabled": true},
                "plain": {"command": "y", "cwd": "/tmp"}
            },
            "inputs": [
                {"id": "web-key", "type": "promptString", "description": "Key for web", "password": true},
                {"id": "user", "type": "promptString", "description": "Your user name", "password": false},
                {"id": "unused", "type": "promptString", "description": "Never used"}
            ]
        });
        let keyring = FakeKeyring::new(&["port"]);
        let found = missing(&root, &|id| keyring.has(id)).expect("found");
        assert_eq!(
            found,
            [
                MissingInput {
                    id: "web-key".into(),
                    description: Some("Key for web".into()),
                    password: true,
                    servers: vec!["web".into()],
                },
                MissingInput {
                    id: "user".into(),
                    description: Some("Your user name".into()),
                    password: false,
                    servers: vec!["web".into(), "fs".into()],
                },
            ]
        );
        // Each used id asked once; a disabled server's and an undeclared-but-unused one's never.
        assert_eq!(*keyring.asked.borrow(), ["web-key", "user", "port"]);
    }

    #[test]
    fn an_undeclared_input_is_hidden_and_has_no_description() {
        let root = json!({"mcpServers": {"a": {"command": "a", "env": {"K": "${input:k}"}}}});
        let keyring = FakeKeyring::new(&[]);
        let found = missing(&root, &|id| keyring.has(id)).expect("found");
        assert_eq!(
            found,
            [MissingInput {
                id: "k".into(),
                description: None,
                password: true,
                servers: vec!["a".into()],
            }]
        );
    }

    #[test]
    fn nothing_is_missing_when_every_value_is_stored_or_no_input_is_used() {
        let root = json!({"servers": {"a": {"command": "a", "args": ["${input:k}"]}}});
        let keyring = FakeKeyring::new(&["k"]);
        assert!(missing(&root, &|id| keyring.has(id))
            .expect("found")
            .is_empty());

        // No input used: the keyring is not asked at all.
        let keyring = FakeKeyring::new(&[]);
        for root in [
            json!({"servers": {"a": {"command": "a", "args": ["${env:X}", "${input:", "$input:k", "${input:}"]}}}),
            json!({"servers": {}}),
            json!({"inputs": [{"id": "k"}]}),
            json!([1, 2]),
            Value::Null,
        ] {
            assert!(missing(&root, &|id| keyring.has(id))
                .expect("found")
                .is_empty());
            assert!(used_inputs(&root).is_empty(), "{root}");
        }
        assert!(keyring.asked.borrow().is_empty());
    }

    #[test]
    fn an_id_that_cannot_name_a_secret_is_left_out_and_an_unavailable_keyring_is_an_error() {
        let root = json!({"servers": {"a": {"command": "a", "args": ["${input:bad\nid}", "${input:good}"]}}});
        let keyring = FakeKeyring::new(&[]);
        let found = missing(&root, &|id| keyring.has(id)).expect("found");
        assert_eq!(ids(&found), ["good"]);

        let error = missing(&root, &|_| {
            Err(SecretError::Unavailable("no session bus".into()))
        })
        .expect_err("unavailable");
        assert_eq!(keyring_error(error).code, "keyring");
    }

    #[test]
    fn ids_are_found_in_every_string_in_order_once_each() {
        let mut found = Vec::new();
        wharf_core::secrets::collect_input_ids(
            &json!({"a": "${input:x}-${input:y}", "b": ["${input:x}", {"c": "${input:z}"}], "d": 3, "e": "${input:w"}),
            &mut found,
        );
        assert_eq!(found, ["x", "y", "z"]);
    }

    #[test]
    fn the_file_is_read_as_jsonc_and_a_missing_or_broken_one_uses_no_input() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("mcp.json");
        assert!(read_root(&path).is_none());
        std::fs::write(&path, "{ not json").expect("write");
        assert!(read_root(&path).is_none());
        std::fs::write(
            &path,
            // JSONC, as VS Code writes it.
            "{\"servers\": {\"web\": {\"url\": \"http://x\", /* c */ \"headers\": {\"K\": \"${input:web-key}\"}}}, // c\n}",
        )
        .expect("write");
        let root = read_root(&path).expect("read");
        assert_eq!(
            used_inputs(&root),
            [("web-key".to_owned(), vec!["web".to_owned()])]
        );
    }
}
