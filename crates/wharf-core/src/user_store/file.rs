//! A store's file on disk: parsing it (keeping every key it has, known or not), the advisory lock every writer
//! takes, the read-merge-write cycle under that lock, and setting a corrupt file aside.
//!
//! Lock order: a thread may take this lock while holding a store's in-memory state, never the other way round (see
//! `UserStore::set`).

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

use super::{StoreError, StoreKind};
use crate::fsutil;

pub(super) const FORMAT_VERSION: u64 = 1;

/// What identifies one version of the file without reading it: a rename gives a new inode, an in-place edit a new
/// ctime, so a changed file is never mistaken for the cached one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

/// The whole file as read: `raw` keeps every key (unknown ones included) so that a write changes only what it means
/// to; `entries` is the typed view of `raw[kind.section]`.
#[derive(Debug, Clone)]
pub(super) struct Document<E> {
    section: &'static str,
    raw: Map<String, Value>,
    pub(super) entries: BTreeMap<String, E>,
}

impl<E: Serialize + DeserializeOwned> Document<E> {
    pub(super) fn empty(kind: &StoreKind) -> Document<E> {
        let mut raw = Map::new();
        raw.insert("version".into(), Value::from(FORMAT_VERSION));
        raw.insert(kind.section.into(), Value::Object(Map::new()));
        Document {
            section: kind.section,
            raw,
            entries: BTreeMap::new(),
        }
    }

    /// Stores `entry` under `key`; keys of the entry (and of the objects in it) that this version does not know are
    /// kept.
    pub(super) fn set(&mut self, key: &str, entry: E) -> Result<(), serde_json::Error> {
        let fresh = match serde_json::to_value(&entry)? {
            Value::Object(fresh) => fresh,
            _ => Map::new(),
        };
        self.with_section(|entries| {
            let slot = entries.entry(key.to_string()).or_insert(Value::Null);
            let mut entry = match std::mem::take(slot) {
                Value::Object(entry) => entry,
                _ => Map::new(),
            };
            for (key, value) in fresh {
                match (entry.get_mut(&key), value) {
                    (Some(Value::Object(old)), Value::Object(new)) => old.extend(new),
                    (_, value) => {
                        entry.insert(key, value);
                    }
                }
            }
            *slot = Value::Object(entry);
        });
        self.entries.insert(key.to_string(), entry);
        Ok(())
    }

    pub(super) fn remove(&mut self, key: &str) {
        self.with_section(|entries| {
            entries.shift_remove(key);
        });
        self.entries.remove(key);
    }

    /// Runs `f` on `raw[section]` (made an object if missing), taken out of its slot and put back so that the key
    /// keeps its place in the file.
    fn with_section(&mut self, f: impl FnOnce(&mut Map<String, Value>)) {
        let slot = self.raw.entry(self.section).or_insert(Value::Null);
        let mut entries = match std::mem::take(slot) {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        f(&mut entries);
        *slot = Value::Object(entries);
    }

    fn to_bytes(&self) -> Result<Vec<u8>, serde_json::Error> {
        let mut bytes = serde_json::to_vec_pretty(&self.raw)?;
        bytes.push(b'\n');
        Ok(bytes)
    }
}

/// Why the bytes of a file are not a document this version can use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Unusable {
    /// Bad JSON or the wrong shape: the sentence says what is wrong.
    Corrupt(String),
    /// A later format: left untouched, since rewriting it in this format could drop what it means.
    Newer(u64),
}

pub(super) fn parse<E: DeserializeOwned>(
    kind: &StoreKind,
    bytes: &[u8],
) -> Result<Document<E>, Unusable> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| Unusable::Corrupt(format!("it is not valid JSON ({e})")))?;
    let Value::Object(raw) = value else {
        return Err(Unusable::Corrupt("it is not a JSON object".into()));
    };
    match raw.get("version").and_then(Value::as_u64) {
        Some(FORMAT_VERSION) => {}
        Some(v) if v > FORMAT_VERSION => return Err(Unusable::Newer(v)),
        _ => {
            return Err(Unusable::Corrupt(format!(
                "it has no \"version\": {FORMAT_VERSION}"
            )))
        }
    }
    let mut entries = BTreeMap::new();
    match raw.get(kind.section) {
        None => {}
        Some(Value::Object(map)) => {
            for (key, entry) in map {
                let entry = E::deserialize(entry).map_err(|e| {
                    Unusable::Corrupt(format!(
                        "the entry of {} \"{key}\" is not valid ({e})",
                        kind.entry
                    ))
                })?;
                entries.insert(key.clone(), entry);
            }
        }
        Some(_) => {
            return Err(Unusable::Corrupt(format!(
                "\"{}\" is not an object",
                kind.section
            )))
        }
    }
    Ok(Document {
        section: kind.section,
        raw,
        entries,
    })
}

/// The file as it is now.
#[derive(Debug)]
pub(super) enum Loaded<E> {
    Missing,
    Read {
        stamp: Stamp,
        doc: Result<Document<E>, Unusable>,
    },
}

