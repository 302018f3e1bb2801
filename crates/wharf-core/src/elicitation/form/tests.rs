use super::*;
use proptest::prelude::*;
use serde_json::json;

fn form(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

fn parse(schema: &Value) -> FormSpec {
    match parse_form(schema) {
        Ok(spec) => spec,
        Err(e) => panic!("{schema} should parse: {e}"),
    }
}

fn only_field(schema: &Value) -> FormField {
    let mut spec = parse(schema);
    assert_eq!(spec.fields.len(), 1);
    spec.fields.remove(0)
}

fn kind_of(property: Value) -> FieldKind {
    only_field(&form(json!({ "f": property }), &[])).kind
}

fn map(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

/// Checks `content` against `schema` as the CLI does (defaults first), returning the problems.
fn problems(schema: &Value, content: Value) -> Vec<FieldProblem> {
    let spec = parse(schema);
    let answer = with_defaults(&spec, Some(&map(content)));
    validate(schema, &spec, &answer).err().unwrap_or_default()
}

/// The single problem found, which must be about `field` and say `words`.
fn rejected(schema: &Value, content: Value, field: &str, words: &str) {
    let found = problems(schema, content.clone());
    assert_eq!(found.len(), 1, "{content}: {found:?}");
    assert_eq!(found[0].field, field, "{content}: {found:?}");
    assert!(
        found[0].message.contains(words),
        "{content}: {:?} lacks {words:?}",
        found[0].message
    );
    assert!(
        found[0].message.contains(&format!("\"{field}\"")),
        "{:?} does not name the field",
        found[0]
    );
}

fn out_of_subset(schema: Value) -> OutOfSubset {
    match parse_form(&schema) {
        Ok(spec) => panic!("{schema} should be out of the subset, parsed as {spec:?}"),
        Err(e) => e,
    }
}

fn string_kind(format: Option<StringFormat>, min: Option<u64>, max: Option<u64>) -> FieldKind {
    FieldKind::String {
        format,
        min_length: min,
        max_length: max,
        pattern: None,
    }
}

fn choices(values: &[(&str, Option<&str>)]) -> Vec<Choice> {
    let choice = |(v, t): &(&str, Option<&str>)| Choice {
        value: v.to_string(),
        title: t.map(str::to_string),
    };
    values.iter().map(choice).collect()
}

// ---- Parsing: every shape of the subset ----

#[test]
fn strings_with_each_format_and_lengths() {
    for (name, format) in [
        ("email", StringFormat::Email),
        ("uri", StringFormat::Uri),
        ("date", StringFormat::Date),
        ("date-time", StringFormat::DateTime),
    ] {
        let kind =
            kind_of(json!({"type": "string", "format": name, "minLength": 3, "maxLength": 50}));
        assert_eq!(kind, string_kind(Some(format), Some(3), Some(50)));
    }
    assert_eq!(
        kind_of(json!({"type": "string"})),
        string_kind(None, None, None)
    );
    let patterned = kind_of(json!({"type": "string", "pattern": "^[A-Za-z]+$"}));
    assert!(matches!(patterned, FieldKind::String { pattern: Some(p), .. } if p == "^[A-Za-z]+$"));
}

#[test]
fn numbers_and_integers_with_bounds() {
    let n = kind_of(json!({"type": "number", "minimum": 0, "maximum": 100.5}));
    let FieldKind::Number {
        integer: false,
        minimum: Some(lo),
        maximum: Some(hi),
        ..
    } = n
    else {
        panic!("{n:?}")
    };
    assert_eq!((lo.as_i64(), hi.as_f64()), (Some(0), Some(100.5)));
    let i = kind_of(json!({"type": "integer", "minimum": -5, "maximum": 10}));
    assert!(matches!(
        i,
        FieldKind::Number {
            integer: true,
            minimum: Some(_),
            maximum: Some(_),
            ..
        }
    ));
    // What the Python SDK emits for `Field(gt=0, multiple_of=0.5)`.
    let sdk = kind_of(
        json!({"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5, "title": "Ratio"}),
    );
    assert!(matches!(
        sdk,
        FieldKind::Number {
            exclusive_minimum: Some(_),
            multiple_of: Some(_),
            ..
        }
    ));
}

#[test]
fn booleans() {
    assert_eq!(
        kind_of(json!({"type": "boolean", "description": "Agree?"})),
        FieldKind::Boolean
    );
}

#[test]
fn the_three_single_select_shapes() {
    let untitled = kind_of(json!({"type": "string", "enum": ["Red", "Green"]}));
    assert_eq!(
        untitled,
        FieldKind::Select {
            options: choices(&[("Red", None), ("Green", None)])
        }
    );
    let titled = kind_of(json!({"type": "string", "oneOf": [
        {"const": "#FF0000", "title": "Red"}, {"const": "#00FF00", "title": "Green"}]}));
    let expected = choices(&[("#FF0000", Some("Red")), ("#00FF00", Some("Green"))]);
    assert_eq!(
        titled,
        FieldKind::Select {
            options: expected.clone()
        }
    );
    let legacy = kind_of(
        json!({"type": "string", "enum": ["#FF0000", "#00FF00"], "enumNames": ["Red", "Green"]}),
    );
    assert_eq!(legacy, FieldKind::Select { options: expected });
}

#[test]
fn both_multi_select_shapes_with_item_bounds() {
    let untitled = kind_of(json!({"type": "array", "minItems": 1, "maxItems": 2,
        "items": {"type": "string", "enum": ["Red", "Green", "Blue"]}}));
    let options = choices(&[("Red", None), ("Green", None), ("Blue", None)]);
    assert_eq!(
        untitled,
        FieldKind::MultiSelect {
            options,
            min_items: Some(1),
            max_items: Some(2)
        }
    );
    let titled = kind_of(json!({"type": "array", "maxItems": 2, "uniqueItems": true,
        "items": {"anyOf": [{"const": "#FF0000", "title": "Red"}, {"const": "#00FF00", "title": "Green"}]}}));
    let options = choices(&[("#FF0000", Some("Red")), ("#00FF00", Some("Green"))]);
    assert_eq!(
        titled,
        FieldKind::MultiSelect {
            options,
            min_items: None,
            max_items: Some(2)
        }
    );
}

#[test]
fn fields_keep_the_servers_order_titles_and_required() {
    let schema = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
        "title": "Contact", "description": "Who you are", "additionalProperties": false,
        "properties": {"zeta": {"type": "string", "title": "Zeta", "description": "last letter"},
                       "alpha": {"type": "boolean"}, "mid": {"type": "integer"}},
        "required": ["alpha"]});
    let spec = parse(&schema);
    let names: Vec<_> = spec.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["zeta", "alpha", "mid"]);
    assert_eq!(spec.fields[0].title.as_deref(), Some("Zeta"));
    assert_eq!(spec.fields[0].description.as_deref(), Some("last letter"));
    let required: Vec<_> = spec.fields.iter().map(|f| f.required).collect();
    assert_eq!(required, [false, true, false]);
    // An empty form (a bare confirmation) is a form.
    assert!(parse(&form(json!({}), &[])).fields.is_empty());
}

#[test]
fn the_cli_prints_the_field_type_and_the_ui_reads_it_back() {
    let field = only_field(&form(json!({"pw": {"type": "string"}}), &["pw"]));
    let printed = serde_json::to_value(&field).unwrap();
    assert_eq!(
        printed,
        json!({"name": "pw", "type": "string", "required": true, "credential": true})
    );
    let multi = only_field(&form(
        json!({"c": {"type": "array", "minItems": 1,
        "items": {"type": "string", "enum": ["a"]}, "default": ["a"]}}),
        &[],
    ));
    let printed = serde_json::to_value(&multi).unwrap();
    assert_eq!(printed["type"], "multiSelect");
    assert_eq!(printed["minItems"], 1);
    assert_eq!(serde_json::from_value::<FormField>(printed).unwrap(), multi);
}

// ---- Defaults ----

#[test]
fn a_default_of_every_type_is_prefilled() {
    let schema = form(
        json!({
            "s": {"type": "string", "default": "Ada"},
            "d": {"type": "string", "format": "date", "default": "2025-01-31"},
            "n": {"type": "number", "default": 2.5},
            "i": {"type": "integer", "default": 7},
            "whole": {"type": "integer", "default": 30.0},
            "b": {"type": "boolean", "default": false},
            "e": {"type": "string", "enum": ["x", "y"], "default": "y"},
            "t": {"type": "string", "oneOf": [{"const": "x", "title": "X"}], "default": "x"},
            "l": {"type": "string", "enum": ["x"], "enumNames": ["X"], "default": "x"},
            "m": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "default": ["x", "y"]},
            "mt": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}]}, "default": ["x"]},
            "none": {"type": "string"},
            "nulled": {"type": "string", "default": null},
        }),
        &[],
    );
    let spec = parse(&schema);
    let answer = with_defaults(&spec, None);
    assert_eq!(
        Value::Object(answer.clone()),
        json!({"s": "Ada", "d": "2025-01-31", "n": 2.5, "i": 7, "whole": 30, "b": false, "e": "y", "t": "x",
               "l": "x", "m": ["x", "y"], "mt": ["x"]})
    );
    // `30.0` is sent as the integer 30.
    assert!(answer["whole"].is_i64());
    assert_eq!(validate(&schema, &spec, &answer), Ok(()));
}

