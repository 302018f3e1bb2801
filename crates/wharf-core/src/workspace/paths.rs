//! Paths as tool arguments, one of the alternatives to roots (SEP-2577): the tool parameters that take a filesystem
//! path are found from the tool's `inputSchema`, the app offers the workspace folders for them, and every path
//! argument Wharf sends on the user's behalf is resolved (`..`, `~`, symlinks, `file://` URIs) and checked to lie
//! inside an open workspace folder.
//!
//! Detection is a heuristic on what servers actually publish (zod- and pydantic-generated schemas rarely say
//! "this is a path" explicitly), tuned so that a false positive costs little: a value that is not really a path
//! (a bare word, a relative name) resolves inside the first folder and passes. What it must not do is let an
//! absolute path or a `..` escape through a parameter that is plainly a path, so the name rules are broad and the
//! exclusions narrow (URL paths, JSON paths, encoded file contents, explicit non-path formats).

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

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

/// Nesting deeper than this is not searched: it bounds `$ref` cycles and pathological schemas.
const MAX_DEPTH: usize = 16;
/// Symlinks followed while resolving one path before giving up, as the kernel's ELOOP limit does.
const MAX_LINKS: usize = 40;

/// The parameters of `input_schema` that take a filesystem path, in schema order. A parameter is one when, in order
/// of precedence:
/// 1. a hint key says so: `x-path`, `x-mcp-path`, `x-file`, `x-directory`, `x-folder` set truthy (`true`, a kind
///    such as `"directory"`); set falsy, it says the parameter is *not* a path, whatever else suggests it;
/// 2. its `format` is a path format: `path`, `file-path`, `filepath`, `file`, `directory`, `dir`, `folder`,
///    `directory-path`...; `uri`/`uri-reference`/`iri` count only with a file hint (a path-like name, or a
///    description mentioning files or `file://`); any other known format (`date`, `email`, `uuid`...) rules it out,
///    and so does `contentEncoding`/`contentMediaType` (the value is a file's content, not its path);
/// 3. its name, split into words (`snake_case`, `camelCase`, `kebab-case`): ends in path, file, filename,
///    pathname, dir, directory, folder, root, cwd, workdir (plural for arrays: paths, files, dirs...), unless a word
///    marks a non-filesystem path (url, http, api, route, endpoint, json, jq, xml, xpath, css, selector, s3, bucket,
///    remote, web, registry, property, field); `source`/`src` and `destination`/`dest`/`dst` count as a pair;
/// 4. its description (or title) starts with a path noun ("Path to...", "The directory in which...", "Array of file
///    paths to read", "Files to read") or holds a path phrase ("path to the", "file path", "absolute path",
///    "relative path"...), unless it speaks of a JSON path, an XPath, a URL path, an endpoint or a route.
///
/// Strings are searched, arrays of strings (`paths[]`), objects (`options.root`), arrays of objects
/// (`files[].path`), through `anyOf`/`oneOf`/`allOf` and local `$ref`s.
pub fn path_params(input_schema: &Value) -> Vec<PathParam> {
    let mut out = Vec::new();
    walk_object(input_schema, input_schema, &[], &mut out, 0);
    out
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
    let params = path_params(input_schema);
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
    for param in &params {
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

// ---- checking ----

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

enum Interpreted {
    Path(PathBuf),
    /// A URI of another scheme given to a URI parameter: not a local path.
    NotLocal,
    Invalid(String),
}

fn interpret(text: &str, uri_param: bool) -> Interpreted {
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

// ---- detection ----

fn walk_object(
    root: &Value,
    schema: &Value,
    prefix: &[Segment],
    out: &mut Vec<PathParam>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    for variant in variants(root, schema) {
        let Some(Value::Object(props)) = variant.get("properties") else {
            continue;
        };
        let siblings: Vec<&str> = props.keys().map(String::as_str).collect();
        for (name, prop) in props {
            visit_property(root, name, prop, &siblings, prefix, out, depth);
        }
    }
}

fn visit_property(
    root: &Value,
    name: &str,
    prop: &Value,
    siblings: &[&str],
    prefix: &[Segment],
    out: &mut Vec<PathParam>,
    depth: usize,
) {
    let facets = Facets::of(root, prop);
    let mut here = prefix.to_vec();
    here.push(Segment {
        name: name.to_string(),
        each: false,
    });
    if facets.string {
        if let Some((kind, uri)) = classify(name, &facets, siblings) {
            push_param(out, here.clone(), kind, false, uri);
        }
    }
    for object in &facets.objects {
        walk_object(root, object, &here, out, depth + 1);
    }
    if !facets.items.is_empty() {
        let mut each = prefix.to_vec();
        each.push(Segment {
            name: name.to_string(),
            each: true,
        });
        for items in &facets.items {
            let mut item = Facets::of(root, items);
            // The array's own description, format and hints speak for its items ("Array of file paths to read").
            item.inherit(&facets);
            if item.string {
                if let Some((kind, uri)) = classify(name, &item, siblings) {
                    push_param(out, each.clone(), kind, true, uri);
                }
            }
            for object in &item.objects {
                walk_object(root, object, &each, out, depth + 1);
            }
        }
    }
}

fn push_param(
    out: &mut Vec<PathParam>,
    segments: Vec<Segment>,
    kind: PathKind,
    is_array: bool,
    uri: bool,
) {
    let pointer = segments
        .iter()
        .map(|s| {
            if s.each {
                format!("{}[]", s.name)
            } else {
                s.name.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(".");
    // anyOf variants may describe the same property twice: keep the first.
    if out.iter().any(|p| p.pointer == pointer) {
        return;
    }
    out.push(PathParam {
        pointer,
        kind,
        is_array,
        uri,
        segments,
    });
}

/// Follows a local `$ref` (`#/$defs/...`, `#/definitions/...`); anything else is returned as it is.
fn deref<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..MAX_DEPTH {
        let Some(target) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|pointer| root.pointer(pointer))
        else {
            break;
        };
        schema = target;
    }
    schema
}

/// The schema and its `anyOf`/`oneOf`/`allOf` alternatives (one level: pydantic's `Optional[str]` is
/// `anyOf: [{type: string}, {type: null}]`).
fn variants<'a>(root: &'a Value, schema: &'a Value) -> Vec<&'a Value> {
    let schema = deref(root, schema);
    let mut all = vec![schema];
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(items)) = schema.get(key) {
            all.extend(items.iter().map(|s| deref(root, s)));
        }
    }
    all
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hint {
    Off,
    On(PathKind),
}

/// What a property's schema (with its alternatives) says about it.
#[derive(Default)]
struct Facets<'a> {
    string: bool,
    format: Option<String>,
    /// Description and title, lowercased.
    text: String,
    hint: Option<Hint>,
    /// `contentEncoding`/`contentMediaType`: the string is a file's content, not its path.
    content: bool,
    items: Vec<&'a Value>,
    objects: Vec<&'a Value>,
}

impl<'a> Facets<'a> {
    fn of(root: &'a Value, schema: &'a Value) -> Facets<'a> {
        let mut f = Facets::default();
        for s in variants(root, schema) {
            let types: Vec<&str> = match s.get("type") {
                Some(Value::String(t)) => vec![t.as_str()],
                Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            if types.contains(&"string") {
                f.string = true;
            }
            if types.contains(&"array") || (types.is_empty() && s.get("items").is_some()) {
                if let Some(items) = s.get("items").filter(|i| i.is_object()) {
                    f.items.push(items);
                }
            }
            // Properties count on an object schema, or an untyped one (many generators leave `type` out).
            if s.get("properties").is_some() && (types.is_empty() || types.contains(&"object")) {
                f.objects.push(s);
            }
            if f.format.is_none() {
                f.format = s
                    .get("format")
                    .and_then(Value::as_str)
                    .map(str::to_ascii_lowercase);
            }
            for key in ["description", "title"] {
                if let Some(t) = s.get(key).and_then(Value::as_str) {
                    if !f.text.is_empty() {
                        f.text.push_str(". ");
                    }
                    f.text.push_str(&t.to_lowercase());
                }
            }
            if f.hint.is_none() {
                f.hint = hint(s);
            }
            f.content |= s.get("contentEncoding").is_some() || s.get("contentMediaType").is_some();
        }
        // An untyped schema carrying a path hint or format is taken for a string: the hint is explicit.
        if !f.string
            && f.items.is_empty()
            && f.objects.is_empty()
            && (matches!(f.hint, Some(Hint::On(_)))
                || f.format.as_deref().is_some_and(is_path_format))
        {
            f.string = schema_is_untyped(root, schema);
        }
        f
    }

    fn inherit(&mut self, array: &Facets<'_>) {
        if self.format.is_none() {
            self.format = array.format.clone();
        }
        if self.hint.is_none() {
            self.hint = array.hint;
        }
        if !array.text.is_empty() {
            if !self.text.is_empty() {
                self.text.push_str(". ");
            }
            self.text.push_str(&array.text);
        }
    }
}

fn schema_is_untyped(root: &Value, schema: &Value) -> bool {
    variants(root, schema)
        .iter()
        .all(|s| s.get("type").is_none())
}

const HINT_KEYS: &[(&str, PathKind)] = &[
    ("x-path", PathKind::Any),
    ("x-mcp-path", PathKind::Any),
    ("x-file", PathKind::File),
    ("x-directory", PathKind::Directory),
    ("x-folder", PathKind::Directory),
];

fn hint(schema: &Value) -> Option<Hint> {
    HINT_KEYS.iter().find_map(|(key, default)| {
        let value = schema.get(*key)?;
        // A kind may be given as the value ("x-path": "directory") or as {"kind": "directory"}.
        let named = |s: &str| match s.to_ascii_lowercase().as_str() {
            "" | "false" | "no" | "0" | "off" => Hint::Off,
            "file" => Hint::On(PathKind::File),
            "dir" | "directory" | "folder" => Hint::On(PathKind::Directory),
            _ => Hint::On(*default),
        };
        Some(match value {
            Value::Bool(true) => Hint::On(*default),
            Value::Bool(false) | Value::Null => Hint::Off,
            Value::Number(n) => {
                if n.as_f64() == Some(0.0) {
                    Hint::Off
                } else {
                    Hint::On(*default)
                }
            }
            Value::String(s) => named(s),
            Value::Object(o) => match o
                .get("kind")
                .or_else(|| o.get("type"))
                .and_then(Value::as_str)
            {
                Some(s) => named(s),
                None => Hint::On(*default),
            },
            Value::Array(_) => Hint::On(*default),
        })
    })
}

const URI_FORMATS: &[&str] = &["uri", "uri-reference", "iri", "iri-reference"];

/// Formats that say the string is something else than a path.
const NON_PATH_FORMATS: &[&str] = &[
    "date",
    "date-time",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uuid",
    "regex",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "byte",
    "binary",
    "password",
];

fn is_path_format(format: &str) -> bool {
    format_kind(format).is_some()
}

fn format_kind(format: &str) -> Option<PathKind> {
    match format {
        "path" | "filesystem-path" | "fs-path" | "local-path" => Some(PathKind::Any),
        "file" | "file-path" | "filepath" | "file-name" | "filename" => Some(PathKind::File),
        "directory" | "directory-path" | "dir" | "dir-path" | "dirpath" | "folder"
        | "folder-path" => Some(PathKind::Directory),
        _ => None,
    }
}

/// Whether the property is a path and of what kind, and whether it takes URIs.
fn classify(name: &str, f: &Facets<'_>, siblings: &[&str]) -> Option<(PathKind, bool)> {
    let uri = f
        .format
        .as_deref()
        .is_some_and(|fmt| URI_FORMATS.contains(&fmt));
    match f.hint {
        Some(Hint::Off) => return None,
        Some(Hint::On(kind)) => return Some((kind, uri)),
        None => {}
    }
    if f.content {
        return None;
    }
    if let Some(kind) = f.format.as_deref().and_then(format_kind) {
        return Some((kind, false));
    }
    if f.format
        .as_deref()
        .is_some_and(|fmt| NON_PATH_FORMATS.contains(&fmt))
    {
        return None;
    }
    let words = words(name);
    let by_name = name_kind(&words, siblings);
    let by_text = text_kind(&f.text);
    if uri {
        // A URI is a path only when something points at files: an `https:` link parameter is not one. Checked
        // before the non-filesystem words, which a `fileUrl` has.
        let file_hint = by_name.is_some()
            || by_text.is_some()
            || words
                .iter()
                .any(|w| PATH_WORDS.contains(&singular(w).as_str()))
            || ["file://", "file uri", "file url", "local file"]
                .iter()
                .any(|p| f.text.contains(p));
        return file_hint.then(|| {
            (
                by_name.or(by_text).unwrap_or_else(|| kind_of_words(&words)),
                true,
            )
        });
    }
    if words.iter().any(|w| NON_FS_WORDS.contains(&w.as_str())) || text_is_not_fs(&f.text) {
        return None;
    }
    // The name decides; a description refines a name that says only "path" ("paths": "Array of file paths").
    let kind = match (by_name, by_text) {
        (Some(PathKind::Any), Some(text)) => Some(text),
        (name, text) => name.or(text),
    };
    kind.map(|kind| (kind, false))
}

/// Words that make a "path" something else than a filesystem path: `urlPath`, `api_path`, `jsonPath`...
const NON_FS_WORDS: &[&str] = &[
    "url", "urls", "http", "https", "api", "route", "endpoint", "json", "jq", "xml", "xpath",
    "css", "selector", "s3", "bucket", "remote", "registry", "property", "field",
];

/// Words that name a filesystem location.
const PATH_WORDS: &[&str] = &[
    "path",
    "file",
    "dir",
    "directory",
    "folder",
    "root",
    "cwd",
    "workdir",
    "filename",
];

/// The words of a parameter name, lowercased: `file_path`, `filePath`, `FilePath`, `file-path` and `XMLFilePath`
/// all split at the same places.
fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1);
        let boundary = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_uppercase() && next.is_some_and(|n| n.is_lowercase()))
            });
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// paths -> path, directories -> directory; short words and `-ss` endings are left alone.
fn singular(word: &str) -> String {
    if let Some(stem) = word.strip_suffix("ies") {
        format!("{stem}y")
    } else if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") {
        word[..word.len() - 1].to_string()
    } else {
        word.to_string()
    }
}

