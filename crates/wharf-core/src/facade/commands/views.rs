//! The commands of tools' views (MCP Apps): the frame's messages, the theme, and closing a view. A front end that
//! renders no views gets `no_views` from each.

use serde::Deserialize;
use serde_json::Value;

use super::super::command::{CommandError, Reply, Run};
use super::super::session::{Session, ViewReply};
use super::super::ErrorCode;
use crate::apps::bridge::Theme;
use crate::apps::ViewSlot;
use crate::conversations::MessageData;
use crate::facade::ChatError;
use crate::question::tool_call::CallDecision;

fn no_views() -> CommandError {
    CommandError::new(ErrorCode::NoViews, "this front end shows no views")
}

fn no_view(view_id: &str) -> CommandError {
    CommandError::new(
        ErrorCode::UnknownView,
        format!("no view {view_id} is shown"),
    )
}

/// One message from a view's frame, as the frame posted it.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ViewMessage {
    pub view_id: String,
    #[ts(type = "unknown")]
    pub message: Value,
}

impl Run for ViewMessage {
    async fn run(self, session: &Session) -> Reply<ViewReply> {
        session.views().ok_or_else(no_views)?;
        session
            .view_message(&self.view_id, &self.message)
            .await
            .ok_or_else(|| no_view(&self.view_id))
    }
}

/// The app's theme, which every view is told.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SetViewTheme {
    pub theme: Theme,
}

/// What one view is to be posted.
#[derive(Debug, serde::Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ViewPost {
    pub view_id: String,
    #[ts(type = "Array<unknown>")]
    pub post: Vec<Value>,
}

impl Run for SetViewTheme {
    async fn run(self, session: &Session) -> Reply<Vec<ViewPost>> {
        session.views().ok_or_else(no_views)?;
        Ok(session
            .set_view_theme(self.theme)
            .await
            .into_iter()
            .map(|(view_id, post)| ViewPost { view_id, post })
            .collect())
    }
}

/// A view is about to close: the request to post it, asking it to let go.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct CloseView {
    pub view_id: String,
}

impl Run for CloseView {
    async fn run(self, session: &Session) -> Reply<ViewPost> {
        session.views().ok_or_else(no_views)?;
        let teardown = session
            .view_teardown(&self.view_id)
            .await
            .ok_or_else(|| no_view(&self.view_id))?;
        Ok(ViewPost {
            view_id: self.view_id,
            post: vec![teardown],
        })
    }
}

/// A view's frame is gone: it is no longer served.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ForgetView {
    pub view_id: String,
}

impl Run for ForgetView {
    async fn run(self, session: &Session) -> Reply<bool> {
        session.views().ok_or_else(no_views)?;
        Ok(session.forget_view(&self.view_id).await)
    }
}

/// A view did not reach `stage` in the time its frame gave it: told in the activity log, and why in words its place
/// shows.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ViewStalled {
    pub view_id: String,
    pub stage: crate::apps::bridge::ViewStage,
}

impl Run for ViewStalled {
    async fn run(self, session: &Session) -> Reply<String> {
        session.views().ok_or_else(no_views)?;
        if !session.view_stalled(&self.view_id, self.stage).await {
            return Err(no_view(&self.view_id));
        }
        Ok(self.stage.not_reached().to_owned())
    }
}

/// The view of a model's call kept in a conversation (the call's id in it), opened again from what was kept: the
/// tool's view as its server serves it now, given the call's arguments and result. `None`: the call's tool has no
/// view, or the call was not made.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct OpenCallView {
    pub conversation: String,
    pub call: String,
}

impl Run for OpenCallView {
    async fn run(self, session: &Session) -> Reply<Option<ViewSlot>> {
        session.views().ok_or_else(no_views)?;
        let messages = session
            .chat_service()?
            .store
            .messages(&self.conversation)
            .map_err(ChatError::from)?;
        let record = messages.iter().find_map(|m| match &m.data {
            Some(MessageData::ToolCall(record)) if record.id == self.call => Some(record.clone()),
            _ => None,
        });
        let Some(record) = record else {
            return Err(CommandError::new(
                ErrorCode::UnknownCall,
                format!(
                    "conversation {} has no call {}",
                    self.conversation, self.call
                ),
            ));
        };
        let sent = matches!(
            record.decision,
            CallDecision::AllowOnce
                | CallDecision::AllowConversation
                | CallDecision::AllowAlways
                | CallDecision::Granted
        );
        let Some(server) = record.server.as_deref().filter(|_| sent) else {
            return Ok(None);
        };
        let arguments = record.arguments.as_object().cloned();
        Ok(session
            .view_for_call(
                server,
                &record.tool,
                arguments.as_ref(),
                &record.result.as_tool_result(),
            )
            .await)
    }
}

/// The tools of the running servers that have a view, so that a front end offers a view only where there is one.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ToolsWithViews {}

/// A tool, by its server.
#[derive(Debug, serde::Serialize, ts_rs::TS)]
#[ts(export)]
pub struct ToolOfServer {
    pub server: String,
    pub tool: String,
}

impl Run for ToolsWithViews {
    async fn run(self, session: &Session) -> Reply<Vec<ToolOfServer>> {
        session.views().ok_or_else(no_views)?;
        let mut found = Vec::new();
        for (def, connection) in session.host().serving().await {
            if !connection.declares_apps() {
                continue;
            }
            let Ok(tools) = connection.current_tools().await else {
                continue;
            };
            found.extend(
                tools
                    .iter()
                    .filter(|t| t.ui.as_ref().is_some_and(|ui| ui.resource_uri.is_some()))
                    .map(|t| ToolOfServer {
                        server: def.name.clone(),
                        tool: t.name.clone(),
                    }),
            );
        }
        Ok(found)
    }
}
