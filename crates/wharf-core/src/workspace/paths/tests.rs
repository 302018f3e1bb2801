use super::*;
use serde_json::json;
use std::path::Path;

fn params(schema: Value) -> Vec<(String, PathKind, bool)> {
    path_params(&schema)
        .into_iter()
        .map(|p| (p.pointer, p.kind, p.is_array))
        .collect()
}

fn pointers(schema: Value) -> Vec<String> {
    path_params(&schema)
        .into_iter()
        .map(|p| p.pointer)
        .collect()
}

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// The reference filesystem server's schemas, as `tools/list` returns them (server-filesystem 2026.8.31).
fn fs_schema(tool: &str) -> Value {
    match tool {
        "read_text_file" => {
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"path": {"type": "string"},
                "tail": {"description": "If provided, returns only the last N lines of the file", "type": "number"},
                "head": {"description": "If provided, returns only the first N lines of the file", "type": "number"}},
            "required": ["path"]})
        }
        "list_directory" => {
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"path": {"type": "string"}}, "required": ["path"]})
        }
        "move_file" => {
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"source": {"type": "string"}, "destination": {"type": "string"}},
            "required": ["source", "destination"]})
        }
        "read_multiple_files" => {
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"paths": {"minItems": 1, "type": "array", "items": {"type": "string"},
                "description": "Array of file paths to read. Each path must be a string pointing to a valid file within allowed directories."}},
            "required": ["paths"]})
        }
        "write_file" => json!({"type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}),
        "edit_file" => json!({"type": "object", "properties": {"path": {"type": "string"},
            "edits": {"type": "array", "items": {"type": "object", "properties": {
                "oldText": {"type": "string", "description": "Text to search for - must match exactly"},
                "newText": {"type": "string", "description": "Text to replace with"}}, "required": ["oldText", "newText"]}},
            "dryRun": {"default": false, "description": "Preview changes using git-style diff format", "type": "boolean"}},
            "required": ["path", "edits"]}),
        "search_files" => json!({"type": "object", "properties": {"path": {"type": "string"},
            "pattern": {"type": "string"}, "excludePatterns": {"default": [], "type": "array", "items": {"type": "string"}}},
            "required": ["path", "pattern"]}),
        other => panic!("no schema for {other}"),
    }
}

// ---- detection ----

#[test]
fn the_reference_filesystem_servers_path_parameters_are_found() {
    assert_eq!(
        params(fs_schema("read_text_file")),
        [("path".to_string(), PathKind::Any, false)]
    );
    assert_eq!(pointers(fs_schema("list_directory")), ["path"]);
    assert_eq!(pointers(fs_schema("move_file")), ["source", "destination"]);
    assert_eq!(
        params(fs_schema("read_multiple_files")),
        [("paths[]".to_string(), PathKind::File, true)]
    );
    // The content to write, the edits and the patterns are not paths.
    assert_eq!(pointers(fs_schema("write_file")), ["path"]);
    assert_eq!(pointers(fs_schema("edit_file")), ["path"]);
    assert_eq!(pointers(fs_schema("search_files")), ["path"]);
}

#[test]
fn a_message_and_an_http_link_are_not_paths() {
    // The everything server's echo.
    assert!(pointers(json!({"type": "object", "properties": {"message": {"type": "string", "description": "Message to echo"}}})).is_empty());
    assert!(pointers(json!({"type": "object", "properties": {
        "url": {"type": "string", "format": "uri", "description": "The URL of the web page to fetch"},
        "link": {"type": "string", "format": "uri"}}}))
    .is_empty());
}

#[test]
fn names_in_every_case_style_are_recognised_with_their_kind() {
    let found = params(json!({"type": "object", "properties": {
        "file_path": {"type": "string"}, "outputDir": {"type": "string"}, "working-directory": {"type": "string"},
        "cwd": {"type": "string"}, "projectRoot": {"type": "string"}, "FileName": {"type": "string"},
        "dirPath": {"type": "string"}, "folder": {"type": "string"}, "configFile": {"type": "string"},
        "repo_path": {"type": "string"}, "count": {"type": "integer"}, "name": {"type": "string"},
        "profile": {"type": "string"}, "filter": {"type": "string"}}}));
    assert_eq!(
        found,
        [
            ("file_path".to_string(), PathKind::File, false),
            ("outputDir".into(), PathKind::Directory, false),
            ("working-directory".into(), PathKind::Directory, false),
            ("cwd".into(), PathKind::Directory, false),
            ("projectRoot".into(), PathKind::Directory, false),
            ("FileName".into(), PathKind::File, false),
            ("dirPath".into(), PathKind::Directory, false),
            ("folder".into(), PathKind::Directory, false),
            ("configFile".into(), PathKind::File, false),
            ("repo_path".into(), PathKind::Any, false),
        ]
    );
}