#[test]
fn given_values_win_and_null_means_left_out() {
    let schema = form(
        json!({"a": {"type": "string", "default": "A"}, "b": {"type": "integer", "default": 1},
                             "c": {"type": "boolean"}}),
        &[],
    );
    let spec = parse(&schema);
    let answer = with_defaults(
        &spec,
        Some(&map(json!({"a": "mine", "b": null, "extra": 1}))),
    );
    assert_eq!(
        Value::Object(answer),
        json!({"a": "mine", "b": 1, "extra": 1})
    );
}

/// The conformance scenario `elicitation-sep1034-client-defaults`: the server sends this schema, nothing is
/// required, and the client is expected to accept with every default applied: `name` a string, `age` and `score`
/// numbers, `status` one of the enum, `verified` a boolean.
#[test]
fn conformance_sep1034_client_defaults() {
    let schema = json!({"type": "object", "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"],
                   "default": "active"},
        "verified": {"type": "boolean", "description": "Verification status", "default": true}},
        "required": []});
    let spec = parse(&schema);
    for content in [None, Some(Map::new())] {
        let answer = with_defaults(&spec, content.as_ref());
        assert_eq!(
            Value::Object(answer.clone()),
            json!({"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": true})
        );
        assert_eq!(validate(&schema, &spec, &answer), Ok(()));
    }
    assert!(credential_warnings(&spec).is_empty());
}

