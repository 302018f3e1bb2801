//! What a stored message holds besides its text, by kind: the user's message with the tools offered and what was
//! attached, the summary a carried-on conversation starts with, the model's reply with its tool calls, a tool call
//! with how it was decided and what came back, and Wharf's notice of the tools the model was not offered.
//!
//! The `data` column keeps the kind's own JSON, untagged, exactly as every Wharf has written it: the message's role
//! says which kinds it can be, and its shape which one it is. What is none of them (a newer Wharf's, or a damaged
//! row) is kept as it was read and shown as a message without data; a conversation is never hidden by a row it
//! cannot read. To the window each kind is tagged (`kind`).

use rmcp::model::JsonObject;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::Role;
use crate::model::ToolCall;
use crate::protocol::ToolResult;
use crate::question::tool_call::{CallDecision, GrantKind};

/// What a message holds besides its text.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[ts(export)]
pub enum MessageData {
    /// The user's message (role `user`).
    User(UserMessage),
    /// The first message of a conversation carried on from another (role `user`): the summary it goes on from.
    Summary(SummaryStart),
    /// The model's reply that made tool calls (role `assistant`).
    Reply(ReplyCalls),
    /// One tool call of a reply (role `tool`).
    ToolCall(ToolCallRecord),
    /// Wharf's notice that some of the servers' tools were not offered to the model (role `notice`).
    ToolsLeftOut(LeftOutNotice),
    /// Data of no kind this Wharf writes, kept as it was read.
    Unknown { stored: Value },
}

/// The user's message: the tools the model was offered with it and, when something was attached, what.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct UserMessage {
    /// Each tool offered, as (server, tool): a tool offered later and not among them is marked new on its card.
    pub tools: Vec<(String, String)>,
    /// The chips of what was attached, as the thread shows them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<AttachedChip>>", optional)]
    pub attachments: Vec<AttachedChip>,
    /// What the model was sent, when it differs from the user's words: those with the attachments' text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub sent: Option<String>,
}

/// The summary that starts a conversation carried on from another.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SummaryStart {
    /// The conversation it continues.
    pub continues: String,
}

/// The tool calls of a model's reply, as the model wrote them (each under Wharf's own id).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ReplyCalls {
    pub tool_calls: Vec<ToolCall>,
}

/// What the model was not offered, by server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LeftOutNotice {
    pub tools_left_out: Vec<ToolsLeftOut>,
}

/// One tool call of a reply, with how it was decided and what came back: kept in the conversation, and in
/// `wharf chat`'s output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ToolCallRecord {
    /// The call's id in its conversation, Wharf's own (`c1`, `c2`, ...): what its result is matched by. Calls kept
    /// before Wharf gave its own ids hold the provider's.
    pub id: String,
    /// The id the provider gave the call, for reference (not kept before Wharf gave its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model_id: Option<String>,
    /// The server, when the model named a tool that was offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub server: Option<String>,
    /// The tool's name on its server (or the name the model wrote, for a tool that was not offered).
    pub tool: String,
    /// What was sent (the user's edit, if any), or what the model wrote when it could not be read.
    pub arguments: Value,
    pub decision: CallDecision,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub grant: Option<GrantKind>,
    /// The decision (and grant) in words a user knows; the codes stay beside it. Calls kept before the words were
    /// kept have none: they are worked out again from the codes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub decided: Option<String>,
    pub result: CallResult,
    #[ts(type = "number")]
    pub duration_ms: u64,
}

/// The outcome of a call as the turn's output and the stored conversation give it: the server's content blocks and
/// whether the tool reported an error, or Wharf's words for a call that was not made or failed on the way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "ChatToolResult")]
pub struct CallResult {
    /// The server's content blocks as it sent them: open data, read by the result's view.
    #[ts(type = "unknown[]")]
    pub content: Vec<Value>,
    pub is_error: bool,
    /// The server's content was too large to keep: `content` holds the text the model was given instead.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(as = "Option<bool>", optional)]
    pub shortened: bool,
    /// The server's `structuredContent`, kept with the content (calls kept before it was kept have none): what a
    /// tool's view reads its result from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "unknown")]
    pub structured_content: Option<Box<Value>>,
}