#[test]
fn non_filesystem_paths_are_not_paths() {
    assert!(pointers(json!({"type": "object", "properties": {
        "urlPath": {"type": "string"}, "api_path": {"type": "string"}, "jsonPath": {"type": "string"},
        "path": {"type": "string", "description": "JSONPath expression selecting the field"},
        "route": {"type": "string", "description": "The route of the endpoint, e.g. /users"},
        "file": {"type": "string", "contentEncoding": "base64"},
        "source": {"type": "string", "description": "Python code to run"},
        "createdAt": {"type": "string", "format": "date-time"}}}))
    .is_empty());
    // "source" alone is code or a language; with a destination beside it, a move.
    assert!(pointers(
        json!({"properties": {"source": {"type": "string"}, "target": {"type": "string"}}})
    )
    .is_empty());
}

#[test]
fn formats_and_hints_are_explicit() {
    let found = params(json!({"type": "object", "properties": {
        "a": {"type": "string", "format": "path"},
        "b": {"type": "string", "format": "directory"},
        "c": {"type": "string", "format": "file-path"},
        "d": {"type": "string", "x-path": true},
        "e": {"type": "string", "x-mcp-path": "directory"},
        "f": {"type": "string", "x-directory": true},
        "where": {"type": "string", "format": "uri", "description": "A file:// URI of the document"},
        "path": {"type": "string", "x-path": false},
        "g": {"type": "string", "x-path": 0}}}));
    assert_eq!(
        found,
        [
            ("a".to_string(), PathKind::Any, false),
            ("b".into(), PathKind::Directory, false),
            ("c".into(), PathKind::File, false),
            ("d".into(), PathKind::Any, false),
            ("e".into(), PathKind::Directory, false),
            ("f".into(), PathKind::Directory, false),
            ("where".into(), PathKind::File, false),
        ]
    );
    let uri = path_params(&json!({"properties": {"rootUri": {"type": "string", "format": "uri"}}}));
    assert_eq!(uri.len(), 1);
    assert!(uri[0].uri);
    assert_eq!(uri[0].kind, PathKind::Directory);
}

#[test]
fn descriptions_name_paths_by_their_head_noun() {
    let found = params(json!({"type": "object", "properties": {
        "a": {"type": "string", "description": "Path to the file to analyse"},
        "b": {"type": "string", "description": "Directory in which to run the command"},
        "c": {"type": "string", "description": "The absolute path of the project"},
        "d": {"type": "string", "title": "Input Folder"},
        "e": {"type": "string", "description": "Where to save it: a relative path under the output folder"},
        "f": {"type": "string", "description": "File content to upload"},
        "g": {"type": "string", "description": "Search the company directory for a person"},
        "h": {"type": "string", "description": "Folder ID in Google Drive"},
        "i": {"type": "string", "description": "Content to write to the file"}}}));
    assert_eq!(
        found,
        [
            ("a".to_string(), PathKind::File, false),
            ("b".into(), PathKind::Directory, false),
            ("c".into(), PathKind::Any, false),
            ("d".into(), PathKind::Directory, false),
            ("e".into(), PathKind::Any, false),
        ]
    );
}

#[test]
fn nested_objects_arrays_refs_and_optionals_are_searched() {
    let schema = json!({"type": "object",
        "$defs": {"Target": {"type": "object", "properties": {"dir": {"type": "string"}, "label": {"type": "string"}}}},
        "properties": {
            "options": {"type": "object", "properties": {"root": {"type": "string"}, "depth": {"type": "integer"}}},
            "files": {"type": "array", "items": {"type": "object", "properties": {"path": {"type": "string"}, "mode": {"type": "string"}}}},
            "target": {"$ref": "#/$defs/Target"},
            "logFile": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
            "dirs": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
            "loop": {"$ref": "#/properties/loop"}}});
    assert_eq!(
        params(schema),
        [
            ("options.root".to_string(), PathKind::Directory, false),
            ("files[].path".into(), PathKind::Any, false),
            ("target.dir".into(), PathKind::Directory, false),
            ("logFile".into(), PathKind::File, false),
            ("dirs[]".into(), PathKind::Directory, true),
        ]
    );
}

