//! The workspace as the window sees it: the open folders, the roots each server gets, each server's preference, and
//! the path parameters of a tool (so the form can offer the folders). Thin adapters over wharf-core's
//! `SharedWorkspace`, registered like the commands of `commands.rs`.
//!
//! What the webview can make of a path is limited on purpose: it never reads a file or lists a folder. It may open a
//! folder it names (`open_folder`) only if that is an existing directory; opening one makes it a root, which is what
//! the user asks for by dropping it on the window or typing it, and nothing is read from it. The picker
//! (`open_folder_dialog`) is the native one, shown from Rust: the webview gets no dialog permission. Files and
//! folders dropped on the window are handled here too (`dropped`), from the window's own event, not by the webview.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;
use serde_json::Value;
use tauri::{AppHandle, Emitter, Manager, State};
use wharf_core::config::PathArgumentPolicy;
use wharf_core::events::NoticeCode;
use wharf_core::facade::ErrorCode;
use wharf_core::workspace::paths::PathParam;
use wharf_core::workspace::{Root, WorkspaceError};
use wharf_core::{Config, HostEvent};

use crate::commands::CommandError;
use crate::shell::{Shell, HOST_EVENT};

type Reply<T> = Result<T, CommandError>;

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

fn folders_of(shell: &Shell) -> WorkspaceFolders {
    let workspace = shell.host.workspace();
    WorkspaceFolders {
        folders: workspace
            .folders()
            .iter()
            .map(|f| f.to_string_lossy().into_owned())
            .collect(),
        roots: workspace.roots(),
    }
}

#[tauri::command]
pub fn workspace_folders(shell: State<'_, Shell>) -> WorkspaceFolders {
    folders_of(&shell)
}

/// One picker at a time: a second click while it is open does nothing.
static PICKING: AtomicBool = AtomicBool::new(false);

/// Shows the native folder picker over the window and opens the chosen folder. `None` when the user cancelled (or a
/// picker is already open).
#[tauri::command]
pub async fn open_folder_dialog(
    app: AppHandle,
    shell: State<'_, Shell>,
) -> Reply<Option<WorkspaceFolders>> {
    if PICKING.swap(true, Ordering::SeqCst) {
        return Ok(None);
    }
    let picked = pick_folder(&app).await;
    PICKING.store(false, Ordering::SeqCst);
    let Some(path) = picked? else {
        return Ok(None);
    };
    tracing::info!(folder = %path.display(), "folder chosen in the picker");
    open_checked(&shell, &path)?;
    Ok(Some(folders_of(&shell)))
}

/// GTK wants its dialogs made on the thread that runs the window's event loop; the answer comes back on a channel.
async fn pick_folder(app: &AppHandle) -> Reply<Option<PathBuf>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let window = app.get_webview_window(crate::window::MAIN_WINDOW);
    let start = app.path().home_dir().ok();
    app.run_on_main_thread(move || {
        let mut dialog = rfd::AsyncFileDialog::new().set_title("Open a workspace folder");
        if let Some(window) = &window {
            dialog = dialog.set_parent(window);
        }
        if let Some(start) = &start {
            dialog = dialog.set_directory(start);
        }
        let picked = dialog.pick_folder();
        tracing::info!("folder picker shown");
        // The future resolves once the user answers; wait for it off the event loop's thread.
        std::thread::spawn(move || {
            let folder = tauri::async_runtime::block_on(picked);
            let _ = tx.send(folder.map(|f| f.path().to_path_buf()));
        });
    })
    .map_err(|e| {
        CommandError::new(
            ErrorCode::Dialog,
            format!("cannot show the folder picker: {e}"),
        )
    })?;
    rx.await.map_err(|_| {
        CommandError::new(
            ErrorCode::Dialog,
            "the folder picker closed without an answer",
        )
    })
}

/// Opens a folder the user named (dropped on the window, typed): only an existing directory, given as an absolute
/// path, is accepted. Nothing inside it is read.
#[tauri::command]
pub fn open_folder(shell: State<'_, Shell>, path: String) -> Reply<WorkspaceFolders> {
    let path = PathBuf::from(path);
    if !path.is_absolute() {
        return Err(CommandError::new(
            ErrorCode::NotAFolder,
            format!("{}: not an absolute path", path.display()),
        ));
    }
    open_checked(&shell, &path)?;
    Ok(folders_of(&shell))
}

fn open_checked(shell: &Shell, path: &Path) -> Reply<bool> {
    shell.host.workspace().open(path).map_err(|e| match e {
        WorkspaceError::NotFound(_) | WorkspaceError::NotAFolder(_) => {
            CommandError::new(ErrorCode::NotAFolder, e.to_string())
        }
        WorkspaceError::Unreadable { .. } => {
            CommandError::new(ErrorCode::Unreadable, e.to_string())
        }
    })
}

#[tauri::command]
pub fn close_folder(shell: State<'_, Shell>, path: String) -> Reply<WorkspaceFolders> {
    if shell.host.workspace().close(Path::new(&path)) {
        Ok(folders_of(&shell))
    } else {
        Err(CommandError::new(
            ErrorCode::NotOpen,
            format!("{path} is not an open workspace folder"),
        ))
    }
}

/// The roots `server` gets when it asks now: the workspace's, or none when its entry says `"roots": false`.
#[tauri::command]
pub fn server_roots(shell: State<'_, Shell>, server: String) -> Reply<ServerRoots> {
    server_roots_of(&shell, server)
}