// ---- Validation ----

fn contact() -> Value {
    form(
        json!({
            "nick": {"type": "string", "minLength": 2, "maxLength": 10},
            "email": {"type": "string", "format": "email"},
            "site": {"type": "string", "format": "uri"},
            "born": {"type": "string", "format": "date"},
            "at": {"type": "string", "format": "date-time"},
            "age": {"type": "integer", "minimum": 18, "maximum": 130},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
            "agree": {"type": "boolean"},
            "color": {"type": "string", "enum": ["red", "green"]},
            "hex": {"type": "string", "oneOf": [{"const": "#f00", "title": "Red"}, {"const": "#0f0", "title": "Green"}]},
            "old": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]},
            "tags": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string", "enum": ["x", "y", "z"]}},
            "picks": {"type": "array", "maxItems": 1, "items": {"anyOf": [{"const": "p", "title": "P"}, {"const": "q", "title": "Q"}]}},
        }),
        &["nick", "email"],
    )
}

fn good() -> Value {
    json!({"nick": "ada", "email": "ada@example.com", "site": "https://example.com/a", "born": "1815-12-10",
           "at": "2025-01-31T14:30:00Z", "age": 36, "ratio": 0.5, "agree": true, "color": "red", "hex": "#0f0",
           "old": "b", "tags": ["x", "z"], "picks": ["q"]})
}

fn with(field: &str, value: Value) -> Value {
    let mut answer = good();
    answer[field] = value;
    answer
}

#[test]
fn valid_answers_are_accepted() {
    assert_eq!(problems(&contact(), good()), []);
    assert_eq!(
        problems(&contact(), json!({"nick": "ab", "email": "a@b.co"})),
        []
    );
}

