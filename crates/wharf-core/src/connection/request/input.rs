//! One MRTR round's input requests, read from the `InputRequiredResult` as the server wrote it (see
//! `crate::raw_message`): a form is parsed and its answer validated against the schema the server sent, and a request
//! that does not fit the spec is declined on its own, with a notice, instead of failing the whole call.

use rmcp::model::InputResponses;
use serde_json::{Map, Value};

use super::super::{Connection, ConnectionError, ProtocolError, Refusal, MAX_REQUEST_STATE_BYTES};
use crate::elicitation::ElicitReply;
use crate::events::{HostEvent, NoticeCode};
use crate::question::{Cause, InputKind};
use crate::serve::{Asking, NotServed, Served, ServerAsk};

/// The most input requests one round may carry: each is a question, a roots answer or a completion, and the
/// spec's servers ask one or two at a time.
pub const MAX_INPUT_REQUESTS: usize = 32;

fn malformed(why: impl std::fmt::Display) -> ConnectionError {
    ProtocolError::MalformedInputRequired(why.to_string()).into()
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
            return Err(ProtocolError::RequestStateTooLarge { bytes: state.len() }.into());
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
        return Err(ProtocolError::TooManyInputRequests {
            count: requests.len(),
            limit: MAX_INPUT_REQUESTS,
        }
        .into());
    }
    Ok((state, requests))
}

/// An input request (`{"method", "params"}`) as what it asks of the user's side, its params as sent; `None` for a
/// method that asks nothing of it.
pub(super) fn ask_of(request: &Value) -> Option<ServerAsk> {
    let params = || request.get("params").cloned().unwrap_or(Value::Null);
    match request.get("method").and_then(Value::as_str)? {
        "roots/list" => Some(ServerAsk::ListRoots),
        "sampling/createMessage" => Some(ServerAsk::CreateMessage(params())),
        "elicitation/create" => Some(ServerAsk::Elicit(params())),
        _ => None,
    }
}

impl Connection {
    /// Answers every input request of one round through the broker: the responses under the server's keys, and the
    /// `requestState` to echo.
    pub(super) async fn answer_round(
        &self,
        input: Value,
        cause: &Cause,
    ) -> Result<(Option<InputResponses>, Option<String>), ConnectionError> {
        let (state, requests) = read_input(&input)?;
        if requests.is_empty() {
            // Only state: the spec lets the client retry at once.
            return Ok((None, state));
        }
        let mut responses = InputResponses::new();
        for (key, request) in requests {
            let served = self.answer_input(key, request, cause).await?;
            let value = serde_json::to_value(&served).map_err(|e| malformed(e.to_string()))?;
            responses.insert(key.clone(), value);
        }
        Ok((Some(responses), state))
    }

    /// One input request, through the same serving as a request of its own; what was not served is answered as
    /// MRTR allows: a form that does not fit the spec or an undeclared elicitation is declined or cancelled on its
    /// own, with a notice, since a round has no error slot per input; anything else ends the call, as the spec
    /// says not to retry.
    async fn answer_input(
        &self,
        key: &str,
        request: &Value,
        cause: &Cause,
    ) -> Result<Served, ConnectionError> {
        let Some(ask) = ask_of(request) else {
            return Err(malformed(format_args!(
                "its input request {key:?} is not for elicitation, sampling or roots"
            )));
        };
        match self.asking(cause).serve(ask).await {
            Ok(answer) => Ok(answer),
            Err(NotServed::Invalid { reason, .. }) => {
                self.notice(
                    NoticeCode::InvalidRequest,
                    format!(
                        "{} asked for input ({key:?}) that Wharf cannot use: {reason}; declined",
                        self.server
                    ),
                );
                Ok(Served::Elicited(ElicitReply::Decline))
            }
            Err(NotServed::Undeclared(
                kind @ (InputKind::ElicitationForm | InputKind::ElicitationUrl),
            )) => {
                // As a legacy request gets its error and the server decides: the user was not asked.
                self.notice(
                    NoticeCode::UndeclaredCapability,
                    format!(
                        "the server asked for input it should not ({}); answered cancel",
                        NotServed::Undeclared(kind)
                    ),
                );
                Ok(Served::Elicited(ElicitReply::Cancel))
            }
            Err(NotServed::Sampling(e)) => Err(Refusal::Sampling {
                cause: cause.text.clone(),
                reason: e.to_string(),
            }
            .into()),
            Err(other) => Err(ProtocolError::InputNotOffered(other).into()),
        }
    }

    /// How an input request of this call is served: as the connection's handler serves a request of its own,
    /// inside a round.
    pub(super) fn asking(&self, cause: &Cause) -> Asking<'_> {
        self.service.service().asking(true, Some(cause.clone()))
    }

    fn notice(&self, code: NoticeCode, message: String) {
        self.events.emit(HostEvent::Notice {
            server: Some(self.server.clone()),
            code,
            message,
        });
    }
}
