//! LLM providers for sampling: a server's `sampling/createMessage` answered through an OpenAI-compatible Chat
//! Completions endpoint (OpenAI, Ollama, LM Studio, vLLM, llama.cpp) or the Anthropic Messages API.
//!
//! Requests and results stay MCP-shaped JSON at this boundary (`CreateMessageRequestParams` in,
//! `CreateMessageResult` out): the review dialog shows and edits exactly what the server sent and what goes back, and
//! only this module knows the providers' shapes.

mod anthropic;
mod choice;
mod http;
mod mcp;
pub mod models;
mod openai;
mod streaming;
#[cfg(test)]
mod tests;

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use choice::choose_model;
use http::Http;
pub use streaming::{stream_reply, ReplyLimits};

/// Why the API key a provider entry names could not be had.
#[derive(Debug, thiserror::Error)]
pub enum ApiKeyError {
    #[error("cannot open the keyring for the API key {name}: {reason}")]
    Keyring { name: String, reason: String },
    #[error("cannot read the API key {name} from the keyring: {reason}")]
    Read { name: String, reason: String },
    #[error(
        "no API key is stored under \"{0}\": store it with `wharf secret set {0}` or in the app's settings"
    )]
    Missing(String),
}

/// The API key `provider.apiKeySecret` names, from the OS keyring; none for an entry that names none.
pub async fn api_key(
    provider: &ProviderConfig,
) -> Result<Option<crate::secrets::Secret>, ApiKeyError> {
    let Some(name) = &provider.api_key_secret else {
        return Ok(None);
    };
    let store = crate::secrets::SecretStore::open().map_err(|e| ApiKeyError::Keyring {
        name: name.clone(),
        reason: e.to_string(),
    })?;
    match store.get_async(name.clone()).await {
        Ok(Some(key)) => Ok(Some(key)),
        Ok(None) => Err(ApiKeyError::Missing(name.clone())),
        Err(e) => Err(ApiKeyError::Read {
            name: name.clone(),
            reason: e.to_string(),
        }),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// Any OpenAI-compatible Chat Completions endpoint.
    Openai,
    /// The Anthropic Messages API.
    Anthropic,
}

impl ProviderKind {
    fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::Openai => "https://api.openai.com/v1",
            ProviderKind::Anthropic => "https://api.anthropic.com",
        }
    }
}

/// mcp.json's `sampling.provider`. The key itself is never here: only the name of the keyring secret that holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ProviderConfig {
    pub kind: ProviderKind,
    /// Without a trailing slash. OpenAI-compatible: the part before `/chat/completions` (`.../v1`). Anthropic: the
    /// host, or the host with `/v1`.
    pub base_url: String,
    /// The model used when the server's preferences name none of the allowed ones.
    pub model: String,
    /// The keyring secret holding the API key (`wharf secret set NAME`); none for a local endpoint without a key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub api_key_secret: Option<String>,
    /// The models offered to servers' hints; empty means only `model`.
    #[serde(default)]
    pub models: Vec<String>,
}

/// A `sampling.provider` entry Wharf cannot use. The message is a sentence for the user that names the key; it
/// never repeats an API key written in the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ProviderConfigError {
    /// The key at fault (`baseUrl`, `kind`...), or `None` when the entry as a whole is wrong.
    pub key: Option<String>,
    pub message: String,
}

impl ProviderConfigError {
    fn at(key: &str, message: impl Into<String>) -> Self {
        ProviderConfigError {
            key: Some(key.to_owned()),
            message: message.into(),
        }
    }

    fn whole(message: impl Into<String>) -> Self {
        ProviderConfigError {
            key: None,
            message: message.into(),
        }
    }
}

