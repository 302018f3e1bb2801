//! What a server offers besides tools, as the window's Resources and Prompts views use it: lists, reads, prompts,
//! argument completion, subscriptions and the log level. Thin adapters over wharf-core's catalog (`Connection`'s
//! `list_resources`, `read_resource`, `get_prompt`, `complete`...; `Host::subscribe`, and `Host::set_log_level`,
//! `log_level` and `clear_log_level`), the answers shaped by `wharf_core::view` so the UI only renders them. Registered
//! like the commands of `commands.rs`.
//!
//! The webview never names a file: a binary resource is not sent to it (only its size and type); Save re-reads it
//! here and writes it where the user picks in the native save dialog, shown from Rust.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tauri::{AppHandle, Manager, State};
use wharf_core::facade::ErrorCode;
use wharf_core::uri_template::{self, TemplateVariable};
use wharf_core::view::catalog::{self, Completion, PromptCatalog, ResourceCatalog};
use wharf_core::view::content::{self, PromptView, ResourceView};
use wharf_core::CallOptions;

use crate::commands::CommandError;
use crate::shell::Shell;

type Reply<T> = Result<T, CommandError>;

/// What a completion is for: a prompt's argument or a resource template's variable.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum CompletionTarget {
    Prompt { name: String },
    Template { uri_template: String },
}

impl CompletionTarget {
    /// The protocol's `ref`.
    fn reference(&self) -> Value {
        match self {
            CompletionTarget::Prompt { name } => json!({"type": "ref/prompt", "name": name}),
            CompletionTarget::Template { uri_template } => {
                json!({"type": "ref/resource", "uri": uri_template})
            }
        }
    }
}

/// A blob written to disk by `save_resource_blob`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct SavedBlob {
    pub path: String,
    #[ts(type = "number")]
    pub bytes: u64,
}

fn user_call() -> CallOptions {
    CallOptions {
        on_behalf_of_user: true,
        ..CallOptions::default()
    }
}

fn subscribes(capabilities: &Value) -> bool {
    capabilities
        .get("resources")
        .and_then(|r| r.get("subscribe"))
        .and_then(Value::as_bool)
        == Some(true)
}

/// The server's resources and resource templates (every page, bounded), with what the viewer may offer.
#[tauri::command]
pub async fn list_resources(shell: State<'_, Shell>, server: String) -> Reply<ResourceCatalog> {
    let conn = shell.host.connection(&server).await?;
    let (resources, skipped) = catalog::resource_infos(&conn.list_resources().await?);
    let (templates, skipped_templates) =
        catalog::template_infos(&conn.list_resource_templates().await?);
    Ok(ResourceCatalog {
        resources,
        templates,
        can_subscribe: subscribes(&conn.identity.capabilities),
        subscribed: conn.subscriptions(),
        can_complete: conn.offers("completions"),
        skipped: skipped + skipped_templates,
    })
}

/// Reads a resource (MRTR rounds and the questions they bring served through the broker) and shapes its contents
/// for the viewer: text capped, images as base64, other blobs as their size and type only.
#[tauri::command]
pub async fn read_resource(
    shell: State<'_, Shell>,
    server: String,
    uri: String,
) -> Reply<ResourceView> {
    let conn = shell.host.connection(&server).await?;
    let result = conn.read_resource(&uri, &user_call()).await?;
    Ok(content::resource_view(&uri, &result))
}

/// One save dialog at a time: a second click while it is open does nothing.
static SAVING: AtomicBool = AtomicBool::new(false);

