use proptest::prelude::*;

use super::*;

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
