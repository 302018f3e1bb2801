//! One live connection to one MCP server, in the era it speaks, over stdio or Streamable HTTP.
//!
//! rmcp does the protocol; this type owns what a desktop host needs around it: era probing with our own timeout,
//! process hygiene, message limits, MRTR rounds driven through the broker, progress-aware timeouts, cancellation.
//! No rmcp type appears in its public API.

mod catalog;
mod error;
mod handler;
mod http;
mod identity;
mod init_error;
use init_error::init_error;
mod listen;
mod progress;
mod request;
mod stdio;
mod tools;
mod watched;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{ClientConfig, Implementation, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, RoleClient, RunningService, ServiceError};
use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::broker::Broker;
use crate::config::{ServerDef, TransportDef};
use crate::era::{Era, EraCache, MODERN_VERSION};
use crate::events::{EventSink, HostEvent};
use crate::process::{ServerProcess, StderrTail};
use crate::protocol::{ServerCapabilities, ServerInfo, ToolAnnotations};
use crate::roots::RootsAccess;
use crate::workspace::SharedWorkspace;
pub use error::{ProtocolError, Refusal, LOG_LEVELS};
use handler::WharfHandler;
pub use progress::ProgressRouter;
pub(crate) use stdio::transport::DEFAULT_MAX_MESSAGE_BYTES;

