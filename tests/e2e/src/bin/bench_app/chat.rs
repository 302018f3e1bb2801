//! `bench-app chat`: the window with a long conversation open. Each start stores a conversation in the run's own
//! data dir (through wharf-core, as chat stores one), starts the app with a model configured (chat is then the main
//! screen; the model is never asked), opens the conversation from the list and notes, in the page, when its last
//! message is in the DOM and the frame after; then the memory of the app and its WebKit processes. Starts alternate
//! between a short conversation (the baseline) and the long one, so both see the same machine.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wharf_core::conversations::message::{CallResult, ReplyCalls, ToolCallRecord};
use wharf_core::conversations::{ConversationStore, MessageData, NewMessage, Role};
use wharf_core::model::ToolCall;
use wharf_core::question::tool_call::{CallDecision, GrantKind};
use wharf_e2e::{with_launch, Error, Home, Launch, Locator, Result};

use super::procs::{self, Part, Proc};
use super::{page, report, unix_ms};

/// The baseline conversation's length.
const SHORT: usize = 12;
/// Opening a conversation of thousands of messages on a loaded machine: generous.
const OPEN_TIMEOUT: Duration = Duration::from_secs(120);
const UI: Duration = Duration::from_secs(60);
/// Said only by the conversation's last message: the thread shows it last.
const LAST: &str = "END-OF-BENCH-CONVERSATION";

pub struct ChatOptions {
    pub messages: usize,
    pub starts: usize,
}

/// One start: how long the open took and what the processes took.
pub struct ChatRun {
    /// Click to the last message in the DOM, and to the frame after it, ms.
    pub shown: f64,
    pub frame: f64,
    /// Messages the thread showed.
    pub rendered: usize,
    pub memory: Vec<(Part, Proc)>,
    /// The group's resident pages, each counted once (`procs::distinct_resident_kib`).
    pub group_kib: Option<u64>,
}

pub async fn bench(options: &ChatOptions) -> Result<()> {
    let (mut short, mut long) = (Vec::new(), Vec::new());
    for i in 1..=options.starts {
        for messages in [SHORT, options.messages] {
            let started = Instant::now();
            let run = run_once(messages).await?;
            println!(
                "bench-app chat: start {i}/{}, {messages} messages: shown {:.0} ms after the click ({} rendered), \
                 {:.1} s",
                options.starts,
                run.shown,
                run.rendered,
                started.elapsed().as_secs_f64()
            );
            if messages == SHORT {
                short.push(run);
            } else {
                long.push(run);
            }
        }
    }
    report::chat(&short, &long, SHORT, options.messages);
    Ok(())
}

async fn run_once(messages: usize) -> Result<ChatRun> {
    let home = Home::new()?;
    let id = store_conversation(&home.path().join("data/wharf/conversations.db"), messages)?;
    let config = json!({"servers": {}, "chat": {"provider": {
        "kind": "openai", "baseUrl": "http://127.0.0.1:9/v1", "model": "bench-never-asked"}}});
    let launch = Launch::config(config).home(&home);
    let mut measured = None;
    with_launch(launch, async |app| {
        let open = format!(
            r#"[data-testid="conversation-row"][data-conversation="{id}"] [data-testid="conversation-open"]"#
        );
        app.wait_for(Locator::Css(&open), UI).await?;
        app.client().execute(WATCH_OPEN, vec![json!(LAST)]).await?;
        let clicked = unix_ms();
        app.click(Locator::Css(&open), UI).await?;
        let state = page::recorded(
            app,
            "return window.__wharfBenchOpen || null;",
            "frameAt",
            OPEN_TIMEOUT,
        )
        .await?;
        let at = |key: &str| state.get(key).and_then(Value::as_f64).unwrap_or(f64::NAN);
        let rendered = app
            .count(Locator::Css(
                r#"[data-testid="chat-message"], [data-testid="chat-toolcall"]"#,
            ))
            .await?;
        let pid = procs::app_pid(&home.path().join("home"))
            .ok_or_else(|| Error::Check("the app's process was not found in /proc".into()))?;
        let memory = procs::tree(pid);
        measured = Some(ChatRun {
            shown: at("shownAt") - clicked,
            frame: at("frameAt") - clicked,
            rendered,
            group_kib: procs::distinct_resident_kib(&memory),
            memory,
        });
        Ok(())
    })
    .await?;
    measured.ok_or_else(|| Error::Check("the run measured nothing".into()))
}

