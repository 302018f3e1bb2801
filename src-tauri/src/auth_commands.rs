//! Sign-in status per HTTP server and signing out, for the server list. Thin adapters over `wharf_core::auth`,
//! registered like the commands of `commands.rs`. Nothing here returns a token: only whether there is a sign-in,
//! with whom, for which scopes and until when.

use serde::Serialize;
use tauri::{AppHandle, Emitter, State};
use wharf_core::auth::{self, SignInStatus};
use wharf_core::{EventSink, ServerStatus};

use crate::commands::CommandError;
use crate::shell::{Shell, HOST_EVENT};

type Reply<T> = Result<T, CommandError>;

/// One HTTP server's kept sign-in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ServerSignIn {
    pub server: String,
    pub status: SignInStatus,
}

/// The kept sign-in of every configured HTTP server (stdio servers never sign in).
#[tauri::command]
pub async fn sign_in_status(shell: State<'_, Shell>) -> Reply<Vec<ServerSignIn>> {
    let mut out = Vec::new();
    for summary in shell.host.summaries().await {
        if summary.transport != "http" {
            continue;
        }
        let status = auth::status(&shell.tokens, &summary.name)
            .await
            .map_err(|e| CommandError::new("auth", e.to_string()))?;
        out.push(ServerSignIn {
            server: summary.name,
            status,
        });
    }
    Ok(out)
}

/// Forgets the server's kept sign-in (tokens and the registered client's secret, every authorization server). A
/// running server is stopped first: its connection holds the token, and would keep using (and refreshing) it.
/// Starting it again signs in afresh, after the consent card. True when there was a sign-in.
#[tauri::command]
pub async fn sign_out(shell: State<'_, Shell>, handle: AppHandle, name: String) -> Reply<bool> {
    let Some(summary) = shell
        .host
        .summaries()
        .await
        .into_iter()
        .find(|s| s.name == name)
    else {
        return Err(wharf_core::ConnectionError::UnknownServer(name).into());
    };
    if summary.transport != "http" {
        return Err(CommandError::new(
            "invalid",
            format!(
                "{name} is a {} server: only HTTP servers sign in",
                summary.transport
            ),
        ));
    }
    tracing::info!(server = name, "sign-out requested from the UI");
    if !matches!(summary.status, ServerStatus::Stopped | ServerStatus::Failed) {
        shell.host.stop(&name).await?;
    }
    let events = EventSink::new(move |event| {
        if let Err(e) = handle.emit(HOST_EVENT, &event) {
            tracing::debug!("sign-out not delivered to the UI: {e}");
        }
    });
    auth::sign_out_and_tell(&shell.tokens, &name, &events)
        .await
        .map_err(|e| CommandError::new("auth", e.to_string()))
}