fn kind_of_words(words: &[String]) -> PathKind {
    let dir = words.iter().any(|w| {
        matches!(
            singular(w).as_str(),
            "dir" | "directory" | "folder" | "cwd" | "workdir" | "root" | "dirname"
        )
    });
    let file = words
        .iter()
        .any(|w| matches!(singular(w).as_str(), "file" | "filename" | "filepath"));
    match (dir, file) {
        (true, false) => PathKind::Directory,
        (false, true) => PathKind::File,
        _ => PathKind::Any,
    }
}

fn name_kind(words: &[String], siblings: &[&str]) -> Option<PathKind> {
    // An array's name is plural ("paths", "directories"); a string's may be too, loosely written.
    let last = singular(words.last()?);
    let last_two = match words {
        [.., a, b] => format!("{a}{}", singular(b)),
        _ => last.clone(),
    };
    match last.as_str() {
        "path" | "pathname" | "filepath" | "dirpath" | "folderpath" => Some(kind_of_words(words)),
        "file" | "filename" => Some(PathKind::File),
        "dir" | "directory" | "folder" | "cwd" | "workdir" | "root" | "dirname" => {
            Some(PathKind::Directory)
        }
        "name" if matches!(last_two.as_str(), "filename" | "pathname") => Some(PathKind::File),
        "name"
            if matches!(
                last_two.as_str(),
                "dirname" | "directoryname" | "foldername"
            ) =>
        {
            Some(PathKind::Directory)
        }
        // source/destination only as a pair (move_file, copy_file): alone, "source" may be code or a language.
        "source" | "src"
            if words.len() == 1 && has_sibling(siblings, &["destination", "dest", "dst"]) =>
        {
            Some(PathKind::Any)
        }
        "destination" | "dest" | "dst"
            if words.len() == 1 && has_sibling(siblings, &["source", "src"]) =>
        {
            Some(PathKind::Any)
        }
        _ => None,
    }
}

