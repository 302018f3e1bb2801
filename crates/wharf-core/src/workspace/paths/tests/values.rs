//! A value that is not a string where the schema says path: every string inside it is checked, whatever shape
//! holds it, so that a server that takes the first item of a list (or flattens an object) never gets a path
//! unchecked.

use super::*;

#[test]
fn every_string_inside_a_non_string_path_value_is_checked() {
    let f = fixture();
    let schema = fs_schema("read_text_file");
    for (value, pointer) in [
        (json!(["/etc/passwd"]), "path[0]"),
        (json!(["src/main.rs", "../outside/secret.txt"]), "path[1]"),
        (json!({"p": "/etc/passwd"}), "path.p"),
        (json!([["src", "/etc/shadow"]]), "path[0][1]"),
        (
            json!({"a": [{"b": "../outside/secret.txt"}]}),
            "path.a[0].b",
        ),
        (json!([1, null, {"x": " /etc/passwd"}]), "path[2].x"),
    ] {
        let v = check_in(&f, &schema, json!({"path": value}));
        assert_eq!(
            v.iter().map(|v| v.pointer.as_str()).collect::<Vec<_>>(),
            [pointer],
            "{value}"
        );
    }
    // Inside, or no text at all: nothing to refuse.
    for value in [
        json!(["src/main.rs"]),
        json!({"a": "src"}),
        json!([1, null, true]),
        json!(3),
    ] {
        assert_eq!(check_in(&f, &schema, json!({"path": value})), [], "{value}");
    }
}

#[test]
fn arrays_of_paths_holding_arrays_and_objects_are_checked() {
    let f = fixture();
    let v = check_in(
        &f,
        &fs_schema("read_multiple_files"),
        json!({"paths": ["src/main.rs", ["/etc/passwd"], {"p": "/etc/hosts"}]}),
    );
    assert_eq!(
        v.iter().map(|v| v.pointer.as_str()).collect::<Vec<_>>(),
        ["paths[1][0]", "paths[2].p"]
    );
}

#[test]
fn a_value_that_breaks_the_schemas_shape_is_checked_where_it_breaks() {
    let f = fixture();
    let schema = json!({"properties": {
        "files": {"type": "array", "items": {"type": "object", "properties": {"path": {"type": "string"}}}},
        "options": {"type": "object", "properties": {"root": {"type": "string"}}}}});
    let v = check_in(
        &f,
        &schema,
        json!({"files": ["/etc/passwd", {"path": "ok"}, [{"path": "/etc/hosts"}]], "options": "/etc"}),
    );
    assert_eq!(
        v.iter().map(|v| v.pointer.as_str()).collect::<Vec<_>>(),
        ["files[0]", "files[2][0].path", "options"]
    );
    assert_eq!(
        check_in(&f, &schema, json!({"files": [null, 3], "options": null})),
        []
    );
}

#[test]
fn a_value_too_deep_or_too_large_to_search_is_refused() {
    let f = fixture();
    let schema = fs_schema("read_text_file");
    let deep = (0..100).fold(json!("src/main.rs"), |inner, _| json!([inner]));
    let v = check_in(&f, &schema, json!({"path": deep}));
    assert_eq!(v.len(), 1);
    assert!(v[0].reason.contains("cannot be checked"), "{}", v[0].reason);
    let many = vec!["src/main.rs"; 5000];
    assert_eq!(check_in(&f, &schema, json!({"path": many})).len(), 1);
}
