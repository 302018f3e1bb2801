//! Roots, sampling and logging are deprecated since 2026-07-28 (SEP-2577) but servers still use them: Wharf serves
//! them, so rmcp's deprecation warnings are expected here.
#![allow(deprecated)]

//! The rmcp `ClientHandler` of one connection: legacy server-to-client requests go to the broker, notifications
//! become host events or reach the call that is waiting for them.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    CustomNotification, CustomRequest, CustomResult, ElicitRequestParams, ElicitResult,
    ElicitationCapability, ErrorCode, ErrorData, FormElicitationCapability, Implementation,
    JsonObject, ListRootsResult, LoggingMessageNotificationParam, ProgressNotificationParam,
    ProgressToken, ProtocolVersion, ResourceUpdatedNotificationParam, RootsCapabilities,
    SamplingCapability, UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use rmcp::ClientHandler;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::broker::{Broker, BrokerRefusal, InputKind};
use crate::elicitation;
use crate::events::{EventSink, HostEvent};
use crate::sampling::{self, Sampling};

mod flood;
mod raw;
pub use flood::{Flood, LogFlood};
pub use raw::{elicitation_fits_spec, INVALID_REQUEST_NOTICE};

/// Progress notifications routed to the call that asked for them. A notification can beat the registration of its
/// token (the server answers while the caller is still being handed its request id), so unclaimed ones wait in a
/// small buffer.
#[derive(Debug, Default, Clone)]
pub struct ProgressRouter(Arc<Mutex<RouterState>>);

#[derive(Debug, Default)]
struct RouterState {
    routes: HashMap<ProgressToken, Route>,
    unclaimed: VecDeque<ProgressNotificationParam>,
    /// What the user's calls in flight are doing ("calling tool x"), oldest first: a handshake-era request from the
    /// server names no call, so the dialog is badged with these.
    calls: Vec<(u64, String)>,
    next_call: u64,
}

const UNCLAIMED_KEPT: usize = 64;

/// Where one call's progress goes. The spec says progress increases with each notification: one that does not
/// (a server counting down, or replaying) is dropped, so it can neither confuse the user nor keep a call alive.
#[derive(Debug)]
struct Route {
    tx: mpsc::UnboundedSender<ProgressNotificationParam>,
    last: Option<f64>,
    /// The user was told this call's progress went backwards (once per call).
    told: bool,
}

enum Admitted {
    Pass,
    Dropped,
    /// Dropped, and the first of this call that the user must hear about: the last progress that passed.
    FirstDropped(f64),
}

impl Route {
    fn admit(&mut self, params: &ProgressNotificationParam) -> Admitted {
        match self.last {
            Some(last)
                if params.progress.partial_cmp(&last) != Some(std::cmp::Ordering::Greater) =>
            {
                if std::mem::replace(&mut self.told, true) {
                    Admitted::Dropped
                } else {
                    Admitted::FirstDropped(last)
                }
            }
            _ => {
                self.last = Some(params.progress);
                let _ = self.tx.send(params.clone());
                Admitted::Pass
            }
        }
    }
}

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
            let mut route = Route {
                tx,
                last: None,
                told: false,
            };
            for p in &early {
                if !matches!(route.admit(p), Admitted::Pass) {
                    // Too early for a notice (the call is still being set up); the next one tells.
                    route.told = false;
                }
            }
            state.routes.insert(token.clone(), route);
        }
        ProgressGuard {
            router: self.clone(),
            token,
            rx,
        }
    }

    /// Delivers to the waiting call, or keeps it for a call that has not registered yet. Returns the last progress
    /// shown when this notification is the first of its call not to increase it.
    fn route(&self, params: ProgressNotificationParam) -> Option<f64> {
        let Ok(mut state) = self.0.lock() else {
            return None;
        };
        if let Some(route) = state.routes.get_mut(&params.progress_token) {
            return match route.admit(&params) {
                Admitted::FirstDropped(last) => Some(last),
                Admitted::Pass | Admitted::Dropped => None,
            };
        }
        if state.unclaimed.len() == UNCLAIMED_KEPT {
            state.unclaimed.pop_front();
        }
        state.unclaimed.push_back(params);
        None
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
    pub tools_version: ToolsVersion,
    pub roots: crate::roots::RootsAccess,
    pub era: crate::era::Era,
    pub broker: Broker,
    pub events: EventSink,
    pub progress: ProgressRouter,
    pub protocol_version: ProtocolVersion,
    /// Who the server is for the user's sampling preferences: its name and this hash of its definition.
    pub definition_hash: String,
    pub log_flood: LogFlood,
    /// Resource updates and list changes, bounded as log messages are.
    pub change_flood: Flood,
}

