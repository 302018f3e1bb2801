//! `WHARF_APP_SMOKE=1`: the end-to-end proof that the app works, for tests. Once every server has settled *and* the
//! webview shows the same statuses (the UI reports what it rendered, read back from its DOM), the app prints one JSON
//! line to stdout, `{"smoke":"ready","servers":[...],"rendered":[...]}`, exits, and after stopping every server
//! prints `{"smoke":"shutdown"}`. This covers what a Rust-only check would miss: the CSP, the capability file, the
//! IPC bridge and the rendering.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tauri::AppHandle;
use tokio::sync::watch;
use wharf_core::{Host, ServerStatus, ServerSummary};

/// Inside the app, so a hang ends with a report of where it stood; shorter than smoke.sh's own deadline (120 s).
const SMOKE_TIMEOUT: Duration = Duration::from_secs(90);

/// One server row as the UI rendered it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct RenderedRow {
    pub name: String,
    pub status: String,
    #[serde(default)]
    pub era: Option<String>,
}

#[derive(Clone)]
pub struct Probe {
    rendered: Arc<watch::Sender<Option<Vec<RenderedRow>>>>,
}

impl Default for Probe {
    fn default() -> Self {
        Probe {
            rendered: Arc::new(watch::channel(None).0),
        }
    }
}

impl Probe {
    pub fn rendered(&self, rows: Vec<RenderedRow>) {
        self.rendered.send_replace(Some(rows));
    }
}

pub async fn run(host: Arc<Host>, handle: AppHandle, probe: Probe) {
    let mut seen = probe.rendered.subscribe();
    let waited = tokio::time::timeout(SMOKE_TIMEOUT, async {
        host.settle().await;
        loop {
            let rows = seen.borrow_and_update().clone();
            let servers = host.summaries().await;
            if let Some(rows) = rows.filter(|rows| *rows == expected_rows(&servers)) {
                if servers.iter().all(|s| settled(s.status)) {
                    return (servers, rows);
                }
            }
            // Every status change reaches the UI as an event, and the UI reports after each render.
            if seen.changed().await.is_err() {
                return (servers, Vec::new());
            }
        }
    })
    .await;
    let code = match waited {
        Ok((servers, rendered)) => {
            print_line(
                &serde_json::json!({"smoke": "ready", "servers": servers, "rendered": rendered}),
            );
            0
        }
        Err(_) => {
            let rendered = probe.rendered.borrow().clone();
            let servers = host.summaries().await;
            print_line(
                &serde_json::json!({"smoke": "timeout", "servers": servers, "rendered": rendered}),
            );
            1
        }
    };
    handle.exit(code);
}

pub fn report_shutdown() {
    print_line(&serde_json::json!({"smoke": "shutdown"}));
}

fn settled(status: ServerStatus) -> bool {
    !matches!(status, ServerStatus::Starting | ServerStatus::Restarting)
}

/// What the UI must show for these servers: every one, in order, with its status and era.
fn expected_rows(servers: &[ServerSummary]) -> Vec<RenderedRow> {
    servers
        .iter()
        .map(|server| RenderedRow {
            name: server.name.clone(),
            status: server.status.as_str().to_owned(),
            era: server.era.clone(),
        })
        .collect()
}

fn print_line(value: &serde_json::Value) {
    // A closed stdout must not take the app down; the test that reads it would fail on its own.
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{value}").and_then(|()| out.flush());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starting_and_restarting_are_not_settled() {
        assert!(!settled(ServerStatus::Starting));
        assert!(!settled(ServerStatus::Restarting));
        assert!(settled(ServerStatus::Ready));
        assert!(settled(ServerStatus::Failed));
        assert!(settled(ServerStatus::Stopped));
    }

    #[test]
    fn rendered_rows_compare_name_status_and_era() {
        let row = |status: &str, era: Option<&str>| RenderedRow {
            name: "a".into(),
            status: status.into(),
            era: era.map(Into::into),
        };
        assert_eq!(
            row("ready", Some("2025-11-25")),
            row("ready", Some("2025-11-25"))
        );
        assert_ne!(row("ready", Some("2025-11-25")), row("ready", None));
        assert_ne!(row("ready", None), row("starting", None));
        let parsed: RenderedRow =
            serde_json::from_str(r#"{"name":"a","status":"ready","era":null}"#)
                .expect("the UI's shape");
        assert_eq!(parsed, row("ready", None));
    }
}
