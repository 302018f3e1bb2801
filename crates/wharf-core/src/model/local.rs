//! The model runtimes found running on this computer (Ollama, LM Studio, a llama.cpp server), for a first run with
//! nothing configured: each one's models, and what it says of their tool calling.

use std::time::Duration;

use serde::Serialize;

use super::tool_support::{tool_support, RuntimeKind, ToolSupport};
use super::{model_for, ProviderConfig};

/// How long a local runtime may take to answer before it is taken for absent.
pub const PROBE_TIMEOUT: Duration = Duration::from_millis(800);

/// A model runtime answering on this computer.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LocalRuntime {
    /// What it usually is on that port ("Ollama", "LM Studio", "llama.cpp server").
    pub name: String,
    /// The OpenAI-compatible base URL to configure.
    pub base_url: String,
    pub models: Vec<String>,
    /// What the runtime says of each model's tool calling (`unknown` where it does not say).
    pub tools: std::collections::BTreeMap<String, ToolSupport>,
}

/// The usual loopback addresses of the local runtimes, as (name, OpenAI-compatible base URL, which runtime).
pub const KNOWN_RUNTIMES: [(&str, &str, RuntimeKind); 3] = [
    ("Ollama", "http://127.0.0.1:11434/v1", RuntimeKind::Ollama),
    (
        "LM Studio",
        "http://127.0.0.1:1234/v1",
        RuntimeKind::LmStudio,
    ),
    (
        "llama.cpp server",
        "http://127.0.0.1:8080/v1",
        RuntimeKind::LlamaCpp,
    ),
];

/// Which of `candidates` answer with a model list, probed together, each within `timeout`, and what each says of
/// its models' tool calling. Nothing else is reached: only loopback addresses are probed.
pub async fn detect_local(
    candidates: &[(&str, &str, RuntimeKind)],
    timeout: Duration,
) -> Vec<LocalRuntime> {
    let probes = candidates
        .iter()
        .filter(|(_, url, _)| super::http::is_loopback(url))
        .map(|(name, url, kind)| async move {
            let config = ProviderConfig::openai_compatible(url, "");
            let models = model_for(&config, None).list_models(timeout).await.ok()?;
            let tools = tool_support(url, Some(*kind), &models, timeout).await;
            Some(LocalRuntime {
                name: name.to_string(),
                base_url: url.to_string(),
                models,
                tools,
            })
        });
    futures::future::join_all(probes)
        .await
        .into_iter()
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ProviderError;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A loopback server that answers every request with `body` (200) and counts requests.
    async fn serve(body: &'static str) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf).await;
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(answer.as_bytes()).await;
            }
        });
        format!("http://{addr}/v1")
    }

    #[tokio::test]
    async fn a_runtime_that_answers_is_found_and_one_that_does_not_is_not() {
        let up = serve(
            r#"{"object":"list","data":[{"id":"qwen3:4b"},{"id":"llama3.2\u001b[2J"},{"x":1}]}"#,
        )
        .await;
        let closed = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            format!("http://{}/v1", l.local_addr().unwrap())
        };
        let found = detect_local(
            &[
                ("Ollama", &up, RuntimeKind::Ollama),
                ("LM Studio", &closed, RuntimeKind::LmStudio),
                ("far", "http://192.0.2.1:11434/v1", RuntimeKind::Ollama),
            ],
            PROBE_TIMEOUT,
        )
        .await;
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].name, "Ollama");
        assert_eq!(found[0].base_url, up);
        assert_eq!(found[0].models[0], "qwen3:4b");
        assert!(
            !found[0].models[1].contains('\u{1b}'),
            "{:?}",
            found[0].models
        );
        assert_eq!(found[0].models.len(), 2);
        // A runtime that answers every route with its model list says nothing of tools.
        assert_eq!(found[0].tools["qwen3:4b"], ToolSupport::Unknown);
    }

    #[tokio::test]
    async fn a_list_without_data_is_malformed() {
        let url = serve(r#"{"models": []}"#).await;
        let config = ProviderConfig::openai_compatible(&url, "");
        let err = model_for(&config, None)
            .list_models(PROBE_TIMEOUT)
            .await
            .unwrap_err();
        assert!(matches!(err, ProviderError::Malformed(_)), "{err}");
    }
}
