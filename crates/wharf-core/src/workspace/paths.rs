//! Paths as tool arguments, one of the alternatives to roots (SEP-2577): the tool parameters that take a filesystem
//! path are found from the tool's `inputSchema`, the app offers the workspace folders for them, and every path
//! argument Wharf sends on the user's behalf is resolved (`..`, `~`, symlinks, `file:` URIs) and checked to lie
//! inside an open workspace folder.
//!
//! Which parameters are paths is decided in `detect`, where a value leads in `resolve`, and `check` joins the two.
//! What the schema walk cannot follow (a remote `$ref`, nesting past its depth) is kept as such, so that the check
//! fails closed for those arguments instead of letting them through unread.

mod check;
mod detect;
mod resolve;

use std::path::PathBuf;

use serde::Serialize;

pub use check::{check_path_args, check_schema_paths};
pub use detect::{path_params, schema_paths};
pub use resolve::resolve_path;

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
    /// Where the parameter is in the arguments: property names joined with `.`, `[]` for each item of an array,
    /// `[i]` for one item of a tuple, `[i..]` for the items past a tuple's, `*` for any other property of an object:
    /// `path`, `options.root`, `paths[]`, `files[].path`, `pair[0]`, `mounts.*`.
    pub pointer: String,
    pub kind: PathKind,
    /// The parameter's value is an array of paths (the pointer ends in `[]` or `[i..]`).
    pub is_array: bool,
    /// The parameter takes a URI (`format: "uri"` with a file hint): only its `file:` values are local paths, an
    /// `https:` one is none of the workspace's business.
    pub uri: bool,
    /// The pointer as steps, kept apart so that a name holding `.` or `[]` is still found in the arguments.
    #[serde(skip)]
    #[ts(skip)]
    segments: Vec<Segment>,
}

/// A place in the arguments whose schema Wharf cannot follow (a `$ref` to another document, nesting deeper than
/// the walk goes): whatever it holds might be a path, so any text there is treated as a path outside the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfollowable {
    /// As [`PathParam::pointer`]; empty for the arguments as a whole.
    pub pointer: String,
    /// Why the schema cannot be followed there, for the user.
    pub reason: String,
    segments: Vec<Segment>,
}

/// What the path check needs from one tool's `inputSchema`, found once per schema by [`schema_paths`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchemaPaths {
    pub params: Vec<PathParam>,
    pub unfollowable: Vec<Unfollowable>,
}

impl SchemaPaths {
    /// No argument of the tool needs checking.
    pub fn is_empty(&self) -> bool {
        self.params.is_empty() && self.unfollowable.is_empty()
    }
}

/// Where path arguments are judged: the open workspace folders (canonical), and the directory the server resolves a
/// relative path against (its working directory; `None` when Wharf cannot know it, as for an HTTP server, and then
/// a relative path cannot be judged and is refused).
#[derive(Debug, Clone, Default)]
pub struct PathScope {
    pub folders: Vec<PathBuf>,
    pub server_cwd: Option<PathBuf>,
}

/// One path argument that may not be sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PathViolation {
    /// The argument, with array indices: `paths[2]`, `files[0].path`.
    pub pointer: String,
    /// The value as it was given (JSON text when it is not a string).
    pub value: String,
    /// Where it leads once `..`, `~`, `file:` and symlinks are resolved (absent when it cannot be resolved).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub resolved: Option<PathBuf>,
    /// A sentence for the user.
    pub reason: String,
}

impl PathViolation {
    /// The reason without the argument's name in front, for a place that already shows which argument it is.
    pub fn explanation(&self) -> &str {
        self.reason
            .strip_prefix(self.pointer.as_str())
            .and_then(|rest| rest.strip_prefix(": "))
            .unwrap_or(&self.reason)
    }
}

/// One step from a value to what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// The named property of an object.
    Key(String),
    /// Every property of an object except the named ones (`additionalProperties`; `patternProperties`, whose
    /// patterns are not matched: every property is checked against them, which can only check more).
    OtherKeys(Vec<String>),
    /// Every item of an array.
    Each,
    /// One item of a tuple (`prefixItems`, `items: [...]`).
    Item(usize),
    /// The items of a tuple past its listed ones.
    ItemsFrom(usize),
}

/// The schema pointer of `segments`: `files[].path`, `pair[0]`, `env.*`.
fn pointer_of(segments: &[Segment]) -> String {
    let mut out = String::new();
    for segment in segments {
        match segment {
            Segment::Key(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            Segment::OtherKeys(_) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push('*');
            }
            Segment::Each => out.push_str("[]"),
            Segment::Item(i) => out.push_str(&format!("[{i}]")),
            Segment::ItemsFrom(i) => out.push_str(&format!("[{i}..]")),
        }
    }
    out
}

#[cfg(test)]
mod tests;
