//! The server requests the transports carried past rmcp's typed model (see `crate::raw_message`): an elicitation
//! served from the params as the server wrote them, and a request refused at once with the error it deserves.

use rmcp::model::{CustomRequest, CustomResult, ErrorCode, ErrorData};
use serde_json::Value;

use super::WharfHandler;
use crate::events::{HostEvent, NoticeCode};
use crate::raw_message::{self, Refusal};

impl WharfHandler {
    pub(super) async fn custom_request(
        &self,
        request: CustomRequest,
    ) -> Result<CustomResult, ErrorData> {
        match request.method.as_str() {
            raw_message::RAW_ELICITATION => {
                let params = request
                    .params
                    .as_ref()
                    .and_then(|p| p.get("params"))
                    .cloned()
                    .unwrap_or(Value::Null);
                self.raw_elicitation(params).await
            }
            raw_message::REFUSED_REQUEST => Err(self.refuse(Refusal::of(request.params.as_ref()))),
            other => {
                tracing::debug!(server = %self.server, method = other, "unknown server request");
                Err(ErrorData::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    format!("{other} is not a method Wharf serves"),
                    None,
                ))
            }
        }
    }

    /// An `elicitation/create` from its params as written: what the form parser and the validator see is what the
    /// server sent. Params that do not fit the spec's request are invalid params, and the user is told.
    async fn raw_elicitation(&self, params: Value) -> Result<CustomResult, ErrorData> {
        let reply = self
            .asking(false, self.progress.calls_in_flight())
            .elicit(&params)
            .await
            .map_err(|e| self.not_served(e))?;
        Ok(CustomResult::new(reply.to_json()))
    }

    /// The error a refused request is answered with; invalid params are told to the user, as the server's
    /// request goes unserved.
    pub(super) fn refuse(&self, refusal: Refusal) -> ErrorData {
        let Refusal {
            method,
            code,
            reason,
        } = refusal;
        if code == raw_message::INVALID_PARAMS {
            self.events.emit(HostEvent::Notice {
                server: Some(self.server.clone()),
                code: NoticeCode::InvalidRequest,
                message: format!(
                    "{} sent a {method} request Wharf cannot use: {reason}; answered with an error (invalid \
                     params)",
                    self.server
                ),
            });
        } else {
            tracing::debug!(server = %self.server, %method, "refused server request: {reason}");
        }
        ErrorData::new(ErrorCode(code), format!("{method}: {reason}"), None)
    }
}
