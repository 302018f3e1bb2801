//! The configuration file: VS Code-style `mcp.json` (`servers`) and Claude Desktop's `mcpServers`, read as JSONC
//! (comments and trailing commas allowed, as VS Code does).
//!
//! Parsing never panics and never passes an unresolved `${...}` on literally: a server whose definition cannot be
//! resolved keeps its error and is reported as failed, while the other servers still run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

mod chat;
pub mod edit;
pub mod inputs;
pub mod jsonc;
pub mod oauth;

pub use chat::{ChatConfig, DEFAULT_MAX_STEPS, MAX_STEPS_LIMIT};

pub use crate::user_dirs::{cache_dir, config_dir, config_home};
mod redaction;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::workspace::vars::WorkspaceVars;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: {message}")]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

/// How a server is reached, with every variable already expanded.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum TransportDef {
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cwd: Option<PathBuf>,
    },
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

/// One configured server. `transport` is `Err` when the definition could not be resolved (an unset environment
/// variable, an unsupported variable, a missing field): the server is shown as failed with that reason.
#[derive(Debug, Clone)]
pub struct ServerDef {
    pub name: String,
    pub transport: Result<TransportDef, String>,
    /// How long the era probe waits before taking a silent server for a legacy one.
    pub probe_timeout: Duration,
    /// How long one request may go without a response or a progress notification.
    pub request_timeout: Duration,
    /// The era the user pinned (`"era": "modern" | "legacy"`): no probe, no fallback.
    pub pinned_era: Option<crate::era::Era>,
    /// The definition mentions `${workspaceFolder}`, `${workspaceFolders}` or `${workspaceFolderBasename}`: its
    /// expansion depends on the open folders, so the host expands it again and restarts the server when they change
    /// (also when it failed for want of an open folder: opening one can fix it).
    pub uses_workspace: bool,
    /// `"roots": false` shows this server no roots (it gets an empty list); default: the workspace's roots.
    pub expose_roots: bool,
    /// What happens to a path argument outside the open workspace folders that the user sends this server.
    pub path_arguments: PathArgumentPolicy,
    /// `"elicitation": false`: this server may not ask the user anything (the capability is not declared to it).
    pub elicitation: bool,
    /// `"oauth": {"clientId", "clientSecret"}`: the client registered beforehand with the server's authorization
    /// server, used at sign-in instead of any registration.
    pub oauth: Option<oauth::PreRegistered>,
    /// The `${input:ID}` ids the definition could not be given a value for (none stored yet, or no keyring): why
    /// `transport` is an error, and what the user can provide to fix it.
    pub missing_inputs: Vec<String>,
    /// `"toolApproval"` and `"trusted"`: how a model's calls of this server's tools are approved.
    pub stance: crate::approval::card::ServerStance,
}

/// `"pathArguments"`: a path the user sends a server that lies outside every open workspace folder is refused
/// (default: the workspace is what the user agreed to share), sent after the user says yes (`ask`), or sent as is
/// (`allow`, for a server whose job is the whole disk).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize, ts_rs::TS,
)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum PathArgumentPolicy {
    #[default]
    Refuse,
    Ask,
    Allow,
}

impl PathArgumentPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            PathArgumentPolicy::Refuse => "refuse",
            PathArgumentPolicy::Ask => "ask",
            PathArgumentPolicy::Allow => "allow",
        }
    }
}

pub const DEFAULT_PROBE_TIMEOUT: Duration = Duration::from_secs(30);
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

impl ServerDef {
    /// A stable identity of what this server runs: the same command, arguments, environment and URL give the same
    /// hash, so cached facts (the era) are dropped when the definition changes.
    pub fn definition_hash(&self) -> String {
        let canonical = match &self.transport {
            Ok(t) => serde_json::to_string(t).unwrap_or_default(),
            Err(e) => format!("unresolved:{e}"),
        };
        let digest = Sha256::digest(canonical.as_bytes());
        digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
    }

    /// Everything that, when changed, needs the server restarted.
    pub fn fingerprint(&self) -> String {
        format!(
            "{}/{:?}/{:?}/{:?}/{}/{}/{}/{:?}",
            self.definition_hash(),
            self.pinned_era,
            self.probe_timeout,
            self.request_timeout,
            self.expose_roots,
            self.path_arguments.as_str(),
            self.elicitation,
            self.oauth.as_ref().map(|o| &o.client_id)
        )
    }

