//! The HTTP exchange shared by every provider: one deadline for every attempt, the status codes mapped to
//! [`ProviderError`], and the key scrubbed from any text that comes back.

use std::time::{Duration, Instant};

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE, RETRY_AFTER};
use serde_json::Value;

use super::api_key::ApiKey;
use super::{ProviderConfig, ProviderError};

/// The provider's error text is shown to the user; a proxy's HTML page or a stack trace must not fill the dialog.
pub(super) const MAX_ERROR_CHARS: usize = 300;
/// A completion is a few kilobytes; a larger answer is a misconfigured endpoint, not something to buffer without end.
const MAX_BODY_BYTES: usize = 8 * 1024 * 1024;
/// One event of a streamed reply is a few hundred bytes; one this large is no model's.
const MAX_EVENT_BYTES: usize = 4 * 1024 * 1024;

/// A provider's entry and its key: what each exchange with it starts from.
pub(super) struct Endpoint {
    config: ProviderConfig,
    key: Option<ApiKey>,
}

impl Endpoint {
    pub(super) fn new(config: ProviderConfig, key: Option<&str>) -> Endpoint {
        Endpoint {
            config,
            key: key.map(ApiKey::new),
        }
    }

    /// One exchange, every attempt of it within `timeout`.
    pub(super) fn http(&self, timeout: Duration) -> Result<Http<'_>, ProviderError> {
        Http::new(&self.config, self.key.as_ref().map(ApiKey::expose), timeout)
    }
}

/// One exchange with a provider: the client, the key, the deadline shared by every attempt.
pub(super) struct Http<'a> {
    client: reqwest::Client,
    pub(super) base_url: &'a str,
    key: Option<ApiKey>,
    secret: Option<&'a str>,
    timeout: Duration,
    deadline: Instant,
}

impl<'a> Http<'a> {
    pub(super) fn new(
        config: &'a ProviderConfig,
        key: Option<&str>,
        timeout: Duration,
    ) -> Result<Self, ProviderError> {
        let mut builder = reqwest::Client::builder();
        // A system proxy would swallow requests meant for a model server on this machine (Ollama, llama.cpp).
        if is_loopback(&config.base_url) {
            builder = builder.no_proxy();
        }
        let client = builder
            .build()
            .map_err(|e| ProviderError::Unreachable(format!("no HTTP client: {e}")))?;
        if let Some(key) = key {
            // Whatever quotes it later (an error, a tool result, a log line) must not show it, even cut.
            crate::redact::learn_runtime_secret(key);
        }
        Ok(Http {
            client,
            base_url: &config.base_url,
            key: key.map(ApiKey::new),
            secret: config.api_key_secret.as_deref(),
            timeout,
            deadline: Instant::now() + timeout,
        })
    }

    fn unauthorized(&self) -> ProviderError {
        ProviderError::Unauthorized {
            secret: self.secret.map(str::to_string),
        }
    }

    /// The key as a header value marked sensitive (hidden from the HTTP stack's own Debug output).
    pub(super) fn key_header(&self, prefix: &str) -> Result<Option<HeaderValue>, ProviderError> {
        let Some(key) = self.key.as_ref().filter(|k| !k.expose().is_empty()) else {
            return Ok(None);
        };
        let mut value = HeaderValue::from_str(&format!("{prefix}{}", key.expose()))
            .map_err(|_| self.unauthorized())?;
        value.set_sensitive(true);
        Ok(Some(value))
    }

    /// Replaces the key wherever a provider or the network stack echoed it, and every other secret the process
    /// knows (a server's token a proxy quoted back, a credential in a form field).
    pub(super) fn scrub(&self, text: &str) -> String {
        let text = match self.key.as_ref().map(ApiKey::expose) {
            Some(key) if key.len() >= 4 => text.replace(key, "***"),
            _ => text.to_string(),
        };
        crate::redact::Redactor::default()
            .redact_secrets(&text)
            .into_owned()
    }

    /// [`Http::scrub`], then cut to [`MAX_ERROR_CHARS`] so that no piece of a secret is left at the cut.
    pub(super) fn scrub_cut(&self, text: &str) -> String {
        truncate(&self.scrub(text), MAX_ERROR_CHARS)
    }

