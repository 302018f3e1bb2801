//! Where a path argument leads: its text read the way the server reads it (`file://` URIs, `~`), then resolved
//! through the real filesystem (`..`, symlinks).

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Symlinks followed while resolving one path before giving up, as the kernel's ELOOP limit does.
const MAX_LINKS: usize = 40;

/// Resolves an absolute `path` as the filesystem would: `.` dropped, `..` to the real parent, every symlink
/// followed (also a dangling one: a write through it lands at its target). Components that do not exist are kept
/// as written, so a path to be created resolves through its existing parent. Errors are those of the filesystem
/// (permission denied: where that component leads cannot be known) and too many symlinks.
pub fn resolve_path(path: &Path) -> io::Result<PathBuf> {
    let mut current = PathBuf::new();
    let mut pending: VecDeque<Step> = VecDeque::new();
    push_steps(path, &mut current, &mut pending, false);
    if current.as_os_str().is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not an absolute path",
        ));
    }
    // How many trailing components of `current` do not exist: below a missing one, nothing exists either.
    let mut missing = 0usize;
    let mut links = 0usize;
    while let Some(step) = pending.pop_front() {
        match step {
            Step::Parent => {
                current.pop();
                missing = missing.saturating_sub(1);
            }
            Step::Name(name) => {
                let candidate = current.join(&name);
                if missing > 0 {
                    current = candidate;
                    missing += 1;
                    continue;
                }
                match std::fs::symlink_metadata(&candidate) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        links += 1;
                        if links > MAX_LINKS {
                            return Err(io::Error::other("too many levels of symbolic links"));
                        }
                        let target = std::fs::read_link(&candidate)?;
                        // The target's components come before what was left; an absolute one restarts from its root.
                        push_steps(&target, &mut current, &mut pending, true);
                    }
                    Ok(_) => current = candidate,
                    Err(e)
                        if matches!(
                            e.kind(),
                            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                        ) =>
                    {
                        current = candidate;
                        missing = 1;
                    }
                    Err(e) => return Err(e),
                }
            }
        }
    }
    Ok(current)
}

enum Step {
    Parent,
    Name(OsString),
}

/// Queues the components of `path`; a root (absolute path) resets `current` to it. `front`: before what is pending
/// (a symlink's target), else after.
fn push_steps(path: &Path, current: &mut PathBuf, pending: &mut VecDeque<Step>, front: bool) {
    let mut steps = Vec::new();
    let mut rooted = false;
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => {
                if !rooted {
                    current.clear();
                    rooted = true;
                }
                current.push(component.as_os_str());
            }
            Component::CurDir => {}
            Component::ParentDir => steps.push(Step::Parent),
            Component::Normal(name) => steps.push(Step::Name(name.to_owned())),
        }
    }
    if front {
        for step in steps.into_iter().rev() {
            pending.push_front(step);
        }
    } else {
        pending.extend(steps);
    }
}

pub(super) enum Interpreted {
    Path(PathBuf),
    /// A URI of another scheme given to a URI parameter: not a local path.
    NotLocal,
    Invalid(String),
}

pub(super) fn interpret(text: &str, uri_param: bool) -> Interpreted {
    if text
        .get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("file:"))
    {
        // The url crate decodes percent-escapes and normalises `..` segments; a host other than localhost is a
        // remote file, which no local folder contains.
        return match url::Url::parse(text).map(|u| u.to_file_path()) {
            Ok(Ok(path)) => Interpreted::Path(path),
            Ok(Err(())) => Interpreted::Invalid(format!(
                "{text:?} is not a local file URI (expected file:///absolute/path)"
            )),
            Err(e) => Interpreted::Invalid(format!("{text:?} is not a valid file URI: {e}")),
        };
    }
    // In a plain path parameter "https://x/../.." is still a relative path to the server, so only URI parameters
    // let other schemes through.
    if uri_param && has_scheme(text) {
        return Interpreted::NotLocal;
    }
    // Servers expand `~` (the reference filesystem server does): "~/.ssh" must be checked as the home directory's.
    if text == "~" || text.starts_with("~/") {
        return match std::env::var_os("HOME").filter(|h| !h.is_empty()) {
            Some(home) => {
                Interpreted::Path(PathBuf::from(home).join(text[1..].trim_start_matches('/')))
            }
            None => {
                Interpreted::Invalid(format!("{text:?}: ~ cannot be expanded (HOME is not set)"))
            }
        };
    }
    Interpreted::Path(PathBuf::from(text))
}

/// `scheme://...` per RFC 3986: a letter, then letters, digits, `+`, `-`, `.`.
fn has_scheme(text: &str) -> bool {
    let Some((scheme, _)) = text.split_once("://") else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
}
