//! Whether a local model takes tools, as its runtime says: Ollama's `POST /api/show` (`capabilities` lists
//! `"tools"`), LM Studio's `GET /api/v1/models` (`capabilities.trained_for_tool_use`, else the older
//! `GET /api/v0/models`' `capabilities` list), a llama.cpp server's `GET /props` (`chat_template_caps.supports_tools`,
//! one answer for the model it serves). A runtime that says nothing leaves a model `unknown`: chat still offers it
//! the tools, and the chooser says it could not tell.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::future::join_all;
use reqwest::header::HeaderMap;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::http::{is_loopback, Http};
use super::ProviderConfig;

/// The most models one runtime is asked about: Ollama answers per model, and a chooser shows a few dozen at most.
const MAX_ASKED: usize = 64;

/// What a runtime says of a model's tool calling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum ToolSupport {
    /// The runtime says the model takes tools.
    Yes,
    /// The runtime says it does not: chat would not offer it the servers' tools.
    No,
    /// The runtime does not say (or could not be asked).
    Unknown,
}

/// Which runtime answers at an address, for knowing how to ask it about tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeKind {
    Ollama,
    LmStudio,
    LlamaCpp,
}

/// What each of `models` takes, as the runtime at `base_url` (an OpenAI-compatible base URL) says; `kind` when it is
/// known, else each kind's way is tried in turn and the first that answers is believed. Only loopback addresses are
/// asked: a provider elsewhere gets no requests beyond those the user configured.
pub async fn tool_support(
    base_url: &str,
    kind: Option<RuntimeKind>,
    models: &[String],
    timeout: Duration,
) -> BTreeMap<String, ToolSupport> {
    let mut found = BTreeMap::new();
    if is_loopback(base_url) && !models.is_empty() {
        let root = runtime_root(base_url);
        let kinds = match kind {
            Some(kind) => vec![kind],
            None => vec![
                RuntimeKind::Ollama,
                RuntimeKind::LmStudio,
                RuntimeKind::LlamaCpp,
            ],
        };
        for kind in kinds {
            if let Some(said) = ask(kind, &root, models, timeout).await {
                found = said;
                break;
            }
        }
    }
    models
        .iter()
        .map(|m| {
            let said = found.get(m).copied().unwrap_or(ToolSupport::Unknown);
            (m.clone(), said)
        })
        .collect()
}

/// The runtime's own address: the OpenAI-compatible base URL without its `/v1`.
fn runtime_root(base_url: &str) -> String {
    let trimmed = base_url.trim_end_matches('/');
    trimmed
        .strip_suffix("/v1")
        .unwrap_or(trimmed)
        .trim_end_matches('/')
        .to_string()
}

/// What `kind`'s API says of `models`, or `None` when the runtime does not answer that API.
async fn ask(
    kind: RuntimeKind,
    root: &str,
    models: &[String],
    timeout: Duration,
) -> Option<BTreeMap<String, ToolSupport>> {
    let config = ProviderConfig::openai_compatible(root, "");
    let http = Http::new(&config, None, timeout).ok()?;
    match kind {
        RuntimeKind::Ollama => {
            let url = format!("{root}/api/show");
            let asked = models.iter().take(MAX_ASKED).map(|model| {
                let (http, url) = (&http, &url);
                async move {
                    let answer = http
                        .post(url, HeaderMap::new(), &json!({ "model": model }))
                        .await
                        .ok()?;
                    Some((model.clone(), ollama_capabilities(&answer)?))
                }
            });
            let said: BTreeMap<_, _> = join_all(asked).await.into_iter().flatten().collect();
            (!said.is_empty()).then_some(said)
        }
        RuntimeKind::LmStudio => {
            if let Ok(answer) = http
                .get(&format!("{root}/api/v1/models"), HeaderMap::new())
                .await
            {
                if let Some(said) = lm_studio_v1(&answer) {
                    return Some(said);
                }
            }
            let answer = http
                .get(&format!("{root}/api/v0/models"), HeaderMap::new())
                .await
                .ok()?;
            lm_studio_v0(&answer)
        }
        RuntimeKind::LlamaCpp => {
            let answer = http
                .get(&format!("{root}/props"), HeaderMap::new())
                .await
                .ok()?;
            let said = llama_cpp_props(&answer)?;
            Some(models.iter().map(|m| (m.clone(), said)).collect())
        }
    }
}

/// Ollama's `/api/show`: `capabilities` is a list such as `["completion", "tools"]`; older versions send none.
fn ollama_capabilities(answer: &Value) -> Option<ToolSupport> {
    let capabilities = answer.get("capabilities")?.as_array()?;
    Some(yes_if(
        capabilities.iter().any(|c| c.as_str() == Some("tools")),
    ))
}

/// LM Studio's `/api/v1/models`: `{"models": [{"key", "capabilities": {"trained_for_tool_use": bool}}]}`.
fn lm_studio_v1(answer: &Value) -> Option<BTreeMap<String, ToolSupport>> {
    let models = answer.get("models")?.as_array()?;
    let said: BTreeMap<_, _> = models
        .iter()
        .filter_map(|m| {
            let key = m.get("key")?.as_str()?;
            let trained = m
                .get("capabilities")?
                .get("trained_for_tool_use")?
                .as_bool()?;
            Some((key.to_string(), yes_if(trained)))
        })
        .collect();
    (!said.is_empty()).then_some(said)
}

/// LM Studio's older `/api/v0/models`: `{"data": [{"id", "capabilities": ["tool_use"]}]}`, the list naming only what
/// a model has; a model without the list is not known either way.
fn lm_studio_v0(answer: &Value) -> Option<BTreeMap<String, ToolSupport>> {
    let models = answer.get("data")?.as_array()?;
    let said: BTreeMap<_, _> = models
        .iter()
        .filter_map(|m| {
            let id = m.get("id")?.as_str()?;
            let capabilities = m.get("capabilities")?.as_array()?;
            let tools = capabilities.iter().any(|c| c.as_str() == Some("tool_use"));
            Some((id.to_string(), yes_if(tools)))
        })
        .collect();
    (!said.is_empty()).then_some(said)
}

/// A llama.cpp server's `/props`: `chat_template_caps.supports_tools`, what the loaded model's chat template can do.
fn llama_cpp_props(answer: &Value) -> Option<ToolSupport> {
    let supports = answer
        .get("chat_template_caps")?
        .get("supports_tools")?
        .as_bool()?;
    Some(yes_if(supports))
}

fn yes_if(takes_tools: bool) -> ToolSupport {
    if takes_tools {
        ToolSupport::Yes
    } else {
        ToolSupport::No
    }
}

#[cfg(test)]
mod tests;