#[test]
fn strings_out_of_bounds_or_format_are_rejected() {
    let s = contact();
    rejected(
        &s,
        with("nick", json!("a")),
        "nick",
        "must be at least 2 characters",
    );
    rejected(
        &s,
        with("nick", json!("abcdefghijk")),
        "nick",
        "must be at most 10 characters",
    );
    rejected(
        &s,
        with("email", json!("not an email")),
        "email",
        "must be an email address",
    );
    rejected(
        &s,
        with("site", json!("not a uri")),
        "site",
        "must be a full URI",
    );
    rejected(
        &s,
        with("born", json!("31/01/2025")),
        "born",
        "must be a date written YYYY-MM-DD",
    );
    rejected(
        &s,
        with("born", json!("2025-02-30")),
        "born",
        "must be a date",
    );
    rejected(
        &s,
        with("at", json!("yesterday")),
        "at",
        "must be a date and time",
    );
    let patterned = form(
        json!({"code": {"type": "string", "pattern": "^[A-Z]+$"}}),
        &[],
    );
    rejected(
        &patterned,
        json!({"code": "abc"}),
        "code",
        "must match the pattern ^[A-Z]+$",
    );
}

#[test]
fn numbers_out_of_range_or_not_whole_are_rejected() {
    let s = contact();
    rejected(&s, with("age", json!(17)), "age", "must be at least 18");
    rejected(&s, with("age", json!(131)), "age", "must be at most 130");
    rejected(
        &s,
        with("age", json!(36.5)),
        "age",
        "must be a whole number",
    );
    rejected(
        &s,
        with("age", json!(36.0)),
        "age",
        "whole number written without a decimal point",
    );
    rejected(&s, with("ratio", json!(0)), "ratio", "must be more than 0");
    rejected(&s, with("ratio", json!(1.5)), "ratio", "must be at most 1");
    let stepped = form(json!({"half": {"type": "number", "multipleOf": 0.5}}), &[]);
    rejected(
        &stepped,
        json!({"half": 0.3}),
        "half",
        "must be a multiple of 0.5",
    );
}

#[test]
fn choices_outside_the_options_are_rejected() {
    let s = contact();
    rejected(
        &s,
        with("color", json!("blue")),
        "color",
        "must be one of: red, green",
    );
    rejected(
        &s,
        with("hex", json!("Red")),
        "hex",
        "must be one of: #f00, #0f0",
    );
    rejected(&s, with("old", json!("A")), "old", "must be one of: a, b");
    rejected(
        &s,
        with("tags", json!(["x", "y", "z"])),
        "tags",
        "must have at most 2 choices selected",
    );
    rejected(
        &s,
        with("tags", json!([])),
        "tags",
        "must have at least 1 choice selected",
    );
    rejected(
        &s,
        with("tags", json!(["x", "w"])),
        "tags",
        "may only contain: x, y, z",
    );
    rejected(
        &s,
        with("picks", json!(["r"])),
        "picks",
        "may only contain: p, q",
    );
    rejected(
        &s,
        with("picks", json!(["p", "q"])),
        "picks",
        "must have at most 1 choice selected",
    );
}

#[test]
fn missing_wrong_typed_and_unknown_fields_are_rejected() {
    let s = contact();
    rejected(&s, json!({"nick": "ada"}), "email", "is required");
    rejected(&s, with("nick", json!(42)), "nick", "must be text");
    rejected(
        &s,
        with("agree", json!("yes")),
        "agree",
        "must be true or false",
    );
    rejected(&s, with("ratio", json!("0.5")), "ratio", "must be a number");
    rejected(
        &s,
        with("tags", json!("x")),
        "tags",
        "must be a list of choices",
    );
    rejected(&s, with("color", json!(1)), "color", "must be text");
    rejected(
        &s,
        with("surprise", json!("x")),
        "surprise",
        "is not a field of this form",
    );
    // Several problems: one each, every field named.
    let found = problems(&s, json!({"nick": "a", "age": 5, "more": 1}));
    let fields: Vec<_> = found.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(fields.len(), 4, "{found:?}");
    for field in ["more", "nick", "email", "age"] {
        assert!(fields.contains(&field), "{field} not in {found:?}");
    }
}

