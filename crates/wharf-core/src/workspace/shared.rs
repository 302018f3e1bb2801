//! The workspace every connection reads: the open folders behind a lock, saved as they change, watched on disk,
//! with a change counter the host follows to tell servers their roots changed.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use super::watch::{FolderChange, FolderWatcher, WatchError};
use super::{Root, Workspace, WorkspaceError};

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

    /// Counts one server's roots fetch (see `subscribe_fetches`).
    pub(crate) fn fetched(&self) {
        self.fetches.send_modify(|n| *n += 1);
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
