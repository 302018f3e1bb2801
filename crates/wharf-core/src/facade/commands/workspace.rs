//! The workspace as the window sees it: the open folders, the roots each server gets, each server's preference, and
//! the path parameters of a tool (so the form can offer the folders).
//!
//! What the window can make of a path is limited on purpose: it never reads a file or lists a folder. It may open a
//! folder it names (`open_folder`) only if that is an existing directory given as an absolute path; opening one makes
//! it a root, which is what the user asks for by dropping it on the window or typing it, and nothing is read from it.
//! The picker (`open_folder_dialog`) is the front end's native one: the webview gets no dialog permission.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::PathArgumentPolicy;
use crate::facade::command::{CommandError, Reply, Run};
use crate::facade::session::Session;
use crate::facade::ErrorCode;
use crate::workspace::paths::PathParam;
use crate::workspace::{Root, WorkspaceError};
use crate::Config;

/// The workspace: the folders as the user opened them (in order; one may not exist right now) and the roots derived
/// from them (what servers that share the workspace get).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceFolders {
    pub folders: Vec<String>,
    pub roots: Vec<Root>,
}

/// The roots one server gets now, and why: its `"roots"` preference (absent means true); and what happens to a path
/// outside the workspace that the user sends it (`"pathArguments"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ServerRoots {
    pub server: String,
    /// The workspace's roots are shared with this server (`"roots": false` in its entry hides them).
    pub expose: bool,
    pub roots: Vec<Root>,
    pub path_arguments: PathArgumentPolicy,
}

fn folders_of(session: &Session) -> WorkspaceFolders {
    let workspace = session.host().workspace();
    WorkspaceFolders {
        folders: workspace
            .folders()
            .iter()
            .map(|f| f.to_string_lossy().into_owned())
            .collect(),
        roots: workspace.roots(),
    }
}

#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct GetWorkspaceFolders {}

impl Run for GetWorkspaceFolders {
    async fn run(self, session: &Session) -> Reply<WorkspaceFolders> {
        Ok(folders_of(session))
    }
}

/// One picker at a time: a second click while it is open does nothing.
static PICKING: AtomicBool = AtomicBool::new(false);

/// Shows the front end's folder picker and opens the chosen folder. None when the user cancelled (or a picker is
/// already open).
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct OpenFolderDialog {}

impl Run for OpenFolderDialog {
    async fn run(self, session: &Session) -> Reply<Option<WorkspaceFolders>> {
        if PICKING.swap(true, Ordering::SeqCst) {
            return Ok(None);
        }
        let picked = session.desktop().pick_folder().await;
        PICKING.store(false, Ordering::SeqCst);
        let Some(path) = picked? else {
            return Ok(None);
        };
        tracing::info!(folder = %path.display(), "folder chosen in the picker");
        open_checked(session, &path)?;
        Ok(Some(folders_of(session)))
    }
}

/// Opens a folder the user named (dropped on the window, typed): only an existing directory, given as an absolute
/// path, is accepted. Nothing inside it is read.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct OpenFolder {
    pub path: String,
}

impl Run for OpenFolder {
    async fn run(self, session: &Session) -> Reply<WorkspaceFolders> {
        let path = PathBuf::from(self.path);
        if !path.is_absolute() {
            return Err(CommandError::new(
                ErrorCode::NotAFolder,
                format!("{}: not an absolute path", path.display()),
            ));
        }
        open_checked(session, &path)?;
        Ok(folders_of(session))
    }
}

fn open_checked(session: &Session, path: &Path) -> Reply<bool> {
    session.host().workspace().open(path).map_err(|e| match e {
        WorkspaceError::NotFound(_) | WorkspaceError::NotAFolder(_) => {
            CommandError::new(ErrorCode::NotAFolder, e.to_string())
        }
        WorkspaceError::Unreadable { .. } => {
            CommandError::new(ErrorCode::Unreadable, e.to_string())
        }
    })
}

#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct CloseFolder {
    pub path: String,
}

impl Run for CloseFolder {
    async fn run(self, session: &Session) -> Reply<WorkspaceFolders> {
        if session.host().workspace().close(Path::new(&self.path)) {
            Ok(folders_of(session))
        } else {
            Err(CommandError::new(
                ErrorCode::NotOpen,
                format!("{} is not an open workspace folder", self.path),
            ))
        }
    }
}

