//! Roots as servers see them: the shared workspace, each server's preference, and the bookkeeping that keeps
//! `notifications/roots/list_changed` from flooding (a legacy server hears of a change only if it fetched the roots
//! since the last time it heard).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use crate::broker::{AnswerAction, Broker, InputAnswer};
use crate::events::{EventSink, HostEvent, NoticeCode};
use crate::workspace::watch::{FolderChange, FolderWatcher, WatchError};
use crate::workspace::{Root, Workspace, WorkspaceError};

/// The workspace every connection reads, with a change counter the host watches.
pub struct SharedWorkspace {
    workspace: RwLock<Workspace>,
    changed: tokio::sync::watch::Sender<u64>,
    /// Where the app keeps the workspace between runs; the CLI keeps none.
    file: Option<PathBuf>,
    /// Watches the folders on disk once `watch` is called.
    watcher: std::sync::Mutex<Option<FolderWatcher>>,
    /// Counts the servers' roots fetches, for whoever must look again at each.
    fetches: tokio::sync::watch::Sender<u64>,
}

impl std::fmt::Debug for SharedWorkspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedWorkspace")
            .field("workspace", &self.workspace)
            .finish()
    }
}

impl SharedWorkspace {
    pub fn new(workspace: Workspace, file: Option<PathBuf>) -> Arc<SharedWorkspace> {
        Arc::new(SharedWorkspace {
            workspace: RwLock::new(workspace),
            changed: tokio::sync::watch::Sender::new(0),
            file,
            watcher: std::sync::Mutex::new(None),
            fetches: tokio::sync::watch::Sender::new(0),
        })
    }

    /// Follows the folders on disk from now on: a rename is followed, a folder deleted or re-created changes the
    /// roots. Files changing inside a folder do not (only the folders and their parents are watched).
    pub fn watch(self: &Arc<Self>) -> Result<(), WatchError> {
        let weak = Arc::downgrade(self);
        let watcher = FolderWatcher::new(move |changes| {
            if let Some(workspace) = weak.upgrade() {
                workspace.apply(changes);
            }
        })?;
        watcher.set_folders(&self.folders())?;
        if let Ok(mut slot) = self.watcher.lock() {
            *slot = Some(watcher);
        }
        Ok(())
    }

    fn apply(&self, changes: Vec<FolderChange>) {
        let mut moved = false;
        for change in &changes {
            if let FolderChange::Renamed { from, to } = change {
                moved |= self
                    .workspace
                    .write()
                    .map(|mut w| w.follow_rename(from, to))
                    .unwrap_or(false);
            }
        }
        tracing::debug!(?changes, "workspace folders changed on disk");
        if moved {
            self.changed_now();
        } else {
            self.touch();
        }
    }

    /// Points the watcher (if any) at the current folders.
    fn rearm(&self) {
        let folders = self.folders();
        if let Ok(watcher) = self.watcher.lock() {
            if let Some(watcher) = watcher.as_ref() {
                if let Err(e) = watcher.set_folders(&folders) {
                    tracing::warn!("cannot watch the workspace folders: {e}");
                }
            }
        }
    }

    pub fn roots(&self) -> Vec<Root> {
        self.workspace.read().map(|w| w.roots()).unwrap_or_default()
    }

    pub fn folders(&self) -> Vec<PathBuf> {
        self.workspace
            .read()
            .map(|w| w.folders().to_vec())
            .unwrap_or_default()
    }

    /// The canonical folders behind the roots (for checking path arguments).
    pub fn root_paths(&self) -> Vec<PathBuf> {
        self.workspace
            .read()
            .map(|w| w.root_paths())
            .unwrap_or_default()
    }

    pub fn open(&self, path: &Path) -> Result<bool, WorkspaceError> {
        let opened = match self.workspace.write() {
            Ok(mut w) => w.open(path)?,
            Err(_) => false,
        };
        if opened {
            self.changed_now();
        }
        Ok(opened)
    }

    pub fn close(&self, path: &Path) -> bool {
        let closed = self
            .workspace
            .write()
            .map(|mut w| w.close(path))
            .unwrap_or(false);
        if closed {
            self.changed_now();
        }
        closed
    }

    /// A folder moved on disk: the workspace follows it.
    pub fn follow_rename(&self, from: &Path, to: &Path) {
        let followed = self
            .workspace
            .write()
            .map(|mut w| w.follow_rename(from, to))
            .unwrap_or(false);
        if followed {
            self.changed_now();
        }
    }