#[test]
fn a_schema_that_is_not_an_object_schema_has_no_path_params() {
    assert!(path_params(&json!(null)).is_empty());
    assert!(path_params(&json!({"type": "object"})).is_empty());
    assert!(path_params(&json!({"properties": []})).is_empty());
}

#[test]
fn path_params_serialize_for_the_ui() {
    let p = &path_params(&fs_schema("read_multiple_files"))[0];
    assert_eq!(
        serde_json::to_value(p).unwrap(),
        json!({"pointer": "paths[]", "kind": "file", "isArray": true, "uri": false})
    );
}

// ---- checking against the workspace ----

struct Fixture {
    _tmp: tempfile::TempDir,
    /// The open folder, canonical.
    w: PathBuf,
    /// A folder beside it, not open.
    outside: PathBuf,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let w = base.join("w");
    let outside = base.join("outside");
    std::fs::create_dir_all(w.join("src")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(w.join("src/main.rs"), "fn main() {}").unwrap();
    std::fs::write(outside.join("secret.txt"), "no").unwrap();
    Fixture {
        _tmp: tmp,
        w,
        outside,
    }
}

fn check(f: &Fixture, tool: &str, a: Value) -> Vec<PathViolation> {
    check_path_args(&fs_schema(tool), &args(a), std::slice::from_ref(&f.w))
}

#[test]
fn paths_inside_are_accepted_relative_or_absolute_existing_or_not() {
    let f = fixture();
    for path in [
        "src/main.rs".to_string(),
        "./src/../src/main.rs".into(),
        "not/yet/created.txt".into(),
        "".into(),
        ".".into(),
        f.w.join("src/main.rs").display().to_string(),
        f.w.join("new-file.txt").display().to_string(),
        f.w.join("src/new-dir/../other.rs").display().to_string(),
        f.w.display().to_string(),
    ] {
        assert_eq!(
            check(
                &f,
                "write_file",
                json!({"path": path, "content": "/etc/passwd"})
            ),
            [],
            "{path}"
        );
    }
}

#[test]
fn an_escape_with_dotdot_is_refused_with_a_clear_reason() {
    let f = fixture();
    let v = check(
        &f,
        "read_text_file",
        json!({"path": "../outside/secret.txt"}),
    );
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].pointer, "path");
    assert_eq!(v[0].value, "../outside/secret.txt");
    assert_eq!(
        v[0].resolved.as_deref(),
        Some(f.outside.join("secret.txt").as_path())
    );
    assert!(
        v[0].reason.contains("outside the open workspace folders"),
        "{}",
        v[0].reason
    );
    assert!(
        v[0].reason.contains(&f.w.display().to_string()),
        "{}",
        v[0].reason
    );
    // Through a directory that does not exist yet, too.
    let v = check(
        &f,
        "write_file",
        json!({"path": "new/../../outside/x", "content": ""}),
    );
    assert_eq!(
        v[0].resolved.as_deref(),
        Some(f.outside.join("x").as_path())
    );
}

#[test]
fn an_absolute_path_elsewhere_is_refused() {
    let f = fixture();
    let v = check(
        &f,
        "move_file",
        json!({"source": "src/main.rs", "destination": "/etc/passwd"}),
    );
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].pointer, "destination");
    assert_eq!(v[0].resolved.as_deref(), Some(Path::new("/etc/passwd")));
}

#[test]
fn a_symlink_inside_pointing_outside_is_refused() {
    let f = fixture();
    std::os::unix::fs::symlink(&f.outside, f.w.join("escape")).unwrap();
    std::os::unix::fs::symlink("../outside/secret.txt", f.w.join("relative-link")).unwrap();
    // Dangling: writing through it would create the file outside.
    std::os::unix::fs::symlink(f.outside.join("new.txt"), f.w.join("dangling")).unwrap();
    for path in [
        "escape/secret.txt",
        "escape",
        "relative-link",
        "dangling",
        "escape/sub/new.txt",
    ] {
        let v = check(&f, "write_file", json!({"path": path, "content": ""}));
        assert_eq!(v.len(), 1, "{path}");
        assert!(
            v[0].resolved.as_ref().unwrap().starts_with(&f.outside),
            "{path}: {:?}",
            v[0].resolved
        );
    }
    // `..` after a symlink goes to the target's parent, as the kernel does: lexically "secret.txt" is inside.
    std::fs::create_dir_all(f.outside.join("sub")).unwrap();
    std::os::unix::fs::symlink(f.outside.join("sub"), f.w.join("deep")).unwrap();
    let v = check(&f, "read_text_file", json!({"path": "deep/../secret.txt"}));
    assert_eq!(v.len(), 1);
    assert_eq!(
        v[0].resolved.as_deref(),
        Some(f.outside.join("secret.txt").as_path())
    );
    // And back in through another link is inside again.
    std::os::unix::fs::symlink(f.w.join("src"), f.outside.join("back")).unwrap();
    assert_eq!(
        check(&f, "read_text_file", json!({"path": "escape/back/main.rs"})),
        []
    );
    // A symlink that stays inside is fine.
    std::os::unix::fs::symlink("src/main.rs", f.w.join("main-link")).unwrap();
    assert_eq!(
        check(&f, "read_text_file", json!({"path": "main-link"})),
        []
    );
}

