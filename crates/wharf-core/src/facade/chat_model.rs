//! The model chat uses, as a chooser sees it: the models its provider lists and the runtimes found on this
//! computer, each marked with whether it takes tools, and a choice written into the configuration file in place
//! (comments and every other key kept). `wharf models` lists the same way.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use crate::chat::turn::ChatSettings;
use crate::config::edit::ConfigDocument;
use crate::display_text::one_line;
use crate::facade::ErrorCode;
use crate::model::{
    detect_local, tool_support, AskError, LocalRuntime, ProviderConfig, ToolSupport,
    KNOWN_RUNTIMES, PROBE_TIMEOUT,
};

/// How long a provider may take to list its models.
pub const LIST_TIMEOUT: Duration = Duration::from_secs(15);
/// The longest model name accepted: names are ids such as `qwen3:30b-a3b-instruct-2507-q4_K_M`, never prose.
const MODEL_CHARS: usize = 200;

/// What the bundled demo model can and cannot do, said where it is chosen.
pub const DEMO_MODEL_LIMITS: &str = "The demo model is a tiny one bundled for trying Wharf out (Qwen2.5-Coder \
    0.5B on this computer's processor): it calls a server's tool when asked plainly (\"add 2 and 3\", \"echo \
    hello\") and answers with the result, but it misreads requests that are not plain, makes mistakes and knows \
    little. Choose a model of your own for real work.";

/// What the model chooser shows.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ChatModels {
    /// The model chat uses now.
    pub current: String,
    /// The models the provider lists, in its order; empty when it could not be asked.
    pub models: Vec<String>,
    /// What the provider's runtime says of each listed model's tool calling.
    pub tools: BTreeMap<String, ToolSupport>,
    /// Why the models could not be listed (the chooser says so and the current model stays).
    pub error: Option<String>,
    /// The model runtimes answering on this computer (other than the provider's own address), offered beside it.
    pub local: Vec<LocalRuntime>,
    /// What the user should know of the current model: the demo model's limits.
    pub note: Option<String>,
}

/// Why a model could not be chosen.
#[derive(Debug, thiserror::Error)]
pub enum ModelChoiceError {
    #[error(
        "a model is chosen by its name: one line of at most {MODEL_CHARS} characters, not empty"
    )]
    Invalid,
    #[error("only a model runtime on this computer (http on a loopback address) is chosen by its address, not {0}")]
    NotLocal(String),
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
            ModelChoiceError::Invalid | ModelChoiceError::NotLocal(_) => ErrorCode::Invalid,
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
) -> Result<Vec<String>, AskError> {
    let model = crate::model::open(provider).await?;
    Ok(model.list_models(timeout).await?)
}

/// The chooser's list for chat's `settings`: the provider's models (the demo model alone when it stands in) and
/// the runtimes found on this computer, asked together.
pub async fn chat_models(settings: &ChatSettings, timeout: Duration) -> ChatModels {
    let current = settings.provider.model.clone();
    let provider = async {
        if settings.demo {
            // The demo server runs one model, which takes the tools (its server reads its calls out of its reply).
            let tools = BTreeMap::from([(current.clone(), ToolSupport::Yes)]);
            return (vec![current.clone()], tools, None);
        }
        match provider_models(&settings.provider, timeout).await {
            Ok(models) => {
                let tools =
                    tool_support(&settings.provider.base_url, None, &models, PROBE_TIMEOUT).await;
                (models, tools, None)
            }
            Err(why) => (Vec::new(), BTreeMap::new(), Some(why.to_string())),
        }
    };
    let ((models, tools, error), local) =
        futures::join!(provider, local_runtimes(&settings.provider));
    ChatModels {
        current,
        models,
        tools,
        error,
        local,
        note: settings.demo.then(|| DEMO_MODEL_LIMITS.to_string()),
    }
}

/// The runtimes answering on this computer's usual addresses, but the one chat's provider already is.
async fn local_runtimes(provider: &ProviderConfig) -> Vec<LocalRuntime> {
    let own = provider.base_url.trim_end_matches('/');
    detect_local(&KNOWN_RUNTIMES, PROBE_TIMEOUT)
        .await
        .into_iter()
        .filter(|runtime| runtime.base_url.trim_end_matches('/') != own)
        .collect()
}

/// A model to make chat's: one its provider lists, or one a runtime on this computer serves.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ModelChoice {
    pub model: String,
    /// The runtime's OpenAI-compatible base URL, for a model found on this computer; none for the provider's own.
    #[ts(optional)]
    pub base_url: Option<String>,
    /// What the chooser was told of its tool calling: `no` keeps the servers' tools from it.
    pub tools: ToolSupport,
}

/// Writes `choice` as the model chat uses and saves the file atomically: the provider's model (see
/// [`ConfigDocument::set_chat_model`]), or a runtime on this computer as chat's provider; `chat.tools` false only
/// when the model takes no tools. The caller reads the configuration again so that the next turn uses it.
pub fn choose_chat_model(
    doc: &mut ConfigDocument,
    choice: &ModelChoice,
) -> Result<(), ModelChoiceError> {
    edit_chat_model(doc, choice)?;
    let path = doc.path.display().to_string();
    doc.save()
        .map_err(|source| ModelChoiceError::Write { path, source })
}

