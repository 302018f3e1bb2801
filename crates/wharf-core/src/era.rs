//! Protocol eras and the cache of what each server definition speaks.
//!
//! The spec lets a client remember the era per server configuration and re-probe when the assumption fails; that
//! saves a probe (and, for silent legacy servers, a timeout) on every start.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

/// The newest revision Wharf speaks: stateless, `server/discover`, MRTR.
pub const MODERN_VERSION: &str = "2026-07-28";
/// What Wharf offers in the `initialize` handshake.
pub const LEGACY_VERSION: &str = "2025-11-25";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum Era {
    /// 2026-07-28 and later: no handshake, `_meta` on every request.
    Modern,
    /// 2025-11-25 and earlier: the `initialize` handshake.
    Legacy,
}

impl Era {
    pub fn as_str(self) -> &'static str {
        match self {
            Era::Modern => "modern",
            Era::Legacy => "legacy",
        }
    }
}

/// Era per server definition hash, kept in a small JSON file. A missing or corrupt file only costs a probe.
#[derive(Debug)]
pub struct EraCache {
    path: Option<PathBuf>,
    entries: Mutex<BTreeMap<String, Era>>,
}

impl EraCache {
    pub fn at(path: PathBuf) -> Self {
        let entries = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        EraCache {
            path: Some(path),
            entries: Mutex::new(entries),
        }
    }

    /// The default location: `$XDG_CACHE_HOME/wharf/eras.json`.
    pub fn default_location() -> Self {
        EraCache::at(crate::user_dirs::cache_dir().join("eras.json"))
    }

    /// A cache that remembers nothing across processes (tests, or when the disk is not writable).
    pub fn in_memory() -> Self {
        EraCache {
            path: None,
            entries: Mutex::default(),
        }
    }

    pub fn get(&self, definition_hash: &str) -> Option<Era> {
        self.entries.lock().ok()?.get(definition_hash).copied()
    }

    pub fn put(&self, definition_hash: &str, era: Era) {
        let snapshot = {
            let Ok(mut entries) = self.entries.lock() else {
                return;
            };
            if entries.get(definition_hash) == Some(&era) {
                return;
            }
            entries.insert(definition_hash.to_string(), era);
            entries.clone()
        };
        self.save(&snapshot);
    }

    pub fn forget(&self, definition_hash: &str) {
        let snapshot = {
            let Ok(mut entries) = self.entries.lock() else {
                return;
            };
            if entries.remove(definition_hash).is_none() {
                return;
            }
            entries.clone()
        };
        self.save(&snapshot);
    }

    fn save(&self, entries: &BTreeMap<String, Era>) {
        let Some(path) = &self.path else { return };
        // A cache: failing to write it is worth a log line, not an error for the user.
        let result = serde_json::to_vec_pretty(entries)
            .map_err(std::io::Error::other)
            .and_then(|bytes| crate::fsutil::write_atomic(path, &bytes));
        if let Err(e) = result {
            tracing::debug!("cannot write the era cache {}: {e}", path.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn survives_a_restart_and_a_corrupt_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("eras.json");
        EraCache::at(path.clone()).put("abc", Era::Modern);
        assert_eq!(EraCache::at(path.clone()).get("abc"), Some(Era::Modern));
        std::fs::write(&path, b"{not json").unwrap();
        let cache = EraCache::at(path.clone());
        assert_eq!(cache.get("abc"), None);
        cache.put("abc", Era::Legacy);
        assert_eq!(EraCache::at(path).get("abc"), Some(Era::Legacy));
    }
}
