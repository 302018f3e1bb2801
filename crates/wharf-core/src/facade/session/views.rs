//! The views a front end that renders them shows (MCP Apps): a tool's view is fetched when a call of the tool
//! returns, served from the view host, and bridged here. The front end only frames the proxy page and carries
//! messages both ways; every decision (what a view may call, whether a link opens) is taken here, and every request
//! a view makes is told as a `view_request` event.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use async_trait::async_trait;
use serde::Serialize;
use serde_json::{Map, Value};

use super::Session;
use crate::approval::pin::{Pinned, ServerDefinition};
use crate::apps::bridge::{
    Theme, ToView, ToolOutcome, ViewBridge, ViewEffect, ViewServices, ViewStage,
};
use crate::apps::host::{ViewHost, ViewHostError};
use crate::apps::{self, ViewSlot};
use crate::chat::approve::{Approval, CallToApprove};
use crate::chat::tools::ModelTool;
use crate::connection::{CallOptions, ToolInfo};
use crate::events::HostEvent;
use crate::facade::links::{self, LinkAsker};
use crate::protocol::ToolResult;
use crate::question::tool_call::CallDecision;

/// The grants a view's calls are decided under: the views' own, apart from any conversation's.
const VIEWS_CONVERSATION: &str = "views";

/// The views of a front end that renders them.
pub struct SessionViews {
    app_origin: String,
    host: tokio::sync::OnceCell<Result<ViewHost, ViewHostError>>,
    open: Mutex<HashMap<String, Arc<tokio::sync::Mutex<ViewBridge>>>>,
    theme: Mutex<Theme>,
    calls: std::sync::atomic::AtomicU64,
}

/// What the front end does with a view's message: post these messages to the view's frame, and apply these effects.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct ViewReply {
    /// JSON-RPC messages, posted to the frame as they are.
    #[ts(type = "Array<unknown>")]
    pub post: Vec<Value>,
    pub effects: Vec<ViewEffect>,
}

impl SessionViews {
    /// Views for an app served from `app_origin` (the only origin that may frame the proxy).
    pub fn new(app_origin: &str, theme: Theme) -> SessionViews {
        SessionViews {
            app_origin: app_origin.to_owned(),
            host: tokio::sync::OnceCell::new(),
            open: Mutex::new(HashMap::new()),
            theme: Mutex::new(theme),
            calls: std::sync::atomic::AtomicU64::new(1),
        }
    }

    /// The view host, started the first time a view is shown (why it could not start, every time after).
    pub async fn host(&self) -> Result<&ViewHost, &ViewHostError> {
        self.host
            .get_or_init(|| ViewHost::start(&self.app_origin))
            .await
            .as_ref()
    }

    /// Whether `url` is a frame of a view being shown: the webview's navigation fence lets these through.
    pub fn is_view_url(&self, url: &url::Url) -> bool {
        self.host
            .get()
            .and_then(|h| h.as_ref().ok())
            .is_some_and(|host| host.is_view_url(url))
    }

    fn bridge(&self, view_id: &str) -> Option<Arc<tokio::sync::Mutex<ViewBridge>>> {
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(view_id)
            .cloned()
    }

