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
    /// The messages as the server sent them (text, images, audio, tool use and results).
    pub messages: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model_preferences: Option<Value>,
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
    pub reply: Option<Value>,
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
    /// `{"systemPrompt": "...", "messages": [...], "remember": "session" | "always"}` as a front end sends it. A part
    /// that is not of its type is no edit: the prompt stays as the server wrote it.
    pub(super) fn read(sent: &Value) -> PromptEdits {
        PromptEdits {
            system_prompt: sent
                .get("systemPrompt")
                .and_then(Value::as_str)
                .map(str::to_string),
            messages: sent.get("messages").and_then(Value::as_array).cloned(),
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