/// Reads the resource again and writes its `contents[index]` blob where the user picks in the native save dialog.
/// `None` when the user cancelled (or a dialog is already open).
#[tauri::command]
pub async fn save_resource_blob(
    app: AppHandle,
    shell: State<'_, Shell>,
    server: String,
    uri: String,
    index: u32,
) -> Reply<Option<SavedBlob>> {
    let conn = shell.host.connection(&server).await?;
    let result = conn.read_resource(&uri, &user_call()).await?;
    let bytes = content::blob_at(&result, index as usize)
        .map_err(|message| CommandError::new(ErrorCode::NotABlob, format!("{uri}: {message}")))?;
    if SAVING.swap(true, Ordering::SeqCst) {
        return Ok(None);
    }
    let picked = pick_save_path(&app, content::file_name_for(&uri)).await;
    SAVING.store(false, Ordering::SeqCst);
    let Some(path) = picked? else {
        return Ok(None);
    };
    std::fs::write(&path, &bytes).map_err(|e| {
        CommandError::new(
            ErrorCode::Write,
            format!("cannot write {}: {e}", path.display()),
        )
    })?;
    tracing::info!(server, uri, path = %path.display(), bytes = bytes.len(), "resource saved");
    Ok(Some(SavedBlob {
        path: path.display().to_string(),
        bytes: bytes.len() as u64,
    }))
}

/// The native save dialog over the window, made on the event loop's thread as GTK wants (see
/// `workspace_commands::pick_folder`).
async fn pick_save_path(app: &AppHandle, name: String) -> Reply<Option<PathBuf>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let window = app.get_webview_window(crate::window::MAIN_WINDOW);
    let start = app
        .path()
        .download_dir()
        .or_else(|_| app.path().home_dir())
        .ok();
    app.run_on_main_thread(move || {
        let mut dialog = rfd::AsyncFileDialog::new()
            .set_title("Save the resource")
            .set_file_name(name);
        if let Some(window) = &window {
            dialog = dialog.set_parent(window);
        }
        if let Some(start) = &start {
            dialog = dialog.set_directory(start);
        }
        let picked = dialog.save_file();
        tracing::info!("save dialog shown");
        std::thread::spawn(move || {
            let file = tauri::async_runtime::block_on(picked);
            let _ = tx.send(file.map(|f| f.path().to_path_buf()));
        });
    })
    .map_err(|e| {
        CommandError::new(
            ErrorCode::Dialog,
            format!("cannot show the save dialog: {e}"),
        )
    })?;
    rx.await.map_err(|_| {
        CommandError::new(
            ErrorCode::Dialog,
            "the save dialog closed without an answer",
        )
    })
}

fn template_error(e: uri_template::TemplateError) -> CommandError {
    CommandError::new(ErrorCode::Template, e.to_string())
}

/// A resource template's variables, in order (RFC 6570 levels 1 and 2; higher levels are an error that says so).
#[tauri::command]
pub fn template_variables(template: String) -> Reply<Vec<TemplateVariable>> {
    uri_template::variables(&template).map_err(template_error)
}

/// The URI a template makes with these values (missing ones expand to nothing, as RFC 6570 says).
#[tauri::command]
pub fn expand_template(template: String, values: BTreeMap<String, String>) -> Reply<String> {
    uri_template::expand(&template, &values).map_err(template_error)
}

#[tauri::command]
pub async fn list_prompts(shell: State<'_, Shell>, server: String) -> Reply<PromptCatalog> {
    let conn = shell.host.connection(&server).await?;
    let (prompts, skipped) = catalog::prompt_infos(&conn.list_prompts().await?);
    Ok(PromptCatalog {
        prompts,
        can_complete: conn.offers("completions"),
        skipped,
    })
}

/// `prompts/get` with the arguments the user filled (MRTR rounds served through the broker), shaped for the view.
#[tauri::command]
pub async fn get_prompt(
    shell: State<'_, Shell>,
    server: String,
    name: String,
    args: BTreeMap<String, String>,
) -> Reply<PromptView> {
    let args: Map<String, Value> = args
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    let conn = shell.host.connection(&server).await?;
    let result = conn
        .get_prompt(&name, (!args.is_empty()).then_some(args), &user_call())
        .await?;
    Ok(content::prompt_view(&result))
}

