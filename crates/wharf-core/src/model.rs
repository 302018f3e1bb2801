//! The model layer: everything that talks to a model provider, behind one trait. A [`Model`] streams a reply to a
//! conversation (chat), completes one sampling request (a server's `sampling/createMessage`) and lists the models
//! its provider offers. Each provider's wire format lives in its own file: `openai.rs` (OpenAI-compatible Chat
//! Completions: OpenAI, Ollama, LM Studio, vLLM, llama.cpp, the demo model) and `anthropic.rs` (the Messages API).
//! [`model_for`] is the one place that picks the file from the configured kind; no code outside this module names
//! a provider kind.
//!
//! Beside them: the provider entry of mcp.json (`provider.rs`), the key from the keyring (`api_key.rs`), the HTTP
//! exchange every provider shares (`http.rs`), the bounds of a streamed reply (`reply.rs`), and the model runtimes
//! on this computer with what they say of tool calling (`local.rs`, `tool_support.rs`).

mod anthropic;
mod api_key;
mod error;
#[cfg(test)]
pub mod fake;
mod http;
mod local;
mod mcp;
mod message;
mod openai;
mod provider;
mod reply;
#[cfg(test)]
mod tests;
mod tool_support;

use std::time::Duration;

use async_trait::async_trait;
use reqwest::header::HeaderMap;
use serde_json::Value;

pub use api_key::ApiKeyError;
pub use error::{AskError, ProviderError};
pub use local::{detect_local, LocalRuntime, KNOWN_RUNTIMES, PROBE_TIMEOUT};
pub use mcp::SampledMessage;
pub use message::{ChatRequest, ModelImage, ToolSpec, TurnMessage};
pub use provider::{ProviderConfig, ProviderConfigError, ProviderKind};
pub use reply::{Delta, Reply, StopReason, ToolCall, Usage};
pub use tool_support::{tool_support, RuntimeKind, ToolSupport};

use crate::display_text::one_line;

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

/// One completion a server asked for: its `CreateMessageRequestParams` as it stands after the user's review, the
/// model chosen for it, the most tokens to ask for (never more than the request's own `maxTokens`), and how long
/// the whole exchange may take, retries included.
///
/// Requests and results stay MCP-shaped JSON here: the review dialog shows and edits exactly what the server sent
/// and what goes back, and only the providers' files know their own shapes.
#[derive(Debug, Clone, Copy)]
pub struct Completion<'a> {
    pub params: &'a Value,
    pub model: &'a str,
    pub max_tokens: u32,
    pub timeout: Duration,
}

/// A model behind its provider, with the key it was opened with. The key is sent only in the provider's own auth
/// header, and no error ever holds it.
#[async_trait]
pub trait Model: Send + Sync {
    /// The reply to `request`, streamed: each piece of text and each tool call as it begins is given to `on_delta`,
    /// and the whole reply is returned once the provider says it is complete, within `limits`.
    async fn stream(
        &self,
        request: &ChatRequest<'_>,
        limits: ReplyLimits,
        on_delta: &mut (dyn FnMut(Delta) + Send),
    ) -> Result<Reply, ProviderError>;

    /// One completion of a sampling request, answered as a `CreateMessageResult`.
    async fn complete(&self, request: &Completion<'_>) -> Result<SampledMessage, ProviderError>;

    /// The ids of the models the provider offers, in its order, as it answers within `timeout`.
    async fn list_models(&self, timeout: Duration) -> Result<Vec<String>, ProviderError>;
}

/// Where the models of chat and sampling come from: the configured providers with their keys (see [`Keyring`]),
/// or, in a test, a model in the same process.
#[async_trait]
pub trait ModelOpener: Send + Sync {
    async fn open(&self, provider: &ProviderConfig) -> Result<Box<dyn Model>, ApiKeyError>;
}

/// Opens a provider's model with the key its entry names, read from the OS keyring when it is opened.
#[derive(Debug, Clone, Copy, Default)]
pub struct Keyring;

#[async_trait]
impl ModelOpener for Keyring {
    async fn open(&self, provider: &ProviderConfig) -> Result<Box<dyn Model>, ApiKeyError> {
        open(provider).await
    }
}

/// The model of `provider`'s entry with the key it names, read from the OS keyring.
pub async fn open(provider: &ProviderConfig) -> Result<Box<dyn Model>, ApiKeyError> {
    let key = api_key::api_key(provider).await?;
    Ok(model_for(
        provider,
        key.as_ref().map(crate::secrets::Secret::expose),
    ))
}

/// The model of `provider`'s entry, reached with `key` (none for a local endpoint without one).
pub fn model_for(provider: &ProviderConfig, key: Option<&str>) -> Box<dyn Model> {
    match provider.kind {
        ProviderKind::Openai => Box::new(openai::OpenAi::new(provider.clone(), key)),
        ProviderKind::Anthropic => Box::new(anthropic::Anthropic::new(provider.clone(), key)),
    }
}

/// The most model names kept from one answer.
const MAX_MODELS: usize = 500;

/// The model list at `url`: `{"data": [{"id": ...}, ...]}`, the shape every provider answers with.
async fn listed_models(
    http: &http::Http<'_>,
    url: &str,
    headers: HeaderMap,
) -> Result<Vec<String>, ProviderError> {
    let answer = http.get(url, headers).await?;
    model_ids(&answer).ok_or_else(|| {
        ProviderError::Malformed("the model list has no \"data\" list of models with ids".into())
    })
}

/// The ids of a model list, made safe to show.
fn model_ids(answer: &Value) -> Option<Vec<String>> {
    let data = answer.get("data")?.as_array()?;
    Some(
        data.iter()
            .filter_map(|m| m.get("id")?.as_str())
            .filter(|id| !id.trim().is_empty())
            .take(MAX_MODELS)
            .map(|id| one_line(id, 200))
            .collect(),
    )
}
