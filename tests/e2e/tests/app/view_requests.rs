//! What a view asks of the app around it, in the real window, with the apps fixture's view (`window.ask` sends any
//! request from inside it): a message it suggests never replaces the user's words; what it tells the model becomes a
//! chip in the composer that the user may remove and that goes with the next message; a `javascript:` or `file:` link is refused without a card and never reaches the
//! browser; a file it offers goes only through the native save dialog; closing it asks it to let go first; and a view
//! that cannot be shown is told in the activity log.

use super::elicitation::{recorded, recording_browser};
use super::views::{
    apps_fixture, chat_until_the_calls_view_starts, close_after_it_lets_go, in_view, VIEW_READY,
};
use super::*;
use wharf_e2e::{with_launch, Home, Launch};

#[path = "chat_provider.rs"]
mod provider;

const CHIP: &str =
    r#"[data-testid="chat-attachments"] [data-testid="chat-chip"][data-kind="view_context"]"#;

/// Asks `method` with `params` (JSON text) from inside the view; its answer as the view got it.
async fn ask(app: &App, method: &str, params: &str) -> Result<Value> {
    let answer = in_view(app, &format!("return window.ask({method:?}, {params});")).await?;
    answer
        .as_str()
        .and_then(|text| serde_json::from_str(text).ok())
        .ok_or_else(|| Error::Check(format!("{method}: no answer: {answer}")))
}

/// The scripted provider answering `script`, and a configuration with it and the apps fixture.
async fn chat_on_the_apps_fixture(
    home: &Home,
    script: &Value,
) -> Result<(provider::Provider, Value)> {
    let provider = provider::Provider::start(home.path(), script).await?;
    let config = json!({
        "servers": {"apps": apps_fixture()},
        "chat": {"provider": {"kind": "openai", "baseUrl": provider.base_url, "model": "scripted-model"}}
    });
    Ok((provider, config))
}

async fn chip_labels(app: &App) -> Result<Vec<String>> {
    let mut labels = Vec::new();
    for chip in app.client().find_all(Locator::Css(CHIP)).await? {
        // The chip's title is its whole label (the label itself may be cut with an ellipsis).
        labels.push(chip.attr("title").await?.unwrap_or_default());
    }
    Ok(labels)
}