#[derive(Debug, Clone, thiserror::Error)]
pub enum ConnectionError {
    #[error("{0}")]
    Config(String),
    /// The server's command could not be started (not found, not executable).
    #[error("{0}")]
    Spawn(Arc<crate::process::SpawnError>),
    #[error("cannot connect: {0}")]
    Connect(String),
    #[error("the server closed the connection{}", detail(.0))]
    Closed(Option<String>),
    #[error("the server answered with an error: {message} ({code})")]
    Server {
        code: i32,
        message: String,
        data: Option<Value>,
    },
    #[error("no response within {0:?} (and no progress)")]
    Timeout(Duration),
    #[error("cancelled")]
    Cancelled,
    #[error("{0}")]
    Protocol(#[from] ProtocolError),
    #[error("unknown server \"{0}\" (not in the configuration)")]
    UnknownServer(String),
    #[error("refused: {0}")]
    Refused(#[from] Refusal),
    /// Path arguments that may not be sent, each naming its argument so a front end can show the reason there.
    #[error("refused: {}{}", path_reasons(.paths), if *.declined { " (you chose not to send it)" } else { "" })]
    PathsRefused {
        paths: Vec<crate::workspace::paths::PathViolation>,
        /// The user was asked and said no (rather than the server's preference refusing outright).
        declined: bool,
    },
    #[error("{0}")]
    Auth(#[from] crate::auth::AuthError),
}

fn path_reasons(paths: &[crate::workspace::paths::PathViolation]) -> String {
    paths
        .iter()
        .map(|v| v.reason.as_str())
        .collect::<Vec<_>>()
        .join("; ")
}

fn detail(reason: &Option<String>) -> String {
    reason
        .as_ref()
        .map(|r| format!(": {r}"))
        .unwrap_or_default()
}

/// Per-call options: where progress goes, how to cancel, how long silence may last.
#[derive(Clone, Default)]
pub struct CallOptions {
    pub cancel: CancellationToken,
    /// Overrides the server's request timeout; each progress notification restarts it.
    pub timeout: Option<Duration>,
    /// Attached to progress events so a front end knows which call they belong to.
    pub label: Option<Value>,
    /// A cap on MRTR rounds for this call.
    pub max_rounds: Option<usize>,
    /// The user asked for this call (the app, `wharf call`, a session): its path arguments must lie inside the open
    /// workspace folders, or the user says yes (`"pathArguments": "ask"`), unless the server's configuration says
    /// `"pathArguments": "allow"`.
    pub on_behalf_of_user: bool,
}

/// What the server told us about itself.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ServerIdentity {
    pub era: Era,
    pub protocol_version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub server_info: Option<ServerInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub instructions: Option<String>,
    pub capabilities: ServerCapabilities,
}

#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ToolInfo {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
    pub input_schema: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub output_schema: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub annotations: Option<ToolAnnotations>,
    /// What the tool says of views (MCP Apps): the view of its result, and who may call it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub ui: Option<crate::protocol::ToolUi>,
}

pub const DEFAULT_MAX_MRTR_ROUNDS: usize = 16;
/// A server-minted `requestState` larger than this is refused: the host echoes it on every round.
pub const MAX_REQUEST_STATE_BYTES: usize = 1024 * 1024;

pub struct Connection {
    pub server: String,
    pub identity: ServerIdentity,
    service: RunningService<RoleClient, WharfHandler>,
    process: tokio::sync::Mutex<Option<ServerProcess>>,
    pub stderr: Option<StderrTail>,
    close_reason: Arc<Mutex<Option<String>>>,
    closed: CancellationToken,
    progress: ProgressRouter,
    events: EventSink,
    broker: Broker,
    roots: RootsAccess,
    request_timeout: Duration,
    path_arguments: crate::config::PathArgumentPolicy,
    /// Where the server resolves a relative path argument (see `tools::server_cwd`).
    server_cwd: Option<std::path::PathBuf>,
    /// The resources the user subscribed to on this connection.
    subscriptions: Mutex<std::collections::BTreeSet<String>>,
    /// What the modern-era `subscriptions/listen` stream asks for; changing it re-opens the stream.
    listen_filter: tokio::sync::watch::Sender<(u64, rmcp::model::SubscriptionFilter)>,
    /// The version of the filter the server acknowledged last (see `listen::run`).
    listen_acked: tokio::sync::watch::Receiver<u64>,
    /// The log level the user chose for this server: on 2026-07-28 every request carries it.
    log_level: Mutex<Option<String>>,
    /// The tool list last read, with the `tools_version` it was read at: the path-argument check of every user call
    /// needs the schemas, and a `tools/list` before each call would double its round trips.
    tools: Mutex<Option<tools::KeptTools>>,
    tools_version: handler::ToolsVersion,
}

/// Everything `connect` needs besides the definition.
#[derive(Clone)]
pub struct ConnectContext {
    pub broker: Broker,
    pub events: EventSink,
    pub eras: Arc<EraCache>,
    pub max_message_bytes: usize,
    /// The folders the roots come from.
    pub workspace: Arc<SharedWorkspace>,
    /// How HTTP servers that answer 401 are signed in to; None: such a server fails to connect, saying why.
    pub auth: Option<crate::auth::AuthOptions>,
    /// What serves the server's requests around the broker.
    pub services: crate::serve::Services,
    /// The login shell's PATH, where stdio servers' commands are looked for too; None: only Wharf's own PATH.
    pub login_path: Option<crate::login_env::LoginPath>,
}

impl ConnectContext {
    /// The context for one server: its preferences may declare less than the host does.
    fn for_server(&self, def: &ServerDef) -> ConnectContext {
        let mut capabilities = self.broker.capabilities;
        if !def.elicitation {
            capabilities.elicitation_form = false;
            capabilities.elicitation_url = false;
        }
        capabilities.apps &= def.apps;
        ConnectContext {
            broker: self.broker.with_capabilities(capabilities),
            ..self.clone()
        }
    }

