//! Why a provider's answer could not be had, in words the user can act on.

use std::time::Duration;

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

/// Why a model could not be asked: its API key could not be read, or the provider failed.
#[derive(Debug, thiserror::Error)]
pub enum AskError {
    #[error("{0}")]
    Key(#[from] super::ApiKeyError),
    #[error("{}", .0.user_message())]
    Provider(#[from] ProviderError),
}