    /// Something on disk may have changed the roots (a folder vanished or came back): recompute and tell.
    pub fn touch(&self) {
        self.changed.send_modify(|n| *n += 1);
    }

    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Ticks each time a server fetches the roots.
    pub fn subscribe_fetches(&self) -> tokio::sync::watch::Receiver<u64> {
        self.fetches.subscribe()
    }

    fn changed_now(&self) {
        self.rearm();
        if let Some(file) = &self.file {
            let saved = self
                .workspace
                .read()
                .map_err(|e| e.to_string())
                .and_then(|w| w.save(file).map_err(|e| e.to_string()));
            if let Err(e) = saved {
                tracing::warn!("cannot save the workspace to {}: {e}", file.display());
            }
        }
        self.touch();
    }
}

/// What one connection needs to answer roots requests.
#[derive(Debug, Clone)]
pub struct RootsAccess {
    pub server: String,
    pub workspace: Arc<SharedWorkspace>,
    /// The server's preference: share the workspace's roots, or show it none.
    pub expose: bool,
    /// Set when the server fetched the roots; cleared when it is told they changed.
    pub fetched: Arc<AtomicBool>,
    /// The deprecation notice is shown once per server.
    pub noticed: Arc<AtomicBool>,
    /// When the server last fetched the roots, and whether that fetch came soon after the one before.
    fetches: Arc<Mutex<FetchTimes>>,
}

/// A server may take in two fetches at once and apply the older list last. Wharf cannot see when a server has
/// applied a list, only when it fetched one: two fetches within [`SETTLE`] of each other are taken to have
/// overlapped, and once the server has been quiet for [`SETTLE`] it is told once more, so that its last fetch stands
/// alone and its list is the final one.
pub const SETTLE: Duration = Duration::from_secs(1);

#[derive(Debug, Default)]
struct FetchTimes {
    last: Option<Instant>,
    crowded: bool,
}

impl RootsAccess {
    pub fn new(server: &str, workspace: Arc<SharedWorkspace>, expose: bool) -> RootsAccess {
        RootsAccess {
            server: server.to_string(),
            workspace,
            expose,
            fetched: Arc::default(),
            noticed: Arc::default(),
            fetches: Arc::default(),
        }
    }

    /// The roots this server gets now, reported as a `roots` event (what the user would want to know was shared).
    /// `modern`: the request came through MRTR from a 2026-07-28 server, where roots are deprecated.
    pub fn answer(&self, broker: &Broker, events: &EventSink, modern: bool) -> Vec<Root> {
        if modern && !self.noticed.swap(true, Ordering::Relaxed) {
            events.emit(HostEvent::Notice {
                server: Some(self.server.clone()),
                code: NoticeCode::DeprecatedCapability,
                message: "roots is deprecated since 2026-07-28 (SEP-2577): prefer paths in tool arguments or in the \
                          server's configuration"
                    .into(),
            });
        }
        let declined = matches!(
            broker.roots_override(&self.server),
            Some(InputAnswer::Decline | InputAnswer::Cancel)
        );
        let shared = self.expose && !declined;
        // Marked before the roots are read, never after: a change landing between the two must find the server
        // "fetched" and tell it again, or the server would keep the roots read just before the change.
        self.fetched.store(true, Ordering::SeqCst);
        if let Ok(mut fetches) = self.fetches.lock() {
            let now = Instant::now();
            fetches.crowded |= fetches.last.is_some_and(|last| now - last < SETTLE);
            fetches.last = Some(now);
        }
        self.workspace.fetches.send_modify(|n| *n += 1);
        let roots = if shared {
            self.workspace.roots()
        } else {
            Vec::new()
        };
        events.emit(HostEvent::Roots {
            server: self.server.clone(),
            roots: roots.clone(),
            answer: if shared {
                AnswerAction::Accept
            } else {
                AnswerAction::Decline
            },
        });
        roots
    }

    /// When this server should be told once more that the roots changed (its last fetches came close together), if
    /// it should.
    pub fn recheck_at(&self) -> Option<Instant> {
        let fetches = self.fetches.lock().ok()?;
        fetches
            .crowded
            .then_some(fetches.last)
            .flatten()
            .map(|last| last + SETTLE)
    }

    /// True (once) when the time of [`RootsAccess::recheck_at`] has come: the server has been quiet since.
    pub fn take_recheck(&self, now: Instant) -> bool {
        let Ok(mut fetches) = self.fetches.lock() else {
            return false;
        };
        let due = fetches.crowded && fetches.last.is_some_and(|last| now >= last + SETTLE);
        if due {
            fetches.crowded = false;
        }
        due
    }

    /// True (once) when this server should hear that the roots changed: it fetched them since it last heard.
    pub fn take_fetched(&self) -> bool {
        self.fetched.swap(false, Ordering::SeqCst)
    }
}