/// The edit of [`choose_chat_model`] without the save, for a caller that saves and applies the file itself.
pub fn edit_chat_model(
    doc: &mut ConfigDocument,
    choice: &ModelChoice,
) -> Result<(), ModelChoiceError> {
    let model = choice.model.trim();
    if model.is_empty()
        || model.chars().count() > MODEL_CHARS
        || one_line(model, MODEL_CHARS) != model
    {
        return Err(ModelChoiceError::Invalid);
    }
    let takes_tools = choice.tools != ToolSupport::No;
    let path = doc.path.display().to_string();
    let edited = match choice.base_url.as_deref() {
        None => doc
            .set_chat_model(model)
            .and_then(|()| doc.set_chat_tools(takes_tools)),
        Some(base_url) => {
            // Only a runtime on this computer is chosen this way: the chooser offers no other address.
            if !is_local_runtime_url(base_url) {
                return Err(ModelChoiceError::NotLocal(one_line(base_url, 200)));
            }
            doc.set_chat_local_model(base_url.trim_end_matches('/'), model, takes_tools)
        }
    };
    edited.map_err(|e| ModelChoiceError::Edit {
        path,
        reason: e.to_string(),
    })
}

/// An `http` URL on a loopback address, as the runtimes found on this computer have.
fn is_local_runtime_url(base_url: &str) -> bool {
    let Ok(url) = url::Url::parse(base_url) else {
        return false;
    };
    url.scheme() == "http"
        && match url.host() {
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
            None => false,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(model: &str, base_url: Option<&str>, tools: ToolSupport) -> ModelChoice {
        ModelChoice {
            model: model.to_string(),
            base_url: base_url.map(str::to_string),
            tools,
        }
    }

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
        choose_chat_model(&mut doc, &pick(" scripted-large ", None, ToolSupport::Yes))
            .expect("chosen");
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
            let err =
                choose_chat_model(&mut doc, &pick(bad, None, ToolSupport::Unknown)).expect_err(bad);
            assert_eq!(err.code(), ErrorCode::Invalid, "{bad:?}: {err}");
        }
        let err = choose_chat_model(&mut doc, &pick("m", None, ToolSupport::Unknown))
            .expect_err("no provider");
        assert_eq!(err.code(), ErrorCode::Config);
        assert!(err.to_string().contains("names no model provider"), "{err}");
        assert_eq!(std::fs::read_to_string(&doc.path).expect("read"), text);
    }

    #[test]
    fn a_model_found_on_this_computer_becomes_chats_provider_and_one_without_tools_is_kept_from_them(
    ) {
        // The demo model stands in: the file names no provider at all.
        let text = "{\n  // mine\n  \"servers\": {}\n}\n";
        let (_dir, mut doc) = doc(text);
        let gemma = pick(
            "gemma2:2b",
            Some("http://127.0.0.1:11434/v1/"),
            ToolSupport::No,
        );
        choose_chat_model(&mut doc, &gemma).expect("chosen");
        let config = crate::config::Config::load(&doc.path).expect("loads");
        assert!(config.warnings.is_empty(), "{:?}", config.warnings);
        let provider = config
            .chat_provider()
            .expect("a provider")
            .as_ref()
            .expect("usable");
        assert_eq!(provider.base_url, "http://127.0.0.1:11434/v1");
        assert_eq!(provider.model, "gemma2:2b");
        assert!(
            !config.chat.tools,
            "a model that takes no tools is not offered them"
        );
        let saved = std::fs::read_to_string(&doc.path).expect("read");
        assert!(saved.contains("// mine"), "{saved}");

        // A model that takes tools next: the stale false goes.
        let qwen = pick(
            "qwen3:4b",
            Some("http://127.0.0.1:11434/v1"),
            ToolSupport::Yes,
        );
        choose_chat_model(&mut doc, &qwen).expect("chosen");
        let config = crate::config::Config::load(&doc.path).expect("loads");
        assert!(config.chat.tools);
        assert!(!std::fs::read_to_string(&doc.path)
            .expect("read")
            .contains("\"tools\""));

        // From the provider's own list, the same rule.
        choose_chat_model(&mut doc, &pick("gemma2:2b", None, ToolSupport::No)).expect("chosen");
        assert!(
            !crate::config::Config::load(&doc.path)
                .expect("loads")
                .chat
                .tools
        );
        choose_chat_model(&mut doc, &pick("qwen3:4b", None, ToolSupport::Unknown)).expect("chosen");
        assert!(
            crate::config::Config::load(&doc.path)
                .expect("loads")
                .chat
                .tools
        );
    }

    #[test]
    fn only_a_loopback_runtime_is_chosen_by_its_address() {
        let text = "{\"servers\": {}}";
        let (_dir, mut doc) = doc(text);
        for far in [
            "http://192.0.2.1:11434/v1",
            "https://api.example.com/v1",
            "file:///etc/passwd",
            "http://127.0.0.1.example.com/v1",
            "not a url",
        ] {
            let err = choose_chat_model(&mut doc, &pick("m", Some(far), ToolSupport::Yes))
                .expect_err(far);
            assert_eq!(err.code(), ErrorCode::Invalid, "{far}: {err}");
        }
        assert_eq!(std::fs::read_to_string(&doc.path).expect("read"), text);
    }
}
