//! A per-user JSON file of entries by key (the sampling preferences per server, the tool grants), shared by every
//! Wharf process of the user: the app and `wharf` may write it at once, so every write re-reads it under a lock and
//! merges its one change; a read is cached until the file changes; a corrupt file is set aside and reported, never
//! silently reset; a file from a newer Wharf is left as it is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde::de::DeserializeOwned;
use serde::Serialize;

mod file;

use file::{Loaded, Stamp, Unusable};

/// What a store is, for its file's layout and for the sentences that tell the user about the file.
#[derive(Debug)]
pub struct StoreKind {
    /// The key of the object that holds the entries (`"servers"`).
    pub section: &'static str,
    /// What one entry is, as in "the entry of server \"web\"".
    pub entry: &'static str,
    /// What the file holds, as in "the sampling preferences file".
    pub label: &'static str,
    /// What holds while the file cannot be used, as in "every server will ask before sampling".
    pub meanwhile: &'static str,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("could not {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{} was written by a newer Wharf (format version {version}); this one leaves it as it is and cannot change it",
        path.display()
    )]
    NewerVersion { path: PathBuf, version: u64 },
}

/// The store, shared by a whole host (`Send + Sync`).
#[derive(Debug)]
pub struct UserStore<E> {
    path: PathBuf,
    kind: &'static StoreKind,
    state: Mutex<State<E>>,
}

#[derive(Debug)]
struct State<E> {
    /// The file as last read, and which version of it that was (`None`: nothing cached, read it).
    seen: Option<Seen>,
    entries: BTreeMap<String, E>,
    notices: Vec<String>,
    /// The last problem reported, so that a file that stays unreadable is reported once, not on every read.
    last_problem: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    Missing,
    File(Stamp),
}

impl<E: Serialize + DeserializeOwned> UserStore<E> {
    /// Reads the store at `path`. The string is a notice for the user when the file could not be used (set aside as
    /// corrupt, unreadable, or from a newer Wharf); the store is empty then.
    pub fn open(path: PathBuf, kind: &'static StoreKind) -> (UserStore<E>, Option<String>) {
        let store = UserStore::unread(path, kind);
        let notices = {
            let mut state = store.state();
            store.refresh(&mut state);
            std::mem::take(&mut state.notices)
        };
        let notice = (!notices.is_empty()).then(|| notices.join(" "));
        (store, notice)
    }

    /// A store that has not read its file yet: it reads it at its first use. Tests use it as a store opened while
    /// the file was still good.
    pub(crate) fn unread(path: PathBuf, kind: &'static StoreKind) -> UserStore<E> {
        UserStore {
            path,
            kind,
            state: Mutex::new(State {
                seen: None,
                entries: BTreeMap::new(),
                notices: Vec::new(),
                last_problem: None,
            }),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Notices that arose after `open` (the file turned corrupt or unreadable later, found by a read or a write);
    /// each is given once.
    pub fn take_notices(&self) -> Vec<String> {
        std::mem::take(&mut self.state().notices)
    }

    /// `f` over the entries as the file has them now: it is read again if it changed, so a choice made in another
    /// Wharf applies at once.
    pub fn read<R>(&self, f: impl FnOnce(&BTreeMap<String, E>) -> R) -> R {
        let mut state = self.state();
        self.refresh(&mut state);
        f(&state.entries)
    }

    /// Stores `entry` under `key`. Another Wharf writing at the same time loses nothing: the file is re-read under a
    /// lock and only this entry changes.
    pub fn set(&self, key: &str, entry: E) -> Result<(), StoreError> {
        // The file lock is taken without holding the state, and the state after it is released: `refresh` takes
        // them the other way round.
        let updated = file::update(self.kind, &self.path, |doc| doc.set(key, entry));
        self.after_update(updated)
    }

    /// Removes what is stored under `key`.
    pub fn remove(&self, key: &str) -> Result<(), StoreError> {
        let updated = file::update::<E>(self.kind, &self.path, |doc| {
            doc.remove(key);
            Ok(())
        });
        self.after_update(updated)
    }

    /// After a write: the file is read again before the next read of an entry.
    fn after_update(&self, updated: file::Updated) -> Result<(), StoreError> {
        let mut state = self.state();
        state.seen = None;
        if let Some(notice) = updated.notice {
            report(&mut state, notice);
        }
        updated.result
    }

    fn state(&self) -> MutexGuard<'_, State<E>> {
        // The state is consistent after every statement that changes it, so a panic elsewhere leaves it usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Brings `state.entries` up to the file, reading it only when it changed.
    fn refresh(&self, state: &mut State<E>) {
        // A corrupt file is set aside and what is there then is read: twice at most, so that a file corrupted again
        // and again cannot hold a request up.
        for _ in 0..2 {
            if !self.refresh_once(state) {
                return;
            }
        }
    }

    /// One read; true when the file was corrupt, was dealt with, and should be read again.
    fn refresh_once(&self, state: &mut State<E>) -> bool {
        let known = match state.seen {
            Some(Seen::File(stamp)) => Some(stamp),
            _ => None,
        };
        let (label, meanwhile) = (self.kind.label, self.kind.meanwhile);
        let loaded = match file::load(self.kind, &self.path, known) {
            Ok(None) => return false,
            Ok(Some(loaded)) => loaded,
            Err(e) => {
                // Unknown contents: nothing is allowed or denied from it until it can be read again.
                state.seen = None;
                state.entries.clear();
                let problem = format!(
                    "The {label} file {} could not be read ({e}); {meanwhile} until it can be.",
                    self.path.display()
                );
                report(state, problem);
                return false;
            }
        };
        match loaded {
            Loaded::Missing => {
                if state.seen != Some(Seen::Missing) {
                    state.entries.clear();
                    state.seen = Some(Seen::Missing);
                }
                state.last_problem = None;
            }
            Loaded::Read {
                stamp,
                doc: Ok(doc),
            } => {
                state.entries = doc.entries;
                state.seen = Some(Seen::File(stamp));
                state.last_problem = None;
            }
            Loaded::Read {
                stamp,
                doc: Err(Unusable::Newer(version)),
            } => {
                state.entries.clear();
                state.seen = Some(Seen::File(stamp));
                let newer = StoreError::NewerVersion {
                    path: self.path.clone(),
                    version,
                };
                report(state, format!("{newer}; {meanwhile}."));
            }
            Loaded::Read {
                doc: Err(Unusable::Corrupt(_)),
                ..
            } => {
                state.entries.clear();
                // Set aside under the lock, after checking again that it is still corrupt: another Wharf may have
                // done it, or replaced the file, in between. The next read then finds whatever is there now.
                state.seen = None;
                match file::set_aside_if_corrupt::<E>(self.kind, &self.path) {
                    Ok(Some(notice)) => {
                        report(state, notice);
                        return true;
                    }
                    Ok(None) => return true,
                    Err(e) => report(
                        state,
                        format!(
                            "The {label} file {} is corrupt and could not be moved aside ({e}); {meanwhile}.",
                            self.path.display()
                        ),
                    ),
                }
            }
        }
        false
    }
}

fn report<E>(state: &mut State<E>, problem: String) {
    if state.last_problem.as_deref() != Some(problem.as_str()) {
        state.last_problem = Some(problem.clone());
        state.notices.push(problem);
    }
}
