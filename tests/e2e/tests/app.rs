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
//! the refusal of a path outside the workspace.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wharf_e2e::{
    demo_server, demo_server_bin, everything_server, with_app, with_launch, App, Error, Home,
    Launch, Locator, Result, Url,
};

/// The everything server over stdio: node's start plus the era probe. Generous for a loaded 2-core machine.
const SERVER_READY: Duration = Duration::from_secs(90);
/// Anything the UI does in answer to a WebDriver action.
const UI: Duration = Duration::from_secs(30);
/// The bundled demo server (a native binary): up in well under a second, generous for a loaded machine.
const DEMO_READY: Duration = Duration::from_secs(30);
/// A call to a demo tool that answers at once.
const CALL: Duration = Duration::from_secs(15);

/// What the app logs (src-tauri/src/window.rs) when its webview hooks refuse a navigation or a new window: the
/// positive sign that the attempt reached the hook and was decided, so the checks after it are not early.
const NAVIGATION_REFUSED: &str = "navigation away from the app refused";
const NEW_WINDOW_REFUSED: &str = "new window refused";
const EXTERNAL: &str = "https://example.com/";

fn everything_config() -> Value {
    json!({"servers": {"everything": everything_server().expect("server-everything (scripts/deps.sh)")}})
}

/// A server's row, by the data-testid contract.
fn row(server: &str) -> String {
    format!(r#"[data-testid="server-row"][data-server="{server}"]"#)
}

/// An element inside a server's row, by its data-testid.
fn in_row(server: &str, testid: &str) -> String {
    format!(r#"{} [data-testid="{testid}"]"#, row(server))
}

#[tokio::test]
async fn app_starts_and_shows_a_server_ready() -> Result<()> {
    with_app(everything_config(), async |app| {
        assert_eq!(app.client().title().await?, "Wharf");
        assert_is_app_url(&app.client().current_url().await?);
        app.wait_for_text(
            Locator::Css(&in_row("everything", "server-status")),
            "ready",
            SERVER_READY,
        )
        .await?;
        // The server-everything writes a startup line to stderr: the row offers it.
        app.wait_for(Locator::Css(&in_row("everything", "server-stderr")), UI)
            .await?;
        let shot = app.screenshot("servers").await?;
        eprintln!("screenshot: {}", shot.display());
        Ok(())
    })
    .await
}

/// The webview must stay on the app: a script's navigation, window.open and a click on a `target="_blank"` link
/// all leave the same document in the one window. (The network is closed here, so a navigation that got through
/// would fail to load; the checks are on the URL, the window count and the document, never on a load error.)
#[tokio::test]
async fn webview_cannot_navigate_away_or_open_windows() -> Result<()> {
    with_app(everything_config(), async |app| {
        let client = app.client();
        app.wait_for(Locator::Css(&row("everything")), UI).await?;
        let home = client.current_url().await?;
        assert_is_app_url(&home);
        // A sentinel on this very document: any navigation, even one back to the app, would lose it.
        client
            .execute("window.__wharfE2eSentinel = 'still here'; return true;", vec![])
            .await?;
        assert_still_home(app, &home).await?;

        // 1. A script sets location. Deferred, so that the execute call answers before the navigation starts.
        let refused = app.log_count(NAVIGATION_REFUSED);
        client
            .execute(
                "const to = arguments[0]; setTimeout(() => { window.location.href = to; }, 0); return true;",
                vec![json!(EXTERNAL)],
            )
            .await?;
        app.wait_for_log(NAVIGATION_REFUSED, refused + 1, UI).await?;
        assert_still_home(app, &home).await?;

        // 2. window.open without a user gesture: WebKit's popup blocker or the app's new-window hook stops it,
        // synchronously either way, so the returned null is the event to check.
        let opened = client
            .execute(
                "return window.open(arguments[0]) === null;",
                vec![json!(EXTERNAL)],
            )
            .await?;
        if opened != json!(true) {
            return Err(Error::Check("window.open returned a window".into()));
        }
        assert_still_home(app, &home).await?;

        // 3. A click (a real user gesture) on an injected target="_blank" link reaches the new-window hook.
        let refused = app.log_count(NEW_WINDOW_REFUSED);
        inject_link(app, "e2e-blank-link", Some("_blank")).await?;
        client
            .find(Locator::Id("e2e-blank-link"))
            .await?
            .click()
            .await?;
        app.wait_for_log(NEW_WINDOW_REFUSED, refused + 1, UI)
            .await?;
        assert_still_home(app, &home).await?;

        // 4. A click on a plain external link is a navigation: refused like the scripted one.
        let refused = app.log_count(NAVIGATION_REFUSED);
        inject_link(app, "e2e-plain-link", None).await?;
        client
            .find(Locator::Id("e2e-plain-link"))
            .await?
            .click()
            .await?;
        app.wait_for_log(NAVIGATION_REFUSED, refused + 1, UI)
            .await?;
        assert_still_home(app, &home).await?;
        Ok(())
    })
    .await
}

/// Prepends `<a id=ID href=EXTERNAL target=TARGET>` to the body (textContent only: the link is ours, but the habit
/// is the UI's own).
async fn inject_link(app: &App, id: &str, target: Option<&str>) -> Result<()> {
    app.client()
        .execute(
            r#"const [id, href, target] = arguments;
               const a = document.createElement("a");
               a.id = id; a.href = href; a.textContent = "external link " + id;
               if (target !== null) a.target = target;
               document.body.prepend(a);
               return true;"#,
            vec![json!(id), json!(EXTERNAL), json!(target)],
        )
        .await?;
    Ok(())
}

/// The app's own origin: `tauri://localhost` on Linux (see `is_app_url` in src-tauri/src/window.rs).
fn assert_is_app_url(url: &Url) {
    assert_eq!(url.scheme(), "tauri", "{url}");
    assert_eq!(url.host_str(), Some("localhost"), "{url}");
}

/// Same URL, one window, the same document (sentinel), the app's title and its server list still there.
async fn assert_still_home(app: &App, home: &Url) -> Result<()> {
    let client = app.client();
    let url = client.current_url().await?;
    assert_eq!(&url, home, "the webview left the app");
    let windows = client.windows().await?;
    assert_eq!(windows.len(), 1, "a window was opened: {windows:?}");
    let sentinel = client
        .execute("return window.__wharfE2eSentinel ?? null;", vec![])
        .await?;
    assert_eq!(sentinel, json!("still here"), "the document was replaced");
    assert_eq!(client.title().await?, "Wharf");
    client.find(Locator::Css(&row("everything"))).await?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------------------------
// The bundled demo server through the window: tools, forms, progress and cancellation, the server form, a crash,
// what survives a restart, and the first run.
// ---------------------------------------------------------------------------------------------------------------

/// The escape sequence WebDriver reads as the Enter key.
const ENTER: &str = "\u{E007}";
/// Steps and step length of the `slow` call that gets cancelled: 10 s if nobody cancelled it.
const SLOW_STEPS: u32 = 50;
const SLOW_DELAY_MS: u64 = 200;

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

fn field_error(field: &str) -> String {
    format!(r#"[data-testid="field-error"][data-field="{field}"]"#)
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

#[tokio::test]
async fn echo_runs_through_the_generated_form() -> Result<()> {
    with_app(demo_config(), async |app| {
        wait_ready(app, "demo").await?;
        select_server(app, "demo").await?;
        app.wait_for(Locator::Css(&tool_item("slow")), UI).await?;
        let all = app.count(Locator::Css(&testid("tool-item"))).await?;

        // The search narrows the list: echo stays, tools that do not mention it go.
        app.fill(Locator::Css(&testid("tool-search")), "echo", UI)
            .await?;
        app.wait_gone(Locator::Css(&tool_item("slow")), UI).await?;
        app.wait_for(Locator::Css(&tool_item("echo")), UI).await?;
        let shown = app.count(Locator::Css(&testid("tool-item"))).await?;
        check(
            shown >= 1 && shown < all,
            format!("the search for echo shows {shown} of {all} tools"),
        )?;
        check(
            app.count(Locator::Css(&tool_item("add"))).await? == 0,
            "add still listed",
        )?;

        // Run with the button.
        pick_tool(app, "echo").await?;
        let input = app
            .fill(Locator::Css(&arg_input("message")), "hello from e2e", UI)
            .await?;
        app.click(Locator::Css(&testid("tool-run")), UI).await?;
        let text = format!("{} {}", result_with("done"), testid("result-text"));
        app.wait_for_text(Locator::Css(&text), "echo: hello from e2e", CALL)
            .await?;

        // Enter in the field submits the form too.
        input.clear().await?;
        input.send_keys(&format!("sent with Enter{ENTER}")).await?;
        app.wait_for_text(Locator::Css(&text), "echo: sent with Enter", CALL)
            .await?;
        check(
            app.count(Locator::Css(&testid("tool-error"))).await? == 0,
            "an error shown beside a successful echo",
        )?;
        app.screenshot("tool-result").await?;
        Ok(())
    })
    .await
}

#[tokio::test]
async fn slow_shows_progress_and_cancels() -> Result<()> {
    with_app(demo_config(), async |app| {
        wait_ready(app, "demo").await?;
        select_server(app, "demo").await?;
        let started = start_slow(app).await?;
        app.screenshot("progress").await?;
        cancel_slow(app, started).await?;
        check(
            app.count(Locator::Css(&testid("tool-cancel"))).await? == 0,
            "Cancel still offered after the call ended",
        )?;
        // The server is fine: another call goes through.
        wait_ready(app, "demo").await?;
        echo(app, "still here").await?;
        Ok(())
    })
    .await
}

/// The row's stderr tail is "the newest lines the server wrote": a line written while the server runs (here the
/// demo's note that it stopped a cancelled `slow`) shows up in it, through the host's `stderr` events.
#[tokio::test]
async fn stderr_tail_follows_a_running_server() -> Result<()> {
    with_app(demo_config(), async |app| {
        wait_ready(app, "demo").await?;
        select_server(app, "demo").await?;
        let started = start_slow(app).await?;
        cancel_slow(app, started).await?;
        wait_stderr(app, "demo", "slow cancelled after", UI).await?;
        Ok(())
    })
    .await
}

/// Runs `slow` (SLOW_STEPS steps of SLOW_DELAY_MS) in the selected server and waits until its progress bar shows
/// a first step, with the total. Returns when the call started.
async fn start_slow(app: &App) -> Result<Instant> {
    pick_tool(app, "slow").await?;
    app.fill(
        Locator::Css(&arg_input("steps")),
        &SLOW_STEPS.to_string(),
        UI,
    )
    .await?;
    app.fill(
        Locator::Css(&arg_input("delay_ms")),
        &SLOW_DELAY_MS.to_string(),
        UI,
    )
    .await?;
    let started = Instant::now();
    app.click(Locator::Css(&testid("tool-run")), UI).await?;

    // Progress with a total: the bar's value and max come from the server's notifications.
    let progress = Locator::Css(r#"[data-testid="tool-progress"]"#);
    let (value, max) = app
        .wait_until("tool-progress to show a first step", CALL, async || {
            let value = app.attr(progress, "value").await?;
            let max = app.attr(progress, "max").await?;
            Ok(match (value, max) {
                (Some(value), Some(max)) => {
                    let value: f64 = value.parse().unwrap_or(0.0);
                    (value >= 1.0).then_some((value, max))
                }
                _ => None,
            })
        })
        .await?;
    check(
        max == SLOW_STEPS.to_string(),
        format!("tool-progress max is {max}, not {SLOW_STEPS}"),
    )?;
    check(
        value < f64::from(SLOW_STEPS),
        format!("already at {value} of {SLOW_STEPS}"),
    )?;
    let message = app
        .text(Locator::Css(&testid("tool-progress-message")))
        .await?
        .unwrap_or_default();
    check(
        message.contains(&format!("/ {SLOW_STEPS}")),
        format!("the progress message reads {message:?}"),
    )?;
    Ok(started)
}

/// Clicks Cancel on the running `slow` and checks that the result says cancelled within a few seconds, long
/// before the call would have ended by itself.
async fn cancel_slow(app: &App, started: Instant) -> Result<()> {
    let clicked = Instant::now();
    app.click(Locator::Css(&testid("tool-cancel")), UI).await?;
    let cancelled = format!("{} {}", result_with("cancelled"), testid("tool-error"));
    app.wait_for_text(
        Locator::Css(&cancelled),
        "The call was cancelled.",
        Duration::from_secs(5),
    )
    .await?;
    let took = clicked.elapsed();
    let total = started.elapsed();
    let full = Duration::from_millis(u64::from(SLOW_STEPS) * SLOW_DELAY_MS);
    eprintln!("slow: cancelled {took:?} after the click, {total:?} after the start");
    check(
        total < full / 2,
        format!(
            "the cancelled call ended {total:?} after its start: not well before its full {full:?}"
        ),
    )
}

#[tokio::test]
async fn kinds_form_builds_every_field_kind() -> Result<()> {
    with_app(demo_config(), async |app| {
        wait_ready(app, "demo").await?;
        select_server(app, "demo").await?;
        pick_tool(app, "kinds").await?;
        let input = |path: &str| arg_input(path);
        app.fill(Locator::Css(&input("text")), "a line", UI).await?;
        app.fill(Locator::Css(&input("count")), "42", UI).await?;
        app.fill(Locator::Css(&input("ratio")), "0.25", UI).await?;
        // An optional boolean without a default: a select of (not set), true, false.
        app.choose(Locator::Css(&input("flag")), "true", UI).await?;
        // An enum: a select whose options are the choices.
        app.choose(Locator::Css(&input("color")), "green", UI)
            .await?;
        // A list of strings: one item added, then typed in.
        app.click(
            Locator::Css(r#"[data-testid="arg-add"][data-arg="tags"]"#),
            UI,
        )
        .await?;
        app.fill(Locator::Css(&input("tags[0]")), "alpha", UI)
            .await?;
        // An object: its fields by dotted path.
        app.fill(Locator::Css(&input("nested.x")), "3", UI).await?;
        app.fill(Locator::Css(&input("nested.y")), "-4", UI).await?;
        // The form is taller than its pane at the default window size: one picture of its end (where the last
        // field left it scrolled), one of its start.
        app.screenshot("form-end").await?;
        app.client()
            .execute(
                r#"document.querySelector('[data-testid="tool-form"]').scrollIntoView({ block: "start" });
                   return true;"#,
                vec![],
            )
            .await?;
        app.screenshot("form").await?;

        app.click(Locator::Css(&testid("tool-run")), UI).await?;
        let text = format!("{} {}", result_with("done"), testid("result-text"));
        let echoed = app
            .wait_until("kinds to echo its arguments", CALL, async || {
                app.text(Locator::Css(&text)).await
            })
            .await?;
        let echoed: Value = serde_json::from_str(&echoed)
            .map_err(|e| Error::Check(format!("kinds answered {echoed:?}, not JSON: {e}")))?;
        let expected = json!({
            "text": "a line",
            "count": 42,
            "ratio": 0.25,
            "flag": true,
            "color": "green",
            "tags": ["alpha"],
            "nested": {"x": 3, "y": -4},
        });
        check(
            echoed == expected,
            format!("kinds echoed {echoed}, expected {expected}"),
        )?;
        // serde_json's == already tells 42 from "42" and true from "true"; said explicitly, as that is the point.
        check(echoed["count"].is_i64(), "count is not an integer")?;
        check(echoed["ratio"].is_f64(), "ratio is not a number")?;
        check(echoed["flag"].is_boolean(), "flag is not a boolean")?;
        check(echoed["nested"]["y"].is_i64(), "nested.y is not an integer")?;
        // The structured content shows the same object.
        app.wait_for(
            Locator::Css(&format!(
                "{} {}",
                result_with("done"),
                testid("result-structured")
            )),
            UI,
        )
        .await?;
        Ok(())
    })
    .await
}

#[tokio::test]
async fn add_server_through_the_form() -> Result<()> {
    with_app(demo_config(), async |app| {
        wait_ready(app, "demo").await?;
        let before = std::fs::read(app.config_path())
            .map_err(|e| Error::Check(format!("reading the config: {e}")))?;

        app.click(Locator::Css(&testid("add-server")), UI).await?;
        let form = Locator::Css(r#"[data-testid="server-form"]"#);
        app.wait_for(form, UI).await?;
        app.fill(Locator::Css(&testid("server-form-name")), "second", UI)
            .await?;

        // Saving without a command: an error next to the command field, and nothing written.
        app.click(Locator::Css(&testid("server-form-save")), UI)
            .await?;
        let error = app
            .wait_for(Locator::Css(&field_error("command")), UI)
            .await?;
        let message = error.text().await?;
        check(
            !message.trim().is_empty(),
            "the command's field error is empty",
        )?;
        // "Next to the field": the command input is marked invalid and described by the block holding the error.
        let beside = app
            .client()
            .execute(
                r#"const input = document.querySelector('[data-testid="server-form-command"]');
                   const error = document.querySelector('[data-testid="field-error"][data-field="command"]');
                   const ids = (input.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
                   const described = ids.some((id) => document.getElementById(id)?.contains(error));
                   const a = input.getBoundingClientRect(), b = error.getBoundingClientRect();
                   return {
                     invalid: input.getAttribute("aria-invalid"),
                     described,
                     below: b.top >= a.bottom - 1 && b.top - a.bottom < 40 && b.left < a.right && b.right > a.left,
                   };"#,
                vec![],
            )
            .await?;
        check(
            beside == json!({"invalid": "true", "described": true, "below": true}),
            format!("the command error is not shown with its field: {beside}"),
        )?;
        check(
            app.count(Locator::Css(&field_error("name"))).await? == 0,
            "a name error for a valid name",
        )?;
        app.screenshot("server-form").await?;
        let after = std::fs::read(app.config_path())
            .map_err(|e| Error::Check(format!("reading the config: {e}")))?;
        check(
            after == before,
            "the config file changed after a refused save",
        )?;
        check(
            app.count(Locator::Css(&row("second"))).await? == 0,
            "a row for the refused server",
        )?;

        // With a command it saves: the form closes, the row comes up, the file has it.
        let demo = demo_server_bin()?;
        app.fill(
            Locator::Css(&testid("server-form-command")),
            &demo.to_string_lossy(),
            UI,
        )
        .await?;
        app.click(Locator::Css(&testid("server-form-save")), UI)
            .await?;
        app.wait_gone(form, UI).await?;
        wait_ready(app, "second").await?;
        wait_ready(app, "demo").await?;
        let config = read_json(app.config_path())?;
        check(
            config["servers"]["second"]["command"] == json!(demo),
            format!("the config file has no server \"second\" running the demo: {config}"),
        )?;
        check(
            config["servers"]["demo"].is_object(),
            format!("the config file lost the demo server: {config}"),
        )?;
        Ok(())
    })
    .await
}

/// Records, on the page, every state of a row the DOM goes through: its status, whether its stderr tail holds
/// `needle`, and when (ms since the recording began). A MutationObserver runs after each DOM change, so even a state
/// that lasts a few hundred milliseconds (a restart after a crash backs off 250 ms) is seen without polling; the
/// first state whose status is one of `statuses` with `needle` in the stderr also settles a promise that
/// [`wait_recorded`] waits on.
async fn record_row(app: &App, server: &str, needle: &str, statuses: &[&str]) -> Result<()> {
    app.client()
        .execute(
            r#"const [selector, needle, statuses] = arguments;
               const seen = (window.__wharfE2eRow = []);
               let settle;
               window.__wharfE2eRowMatched = new Promise((resolve) => (settle = resolve));
               const start = performance.now();
               const note = () => {
                 const row = document.querySelector(selector);
                 if (row === null) return;
                 const status = row.querySelector('[data-testid="server-status"]')?.textContent.trim() ?? "";
                 const stderr = row.querySelector('[data-testid="server-stderr"]')?.textContent ?? "";
                 const state = { status, needle: stderr.includes(needle), ms: Math.round(performance.now() - start) };
                 const last = seen[seen.length - 1];
                 if (last === undefined || last.status !== status || last.needle !== state.needle) seen.push(state);
                 if (state.needle && statuses.includes(status)) settle(state);
               };
               note();
               new MutationObserver(note).observe(document.body,
                 { subtree: true, childList: true, characterData: true, attributes: true });
               return true;"#,
            vec![json!(row(server)), json!(needle), json!(statuses)],
        )
        .await?;
    Ok(())
}

/// Waits (bounded) until the row [`record_row`] watches has been in one of its statuses with the needle in its
/// stderr; returns that status.
async fn wait_recorded(app: &App, timeout: Duration) -> Result<String> {
    let ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
    let state = app
        .client()
        .execute_async(
            r#"const [ms, done] = [arguments[0], arguments[arguments.length - 1]];
               const timer = setTimeout(() => done(null), ms);
               window.__wharfE2eRowMatched.then((state) => { clearTimeout(timer); done(state); });"#,
            vec![json!(ms)],
        )
        .await?;
    match state["status"].as_str() {
        Some(status) => Ok(status.to_owned()),
        None => Err(Error::Timeout {
            what: format!(
                "the recorded row state (seen: {:?})",
                recorded_row(app).await?
            ),
            secs: timeout.as_secs(),
        }),
    }
}

/// The states [`record_row`] has seen so far, as (status, stderr holds the needle, ms since the recording began).
async fn recorded_row(app: &App) -> Result<Vec<(String, bool, u64)>> {
    let seen = app
        .client()
        .execute("return window.__wharfE2eRow ?? [];", vec![])
        .await?;
    Ok(seen
        .as_array()
        .map(|states| {
            states
                .iter()
                .map(|s| {
                    (
                        s["status"].as_str().unwrap_or_default().to_owned(),
                        s["needle"].as_bool().unwrap_or(false),
                        s["ms"].as_u64().unwrap_or_default(),
                    )
                })
                .collect()
        })
        .unwrap_or_default())
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

#[tokio::test]
async fn crashed_server_shows_failed_with_stderr_and_restarts() -> Result<()> {
    const FATAL: &str = "fatal: boom-e2e";
    with_app(demo_config(), async |app| {
        wait_ready(app, "demo").await?;
        select_server(app, "demo").await?;
        // The demo server says hello on stderr: the tail is there (and opened) before the crash.
        wait_stderr(app, "demo", "ready (stdio)", UI).await?;
        let pid_before = shown_pid(app, "demo").await?;
        pick_tool(app, "crash").await?;
        app.fill(Locator::Css(&arg_input("message")), "boom-e2e", UI)
            .await?;
        // The row goes to restarting (or failed) with the crash's last words in its stderr: the recorder on the
        // page catches it however briefly it lasts, and the screenshot follows at once. The first restart waits
        // only 250 ms, which a screenshot under load can miss; if the row changed before the picture was done,
        // the server is crashed again, and each crash doubles the wait (500 ms, then 1 s: well below the six quick
        // crashes after which the app gives up).
        const TRIES: usize = 3;
        for attempt in 1..=TRIES {
            record_row(app, "demo", FATAL, &["restarting", "failed"]).await?;
            app.click(Locator::Css(&testid("tool-run")), UI).await?;
            let crashed = wait_recorded(app, CALL).await?;
            app.screenshot("crashed").await?;
            let seen = recorded_row(app).await?;
            let pictured = seen
                .last()
                .is_some_and(|(status, fatal, _)| *fatal && *status == crashed);
            eprintln!("crash {attempt}: the row was {crashed} with {FATAL:?} in its stderr; pictured: {pictured}");
            if pictured || attempt == TRIES {
                break;
            }
            wait_ready(app, "demo").await?;
            app.wait_for(Locator::Css(&testid("tool-run")), UI).await?;
        }
        // The call that killed the server failed (it never got an answer), and says why.
        let error = format!("{} {}", result_with("failed"), testid("tool-error"));
        app.wait_until(
            "the crash call to fail with the fatal line",
            CALL,
            async || {
                Ok(app
                    .text(Locator::Css(&error))
                    .await?
                    .filter(|text| text.contains(FATAL)))
            },
        )
        .await?;

        // The app restarts it by itself (backoff from 250 ms); if it gave up, Start brings it back.
        let status = app
            .wait_until(
                "the demo server to be ready or failed",
                DEMO_READY,
                async || {
                    let status = app
                        .text(Locator::Css(&in_row("demo", "server-status")))
                        .await?;
                    Ok(status.filter(|s| s == "ready" || s == "failed"))
                },
            )
            .await?;
        if status == "failed" {
            app.click(Locator::Css(&in_row("demo", "server-start")), UI)
                .await?;
        }
        wait_ready(app, "demo").await?;
        let seen = recorded_row(app).await?;
        eprintln!("crash: the row went through (status, fatal line shown, ms) {seen:?}");
        let pid_after = shown_pid(app, "demo").await?;
        check(
            pid_before.is_some() && pid_after.is_some() && pid_after != pid_before,
            format!("the row shows pid {pid_before:?} before the crash and {pid_after:?} after"),
        )?;
        // And it works again.
        echo(app, "back again").await?;
        Ok(())
    })
    .await
}

#[tokio::test]
async fn theme_toggle_and_state_survive_a_restart() -> Result<()> {
    let home = Home::new()?;
    let config = json!({"servers": {
        "demo": demo_server()?,
        "other": demo_server()?,
    }});
    let toggle = Locator::Css(r#"[data-testid="theme-toggle"]"#);

    with_launch(Launch::config(config).home(&home), async |app| {
        wait_ready(app, "demo").await?;
        wait_ready(app, "other").await?;
        // The first server is shown when nothing was chosen: choose the other one.
        wait_selected(app, "demo", UI).await?;
        select_server(app, "other").await?;
        app.wait_for(Locator::Css(&tool_item("echo")), UI).await?;

        // system -> light -> dark
        let choice = app
            .wait_until("the theme toggle to reach dark", UI, async || {
                let choice = app.attr(toggle, "data-theme-choice").await?;
                if choice.as_deref() == Some("dark") {
                    return Ok(Some(()));
                }
                app.click(toggle, UI).await?;
                Ok(None)
            })
            .await;
        choice?;
        check(
            document_theme(app).await? == json!("dark"),
            "the page is not in the dark theme",
        )?;
        app.screenshot("dark").await?;

        // The selection is kept by the Rust side in $XDG_CONFIG_HOME/wharf/app-state.json.
        let state_file = home.app_config_dir().join("app-state.json");
        app.wait_until("app-state.json to hold the selection", UI, async || {
            Ok(read_json(&state_file)
                .ok()
                .filter(|state| state["selectedServer"] == json!("other")))
        })
        .await?;
        Ok(())
    })
    .await?;

    // The same home and the same mcp.json: a second run.
    with_launch(Launch::existing_config().home(&home), async |app| {
        wait_ready(app, "demo").await?;
        wait_ready(app, "other").await?;
        wait_selected(app, "other", UI).await?;
        // The tools panel shows the selected server's tools.
        app.wait_for(Locator::Css(&tool_item("echo")), UI).await?;
        let choice = app.attr(toggle, "data-theme-choice").await?;
        check(
            choice.as_deref() == Some("dark"),
            format!("the theme after a restart is {choice:?}, not dark"),
        )?;
        check(
            document_theme(app).await? == json!("dark"),
            "the page is not in the dark theme after a restart",
        )?;
        Ok(())
    })
    .await
}

/// The theme the page applies (`<html data-theme>`; null when it follows the system).
async fn document_theme(app: &App) -> Result<Value> {
    Ok(app
        .client()
        .execute(
            "return document.documentElement.dataset.theme ?? null;",
            vec![],
        )
        .await?)
}

#[tokio::test]
async fn first_run_shows_the_demo_server() -> Result<()> {
    with_launch(Launch::default_config(), async |app| {
        check(
            !app.config_path().exists(),
            format!(
                "{} exists before the first run",
                app.config_path().display()
            ),
        )?;
        wait_ready(app, "demo").await?;
        let notice = app
            .wait_until("the first-run notice", UI, async || {
                let warnings = app
                    .client()
                    .find_all(Locator::Css(&testid("startup-warning")))
                    .await?;
                for warning in warnings {
                    let text = warning.text().await?;
                    if text.contains("First run") {
                        return Ok(Some(text));
                    }
                }
                Ok(None)
            })
            .await?;
        // It says where the user's servers will go: the default path under the (temporary) XDG_CONFIG_HOME.
        check(
            notice.contains(&app.config_path().display().to_string()),
            format!("the first-run notice does not name the config file: {notice:?}"),
        )?;
        // The demo server is usable right away.
        select_server(app, "demo").await?;
        app.wait_for(Locator::Css(&tool_item("echo")), UI).await?;
        app.screenshot("first-run").await?;
        // Nothing is written until the user edits something.
        check(
            !app.config_path().exists(),
            "the first run wrote a config file by itself",
        )?;
        Ok(())
    })
    .await
}

// The workspace: folders opened from the command line become roots; the panel lists them and what each server sees;
// the tool form offers them for path arguments, and a path outside them is refused before it reaches the server.

/// A folder in the test's home with a space in its name (its root URI then has `%20`), made before the app starts.
fn workspace_folder(home: &Home, name: &str) -> Result<std::path::PathBuf> {
    let folder = home.path().join(name);
    std::fs::create_dir_all(&folder)
        .map_err(|e| Error::Check(format!("cannot create {}: {e}", folder.display())))?;
    Ok(folder)
}

/// The root URI Wharf gives a folder: its canonical path, percent-encoded (only spaces occur in these tests).
fn root_uri(folder: &std::path::Path) -> Result<String> {
    let canonical = folder
        .canonicalize()
        .map_err(|e| Error::Check(format!("cannot resolve {}: {e}", folder.display())))?;
    Ok(format!("file://{}", canonical.display()).replace(' ', "%20"))
}

fn workspace_folder_row(path: &str) -> String {
    format!(
        r#"[data-testid="workspace-panel"] [data-testid="workspace-folder"][data-path="{path}"]"#
    )
}

fn server_root(uri: &str) -> String {
    format!(r#"[data-testid="server-roots"] [data-testid="server-root"][data-uri="{uri}"]"#)
}

/// Runs the selected tool with the form as it is and waits for its result text to read `expected`.
async fn run_expecting(app: &App, expected: &str) -> Result<()> {
    app.click(Locator::Css(&testid("tool-run")), UI).await?;
    let text = format!("{} {}", result_with("done"), testid("result-text"));
    app.wait_for_text(Locator::Css(&text), expected, CALL)
        .await?;
    Ok(())
}

#[tokio::test]
async fn a_folder_from_the_command_line_is_in_the_workspace_and_in_a_servers_roots() -> Result<()> {
    let home = Home::new()?;
    let folder = workspace_folder(&home, "my project")?;
    let path = folder.display().to_string();
    let uri = root_uri(&folder)?;
    let launch = Launch::config(demo_config()).home(&home).args(&[&path]);
    with_launch(launch, async |app| {
        app.wait_for(Locator::Css(&workspace_folder_row(&path)), UI)
            .await?;
        wait_ready(app, "demo").await?;
        select_server(app, "demo").await?;
        // The panel shows what the demo server gets when it asks...
        app.wait_for(Locator::Css(&server_root(&uri)), UI).await?;
        check(
            app.attr(Locator::Css(&testid("roots-toggle")), "checked")
                .await?
                .is_some(),
            "sharing is off for a server whose entry does not say \"roots\": false",
        )?;
        // ... and the server itself, asked through its roots tool, got exactly that.
        pick_tool(app, "roots").await?;
        run_expecting(app, &uri).await?;
        app.wait_until("the panel to say what demo was given", UI, async || {
            Ok(app
                .text(Locator::Css(&testid("server-roots-asked")))
                .await?
                .filter(|t| t.contains("given 1 root")))
        })
        .await?;
        app.screenshot("workspace").await?;

        // Sharing off: written into the server's entry, the server restarts and gets no roots.
        app.click(Locator::Css(&testid("roots-toggle")), UI).await?;
        app.wait_gone(Locator::Css(&server_root(&uri)), UI).await?;
        let config = read_json(app.config_path())?;
        check(
            config["servers"]["demo"]["roots"] == json!(false),
            format!("the config does not say \"roots\": false for demo: {config:#}"),
        )?;
        check(
            config["servers"]["demo"]["command"].is_string(),
            format!("the demo entry lost its command: {config:#}"),
        )?;
        wait_ready(app, "demo").await?;
        pick_tool(app, "roots").await?;
        run_expecting(app, "(no roots)").await?;

        // Sharing on again.
        app.click(Locator::Css(&testid("roots-toggle")), UI).await?;
        app.wait_for(Locator::Css(&server_root(&uri)), UI).await?;
        wait_ready(app, "demo").await?;
        pick_tool(app, "roots").await?;
        run_expecting(app, &uri).await?;

        // Closing the folder from the panel: gone from the workspace, from the server's roots and from the file the
        // app keeps the workspace in.
        let close = format!(
            r#"{} [data-testid="workspace-close"]"#,
            workspace_folder_row(&path)
        );
        app.click(Locator::Css(&close), UI).await?;
        app.wait_gone(Locator::Css(&workspace_folder_row(&path)), UI)
            .await?;
        app.wait_gone(Locator::Css(&server_root(&uri)), UI).await?;
        run_expecting(app, "(no roots)").await?;
        let saved = read_json(&home.app_config_dir().join("workspace.json"))?;
        check(
            saved["folders"] == json!([]),
            format!("workspace.json still lists a folder: {saved:#}"),
        )?;
        Ok(())
    })
    .await
}

/// `@modelcontextprotocol/server-filesystem` from the pinned peers, started with no directory: it takes its allowed
/// directories from the roots Wharf gives it.
fn filesystem_config() -> Result<Value> {
    let peers = std::env::var_os("WHARF_PEERS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| wharf_e2e::repo_root().join(".peers"));
    let script =
        peers.join("npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    if !script.is_file() {
        return Err(Error::Setup(format!(
            "no server-filesystem at {}: run scripts/deps.sh",
            script.display()
        )));
    }
    let node = std::env::var_os("NODE")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::split_paths(&std::env::var_os("PATH")?)
                .map(|dir| dir.join("node"))
                .find(|candidate| candidate.is_file())
        })
        .ok_or_else(|| Error::Setup("node not found on the PATH (or set NODE)".into()))?;
    Ok(json!({"servers": {"fs": {"command": node, "args": [script]}}}))
}

#[tokio::test]
async fn the_path_picker_fills_a_workspace_folder_and_a_path_outside_is_refused() -> Result<()> {
    let home = Home::new()?;
    let folder = workspace_folder(&home, "shared files")?;
    std::fs::write(folder.join("hello.txt"), "hello")
        .map_err(|e| Error::Check(format!("cannot write hello.txt: {e}")))?;
    let path = folder.display().to_string();
    let launch = Launch::config(filesystem_config()?)
        .home(&home)
        .args(&[&path]);
    with_launch(launch, async |app| {
        app.wait_for_text(
            Locator::Css(&in_row("fs", "server-status")),
            "ready",
            SERVER_READY,
        )
        .await?;
        select_server(app, "fs").await?;
        pick_tool(app, "list_directory").await?;
        let pick = r#"[data-testid="path-pick"][data-arg="path"]"#;
        app.choose(Locator::Css(pick), &path, UI).await?;
        app.wait_until("the picked folder in the path field", UI, async || {
            Ok(app
                .attr(Locator::Css(&arg_input("path")), "value")
                .await?
                .filter(|v| *v == path))
        })
        .await?;
        app.click(Locator::Css(&testid("tool-run")), UI).await?;
        let text = format!("{} {}", result_with("done"), testid("result-text"));
        app.wait_until("the listing of the picked folder", CALL, async || {
            Ok(app
                .text(Locator::Css(&text))
                .await?
                .filter(|t| t.contains("[FILE] hello.txt")))
        })
        .await?;

        // A path outside the workspace never reaches the server: the call is refused, next to the argument.
        app.fill(Locator::Css(&arg_input("path")), "/etc", UI)
            .await?;
        app.click(Locator::Css(&testid("tool-run")), UI).await?;
        let refused = format!(
            r#"{} [data-testid="tool-error"][data-code="refused"]"#,
            result_with("failed")
        );
        let message = app
            .wait_until("the refusal", CALL, async || {
                Ok(app.text(Locator::Css(&refused)).await?)
            })
            .await?;
        check(
            message.contains("outside the open workspace folders"),
            format!("the refusal does not say why: {message:?}"),
        )?;
        let beside = format!(r#"{}[data-arg="path"]"#, testid("arg-error"));
        app.wait_until("the refusal next to the path field", UI, async || {
            Ok(app
                .text(Locator::Css(&beside))
                .await?
                .filter(|t| t.contains("/etc")))
        })
        .await?;
        app.screenshot("path-refused").await?;

        // "Ask me each time": written into the server's entry (it restarts), and the same call now waits for the
        // user. Not sent: refused as before, saying so; sent anyway: it reaches the server, whose own allowed
        // directories then answer.
        app.choose(Locator::Css(&testid("path-policy")), "Ask me each time", UI)
            .await?;
        app.wait_until("\"pathArguments\": \"ask\" in the config", UI, async || {
            let config = read_json(app.config_path())?;
            Ok((config["servers"]["fs"]["pathArguments"] == json!("ask")).then_some(()))
        })
        .await?;
        wait_ready(app, "fs").await?;
        pick_tool(app, "list_directory").await?;
        let question =
            r#"[data-testid="dialog-host"] [data-testid="path-outside"][data-pointer="path"]"#;
        for (answer, expected) in [
            ("dialog-decline", "you chose not to send it"),
            ("dialog-accept", "Access denied"),
        ] {
            app.fill(Locator::Css(&arg_input("path")), "/etc", UI)
                .await?;
            app.click(Locator::Css(&testid("tool-run")), UI).await?;
            app.wait_until("the question about /etc", UI, async || {
                Ok(app
                    .text(Locator::Css(question))
                    .await?
                    .filter(|t| t.contains("/etc")))
            })
            .await?;
            if answer == "dialog-decline" {
                app.screenshot("path-ask").await?;
            }
            app.click(Locator::Css(&testid(answer)), UI).await?;
            app.wait_gone(Locator::Css(&testid("dialog-host")), UI)
                .await?;
            app.wait_until(
                &format!("the call to end with {expected:?}"),
                CALL,
                async || {
                    Ok(app
                        .text(Locator::Css(&testid("tool-result")))
                        .await?
                        .filter(|t| t.contains(expected)))
                },
            )
            .await?;
        }
        Ok(())
    })
    .await
}

/// "Open folder..." shows the native picker (a GTK dialog over the window, out of WebDriver's reach): the button
/// waits for it, and the app still quits cleanly with the picker open.
#[tokio::test]
async fn open_folder_shows_the_native_picker() -> Result<()> {
    with_app(demo_config(), async |app| {
        app.wait_for(Locator::Css(&testid("workspace-panel")), UI)
            .await?;
        let shown = app.log_count("folder picker shown");
        app.click(Locator::Css(&testid("workspace-open")), UI)
            .await?;
        app.wait_for_log("folder picker shown", shown + 1, UI)
            .await?;
        app.wait_until("the open button to wait for the picker", UI, async || {
            Ok(app
                .attr(Locator::Css(&testid("workspace-open")), "disabled")
                .await?
                .map(|_| ()))
        })
        .await?;
        Ok(())
    })
    .await
}