    /// POSTs `body` and returns the JSON of a 2xx answer; anything else becomes the matching error.
    pub(super) async fn post(
        &self,
        url: &str,
        headers: HeaderMap,
        body: &Value,
    ) -> Result<Value, ProviderError> {
        let remaining = self.deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Err(ProviderError::Timeout(self.timeout));
        }
        let sent = self
            .json_post(url, headers, body)?
            .timeout(remaining)
            .send()
            .await;
        self.json_answer(sent).await
    }

    /// GETs `url` and returns the JSON of a 2xx answer, bounded as a POST's answer is.
    pub(super) async fn get(&self, url: &str, headers: HeaderMap) -> Result<Value, ProviderError> {
        let sent = self
            .client
            .get(url)
            .headers(headers)
            .timeout(self.timeout)
            .send()
            .await;
        self.json_answer(sent).await
    }

    /// POSTs `body` (a request with `"stream": true`) and gives the data of each event of the answer's event
    /// stream to `on_event`, which says whether the event added to the reply, until the stream ends. The stream
    /// ends in an error when the reply has not grown for the timeout (events that add nothing, such as keep-alives,
    /// do not count) or has streamed for `whole`: a long reply is fine, a stalled or endless one is not. An answer
    /// that is not a stream becomes the matching error.
    pub(super) async fn post_events(
        &self,
        url: &str,
        headers: HeaderMap,
        body: &Value,
        whole: Duration,
        mut on_event: impl FnMut(&str) -> Result<bool, ProviderError>,
    ) -> Result<(), ProviderError> {
        let ends_at = tokio::time::Instant::now() + whole;
        use futures::{StreamExt, TryStreamExt};
        let sent = self.json_post(url, headers, body)?.send();
        let response = tokio::time::timeout(self.timeout, sent)
            .await
            .map_err(|_| ProviderError::Timeout(self.timeout))?
            .map_err(|e| self.transport_error(&e))?;
        let status = response.status();
        if !status.is_success() {
            let retry_after = retry_after(response.headers());
            let body = tokio::time::timeout(self.timeout, self.read_body(response))
                .await
                .map_err(|_| ProviderError::Timeout(self.timeout))??;
            return Err(self.refusal(status.as_u16(), retry_after, &body));
        }
        let chunks = response.bytes_stream().map_err(std::io::Error::other);
        let mut events = sse_stream::SseStream::from_bytes_stream(crate::sse::bounded_events(
            chunks,
            MAX_EVENT_BYTES,
        ));
        let mut grew = false;
        let mut idle_until = tokio::time::Instant::now() + self.timeout;
        loop {
            let until = idle_until.min(ends_at);
            let Ok(next) = tokio::time::timeout_at(until, events.next()).await else {
                return Err(if until == ends_at {
                    ProviderError::ReplyTooLong(whole)
                } else if grew {
                    ProviderError::Stalled(self.timeout)
                } else {
                    ProviderError::Timeout(self.timeout)
                });
            };
            match next {
                None => return Ok(()),
                Some(Ok(event)) => {
                    if let Some(data) = event.data.as_deref() {
                        if on_event(data)? {
                            grew = true;
                            idle_until = tokio::time::Instant::now() + self.timeout;
                        }
                    }
                }
                Some(Err(e)) => {
                    return Err(ProviderError::Unreachable(
                        self.scrub(&format!("{}: the reply stream broke: {e}", self.base_url)),
                    ))
                }
            }
        }
    }

    /// The JSON of a 2xx answer, bounded; anything else becomes the matching error.
    async fn json_answer(
        &self,
        sent: Result<reqwest::Response, reqwest::Error>,
    ) -> Result<Value, ProviderError> {
        let response = sent.map_err(|e| self.transport_error(&e))?;
        let status = response.status();
        let retry_after = retry_after(response.headers());
        let body = self.read_body(response).await?;
        match status.as_u16() {
            200..=299 => serde_json::from_slice(&body).map_err(|e| {
                ProviderError::Malformed(self.scrub(&format!("the body is not JSON ({e})")))
            }),
            code => Err(self.refusal(code, retry_after, &body)),
        }
    }

    /// A POST of `body` as JSON.
    fn json_post(
        &self,
        url: &str,
        headers: HeaderMap,
        body: &Value,
    ) -> Result<reqwest::RequestBuilder, ProviderError> {
        let bytes = serde_json::to_vec(body)
            .map_err(|e| ProviderError::InvalidParams(format!("cannot encode the request: {e}")))?;
        Ok(self
            .client
            .post(url)
            .headers(headers)
            .header(CONTENT_TYPE, "application/json")
            .body(bytes))
    }

    /// The body of an answer, bounded.
    async fn read_body(&self, mut response: reqwest::Response) -> Result<Vec<u8>, ProviderError> {
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| self.transport_error(&e))?
        {
            if body.len() + chunk.len() > MAX_BODY_BYTES {
                return Err(ProviderError::Malformed(format!(
                    "the answer is larger than {} MiB",
                    MAX_BODY_BYTES / (1024 * 1024)
                )));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    /// The error of an answer that is not a success.
    fn refusal(&self, status: u16, retry_after: Option<Duration>, body: &[u8]) -> ProviderError {
        match status {
            401 | 403 => self.unauthorized(),
            429 => ProviderError::RateLimited { retry_after },
            code => ProviderError::Http {
                status: code,
                message: self.scrub_cut(&error_message(body)),
            },
        }
    }

    fn transport_error(&self, e: &reqwest::Error) -> ProviderError {
        if e.is_timeout() {
            return ProviderError::Timeout(self.timeout);
        }
        // reqwest's own text is "error sending request for url (...)"; the cause at the end of the chain is the
        // part a user can act on ("Connection refused", "failed to lookup address").
        let mut cause: &dyn std::error::Error = e;
        while let Some(next) = cause.source() {
            cause = next;
        }
        let detail = if e.is_connect() {
            format!("{}: {cause}", self.base_url)
        } else {
            format!("{}: {e}: {cause}", self.base_url)
        };
        ProviderError::Unreachable(self.scrub(&detail))
    }
}

pub(super) fn is_loopback(base_url: &str) -> bool {
    match url::Url::parse(base_url)
        .ok()
        .and_then(|u| u.host().map(|h| h.to_owned()))
    {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// `Retry-After` in seconds (the HTTP-date form is not used by LLM APIs); `retry-after-ms` where only that is sent.
pub(super) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = |name: &HeaderName| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok())
    };
    // `try_from`: a huge or negative value from a broken proxy is no retry hint, and must not panic.
    value(&RETRY_AFTER)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .or_else(|| {
            value(&HeaderName::from_static("retry-after-ms"))
                .and_then(|ms| Duration::try_from_secs_f64(ms / 1000.0).ok())
        })
}

