//! Watching the workspace folders, so the roots change when a folder is renamed, moved, deleted or re-created.
//!
//! Each folder is watched itself and through its parent, both non-recursively, so the cost is at most two OS
//! watches per folder whatever the folder holds. Events pass a cheap filter (only creations, removals and renames of
//! a watched path or of an entry of a watched parent count), then wait for a quiet moment; the batch is reconciled
//! against the disk, so a burst of any length collapses into its net effect per folder.
//!
//! Why our own debouncer over `notify` rather than `notify-debouncer-full` or `-mini` (both were tried):
//! - `-mini` reports only "something happened at this path": the two ends of a rename are not paired.
//! - `-full` pairs renames on Linux with the same inotify cookies `notify` already pairs (`RenameMode::Both`), and
//!   elsewhere with a file-id map that walks the entries of every watched directory (O(files)). It queues every
//!   event, including the open/close/modify of every file inside a folder that `notify` 8 always subscribes to, and
//!   a path that keeps changing is never flushed, so a storm that never pauses is never reported.
//! - Here irrelevant events are dropped before any queueing, a batch closes after [`QUIET`] without a relevant event
//!   or at the latest after [`MAX_BATCH`], and renames are paired from `notify`'s own events.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use notify::event::{EventKind, ModifyKind, RenameMode};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};

/// A batch closes once no relevant event came for this long: long enough to take in a burst (a rename is two or
/// three events, a `rm -rf` plus `mkdir` a handful), short enough that a rename reaches the user at once.
pub const QUIET: Duration = Duration::from_millis(100);
/// A batch closes after this long even if events keep coming, so a storm that never pauses is still reported.
pub const MAX_BATCH: Duration = Duration::from_secs(1);
/// Paths remembered per batch for matching a moved folder by identity (only where the backend does not pair
/// renames); a storm past this just stops adding candidates.
const MAX_CANDIDATES: usize = 4096;
/// inotify pairs the two ends of a rename with a cookie, which `notify` turns into one `RenameMode::Both` event:
/// exact, so it is all we trust there. Matching by inode would be wrong there: ext4 hands a deleted folder's inode
/// to the next directory created, which would turn "deleted, another folder created" into a false rename.
const BACKEND_PAIRS_RENAMES: bool = cfg!(any(target_os = "linux", target_os = "android"));
/// Elsewhere a moved folder is recognised by its (device, inode) among the paths the events mention; without inodes
/// (Windows) only paired renames are followed.
const MATCH_BY_IDENTITY: bool = cfg!(unix) && !BACKEND_PAIRS_RENAMES;

/// What happened to a watched workspace folder (after debouncing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FolderChange {
    /// The folder was renamed or moved (within a watched parent) from `from` to `to`: follow it.
    Renamed { from: PathBuf, to: PathBuf },
    /// The folder (re)appeared at its path.
    Appeared(PathBuf),
    /// The folder is gone from its path (deleted, or moved out of every watched parent).
    Vanished(PathBuf),
}

#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("could not start the file watcher: {0}")]
    Start(notify::Error),
    #[error("could not start the file watcher's thread: {0}")]
    Thread(std::io::Error),
    #[error("cannot watch {}: not an absolute path", .0.display())]
    NotAbsolute(PathBuf),
    #[error(
        "cannot watch {}: the system's limit on inotify watches is reached \
         (raise fs.inotify.max_user_watches, or close other programs that watch files)",
        .0.display()
    )]
    Limit(PathBuf),
    #[error("cannot watch {}: {cause}", path.display())]
    Watch { path: PathBuf, cause: notify::Error },
}

/// Watches the workspace folders. `on_changes` runs on the watcher's own thread; dropping the watcher stops it,
/// waiting for a callback in progress to return (unless dropped from inside the callback).
pub struct FolderWatcher {
    state: Arc<Mutex<State>>,
    control: Sender<Msg>,
    worker: Option<JoinHandle<()>>,
}

impl FolderWatcher {
    /// `on_changes` is called from the watcher's thread with each debounced batch (never with an empty batch).
    pub fn new(
        on_changes: impl Fn(Vec<FolderChange>) + Send + 'static,
    ) -> Result<FolderWatcher, WatchError> {
        let (control, inbox) = mpsc::channel();
        let events = control.clone();
        // notify's thread only forwards: it must never wait on our lock, since we call into it while holding it.
        let watcher = notify::recommended_watcher(move |event| {
            let _ = events.send(Msg::Fs(event));
        })
        .map_err(WatchError::Start)?;
        let state = Arc::new(Mutex::new(State {
            watcher: Some(watcher),
            folders: Vec::new(),
            armed: HashMap::new(),
            followed: HashMap::new(),
        }));
        let worker_state = Arc::clone(&state);
        let worker = thread::Builder::new()
            .name("wharf-folder-watch".into())
            .spawn(move || run(&worker_state, &inbox, &on_changes))
            .map_err(WatchError::Thread)?;
        Ok(FolderWatcher {
            state,
            control,
            worker: Some(worker),
        })
    }

