use serde_json::json;

use super::*;
use crate::conversations::{ConversationStore, StoredMessage};
use crate::model::TurnMessage;

/// Conversations as Wharf stored them before messages were typed, as SQL rows: written by its own turns (every
/// decision, an image, attachments, the notices, a summary, tools left out, a model without tools) and, in the
/// conversation "Written before", rows shaped as older versions wrote them (the provider's call ids, repeated; no
/// `modelId`, no `decided`) and a newer version's notice.
const ROWS: &str = include_str!("../../../tests/fixtures/conversations/today.sql");
/// What that Wharf read from those rows, conversation by conversation: both exports, the history the model is given
/// (with and without images), the next call's number, the tools offered, what each message sent the model, the
/// summary's transcript, and the thread the app shows.
const READ: &str = include_str!("../../../tests/fixtures/conversations/today.read.json");

/// A store holding the fixture's rows, and the `data` column of each row as it is kept, by message id.
fn store_of_rows() -> (
    tempfile::TempDir,
    ConversationStore,
    Vec<(i64, Option<String>)>,
) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("conversations.db");
    let (store, _) = ConversationStore::open(&path).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(ROWS).unwrap();
    let mut stmt = conn
        .prepare("SELECT id, data FROM messages ORDER BY id")
        .unwrap();
    let kept = stmt
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    (dir, store, kept)
}

/// Every message of the store, by id.
fn all_messages(store: &ConversationStore) -> Vec<StoredMessage> {
    let mut all: Vec<StoredMessage> = store
        .list()
        .unwrap()
        .iter()
        .flat_map(|c| store.messages(&c.id).unwrap())
        .collect();
    all.sort_by_key(|m| m.id);
    all
}

