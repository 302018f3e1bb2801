//! The questions Wharf puts to its user, and the answers that come back: plain data shared by the broker that carries
//! them, the features that ask (elicitation, sampling, sign-in, the path check, a model's tool call), the events that
//! report them and the front ends that show them. Nothing here decides or checks: each feature checks the answers to
//! its own questions. It depends on nothing in Wharf but the plain names of `display_text`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

mod answer;
pub mod form;
pub mod sampling;
pub mod tool_call;
pub mod url;

pub use answer::{AnswerAction, AnswerCheck, AnswerContent, FieldProblem, InputAnswer, SentAnswer};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum InputKind {
    Roots,
    ElicitationForm,
    ElicitationUrl,
    Sampling,
    /// Not a server's request but Wharf's own question, asked on the way to one: the user sends a path outside the
    /// open workspace folders to a server whose preference is `"pathArguments": "ask"`. Accept sends it.
    PathOutside,
    /// Wharf's own question too: may the model's call of a tool be sent? Accept carries a
    /// [`tool_call::ToolCallAnswer`] (the chat loop's approval); decline and cancel deny the call.
    ToolCall,
}

impl InputKind {
    pub fn as_str(self) -> &'static str {
        match self {
            InputKind::Roots => "roots",
            InputKind::ElicitationForm => "elicitation_form",
            InputKind::ElicitationUrl => "elicitation_url",
            InputKind::Sampling => "sampling",
            InputKind::PathOutside => "path_outside",
            InputKind::ToolCall => "tool_call",
        }
    }
}

/// One question from a server, with who asks and why.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct InputRequest {
    pub server: String,
    pub kind: InputKind,
    /// The user action that caused it, e.g. "calling tool echo".
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cause: Option<String>,
    /// The call it arose from, as its caller labelled it (a conversation's tool call: `{conversation, call}`), when
    /// Wharf can tell: the call whose round asked, or the only call in flight on the server.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub origin: Option<Value>,
    /// The request's params as the server sent them.
    pub params: Value,
    /// What Wharf made of them for the dialog (the form's fields, the URL's review), when the kind has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub view: Option<InputView>,
    /// How the feature that asks checks what an accepted answer carries, when it does: stays with Wharf.
    #[serde(skip)]
    #[ts(skip)]
    pub check: Option<AnswerCheck>,
}

/// The user action a server's question arose from: words for the dialog ("calling tool echo"), and the label the
/// caller gave the call, so a front end can show the question beside it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cause {
    pub text: String,
    pub origin: Option<Value>,
}

impl From<&str> for Cause {
    fn from(text: &str) -> Cause {
        Cause::new(text, None)
    }
}

impl Cause {
    pub fn new(text: impl Into<String>, origin: Option<Value>) -> Cause {
        Cause {
            text: text.into(),
            origin,
        }
    }
}

/// What the dialog shows besides the server's raw params: Wharf's reading of them, so no front end interprets the
/// protocol.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(tag = "mode", rename_all = "snake_case")]
#[ts(export)]
pub enum InputView {
    Form {
        message: String,
        form: form::FormSpec,
        /// `credential_field:<name>` for each field that looks like it asks for a secret.
        warnings: Vec<String>,
    },
    Url {
        message: String,
        // Boxed: a review is several times the size of the other variant.
        review: Box<url::UrlReview>,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        elicitation_id: Option<String>,
        phase: url::UrlPhase,
    },
    /// A sampling request to review: the prompt first, then the provider's reply.
    Sampling(Box<sampling::SamplingView>),
    /// A model's tool call to approve: the server, the tool as it is defined now, the arguments, what changed.
    ToolCall(Box<tool_call::ToolCallView>),
}
