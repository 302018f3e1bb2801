//! The state every command reaches (`Shell`): the host, the configuration file edits go to, the running calls, the
//! pending questions, the app's remembered state, the redactor, sampling, sign-ins and chat; and what commands share
//! around it. The app's life cycle is `lifecycle.rs`.

use std::path::PathBuf;
use std::sync::Arc;

use tauri::{AppHandle, Emitter};
use wharf_core::auth::TokenStore;
use wharf_core::config::edit::{ConfigDocument, ServerEntry};
use wharf_core::events::NoticeCode;
use wharf_core::facade::startup::{self, StartupReport};
use wharf_core::facade::Calls;
use wharf_core::redact::Redactor;
use wharf_core::sampling::provider::ProviderConfig;
use wharf_core::sampling::SamplingService;
use wharf_core::{Config, ConfigError, Host, HostEvent};

use crate::chat_commands::Chat;
use crate::questions::SharedQueue;
use crate::smoke::Probe;
use crate::state::AppState;

/// The Tauri event that carries every `HostEvent`, serialized as the CLI prints it (`{"event": "server_status", ...}`).
pub const HOST_EVENT: &str = "host-event";

/// The state every command reaches through `tauri::State`.
pub struct Shell {
    pub host: Arc<Host>,
    pub report: StartupReport,
    pub smoke: Option<Probe>,
    /// The file that edits go to.
    pub config_path: PathBuf,
    pub demo: Option<ServerEntry>,
    pub calls: Calls,
    pub questions: SharedQueue,
    pub state: AppState,
    pub redactor: Redactor,
    /// Always there, with or without a provider: the user may choose one in the settings at any time (until then a
    /// sampling request fails, saying so).
    pub sampling: Arc<SamplingService>,
    /// Where the host keeps sign-ins: the same store, so the status shown is the one the connections use (also when
    /// there is no keyring and sign-ins last for this run only).
    pub tokens: TokenStore,
    /// The model, the conversations and the grants, and the turns running now.
    pub chat: Chat,
}

impl Shell {
    /// The configuration as a document to edit. On first run the file does not exist yet: it starts with the demo
    /// server the user has been looking at.
    pub fn config_document(&self) -> Result<ConfigDocument, ConfigError> {
        startup::config_document(&self.config_path, self.demo.as_ref())
    }

    /// The configuration the host runs now, as the file says it (with the workspace folders; the demo server on
    /// first run): what identifies a server for its sampling preference.
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

    /// Applies a configuration read again after an edit: the redactor learns its secrets, the sampling provider
    /// follows its `sampling.provider`, chat its model, and the servers restart as their definitions changed.
    pub async fn reconfigure(&self, config: Config) {
        self.redactor.learn(&config);
        let (provider, problem) = provider_of(&config);
        if let Some(problem) = problem {
            tracing::warn!("{problem}");
        }
        self.sampling.set_provider(provider);
        self.chat.reconfigure(&config);
        self.host.reconfigure(config).await;
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

/// A host-wide notice for the window (the activity log), outside the host's own events.
pub fn emit_notice(handle: &AppHandle, code: NoticeCode, message: String) {
    let notice = HostEvent::Notice {
        server: None,
        code,
        message,
    };
    if let Err(e) = handle.emit(HOST_EVENT, &notice) {
        tracing::debug!("notice not delivered to the UI: {e}");
    }
}

pub fn open_folder(shell: &Shell, path: &std::path::Path) {
    if let Err(e) = shell.host.workspace().open(path) {
        tracing::warn!("cannot open {} as a workspace folder: {e}", path.display());
    }
}
