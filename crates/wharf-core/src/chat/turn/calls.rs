//! The calls of one reply: each vetted and put to the approval engine in the model's order, then the approved ones
//! sent together on the user's own call path, each outcome stored as it comes.

use std::time::Instant;

use futures::future::join_all;
use serde_json::{json, Value};

use super::result::{self, ForModel};
use super::Turn;
use crate::approval::pin::{Pinned, ServerDefinition};
use crate::approval::GrantKind;
use crate::chat::approve::{Approval, CallDecision, CallToApprove};
use crate::chat::tools::{ModelTool, ModelTools};
use crate::chat::vet::vet;
use crate::connection::{CallOptions, Connection};
use crate::conversations::message::{CallResult, ToolCallRecord};
use crate::conversations::{MessageData, Role};
use crate::display_text::one_line;
use crate::events::HostEvent;
use crate::model::ToolCall;

/// A call the model made, on its way: refused before anyone saw it, or approved (or denied) on its card.
struct Pending<'a> {
    call: &'a ToolCall,
    server: Option<String>,
    tool: String,
    arguments: Value,
    decision: CallDecision,
    grant: Option<GrantKind>,
    /// Why it is not sent (for the model), when it is not.
    refusal: Option<String>,
    connection: Option<std::sync::Arc<Connection>>,
}

impl Turn<'_> {
    /// The calls of one reply: vetted and approved one at a time in the model's order (one queue of cards, never a
    /// storm of them), then sent together; each outcome is stored as it comes.
    pub(super) async fn calls(
        &self,
        calls: &[ToolCall],
        tools: &ModelTools,
    ) -> Vec<(ToolCallRecord, ForModel)> {
        let approval = Approval {
            approvals: self.cx.approvals,
            broker: self.cx.host.broker(),
            events: self.cx.events,
            conversation: self.conversation,
        };
        let mut pending: Vec<Pending<'_>> = Vec::with_capacity(calls.len());
        for call in calls {
            if self.cancel.is_cancelled() {
                pending.push(refused(
                    call,
                    None,
                    "the user stopped the turn before this call was sent",
                ));
                continue;
            }
            let vetted = match vet(tools, call) {
                Ok(vetted) => vetted,
                Err(e) => {
                    pending.push(refused(call, tools.get(&call.name), &e.to_string()));
                    continue;
                }
            };
            let server = &vetted.tool.server;
            let Some((def, connection)) = self.servers.iter().find(|(d, _)| &d.name == server)
            else {
                pending.push(refused(
                    call,
                    Some(vetted.tool),
                    "its server is no longer running",
                ));
                continue;
            };
            let Some(definition) = ServerDefinition::of(def) else {
                pending.push(refused(
                    call,
                    Some(vetted.tool),
                    "its server's definition cannot be used",
                ));
                continue;
            };
            let key = (server.clone(), vetted.tool.tool.name.clone());
            let ask = approval.decide(CallToApprove {
                call_id: &call.id,
                tool: vetted.tool,
                pinned: Pinned::new(definition, &vetted.tool.tool),
                stance: def.stance,
                arguments: vetted.arguments.clone(),
                new_tool: !self.known.contains(&key),
                caller: None,
            });
            let approved = tokio::select! {
                approved = ask => approved,
                _ = self.cancel.cancelled() => {
                    pending.push(refused(call, Some(vetted.tool), "the user stopped the turn before this call was sent"));
                    continue;
                }
            };
            pending.push(Pending {
                call,
                server: Some(server.clone()),
                tool: vetted.tool.tool.name.clone(),
                arguments: Value::Object(approved.arguments),
                decision: approved.decision,
                grant: approved.grant,
                refusal: approved.refusal,
                connection: Some(connection.clone()),
            });
        }
        join_all(pending.into_iter().map(|p| self.send(p))).await
    }

    /// Sends one approved call (or records why it was not sent), and stores its outcome: the record, and the text
    /// the model is given.
    async fn send(&self, pending: Pending<'_>) -> (ToolCallRecord, ForModel) {
        let started = Instant::now();
        let (given, result) = match (&pending.refusal, &pending.connection) {
            (Some(reason), _) => said(reason),
            (None, None) => said("its server is no longer running"),
            (None, Some(connection)) => {
                let options = CallOptions {
                    cancel: self.cancel.child_token(),
                    label: Some(
                        json!({"conversation": self.conversation, "call": pending.call.id}),
                    ),
                    on_behalf_of_user: true,
                    ..CallOptions::default()
                };
                let arguments = pending.arguments.as_object().cloned();
                match connection
                    .call_tool(&pending.tool, arguments, &options)
                    .await
                {
                    Ok(value) => {
                        result::from_server(&value, self.cx.settings.images, self.cx.redactor)
                    }
                    Err(_) if self.cancel.is_cancelled() => {
                        said("the user stopped the turn: the call was cancelled on its server")
                    }
                    Err(e) => said(
                        &self
                            .cx
                            .redactor
                            .redact_secrets(&format!("the call failed: {e}")),
                    ),
                }
            }
        };
        let record = ToolCallRecord {
            id: pending.call.id.clone(),
            model_id: pending.call.model_id.clone(),
            server: pending.server,
            tool: pending.tool,
            arguments: pending.arguments,
            decided: Some(pending.decision.words(pending.grant).to_string()),
            decision: pending.decision,
            grant: pending.grant,
            result,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        };
        self.store(
            Role::Tool,
            &given.text,
            Some(MessageData::ToolCall(record.clone())),
        );
        self.cx.events.emit(HostEvent::ChatCallEnded {
            conversation: self.conversation.to_string(),
            call: record.id.clone(),
        });
        (record, given)
    }
}

/// Wharf's own words on a call, for the model and kept.
fn said(reason: &str) -> (ForModel, CallResult) {
    let given = ForModel {
        text: reason.to_string(),
        images: Vec::new(),
    };
    (given, CallResult::said(reason))
}

/// A call that is not sent: the model is told why, and so is the user.
fn refused<'a>(call: &'a ToolCall, tool: Option<&ModelTool>, reason: &str) -> Pending<'a> {
    Pending {
        call,
        server: tool.map(|t| t.server.clone()),
        tool: tool.map_or_else(|| one_line(&call.name, 200), |t| t.tool.name.clone()),
        arguments: serde_json::from_str::<Value>(&call.arguments)
            .unwrap_or_else(|_| Value::String(one_line(&call.arguments, 2000))),
        decision: CallDecision::Refused,
        grant: None,
        refusal: Some(reason.to_string()),
        connection: None,
    }
}
