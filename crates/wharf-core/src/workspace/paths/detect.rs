//! Which parameters of a tool's `inputSchema` take a filesystem path.
//!
//! Detection is a heuristic on what servers actually publish (zod- and pydantic-generated schemas rarely say
//! "this is a path" explicitly), tuned so that a false positive costs little: a value that is not really a path
//! (a bare word, a relative name) resolves inside the first folder and passes. What it must not do is let an
//! absolute path or a `..` escape through a parameter that is plainly a path, so the name rules are broad and the
//! exclusions narrow (URL paths, JSON paths, encoded file contents, explicit non-path formats).
//!
//! The walk follows what generators emit (`anyOf`/`oneOf`/`allOf` nested in each other, local `$ref`s, maps,
//! tuples) and keeps what it cannot follow (a `$ref` to another document, nesting past its depth, a schema too
//! large) as unfollowable, so the check fails closed there.

mod facets;
mod wording;

use std::collections::HashSet;

use serde_json::Value;

use super::{pointer_of, PathKind, PathParam, SchemaPaths, Segment, Unfollowable};
use facets::{Facets, Hint};
use wording::{
    kind_of_words, name_kind, singular, text_is_not_fs, text_kind, words, NON_FS_WORDS, PATH_WORDS,
};

/// Nesting deeper than this (objects, arrays, alternatives) is not followed: the arguments below are unfollowable.
/// It bounds recursive schemas and pathological ones.
const MAX_DEPTH: usize = 16;
/// Properties and items visited in one schema; past this the rest is unfollowable (a recursive schema with two
/// recursive branches doubles at each level).
const MAX_VISITS: usize = 4096;

/// The parameters of `input_schema` that take a filesystem path, in schema order (see [`schema_paths`]).
pub fn path_params(input_schema: &Value) -> Vec<PathParam> {
    schema_paths(input_schema).params
}

/// The parameters of `input_schema` that take a filesystem path, in schema order, and the places whose schema cannot
/// be followed. A parameter is a path when, in order of precedence:
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
/// A parameter may be a string or untyped (no `type`: anything, so possibly a path). Searched: objects
/// (`options.root`), the values of a map (`additionalProperties`, `patternProperties`: `mounts.*`, judged by the
/// map's name and description), arrays (`paths[]`, `files[].path`, arrays of arrays), tuples (`prefixItems`,
/// `items: [...]`: `pair[0]`), through `anyOf`/`oneOf`/`allOf`/`then`/`else` at any nesting and local `$ref`s
/// (`#/$defs/...`, `#/definitions/...`, `#`). A `$ref` to another document, one that leads nowhere, and anything
/// nested deeper than the walk follows are unfollowable.
pub fn schema_paths(input_schema: &Value) -> SchemaPaths {
    let mut walker = Walker {
        root: input_schema,
        out: SchemaPaths::default(),
        pointers: HashSet::new(),
        visits: 0,
    };
    let facets = Facets::of(input_schema, input_schema);
    if let Some(reason) = &facets.unfollowable {
        walker.unfollowable(&[], reason.clone());
        return walker.out;
    }
    for object in &facets.objects {
        walker.walk_object(object, None, &[], 0);
    }
    walker.out
}

struct Walker<'a> {
    root: &'a Value,
    out: SchemaPaths,
    /// The pointers already in `out`: alternatives may describe the same property twice, the first one is kept.
    pointers: HashSet<String>,
    visits: usize,
}

impl<'a> Walker<'a> {
    /// The properties of an object schema below `prefix`. `map`: the name and facets of the property holding the
    /// object, which speak for the values of its `additionalProperties` ("Map of alias to file path").
    fn walk_object(
        &mut self,
        object: &'a Value,
        map: Option<(&str, &Facets<'a>)>,
        prefix: &[Segment],
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            self.unfollowable(
                prefix,
                format!("it is nested deeper than {MAX_DEPTH} levels"),
            );
            return;
        }
        let props = match object.get("properties") {
            None => None,
            Some(Value::Object(props)) => Some(props),
            Some(_) => {
                self.unfollowable(prefix, "its properties are not an object".to_string());
                return;
            }
        };
        let names: Vec<String> = props
            .into_iter()
            .flatten()
            .map(|(k, _)| k.clone())
            .collect();
        if let Some(props) = props {
            let siblings: Vec<&str> = names.iter().map(String::as_str).collect();
            for (name, prop) in props {
                let facets = Facets::of(self.root, prop);
                let here = with(prefix, Segment::Key(name.clone()));
                self.visit(name, facets, &siblings, &here, depth);
            }
        }
        let additional = object
            .get("additionalProperties")
            .filter(|s| !matches!(s, Value::Bool(false)))
            .map(|s| (s, Segment::OtherKeys(names.clone())));
        let patterns = object
            .get("patternProperties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(_, s)| (s, Segment::OtherKeys(Vec::new())));
        for (schema, segment) in additional.into_iter().chain(patterns) {
            let mut facets = Facets::of(self.root, schema);
            let name = match map {
                Some((name, outer)) => {
                    facets.inherit(outer);
                    name
                }
                None => "",
            };
            self.visit(name, facets, &[], &with(prefix, segment), depth);
        }
    }

    /// One value's schema at `here`, named `name` (the property's, or the array's or map's it belongs to).
    fn visit(
        &mut self,
        name: &str,
        facets: Facets<'a>,
        siblings: &[&str],
        here: &[Segment],
        depth: usize,
    ) {
        self.visits += 1;
        if self.visits > MAX_VISITS {
            self.unfollowable(
                here,
                format!("the schema has more than {MAX_VISITS} properties and items to follow"),
            );
            return;
        }
        if let Some(reason) = &facets.unfollowable {
            self.unfollowable(here, reason.clone());
            return;
        }
        if facets.may_be_string() {
            if let Some((kind, uri)) = classify(name, &facets, siblings) {
                self.param(here, kind, uri);
            }
        }
        for object in &facets.objects {
            self.walk_object(object, Some((name, &facets)), here, depth + 1);
        }
        for (segment, items) in &facets.items {
            if depth + 1 > MAX_DEPTH {
                self.unfollowable(here, format!("it is nested deeper than {MAX_DEPTH} levels"));
                return;
            }
            let mut item = Facets::of(self.root, items);
            // The array's own description, format and hints speak for its items ("Array of file paths to read").
            item.inherit(&facets);
            self.visit(
                name,
                item,
                siblings,
                &with(here, segment.clone()),
                depth + 1,
            );
        }
    }

    fn param(&mut self, segments: &[Segment], kind: PathKind, uri: bool) {
        let pointer = pointer_of(segments);
        if !self.pointers.insert(pointer.clone()) {
            return;
        }
        self.out.params.push(PathParam {
            pointer,
            kind,
            is_array: matches!(segments.last(), Some(Segment::Each | Segment::ItemsFrom(_))),
            uri,
            segments: segments.to_vec(),
        });
    }

    fn unfollowable(&mut self, segments: &[Segment], reason: String) {
        let pointer = pointer_of(segments);
        if !self.pointers.insert(format!("!{pointer}")) {
            return;
        }
        self.out.unfollowable.push(Unfollowable {
            pointer,
            reason,
            segments: segments.to_vec(),
        });
    }
}

fn with(prefix: &[Segment], segment: Segment) -> Vec<Segment> {
    let mut out = prefix.to_vec();
    out.push(segment);
    out
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