fn server_roots_of(shell: &Shell, server: String) -> Reply<ServerRoots> {
    if !shell.host.server_names().contains(&server) {
        return Err(unknown_server(&server));
    }
    let (expose, path_arguments) = preferences(&shell.config_path, &server)?;
    let roots = if expose {
        shell.host.workspace().roots()
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

/// Writes `"roots": expose` into the server's entry (atomically, every other key kept) and applies the
/// configuration: the server restarts with its new preference.
#[tauri::command]
pub async fn set_roots_preference(
    shell: State<'_, Shell>,
    server: String,
    expose: bool,
) -> Reply<ServerRoots> {
    set_preference(&shell, &server, "roots", Value::Bool(expose)).await?;
    tracing::info!(server, expose, "roots preference saved");
    server_roots_of(&shell, server)
}

/// Writes `"pathArguments": policy` into the server's entry, as `set_roots_preference` does.
#[tauri::command]
pub async fn set_path_preference(
    shell: State<'_, Shell>,
    server: String,
    policy: PathArgumentPolicy,
) -> Reply<ServerRoots> {
    let value = Value::String(policy.as_str().into());
    set_preference(&shell, &server, "pathArguments", value).await?;
    tracing::info!(server, policy = policy.as_str(), "path preference saved");
    server_roots_of(&shell, server)
}

async fn set_preference(shell: &Shell, server: &str, key: &str, value: Value) -> Reply<()> {
    // On first run the file does not exist yet: the document holds what the user sees (the demo server).
    let mut doc = shell.config_document()?;
    if !doc.names().iter().any(|n| n == server) {
        return Err(unknown_server(server));
    }
    doc.set_server_key(server, key, value).map_err(|e| {
        CommandError::new(ErrorCode::Config, format!("{}: {e}", doc.path.display()))
    })?;
    doc.save().map_err(|e| write_error(&doc.path, &e))?;
    let config = Config::load_with_workspace(&doc.path, &shell.host.workspace().folders())?;
    shell.reconfigure(config).await;
    Ok(())
}

/// The path parameters of a tool's input schema (see wharf-core's `path_params`), so the form can offer the
/// workspace folders for them.
#[tauri::command]
pub async fn tool_path_params(
    shell: State<'_, Shell>,
    server: String,
    tool: String,
) -> Reply<Vec<PathParam>> {
    let tools = shell.host.connection(&server).await?.list_tools().await?;
    let info = tools.iter().find(|t| t.name == tool).ok_or_else(|| {
        CommandError::new(
            ErrorCode::UnknownTool,
            format!("{server} has no tool \"{tool}\""),
        )
    })?;
    Ok(wharf_core::workspace::paths::path_params(
        &info.input_schema,
    ))
}

fn unknown_server(server: &str) -> CommandError {
    CommandError::new(
        ErrorCode::UnknownServer,
        format!("there is no server \"{server}\""),
    )
}

fn write_error(path: &Path, e: &std::io::Error) -> CommandError {
    CommandError::new(
        ErrorCode::Write,
        format!("cannot write {}: {e}", path.display()),
    )
}

/// What a drop on the window opens: each directory becomes a workspace folder; anything else is left alone.
#[derive(Debug, Default, PartialEq, Eq)]
struct Dropped {
    opened: Vec<PathBuf>,
    ignored: Vec<PathBuf>,
}

fn sort_dropped(paths: &[PathBuf]) -> Dropped {
    let mut out = Dropped::default();
    for path in paths {
        if path.is_dir() {
            out.opened.push(path.clone());
        } else {
            out.ignored.push(path.clone());
        }
    }
    out
}

/// Files and folders dropped on the window (Tauri's window event, handled here rather than in the webview): the
/// folders open; the rest is reported once, as a notice.
pub fn dropped(handle: &AppHandle, paths: &[PathBuf]) {
    let Some(shell) = handle.try_state::<Shell>() else {
        return;
    };
    let Dropped { opened, ignored } = sort_dropped(paths);
    for folder in &opened {
        tracing::info!(folder = %folder.display(), "folder dropped on the window");
        crate::shell::open_folder(&shell, folder);
    }
    if ignored.is_empty() {
        return;
    }
    let names: Vec<String> = ignored
        .iter()
        .map(|p| {
            p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        })
        .collect();
    let message = format!(
        "{} not opened: only folders become workspace folders",
        names.join(", ")
    );
    tracing::info!("{message}");
    let notice = HostEvent::Notice {
        server: None,
        code: NoticeCode::DropIgnored,
        message,
    };
    if let Err(e) = handle.emit(HOST_EVENT, &notice) {
        tracing::debug!("drop notice not delivered to the UI: {e}");
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

    #[test]
    fn a_drop_opens_directories_and_ignores_the_rest() {
        let dir = tempfile::tempdir().expect("tempdir");
        let folder = dir.path().join("project");
        let file = dir.path().join("notes.txt");
        std::fs::create_dir(&folder).expect("mkdir");
        std::fs::write(&file, "x").expect("write");
        let gone = dir.path().join("gone");
        let sorted = sort_dropped(&[file.clone(), folder.clone(), gone.clone()]);
        assert_eq!(
            sorted,
            Dropped {
                opened: vec![folder],
                ignored: vec![file, gone],
            }
        );
    }
}
