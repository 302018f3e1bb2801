//! The workspace: folders opened from the command line become roots; the panel lists them and what each server sees;
//! the tool form offers them for path arguments, and a path outside them is refused before it reaches the server.

use super::*;
use wharf_e2e::{with_app, with_launch, Home, Launch};

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
                app.text(Locator::Css(&refused)).await
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
        let pid_before = shown_pid(app, "fs").await?;
        app.choose(Locator::Css(&testid("path-policy")), "Ask me each time", UI)
            .await?;
        app.wait_until("\"pathArguments\": \"ask\" in the config", UI, async || {
            let config = read_json(app.config_path())?;
            Ok((config["servers"]["fs"]["pathArguments"] == json!("ask")).then_some(()))
        })
        .await?;
        // The server restarts with its new preference: wait for the new process, ready, before using the form.
        app.wait_until("fs to restart", SERVER_READY, async || {
            let pid = shown_pid(app, "fs").await?;
            Ok((pid.is_some() && pid != pid_before).then_some(()))
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