    /// The folders to watch (absolute paths, possibly not existing right now). Re-arms the watches: each folder itself
    /// and its parent directory, NON-recursively (so watches are O(folders), not O(files)). Idempotent.
    ///
    /// A folder that does not exist is watched through its nearest existing ancestor, so its (or its parent's)
    /// re-creation is seen. On an error every watch that could be armed is armed; the error names the first path that
    /// could not be watched. A folder reported as the `to` of a `Renamed` keeps the state it was reported with, so a
    /// change between the report and this call is still reported.
    pub fn set_folders(&self, folders: &[PathBuf]) -> Result<(), WatchError> {
        if let Some(relative) = folders.iter().find(|p| !p.is_absolute()) {
            return Err(WatchError::NotAbsolute(relative.clone()));
        }
        let result = {
            let mut state = lock(&self.state);
            let mut known: HashMap<PathBuf, Folder> = state
                .folders
                .drain(..)
                .map(|f| (f.path.clone(), f))
                .collect();
            let mut fresh = Vec::new();
            let mut seen = HashSet::new();
            for path in folders.iter().filter(|p| seen.insert(p.as_path())) {
                let folder = known.remove(path).unwrap_or_else(|| {
                    fresh.push(state.folders.len());
                    Folder {
                        path: path.clone(),
                        id: None,
                        canon: None,
                    }
                });
                state.folders.push(folder);
            }
            let result = state.arm();
            // New folders are read from disk only after their watches are armed: a change after this is an event.
            let followed = std::mem::take(&mut state.followed);
            for i in fresh {
                let folder = &mut state.folders[i];
                folder.id = match followed.get(&folder.path) {
                    Some(id) => Some(*id),
                    None => dir_id(&folder.path),
                };
                folder.canon = std::fs::canonicalize(&folder.path).ok();
            }
            result
        };
        // A reconcile soon after catches a folder that changed between a `Renamed` report and this call.
        let _ = self.control.send(Msg::Kick);
        result
    }

    /// How many OS watches are armed now (for the benchmark and tests).
    pub fn watch_count(&self) -> usize {
        lock(&self.state).armed.len()
    }
}

impl Drop for FolderWatcher {
    fn drop(&mut self) {
        // Dropping notify's watcher first stops its thread, so nothing new reaches the worker after `Stop`.
        lock(&self.state).watcher = None;
        let _ = self.control.send(Msg::Stop);
        if let Some(worker) = self.worker.take() {
            // Dropped from inside `on_changes`, the worker cannot wait for itself; it exits after the callback.
            if worker.thread().id() != thread::current().id() {
                let _ = worker.join();
            }
        }
    }
}

enum Msg {
    Fs(notify::Result<notify::Event>),
    /// `set_folders` asks for a reconcile.
    Kick,
    Stop,
}

/// A directory's identity, to tell "the same folder" from "another folder at the same path".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DirId {
    dev: u64,
    ino: u64,
}

/// The identity of the directory at `path` (symlinks followed), or None when there is no directory there.
fn dir_id(path: &Path) -> Option<DirId> {
    let meta = std::fs::metadata(path).ok().filter(|m| m.is_dir())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(DirId {
            dev: meta.dev(),
            ino: meta.ino(),
        })
    }
    #[cfg(not(unix))]
    {
        // Without inodes only presence is known; renames then come from the backend's pairing alone.
        let _ = meta;
        Some(DirId { dev: 0, ino: 0 })
    }
}

struct Folder {
    path: PathBuf,
    /// What was there at the last reconcile: None when absent.
    id: Option<DirId>,
    /// Its canonical path then: a symlinked folder retargeted is another root, a folder re-created in place is not.
    canon: Option<PathBuf>,
}

/// Why a path is watched: a folder itself, and/or the parent (or nearest existing ancestor) of a folder.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Roles {
    folder: bool,
    anchor: bool,
}

struct State {
    /// None once the FolderWatcher is dropped.
    watcher: Option<RecommendedWatcher>,
    folders: Vec<Folder>,
    armed: HashMap<PathBuf, Roles>,
    /// `to` of the renames reported since the last `set_folders`, with the identity they were reported with.
    followed: HashMap<PathBuf, DirId>,
}