#[test]
fn a_symlink_loop_is_refused_not_followed_forever() {
    let f = fixture();
    std::os::unix::fs::symlink("loop-b", f.w.join("loop-a")).unwrap();
    std::os::unix::fs::symlink("loop-a", f.w.join("loop-b")).unwrap();
    let v = check(&f, "read_text_file", json!({"path": "loop-a/x"}));
    assert_eq!(v.len(), 1);
    assert!(v[0].resolved.is_none());
    assert!(v[0].reason.contains("symbolic links"), "{}", v[0].reason);
}

#[test]
fn a_symlinked_workspace_folder_works() {
    let f = fixture();
    let link = f.outside.join("link-to-w");
    std::os::unix::fs::symlink(&f.w, &link).unwrap();
    // Paths through the link's name are inside the folder it leads to.
    let through_link = link.join("src/main.rs").display().to_string();
    assert_eq!(
        check(&f, "read_text_file", json!({"path": through_link})),
        []
    );
    // And the folder opened by the link's name (not canonical) still works.
    let schema = fs_schema("read_text_file");
    let by_link = std::slice::from_ref(&link);
    assert_eq!(
        check_path_args(&schema, &args(json!({"path": "src/main.rs"})), by_link),
        []
    );
    let abs = f.w.join("src/main.rs").display().to_string();
    assert_eq!(
        check_path_args(&schema, &args(json!({"path": abs})), by_link),
        []
    );
    let v = check_path_args(&schema, &args(json!({"path": "../secret.txt"})), by_link);
    assert_eq!(
        v.len(),
        1,
        "relative to the real folder, .. is its real parent"
    );
}

#[test]
fn a_sibling_sharing_the_prefix_is_not_inside() {
    let f = fixture();
    let a = f.w.join("a");
    let ab = f.w.join("ab");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&ab).unwrap();
    let schema = fs_schema("read_text_file");
    let folders = std::slice::from_ref(&a);
    let v = check_path_args(
        &schema,
        &args(json!({"path": ab.join("x").display().to_string()})),
        folders,
    );
    assert_eq!(v.len(), 1);
    assert_eq!(
        check_path_args(
            &schema,
            &args(json!({"path": a.join("x").display().to_string()})),
            folders
        ),
        []
    );
}

#[test]
fn file_uris_are_decoded_with_spaces_and_unicode() {
    let f = fixture();
    let dir = f.w.join("my docs/été");
    std::fs::create_dir_all(&dir).unwrap();
    let uri = url::Url::from_file_path(dir.join("naïve file.txt"))
        .unwrap()
        .to_string();
    assert!(
        uri.contains("my%20docs/%C3%A9t%C3%A9/na%C3%AFve%20file.txt"),
        "{uri}"
    );
    assert_eq!(check(&f, "read_text_file", json!({"path": uri})), []);
    // Unencoded, as a careless client writes it, works as well.
    let raw = format!("file://{}", dir.join("x y.txt").display());
    assert_eq!(check(&f, "read_text_file", json!({"path": raw})), []);
    let out = url::Url::from_file_path(f.outside.join("sé cret.txt"))
        .unwrap()
        .to_string();
    let v = check(&f, "read_text_file", json!({"path": out}));
    assert_eq!(
        v[0].resolved.as_deref(),
        Some(f.outside.join("sé cret.txt").as_path())
    );
    // Encoded `..` cannot sneak out either.
    let sneaky = format!("file://{}/%2e%2e/outside/secret.txt", f.w.display());
    assert_eq!(
        check(&f, "read_text_file", json!({"path": sneaky})).len(),
        1
    );
    // A remote host is no local folder.
    let v = check(
        &f,
        "read_text_file",
        json!({"path": "file://server.example/share/x"}),
    );
    assert!(
        v[0].reason.contains("not a local file URI"),
        "{}",
        v[0].reason
    );
}

