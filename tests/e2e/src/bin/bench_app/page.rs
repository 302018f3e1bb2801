//! What the page itself records, on the wall clock (`Date.now()`, the same clock as the spawn stamp and the server
//! proxy's stamps): observers installed through WebDriver note the moment the DOM reaches a state, so the figures do
//! not depend on how often the harness polls.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wharf_e2e::{App, Error, Result};

/// How often the harness reads back what the page recorded (the recorded time does not depend on it).
const POLL: Duration = Duration::from_millis(50);

/// Installs the readiness observer: it notes when the server list shows `servers` rows all "ready" (or, for none,
/// the empty list's text), and the next animation frame after that.
const WATCH_READY: &str = r#"
const n = arguments[0];
const shown = () => {
  if (n === 0) return document.body !== null && document.body.textContent.includes("No servers configured");
  const status = document.querySelectorAll('[data-testid="server-row"] [data-testid="server-status"]');
  return status.length === n && Array.from(status).every((s) => s.textContent.trim() === "ready");
};
const state = { readyAt: null, frameAt: null, already: false };
window.__wharfBenchReady = state;
const hit = () => {
  state.readyAt = Date.now();
  requestAnimationFrame(() => { state.frameAt = Date.now(); });
};
if (shown()) {
  state.already = true;
  hit();
} else {
  const observer = new MutationObserver(() => {
    if (state.readyAt === null && shown()) { observer.disconnect(); hit(); }
  });
  observer.observe(document, { subtree: true, childList: true, characterData: true });
}
return true;
"#;

/// The state the readiness observer recorded, with the page's navigation timings from the browser's own timeline
/// (read late: the first paint may not have happened when the observer was installed).
const READ_READY: &str = r#"
const state = window.__wharfBenchReady || null;
if (state === null) return null;
const nav = performance.getEntriesByType("navigation")[0];
const fcp = performance.getEntriesByName("first-contentful-paint")[0];
return Object.assign({}, state, {
  timeOrigin: performance.timeOrigin,
  domContentLoaded: nav ? nav.domContentLoadedEventEnd : null,
  fcp: fcp ? fcp.startTime : null,
});
"#;

/// Installs the dialog observer: it notes when the elicitation form is in the DOM, inside the open dialog host,
/// with a size (laid out, not hidden), and the next animation frame after that (when it is painted).
const WATCH_DIALOG: &str = r#"
const state = { shownAt: null, frameAt: null };
window.__wharfBenchDialog = state;
const visible = () => {
  const dialog = document.querySelector('dialog[data-testid="dialog-host"]');
  if (dialog === null || !dialog.open) return false;
  const form = dialog.querySelector('[data-testid="elicit-form"]');
  if (form === null) return false;
  const box = form.getBoundingClientRect();
  return box.width > 0 && box.height > 0 && getComputedStyle(dialog).visibility !== "hidden";
};
const observer = new MutationObserver(() => {
  if (state.shownAt === null && visible()) {
    observer.disconnect();
    state.shownAt = Date.now();
    requestAnimationFrame(() => { state.frameAt = Date.now(); });
  }
});
observer.observe(document, { subtree: true, childList: true, attributes: true });
return visible();
"#;

/// The page's navigation timeline at the first look (Unix ms).
pub struct Navigation {
    /// When the webview started loading the page.
    pub time_origin: f64,
    pub dom_content_loaded: Option<f64>,
    pub first_contentful_paint: Option<f64>,
}

/// When the window showed its servers ready (Unix ms), and how the page got there.
pub struct Ready {
    pub nav: Navigation,
    pub at: f64,
    pub frame: f64,
    /// Already so at the first look: `at` is then only an upper bound (the time of that look).
    pub already: bool,
}

/// When the elicitation dialog became visible (Unix ms).
pub struct Shown {
    pub at: f64,
    pub frame: f64,
}

pub async fn watch_ready(app: &App, servers: usize) -> Result<()> {
    app.client()
        .execute(WATCH_READY, vec![json!(servers)])
        .await?;
    Ok(())
}

pub async fn ready(app: &App, timeout: Duration) -> Result<Ready> {
    let state = recorded(app, READ_READY, "frameAt", timeout).await?;
    let time_origin = number(&state, "timeOrigin")
        .ok_or_else(|| Error::Check(format!("no performance.timeOrigin in {state}")))?;
    Ok(Ready {
        nav: Navigation {
            time_origin,
            dom_content_loaded: number(&state, "domContentLoaded").map(|t| time_origin + t),
            first_contentful_paint: number(&state, "fcp").map(|t| time_origin + t),
        },
        at: number(&state, "readyAt").unwrap_or(f64::NAN),
        frame: number(&state, "frameAt").unwrap_or(f64::NAN),
        already: state.get("already").and_then(Value::as_bool) == Some(true),
    })
}

/// Installs the dialog observer; the dialog must not be showing yet.
pub async fn watch_dialog(app: &App) -> Result<()> {
    let showing = app.client().execute(WATCH_DIALOG, vec![]).await?;
    if showing == Value::Bool(true) {
        return Err(Error::Check(
            "a dialog is already showing before the call".into(),
        ));
    }
    Ok(())
}

pub async fn dialog(app: &App, timeout: Duration) -> Result<Shown> {
    let state = recorded(
        app,
        "return window.__wharfBenchDialog || null;",
        "frameAt",
        timeout,
    )
    .await?;
    Ok(Shown {
        at: number(&state, "shownAt").unwrap_or(f64::NAN),
        frame: number(&state, "frameAt").unwrap_or(f64::NAN),
    })
}

/// What the window shows of the dialog host and the tool's result, for an error message.
pub async fn describe(app: &App) -> String {
    let script = r#"
const text = (sel) => { const e = document.querySelector(sel); return e === null ? "(none)" : e.outerHTML.slice(0, 600); };
return "dialog host: " + text('[data-testid="dialog-host"]') + "; tool result: " + text('[data-testid="tool-result"]');
"#;
    match app.client().execute(script, vec![]).await {
        Ok(Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(e) => format!("(the page could not be read: {e})"),
    }
}

/// Runs `script` (which returns what an observer recorded) until its `field` is set (the page sets it; the poll only
/// collects it).
pub async fn recorded(app: &App, script: &str, field: &str, timeout: Duration) -> Result<Value> {
    let deadline = Instant::now() + timeout;
    loop {
        let state = app.client().execute(script, vec![]).await?;
        if number(&state, field).is_some() {
            return Ok(state);
        }
        if Instant::now() >= deadline {
            return Err(Error::Timeout {
                what: format!("the page to record {field} (last: {state})"),
                secs: timeout.as_secs(),
            });
        }
        tokio::time::sleep(POLL).await;
    }
}

fn number(value: &Value, key: &str) -> Option<f64> {
    value.get(key).and_then(Value::as_f64)
}
