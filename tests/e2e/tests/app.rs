//! The app through its real window: started by WebKitWebDriver (through tauri-driver) under Xvfb, one test at a time,
//! each in its own temporary HOME with its own mcp.json. Run with `tests/e2e/run.sh`.
//!
//! Selectors: only the UI's agreed test contract (`data-testid`, `data-server`...), never classes or layout. Each
//! server row is `[data-testid="server-row"][data-server="NAME"]`, holding `[data-testid="server-status"]`
//! (starting|ready|restarting|failed|stopped) and `[data-testid="server-stderr"]`. Two things have no test id and
//! are found by what the user sees: the button that selects a server (its name, inside its row) and the pid in a
//! row ("pid N"). The selected row is the one with `aria-current="true"`.
//!
//! The everything server (node) covers the window itself; the bundled demo server (`wharf-demo-server`, a native
//! binary up in milliseconds) covers the workflows: tools, forms, progress, cancellation, the server form, a crash,
//! a restart of the app, the first run and the workspace (a folder from the command line in the panel and in the
//! server's roots, the roots preference, closing it); the reference filesystem server covers the path picker and
//! the refusal of a path outside the workspace; the everything server's elicitation tools cover the form and URL
//! dialogs (a recording `BROWSER` stands in for the system browser), and its `trigger-sampling-request` the sampling
//! review and settings (a fake OpenAI-compatible provider the test starts on loopback stands in for the LLM), and its
//! resources, prompts, completion and subscription updates the Resources and Prompts views; the scripted provider
//! fixture (`tests/fixtures/chat_provider.py`) with the demo server covers chat: approval in the thread, an edited
//! argument, a link through consent, Stop mid-stream, the conversation after a restart, and a resource and a `/`
//! prompt attached to a message, the model chooser, a model's tool result rendered as the Tools screen does,
//! turns of two conversations at once, and a long conversation paged and carried into a new one with a summary; a
//! hostile server and model (`tests/fixtures/card_server.py`) cover the approval card's names, sizes, every byte and the
//! diff of a changed description; and the bundled demo model (`demo/model_server.mjs`), standing in when no model is
//! configured, covers a new user's first conversation: its call of the demo's `add` through the approval card.
//!
//! One test binary, `app` (run.sh and the Makefile run `--test app`): the groups of tests are its modules under
//! app/, and the timeouts and helpers they share are here.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// A crate root looks for its modules beside itself (tests/servers.rs); the paths keep them in app/, next to the
// root they belong to.
#[path = "app/catalog.rs"]
mod catalog;
#[path = "app/chat.rs"]
mod chat;
#[path = "app/chat_cards.rs"]
mod chat_cards;
#[path = "app/chat_long.rs"]
mod chat_long;
#[path = "app/elicitation.rs"]
mod elicitation;
#[path = "app/first_conversation.rs"]
mod first_conversation;
#[path = "app/sampling.rs"]
mod sampling;
#[path = "app/servers.rs"]
mod servers;
#[path = "app/state.rs"]
mod state;
#[path = "app/tools.rs"]
mod tools;
#[path = "app/view_requests.rs"]
mod view_requests;
#[path = "app/views.rs"]
mod views;
#[path = "app/window.rs"]
mod window;
#[path = "app/workspace.rs"]
mod workspace;

use std::time::Duration;

use serde_json::{json, Value};
use wharf_e2e::{demo_server, App, Error, Locator, Result};

/// The everything server over stdio: node's start plus the era probe. Generous for a loaded 2-core machine.
const SERVER_READY: Duration = Duration::from_secs(90);
/// Anything the UI does in answer to a WebDriver action.
const UI: Duration = Duration::from_secs(30);
/// The bundled demo server (a native binary): up in well under a second, generous for a loaded machine.
const DEMO_READY: Duration = Duration::from_secs(30);
/// A call to a demo tool that answers at once.
const CALL: Duration = Duration::from_secs(15);