#[test]
fn validating_against_a_schema_out_of_the_subset_fails_without_panicking() {
    let nested = form(json!({"a": {"type": "object", "properties": {}}}), &[]);
    let spec = FormSpec { fields: vec![] };
    let found = validate(&nested, &spec, &Map::new()).unwrap_err();
    assert_eq!(found[0].field, "a");
    assert!(found[0].message.contains("nested object"), "{found:?}");
}

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
            compile(&json!({"$ref": target})).is_err(),
            "{target} was resolved"
        );
        let nested = json!({"type": "object", "properties": {"a": {"$ref": target}}});
        assert!(compile(&nested).is_err(), "{target} was resolved");
    }
    // A `$schema` naming an unknown dialect is not looked up either: the form is read as 2020-12.
    let dialect =
        json!({"$schema": url, "type": "object", "properties": {"a": {"type": "string"}}});
    let spec = parse(&dialect);
    assert_eq!(validate(&dialect, &spec, &map(json!({"a": "x"}))), Ok(()));
    assert_never_connected(&listener);
}

// ---- Credentials ----

#[test]
fn credential_words() {
    let table: &[(&str, bool)] = &[
        ("password", true),
        ("new_password", true),
        ("dbpassword", true),
        ("pw", true),
        ("db_pwd", true),
        ("Passphrase", true),
        ("passcode", true),
        ("PIN", true),
        ("pin_code", true),
        ("pinCode", true),
        ("auth_token", true),
        ("accessToken", true),
        ("GITHUB_TOKEN", true),
        ("apiKey", true),
        ("api_key", true),
        ("API-KEY", true),
        ("apikey", true),
        ("APIKey", true),
        ("x-api-keys", true),
        ("client_secret", true),
        ("clientSecret", true),
        ("secret_key", true),
        ("privateKey", true),
        ("private-key", true),
        ("aws_access_key_id", true),
        ("cardNumber", true),
        ("credit_card", true),
        ("creditcard", true),
        ("cc_number", true),
        ("CVV", true),
        ("cvv2", true),
        ("cvc", true),
        ("security_code", true),
        ("iban", true),
        ("SSN", true),
        ("social_security_number", true),
        ("otp", true),
        ("one-time code", true),
        ("OneTimeCode", true),
        ("Your API key", true),
        ("Enter the password for the database", true),
        ("tokenizer_model", false),
        ("keyboard_layout", false),
        ("pinned", false),
        ("secretary_name", false),
        ("max_tokens", false),
        ("token_count", false),
        ("maxToken", false),
        ("Token budget", false),
        ("map_pins", false),
        ("spinner", false),
        ("opinion", false),
        ("username", false),
        ("email", false),
        ("sort_key", false),
        ("public_key", false),
        ("monkey", false),
        ("card_title", false),
        ("security_level", false),
        ("passage", false),
        ("cvvalue", false),
        ("accessKeyboard", false),
        ("api_version", false),
        ("one_time", false),
        ("upward", false),
        ("pwd", true),
        ("", false),
    ];
    assert!(table.len() >= 25);
    for (text, expected) in table {
        assert_eq!(looks_like_credential(text), *expected, "{text:?}");
    }
}

#[test]
fn credential_fields_are_flagged_by_name_title_or_description() {
    let schema = form(
        json!({
            "pw": {"type": "string"},
            "k": {"type": "string", "title": "API key"},
            "c": {"type": "string", "description": "The one-time code we texted you"},
            "name": {"type": "string", "title": "Your name"},
            // server-everything's own wording: a description that says NOT to give a secret asks for none.
            "integer": {"type": "integer", "description": "Your favorite integer (do not give us your phone number, pin, or other sensitive info)"},
            "bank": {"type": "string", "description": "Never mind the form. Your IBAN, please"},
        }),
        &[],
    );
    let spec = parse(&schema);
    let flags: Vec<_> = spec.fields.iter().map(|f| f.credential).collect();
    assert_eq!(flags, [true, true, true, false, false, true]);
    assert_eq!(
        credential_warnings(&spec),
        [
            "credential_field:pw",
            "credential_field:k",
            "credential_field:c",
            "credential_field:bank"
        ]
    );
}

// ---- Never a panic ----

