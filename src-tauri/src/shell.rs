//! The state every command reaches (`Shell`): the session both front ends hold (`wharf_core::facade::Session`), and
//! what only the window has: its remembered state and the smoke test's probe. The app's life cycle is
//! `lifecycle.rs`.

use std::sync::Arc;

use tauri::{AppHandle, Emitter};
use wharf_core::events::NoticeCode;
use wharf_core::facade::Session;
use wharf_core::HostEvent;

use crate::smoke::Probe;
use crate::state::AppState;

/// The Tauri event that carries every `HostEvent`, serialized as the CLI prints it (`{"event": "server_status", ...}`).
pub const HOST_EVENT: &str = "host-event";

/// The state every command reaches through `tauri::State`.
pub struct Shell {
    pub session: Arc<Session>,
    pub smoke: Option<Probe>,
    pub state: AppState,
}

/// A host-wide notice for the window (the activity log), before the session exists.
pub fn emit_notice(handle: &AppHandle, code: NoticeCode, message: String) {
    let notice = HostEvent::Notice {
        server: None,
        code,
        message,
    };
    if let Err(e) = handle.emit(HOST_EVENT, &notice) {
        tracing::debug!("notice not delivered to the UI: {e}");
    }
}

pub fn open_folder(shell: &Shell, path: &std::path::Path) {
    if let Err(e) = shell.session.host().workspace().open(path) {
        tracing::warn!("cannot open {} as a workspace folder: {e}", path.display());
    }
}
