//! Calls that may take several rounds (MRTR, 2026-07-28): `InputRequiredResult` -> the broker -> a retry with a new
//! id, the same params, `inputResponses` under the server's keys and `requestState` echoed byte for byte.
//! The state of one call never leaks into another: each call owns its params.

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientRequest,
    GetPromptRequest, GetPromptRequestParams, InputRequest as WireInputRequest,
    InputRequiredResult, InputResponses, JsonObject, ReadResourceRequest,
    ReadResourceRequestParams, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use serde_json::Value;

use super::{
    CallOptions, Connection, ConnectionError, DEFAULT_MAX_MRTR_ROUNDS, MAX_REQUEST_STATE_BYTES,
};
use crate::broker::{InputAnswer, InputKind, InputRequest};
use crate::config::PathArgumentPolicy;
use crate::events::HostEvent;

impl Connection {
    /// Calls a tool and returns the final `CallToolResult` as JSON. MRTR rounds, progress and cancellation are
    /// handled on the way.
    pub async fn call_tool(
        &self,
        tool: &str,
        args: Option<JsonObject>,
        options: &CallOptions,
    ) -> Result<Value, ConnectionError> {
        if options.on_behalf_of_user && self.path_arguments != PathArgumentPolicy::Allow {
            self.check_path_arguments(tool, args.as_ref()).await?;
        }
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = args;
        let mut result = self
            .rounds(
                &format!("calling tool {tool}"),
                options,
                |responses, state| {
                    let mut round = params.clone();
                    round.input_responses = responses;
                    round.request_state = state;
                    ClientRequest::CallToolRequest(CallToolRequest::new(round))
                },
            )
            .await?;
        // A server may answer a tool call with an empty result; to the caller that is a result without content.
        if let Value::Object(map) = &mut result {
            map.entry("content")
                .or_insert_with(|| Value::Array(Vec::new()));
        }
        Ok(result)
    }

    /// Every path argument the user sends must lie inside an open workspace folder (symlinks and `..` resolved), or
    /// the user says yes when the server's preference is "ask". The tool's schema says which arguments are paths; it
    /// is read fresh, since a user's call is no hot path and a stale schema would let a path slip through.
    async fn check_path_arguments(
        &self,
        tool: &str,
        args: Option<&JsonObject>,
    ) -> Result<(), ConnectionError> {
        let Some(args) = args.filter(|a| !a.is_empty()) else {
            return Ok(());
        };
        let tools = self.list_tools().await?;
        let Some(schema) = tools
            .iter()
            .find(|t| t.name == tool)
            .map(|t| &t.input_schema)
        else {
            return Ok(());
        };
        let folders = self.roots.workspace.root_paths();
        let violations = crate::workspace::paths::check_path_args(schema, args, &folders);
        if violations.is_empty() {
            return Ok(());
        }
        let reasons = violations
            .iter()
            .map(|v| v.reason.clone())
            .collect::<Vec<_>>()
            .join("; ");
        if self.path_arguments != PathArgumentPolicy::Ask {
            return Err(ConnectionError::Refused(reasons));
        }
        let question = InputRequest {
            server: self.server.clone(),
            kind: InputKind::PathOutside,
            cause: Some(format!("calling tool {tool}")),
            params: serde_json::json!({
                "message": format!(
                    "{} would receive {} outside your workspace folders: {reasons}. Send anyway?",
                    self.server,
                    if violations.len() == 1 { "a path" } else { "paths" },
                ),
                "tool": tool,
                "paths": violations,
                "folders": folders,
            }),
        };
        let answer = self
            .broker
            .ask(question)
            .await
            .unwrap_or(InputAnswer::Decline);
        self.events.emit(HostEvent::PathOutside {
            server: self.server.clone(),
            tool: tool.to_string(),
            paths: violations,
            answer: answer.action(),
        });
        match answer {
            InputAnswer::Accept { .. } => Ok(()),
            InputAnswer::Decline | InputAnswer::Cancel => Err(ConnectionError::Refused(format!(
                "{reasons} (you chose not to send it)"
            ))),
        }
    }

    /// `prompts/get`, with MRTR rounds served through the broker. Returns the `GetPromptResult` as JSON.
    pub async fn get_prompt(
        &self,
        name: &str,
        args: Option<JsonObject>,
        options: &CallOptions,
    ) -> Result<Value, ConnectionError> {
        let mut params = GetPromptRequestParams::new(name);
        params.arguments = args;
        self.rounds(
            &format!("getting prompt {name}"),
            options,
            |responses, state| {
                let mut round = params.clone();
                round.input_responses = responses;
                round.request_state = state;
                ClientRequest::GetPromptRequest(GetPromptRequest::new(round))
            },
        )
        .await
    }

