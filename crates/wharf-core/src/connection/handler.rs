//! Roots, sampling and logging are deprecated since 2026-07-28 (SEP-2577) but servers still use them: Wharf serves
//! them, so rmcp's deprecation warnings are expected here.
#![allow(deprecated)]

//! The rmcp `ClientHandler` of one connection: legacy server-to-client requests go to the broker, notifications
//! become host events or reach the call that is waiting for them.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    CustomNotification, ElicitRequestParams, ElicitResult, ElicitationCapability, ErrorCode,
    ErrorData, FormElicitationCapability, Implementation, JsonObject, ListRootsResult,
    LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken, ProtocolVersion,
    ResourceUpdatedNotificationParam, RootsCapabilities, SamplingCapability,
    UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use rmcp::ClientHandler;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::broker::{Broker, BrokerRefusal, InputKind};
use crate::elicitation::{self, Elicitation};
use crate::events::{EventSink, HostEvent};
use crate::sampling::{self, Sampling};

/// Progress notifications routed to the call that asked for them. A notification can beat the registration of its
/// token (the server answers while the caller is still being handed its request id), so unclaimed ones wait in a
/// small buffer.
#[derive(Debug, Default, Clone)]
pub struct ProgressRouter(Arc<Mutex<RouterState>>);

#[derive(Debug, Default)]
struct RouterState {
    routes: HashMap<ProgressToken, mpsc::UnboundedSender<ProgressNotificationParam>>,
    unclaimed: VecDeque<ProgressNotificationParam>,
    /// What the user's calls in flight are doing ("calling tool x"), oldest first: a handshake-era request from the
    /// server names no call, so the dialog is badged with these.
    calls: Vec<(u64, String)>,
    next_call: u64,
}

const UNCLAIMED_KEPT: usize = 64;

impl ProgressRouter {
    pub fn register(&self, token: ProgressToken) -> ProgressGuard {
        let (tx, rx) = mpsc::unbounded_channel();
        if let Ok(mut state) = self.0.lock() {
            let early: Vec<_> = state
                .unclaimed
                .iter()
                .filter(|p| p.progress_token == token)
                .cloned()
                .collect();
            state.unclaimed.retain(|p| p.progress_token != token);
            for p in early {
                let _ = tx.send(p);
            }
            state.routes.insert(token.clone(), tx);
        }
        ProgressGuard {
            router: self.clone(),
            token,
            rx,
        }
    }

    /// Delivers to the waiting call, or keeps it for a call that has not registered yet.
    fn route(&self, params: ProgressNotificationParam) {
        let Ok(mut state) = self.0.lock() else {
            return;
        };
        if let Some(tx) = state.routes.get(&params.progress_token) {
            let _ = tx.send(params);
            return;
        }
        if state.unclaimed.len() == UNCLAIMED_KEPT {
            state.unclaimed.pop_front();
        }
        state.unclaimed.push_back(params);
    }
}

impl ProgressRouter {
    /// A user's call starts; it is forgotten when the guard drops.
    pub fn begin_call(&self, cause: &str) -> CallInFlight {
        let id = self
            .0
            .lock()
            .map(|mut state| {
                state.next_call += 1;
                let id = state.next_call;
                state.calls.push((id, cause.to_string()));
                id
            })
            .unwrap_or_default();
        CallInFlight {
            router: self.clone(),
            id,
        }
    }

    /// The likely cause of a server's request: the one call in flight, or all of them.
    pub fn calls_in_flight(&self) -> Option<String> {
        let state = self.0.lock().ok()?;
        let causes: Vec<&str> = state.calls.iter().map(|(_, c)| c.as_str()).collect();
        (!causes.is_empty()).then(|| causes.join(" or "))
    }
}

pub struct CallInFlight {
    router: ProgressRouter,
    id: u64,
}

impl Drop for CallInFlight {
    fn drop(&mut self) {
        if let Ok(mut state) = self.router.0.lock() {
            state.calls.retain(|(id, _)| *id != self.id);
        }
    }
}

/// Receives the progress of one call; unregisters its token when dropped.
pub struct ProgressGuard {
    router: ProgressRouter,
    token: ProgressToken,
    pub rx: mpsc::UnboundedReceiver<ProgressNotificationParam>,
}

impl Drop for ProgressGuard {
    fn drop(&mut self) {
        if let Ok(mut state) = self.router.0.lock() {
            state.routes.remove(&self.token);
        }
    }
}

pub struct WharfHandler {
    pub server: String,
    pub roots: crate::roots::RootsAccess,
    pub era: crate::era::Era,
    pub broker: Broker,
    pub events: EventSink,
    pub progress: ProgressRouter,
    pub protocol_version: ProtocolVersion,
    /// Who the server is for the user's sampling preferences: its name and this hash of its definition.
    pub definition_hash: String,
    pub log_flood: LogFlood,
}

/// More log messages than this in a second from one server are not passed on one by one: a flood is summarised.
pub const LOGS_PER_SECOND: usize = 50;

/// Counts a server's log messages per second; past [`LOGS_PER_SECOND`] they are dropped and, when the second ends,
/// one notice says how many.
#[derive(Debug, Clone, Default)]
pub struct LogFlood(Arc<Mutex<FloodState>>);

#[derive(Debug, Default)]
struct FloodState {
    window: Option<std::time::Instant>,
    passed: usize,
    dropped: usize,
}