const VOCABULARY: &[&str] = &[
    "type",
    "object",
    "properties",
    "required",
    "string",
    "number",
    "integer",
    "boolean",
    "array",
    "null",
    "format",
    "email",
    "uri",
    "date",
    "date-time",
    "ipv4",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "multipleOf",
    "enum",
    "enumNames",
    "oneOf",
    "anyOf",
    "allOf",
    "const",
    "title",
    "items",
    "minItems",
    "maxItems",
    "uniqueItems",
    "default",
    "$ref",
    "$schema",
    "$defs",
    "additionalProperties",
    "http://127.0.0.1:1/x",
    "file:///etc/passwd",
    "#/$defs/x",
    "a",
    "b",
    "",
];

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(VOCABULARY).prop_map(str::to_string),
        "[a-z~/()\\[^$.*+-]{0,6}"
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-3i64..200).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| Number::from_f64(f).map(Value::Number)),
        word().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((word(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn small_value() -> impl Strategy<Value = Value> {
    let texts = [
        "a",
        "b",
        "",
        "email",
        "uri",
        "date",
        "date-time",
        "ipv4",
        "x@y.z",
        "2025-01-31",
        "(",
        "^a+$",
    ];
    let text = prop::sample::select(texts.to_vec()).prop_map(Value::from);
    prop_oneof![
        (-2i64..20).prop_map(Value::from),
        Just(json!(0.5)),
        any::<bool>().prop_map(Value::from),
        text.clone(),
        prop::collection::vec(text.clone(), 0..3).prop_map(Value::Array),
        prop::collection::vec(text.prop_map(|t| json!({"const": t, "title": "T"})), 0..3)
            .prop_map(Value::Array),
        Just(json!({"type": "string", "enum": ["a", "b"]})),
        Just(json!({"anyOf": [{"const": "a", "title": "A"}]})),
    ]
}

/// A property of one of the subset's types with a few of its keywords, valued or not as they should be.
fn near_property() -> impl Strategy<Value = Value> {
    let keywords = [
        "format",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "multipleOf",
        "enum",
        "enumNames",
        "oneOf",
        "items",
        "minItems",
        "maxItems",
        "uniqueItems",
        "default",
        "title",
    ];
    let types = ["string", "number", "integer", "boolean", "array"];
    let pairs = prop::collection::vec(
        (prop::sample::select(keywords.to_vec()), small_value()),
        0..3,
    );
    (prop::sample::select(types.to_vec()), pairs).prop_map(|(t, pairs)| {
        let mut p: Map<String, Value> =
            pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        p.insert("type".to_string(), json!(t));
        Value::Object(p)
    })
}

/// Mostly within reach of the subset, so the checks past the first are exercised too.
fn schema_like() -> impl Strategy<Value = Value> {
    let property = prop_oneof![4 => near_property(), 1 => json_value()];
    let properties = prop::collection::vec(("[a-c]", property), 0..4);
    let required = prop::collection::vec(prop_oneof!["[a-d]", word()], 0..2);
    (properties, required).prop_map(|(properties, required)| {
        let properties: Map<String, Value> = properties.into_iter().collect();
        json!({"type": "object", "properties": properties, "required": required})
    })
}

/// Answers made of the field names and values a form would take, and some it would not.
fn content() -> impl Strategy<Value = Map<String, Value>> {
    let value = prop_oneof![small_value(), json_value()];
    prop::collection::vec(("[a-d]", value), 0..4).prop_map(|kv| kv.into_iter().collect())
}

proptest! {
    #[test]
    fn parse_and_validate_never_panic(schema in prop_oneof![json_value(), schema_like()], content in content()) {
        let spec = parse_form(&schema).unwrap_or(FormSpec { fields: vec![] });
        let answer = with_defaults(&spec, Some(&content));
        let _ = validate(&schema, &spec, &answer);
        let _ = validate(&schema, &spec, &content);
        let _ = credential_warnings(&spec);
    }

    /// A default the parser accepted is of its field's type and among its choices (bounds and formats are the
    /// server's business: an answer keeping a default out of bounds is refused by `validate`).
    #[test]
    fn accepted_defaults_fit_their_fields(schema in schema_like()) {
        let type_words = ["must be text", "must be a number", "whole number", "must be true or false",
                          "must be one of:", "may only contain:", "must be a list of choices"];
        if let Ok(spec) = parse_form(&schema) {
            let found = validate(&schema, &spec, &with_defaults(&spec, None)).err().unwrap_or_default();
            let wrong = found.iter().find(|p| type_words.iter().any(|w| p.message.contains(w)));
            prop_assert!(wrong.is_none(), "{schema}: {wrong:?}");
        }
    }

    #[test]
    fn credential_detection_never_panics(text in "\\PC{0,40}") {
        let _ = looks_like_credential(&text);
    }
}
