//! Chat as both front ends use it: the model from the configuration, the user's grants and stored conversations,
//! and a turn run on the host's servers. The app and `wharf chat` / `session` only present what this returns.

use std::path::PathBuf;

use tokio_util::sync::CancellationToken;

use crate::approval::Approvals;
use crate::chat::summary::{summarize, Summarized};
use crate::chat::turn::{
    run_turn, ChatSettings, RunningConversations, TurnContext, TurnError, TurnOutcome, TurnRequest,
    DEFAULT_MAX_TOKENS,
};
use crate::config::Config;
use crate::conversations::{ConversationError, ConversationStore};
use crate::facade::ErrorCode;
use crate::host::Host;
use crate::model::{AskError, Keyring, ProviderConfig, ReplyLimits};

/// Why chat has no model to ask: kept with the settings, so it is cloned to each caller.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelUnavailable {
    /// The configuration file names no model (and no demo model runs).
    #[error(
        "no model is configured: add \"chat\": {{\"provider\": {{\"kind\": \"openai\", \"baseUrl\": \"...\", \
         \"model\": \"...\"}}}} to {0} (Ollama, LM Studio, llama.cpp, vLLM or OpenAI), or \"kind\": \"anthropic\""
    )]
    NoModel(String),
    /// The file's provider entry cannot be used; the reason as the configuration's reader gave it.
    #[error("{0}")]
    BadProvider(String),
    #[error("the chat settings could not be read")]
    Poisoned,
}

