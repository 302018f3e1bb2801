//! A stored conversation read back as the model is given it. What a turn stores, and how it is read:
//! - a user message: its text, with the tools offered with it (to mark tools new later) and, when something was
//!   attached, what the model was sent;
//! - an assistant message: its text, with the calls the model made, as it wrote them;
//! - a tool message: the text the model was given, with the call's record (its id, whether it is an error...);
//! - a notice: shown to the user, never to the model.
//!
//! A turn cut short (Wharf killed mid-call) may leave calls without results: each is given one that says so, as the
//! providers refuse a call left unanswered.

use std::collections::HashSet;

use crate::conversations::message::ToolCallRecord;
use crate::conversations::{MessageData, Role, StoredMessage};
use crate::model::ToolCall;
use crate::model::TurnMessage;

/// What the model is told of a call whose outcome was never stored.
pub const NO_OUTCOME: &str = "this call's outcome is unknown: Wharf stopped before it was recorded";

/// The conversation as the model is given it; with the tool results' images when `images` says the model takes
/// them. Each reply's calls are followed by their results, in the order the model made the calls. A result is
/// looked for only among the tool messages stored after its reply and before the next one, so that an id used twice
/// in one conversation (as stored before Wharf gave calls ids of its own) cannot give one call another's result.
pub fn turn_messages(stored: &[StoredMessage], images: bool) -> Vec<TurnMessage> {
    let mut out = Vec::with_capacity(stored.len());
    let mut reply: Option<OpenReply> = None;
    for message in stored {
        match message.role {
            Role::User => {
                if let Some(open) = reply.take() {
                    open.close(&mut out);
                }
                out.push(TurnMessage::User(sent(message).to_string()));
            }
            Role::Assistant => {
                if let Some(open) = reply.take() {
                    open.close(&mut out);
                }
                let tool_calls = tool_calls(message).to_vec();
                let ids = tool_calls.iter().map(|c| c.id.clone()).collect();
                out.push(TurnMessage::Assistant {
                    text: message.text.clone(),
                    tool_calls,
                });
                reply = Some(OpenReply {
                    ids,
                    results: Vec::new(),
                });
            }
            Role::Tool => {
                let Some(open) = reply.as_mut() else { continue };
                let Some(record) = call_record(message) else {
                    continue;
                };
                open.results.push(Some((
                    record.id.clone(),
                    TurnMessage::ToolResult {
                        call_id: record.id.clone(),
                        content: message.text.clone(),
                        is_error: record.result.is_error,
                        images: if images {
                            super::result::kept_images(&record.result)
                        } else {
                            Vec::new()
                        },
                    },
                )));
            }
            Role::Notice => {}
        }
    }
    if let Some(open) = reply {
        open.close(&mut out);
    }
    out
}

/// A reply whose results are being collected from the tool messages after it.
struct OpenReply {
    /// Its calls' ids, in the order the model made them.
    ids: Vec<String>,
    /// The results stored since, in the order they completed; each is taken by one call at most.
    results: Vec<Option<(String, TurnMessage)>>,
}

impl OpenReply {
    /// Each call's result right after the reply, in call order whatever order they completed in; a call whose
    /// outcome was never stored is given one that says so, as the providers refuse a call left unanswered.
    fn close(mut self, out: &mut Vec<TurnMessage>) {
        for id in self.ids {
            let found = self
                .results
                .iter_mut()
                .find(|r| r.as_ref().is_some_and(|(rid, _)| *rid == id))
                .and_then(Option::take);
            out.push(match found {
                Some((_, result)) => result,
                None => TurnMessage::ToolResult {
                    call_id: id,
                    content: NO_OUTCOME.to_string(),
                    is_error: true,
                    images: Vec::new(),
                },
            });
        }
    }
}

/// The id Wharf gives the conversation's call numbered `number`.
pub fn call_id_for(number: u64) -> String {
    format!("c{number}")
}

/// The number of the conversation's next call: one past every call stored so far. An id stored before Wharf gave
/// its own (a provider's `c3`, say) may equal one given later, which is harmless: results are matched within a
/// reply, and every id within a reply is Wharf's.
pub fn next_call_number(stored: &[StoredMessage]) -> u64 {
    let calls = stored
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .map(|m| tool_calls(m).len())
        .sum::<usize>();
    u64::try_from(calls).unwrap_or(u64::MAX).saturating_add(1)
}

/// What the model was given of a user's message: with attachments, their text too.
pub fn sent(message: &StoredMessage) -> &str {
    match &message.data {
        Some(MessageData::User(user)) => user.sent.as_deref().unwrap_or(&message.text),
        _ => &message.text,
    }
}

