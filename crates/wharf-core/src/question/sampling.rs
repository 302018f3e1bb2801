//! A sampling request as the user reviews it (the prompt first, then the provider's reply), and the preference that
//! decided whether they were asked.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the user chose for a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
#[ts(export, rename = "SamplingPolicy")]
pub enum Policy {
    #[default]
    Ask,
    Allow,
    Deny,
}

/// What the review dialog shows.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SamplingView {
    pub stage: SamplingStage,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub system_prompt: Option<String>,
    /// The messages the server sent (text, images, audio, tool use and results), block by block: `texts` in the
    /// prompt's answer refer to these blocks by their positions.
    pub messages: Vec<SamplingMessage>,
    /// The server's model preferences, when it gave any.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model_preferences: Option<ModelPreferences>,
    /// The model that will be asked.
    pub model: String,
    /// What the provider will be asked for at most (the server's, clamped by the user's limit).
    pub max_tokens: u32,
    /// Names of the tools the model may call.
    pub tools: Vec<String>,
    /// Why the user is asked although they chose before (a changed definition), if so.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub note: Option<String>,
    /// The provider's reply (`CreateMessageResult`), at the reply stage.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reply: Option<SamplingReply>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum SamplingStage {
    /// Send this prompt? (editable)
    Prompt,
    /// Send this reply back to the server? (editable)
    Reply,
}

/// The user's edits of a sampling prompt, each optional, and "remember for this server".
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PromptEdits {
    /// Replaces the request's system prompt.
    pub system_prompt: Option<String>,
    /// Replace the request's messages.
    pub messages: Option<Vec<Value>>,
    /// The new texts of the messages' text blocks, by position (`texts[message][block]`, as `SamplingView` shows
    /// them; none: that block stays): the window's dialog, which never sees the server's JSON, edits so.
    pub texts: Option<Vec<Vec<Option<String>>>>,
    /// Allow the server's requests from now on without asking.
    pub remember: Option<Remember>,
}

/// How long "allow this server" lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Remember {
    /// Until Wharf quits.
    Session,
    /// In the sampling preferences file.
    Always,
}

impl PromptEdits {
    /// `{"systemPrompt": "...", "messages": [...], "texts": [[...]], "remember": "session" | "always"}` as a front end
    /// sends it. A part
    /// that is not of its type is no edit: the prompt stays as the server wrote it.
    pub(super) fn read(sent: &Value) -> PromptEdits {
        PromptEdits {
            system_prompt: sent
                .get("systemPrompt")
                .and_then(Value::as_str)
                .map(str::to_string),
            messages: sent.get("messages").and_then(Value::as_array).cloned(),
            texts: sent
                .get("texts")
                .and_then(|texts| serde_json::from_value(texts.clone()).ok()),
            remember: match sent.get("remember").and_then(Value::as_str) {
                Some("session") => Some(Remember::Session),
                Some("always") => Some(Remember::Always),
                _ => None,
            },
        }
    }
}

/// The text that replaces the model's reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyEdit {
    pub text: String,
}

impl ReplyEdit {
    /// `{"text": "..."}` as a front end sends it; without a text, the reply goes as the model wrote it.
    pub(super) fn read(sent: &Value) -> Option<ReplyEdit> {
        let text = sent.get("text").and_then(Value::as_str)?;
        Some(ReplyEdit {
            text: text.to_string(),
        })
    }
}

/// One message of the prompt.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct SamplingMessage {
    /// `user` or `assistant`; `?` when the server gave none.
    pub role: String,
    pub blocks: Vec<SamplingBlock>,
}

/// One block of a message or of the reply.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum SamplingBlock {
    Text {
        text: String,
    },
    /// `url`: a `data:` URL when the type is an image type and the data is base64; none otherwise.
    Image {
        mime_type: String,
        url: Option<String>,
        #[ts(type = "number")]
        bytes: u64,
    },
    Audio {
        mime_type: String,
        url: Option<String>,
        #[ts(type = "number")]
        bytes: u64,
    },
    /// A tool call of an earlier turn; `input` is its arguments as indented JSON.
    ToolUse {
        name: String,
        id: String,
        input: String,
    },
    ToolResult {
        tool_use_id: String,
        is_error: bool,
        content: Vec<SamplingBlock>,
    },
    /// Anything else, as indented JSON; `kind` is its `type` as sent, empty when it has none (or is no object).
    Other {
        kind: String,
        json: String,
    },
}

/// The server's `modelPreferences`: the names it hinted at and the priorities it gave.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct ModelPreferences {
    pub hints: Vec<String>,
    pub priorities: Vec<Priority>,
}

/// One of the cost, speed and intelligence priorities (0 to 1, as the server gave it).
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct Priority {
    pub name: String,
    pub value: f64,
}

/// The provider's reply.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SamplingReply {
    /// The model that answered, if the reply says.
    pub model: Option<String>,
    pub stop_reason: Option<String>,
    pub role: Option<String>,
    pub blocks: Vec<SamplingBlock>,
}

