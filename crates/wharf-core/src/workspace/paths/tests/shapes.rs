//! Schema shapes a path parameter hides in: no `type`, alternatives nested in alternatives, `$ref`s near and far,
//! deep nesting, maps, tuples. What the walk cannot follow fails closed: any text there is refused.

use super::*;

fn unfollowable(schema: &Value) -> Vec<String> {
    schema_paths(schema)
        .unfollowable
        .into_iter()
        .map(|u| u.pointer)
        .collect()
}

/// A value nested `depth` objects deep under `a`, the innermost holding `leaf`.
fn nested_value(depth: usize, leaf: Value) -> Value {
    (0..depth).fold(leaf, |inner, _| json!({"a": inner}))
}

/// An object schema nested `depth` levels deep under `a`, the innermost with a `path` property.
fn nested_schema(depth: usize) -> Value {
    (0..depth).fold(
        json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        |inner, _| json!({"type": "object", "properties": {"a": inner}}),
    )
}

#[test]
fn a_path_named_parameter_without_a_type_is_a_path() {
    let f = fixture();
    for prop in [
        json!({}),
        json!(true),
        json!({"description": "Where to write"}),
        json!({"default": "out.txt"}),
        json!({"not": {"type": "null"}}),
        json!({"anyOf": [{}, {"type": "null"}]}),
        json!({"type": "text"}),
        json!({"type": ["String", "null"]}),
        json!({"type": 5}),
    ] {
        let schema = json!({"type": "object", "properties": {"path": prop}});
        assert_eq!(pointers(schema.clone()), ["path"], "{prop}");
        assert_eq!(
            check_in(&f, &schema, json!({"path": "/etc/passwd"})).len(),
            1,
            "{prop}"
        );
    }
    // Untyped but plainly no path: not one.
    assert!(
        pointers(json!({"properties": {"message": {}, "count": {"description": "How many"}}}))
            .is_empty()
    );
}

#[test]
fn alternatives_nested_in_alternatives_and_local_refs_are_followed() {
    let f = fixture();
    let shapes = [
        json!({"anyOf": [{"anyOf": [{"type": "string"}, {"type": "null"}]}]}),
        json!({"oneOf": [{"allOf": [{"anyOf": [{"type": "string"}]}]}, {"type": "integer"}]}),
        json!({"allOf": [{"oneOf": [{"type": "null"}, {"anyOf": [{"type": "array", "items": {"type": "string"}}]}]}]}),
        json!({"$ref": "#/$defs/P"}),
        json!({"$ref": "#/definitions/Q"}),
        json!({"$ref": "#/$defs/My%20Path"}),
        json!({"$ref": "#/$defs/a~1b"}),
        json!({"anyOf": [{"$ref": "#/$defs/P"}, {"type": "null"}]}),
        json!({"if": {"minLength": 1}, "then": {"type": "string"}, "else": {"type": "null"}}),
    ];
    for shape in shapes {
        let schema = json!({"type": "object",
            "$defs": {"P": {"anyOf": [{"$ref": "#/definitions/Q"}, {"type": "null"}]},
                "My Path": {"type": "string"}, "a/b": {"type": "string"}},
            "definitions": {"Q": {"type": "string"}},
            "properties": {"path": shape}});
        let found = pointers(schema.clone());
        assert!(
            !found.is_empty() && found.iter().all(|p| p.starts_with("path")),
            "{shape}: {found:?}"
        );
        assert_eq!(
            check_in(&f, &schema, json!({"path": "/etc/passwd"})).len(),
            1,
            "{shape}"
        );
    }
    // Alternatives nested deeper than the walk follows fail closed.
    let deep = (0..40).fold(
        json!({"type": "string"}),
        |inner, _| json!({"anyOf": [inner]}),
    );
    let schema = json!({"properties": {"path": deep}});
    assert_eq!(
        check_in(&f, &schema, json!({"path": "/etc/passwd"})).len(),
        1
    );
}

#[test]
fn a_ref_that_cannot_be_followed_fails_closed_for_its_argument() {
    let f = fixture();
    for reference in [
        "https://example.com/schemas/options.json",
        "other.json#/$defs/Options",
        "#/$defs/Missing",
        "#Options",
        "urn:example:options",
    ] {
        // Named nothing like a path, and holding a path only deep inside: still refused.
        let schema = json!({"type": "object", "properties": {
            "options": {"$ref": reference},
            "message": {"type": "string"}}});
        assert_eq!(unfollowable(&schema), ["options"], "{reference}");
        let v = check_in(
            &f,
            &schema,
            json!({"options": {"nested": {"where": "/etc/passwd"}}, "message": "hi"}),
        );
        assert_eq!(v.len(), 1, "{reference}");
        assert_eq!(v[0].pointer, "options");
        assert!(
            v[0].reason.contains("cannot be followed"),
            "{}",
            v[0].reason
        );
        // Whatever the text: Wharf cannot tell a path from anything else there.
        assert_eq!(
            check_in(&f, &schema, json!({"options": "src/main.rs"})).len(),
            1
        );
        // A value holding no text at all is no path; an absent one is nothing to check.
        assert_eq!(
            check_in(&f, &schema, json!({"options": {"n": 3, "b": [true, null]}})),
            []
        );
        assert_eq!(check_in(&f, &schema, json!({"message": "/etc/passwd"})), []);
    }
    // The whole input schema behind a remote $ref: every argument holding text is refused.
    let schema = json!({"$ref": "https://example.com/tool.json"});
    let v = check_in(&f, &schema, json!({"anything": "/etc/passwd"}));
    assert_eq!(v.len(), 1);
    assert!(v[0].reason.starts_with("the arguments"), "{}", v[0].reason);
    // Something that is no schema at all where a property's schema should be.
    let schema = json!({"properties": {"path": "string", "file": 3}});
    assert_eq!(unfollowable(&schema), ["path", "file"]);
}