/// The provider's own explanation: `error.message` (OpenAI, Anthropic), `error` as a string (Ollama), `message`,
/// else the body's text. Not truncated here: the key is scrubbed first (see [`truncate`]), so no cut can leave half
/// of it behind.
pub(super) fn error_message(body: &[u8]) -> String {
    let from_json = serde_json::from_slice::<Value>(body).ok().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .or_else(|| v.get("message"))
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    let text = from_json.unwrap_or_else(|| String::from_utf8_lossy(body).trim().to_string());
    if text.is_empty() {
        return "no error message".to_string();
    }
    text
}

pub(super) fn malformed(msg: impl Into<String>) -> ProviderError {
    ProviderError::Malformed(msg.into())
}

/// A 2xx answer without the list it must have (`what`): some gateways answer 200 with an error object, whose text
/// is then the useful part, masked before it is cut (the key is known to every redactor once it is used).
pub(super) fn missing(answer: &serde_json::Value, what: &str) -> ProviderError {
    match answer
        .pointer("/error/message")
        .and_then(serde_json::Value::as_str)
    {
        Some(m) => malformed(format!(
            "no `{what}`; the provider said: {}",
            truncate(m, MAX_ERROR_CHARS)
        )),
        None => malformed(format!("no `{what}` in the answer")),
    }
}

/// `text` cut to `max_chars` (and `…`), masked first and with what is left of a secret at the cut masked too: a
/// key the provider quoted across the cut is never half kept.
pub(super) fn truncate(text: &str, max_chars: usize) -> String {
    crate::redact::Redactor::default().cut_secrets(text, max_chars)
}
