//! The configuration file: VS Code-style `mcp.json` (`servers`) and Claude Desktop's `mcpServers`, read as JSONC
//! (comments and trailing commas allowed, as VS Code does).
//!
//! Parsing never panics and never passes an unresolved `${...}` on literally: a server whose definition cannot be
//! resolved keeps its error and is reported as failed, while the other servers still run.

use std::path::{Path, PathBuf};

mod chat;
pub mod edit;
mod expand;
pub mod inputs;
pub mod jsonc;
pub mod oauth;
mod redaction;
mod server;
mod transport;

pub use chat::{ChatConfig, DEFAULT_MAX_STEPS, MAX_STEPS_LIMIT};
pub use expand::{expand, expand_with_workspace, InputResolver};
pub use server::{
    PathArgumentPolicy, ServerDef, ServerStance, ToolApproval, DEFAULT_PROBE_TIMEOUT,
    DEFAULT_REQUEST_TIMEOUT,
};
pub use transport::{TransportDef, TransportKind};

pub use crate::user_dirs::{cache_dir, config_dir, config_home};

use serde_json::Value;

use expand::Expander;

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
        let vars = Expander::new(env, workspace);
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
            if let Some(server) = server::parse(name, def, &vars, path, &mut config.warnings) {
                config.servers.push(server);
            }
        }
        config.input_values = vars.take_inputs_used();
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

/// The file's syntax error with its path (the line and column are the editor's: see [`jsonc::SyntaxError`]).
fn syntax_error(path: &Path, e: jsonc::SyntaxError) -> ConfigError {
    ConfigError::Syntax {
        path: path.to_owned(),
        line: e.line,
        column: e.column,
        message: e.message,
    }
}

#[cfg(test)]
mod tests;