/// The tools offered with each user message so far, as (server, tool).
pub fn offered_tools(stored: &[StoredMessage]) -> HashSet<(String, String)> {
    stored
        .iter()
        .filter_map(|m| match &m.data {
            Some(MessageData::User(user)) => Some(user.tools.iter().cloned()),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The call a tool message holds.
fn call_record(message: &StoredMessage) -> Option<&ToolCallRecord> {
    match &message.data {
        Some(MessageData::ToolCall(record)) => Some(record),
        _ => None,
    }
}

/// The calls an assistant message made.
fn tool_calls(message: &StoredMessage) -> &[ToolCall] {
    match &message.data {
        Some(MessageData::Reply(reply)) => &reply.tool_calls,
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversations::message::{CallResult, ReplyCalls, UserMessage};
    use crate::question::tool_call::CallDecision;
    use serde_json::json;

    /// The eight bytes every PNG starts with.
    const PNG: &str = "iVBORw0KGgo=";

    fn stored(seq: i64, role: Role, text: &str, data: Option<MessageData>) -> StoredMessage {
        StoredMessage::at(seq, role, text, data)
    }

    fn calls(ids: &[&str]) -> Option<MessageData> {
        let tool_calls = ids
            .iter()
            .map(|id| ToolCall {
                id: id.to_string(),
                model_id: None,
                name: "s__x".into(),
                arguments: "{}".into(),
            })
            .collect();
        Some(MessageData::Reply(ReplyCalls { tool_calls }))
    }

    fn result(id: &str, is_error: bool, content: Vec<serde_json::Value>) -> Option<MessageData> {
        Some(MessageData::ToolCall(ToolCallRecord {
            id: id.into(),
            model_id: None,
            server: Some("s".into()),
            tool: "x".into(),
            arguments: json!({}),
            decision: CallDecision::AllowOnce,
            grant: None,
            decided: None,
            result: CallResult {
                content,
                is_error,
                shortened: false,
                structured_content: None,
            },
            duration_ms: 1,
        }))
    }

    #[test]
    fn results_follow_their_calls_in_call_order_and_a_lost_one_is_said() {
        let offered = UserMessage {
            tools: vec![("s".into(), "x".into())],
            attachments: Vec::new(),
            sent: None,
        };
        let messages = [
            stored(1, Role::User, "hi", Some(MessageData::User(offered))),
            stored(2, Role::Assistant, "", calls(&["a", "b", "c"])),
            stored(3, Role::Tool, "B", result("b", false, Vec::new())),
            stored(4, Role::Notice, "a notice", None),
            stored(
                5,
                Role::Tool,
                "A",
                result(
                    "a",
                    true,
                    vec![
                        json!({"type": "text", "text": "A"}),
                        json!({"type": "image", "mimeType": "image/png", "data": PNG}),
                    ],
                ),
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

    /// Conversations stored before calls had Wharf's own ids hold the provider's, which may repeat: a result is
    /// only ever given to a call of the reply it followed, and to one call only.
    #[test]
    fn a_repeated_provider_id_keeps_each_result_with_its_own_call() {
        let messages = [
            stored(1, Role::User, "one", None),
            stored(2, Role::Assistant, "", calls(&["c1", "c1"])),
            stored(3, Role::Tool, "first", result("c1", false, Vec::new())),
            stored(4, Role::Tool, "second", result("c1", false, Vec::new())),
            stored(5, Role::Assistant, "done", None),
            stored(6, Role::User, "two", None),
            stored(7, Role::Assistant, "", calls(&["c1"])),
        ];
        let contents: Vec<String> = turn_messages(&messages, false)
            .iter()
            .filter_map(|m| match m {
                TurnMessage::ToolResult { content, .. } => Some(content.clone()),
                _ => None,
            })
            .collect();
        // The later reply's call, whose result was never stored, is not given an earlier reply's.
        assert_eq!(contents, ["first", "second", NO_OUTCOME]);
        assert_eq!(next_call_number(&messages), 4);
        assert_eq!(call_id_for(4), "c4");
    }

    /// A tool message whose data is no call (a newer Wharf's, or damaged) answers no call: the model is told the
    /// call's outcome is unknown rather than given a result that may be another's.
    #[test]
    fn a_tool_message_of_unknown_data_answers_no_call() {
        let unknown = MessageData::read(Role::Tool, json!({"id": "a", "result": "?"}));
        assert!(
            matches!(unknown, MessageData::Unknown { .. }),
            "{unknown:?}"
        );
        let messages = [
            stored(1, Role::Assistant, "", calls(&["a"])),
            stored(2, Role::Tool, "looks like a's", Some(unknown)),
        ];
        assert_eq!(
            turn_messages(&messages, false)[1],
            TurnMessage::ToolResult {
                call_id: "a".into(),
                content: NO_OUTCOME.into(),
                is_error: true,
                images: Vec::new(),
            }
        );
    }
}
