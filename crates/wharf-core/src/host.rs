//! The host: every configured server, each on its own task, each isolated. One hanging or crashing server never
//! blocks another or the caller; a crashed server is restarted with backoff (when asked to) and its in-flight calls
//! fail at once with the reason.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tokio::sync::{watch, RwLock};

use crate::broker::Broker;
use crate::config::{Config, ServerDef};
use crate::connection::{ConnectContext, Connection, ConnectionError};
use crate::era::EraCache;
use crate::events::{EventSink, HostEvent, NoticeCode, ServerErrorCode, ServerStatus};
use crate::workspace::SharedWorkspace;

#[derive(Clone)]
pub struct HostOptions {
    pub eras: Arc<EraCache>,
    /// The folders the roots come from (shared with whoever opens and closes them).
    pub workspace: Arc<SharedWorkspace>,
    /// Restart servers that exit or crash (the app and `session`); one-shot commands connect once.
    pub restart: bool,
    pub max_message_bytes: usize,
    /// How servers that answer 401 are signed in to; None: they fail to connect, saying they need sign-in.
    pub auth: Option<crate::auth::AuthOptions>,
    /// What serves the servers' requests around the broker (the elicitation guard, sampling).
    pub services: crate::serve::Services,
    /// The login shell's PATH, where stdio servers' commands are looked for too (`login_env.rs`).
    pub login_path: Option<crate::login_env::LoginPath>,
}

impl Default for HostOptions {
    fn default() -> Self {
        HostOptions {
            eras: Arc::new(EraCache::in_memory()),
            workspace: SharedWorkspace::new(Default::default(), None),
            restart: false,
            max_message_bytes: crate::connection::DEFAULT_MAX_MESSAGE_BYTES,
            auth: None,
            services: Default::default(),
            login_path: None,
        }
    }
}

#[derive(Clone)]
enum SlotState {
    Starting,
    Ready(Arc<Connection>),
    Restarting(String),
    Failed(ConnectionError),
    Stopped,
}

impl SlotState {
    fn status(&self) -> ServerStatus {
        match self {
            SlotState::Starting => ServerStatus::Starting,
            SlotState::Ready(_) => ServerStatus::Ready,
            SlotState::Restarting(_) => ServerStatus::Restarting,
            SlotState::Failed(_) => ServerStatus::Failed,
            SlotState::Stopped => ServerStatus::Stopped,
        }
    }
}

mod announce;
mod choices;

struct Slot {
    def: ServerDef,
    state: watch::Sender<SlotState>,
    /// The stderr of the newest process, kept after it died: that is when the user needs it most.
    last_stderr: std::sync::Mutex<Option<crate::process::StderrTail>>,
    /// The resources the user subscribed to: a restarted server is subscribed to them again.
    subscriptions: std::sync::Mutex<std::collections::BTreeSet<String>>,
    /// The log level the user chose, applied again after a restart.
    log_level: std::sync::Mutex<Option<String>>,
    task: RwLock<Option<tokio::task::JoinHandle<()>>>,
}

/// One row of `wharf servers` and of the app's server list.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ServerSummary {
    pub name: String,
    #[serde(rename = "type")]
    pub transport: crate::config::TransportKind,
    pub status: ServerStatus,
    /// The protocol version spoken, e.g. "2026-07-28" or "2025-11-25".
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub era: Option<String>,
    /// "modern" (stateless, `server/discover`) or "legacy" (`initialize` handshake).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub lifecycle: Option<crate::era::Era>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub server_info: Option<crate::protocol::ServerInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub instructions: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub capabilities: Option<crate::protocol::ServerCapabilities>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error: Option<String>,
    /// The `${input:ID}` ids this server failed for want of: a front end offers to provide them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<String>>", optional)]
    pub missing_inputs: Vec<String>,
    /// The newest lines the server wrote to stderr.
    pub stderr: String,
    /// The process id of a running stdio server.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub pid: Option<u32>,
}