impl ProviderConfig {
    /// Reads mcp.json's `sampling.provider` object (keys `kind`, `baseUrl`, `model`, `apiKeySecret`, `models`).
    /// `baseUrl` defaults to the vendor's public endpoint. An API key written in the file is refused, never used:
    /// the error names the key, never its value.
    pub fn from_json(v: &Value) -> Result<Self, ProviderConfigError> {
        let obj = v
            .as_object()
            .ok_or_else(|| ProviderConfigError::whole("sampling.provider must be an object"))?;
        if let Some(key) = ["apiKey", "api_key"].iter().find(|k| obj.contains_key(**k)) {
            return Err(ProviderConfigError::at(
                key,
                format!(
                    "sampling.provider.{key}: an API key is never read from mcp.json; store it in the OS keyring \
                     with `wharf secret set NAME` (it reads the key from stdin), put NAME in `apiKeySecret`, and \
                     delete `{key}` from the file"
                ),
            ));
        }
        let kind = match obj.get("kind") {
            Some(Value::String(s)) if s == "openai" => ProviderKind::Openai,
            Some(Value::String(s)) if s == "anthropic" => ProviderKind::Anthropic,
            Some(Value::String(s)) => {
                return Err(ProviderConfigError::at(
                    "kind",
                    format!(
                    "sampling.provider.kind: `{s}` is not a provider kind (openai or anthropic)"
                ),
                ))
            }
            Some(_) => {
                return Err(ProviderConfigError::at(
                    "kind",
                    "sampling.provider.kind must be a string (openai or anthropic)",
                ))
            }
            None => {
                return Err(ProviderConfigError::at(
                    "kind",
                    "sampling.provider.kind is missing (openai or anthropic)",
                ))
            }
        };
        let base_url = match optional_string(obj, "baseUrl")? {
            Some(url) => check_base_url(&url)?,
            None => kind.default_base_url().to_string(),
        };
        let model = optional_string(obj, "model")?.ok_or_else(|| {
            ProviderConfigError::at(
                "model",
                "sampling.provider.model is missing (the model used by default)",
            )
        })?;
        let api_key_secret = optional_string(obj, "apiKeySecret")?;
        let models = match obj.get("models") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|m| match m.as_str().map(str::trim) {
                    Some(s) if !s.is_empty() => Ok(s.to_string()),
                    _ => Err(ProviderConfigError::at(
                        "models",
                        "sampling.provider.models must hold model names (non-empty strings)",
                    )),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(ProviderConfigError::at(
                    "models",
                    "sampling.provider.models must be a list of model names",
                ))
            }
        };
        Ok(ProviderConfig {
            kind,
            base_url,
            model,
            api_key_secret,
            models,
        })
    }
}

/// A present key must be a non-empty string; an empty one is a mistake worth naming, not "unset".
fn optional_string(
    obj: &Map<String, Value>,
    key: &str,
) -> Result<Option<String>, ProviderConfigError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_string())),
        Some(_) => Err(ProviderConfigError::at(
            key,
            format!("sampling.provider.{key} must be a non-empty string"),
        )),
    }
}

fn check_base_url(raw: &str) -> Result<String, ProviderConfigError> {
    let bad = |message: String| ProviderConfigError::at("baseUrl", message);
    let url = url::Url::parse(raw).map_err(|e| {
        bad(format!(
            "sampling.provider.baseUrl: `{raw}` is not a URL ({e})"
        ))
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(bad(format!(
            "sampling.provider.baseUrl: `{raw}` must be an http:// or https:// URL"
        )));
    }
    // Credentials in the URL would be a key written in the file; the message does not repeat them.
    if url.password().is_some() || !url.username().is_empty() {
        return Err(bad(
            "sampling.provider.baseUrl must not carry credentials; store the key with `wharf secret set NAME` and \
             name it in `apiKeySecret`"
                .into(),
        ));
    }
    Ok(raw.trim_end_matches('/').to_string())
}

/// The API key while a request is under way. Its `Debug` never shows it, so no `{:?}` of a struct that holds one
/// can leak it.
#[derive(Clone, PartialEq, Eq)]
struct ApiKey(String);

impl ApiKey {
    /// Surrounding whitespace (a newline from `echo KEY |`) is never part of a key and would make an invalid header.
    fn new(key: &str) -> Self {
        ApiKey(key.trim().to_string())
    }

    fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Why a completion failed. No variant ever holds the API key: text that comes from the provider or the network
/// stack is scrubbed of it before it is stored here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    /// HTTP 401/403, or a key that cannot be sent at all. `secret` names the keyring secret to set again.
    #[error("the provider refused the API key")]
    Unauthorized { secret: Option<String> },
    #[error("the provider is rate limiting requests{}", retry_note(*.retry_after))]
    RateLimited { retry_after: Option<Duration> },
    #[error("the provider did not answer within {} ms", .0.as_millis())]
    Timeout(Duration),
    /// The reply began, then stopped growing: the stream stayed open with nothing in it (keep-alives, empty chunks).
    #[error("the provider's reply did not grow for {} ms", .0.as_millis())]
    Stalled(Duration),
    /// The reply went on past the limit for a whole reply.
    #[error("the provider's reply took longer than {} s", .0.as_secs())]
    ReplyTooLong(Duration),
    #[error("could not reach the provider: {0}")]
    Unreachable(String),
    #[error("the provider answered HTTP {status}: {message}")]
    Http { status: u16, message: String },
    #[error("the provider's answer is not in the expected shape: {0}")]
    Malformed(String),
    /// The request holds something this provider kind cannot take (audio for Anthropic, say).
    #[error("{0}")]
    Unsupported(String),
    /// The server's request is not a valid `CreateMessageRequestParams` (answer it with -32602).
    #[error("invalid sampling request: {0}")]
    InvalidParams(String),
    /// A streamed reply failed partway: the provider said so, or the stream broke its shape or its bounds.
    #[error("{0}")]
    Stream(String),
}

/// Whole seconds as such ("120"), shorter spans with a decimal ("0.3").
fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        d.as_secs().to_string()
    } else {
        format!("{:.1}", d.as_secs_f64())
    }
}

