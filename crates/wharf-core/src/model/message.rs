//! A chat request as every provider takes it: the conversation in one form (`TurnMessage`), the tools offered, the
//! model and its limits. Each provider's file writes it in its own shape, so one conversation can move between
//! providers.

use serde_json::Value;

use super::ToolCall;

/// One message of the conversation as the model is given it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnMessage {
    User(String),
    /// The model's own earlier reply: its text, and the tool calls it made.
    Assistant {
        text: String,
        tool_calls: Vec<ToolCall>,
    },
    /// The outcome of one tool call: the server's result, or why it was not made (`is_error`), and the result's
    /// images for a model that takes them.
    ToolResult {
        call_id: String,
        content: String,
        is_error: bool,
        images: Vec<ModelImage>,
    },
}

/// An image of a tool's result, as a provider takes it: one of the types every provider reads, base64.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelImage {
    pub mime_type: String,
    pub data: String,
}

impl ModelImage {
    pub(super) fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.mime_type, self.data)
    }
}

/// One tool as a model is offered it: the name the model calls it by, what it does, and its arguments' schema.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec<'a> {
    pub name: &'a str,
    pub description: String,
    pub input_schema: &'a Value,
}

/// One request of a conversation: the model, the system prompt, the most tokens the reply may take, the messages so
/// far and the tools offered.
#[derive(Debug, Clone, Copy)]
pub struct ChatRequest<'a> {
    pub model: &'a str,
    pub system: Option<&'a str>,
    pub max_tokens: u32,
    pub messages: &'a [TurnMessage],
    pub tools: &'a [ToolSpec<'a>],
}
