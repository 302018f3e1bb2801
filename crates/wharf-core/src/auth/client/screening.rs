//! The POST of a request whose answer may be an `InputRequiredResult` (a tool call, a prompt, a resource read), sent
//! by Wharf itself instead of rmcp's reqwest client.
//!
//! A server may answer such a POST with one JSON body instead of a stream. rmcp's client reads that body straight
//! into its typed model, which keeps only the schema keywords it models: a form's `pattern` or `not` would be gone
//! before Wharf's form parser and validator saw it. So here the body is read as bytes, passed through
//! `crate::raw_message::screen` as a stdio line or a stream event is, and only then typed. Every other message, and
//! every other part of the HTTP exchange, is rmcp's: what this POST does on each status and content type is what
//! rmcp's client does, so a server cannot tell the two apart.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use http::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, HttpStatusError, InsufficientScopeError, SseError, StreamableHttpClient,
    StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use sse_stream::Sse;

type HttpError = StreamableHttpError<reqwest::Error>;

const SESSION_HEADER: &str = "Mcp-Session-Id";
const EVENT_STREAM: &str = "text/event-stream";
const JSON: &str = "application/json";
/// The headers a configured header must not replace, as rmcp's client refuses them (its own `Accept`, and the
/// session's): `Authorization`, `Content-Type` and `MCP-Protocol-Version` may be configured.
const RESERVED_HEADERS: [&str; 3] = ["accept", "mcp-session-id", "last-event-id"];
/// How much of a body that is not JSON-RPC is kept to explain a failure.
const BODY_PREVIEW: usize = 256;

/// rmcp's reqwest client, except for the POSTs described at the top of this file.
#[derive(Clone)]
pub struct ScreeningClient {
    http: reqwest::Client,
}

impl ScreeningClient {
    pub fn new(http: reqwest::Client) -> Self {
        ScreeningClient { http }
    }

    /// A request whose result may be input-required in the 2026-07-28 era.
    fn may_need_input(message: &ClientJsonRpcMessage) -> bool {
        matches!(
            message,
            JsonRpcMessage::Request(r) if matches!(
                r.request,
                ClientRequest::CallToolRequest(_)
                    | ClientRequest::GetPromptRequest(_)
                    | ClientRequest::ReadResourceRequest(_)
            )
        )
    }

    async fn post_screened(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let mut request = self
            .http
            .post(uri.as_ref())
            .header(http::header::ACCEPT, format!("{EVENT_STREAM}, {JSON}"));
        if let Some(token) = auth_token {
            request = request.bearer_auth(token);
        }
        for (name, value) in custom_headers {
            if RESERVED_HEADERS.contains(&name.as_str()) {
                return Err(StreamableHttpError::ReservedHeaderConflict(
                    name.to_string(),
                ));
            }
            request = request.header(name, value);
        }
        let session_attached = session_id.is_some();
        if let Some(session) = session_id {
            request = request.header(SESSION_HEADER, session.as_ref());
        }
        // `json` sets the content type unless a configured header did.
        let response = request
            .json(&message)
            .send()
            .await
            .map_err(StreamableHttpError::Client)?;
        let status = response.status();
        if let Some(error) = challenge(status, response.headers())? {
            return Err(error);
        }
        if matches!(
            status,
            reqwest::StatusCode::ACCEPTED | reqwest::StatusCode::NO_CONTENT
        ) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == reqwest::StatusCode::NOT_FOUND && session_attached {
            return Err(StreamableHttpError::SessionExpired);
        }
        let content_type = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .map(|ct| String::from_utf8_lossy(ct.as_bytes()).into_owned());
        let is = |expected: &str| {
            content_type
                .as_deref()
                .is_some_and(|ct| essence(ct) == expected)
        };
        let session = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        if !status.is_success() {
            return failure(status, is(JSON), response, session, &limits).await;
        }
        if is(EVENT_STREAM) {
            let bytes = response.bytes_stream().map_err(std::io::Error::other);
            let events = sse_stream::SseStream::from_bytes_stream(crate::sse::bounded_events(
                bytes,
                limits.max_sse_event_size,
            ));
            return Ok(StreamableHttpPostResponse::Sse(events.boxed(), session));
        }
        if !is(JSON) {
            return Err(StreamableHttpError::UnexpectedContentType(content_type));
        }
        let body = read_bounded(response, limits.max_json_response_size).await?;
        Ok(StreamableHttpPostResponse::Json(
            read_screened(&body)?,
            session,
        ))
    }
}

/// The body of a JSON answer as rmcp reads it, after `crate::raw_message::screen` rewrote what Wharf must see raw.
fn read_screened(body: &[u8]) -> Result<ServerJsonRpcMessage, HttpError> {
    let unusable = |e: serde_json::Error| {
        StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!(
            "could not parse JSON response as a JSON-RPC message: {e}: {}",
            preview(body, BODY_PREVIEW)
        )))
    };
    let value: serde_json::Value = serde_json::from_slice(body).map_err(unusable)?;
    let value = crate::raw_message::screen(&value).unwrap_or(value);
    serde_json::from_value(value).map_err(unusable)
}

