//! Writes the conversations fixture the typed messages are tested against: conversations stored by this version's
//! own writers (turns against a scripted model and the demo server, a summary, tools left out, no tools), the rows
//! dumped as SQL, and what this version reads back from them (the exports, the history the model is given, the
//! summary's transcript, the thread the app shows). Run once, by hand:
//! `WHARF_CAPTURE_OUT=DIR WHARF_DEMO_SERVER=PATH WHARF_PEERS=PATH cargo test -p wharf-core --lib capture -- --ignored`.

use std::path::PathBuf;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::question::tool_call::ToolCallChoice;
use crate::chat::attach::Attachment;
use crate::model::fake::{FakeReply, Step};
use crate::model::{ProviderError, StopReason};

/// The model's history as JSON: the model layer's messages have no JSON of their own.
pub(crate) fn history_json(messages: &[TurnMessage]) -> Value {
    messages
        .iter()
        .map(|m| match m {
            TurnMessage::User(text) => json!({ "user": text }),
            TurnMessage::Assistant { text, tool_calls } => {
                json!({"assistant": {"text": text, "toolCalls": tool_calls}})
            }
            TurnMessage::ToolResult {
                call_id,
                content,
                is_error,
                images,
            } => json!({"toolResult": {
                "callId": call_id, "content": content, "isError": is_error,
                "images": images.iter().map(|i| json!({"mimeType": i.mime_type, "data": i.data})).collect::<Vec<_>>(),
            }}),
        })
        .collect()
}

fn request<'a>(conversation: Option<&'a str>, message: &'a str) -> TurnRequest<'a> {
    TurnRequest {
        id: None,
        conversation,
        message,
        attachments: &[],
    }
}