    fn theme(&self) -> Theme {
        *self.theme.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Session {
    /// The view of `tool`'s call that returned `result`, when the tool has one and this front end shows views.
    pub(crate) async fn view_for_call(
        &self,
        server: &str,
        tool: &str,
        arguments: Option<&Map<String, Value>>,
        result: &ToolResult,
    ) -> Option<ViewSlot> {
        let views = self.views()?;
        let connection = self.host().connection(server).await.ok()?;
        // The server's entry turned views off ("apps": false): its tools are plain tools here.
        if !connection.declares_apps() {
            return None;
        }
        let server_declared = connection.server_declares_apps();
        let tools = connection.current_tools().await.ok()?;
        let info = tools.iter().find(|t| t.name == tool)?.clone();
        let uri = info.ui.as_ref()?.resource_uri.clone()?;
        let failed = |error: String| {
            self.host().events().emit(HostEvent::ViewFailed {
                server: server.to_owned(),
                tool: tool.to_owned(),
                reason: error.clone(),
            });
            ViewSlot {
                uri: uri.clone(),
                server_declared,
                frame: None,
                error: Some(error),
                bytes: 0,
                policy: String::new(),
                refused_domains: Vec::new(),
                prefers_border: None,
                teardown: Value::Null,
            }
        };
        let document = match apps::fetch(&connection, &uri).await {
            Ok(document) => document,
            Err(e) => return Some(failed(format!("reading the view: {e}"))),
        };
        let host = match views.host().await {
            Ok(host) => host,
            Err(e) => return Some(failed(format!("serving the view: {e}"))),
        };
        let frame = host.add(&document);
        let mut bridge = ViewBridge::new(
            server,
            info,
            arguments.cloned().unwrap_or_default(),
            views.theme(),
        );
        bridge.set_outcome(ToolOutcome::Result(result.sent().clone()));
        let teardown = serde_json::to_value(ViewBridge::teardown()).unwrap_or(Value::Null);
        views
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                frame.view_id.clone(),
                Arc::new(tokio::sync::Mutex::new(bridge)),
            );
        Some(ViewSlot {
            uri,
            server_declared,
            bytes: document.html.len() as u64,
            policy: document.policy.header.clone(),
            refused_domains: document.policy.refused.clone(),
            prefers_border: document.ui.prefers_border,
            frame: Some(frame),
            error: None,
            teardown,
        })
    }

    /// One message from a view's frame.
    pub(crate) async fn view_message(&self, view_id: &str, message: &Value) -> Option<ViewReply> {
        let views = self.views()?;
        let bridge = views.bridge(view_id)?;
        let mut bridge = bridge.lock().await;
        let services = Services {
            session: self,
            server: bridge.server().to_owned(),
            view_tool: bridge.tool().name.clone(),
            view_id: view_id.to_owned(),
        };
        let mut handled = bridge.handle(message, &services, Instant::now()).await;
        // A theme change while this view's request was in flight (a card, a dialog) passed it by: told now.
        let theme = views.theme();
        if bridge.theme() != theme {
            handled.replies.extend(bridge.set_theme(theme));
        }
        if handled.effects.contains(&ViewEffect::Navigated) {
            self.host().events().emit(HostEvent::ViewFailed {
                server: bridge.server().to_owned(),
                tool: bridge.tool().name.clone(),
                reason: crate::apps::bridge::NAVIGATED.to_owned(),
            });
        }
        if let Some(log) = &handled.log {
            self.host().events().emit(HostEvent::ViewRequest {
                server: bridge.server().to_owned(),
                tool: bridge.tool().name.clone(),
                method: log.method.clone(),
                outcome: log.outcome.clone(),
            });
        }
        Some(reply(handled.replies, handled.effects))
    }

    /// The app's theme changed: what each view is told.
    pub(crate) async fn set_view_theme(&self, theme: Theme) -> Vec<(String, Vec<Value>)> {
        let Some(views) = self.views() else {
            return Vec::new();
        };
        *views.theme.lock().unwrap_or_else(PoisonError::into_inner) = theme;
        let open: Vec<(String, Arc<tokio::sync::Mutex<ViewBridge>>)> = views
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(id, bridge)| (id.clone(), bridge.clone()))
            .collect();
        let mut told = Vec::new();
        for (id, bridge) in open {
            // A view whose request is in flight (waiting on a card or a dialog) is told with its answer instead:
            // the theme must not wait on the user.
            let Ok(mut bridge) = bridge.try_lock() else {
                continue;
            };
            let messages = bridge.set_theme(theme);
            told.push((id, reply(messages, Vec::new()).post));
        }
        told
    }

    /// The view did not reach `stage` in time: the activity log says so, as its place does.
    pub(crate) async fn view_stalled(&self, view_id: &str, stage: ViewStage) -> bool {
        let Some(bridge) = self.views().and_then(|views| views.bridge(view_id)) else {
            return false;
        };
        let bridge = bridge.lock().await;
        self.host().events().emit(HostEvent::ViewFailed {
            server: bridge.server().to_owned(),
            tool: bridge.tool().name.clone(),
            reason: stage.not_reached().to_owned(),
        });
        true
    }

    /// The request asking a view to let go, before its frame is removed.
    pub(crate) async fn view_teardown(&self, view_id: &str) -> Option<Value> {
        // Only known to be shown, not locked: a view waiting on a card or a dialog can still be asked to let go.
        self.views()?.bridge(view_id)?;
        serde_json::to_value(ViewBridge::teardown()).ok()
    }

