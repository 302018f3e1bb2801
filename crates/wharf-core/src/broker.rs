//! The input broker: every server-to-user request, whatever the era or the wire, goes through here.
//!
//! ```text
//! legacy request | MRTR inputRequest -> InputRequest -> capability + policy -> UserAgent -> InputAnswer -> wire
//! ```
//! Capabilities are declared exactly: a kind Wharf did not declare is refused here, before any user sees it.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::events::AnswerAction;

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
    /// Wharf's own question too: may the model's call of a tool be sent? Accept carries a [`ToolCallAnswer`]
    /// (the chat loop's approval); decline and cancel deny the call.
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
        form: crate::elicitation::form::FormSpec,
        /// `credential_field:<name>` for each field that looks like it asks for a secret.
        warnings: Vec<String>,
    },
    Url {
        message: String,
        // Boxed: a review is several times the size of the other variant.
        review: Box<crate::elicitation::url_check::UrlReview>,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        elicitation_id: Option<String>,
        phase: crate::elicitation::url_check::UrlPhase,
    },
    /// A sampling request to review: the prompt first, then the provider's reply.
    Sampling(Box<crate::sampling::view::SamplingView>),
    /// A model's tool call to approve: the server, the tool as it is defined now, the arguments, what changed.
    ToolCall(Box<crate::approval::card::ToolCallView>),
}

/// The user's answer. `Accept` carries what goes back (form content, a sampling reply...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "action", rename_all = "lowercase")]
#[ts(export)]
pub enum InputAnswer {
    Accept {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        content: Option<Value>,
    },
    Decline,
    Cancel,
}

impl InputAnswer {
    /// The answer's name in events: accept, decline or cancel.
    pub fn action(&self) -> AnswerAction {
        match self {
            InputAnswer::Accept { .. } => AnswerAction::Accept,
            InputAnswer::Decline => AnswerAction::Decline,
            InputAnswer::Cancel => AnswerAction::Cancel,
        }
    }
}

/// Whatever stands for the user: the app's dialogs, terminal prompts, or scripted answers in tests.
pub trait UserAgent: Send + Sync {
    fn answer(&self, request: InputRequest) -> BoxFuture<'_, InputAnswer>;

    /// Roots are not a question to the user (they follow the server's preference), but a scripted user may refuse
    /// them for a run: `Some(Decline)` gives the server an empty list.
    fn roots_override(&self, _server: &str) -> Option<InputAnswer> {
        None
    }
}

/// Which server-to-user requests Wharf declares. Each feature issue turns its kind on when it is served end to end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeclaredCapabilities {
    pub roots: bool,
    pub elicitation_form: bool,
    pub elicitation_url: bool,
    pub sampling: bool,
    /// `sampling.tools`: requests may offer the model tools (the providers pass them on).
    pub sampling_tools: bool,
}

impl DeclaredCapabilities {
    /// Everything Wharf serves end to end today: what the app and `wharf` declare.
    pub const SERVED: DeclaredCapabilities = DeclaredCapabilities {
        roots: true,
        elicitation_form: true,
        elicitation_url: true,
        // Sampling is declared only when a provider is configured: see `with_sampling`.
        sampling: false,
        sampling_tools: false,
    };

    /// Sampling declared too, with tools (the providers pass them on): for a host that serves it.
    pub const fn with_sampling(mut self) -> Self {
        self.sampling = true;
        self.sampling_tools = true;
        self
    }

    pub fn declares(&self, kind: InputKind) -> bool {
        match kind {
            InputKind::Roots => self.roots,
            InputKind::ElicitationForm => self.elicitation_form,
            InputKind::ElicitationUrl => self.elicitation_url,
            InputKind::Sampling => self.sampling,
            // The user's own questions: nothing a server could have been told about.
            InputKind::PathOutside | InputKind::ToolCall => true,
        }
    }
}

/// Why a request never reached the user.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BrokerRefusal {
    #[error("{} is not a capability Wharf declared", .0.as_str())]
    Undeclared(InputKind),
}

impl BrokerRefusal {
    /// The JSON-RPC error the spec names for a legacy request of an undeclared kind.
    pub fn jsonrpc_code(&self) -> i32 {
        match self {
            // roots.mdx: "Client does not support roots: -32601"; sampling is a method we do not offer either.
            BrokerRefusal::Undeclared(
                InputKind::Roots
                | InputKind::Sampling
                | InputKind::PathOutside
                | InputKind::ToolCall,
            ) => -32601,
            // elicitation.mdx: a mode not declared in client capabilities gets -32602.
            BrokerRefusal::Undeclared(InputKind::ElicitationForm | InputKind::ElicitationUrl) => {
                -32602
            }
        }
    }
}

