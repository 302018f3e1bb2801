//! The request path of a user's call (a tool, a prompt, a resource read): the path check, then rounds until the
//! result. A 2026-07-28 server may answer a round with an `InputRequiredResult` (MRTR): the broker is asked, and the
//! request goes again with a new id, the same params, `inputResponses` under the server's keys and `requestState`
//! echoed byte for byte. The state of one call never leaks into another: each call owns its params. Progress,
//! cancellation and timeouts are handled here too, as is a `-32042` that needs the user in the browser first.

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientRequest,
    GetPromptRequest, GetPromptRequestParams, InputResponses, JsonObject, ReadResourceRequest,
    ReadResourceRequestParams, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use serde_json::Value;

use super::{
    CallOptions, Connection, ConnectionError, ProtocolError, Refusal, DEFAULT_MAX_MRTR_ROUNDS,
};
use crate::config::PathArgumentPolicy;
use crate::elicitation::{self, ElicitReply};
use crate::protocol::{PromptResult, ResourceRead, ToolResult};
use crate::question::Cause;

impl Connection {
    /// Calls a tool and returns the final `CallToolResult`. MRTR rounds, progress and cancellation are handled on
    /// the way.
    pub async fn call_tool(
        &self,
        tool: &str,
        args: Option<JsonObject>,
        options: &CallOptions,
    ) -> Result<ToolResult, ConnectionError> {
        if options.on_behalf_of_user
            && self.path_arguments != PathArgumentPolicy::Allow
            && !self.takes_no_paths(tool)
        {
            // Boxed, as every rare branch's future (see `request`).
            Box::pin(self.check_path_arguments(tool, args.as_ref(), options.label.as_ref()))
                .await?;
        }
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = args;
        let cause = Cause::new(format!("calling tool {tool}"), options.label.clone());
        let call = || {
            self.rounds(&cause, options, |responses, state| {
                let mut round = params.clone();
                round.input_responses = responses;
                round.request_state = state;
                ClientRequest::CallToolRequest(CallToolRequest::new(round))
            })
        };
        let mut result = match call().await {
            Err(ConnectionError::Server {
                code: URL_ELICITATION_REQUIRED,
                message,
                data,
            }) if self.broker.capabilities.elicitation_url => {
                // The tool needs the user in the browser first: each page consented to and finished, then one
                // retry with the same arguments (a second -32042 is the caller's to see).
                Box::pin(self.serve_required_urls(&cause, &message, data.as_ref())).await?;
                Box::pin(call()).await?
            }
            other => other?,
        };
        // A server may answer a tool call with an empty result; to the caller that is a result without content.
        if let Value::Object(map) = &mut result {
            map.entry("content")
                .or_insert_with(|| Value::Array(Vec::new()));
        }
        Ok(ToolResult::read(result))
    }

    /// `prompts/get`, with MRTR rounds served through the broker.
    pub async fn get_prompt(
        &self,
        name: &str,
        args: Option<JsonObject>,
        options: &CallOptions,
    ) -> Result<PromptResult, ConnectionError> {
        let mut params = GetPromptRequestParams::new(name);
        params.arguments = args;
        self.rounds(
            &Cause::new(format!("getting prompt {name}"), options.label.clone()),
            options,
            |responses, state| {
                let mut round = params.clone();
                round.input_responses = responses;
                round.request_state = state;
                ClientRequest::GetPromptRequest(GetPromptRequest::new(round))
            },
        )
        .await
        .map(PromptResult::read)
    }

    /// `resources/read`, with MRTR rounds served through the broker.
    pub async fn read_resource(
        &self,
        uri: &str,
        options: &CallOptions,
    ) -> Result<ResourceRead, ConnectionError> {
        let params = ReadResourceRequestParams::new(uri);
        let cause = Cause::new(format!("reading {uri}"), options.label.clone());
        self.rounds(&cause, options, |responses, state| {
            let mut round = params.clone();
            round.input_responses = responses;
            round.request_state = state;
            ClientRequest::ReadResourceRequest(ReadResourceRequest::new(round))
        })
        .await
        .map(ResourceRead::read)
    }

    /// Drives one logical request through its MRTR rounds. `build` makes each round's request from the original
    /// params plus that round's answers and state: a fresh request (so a fresh JSON-RPC id), and nothing of this
    /// call can leak into another.
    async fn rounds(
        &self,
        cause: &Cause,
        options: &CallOptions,
        build: impl Fn(Option<InputResponses>, Option<String>) -> ClientRequest,
    ) -> Result<Value, ConnectionError> {
        let _in_flight = self.progress.begin_call(cause);
        let max_rounds = options.max_rounds.unwrap_or(DEFAULT_MAX_MRTR_ROUNDS);
        let (mut responses, mut state) = (None, None);
        for _round in 0..max_rounds {
            let round = match self
                .request(build(responses.take(), state.take()), options)
                .await
            {
                Ok(result) => Round::of(result)?,
                Err(e) => Round::InputRequired(input_required_in(e)?),
            };
            match round {
                Round::Complete(result) => return Ok(result),
                Round::InputRequired(input) => {
                    (responses, state) = Box::pin(self.answer_round(input, cause)).await?
                }
            }
        }
        Err(ProtocolError::RoundsExceeded {
            max_rounds,
            what: cause.text.clone(),
        }
        .into())
    }

