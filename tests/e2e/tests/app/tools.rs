//! The demo server's tools through the window: the generated form, progress and cancellation, every field kind,
//! and the stderr tail of a running server.

use std::time::Instant;

use super::*;
use wharf_e2e::with_app;

/// The escape sequence WebDriver reads as the Enter key.
const ENTER: &str = "\u{E007}";
/// Steps and step length of the `slow` call that gets cancelled: 10 s if nobody cancelled it.
const SLOW_STEPS: u32 = 50;
const SLOW_DELAY_MS: u64 = 200;

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
