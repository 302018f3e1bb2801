//! Paths as tool arguments, one of the alternatives to roots (SEP-2577): the tool parameters that take a filesystem
//! path are found from the tool's `inputSchema`, the app offers the workspace folders for them, and every path
//! argument Wharf sends on the user's behalf is resolved (`..`, `~`, symlinks, `file://` URIs) and checked to lie
//! inside an open workspace folder.
//!
//! Which parameters are paths is decided in `detect`, where a value leads in `resolve`; the check joining the two
//! lives here.

mod detect;
mod resolve;

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};

pub use detect::path_params;
pub use resolve::resolve_path;
use resolve::{interpret, Interpreted};

/// What a path parameter points at, for the app's picker: a file, a directory, or either.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum PathKind {
    File,
    Directory,
    Any,
}

/// A parameter of a tool's inputSchema that takes a filesystem path (see [`path_params`] for how it is found).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PathParam {
    /// Where the parameter is in the arguments: property names joined with `.`, `[]` after an array's name for each
    /// of its items: `path`, `options.root`, `paths[]`, `files[].path`.
    pub pointer: String,
    pub kind: PathKind,
    /// The parameter's value is an array of paths (the pointer ends in `[]`).
    pub is_array: bool,
    /// The parameter takes a URI (`format: "uri"` with a file hint): only its `file:` values are local paths, an
    /// `https:` one is none of the workspace's business.
    pub uri: bool,
    /// The pointer as property names, kept apart so that a name holding `.` or `[]` is still found in the arguments.
    #[serde(skip)]
    #[ts(skip)]
    segments: Vec<Segment>,
}

/// One path argument that may not be sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PathViolation {
    /// The argument, with array indices: `paths[2]`, `files[0].path`.
    pub pointer: String,
    /// The value as it was given.
    pub value: String,
    /// Where it leads once `..`, `~`, `file://` and symlinks are resolved (absent when it cannot be resolved).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub resolved: Option<PathBuf>,
    /// A sentence for the user.
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Segment {
    name: String,
    /// The property is an array: the rest of the pointer applies to each item.
    each: bool,
}

/// Checks every path argument in `args` (per [`path_params`]) against the open `folders` (canonical, the first one
/// being the base of relative paths), and returns each offending argument with a clear reason. A value is resolved
/// the way the server's filesystem would: `file://` URIs decoded, `~` as the home directory, relative to the first
/// folder, `..` and symlinks resolved component by component, so that a path that does not exist yet (a file to
/// write) resolves through its existing parent, and a symlink inside a folder that points outside is refused. No
/// folder open: every path argument is refused.
pub fn check_path_args(
    input_schema: &Value,
    args: &Map<String, Value>,
    folders: &[PathBuf],
) -> Vec<PathViolation> {
    check_path_params(&path_params(input_schema), args, folders)
}

/// [`check_path_args`] with the path parameters already found: finding them is most of the work for a tool whose
/// arguments are no paths, and a tool's schema stays the same from call to call.
pub fn check_path_params(
    params: &[PathParam],
    args: &Map<String, Value>,
    folders: &[PathBuf],
) -> Vec<PathViolation> {
    if params.is_empty() {
        return Vec::new();
    }
    // The caller passes canonical folders; canonicalizing again costs one call per folder and keeps a folder given
    // through a symlink from refusing every path inside it.
    let folders: Vec<PathBuf> = folders
        .iter()
        .map(|f| f.canonicalize().unwrap_or_else(|_| f.clone()))
        .collect();
    let mut out = Vec::new();
    for param in params {
        let mut values = Vec::new();
        collect_values(args, &param.segments, String::new(), &mut values);
        for (pointer, value) in values {
            if let Some(v) = check_value(param, pointer, value, &folders) {
                out.push(v);
            }
        }
    }
    out
}

/// Finds the values at `segments` in `args`, each with its concrete pointer (array indices filled in).
fn collect_values<'a>(
    args: &'a Map<String, Value>,
    segments: &[Segment],
    prefix: String,
    out: &mut Vec<(String, &'a Value)>,
) {
    let Some((segment, rest)) = segments.split_first() else {
        return;
    };
    let Some(value) = args.get(&segment.name) else {
        return;
    };
    let here = if prefix.is_empty() {
        segment.name.clone()
    } else {
        format!("{prefix}.{}", segment.name)
    };
    // A single value where the schema says array is checked too: servers often accept either.
    let items: Vec<(String, &Value)> = match value {
        Value::Array(items) if segment.each => items
            .iter()
            .enumerate()
            .map(|(i, item)| (format!("{here}[{i}]"), item))
            .collect(),
        other => vec![(here, other)],
    };
    for (pointer, item) in items {
        if rest.is_empty() {
            out.push((pointer, item));
        } else if let Value::Object(map) = item {
            collect_values(map, rest, pointer, out);
        }
    }
}

fn check_value(
    param: &PathParam,
    pointer: String,
    value: &Value,
    folders: &[PathBuf],
) -> Option<PathViolation> {
    // Non-strings (a null for an absent optional, a number) are not paths; the server validates its own types.
    let Value::String(text) = value else {
        return None;
    };
    let violation = |resolved: Option<PathBuf>, reason: String| PathViolation {
        pointer: pointer.clone(),
        value: text.clone(),
        resolved,
        reason,
    };
    let path = match interpret(text, param.uri) {
        Interpreted::NotLocal => return None,
        Interpreted::Invalid(reason) => {
            return Some(violation(None, format!("{pointer}: {reason}")))
        }
        Interpreted::Path(path) => path,
    };
    let Some(base) = folders.first() else {
        return Some(violation(
            None,
            format!("{pointer}: no workspace folder is open, so no path can be sent (open a folder first)"),
        ));
    };
    let absolute = if path.is_absolute() {
        path
    } else {
        base.join(path)
    };
    match resolve_path(&absolute) {
        Err(e) => Some(violation(
            None,
            format!("{pointer}: {text:?} cannot be resolved ({e}), so it cannot be checked against the workspace"),
        )),
        // Path::starts_with compares whole components: /w/ab is not inside /w/a.
        Ok(resolved) if folders.iter().any(|f| resolved.starts_with(f)) => None,
        Ok(resolved) => {
            let open = folders
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", ");
            let reason = format!(
                "{pointer}: {text:?} resolves to {}, which is outside the open workspace folders ({open})",
                resolved.display()
            );
            Some(violation(Some(resolved), reason))
        }
    }
}

#[cfg(test)]
mod tests;
