//! Root URIs and the workspace path check. A canonical folder's `file://` URI parses back to exactly that folder,
//! whatever its name; a path argument passes the check only if it really lies inside a workspace folder, however
//! it is written (`..`, `.`, `~` and `~user`, symlinks out and in, `file:` URIs with escapes, any case and hosts,
//! whitespace and control characters around or inside), and wherever the schema hides the parameter (alternatives
//! nested in each other, `$ref`s, values nested in lists and objects).

use std::path::{Component, Path, PathBuf};

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use wharf_core::workspace::file_uri;
use wharf_core::workspace::paths::{check_path_args, PathScope};

/// A file name a user could give a folder: anything but `/` and NUL, and not `.` or `..`.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[^/\u{0}]{1,12}",
        "[a-z #%?&=+;,@!$'()~_.\\\\:*\\[\\]{}|<>\"`^\u{e9}\u{4e16}\u{1f600}\u{202e}\u{200b}\u{7f}\t\n-]{1,12}",
    ]
    .prop_filter("not . or ..", |n| n != "." && n != "..")
}

proptest! {
    #[test]
    fn a_folder_uri_parses_back_to_the_folder(names in prop::collection::vec(name(), 1..4)) {
        let path: PathBuf = std::iter::once("/".to_string()).chain(names).collect();
        prop_assume!(path.components().all(|c| matches!(c, Component::RootDir | Component::Normal(_))));
        let uri = file_uri(&path);
        let parsed = url::Url::parse(&uri);
        prop_assert!(parsed.is_ok(), "{:?} -> {:?} does not parse", path, uri);
        let back = parsed.unwrap().to_file_path();
        prop_assert_eq!(back, Ok(path.clone()), "{:?} -> {:?}", path, uri);
    }
}

/// ws/ (with a/ and a/f), outside/, and symlinks: ws/out -> outside, ws/in -> ws/a, ws/loop -> itself.
struct Tree {
    _dir: tempfile::TempDir,
    ws: PathBuf,
}

fn tree() -> Tree {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let ws = root.join("ws");
    std::fs::create_dir_all(ws.join("a")).unwrap();
    std::fs::write(ws.join("a/f"), "x").unwrap();
    std::fs::create_dir_all(root.join("outside")).unwrap();
    std::os::unix::fs::symlink(root.join("outside"), ws.join("out")).unwrap();
    std::os::unix::fs::symlink(ws.join("a"), ws.join("in")).unwrap();
    std::os::unix::fs::symlink(ws.join("loop"), ws.join("loop")).unwrap();
    Tree { _dir: dir, ws }
}

impl Tree {
    /// The folder open, the server working in it.
    fn scope(&self) -> PathScope {
        PathScope {
            folders: vec![self.ws.clone()],
            server_cwd: Some(self.ws.clone()),
        }
    }
}

fn segment() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "..", ".", "a", "f", "out", "in", "loop", "missing", "ws", "outside", "", "%2e%2e", "a%2Ff",
    ])
    .prop_map(str::to_string)
}

/// How the path is written: relative, absolute from the folder, a `file://` URI, or from `~`.
#[derive(Debug, Clone, Copy)]
enum Form {
    Relative,
    Absolute,
    Uri,
    Home,
}

fn written(form: Form, ws: &Path, segments: &[String]) -> String {
    let rest = segments.join("/");
    match form {
        Form::Relative => rest,
        Form::Absolute => format!("{}/{rest}", ws.display()),
        Form::Uri => format!("{}/{rest}", file_uri(ws)),
        Form::Home => format!("~/{rest}"),
    }
}

/// Where the written path leads on the filesystem, found independently of the checker: `realpath` of the whole
/// path when it exists. `None` when it does not (then only the absence of a panic is checked).
fn truth(form: Form, ws: &Path, segments: &[String]) -> Option<PathBuf> {
    let base = match form {
        Form::Home => return None,
        Form::Uri => {
            let uri = written(form, ws, segments);
            url::Url::parse(&uri).ok()?.to_file_path().ok()?
        }
        // As the text reads: relative to the folder, unless it starts with `/` (`//a` included).
        Form::Relative | Form::Absolute => ws.join(written(form, ws, segments)),
    };
    base.canonicalize().ok()
}

