//! Resources and prompts through the window, with the everything server (node): its resources are listed, a static
//! document is read and its text shown in the viewer; in the Prompts view `completable-prompt` is filled with the
//! server's completion ("E" in `department` suggests "Engineering"), the prompt is got, and its messages shown.
//! A tool result's resource links open in the viewer (a blob: its size and type with Save; a text: its text), and a
//! subscribed resource is read again when the server says it changed (`toggle-subscriber-updates`). The log level
//! chooser shows the level the host keeps after a reload of the window, and "off" clears it.

use super::*;
use wharf_e2e::{everything_server, with_app};

/// A completion or a read: a round trip to node after the 200 ms pause in typing.
const ANSWER: Duration = Duration::from_secs(30);
const DOC: &str = "demo://resource/static/document/architecture.md";

fn everything_config() -> Value {
    json!({"servers": {"everything": everything_server().expect("server-everything (scripts/deps.sh)")}})
}

fn view_tab(view: &str) -> String {
    format!(r#"[data-testid="view-tab"][data-view="{view}"]"#)
}

async fn show_view(app: &App, view: &str) -> Result<()> {
    app.click(Locator::Css(&view_tab(view)), UI).await?;
    app.wait_until(&format!("the {view} view to be selected"), UI, async || {
        let selected = app
            .attr(Locator::Css(&view_tab(view)), "aria-selected")
            .await?;
        Ok((selected.as_deref() == Some("true")).then_some(()))
    })
    .await
}

/// Waits until the element's text contains every one of `needles`, and returns the text.
async fn wait_containing(
    app: &App,
    css: &str,
    needles: &[&str],
    timeout: Duration,
) -> Result<String> {
    app.wait_until(
        &format!("{css} to contain {needles:?}"),
        timeout,
        async || {
            Ok(app
                .text(Locator::Css(css))
                .await?
                .filter(|text| needles.iter().all(|n| text.contains(n))))
        },
    )
    .await
}

#[tokio::test]
async fn resources_are_browsed_and_read_and_a_prompt_is_filled_with_completion() -> Result<()> {
    with_app(everything_config(), async |app| {
        app.wait_for_text(
            Locator::Css(&in_row("everything", "server-status")),
            "ready",
            SERVER_READY,
        )
        .await?;
        select_server(app, "everything").await?;

        // Resources: the list, the static document read into the viewer.
        show_view(app, "resources").await?;
        let item = format!(r#"[data-testid="resource-item"][data-uri="{DOC}"]"#);
        app.wait_for(Locator::Css(&item), ANSWER).await?;
        let listed = app
            .count(Locator::Css(r#"[data-testid="resource-item"]"#))
            .await?;
        check(listed > 1, format!("only {listed} resource listed"))?;
        check(
            app.count(Locator::Css(r#"[data-testid="template-item"]"#))
                .await?
                > 0,
            "no resource template is listed",
        )?;
        app.click(Locator::Css(&item), UI).await?;
        let viewer = format!(r#"[data-testid="resource-viewer"][data-uri="{DOC}"]"#);
        app.wait_for(Locator::Css(&viewer), UI).await?;
        let text = wait_containing(
            app,
            &format!(r#"{viewer} [data-testid="resource-text"]"#),
            &["Everything Server", "Architecture"],
            ANSWER,
        )
        .await?;
        check(
            app.count(Locator::Css(&format!(
                r#"{viewer} [data-testid="resource-truncated"]"#
            )))
            .await?
                == 0,
            "a small document is said to be cut",
        )?;
        eprintln!("read {} characters of {DOC}", text.len());
        app.screenshot("resources").await?;

        // Prompts: completable-prompt, "E" in department suggests Engineering, the other argument filled, Get.
        show_view(app, "prompts").await?;
        app.click(
            Locator::Css(r#"[data-testid="prompt-item"][data-prompt="completable-prompt"]"#),
            ANSWER,
        )
        .await?;
        app.wait_for(
            Locator::Css(r#"[data-testid="prompt-form"][data-prompt="completable-prompt"]"#),
            UI,
        )
        .await?;
        let department = r#"[data-testid="prompt-arg"][data-arg="department"]"#;
        app.fill(Locator::Css(department), "E", UI).await?;
        let suggestion =
            r#"[data-testid="completion-option"][data-field="department"][data-value="Engineering"]"#;
        app.wait_for(Locator::Css(suggestion), ANSWER).await?;
        app.click(Locator::Css(suggestion), UI).await?;
        let picked = app
            .wait_for(Locator::Css(department), UI)
            .await?
            .prop("value")
            .await?;
        check(
            picked.as_deref() == Some("Engineering"),
            format!("picking the suggestion left department as {picked:?}"),
        )?;
        app.fill(
            Locator::Css(r#"[data-testid="prompt-arg"][data-arg="name"]"#),
            "Alice",
            UI,
        )
        .await?;
        app.click(Locator::Css(&testid("prompt-get")), UI).await?;
        let message = r#"[data-testid="prompt-messages"] [data-testid="prompt-message"][data-role="user"]"#;
        let text = wait_containing(app, message, &["Engineering", "Alice"], ANSWER).await?;
        eprintln!("prompt message: {text}");
        app.wait_for(Locator::Css(&testid("prompt-copy")), UI)
            .await?;
        app.screenshot("prompts").await?;
        Ok(())
    })
    .await
}

/// Runs `tool` of the selected server from the Tools view (its defaults as they are) and waits for its result.
async fn run_tool(app: &App, tool: &str) -> Result<()> {
    show_view(app, "tools").await?;
    pick_tool(app, tool).await?;
    app.click(Locator::Css(&testid("tool-run")), UI).await?;
    app.wait_for(Locator::Css(&result_with("done")), ANSWER)
        .await?;
    Ok(())
}

#[tokio::test]
async fn resource_links_open_in_the_viewer_which_follows_a_subscribed_resource() -> Result<()> {
    with_app(everything_config(), async |app| {
        app.wait_for_text(
            Locator::Css(&in_row("everything", "server-status")),
            "ready",
            SERVER_READY,
        )
        .await?;
        select_server(app, "everything").await?;

        // A tool result's resource links: a binary one shows its size and type with Save, a text one its text.
        run_tool(app, "get-resource-links").await?;
        let blob = "demo://resource/dynamic/blob/1";
        app.click(
            Locator::Css(&format!(
                r#"[data-testid="result-open"][data-uri="{blob}"]"#
            )),
            UI,
        )
        .await?;
        let viewer = format!(r#"[data-testid="resource-viewer"][data-uri="{blob}"]"#);
        wait_containing(
            app,
            &format!(r#"{viewer} [data-testid="resource-blob"]"#),
            &["bytes", "text/plain"],
            ANSWER,
        )
        .await?;
        app.wait_for(
            Locator::Css(&format!(r#"{viewer} [data-testid="resource-save"]"#)),
            UI,
        )
        .await?;

        show_view(app, "tools").await?;
        let text = "demo://resource/dynamic/text/2";
        app.click(
            Locator::Css(&format!(
                r#"[data-testid="result-open"][data-uri="{text}"]"#
            )),
            UI,
        )
        .await?;
        let viewer = format!(r#"[data-testid="resource-viewer"][data-uri="{text}"]"#);
        let content = format!(r#"{viewer} [data-testid="resource-text"]"#);
        wait_containing(
            app,
            &content,
            &["Resource 2: This is a plaintext resource"],
            ANSWER,
        )
        .await?;

        // Subscribed, then the server's simulated updates started: the viewer reads it again and says so.
        let subscribe = format!(r#"{viewer} [data-testid="resource-subscribe"]"#);
        app.click(Locator::Css(&subscribe), UI).await?;
        app.wait_until("the subscription to hold", ANSWER, async || {
            let checked = app
                .wait_for(Locator::Css(&subscribe), UI)
                .await?
                .prop("checked")
                .await?;
            Ok((checked.as_deref() == Some("true")).then_some(()))
        })
        .await?;
        run_tool(app, "toggle-subscriber-updates").await?;
        show_view(app, "resources").await?;
        app.wait_for(
            Locator::Css(&format!(r#"{viewer} [data-testid="resource-updated"]"#)),
            ANSWER,
        )
        .await?;
        wait_containing(
            app,
            &content,
            &["Resource 2: This is a plaintext resource"],
            UI,
        )
        .await?;
        app.screenshot("resource-updated").await?;
        Ok(())
    })
    .await
}

/// The value the log level chooser shows now ("" is off), or None while it is missing or being replaced.
async fn shown_level(app: &App, select: &str) -> Result<Option<String>> {
    let Some(element) = app.client().find_all(Locator::Css(select)).await?.pop() else {
        return Ok(None);
    };
    Ok(element.prop("value").await.ok().flatten())
}

#[tokio::test]
async fn the_log_level_survives_a_window_reload_and_off_clears_it() -> Result<()> {
    with_app(everything_config(), async |app| {
        let status = in_row("everything", "server-status");
        app.wait_for_text(Locator::Css(&status), "ready", SERVER_READY)
            .await?;
        let select = r#"[data-testid="log-level"][data-server="everything"]"#;
        app.choose(Locator::Css(select), "warning", UI).await?;
        app.wait_for_log("log level set from the UI", 1, UI).await?;

        // A reload of the window starts the UI afresh: the chooser takes the level the host keeps.
        app.client().refresh().await?;
        app.wait_for_text(Locator::Css(&status), "ready", UI)
            .await?;
        app.wait_until("the chooser to show the host's level", UI, async || {
            Ok(shown_level(app, select)
                .await?
                .filter(|v| v == "warning")
                .map(|_| ()))
        })
        .await?;

        // "off" can be chosen once a level is set: the host forgets it.
        app.choose(Locator::Css(select), "off (not set)", UI)
            .await?;
        app.wait_for_log("log level cleared from the UI", 1, UI)
            .await?;
        app.wait_until("the chooser to show off", UI, async || {
            Ok(shown_level(app, select)
                .await?
                .filter(String::is_empty)
                .map(|_| ()))
        })
        .await?;
        // And it stays off: a level chosen again is set, not refused.
        app.choose(Locator::Css(select), "debug", UI).await?;
        app.wait_for_log("log level set from the UI", 2, UI).await?;
        Ok(())
    })
    .await
}
