//! A model's tool call before it is sent: the approval engine decides, and when it says "ask", the user is asked
//! through the broker (one question at a time, in the order the model made the calls) with a card that shows the
//! server, the tool as it is defined now, the arguments to edit and what changed since a grant was given. Every
//! decision is told as a `tool_call` event before the call is sent or refused.

use rmcp::model::JsonObject;
use serde_json::{json, Value};

use super::tools::ModelTool;
use super::vet::{fit_schema, CallRefused};
use crate::approval::pin::{Pinned, ToolPart};
use crate::approval::{Approvals, GrantKind, ServerStance, ToolCallChoice, Verdict};
use crate::broker::Broker;
use crate::display_text::name::{quoted, ShownName};
use crate::display_text::{json as safe_json, one_line};
use crate::events::{EventSink, HostEvent, NoticeCode};
pub use crate::question::tool_call::{ArgumentsSize, CallDecision, ToolCallAnswer, ToolCallView};
use crate::question::{
    AnswerCheck, AnswerContent, FieldProblem, InputAnswer, InputKind, InputRequest, InputView,
};

/// The most of a deny reason the model is sent.
const MAX_REASON_CHARS: usize = 2000;

impl ToolCallAnswer {
    /// The card's answer from the broker's: declining or cancelling the question denies the call, and so does an
    /// accept that carries no card's answer (nothing is sent that the user did not clearly allow).
    pub fn from_input_answer(answer: &InputAnswer) -> ToolCallAnswer {
        let deny = ToolCallAnswer {
            action: ToolCallChoice::Deny,
            arguments: None,
            reason: None,
        };
        match answer {
            InputAnswer::Accept {
                content: Some(AnswerContent::ToolCall(answer)),
            } => answer.clone(),
            _ => deny,
        }
    }

    /// The edited arguments as they will be sent, or why they cannot be.
    pub fn checked_arguments(
        &self,
        view: &ToolCallView,
    ) -> Result<Option<JsonObject>, CallRefused> {
        match &self.arguments {
            None => Ok(None),
            Some(edited) => fit_schema(
                &view.tool,
                &view.input_schema,
                Value::Object(edited.clone()),
            )
            .map(Some),
        }
    }
}

/// The card's check of an answer before it is given back: edited arguments must fit the tool's input schema, so the
/// card can show why before anything is sent.
fn arguments_check(view: ToolCallView) -> AnswerCheck {
    AnswerCheck::new(move |content| match content {
        Some(AnswerContent::ToolCall(answer)) => {
            answer.checked_arguments(&view).map(|_| ()).map_err(|e| {
                vec![FieldProblem {
                    field: "arguments".into(),
                    message: e.to_string(),
                }]
            })
        }
        _ => Ok(()),
    })
}

impl From<ToolCallChoice> for CallDecision {
    fn from(choice: ToolCallChoice) -> CallDecision {
        match choice {
            ToolCallChoice::AllowOnce => CallDecision::AllowOnce,
            ToolCallChoice::AllowConversation => CallDecision::AllowConversation,
            ToolCallChoice::AllowAlways => CallDecision::AllowAlways,
            ToolCallChoice::Deny => CallDecision::Deny,
        }
    }
}

impl ArgumentsSize {
    /// The size of `arguments` as they are sent (compact JSON) and shown (indented JSON, every key counted).
    pub fn of(arguments: &Value) -> ArgumentsSize {
        fn keys(value: &Value) -> usize {
            match value {
                Value::Object(map) => map.len() + map.values().map(keys).sum::<usize>(),
                Value::Array(items) => items.iter().map(keys).sum(),
                _ => 0,
            }
        }
        ArgumentsSize {
            bytes: serde_json::to_string(arguments).map_or(0, |t| t.len()),
            lines: serde_json::to_string_pretty(arguments).map_or(0, |t| t.lines().count()),
            keys: keys(arguments),
        }
    }
}

/// The outcome of the approval of one call.
#[derive(Debug, Clone)]
pub struct Approved {
    pub decision: CallDecision,
    pub grant: Option<GrantKind>,
    /// What is sent: the model's arguments, or the user's edit of them.
    pub arguments: JsonObject,
    /// Why the call is not sent, for the model.
    pub refusal: Option<String>,
}

/// What the approval of one call needs from the turn.
pub struct Approval<'a> {
    pub approvals: &'a Approvals,
    pub broker: &'a Broker,
    pub events: &'a EventSink,
    pub conversation: &'a str,
}

/// One call to approve: the tool the model named, the definition it is pinned to, the server's stance.
pub struct CallToApprove<'a> {
    pub call_id: &'a str,
    pub tool: &'a ModelTool,
    pub pinned: Pinned,
    pub stance: ServerStance,
    pub arguments: JsonObject,
    pub new_tool: bool,
    /// Who makes the call when it is not the model, as the card names it (e.g. "the view of tool x (server y)").
    pub caller: Option<String>,
}