#[test]
fn nesting_deeper_than_the_walk_fails_closed() {
    let f = fixture();
    // Shallow enough: found and checked as a path.
    let schema = nested_schema(5);
    let value = nested_value(5, json!({"path": "/etc/passwd"}));
    let v = check_in(&f, &schema, value);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].pointer, "a.a.a.a.a.path");
    // Too deep to follow: refused all the same, wherever the text sits below the cut.
    let schema = nested_schema(40);
    assert!(!unfollowable(&schema).is_empty());
    for leaf in [
        json!({"path": "/etc/passwd"}),
        json!({"path": "src/main.rs"}),
    ] {
        let v = check_in(&f, &schema, nested_value(40, leaf.clone()));
        assert_eq!(v.len(), 1, "{leaf}");
    }
    // A recursive schema: a path at any depth is checked; past the walk's depth it fails closed.
    let tree = json!({"type": "object", "$defs": {"Node": {"type": "object", "properties": {
            "path": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}},
        "properties": {"root": {"$ref": "#/$defs/Node"}}});
    let deep_tree = |depth: usize, leaf: &str| {
        (0..depth).fold(
            json!({"path": leaf}),
            |inner, _| json!({"path": "ok", "children": [inner]}),
        )
    };
    assert_eq!(
        check_in(&f, &tree, json!({"root": deep_tree(3, "src/main.rs")})),
        []
    );
    let v = check_in(&f, &tree, json!({"root": deep_tree(3, "/etc/passwd")}));
    assert_eq!(v.len(), 1);
    assert_eq!(
        v[0].pointer,
        "root.children[0].children[0].children[0].path"
    );
    assert_eq!(
        check_in(&f, &tree, json!({"root": deep_tree(30, "/etc/passwd")})).len(),
        1
    );
}

#[test]
fn a_schema_that_doubles_at_each_level_is_walked_in_bounded_time() {
    let f = fixture();
    let tree = json!({"$defs": {"Node": {"type": "object", "properties": {
            "path": {"type": "string"}, "left": {"$ref": "#/$defs/Node"}, "right": {"$ref": "#/$defs/Node"}}}},
        "$ref": "#/$defs/Node"});
    let started = std::time::Instant::now();
    let found = schema_paths(&tree);
    assert!(found.params.len() + found.unfollowable.len() < 20_000);
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let mut value = json!({"path": "/etc/passwd"});
    for _ in 0..20 {
        value = json!({"left": {"path": "ok"}, "right": value});
    }
    assert_eq!(check_in(&f, &tree, value).len(), 1);
}

#[test]
fn map_values_marked_as_paths_are_checked() {
    let f = fixture();
    let schema = json!({"type": "object", "properties": {
        "roots": {"type": "object", "additionalProperties": {"type": "string"}},
        "files": {"type": "object", "properties": {"count": {"type": "integer"}, "label": {"type": "string"}},
            "additionalProperties": {"type": "string", "format": "path"}},
        "mounts": {"type": "object", "patternProperties": {"^m": {"type": "string", "x-path": "directory"}}},
        "env": {"type": "object", "additionalProperties": {"type": "string"}}}});
    assert_eq!(pointers(schema.clone()), ["roots.*", "files.*", "mounts.*"]);
    let v = check_in(
        &f,
        &schema,
        json!({"roots": {"main": "src", "etc": "/etc"}, "files": {"count": 3, "label": "/etc/x", "a": "/etc/passwd"},
            "mounts": {"m1": "../outside"}, "env": {"HOME": "/root"}}),
    );
    assert_eq!(
        v.iter().map(|v| v.pointer.as_str()).collect::<Vec<_>>(),
        ["roots.etc", "files.a", "mounts.m1"]
    );
    // At the top level too.
    let schema =
        json!({"type": "object", "additionalProperties": {"type": "string", "format": "path"}});
    assert_eq!(pointers(schema.clone()), ["*"]);
    assert_eq!(
        check_in(&f, &schema, json!({"whatever": "/etc/passwd"})).len(),
        1
    );
}

#[test]
fn tuple_items_are_checked_at_their_place() {
    let f = fixture();
    let schema = json!({"type": "object", "properties": {
        "copy": {"type": "array", "prefixItems": [
            {"type": "string", "description": "Path to the source file"},
            {"type": "string", "description": "Path to the destination file"}], "items": false},
        "pair": {"type": "array", "items": [{"type": "string", "format": "path"}, {"type": "integer"}],
            "additionalItems": false},
        "files": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "string"}},
        "paths": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}}}});
    assert_eq!(
        pointers(schema.clone()),
        [
            "copy[0]",
            "copy[1]",
            "pair[0]",
            "files[0]",
            "files[1..]",
            "paths[][]"
        ]
    );
    let v = check_in(
        &f,
        &schema,
        json!({"copy": ["src/main.rs", "/etc/passwd"], "pair": ["/etc/shadow", 3],
            "files": ["ok", "fine", "../outside/secret.txt"], "paths": [["ok"], ["x", "/etc/hosts"]]}),
    );
    assert_eq!(
        v.iter().map(|v| v.pointer.as_str()).collect::<Vec<_>>(),
        ["copy[1]", "pair[0]", "files[2]", "paths[1][1]"]
    );
}