/// The roots `server` gets when it asks now: the workspace's, or none when its entry says `"roots": false`.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct GetServerRoots {
    pub server: String,
}

impl Run for GetServerRoots {
    async fn run(self, session: &Session) -> Reply<ServerRoots> {
        server_roots(session, self.server)
    }
}

fn server_roots(session: &Session, server: String) -> Reply<ServerRoots> {
    if !session.host().server_names().contains(&server) {
        return Err(CommandError::unknown_server(&server));
    }
    let (expose, path_arguments) = preferences(session.config_path(), &server)?;
    let roots = if expose {
        session.host().workspace().roots()
    } else {
        Vec::new()
    };
    Ok(ServerRoots {
        server,
        expose,
        roots,
        path_arguments,
    })
}

/// The server's `"roots"` and `"pathArguments"` preferences as the configuration file says them (the file is the
/// truth; a first run without one shares the roots and refuses paths outside them).
fn preferences(config_path: &Path, server: &str) -> Reply<(bool, PathArgumentPolicy)> {
    if !config_path.exists() {
        return Ok((true, PathArgumentPolicy::default()));
    }
    let config = Config::load(config_path)?;
    Ok(config
        .server(server)
        .map_or((true, PathArgumentPolicy::default()), |s| {
            (s.expose_roots, s.path_arguments)
        }))
}

/// Writes `"roots": expose` into the server's entry and applies the configuration: the server restarts with its new
/// preference.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SetRootsPreference {
    pub server: String,
    pub expose: bool,
}

impl Run for SetRootsPreference {
    async fn run(self, session: &Session) -> Reply<ServerRoots> {
        set_preference(session, &self.server, "roots", Value::Bool(self.expose)).await?;
        tracing::info!(
            server = self.server,
            expose = self.expose,
            "roots preference saved"
        );
        server_roots(session, self.server)
    }
}

/// Writes `"pathArguments": policy` into the server's entry, as `set_roots_preference` does.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SetPathPreference {
    pub server: String,
    pub policy: PathArgumentPolicy,
}

impl Run for SetPathPreference {
    async fn run(self, session: &Session) -> Reply<ServerRoots> {
        let value = Value::String(self.policy.as_str().into());
        set_preference(session, &self.server, "pathArguments", value).await?;
        tracing::info!(
            server = self.server,
            policy = self.policy.as_str(),
            "path preference saved"
        );
        server_roots(session, self.server)
    }
}

async fn set_preference(session: &Session, server: &str, key: &str, value: Value) -> Reply<()> {
    session
        .apply(|doc| {
            if !doc.names().iter().any(|n| n == server) {
                return Err(CommandError::unknown_server(server));
            }
            doc.set_server_key(server, key, value).map_err(|e| {
                CommandError::new(ErrorCode::Config, format!("{}: {e}", doc.path.display()))
            })
        })
        .await?;
    Ok(())
}

/// The path parameters of a tool's input schema (see `path_params`), so the form can offer the workspace folders
/// for them.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ToolPathParams {
    pub server: String,
    pub tool: String,
}

impl Run for ToolPathParams {
    async fn run(self, session: &Session) -> Reply<Vec<PathParam>> {
        let tools = session.tools(&self.server).await?;
        let info = tools.iter().find(|t| t.name == self.tool).ok_or_else(|| {
            CommandError::new(
                ErrorCode::UnknownTool,
                format!("{} has no tool \"{}\"", self.server, self.tool),
            )
        })?;
        Ok(crate::workspace::paths::path_params(&info.input_schema))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preference_is_read_from_the_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("mcp.json");
        let defaults = (true, PathArgumentPolicy::Refuse);
        assert_eq!(preferences(&path, "a").expect("no file"), defaults);
        std::fs::write(
            &path,
            r#"{"servers": {"a": {"command": "a", "roots": false, "pathArguments": "ask"}, "b": {"command": "b"}}}"#,
        )
        .expect("write");
        assert_eq!(
            preferences(&path, "a").expect("read"),
            (false, PathArgumentPolicy::Ask)
        );
        assert_eq!(preferences(&path, "b").expect("read"), defaults);
    }
}
