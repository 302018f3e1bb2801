//! The servers and their tools: list, start and stop them, call a tool and cancel the call.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::connection::CallOptions;
use crate::facade::command::{CommandError, Reply, Run};
use crate::facade::session::Session;
use crate::facade::startup::StartupReport;
use crate::facade::ErrorCode;
use crate::host::ServerSummary;
use crate::protocol::ToolResult;
use crate::view::tool_form::ListedTool;
use crate::view::tool_result::{tool_result_view, ToolResultView};

#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ListServers {}

impl Run for ListServers {
    async fn run(self, session: &Session) -> Reply<Vec<ServerSummary>> {
        Ok(session.host().summaries().await)
    }
}

/// Starts the server, or restarts it when it runs.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct RestartServer {
    pub name: String,
}

impl Run for RestartServer {
    async fn run(self, session: &Session) -> Reply<()> {
        tracing::info!(server = self.name, "restart requested from the UI");
        Ok(session.host().start(&self.name).await?)
    }
}

#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct StopServer {
    pub name: String,
}

impl Run for StopServer {
    async fn run(self, session: &Session) -> Reply<()> {
        tracing::info!(server = self.name, "stop requested from the UI");
        Ok(session.host().stop(&self.name).await?)
    }
}

#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct GetStartupReport {}

impl Run for GetStartupReport {
    async fn run(self, session: &Session) -> Reply<StartupReport> {
        Ok(session.report().clone())
    }
}

/// Each tool comes with the form Rust made of its input schema: the window renders fields, never a schema.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ListTools {
    pub server: String,
}

impl Run for ListTools {
    async fn run(self, session: &Session) -> Reply<Vec<ListedTool>> {
        let tools = session.tools(&self.server).await?;
        Ok(tools.into_iter().map(ListedTool::from).collect())
    }
}

/// Calls a tool. Progress arrives as `progress` host events labelled with `callId`; `cancel_call` ends it. The
/// result reaches the window shaped and capped, never as the server's JSON.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct CallTool {
    pub call_id: String,
    pub server: String,
    pub tool: String,
    #[ts(type = "Record<string, unknown> | null")]
    pub args: Option<Map<String, Value>>,
}

impl Run for CallTool {
    async fn run(self, session: &Session) -> Reply<ToolResultView> {
        let label = Value::String(self.call_id.clone());
        let result = user_call(
            session,
            &self.call_id,
            label,
            None,
            &self.server,
            &self.tool,
            self.args.clone(),
        )
        .await?;
        let mut shown = tool_result_view(&result);
        shown.view = session
            .view_for_call(&self.server, &self.tool, self.args.as_ref(), &result)
            .await;
        Ok(shown)
    }
}

/// A call the user started, cancellable by `id` for as long as it runs: both front ends' calls take this path.
pub(crate) async fn user_call(
    session: &Session,
    id: &str,
    label: Value,
    timeout: Option<std::time::Duration>,
    server: &str,
    tool: &str,
    args: Option<Map<String, Value>>,
) -> Reply<ToolResult> {
    session
        .calls()
        .run(id, |cancel| async {
            let options = CallOptions {
                cancel,
                label: Some(label),
                timeout,
                on_behalf_of_user: true,
                ..CallOptions::default()
            };
            session
                .host()
                .connection(server)
                .await?
                .call_tool(tool, args, &options)
                .await
        })
        .await
        .map_err(CommandError::from)
}

#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct CancelCall {
    pub call_id: String,
}

impl Run for CancelCall {
    async fn run(self, session: &Session) -> Reply<()> {
        if session.calls().cancel(&self.call_id) {
            Ok(())
        } else {
            Err(CommandError::new(
                ErrorCode::UnknownCall,
                format!("no call {} is running", self.call_id),
            ))
        }
    }
}
