//! A stored conversation read back as the model is given it. What a turn stores, and how it is read:
//! - a user message: its text, and in `data.tools` the tools offered with it (to mark tools new later);
//! - an assistant message: its text, and in `data.toolCalls` the calls the model made, as it wrote them;
//! - a tool message: the text the model was given, and in `data` the call's record (`id`, `result.isError`...);
//! - a notice: shown to the user, never to the model.
//!
//! A turn cut short (Wharf killed mid-call) may leave calls without results: each is given one that says so, as the
//! providers refuse a call left unanswered.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::chat::request::TurnMessage;
use crate::chat::stream::ToolCall;
use crate::conversations::{Role, StoredMessage};

/// What the model is told of a call whose outcome was never stored.
pub const NO_OUTCOME: &str = "this call's outcome is unknown: Wharf stopped before it was recorded";

/// The conversation as the model is given it; with the tool results' images when `images` says the model takes
/// them.
pub fn turn_messages(stored: &[StoredMessage], images: bool) -> Vec<TurnMessage> {
    let mut out = Vec::with_capacity(stored.len());
    let mut results: HashMap<&str, TurnMessage> = stored
        .iter()
        .filter(|m| m.role == Role::Tool)
        .filter_map(|m| {
            let id = call_id(m.data.as_ref())?;
            let is_error = m
                .data
                .as_ref()
                .and_then(|d| d.pointer("/result/isError"))
                .and_then(Value::as_bool)
                .unwrap_or(true);
            Some((
                id,
                TurnMessage::ToolResult {
                    call_id: id.to_string(),
                    content: m.text.clone(),
                    is_error,
                    images: match &m.data {
                        Some(record) if images => super::result::kept_images(record),
                        _ => Vec::new(),
                    },
                },
            ))
        })
        .collect();
    for message in stored {
        match message.role {
            Role::User => {
                out.push(TurnMessage::User(sent(message).to_string()));
            }
            Role::Assistant => {
                let tool_calls = tool_calls(message.data.as_ref());
                let ids: Vec<String> = tool_calls.iter().map(|c| c.id.clone()).collect();
                out.push(TurnMessage::Assistant {
                    text: message.text.clone(),
                    tool_calls,
                });
                // Each call's result right after the call, in the order the model made them, whatever order they
                // completed in.
                for id in ids {
                    let result =
                        results
                            .remove(id.as_str())
                            .unwrap_or_else(|| TurnMessage::ToolResult {
                                call_id: id,
                                content: NO_OUTCOME.to_string(),
                                is_error: true,
                                images: Vec::new(),
                            });
                    out.push(result);
                }
            }
            Role::Tool | Role::Notice => {}
        }
    }
    out
}

/// What the model was given of a user's message: with attachments, their text too (kept in `data.sent`).
pub fn sent(message: &StoredMessage) -> &str {
    message
        .data
        .as_ref()
        .and_then(|d| d.get("sent"))
        .and_then(Value::as_str)
        .unwrap_or(&message.text)
}

/// The tools offered with each user message so far, as (server, tool).
pub fn offered_tools(stored: &[StoredMessage]) -> HashSet<(String, String)> {
    stored
        .iter()
        .filter(|m| m.role == Role::User)
        .filter_map(|m| m.data.as_ref()?.get("tools")?.as_array())
        .flatten()
        .filter_map(|pair| {
            let server = pair.get(0)?.as_str()?;
            let tool = pair.get(1)?.as_str()?;
            Some((server.to_string(), tool.to_string()))
        })
        .collect()
}

fn call_id(data: Option<&Value>) -> Option<&str> {
    data?.get("id")?.as_str()
}

fn tool_calls(data: Option<&Value>) -> Vec<ToolCall> {
    data.and_then(|d| d.get("toolCalls"))
        .and_then(|calls| serde_json::from_value::<Vec<ToolCall>>(calls.clone()).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The eight bytes every PNG starts with.
    const PNG: &str = "iVBORw0KGgo=";

    fn stored(seq: i64, role: Role, text: &str, data: Option<Value>) -> StoredMessage {
        StoredMessage::at(seq, role, text, data)
    }

    #[test]
    fn results_follow_their_calls_in_call_order_and_a_lost_one_is_said() {
        let calls = json!({"toolCalls": [
            {"id": "a", "name": "s__x", "arguments": "{}"},
            {"id": "b", "name": "s__y", "arguments": "{}"},
            {"id": "c", "name": "s__z", "arguments": "{}"},
        ]});
        let messages = [
            stored(1, Role::User, "hi", Some(json!({"tools": [["s", "x"]]}))),
            stored(2, Role::Assistant, "", Some(calls)),
            stored(
                3,
                Role::Tool,
                "B",
                Some(json!({"id": "b", "result": {"isError": false}})),
            ),
            stored(4, Role::Notice, "a notice", None),
            stored(
                5,
                Role::Tool,
                "A",
                Some(json!({"id": "a", "result": {"isError": true, "content": [
                    {"type": "text", "text": "A"},
                    {"type": "image", "mimeType": "image/png", "data": PNG}]}})),
            ),
        ];
        let out = turn_messages(&messages, false);
        assert_eq!(out.len(), 5, "{out:?}");
        assert_eq!(out[0], TurnMessage::User("hi".into()));
        let result = |i: usize| match &out[i] {
            TurnMessage::ToolResult {
                call_id,
                content,
                is_error,
                images,
            } => {
                assert!(images.is_empty(), "a model that takes no images");
                (call_id.clone(), content.clone(), *is_error)
            }
            other => panic!("{other:?}"),
        };
        assert_eq!(result(2), ("a".into(), "A".into(), true));
        assert_eq!(result(3), ("b".into(), "B".into(), false));
        assert_eq!(result(4), ("c".into(), NO_OUTCOME.into(), true));
        // A model that takes images is given the stored result's image again, and only there.
        let images: Vec<usize> = turn_messages(&messages, true)
            .iter()
            .map(|m| match m {
                TurnMessage::ToolResult { images, .. } => images.len(),
                _ => 0,
            })
            .collect();
        assert_eq!(images, [0, 0, 1, 0, 0]);
        assert_eq!(
            offered_tools(&messages),
            HashSet::from([("s".to_string(), "x".to_string())])
        );
    }
}
