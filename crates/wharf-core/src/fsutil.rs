//! Writing the user's files so that a crash or a power cut never leaves half of one: write a temporary file beside
//! it, flush it to disk, rename it over the old one, then flush the directory so the rename itself is durable.

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Temporary files are named `.<file name>.<random>.tmp`, so that one left behind by a killed process is
/// recognisable as such (and as belonging to which file) by [`remove_orphan_temps`].
const TEMP_SUFFIX: &str = ".tmp";

/// A file name for a saved blob: the URI's last path segment (percent-decoded, stripped of anything a file name
/// cannot hold or that would make it read as another name: separators, controls, bidi and invisible characters, a
/// leading dot), else `resource`.
pub fn file_name_for(uri: &str) -> String {
    let path = uri.split(['?', '#']).next().unwrap_or_default();
    let last = path.rsplit('/').find(|s| !s.is_empty()).unwrap_or_default();
    let last = if last.ends_with(':') { "" } else { last };
    let decoded = percent_encoding::percent_decode_str(last).decode_utf8_lossy();
    let clean: String = decoded
        .chars()
        .filter(|c| {
            !crate::display_text::is_hazard(*c)
                && !matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|')
        })
        .collect();
    let clean = clean.trim().trim_start_matches('.').to_owned();
    if clean.is_empty() {
        "resource".into()
    } else {
        clean.chars().take(120).collect()
    }
}

pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    // A user who keeps their config as a symlink into a dotfiles repository keeps it: the target is replaced, not
    // the link. A dangling link is replaced by the file, as before.
    let target = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    };
    let dir = parent_dir(&target);
    std::fs::create_dir_all(&dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(&temp_prefix(&target))
        .suffix(TEMP_SUFFIX)
        .tempfile_in(&dir)?;
    // Permissions first, so that the copy made durable below is complete (a config may be private to the user).
    if let Ok(meta) = std::fs::metadata(&target) {
        tmp.as_file().set_permissions(meta.permissions())?;
    }
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(&target).map_err(|e| e.error)?;
    sync_dir(&dir)
}

/// Removes the temporary files [`write_atomic`] left beside `path` when its process died mid-write. Only safe when
/// the caller knows no other process is writing `path` right now (it holds a lock every writer takes); returns how
/// many were removed.
pub fn remove_orphan_temps(path: &Path) -> std::io::Result<usize> {
    let prefix = temp_prefix(path);
    let mut removed = 0;
    for entry in std::fs::read_dir(parent_dir(path))? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.as_bytes();
        if name.starts_with(prefix.as_bytes())
            && name.ends_with(TEMP_SUFFIX.as_bytes())
            && entry.file_type().is_ok_and(|t| t.is_file())
        {
            match std::fs::remove_file(entry.path()) {
                Ok(()) => removed += 1,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(removed)
}

fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn temp_prefix(path: &Path) -> OsString {
    let mut prefix = OsString::from(".");
    prefix.push(path.file_name().unwrap_or_default());
    prefix.push(".");
    prefix
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    // A directory the user may write but not read cannot be opened to sync; the file is in place all the same, and
    // reporting a failed save for it would be wrong.
    let Ok(d) = std::fs::File::open(dir) else {
        return Ok(());
    };
    match d.sync_all() {
        // Some file systems cannot sync a directory; the rename is then as durable as they make it.
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Ok(()),
        other => other,
    }
}

/// Renames the file to `<name>.corrupt-<unix seconds>` (with `-2`, `-3`... when that is taken). The caller holds
/// whatever lock its writers take, so the check for a free name cannot race another Wharf.
pub fn set_aside(path: &Path) -> std::io::Result<PathBuf> {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let base = path.file_name().unwrap_or_default().to_string_lossy();
    for n in 1..=1000u32 {
        let name = match n {
            1 => format!("{base}.corrupt-{secs}"),
            n => format!("{base}.corrupt-{secs}-{n}"),
        };
        let aside = path.with_file_name(name);
        match std::fs::symlink_metadata(&aside) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::rename(path, &aside)?;
                if let Some(dir) = path.parent() {
                    if let Ok(d) = std::fs::File::open(dir) {
                        let _ = d.sync_all();
                    }
                }
                return Ok(aside);
            }
            Err(e) => return Err(e),
            Ok(_) => continue,
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        "every name for the set-aside copy is taken",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_keeps_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/file.json");
        write_atomic(&path, b"one").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        // No temporary file is left beside it.
        assert_eq!(
            std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
            1
        );
    }

    #[test]
    fn a_symlinked_file_stays_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dotfiles/mcp.json");
        std::fs::create_dir_all(real.parent().unwrap()).unwrap();
        std::fs::write(&real, b"old").unwrap();
        let link = dir.path().join("mcp.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
    }

    #[test]
    fn orphan_temporaries_of_that_file_only_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prefs.json");
        write_atomic(&path, b"{}").unwrap();
        // What a writer killed between creating and renaming its temporary leaves behind.
        let orphan = tempfile::Builder::new()
            .prefix(&temp_prefix(&path))
            .suffix(TEMP_SUFFIX)
            .tempfile_in(dir.path())
            .unwrap();
        let (_, orphan) = orphan.keep().unwrap();
        let other = dir.path().join(".other.json.abc.tmp");
        std::fs::write(&other, b"x").unwrap();
        assert_eq!(remove_orphan_temps(&path).unwrap(), 1);
        assert!(!orphan.exists());
        assert!(other.exists());
        assert_eq!(std::fs::read(&path).unwrap(), b"{}");
    }
}