#[test]
fn uri_parameters_let_other_schemes_through_plain_paths_do_not() {
    let f = fixture();
    let schema = json!({"properties": {"document": {"type": "string", "format": "uri", "description": "A file:// URI or a web link"}}});
    let folders = std::slice::from_ref(&f.w);
    assert_eq!(
        check_path_args(
            &schema,
            &args(json!({"document": "https://example.com/a/../../b"})),
            folders
        ),
        []
    );
    let out = url::Url::from_file_path(f.outside.join("secret.txt"))
        .unwrap()
        .to_string();
    assert_eq!(
        check_path_args(&schema, &args(json!({"document": out})), folders).len(),
        1
    );
    // To a server taking plain paths, "http://x/../../.." is a relative path that climbs out.
    let v = check(
        &f,
        "read_text_file",
        json!({"path": "http://x/../../../outside/secret.txt"}),
    );
    assert_eq!(v.len(), 1);
}

#[test]
fn home_is_expanded_as_servers_do() {
    let f = fixture();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let v = check(&f, "read_text_file", json!({"path": "~/.ssh/id_rsa"}));
    if home.is_some_and(|h| !h.starts_with(&f.w)) {
        assert_eq!(v.len(), 1);
        assert!(v[0].resolved.as_ref().unwrap().ends_with(".ssh/id_rsa"));
    }
    // "~name" is no home directory: a relative name inside the folder.
    assert_eq!(
        check(&f, "read_text_file", json!({"path": "~notes.txt"})),
        []
    );
}

#[test]
fn every_item_of_an_array_is_checked_and_named_by_index() {
    let f = fixture();
    let v = check(
        &f,
        "read_multiple_files",
        json!({"paths": ["src/main.rs", "/etc/hosts", "../outside/secret.txt"]}),
    );
    assert_eq!(
        v.iter().map(|v| v.pointer.as_str()).collect::<Vec<_>>(),
        ["paths[1]", "paths[2]"]
    );
    let schema = json!({"properties": {"files": {"type": "array", "items": {"type": "object", "properties": {"path": {"type": "string"}}}},
        "options": {"type": "object", "properties": {"root": {"type": "string"}}}}});
    let v = check_path_args(
        &schema,
        &args(json!({"files": [{"path": "ok"}, {"path": "/etc"}], "options": {"root": "/"}})),
        std::slice::from_ref(&f.w),
    );
    assert_eq!(
        v.iter().map(|v| v.pointer.as_str()).collect::<Vec<_>>(),
        ["files[1].path", "options.root"]
    );
}

#[test]
fn a_single_value_for_an_array_and_non_strings_are_handled() {
    let f = fixture();
    assert_eq!(
        check(&f, "read_multiple_files", json!({"paths": "/etc/hosts"})).len(),
        1
    );
    assert_eq!(
        check(
            &f,
            "read_multiple_files",
            json!({"paths": [null, 3, "src"]})
        ),
        []
    );
    assert_eq!(check(&f, "read_text_file", json!({"head": 3})), []);
}

#[test]
fn with_no_folder_open_every_path_is_refused() {
    let schema = fs_schema("move_file");
    let v = check_path_args(
        &schema,
        &args(json!({"source": "a", "destination": "b"})),
        &[],
    );
    assert_eq!(v.len(), 2);
    assert!(
        v[0].reason.contains("no workspace folder is open"),
        "{}",
        v[0].reason
    );
    // A tool without path parameters is never refused.
    let echo = json!({"properties": {"message": {"type": "string"}}});
    assert_eq!(
        check_path_args(&echo, &args(json!({"message": "/etc/passwd"})), &[]),
        []
    );
}

#[test]
fn a_violation_serializes_for_the_ui() {
    let f = fixture();
    let v = check(&f, "read_text_file", json!({"path": "/etc/passwd"}));
    let value = serde_json::to_value(&v[0]).unwrap();
    assert_eq!(value["pointer"], "path");
    assert_eq!(value["resolved"], "/etc/passwd");
    let none = check_path_args(
        &fs_schema("read_text_file"),
        &args(json!({"path": "x"})),
        &[],
    );
    assert!(serde_json::to_value(&none[0])
        .unwrap()
        .get("resolved")
        .is_none());
}

#[test]
fn resolve_path_needs_an_absolute_path() {
    assert!(resolve_path(Path::new("relative")).is_err());
    assert_eq!(resolve_path(Path::new("/../..")).unwrap(), Path::new("/"));
}