/// The model's history as JSON, as the fixture has it: the model layer's messages have no JSON of their own.
fn history_json(messages: &[TurnMessage]) -> Value {
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

#[test]
fn every_row_written_before_reads_as_its_kind_and_is_kept_to_the_byte() {
    let (_dir, store, kept) = store_of_rows();
    let messages = all_messages(&store);
    assert_eq!(messages.len(), kept.len());
    let mut kinds: Vec<&str> = Vec::new();
    for (message, (id, data)) in messages.iter().zip(&kept) {
        assert_eq!(message.id, *id);
        // Written back, each is the very JSON it was read from: nothing lost, nothing added, in the same order.
        let written = message.data.as_ref().map(|d| d.stored().to_string());
        assert_eq!(&written, data, "message {id}");
        kinds.push(match &message.data {
            None => "-",
            Some(MessageData::User(_)) => "user",
            Some(MessageData::Summary(_)) => "summary",
            Some(MessageData::Reply(_)) => "reply",
            Some(MessageData::ToolCall(_)) => "call",
            Some(MessageData::ToolsLeftOut(_)) => "left out",
            Some(MessageData::Unknown { .. }) => "unknown",
        });
        // Each kind only under its role.
        let role = match &message.data {
            Some(MessageData::User(_) | MessageData::Summary(_)) => Some(Role::User),
            Some(MessageData::Reply(_)) => Some(Role::Assistant),
            Some(MessageData::ToolCall(_)) => Some(Role::Tool),
            Some(MessageData::ToolsLeftOut(_)) => Some(Role::Notice),
            _ => None,
        };
        assert!(role.is_none_or(|r| r == message.role), "message {id}");
    }
    let count = |kind: &str| kinds.iter().filter(|k| **k == kind).count();
    assert_eq!(count("user"), 15);
    assert_eq!(count("summary"), 1);
    assert_eq!(count("reply"), 9);
    assert_eq!(count("call"), 12);
    assert_eq!(count("left out"), 1);
    // Replies without calls and Wharf's other notices hold nothing but their text.
    assert_eq!(count("-"), 18);
    // Only the newer version's notice is of no kind.
    assert_eq!(count("unknown"), 1);

    let by_id = |id: i64| &messages[usize::try_from(id - 1).unwrap()];
    // The message sent with a resource and a prompt attached: the chips, and what the model was sent.
    let Some(MessageData::User(attached)) = &by_id(28).data else {
        panic!("{:?}", by_id(28))
    };
    let chips: Vec<&Attachment> = attached.attachments.iter().map(|c| &c.attachment).collect();
    assert!(
        matches!(chips[..], [Attachment::Resource { uri, .. }, Attachment::Prompt { name, .. }]
            if uri == "demo://readme" && name == "greet"),
        "{chips:?}"
    );
    assert!(attached
        .sent
        .as_deref()
        .is_some_and(|sent| sent.starts_with("Please greet Ada warmly")));
    // The summary names the conversation it continues.
    let Some(MessageData::Summary(start)) = &by_id(39).data else {
        panic!("{:?}", by_id(39))
    };
    let first = store.list().unwrap();
    let first = first.iter().find(|c| c.title == "echo hi").unwrap();
    assert_eq!(start.continues, first.id);
    // A call granted for the conversation, then words and codes both kept.
    let Some(MessageData::ToolCall(granted)) = &by_id(10).data else {
        panic!("{:?}", by_id(10))
    };
    assert_eq!(
        (granted.decision, granted.grant),
        (CallDecision::Granted, Some(GrantKind::Conversation))
    );
    assert_eq!(
        granted.decided.as_deref(),
        Some("allowed: you allowed it for this conversation")
    );
    // The picture's result keeps its image.
    let Some(MessageData::ToolCall(picture)) = &by_id(20).data else {
        panic!("{:?}", by_id(20))
    };
    assert_eq!(picture.result.content[0]["type"], "image");
    // The flood server's tools left out.
    let Some(MessageData::ToolsLeftOut(notice)) = &by_id(43).data else {
        panic!("{:?}", by_id(43))
    };
    let cut = &notice.tools_left_out[0];
    assert_eq!(
        (cut.server.as_str(), cut.offered, cut.listed),
        ("aaa", 120, 200)
    );
    assert_eq!(cut.reason, LeftOutReason::OverShare);
    // An older version's call: the provider's id, no words.
    let Some(MessageData::ToolCall(old)) = &by_id(52).data else {
        panic!("{:?}", by_id(52))
    };
    assert_eq!(
        (old.id.as_str(), &old.model_id, &old.decided),
        ("call_0", &None, &None)
    );
}

#[test]
fn what_is_read_from_rows_written_before_is_what_was_read_then() {
    let (_dir, store, _) = store_of_rows();
    let read: Vec<Value> = serde_json::from_str(READ).unwrap();
    assert_eq!(read.len(), store.list().unwrap().len());
    for then in &read {
        let id = then["id"].as_str().unwrap();
        let stored = store.messages(id).unwrap();
        // The exports, to the byte (the JSON in its keys' order).
        assert_eq!(
            serde_json::to_string(&serde_json::to_value(store.export_json(id).unwrap()).unwrap())
                .unwrap(),
            serde_json::to_string(&then["exportJson"]).unwrap(),
            "{id}"
        );
        assert_eq!(
            store.export_markdown(id).unwrap(),
            then["exportMarkdown"],
            "{id}"
        );
        // What the model is given of the conversation, and the calls' numbering and tools' newness that follow.
        use crate::chat::turn::history;
        assert_eq!(
            history_json(&history::turn_messages(&stored, false)),
            then["history"],
            "{id}"
        );
        assert_eq!(
            history_json(&history::turn_messages(&stored, true)),
            then["historyWithImages"],
            "{id}"
        );
        assert_eq!(json!(history::next_call_number(&stored)), then["nextCall"]);
        let mut offered: Vec<(String, String)> =
            history::offered_tools(&stored).into_iter().collect();
        offered.sort();
        assert_eq!(json!(offered), then["offered"], "{id}");
        let sent: Vec<&str> = stored.iter().map(history::sent).collect();
        assert_eq!(json!(sent), then["sent"], "{id}");
        assert_eq!(
            json!(crate::chat::summary::transcript(&stored, 100_000)),
            then["transcript"],
            "{id}"
        );
        // The thread: each message as it was shown, its result view and decision words the same; its data now
        // tagged with its kind, the kind's own fields as they were.
        let thread = crate::view::thread::thread_messages(stored);
        let shown = then["thread"].as_array().unwrap();
        assert_eq!(thread.len(), shown.len());
        for (now, then) in thread.iter().zip(shown) {
            let mut now = serde_json::to_value(now).unwrap();
            let mut then = then.clone();
            let data_now = now.as_object_mut().unwrap().remove("data");
            let data_then = then.as_object_mut().unwrap().remove("data");
            // Newer than the fixture: a call's result as text, beside its view (view/thread.rs tests it).
            let text_now = now.as_object_mut().unwrap().remove("resultText");
            assert_eq!(text_now.is_some(), now.get("resultView").is_some(), "{now}");
            assert_eq!(now, then);
            match (data_now, data_then) {
                (None, None) => {}
                (Some(Value::Object(mut tagged)), Some(kept)) => {
                    let kind = tagged.shift_remove("kind").unwrap();
                    let fields = match kind.as_str() {
                        // What is of no kind goes to the window as it was kept, beside the tag.
                        Some("unknown") => tagged.remove("stored").unwrap(),
                        _ => Value::Object(tagged),
                    };
                    assert_eq!(fields, kept, "{now}");
                }
                other => panic!("{other:?}"),
            }
        }
    }
}

#[test]
fn each_kind_is_kept_as_its_own_json_and_read_back_by_role_and_shape() {
    let rows = [
        (Role::User, r#"{"tools":[["s","t"]]}"#, "user"),
        (
            Role::User,
            r#"{"tools":[],"attachments":[{"attachment":{"kind":"resource","server":"s","uri":"s://a"},"chars":3,"truncated":true}],"sent":"hi\n\na"}"#,
            "user",
        ),
        (Role::User, r#"{"continues":"abc"}"#, "summary"),
        (
            Role::Assistant,
            r#"{"toolCalls":[{"id":"c1","modelId":"m","name":"s__t","arguments":"{\"a\":1}"}]}"#,
            "reply",
        ),
        (
            Role::Tool,
            r#"{"id":"c1","tool":"t","arguments":"not JSON","decision":"refused","result":{"content":[{"type":"text","text":"x"}],"isError":true,"shortened":true},"durationMs":0}"#,
            "tool_call",
        ),
        (
            Role::Notice,
            r#"{"toolsLeftOut":[{"server":"s","offered":1,"listed":3,"reason":"over_share","tools":["b","c"]}]}"#,
            "tools_left_out",
        ),
        // Of no kind for its role: a reply's calls kept with a user's message, a call's record missing its result,
        // a reason no Wharf writes, JSON that is no object.
        (Role::User, r#"{"toolCalls":[]}"#, "unknown"),
        (Role::Tool, r#"{"id":"c1","tool":"t"}"#, "unknown"),
        (
            Role::Notice,
            r#"{"toolsLeftOut":[{"server":"s","offered":1,"listed":3,"reason":"tired","tools":[]}]}"#,
            "unknown",
        ),
        (Role::Assistant, r#"[1,"two"]"#, "unknown"),
    ];
    for (role, kept, kind) in rows {
        let data = MessageData::read(role, serde_json::from_str(kept).unwrap());
        assert_eq!(data.stored().to_string(), kept);
        let tagged = serde_json::to_value(&data).unwrap();
        assert_eq!(tagged["kind"], kind, "{kept}");
    }
}

#[test]
fn a_shortened_result_says_so_and_its_view_is_of_its_text() {
    let kept = json!({"id": "c1", "tool": "t", "arguments": {}, "decision": "allow_once",
                      "result": {"content": [{"type": "text", "text": "the start"}], "isError": false, "shortened": true},
                      "durationMs": 2});
    let MessageData::ToolCall(record) = MessageData::read(Role::Tool, kept) else {
        panic!()
    };
    assert!(record.result.shortened);
    assert_eq!(
        record.result.as_tool_result().sent(),
        &json!({"content": [{"type": "text", "text": "the start"}], "isError": false})
    );
}
