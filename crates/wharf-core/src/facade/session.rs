//! The one object both front ends hold: the host and everything that lives beside it for as long as the app (or a
//! `wharf session`) runs. Commands (`facade/commands/`) run against it; a front end only builds it, adapts its
//! commands to its own transport, and shuts it down.
//!
//! Every change to the configuration file goes through [`Session::apply`], so that whatever depends on the file (the
//! redactor's secrets, the sampling provider, chat's model, the servers) follows it the same way whoever edited it.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

use crate::auth::TokenStore;
use crate::broker::QuestionQueue;
use crate::config::edit::{ConfigDocument, ServerEntry};
use crate::events::NoticeCode;
use crate::model::ProviderConfig;
use crate::redact::Redactor;
use crate::sampling::SamplingService;
use crate::{Config, ConfigError, Host, HostEvent};

use super::command::{CommandError, Reply};
use super::startup::{self, StartupReport};
use super::{Calls, ErrorCode};

pub mod chat;
pub mod views;

pub use chat::{ChatStatus, SessionChat};
pub use views::{SessionViews, ViewReply};

/// What the front end shows natively, for the commands that need it: the app's dialogs. A front end without them
/// (the `wharf` command) answers that it has none.
pub trait Desktop: Send + Sync {
    /// The folder the user picked, or none when they cancelled.
    fn pick_folder(&self) -> Pin<Box<dyn Future<Output = Reply<Option<PathBuf>>> + Send + '_>>;
    /// Where the user chose to save a file offered as `suggested_name`, in a dialog titled `title`, or none when
    /// they cancelled.
    fn pick_save_path(
        &self,
        title: String,
        suggested_name: String,
    ) -> Pin<Box<dyn Future<Output = Reply<Option<PathBuf>>> + Send + '_>>;
}

/// A front end with no dialogs.
pub struct NoDesktop;

impl Desktop for NoDesktop {
    fn pick_folder(&self) -> Pin<Box<dyn Future<Output = Reply<Option<PathBuf>>> + Send + '_>> {
        Box::pin(async { Err(no_dialogs()) })
    }

    fn pick_save_path(
        &self,
        _title: String,
        _suggested_name: String,
    ) -> Pin<Box<dyn Future<Output = Reply<Option<PathBuf>>> + Send + '_>> {
        Box::pin(async { Err(no_dialogs()) })
    }
}

/// One save dialog at a time: a second request while it is open is answered as cancelled.
static SAVING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

impl Session {
    /// `bytes` written where the user picks in the save dialog titled `title`, which offers `suggested_name`; none
    /// when the user cancelled (or a save dialog is already open).
    pub(crate) async fn save_with_dialog(
        &self,
        title: &str,
        suggested_name: String,
        bytes: &[u8],
    ) -> Reply<Option<super::commands::catalog::SavedBlob>> {
        use std::sync::atomic::Ordering;
        if SAVING.swap(true, Ordering::SeqCst) {
            return Ok(None);
        }
        let picked = self
            .desktop()
            .pick_save_path(title.to_owned(), suggested_name)
            .await;
        SAVING.store(false, Ordering::SeqCst);
        let Some(path) = picked? else {
            return Ok(None);
        };
        crate::fsutil::write_atomic(&path, bytes).map_err(|e| CommandError::write(&path, &e))?;
        Ok(Some(super::commands::catalog::SavedBlob {
            path: path.display().to_string(),
            bytes: bytes.len() as u64,
        }))
    }
}

fn no_dialogs() -> CommandError {
    CommandError::new(ErrorCode::Dialog, "this front end shows no dialogs")
}

/// What a front end adds to the host it built (`HostBuilder::session`) to make its session.
pub struct SessionParts {
    /// On first run: the demo server the user sees, written into the file with the first edit.
    pub demo: Option<ServerEntry>,
    pub report: StartupReport,
    /// The window's questions, answered by commands; none where questions are answered elsewhere (a terminal).
    pub questions: Option<Arc<QuestionQueue>>,
    pub redactor: Redactor,
    pub chat: SessionChat,
    pub desktop: Box<dyn Desktop>,
    /// The tools' views, for a front end that renders them (MCP Apps); none elsewhere.
    pub views: Option<SessionViews>,
}

pub struct Session {
    host: Arc<Host>,
    config_path: PathBuf,
    demo: Option<ServerEntry>,
    report: StartupReport,
    calls: Calls,
    questions: Option<Arc<QuestionQueue>>,
    redactor: Redactor,
    sampling: Option<Arc<SamplingService>>,
    tokens: TokenStore,
    chat: SessionChat,
    desktop: Box<dyn Desktop>,
    views: Option<SessionViews>,
}

impl Session {
    /// `sampling` is none where sampling is not served (the `wharf` command without a configured provider).
    pub(crate) fn new(
        host: Arc<Host>,
        config_path: PathBuf,
        sampling: Option<Arc<SamplingService>>,
        tokens: TokenStore,
        parts: SessionParts,
    ) -> Session {
        Session {
            config_path,
            host,
            demo: parts.demo,
            report: parts.report,
            calls: Calls::default(),
            questions: parts.questions,
            redactor: parts.redactor,
            sampling,
            tokens,
            chat: parts.chat,
            desktop: parts.desktop,
            views: parts.views,
        }
    }