pub struct Host {
    /// In the configuration's order. Replaced as a whole by `reconfigure`; never held across an await.
    slots: Arc<std::sync::RwLock<Vec<Arc<Slot>>>>,
    /// Whether the task that tells servers about root changes runs.
    listening: std::sync::atomic::AtomicBool,
    /// Ends the host's own tasks on shutdown (they hold the event sink, which front ends wait to see closed).
    stop: tokio_util::sync::CancellationToken,
    ctx: ConnectContext,
    options: HostOptions,
    pub warnings: Vec<String>,
}

impl Host {
    pub fn new(config: Config, broker: Broker, events: EventSink, options: HostOptions) -> Host {
        let slots = config.servers.into_iter().map(Slot::new).collect();
        Host {
            slots: Arc::new(std::sync::RwLock::new(slots)),
            listening: std::sync::atomic::AtomicBool::new(false),
            stop: tokio_util::sync::CancellationToken::new(),
            ctx: ConnectContext {
                max_message_bytes: options.max_message_bytes,
                workspace: options.workspace.clone(),
                auth: options.auth.clone(),
                services: options.services.clone(),
                login_path: options.login_path.clone(),
                ..ConnectContext::new(broker, events, options.eras.clone())
            },
            options,
            warnings: config.warnings,
        }
    }

    pub fn server_names(&self) -> Vec<String> {
        self.snapshot().iter().map(|s| s.def.name.clone()).collect()
    }

    fn snapshot(&self) -> Vec<Arc<Slot>> {
        self.slots.read().map(|s| s.clone()).unwrap_or_default()
    }

    fn slots_handle(&self) -> Arc<std::sync::RwLock<Vec<Arc<Slot>>>> {
        self.slots.clone()
    }

    fn slot(&self, name: &str) -> Option<Arc<Slot>> {
        self.snapshot().into_iter().find(|s| s.def.name == name)
    }

    /// Applies a new configuration: removed servers stop, changed ones restart with their new definition, new ones
    /// start, untouched ones keep running undisturbed.
    pub async fn reconfigure(&self, config: Config) {
        let old = self.snapshot();
        let mut next = Vec::with_capacity(config.servers.len());
        let mut fresh = Vec::new();
        for def in config.servers {
            match old
                .iter()
                .find(|s| s.def.name == def.name && s.def.fingerprint() == def.fingerprint())
            {
                Some(kept) => next.push(kept.clone()),
                None => {
                    let slot = Slot::new(def);
                    fresh.push(slot.clone());
                    next.push(slot);
                }
            }
        }
        let gone: Vec<Arc<Slot>> = old
            .into_iter()
            .filter(|s| !next.iter().any(|n| Arc::ptr_eq(n, s)))
            .collect();
        futures::future::join_all(gone.iter().map(|s| self.stop_slot(s))).await;
        if let Ok(mut slots) = self.slots.write() {
            *slots = next;
        }
        for slot in &fresh {
            self.start_slot(slot).await;
        }
    }

    /// Where the host's events go: front ends' own events about its work (a chat's deltas) go there too.
    pub fn events(&self) -> &EventSink {
        &self.ctx.events
    }

    /// The broker every server's questions go through.
    pub fn broker(&self) -> &crate::broker::Broker {
        &self.ctx.broker
    }

    /// What serves the servers' requests around the broker: its guard pauses and resumes servers.
    pub fn services(&self) -> &crate::serve::Services {
        &self.ctx.services
    }

    pub fn workspace(&self) -> &Arc<SharedWorkspace> {
        &self.ctx.workspace
    }

