//! A streamed reply from the provider, for chat: the request goes out with `"stream": true`, each event is read as
//! it comes (`crate::chat::stream`), the text and tool calls are handed on as they arrive, and the whole reply is
//! returned at the end. The same provider configuration, key handling and errors as a sampling completion.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, AUTHORIZATION};
use serde_json::Value;

use super::http::Http;
use super::{anthropic, openai, ProviderConfig, ProviderError, ProviderKind};
use crate::chat::stream::{Delta, Reply, ReplyReader};

/// How long a streamed reply may take. A provider is as untrusted as a server: one that keeps its stream open with
/// keep-alives or empty chunks, or adds a word now and then forever, must not keep a turn from ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplyLimits {
    /// The longest wait for the answer, and the longest the reply may then go without growing: events that add
    /// nothing to it (pings, empty chunks) do not count as growth.
    pub idle: Duration,
    /// The longest the whole reply may stream.
    pub whole: Duration,
}

/// Sends `request` (the provider's own request body: model, messages, tools) with streaming asked for, and gives
/// each delta to `on_delta` as it is read, within `limits`.
pub async fn stream_reply(
    config: &ProviderConfig,
    api_key: Option<&str>,
    request: &Value,
    limits: ReplyLimits,
    mut on_delta: impl FnMut(Delta),
) -> Result<Reply, ProviderError> {
    let http = Http::new(config, api_key, limits.idle)?;
    let mut body = request.clone();
    let mut headers = HeaderMap::new();
    let url = match config.kind {
        ProviderKind::Openai => {
            if let Some(auth) = http.key_header("Bearer ")? {
                headers.insert(AUTHORIZATION, auth);
            }
            if let Some(obj) = body.as_object_mut() {
                obj.insert("stream".into(), true.into());
                // The usage comes in a last chunk only when asked for.
                obj.insert(
                    "stream_options".into(),
                    serde_json::json!({"include_usage": true}),
                );
            }
            openai::endpoint(http.base_url)
        }
        ProviderKind::Anthropic => {
            headers.insert(
                HeaderName::from_static("anthropic-version"),
                HeaderValue::from_static(anthropic::API_VERSION),
            );
            if let Some(key) = http.key_header("")? {
                headers.insert(HeaderName::from_static("x-api-key"), key);
            }
            if let Some(obj) = body.as_object_mut() {
                obj.insert("stream".into(), true.into());
            }
            anthropic::endpoint(http.base_url)
        }
    };
    let mut reader = ReplyReader::new();
    let kind = config.kind;
    http.post_events(&url, headers, &body, limits.whole, |data| {
        let before = reader.progress();
        let deltas = match kind {
            ProviderKind::Openai => reader.openai(data),
            ProviderKind::Anthropic => reader.anthropic(data),
        }
        .map_err(|e| ProviderError::Stream(e.to_string()))?;
        deltas.into_iter().for_each(&mut on_delta);
        Ok(reader.progress() != before)
    })
    .await
    .map_err(|e| match e {
        ProviderError::Stream(m) => ProviderError::Stream(http.scrub_cut(&m)),
        other => other,
    })?;
    reader
        .finish()
        .map_err(|e| ProviderError::Stream(e.to_string()))
}

#[cfg(test)]
mod tests;
