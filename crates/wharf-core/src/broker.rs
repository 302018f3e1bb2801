//! The input broker: every server-to-user request, whatever the era or the wire, goes through here.
//!
//! ```text
//! legacy request | MRTR inputRequest -> InputRequest -> capability + policy -> UserAgent -> InputAnswer -> wire
//! ```
//! Capabilities are declared exactly: a kind Wharf did not declare is refused here, before any user sees it.

use std::sync::Arc;

use futures::future::BoxFuture;

use crate::question::{InputAnswer, InputKind, InputRequest};

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
    /// MCP Apps: tools' views are shown (declared only by a front end that renders them).
    pub apps: bool,
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
        // Views are declared only by a front end that renders them: see `with_apps`.
        apps: false,
    };

    /// Sampling declared too, with tools (the providers pass them on): for a host that serves it.
    pub const fn with_sampling(mut self) -> Self {
        self.sampling = true;
        self.sampling_tools = true;
        self
    }

    /// Tools' views declared too (`io.modelcontextprotocol/ui`): for a front end that renders them.
    pub const fn with_apps(mut self) -> Self {
        self.apps = true;
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
    use crate::question::AnswerContent;
    use serde_json::{json, Value};

    fn request(kind: InputKind) -> InputRequest {
        InputRequest {
            server: "s".into(),
            kind,
            cause: None,
            origin: None,
            params: Value::Null,
            view: None,
            check: None,
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
                content: Some(AnswerContent::Form(
                    json!({"n": 1}).as_object().cloned().unwrap_or_default()
                ))
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
        let not_fields = refused(r#"{"elicitation_form": {"action": "accept", "content": 5}}"#);
        assert!(
            matches!(&not_fields, ScriptError::Content { kind, .. } if kind == "elicitation_form")
        );
        assert_eq!(
            not_fields.to_string(),
            "\"elicitation_form\": the answer must be an object of fields, not 5"
        );
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
