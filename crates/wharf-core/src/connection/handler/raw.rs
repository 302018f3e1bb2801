//! The server requests the transports carried past rmcp's typed model (see `crate::raw_message`): an elicitation
//! served from the params as the server wrote them, and a request refused at once with the error it deserves.

use rmcp::model::{CustomRequest, CustomResult, ElicitRequestParams, ErrorCode, ErrorData};
use serde_json::Value;

use super::{refusal_error, WharfHandler};
use crate::elicitation::{self, Elicitation};
use crate::events::HostEvent;
use crate::raw_message::{self, Refusal};

/// The notice of a server request that does not fit its method (answered `-32602`, or declined in an MRTR round).
pub const INVALID_REQUEST_NOTICE: &str = "invalid_request";

/// Whether `params` are an `elicitation/create` as the spec defines it (rmcp's types are the spec's schema);
/// the error says why not.
pub fn elicitation_fits_spec(params: &Value) -> Result<(), serde_json::Error> {
    serde_json::from_value::<ElicitRequestParams>(params.clone()).map(|_| ())
}

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
        if let Err(why) = elicitation_fits_spec(&params) {
            return Err(self.refuse(Refusal {
                method: "elicitation/create".into(),
                code: raw_message::INVALID_PARAMS,
                reason: format!("its params do not fit the spec's elicitation request ({why})"),
            }));
        }
        let reply = elicitation::elicit(Elicitation {
            broker: &self.broker,
            events: &self.events,
            server: &self.server,
            cause: self.progress.calls_in_flight(),
            params: &params,
        })
        .await
        .map_err(refusal_error)?;
        Ok(CustomResult::new(reply.to_json()))
    }

    /// The error a refused request is answered with; invalid params are told to the user, as the server's
    /// request goes unserved.
    fn refuse(&self, refusal: Refusal) -> ErrorData {
        let Refusal {
            method,
            code,
            reason,
        } = refusal;
        if code == raw_message::INVALID_PARAMS {
            self.events.emit(HostEvent::Notice {
                server: Some(self.server.clone()),
                code: INVALID_REQUEST_NOTICE.into(),
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
