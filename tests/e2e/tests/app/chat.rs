//! Chat through the window, against the scripted provider fixture (`tests/fixtures/chat_provider.py`: replies from a
//! script, every request recorded) and the bundled demo server: a message is sent, the model's call of `echo` is
//! approved on its card in the thread with an edited argument (an edit that breaks the schema is refused beside the
//! arguments first), the result comes back in the thread and to the model; a link in the reply opens only through
//! the consent card and the system browser; a reply that hangs is stopped mid-stream; and after a restart the
//! conversation is found again with everything it had. The demo server's resource chosen from Attach and its prompt
//! chosen with `/` (filled in the Prompts view's form) go with a message: the model is given their text, and the
//! thread shows them as chips. A model chosen in the header is written into the file in place and the next turn goes
//! to it. A model's call of the demo's `picture` shows its image and resource link as the Tools screen does, and the
//! link opens in the Resources view. A new conversation is answered while another's turn still streams (the list
//! marks the one running), and the first, opened again, keeps its streamed text through its Stop.

use std::path::PathBuf;

use super::*;
use wharf_e2e::{with_launch, Home, Launch};

// Beside this file: chat's tests grew past what one file should hold.
#[path = "chat_provider.rs"]
mod provider;
use provider::Provider;

/// A turn's step: the provider streams at once, the demo server answers at once; generous for a loaded machine.
const TURN: Duration = Duration::from_secs(30);
/// The model's name as the configuration gives it (the fixture answers whatever is asked).
const MODEL: &str = "scripted-model";
const FIRST_MESSAGE: &str = "Please echo something";
const EDITED: &str = "edited by the user";
const LINK: &str = "https://example.com/docs";

fn script() -> Value {
    json!({"replies": [
        // 0: the model calls echo.
        {"text": "I will call echo.", "tool_calls": [
            {"id": "call_1", "name": "demo__echo", "arguments": {"message": "from the model"}}
        ]},
        // 1: after the result, a reply with a link.
        {"text": format!("The tool said it. See [the docs]({LINK}).")},
        // 2: the second message: text, then nothing until the client goes away.
        {"text": "Streaming and then", "hang": true},
        {"text": "Later."}
    ]})
}

/// A recording `BROWSER`: writes its arguments to a file and returns.
fn recording_browser(home: &Home) -> Result<(PathBuf, PathBuf)> {
    use std::os::unix::fs::PermissionsExt;
    let opened = home.path().join("opened.txt");
    let script = home.path().join("browser.sh");
    let body = format!(
        "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '{}'\n",
        opened.display()
    );
    std::fs::write(&script, body).map_err(|e| Error::Check(format!("browser script: {e}")))?;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| Error::Check(format!("browser script: {e}")))?;
    Ok((script, opened))
}

