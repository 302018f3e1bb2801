//! Sampling through the window, with the everything server (node) and a fake OpenAI-compatible provider that this
//! test starts on loopback: `trigger-sampling-request` shows the review dialog; the prompt is edited and the provider
//! receives the edit; the provider's reply is shown, edited, and the server gets the edited reply (its tool result
//! says so). Then "Always allow" on a second request lets a third one through without a dialog, and the settings
//! list the server as allowed. With no provider configured, a request fails saying so, until one is chosen in the
//! settings (written into mcp.json and used at once).

use std::sync::{Arc, Mutex};

use super::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use wharf_e2e::{everything_server, with_app};

/// A tool call that waits for the dialogs, the provider and the server (node, a round trip or two).
const ANSWERED: Duration = Duration::from_secs(30);
/// What the server's tool puts before the prompt it is given.
const CONTEXT: &str = "Resource trigger-sampling-request context: ";

/// A fake OpenAI-compatible Chat Completions endpoint: it records each request's JSON body and answers request N
/// with "The model's own words, reply #N." as the model `fake-large`.
struct FakeLlm {
    base_url: String,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl FakeLlm {
    async fn start() -> Result<FakeLlm> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| Error::Check(format!("cannot listen on loopback: {e}")))?;
        let port = listener
            .local_addr()
            .map_err(|e| Error::Check(format!("no local address: {e}")))?
            .port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = requests.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(answer(stream, seen.clone()));
            }
        });
        Ok(FakeLlm {
            base_url: format!("http://127.0.0.1:{port}/v1"),
            requests,
        })
    }

    fn requests(&self) -> Vec<Value> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

fn reply_text(n: usize) -> String {
    format!("The model's own words, reply #{n}.")
}