    /// `resources/read`, with MRTR rounds served through the broker. Returns the `ReadResourceResult` as JSON.
    pub async fn read_resource(
        &self,
        uri: &str,
        options: &CallOptions,
    ) -> Result<Value, ConnectionError> {
        let params = ReadResourceRequestParams::new(uri);
        self.rounds(&format!("reading {uri}"), options, |responses, state| {
            let mut round = params.clone();
            round.input_responses = responses;
            round.request_state = state;
            ClientRequest::ReadResourceRequest(ReadResourceRequest::new(round))
        })
        .await
    }

    /// Drives one logical request through its MRTR rounds. `build` makes each round's request from the original
    /// params plus that round's answers and state: a fresh request (so a fresh JSON-RPC id), and nothing of this
    /// call can leak into another.
    async fn rounds(
        &self,
        cause: &str,
        options: &CallOptions,
        build: impl Fn(Option<InputResponses>, Option<String>) -> ClientRequest,
    ) -> Result<Value, ConnectionError> {
        let max_rounds = options.max_rounds.unwrap_or(DEFAULT_MAX_MRTR_ROUNDS);
        let (mut responses, mut state) = (None, None);
        for _round in 0..max_rounds {
            let result = self
                .request(build(responses.take(), state.take()), options)
                .await?;
            match Round::of(result)? {
                Round::Complete(result) => return Ok(result),
                Round::InputRequired(input) => {
                    (responses, state) = self.answer_round(input, cause).await?
                }
            }
        }
        Err(ConnectionError::Protocol(format!(
            "the server kept asking for more input: gave up after {max_rounds} rounds of {cause}"
        )))
    }

