//! `wharf models`: the models the configured chat provider offers, and the model runtimes answering on this
//! computer's usual loopback ports (Ollama, LM Studio, a llama.cpp server), each model marked with whether it takes
//! tools as its runtime says, for choosing one (docs/cli.md, "chat").

use std::process::ExitCode;

use serde_json::{json, Value};
use wharf_core::config::Config;
use wharf_core::facade::chat::chat_settings;
use wharf_core::facade::chat_model::{provider_models, DEMO_MODEL_LIMITS, LIST_TIMEOUT};
use wharf_core::model::{detect_local, tool_support, KNOWN_RUNTIMES, PROBE_TIMEOUT};

use crate::{output, Failure};

pub async fn run(config: &Config) -> Result<ExitCode, Failure> {
    let configured: Value = match chat_settings(config) {
        Err(e) => json!({"error": e.to_string()}),
        Ok(settings) => {
            let listed = provider_models(&settings.provider, LIST_TIMEOUT).await;
            let mut entry = json!({
                "kind": settings.provider.kind,
                "baseUrl": settings.provider.base_url,
                "model": settings.provider.model,
                "demo": settings.demo,
            });
            match listed {
                Ok(models) => {
                    let tools =
                        tool_support(&settings.provider.base_url, None, &models, PROBE_TIMEOUT)
                            .await;
                    entry["models"] = json!(models);
                    entry["tools"] = json!(tools);
                }
                Err(e) => entry["error"] = json!(e.to_string()),
            }
            if settings.demo {
                entry["note"] = json!(DEMO_MODEL_LIMITS);
            }
            entry
        }
    };
    let local = detect_local(&KNOWN_RUNTIMES, PROBE_TIMEOUT).await;
    output::print_json(&output::record(
        json!({"configured": configured, "local": local}),
    ));
    Ok(ExitCode::SUCCESS)
}