/// Suggestions for `argument` of a prompt or template as the user types `value`, with the other fields already
/// filled as `context`.
#[tauri::command]
pub async fn complete(
    shell: State<'_, Shell>,
    server: String,
    target: CompletionTarget,
    argument: String,
    value: String,
    context: BTreeMap<String, String>,
) -> Reply<Completion> {
    let context: Map<String, Value> = context
        .into_iter()
        .filter(|(k, v)| k != &argument && !v.is_empty())
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    let conn = shell.host.connection(&server).await?;
    let answer = conn
        .complete(
            target.reference(),
            &argument,
            &value,
            Some(context),
            &CallOptions::default(),
        )
        .await?;
    Ok(catalog::completion(&answer))
}

/// Subscribes to a resource (kept across restarts of the server) or unsubscribes; the URIs subscribed to now.
#[tauri::command]
pub async fn subscribe_resource(
    shell: State<'_, Shell>,
    server: String,
    uri: String,
    on: bool,
) -> Reply<Vec<String>> {
    shell.host.subscribe(&server, &uri, on).await?;
    tracing::info!(server, uri, on, "resource subscription changed from the UI");
    Ok(shell.host.connection(&server).await?.subscriptions())
}

/// The log messages wanted from the server, from `level` up (RFC 5424 names; kept for its restarts).
#[tauri::command]
pub async fn set_log_level(shell: State<'_, Shell>, server: String, level: String) -> Reply<()> {
    shell.host.set_log_level(&server, &level).await?;
    tracing::info!(server, level, "log level set from the UI");
    Ok(())
}

/// The level chosen for the server (kept by the host across restarts and window reloads); none: never set, or
/// cleared.
#[tauri::command]
pub fn log_level(shell: State<'_, Shell>, server: String) -> Option<String> {
    shell.host.log_level(&server)
}

/// "off": forgets the chosen level. 2026-07-28 requests stop asking for log messages; a handshake-era server has no
/// way to be told, and keeps the last level until it restarts.
#[tauri::command]
pub async fn clear_log_level(shell: State<'_, Shell>, server: String) -> Reply<()> {
    shell.host.clear_log_level(&server).await?;
    tracing::info!(server, "log level cleared from the UI");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_completion_target_becomes_the_protocol_reference() {
        let prompt: CompletionTarget =
            serde_json::from_value(json!({"kind": "prompt", "name": "p"})).expect("prompt");
        assert_eq!(
            prompt.reference(),
            json!({"type": "ref/prompt", "name": "p"})
        );
        let template: CompletionTarget =
            serde_json::from_value(json!({"kind": "template", "uriTemplate": "demo://{id}"}))
                .expect("template");
        assert_eq!(
            template.reference(),
            json!({"type": "ref/resource", "uri": "demo://{id}"})
        );
        assert!(serde_json::from_value::<CompletionTarget>(json!({"kind": "tool"})).is_err());
    }

    #[test]
    fn subscriptions_are_offered_only_when_the_server_says_subscribe_true() {
        assert!(subscribes(&json!({"resources": {"subscribe": true}})));
        assert!(!subscribes(&json!({"resources": {}})));
        assert!(!subscribes(&json!({"resources": {"subscribe": "yes"}})));
        assert!(!subscribes(&json!({})));
    }

    #[test]
    fn template_commands_use_the_core_expansion() {
        let vars = template_variables("demo://{kind}/{+path}".into()).expect("variables");
        assert_eq!(
            vars.iter()
                .map(|v| (v.name.as_str(), v.reserved))
                .collect::<Vec<_>>(),
            [("kind", false), ("path", true)]
        );
        let values = BTreeMap::from([
            ("kind".to_owned(), "a b".to_owned()),
            ("path".to_owned(), "x/y".to_owned()),
        ]);
        assert_eq!(
            expand_template("demo://{kind}/{+path}".into(), values).expect("expands"),
            "demo://a%20b/x/y"
        );
        let error = template_variables("demo://{?q}".into()).expect_err("level 3");
        assert_eq!(error.code, ErrorCode::Template);
    }
}
