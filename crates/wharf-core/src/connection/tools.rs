//! The tool list a connection keeps, the path parameters found in it, and the path-argument check of every user call
//! that needs them: neither a `tools/list` nor the schema walk should be paid per call.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::JsonObject;

use super::{Connection, ConnectionError, Refusal, ToolInfo};
use crate::config::{PathArgumentPolicy, ServerDef, TransportDef};
use crate::events::HostEvent;
use crate::question::{InputAnswer, InputKind, InputRequest};
use crate::workspace::paths::SchemaPaths;

/// The tool list as last read, with the `tools_version` it was read at and the path parameters found in it so far.
pub(super) struct KeptTools {
    pub(super) version: u64,
    pub(super) list: Arc<Vec<ToolInfo>>,
    pub(super) path_params: std::collections::HashMap<String, Arc<SchemaPaths>>,
}

/// Where the server resolves a relative path: a stdio server's working directory, the `cwd` of its entry (itself
/// relative to Wharf's) or else Wharf's own, which it inherits. Read when the server starts, as the server's is.
/// An HTTP server's is not Wharf's to know.
pub(super) fn server_cwd(def: &ServerDef) -> Option<PathBuf> {
    let Ok(TransportDef::Stdio { cwd, .. }) = &def.transport else {
        return None;
    };
    match cwd {
        Some(cwd) if cwd.is_absolute() => Some(cwd.clone()),
        Some(cwd) => std::env::current_dir().ok().map(|here| here.join(cwd)),
        None => std::env::current_dir().ok(),
    }
}

impl Connection {
    /// The tool list as last read, unless the server said since that its tools changed; else read now.
    pub(crate) async fn current_tools(&self) -> Result<Arc<Vec<ToolInfo>>, ConnectionError> {
        let cached = self
            .tools
            .lock()
            .ok()
            .and_then(|c| c.as_ref().map(|k| (k.version, k.list.clone())));
        if let Some((version, tools)) = cached {
            if version == self.tools_version.get() {
                return Ok(tools);
            }
        }
        Ok(Arc::new(self.list_tools().await?))
    }

    /// Whether the kept tool list, still current, already says that `tool` takes no path argument: the answer of
    /// nearly every call, given without a future (the check's own is large, and would be allocated per call).
    pub(super) fn takes_no_paths(&self, tool: &str) -> bool {
        let Ok(kept) = self.tools.lock() else {
            return false;
        };
        kept.as_ref().is_some_and(|k| {
            k.version == self.tools_version.get()
                && k.path_params.get(tool).is_some_and(|p| p.is_empty())
        })
    }

    /// The path parameters of `tool` from the list `list` (and what of its schema cannot be followed), found once
    /// per kept list.
    pub(crate) fn path_params(
        &self,
        list: &Arc<Vec<ToolInfo>>,
        tool: &ToolInfo,
    ) -> Arc<SchemaPaths> {
        let kept_for_list = |kept: &KeptTools| Arc::ptr_eq(&kept.list, list);
        if let Ok(cached) = self.tools.lock() {
            if let Some(params) = cached
                .as_ref()
                .filter(|k| kept_for_list(k))
                .and_then(|k| k.path_params.get(&tool.name))
            {
                return params.clone();
            }
        }
        let params = Arc::new(crate::workspace::paths::schema_paths(&tool.input_schema));
        if let Ok(mut cached) = self.tools.lock() {
            if let Some(kept) = cached.as_mut().filter(|k| kept_for_list(k)) {
                kept.path_params.insert(tool.name.clone(), params.clone());
            }
        }
        params
    }
}

impl Connection {
    /// Every path argument the user sends must lie inside an open workspace folder (symlinks and `..` resolved), or
    /// the user says yes when the server's preference is "ask". The tool's schema says which arguments are paths. It
    /// comes from the tool list as last read, kept until the server says its tools changed; a tool missing from that
    /// list has the list read again, so a tool added silently is still checked, and a tool still missing is refused:
    /// without its schema nothing can be checked.
    pub(super) async fn check_path_arguments(
        &self,
        tool: &str,
        args: Option<&JsonObject>,
        origin: Option<&serde_json::Value>,
    ) -> Result<(), ConnectionError> {
        let Some(args) = args.filter(|a| !a.is_empty()) else {
            return Ok(());
        };
        let mut tools = self.current_tools().await?;
        if !tools.iter().any(|t| t.name == tool) {
            tools = Arc::new(self.list_tools().await?);
        }
        let Some(info) = tools.iter().find(|t| t.name == tool) else {
            return Err(Refusal::ToolNotListed {
                server: self.server.clone(),
                tool: tool.to_string(),
            }
            .into());
        };
        let params = self.path_params(&tools, info);
        if params.is_empty() {
            return Ok(());
        }
        let scope = crate::workspace::paths::PathScope {
            folders: self.roots.workspace.root_paths(),
            server_cwd: self.server_cwd.clone(),
        };
        let violations = crate::workspace::paths::check_schema_paths(&params, args, &scope);
        let folders = scope.folders;
        if violations.is_empty() {
            return Ok(());
        }
        let reasons = violations
            .iter()
            .map(|v| v.reason.clone())
            .collect::<Vec<_>>()
            .join("; ");
        if self.path_arguments != PathArgumentPolicy::Ask {
            return Err(ConnectionError::PathsRefused {
                paths: violations,
                declined: false,
            });
        }
        let question = InputRequest {
            server: self.server.clone(),
            kind: InputKind::PathOutside,
            cause: Some(format!("calling tool {tool}")),
            origin: origin.cloned(),
            view: None,
            check: None,
            params: serde_json::json!({
                "message": format!(
                    "{} would receive {} outside your workspace folders: {reasons}. Send anyway?",
                    self.server,
                    if violations.len() == 1 { "a path" } else { "paths" },
                ),
                "tool": tool,
                "paths": violations,
                "folders": folders,
            }),
        };
        let answer = self
            .broker
            .ask(question)
            .await
            .unwrap_or(InputAnswer::Decline);
        self.events.emit(HostEvent::PathOutside {
            server: self.server.clone(),
            tool: tool.to_string(),
            paths: violations.clone(),
            answer: answer.action(),
        });
        match answer {
            InputAnswer::Accept { .. } => Ok(()),
            InputAnswer::Decline | InputAnswer::Cancel => Err(ConnectionError::PathsRefused {
                paths: violations,
                declined: true,
            }),
        }
    }
}