/// What one batch of events said, reduced to what reconciling needs.
#[derive(Default)]
struct Batch {
    /// Renames paired by the backend, in order.
    renames: Vec<(PathBuf, PathBuf)>,
    /// Paths events mentioned: where a vanished folder may have gone (when renames are not paired).
    candidates: HashSet<PathBuf>,
    /// Watched paths that were removed or moved: their watch is gone or now points elsewhere.
    stale: HashSet<PathBuf>,
    /// Events were lost (the kernel queue overflowed): every watch is re-armed.
    rescan: bool,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // Nothing panics while holding the lock in a way that leaves the state inconsistent; keep watching.
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The worker: waits for a relevant event, lets the batch settle, reconciles, reports.
fn run(state: &Mutex<State>, inbox: &Receiver<Msg>, on_changes: &dyn Fn(Vec<FolderChange>)) {
    loop {
        let mut batch = Batch::default();
        let opened = loop {
            match inbox.recv() {
                Err(_) | Ok(Msg::Stop) => return,
                Ok(msg) => {
                    if take(state, msg, &mut batch) {
                        break Instant::now();
                    }
                }
            }
        };
        let mut last = opened;
        loop {
            let deadline = (last + QUIET).min(opened + MAX_BATCH);
            let wait = deadline.saturating_duration_since(Instant::now());
            if wait.is_zero() {
                break;
            }
            match inbox.recv_timeout(wait) {
                Err(RecvTimeoutError::Disconnected) | Ok(Msg::Stop) => return,
                Err(RecvTimeoutError::Timeout) => break,
                Ok(msg) => {
                    if take(state, msg, &mut batch) {
                        last = Instant::now();
                    }
                }
            }
        }
        let changes = lock(state).reconcile(&batch);
        // Called without the lock: the callback may well call `set_folders`.
        if !changes.is_empty() {
            on_changes(changes);
        }
    }
}

/// Adds `msg` to the batch; true when it matters (opens or prolongs a batch).
fn take(state: &Mutex<State>, msg: Msg, batch: &mut Batch) -> bool {
    match msg {
        Msg::Kick => true,
        Msg::Fs(Ok(event)) => lock(state).absorb(event, batch),
        Msg::Fs(Err(error)) => {
            tracing::warn!(%error, "file watcher error");
            false
        }
        Msg::Stop => false,
    }
}

impl State {
    fn absorb(&self, event: notify::Event, batch: &mut Batch) -> bool {
        if event.need_rescan() {
            batch.rescan = true;
            return true;
        }
        // Only the shape of the tree counts; notify 8 also reports every open, close and write.
        let structural = matches!(
            event.kind,
            EventKind::Any
                | EventKind::Create(_)
                | EventKind::Remove(_)
                | EventKind::Modify(ModifyKind::Name(_))
        );
        let relevant = structural
            && event.paths.iter().any(|path| {
                self.armed.contains_key(path)
                    || path
                        .parent()
                        .and_then(|parent| self.armed.get(parent))
                        .is_some_and(|roles| roles.anchor)
            });
        if !relevant {
            return false;
        }
        // A watched path that was created, removed or renamed (from or onto) no longer holds the directory its
        // watch is on: inotify dropped that watch, or it follows the directory to wherever it went.
        for path in event.paths.iter().filter(|p| self.armed.contains_key(*p)) {
            batch.stale.insert(path.clone());
        }
        if let (EventKind::Modify(ModifyKind::Name(RenameMode::Both)), [from, to]) =
            (event.kind, event.paths.as_slice())
        {
            batch.renames.push((from.clone(), to.clone()));
        }
        if MATCH_BY_IDENTITY {
            for path in event.paths {
                if batch.candidates.len() < MAX_CANDIDATES {
                    batch.candidates.insert(path);
                }
            }
        }
        true
    }

