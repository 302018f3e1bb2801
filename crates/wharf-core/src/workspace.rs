//! The workspace: the ordered folders the user opened, and the MCP roots derived from them.
//!
//! Folders are kept as the user opened them (absolute); roots are derived on demand, so a folder that vanished is
//! simply not a root until it comes back. Rules, in order:
//! - each root is the folder's canonical path (symlinks resolved) as a percent-encoded `file://` URI, named after the
//!   folder as opened;
//! - a folder that does not exist (or is not a directory) right now is not a root;
//! - two folders that resolve to the same directory give one root (the first opened);
//! - a folder inside another open folder gives no root of its own: the outer root already covers it (closing the
//!   outer folder makes the inner one a root again).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub mod paths;
mod shared;
pub mod vars;
pub mod watch;

pub use shared::SharedWorkspace;

/// One MCP root, as `roots/list` returns it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct Root {
    pub uri: String,
    pub name: String,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum WorkspaceError {
    #[error("{0}: no such folder")]
    NotFound(PathBuf),
    #[error("{0}: not a folder")]
    NotAFolder(PathBuf),
    #[error("{path}: {message}")]
    Unreadable { path: PathBuf, message: String },
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workspace {
    folders: Vec<PathBuf>,
}

impl Workspace {
    pub fn new() -> Workspace {
        Workspace::default()
    }

    /// The folders in the order they were opened, as opened (absolute; they may not exist right now).
    pub fn folders(&self) -> &[PathBuf] {
        &self.folders
    }

    /// Opens `path` (made absolute against the current directory). Returns false when it was already open.
    pub fn open(&mut self, path: &Path) -> Result<bool, WorkspaceError> {
        let path = absolute(path)?;
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return Err(WorkspaceError::NotAFolder(path)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(WorkspaceError::NotFound(path))
            }
            Err(e) => {
                return Err(WorkspaceError::Unreadable {
                    path,
                    message: e.to_string(),
                })
            }
        }
        if self.folders.contains(&path) {
            return Ok(false);
        }
        self.folders.push(path);
        Ok(true)
    }

    /// Closes the folder opened as `path` (or resolving to the same directory). Returns false when none was open.
    pub fn close(&mut self, path: &Path) -> bool {
        let Ok(target) = absolute(path) else {
            return false;
        };
        let canonical = target.canonicalize().ok();
        let before = self.folders.len();
        self.folders.retain(|f| {
            *f != target && (canonical.is_none() || f.canonicalize().ok() != canonical)
        });
        self.folders.len() != before
    }

    /// A folder was renamed or moved on disk: follow it. Folders inside it move with it.
    pub fn follow_rename(&mut self, from: &Path, to: &Path) -> bool {
        let mut changed = false;
        for folder in &mut self.folders {
            if let Ok(rest) = folder.strip_prefix(from) {
                *folder = to.join(rest);
                changed = true;
            }
        }
        changed
    }

    pub fn roots(&self) -> Vec<Root> {
        let mut taken: Vec<PathBuf> = Vec::new();
        let mut roots = Vec::new();
        for folder in &self.folders {
            let Ok(canonical) = folder.canonicalize() else {
                continue;
            };
            if !canonical.is_dir() || taken.iter().any(|t| canonical.starts_with(t)) {
                continue;
            }
            // An outer folder opened after an inner one takes the inner one's place.
            let inner: Vec<usize> = taken
                .iter()
                .enumerate()
                .filter(|(_, t)| t.starts_with(&canonical))
                .map(|(i, _)| i)
                .collect();
            for i in inner.into_iter().rev() {
                taken.remove(i);
                roots.remove(i);
            }
            let name = folder
                .file_name()
                .or_else(|| canonical.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| canonical.display().to_string());
            roots.push(Root {
                uri: file_uri(&canonical),
                name,
            });
            taken.push(canonical);
        }
        roots
    }

    /// The canonical directories behind the roots, for checking paths against them.
    pub fn root_paths(&self) -> Vec<PathBuf> {
        self.roots()
            .iter()
            .filter_map(|r| url::Url::parse(&r.uri).ok()?.to_file_path().ok())
            .collect()
    }

    /// Reads a saved workspace; a missing file is an empty workspace, a corrupt one an error for the caller to report.
    pub fn load(path: &Path) -> Result<Workspace, WorkspaceError> {
        let unreadable = |message: String| WorkspaceError::Unreadable {
            path: path.to_owned(),
            message,
        };
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| unreadable(e.to_string())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Workspace::new()),
            Err(e) => Err(unreadable(e.to_string())),
        }
    }

    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let bytes = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        crate::fsutil::write_atomic(path, &bytes)
    }
}

fn absolute(path: &Path) -> Result<PathBuf, WorkspaceError> {
    std::path::absolute(path).map_err(|e| WorkspaceError::Unreadable {
        path: path.to_owned(),
        message: e.to_string(),
    })
}

/// A percent-encoded `file://` URI for an absolute path: spaces, `#`, `%` and non-ASCII characters are escaped, so
/// the URI parses back to the same path.
pub fn file_uri(path: &Path) -> String {
    match url::Url::from_file_path(path) {
        Ok(url) => url.to_string(),
        // Only relative paths fail, and roots are canonical; keep a best effort rather than panic.
        Err(()) => format!("file://{}", path.display()),
    }
}

#[cfg(test)]
mod tests;
