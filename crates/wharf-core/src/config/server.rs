//! One server's entry: how it is reached, how long Wharf waits for it, and what it may do (roots, paths outside the
//! workspace, elicitation, a model's calls of its tools).

use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::expand::{mentions_workspace, Expander};
use super::oauth;
use super::transport::{self, TransportDef, TransportKind};
use crate::era::Era;

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
    pub pinned_era: Option<Era>,
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
    /// `"apps": false`: this server's tools show no views (the extension is not declared to it).
    pub apps: bool,
    /// `"oauth": {"clientId", "clientSecret"}`: the client registered beforehand with the server's authorization
    /// server, used at sign-in instead of any registration.
    pub oauth: Option<oauth::PreRegistered>,
    /// The `${input:ID}` ids the definition could not be given a value for (none stored yet, or no keyring): why
    /// `transport` is an error, and what the user can provide to fix it.
    pub missing_inputs: Vec<String>,
    /// `"toolApproval"` and `"trusted"`: how a model's calls of this server's tools are approved.
    pub stance: ServerStance,
}

/// `"pathArguments"`: a path the user sends a server that lies outside every open workspace folder is refused
/// (default: the workspace is what the user agreed to share), sent after the user says yes (`ask`), or sent as is
/// (`allow`, for a server whose job is the whole disk).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ts_rs::TS)]
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
            "{}/{:?}/{:?}/{:?}/{}/{}/{}/{}/{:?}",
            self.definition_hash(),
            self.pinned_era,
            self.probe_timeout,
            self.request_timeout,
            self.expose_roots,
            self.path_arguments.as_str(),
            self.elicitation,
            self.apps,
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

/// A server's default for tool calls that are not the user's own (`"toolApproval"` in its entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum ToolApproval {
    #[default]
    Ask,
    Allow,
    Deny,
}

/// What the configuration says of a server, for the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ServerStance {
    pub approval: ToolApproval,
    /// Only a trusted server's annotations count.
    pub trusted: bool,
}

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
    "apps",
    "disabled",
    "dev",
    "oauth",
    "toolApproval",
    "trusted",
];

/// One server's entry, its unknown keys told in `warnings`; `None` when it is disabled. A setting that cannot be read
/// is the server's error, as its transport's would be.
pub(super) fn parse(
    name: &str,
    def: &Map<String, Value>,
    vars: &Expander<'_>,
    path: &Path,
    warnings: &mut Vec<String>,
) -> Option<ServerDef> {
    for key in def.keys() {
        if !SERVER_KEYS.contains(&key.as_str()) {
            warnings.push(format!(
                "{}: server \"{name}\": unknown key \"{key}\" ignored",
                path.display()
            ));
        }
    }
    if def.get("disabled").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    let pinned_era = match def.get("era").and_then(Value::as_str) {
        None | Some("auto") => Ok(None),
        Some("modern") => Ok(Some(Era::Modern)),
        Some("legacy") => Ok(Some(Era::Legacy)),
        Some(other) => Err(format!(
            "\"era\" must be auto, modern or legacy, not {other:?}"
        )),
    };
    let path_arguments = match def.get("pathArguments") {
        None => Ok(PathArgumentPolicy::default()),
        Some(value) => serde_json::from_value(value.clone())
            .map_err(|_| format!("\"pathArguments\" must be refuse, ask or allow, not {value}")),
    };
    let oauth =
        oauth::parse_client(def, &|v, field| vars.expand(v, field)).map_err(|e| e.to_string());
    let stance = stance(def);
    // A preference that cannot be read must not quietly fall back to one: the server shows why it failed.
    let transport = match (&pinned_era, &path_arguments, &oauth, &stance) {
        (Err(e), _, _, _) | (_, Err(e), _, _) | (_, _, Err(e), _) | (_, _, _, Err(e)) => {
            Err(e.clone())
        }
        _ => transport::parse(def, vars),
    };
    // Only what made this definition fail counts: an input may be missing while an earlier field failed.
    let mut missing_inputs = vars.take_inputs_missing();
    if transport.is_ok() {
        missing_inputs.clear();
    }
    missing_inputs.dedup();
    Some(ServerDef {
        name: name.to_string(),
        missing_inputs,
        transport,
        pinned_era: pinned_era.unwrap_or(None),
        expose_roots: def.get("roots").and_then(Value::as_bool).unwrap_or(true),
        path_arguments: path_arguments.unwrap_or_default(),
        elicitation: def
            .get("elicitation")
            .and_then(Value::as_bool)
            .unwrap_or(true),
        apps: def.get("apps").and_then(Value::as_bool).unwrap_or(true),
        probe_timeout: millis(def, "probeTimeoutMs").unwrap_or(DEFAULT_PROBE_TIMEOUT),
        request_timeout: millis(def, "requestTimeoutMs").unwrap_or(DEFAULT_REQUEST_TIMEOUT),
        uses_workspace: mentions_workspace(def),
        oauth: oauth.unwrap_or(None),
        stance: stance.unwrap_or_default(),
    })
}

fn millis(def: &Map<String, Value>, key: &str) -> Option<Duration> {
    def.get(key)
        .and_then(Value::as_u64)
        .map(Duration::from_millis)
}

/// A server's `toolApproval` and `trusted`. A value that cannot be read is the server's error, as any preference
/// that cannot be read: falling back to a default could let calls through that the user meant to stop.
fn stance(def: &Map<String, Value>) -> Result<ServerStance, String> {
    let approval = match def.get("toolApproval") {
        None => ToolApproval::default(),
        Some(value) => serde_json::from_value(value.clone())
            .map_err(|_| format!("\"toolApproval\" must be ask, allow or deny, not {value}"))?,
    };
    let trusted = match def.get("trusted") {
        None => false,
        Some(Value::Bool(trusted)) => *trusted,
        Some(value) => return Err(format!("\"trusted\" must be true or false, not {value}")),
    };
    Ok(ServerStance { approval, trusted })
}