    /// Servers whose configuration names the workspace (`${workspaceFolder}`...) restart with the new folders when it
    /// changes; the others are untouched. Reads `config_path` again each time (the file is the truth).
    pub fn follow_workspace(self: &Arc<Self>, config_path: PathBuf) {
        let host = Arc::downgrade(self);
        let mut changed = self.ctx.workspace.subscribe();
        let stop = self.stop.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    result = changed.changed() => if result.is_err() { return },
                }
                let Some(host) = host.upgrade() else { return };
                let uses = host
                    .snapshot()
                    .iter()
                    .filter(|s| s.def.uses_workspace)
                    .map(|s| s.def.name.clone())
                    .collect::<Vec<_>>();
                if uses.is_empty() {
                    continue;
                }
                let folders = host.ctx.workspace.folders();
                match Config::load_with_workspace(&config_path, &folders) {
                    Ok(config) => {
                        for name in &uses {
                            host.ctx.events.emit(HostEvent::Notice {
                                server: Some(name.clone()),
                                code: NoticeCode::WorkspaceRestart,
                                message: "restarting: its configuration uses the workspace folders, which changed".into(),
                            });
                        }
                        host.reconfigure(config).await;
                    }
                    Err(e) => host.ctx.events.emit(HostEvent::Notice {
                        server: None,
                        code: NoticeCode::ConfigError,
                        message: format!(
                            "the workspace changed but the configuration cannot be read: {e}"
                        ),
                    }),
                }
            }
        });
    }

    /// Starts every server, each on its own task, and from then on tells them when the roots change.
    pub async fn start_all(&self) {
        if !self
            .listening
            .swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            tokio::spawn(announce::announce_roots(
                Arc::downgrade(&self.slots_handle()),
                self.ctx.clone(),
                self.stop.clone(),
            ));
        }
        for slot in &self.snapshot() {
            self.start_slot(slot).await;
        }
    }

    /// Starts one server (or restarts it if running).
    pub async fn start(&self, name: &str) -> Result<(), ConnectionError> {
        let slot = self.slot(name).ok_or_else(|| unknown_server(name))?;
        self.stop_slot(&slot).await;
        self.start_slot(&slot).await;
        Ok(())
    }

    pub async fn stop(&self, name: &str) -> Result<(), ConnectionError> {
        let slot = self.slot(name).ok_or_else(|| unknown_server(name))?;
        self.stop_slot(&slot).await;
        Ok(())
    }

    async fn start_slot(&self, slot: &Arc<Slot>) {
        let mut task = slot.task.write().await;
        if task.as_ref().is_some_and(|t| !t.is_finished()) {
            return;
        }
        set_state(slot, &self.ctx.events, SlotState::Starting);
        let supervisor = supervise(slot.clone(), self.ctx.clone(), self.options.restart);
        *task = Some(tokio::spawn(supervisor));
    }

    async fn stop_slot(&self, slot: &Arc<Slot>) {
        if let Some(task) = slot.task.write().await.take() {
            task.abort();
            let _ = task.await;
        }
        let previous = slot.state.send_replace(SlotState::Stopped);
        if let SlotState::Ready(conn) = previous {
            if let Ok(conn) = Arc::try_unwrap(conn) {
                conn.shutdown().await;
            }
        }
        self.ctx.events.emit(HostEvent::ServerStatus {
            server: slot.def.name.clone(),
            status: ServerStatus::Stopped,
            error: None,
        });
    }

    /// Waits until `name` is ready (or has failed) and returns its connection. Starts it if it is stopped.
    pub async fn connection(&self, name: &str) -> Result<Arc<Connection>, ConnectionError> {
        let slot = self.slot(name).ok_or_else(|| unknown_server(name))?;
        if matches!(*slot.state.borrow(), SlotState::Stopped) {
            self.start_slot(&slot).await;
        }
        let mut rx = slot.state.subscribe();
        loop {
            match rx.borrow_and_update().clone() {
                SlotState::Ready(conn) => return Ok(conn),
                SlotState::Failed(e) => return Err(e),
                SlotState::Stopped => {
                    return Err(ConnectionError::Closed(Some(
                        "the server is stopped".into(),
                    )))
                }
                SlotState::Starting | SlotState::Restarting(_) => {}
            }
            if rx.changed().await.is_err() {
                return Err(ConnectionError::Closed(None));
            }
        }
    }

    /// The servers a model may use, with their definitions: those ready now, and those starting once they are
    /// ready. A server the user stopped, or one that failed, is left out rather than started behind their back.
    pub async fn serving(&self) -> Vec<(ServerDef, Arc<Connection>)> {
        let slots = self.snapshot();
        let waits = slots.iter().map(|slot| async move {
            let starting = matches!(
                *slot.state.borrow(),
                SlotState::Starting | SlotState::Restarting(_)
            );
            let ready = match &*slot.state.borrow() {
                SlotState::Ready(conn) => Some(conn.clone()),
                _ => None,
            };
            match ready {
                Some(conn) => Some((slot.def.clone(), conn)),
                None if starting => self
                    .connection(&slot.def.name)
                    .await
                    .ok()
                    .map(|conn| (slot.def.clone(), conn)),
                None => None,
            }
        });
        futures::future::join_all(waits)
            .await
            .into_iter()
            .flatten()
            .collect()
    }

    pub async fn summaries(&self) -> Vec<ServerSummary> {
        let slots = self.snapshot();
        let mut out = Vec::with_capacity(slots.len());
        for slot in &slots {
            out.push(summary(slot).await);
        }
        out
    }

    /// Waits for every server to settle (ready or failed) and returns their summaries.
    pub async fn settle(&self) -> Vec<ServerSummary> {
        let slots = self.snapshot();
        let waits = slots.iter().map(|s| self.connection(&s.def.name));
        futures::future::join_all(waits).await;
        self.summaries().await
    }

    /// Stops every server gracefully, in parallel.
    pub async fn shutdown(&self) {
        self.stop.cancel();
        let slots = self.snapshot();
        futures::future::join_all(slots.iter().map(|s| self.stop_slot(s))).await;
    }
}

