//! Roots, sampling and logging are deprecated since 2026-07-28 (SEP-2577) but servers still use them: Wharf serves
//! them, so rmcp's deprecation warnings are expected here.
#![allow(deprecated)]

//! The rmcp `ClientHandler` of one connection: legacy server-to-client requests go to the broker, notifications
//! become host events or reach the call that is waiting for them.

use std::sync::Arc;

use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    CustomNotification, CustomRequest, CustomResult, ElicitRequestParams, ElicitResult,
    ElicitationCapability, ErrorCode, ErrorData, FormElicitationCapability, Implementation,
    JsonObject, ListRootsResult, LoggingMessageNotificationParam, ProgressNotificationParam,
    ProtocolVersion, ResourceUpdatedNotificationParam, RootsCapabilities, SamplingCapability,
    UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use rmcp::ClientHandler;
use serde_json::Value;

use crate::broker::Broker;
use crate::elicitation;
use crate::events::{EventSink, HostEvent, ListKind, NoticeCode};
use crate::question::Cause;
use crate::raw_message;
use crate::serve::{Asking, NotServed};

use super::progress::{ProgressRouter, ProgressTap};

mod flood;
mod raw;
pub use flood::{Flood, LogFlood};

pub struct WharfHandler {
    pub server: String,
    pub tools_version: ToolsVersion,
    pub roots: crate::roots::RootsAccess,
    pub era: crate::era::Era,
    pub broker: Broker,
    pub services: crate::serve::Services,
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
        if declared.apps {
            let mut settings = JsonObject::new();
            settings.insert(
                "mimeTypes".into(),
                serde_json::json!([crate::protocol::VIEW_MIME_TYPE]),
            );
            caps.extensions = Some([(crate::protocol::EXTENSION_ID.to_owned(), settings)].into());
        }
        caps
    }
}

fn wire_root(root: crate::workspace::Root) -> rmcp::model::Root {
    let mut wire = rmcp::model::Root::new(root.uri);
    wire.name = Some(root.name);
    wire
}

impl WharfHandler {
    /// How a request of this server is served: `in_round` when it came inside an MRTR round, `cause` the user
    /// action that led to it.
    pub(super) fn asking(&self, in_round: bool, cause: Option<Cause>) -> Asking<'_> {
        Asking {
            server: &self.server,
            broker: &self.broker,
            services: &self.services,
            events: &self.events,
            roots: &self.roots,
            definition_hash: &self.definition_hash,
            era: self.era,
            in_round,
            cause,
        }
    }

    /// The error response of a request Wharf did not serve; params that do not fit are told to the user too.
    fn not_served(&self, why: NotServed) -> ErrorData {
        match why {
            NotServed::Invalid { method, reason } => self.refuse(raw_message::Refusal {
                method: method.into(),
                code: raw_message::INVALID_PARAMS,
                reason,
            }),
            other => ErrorData::new(ErrorCode(other.jsonrpc_code()), other.to_string(), None),
        }
    }

    /// What the transport calls for each progress notification, before rmcp dispatches anything.
    pub fn progress_tap(&self) -> ProgressTap {
        ProgressTap {
            router: self.progress.clone(),
            events: self.events.clone(),
            server: self.server.clone(),
        }
    }
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
        let params = serde_json::to_value(&params).unwrap_or(Value::Null);
        let reply = self
            .asking(false, self.progress.calls_in_flight())
            .sample(&params)
            .await
            .map_err(|e| self.not_served(e))?;
        let reply = serde_json::to_value(&reply).unwrap_or(Value::Null);
        serde_json::from_value(reply).map_err(|e| {
            ErrorData::internal_error(format!("the provider's reply does not fit MCP: {e}"), None)
        })
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let roots = self
            .asking(false, self.progress.calls_in_flight())
            .roots()
            .map_err(|e| self.not_served(e))?;
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
            code: NoticeCode::InvalidRequest,
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
            Some(id) if self.services.guard.complete(&self.server, id) => {
                tracing::info!(server = %self.server, id, "URL elicitation completed");
            }
            _ => tracing::debug!(server = %self.server, ?id, "elicitation/complete ignored"),
        }
    }

    /// Reached only if a transport did not take progress off the stream first (see `ProgressTap`).
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress_tap().deliver(params);
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
        self.list_changed(ListKind::Tools);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed(ListKind::Resources);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed(ListKind::Prompts);
    }
}

impl WharfHandler {
    fn list_changed(&self, kind: ListKind) {
        // The tool list is stale either way; only telling the user is bounded.
        if kind == ListKind::Tools {
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
