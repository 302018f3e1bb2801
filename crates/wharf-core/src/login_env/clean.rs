//! What is kept of the PATH a login shell printed. The shell runs the user's rc files, which may print anything; only
//! directories that can hold commands are taken, and only so many.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

/// More PATH than this is not a PATH: only the entries that start within it are read.
pub const MAX_PATH_BYTES: usize = 64 * 1024;
/// No shell setup needs more directories than this; a longer list is cut after this many usable ones.
pub const MAX_ENTRIES: usize = 256;
/// The longest directory name Linux resolves (`PATH_MAX`).
const MAX_ENTRY_BYTES: usize = 4096;

/// The usable directories of `raw`, in order, each once: absolute, without control characters (a NUL or a newline
/// in a name is a sign of garbage, never a real directory of commands), and existing as a directory now.
pub fn clean_path(raw: &[u8]) -> Vec<PathBuf> {
    let cut = raw.len() > MAX_PATH_BYTES;
    let mut entries: Vec<&[u8]> = raw[..raw.len().min(MAX_PATH_BYTES)]
        .split(|&b| b == b':')
        .collect();
    if cut {
        // The last entry read was cut short: it would name another directory than the shell's.
        entries.pop();
    }
    let mut seen = HashSet::new();
    let mut kept = Vec::new();
    for entry in entries {
        if kept.len() == MAX_ENTRIES {
            break;
        }
        if let Some(dir) = usable(entry) {
            if seen.insert(dir.clone()) {
                kept.push(dir);
            }
        }
    }
    kept
}

fn usable(entry: &[u8]) -> Option<PathBuf> {
    let plausible = entry.first() == Some(&b'/')
        && entry.len() <= MAX_ENTRY_BYTES
        && !entry.iter().any(|&b| b < 0x20 || b == 0x7f);
    if !plausible {
        return None;
    }
    let dir = PathBuf::from(OsStr::from_bytes(entry));
    dir.is_dir().then_some(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(dir: &std::path::Path) -> Vec<u8> {
        dir.as_os_str().as_bytes().to_vec()
    }

    #[test]
    fn relative_empty_missing_and_control_entries_are_dropped_and_repeats_kept_once() {
        let tmp = tempfile::tempdir().unwrap();
        let good = tmp.path().join("good");
        let other = tmp.path().join("other");
        std::fs::create_dir(&good).unwrap();
        std::fs::create_dir(&other).unwrap();
        let file = tmp.path().join("file");
        std::fs::write(&file, "").unwrap();
        let mut raw = b"relative/bin::.:".to_vec();
        raw.extend(bytes(&good));
        raw.extend(b":");
        raw.extend(bytes(&good));
        raw.extend(b"\0/etc:");
        raw.extend(bytes(&good));
        raw.extend(b"\n:/no/such/dir-wharf:");
        raw.extend(bytes(&file));
        raw.extend(b":");
        raw.extend(bytes(&good));
        raw.extend(b":");
        raw.extend(bytes(&other));
        assert_eq!(clean_path(&raw), vec![good, other]);
    }

    #[test]
    fn an_enormous_path_is_read_only_as_far_as_its_bound_and_its_entry_count() {
        let tmp = tempfile::tempdir().unwrap();
        let dirs: Vec<PathBuf> = (0..MAX_ENTRIES + 40)
            .map(|n| {
                let dir = tmp.path().join(format!("d{n}"));
                std::fs::create_dir(&dir).unwrap();
                dir
            })
            .collect();
        let mut raw = Vec::new();
        for dir in &dirs {
            raw.extend(bytes(dir));
            raw.push(b':');
        }
        let kept = clean_path(&raw);
        assert_eq!(kept, dirs[..MAX_ENTRIES].to_vec());

        // One entry far longer than any directory name, then a usable one past the byte bound.
        let mut raw = bytes(&dirs[0]);
        raw.push(b':');
        raw.extend(std::iter::repeat_n(b'a', MAX_PATH_BYTES * 4));
        raw.push(b':');
        raw.extend(bytes(&dirs[1]));
        assert_eq!(clean_path(&raw), vec![dirs[0].clone()]);
    }

    #[test]
    fn an_entry_cut_by_the_byte_bound_is_not_taken_for_a_shorter_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let short = tmp.path().join("d");
        std::fs::create_dir(&short).unwrap();
        // Padding made of "/" entries, so the directory `short` plus "eeper" straddles the bound.
        let mut raw = Vec::new();
        while raw.len() + 2 < MAX_PATH_BYTES - short.as_os_str().len() {
            raw.extend(b"/:");
        }
        raw.extend(bytes(&short));
        raw.extend(b"eeper-than-the-bound");
        assert!(raw.len() > MAX_PATH_BYTES);
        assert_eq!(clean_path(&raw), vec![PathBuf::from("/")]);
    }
}
