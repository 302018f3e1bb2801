//! A connection that could not start, in the user's words: rmcp's own wording names the transport by its Rust type
//! and hides the cause (refused, unknown host, TLS) inside an HTTP client's error.

use rmcp::service::ClientInitializeError;
use rmcp::transport::streamable_http_client::StreamableHttpError;

use super::ConnectionError;

pub(super) fn init_error(e: ClientInitializeError) -> ConnectionError {
    match e {
        ClientInitializeError::JsonRpcError(data) => ConnectionError::Server {
            code: data.code.0,
            message: data.message.to_string(),
            data: data.data,
        },
        ClientInitializeError::TransportError { error, .. } => {
            // An HTTP client's error keeps its causes (refused, unknown host, TLS) to itself unless unwrapped.
            let http = error
                .error
                .downcast_ref::<StreamableHttpError<reqwest::Error>>();
            ConnectionError::Connect(match http {
                Some(StreamableHttpError::Client(e)) => cause_chain(e),
                _ => cause_chain(error.error.as_ref()),
            })
        }
        other => ConnectionError::Connect(other.to_string()),
    }
}

/// An error and its sources in one line, outermost first, each said once ("error sending request for url (...):
/// client error (Connect): tcp connect error: Connection refused (os error 111)").
fn cause_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut said: Vec<String> = Vec::new();
    let mut next = Some(error);
    while let Some(e) = next {
        let text = e.to_string();
        let text = text
            .strip_prefix("Client error: ")
            .unwrap_or(&text)
            .trim()
            .to_string();
        if !text.is_empty() && !said.iter().any(|s| s.contains(&text)) {
            said.push(text);
        }
        next = e.source();
    }
    said.join(": ")
}