#[derive(Clone)]
pub struct Broker {
    pub capabilities: DeclaredCapabilities,
    agent: Arc<dyn UserAgent>,
}

impl Broker {
    pub fn new(capabilities: DeclaredCapabilities, agent: Arc<dyn UserAgent>) -> Self {
        Broker {
            capabilities,
            agent,
        }
    }

    /// The same broker with other capabilities declared (a server whose preference turns elicitation off).
    pub fn with_capabilities(&self, capabilities: DeclaredCapabilities) -> Self {
        Broker {
            capabilities,
            ..self.clone()
        }
    }

    pub fn roots_override(&self, server: &str) -> Option<InputAnswer> {
        self.agent.roots_override(server)
    }

    pub async fn ask(&self, request: InputRequest) -> Result<InputAnswer, BrokerRefusal> {
        if !self.capabilities.declares(request.kind) {
            return Err(BrokerRefusal::Undeclared(request.kind));
        }
        Ok(self.agent.answer(request).await)
    }
}

impl std::fmt::Debug for Broker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Broker")
            .field("capabilities", &self.capabilities)
            .finish()
    }
}

/// Declines everything: what a non-interactive `wharf` without `--answers` does (and says so on stderr).
pub struct DeclineAll;

impl UserAgent for DeclineAll {
    fn answer(&self, request: InputRequest) -> BoxFuture<'_, InputAnswer> {
        tracing::warn!(
            server = %request.server,
            kind = request.kind.as_str(),
            "no terminal and no --answers file: declined"
        );
        Box::pin(async { InputAnswer::Decline })
    }
}

mod queue;
mod scripted;
pub use queue::{InputResolved, PendingInput, QuestionQueue, QueueEvent};
pub use scripted::{AnswersError, ScriptError, ScriptedAgent};

#[cfg(test)]
mod tests {
    use super::*;

    fn request(kind: InputKind) -> InputRequest {
        InputRequest {
            server: "s".into(),
            kind,
            cause: None,
            origin: None,
            params: Value::Null,
            view: None,
        }
    }

    #[tokio::test]
    async fn scripted_answers_are_consumed_in_order_and_the_last_repeats() {
        let agent = ScriptedAgent::parse(
            r#"{"elicitation_form": [{"action": "accept", "content": {"n": 1}}, {"action": "cancel"}],
                "sampling": {"action": "decline"}}"#,
        )
        .unwrap();
        let form = || agent.answer(request(InputKind::ElicitationForm));
        assert_eq!(
            form().await,
            InputAnswer::Accept {
                content: Some(serde_json::json!({"n": 1}))
            }
        );
        assert_eq!(form().await, InputAnswer::Cancel);
        assert_eq!(form().await, InputAnswer::Cancel);
        assert_eq!(
            agent.answer(request(InputKind::Sampling)).await,
            InputAnswer::Decline
        );
        assert_eq!(
            agent.answer(request(InputKind::ElicitationUrl)).await,
            InputAnswer::Decline
        );
    }

    #[test]
    fn bad_answers_files_are_clear_errors() {
        let refused = |text: &str| match ScriptedAgent::parse(text) {
            Ok(_) => panic!("{text} was accepted"),
            Err(e) => e,
        };
        let unknown = refused(r#"{"elicitation": {"action": "accept"}}"#);
        assert!(matches!(&unknown, ScriptError::UnknownKind(k) if k == "elicitation"));
        assert_eq!(unknown.to_string(), "unknown request kind \"elicitation\"");
        let bad = refused(r#"{"sampling": {"action": "maybe"}}"#);
        assert!(matches!(&bad, ScriptError::Answer { kind, .. } if kind == "sampling"));
        assert!(bad.to_string().starts_with("\"sampling\": "), "{bad}");
        assert!(matches!(refused("[1]"), ScriptError::NotAnObject));
        assert!(matches!(
            refused(r#"{"elicitation_form": {"action": "accept", "edit_reply": "x"}}"#),
            ScriptError::EditReplyOutsideSampling { .. }
        ));
        assert!(matches!(
            refused(r#"{"sampling": {"action": "accept", "edit_reply": 3}}"#),
            ScriptError::EditReplyNotText { .. }
        ));
    }

    #[tokio::test]
    async fn undeclared_kinds_never_reach_the_user() {
        let broker = Broker::new(
            DeclaredCapabilities::default(),
            Arc::new(ScriptedAgent::default()),
        );
        let refusal = broker.ask(request(InputKind::Roots)).await.unwrap_err();
        assert_eq!(refusal.jsonrpc_code(), -32601);
        let refusal = broker
            .ask(request(InputKind::ElicitationForm))
            .await
            .unwrap_err();
        assert_eq!(refusal.jsonrpc_code(), -32602);
    }
}