    /// Sends one request and awaits its result while forwarding its progress. Silence longer than the timeout (reset
    /// by each progress notification), or the caller's cancel, ends it with `notifications/cancelled`.
    pub(crate) async fn request(
        &self,
        request: ClientRequest,
        options: &CallOptions,
    ) -> Result<ServerResult, ConnectionError> {
        if self.is_closed() {
            return Err(Box::pin(self.explain_closed(self.closed_error())).await);
        }
        let mut request = request;
        if let Some(level) = self.modern_log_level() {
            use rmcp::model::GetMeta;
            request
                .get_meta_mut()
                .insert(LOG_LEVEL_META.into(), Value::String(level));
        }
        let peer = self.service.peer().clone();
        // Boxed, like every future of a rare branch here: a call's future is moved whole when spawned and when its
        // output is taken, so its size is paid on every call (rmcp's send alone is about 3 KB).
        let sent =
            Box::pin(peer.send_request_with_option(request, PeerRequestOptions::no_options()));
        let handle = match sent.await {
            Ok(handle) => handle,
            Err(e) => return Err(Box::pin(self.explain_closed(self.map_service_error(e))).await),
        };
        let id = handle.id.clone();
        let mut progress = self.progress.register(handle.progress_token.clone());
        let timeout = options.timeout.unwrap_or(self.request_timeout);
        let mut deadline = tokio::time::Instant::now() + timeout;
        let mut response = Box::pin(handle.await_response());
        let abandoned = loop {
            tokio::select! {
                // Progress first: a server's last notification often travels right before its answer.
                biased;
                p = progress.recv() => {
                    deadline = tokio::time::Instant::now() + timeout;
                    self.emit_progress(&options.label, &p);
                }
                result = &mut response => {
                    // Progress sent before the answer was routed as it was read (`super::progress`): all here.
                    while let Some(p) = progress.try_recv() {
                        self.emit_progress(&options.label, &p);
                    }
                    return match result.map_err(|e| self.map_service_error(e)) {
                        Err(e) => Err(Box::pin(self.explain_closed(e)).await),
                        ok => ok,
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
        let _ = Box::pin(peer.notify_cancelled(cancelled)).await;
        Err(abandoned)
    }
}

/// The `_meta` key that asks a 2026-07-28 server for log messages about one request, from this level up.
const LOG_LEVEL_META: &str = "io.modelcontextprotocol/logLevel";

/// `URLElicitationRequiredError`: the request cannot go on until the user completes URL elicitations.
pub const URL_ELICITATION_REQUIRED: i32 = -32042;

impl Connection {
    /// Serves the URL elicitations of a `-32042` error: each one consented to, opened, and finished (the user says
    /// so, or the server's `notifications/elicitation/complete` does). Any refusal ends the call with the reason.
    async fn serve_required_urls(
        &self,
        cause: &Cause,
        message: &str,
        data: Option<&Value>,
    ) -> Result<(), ConnectionError> {
        let elicitations = data
            .and_then(|d| d.get("elicitations"))
            .and_then(Value::as_array)
            .filter(|list| !list.is_empty())
            .ok_or_else(|| ConnectionError::Server {
                code: URL_ELICITATION_REQUIRED,
                message: format!("{message} (and the server named no URL to open)"),
                data: data.cloned(),
            })?;
        let cause = Cause::new(
            format!("{}: needed before it can run", cause.text),
            cause.origin.clone(),
        );
        let asking = self.asking(&cause);
        for params in elicitations {
            let e = asking.elicitation(params);
            match elicitation::elicit(e.clone()).await {
                Ok(ElicitReply::Accept(_)) => {
                    if !elicitation::wait_until_finished(e).await {
                        return Err(Refusal::UrlNotFinished {
                            message: message.to_string(),
                        }
                        .into());
                    }
                }
                Ok(reply) => {
                    return Err(Refusal::UrlNotOpened {
                        message: message.to_string(),
                        action: reply.action(),
                    }
                    .into())
                }
                Err(refusal) => {
                    return Err(Refusal::UrlRefused {
                        message: message.to_string(),
                        refusal,
                    }
                    .into())
                }
            }
        }
        Ok(())
    }
}

/// One round's outcome. An absent `resultType` means complete (the spec says so; some SDKs omit it).
/// An input-required round holds the result as the server wrote it when the transport kept it so (see
/// `crate::raw_message`), else rmcp's reading of it.
enum Round {
    Complete(Value),
    InputRequired(Value),
}

/// The input-required result a request's error carries (see `crate::raw_message`), or the error itself.
fn input_required_in(e: ConnectionError) -> Result<Value, ConnectionError> {
    if let ConnectionError::Server { code, data, .. } = &e {
        if let Some(raw) = crate::raw_message::input_required(*code, data.as_ref()) {
            return Ok(raw.clone());
        }
    }
    Err(e)
}

impl Round {
    fn of(result: ServerResult) -> Result<Round, ConnectionError> {
        let value = serde_json::to_value(result).map_err(|e| ProtocolError::Sdk(e.to_string()))?;
        if !value.is_object() {
            // A result is an object in every MCP method Wharf sends; `null` or a bare value would reach the caller
            // as a result without content.
            let shown: String = value.to_string().chars().take(80).collect();
            return Err(ProtocolError::NotAnObject { shown }.into());
        }
        match value.get("resultType").and_then(Value::as_str) {
            None | Some("complete") => Ok(Round::Complete(value)),
            Some("input_required") => Ok(Round::InputRequired(value)),
            Some(other) => Err(ProtocolError::UnknownResultType(other.to_string()).into()),
        }
    }
}

mod input;

#[cfg(test)]
mod tests;
