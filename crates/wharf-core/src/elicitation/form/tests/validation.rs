use super::*;

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