/// Waits until a message of `role` in the thread contains `needle`.
async fn wait_message(app: &App, role: &str, needle: &str) -> Result<()> {
    let selector = format!(r#"[data-testid="chat-message"][data-role="{role}"]"#);
    app.wait_until(
        &format!("a {role} message containing {needle:?}"),
        TURN,
        async || {
            for element in app.client().find_all(Locator::Css(&selector)).await? {
                if let Ok(text) = element.text().await {
                    if text.contains(needle) {
                        return Ok(Some(()));
                    }
                }
            }
            Ok(None)
        },
    )
    .await
}

/// Chat is the main screen; the demo server is waited for on the servers screen, one click away, and chat shown
/// again.
async fn demo_ready_in_chat(app: &App) -> Result<()> {
    app.wait_for(Locator::Css(&testid("chat-screen")), UI)
        .await?;
    app.click(Locator::Css(&testid("screen-servers")), UI)
        .await?;
    wait_ready(app, "demo").await?;
    app.click(Locator::Css(&testid("screen-chat")), UI).await
}

fn question(kind: &str, testid: &str) -> String {
    format!(r#"[data-testid="chat-question"][data-kind="{kind}"] [data-testid="{testid}"]"#)
}

const ECHO_RESULT: &str =
    r#"[data-testid="chat-toolcall"][data-tool="echo"] [data-testid="chat-toolcall-result"]"#;

#[tokio::test]
async fn a_conversation_with_an_approved_edited_call_a_consented_link_a_stop_and_a_restart(
) -> Result<()> {
    let home = Home::new()?;
    let provider = Provider::start(home.path(), &script()).await?;
    let (browser, opened) = recording_browser(&home)?;
    let config = json!({
        "servers": {"demo": demo_server().expect("the demo server (cargo build --workspace --bins)")},
        "chat": {"provider": {"kind": "openai", "baseUrl": provider.base_url, "model": MODEL}}
    });
    let launch = Launch::config(config).home(&home).env("BROWSER", &browser);
    with_launch(launch, async |app| {
        // With a model configured, chat is the main screen; the servers are one click away.
        demo_ready_in_chat(app).await?;
        app.wait_for_text(Locator::Css(&testid("chat-model")), MODEL, UI)
            .await?;

        // 1. The message; the model's call waits on its card, in the thread.
        app.fill(Locator::Css(&testid("chat-input")), FIRST_MESSAGE, UI)
            .await?;
        app.click(Locator::Css(&testid("chat-send")), UI).await?;
        app.wait_for_text(
            Locator::Css(&question("tool_call", "toolcall-tool")),
            "echo",
            TURN,
        )
        .await?;
        app.wait_for_text(
            Locator::Css(&question("tool_call", "toolcall-server")),
            "demo",
            UI,
        )
        .await?;
        // The conversation's first turn: every tool is offered for the first time, so none is marked new.
        check(
            app.count(Locator::Css(&question("tool_call", "toolcall-new")))
                .await?
                == 0,
            "a tool of the first turn is marked new",
        )?;
        // The demo server is not trusted: its read-only claim is shown as the server's word only.
        app.wait_for(
            Locator::Css(&question("tool_call", "toolcall-untrusted")),
            UI,
        )
        .await?;
        check(
            app.count(Locator::Css(&testid("dialog-host"))).await? == 0,
            "the card was also shown as a dialog",
        )?;
        wait_message(app, "assistant", "I will call echo.").await?;
        app.screenshot("chat-approval").await?;

        // 2. An edit that breaks the schema is refused beside the arguments; the card keeps waiting.
        let arguments = question("tool_call", "toolcall-arguments");
        app.fill(Locator::Css(&arguments), r#"{"message": 5}"#, UI)
            .await?;
        app.click(
            Locator::Css(&question("tool_call", "toolcall-allow-once")),
            UI,
        )
        .await?;
        app.wait_for(Locator::Css(&question("tool_call", "toolcall-problem")), UI)
            .await?;
        let edit = format!(r#"{{"message": "{EDITED}"}}"#);
        app.fill(Locator::Css(&arguments), &edit, UI).await?;
        app.click(
            Locator::Css(&question("tool_call", "toolcall-allow-once")),
            UI,
        )
        .await?;

        // 3. The edited call reached the server; its result is in the thread and went to the model.
        app.wait_for_text(Locator::Css(ECHO_RESULT), &format!("echo: {EDITED}"), TURN)
            .await?;
        wait_message(app, "assistant", "The tool said it.").await?;
        let sent_back = provider
            .recorded()
            .iter()
            .any(|r| r["n"] == 1 && r["body"].to_string().contains(&format!("echo: {EDITED}")));
        check(
            sent_back,
            "the model was not given the edited call's result",
        )?;
        app.wait_gone(Locator::Css(&testid("chat-question")), UI)
            .await?;

        // 4. The reply's link: never a navigation; the consent card in the thread, then the system browser.
        let before = app.client().current_url().await?;
        app.click(Locator::Css(&testid("md-link")), UI).await?;
        app.wait_for_text(
            Locator::Css(&question("elicitation_url", "url-full")),
            LINK,
            UI,
        )
        .await?;
        check(
            std::fs::read_to_string(&opened)
                .unwrap_or_default()
                .is_empty(),
            "the browser was started before the user agreed",
        )?;
        app.click(
            Locator::Css(&question("elicitation_url", "dialog-accept")),
            UI,
        )
        .await?;
        let lines = app
            .wait_until("the recording browser to be started", UI, async || {
                let text = std::fs::read_to_string(&opened).unwrap_or_default();
                Ok((!text.is_empty()).then_some(text))
            })
            .await?;
        check(
            lines.lines().collect::<Vec<_>>() == [LINK],
            format!("the browser was given {lines:?}"),
        )?;
        check(
            app.client().current_url().await? == before,
            "the webview navigated",
        )?;

        // 5. A reply that hangs: Stop ends it mid-stream, keeping what was shown; the provider sees the client go.
        app.fill(Locator::Css(&testid("chat-input")), "Now stream slowly", UI)
            .await?;
        app.click(Locator::Css(&testid("chat-send")), UI).await?;
        app.wait_until("the reply to stream", TURN, async || {
            let text = app.text(Locator::Css(&testid("chat-streaming"))).await?;
            Ok(text.filter(|t| t.contains("Streaming and then")))
        })
        .await?;
        app.click(Locator::Css(&testid("chat-stop")), UI).await?;
        app.wait_for(Locator::Css(&testid("chat-send")), TURN)
            .await?;
        wait_message(app, "assistant", "Streaming and then").await?;
        app.wait_until("the provider to see the client go", TURN, async || {
            Ok(provider
                .recorded()
                .iter()
                .any(|r| r["n"] == 2 && r["event"] == "disconnected")
                .then_some(()))
        })
        .await?;
        Ok(())
    })
    .await?;

    // 6. After a restart the conversation is there, with its call and its result.
    with_launch(Launch::existing_config().home(&home), async |app| {
        let row = format!(
            r#"{} {}"#,
            testid("conversation-row"),
            testid("conversation-title")
        );
        app.wait_for_text(Locator::Css(&row), FIRST_MESSAGE, UI)
            .await?;
        app.click(Locator::Css(&testid("conversation-open")), UI)
            .await?;
        wait_message(app, "user", FIRST_MESSAGE).await?;
        app.wait_for_text(Locator::Css(ECHO_RESULT), &format!("echo: {EDITED}"), UI)
            .await?;
        wait_message(app, "assistant", "Streaming and then").await?;
        app.screenshot("chat-restarted").await?;
        Ok(())
    })
    .await
}

const ENTER: &str = "\u{E007}";

/// A chip's label in the composer, or on the sent user message in the thread.
fn chip(place: &str, label: &str) -> String {
    format!(
        r#"//*[@data-testid="{place}"]//*[@data-testid="chat-chip-label"][normalize-space()="{label}"]"#
    )
}

#[tokio::test]
async fn a_resource_from_attach_and_a_prompt_from_a_slash_command_go_with_the_message() -> Result<()>
{
    let home = Home::new()?;
    let provider = Provider::start(home.path(), &json!({"replies": [{"text": "Noted."}]})).await?;
    let config = json!({
        "servers": {"demo": demo_server().expect("the demo server (cargo build --workspace --bins)")},
        "chat": {"provider": {"kind": "openai", "baseUrl": provider.base_url, "model": MODEL}}
    });
    with_launch(Launch::config(config).home(&home), async |app| {
        demo_ready_in_chat(app).await?;

        // Attach lists the running servers' resources; the one chosen is a chip above the text.
        app.click(Locator::Css(&testid("chat-attach")), UI).await?;
        app.click(
            Locator::Css(r#"[data-testid="chat-attach-resource"][data-server="demo"][data-uri="demo://readme"]"#),
            UI,
        )
        .await?;
        app.wait_for(Locator::XPath(&chip("chat-attachments", "demo://readme")), UI)
            .await?;

        // "/gre" offers the demo's greet prompt; Enter opens its form; filled, it is a chip.
        app.fill(Locator::Css(&testid("chat-input")), "/gre", UI)
            .await?;
        app.wait_for(
            Locator::Css(r#"[data-testid="chat-slash-item"][data-prompt="greet"][aria-selected="true"]"#),
            UI,
        )
        .await?;
        app.wait_for(Locator::Css(&testid("chat-input")), UI)
            .await?
            .send_keys(ENTER)
            .await?;
        let form = r#"[data-testid="chat-prompt-form"][data-prompt="greet"]"#;
        app.fill(
            Locator::Css(&format!(r#"{form} [data-testid="prompt-arg"][data-arg="name"]"#)),
            "Ada",
            UI,
        )
        .await?;
        app.click(
            Locator::Css(&format!(r#"{form} [data-testid="prompt-get"]"#)),
            UI,
        )
        .await?;
        app.wait_for(Locator::XPath(&chip("chat-attachments", "/greet name=Ada")), UI)
            .await?;
        check(
            app.count(Locator::Css(&testid("chat-prompt-form"))).await? == 0,
            "the prompt's form stayed open",
        )?;
        app.screenshot("chat-attachments").await?;

        // Sent: the model is given the prompt's text, the words, then the resource; the thread shows the chips.
        app.fill(Locator::Css(&testid("chat-input")), "What do these say?", UI)
            .await?;
        app.click(Locator::Css(&testid("chat-send")), UI).await?;
        wait_message(app, "assistant", "Noted.").await?;
        app.wait_for(Locator::XPath(&chip("chat-message-chips", "demo://readme")), UI)
            .await?;
        app.wait_for(Locator::XPath(&chip("chat-message-chips", "/greet name=Ada")), UI)
            .await?;
        check(
            app.count(Locator::Css(&testid("chat-attachments"))).await? == 0,
            "the composer kept the sent chips",
        )?;
        let recorded = provider.recorded();
        let body = recorded
            .iter()
            .find(|r| r["n"] == 0)
            .map(|r| r["body"].to_string())
            .unwrap_or_default();
        for needle in [
            "Please greet Ada warmly",
            "What do these say?",
            "the resource demo://readme of demo",
            "# Wharf demo server",
        ] {
            check(
                body.contains(needle),
                format!("the model was not given {needle:?}: {body}"),
            )?;
        }
        Ok(())
    })
    .await
}

#[tokio::test]
async fn the_model_chosen_in_the_header_is_written_into_the_file_and_used() -> Result<()> {
    let home = Home::new()?;
    let provider = Provider::start(home.path(), &json!({"replies": [{"text": "Hello."}]})).await?;
    // A file the user wrote, with a comment the choice must keep.
    let text = format!(
        "{{\n  // my model\n  \"chat\": {{\"provider\": {{\"kind\": \"openai\", \"baseUrl\": \"{}\", \"model\": \"{MODEL}\"}}}},\n  \"servers\": {{}}\n}}\n",
        provider.base_url
    );
    std::fs::write(home.config_path(), &text)
        .map_err(|e| Error::Check(format!("cannot write mcp.json: {e}")))?;
    with_launch(Launch::existing_config().home(&home), async |app| {
        app.wait_for_text(Locator::Css(&testid("chat-model")), MODEL, UI)
            .await?;
        // The fixture lists "scripted" and "scripted-large".
        app.click(Locator::Css(&testid("chat-model")), UI).await?;
        app.click(
            Locator::Css(r#"[data-testid="chat-model-option"][data-model="scripted-large"]"#),
            UI,
        )
        .await?;
        app.wait_for_text(Locator::Css(&testid("chat-model")), "scripted-large", UI)
            .await?;
        let saved = std::fs::read_to_string(home.config_path())
            .map_err(|e| Error::Check(format!("cannot read mcp.json: {e}")))?;
        check(
            saved == text.replace(MODEL, "scripted-large"),
            format!("the file was not edited in place: {saved}"),
        )?;

        // The next turn goes to the model chosen.
        app.fill(Locator::Css(&testid("chat-input")), "Hi", UI)
            .await?;
        app.click(Locator::Css(&testid("chat-send")), UI).await?;
        wait_message(app, "assistant", "Hello.").await?;
        let model = provider
            .recorded()
            .iter()
            .find(|r| r["n"] == 0)
            .map(|r| r["body"]["model"].clone());
        check(
            model == Some(json!("scripted-large")),
            format!("the turn went to {model:?}"),
        )?;
        Ok(())
    })
    .await
}

#[tokio::test]
async fn a_model_s_tool_call_shows_its_image_and_resource_link_as_the_tools_screen_does(
) -> Result<()> {
    let home = Home::new()?;
    let script = json!({"replies": [
        {"text": "", "tool_calls": [{"id": "call_1", "name": "demo__picture", "arguments": {}}]},
        {"text": "Here it is."}
    ]});
    let provider = Provider::start(home.path(), &script).await?;
    let mut demo = demo_server().expect("the demo server (cargo build --workspace --bins)");
    // Allowed without a card: this test is about the result.
    demo["toolApproval"] = json!("allow");
    let config = json!({
        "servers": {"demo": demo},
        "chat": {"provider": {"kind": "openai", "baseUrl": provider.base_url, "model": MODEL}}
    });
    with_launch(Launch::config(config).home(&home), async |app| {
        demo_ready_in_chat(app).await?;
        app.fill(Locator::Css(&testid("chat-input")), "Show me a picture", UI)
            .await?;
        app.click(Locator::Css(&testid("chat-send")), UI).await?;
        wait_message(app, "assistant", "Here it is.").await?;

        let card = r#"[data-testid="chat-toolcall"][data-tool="picture"]"#;
        let image = app
            .wait_for(
                Locator::Css(&format!(r#"{card} [data-testid="result-image"] img"#)),
                UI,
            )
            .await?;
        let src = image.attr("src").await?.unwrap_or_default();
        check(
            src.starts_with("data:image/png;base64,"),
            format!("the image is shown from {src:?}"),
        )?;
        app.wait_for_text(
            Locator::Css(&format!(r#"{card} [data-testid="result-uri"]"#)),
            "demo://readme",
            UI,
        )
        .await?;
        app.screenshot("chat-tool-result").await?;

        // Open reads the linked resource through its server, in the server's Resources view.
        app.click(
            Locator::Css(&format!(
                r#"{card} [data-testid="result-open"][data-uri="demo://readme"]"#
            )),
            UI,
        )
        .await?;
        let viewer =
            r#"[data-testid="resource-viewer"][data-uri="demo://readme"] [data-testid="resource-text"]"#;
        app.wait_until("the readme in the resource viewer", UI, async || {
            let text = app.text(Locator::Css(viewer)).await?;
            Ok(text.filter(|t| t.contains("# Wharf demo server")))
        })
        .await?;
        Ok(())
    })
    .await
}

/// The conversation row `id`'s element `testid`.
fn in_conversation(id: &str, testid: &str) -> String {
    format!(
        r#"[data-testid="conversation-row"][data-conversation="{id}"] [data-testid="{testid}"]"#
    )
}

/// The conversation the thread shows, once it has one.
async fn open_conversation(app: &App) -> Result<String> {
    app.wait_until(
        "the thread to show a stored conversation",
        TURN,
        async || {
            let open = app
                .attr(Locator::Css(&testid("chat-thread")), "data-conversation")
                .await?;
            Ok(open.filter(|id| !id.is_empty()))
        },
    )
    .await
}

#[tokio::test]
async fn a_new_conversation_is_answered_while_another_s_turn_streams_and_that_one_is_stopped_later(
) -> Result<()> {
    let home = Home::new()?;
    let script = json!({"replies": [
        {"text": "A streams and then", "hang": true},
        {"text": "B is answered."}
    ]});
    let provider = Provider::start(home.path(), &script).await?;
    let config = json!({
        "servers": {},
        "chat": {"provider": {"kind": "openai", "baseUrl": provider.base_url, "model": MODEL}}
    });
    with_launch(Launch::config(config).home(&home), async |app| {
        // A: a turn that streams, then hangs.
        app.fill(Locator::Css(&testid("chat-input")), "Question A", UI)
            .await?;
        app.click(Locator::Css(&testid("chat-send")), UI).await?;
        app.wait_until("A's reply to stream", TURN, async || {
            let text = app.text(Locator::Css(&testid("chat-streaming"))).await?;
            Ok(text.filter(|t| t.contains("A streams and then")))
        })
        .await?;
        let a = open_conversation(app).await?;
        app.wait_for(
            Locator::Css(&in_conversation(&a, "conversation-running")),
            UI,
        )
        .await?;

        // B: a new conversation while A streams; its message shows at once, and its answer comes.
        app.click(Locator::Css(&testid("chat-new")), UI).await?;
        app.fill(Locator::Css(&testid("chat-input")), "Question B", UI)
            .await?;
        app.click(Locator::Css(&testid("chat-send")), UI).await?;
        wait_message(app, "user", "Question B").await?;
        wait_message(app, "assistant", "B is answered.").await?;
        app.wait_for(Locator::Css(&testid("chat-send")), TURN)
            .await?;
        let b = open_conversation(app).await?;
        check(b != a, "B's turn went into A's conversation")?;
        check(
            app.count(Locator::Css(&testid("chat-streaming"))).await? == 0,
            "A's streamed text shows in B's thread",
        )?;
        // A still runs, and the list says so; B's turn is over.
        app.wait_for(Locator::Css(&in_conversation(&b, "conversation-open")), UI)
            .await?;
        app.wait_gone(
            Locator::Css(&in_conversation(&b, "conversation-running")),
            UI,
        )
        .await?;
        app.wait_for(
            Locator::Css(&in_conversation(&a, "conversation-running")),
            UI,
        )
        .await?;
        check(
            !provider
                .recorded()
                .iter()
                .any(|r| r["event"] == "disconnected"),
            "A's reply was cut while B ran",
        )?;
        app.screenshot("chat-two-turns").await?;

        // Back to A: what it streamed is there; Stop ends it and keeps it.
        app.click(Locator::Css(&in_conversation(&a, "conversation-open")), UI)
            .await?;
        app.wait_until("A's streamed text shown again", UI, async || {
            let text = app.text(Locator::Css(&testid("chat-streaming"))).await?;
            Ok(text.filter(|t| t.contains("A streams and then")))
        })
        .await?;
        app.click(Locator::Css(&testid("chat-stop")), UI).await?;
        app.wait_for(Locator::Css(&testid("chat-send")), TURN)
            .await?;
        wait_message(app, "assistant", "A streams and then").await?;
        app.wait_gone(
            Locator::Css(&in_conversation(&a, "conversation-running")),
            UI,
        )
        .await?;
        app.wait_until("the provider to see A's client go", TURN, async || {
            Ok(provider
                .recorded()
                .iter()
                .any(|r| r["n"] == 0 && r["event"] == "disconnected")
                .then_some(()))
        })
        .await?;
        // B kept its own answer.
        app.click(Locator::Css(&in_conversation(&b, "conversation-open")), UI)
            .await?;
        wait_message(app, "assistant", "B is answered.").await?;
        Ok(())
    })
    .await
}