#[tokio::test]
#[ignore = "writes the fixture; run by hand"]
async fn capture() {
    let out = PathBuf::from(std::env::var("WHARF_CAPTURE_OUT").unwrap());
    let demo_bin = std::env::var("WHARF_DEMO_SERVER").unwrap();
    let peers = PathBuf::from(std::env::var("WHARF_PEERS").unwrap());
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = ConversationStore::open(&dir.path().join("today.db")).unwrap();
    let demo = json!({"type": "stdio", "command": demo_bin});
    let cancel = CancellationToken::new();

    // Calls of every decision, an image, attachments, notices: one conversation.
    let script = vec![
        // 1: a call allowed once, then the answer.
        Step::Reply(
            FakeReply::text(&["Let me ", "echo it."]).call("demo__echo", r#"{"message": "hi"}"#),
        ),
        Step::Reply(FakeReply::text(&["It said: echo: hi"]).usage(40, 6)),
        // 2: two calls in one reply (one allowed for the conversation, one a tool error), then one granted.
        Step::Reply(
            FakeReply::text(&[])
                .call("demo__add", r#"{"a": 2, "b": 3}"#)
                .call("demo__fail", "{}"),
        ),
        Step::Reply(FakeReply::text(&["Once more."]).call("demo__add", r#"{"a": 1, "b": 1}"#)),
        Step::Reply(FakeReply::text(&["Done: 5 and 2."])),
        // 3: denied with a reason, a tool never offered, arguments that are not JSON.
        Step::Reply(
            FakeReply::text(&["Trying three."])
                .call("demo__echo", r#"{"message": "secret plans"}"#)
                .call("demo__delete_all", "{}")
                .call("demo__echo", "{broken"),
        ),
        Step::Reply(FakeReply::text(&["Sorry."])),
        // 4: an image, for a model that takes images, allowed always.
        Step::Reply(FakeReply::text(&[]).call("demo__picture", "{}")),
        Step::Reply(FakeReply::text(&["A small picture."])),
        // 5: cut at the token limit.
        Step::Reply(FakeReply::text(&["This reply is c"]).stop(StopReason::MaxTokens)),
        // 6: the provider fails after some text.
        Step::Fail {
            shown: vec!["Half an ".into(), "answer".into()],
            error: ProviderError::Http {
                status: 500,
                message: "overloaded".into(),
            },
        },
        // 7: a message with a resource and a prompt attached.
        Step::Reply(FakeReply::text(&["Read and greeted."])),
        // 8: stopped by the user mid-reply.
        Step::Hang {
            shown: vec!["Thinking".into()],
        },
        // 9: the step limit, with a call made.
        Step::Reply(FakeReply::text(&["Step one."]).call("demo__echo", r#"{"message": "again"}"#)),
        // 10: a small window: earlier results shortened for the model, the window near full.
        Step::Reply(FakeReply::text(&["Still here."])),
        // The summary of the conversation, then a turn in the new one.
        Step::Reply(FakeReply::text(&[
            "The user echoed, added, saw a picture and read the readme.",
        ])),
        Step::Reply(FakeReply::text(&["Going on from the summary."])),
    ];
    let answers = vec![
        card(ToolCallChoice::AllowOnce, None),
        card(ToolCallChoice::AllowConversation, None),
        card(ToolCallChoice::AllowOnce, None),
        card(ToolCallChoice::Deny, Some("not that text")),
        card(ToolCallChoice::AllowAlways, None),
        card(ToolCallChoice::AllowOnce, None),
    ];
    let fx = Fixture::new(json!({ "demo": demo }), script, answers).await;
    let base = TurnContext {
        store: &store,
        ..fx.cx()
    };
    let first = run_turn(&base, request(None, "echo hi"), &cancel)
        .await
        .unwrap()
        .conversation;
    let id = Some(first.as_str());
    for message in ["add and fail", "try three things"] {
        run_turn(&base, request(id, message), &cancel)
            .await
            .unwrap();
    }
    let mut images = fx.settings.clone();
    images.images = true;
    let with_images = TurnContext {
        settings: &images,
        ..fx.cx()
    };
    let with_images = TurnContext {
        store: &store,
        ..with_images
    };
    run_turn(&with_images, request(id, "a picture please"), &cancel)
        .await
        .unwrap();
    for message in ["write a lot", "are you there"] {
        run_turn(&base, request(id, message), &cancel)
            .await
            .unwrap();
    }
    let attachments = [
        Attachment::Resource {
            server: "demo".into(),
            uri: "demo://readme".into(),
        },
        Attachment::Prompt {
            server: "demo".into(),
            name: "greet".into(),
            arguments: json!({"name": "Ada"}).as_object().cloned(),
        },
    ];
    let attached = TurnRequest {
        attachments: &attachments,
        ..request(id, "read this and greet")
    };
    run_turn(&base, attached, &cancel).await.unwrap();
    let stop = CancellationToken::new();
    let stopped = stop.clone();
    let events = EventSink::new(move |event| {
        if let HostEvent::ChatDelta { .. } = event {
            stopped.cancel();
        }
    });
    let stopping = TurnContext {
        events: &events,
        ..TurnContext {
            store: &store,
            ..fx.cx()
        }
    };
    run_turn(&stopping, request(id, "think hard"), &stop)
        .await
        .unwrap();
    let mut one_step = fx.settings.clone();
    one_step.max_steps = 1;
    let limited = TurnContext {
        settings: &one_step,
        store: &store,
        ..fx.cx()
    };
    run_turn(&limited, request(id, "echo again"), &cancel)
        .await
        .unwrap();
    let mut small = fx.settings.clone();
    small.context_tokens = 300;
    let cramped = TurnContext {
        settings: &small,
        store: &store,
        ..fx.cx()
    };
    run_turn(&cramped, request(id, "still there?"), &cancel)
        .await
        .unwrap();
    let summarized = crate::chat::summary::summarize(&base, &first, &cancel)
        .await
        .unwrap();
    run_turn(
        &base,
        request(Some(&summarized.conversation), "go on"),
        &cancel,
    )
    .await
    .unwrap();
    fx.host.shutdown().await;

    // Tools left out: a server listing more than a request takes.
    let python = peers.join("py/bin/python");
    let flood_script =
        env!("CARGO_MANIFEST_DIR").to_string() + "/../../tests/fixtures/many_tools_server.py";
    let flood = json!({"type": "stdio", "command": python, "args": [flood_script, "200"]});
    let script = vec![
        Step::Reply(FakeReply::text(&[]).call("demo__echo", r#"{"message": "crowded"}"#)),
        Step::Reply(FakeReply::text(&["Crowded in here."])),
    ];
    let fx = Fixture::new(
        json!({"demo": demo, "aaa": flood}),
        script,
        vec![card(ToolCallChoice::AllowOnce, None)],
    )
    .await;
    let cx = TurnContext {
        store: &store,
        ..fx.cx()
    };
    run_turn(&cx, request(None, "so many tools"), &cancel)
        .await
        .unwrap();
    fx.host.shutdown().await;

    // A model that takes no tools.
    let script = vec![Step::Reply(FakeReply::text(&["No tools here."]))];
    let fx = Fixture::new(json!({ "demo": demo }), script, Vec::new()).await;
    let mut no_tools = fx.settings.clone();
    no_tools.tools = false;
    let cx = TurnContext {
        settings: &no_tools,
        store: &store,
        ..fx.cx()
    };
    run_turn(&cx, request(None, "hello"), &cancel)
        .await
        .unwrap();
    fx.host.shutdown().await;

    // As an older Wharf wrote them: calls under the provider's ids (repeated), no modelId, no decided words.
    let legacy = store.create(Some("Written before")).unwrap().id;
    let call =
        |id: &str| json!({"id": id, "name": "demo__echo", "arguments": "{\"message\": \"old\"}"});
    let record = |id: &str, text: &str| {
        json!({"id": id, "server": "demo", "tool": "echo", "arguments": {"message": "old"},
               "decision": "granted", "grant": "conversation",
               "result": {"content": [{"type": "text", "text": text}], "isError": false}, "durationMs": 4})
    };
    let rows = [
        (
            Role::User,
            "echo old",
            Some(json!({"tools": [["demo", "echo"]]})),
        ),
        (
            Role::Assistant,
            "",
            Some(json!({"toolCalls": [call("call_0"), call("call_0")]})),
        ),
        (Role::Tool, "echo: old", Some(record("call_0", "echo: old"))),
        (
            Role::Tool,
            "echo: old again",
            Some(record("call_0", "echo: old again")),
        ),
        (Role::Assistant, "Twice.", None),
        (
            Role::User,
            "and again",
            Some(json!({"tools": [["demo", "echo"]]})),
        ),
        (
            Role::Assistant,
            "",
            Some(json!({"toolCalls": [call("call_0")]})),
        ),
        (
            Role::Notice,
            "a notice of a newer Wharf",
            Some(json!({"somethingNew": [1, 2]})),
        ),
    ];
    for (role, text, data) in rows {
        store
            .append(
                &legacy,
                NewMessage {
                    role,
                    text: text.into(),
                    data,
                },
            )
            .unwrap();
    }

    // The rows, as SQL, and what this version reads from them.
    let conn = rusqlite::Connection::open(dir.path().join("today.db")).unwrap();
    let mut sql = String::new();
    for query in [
        "SELECT 'INSERT INTO conversations (id, title, created_at, updated_at) VALUES (' || quote(id) || ', ' || \
         quote(title) || ', ' || created_at || ', ' || updated_at || ');' FROM conversations ORDER BY created_at, id",
        "SELECT 'INSERT INTO messages (id, conversation, seq, role, text, data, created_at) VALUES (' || id || ', ' \
         || quote(conversation) || ', ' || seq || ', ' || quote(role) || ', ' || quote(text) || ', ' || quote(data) \
         || ', ' || created_at || ');' FROM messages ORDER BY id",
    ] {
        let mut stmt = conn.prepare(query).unwrap();
        let lines: Vec<String> = stmt
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        for line in lines {
            sql.push_str(&line);
            sql.push('\n');
        }
    }
    let mut read = Vec::new();
    let mut conversations = store.list().unwrap();
    conversations.sort_by_key(|c| c.created_at);
    for c in conversations {
        let stored = store.messages(&c.id).unwrap();
        let mut offered: Vec<(String, String)> =
            history::offered_tools(&stored).into_iter().collect();
        offered.sort();
        read.push(json!({
            "id": c.id,
            "exportJson": store.export_json(&c.id).unwrap(),
            "exportMarkdown": store.export_markdown(&c.id).unwrap(),
            "history": history_json(&history::turn_messages(&stored, false)),
            "historyWithImages": history_json(&history::turn_messages(&stored, true)),
            "nextCall": history::next_call_number(&stored),
            "offered": offered,
            "sent": stored.iter().map(history::sent).collect::<Vec<_>>(),
            "transcript": crate::chat::summary::transcript(&stored, 100_000),
            "thread": crate::view::thread::thread_messages(stored),
        }));
    }
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("today.sql"), sql).unwrap();
    std::fs::write(
        out.join("today.read.json"),
        serde_json::to_string_pretty(&read).unwrap() + "\n",
    )
    .unwrap();
}