    /// Sends one request and awaits its result while forwarding its progress. Silence longer than the timeout (reset
    /// by each progress notification), or the caller's cancel, ends it with `notifications/cancelled`.
    pub(crate) async fn request(
        &self,
        request: ClientRequest,
        options: &CallOptions,
    ) -> Result<ServerResult, ConnectionError> {
        if self.is_closed() {
            return Err(self.closed_error());
        }
        let peer = self.service.peer().clone();
        let handle = peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| self.map_service_error(e))?;
        let id = handle.id.clone();
        let mut progress = self.progress.register(handle.progress_token.clone());
        let timeout = options.timeout.unwrap_or(self.request_timeout);
        let mut deadline = tokio::time::Instant::now() + timeout;
        let response = handle.await_response();
        tokio::pin!(response);
        let abandoned = loop {
            tokio::select! {
                // Progress first: a server's last notification often travels right before its answer.
                biased;
                Some(p) = progress.rx.recv() => {
                    deadline = tokio::time::Instant::now() + timeout;
                    self.emit_progress(&options.label, &p);
                }
                result = &mut response => {
                    // Notifications sent before the answer may still be on their way through rmcp's dispatch.
                    tokio::task::yield_now().await;
                    while let Ok(p) = progress.rx.try_recv() {
                        self.emit_progress(&options.label, &p);
                    }
                    return match result.map_err(|e| self.map_service_error(e)) {
                        // The server died mid-call: say how (exit status, last stderr line), not just that it did.
                        Err(ConnectionError::Closed(None)) => Err(ConnectionError::Closed(Some(self.close_reason().await))),
                        other => other,
                    };
                }
                _ = tokio::time::sleep_until(deadline) => break ConnectionError::Timeout(timeout),
                _ = options.cancel.cancelled() => break ConnectionError::Cancelled,
            }
        };
        let reason = match &abandoned {
            ConnectionError::Timeout(_) => "request timed out",
            _ => "cancelled by the user",
        };
        let cancelled = CancelledNotificationParam::new(Some(id), Some(reason.into()));
        // Best effort: the server may already be gone, and the caller gets its answer either way.
        let _ = peer.notify_cancelled(cancelled).await;
        Err(abandoned)
    }

    /// Answers every input request of one round through the broker.
    async fn answer_round(
        &self,
        input: InputRequiredResult,
        cause: &str,
    ) -> Result<(Option<InputResponses>, Option<String>), ConnectionError> {
        if let Some(state) = &input.request_state {
            if state.len() > MAX_REQUEST_STATE_BYTES {
                return Err(ConnectionError::Protocol(format!(
                    "the server's requestState is {} bytes, over Wharf's limit of {MAX_REQUEST_STATE_BYTES}",
                    state.len()
                )));
            }
        }
        let requests = input.input_requests.unwrap_or_default();
        if requests.is_empty() {
            // Only state: the spec lets the client retry at once.
            return Ok((None, input.request_state));
        }
        let mut responses = InputResponses::new();
        for (key, request) in requests {
            let (kind, params) = classify(&request);
            if kind == InputKind::Roots && self.broker.capabilities.roots {
                // Roots are not a question to the user: the workspace and the server's preference answer them.
                let roots = self.roots.answer(&self.broker, &self.events, true);
                let value = serde_json::json!({ "roots": roots });
                let response = serde_json::from_value(value).map_err(|e| {
                    ConnectionError::Protocol(format!("cannot encode the roots for {key}: {e}"))
                })?;
                responses.insert(key, response);
                continue;
            }
            let asked = InputRequest {
                server: self.server.clone(),
                kind,
                cause: Some(cause.to_string()),
                params,
            };
            let answer = match self.broker.ask(asked).await {
                Ok(answer) => answer,
                // MRTR has no error slot per input. An elicitation Wharf never declared is answered "cancel" (the
                // user was not asked), as a legacy request gets its error and the server decides what follows.
                Err(refusal)
                    if matches!(kind, InputKind::ElicitationForm | InputKind::ElicitationUrl) =>
                {
                    self.events.emit(HostEvent::Notice {
                        server: Some(self.server.clone()),
                        code: "undeclared_capability".into(),
                        message: format!(
                            "the server asked for input it should not ({refusal}); answered cancel"
                        ),
                    });
                    InputAnswer::Cancel
                }
                Err(refusal) => {
                    return Err(ConnectionError::Protocol(format!(
                        "the server asked for input Wharf does not offer: {refusal}"
                    )))
                }
            };
            let value = match (kind, answer) {
                (
                    InputKind::ElicitationForm | InputKind::ElicitationUrl,
                    InputAnswer::Accept { content },
                ) => {
                    let mut v = serde_json::json!({"action": "accept"});
                    if let Some(content) = content {
                        v["content"] = content;
                    }
                    v
                }
                (InputKind::ElicitationForm | InputKind::ElicitationUrl, InputAnswer::Decline) => {
                    serde_json::json!({"action": "decline"})
                }
                (InputKind::ElicitationForm | InputKind::ElicitationUrl, InputAnswer::Cancel) => {
                    serde_json::json!({"action": "cancel"})
                }
                (InputKind::Roots | InputKind::Sampling, InputAnswer::Accept { content }) => {
                    content.unwrap_or(Value::Null)
                }
                // Sampling and roots refused: the spec says not to retry; the call ends here.
                (_, _) => {
                    return Err(ConnectionError::Protocol(format!(
                        "the user refused the server's {} request",
                        kind.as_str()
                    )))
                }
            };
            let response = serde_json::from_value(value).map_err(|e| {
                ConnectionError::Protocol(format!("cannot encode the answer to {key}: {e}"))
            })?;
            responses.insert(key, response);
        }
        Ok((Some(responses), input.request_state))
    }
}

fn classify(request: &WireInputRequest) -> (InputKind, Value) {
    let value = serde_json::to_value(request).unwrap_or(Value::Null);
    let params = value.get("params").cloned().unwrap_or(Value::Null);
    let kind = match value.get("method").and_then(Value::as_str) {
        Some("roots/list") => InputKind::Roots,
        Some("sampling/createMessage") => InputKind::Sampling,
        _ if params.get("mode").and_then(Value::as_str) == Some("url") => InputKind::ElicitationUrl,
        _ => InputKind::ElicitationForm,
    };
    (kind, params)
}

/// One round's outcome. An absent `resultType` means complete (the spec says so; some SDKs omit it).
enum Round {
    Complete(Value),
    InputRequired(InputRequiredResult),
}

impl Round {
    fn of(result: ServerResult) -> Result<Round, ConnectionError> {
        let value = match result {
            ServerResult::InputRequiredResult(input) => return Ok(Round::InputRequired(input)),
            other => serde_json::to_value(other),
        }
        .map_err(|e| ConnectionError::Protocol(e.to_string()))?;
        match value.get("resultType").and_then(Value::as_str) {
            None | Some("complete") => Ok(Round::Complete(value)),
            Some(other) => Err(ConnectionError::Protocol(format!(
                "the server answered with an unknown resultType \"{other}\""
            ))),
        }
    }
}
