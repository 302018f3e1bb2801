//! The answers to a user's requests: a tool's result, a prompt, a read resource and a completion.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::content::{ContentBlock, ResourceContents};
use super::read::{as_sent, is_true, items, text};

/// A `tools/call` result. Serializes as the server sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The blocks of `content`; a `content` that is not a list is one unknown block.
    pub content: Vec<ContentBlock>,
    /// `structuredContent`, any JSON (a present `null` included): its shape is the tool's own.
    pub structured_content: Option<Value>,
    /// The tool reported an error (`isError: true`).
    pub is_error: bool,
    sent: Value,
}

impl ToolResult {
    /// Reads a result; one that is not an object is read as a single unknown block.
    pub fn read(sent: Value) -> ToolResult {
        let content = match sent.get("content") {
            _ if !sent.is_object() => vec![ContentBlock::unknown("", &sent)],
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(blocks)) => blocks.iter().map(ContentBlock::read).collect(),
            Some(other) => vec![ContentBlock::unknown("", other)],
        };
        ToolResult {
            content,
            structured_content: sent.get("structuredContent").cloned(),
            is_error: is_true(&sent, "isError"),
            sent,
        }
    }

    /// The blocks of `content` as the server sent them (none when `content` is not a list).
    pub fn content_as_sent(&self) -> &[Value] {
        items(&self.sent, "content")
    }
}

/// A `prompts/get` result. Serializes as the server sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptResult {
    pub description: Option<String>,
    pub messages: Vec<PromptMessage>,
    sent: Value,
}

/// One message of a prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptMessage {
    /// `user` or `assistant` as the protocol has it; whatever the server wrote, if a string.
    pub role: Option<String>,
    /// Its `content`: one block (2025) or a list of them.
    pub content: Vec<ContentBlock>,
}

impl PromptResult {
    pub fn read(sent: Value) -> PromptResult {
        PromptResult {
            description: text(&sent, "description"),
            messages: items(&sent, "messages")
                .iter()
                .map(|message| PromptMessage {
                    role: text(message, "role"),
                    content: ContentBlock::one_or_many(message.get("content")),
                })
                .collect(),
            sent,
        }
    }
}

/// A `resources/read` result. Serializes as the server sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceRead {
    pub contents: Vec<ResourceContents>,
    sent: Value,
}

impl ResourceRead {
    /// The `_meta.ui` of the content item at `index` (also under `meta`, where the Python SDK puts it).
    pub fn item_ui(&self, index: usize) -> Option<super::ResourceUi> {
        let item = items(&self.sent, "contents").get(index)?;
        ["_meta", "meta"]
            .iter()
            .find_map(|key| item.get(*key).and_then(super::ResourceUi::read))
    }

    pub fn read(sent: Value) -> ResourceRead {
        ResourceRead {
            contents: items(&sent, "contents")
                .iter()
                .map(ResourceContents::read)
                .collect(),
            sent,
        }
    }
}

as_sent!(ToolResult, PromptResult, ResourceRead);

macro_rules! read_as_sent {
    ($($kind:ty),+) => {$(
        impl<'de> Deserialize<'de> for $kind {
            /// Reads leniently: any JSON is a result (see `read`).
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                Value::deserialize(deserializer).map(<$kind>::read)
            }
        }
    )+};
}

read_as_sent!(ToolResult, PromptResult, ResourceRead);

/// What a completion is asked for: a prompt's argument or a resource template's variable (`ref/prompt`,
/// `ref/resource`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum CompletionReference {
    #[serde(rename = "ref/prompt")]
    Prompt { name: String },
    #[serde(rename = "ref/resource")]
    ResourceTemplate { uri: String },
}

/// A `completion/complete` answer's `completion`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompletionResult {
    /// As the server ordered them.
    pub values: Vec<CompletionValue>,
    pub total: Option<u64>,
    pub has_more: bool,
}

/// One completion value: text, as the protocol has it, or whatever else the server sent, kept as sent.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum CompletionValue {
    Text(String),
    Other(Value),
}

impl CompletionResult {
    pub fn read(completion: &Value) -> CompletionResult {
        CompletionResult {
            values: items(completion, "values")
                .iter()
                .map(|value| match value {
                    Value::String(text) => CompletionValue::Text(text.clone()),
                    other => CompletionValue::Other(other.clone()),
                })
                .collect(),
            total: completion.get("total").and_then(Value::as_u64),
            has_more: is_true(completion, "hasMore"),
        }
    }

    /// The values that are text.
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.values.iter().filter_map(|value| match value {
            CompletionValue::Text(text) => Some(text.as_str()),
            CompletionValue::Other(_) => None,
        })
    }
}
