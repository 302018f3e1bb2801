//! One view's side of the MCP Apps bridge: the JSON-RPC messages a view sends (through the sandbox proxy and the
//! app's frame, which only carry them), answered here. A view is a server's page and as untrusted as its server: it
//! reaches only its own server, only the tools that server makes visible to views, each call through the same
//! approval as a model's; a link goes through the user's consent to the system browser; a message to the chat
//! becomes a draft the user still sends. Requests are rate-limited, and every one is told (method and outcome).
//!
//! Both the published wire names (ext-apps 2.0) and the newer ones (`ui/log`, a plain `initialize`) are accepted.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::connection::ToolInfo;
use crate::display_text::one_line;

/// The revision of the extension Wharf speaks.
pub const APPS_PROTOCOL_VERSION: &str = "2026-01-26";

/// How many requests a view may make in `RATE_WINDOW`; past that each is refused until the window moves on.
pub const MAX_REQUESTS: usize = 30;
pub const RATE_WINDOW: Duration = Duration::from_secs(10);

/// After the user declines a view's link or file, how long that view's next ones are declined without asking: a
/// view that asks again at once must not keep a card or a dialog in front of the user.
pub const DECLINED_QUIET: Duration = Duration::from_secs(30);

/// The tallest a view may ask to be, in CSS pixels, and the shortest.
pub const MAX_HEIGHT: u32 = 2000;
pub const MIN_HEIGHT: u32 = 40;

/// The most of a draft or a context item taken from a view.
const MAX_TEXT_CHARS: usize = 8000;

/// The id of the host's teardown request, which the view's answer echoes.
pub const TEARDOWN_ID: &str = "wharf-teardown";

mod consent;
mod handshake;

const INVALID_PARAMS: i32 = -32602;
const METHOD_NOT_FOUND: i32 = -32601;
/// The extension's code for a request the host declined (a link the user refused, a message not taken).
const DECLINED: i32 = -32000;

/// What a view's requests are served with: its own server's tools, resources, and the user's consent.
#[async_trait]
pub trait ViewServices: Send + Sync {
    /// The server's tools as listed now.
    async fn tools(&self) -> Result<Vec<ToolInfo>, String>;
    /// `tool` called with `arguments` after the approval (`Err`: refused or failed, with why). The result is as the
    /// server sent it.
    async fn call_tool(
        &self,
        tool: &ToolInfo,
        arguments: Map<String, Value>,
    ) -> Result<Value, String>;
    /// `resources/read` of the server, as it answered.
    async fn read_resource(&self, uri: &str) -> Result<Value, String>;
    /// The user asked whether to open `url` in the system browser, and it opened (`false`: declined or refused).
    async fn open_link(&self, url: &str) -> bool;
    /// `bytes` saved where the user picked in the save dialog, offered as `name`: the path, or none when the user
    /// cancelled.
    async fn save_file(&self, name: &str, bytes: Vec<u8>) -> Result<Option<String>, String>;
}

/// What the host sends a view: a response, or a notification.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ToView {
    Result {
        jsonrpc: &'static str,
        id: Value,
        result: Value,
    },
    Error {
        jsonrpc: &'static str,
        id: Value,
        error: RpcError,
    },
    Notification {
        jsonrpc: &'static str,
        method: &'static str,
        params: Value,
    },
    Request {
        jsonrpc: &'static str,
        id: &'static str,
        method: &'static str,
        params: Value,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RpcError {
    pub code: i32,
    pub message: String,
}

/// What a view's message asks of the app around it.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[ts(export)]
pub enum ViewEffect {
    /// The frame's height, within bounds.
    Resize { height: u32 },
    /// Text for the composer, which the user may send or not.
    Draft { text: String },
    /// What the view of `tool` (of `server`) tells the model, shown as a removable chip; the last one replaces the
    /// one before.
    Context {
        server: String,
        tool: String,
        text: String,
    },
    /// A file the view offered was saved where the user picked.
    Saved {
        path: String,
        #[ts(type = "number")]
        bytes: u64,
    },
    /// The view asked to be closed.
    Teardown,
    /// The view answered the teardown request: its frame may go.
    TornDown,
    /// The view reached a stage of its start, shown in its place until it is running.
    Stage { stage: ViewStage },
    /// The view's frame loaded another page: it is no longer relayed, and its place says so.
    Navigated,
}

/// The stages of a view's start after it was read and served: a view that stops short says which it did not reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ViewStage {
    /// The sandbox proxy loaded and is relaying.
    SandboxLoaded,
    /// The view opened the bridge (`ui/initialize`).
    BridgeInitialized,
    /// The view was given the tool's input.
    InputDelivered,
}

