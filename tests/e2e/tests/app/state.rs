//! What the app keeps from one run to the next (the theme, the selected server), and the first run, when there is
//! no config file yet.

use super::*;
use wharf_e2e::{with_launch, Home, Launch};

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
