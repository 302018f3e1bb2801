//! The model chat uses, as a chooser sees it: the models its provider lists, and a choice written into the
//! configuration file in place (comments and every other key kept). `wharf models` lists the same way.

use std::time::Duration;

use serde::Serialize;

use crate::chat::turn::ChatSettings;
use crate::config::edit::ConfigDocument;
use crate::display_text::one_line;
use crate::facade::ErrorCode;
use crate::sampling::provider::models::list_models;
use crate::sampling::provider::{api_key, ProviderConfig};

/// How long a provider may take to list its models.
pub const LIST_TIMEOUT: Duration = Duration::from_secs(15);
/// The longest model name accepted: names are ids such as `qwen3:30b-a3b-instruct-2507-q4_K_M`, never prose.
const MODEL_CHARS: usize = 200;

/// What the model chooser shows.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ChatModels {
    /// The model chat uses now.
    pub current: String,
    /// The models the provider lists, in its order; empty when it could not be asked.
    pub models: Vec<String>,
    /// Why the models could not be listed (the chooser says so and the current model stays).
    pub error: Option<String>,
}

/// Why a model could not be chosen.
#[derive(Debug, thiserror::Error)]
pub enum ModelChoiceError {
    #[error(
        "a model is chosen by its name: one line of at most {MODEL_CHARS} characters, not empty"
    )]
    Invalid,
    #[error("{path}: {reason}")]
    Edit { path: String, reason: String },
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}

impl ModelChoiceError {
    pub fn code(&self) -> ErrorCode {
        match self {
            ModelChoiceError::Invalid => ErrorCode::Invalid,
            ModelChoiceError::Edit { .. } => ErrorCode::Config,
            ModelChoiceError::Write { .. } => ErrorCode::Write,
        }
    }
}

/// The ids of the models `provider` offers, with its API key from the keyring; the reason, for the user, when they
/// cannot be listed.
pub async fn provider_models(
    provider: &ProviderConfig,
    timeout: Duration,
) -> Result<Vec<String>, String> {
    let key = api_key(provider)
        .await
        .map_err(|e| e.to_string())?
        .map(crate::secrets::Secret::into_inner);
    list_models(provider, key.as_deref(), timeout)
        .await
        .map_err(|e| e.user_message())
}

/// The chooser's list for chat's `settings`. The demo model stands alone: it is the only one the demo server runs.
pub async fn chat_models(settings: &ChatSettings, timeout: Duration) -> ChatModels {
    let current = settings.provider.model.clone();
    if settings.demo {
        return ChatModels {
            current,
            models: Vec::new(),
            error: Some(
                "the demo model is the only one this run offers: choose a provider in Settings to use your own"
                    .into(),
            ),
        };
    }
    match provider_models(&settings.provider, timeout).await {
        Ok(models) => ChatModels {
            current,
            models,
            error: None,
        },
        Err(why) => ChatModels {
            current,
            models: Vec::new(),
            error: Some(why),
        },
    }
}

/// Writes `model` as the one chat uses (see [`ConfigDocument::set_chat_model`]) and saves the file atomically. The
/// caller reads the configuration again so that the next turn uses it.
pub fn choose_chat_model(doc: &mut ConfigDocument, model: &str) -> Result<(), ModelChoiceError> {
    let model = model.trim();
    if model.is_empty()
        || model.chars().count() > MODEL_CHARS
        || one_line(model, MODEL_CHARS) != model
    {
        return Err(ModelChoiceError::Invalid);
    }
    let path = doc.path.display().to_string();
    doc.set_chat_model(model)
        .map_err(|e| ModelChoiceError::Edit {
            path: path.clone(),
            reason: e.to_string(),
        })?;
    doc.save()
        .map_err(|source| ModelChoiceError::Write { path, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> (tempfile::TempDir, ConfigDocument) {
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = dir.path().join("mcp.json");
        std::fs::write(&path, text).expect("written");
        let doc = ConfigDocument::load(&path).expect("loaded");
        (dir, doc)
    }

    #[test]
    fn a_chosen_model_is_saved_in_the_file_with_its_comments() {
        let text = "{\n  // mine\n  \"chat\": {\"provider\": {\"kind\": \"openai\", \"baseUrl\": \"http://127.0.0.1:1/v1\", \"model\": \"a\"}},\n  \"servers\": {}\n}\n";
        let (_dir, mut doc) = doc(text);
        choose_chat_model(&mut doc, " scripted-large ").expect("chosen");
        let saved = std::fs::read_to_string(&doc.path).expect("read");
        assert_eq!(saved, text.replace("\"a\"", "\"scripted-large\""));
        let config = crate::config::Config::load(&doc.path).expect("loads");
        assert!(
            matches!(config.chat_provider(), Some(Ok(p)) if p.model == "scripted-large"),
            "{:?}",
            config.chat_provider()
        );
    }

    #[test]
    fn a_name_that_is_not_one_line_or_a_file_without_a_provider_is_refused_and_nothing_written() {
        let text = "{\"servers\": {}}";
        let (_dir, mut doc) = doc(text);
        for bad in ["", "  ", "a\nb", "a\u{1b}[31m"] {
            let err = choose_chat_model(&mut doc, bad).expect_err(bad);
            assert_eq!(err.code(), ErrorCode::Invalid, "{bad:?}: {err}");
        }
        let err = choose_chat_model(&mut doc, "m").expect_err("no provider");
        assert_eq!(err.code(), ErrorCode::Config);
        assert!(err.to_string().contains("names no model provider"), "{err}");
        assert_eq!(std::fs::read_to_string(&doc.path).expect("read"), text);
    }
}
