//! Elicitation through the window, with the everything server (node): its `trigger-elicitation-request` form is
//! shown, filled and sent, declined and cancelled, each answer reaching the server distinctly; its
//! `trigger-url-elicitation` URL is reviewed in the dialog and, on consent, opened by the app in the system browser
//! (here a recording `BROWSER` script) while the webview stays on the app.

use super::*;
use wharf_e2e::{everything_server, with_app, with_launch, Home, Launch};

/// The escape sequences WebDriver reads as the Enter and Escape keys.
const ENTER: &str = "\u{E007}";
const ESCAPE: &str = "\u{E00C}";
/// A tool call that waits for a dialog, then for the server's answer (node, a round trip or two).
const ANSWERED: Duration = Duration::from_secs(30);
/// The URL the server asks the user to open: http to this computer (allowed, with warnings) on the discard port.
const LOOPBACK_URL: &str = "http://127.0.0.1:9/x";

fn everything_config() -> Value {
    json!({"servers": {"everything": everything_server().expect("server-everything (scripts/deps.sh)")}})
}

fn elicit_input(field: &str) -> String {
    format!(r#"[data-testid="dialog-host"] [data-testid="elicit-input"][data-field="{field}"]"#)
}

fn in_dialog(id: &str) -> String {
    format!(r#"[data-testid="dialog-host"] [data-testid="{id}"]"#)
}

/// Selects the everything server once it is ready, and picks `tool`.
async fn open_tool(app: &App, tool: &str) -> Result<()> {
    app.wait_for_text(
        Locator::Css(&in_row("everything", "server-status")),
        "ready",
        SERVER_READY,
    )
    .await?;
    select_server(app, "everything").await?;
    pick_tool(app, tool).await
}

/// Waits until the latest call's result (done) holds every one of `needles`, and returns its text.
async fn wait_result(app: &App, needles: &[&str]) -> Result<String> {
    let result = result_with("done");
    app.wait_until(
        &format!("the tool's result to contain {needles:?}"),
        ANSWERED,
        async || {
            Ok(app
                .text(Locator::Css(&result))
                .await?
                .filter(|text| needles.iter().all(|n| text.contains(n))))
        },
    )
    .await
}

/// Runs the selected tool and waits for the elicitation form it causes.
async fn run_until_form(app: &App) -> Result<()> {
    app.click(Locator::Css(&testid("tool-run")), UI).await?;
    app.wait_for(Locator::Css(&in_dialog("elicit-form")), ANSWERED)
        .await?;
    Ok(())
}

#[tokio::test]
async fn a_form_is_filled_and_sent_declined_or_cancelled() -> Result<()> {
    with_app(everything_config(), async |app| {
        open_tool(app, "trigger-elicitation-request").await?;

        // 1. Filled and sent (Enter in a field submits): the server gets the name and the defaults.
        run_until_form(app).await?;
        let badge = app
            .text(Locator::Css(&testid("dialog-badge")))
            .await?
            .unwrap_or_default();
        check(
            badge.contains("everything")
                && badge.contains("calling tool trigger-elicitation-request"),
            format!("the dialog is not badged with the server and the call: {badge:?}"),
        )?;
        let first = app
            .wait_for(Locator::Css(&elicit_input("name")), UI)
            .await?;
        check(
            app.client()
                .active_element()
                .await?
                .attr("data-field")
                .await?
                .as_deref()
                == Some("name"),
            "the form's first field does not have the focus",
        )?;
        check(
            first.prop("value").await?.as_deref() == Some(""),
            "the name field is not empty",
        )?;
        let first_line = app
            .wait_for(Locator::Css(&elicit_input("firstLine")), UI)
            .await?
            .prop("value")
            .await?;
        check(
            first_line.as_deref() == Some("It was a dark and stormy night."),
            format!("the default of firstLine is not pre-filled: {first_line:?}"),
        )?;
        app.fill(Locator::Css(&elicit_input("name")), "Ada Lovelace", UI)
            .await?;
        app.screenshot("elicitation-form").await?;
        app.wait_for(Locator::Css(&elicit_input("name")), UI)
            .await?
            .send_keys(ENTER)
            .await?;
        let result = wait_result(
            app,
            &[
                "User provided the requested information",
                "- Name: Ada Lovelace",
                "- Favorite Integer: 42",
            ],
        )
        .await?;
        app.wait_gone(Locator::Css(&testid("dialog-host")), UI)
            .await?;
        eprintln!("accepted: {result}");

        // 2. Escape: the dialog closes and the server is told "cancel".
        run_until_form(app).await?;
        app.wait_for(Locator::Css(&elicit_input("name")), UI)
            .await?
            .send_keys(ESCAPE)
            .await?;
        wait_result(
            app,
            &["User cancelled the elicitation dialog", "\"cancel\""],
        )
        .await?;
        app.wait_gone(Locator::Css(&testid("dialog-host")), UI)
            .await?;

        // 3. Decline: told "decline", not "cancel".
        run_until_form(app).await?;
        app.click(Locator::Css(&in_dialog("dialog-decline")), UI)
            .await?;
        wait_result(
            app,
            &[
                "User declined to provide the requested information",
                "\"decline\"",
            ],
        )
        .await?;
        app.wait_gone(Locator::Css(&testid("dialog-host")), UI)
            .await?;
        Ok(())
    })
    .await
}

/// A `BROWSER` that records what it is given, one argument a line, and returns at once.
pub(super) fn recording_browser(home: &Home) -> Result<(std::path::PathBuf, std::path::PathBuf)> {
    use std::os::unix::fs::PermissionsExt;
    let opened = home.path().join("opened.txt");
    let script = home.path().join("browser.sh");
    let body = format!(
        "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '{}'\n",
        opened.display()
    );
    std::fs::write(&script, body)
        .map_err(|e| Error::Check(format!("cannot write {}: {e}", script.display())))?;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| Error::Check(format!("cannot chmod {}: {e}", script.display())))?;
    Ok((script, opened))
}

pub(super) fn recorded(opened: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(opened)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn a_url_is_reviewed_then_opened_in_the_system_browser_not_the_webview() -> Result<()> {
    let home = Home::new()?;
    let (browser, opened) = recording_browser(&home)?;
    let launch = Launch::config(everything_config())
        .home(&home)
        .env("BROWSER", &browser);
    with_launch(launch, async |app| {
        open_tool(app, "trigger-url-elicitation").await?;
        app.fill(Locator::Css(&arg_input("url")), LOOPBACK_URL, UI)
            .await?;
        app.click(Locator::Css(&testid("tool-run")), UI).await?;

        // The review: the whole URL as text, the host, the warnings; no link anywhere in the dialog.
        app.wait_for_text(Locator::Css(&in_dialog("url-full")), LOOPBACK_URL, ANSWERED)
            .await?;
        app.wait_for_text(Locator::Css(&in_dialog("url-host")), "127.0.0.1", UI)
            .await?;
        for warning in ["not_https", "ip_literal"] {
            let shown = format!(
                r#"[data-testid="dialog-host"] [data-testid="url-warning"][data-warning="{warning}"]"#
            );
            app.wait_for(Locator::Css(&shown), UI).await?;
        }
        check(
            app.count(Locator::Css(r#"[data-testid="dialog-host"] a"#))
                .await?
                == 0,
            "the URL dialog holds a link",
        )?;
        check(
            recorded(&opened).is_empty(),
            "the browser was started before the user agreed",
        )?;
        app.screenshot("elicitation-url").await?;

        // Consent: the app starts the system browser with exactly the URL; the webview stays where it was.
        let before = app.client().current_url().await?;
        app.click(Locator::Css(&in_dialog("dialog-accept")), UI)
            .await?;
        wait_result(app, &["User completed the URL elicitation flow", LOOPBACK_URL]).await?;
        let lines = app
            .wait_until("the recording browser to be started", UI, async || {
                let lines = recorded(&opened);
                Ok((!lines.is_empty()).then_some(lines))
            })
            .await?;
        check(
            lines == [LOOPBACK_URL],
            format!("the browser was given {lines:?}, not exactly {LOOPBACK_URL}"),
        )?;
        let after = app.client().current_url().await?;
        check(
            after == before,
            format!("the webview moved from {before} to {after}"),
        )?;
        check(
            app.client().windows().await?.len() == 1,
            "a window was opened",
        )?;
        app.wait_for(Locator::Css(&row("everything")), UI).await?;
        app.wait_gone(Locator::Css(&testid("dialog-host")), UI)
            .await?;
        Ok(())
    })
    .await
}