impl ViewStage {
    /// Why a view that did not reach this stage stopped, in the words its place and the activity log use.
    pub fn not_reached(self) -> &'static str {
        match self {
            ViewStage::SandboxLoaded => {
                "the sandbox did not load (its page was refused or never answered)"
            }
            ViewStage::BridgeInitialized => "the view never opened the bridge (no ui/initialize)",
            ViewStage::InputDelivered => {
                "the view never said it was ready (no ui/notifications/initialized)"
            }
        }
    }
}

/// Why a view whose frame loaded another page is no longer carried.
pub const NAVIGATED: &str = "the view loaded another page, so Wharf stopped carrying its messages";

/// How one request ended, as the activity log tells it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct ViewRequestLog {
    pub method: String,
    pub outcome: String,
}

/// What handling one message produced.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Handled {
    pub replies: Vec<ToView>,
    pub effects: Vec<ViewEffect>,
    pub log: Option<ViewRequestLog>,
}

/// How the tool call the view belongs to ended.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolOutcome {
    /// The result as the server sent it.
    Result(Value),
    Cancelled(String),
}

/// The host's side of one view: the tool it shows, where the handshake is, and its request budget.
pub struct ViewBridge {
    server: String,
    tool: ToolInfo,
    arguments: Map<String, Value>,
    outcome: Option<ToolOutcome>,
    initialized: bool,
    input_sent: bool,
    outcome_sent: bool,
    theme: Theme,
    requests: VecDeque<Instant>,
    /// Until when the view's links are declined without asking, after the user declined one.
    links_quiet_until: Option<Instant>,
    /// The same for the files it offers.
    downloads_quiet_until: Option<Instant>,
}

/// The app's theme, as views are told it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum Theme {
    Light,
    Dark,
}

fn notification(method: &'static str, params: Value) -> ToView {
    ToView::Notification {
        jsonrpc: "2.0",
        method,
        params,
    }
}

impl ViewBridge {
    pub fn new(
        server: &str,
        tool: ToolInfo,
        arguments: Map<String, Value>,
        theme: Theme,
    ) -> ViewBridge {
        ViewBridge {
            server: server.to_owned(),
            tool,
            arguments,
            outcome: None,
            initialized: false,
            input_sent: false,
            outcome_sent: false,
            theme,
            requests: VecDeque::new(),
            links_quiet_until: None,
            downloads_quiet_until: None,
        }
    }

    pub fn server(&self) -> &str {
        &self.server
    }

    pub fn tool(&self) -> &ToolInfo {
        &self.tool
    }

    /// The call ended: the view is told once it is ready (now, if it is).
    pub fn set_outcome(&mut self, outcome: ToolOutcome) -> Vec<ToView> {
        if self.outcome.is_none() {
            self.outcome = Some(outcome);
        }
        self.pending()
    }

    /// The theme changed: a ready view is told.
    pub fn set_theme(&mut self, theme: Theme) -> Vec<ToView> {
        self.theme = theme;
        if !self.initialized {
            return Vec::new();
        }
        vec![notification(
            "ui/notifications/host-context-changed",
            json!({"theme": theme}),
        )]
    }

    /// The theme the view was last told (or started with).
    pub fn theme(&self) -> Theme {
        self.theme
    }

    /// The request that asks a view to let go before its frame is removed (its answer carries `TEARDOWN_ID`). The
    /// same for every view: it needs no view's state, so it never waits on a view's request in flight.
    pub fn teardown() -> ToView {
        ToView::Request {
            jsonrpc: "2.0",
            id: TEARDOWN_ID,
            method: "ui/resource-teardown",
            params: json!({"reason": "the view is closed"}),
        }
    }