fn text(json: &Value, key: &str) -> Option<String> {
    json.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn pretty(json: &Value) -> String {
    serde_json::to_string_pretty(json).unwrap_or_default()
}

/// A `type/subtype` media type of `kind` (`image` or `audio`), with no parameters: nothing that could break out of a
/// `data:` URL.
fn is_media_type(mime_type: &str, kind: &str) -> bool {
    let Some((top, sub)) = mime_type.split_once('/') else {
        return false;
    };
    let mut sub = sub.chars();
    top.eq_ignore_ascii_case(kind)
        && sub.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && sub.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-'))
}

/// `data:MIME;base64,DATA` when the block is what it says it is.
fn data_url(mime_type: &str, data: &str, kind: &str) -> Option<String> {
    let clean: String = data.chars().filter(|c| !c.is_whitespace()).collect();
    let body = clean.trim_end_matches('=');
    let base64 = !body.is_empty()
        && clean.len() - body.len() <= 2
        && body
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '/');
    (is_media_type(mime_type, kind) && base64).then(|| format!("data:{mime_type};base64,{clean}"))
}

/// One block, whatever the server sent: what is not a block the dialog knows is shown as its JSON.
fn block(json: &Value) -> SamplingBlock {
    let kind = json.get("type").and_then(Value::as_str).unwrap_or_default();
    match kind {
        "text" => SamplingBlock::Text {
            text: text(json, "text").unwrap_or_default(),
        },
        "image" | "audio" => {
            let mime_type = text(json, "mimeType").unwrap_or_default();
            let data = text(json, "data").unwrap_or_default();
            let url = data_url(&mime_type, &data, kind);
            let bytes = crate::protocol::base64_size(&data);
            if kind == "image" {
                SamplingBlock::Image {
                    mime_type,
                    url,
                    bytes,
                }
            } else {
                SamplingBlock::Audio {
                    mime_type,
                    url,
                    bytes,
                }
            }
        }
        "tool_use" => SamplingBlock::ToolUse {
            name: text(json, "name").unwrap_or_default(),
            id: text(json, "id").unwrap_or_default(),
            input: match json.get("input") {
                None | Some(Value::Null) => "{}".into(),
                Some(input) => pretty(input),
            },
        },
        "tool_result" => SamplingBlock::ToolResult {
            tool_use_id: text(json, "toolUseId").unwrap_or_default(),
            is_error: json.get("isError") == Some(&Value::Bool(true)),
            content: blocks(json.get("content")),
        },
        other => SamplingBlock::Other {
            kind: other.into(),
            json: pretty(json),
        },
    }
}

/// A message's or a reply's `content`: one block or a list of them.
fn blocks(content: Option<&Value>) -> Vec<SamplingBlock> {
    match content {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.iter().map(block).collect(),
        Some(one) => vec![block(one)],
    }
}

/// The request's `messages`; a message that is not an object is one block of its own.
pub(crate) fn messages(messages: Option<&Value>) -> Vec<SamplingMessage> {
    let items = match messages {
        Some(Value::Array(items)) => items.as_slice(),
        _ => &[],
    };
    items
        .iter()
        .map(|message| match message {
            Value::Object(_) => SamplingMessage {
                role: text(message, "role").unwrap_or_else(|| "?".into()),
                blocks: blocks(message.get("content")),
            },
            other => SamplingMessage {
                role: "?".into(),
                blocks: vec![block(other)],
            },
        })
        .collect()
}

/// The request's `modelPreferences`: none when it names no model and gives no priority.
pub(crate) fn model_preferences(preferences: Option<&Value>) -> Option<ModelPreferences> {
    let preferences = preferences.filter(|p| p.is_object())?;
    let hints: Vec<String> = match preferences.get("hints") {
        Some(Value::Array(hints)) => hints.iter().filter_map(|h| text(h, "name")).collect(),
        _ => Vec::new(),
    };
    let priorities: Vec<Priority> = [
        ("cost", "costPriority"),
        ("speed", "speedPriority"),
        ("intelligence", "intelligencePriority"),
    ]
    .into_iter()
    .filter_map(|(name, key)| {
        preferences
            .get(key)
            .and_then(Value::as_f64)
            .map(|value| Priority {
                name: name.into(),
                value,
            })
    })
    .collect();
    (!hints.is_empty() || !priorities.is_empty()).then_some(ModelPreferences { hints, priorities })
}

/// The provider's answer, as the server would get it: the assistant's blocks, its model, why it stopped.
pub(crate) fn reply(content: &[Value], model: &str, stop_reason: Option<&str>) -> SamplingReply {
    SamplingReply {
        model: Some(model.to_owned()),
        stop_reason: stop_reason.map(str::to_owned),
        role: Some("assistant".into()),
        blocks: content.iter().map(block).collect(),
    }
}

#[cfg(test)]
mod tests;