    pub fn kind(&self) -> TransportKind {
        match &self.transport {
            Ok(TransportDef::Stdio { .. }) => TransportKind::Stdio,
            Ok(TransportDef::Http { .. }) => TransportKind::Http,
            Err(_) => TransportKind::Invalid,
        }
    }
}

/// How a server is reached, as its summary says; `invalid` when its definition cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum TransportKind {
    Stdio,
    Http,
    Invalid,
}

impl std::fmt::Display for TransportKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TransportKind::Stdio => "stdio",
            TransportKind::Http => "http",
            TransportKind::Invalid => "invalid",
        })
    }
}

#[derive(Debug, Clone, Default)]
pub struct Config {
    pub path: PathBuf,
    pub servers: Vec<ServerDef>,
    /// `sampling.provider`: the LLM that answers servers' sampling requests; `Err` says why it cannot be used.
    pub sampling_provider: Option<Result<crate::model::ProviderConfig, String>>,
    /// `chat`: the model a conversation talks to, and how far one turn may go.
    pub chat: ChatConfig,
    /// Non-fatal problems (unknown keys) to show the user.
    pub warnings: Vec<String>,
    /// The `${input:ID}` values this configuration was expanded with, wherever they were used (args, URL, env,
    /// headers): what the redactor must keep out of every output.
    pub input_values: Vec<crate::secrets::Secret>,
}

/// Where Wharf looks for its configuration when `--config` is not given.
pub fn default_config_path() -> PathBuf {
    config_dir().join("mcp.json")
}

const TOP_LEVEL_KEYS: &[&str] = &[
    "servers",
    "mcpServers",
    "inputs",
    "sampling",
    "chat",
    "$schema",
];
const SERVER_KEYS: &[&str] = &[
    "type",
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "envFile",
    "probeTimeoutMs",
    "requestTimeoutMs",
    "era",
    "roots",
    "pathArguments",
    "elicitation",
    "disabled",
    "dev",
    "oauth",
    "toolApproval",
    "trusted",
];

