//! Chat as the window sees it: whether a model is configured, a turn run (and stopped) by the id the window gave it,
//! the stored conversations, the kept tool grants, the model chosen among those its provider lists, and a link of a
//! reply opened only after the user's consent. Thin adapters over wharf-core's `ChatService` (`facade/chat.rs`),
//! `facade/chat_model.rs` and `facade/links.rs`, registered like the commands
//! of `commands.rs`. Deltas, tool-call decisions and progress reach the window as host events; approval cards as
//! `input-request` events, answered through `answer_input`.

use std::sync::Arc;

use serde::Serialize;
use tauri::State;
use tokio_util::sync::CancellationToken;
use wharf_core::approval::StoredGrant;
use wharf_core::chat::attach::Attachment;
use wharf_core::chat::summary::Summarized;
use wharf_core::chat::turn::{TurnOutcome, TurnRequest};
use wharf_core::config::Config;
use wharf_core::conversations::{ConversationSummary, SearchHit};
use wharf_core::facade::chat_model::{self, ChatModels, ModelChoice, ModelChoiceError};
use wharf_core::facade::links::{self, LinkError};
use wharf_core::facade::{Calls, ChatError, ChatPaths, ChatService, ErrorCode};
use wharf_core::sampling::provider::ProviderKind;
use wharf_core::view::thread::{thread_messages, ThreadMessage};
use wharf_core::Host;

use crate::commands::CommandError;
use crate::shell::Shell;

type Reply<T> = Result<T, CommandError>;

/// Chat's part of the app's state: the service (or why it could not be opened) and the turns running now.
pub struct Chat {
    service: Result<Arc<ChatService>, String>,
    turns: Calls,
}

impl Chat {
    /// Opens the user's grants and conversations; the strings are for the user (a file set aside, or chat being
    /// unavailable because its database cannot be opened).
    pub fn open(config: &Config, paths: &ChatPaths) -> (Chat, Vec<String>) {
        let (service, notices) = match ChatService::open(config, paths) {
            Ok((service, notices)) => (Ok(Arc::new(service)), notices),
            Err(e) => {
                let why = format!("Chat is unavailable: {e}");
                (Err(why.clone()), vec![why])
            }
        };
        let chat = Chat {
            service,
            turns: Calls::default(),
        };
        (chat, notices)
    }

    /// The configuration was read again: the next turn uses the model it names.
    pub fn reconfigure(&self, config: &Config) {
        if let Ok(service) = &self.service {
            service.reconfigure(config);
        }
    }

    /// Readies the bundled demo model when it is chat's model (see `ChatService::warm_up`); only logged.
    pub fn warm_up(
        &self,
        host: Arc<Host>,
    ) -> impl std::future::Future<Output = ()> + Send + 'static {
        let service = self.service.as_ref().ok().cloned();
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

    /// Nobody is left to see them (the window closes): every running turn stops.
    pub fn cancel_all(&self) {
        self.turns.cancel_all();
    }

    fn service(&self) -> Reply<&Arc<ChatService>> {
        self.service
            .as_ref()
            .map_err(|why| CommandError::new(ErrorCode::Unreadable, why.clone()))
    }

