//! Editing the configuration file: the servers as the user wrote them (variables unexpanded), validated field by
//! field, written back atomically with every other key, comment and line of the file kept as it was.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::jsonc;
use super::jsonc::edit::{self as in_place, EditError};
use super::{expand_with_workspace, ConfigError};
use crate::workspace::vars::WorkspaceVars;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "lowercase")]
pub enum ServerKind {
    Stdio,
    Http,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "lowercase")]
pub enum EraChoice {
    #[default]
    Auto,
    Modern,
    Legacy,
}

/// One server as the user wrote it. Empty strings mean "not set".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ServerEntry {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: ServerKind,
    #[serde(default)]
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub cwd: String,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default)]
    pub era: EraChoice,
}

/// A problem with one field, shown next to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// Checks an entry before it is written. Variables are checked for syntax only: `${env:X}` may be set later.
pub fn validate(entry: &ServerEntry, taken: &[String]) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let name = entry.name.trim();
    if name.is_empty() {
        errors.push(FieldError::new("name", "a server needs a name"));
    } else if name != entry.name {
        errors.push(FieldError::new("name", "no spaces at the start or the end"));
    } else if taken.iter().any(|t| t == name) {
        errors.push(FieldError::new(
            "name",
            format!("a server named \"{name}\" already exists"),
        ));
    }
    let syntax = |field: String, value: &str, errors: &mut Vec<FieldError>| {
        // Any value will do for the check: only the syntax of `${...}` matters here. A workspace variable is fine
        // with no folder open now: the server starts once one is.
        let any_folder = WorkspaceVars::new(&[PathBuf::from("/workspace")]);
        if let Err(e) = expand_with_workspace(
            value,
            &field,
            &|_| Some(String::new()),
            &any_folder,
            Some(&|_| Ok(String::new())),
        ) {
            errors.push(FieldError::new(field, e.to_string()));
        }
    };
    match entry.kind {
        ServerKind::Stdio => {
            if entry.command.trim().is_empty() {
                errors.push(FieldError::new("command", "a stdio server needs a command"));
            }
            syntax("command".into(), &entry.command, &mut errors);
            for (i, arg) in entry.args.iter().enumerate() {
                syntax(format!("args[{i}]"), arg, &mut errors);
            }
            syntax("cwd".into(), &entry.cwd, &mut errors);
        }
        ServerKind::Http => {
            let url = entry.url.trim();
            if url.is_empty() {
                errors.push(FieldError::new("url", "an http server needs a URL"));
            } else if !(url.starts_with("http://") || url.starts_with("https://")) {
                errors.push(FieldError::new(
                    "url",
                    "the URL must start with http:// or https://",
                ));
            }
            syntax("url".into(), &entry.url, &mut errors);
            for (key, value) in &entry.headers {
                if key.is_empty()
                    || !key
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-_".contains(&b))
                {
                    errors.push(FieldError::new(
                        format!("headers.{key}"),
                        "not a valid header name",
                    ));
                }
                syntax(format!("headers.{key}"), value, &mut errors);
            }
        }
    }
    for (key, value) in &entry.env {
        if key.is_empty() || key.contains('=') || key.contains('\0') {
            errors.push(FieldError::new(
                format!("env.{key}"),
                "not a valid variable name",
            ));
        }
        syntax(format!("env.{key}"), value, &mut errors);
    }
    errors
}

/// The configuration file as a document. Edits change the text in place (see [`super::jsonc::edit`]): the user's
/// comments and layout, and every key the edit is not about, stay byte for byte.
#[derive(Debug, Clone)]
pub struct ConfigDocument {
    pub path: PathBuf,
    /// The file's text, edited; what [`ConfigDocument::save`] writes.
    text: String,
    /// `text` parsed, for reading.
    root: Map<String, Value>,
    /// `servers` (VS Code) or `mcpServers` (Claude Desktop): whichever the file uses.
    key: &'static str,
}

