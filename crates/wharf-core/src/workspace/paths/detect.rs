//! Which parameters of a tool's `inputSchema` take a filesystem path.
//!
//! Detection is a heuristic on what servers actually publish (zod- and pydantic-generated schemas rarely say
//! "this is a path" explicitly), tuned so that a false positive costs little: a value that is not really a path
//! (a bare word, a relative name) resolves inside the first folder and passes. What it must not do is let an
//! absolute path or a `..` escape through a parameter that is plainly a path, so the name rules are broad and the
//! exclusions narrow (URL paths, JSON paths, encoded file contents, explicit non-path formats).

mod wording;

use serde_json::Value;

use super::{PathKind, PathParam, Segment};
use wording::{
    kind_of_words, name_kind, singular, text_is_not_fs, text_kind, words, NON_FS_WORDS, PATH_WORDS,
};

/// Nesting deeper than this is not searched: it bounds `$ref` cycles and pathological schemas.
const MAX_DEPTH: usize = 16;

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