/// Notes when the thread shows the message that says `arguments[0]`, and the next frame.
const WATCH_OPEN: &str = r#"
const needle = arguments[0];
const state = { shownAt: null, frameAt: null };
window.__wharfBenchOpen = state;
const shown = () => {
  const messages = document.querySelector('[data-testid="chat-messages"]');
  return messages !== null && messages.textContent.includes(needle);
};
const observer = new MutationObserver(() => {
  if (state.shownAt === null && shown()) {
    observer.disconnect();
    state.shownAt = Date.now();
    requestAnimationFrame(() => { state.frameAt = Date.now(); });
  }
});
observer.observe(document, { subtree: true, childList: true, characterData: true });
return true;
"#;

/// A conversation of `messages` messages as chat stores one, in turns of four: the user's question, the model's
/// call, the tool's result (its record, a kilobyte and a half of text), and the model's Markdown answer.
fn store_conversation(db: &Path, messages: usize) -> Result<String> {
    let store_error = |e: wharf_core::conversations::ConversationError| {
        Error::Setup(format!("storing the conversation: {e}"))
    };
    let (store, _) = ConversationStore::open(db).map_err(store_error)?;
    let id = store
        .create(Some("Bench conversation"))
        .map_err(store_error)?
        .id;
    for i in 0..messages {
        let last = i + 1 == messages;
        let message = match i % 4 {
            0 => NewMessage {
                role: Role::User,
                text: format!(
                    "Question {i}: what does the file notes/{i}.md say about the release plan?"
                ),
                data: None,
            },
            1 => NewMessage {
                role: Role::Assistant,
                text: String::new(),
                data: Some(MessageData::Reply(ReplyCalls {
                    tool_calls: vec![ToolCall {
                        id: format!("c{i}"),
                        model_id: None,
                        name: "fs__read_file".into(),
                        arguments: format!("{{\"path\": \"/w/notes/{i}.md\"}}"),
                    }],
                })),
            },
            2 => NewMessage {
                role: Role::Tool,
                text: tool_text(i),
                data: Some(MessageData::ToolCall(ToolCallRecord {
                    id: format!("c{}", i - 1),
                    model_id: None,
                    server: Some("fs".into()),
                    tool: "read_file".into(),
                    arguments: json!({"path": format!("/w/notes/{i}.md")}),
                    decision: CallDecision::Granted,
                    grant: Some(GrantKind::Always),
                    decided: None,
                    result: CallResult {
                        content: vec![json!({"type": "text", "text": tool_text(i)})],
                        is_error: false,
                        shortened: false,
                        structured_content: None,
                    },
                    duration_ms: 12,
                })),
            },
            _ => NewMessage {
                role: Role::Assistant,
                text: answer(i),
                data: None,
            },
        };
        let message = if last {
            NewMessage {
                role: Role::Assistant,
                text: format!("{}\n\n{LAST}", answer(i)),
                data: None,
            }
        } else {
            message
        };
        store.append(&id, message).map_err(store_error)?;
    }
    Ok(id)
}

fn tool_text(i: usize) -> String {
    format!(
        "# Notes {i}\n\n{}",
        "The release goes out when the checks pass; each step is written down here. ".repeat(20)
    )
}

fn answer(i: usize) -> String {
    format!(
        "## What notes/{i}.md says\n\nThe plan has **three** steps:\n\n1. Run the checks (`make test`).\n2. Tag the \
         release.\n3. Publish the notes.\n\n```sh\nmake test && git tag v{i}\n```\n\nSee [the plan](https://example.com/plan/{i}) \
         for the dates; nothing else in the file is new."
    )
}