    pub fn new(broker: Broker, events: EventSink, eras: Arc<EraCache>) -> Self {
        ConnectContext {
            broker,
            events,
            eras,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            workspace: SharedWorkspace::new(Default::default(), None),
            auth: None,
            services: Default::default(),
            login_path: None,
        }
    }
}

fn client_info(broker: &Broker, era: Era) -> ClientConfig {
    ClientConfig::new(
        WharfHandler::capabilities(broker, era),
        Implementation::new(crate::CLIENT_NAME, crate::CLIENT_VERSION),
    )
    .with_protocol_version(protocol(era))
}

fn protocol(era: Era) -> ProtocolVersion {
    match era {
        Era::Modern => ProtocolVersion::V_2026_07_28,
        Era::Legacy => ProtocolVersion::V_2025_11_25,
    }
}

fn lifecycle(era: Era) -> ClientLifecycleMode {
    match era {
        Era::Modern => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
        Era::Legacy => ClientLifecycleMode::Initialize,
    }
}

impl Connection {
    /// Connects to `def`, probing its era unless the cache knows it. A cached era that fails is forgotten and the
    /// server probed afresh, once.
    pub async fn connect(
        def: &ServerDef,
        ctx: &ConnectContext,
    ) -> Result<Connection, ConnectionError> {
        let ctx = &ctx.for_server(def);
        let transport = def.transport.clone().map_err(ConnectionError::Config)?;
        if let Some(era) = def.pinned_era {
            return Self::connect_once(def, &transport, ctx, Some(era)).await;
        }
        let hash = def.definition_hash();
        let cached = ctx.eras.get(&hash);
        let first = Self::connect_once(def, &transport, ctx, cached).await;
        let conn = match (first, cached) {
            (Ok(conn), _) => conn,
            (Err(e), Some(_))
                if !matches!(e, ConnectionError::Spawn(_) | ConnectionError::Config(_)) =>
            {
                tracing::info!(server = %def.name, "cached era failed ({e}); probing again");
                ctx.eras.forget(&hash);
                Self::connect_once(def, &transport, ctx, None).await?
            }
            (Err(e), _) => return Err(e),
        };
        ctx.eras.put(&hash, conn.identity.era);
        Ok(conn)
    }

    async fn connect_once(
        def: &ServerDef,
        transport: &TransportDef,
        ctx: &ConnectContext,
        era: Option<Era>,
    ) -> Result<Connection, ConnectionError> {
        match transport {
            TransportDef::Stdio {
                command,
                args,
                env,
                cwd,
            } => stdio::connect(def, ctx, command, args, env, cwd.as_ref(), era).await,
            TransportDef::Http { url, headers } => {
                let (service, era, progress, closed) =
                    http::connect(def, ctx, url, headers, era).await?;
                Ok(Self::assemble(
                    def,
                    ctx,
                    service,
                    None,
                    None,
                    Arc::default(),
                    closed,
                    progress,
                    era,
                ))
            }
        }
    }