impl Approval<'_> {
    /// Decides the call, asking the user when the engine says so, keeps the grant the user gave, and tells the
    /// decision as a `tool_call` event.
    pub async fn decide(&self, call: CallToApprove<'_>) -> Approved {
        let server = &call.tool.server;
        let pin = call.pinned.pin();
        let verdict = self
            .approvals
            .decide(self.conversation, server, call.stance, &call.pinned);
        let mut changes: Vec<ToolPart> = Vec::new();
        let approved = match verdict {
            Verdict::Granted(grant) => Approved {
                decision: CallDecision::Granted,
                grant: Some(grant),
                arguments: call.arguments.clone(),
                refusal: None,
            },
            Verdict::Refused => Approved {
                decision: CallDecision::Deny,
                grant: None,
                arguments: call.arguments.clone(),
                refusal: Some(format!(
                    "the user's configuration denies every call of the tools of server {}",
                    quoted(server)
                )),
            },
            Verdict::Ask(reason) => {
                changes = reason.changes.iter().map(|c| c.part).collect();
                let arguments = Value::Object(call.arguments.clone());
                let view = ToolCallView {
                    conversation: self.conversation.to_string(),
                    call_id: call.call_id.to_string(),
                    server: server.clone(),
                    tool: call.tool.tool.name.clone(),
                    server_shown: ShownName::of(server),
                    tool_shown: ShownName::of(&call.tool.tool.name),
                    title: call.tool.tool.title.clone(),
                    description: call.tool.tool.description.clone(),
                    annotations: call.tool.tool.annotations.clone(),
                    trusted: call.stance.trusted,
                    arguments_text: safe_json::to_string_pretty(&arguments).unwrap_or_default(),
                    arguments_size: ArgumentsSize::of(&arguments),
                    arguments,
                    input_schema: call.tool.tool.input_schema.clone(),
                    changes: reason.changes,
                    destructive: reason.destructive,
                    new_tool: call.new_tool,
                    pin: pin.clone(),
                    caller: call.caller.clone(),
                };
                self.ask(view, &call).await
            }
        };
        self.events.emit(HostEvent::ToolCall {
            server: server.clone(),
            tool: call.tool.tool.name.clone(),
            conversation: self.conversation.to_string(),
            call: call.call_id.to_string(),
            arguments: Value::Object(approved.arguments.clone()),
            annotations: call.tool.tool.annotations.clone(),
            trusted: call.stance.trusted,
            decision: approved.decision,
            grant: approved.grant,
            decided: approved.decision.words(approved.grant).to_string(),
            changed: !changes.is_empty(),
            changes,
            pin,
        });
        approved
    }

    async fn ask(&self, view: ToolCallView, call: &CallToApprove<'_>) -> Approved {
        let request = InputRequest {
            server: view.server.clone(),
            kind: InputKind::ToolCall,
            cause: Some(format!(
                "{} calls tool {}",
                call.caller.as_deref().unwrap_or("the model"),
                quoted(&view.tool)
            )),
            origin: Some(json!({"conversation": view.conversation, "call": view.call_id})),
            params: json!({"name": view.tool, "arguments": view.arguments}),
            view: Some(InputView::ToolCall(Box::new(view.clone()))),
            check: Some(arguments_check(view.clone())),
        };
        let answer = match self.broker.ask(request).await {
            Ok(answer) => ToolCallAnswer::from_input_answer(&answer),
            // The question is Wharf's own and always declared; a refusal would still mean no call.
            Err(_) => ToolCallAnswer::from_input_answer(&InputAnswer::Decline),
        };
        let denied = |reason: String| Approved {
            decision: CallDecision::Deny,
            grant: None,
            arguments: call.arguments.clone(),
            refusal: Some(reason),
        };
        if answer.action == ToolCallChoice::Deny {
            let reason = match answer.reason.as_deref().map(str::trim) {
                Some(reason) if !reason.is_empty() => format!(
                    "the user denied this call: {}",
                    one_line(reason, MAX_REASON_CHARS)
                ),
                _ => "the user denied this call".to_string(),
            };
            return denied(reason);
        }
        let arguments = match answer.checked_arguments(&view) {
            Ok(Some(edited)) => edited,
            Ok(None) => call.arguments.clone(),
            Err(e) => return denied(format!("the arguments the user edited were not sent: {e}")),
        };
        if let Err(e) =
            self.approvals
                .record(self.conversation, &view.server, &call.pinned, answer.action)
        {
            // The call was allowed; only the grant for later is lost, and the user is told.
            self.events.emit(HostEvent::Notice {
                server: Some(view.server.clone()),
                code: NoticeCode::GrantNotKept,
                message: format!(
                    "the grant for tool {} was not kept ({e}): the next call will ask again",
                    quoted(&view.tool)
                ),
            });
        }
        Approved {
            decision: answer.action.into(),
            grant: None,
            arguments,
            refusal: None,
        }
    }
}

#[cfg(test)]
mod tests;