impl Slot {
    fn new(def: ServerDef) -> Arc<Slot> {
        let (state, _) = watch::channel(SlotState::Stopped);
        Arc::new(Slot {
            def,
            state,
            last_stderr: std::sync::Mutex::default(),
            subscriptions: std::sync::Mutex::default(),
            log_level: std::sync::Mutex::default(),
            task: RwLock::new(None),
        })
    }
}

fn unknown_server(name: &str) -> ConnectionError {
    ConnectionError::UnknownServer(name.to_string())
}

fn set_state(slot: &Slot, events: &EventSink, state: SlotState) {
    let error = match &state {
        SlotState::Failed(e) => Some(e.to_string()),
        SlotState::Restarting(reason) => Some(reason.clone()),
        _ => None,
    };
    let status = state.status();
    slot.state.send_replace(state);
    events.emit(HostEvent::ServerStatus {
        server: slot.def.name.clone(),
        status,
        error,
    });
}

async fn summary(slot: &Slot) -> ServerSummary {
    let state = slot.state.borrow().clone();
    let mut row = ServerSummary {
        name: slot.def.name.clone(),
        transport: slot.def.kind(),
        status: state.status(),
        era: None,
        lifecycle: None,
        server_info: None,
        instructions: None,
        capabilities: None,
        error: None,
        missing_inputs: slot.def.missing_inputs.clone(),
        stderr: String::new(),
        pid: None,
    };
    if let Ok(tail) = slot.last_stderr.lock() {
        row.stderr = tail.as_ref().map(|t| t.text()).unwrap_or_default();
    }
    match state {
        SlotState::Ready(conn) => {
            row.era = Some(conn.identity.protocol_version.clone());
            row.lifecycle = Some(conn.identity.era);
            row.server_info = conn.identity.server_info.clone();
            row.instructions = conn.identity.instructions.clone();
            row.capabilities = Some(conn.identity.capabilities.clone());
            row.pid = conn.pid();
        }
        SlotState::Failed(e) => row.error = Some(e.to_string()),
        SlotState::Restarting(reason) => row.error = Some(reason),
        SlotState::Starting | SlotState::Stopped => {}
    }
    row
}

