//! Root URIs and the workspace path check. A canonical folder's `file://` URI parses back to exactly that folder,
//! whatever its name; a path argument passes the check only if it really lies inside a workspace folder, however
//! it is written (`..`, `.`, `~`, symlinks out and in, `file://` URIs with escapes).

use std::path::{Component, Path, PathBuf};

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use wharf_core::workspace::file_uri;
use wharf_core::workspace::paths::check_path_args;

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
        let violations = check_path_args(&schema, &args, std::slice::from_ref(&t.ws));
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
