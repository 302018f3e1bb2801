//! Chat as the window sees it: whether a model is configured, a turn run (and stopped) by the id the window gave it,
//! the stored conversations, the kept tool grants, the model chosen among those its provider lists, and a link of a
//! reply opened only after the user's consent. Deltas, tool-call decisions and progress reach the window as host
//! events; approval cards as questions, answered through `answer_input`.

use std::future::Future;
use std::sync::Arc;

use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use crate::approval::StoredGrant;
use crate::chat::attach::Attachment;
use crate::chat::summary::Summarized;
use crate::chat::turn::{TurnOutcome, TurnRequest};
use crate::conversations::{ConversationSummary, SearchHit};
use crate::facade::chat_model::{self, ChatModels, ModelChoice, ModelChoiceError};
use crate::facade::command::{CommandError, Reply, Run};
use crate::facade::links::{self, LinkError};
use crate::facade::session::{ChatStatus, Session};
use crate::facade::{ChatError, ChatService, ErrorCode};
use crate::model::{detect_local, LocalRuntime, KNOWN_RUNTIMES, PROBE_TIMEOUT};
use crate::view::thread::{thread_messages, ThreadMessage};
use crate::Host;

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

#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct GetChatStatus {}

impl Run for GetChatStatus {
    async fn run(self, session: &Session) -> Reply<ChatStatus> {
        Ok(session.chat().status())
    }
}

/// Runs one turn: `message` added to `conversation` (a new one when null). `chat_turn_started` names the turn's
/// conversation with `turnId` once the message is stored; text streams as `chat_delta` host events, each call's
/// decision as `tool_call`; an approval waits as a question. Turns of different conversations run side by side; a
/// second one in the same conversation is refused (`busy`). `cancel_turn` with `turnId` stops it, keeping what was
/// shown. The reply is what the turn added.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct SendMessage {
    pub turn_id: String,
    pub conversation: Option<String>,
    pub message: String,
    pub attachments: Option<Vec<Attachment>>,
}

impl Run for SendMessage {
    async fn run(self, session: &Session) -> Reply<TurnOutcome> {
        let SendMessage {
            turn_id,
            conversation,
            message,
            attachments,
        } = self;
        let turn = turn_id.clone();
        run_as_turn(session, &turn_id, move |service, host, cancel| async move {
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
}

/// Carries `conversation` into a new one that starts with the model's summary of it (the old one is left as it
/// was); the reply names the new conversation. Runs as a turn named `turnId`, so `cancel_turn` stops it.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct SummarizeConversation {
    pub turn_id: String,
    pub conversation: String,
}

impl Run for SummarizeConversation {
    async fn run(self, session: &Session) -> Reply<Summarized> {
        let conversation = self.conversation;
        run_as_turn(
            session,
            &self.turn_id,
            move |service, host, cancel| async move {
                service.summarize(&host, &conversation, &cancel).await
            },
        )
        .await
    }
}

/// Runs `work` under `turn_id` (so `cancel_turn` stops it) on a task of its own: a turn goes on, and ends storing
/// what it has, even if the front end stops waiting for it.
async fn run_as_turn<T, F, Fut>(session: &Session, turn_id: &str, work: F) -> Reply<T>
where
    T: Send + 'static,
    F: FnOnce(Arc<ChatService>, Arc<Host>, CancellationToken) -> Fut + Send + 'static,
    Fut: Future<Output = Result<T, ChatError>> + Send + 'static,
{
    let service = session.chat_service()?;
    let host = session.host().clone();
    let outcome = session
        .chat()
        .turns()
        .run(turn_id, |cancel| {
            tokio::spawn(async move { work(service, host, cancel).await })
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

#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct CancelTurn {
    pub turn_id: String,
}

impl Run for CancelTurn {
    async fn run(self, session: &Session) -> Reply<()> {
        if session.chat().turns().cancel(&self.turn_id) {
            Ok(())
        } else {
            Err(CommandError::new(
                ErrorCode::UnknownCall,
                format!("no turn {} is running", self.turn_id),
            ))
        }
    }
}

#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ListConversations {}

impl Run for ListConversations {
    async fn run(self, session: &Session) -> Reply<Vec<ConversationSummary>> {
        Ok(session
            .chat_service()?
            .store
            .list()
            .map_err(ChatError::from)?)
    }
}

/// Full-text search; the query's words are words, never search syntax.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SearchConversations {
    pub query: String,
}

impl Run for SearchConversations {
    async fn run(self, session: &Session) -> Reply<Vec<SearchHit>> {
        Ok(session
            .chat_service()?
            .store
            .search(&self.query)
            .map_err(ChatError::from)?)
    }
}

#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct RenameConversation {
    pub conversation: String,
    pub title: String,
}

impl Run for RenameConversation {
    async fn run(self, session: &Session) -> Reply<()> {
        Ok(session
            .chat_service()?
            .store
            .rename(&self.conversation, &self.title)
            .map_err(ChatError::from)?)
    }
}

#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct DeleteConversation {
    pub conversation: String,
}

impl Run for DeleteConversation {
    async fn run(self, session: &Session) -> Reply<()> {
        session.chat_service()?;
        session.chat().delete(&self.conversation)
    }
}

/// The conversation as stored, each tool call's result shaped as the Tools screen shows one.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ConversationMessages {
    pub conversation: String,
}