/// How the `server_exited` notice begins; the rest is the reason its connection gives (front ends that say the
/// reason anyway, as a failed call does, can tell it is the same fact).
pub const SERVER_STOPPED: &str = "the server stopped: ";

const BACKOFF_START: Duration = Duration::from_millis(250);
const BACKOFF_MAX: Duration = Duration::from_secs(30);
/// A server that stayed up this long is considered healthy again: its next crash restarts without delay build-up.
const HEALTHY_AFTER: Duration = Duration::from_secs(60);
const MAX_QUICK_FAILURES: u32 = 6;

async fn supervise(slot: Arc<Slot>, ctx: ConnectContext, restart: bool) {
    let mut backoff = BACKOFF_START;
    let mut failures = 0u32;
    // Why the previous run ended, carried into the next run's stderr tail.
    let mut last_exit: Option<String> = None;
    loop {
        let started = tokio::time::Instant::now();
        match Connection::connect(&slot.def, &ctx).await {
            Ok(conn) => {
                if let Ok(mut tail) = slot.last_stderr.lock() {
                    if let (Some(previous), Some(current), Some(why)) =
                        (tail.as_ref(), conn.stderr.as_ref(), last_exit.take())
                    {
                        current.carry_over(
                            previous,
                            &format!("--- wharf restarted the server: {why} ---"),
                        );
                    }
                    *tail = conn.stderr.clone();
                }
                let conn = Arc::new(conn);
                let wanted: Vec<String> = slot
                    .subscriptions
                    .lock()
                    .map(|s| s.iter().cloned().collect())
                    .unwrap_or_default();
                for uri in wanted {
                    if let Err(e) = conn.subscribe(&uri).await {
                        ctx.events.server_error(
                            &slot.def.name,
                            ServerErrorCode::ResubscribeFailed,
                            format!("cannot subscribe again to {uri} after the restart: {e}"),
                        );
                    }
                }
                let level = slot.log_level.lock().ok().and_then(|l| l.clone());
                if let Some(level) = level {
                    if let Err(e) = conn.set_log_level(&level).await {
                        tracing::info!(server = %slot.def.name, "log level not set again: {e}");
                    }
                }
                set_state(&slot, &ctx.events, SlotState::Ready(conn.clone()));
                conn.closed().await;
                let reason = conn.close_reason().await;
                last_exit = Some(reason.clone());
                ctx.events.server_error(
                    &slot.def.name,
                    ServerErrorCode::ServerExited,
                    format!("{SERVER_STOPPED}{reason}"),
                );
                if !restart {
                    set_state(
                        &slot,
                        &ctx.events,
                        SlotState::Failed(ConnectionError::Closed(Some(reason))),
                    );
                    return;
                }
                if started.elapsed() > HEALTHY_AFTER {
                    backoff = BACKOFF_START;
                    failures = 0;
                }
                failures += 1;
                set_state(&slot, &ctx.events, SlotState::Restarting(reason));
                // The old process is reaped in the background; the new one starts after the backoff.
                tokio::spawn(async move {
                    if let Ok(conn) = Arc::try_unwrap(conn) {
                        conn.shutdown().await;
                    }
                });
            }
            Err(e) => {
                // A failed sign-in waits for the user: retrying would open the browser again and again.
                let permanent = matches!(
                    e,
                    ConnectionError::Config(_)
                        | ConnectionError::Spawn(_)
                        | ConnectionError::Auth(_)
                );
                failures += 1;
                if !restart || permanent || failures >= MAX_QUICK_FAILURES {
                    set_state(&slot, &ctx.events, SlotState::Failed(e));
                    return;
                }
                set_state(&slot, &ctx.events, SlotState::Restarting(e.to_string()));
            }
        }
        if failures >= MAX_QUICK_FAILURES {
            set_state(
                &slot,
                &ctx.events,
                SlotState::Failed(ConnectionError::Closed(Some(format!(
                    "crashed {failures} times; not restarting"
                )))),
            );
            return;
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(BACKOFF_MAX);
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}