    /// The view is gone: its pages are no longer served, its messages no longer answered.
    pub(crate) async fn forget_view(&self, view_id: &str) -> bool {
        let Some(views) = self.views() else {
            return false;
        };
        let removed = views
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(view_id)
            .is_some();
        if let Ok(host) = views.host().await {
            host.remove(view_id);
        }
        removed
    }
}

fn reply(replies: Vec<ToView>, effects: Vec<ViewEffect>) -> ViewReply {
    ViewReply {
        post: replies
            .iter()
            .filter_map(|r| serde_json::to_value(r).ok())
            .collect(),
        effects,
    }
}

/// What a view's requests reach: its own server, through the session.
struct Services<'a> {
    session: &'a Session,
    server: String,
    view_tool: String,
    view_id: String,
}

impl Services<'_> {
    /// The view's own server, started if it is stopped.
    async fn connection(&self) -> Result<std::sync::Arc<crate::Connection>, String> {
        self.session
            .host()
            .connection(&self.server)
            .await
            .map_err(|e| e.to_string())
    }
}

#[async_trait]
impl ViewServices for Services<'_> {
    async fn tools(&self) -> Result<Vec<ToolInfo>, String> {
        let connection = self.connection().await?;
        let tools = connection
            .current_tools()
            .await
            .map_err(|e| e.to_string())?;
        Ok(tools.as_ref().clone())
    }

    async fn call_tool(
        &self,
        tool: &ToolInfo,
        arguments: Map<String, Value>,
    ) -> Result<Value, String> {
        let serving = self.session.host().serving().await;
        let (def, connection) = serving
            .iter()
            .find(|(def, _)| def.name == self.server)
            .ok_or_else(|| format!("server {} is not running", self.server))?;
        let definition = ServerDefinition::of(def)
            .ok_or_else(|| format!("server {}'s definition cannot be used", self.server))?;
        let chat = self.session.chat_service().map_err(|e| e.to_string())?;
        let approval = Approval {
            approvals: &chat.approvals,
            broker: self.session.host().broker(),
            events: self.session.host().events(),
            conversation: VIEWS_CONVERSATION,
        };
        let n = self
            .session
            .views()
            .map(|v| v.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
            .unwrap_or_default();
        let call_id = format!("{}-{n}", self.view_id);
        let model_tool = ModelTool {
            name: tool.name.clone(),
            server: self.server.clone(),
            tool: tool.clone(),
        };
        let approved = approval
            .decide(CallToApprove {
                call_id: &call_id,
                tool: &model_tool,
                pinned: Pinned::new(definition, tool),
                stance: def.stance,
                arguments,
                new_tool: false,
                caller: Some(format!(
                    "the view of tool {} ({})",
                    self.view_tool, self.server
                )),
            })
            .await;
        if approved.decision == CallDecision::Deny {
            return Err(approved
                .refusal
                .unwrap_or_else(|| "the user denied this call".into()));
        }
        let result = connection
            .call_tool(
                &tool.name,
                Some(approved.arguments),
                &CallOptions::default(),
            )
            .await
            .map_err(|e| e.to_string())?;
        Ok(result.into_sent())
    }

    async fn read_resource(&self, uri: &str) -> Result<Value, String> {
        let connection = self.connection().await?;
        let read = connection
            .read_resource(uri, &CallOptions::default())
            .await
            .map_err(|e| e.to_string())?;
        Ok(read.into_sent())
    }

    async fn open_link(&self, url: &str) -> bool {
        let asker = LinkAsker::view(&self.server, &self.view_tool);
        links::open_link_for(self.session.host().broker(), url, &asker, None)
            .await
            .is_ok()
    }

    async fn save_file(&self, name: &str, bytes: Vec<u8>) -> Result<Option<String>, String> {
        // The dialog's title names who offers the file: the dialog is the user's consent to it.
        let title = format!(
            "Save a file from the view of {} ({})",
            crate::display_text::one_line(&self.view_tool, 60),
            crate::display_text::one_line(&self.server, 60)
        );
        let saved = self
            .session
            .save_with_dialog(&title, name.to_owned(), &bytes)
            .await
            .map_err(|e| e.to_string())?;
        Ok(saved.map(|s| s.path))
    }
}

#[cfg(test)]
#[path = "views_tests.rs"]
mod tests;