/// Reads the file. With `known` given and the file unchanged since, nothing is read and `Ok(None)` comes back.
pub(super) fn load<E: DeserializeOwned>(
    kind: &StoreKind,
    path: &Path,
    known: Option<Stamp>,
) -> io::Result<Option<Loaded<E>>> {
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Some(Loaded::Missing)),
        Err(e) => return Err(e),
    };
    // The stamp of the descriptor being read, not of the path: a rename in between cannot pair old bytes with a
    // new stamp.
    let stamp = Stamp::of(&file.metadata()?);
    if known == Some(stamp) {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(Some(Loaded::Read {
        stamp,
        doc: parse(kind, &bytes),
    }))
}

/// The advisory lock every writer of the file holds from its read to its rename. Released when dropped (closing the
/// descriptor releases an `flock`), and by the kernel when the process dies, so a killed writer never leaves it held.
pub(super) struct FileLock {
    _file: File,
}

impl FileLock {
    /// The lock of the store at `path`, held until dropped.
    fn beside(path: &Path) -> Result<FileLock, StoreError> {
        let lock = lock_path(path);
        FileLock::acquire(&lock).map_err(|source| StoreError::Io {
            action: "lock",
            path: lock,
            source,
        })
    }

    pub(super) fn acquire(lock_path: &Path) -> io::Result<FileLock> {
        if let Some(dir) = lock_path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(lock_path)?;
        loop {
            // SAFETY: flock takes a descriptor this function owns for as long as the call lasts; no memory is shared.
            let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
            if rc == 0 {
                return Ok(FileLock { _file: file });
            }
            let err = io::Error::last_os_error();
            if err.kind() != io::ErrorKind::Interrupted {
                return Err(err);
            }
        }
    }
}

/// The sibling lock file: `sampling.json.lock` for `sampling.json`. Never removed: removing a lock file lets two processes each lock a
/// different inode.
pub(super) fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

/// An update's outcome, and the notice of a corrupt file it set aside on the way (given even when the write then
/// failed: the user must hear that their file was moved).
pub(super) struct Updated {
    pub(super) result: Result<(), StoreError>,
    pub(super) notice: Option<String>,
}

/// Under the lock: re-read the latest file, apply `change`, write it atomically. A corrupt file found here is set
/// aside first; a newer-format file is left alone and the change refused.
pub(super) fn update<E: Serialize + DeserializeOwned>(
    kind: &StoreKind,
    path: &Path,
    change: impl FnOnce(&mut Document<E>) -> Result<(), serde_json::Error>,
) -> Updated {
    let mut notice = None;
    let result = update_locked(kind, path, change, &mut notice);
    Updated { result, notice }
}

fn update_locked<E: Serialize + DeserializeOwned>(
    kind: &StoreKind,
    path: &Path,
    change: impl FnOnce(&mut Document<E>) -> Result<(), serde_json::Error>,
    notice: &mut Option<String>,
) -> Result<(), StoreError> {
    let _held = FileLock::beside(path)?;
    // Any temporary file here now belongs to a writer that died mid-write (every writer holds this lock).
    let _ = fsutil::remove_orphan_temps(path);
    let io_err = |action| {
        move |source| StoreError::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    };
    let mut doc = match load(kind, path, None).map_err(io_err("read"))? {
        None | Some(Loaded::Missing) => Document::empty(kind),
        Some(Loaded::Read { doc: Ok(doc), .. }) => doc,
        Some(Loaded::Read {
            doc: Err(Unusable::Newer(version)),
            ..
        }) => {
            return Err(StoreError::NewerVersion {
                path: path.to_path_buf(),
                version,
            })
        }
        Some(Loaded::Read {
            doc: Err(Unusable::Corrupt(why)),
            ..
        }) => {
            let aside = fsutil::set_aside(path).map_err(io_err("move aside the unreadable"))?;
            *notice = Some(corrupt_notice(kind, path, &aside, &why));
            Document::empty(kind)
        }
    };
    let encode_err = |e: serde_json::Error| StoreError::Io {
        action: "encode",
        path: path.to_path_buf(),
        source: io::Error::other(e),
    };
    change(&mut doc).map_err(encode_err)?;
    let bytes = doc.to_bytes().map_err(encode_err)?;
    fsutil::write_atomic(path, &bytes).map_err(io_err("write"))
}

/// Under the lock: if the file is still corrupt (another process may have set it aside or replaced it since it was
/// read), sets it aside and returns the notice.
pub(super) fn set_aside_if_corrupt<E: DeserializeOwned>(
    kind: &StoreKind,
    path: &Path,
) -> Result<Option<String>, StoreError> {
    let _held = FileLock::beside(path)?;
    match load::<E>(kind, path, None) {
        Ok(Some(Loaded::Read {
            doc: Err(Unusable::Corrupt(why)),
            ..
        })) => {
            let aside = fsutil::set_aside(path).map_err(|source| StoreError::Io {
                action: "move aside the unreadable",
                path: path.to_path_buf(),
                source,
            })?;
            Ok(Some(corrupt_notice(kind, path, &aside, &why)))
        }
        _ => Ok(None),
    }
}

pub(super) fn corrupt_notice(kind: &StoreKind, path: &Path, aside: &Path, why: &str) -> String {
    format!(
        "The {} file {} could not be used: {why}. It was moved to {} (nothing was deleted), and {} until you \
         choose again.",
        kind.label,
        path.display(),
        aside.display(),
        kind.meanwhile
    )
}