impl ConfigDocument {
    /// Reads the file; a missing file is an empty document (the first server creates it).
    pub fn load(path: &Path) -> Result<ConfigDocument, ConfigError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => "{}\n".into(),
            Err(source) => {
                return Err(ConfigError::Read {
                    path: path.to_owned(),
                    source,
                })
            }
        };
        let root = parse_root(path, &text)?;
        let key = if root.contains_key("mcpServers") && !root.contains_key("servers") {
            "mcpServers"
        } else {
            "servers"
        };
        Ok(ConfigDocument {
            path: path.to_owned(),
            text,
            root,
            key,
        })
    }

    /// The text as it would be saved.
    pub fn text(&self) -> &str {
        &self.text
    }

    fn servers(&self) -> Option<&Map<String, Value>> {
        self.root.get(self.key).and_then(Value::as_object)
    }

    pub fn entries(&self) -> Vec<ServerEntry> {
        self.servers()
            .map(|servers| {
                servers
                    .iter()
                    .filter_map(|(name, def)| entry_of(name, def))
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn names(&self) -> Vec<String> {
        self.servers()
            .map(|s| s.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Adds `entry`, or replaces the server called `previous` (renaming it if the name changed, in the same place).
    /// Keys of the old definition that the entry does not describe (`disabled`, timeouts...) are kept, and so are
    /// the comments; a change that would drop one is refused, on the field it is about.
    pub fn upsert(
        &mut self,
        previous: Option<&str>,
        entry: &ServerEntry,
    ) -> Result<(), Vec<FieldError>> {
        let taken: Vec<String> = self
            .names()
            .into_iter()
            .filter(|n| Some(n.as_str()) != previous)
            .collect();
        let errors = validate(entry, &taken);
        if !errors.is_empty() {
            return Err(errors);
        }
        let old = previous
            .and_then(|p| self.servers()?.get(p))
            .and_then(Value::as_object)
            .cloned();
        let mut def = old.clone().unwrap_or_default();
        write_entry(&mut def, entry);
        let on_name = |e: EditError| vec![FieldError::new("name", e.0)];
        let text = match (previous, old) {
            (Some(previous), Some(old)) => {
                let mut text = self.text.clone();
                if previous != entry.name {
                    text = in_place::rename(&text, &[self.key, previous], &entry.name)
                        .map_err(on_name)?;
                }
                // Key by key, so that the definition's own comments and layout stay.
                let path = [self.key, entry.name.as_str()];
                for key in old.keys().filter(|k| !def.contains_key(*k)) {
                    text = in_place::remove(&text, &[path[0], path[1], key])
                        .map_err(|e| vec![FieldError::new(key.clone(), e.0)])?;
                }
                for (key, value) in &def {
                    text = in_place::set(&text, &[path[0], path[1], key], value)
                        .map_err(|e| vec![FieldError::new(key.clone(), e.0)])?;
                }
                text
            }
            _ => in_place::set(&self.text, &[self.key, &entry.name], &Value::Object(def))
                .map_err(on_name)?,
        };
        self.replace_text(text).map_err(on_name)
    }

    /// Removes the server called `name`; comments inside its definition stay where it was. False when there is no
    /// such server (or, never expected from a file that loaded, when the text could not be edited: logged).
    pub fn remove(&mut self, name: &str) -> bool {
        if !self.names().iter().any(|n| n == name) {
            return false;
        }
        match in_place::remove(&self.text, &[self.key, name])
            .and_then(|text| self.replace_text(text))
        {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(server = name, "cannot remove the server: {e}");
                false
            }
        }
    }

    /// Sets `key` in the definition of the server called `name` (a preference the app keeps there).
    pub fn set_server_key(&mut self, name: &str, key: &str, value: Value) -> Result<(), EditError> {
        if !self.names().iter().any(|n| n == name) {
            return Err(EditError(format!("there is no server \"{name}\"")));
        }
        let text = in_place::set(&self.text, &[self.key, name, key], &value)?;
        self.replace_text(text)
    }

    /// Sets `sampling.provider` (the model the user's sampling goes to), or removes it, and `sampling` with it when
    /// nothing else is left in it.
    pub fn set_sampling_provider(
        &mut self,
        provider: Option<&crate::model::ProviderConfig>,
    ) -> Result<(), EditError> {
        let sampling = match self.root.get("sampling") {
            None => None,
            Some(Value::Object(sampling)) => Some(sampling),
            Some(_) => return Err(EditError("\"sampling\" must be a JSON object".into())),
        };
        let text = match provider {
            Some(provider) => {
                let value = serde_json::to_value(provider).map_err(|e| EditError(e.to_string()))?;
                in_place::set(&self.text, &["sampling", "provider"], &value)?
            }
            None => match sampling {
                None => return Ok(()),
                Some(sampling) if sampling.keys().all(|k| k == "provider") => {
                    in_place::remove(&self.text, &["sampling"])?
                }
                Some(_) => in_place::remove(&self.text, &["sampling", "provider"])?,
            },
        };
        self.replace_text(text)
    }

    /// Sets the model chat uses: `chat.provider.model` when chat has a provider of its own. When it shares the
    /// sampling provider, chat is given a copy of it with that model (every other key as written), so that the
    /// model servers' sampling requests go to stays the one the user chose for them.
    pub fn set_chat_model(&mut self, model: &str) -> Result<(), EditError> {
        let provider_of = |section: &str| -> Result<Option<&Map<String, Value>>, EditError> {
            match self.root.get(section) {
                None => Ok(None),
                Some(Value::Object(s)) => match s.get("provider") {
                    None => Ok(None),
                    Some(Value::Object(p)) => Ok(Some(p)),
                    Some(_) => Err(EditError(format!(
                        "\"{section}.provider\" must be a JSON object"
                    ))),
                },
                Some(_) => Err(EditError(format!("\"{section}\" must be a JSON object"))),
            }
        };
        let model = Value::String(model.to_string());
        let text = if provider_of("chat")?.is_some() {
            in_place::set(&self.text, &["chat", "provider", "model"], &model)?
        } else if let Some(shared) = provider_of("sampling")? {
            let mut own = shared.clone();
            own.insert("model".into(), model);
            in_place::set(&self.text, &["chat", "provider"], &Value::Object(own))?
        } else {
            return Err(EditError(
                "the file names no model provider (\"chat.provider\" or \"sampling.provider\")"
                    .into(),
            ));
        };
        self.replace_text(text)
    }

    /// Makes a model found on this computer chat's: `chat.provider` becomes the OpenAI-compatible runtime at
    /// `base_url` with `model` (whatever chat's provider was), and `chat.tools` says `false` only when the runtime
    /// said the model takes no tools (the key is taken out otherwise, so a stale `false` does not stay).
    pub fn set_chat_local_model(
        &mut self,
        base_url: &str,
        model: &str,
        takes_tools: bool,
    ) -> Result<(), EditError> {
        if let Some(chat) = self.root.get("chat") {
            if !chat.is_object() {
                return Err(EditError("\"chat\" must be a JSON object".into()));
            }
        }
        let provider = serde_json::json!({"kind": "openai", "baseUrl": base_url, "model": model});
        let text = in_place::set(&self.text, &["chat", "provider"], &provider)?;
        self.replace_text(text)?;
        self.set_chat_tools(takes_tools)
    }

    /// `chat.tools`: `false` when the chosen model takes no tools; taken out when it does or may, so that a stale
    /// `false` from an earlier model does not keep the tools from the next.
    pub fn set_chat_tools(&mut self, takes_tools: bool) -> Result<(), EditError> {
        let written =
            matches!(self.root.get("chat"), Some(Value::Object(c)) if c.contains_key("tools"));
        let text = if !takes_tools {
            in_place::set(&self.text, &["chat", "tools"], &Value::Bool(false))?
        } else if written {
            in_place::remove(&self.text, &["chat", "tools"])?
        } else {
            return Ok(());
        };
        self.replace_text(text)
    }

    fn replace_text(&mut self, text: String) -> Result<(), EditError> {
        match parse_root(&self.path, &text) {
            Ok(root) => {
                self.root = root;
                self.text = text;
                Ok(())
            }
            // Never written: the edit made a file that would not load.
            Err(e) => Err(EditError(format!("the edit would break the file: {e}"))),
        }
    }

    pub fn save(&self) -> std::io::Result<()> {
        crate::fsutil::write_atomic(&self.path, self.text.as_bytes())
    }
}

fn parse_root(path: &Path, text: &str) -> Result<Map<String, Value>, ConfigError> {
    match jsonc::parse(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ConfigError::Invalid {
            path: path.to_owned(),
            message: "the top level must be a JSON object".into(),
        }),
        Err(e) => Err(super::syntax_error(path, e)),
    }
}

fn entry_of(name: &str, def: &Value) -> Option<ServerEntry> {
    let def = def.as_object()?;
    let text = |key: &str| {
        def.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let map = |key: &str| -> BTreeMap<String, String> {
        def.get(key)
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| {
                        (
                            k.clone(),
                            v.as_str()
                                .map(str::to_string)
                                .unwrap_or_else(|| v.to_string()),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let kind = match def.get("type").and_then(Value::as_str) {
        Some("http" | "streamableHttp" | "streamable-http") => ServerKind::Http,
        Some(_) => ServerKind::Stdio,
        None if def.contains_key("url") && !def.contains_key("command") => ServerKind::Http,
        None => ServerKind::Stdio,
    };
    let era = match def.get("era").and_then(Value::as_str) {
        Some("modern") => EraChoice::Modern,
        Some("legacy") => EraChoice::Legacy,
        _ => EraChoice::Auto,
    };
    Some(ServerEntry {
        name: name.to_string(),
        kind,
        command: text("command"),
        args: def
            .get("args")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|v| {
                        v.as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| v.to_string())
                    })
                    .collect()
            })
            .unwrap_or_default(),
        env: map("env"),
        cwd: text("cwd"),
        url: text("url"),
        headers: map("headers"),
        era,
    })
}

fn write_entry(def: &mut Map<String, Value>, entry: &ServerEntry) {
    let mut set = |key: &str, value: Option<Value>| match value {
        Some(v) => {
            def.insert(key.to_string(), v);
        }
        None => {
            def.shift_remove(key);
        }
    };
    let text = |s: &str| (!s.trim().is_empty()).then(|| Value::String(s.to_string()));
    let map = |m: &BTreeMap<String, String>| {
        (!m.is_empty()).then(|| {
            Value::Object(
                m.iter()
                    .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                    .collect(),
            )
        })
    };
    match entry.kind {
        ServerKind::Stdio => {
            set("type", Some(Value::String("stdio".into())));
            set("command", text(&entry.command));
            set(
                "args",
                (!entry.args.is_empty())
                    .then(|| entry.args.iter().cloned().map(Value::String).collect()),
            );
            set("cwd", text(&entry.cwd));
            set("url", None);
            set("headers", None);
        }
        ServerKind::Http => {
            set("type", Some(Value::String("http".into())));
            set("url", text(&entry.url));
            set("headers", map(&entry.headers));
            set("command", None);
            set("args", None);
            set("cwd", None);
        }
    }
    set("env", map(&entry.env));
    set(
        "era",
        match entry.era {
            EraChoice::Auto => None,
            EraChoice::Modern => Some(Value::String("modern".into())),
            EraChoice::Legacy => Some(Value::String("legacy".into())),
        },
    );
}

/// A configuration of another host found on this machine, offered for import.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ImportSource {
    pub id: String,
    pub label: String,
    pub path: String,
    pub entries: Vec<ServerEntry>,
    pub error: Option<String>,
}

/// The places Claude Desktop and VS Code (and its forks) keep their MCP servers, under `home` and `config_home`.
/// Only these are read: the UI never names a file.
pub fn import_sources(config_home: &Path) -> Vec<ImportSource> {
    let candidates = [
        (
            "claude",
            "Claude Desktop",
            config_home.join("Claude/claude_desktop_config.json"),
        ),
        ("vscode", "VS Code", config_home.join("Code/User/mcp.json")),
        (
            "vscode-insiders",
            "VS Code Insiders",
            config_home.join("Code - Insiders/User/mcp.json"),
        ),
        (
            "vscodium",
            "VSCodium",
            config_home.join("VSCodium/User/mcp.json"),
        ),
        ("cursor", "Cursor", config_home.join("Cursor/User/mcp.json")),
    ];
    candidates
        .into_iter()
        .filter(|(_, _, path)| path.is_file())
        .map(|(id, label, path)| {
            let (entries, error) = match ConfigDocument::load(&path) {
                Ok(doc) => (doc.entries(), None),
                Err(e) => (Vec::new(), Some(e.to_string())),
            };
            ImportSource {
                id: id.into(),
                label: label.into(),
                path: path.display().to_string(),
                entries,
                error,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