/// A server's row, by the data-testid contract.
fn row(server: &str) -> String {
    format!(r#"[data-testid="server-row"][data-server="{server}"]"#)
}

/// An element inside a server's row, by its data-testid.
fn in_row(server: &str, testid: &str) -> String {
    format!(r#"{} [data-testid="{testid}"]"#, row(server))
}

fn demo_config() -> Value {
    json!({"servers": {"demo": demo_server().expect("the demo server (cargo build --workspace --bins)")}})
}

fn testid(id: &str) -> String {
    format!(r#"[data-testid="{id}"]"#)
}

fn tool_item(tool: &str) -> String {
    format!(r#"[data-testid="tool-item"][data-tool="{tool}"]"#)
}

fn arg_input(path: &str) -> String {
    format!(r#"[data-testid="arg-input"][data-arg="{path}"]"#)
}

/// The result of the tool's latest call once it has ended with `status` (done, failed or cancelled).
fn result_with(status: &str) -> String {
    format!(r#"[data-testid="tool-result"][data-status="{status}"]"#)
}

async fn wait_ready(app: &App, server: &str) -> Result<()> {
    app.wait_for_text(
        Locator::Css(&in_row(server, "server-status")),
        "ready",
        DEMO_READY,
    )
    .await?;
    Ok(())
}

/// Selects a server the way a user does, by clicking its name in its row, and waits until the row is the selected
/// one. (The name button has no test id of its own: it is found as the row's button that reads the server's name.)
async fn select_server(app: &App, server: &str) -> Result<()> {
    let button = format!(
        r#"//li[@data-testid="server-row"][@data-server="{server}"]//button[normalize-space()="{server}"]"#
    );
    app.click(Locator::XPath(&button), UI).await?;
    wait_selected(app, server, UI).await
}

/// Waits until `server`'s row is the one the UI marks as selected (`aria-current="true"`, the accent border) and
/// no other row is.
async fn wait_selected(app: &App, server: &str, timeout: Duration) -> Result<()> {
    let selected_rows = format!(r#"{}[aria-current="true"]"#, testid("server-row"));
    app.wait_until(
        &format!("{server} to be the only selected server"),
        timeout,
        async || {
            let rows = app.client().find_all(Locator::Css(&selected_rows)).await?;
            if rows.len() != 1 {
                return Ok(None);
            }
            let name = rows[0].attr("data-server").await?;
            Ok((name.as_deref() == Some(server)).then_some(()))
        },
    )
    .await
}

/// Clicks a tool in the selected server's list and waits for its form.
async fn pick_tool(app: &App, tool: &str) -> Result<()> {
    app.click(Locator::Css(&tool_item(tool)), UI).await?;
    let form = format!(r#"[data-testid="tool-form"][data-tool="{tool}"]"#);
    app.wait_for(Locator::Css(&form), UI).await?;
    Ok(())
}

/// Runs echo with `message` through the form and waits for its answer.
async fn echo(app: &App, message: &str) -> Result<()> {
    pick_tool(app, "echo").await?;
    app.fill(Locator::Css(&arg_input("message")), message, UI)
        .await?;
    app.click(Locator::Css(&testid("tool-run")), UI).await?;
    let text = format!("{} {}", result_with("done"), testid("result-text"));
    app.wait_for_text(Locator::Css(&text), &format!("echo: {message}"), CALL)
        .await?;
    Ok(())
}

/// Expands a `<details>` (the stderr tail of a row) if it is collapsed: a click on a closed one lands on its
/// summary, the only part shown.
async fn expand(app: &App, details: &str) -> Result<()> {
    if app.attr(Locator::Css(details), "open").await?.is_none() {
        app.click(Locator::Css(details), UI).await?;
    }
    app.wait_until(&format!("{details} to be open"), UI, async || {
        Ok(app.attr(Locator::Css(details), "open").await?.map(|_| ()))
    })
    .await
}

/// Waits until `server`'s stderr tail (expanded) contains `needle`.
async fn wait_stderr(app: &App, server: &str, needle: &str, timeout: Duration) -> Result<String> {
    let details = in_row(server, "server-stderr");
    app.wait_for(Locator::Css(&details), timeout).await?;
    expand(app, &details).await?;
    app.wait_until(
        &format!("{server}'s stderr to contain {needle:?}"),
        timeout,
        async || {
            Ok(app
                .text(Locator::Css(&details))
                .await?
                .filter(|text| text.contains(needle)))
        },
    )
    .await
}

fn check(ok: bool, what: impl Into<String>) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::Check(what.into()))
    }
}

fn read_json(path: &std::path::Path) -> Result<Value> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Check(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| Error::Check(format!("{} is not JSON: {e}\n{text}", path.display())))
}

/// The pid a row shows ("pid 1234" among its details; it has no test id of its own).
async fn shown_pid(app: &App, server: &str) -> Result<Option<u32>> {
    let text = app
        .text(Locator::Css(&row(server)))
        .await?
        .unwrap_or_default();
    Ok(text
        .split_whitespace()
        .skip_while(|word| *word != "pid")
        .nth(1)
        .and_then(|pid| pid.parse().ok()))
}