impl Config {
    /// Loads with no workspace folder open: a server that uses a workspace variable is shown as failed.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        Config::load_with_workspace(path, &[])
    }

    /// Loads `path`, expanding `${env:NAME}` from the process environment and the workspace variables from
    /// `workspace` (the open folders, in order).
    pub fn load_with_workspace(path: &Path, workspace: &[PathBuf]) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        Config::parse_with_workspace(path, &text, &|name| std::env::var(name).ok(), workspace)
    }

    /// Parses `text` (read from `path`, used in messages) with no workspace folder open; `env` resolves
    /// `${env:NAME}`.
    pub fn parse(
        path: &Path,
        text: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        Config::parse_with_workspace(path, text, env, &[])
    }

    /// Parses `text` (read from `path`, used in messages); `env` resolves `${env:NAME}`, `workspace` (the open
    /// folders, the first one being `${workspaceFolder}`) the workspace variables.
    pub fn parse_with_workspace(
        path: &Path,
        text: &str,
        env: &dyn Fn(&str) -> Option<String>,
        workspace: &[PathBuf],
    ) -> Result<Config, ConfigError> {
        let vars = Expander {
            env,
            workspace: WorkspaceVars::new(workspace),
            inputs_used: std::cell::RefCell::default(),
            inputs_missing: std::cell::RefCell::default(),
        };
        let invalid = |message: String| ConfigError::Invalid {
            path: path.to_owned(),
            message,
        };
        let root = jsonc::parse(text).map_err(|e| syntax_error(path, e))?;
        let Value::Object(root) = root else {
            return Err(invalid("the top level must be a JSON object".into()));
        };
        let mut config = Config {
            path: path.to_owned(),
            ..Config::default()
        };
        for key in root.keys() {
            if !TOP_LEVEL_KEYS.contains(&key.as_str()) {
                config
                    .warnings
                    .push(format!("{}: unknown key \"{key}\" ignored", path.display()));
            }
        }
        config.sampling_provider = root
            .get("sampling")
            .and_then(|sampling| sampling.get("provider"))
            .map(|provider| {
                crate::model::ProviderConfig::from_json(provider)
                    .map_err(|e| format!("{}: sampling.provider: {e}", path.display()))
            });
        config.chat = chat::parse(root.get("chat"), path, &mut config.warnings);
        let servers = match (root.get("servers"), root.get("mcpServers")) {
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "both \"servers\" and \"mcpServers\" are present; keep one".into(),
                ))
            }
            (Some(s), None) | (None, Some(s)) => s,
            (None, None) => return Ok(config),
        };
        let Value::Object(servers) = servers else {
            return Err(invalid(
                "\"servers\" must be an object of named servers".into(),
            ));
        };
        for (name, def) in servers {
            if name.trim().is_empty() {
                return Err(invalid("a server has an empty name".into()));
            }
            let Value::Object(def) = def else {
                return Err(invalid(format!("server \"{name}\" must be an object")));
            };
            for key in def.keys() {
                if !SERVER_KEYS.contains(&key.as_str()) {
                    config.warnings.push(format!(
                        "{}: server \"{name}\": unknown key \"{key}\" ignored",
                        path.display()
                    ));
                }
            }
            if def.get("disabled").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            let pinned_era = match def.get("era").and_then(Value::as_str) {
                None | Some("auto") => Ok(None),
                Some("modern") => Ok(Some(crate::era::Era::Modern)),
                Some("legacy") => Ok(Some(crate::era::Era::Legacy)),
                Some(other) => Err(format!(
                    "\"era\" must be auto, modern or legacy, not {other:?}"
                )),
            };
            let path_arguments = match def.get("pathArguments") {
                None => Ok(PathArgumentPolicy::default()),
                Some(value) => serde_json::from_value(value.clone()).map_err(|_| {
                    format!("\"pathArguments\" must be refuse, ask or allow, not {value}")
                }),
            };
            let oauth = oauth::parse_client(def, &|v, field| vars.expand(v, field));
            let stance = chat::stance(def);
            // A preference that cannot be read must not quietly fall back to one: the server shows why it failed.
            let transport = match (&pinned_era, &path_arguments, &oauth, &stance) {
                (Err(e), _, _, _) | (_, Err(e), _, _) | (_, _, Err(e), _) | (_, _, _, Err(e)) => {
                    Err(e.clone())
                }
                _ => parse_transport(def, &vars),
            };
            // Only what made this definition fail counts: an input may be missing while an earlier field failed.
            let mut missing_inputs = vars.inputs_missing.take();
            if transport.is_ok() {
                missing_inputs.clear();
            }
            missing_inputs.dedup();
            config.servers.push(ServerDef {
                name: name.clone(),
                missing_inputs,
                transport,
                pinned_era: pinned_era.unwrap_or(None),
                expose_roots: def.get("roots").and_then(Value::as_bool).unwrap_or(true),
                path_arguments: path_arguments.unwrap_or_default(),
                elicitation: def
                    .get("elicitation")
                    .and_then(Value::as_bool)
                    .unwrap_or(true),
                probe_timeout: millis(def, "probeTimeoutMs").unwrap_or(DEFAULT_PROBE_TIMEOUT),
                request_timeout: millis(def, "requestTimeoutMs").unwrap_or(DEFAULT_REQUEST_TIMEOUT),
                uses_workspace: mentions_workspace(def),
                oauth: oauth.unwrap_or(None),
                stance: stance.unwrap_or_default(),
            });
        }
        config.input_values = vars.inputs_used.take();
        Ok(config)
    }

    pub fn server(&self, name: &str) -> Option<&ServerDef> {
        self.servers.iter().find(|s| s.name == name)
    }

    /// The model chat talks to: `chat.provider`, else the sampling provider.
    pub fn chat_provider(&self) -> Option<&Result<crate::model::ProviderConfig, String>> {
        self.chat
            .provider
            .as_ref()
            .or(self.sampling_provider.as_ref())
    }
}

fn millis(def: &Map<String, Value>, key: &str) -> Option<Duration> {
    def.get(key)
        .and_then(Value::as_u64)
        .map(Duration::from_millis)
}

/// The file's syntax error with its path (the line and column are the editor's: see [`jsonc::SyntaxError`]).
fn syntax_error(path: &Path, e: jsonc::SyntaxError) -> ConfigError {
    ConfigError::Syntax {
        path: path.to_owned(),
        line: e.line,
        column: e.column,
        message: e.message,
    }
}