#[tokio::test]
async fn what_a_view_tells_the_model_is_a_removable_chip_that_goes_with_the_next_message(
) -> Result<()> {
    let home = Home::new()?;
    let script = json!({"replies": [
        {"text": "Reading the clock.", "tool_calls": [{"id": "call_1", "name": "apps__clock", "arguments": {}}]},
        {"text": "It is noon."},
        {"text": "You are in CET."}
    ]});
    let (provider, config) = chat_on_the_apps_fixture(&home, &script).await?;
    with_launch(Launch::config(config).home(&home), async |app| {
        chat_until_the_calls_view_starts(app, "apps", "clock", "What time is it?").await?;
        app.wait_gone(Locator::Css(&testid("chat-stop")), UI).await?;

        // A message the view suggests never replaces words the user wrote: it waits beside them until taken.
        app.fill(Locator::Css(&testid("chat-input")), "my own words", UI).await?;
        let suggestion = r#"{role: "user", content: [{type: "text", text: "Suggested words"}]}"#;
        ask(app, "ui/message", suggestion).await?;
        // Read from its title: WebKit's WebDriver leaves text cut by `overflow: hidden` out of an element's text.
        app.wait_until("the suggestion beside the user's words", UI, async || {
            let shown = app.attr(Locator::Css(&testid("chat-suggestion-text")), "title").await?;
            Ok((shown.as_deref() == Some("Suggested words")).then_some(()))
        })
        .await?;
        let typed = app.wait_for(Locator::Css(&testid("chat-input")), UI).await?.prop("value").await?;
        check(typed.as_deref() == Some("my own words"), format!("the draft became {typed:?}"))?;
        app.click(Locator::Css(&testid("chat-suggestion-use")), UI).await?;
        let taken = app.wait_for(Locator::Css(&testid("chat-input")), UI).await?.prop("value").await?;
        check(taken.as_deref() == Some("Suggested words"), format!("the draft became {taken:?}"))?;
        app.wait_gone(Locator::Css(&testid("chat-suggestion")), UI).await?;

        // The view's context: a chip, replaced by the view's next one, removable.
        let context = |text: &str| format!(r#"{{content: [{{type: "text", text: {text:?}}}]}}"#);
        let answered = ask(app, "ui/update-model-context", &context("zone: UTC")).await?;
        check(answered["result"] == json!({}), format!("context: {answered}"))?;
        app.wait_for(Locator::Css(CHIP), UI).await?;
        ask(app, "ui/update-model-context", &context("zone: CET")).await?;
        app.wait_until("the newer context in the place of the older", UI, async || {
            let labels = chip_labels(app).await?;
            Ok((labels.len() == 1 && labels[0].contains("zone: CET")).then_some(()))
        })
        .await?;
        app.click(Locator::Css(&format!("{CHIP} [data-testid=\"chat-chip-remove\"]")), UI).await?;
        app.wait_gone(Locator::Css(CHIP), UI).await?;
        ask(app, "ui/update-model-context", &context("zone: CET, user in Oslo")).await?;
        app.wait_for(Locator::Css(CHIP), UI).await?;

        // Sent with the next message, labelled as the view's, and no longer waiting in the composer.
        app.fill(Locator::Css(&testid("chat-input")), "Which zone am I in?", UI).await?;
        app.click(Locator::Css(&testid("chat-send")), UI).await?;
        app.wait_gone(Locator::Css(CHIP), UI).await?;
        let last_user = app
            .wait_until("the provider to get the message", UI, async || {
                let requests = provider.recorded();
                Ok(requests.get(2).and_then(|r| {
                    r["body"]["messages"]
                        .as_array()?
                        .iter()
                        .rev()
                        .find(|m| m["role"] == "user")
                        .and_then(|m| m["content"].as_str().map(str::to_owned))
                }))
            })
            .await?;
        check(
            last_user
                == "Which zone am I in?\n\n[kept by the user: what the view of the tool clock of apps gave as context]\nzone: CET, user in Oslo",
            format!("the model was given: {last_user:?}"),
        )?;
        app.screenshot("chat-view-context").await?;
        Ok(())
    })
    .await
}

#[tokio::test]
async fn a_view_opens_no_script_or_file_link_lets_go_when_closed_and_saves_only_through_the_dialog(
) -> Result<()> {
    let home = Home::new()?;
    let (browser, opened) = recording_browser(&home)?;
    let launch = Launch::config(json!({"servers": {"apps": apps_fixture()}}))
        .home(&home)
        .env("BROWSER", &browser);
    with_launch(launch, async |app| {
        app.wait_for_text(Locator::Css(&in_row("apps", "server-status")), "ready", SERVER_READY)
            .await?;
        select_server(app, "apps").await?;

        // A view that cannot be shown says why in its place and in the activity log.
        pick_tool(app, "wrong_type").await?;
        app.click(Locator::Css(&testid("tool-run")), UI).await?;
        app.wait_for(Locator::Css(&testid("view-error")), UI).await?;
        let failed = r#"//*[@data-testid="activity-entry"][contains(., "the view of wrong_type cannot be shown: reading the view:")]"#;
        app.wait_for(Locator::XPath(failed), UI).await?;

        pick_tool(app, "clock").await?;
        let run = async || -> Result<()> {
            app.click(Locator::Css(&testid("tool-run")), UI).await?;
            app.wait_for(
                Locator::Css(r#"[data-testid="tool-view"] [data-stage="input_delivered"]"#),
                VIEW_READY,
            )
            .await?;
            Ok(())
        };
        run().await?;

        // A script or a local file as a link: refused before any card, and the browser never started.
        for url in ["javascript:alert(document.domain)", "file:///etc/passwd"] {
            let answer = ask(app, "ui/open-link", &format!("{{url: {url:?}}}")).await?;
            check(answer["error"]["code"] == -32000, format!("{url}: {answer}"))?;
            check(
                app.count(Locator::Css(&testid("chat-question"))).await? == 0,
                format!("{url}: a card was shown"),
            )?;
        }
        check(recorded(&opened).is_empty(), format!("the browser opened {:?}", recorded(&opened)))?;

        // Closed: the view is asked to let go, answers, and only then is its frame removed and its pages no longer
        // served.
        close_after_it_lets_go(app, "clock").await?;

        // A file the view offers: the native save dialog, titled with who offers it; the webview downloads nothing.
        run().await?;
        let shown = app.log_count("save dialog shown");
        in_view(
            app,
            r#"window.ask("ui/download-file", {contents: [{type: "resource",
                 resource: {uri: "file:///../../.profile", mimeType: "text/plain", text: "export X=1"}}]});
               return true;"#,
        )
        .await?;
        app.wait_for_log("save dialog shown", shown + 1, UI).await?;
        check(
            app.logs_tail(40).contains("Save a file from the view of clock (apps)"),
            format!("the dialog's title: {}", app.logs_tail(10)),
        )?;
        Ok(())
    })
    .await
}

#[tokio::test]
async fn a_calls_view_opens_when_the_call_returns_while_the_model_is_still_answering() -> Result<()>
{
    let home = Home::new()?;
    // The reply after the call sends nothing and hangs: only the call's own end can bring its view.
    let script = json!({"replies": [
        {"text": "Reading the clock.", "tool_calls": [{"id": "call_1", "name": "apps__clock", "arguments": {}}]},
        {"text": "", "hang": true}
    ]});
    let (_provider, config) = chat_on_the_apps_fixture(&home, &script).await?;
    with_launch(Launch::config(config).home(&home), async |app| {
        chat_until_the_calls_view_starts(app, "apps", "clock", "What time is it?").await?;
        // The turn is still running: its Stop button is there, and the call is no longer shown as running.
        check(
            app.count(Locator::Css(&testid("chat-stop"))).await? == 1,
            "the turn ended before the view was checked",
        )?;
        check(
            app.count(Locator::Css(&testid("chat-toolcall-running")))
                .await?
                == 0,
            "the call is still shown as running",
        )?;
        app.click(Locator::Css(&testid("chat-stop")), UI).await?;
        app.wait_gone(Locator::Css(&testid("chat-stop")), UI)
            .await?;
        Ok(())
    })
    .await
}
