//! The commands the webview may call. Each is a thin adapter over `wharf_core::Host`; each must also be listed in
//! `build.rs` and granted in `capabilities/`, or the webview cannot reach it.

use serde::Serialize;
use tauri::State;
use wharf_core::ServerSummary;

use crate::shell::{Shell, StartupReport};
use crate::smoke::RenderedRow;

/// A failed command, as the UI receives it: the message only (the UI shows it; it never parses it).
#[derive(Debug, thiserror::Error, Serialize)]
#[error("{0}")]
#[serde(transparent)]
pub struct CommandError(String);

impl From<wharf_core::ConnectionError> for CommandError {
    fn from(e: wharf_core::ConnectionError) -> Self {
        CommandError(e.to_string())
    }
}

#[tauri::command]
pub async fn list_servers(shell: State<'_, Shell>) -> Result<Vec<ServerSummary>, CommandError> {
    Ok(shell.host.summaries().await)
}

/// Starts the server, or restarts it when it runs.
#[tauri::command]
pub async fn restart_server(shell: State<'_, Shell>, name: String) -> Result<(), CommandError> {
    tracing::info!(server = name, "restart requested from the UI");
    Ok(shell.host.start(&name).await?)
}

#[tauri::command]
pub async fn stop_server(shell: State<'_, Shell>, name: String) -> Result<(), CommandError> {
    tracing::info!(server = name, "stop requested from the UI");
    Ok(shell.host.stop(&name).await?)
}

#[tauri::command]
pub fn startup_report(shell: State<'_, Shell>) -> StartupReport {
    shell.report.clone()
}

/// The UI tells what it has on screen after each render; only the smoke test listens (a no-op otherwise).
#[tauri::command]
pub fn smoke_rendered(shell: State<'_, Shell>, rows: Vec<RenderedRow>) {
    if let Some(probe) = &shell.smoke {
        probe.rendered(rows);
    }
}