fn has_sibling(siblings: &[&str], names: &[&str]) -> bool {
    siblings
        .iter()
        .any(|s| names.iter().any(|n| s.eq_ignore_ascii_case(n)))
}

/// Descriptions that name a path of something other than the filesystem.
fn text_is_not_fs(text: &str) -> bool {
    [
        "jsonpath",
        "json path",
        "json pointer",
        "xpath",
        "css selector",
        "url path",
        "http path",
        "api path",
        "endpoint",
        "route",
    ]
    .iter()
    .any(|p| text.contains(p))
}

/// Phrases that, anywhere in a description, say the value is a path.
const PATH_PHRASES: &[&str] = &[
    "path to the",
    "path to a",
    "path to an",
    "path to file",
    "path to directory",
    "path to folder",
    "path of the",
    "file path",
    "file paths",
    "directory path",
    "folder path",
    "absolute path",
    "relative path",
    "filesystem path",
    "file system path",
    "local path",
    "path on disk",
];

/// Words skipped before the head noun of a description: "The absolute path", "Array of file paths".
const LEADING: &[&str] = &[
    "the",
    "a",
    "an",
    "array",
    "list",
    "of",
    "one",
    "or",
    "more",
    "absolute",
    "relative",
    "full",
    "local",
    "optional",
    "working",
    "target",
    "output",
    "input",
    "source",
    "destination",
    "base",
    "root",
    "project",
    "parent",
    "starting",
    "start",
    "existing",
    "new",
];

