//! The commands of tools' views (MCP Apps): the frame's messages, the theme, and closing a view. A front end that
//! renders no views gets `no_views` from each.

use serde::Deserialize;
use serde_json::Value;

use super::super::command::{CommandError, Reply, Run};
use super::super::session::{Session, ViewReply};
use super::super::ErrorCode;
use crate::apps::bridge::Theme;

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