/// What `${...}` expands from while one configuration is parsed.
struct Expander<'a> {
    env: &'a dyn Fn(&str) -> Option<String>,
    workspace: WorkspaceVars,
    inputs_used: std::cell::RefCell<Vec<crate::secrets::Secret>>,
    /// The inputs asked for that had no value, since the last server's definition was parsed.
    inputs_missing: std::cell::RefCell<Vec<String>>,
}

impl Expander<'_> {
    fn expand(&self, value: &str, field: &str) -> Result<String, String> {
        let input = |id: &str| {
            let value = input_from_keyring(id)
                .inspect_err(|_| self.inputs_missing.borrow_mut().push(id.to_string()))?;
            self.inputs_used
                .borrow_mut()
                .push(crate::secrets::Secret::new(value.clone()));
            Ok(value)
        };
        expand_with_workspace(value, field, self.env, &self.workspace, Some(&input))
    }

    /// One configured argument, which may become several: a whole-argument `${workspaceFolders}` gives one argument
    /// per folder.
    fn arg(&self, value: &Value, field: &str) -> Result<Vec<String>, String> {
        match value {
            Value::String(s) => match self.workspace.split_whole_arg(s) {
                Some(split) => split.map_err(|e| format!("{field}: {e}")),
                None => Ok(vec![self.expand(s, field)?]),
            },
            // A number or a boolean is meant as its text; a list or an object is no argument (passed on as JSON
            // text, the variables inside it would go out unexpanded).
            Value::Array(_) | Value::Object(_) => Err(format!(
                "{field} must be a string, not {}",
                if value.is_array() {
                    "a list"
                } else {
                    "an object"
                }
            )),
            other => Ok(vec![other.to_string()]),
        }
    }
}

/// The fields whose variables are expanded.
const EXPANDED_KEYS: &[&str] = &["command", "args", "env", "cwd", "url", "headers"];

/// Whether any expanded field of `def` names a workspace variable. Found from the text rather than during expansion,
/// so that a definition that failed earlier (an unset `${env:...}`) is still known to depend on the workspace.
fn mentions_workspace(def: &Map<String, Value>) -> bool {
    fn strings(value: &Value) -> Vec<&str> {
        match value {
            Value::String(s) => vec![s.as_str()],
            Value::Array(items) => items.iter().flat_map(strings).collect(),
            Value::Object(map) => map.values().flat_map(strings).collect(),
            _ => Vec::new(),
        }
    }
    EXPANDED_KEYS
        .iter()
        .filter_map(|key| def.get(*key))
        .flat_map(strings)
        .any(|s| variables(s).any(WorkspaceVars::is_workspace_var))
}

/// The names inside each complete `${...}` of `value`.
fn variables(value: &str) -> impl Iterator<Item = &str> {
    let mut rest = value;
    std::iter::from_fn(move || {
        let start = rest.find("${")?;
        let after = &rest[start + 2..];
        let end = after.find('}')?;
        rest = &after[end + 1..];
        Some(&after[..end])
    })
}

fn parse_transport(def: &Map<String, Value>, vars: &Expander<'_>) -> Result<TransportDef, String> {
    let kind = match def.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(_) => return Err("\"type\" must be a string".into()),
        None if def.contains_key("command") => "stdio",
        None if def.contains_key("url") => "http",
        None => return Err("needs a \"command\" (stdio) or a \"url\" (http)".into()),
    };
    match kind {
        "stdio" => {
            let command = string_field(def, "command")?
                .ok_or_else(|| "a stdio server needs a \"command\"".to_string())?;
            let command = vars.expand(&command, "command")?;
            if command.trim().is_empty() {
                return Err("\"command\" is empty".into());
            }
            let args = match def.get("args") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => {
                    let mut args = Vec::with_capacity(items.len());
                    for (i, v) in items.iter().enumerate() {
                        args.extend(vars.arg(v, &format!("args[{i}]"))?);
                    }
                    args
                }
                Some(_) => return Err("\"args\" must be an array of strings".into()),
            };
            let env_map = string_map(def, "env", vars)?;
            let cwd = string_field(def, "cwd")?
                .map(|c| vars.expand(&c, "cwd").map(PathBuf::from))
                .transpose()?;
            Ok(TransportDef::Stdio {
                command,
                args,
                env: env_map,
                cwd,
            })
        }
        "http" | "streamableHttp" | "streamable-http" => {
            let url = string_field(def, "url")?
                .ok_or_else(|| "an http server needs a \"url\"".to_string())?;
            let url = vars.expand(&url, "url")?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!(
                    "\"url\" must start with http:// or https://, got {url:?}"
                ));
            }
            Ok(TransportDef::Http {
                url,
                headers: string_map(def, "headers", vars)?,
            })
        }
        "sse" => {
            Err("the deprecated HTTP+SSE transport is not supported; use Streamable HTTP".into())
        }
        other => Err(format!(
            "unknown server type \"{other}\" (expected stdio or http)"
        )),
    }
}