/// Words that may follow the head noun: it is the head, not a modifier ("File to read", not "File content").
const FOLLOWING: &[&str] = &[
    "to",
    "of",
    "in",
    "into",
    "where",
    "which",
    "that",
    "for",
    "from",
    "containing",
    "with",
    "whose",
    "on",
    "under",
    "at",
    "or",
    "and",
    "name",
    "names",
    "uri",
    "uris",
    "path",
    "paths",
    "is",
    "must",
    "should",
    "relative",
    "within",
    "inside",
    "as",
];

fn text_kind(text: &str) -> Option<PathKind> {
    if text.is_empty() {
        return None;
    }
    for sentence in text.split(". ") {
        if let Some(kind) = head_noun_kind(sentence) {
            return Some(kind);
        }
    }
    let at = PATH_PHRASES.iter().filter_map(|p| text.find(p)).min()?;
    let phrase: Vec<String> = text[at..]
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(5)
        .map(str::to_string)
        .collect();
    Some(kind_of_words(&phrase))
}

/// The kind named by the noun a sentence starts with ("Path to the file", "Directory in which to run"), if it is a
/// path noun used as the head of the phrase.
fn head_noun_kind(sentence: &str) -> Option<PathKind> {
    let tokens: Vec<&str> = sentence
        .split(|c: char| c.is_whitespace() || c == '/')
        .filter(|w| !w.is_empty())
        .collect();
    let mut i = 0;
    while tokens
        .get(i)
        .is_some_and(|t| LEADING.contains(&t.trim_matches(|c: char| !c.is_alphanumeric())))
    {
        i += 1;
    }
    let mut nouns = Vec::new();
    while let Some(token) = tokens.get(i) {
        let word = token.trim_matches(|c: char| !c.is_alphanumeric());
        let noun = singular(word);
        if !PATH_WORDS.contains(&noun.as_str()) && noun != "filepath" {
            break;
        }
        nouns.push(noun);
        i += 1;
        // Punctuation right after a noun ends the phrase: "Directory, relative to the root".
        if word.len() != token.len() {
            return Some(kind_of_words(&nouns));
        }
    }
    if nouns.is_empty() {
        return None;
    }
    let is_head = match tokens.get(i) {
        None => true,
        Some(next) => {
            next.starts_with('(')
                || FOLLOWING.contains(&next.trim_matches(|c: char| !c.is_alphanumeric()))
        }
    };
    if !is_head {
        return None;
    }
    // "Path to the file": a bare "path" takes its kind from what it leads to.
    let mut kind = kind_of_words(&nouns);
    if kind == PathKind::Any {
        let after: Vec<String> = tokens[i..]
            .iter()
            .take(3)
            .map(|t| t.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
            .collect();
        kind = kind_of_words(&after);
    }
    Some(kind)
}

#[cfg(test)]
mod tests;