    fn handler(def: &ServerDef, ctx: &ConnectContext, era: Era) -> WharfHandler {
        WharfHandler {
            server: def.name.clone(),
            roots: RootsAccess::new(&def.name, ctx.workspace.clone(), def.expose_roots),
            era,
            broker: ctx.broker.clone(),
            services: ctx.services.clone(),
            events: ctx.events.clone(),
            progress: ProgressRouter::default(),
            tools_version: Default::default(),
            definition_hash: def.definition_hash(),
            log_flood: Default::default(),
            change_flood: handler::Flood::changes(),
            protocol_version: protocol(era),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn assemble(
        def: &ServerDef,
        ctx: &ConnectContext,
        service: RunningService<RoleClient, WharfHandler>,
        process: Option<ServerProcess>,
        stderr: Option<StderrTail>,
        close_reason: Arc<Mutex<Option<String>>>,
        closed: CancellationToken,
        progress: ProgressRouter,
        era: Era,
    ) -> Connection {
        let identity = identity::identity_of(&service, era);
        // The same bookkeeping the handler answers `roots/list` with (the flags are shared).
        let roots = service.service().roots.clone();
        let tools_version = service.service().tools_version.clone();
        let base = listen::filter_for(&identity.capabilities).unwrap_or_default();
        let (listen_filter, filters) = tokio::sync::watch::channel((0u64, base));
        let (acked, listen_acked) = tokio::sync::watch::channel(0u64);
        if era == Era::Modern {
            let peer = service.peer().clone();
            tokio::spawn(listen::run(
                peer,
                filters,
                acked,
                def.name.clone(),
                ctx.events.clone(),
                closed.clone(),
                tools_version.clone(),
                service.service().change_flood.clone(),
            ));
        }
        Connection {
            server: def.name.clone(),
            identity,
            service,
            process: tokio::sync::Mutex::new(process),
            stderr,
            close_reason,
            closed,
            progress,
            events: ctx.events.clone(),
            broker: ctx.broker.clone(),
            roots,
            request_timeout: def.request_timeout,
            path_arguments: def.path_arguments,
            server_cwd: tools::server_cwd(def),
            subscriptions: Mutex::default(),
            listen_filter,
            listen_acked,
            log_level: Mutex::default(),
            tools: Mutex::default(),
            tools_version,
        }
    }

    /// Tells a legacy server that the roots changed, if it fetched them since it last heard (so a server that never
    /// asks is never flooded). Modern servers ask through MRTR when they need roots: nothing to push.
    pub async fn notify_roots_changed(&self) {
        if self.identity.era != Era::Legacy
            || !self.broker.capabilities.roots
            || !self.roots.take_fetched()
        {
            return;
        }
        if let Err(e) = self.service.peer().notify_roots_list_changed().await {
            tracing::debug!(server = %self.server, "roots/list_changed not sent: {e}");
        }
    }

    /// Wharf declared MCP Apps to this server: the front end renders views, and the server's entry did not turn
    /// them off.
    pub fn declares_apps(&self) -> bool {
        self.broker.capabilities.apps
    }

    /// The server declared MCP Apps in its capabilities.
    pub fn server_declares_apps(&self) -> bool {
        self.identity
            .capabilities
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(crate::protocol::EXTENSION_ID))
    }

    /// What this connection knows of the server's roots fetches.
    pub fn roots(&self) -> &RootsAccess {
        &self.roots
    }

    pub fn is_closed(&self) -> bool {
        self.closed.is_cancelled() || self.service.is_closed()
    }

    /// Resolves when the connection has ended (the server exited, crashed or was disconnected).
    pub async fn closed(&self) {
        self.closed.cancelled().await
    }

    /// Why the connection ended, in words for the user.
    pub async fn close_reason(&self) -> String {
        let mut process = self.process.lock().await;
        match process.as_mut() {
            Some(p) => {
                exit_reason(
                    p,
                    self.stderr.as_ref().unwrap_or(&StderrTail::default()),
                    &self.close_reason,
                )
                .await
            }
            None => self
                .close_reason
                .lock()
                .ok()
                .and_then(|r| r.clone())
                .unwrap_or_else(|| "the connection was closed".into()),
        }
    }

    /// A server that died mid-call, or just before it, is reported with how (exit status, last stderr line), not
    /// just that it went away: the bare error is all the connection knows at the moment it sees the pipe close.
    pub(crate) async fn explain_closed(&self, e: ConnectionError) -> ConnectionError {
        match e {
            ConnectionError::Closed(None) => {
                ConnectionError::Closed(Some(self.close_reason().await))
            }
            other => other,
        }
    }

    fn closed_error(&self) -> ConnectionError {
        let reason = self.close_reason.lock().ok().and_then(|r| r.clone());
        ConnectionError::Closed(reason)
    }

    pub(crate) fn map_service_error(&self, e: ServiceError) -> ConnectionError {
        match e {
            ServiceError::McpError(data) => ConnectionError::Server {
                code: data.code.0,
                message: data.message.to_string(),
                data: data.data,
            },
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => self.closed_error(),
            ServiceError::Timeout { timeout } => ConnectionError::Timeout(timeout),
            ServiceError::Cancelled { .. } => ConnectionError::Cancelled,
            ServiceError::InputRequiredRoundsExceeded { max_rounds } => {
                ProtocolError::InputRoundsExceeded { max_rounds }.into()
            }
            other => ProtocolError::Sdk(other.to_string()).into(),
        }
    }

    pub async fn list_tools(&self) -> Result<Vec<ToolInfo>, ConnectionError> {
        if self.is_closed() {
            return Err(self.explain_closed(self.closed_error()).await);
        }
        // Read before the request: a change announced while it is on its way makes this list stale at once.
        let version = self.tools_version.get();
        // Bounded in pages, tools and bytes: a server that paginates forever gets an error, not Wharf's memory.
        let tools = self.all_tools().await?;
        let tools: Vec<ToolInfo> = tools
            .into_iter()
            .map(|t| ToolInfo {
                name: t.name.to_string(),
                title: t.title,
                description: t.description.map(|d| d.to_string()),
                input_schema: Value::Object((*t.input_schema).clone()),
                output_schema: t.output_schema.map(|o| Value::Object((*o).clone())),
                annotations: t.annotations.as_ref().map(identity::tool_annotations),
                ui: t
                    .meta
                    .as_ref()
                    .and_then(|meta| serde_json::to_value(meta).ok())
                    .and_then(|meta| crate::protocol::ToolUi::read(&meta)),
            })
            .collect();
        if let Ok(mut cached) = self.tools.lock() {
            *cached = Some(tools::KeptTools {
                version,
                list: Arc::new(tools.clone()),
                path_params: Default::default(),
            });
        }
        Ok(tools)
    }

    /// Stops the connection the way the spec asks: close stdin, wait, SIGTERM, SIGKILL.
    pub async fn shutdown(self) {
        let Connection {
            service, process, ..
        } = self;
        let _ = tokio::time::timeout(Duration::from_secs(2), service.cancel()).await;
        if let Some(mut p) = process.into_inner() {
            p.shutdown(Duration::from_secs(2)).await;
        }
    }

    pub fn pid(&self) -> Option<u32> {
        self.process
            .try_lock()
            .ok()
            .and_then(|p| p.as_ref().and_then(ServerProcess::pid))
    }

    pub(crate) fn emit_progress(
        &self,
        label: &Option<Value>,
        p: &rmcp::model::ProgressNotificationParam,
    ) {
        self.events.emit(HostEvent::Progress {
            server: self.server.clone(),
            call: label.clone(),
            progress: p.progress,
            total: p.total,
            message: p.message.clone(),
        });
    }
}

/// `_meta` for the `server/discover` probe, as every modern request carries it.
fn probe_meta(broker: &Broker) -> Value {
    let info = client_info(broker, Era::Modern);
    serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientInfo": info.client_info,
        "io.modelcontextprotocol/clientCapabilities": info.capabilities,
    })
}

/// One line on why a stdio server stopped: our own reason, its exit status, the last thing it wrote to stderr.
async fn exit_reason(
    process: &mut ServerProcess,
    stderr: &StderrTail,
    ours: &Arc<Mutex<Option<String>>>,
) -> String {
    if let Some(reason) = ours.lock().ok().and_then(|r| r.clone()) {
        return reason;
    }
    let status = match process.try_exit_status() {
        Some(s) => Some(s),
        None => tokio::time::timeout(Duration::from_millis(500), process.wait())
            .await
            .ok()
            .flatten(),
    };
    let mut parts = Vec::new();
    if status.is_some() {
        stderr.drained(Duration::from_millis(500)).await;
    }
    if let Some(status) = status {
        parts.push(match status.code() {
            Some(code) => format!("exited with status {code}"),
            None => {
                use std::os::unix::process::ExitStatusExt;
                format!("killed by signal {}", status.signal().unwrap_or(0))
            }
        });
    }
    if let Some(line) = stderr.last_line() {
        parts.push(format!("stderr: {line}"));
    }
    if parts.is_empty() {
        "the server closed its output".into()
    } else {
        parts.join("; ")
    }
}
