//! The check itself: the values at each path parameter found in the arguments, each read the ways the server may
//! read it, resolved, and judged against the open folders.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::resolve::{readings, resolve_path, Reading};
use super::{schema_paths, PathScope, PathViolation, SchemaPaths, Segment};

/// Nesting of a value given where the schema says a path, past which its strings are not searched (and the value
/// is refused): a path is a string, so anything deeper is not what the server asked for.
const MAX_VALUE_DEPTH: usize = 32;
/// Strings checked in one value given where the schema says a path; past this the value is refused.
const MAX_VALUE_STRINGS: usize = 1024;

/// Checks every path argument in `args` (per [`schema_paths`]) against `scope`, and returns each offending argument
/// with a clear reason. A value is read the ways the server may read it: a `file:` URI as a URL parser does
/// (whitespace around it and tabs or newlines inside dropped, percent-escapes decoded), `~` and `~user` as home
/// directories, a relative path against the server's working directory, the text with surrounding whitespace
/// trimmed; every reading must lie inside an open folder, `..` and symlinks resolved component by component (a path
/// that does not exist yet resolves through its existing parent; a symlink inside that points outside is outside).
/// A value that is not a string where the schema says path has every string inside it checked. No folder open:
/// every path argument is refused.
pub fn check_path_args(
    input_schema: &Value,
    args: &Map<String, Value>,
    scope: &PathScope,
) -> Vec<PathViolation> {
    check_schema_paths(&schema_paths(input_schema), args, scope)
}

/// [`check_path_args`] with the schema already walked: walking it is most of the work for a tool whose arguments
/// are no paths, and a tool's schema stays the same from call to call.
pub fn check_schema_paths(
    paths: &SchemaPaths,
    args: &Map<String, Value>,
    scope: &PathScope,
) -> Vec<PathViolation> {
    if paths.is_empty() {
        return Vec::new();
    }
    // The caller passes canonical folders; canonicalizing again costs one call per folder and keeps a folder given
    // through a symlink from refusing every path inside it.
    let folders: Vec<PathBuf> = scope
        .folders
        .iter()
        .map(|f| f.canonicalize().unwrap_or_else(|_| f.clone()))
        .collect();
    let judge = Judge {
        folders: &folders,
        cwd: scope.server_cwd.as_deref(),
    };
    let whole = Value::Object(args.clone());
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut push = |v: PathViolation, out: &mut Vec<PathViolation>| {
        // A value that does not have the schema's shape is reached by every parameter below it: report it once.
        if seen.insert(v.pointer.clone()) {
            out.push(v);
        }
    };
    for param in &paths.params {
        let mut found = Vec::new();
        collect(&whole, &param.segments, String::new(), &mut found);
        for (pointer, value) in found {
            let mut strings = Vec::new();
            let complete = strings_in(value, pointer.clone(), 0, &mut strings);
            if !complete {
                push(too_much(&pointer, value), &mut out);
                continue;
            }
            for (pointer, text) in strings {
                if let Some(v) = judge.text(param.uri, pointer, text) {
                    push(v, &mut out);
                }
            }
        }
    }
    for blind in &paths.unfollowable {
        let mut found = Vec::new();
        collect(&whole, &blind.segments, String::new(), &mut found);
        for (pointer, value) in found {
            let mut strings = Vec::new();
            // A number, a boolean or null cannot name a file; any text might.
            if strings_in(value, pointer.clone(), 0, &mut strings) && strings.is_empty() {
                continue;
            }
            let named = if pointer.is_empty() {
                "the arguments".to_string()
            } else {
                pointer.clone()
            };
            let reason = format!(
                "{named}: the tool's schema for it cannot be followed ({}), so the paths it may hold cannot be \
                 checked against the workspace",
                blind.reason
            );
            push(
                PathViolation {
                    pointer,
                    value: as_text(value),
                    resolved: None,
                    reason,
                },
                &mut out,
            );
        }
    }
    out
}

/// Finds the values at `segments` below `value`, each with its concrete pointer (indices and keys filled in). A
/// value that does not have the shape the steps expect is returned where the shape breaks, so that every string in
/// it is checked: a server may take `"files": "/etc"` where its schema says `[{"path": ...}]`.
fn collect<'a>(
    value: &'a Value,
    segments: &[Segment],
    pointer: String,
    out: &mut Vec<(String, &'a Value)>,
) {
    let Some((segment, rest)) = segments.split_first() else {
        out.push((pointer, value));
        return;
    };
    let key = |name: &str| {
        if pointer.is_empty() {
            name.to_string()
        } else {
            format!("{pointer}.{name}")
        }
    };
    let index = |i: usize| format!("{pointer}[{i}]");
    match (segment, value) {
        (Segment::Key(name), Value::Object(map)) => {
            if let Some(v) = map.get(name) {
                collect(v, rest, key(name), out);
            }
        }
        (Segment::OtherKeys(named), Value::Object(map)) => {
            for (name, v) in map.iter().filter(|(k, _)| !named.contains(k)) {
                collect(v, rest, key(name), out);
            }
        }
        (Segment::Each, Value::Array(items)) => {
            for (i, v) in items.iter().enumerate() {
                collect(v, rest, index(i), out);
            }
        }
        (Segment::Item(n), Value::Array(items)) => {
            if let Some(v) = items.get(*n) {
                collect(v, rest, index(*n), out);
            }
        }
        (Segment::ItemsFrom(n), Value::Array(items)) => {
            for (i, v) in items.iter().enumerate().skip(*n) {
                collect(v, rest, index(i), out);
            }
        }
        // A single value where the schema says array: servers often accept either.
        (Segment::Each | Segment::Item(0) | Segment::ItemsFrom(0), _) => {
            collect(value, rest, pointer, out)
        }
        _ => out.push((pointer, value)),
    }
}