    /// Brings the watches in line with the disk and the folders' state up to date; returns what changed.
    fn reconcile(&mut self, batch: &Batch) -> Vec<FolderChange> {
        let stale: Vec<PathBuf> = if batch.rescan {
            self.armed.keys().cloned().collect()
        } else {
            batch.stale.iter().cloned().collect()
        };
        for path in stale {
            if self.armed.remove(&path).is_some() {
                self.unwatch(&path);
            }
        }
        if let Err(error) = self.arm() {
            tracing::warn!(%error, "workspace folder watch");
        }
        let mut changes = Vec::new();
        for i in 0..self.folders.len() {
            let folder = &self.folders[i];
            let now = dir_id(&folder.path);
            let canon = match (folder.id, now) {
                (Some(was), Some(now)) if was == now => folder.canon.clone(),
                (_, Some(_)) => std::fs::canonicalize(&folder.path).ok(),
                (_, None) => None,
            };
            match (folder.id, now) {
                (Some(was), None) => match moved_to(&folder.path, was, batch) {
                    Some(to) => {
                        self.followed.insert(to.clone(), was);
                        changes.push(FolderChange::Renamed {
                            from: folder.path.clone(),
                            to,
                        });
                    }
                    None => changes.push(FolderChange::Vanished(folder.path.clone())),
                },
                (None, Some(_)) => changes.push(FolderChange::Appeared(folder.path.clone())),
                // Another directory at the path under another canonical path: a symlinked folder retargeted.
                (Some(was), Some(now)) if was != now && canon != folder.canon => {
                    changes.push(FolderChange::Appeared(folder.path.clone()));
                }
                // The same directory, or one re-created in place, or absent throughout: the root is the same.
                _ => {}
            }
            self.folders[i].id = now;
            self.folders[i].canon = canon;
        }
        changes
    }

    /// Arms what the folders need now and disarms the rest: each existing folder, and the nearest existing ancestor
    /// of each folder (its parent, normally).
    fn arm(&mut self) -> Result<(), WatchError> {
        let mut wanted: HashMap<PathBuf, Roles> = HashMap::new();
        for folder in &self.folders {
            if dir_id(&folder.path).is_some() {
                wanted.entry(folder.path.clone()).or_default().folder = true;
            }
            if let Some(anchor) = folder.path.ancestors().skip(1).find(|a| a.is_dir()) {
                wanted.entry(anchor.to_path_buf()).or_default().anchor = true;
            }
        }
        let unwanted: Vec<PathBuf> = self
            .armed
            .keys()
            .filter(|p| !wanted.contains_key(*p))
            .cloned()
            .collect();
        for path in unwanted {
            self.armed.remove(&path);
            self.unwatch(&path);
        }
        let mut first_error = None;
        for (path, roles) in wanted {
            if let Some(armed) = self.armed.get_mut(&path) {
                *armed = roles;
                continue;
            }
            let Some(watcher) = self.watcher.as_mut() else {
                return Ok(());
            };
            match watcher.watch(&path, RecursiveMode::NonRecursive) {
                Ok(()) => {
                    self.armed.insert(path, roles);
                }
                // Gone since it was looked at: the event that removed it is on its way and re-arms.
                Err(e) if is_not_found(&e) => {}
                Err(e) => {
                    let error = if matches!(e.kind, notify::ErrorKind::MaxFilesWatch) {
                        WatchError::Limit(path)
                    } else {
                        WatchError::Watch { path, cause: e }
                    };
                    first_error.get_or_insert(error);
                }
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    fn unwatch(&mut self, path: &Path) {
        if let Some(watcher) = self.watcher.as_mut() {
            // inotify drops the watch of a deleted directory by itself (and notify its record of a moved one), so
            // "not found" is the usual answer here.
            if let Err(error) = watcher.unwatch(path) {
                if !matches!(error.kind, notify::ErrorKind::WatchNotFound) && !is_not_found(&error)
                {
                    tracing::debug!(%error, path = %path.display(), "unwatch");
                }
            }
        }
    }
}

fn is_not_found(error: &notify::Error) -> bool {
    match &error.kind {
        notify::ErrorKind::PathNotFound => true,
        notify::ErrorKind::Io(io) => io.kind() == std::io::ErrorKind::NotFound,
        _ => false,
    }
}

/// Where the folder that was at `path` (identity `was`) went, if the batch shows it moved somewhere watched.
fn moved_to(path: &Path, was: DirId, batch: &Batch) -> Option<PathBuf> {
    // Replay the paired renames in order: a chain a -> b -> c ends at c, and the rename of an ancestor carries the
    // folder along with it.
    let mut at = path.to_path_buf();
    let mut moved = false;
    for (from, to) in &batch.renames {
        if let Ok(rest) = at.strip_prefix(from) {
            at = if rest.as_os_str().is_empty() {
                to.clone()
            } else {
                to.join(rest)
            };
            moved = true;
        }
    }
    if moved && at != path && dir_id(&at) == Some(was) {
        return Some(at);
    }
    if !MATCH_BY_IDENTITY {
        return None;
    }
    batch
        .candidates
        .iter()
        .find(|c| c.as_path() != path && dir_id(c) == Some(was))
        .cloned()
}