fn string_field(def: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match def.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("\"{key}\" must be a string")),
    }
}

fn string_map(
    def: &Map<String, Value>,
    key: &str,
    vars: &Expander<'_>,
) -> Result<BTreeMap<String, String>, String> {
    match def.get(key) {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| {
                let raw = match v {
                    Value::String(s) => s.clone(),
                    Value::Null => String::new(),
                    other => other.to_string(),
                };
                Ok((k.clone(), vars.expand(&raw, &format!("{key}.{k}"))?))
            })
            .collect(),
        Some(_) => Err(format!("\"{key}\" must be an object of strings")),
    }
}

/// Expands `${env:NAME}` with no workspace folder open (a workspace variable is an error saying so); see
/// [`expand_with_workspace`].
pub fn expand(
    value: &str,
    field: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, String> {
    expand_with_workspace(value, field, env, &WorkspaceVars::default(), None)
}

/// Resolves `${input:ID}` to its value, or says why it cannot.
pub type InputResolver<'a> = &'a dyn Fn(&str) -> Result<String, String>;

/// `${input:ID}`: the value the user stored in the OS keyring (`wharf secret set input:ID`, or the app's prompt).
/// The keyring is opened only when a configuration uses an input.
fn input_from_keyring(id: &str) -> Result<String, String> {
    let store = crate::secrets::SecretStore::open().map_err(|e| format!("${{input:{id}}}: {e}"))?;
    match crate::secrets::lookup_input(&store, id) {
        Ok(Some(secret)) => Ok(secret.into_inner()),
        Ok(None) => Err(format!(
            "${{input:{id}}} has no value yet: store it with `wharf secret set {}` (value on stdin)",
            crate::secrets::input_secret_name(id)
        )),
        Err(e) => Err(format!("${{input:{id}}}: {e}")),
    }
}

/// Expands `${env:NAME}` and the workspace variables (`${workspaceFolder}`, `${workspaceFolderBasename}`, and
/// `${workspaceFolders}` joined with the path-list separator: only `args` split a whole-argument one into several).
/// `${input:ID}` comes from `inputs` (the keyring), or is an error where inputs are not offered; anything else in
/// `${...}` is an error. Never returns a string that still holds an unresolved variable. Errors start with `field`.
pub fn expand_with_workspace(
    value: &str,
    field: &str,
    env: &dyn Fn(&str) -> Option<String>,
    workspace: &WorkspaceVars,
    inputs: Option<InputResolver<'_>>,
) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("{field}: unterminated \"${{\" in {value:?}"));
        };
        let var = &after[..end];
        if let Some(name) = var.strip_prefix("env:") {
            match env(name) {
                Some(v) => out.push_str(&v),
                None => {
                    return Err(format!(
                        "{field}: environment variable {name} is not set (from ${{env:{name}}})"
                    ))
                }
            }
        } else if let Some(resolved) = workspace.lookup(var) {
            out.push_str(&resolved.map_err(|e| format!("{field}: {e}"))?);
        } else if let Some(id) = var.strip_prefix("input:") {
            let Some(inputs) = inputs else {
                return Err(format!("{field}: ${{{var}}} cannot be used here"));
            };
            out.push_str(&inputs(id).map_err(|e| format!("{field}: {e}"))?);
        } else {
            return Err(format!("{field}: unknown variable ${{{var}}}"));
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests;