proptest! {
    #[test]
    fn a_path_passes_only_if_it_lies_inside_the_folder(
        segments in prop::collection::vec(segment(), 0..6),
        form in prop::sample::select(vec![Form::Relative, Form::Absolute, Form::Uri, Form::Home]),
        garbage in prop::option::weighted(0.1, any::<String>()),
    ) {
        let t = tree();
        let schema = json!({"type": "object", "properties": {
            "path": {"type": "string", "description": "a file path"},
            "uri": {"type": "string", "format": "uri", "description": "file URI of the file"},
        }});
        let real = if garbage.is_some() { None } else { truth(form, &t.ws, &segments) };
        let value = garbage.unwrap_or_else(|| written(form, &t.ws, &segments));
        let key = if matches!(form, Form::Uri) { "uri" } else { "path" };
        let mut args = Map::new();
        args.insert(key.to_string(), Value::String(value.clone()));
        let violations = check_path_args(&schema, &args, &t.scope());
        if let Some(real) = real {
            let inside = real.starts_with(&t.ws);
            prop_assert_eq!(
                violations.is_empty(),
                inside,
                "{:?} leads to {:?}: {:?}",
                value,
                real,
                violations
            );
        }
    }
}

/// Characters a URL parser strips around a URL (C0 controls and space), those it removes anywhere (tab, LF, CR),
/// and whitespace a server's `strip()` drops.
fn dressing() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            " ", "\t", "\n", "\r", "\u{0}", "\u{1}", "\u{b}", "\u{c}", "\u{1b}", "\u{1f}",
            "\u{a0}", "\u{3000}",
        ]),
        0..3,
    )
    .prop_map(|parts| parts.concat())
}

/// `text` with tabs, newlines or carriage returns slipped in at the given places.
fn slip(text: &str, at: &[(usize, &str)]) -> String {
    let mut chars: Vec<String> = text.chars().map(String::from).collect();
    for (i, c) in at {
        let i = i % (chars.len() + 1);
        chars.insert(i, c.to_string());
    }
    chars.concat()
}

/// A `file:` URI of the path as written, in the many spellings a URL parser accepts: any case of the scheme,
/// `localhost` or another host, one or two slashes, backslashes, and percent-escapes of any of its characters.
fn uri_spelling(
    path: &str,
    upper: Vec<bool>,
    host: Option<&str>,
    slashes: usize,
    escape: &[bool],
) -> String {
    let scheme: String = "file"
        .chars()
        .zip(upper.iter().chain(std::iter::repeat(&false)))
        .map(|(c, up)| if *up { c.to_ascii_uppercase() } else { c })
        .collect();
    let body: String = path
        .bytes()
        .zip(escape.iter().chain(std::iter::repeat(&false)))
        .map(|(b, esc)| {
            if *esc || !b.is_ascii() {
                format!("%{b:02X}")
            } else {
                (b as char).to_string()
            }
        })
        .collect();
    let body = body.trim_start_matches('/');
    match (host, slashes) {
        (Some(host), _) => format!("{scheme}://{host}/{body}"),
        (None, 0) => format!("{scheme}:/{body}"),
        (None, 1) => format!("{scheme}:///{body}"),
        (None, _) => format!("{scheme}:\\\\\\{}", body.replace('/', "\\")),
    }
}

/// Where a server may open `value`, each reading found independently of the checker: the value as a URL parser
/// reads it (when it is a `file:` URL on this machine), as a path, and trimmed as a path. `None` for a reading
/// whose target does not exist (it cannot be canonicalised here), or that leads elsewhere than a file.
fn server_readings(value: &str, ws: &Path) -> Vec<Option<PathBuf>> {
    let mut out = Vec::new();
    if let Ok(url) = url::Url::parse(value) {
        if url.scheme() == "file" {
            out.push(url.to_file_path().ok().and_then(|p| p.canonicalize().ok()));
        }
    }
    for text in [value, value.trim()] {
        if text.starts_with('~') || text.contains('\u{0}') {
            continue;
        }
        out.push(ws.join(text).canonicalize().ok());
    }
    out
}