/// Why chat cannot run.
#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    #[error("{0}")]
    Unavailable(#[from] ModelUnavailable),
    #[error("{0}")]
    Ask(#[from] AskError),
    #[error("{0}")]
    Store(#[from] ConversationError),
    #[error("{0}")]
    Turn(#[from] TurnError),
}

impl ChatError {
    pub fn code(&self) -> ErrorCode {
        match self {
            ChatError::Unavailable(ModelUnavailable::Poisoned) => ErrorCode::Internal,
            ChatError::Unavailable(_) => ErrorCode::Config,
            ChatError::Ask(AskError::Key(_)) => ErrorCode::Keyring,
            ChatError::Ask(AskError::Provider(_)) => ErrorCode::Connection,
            ChatError::Store(ConversationError::NotFound(_))
            | ChatError::Turn(TurnError::Conversation(ConversationError::NotFound(_))) => {
                ErrorCode::UnknownTarget
            }
            ChatError::Turn(TurnError::EmptyMessage) => ErrorCode::Invalid,
            ChatError::Turn(TurnError::Attachment(_)) => ErrorCode::Invalid,
            ChatError::Turn(TurnError::ApiKey(_)) => ErrorCode::Keyring,
            ChatError::Turn(TurnError::Busy(_)) => ErrorCode::Busy,
            ChatError::Turn(TurnError::SummaryStopped) => ErrorCode::Cancelled,
            ChatError::Turn(TurnError::Summary(_)) => ErrorCode::Connection,
            ChatError::Store(_) | ChatError::Turn(TurnError::Conversation(_)) => ErrorCode::Write,
        }
    }
}

/// The environment variable `make run` sets to the demo model's base URL when it started one: used only when the
/// configuration names no model, for that run only, and never written into the configuration.
pub const DEMO_MODEL_ENV: &str = "WHARF_DEMO_MODEL";
/// The model the demo server answers as.
pub const DEMO_MODEL_ID: &str = "qwen2.5-coder-0.5b-demo";

/// The settings of chat read from the configuration: the model to use, or why there is none.
pub fn chat_settings(config: &Config) -> Result<ChatSettings, ModelUnavailable> {
    chat_settings_with(config, std::env::var(DEMO_MODEL_ENV).ok().as_deref())
}

/// As [`chat_settings`], with the demo model's URL (if one runs) given rather than read from the environment.
pub fn chat_settings_with(
    config: &Config,
    demo: Option<&str>,
) -> Result<ChatSettings, ModelUnavailable> {
    match config.chat_provider() {
        None => match demo.filter(|url| url.starts_with("http://127.0.0.1:")) {
            Some(url) => Ok(ChatSettings {
                provider: ProviderConfig::openai_compatible(url, DEMO_MODEL_ID),
                max_steps: config.chat.max_steps,
                max_tokens: DEFAULT_MAX_TOKENS,
                limits: reply_limits(&config.chat),
                // What the demo server gives the model (its own window is larger; memory is kept small).
                context_tokens: 4096,
                // A text-only model.
                images: false,
                tools: true,
                demo: true,
            }),
            None => Err(ModelUnavailable::NoModel(config.path.display().to_string())),
        },
        Some(Err(e)) => Err(ModelUnavailable::BadProvider(e.clone())),
        Some(Ok(provider)) => Ok(ChatSettings {
            provider: provider.clone(),
            max_steps: config.chat.max_steps,
            max_tokens: DEFAULT_MAX_TOKENS,
            limits: reply_limits(&config.chat),
            context_tokens: config.chat.context_tokens,
            images: config.chat.images_for(provider),
            tools: config.chat.tools,
            demo: false,
        }),
    }
}

/// How long a reply may take, as `chat.idleSeconds` and `chat.replySeconds` say.
fn reply_limits(chat: &crate::config::ChatConfig) -> ReplyLimits {
    ReplyLimits {
        idle: std::time::Duration::from_secs(chat.idle_seconds),
        whole: std::time::Duration::from_secs(chat.reply_seconds),
    }
}

/// What chat keeps per user: the grants and the conversations.
pub struct ChatService {
    pub approvals: Approvals,
    pub store: ConversationStore,
    settings: std::sync::RwLock<Result<ChatSettings, ModelUnavailable>>,
    running: RunningConversations,
    /// The configuration's secrets (and, as every redactor, the keys the process read), masked in every turn.
    redactor: crate::redact::Redactor,
}

/// Where a front end's chat keeps its files.
pub struct ChatPaths {
    pub grants: PathBuf,
    pub conversations: PathBuf,
}

impl Default for ChatPaths {
    fn default() -> ChatPaths {
        ChatPaths {
            grants: Approvals::default_path(),
            conversations: ConversationStore::default_path(),
        }
    }
}

impl ChatService {
    /// Opens the grants and the conversations; the strings are notices for the user (a file set aside).
    pub fn open(
        config: &Config,
        paths: &ChatPaths,
    ) -> Result<(ChatService, Vec<String>), ChatError> {
        let mut notices = Vec::new();
        let (approvals, notice) = Approvals::open(paths.grants.clone());
        notices.extend(notice);
        let (store, notice) = ConversationStore::open(&paths.conversations)?;
        notices.extend(notice);
        let redactor = crate::redact::Redactor::default();
        redactor.learn(config);
        let service = ChatService {
            approvals,
            store,
            settings: std::sync::RwLock::new(chat_settings(config)),
            running: RunningConversations::default(),
            redactor,
        };
        Ok((service, notices))
    }

    /// The configuration changed: the next turn uses its model.
    pub fn reconfigure(&self, config: &Config) {
        self.redactor.learn(config);
        if let Ok(mut settings) = self.settings.write() {
            *settings = chat_settings(config);
        }
    }

    /// Readies the bundled demo model (when it is chat's model) with the running servers' tools, so that the user's
    /// first turn is as quick as later ones: true when a warming request was answered, false when there was nothing
    /// to do, the reason when it failed (a failure changes nothing for the turns that follow).
    pub async fn warm_up(&self, host: &Host) -> Result<bool, ChatError> {
        let settings = self.settings()?;
        Ok(crate::chat::turn::warm_up(&self.context(host, &settings)).await?)
    }

    /// The model the next turn goes to, or why there is none.
    pub fn settings(&self) -> Result<ChatSettings, ModelUnavailable> {
        self.settings
            .read()
            .map_err(|_| ModelUnavailable::Poisoned)
            .and_then(|s| s.clone())
    }

    /// One turn: the request's message added to its conversation (a new one when it names none), the model
    /// answering with the tools of every server that is up, until it stops, the step limit, an error or `cancel`.
    /// Turns in different conversations run side by side; a second one in the same conversation is refused (busy).
    pub async fn turn(
        &self,
        host: &Host,
        request: TurnRequest<'_>,
        cancel: &CancellationToken,
    ) -> Result<TurnOutcome, ChatError> {
        let settings = self.settings()?;
        Ok(run_turn(&self.context(host, &settings), request, cancel).await?)
    }

    /// A conversation that fills the model's window carried into a new one: the model's summary of it becomes the
    /// new conversation's first message. The old conversation is left as it is.
    pub async fn summarize(
        &self,
        host: &Host,
        conversation: &str,
        cancel: &CancellationToken,
    ) -> Result<Summarized, ChatError> {
        let settings = self.settings()?;
        Ok(summarize(&self.context(host, &settings), conversation, cancel).await?)
    }

    fn context<'a>(&'a self, host: &'a Host, settings: &'a ChatSettings) -> TurnContext<'a> {
        TurnContext {
            host,
            approvals: &self.approvals,
            store: &self.store,
            running: &self.running,
            events: host.events(),
            settings,
            models: &Keyring,
            redactor: &self.redactor,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn config(text: &str) -> Config {
        Config::parse(Path::new("mcp.json"), text, &|_| None).unwrap()
    }

    #[test]
    fn the_demo_model_stands_in_only_when_nothing_is_configured() {
        let bare = config(r#"{"servers": {}}"#);
        let demo = chat_settings_with(&bare, Some("http://127.0.0.1:4000/v1/")).unwrap();
        assert!(demo.demo);
        assert_eq!(demo.provider.base_url, "http://127.0.0.1:4000/v1");
        assert_eq!(demo.provider.model, DEMO_MODEL_ID);
        let own = config(
            r#"{"servers": {}, "chat": {"provider": {"kind": "openai", "baseUrl": "http://127.0.0.1:11434/v1", "model": "qwen3"}}}"#,
        );
        let settings = chat_settings_with(&own, Some("http://127.0.0.1:4000/v1")).unwrap();
        assert!(!settings.demo);
        assert_eq!(settings.provider.model, "qwen3");
        // Only a loopback demo: the variable cannot send the user's conversation elsewhere.
        let err = chat_settings_with(&bare, Some("https://example.com/v1")).unwrap_err();
        assert!(matches!(err, ModelUnavailable::NoModel(_)), "{err}");
        assert!(matches!(
            chat_settings_with(&bare, None),
            Err(ModelUnavailable::NoModel(_))
        ));
    }

    #[test]
    fn images_go_to_anthropic_models_unless_chat_images_says_otherwise() {
        let with = |kind: &str, images: &str| {
            let text = format!(
                r#"{{"servers": {{}}, "chat": {{"provider": {{"kind": "{kind}", "baseUrl": "http://127.0.0.1:9/v1",
                    "model": "m"}}{images}}}}}"#
            );
            let config = config(&text);
            assert!(config.warnings.is_empty(), "{:?}", config.warnings);
            chat_settings_with(&config, None).unwrap().images
        };
        assert!(with("anthropic", ""));
        assert!(!with("openai", ""));
        assert!(with("openai", r#", "images": true"#));
        assert!(!with("anthropic", r#", "images": false"#));
        let demo = chat_settings_with(
            &config(r#"{"servers": {}}"#),
            Some("http://127.0.0.1:4000/v1"),
        );
        assert!(!demo.unwrap().images, "the demo model reads text only");
        let bad = config(r#"{"servers": {}, "chat": {"images": "yes"}}"#);
        assert!(
            bad.warnings[0].contains("chat.images must be true or false"),
            "{:?}",
            bad.warnings
        );
    }
}