/// The sign-in or step-up a `401`/`403` with a `WWW-Authenticate` challenge asks for.
fn challenge(
    status: reqwest::StatusCode,
    headers: &http::HeaderMap,
) -> Result<Option<HttpError>, HttpError> {
    let header = match headers.get(http::header::WWW_AUTHENTICATE) {
        Some(h) if matches!(status.as_u16(), 401 | 403) => h.to_str().map_err(|_| {
            StreamableHttpError::UnexpectedServerResponse(Cow::Borrowed(
                "invalid www-authenticate header value",
            ))
        })?,
        _ => return Ok(None),
    };
    Ok(Some(if status == reqwest::StatusCode::UNAUTHORIZED {
        StreamableHttpError::AuthRequired(AuthRequiredError::new(header.to_string()))
    } else {
        StreamableHttpError::InsufficientScope(InsufficientScopeError::new(
            header.to_string(),
            scope_of(header),
        ))
    }))
}

/// The `scope` parameter of a `WWW-Authenticate` challenge, quoted or not.
fn scope_of(header: &str) -> Option<String> {
    let start = header.to_ascii_lowercase().find("scope=")? + "scope=".len();
    let rest = header.get(start..)?;
    let scope = match rest.strip_prefix('"') {
        Some(quoted) => &quoted[..quoted.find('"')?],
        None => rest
            .split(|c: char| c == ',' || c == ';' || c.is_whitespace())
            .next()?,
    };
    (!scope.is_empty()).then(|| scope.to_string())
}

/// A failed POST: a JSON-RPC error the server sent with it is the answer (so the call fails with the server's own
/// words), else the status, with a prefix of the body to say more.
async fn failure(
    status: reqwest::StatusCode,
    is_json: bool,
    response: reqwest::Response,
    session: Option<String>,
    limits: &StreamableHttpResponseLimits,
) -> Result<StreamableHttpPostResponse, HttpError> {
    let retry_after = response
        .headers()
        .get(http::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let status_error = || HttpStatusError::new(status.as_u16(), retry_after.clone());
    let is_status_error =
        status == reqwest::StatusCode::TOO_MANY_REQUESTS || status.is_server_error();
    if is_status_error && (!is_json || status == reqwest::StatusCode::TOO_MANY_REQUESTS) {
        return Err(status_error().into());
    }
    // A JSON-RPC error is read whole; an unchallenged 401/403 keeps its status, so only its prefix is read.
    let auth_failure = matches!(status.as_u16(), 401 | 403);
    let whole = is_json && !auth_failure;
    let limit = if whole {
        limits.max_json_response_size
    } else {
        limits.max_error_response_size
    };
    let body = match read_bounded(response, limit).await {
        Ok(body) => body,
        Err(_) if is_status_error => return Err(status_error().into()),
        Err(e) => return Err(e),
    };
    if whole {
        if let Ok(error @ JsonRpcMessage::Error(_)) =
            serde_json::from_slice::<ServerJsonRpcMessage>(&body)
        {
            return Ok(StreamableHttpPostResponse::Json(error, session));
        }
    }
    if is_status_error {
        return Err(status_error().into());
    }
    Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
        format!(
            "HTTP {status}: {}",
            preview(&body, limits.max_error_response_size)
        ),
    )))
}

/// At most `limit` bytes of a body, as text.
fn preview(body: &[u8], limit: usize) -> String {
    String::from_utf8_lossy(&body[..body.len().min(limit)]).into_owned()
}

/// A media type's essence: `application/json; charset=utf-8` is `application/json`.
fn essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// The whole body, or an error once it passes `limit` bytes (read no further).
async fn read_bounded(response: reqwest::Response, limit: usize) -> Result<Vec<u8>, HttpError> {
    if response.content_length().is_some_and(|n| n > limit as u64) {
        return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: limit });
    }
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(StreamableHttpError::Client)?;
        if body.len() + chunk.len() > limit {
            return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: limit });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

impl StreamableHttpClient for ScreeningClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_token,
            custom_headers,
            StreamableHttpResponseLimits::default(),
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        if Self::may_need_input(&message) {
            return self
                .post_screened(uri, message, session_id, auth_token, custom_headers, limits)
                .await;
        }
        self.http
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_token,
                custom_headers,
                limits,
            )
            .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        self.http
            .delete_session(uri, session_id, auth_token, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        self.http
            .get_stream(uri, session_id, last_event_id, auth_token, custom_headers)
            .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        self.http
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_token,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_is_read_quoted_or_bare() {
        assert_eq!(
            scope_of(r#"Bearer error="insufficient_scope", scope="files:read files:write""#),
            Some("files:read files:write".into())
        );
        assert_eq!(
            scope_of("Bearer scope=admin, realm=x"),
            Some("admin".into())
        );
        assert_eq!(scope_of("Bearer realm=x"), None);
        assert_eq!(scope_of(r#"Bearer scope="unterminated"#), None);
    }

    #[test]
    fn a_json_answer_that_asks_for_input_keeps_the_form_as_the_server_wrote_it() {
        let body = serde_json::json!({
            "jsonrpc": "2.0", "id": 3,
            "result": {
                "resultType": "input_required",
                "inputRequests": {"q": {"method": "elicitation/create", "params": {
                    "mode": "form", "message": "code?",
                    "requestedSchema": {"type": "object", "properties": {
                        "code": {"type": "string", "pattern": "^[0-9]{6}$"}}}}}}
            }
        });
        let read = read_screened(body.to_string().as_bytes()).expect("a JSON-RPC message");
        let JsonRpcMessage::Error(e) = read else {
            panic!("the input-required result should travel as Wharf's private error: {read:?}");
        };
        let raw = crate::raw_message::input_required(e.error.code.0, e.error.data.as_ref())
            .expect("the raw result");
        assert_eq!(
            raw.pointer("/inputRequests/q/params/requestedSchema/properties/code/pattern"),
            Some(&serde_json::json!("^[0-9]{6}$"))
        );
    }
}
