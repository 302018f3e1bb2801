//! Where a path argument leads: its text read the ways the server may read it (`file:` URIs as a URL parser reads
//! them, `~` and `~user`, whitespace trimmed), then resolved through the real filesystem (`..`, symlinks).

mod home;

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Symlinks followed while resolving one path before giving up, as the kernel's ELOOP limit does.
const MAX_LINKS: usize = 40;

/// Below this, symlinks are per-process views (`/proc/self/cwd`, `/proc/<pid>/root`, `/proc/self/fd/N`, which
/// `/dev/fd` and `/dev/stdin` lead to): where one leads for Wharf is not where it leads for the server.
const PROC: &str = "/proc";

/// Resolves an absolute `path` as the filesystem would: `.` dropped, `..` to the real parent, every symlink
/// followed (also a dangling one: a write through it lands at its target). Components that do not exist are kept
/// as written, so a path to be created resolves through its existing parent. Errors are those of the filesystem
/// (permission denied: where that component leads cannot be known), too many symlinks, and a symlink under `/proc`
/// (each process sees its own there, so Wharf's reading says nothing of the server's).
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
                        if candidate.starts_with(PROC) {
                            return Err(io::Error::other(format!(
                                "it goes through {}, a link each process sees differently",
                                candidate.display()
                            )));
                        }
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

/// One way the server may read a path argument.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Reading {
    /// A filesystem path: absolute, or relative to the server's working directory.
    Path(PathBuf),
    /// A URI of another scheme given to a URI parameter: not a local path.
    NotLocal,
    /// Where it leads cannot be known (a remote `file:` host, an unknown `~user`): refused.
    Invalid(String),
}

/// Every reading of `text` a server may plausibly make, each to be checked: the text with surrounding whitespace
/// and control characters trimmed (a server that trims its input, as many do, opens `/etc/passwd` for
/// `" /etc/passwd"`), and the text as it is.
pub(super) fn readings(text: &str, uri_param: bool) -> Vec<Reading> {
    let trimmed = text.trim_matches(|c: char| c.is_whitespace() || c.is_control());
    let mut out = vec![read(trimmed, uri_param)];
    if trimmed != text {
        let reading = read(text, uri_param);
        if !out.contains(&reading) {
            out.push(reading);
        }
    }
    out
}

/// `text` as a URL parser (WHATWG, which Python's urllib follows here too) or a path API reads it. A text that
/// has a scheme once stripped as a URL parser strips it is a URI: with `file:` its path (whitespace and tabs or
/// newlines anywhere cannot hide it), with another scheme not local in a URI parameter; in a plain path parameter
/// such a text is a relative path, as a path API reads it.
fn read(text: &str, uri_param: bool) -> Reading {
    let as_url = url_text(text);
    match scheme(&as_url) {
        Some(scheme) if scheme.eq_ignore_ascii_case("file") => return file_url(text),
        Some(_) if uri_param => return Reading::NotLocal,
        _ => {}
    }
    // Servers expand `~` (the reference filesystem server does) and `~user` (Python's expanduser does).
    if let Some(rest) = text.strip_prefix('~') {
        let (user, tail) = rest.split_once('/').unwrap_or((rest, ""));
        return match home::home_of(user) {
            Ok(home) => Reading::Path(home.join(tail)),
            Err(reason) => Reading::Invalid(format!("{text:?}: {reason}")),
        };
    }
    Reading::Path(PathBuf::from(text))
}

/// The text a WHATWG URL parser works on: leading and trailing C0 controls and spaces stripped, every tab, line
/// feed and carriage return removed.
fn url_text(text: &str) -> String {
    text.trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect()
}

/// The URL scheme `text` starts with, as WHATWG reads one: an ASCII letter, then letters, digits, `+`, `-`, `.`,
/// up to a `:`.
fn scheme(text: &str) -> Option<&str> {
    let (scheme, _) = text.split_once(':')?;
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    valid.then_some(scheme)
}

/// A `file:` URL's local path. The url crate follows WHATWG: it strips what `url_text` strips, decodes
/// percent-escapes, reads `\` as `/` and normalises `..` segments (`%2e%2e` included); a host other than
/// localhost is a remote file, which no local folder contains.
fn file_url(text: &str) -> Reading {
    match url::Url::parse(text).map(|u| u.to_file_path()) {
        Ok(Ok(path)) => Reading::Path(path),
        Ok(Err(())) => Reading::Invalid(format!(
            "{text:?} is not a local file URI (expected file:///absolute/path)"
        )),
        Err(e) => Reading::Invalid(format!("{text:?} is not a valid file URI: {e}")),
    }
}
