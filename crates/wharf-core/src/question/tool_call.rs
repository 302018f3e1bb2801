//! A model's tool call as the user is asked about it: the card (the server, the tool as it is defined now, the
//! arguments, what changed since a grant), the user's answer on it, and how each call was decided, as the events and
//! a stored conversation tell it.

use rmcp::model::JsonObject;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{AnswerContent, InputAnswer};
use crate::display_text::name::ShownName;

/// Why a call was sent without asking (`grant` in a `tool_call` event).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum GrantKind {
    Conversation,
    Always,
    ServerAllow,
    TrustedReadOnly,
}

/// The user's answer on a tool call's card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ToolCallChoice {
    AllowOnce,
    AllowConversation,
    AllowAlways,
    Deny,
}

impl ToolCallChoice {
    pub fn allows(self) -> bool {
        self != ToolCallChoice::Deny
    }
}

/// A part of a pinned definition, as a `tool_call` event's `changes` name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum ToolPart {
    Title,
    Description,
    InputSchema,
    OutputSchema,
    Annotations,
    /// The server's command, arguments or URL.
    Server,
}

/// One part that changed since a grant was given: the text before and after (schemas and annotations as indented
/// JSON), whole, and the lines that differ with a little context around them (`approval/diff.rs`), so that a change
/// deep in a long description is shown where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ToolChange {
    pub part: ToolPart,
    pub before: String,
    pub after: String,
    #[serde(default)]
    pub hunks: Vec<DiffHunk>,
}

/// Whether a line of a diff is in both texts, only before, or only after.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum DiffLineKind {
    Same,
    Removed,
    Added,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct DiffLine {
    pub kind: DiffLineKind,
    /// The line as written, without its line break.
    pub text: String,
}

/// A run of changed lines with the unchanged lines around it, and where it starts in each text (line numbers from
/// 1). Lines between two hunks are the same in both texts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct DiffHunk {
    pub before_line: usize,
    pub after_line: usize,
    pub lines: Vec<DiffLine>,
}

/// How large the arguments are, said before they are shown: the bytes sent (compact JSON), the lines shown
/// (indented JSON) and the keys of every object in them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct ArgumentsSize {
    pub bytes: usize,
    pub lines: usize,
    pub keys: usize,
}

/// What the approval card shows.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ToolCallView {
    pub conversation: String,
    /// The model's id for the call, which the card is attributed to in the thread.
    pub call_id: String,
    pub server: String,
    pub tool: String,
    /// The server's and the tool's names as the app shows them: escaped, and what makes each unusual.
    pub server_shown: ShownName,
    pub tool_shown: ShownName,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    /// The tool's full description as the server wrote it (shown as text, never as markup).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub annotations: Option<crate::protocol::ToolAnnotations>,
    /// Whether the configuration trusts the server: only then do its annotations mean anything.
    pub trusted: bool,
    pub arguments: Value,
    /// The arguments as indented JSON in which every control, bidi and invisible character inside a string is a
    /// `\\u` escape: the same JSON, with nothing hidden in it.
    pub arguments_text: String,
    pub arguments_size: ArgumentsSize,
    /// What edited arguments are checked against before they are sent.
    pub input_schema: Value,
    /// What changed since a grant was given for this tool: the grant is suspended until the user answers.
    pub changes: Vec<ToolChange>,
    /// A trusted server says the tool is destructive: it is asked about every time.
    pub destructive: bool,
    /// The tool was not offered earlier in this conversation.
    pub new_tool: bool,
    pub pin: String,
    /// Who makes the call when it is not the model: a tool's view ("the view of tool x (server y)").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub caller: Option<String>,
}

/// The user's answer on the card: the `tool_call` entry of `--answers`, and what the app sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ToolCallAnswer {
    pub action: ToolCallChoice,
    /// Arguments that replace the model's; checked against the tool's input schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Record<string, unknown>")]
    pub arguments: Option<JsonObject>,
    /// Sent to the model with a denial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reason: Option<String>,
}

impl ToolCallAnswer {
    /// The card's answer as the broker carries it: an accept, whatever the choice (a deny is the user's answer too,
    /// with its reason).
    pub fn into_input_answer(self) -> InputAnswer {
        InputAnswer::Accept {
            content: Some(AnswerContent::ToolCall(self)),
        }
    }
}

/// How a call was decided, as the `tool_call` event and the turn's output name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum CallDecision {
    AllowOnce,
    AllowConversation,
    AllowAlways,
    Deny,
    /// Sent without asking: a grant, the server's `toolApproval: "allow"`, or a trusted read-only tool.
    Granted,
    /// Never offered to anyone: the model named no offered tool, or its arguments were not fit to send.
    Refused,
}

impl CallDecision {
    pub fn sends(self) -> bool {
        !matches!(self, CallDecision::Deny | CallDecision::Refused)
    }

    /// How the call was decided, in words a user knows (never a code): what a stored call and `wharf chat` say
    /// beside the codes.
    pub fn words(self, grant: Option<GrantKind>) -> &'static str {
        match self {
            CallDecision::AllowOnce => "allowed once by you",
            CallDecision::AllowConversation => "allowed by you for this conversation",
            CallDecision::AllowAlways => "allowed by you, always",
            CallDecision::Deny => "denied by you",
            CallDecision::Granted => match grant {
                None => "allowed without asking",
                Some(GrantKind::Conversation) => "allowed: you allowed it for this conversation",
                Some(GrantKind::Always) => "allowed: you chose Always for this tool",
                Some(GrantKind::ServerAllow) => "allowed: this server is set to Allow",
                Some(GrantKind::TrustedReadOnly) => {
                    "allowed: a read-only tool of a server you trust"
                }
            },
            CallDecision::Refused => "not sent: the model's call could not be sent as written",
        }
    }
}