/// Every string in `value` with its pointer. False when the value is nested too deeply or holds too many strings
/// to search (then it is refused whole).
fn strings_in<'a>(
    value: &'a Value,
    pointer: String,
    depth: usize,
    out: &mut Vec<(String, &'a str)>,
) -> bool {
    if depth > MAX_VALUE_DEPTH || out.len() > MAX_VALUE_STRINGS {
        return false;
    }
    match value {
        Value::String(s) => {
            out.push((pointer, s));
            true
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .all(|(i, v)| strings_in(v, format!("{pointer}[{i}]"), depth + 1, out)),
        Value::Object(map) => map.iter().all(|(k, v)| {
            let here = if pointer.is_empty() {
                k.clone()
            } else {
                format!("{pointer}.{k}")
            };
            strings_in(v, here, depth + 1, out)
        }),
        Value::Null | Value::Bool(_) | Value::Number(_) => true,
    }
}

fn too_much(pointer: &str, value: &Value) -> PathViolation {
    PathViolation {
        pointer: pointer.to_string(),
        value: as_text(value),
        resolved: None,
        reason: format!(
            "{pointer}: the value is nested deeper than {MAX_VALUE_DEPTH} levels or holds more than \
             {MAX_VALUE_STRINGS} strings where the tool takes a path, so it cannot be checked"
        ),
    }
}

/// The value as the user gave it, for the violation: a string as it is, anything else as JSON (cut short).
fn as_text(value: &Value) -> String {
    const MAX_CHARS: usize = 200;
    match value {
        Value::String(s) => s.clone(),
        other => {
            let text = other.to_string();
            match text.char_indices().nth(MAX_CHARS) {
                Some((cut, _)) => format!("{}...", &text[..cut]),
                None => text,
            }
        }
    }
}

struct Judge<'a> {
    folders: &'a [PathBuf],
    cwd: Option<&'a Path>,
}

impl Judge<'_> {
    /// The violation of one string at a path parameter, if any of its readings leads outside the open folders.
    fn text(&self, uri_param: bool, pointer: String, text: &str) -> Option<PathViolation> {
        let violation = |resolved: Option<PathBuf>, reason: String| PathViolation {
            pointer: pointer.clone(),
            value: text.to_string(),
            resolved,
            reason,
        };
        for reading in readings(text, uri_param) {
            let path = match reading {
                Reading::NotLocal => continue,
                Reading::Invalid(reason) => {
                    return Some(violation(None, format!("{pointer}: {reason}")))
                }
                Reading::Path(path) => path,
            };
            if self.folders.is_empty() {
                return Some(violation(
                    None,
                    format!("{pointer}: no workspace folder is open, so no path can be sent (open a folder first)"),
                ));
            }
            let relative = !path.is_absolute();
            let absolute = match (relative, self.cwd) {
                (false, _) => path,
                (true, Some(cwd)) => cwd.join(path),
                (true, None) => {
                    return Some(violation(
                        None,
                        format!(
                            "{pointer}: {text:?} is a relative path, and where this server resolves it is not known \
                             (its working directory is not Wharf's to see): give an absolute path inside the workspace"
                        ),
                    ))
                }
            };
            match resolve_path(&absolute) {
                Err(e) => {
                    return Some(violation(
                        None,
                        format!("{pointer}: {text:?} cannot be resolved ({e}), so it cannot be checked against the workspace"),
                    ))
                }
                // Path::starts_with compares whole components: /w/ab is not inside /w/a.
                Ok(resolved) if self.folders.iter().any(|f| resolved.starts_with(f)) => {}
                Ok(resolved) => {
                    let open = self
                        .folders
                        .iter()
                        .map(|f| f.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ");
                    let mut reason = format!(
                        "{pointer}: {text:?} resolves to {}, which is outside the open workspace folders ({open})",
                        resolved.display()
                    );
                    if let (true, Some(cwd)) = (relative, self.cwd) {
                        reason.push_str(&format!(
                            " (the server resolves relative paths against its working directory, {})",
                            cwd.display()
                        ));
                    }
                    return Some(violation(Some(resolved), reason));
                }
            }
        }
        None
    }
}