/// Reads one HTTP request (headers, then `content-length` bytes of body), records its body and answers it.
async fn answer(mut stream: TcpStream, seen: Arc<Mutex<Vec<Value>>>) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let header_end = loop {
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos + 4;
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..header_end]).to_string();
    let length = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    while buf.len() < header_end + length {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let body: Value =
        serde_json::from_slice(&buf[header_end..header_end + length]).unwrap_or(Value::Null);
    let n = {
        let Ok(mut seen) = seen.lock() else { return };
        seen.push(body);
        seen.len()
    };
    let payload = json!({
        "id": format!("chatcmpl-{n}"), "object": "chat.completion", "model": "fake-large",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": reply_text(n)}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}
    })
    .to_string();
    let response = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{payload}",
        payload.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

fn in_dialog(id: &str) -> String {
    format!(r#"[data-testid="dialog-host"] [data-testid="{id}"]"#)
}

fn stage(stage: &str) -> String {
    format!(r#"[data-testid="dialog-host"] [data-testid="sampling-stage"][data-stage="{stage}"]"#)
}

/// The text of the user's message as the provider received it (a string, or text parts).
fn sent_text(body: &Value) -> String {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    messages
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs the selected tool with `prompt`.
async fn run(app: &App, prompt: &str) -> Result<()> {
    app.fill(Locator::Css(&arg_input("prompt")), prompt, UI)
        .await?;
    app.click(Locator::Css(&testid("tool-run")), UI).await
}

/// Waits until the latest call's result (done) holds `needle`, and returns its text.
async fn wait_result(app: &App, needle: &str) -> Result<String> {
    let result = result_with("done");
    app.wait_until(
        &format!("the tool's result to contain {needle:?}"),
        ANSWERED,
        async || {
            Ok(app
                .text(Locator::Css(&result))
                .await?
                .filter(|text| text.contains(needle)))
        },
    )
    .await
}

#[tokio::test]
async fn a_sampling_request_is_reviewed_edited_both_ways_then_always_allowed() -> Result<()> {
    let llm = FakeLlm::start().await?;
    let config = json!({
        "servers": {"everything": everything_server().expect("server-everything (scripts/deps.sh)")},
        "sampling": {"provider": {"kind": "openai", "baseUrl": llm.base_url, "model": "fake-large"}}
    });
    with_app(config, async |app| {
        // A provider is configured, so chat (which falls back to it) is the main screen: the servers are a click away.
        app.click(Locator::Css(&testid("screen-servers")), UI).await?;
        app.wait_for_text(
            Locator::Css(&in_row("everything", "server-status")),
            "ready",
            SERVER_READY,
        )
        .await?;
        select_server(app, "everything").await?;
        // The everything server offers this tool only to a client that declares sampling: the app always does.
        pick_tool(app, "trigger-sampling-request").await?;

        // 1. The prompt: reviewed, edited, sent; the provider receives the edit.
        run(app, "hello").await?;
        app.wait_for(Locator::Css(&stage("prompt")), ANSWERED)
            .await?;
        let badge = app
            .text(Locator::Css(&testid("dialog-badge")))
            .await?
            .unwrap_or_default();
        check(
            badge.contains("everything") && badge.contains("calling tool trigger-sampling-request"),
            format!("the dialog is not badged with the server and the call: {badge:?}"),
        )?;
        let system = app
            .wait_for(Locator::Css(&in_dialog("sampling-system")), UI)
            .await?
            .prop("value")
            .await?;
        check(
            system.as_deref() == Some("You are a helpful test server."),
            format!("the system prompt shown is {system:?}"),
        )?;
        let message = r#"[data-testid="dialog-host"] [data-testid="sampling-text"][data-message="0"][data-block="0"]"#;
        let shown = app
            .wait_for(Locator::Css(message), UI)
            .await?
            .prop("value")
            .await?;
        check(
            shown.as_deref() == Some(&format!("{CONTEXT}hello")),
            format!("the message shown is {shown:?}"),
        )?;
        app.wait_for_text(Locator::Css(&in_dialog("sampling-model")), "fake-large", UI)
            .await?;
        app.wait_for_text(Locator::Css(&in_dialog("sampling-max-tokens")), "100 tokens", UI)
            .await?;
        app.fill(Locator::Css(message), "Edited prompt: say hi", UI)
            .await?;
        app.screenshot("sampling-prompt").await?;
        app.click(Locator::Css(&in_dialog("dialog-accept")), UI)
            .await?;

        // 2. The reply: the provider's words, edited before they go back.
        app.wait_for(Locator::Css(&stage("reply")), ANSWERED).await?;
        let reply = app
            .wait_for(Locator::Css(&in_dialog("sampling-reply-text")), UI)
            .await?
            .prop("value")
            .await?;
        check(
            reply.as_deref() == Some(reply_text(1).as_str()),
            format!("the reply shown is {reply:?}"),
        )?;
        app.wait_for_text(
            Locator::Css(&in_dialog("sampling-reply-model")),
            "fake-large",
            UI,
        )
        .await?;
        let sent = llm.requests();
        check(
            sent.len() == 1,
            format!("the provider got {} requests", sent.len()),
        )?;
        let text = sent_text(&sent[0]);
        check(
            text.contains("Edited prompt: say hi") && !text.contains(CONTEXT),
            format!("the provider did not get the edited prompt: {}", sent[0]),
        )?;
        check(
            sent[0]["model"] == "fake-large" && sent[0]["max_tokens"] == 100,
            format!("model or budget not as shown: {}", sent[0]),
        )?;
        app.fill(
            Locator::Css(&in_dialog("sampling-reply-text")),
            "Edited by the user.",
            UI,
        )
        .await?;
        app.screenshot("sampling-reply").await?;
        app.click(Locator::Css(&in_dialog("dialog-accept")), UI)
            .await?;
        let result = wait_result(app, "Edited by the user.").await?;
        check(
            !result.contains("The model's own words"),
            format!("the server got the provider's words, not the edit: {result}"),
        )?;
        app.wait_gone(Locator::Css(&testid("dialog-host")), UI)
            .await?;

        // 3. "Always allow" on the next request (whose reply is still reviewed, this once).
        run(app, "again").await?;
        app.wait_for(Locator::Css(&stage("prompt")), ANSWERED)
            .await?;
        app.click(
            Locator::Css(
                r#"[data-testid="dialog-host"] [data-testid="sampling-remember"][data-value="always"]"#,
            ),
            UI,
        )
        .await?;
        app.click(Locator::Css(&in_dialog("dialog-accept")), UI)
            .await?;
        app.wait_for(Locator::Css(&stage("reply")), ANSWERED).await?;
        app.click(Locator::Css(&in_dialog("dialog-accept")), UI)
            .await?;
        wait_result(app, &reply_text(2)).await?;
        app.wait_gone(Locator::Css(&testid("dialog-host")), UI)
            .await?;

        // 4. The third passes with no dialog at all.
        run(app, "third").await?;
        wait_result(app, &reply_text(3)).await?;
        check(
            app.count(Locator::Css(&testid("dialog-host"))).await? == 0,
            "a dialog is open after an always-allowed request",
        )?;
        let sent = llm.requests();
        check(
            sent.len() == 3 && sent_text(&sent[2]).contains(&format!("{CONTEXT}third")),
            format!("the provider's requests: {sent:?}"),
        )?;
        let allowed = r#"[data-testid="activity-entry"][data-server="everything"][data-kind="input"]"#;
        app.wait_until("the activity log to show the allowed request", UI, async || {
            let entries = app.client().find_all(Locator::Css(allowed)).await?;
            for entry in entries {
                if entry.text().await?.contains("by your preference (allow)") {
                    return Ok(Some(()));
                }
            }
            Ok(None)
        })
        .await?;

        // 5. The settings list the server as allowed, and the file says so too.
        app.click(Locator::Css(&testid("settings-open")), UI).await?;
        let row = r#"[data-testid="settings"] [data-testid="sampling-pref"][data-server="everything"][data-session-only="false"]"#;
        app.wait_until("the settings to list everything as allowed", UI, async || {
            Ok(app
                .attr(Locator::Css(row), "data-policy")
                .await?
                .filter(|p| p == "allow"))
        })
        .await?;
        let policy = app
            .wait_for(
                Locator::Css(&format!(r#"{row} [data-testid="sampling-pref-policy"]"#)),
                UI,
            )
            .await?
            .prop("value")
            .await?;
        check(
            policy.as_deref() == Some("allow"),
            format!("the policy select shows {policy:?}"),
        )?;
        app.screenshot("sampling-settings").await?;
        let prefs = read_json(&app.home().app_config_dir().join("sampling.json"))?;
        check(
            prefs.to_string().contains("\"allow\""),
            format!("sampling.json does not allow the server: {prefs}"),
        )?;
        Ok(())
    })
    .await
}

#[tokio::test]
async fn without_a_provider_sampling_fails_clearly_until_one_is_chosen_in_settings() -> Result<()> {
    let llm = FakeLlm::start().await?;
    let config = json!({
        "servers": {"everything": everything_server().expect("server-everything (scripts/deps.sh)")}
    });
    with_app(config, async |app| {
        app.wait_for_text(
            Locator::Css(&in_row("everything", "server-status")),
            "ready",
            SERVER_READY,
        )
        .await?;
        select_server(app, "everything").await?;
        // Sampling is declared even with no provider (the tool exists), so that one can be chosen later.
        pick_tool(app, "trigger-sampling-request").await?;
        run(app, "nobody there").await?;
        let error = format!("{} {}", testid("tool-result"), testid("tool-error"));
        app.wait_until("the call to fail, naming the missing provider", ANSWERED, async || {
            Ok(app
                .text(Locator::Css(&error))
                .await?
                .filter(|text| text.contains("no LLM provider is configured")))
        })
        .await?;
        check(
            app.count(Locator::Css(&testid("dialog-host"))).await? == 0,
            "a dialog was shown with no provider to send to",
        )?;

        // The provider chosen in the settings is written into mcp.json (other keys kept) and used at once.
        app.click(Locator::Css(&testid("settings-open")), UI).await?;
        app.wait_for(Locator::Css(&testid("provider-none")), UI).await?;
        app.fill(Locator::Css(&testid("provider-base-url")), &llm.base_url, UI)
            .await?;
        app.fill(Locator::Css(&testid("provider-model")), "fake-large", UI)
            .await?;
        app.click(Locator::Css(&testid("provider-save")), UI).await?;
        app.wait_for(Locator::Css(&testid("provider-saved")), UI).await?;
        let written = read_json(app.config_path())?;
        check(
            written["sampling"]["provider"]
                == json!({"kind": "openai", "baseUrl": llm.base_url, "model": "fake-large", "models": []})
                && written["servers"]["everything"].is_object(),
            format!("mcp.json after saving the provider: {written}"),
        )?;
        app.click(Locator::Css(&testid("settings-close")), UI).await?;
        app.wait_gone(Locator::Css(&testid("settings")), UI).await?;

        run(app, "now there is").await?;
        app.wait_for(Locator::Css(&stage("prompt")), ANSWERED)
            .await?;
        app.click(Locator::Css(&in_dialog("dialog-accept")), UI)
            .await?;
        app.wait_for(Locator::Css(&stage("reply")), ANSWERED).await?;
        app.click(Locator::Css(&in_dialog("dialog-accept")), UI)
            .await?;
        wait_result(app, &reply_text(1)).await?;
        check(
            llm.requests().len() == 1,
            format!("the provider got {} requests", llm.requests().len()),
        )?;
        Ok(())
    })
    .await
}
