//! Servers through the window: adding one with the server form, and a crash shown with its stderr, then the
//! restart.

use super::*;
use wharf_e2e::{demo_server_bin, with_app};

fn field_error(field: &str) -> String {
    format!(r#"[data-testid="field-error"][data-field="{field}"]"#)
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