impl CallResult {
    /// Wharf's own words: a refused, denied, cancelled or failed call.
    pub fn said(text: &str) -> CallResult {
        CallResult {
            content: vec![json!({"type": "text", "text": text})],
            is_error: true,
            shortened: false,
            structured_content: None,
        }
    }

    /// The result as a server's `tools/call` result, for what reads one (the result's view, the text and images the
    /// model is given).
    pub(crate) fn as_tool_result(&self) -> ToolResult {
        let mut sent = json!({"content": self.content, "isError": self.is_error});
        if let (Some(structured), Some(object)) = (&self.structured_content, sent.as_object_mut()) {
            object.insert("structuredContent".into(), structured.as_ref().clone());
        }
        ToolResult::read(sent)
    }
}

/// The tools of one server that the model is not offered, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ToolsLeftOut {
    pub server: String,
    /// How many of its tools the model is offered.
    pub offered: u32,
    /// How many it lists (a name listed twice counted once).
    pub listed: u32,
    pub reason: LeftOutReason,
    /// The first tools left out, in the server's order: a few at most, each shown on one line.
    pub tools: Vec<String>,
}

wire_codes! {
    /// Why some of a server's tools were not offered to the model.
    #[derive(serde::Deserialize)]
    pub enum LeftOutReason {
        /// The servers listed more tools than one request offers, and this one more than its equal share.
        OverShare = "over_share",
    }
}

/// What the user attaches to a message: a server's resource, a server's prompt with its arguments, or what a tool's
/// view told the model (MCP Apps' model context), which the user kept as a chip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[ts(export)]
pub enum Attachment {
    Resource {
        server: String,
        uri: String,
    },
    Prompt {
        server: String,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional, type = "Record<string, string>")]
        arguments: Option<JsonObject>,
    },
    /// The latest context the view `view` of `tool` gave for the model; a newer one from the same view replaces it.
    ViewContext {
        server: String,
        tool: String,
        view: String,
        text: String,
    },
}

impl Attachment {
    /// The server the attachment comes from.
    pub fn server(&self) -> &str {
        match self {
            Attachment::Resource { server, .. }
            | Attachment::Prompt { server, .. }
            | Attachment::ViewContext { server, .. } => server,
        }
    }
}

/// An attachment as read: what the thread shows of it (the chip), kept with the message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AttachedChip {
    pub attachment: Attachment,
    /// Characters given to the model.
    #[ts(type = "number")]
    pub chars: u64,
    /// The content was cut to fit what one attachment may give the model.
    pub truncated: bool,
}

impl MessageData {
    /// The data kept with a message of `role`, read as the kind it is; what is no kind a message of that role
    /// holds is kept as it was read.
    pub(crate) fn read(role: Role, stored: Value) -> MessageData {
        let read = match role {
            Role::User => kind(&stored)
                .map(MessageData::User)
                .or_else(|| kind(&stored).map(MessageData::Summary)),
            Role::Assistant => kind(&stored).map(MessageData::Reply),
            Role::Tool => kind(&stored).map(MessageData::ToolCall),
            Role::Notice => kind(&stored).map(MessageData::ToolsLeftOut),
        };
        read.unwrap_or(MessageData::Unknown { stored })
    }

    /// The JSON the `data` column keeps: the kind's own, untagged.
    pub(crate) fn stored(&self) -> Value {
        let written = match self {
            MessageData::User(message) => serde_json::to_value(message),
            MessageData::Summary(start) => serde_json::to_value(start),
            MessageData::Reply(calls) => serde_json::to_value(calls),
            MessageData::ToolCall(record) => serde_json::to_value(record),
            MessageData::ToolsLeftOut(notice) => serde_json::to_value(notice),
            MessageData::Unknown { stored } => return stored.clone(),
        };
        // Strings, numbers and JSON values under string keys: nothing in a kind can fail to be written as JSON.
        written.unwrap_or(Value::Null)
    }
}

fn kind<T: DeserializeOwned>(stored: &Value) -> Option<T> {
    T::deserialize(stored).ok()
}

#[cfg(test)]
mod tests;
