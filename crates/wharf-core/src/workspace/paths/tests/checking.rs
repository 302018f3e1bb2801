use super::*;
use std::path::Path;

fn check(f: &Fixture, tool: &str, a: Value) -> Vec<PathViolation> {
    check_path_args(&fs_schema(tool), &args(a), &at(std::slice::from_ref(&f.w)))
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
        check_path_args(&schema, &args(json!({"path": "src/main.rs"})), &at(by_link)),
        []
    );
    let abs = f.w.join("src/main.rs").display().to_string();
    assert_eq!(
        check_path_args(&schema, &args(json!({"path": abs})), &at(by_link)),
        []
    );
    let v = check_path_args(
        &schema,
        &args(json!({"path": "../secret.txt"})),
        &at(by_link),
    );
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
        &at(folders),
    );
    assert_eq!(v.len(), 1);
    assert_eq!(
        check_path_args(
            &schema,
            &args(json!({"path": a.join("x").display().to_string()})),
            &at(folders)
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
            &at(folders)
        ),
        []
    );
    let out = url::Url::from_file_path(f.outside.join("secret.txt"))
        .unwrap()
        .to_string();
    assert_eq!(
        check_path_args(&schema, &args(json!({"document": out})), &at(folders)).len(),
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
        &at(std::slice::from_ref(&f.w)),
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
        &at(&[]),
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
        check_path_args(&echo, &args(json!({"message": "/etc/passwd"})), &at(&[])),
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
        &at(&[]),
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