impl LogFlood {
    pub fn admit(&self, server: &str, events: &EventSink) -> bool {
        let Ok(mut state) = self.0.lock() else {
            return true;
        };
        let now = std::time::Instant::now();
        let started = *state.window.get_or_insert(now);
        if now.duration_since(started) >= std::time::Duration::from_secs(1) && state.dropped == 0 {
            state.window = Some(now);
            state.passed = 0;
        }
        if state.passed < LOGS_PER_SECOND {
            state.passed += 1;
            return true;
        }
        state.dropped += 1;
        if state.dropped == 1 {
            // The first drop of a window schedules its summary for the window's end.
            let (flood, server, events) = (self.clone(), server.to_string(), events.clone());
            let end = started + std::time::Duration::from_secs(1);
            tokio::spawn(async move {
                tokio::time::sleep_until(end.into()).await;
                let dropped = flood
                    .0
                    .lock()
                    .map(|mut s| {
                        let dropped = s.dropped;
                        *s = FloodState::default();
                        dropped
                    })
                    .unwrap_or(0);
                events.emit(HostEvent::Notice {
                    server: Some(server),
                    code: "log_flood".into(),
                    message: format!(
                        "{dropped} more log messages in one second were not shown (over {LOGS_PER_SECOND} a second)"
                    ),
                });
            });
        }
        false
    }
}

impl WharfHandler {
    /// The capabilities Wharf declares: exactly what the broker can serve. Each feature issue adds its capability
    /// here together with its answer; roots carry `listChanged` only in the handshake era (2026-07-28 removed it).
    pub fn capabilities(broker: &Broker, era: crate::era::Era) -> ClientCapabilities {
        let mut caps = ClientCapabilities::default();
        if broker.capabilities.roots {
            let mut roots = RootsCapabilities::default();
            roots.list_changed = (era == crate::era::Era::Legacy).then_some(true);
            caps.roots = Some(roots);
        }
        let declared = broker.capabilities;
        if declared.elicitation_form || declared.elicitation_url {
            let mut elicitation = ElicitationCapability::default();
            elicitation.form = declared
                .elicitation_form
                .then(FormElicitationCapability::default);
            elicitation.url = declared
                .elicitation_url
                .then(UrlElicitationCapability::default);
            caps.elicitation = Some(elicitation);
        }
        if declared.sampling {
            let mut sampling = SamplingCapability::default();
            sampling.tools = declared.sampling_tools.then(JsonObject::new);
            caps.sampling = Some(sampling);
        }
        caps
    }
}

fn wire_root(root: crate::workspace::Root) -> rmcp::model::Root {
    let mut wire = rmcp::model::Root::new(root.uri);
    wire.name = Some(root.name);
    wire
}

pub fn refusal_error(refusal: BrokerRefusal) -> ErrorData {
    ErrorData::new(ErrorCode(refusal.jsonrpc_code()), refusal.to_string(), None)
}

impl ClientHandler for WharfHandler {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            Self::capabilities(&self.broker, self.era),
            Implementation::new(crate::CLIENT_NAME, crate::CLIENT_VERSION),
        )
        .with_protocol_version(self.protocol_version.clone())
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        if !self.broker.capabilities.sampling {
            return Err(refusal_error(BrokerRefusal::Undeclared(
                InputKind::Sampling,
            )));
        }
        let params = serde_json::to_value(&params).unwrap_or(Value::Null);
        let reply = sampling::sample(Sampling {
            broker: &self.broker,
            events: &self.events,
            server: &self.server,
            definition_hash: &self.definition_hash,
            cause: self.progress.calls_in_flight(),
            params: &params,
            modern: self.era == crate::era::Era::Modern,
        })
        .await
        .map_err(|e| ErrorData::new(ErrorCode(e.jsonrpc_code()), e.to_string(), None))?;
        serde_json::from_value(reply).map_err(|e| {
            ErrorData::internal_error(format!("the provider's reply does not fit MCP: {e}"), None)
        })
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        if !self.broker.capabilities.roots {
            return Err(refusal_error(BrokerRefusal::Undeclared(InputKind::Roots)));
        }
        let roots = self.roots.answer(&self.broker, &self.events, false);
        Ok(ListRootsResult::new(
            roots.into_iter().map(wire_root).collect(),
        ))
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let value = serde_json::to_value(&params).unwrap_or(Value::Null);
        let reply = elicitation::elicit(Elicitation {
            broker: &self.broker,
            events: &self.events,
            server: &self.server,
            cause: self.progress.calls_in_flight(),
            params: &value,
        })
        .await
        .map_err(refusal_error)?;
        serde_json::from_value(reply.to_json())
            .map_err(|e| ErrorData::internal_error(format!("cannot encode the answer: {e}"), None))
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if notification.method != "notifications/elicitation/complete" {
            return;
        }
        let id = notification
            .params
            .as_ref()
            .and_then(|p| p.get("elicitationId"))
            .and_then(Value::as_str);
        // Unknown and repeated ids are ignored, as the spec asks; a known one ends the wait of its call.
        match id {
            Some(id) if self.broker.guard.complete(&self.server, id) => {
                tracing::info!(server = %self.server, id, "URL elicitation completed");
            }
            _ => tracing::debug!(server = %self.server, ?id, "elicitation/complete ignored"),
        }
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        // Unclaimed progress waits for its call to register; progress of calls long gone is dropped.
        self.progress.route(params);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if !self.log_flood.admit(&self.server, &self.events) {
            return;
        }
        let level = serde_json::to_value(params.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "info".into());
        self.events.emit(HostEvent::Log {
            server: self.server.clone(),
            level,
            logger: params.logger,
            data: params.data,
        });
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.events.emit(HostEvent::ResourceUpdated {
            server: self.server.clone(),
            uri: params.uri.to_string(),
        });
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed("tools");
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed("resources");
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed("prompts");
    }
}

impl WharfHandler {
    fn list_changed(&self, kind: &'static str) {
        self.events.emit(HostEvent::ListChanged {
            server: self.server.clone(),
            kind,
        });
    }
}
