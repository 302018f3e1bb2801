//! Chat's part of the session: the service (the grants and conversations, or why they could not be opened) and the
//! turns running now. The app opens it at start, so what was set aside is in its startup report; the `wharf` command
//! opens it at the first turn, so a session that never chats leaves no conversations file behind.

use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::approval::StoredGrant;
use crate::config::Config;
use crate::facade::{Calls, ChatError, ChatPaths, ChatService, ErrorCode};
use crate::model::ProviderKind;
use crate::Host;

use super::super::command::{CommandError, Reply};

enum Opened {
    Not(ChatPaths),
    Open(Arc<ChatService>),
    Failed(String),
}

pub struct SessionChat {
    service: Mutex<Opened>,
    turns: Calls,
}

impl SessionChat {
    /// Opens the user's grants and conversations now; the strings are for the user (a file set aside, or chat being
    /// unavailable because its database cannot be opened).
    pub fn open(config: &Config, paths: &ChatPaths) -> (SessionChat, Vec<String>) {
        let (opened, notices) = open_service(config, paths);
        (SessionChat::with(opened), notices)
    }

    /// Opens them at the first use.
    pub fn later(paths: ChatPaths) -> SessionChat {
        SessionChat::with(Opened::Not(paths))
    }

    fn with(opened: Opened) -> SessionChat {
        SessionChat {
            service: Mutex::new(opened),
            turns: Calls::default(),
        }
    }

    /// The running turns, by the id the front end gave them.
    pub fn turns(&self) -> &Calls {
        &self.turns
    }

    /// The service, opened now with `config` when it was left for later (what was set aside on the way is
    /// given to `tell`).
    pub fn service_with(
        &self,
        config: impl FnOnce() -> Result<Config, crate::ConfigError>,
        tell: impl FnOnce(Vec<String>),
    ) -> Reply<Arc<ChatService>> {
        {
            let mut opened = self.lock()?;
            if let Opened::Not(paths) = &*opened {
                let config = config()?;
                let (now, notices) = open_service(&config, paths);
                tell(notices);
                *opened = now;
            }
        }
        self.service()
    }

    /// The service, when it was opened and could be.
    pub fn service(&self) -> Reply<Arc<ChatService>> {
        match &*self.lock()? {
            Opened::Open(service) => Ok(service.clone()),
            Opened::Failed(why) => Err(CommandError::new(ErrorCode::Unreadable, why.clone())),
            Opened::Not(_) => Err(CommandError::new(
                ErrorCode::Internal,
                "chat is not open yet",
            )),
        }
    }

    fn lock(&self) -> Reply<std::sync::MutexGuard<'_, Opened>> {
        self.service
            .lock()
            .map_err(|_| CommandError::new(ErrorCode::Internal, "chat's state is poisoned"))
    }

    /// Deletes a conversation with the grants it was given ("allow for this conversation").
    pub fn delete(&self, conversation: &str) -> Reply<()> {
        let service = self.service()?;
        service
            .store
            .delete(conversation)
            .map_err(ChatError::from)?;
        service.approvals.forget_conversation(conversation);
        Ok(())
    }

    /// Takes back every grant of `tool` on `server`; the grants left.
    pub fn revoke(&self, server: &str, tool: &str) -> Reply<Vec<StoredGrant>> {
        let service = self.service()?;
        service
            .approvals
            .revoke(server, tool)
            .map_err(|e| CommandError::new(ErrorCode::Write, e.to_string()))?;
        Ok(service.approvals.list())
    }

    /// The service when it is open.
    fn opened(&self) -> Option<Arc<ChatService>> {
        match &*self.service.lock().ok()? {
            Opened::Open(service) => Some(service.clone()),
            _ => None,
        }
    }

    /// The configuration was read again: the next turn uses the model it names.
    pub fn reconfigure(&self, config: &Config) {
        if let Some(service) = self.opened() {
            service.reconfigure(config);
        }
    }

    /// Readies the bundled demo model when it is chat's model (see `ChatService::warm_up`); only logged.
    pub fn warm_up(
        &self,
        host: Arc<Host>,
    ) -> impl std::future::Future<Output = ()> + Send + 'static {
        let service = self.opened();
        async move {
            let Some(service) = service else {
                return;
            };
            match service.warm_up(&host).await {
                Ok(true) => tracing::info!("the demo model has the servers' tools evaluated"),
                Ok(false) => {}
                Err(why) => tracing::info!("the demo model was not readied: {why}"),
            }
        }
    }

    /// Nobody is left to see them: every running turn stops.
    pub fn cancel_all(&self) {
        self.turns.cancel_all();
    }

    /// The model, or why there is none (the setup card).
    pub fn status(&self) -> ChatStatus {
        let settings = match self.service.lock() {
            Ok(opened) => match &*opened {
                Opened::Open(service) => service.settings().map_err(|e| e.to_string()),
                Opened::Failed(why) => Err(why.clone()),
                Opened::Not(_) => Err("chat is not open yet".into()),
            },
            Err(_) => Err("chat's state is poisoned".into()),
        };
        match settings {
            Ok(settings) => ChatStatus {
                ready: true,
                model: Some(settings.provider.model),
                provider: Some(settings.provider.kind),
                demo: settings.demo,
                tools: settings.tools,
                problem: None,
            },
            Err(why) => ChatStatus {
                ready: false,
                model: None,
                provider: None,
                demo: false,
                tools: true,
                problem: Some(why),
            },
        }
    }
}

fn open_service(config: &Config, paths: &ChatPaths) -> (Opened, Vec<String>) {
    match ChatService::open(config, paths) {
        Ok((service, notices)) => (Opened::Open(Arc::new(service)), notices),
        Err(e) => {
            let why = format!("Chat is unavailable: {e}");
            (Opened::Failed(why.clone()), vec![why])
        }
    }
}

/// What the chat screen needs to know before it shows a thread: the model, or why there is none (the setup card).
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ChatStatus {
    /// A model is configured and the conversations can be read: a message may be sent.
    pub ready: bool,
    pub model: Option<String>,
    pub provider: Option<ProviderKind>,
    /// The bundled demo model stands in for the user's own, for this run only.
    pub demo: bool,
    /// The model is offered the servers' tools (`chat.tools`): not when it takes none.
    pub tools: bool,
    /// Why chat cannot run (no model, a provider the file gets wrong, an unreadable database): what to do.
    pub problem: Option<String>,
}

impl From<ChatError> for CommandError {
    fn from(e: ChatError) -> Self {
        CommandError::new(e.code(), e.to_string())
    }
}

#[cfg(test)]
#[path = "chat_tests.rs"]
mod tests;