    pub fn host(&self) -> &Arc<Host> {
        &self.host
    }

    pub fn report(&self) -> &StartupReport {
        &self.report
    }

    pub fn config_path(&self) -> &std::path::Path {
        &self.config_path
    }

    /// The user's running calls, by the id the front end gave them.
    pub fn calls(&self) -> &Calls {
        &self.calls
    }

    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    pub fn tokens(&self) -> &TokenStore {
        &self.tokens
    }

    pub fn chat(&self) -> &SessionChat {
        &self.chat
    }

    /// Chat's service, opened now if it was left for later (what was set aside on the way is told as a notice).
    pub fn chat_service(&self) -> Reply<Arc<crate::facade::ChatService>> {
        self.chat.service_with(
            || self.current_config(),
            |notices| {
                for message in notices {
                    self.notice(NoticeCode::PreferencesSetAside, message);
                }
            },
        )
    }

    /// The tools' views, when this front end renders them.
    pub fn views(&self) -> Option<&SessionViews> {
        self.views.as_ref()
    }

    pub fn desktop(&self) -> &dyn Desktop {
        self.desktop.as_ref()
    }

    pub fn questions(&self) -> Reply<&Arc<QuestionQueue>> {
        self.questions.as_ref().ok_or_else(|| {
            CommandError::new(
                ErrorCode::InvalidCommand,
                "questions are answered where they are asked in this front end",
            )
        })
    }

    pub fn sampling(&self) -> Reply<&Arc<SamplingService>> {
        self.sampling.as_ref().ok_or_else(|| {
            CommandError::new(
                ErrorCode::Config,
                "sampling is not served here: no provider is configured",
            )
        })
    }

    /// The server's tools as it lists them now (starting it if it is stopped).
    pub async fn tools(&self, server: &str) -> Reply<Vec<crate::ToolInfo>> {
        Ok(self.host.connection(server).await?.list_tools().await?)
    }

    /// The configuration as a document to edit. On first run the file does not exist yet: it starts with the demo
    /// server the user has been looking at.
    pub fn config_document(&self) -> Result<ConfigDocument, ConfigError> {
        startup::config_document(&self.config_path, self.demo.as_ref())
    }

    /// The configuration the host runs now, as the file says it (with the workspace folders; the demo server on
    /// first run).
    pub fn current_config(&self) -> Result<Config, ConfigError> {
        if self.config_path.exists() {
            return Config::load_with_workspace(
                &self.config_path,
                &self.host.workspace().folders(),
            );
        }
        Ok(startup::first_run_config(
            &self.config_path,
            self.demo.as_ref(),
        ))
    }

    /// The one way the configuration file changes: `edit` the document, save it atomically, read it again and
    /// apply it. Answers the document as saved.
    pub async fn apply<F>(&self, edit: F) -> Reply<ConfigDocument>
    where
        F: FnOnce(&mut ConfigDocument) -> Reply<()>,
    {
        let mut doc = self.config_document()?;
        edit(&mut doc)?;
        doc.save().map_err(|e| CommandError::write(&doc.path, &e))?;
        self.reload().await?;
        Ok(doc)
    }

    /// Reads the file again (with the workspace folders: a server may name them) and applies it; for changes that
    /// reach the configuration from outside the file (a value stored in the keyring).
    pub async fn reload(&self) -> Reply<()> {
        let config =
            Config::load_with_workspace(&self.config_path, &self.host.workspace().folders())?;
        self.reconfigure(config).await;
        Ok(())
    }

    /// Applies a configuration read again: the redactor learns its secrets, the sampling provider follows its
    /// `sampling.provider`, chat its model, and the servers restart as their definitions changed.
    pub async fn reconfigure(&self, config: Config) {
        self.redactor.learn(&config);
        let (provider, problem) = provider_of(&config);
        if let Some(problem) = problem {
            tracing::warn!("{problem}");
        }
        if let Some(sampling) = &self.sampling {
            sampling.set_provider(provider);
        }
        self.chat.reconfigure(&config);
        self.host.reconfigure(config).await;
    }

    /// A notice of the front end's own, told as the host's events are.
    pub fn notice(&self, code: NoticeCode, message: String) {
        self.host.events().emit(HostEvent::Notice {
            server: None,
            code,
            message,
        });
    }

    /// Nobody is left to answer or wait: questions are cancelled, running calls and turns end, the servers stop.
    pub async fn shutdown(&self) {
        if let Some(questions) = &self.questions {
            questions.cancel_all();
        }
        self.calls.cancel_all();
        self.chat.cancel_all();
        self.host.shutdown().await;
    }
}

/// The provider a configuration names, and why it cannot be used when it is broken (none is used then: a request
/// fails with "no LLM provider is configured" rather than going to a half-read one).
pub fn provider_of(config: &Config) -> (Option<ProviderConfig>, Option<String>) {
    match &config.sampling_provider {
        None => (None, None),
        Some(Ok(provider)) => (Some(provider.clone()), None),
        Some(Err(e)) => (
            None,
            Some(format!(
                "{e}; sampling requests fail until it is fixed (Settings)"
            )),
        ),
    }
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