    pub fn status(&self) -> ChatStatus {
        let settings = match &self.service {
            Ok(service) => service.settings(),
            Err(why) => Err(why.clone()),
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

    fn delete(&self, conversation: &str) -> Reply<()> {
        let service = self.service()?;
        service
            .store
            .delete(conversation)
            .map_err(ChatError::from)?;
        // The conversation's grants ("allow for this conversation") go with it.
        service.approvals.forget_conversation(conversation);
        Ok(())
    }

    fn revoke(&self, server: &str, tool: &str) -> Reply<Vec<StoredGrant>> {
        let approvals = &self.service()?.approvals;
        approvals
            .revoke(server, tool)
            .map_err(|e| CommandError::new(ErrorCode::Write, e.to_string()))?;
        Ok(approvals.list())
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

impl From<ModelChoiceError> for CommandError {
    fn from(e: ModelChoiceError) -> Self {
        CommandError::new(e.code(), e.to_string())
    }
}

impl From<LinkError> for CommandError {
    fn from(e: LinkError) -> Self {
        CommandError::new(e.code(), e.to_string())
    }
}

#[tauri::command]
pub fn chat_status(shell: State<'_, Shell>) -> ChatStatus {
    shell.chat.status()
}

/// Runs one turn: `message` added to `conversation` (a new one when null). `chat_turn_started` names the turn's
/// conversation with `turn_id` once the message is stored; text streams as `chat_delta` host events, each call's
/// decision as `tool_call`; an approval waits as an `input-request`. Turns of different conversations run side by
/// side; a second one in the same conversation is refused (`busy`). `cancel_turn` with `turn_id` stops
/// it, keeping what was shown. The reply is what the turn added.
#[tauri::command]
pub async fn send_message(
    shell: State<'_, Shell>,
    turn_id: String,
    conversation: Option<String>,
    message: String,
    attachments: Option<Vec<Attachment>>,
) -> Reply<TurnOutcome> {
    let turn = turn_id.clone();
    run_as_turn(&shell, &turn_id, move |service, host, cancel| async move {
        let request = TurnRequest {
            id: Some(&turn),
            conversation: conversation.as_deref(),
            message: &message,
            attachments: attachments.as_deref().unwrap_or_default(),
        };
        service.turn(&host, request, &cancel).await
    })
    .await
}

/// Carries `conversation` into a new one that starts with the model's summary of it (the old one is left as it
/// was); the reply names the new conversation. Runs as a turn named `turn_id`, so `cancel_turn` stops it.
#[tauri::command]
pub async fn summarize_conversation(
    shell: State<'_, Shell>,
    turn_id: String,
    conversation: String,
) -> Reply<Summarized> {
    run_as_turn(&shell, &turn_id, move |service, host, cancel| async move {
        service.summarize(&host, &conversation, &cancel).await
    })
    .await
}

/// Runs `work` under `turn_id` (so `cancel_turn` stops it) on a task of its own: a turn goes on, and ends storing
/// what it has, even if the window's invocation is dropped.
async fn run_as_turn<T, F, Fut>(shell: &Shell, turn_id: &str, work: F) -> Reply<T>
where
    T: Send + 'static,
    F: FnOnce(Arc<ChatService>, Arc<Host>, CancellationToken) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<T, ChatError>> + Send + 'static,
{
    let service = shell.chat.service()?.clone();
    let host = shell.host.clone();
    let outcome = shell
        .chat
        .turns
        .run(turn_id, |cancel| {
            tauri::async_runtime::spawn(async move { work(service, host, cancel).await })
        })
        .await;
    match outcome {
        Ok(result) => Ok(result?),
        Err(e) => Err(CommandError::new(
            ErrorCode::Internal,
            format!("the turn ended abnormally: {e}"),
        )),
    }
}

#[tauri::command]
pub fn cancel_turn(shell: State<'_, Shell>, turn_id: String) -> Reply<()> {
    if shell.chat.turns.cancel(&turn_id) {
        Ok(())
    } else {
        Err(CommandError::new(
            ErrorCode::UnknownCall,
            format!("no turn {turn_id} is running"),
        ))
    }
}

#[tauri::command]
pub fn list_conversations(shell: State<'_, Shell>) -> Reply<Vec<ConversationSummary>> {
    Ok(shell
        .chat
        .service()?
        .store
        .list()
        .map_err(ChatError::from)?)
}

/// Full-text search; the query's words are words, never search syntax.
#[tauri::command]
pub fn search_conversations(shell: State<'_, Shell>, query: String) -> Reply<Vec<SearchHit>> {
    Ok(shell
        .chat
        .service()?
        .store
        .search(&query)
        .map_err(ChatError::from)?)
}

#[tauri::command]
pub fn rename_conversation(
    shell: State<'_, Shell>,
    conversation: String,
    title: String,
) -> Reply<()> {
    Ok(shell
        .chat
        .service()?
        .store
        .rename(&conversation, &title)
        .map_err(ChatError::from)?)
}

/// The models chat's provider lists, for the thread's chooser; why they could not be listed, when they could not.
#[tauri::command]
pub async fn chat_models(shell: State<'_, Shell>) -> Reply<ChatModels> {
    let settings = shell
        .chat
        .service()?
        .settings()
        .map_err(|why| CommandError::new(ErrorCode::Config, why))?;
    Ok(chat_model::chat_models(&settings, chat_model::LIST_TIMEOUT).await)
}

/// Makes the chosen model the one chat uses: written into mcp.json in place (chat's own provider, a copy of the
/// sampling one it shared, or a runtime found on this computer), then used from the next turn on. The status with it.
#[tauri::command]
pub fn choose_chat_model(shell: State<'_, Shell>, choice: ModelChoice) -> Reply<ChatStatus> {
    let mut doc = shell.config_document()?;
    chat_model::choose_chat_model(&mut doc, &choice)?;
    tracing::info!(model = choice.model.trim(), "chat model chosen");
    shell.chat.reconfigure(&shell.current_config()?);
    Ok(shell.chat.status())
}

/// The model runtimes answering on this computer's usual loopback addresses (Ollama, LM Studio, a llama.cpp
/// server), for the setup card to offer.
#[tauri::command]
pub async fn local_models() -> Vec<wharf_core::sampling::provider::models::LocalRuntime> {
    use wharf_core::sampling::provider::models::{detect_local, KNOWN_RUNTIMES, PROBE_TIMEOUT};
    detect_local(&KNOWN_RUNTIMES, PROBE_TIMEOUT).await
}

#[tauri::command]
pub fn delete_conversation(shell: State<'_, Shell>, conversation: String) -> Reply<()> {
    shell.chat.delete(&conversation)
}

/// The conversation as stored, each tool call's result shaped as the Tools screen shows one.
#[tauri::command]
pub fn conversation_messages(
    shell: State<'_, Shell>,
    conversation: String,
) -> Reply<Vec<ThreadMessage>> {
    let messages = shell
        .chat
        .service()?
        .store
        .messages(&conversation)
        .map_err(ChatError::from)?;
    Ok(thread_messages(messages))
}

/// Every tool allowed "always", with the definition it was allowed for.
#[tauri::command]
pub fn list_grants(shell: State<'_, Shell>) -> Reply<Vec<StoredGrant>> {
    Ok(shell.chat.service()?.approvals.list())
}

/// Takes back every grant of `tool` on `server` (kept and per conversation); the grants left.
#[tauri::command]
pub fn revoke_grant(
    shell: State<'_, Shell>,
    server: String,
    tool: String,
) -> Reply<Vec<StoredGrant>> {
    shell.chat.revoke(&server, &tool)
}

/// A link the user clicked in a reply: reviewed, shown on the URL consent card (in `conversation`'s thread when
/// given), and opened in the system browser only on Accept. The window never opens a URL itself.
#[tauri::command]
pub async fn open_link(
    shell: State<'_, Shell>,
    url: String,
    conversation: Option<String>,
) -> Reply<()> {
    Ok(links::open_link(shell.host.broker(), &url, conversation.as_deref()).await?)
}

#[cfg(test)]
#[path = "chat_commands_tests.rs"]
mod tests;
