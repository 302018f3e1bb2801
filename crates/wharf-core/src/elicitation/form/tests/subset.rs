use super::*;

// ---- Out of the subset ----

#[test]
fn shapes_outside_the_subset_are_refused_with_a_reason() {
    let cases = [
        (
            json!({"addr": {"type": "object", "properties": {"city": {"type": "string"}}}}),
            "addr",
            "nested object",
        ),
        (
            json!({"r": {"$ref": "#/$defs/Color"}}),
            "r",
            "refers to another schema",
        ),
        (
            json!({"l": {"type": "array", "items": {"type": "object"}}}),
            "l",
            "list of objects",
        ),
        (
            json!({"l": {"type": "array", "items": {"type": "string"}}}),
            "l",
            "other than choices",
        ),
        (json!({"l": {"type": "array"}}), "l", "other than choices"),
        (
            json!({"ip": {"type": "string", "format": "ipv4"}}),
            "ip",
            "unknown format \"ipv4\"",
        ),
        (
            json!({"n": {"type": "number", "default": "ten"}}),
            "n",
            "default that is not a number",
        ),
        (
            json!({"i": {"type": "integer", "default": 2.5}}),
            "i",
            "default that is not a whole number",
        ),
        (
            json!({"s": {"type": "string", "default": 3}}),
            "s",
            "default that is not text",
        ),
        (
            json!({"b": {"type": "boolean", "default": "no"}}),
            "b",
            "default that is not true or false",
        ),
        (
            json!({"e": {"type": "string", "enum": ["a"], "default": "b"}}),
            "e",
            "default that is not one of",
        ),
        (
            json!({"m": {"type": "array", "items": {"type": "string", "enum": ["a"]}, "default": "a"}}),
            "m",
            "default",
        ),
        (
            json!({"u": {"anyOf": [{"type": "string"}, {"type": "null"}]}}),
            "u",
            "combines schemas (`anyOf`)",
        ),
        (
            json!({"u": {"allOf": [{"type": "string"}]}}),
            "u",
            "combines schemas (`allOf`)",
        ),
        (json!({"t": {"type": "date"}}), "t", "has the type \"date\""),
        (
            json!({"t": {"type": ["string", "null"]}}),
            "t",
            "has the type",
        ),
        (
            json!({"t": {"description": "no type"}}),
            "t",
            "has no `type`",
        ),
        (
            json!({"t": "string"}),
            "t",
            "not described by a schema object",
        ),
        (
            json!({"k": {"type": "integer", "enum": [1, 2]}}),
            "k",
            "uses `enum`",
        ),
        (
            json!({"k": {"type": "string", "const": "x"}}),
            "k",
            "uses `const`",
        ),
        (
            json!({"e": {"type": "string", "enum": []}}),
            "e",
            "offers no choices",
        ),
        (
            json!({"e": {"type": "string", "enum": ["a", "a"]}}),
            "e",
            "offers the choice \"a\" twice",
        ),
        (
            json!({"e": {"type": "string", "enum": ["a", 1]}}),
            "e",
            "not a list of text values",
        ),
        (
            json!({"e": {"type": "string", "enum": ["a", "b"], "enumNames": ["A"]}}),
            "e",
            "`enumNames`",
        ),
        (
            json!({"e": {"type": "string", "oneOf": [{"const": 1, "title": "One"}]}}),
            "e",
            "{const, title}",
        ),
        (
            json!({"s": {"type": "string", "minLength": -1}}),
            "s",
            "`minLength` that is not a whole number",
        ),
        (
            json!({"s": {"type": "string", "pattern": "(unclosed"}}),
            "s",
            "not valid JSON Schema",
        ),
        (
            json!({"n": {"type": "number", "multipleOf": 0}}),
            "n",
            "not valid JSON Schema",
        ),
    ];
    for (properties, field, words) in cases {
        let e = out_of_subset(form(properties.clone(), &[]));
        assert_eq!(e.field.as_deref(), Some(field), "{properties}: {e:?}");
        assert!(
            e.reason.contains(words),
            "{properties}: {:?} lacks {words:?}",
            e.reason
        );
        assert!(
            e.reason.contains(&format!("\"{field}\"")) && e.reason.ends_with('.'),
            "{e:?}"
        );
    }
}

#[test]
fn whole_schemas_outside_the_subset_are_refused_with_a_reason() {
    let cases = [
        (json!("a string"), "not a JSON object"),
        (
            json!({"type": "array", "items": {}}),
            "not of type \"object\"",
        ),
        (json!({"properties": {}}), "not of type \"object\""),
        (json!({"type": "object"}), "no `properties` object"),
        (
            json!({"type": "object", "properties": []}),
            "no `properties` object",
        ),
        (
            form(json!({"a": {"type": "string"}}), &["a", "b"]),
            "requires \"b\", which is not one of its fields",
        ),
        (
            json!({"type": "object", "properties": {}, "required": "a"}),
            "`required` is not a list",
        ),
        (
            json!({"type": "object", "properties": {}, "$defs": {"x": {"type": "string"}}}),
            "uses `$defs`",
        ),
        (
            json!({"type": "object", "properties": {}, "$ref": "#/x"}),
            "uses `$ref`",
        ),
        (
            json!({"type": "object", "properties": {}, "additionalProperties": {"type": "string"}}),
            "additionalProperties",
        ),
    ];
    for (schema, words) in cases {
        let e = out_of_subset(schema.clone());
        assert_eq!(e.field, None, "{schema}");
        assert!(
            e.reason.contains(words),
            "{schema}: {:?} lacks {words:?}",
            e.reason
        );
    }
}

// ---- Nothing is ever fetched ----

/// A port that is listening, so a fetch would connect: the test then sees the connection.
fn listener() -> (std::net::TcpListener, String) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!(
        "http://127.0.0.1:{}/schema.json",
        listener.local_addr().unwrap().port()
    );
    (listener, url)
}

fn assert_never_connected(listener: &std::net::TcpListener) {
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("something connected to the schema URL: {other:?}"),
    }
}

#[test]
fn a_remote_or_file_ref_is_never_fetched() {
    let (listener, url) = listener();
    let readable = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(readable.path(), r#"{"type": "string"}"#).unwrap();
    let file_url = format!("file://{}", readable.path().display());
    for target in [
        url.as_str(),
        "http://127.0.0.1:1/x",
        "file:///etc/passwd",
        file_url.as_str(),
    ] {
        let schema = form(json!({"a": {"$ref": target}}), &[]);
        assert!(out_of_subset(schema.clone())
            .reason
            .contains("refers to another schema"));
        let spec = FormSpec { fields: vec![] };
        assert!(validate(&schema, &spec, &map(json!({"a": "x"}))).is_err());
        // Below the subset check: the validator itself refuses to retrieve anything. Had the readable file been
        // read, this schema would have compiled.
        assert!(
            crate::schema::compile(&json!({"$ref": target})).is_err(),
            "{target} was resolved"
        );
        let nested = json!({"type": "object", "properties": {"a": {"$ref": target}}});
        assert!(
            crate::schema::compile(&nested).is_err(),
            "{target} was resolved"
        );
    }
    // A `$schema` naming an unknown dialect is not looked up either: the form is read as 2020-12.
    let dialect =
        json!({"$schema": url, "type": "object", "properties": {"a": {"type": "string"}}});
    let spec = parse(&dialect);
    assert_eq!(validate(&dialect, &spec, &map(json!({"a": "x"}))), Ok(()));
    assert_never_connected(&listener);
}