fn retry_note(after: Option<Duration>) -> String {
    after.map_or_else(String::new, |d| {
        format!(" (retry after {} s)", d.as_secs_f64().ceil())
    })
}

impl ProviderError {
    /// One sentence the user can act on.
    pub fn user_message(&self) -> String {
        match self {
            ProviderError::Unauthorized { secret: Some(name) } => format!(
                "The provider refused the API key: set it again with `wharf secret set {name}` (or in Settings)."
            ),
            ProviderError::Unauthorized { secret: None } => "The provider asks for an API key and none is \
                configured: store one with `wharf secret set NAME` and put NAME in `sampling.provider.apiKeySecret`."
                .to_string(),
            ProviderError::RateLimited {
                retry_after: Some(d),
            } => format!(
                "The provider is rate limiting requests: try again in {} seconds.",
                d.as_secs_f64().ceil()
            ),
            ProviderError::RateLimited { retry_after: None } => {
                "The provider is rate limiting requests: try again in a minute, or check your plan's limits."
                    .to_string()
            }
            ProviderError::Timeout(d) => format!(
                "The provider did not answer within {} seconds: check that it is running, or ask for fewer tokens.",
                seconds(*d)
            ),
            ProviderError::Stalled(d) => format!(
                "The model's reply stopped: the provider kept the stream open but sent nothing of the reply for {} \
                 seconds (chat.idleSeconds).",
                seconds(*d)
            ),
            ProviderError::ReplyTooLong(d) => format!(
                "The model's reply was stopped after {} seconds (chat.replySeconds): it was still streaming.",
                seconds(*d)
            ),
            ProviderError::Unreachable(detail) => format!(
                "Could not reach the provider ({detail}): check `sampling.provider.baseUrl` and that the service is \
                 running."
            ),
            ProviderError::Http { status: 404, message } => format!(
                "The provider answered 404 ({message}): check `sampling.provider.baseUrl` and the model name."
            ),
            ProviderError::Http { status, message } if *status >= 500 => format!(
                "The provider failed (HTTP {status}: {message}); try again later."
            ),
            ProviderError::Http { status, message } if is_context_overflow(*status, message) => format!(
                "The conversation is too long for the model (HTTP {status}: {message}): carry it into a new \
                 conversation with a summary, or set chat.contextTokens to the model's real window."
            ),
            ProviderError::Http { status, message } => format!(
                "The provider rejected the request (HTTP {status}: {message}); check the model name and settings."
            ),
            ProviderError::Malformed(detail) => format!(
                "The provider's answer was not understood ({detail}): check that `sampling.provider.baseUrl` points \
                 at the API of its `kind`."
            ),
            ProviderError::Unsupported(detail) => format!("{detail}."),
            ProviderError::InvalidParams(detail) => {
                format!("The server sent an invalid sampling request: {detail}.")
            }
            ProviderError::Stream(detail) => format!("The model's reply failed: {detail}."),
        }
    }
}

/// Whether a refusal says the request does not fit the model's window: OpenAI's `context_length_exceeded`, the
/// "prompt is too long" of Anthropic, the "context" wording of llama.cpp, Ollama and vLLM.
fn is_context_overflow(status: u16, message: &str) -> bool {
    let message = message.to_lowercase();
    matches!(status, 400 | 413 | 422)
        && (message.contains("context length")
            || message.contains("context_length")
            || message.contains("context window")
            || message.contains("prompt is too long")
            || message.contains("context size")
            || message.contains("exceeds the context")
            || message.contains("maximum context"))
}

/// Asks the provider for a completion of `params` (a `CreateMessageRequestParams`) with `model`, and returns a
/// `CreateMessageResult`. At most `max_tokens` are asked for, and never more than the request's own `maxTokens`.
/// `timeout` bounds the whole exchange, retries included. `api_key` (from the keyring secret the config names) is
/// sent only in the provider's auth header and never appears in an error.
pub async fn complete(
    config: &ProviderConfig,
    api_key: Option<&str>,
    params: &Value,
    model: &str,
    max_tokens: u32,
    timeout: Duration,
) -> Result<Value, ProviderError> {
    let max_tokens = effective_max_tokens(params, max_tokens)?;
    let http = Http::new(config, api_key, timeout)?;
    match config.kind {
        ProviderKind::Openai => openai::complete(&http, params, model, max_tokens).await,
        ProviderKind::Anthropic => anthropic::complete(&http, params, model, max_tokens).await,
    }
}

fn effective_max_tokens(params: &Value, given: u32) -> Result<u32, ProviderError> {
    let requested = params.get("maxTokens").and_then(Value::as_u64);
    let max = requested.map_or(given, |r| given.min(u32::try_from(r).unwrap_or(u32::MAX)));
    if max == 0 {
        return Err(ProviderError::InvalidParams(
            "maxTokens must be at least 1".into(),
        ));
    }
    Ok(max)
}
