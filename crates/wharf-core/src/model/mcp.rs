//! The MCP side of a completion: `CreateMessageRequestParams` read and checked once for every provider, and the
//! `CreateMessageResult` they all build.

use serde_json::{json, Map, Value};

use super::ProviderError;

/// The parts of a request both providers take the same way, read and checked once.
pub(super) struct Common<'a> {
    pub(super) system: Option<&'a str>,
    pub(super) messages: Vec<Message<'a>>,
    pub(super) temperature: Option<&'a Value>,
    pub(super) stop: Vec<&'a str>,
    pub(super) tools: Vec<ToolDef<'a>>,
    /// `auto`, `required` or `none`; only sent with tools (both APIs refuse a choice without tools).
    pub(super) tool_choice: Option<&'a str>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    User,
    Assistant,
}

pub(super) struct Message<'a> {
    pub(super) role: Role,
    pub(super) blocks: Vec<&'a Map<String, Value>>,
}

pub(super) struct ToolDef<'a> {
    pub(super) name: &'a str,
    pub(super) description: Option<&'a str>,
    pub(super) input_schema: Value,
}

pub(super) fn invalid(msg: impl Into<String>) -> ProviderError {
    ProviderError::InvalidParams(msg.into())
}

impl<'a> Common<'a> {
    pub(super) fn read(params: &'a Value) -> Result<Self, ProviderError> {
        let messages = params
            .get("messages")
            .and_then(Value::as_array)
            .ok_or_else(|| invalid("`messages` must be a list"))?
            .iter()
            .map(Message::read)
            .collect::<Result<Vec<_>, _>>()?;
        let system = match params.get("systemPrompt") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.as_str()).filter(|s| !s.is_empty()),
            Some(_) => return Err(invalid("`systemPrompt` must be a string")),
        };
        let temperature = match params.get("temperature") {
            None | Some(Value::Null) => None,
            Some(t) if t.is_number() => Some(t),
            Some(_) => return Err(invalid("`temperature` must be a number")),
        };
        let stop = match params.get("stopSequences") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|s| {
                    s.as_str()
                        .ok_or_else(|| invalid("`stopSequences` must hold strings"))
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(invalid("`stopSequences` must be a list")),
        };
        let tools = match params.get("tools") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => {
                items.iter().map(ToolDef::read).collect::<Result<_, _>>()?
            }
            Some(_) => return Err(invalid("`tools` must be a list")),
        };
        let tool_choice = match params.get("toolChoice") {
            None | Some(Value::Null) => None,
            Some(Value::Object(choice)) => match choice.get("mode") {
                None => Some("auto"),
                Some(Value::String(m)) if matches!(m.as_str(), "auto" | "required" | "none") => {
                    Some(m.as_str())
                }
                Some(other) => {
                    return Err(invalid(format!(
                        "`toolChoice.mode` must be auto, required or none, not {other}"
                    )))
                }
            },
            Some(_) => return Err(invalid("`toolChoice` must be an object")),
        }
        .filter(|_| !tools.is_empty());
        Ok(Common {
            system,
            messages,
            temperature,
            stop,
            tools,
            tool_choice,
        })
    }
}

impl<'a> Message<'a> {
    fn read(message: &'a Value) -> Result<Self, ProviderError> {
        let role = match message.get("role").and_then(Value::as_str) {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            _ => return Err(invalid("each message needs a `role` of user or assistant")),
        };
        let blocks = match message.get("content") {
            Some(Value::Object(block)) => vec![block],
            Some(Value::Array(items)) => items
                .iter()
                .map(|b| {
                    b.as_object()
                        .ok_or_else(|| invalid("a content block must be an object"))
                })
                .collect::<Result<_, _>>()?,
            _ => {
                return Err(invalid(
                    "each message needs `content`: a block or a list of blocks",
                ))
            }
        };
        Ok(Message { role, blocks })
    }
}

impl<'a> ToolDef<'a> {
    fn read(tool: &'a Value) -> Result<Self, ProviderError> {
        let name = tool
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .ok_or_else(|| invalid("each tool needs a `name`"))?;
        Ok(ToolDef {
            name,
            description: tool.get("description").and_then(Value::as_str),
            input_schema: tool
                .get("inputSchema")
                .cloned()
                .unwrap_or_else(|| json!({"type": "object"})),
        })
    }
}

/// A block's string field, or the error naming it.
pub(super) fn field<'a>(
    block: &'a Map<String, Value>,
    key: &str,
) -> Result<&'a str, ProviderError> {
    block.get(key).and_then(Value::as_str).ok_or_else(|| {
        let kind = block
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("content");
        invalid(format!("a `{kind}` block needs a string `{key}`"))
    })
}

pub(super) fn block_type(block: &Map<String, Value>) -> &str {
    block.get("type").and_then(Value::as_str).unwrap_or("")
}

/// An embedded resource's text, when it has text rather than a blob.
pub(super) fn embedded_text(block: &Map<String, Value>) -> Option<&str> {
    block
        .get("resource")
        .and_then(|r| r.get("text"))
        .and_then(Value::as_str)
}

/// A completion's answer, the `CreateMessageResult` that goes back to the server: the assistant's content blocks in
/// MCP's shape (text, image, audio, tool use), the model that wrote them, and why it stopped.
#[derive(Debug, Clone, PartialEq)]
pub struct SampledMessage {
    pub content: Vec<Value>,
    pub model: String,
    pub stop_reason: Option<String>,
}

impl SampledMessage {
    /// A message with no block has one empty text, so that the server always gets content.
    pub(super) fn new(mut content: Vec<Value>, model: &str, stop_reason: Option<String>) -> Self {
        if content.is_empty() {
            content.push(json!({"type": "text", "text": ""}));
        }
        SampledMessage {
            content,
            model: model.to_owned(),
            stop_reason,
        }
    }

    /// The user's edit of the reply: it replaces the first text block, or comes first when there is none.
    pub fn replace_text(&mut self, text: String) {
        let edited = json!({"type": "text", "text": text});
        match self
            .content
            .iter_mut()
            .find(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        {
            Some(block) => *block = edited,
            None => self.content.insert(0, edited),
        }
    }
}

/// As the spec writes it: one block stays a single object (what servers before 2025-11-25 expect), several become a
/// list.
impl serde::Serialize for SampledMessage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("role", "assistant")?;
        match self.content.as_slice() {
            [one] => map.serialize_entry("content", one)?,
            many => map.serialize_entry("content", many)?,
        }
        map.serialize_entry("model", &self.model)?;
        if let Some(reason) = &self.stop_reason {
            map.serialize_entry("stopReason", reason)?;
        }
        map.end()
    }
}

/// The most tokens a completion asks for: `given`, and never more than the request's own `maxTokens`.
pub(super) fn max_tokens(params: &Value, given: u32) -> Result<u32, ProviderError> {
    let requested = params.get("maxTokens").and_then(Value::as_u64);
    let max = requested.map_or(given, |r| given.min(u32::try_from(r).unwrap_or(u32::MAX)));
    if max == 0 {
        return Err(ProviderError::InvalidParams(
            "maxTokens must be at least 1".into(),
        ));
    }
    Ok(max)
}