proptest! {
    #[test]
    fn a_dressed_path_or_uri_passes_only_if_every_reading_lies_inside(
        segments in prop::collection::vec(segment(), 0..5),
        form in prop::sample::select(vec![Form::Relative, Form::Absolute, Form::Uri]),
        before in dressing(),
        after in dressing(),
        inside in prop::collection::vec((any::<usize>(), prop::sample::select(vec!["\t", "\n", "\r"])), 0..3),
        spelling in (prop::collection::vec(any::<bool>(), 4), prop::option::weighted(0.2, prop::sample::select(vec!["localhost", "LocalHost", "host", "127.0.0.1"])), 0..3usize, prop::collection::vec(prop::bool::weighted(0.2), 0..40)),
        uri_param in any::<bool>(),
    ) {
        let t = tree();
        let written = written(form, &t.ws, &segments);
        let core = match form {
            Form::Uri => {
                let (upper, host, slashes, escape) = &spelling;
                let path = format!("{}/{}", t.ws.display(), segments.join("/"));
                uri_spelling(&path, upper.clone(), *host, *slashes, escape)
            }
            _ => written,
        };
        let core = if matches!(form, Form::Uri) { slip(&core, &inside) } else { core };
        let value = format!("{before}{core}{after}");
        let schema = if uri_param {
            json!({"type": "object", "properties": {"path": {"type": "string", "format": "uri", "description": "file URI of the file"}}})
        } else {
            json!({"type": "object", "properties": {"path": {"type": "string", "description": "a file path"}}})
        };
        let mut args = Map::new();
        args.insert("path".into(), Value::String(value.clone()));
        let violations = check_path_args(&schema, &args, &t.scope());
        if violations.is_empty() {
            for reading in server_readings(&value, &t.ws).into_iter().flatten() {
                prop_assert!(
                    reading.starts_with(&t.ws),
                    "{:?} was accepted, yet a server may open {:?}",
                    value,
                    reading
                );
            }
        }
    }

    #[test]
    fn a_home_relative_path_outside_is_never_accepted(
        user in prop_oneof![
            Just(String::new()),
            Just("root".to_string()),
            Just("nobody".to_string()),
            "[a-z._-]{1,12}",
        ],
        rest in prop::collection::vec(segment(), 0..4),
        before in dressing(),
    ) {
        // The workspace is a fresh temporary folder: no home directory lies inside it.
        let t = tree();
        let value = format!("{before}~{user}/{}", rest.join("/"));
        let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}});
        let mut args = Map::new();
        args.insert("path".into(), Value::String(value.clone()));
        let violations = check_path_args(&schema, &args, &t.scope());
        prop_assert_eq!(violations.len(), 1, "{:?} was accepted", value);
    }
}

/// One way a schema wraps a path parameter's schema.
#[derive(Debug, Clone, Copy)]
enum Wrap {
    AnyOf,
    OneOf,
    AllOf,
    Ref,
    Nullable,
}

fn wrapped(mut schema: Value, wraps: &[Wrap], defs: &mut Map<String, Value>) -> Value {
    for wrap in wraps {
        schema = match wrap {
            Wrap::AnyOf => json!({"anyOf": [schema]}),
            Wrap::OneOf => json!({"oneOf": [schema, {"type": "integer"}]}),
            Wrap::AllOf => json!({"allOf": [schema, {"minLength": 0}]}),
            Wrap::Ref => {
                let name = format!("D{}", defs.len());
                defs.insert(name.clone(), schema);
                json!({"$ref": format!("#/$defs/{name}")})
            }
            Wrap::Nullable => json!({"anyOf": [schema, {"type": "null"}]}),
        };
    }
    schema
}

/// The value nested in lists and objects, as a careless or hostile caller may send it where a path is expected.
fn nested(mut value: Value, shells: &[bool]) -> Value {
    for in_list in shells {
        value = if *in_list {
            json!([value])
        } else {
            json!({"k": value})
        };
    }
    value
}

proptest! {
    #[test]
    fn a_path_is_checked_however_deep_the_schema_or_the_value_hides_it(
        segments in prop::collection::vec(segment(), 0..5),
        form in prop::sample::select(vec![Form::Relative, Form::Absolute]),
        wraps in prop::collection::vec(prop::sample::select(vec![Wrap::AnyOf, Wrap::OneOf, Wrap::AllOf, Wrap::Ref, Wrap::Nullable]), 0..30),
        typed in any::<bool>(),
        shells in prop::collection::vec(any::<bool>(), 0..4),
    ) {
        let t = tree();
        let value = written(form, &t.ws, &segments);
        let real = truth(form, &t.ws, &segments);
        let leaf = if typed { json!({"type": "string"}) } else { json!({}) };
        let mut defs = Map::new();
        let prop_schema = wrapped(leaf, &wraps, &mut defs);
        let schema = json!({"type": "object", "$defs": defs, "properties": {"path": prop_schema}});
        let mut args = Map::new();
        args.insert("path".into(), nested(Value::String(value.clone()), &shells));
        let violations = check_path_args(&schema, &args, &t.scope());
        if let Some(real) = real {
            let inside = real.starts_with(&t.ws);
            if !inside {
                prop_assert!(!violations.is_empty(), "{:?} (leading to {:?}) was accepted", value, real);
            } else if wraps.len() <= 8 {
                // Shallow enough to follow: a path inside is not refused for its wrapping.
                prop_assert!(violations.is_empty(), "{:?} inside was refused: {:?}", value, violations);
            }
        }
    }
}