    /// What a ready view has not been told yet, in the order the spec gives: the input, once, then the outcome.
    fn pending(&mut self) -> Vec<ToView> {
        let mut out = Vec::new();
        if !self.initialized {
            return out;
        }
        if !self.input_sent {
            self.input_sent = true;
            out.push(notification(
                "ui/notifications/tool-input",
                json!({"arguments": self.arguments}),
            ));
        }
        if !self.outcome_sent {
            match &self.outcome {
                Some(ToolOutcome::Result(result)) => {
                    self.outcome_sent = true;
                    out.push(notification("ui/notifications/tool-result", result.clone()));
                }
                Some(ToolOutcome::Cancelled(reason)) => {
                    self.outcome_sent = true;
                    out.push(notification(
                        "ui/notifications/tool-cancelled",
                        json!({"reason": reason}),
                    ));
                }
                None => {}
            }
        }
        out
    }

    /// One message from the view.
    pub async fn handle(
        &mut self,
        message: &Value,
        services: &dyn ViewServices,
        now: Instant,
    ) -> Handled {
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            // A response (to the teardown request) or junk: nothing to answer.
            let mut handled = Handled::default();
            if message.get("id").and_then(Value::as_str) == Some(TEARDOWN_ID) {
                handled.effects.push(ViewEffect::TornDown);
            }
            return handled;
        };
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let Some(id) = message.get("id").cloned() else {
            return self.notified(method, &params);
        };
        let shown_method = one_line(method, 60);
        if !self.admit(now) {
            return Handled {
                replies: vec![error(
                    id,
                    DECLINED,
                    "too many requests from this view: slow down",
                )],
                effects: Vec::new(),
                log: Some(ViewRequestLog {
                    method: shown_method,
                    outcome: "refused: too many requests".into(),
                }),
            };
        }
        let mut effects = Vec::new();
        if matches!(method, "ui/initialize" | "initialize") {
            effects.push(ViewEffect::Stage {
                stage: ViewStage::BridgeInitialized,
            });
        }
        let answer = self
            .request(method, &params, services, &mut effects, now)
            .await;
        let (reply, outcome) = match answer {
            Ok(result) => (
                ToView::Result {
                    jsonrpc: "2.0",
                    id,
                    result,
                },
                "answered".to_string(),
            ),
            Err(e) => {
                let outcome = format!("refused: {}", one_line(&e.message, 200));
                (error(id, e.code, &e.message), outcome)
            }
        };
        Handled {
            replies: vec![reply],
            effects,
            log: Some(ViewRequestLog {
                method: shown_method,
                outcome,
            }),
        }
    }

    fn admit(&mut self, now: Instant) -> bool {
        while self
            .requests
            .front()
            .is_some_and(|t| now.duration_since(*t) >= RATE_WINDOW)
        {
            self.requests.pop_front();
        }
        if self.requests.len() >= MAX_REQUESTS {
            return false;
        }
        self.requests.push_back(now);
        true
    }

    fn notified(&mut self, method: &str, params: &Value) -> Handled {
        let mut handled = Handled::default();
        match method {
            "ui/notifications/initialized" => {
                self.initialized = true;
                let input_was_sent = self.input_sent;
                handled.replies = self.pending();
                if !input_was_sent {
                    handled.effects.push(ViewEffect::Stage {
                        stage: ViewStage::InputDelivered,
                    });
                }
            }
            "ui/notifications/sandbox-proxy-ready" => handled.effects.push(ViewEffect::Stage {
                stage: ViewStage::SandboxLoaded,
            }),
            "ui/notifications/sandbox-view-navigated" => {
                handled.effects.push(ViewEffect::Navigated)
            }
            "ui/notifications/size-changed" => {
                if let Some(height) = params.get("height").and_then(Value::as_f64) {
                    let height = height.clamp(f64::from(MIN_HEIGHT), f64::from(MAX_HEIGHT));
                    // Clamped to a range of u32 just above: the cast cannot wrap.
                    handled.effects.push(ViewEffect::Resize {
                        height: height.round() as u32,
                    });
                }
            }
            "ui/notifications/request-teardown" => handled.effects.push(ViewEffect::Teardown),
            "notifications/message" | "ui/log" => {
                let data = params.get("data").map(|d| match d {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                });
                handled.log = Some(ViewRequestLog {
                    method: one_line(method, 60),
                    outcome: one_line(&data.unwrap_or_default(), 500),
                });
            }
            _ => {}
        }
        handled
    }

    async fn request(
        &mut self,
        method: &str,
        params: &Value,
        services: &dyn ViewServices,
        effects: &mut Vec<ViewEffect>,
        now: Instant,
    ) -> Result<Value, RpcError> {
        match method {
            "ui/initialize" => Ok(self.initialize_result(params)),
            "initialize" => Ok(json!({
                "protocolVersion": params.get("protocolVersion").cloned().unwrap_or(json!("2025-11-25")),
                "capabilities": {"extensions": {crate::apps::EXTENSION_ID: handshake::host_capabilities()}},
                "serverInfo": handshake::host_info(),
            })),
            "ping" => Ok(json!({})),
            "tools/list" => {
                let tools = services.tools().await.map_err(declined)?;
                let visible: Vec<Value> = tools
                    .iter()
                    .filter(|t| visible_to_views(t))
                    .filter_map(|t| serde_json::to_value(t).ok())
                    .collect();
                Ok(json!({ "tools": visible }))
            }
            "tools/call" => {
                let name = params
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| RpcError {
                        code: INVALID_PARAMS,
                        message: "tools/call needs a tool name".into(),
                    })?;
                let arguments = match params.get("arguments") {
                    None | Some(Value::Null) => Map::new(),
                    Some(Value::Object(arguments)) => arguments.clone(),
                    Some(_) => {
                        return Err(RpcError {
                            code: INVALID_PARAMS,
                            message: "a tool's arguments are an object".into(),
                        })
                    }
                };
                let tools = services.tools().await.map_err(declined)?;
                let tool = tools
                    .iter()
                    .find(|t| t.name == name)
                    .ok_or_else(|| RpcError {
                        code: INVALID_PARAMS,
                        message: format!(
                            "server {} has no tool {}",
                            self.server,
                            one_line(name, 80)
                        ),
                    })?;
                if !visible_to_views(tool) {
                    return Err(RpcError {
                        code: INVALID_PARAMS,
                        message: format!("tool {} is not visible to views", one_line(name, 80)),
                    });
                }
                services.call_tool(tool, arguments).await.map_err(declined)
            }
            "resources/read" => {
                let uri = params
                    .get("uri")
                    .and_then(Value::as_str)
                    .ok_or_else(|| RpcError {
                        code: INVALID_PARAMS,
                        message: "resources/read needs a uri".into(),
                    })?;
                services.read_resource(uri).await.map_err(declined)
            }
            "ui/open-link" => self.open_link(params, services, now).await,
            "ui/message" => {
                let text = texts(params.get("content"));
                if text.is_empty() {
                    return Err(RpcError {
                        code: DECLINED,
                        message: "Invalid message format: no text".into(),
                    });
                }
                effects.push(ViewEffect::Draft { text });
                Ok(json!({}))
            }
            "ui/update-model-context" => {
                let mut text = texts(params.get("content"));
                if let Some(structured) = params.get("structuredContent").filter(|s| !s.is_null()) {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(&one_line(&structured.to_string(), MAX_TEXT_CHARS));
                }
                effects.push(ViewEffect::Context {
                    server: self.server.clone(),
                    tool: self.tool.name.clone(),
                    text,
                });
                Ok(json!({}))
            }
            "ui/download-file" => self.download_file(params, services, effects, now).await,
            "ui/request-display-mode" => Ok(json!({"mode": "inline"})),
            _ => Err(RpcError {
                code: METHOD_NOT_FOUND,
                message: format!("Wharf does not serve {} to views", one_line(method, 60)),
            }),
        }
    }
}

fn visible_to_views(tool: &ToolInfo) -> bool {
    tool.ui.as_ref().is_none_or(|ui| ui.visibility.app)
}

/// The text blocks of a message's content (a list of blocks, or one), joined and cut to a size.
fn texts(content: Option<&Value>) -> String {
    let blocks: Vec<&Value> = match content {
        Some(Value::Array(blocks)) => blocks.iter().collect(),
        Some(block @ Value::Object(_)) => vec![block],
        _ => Vec::new(),
    };
    let text: Vec<&str> = blocks
        .into_iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    let joined = text.join("\n");
    if joined.chars().count() > MAX_TEXT_CHARS {
        joined.chars().take(MAX_TEXT_CHARS).collect()
    } else {
        joined
    }
}

fn declined(message: String) -> RpcError {
    RpcError {
        code: DECLINED,
        message,
    }
}

fn error(id: Value, code: i32, message: &str) -> ToView {
    ToView::Error {
        jsonrpc: "2.0",
        id,
        error: RpcError {
            code,
            message: message.to_owned(),
        },
    }
}

#[cfg(test)]
mod tests;
