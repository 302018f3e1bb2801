//! A stored conversation as the app's thread shows it: each message as kept, and each tool call's result shaped as
//! the Tools screen shows a result (images, resource links, embedded resources, structured content, cuts), so the
//! window renders a model's call and the user's own with the same view and never reads a server's content itself.
//! The `wharf` command prints the stored messages unchanged.

use serde::Serialize;

use super::tool_result::{tool_result_view, ToolResultView};
use crate::conversations::{MessageData, StoredMessage};
use crate::protocol::{ContentBlock, ToolResult};

/// One message of the thread.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ThreadMessage {
    #[serde(flatten)]
    #[ts(flatten)]
    pub message: StoredMessage,
    /// A tool call's result (a `tool` message that holds the call), shaped for the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub result_view: Option<ToolResultView>,
    /// The same result as plain text: its text blocks as they are, every other block named by its type.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub result_text: Option<String>,
    /// How a tool call was decided, in words a user knows (worked out again from the kept codes, so calls kept
    /// before the words were kept say them too).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub decided: Option<String>,
}

/// The messages with each tool call's result shaped.
pub fn thread_messages(messages: Vec<StoredMessage>) -> Vec<ThreadMessage> {
    messages
        .into_iter()
        .map(|message| {
            let result = match &message.data {
                Some(MessageData::ToolCall(record)) => Some(record.result.as_tool_result()),
                _ => None,
            };
            let decided = match &message.data {
                Some(MessageData::ToolCall(record)) => {
                    Some(record.decision.words(record.grant).to_string())
                }
                _ => None,
            };
            ThreadMessage {
                message,
                result_view: result.as_ref().map(tool_result_view),
                result_text: result.as_ref().map(result_text),
                decided,
            }
        })
        .collect()
}

/// A result's content as text: text blocks as they are, anything else as `[its type, its media type]`.
fn result_text(result: &ToolResult) -> String {
    let named = |kind: &str, mime_type: Option<&String>| match mime_type {
        Some(mime_type) => format!("[{kind}, {mime_type}]"),
        None => format!("[{kind}]"),
    };
    result
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text { text, .. } => text.clone(),
            ContentBlock::Image(image) => named("image", image.mime_type.as_ref()),
            ContentBlock::Audio(audio) => named("audio", audio.mime_type.as_ref()),
            ContentBlock::Resource { .. } => named("resource", None),
            ContentBlock::ResourceLink(link) => named("resource_link", link.mime_type.as_ref()),
            ContentBlock::Unknown(block) if block.kind.is_empty() => named("content", None),
            ContentBlock::Unknown(block) => named(&block.kind, None),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversations::Role;
    use crate::view::content::MessageBlock;
    use serde_json::json;

    /// A message with its data as the database keeps it.
    fn message(role: Role, data: Option<serde_json::Value>) -> StoredMessage {
        StoredMessage::at(1, role, "t", data.map(|d| MessageData::read(role, d)))
    }

    #[test]
    fn a_tool_call_s_result_is_shaped_as_the_tools_screen_shows_it() {
        let record = json!({
            "id": "c1", "server": "demo", "tool": "picture", "arguments": {}, "decision": "allow_once",
            "durationMs": 3,
            "result": {"isError": false, "content": [
                {"type": "text", "text": "a picture"},
                {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
                {"type": "resource_link", "uri": "demo://readme", "name": "readme"}
            ]}
        });
        let shaped = thread_messages(vec![
            message(Role::User, Some(json!({"tools": []}))),
            message(Role::Tool, Some(record.clone())),
            message(Role::Tool, None),
        ]);
        assert_eq!(shaped[0].result_view, None);
        assert_eq!(shaped[2].result_view, None);
        let view = shaped[1].result_view.as_ref().expect("a view");
        assert_eq!(
            view,
            &tool_result_view(&ToolResult::read(record["result"].clone()))
        );
        assert!(
            matches!(view.blocks[1], MessageBlock::Image { .. }),
            "{view:?}"
        );
        assert!(
            matches!(view.blocks[2], MessageBlock::ResourceLink { .. }),
            "{view:?}"
        );
        // The message goes to the window as it is kept, with the view beside it.
        assert_eq!(
            shaped[1].result_text.as_deref(),
            Some("a picture\n[image, image/png]\n[resource_link]")
        );
        let wire = serde_json::to_value(&shaped[1]).expect("JSON");
        let mut tagged = json!({"kind": "tool_call"});
        tagged
            .as_object_mut()
            .expect("an object")
            .extend(record.as_object().expect("an object").clone());
        assert_eq!(wire["data"], tagged);
        assert_eq!(wire["role"], "tool");
        assert_eq!(wire["resultView"]["blocks"][0]["kind"], "text");
    }

    #[test]
    fn a_kept_call_says_how_it_was_decided_in_words_and_never_a_code() {
        let call = |decision: serde_json::Value, grant: Option<&str>| {
            let mut data = json!({"id": "c1", "tool": "t", "arguments": {}, "decision": decision,
                                  "result": {"content": [], "isError": false}, "durationMs": 1});
            if let Some(grant) = grant {
                data["grant"] = json!(grant);
            }
            let shaped = thread_messages(vec![message(Role::Tool, Some(data))]);
            shaped[0].decided.clone()
        };
        assert_eq!(
            call(json!("granted"), Some("server_allow")).as_deref(),
            Some("allowed: this server is set to Allow")
        );
        assert_eq!(
            call(json!("granted"), Some("conversation")).as_deref(),
            Some("allowed: you allowed it for this conversation")
        );
        assert_eq!(
            call(json!("allow_conversation"), None).as_deref(),
            Some("allowed by you for this conversation")
        );
        assert_eq!(call(json!("deny"), None).as_deref(), Some("denied by you"));
        // Codes Wharf never writes make no call it kept: nothing to word.
        assert_eq!(call(json!("allowed by the server"), None), None);
        assert_eq!(call(json!("granted"), Some("root")), None);

        let codes = kept_codes();
        for decision in [
            "allow_once",
            "allow_conversation",
            "allow_always",
            "deny",
            "granted",
            "refused",
        ] {
            for grant in [
                None,
                Some("conversation"),
                Some("always"),
                Some("server_allow"),
                Some("trusted_read_only"),
            ] {
                let words = call(json!(decision), grant).expect("worded");
                assert!(
                    !codes.iter().any(|code| words.contains(code)),
                    "{decision} {grant:?}: {words}"
                );
            }
        }
    }

    /// The codes kept in the JSON, none of which a user should have to read.
    fn kept_codes() -> [&'static str; 7] {
        [
            "granted",
            "server_allow",
            "trusted_read_only",
            "allow_once",
            "allow_always",
            "allow_conversation",
            "refused",
        ]
    }
}