impl Run for ConversationMessages {
    async fn run(self, session: &Session) -> Reply<Vec<ThreadMessage>> {
        let messages = session
            .chat_service()?
            .store
            .messages(&self.conversation)
            .map_err(ChatError::from)?;
        Ok(thread_messages(messages))
    }
}

/// Every tool allowed "always", with the definition it was allowed for.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ListGrants {}

impl Run for ListGrants {
    async fn run(self, session: &Session) -> Reply<Vec<StoredGrant>> {
        Ok(session.chat_service()?.approvals.list())
    }
}

/// Takes back every grant of `tool` on `server` (kept and per conversation); the grants left.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct RevokeGrant {
    pub server: String,
    pub tool: String,
}

impl Run for RevokeGrant {
    async fn run(self, session: &Session) -> Reply<Vec<StoredGrant>> {
        session.chat_service()?;
        session.chat().revoke(&self.server, &self.tool)
    }
}

/// A link the user clicked in a reply: reviewed, shown on the URL consent card (in `conversation`'s thread when
/// given), and opened in the system browser only on Accept. The window never opens a URL itself.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct OpenLink {
    pub url: String,
    pub conversation: Option<String>,
}

impl Run for OpenLink {
    async fn run(self, session: &Session) -> Reply<()> {
        Ok(links::open_link(
            session.host().broker(),
            &self.url,
            self.conversation.as_deref(),
        )
        .await?)
    }
}

/// The model runtimes answering on this computer's usual loopback addresses (Ollama, LM Studio, a llama.cpp
/// server), for the setup card to offer.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct LocalModels {}

impl Run for LocalModels {
    async fn run(self, _session: &Session) -> Reply<Vec<LocalRuntime>> {
        Ok(detect_local(&KNOWN_RUNTIMES, PROBE_TIMEOUT).await)
    }
}

/// The models chat's provider lists, for the thread's chooser; why they could not be listed, when they could not.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct GetChatModels {}

impl Run for GetChatModels {
    async fn run(self, session: &Session) -> Reply<ChatModels> {
        let settings = session
            .chat_service()?
            .settings()
            .map_err(ChatError::from)?;
        Ok(chat_model::chat_models(&settings, chat_model::LIST_TIMEOUT).await)
    }
}

/// Makes the chosen model the one chat uses: written into mcp.json in place (chat's own provider, a copy of the
/// sampling one it shared, or a runtime found on this computer), then used from the next turn on. The status with it.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ChooseChatModel {
    pub choice: ModelChoice,
}

impl Run for ChooseChatModel {
    async fn run(self, session: &Session) -> Reply<ChatStatus> {
        session
            .apply(|doc| Ok(chat_model::edit_chat_model(doc, &self.choice)?))
            .await?;
        tracing::info!(model = self.choice.model.trim(), "chat model chosen");
        Ok(session.chat().status())
    }
}
