//! One MRTR round's input requests, read from the `InputRequiredResult` as the server wrote it (see
//! `crate::raw_message`): a form is parsed and its answer validated against the schema the server sent, and a request
//! that does not fit the spec is declined on its own, with a notice, instead of failing the whole call.

use rmcp::model::InputResponses;
use serde_json::{Map, Value};

use super::super::handler::{elicitation_fits_spec, INVALID_REQUEST_NOTICE};
use super::super::{Connection, ConnectionError, MAX_REQUEST_STATE_BYTES};
use crate::broker::{InputAnswer, InputKind, InputRequest};
use crate::elicitation::{self, ElicitReply, Elicitation};
use crate::events::{HostEvent, NoticeCode};
use crate::sampling::{self, Sampling};

/// The most input requests one round may carry: each is a question, a roots answer or a completion, and the
/// spec's servers ask one or two at a time.
pub const MAX_INPUT_REQUESTS: usize = 32;

fn malformed(why: impl std::fmt::Display) -> ConnectionError {
    ConnectionError::Protocol(format!(
        "the server asked for input, but its InputRequiredResult is malformed: {why}"
    ))
}

/// The `requestState` to echo and the input requests of an `InputRequiredResult`, or why it is malformed or over
/// Wharf's bounds.
pub(super) fn read_input(
    input: &Value,
) -> Result<(Option<String>, &Map<String, Value>), ConnectionError> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    let state = match input.get("requestState") {
        None | Some(Value::Null) => None,
        Some(Value::String(state)) => Some(state.clone()),
        Some(_) => return Err(malformed("its requestState is not a string")),
    };
    if let Some(state) = &state {
        if state.len() > MAX_REQUEST_STATE_BYTES {
            return Err(ConnectionError::Protocol(format!(
                "the server's requestState is {} bytes, over Wharf's limit of {MAX_REQUEST_STATE_BYTES}",
                state.len()
            )));
        }
    }
    let requests = match input.get("inputRequests") {
        None | Some(Value::Null) => EMPTY.get_or_init(Map::new),
        Some(Value::Object(requests)) => requests,
        Some(_) => return Err(malformed("its inputRequests is not an object")),
    };
    if requests.is_empty() && state.is_none() {
        return Err(malformed("it has neither inputRequests nor requestState"));
    }
    if requests.len() > MAX_INPUT_REQUESTS {
        return Err(ConnectionError::Protocol(format!(
            "the server asked for {} inputs in one round, over Wharf's limit of {MAX_INPUT_REQUESTS}",
            requests.len()
        )));
    }
    Ok((state, requests))
}

impl Connection {
    /// Answers every input request of one round through the broker: the responses under the server's keys, and the
    /// `requestState` to echo.
    pub(super) async fn answer_round(
        &self,
        input: Value,
        cause: &str,
    ) -> Result<(Option<InputResponses>, Option<String>), ConnectionError> {
        let (state, requests) = read_input(&input)?;
        if requests.is_empty() {
            // Only state: the spec lets the client retry at once.
            return Ok((None, state));
        }
        let mut responses = InputResponses::new();
        for (key, request) in requests {
            let value = self.answer_input(key, request, cause).await?;
            responses.insert(key.clone(), value);
        }
        Ok((Some(responses), state))
    }

    async fn answer_input(
        &self,
        key: &str,
        request: &Value,
        cause: &str,
    ) -> Result<Value, ConnectionError> {
        let method = request.get("method").and_then(Value::as_str);
        let params = request.get("params").cloned().unwrap_or(Value::Null);
        match method {
            Some("roots/list") if self.broker.capabilities.roots => {
                // Roots are not a question to the user: the workspace and the server's preference answer them.
                let roots = self.roots.answer(&self.broker, &self.events, true);
                Ok(serde_json::json!({ "roots": roots }))
            }
            Some("roots/list") => self.ask_other(InputKind::Roots, params, cause).await,
            Some("sampling/createMessage") if self.broker.capabilities.sampling => {
                let served = sampling::sample(Sampling {
                    broker: &self.broker,
                    service: self.services.sampling.as_ref(),
                    events: &self.events,
                    server: &self.server,
                    definition_hash: &self.definition_hash,
                    cause: Some(cause.to_string()),
                    params: &params,
                    modern: self.identity.era == crate::era::Era::Modern,
                })
                .await;
                // Refused or failed: the spec says not to retry, so the call ends here with the reason.
                served.map_err(|e| ConnectionError::Refused(format!("sampling for {cause}: {e}")))
            }
            Some("sampling/createMessage") => {
                self.ask_other(InputKind::Sampling, params, cause).await
            }
            Some("elicitation/create") => Ok(self.elicit(key, &params, cause).await.to_json()),
            _ => Err(malformed(format_args!(
                "its input request {key:?} is not for elicitation, sampling or roots"
            ))),
        }
    }

    async fn elicit(&self, key: &str, params: &Value, cause: &str) -> ElicitReply {
        // MRTR has no error slot per input: a request that does not fit the spec is declined, and the user told.
        if let Err(why) = elicitation_fits_spec(params) {
            self.notice(
                INVALID_REQUEST_NOTICE,
                format!(
                    "{} asked for input ({key:?}) in a form that does not fit the spec's elicitation request \
                     ({why}); declined",
                    self.server
                ),
            );
            return ElicitReply::Decline;
        }
        let served = elicitation::elicit(Elicitation {
            broker: &self.broker,
            guard: &self.services.guard,
            events: &self.events,
            server: &self.server,
            cause: Some(cause.to_string()),
            params,
        })
        .await;
        match served {
            Ok(reply) => reply,
            // An elicitation Wharf never declared is answered "cancel" (the user was not asked), as a legacy
            // request gets its error and the server decides.
            Err(refusal) => {
                self.notice(
                    NoticeCode::UndeclaredCapability,
                    format!(
                        "the server asked for input it should not ({refusal}); answered cancel"
                    ),
                );
                ElicitReply::Cancel
            }
        }
    }

    fn notice(&self, code: NoticeCode, message: String) {
        self.events.emit(HostEvent::Notice {
            server: Some(self.server.clone()),
            code,
            message,
        });
    }

    /// A non-elicitation input request (sampling; roots when not declared): through the broker, refused ones end the
    /// call, as the spec says not to retry.
    async fn ask_other(
        &self,
        kind: InputKind,
        params: Value,
        cause: &str,
    ) -> Result<Value, ConnectionError> {
        let asked = InputRequest {
            server: self.server.clone(),
            kind,
            cause: Some(cause.to_string()),
            params,
            view: None,
        };
        match self.broker.ask(asked).await {
            Ok(InputAnswer::Accept { content }) => Ok(content.unwrap_or(Value::Null)),
            Ok(_) => Err(ConnectionError::Protocol(format!(
                "the user refused the server's {} request",
                kind.as_str()
            ))),
            Err(refusal) => Err(ConnectionError::Protocol(format!(
                "the server asked for input Wharf does not offer: {refusal}"
            ))),
        }
    }
}