/// How many times the server said its tools changed (`notifications/tools/list_changed` in either era): a tool list
/// read at one count is stale at the next.
#[derive(Debug, Clone, Default)]
pub struct ToolsVersion(Arc<std::sync::atomic::AtomicU64>);

impl ToolsVersion {
    pub fn bump(&self) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn get(&self) -> u64 {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
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

    /// Reached only by an `elicitation/create` that came where no transport screens it (the JSON body of an HTTP
    /// answer to a request that cannot ask for input, where only its response belongs): rmcp's typed params have lost every keyword it does not model, so the form
    /// cannot be checked against what the server sent. Declined, and the user told. Every request Wharf reads as
    /// written arrives at `on_custom_request` instead.
    async fn create_elicitation(
        &self,
        _params: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.events.emit(HostEvent::Notice {
            server: Some(self.server.clone()),
            code: INVALID_REQUEST_NOTICE.into(),
            message: format!(
                "{} sent an elicitation where Wharf cannot read it as written; declined",
                self.server
            ),
        });
        serde_json::from_value(elicitation::ElicitReply::Decline.to_json())
            .map_err(|e| ErrorData::internal_error(format!("cannot encode the answer: {e}"), None))
    }

    /// Where an `elicitation/create` arrives, its params as the server wrote them, and where a request Wharf
    /// refuses is answered (see `crate::raw_message`).
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleClient>,
    ) -> Result<CustomResult, ErrorData> {
        self.custom_request(request).await
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
        let progress = params.progress;
        if let Some(last) = self.progress.route(params) {
            self.events.emit(HostEvent::Notice {
                server: Some(self.server.clone()),
                code: "progress_not_increasing".into(),
                message: format!(
                    "the server sent progress {progress} after {last}, but progress must increase: its \
                     notifications that do not are not shown for this call"
                ),
            });
        }
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
        if !self.change_flood.admit(&self.server, &self.events) {
            return;
        }
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
        // The tool list is stale either way; only telling the user is bounded.
        if kind == "tools" {
            self.tools_version.bump();
        }
        if !self.change_flood.admit(&self.server, &self.events) {
            return;
        }
        self.events.emit(HostEvent::ListChanged {
            server: self.server.clone(),
            kind,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::NumberOrString;

    fn token(n: i64) -> ProgressToken {
        ProgressToken(NumberOrString::Number(n))
    }

    #[test]
    fn progress_that_does_not_increase_is_dropped_and_told_once_per_call() {
        let router = ProgressRouter::default();
        // One arrives before its call registers: it is kept and checked like the rest.
        assert_eq!(
            router.route(ProgressNotificationParam::new(token(1), 5.0)),
            None
        );
        let mut call = router.register(token(1));
        let mut told = Vec::new();
        for progress in [4.0, 6.0, 6.0, 3.0, f64::NAN, 7.0] {
            told.extend(router.route(ProgressNotificationParam::new(token(1), progress)));
        }
        let mut passed = Vec::new();
        while let Ok(p) = call.rx.try_recv() {
            passed.push(p.progress);
        }
        assert_eq!(passed, [5.0, 6.0, 7.0]);
        assert_eq!(told, [5.0], "one notice, for the first backwards step");
        // Another call counts on its own.
        let mut other = router.register(token(2));
        assert_eq!(
            router.route(ProgressNotificationParam::new(token(2), 1.0)),
            None
        );
        assert_eq!(other.rx.try_recv().map(|p| p.progress).ok(), Some(1.0));
    }
}
