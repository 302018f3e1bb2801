//! Hostile input shared by the fuzz targets: arbitrary JSON built recursively, and strings that are mostly the
//! words a parser cares about, so a run reaches past the first check.

use proptest::prelude::*;
use serde_json::{Map, Number, Value};

/// Words from the MCP, JSON Schema and mcp.json vocabularies, and a few known troublemakers.
const WORDS: &[&str] = &[
    "",
    "a",
    "type",
    "object",
    "string",
    "integer",
    "number",
    "boolean",
    "array",
    "properties",
    "required",
    "enum",
    "oneOf",
    "anyOf",
    "const",
    "items",
    "format",
    "default",
    "method",
    "params",
    "result",
    "error",
    "id",
    "jsonrpc",
    "2.0",
    "resultType",
    "input_required",
    "complete",
    "inputRequests",
    "requestState",
    "mode",
    "url",
    "form",
    "message",
    "requestedSchema",
    "elicitation/create",
    "roots/list",
    "sampling/createMessage",
    "https://example.com/",
    "http://127.0.0.1:8/x",
    "file:///etc/passwd",
    "${env:HOME}",
    "${workspaceFolder}",
    "${",
    "}",
    "\u{0}",
    "\u{feff}",
    "\u{202e}",
    "é",
    "𝕏",
    "..",
    "/",
    "\\",
];

pub fn word() -> impl Strategy<Value = String> {
    prop::sample::select(WORDS).prop_map(str::to_string)
}

/// Any string, weighted towards the vocabulary and short printable text.
pub fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => word(),
        2 => "[ -~]{0,12}",
        1 => any::<String>(),
    ]
}

pub fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-3i64..40).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| Number::from_f64(f).map(Value::Number)),
    ]
}

/// Arbitrary JSON: nested up to 4 levels, up to 64 nodes.
pub fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            object_of(inner),
        ]
    })
}

pub fn object_of(values: impl Strategy<Value = Value>) -> impl Strategy<Value = Value> {
    prop::collection::vec((text(), values), 0..6)
        .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<String, Value>>()))
}

/// An object with some chosen keys set to the given values, and arbitrary extra keys.
pub fn with_keys(pairs: Vec<(&'static str, Option<Value>)>, extra: Value) -> Value {
    let mut map = match extra {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    for (key, value) in pairs {
        if let Some(value) = value {
            map.insert(key.to_string(), value);
        }
    }
    Value::Object(map)
}

/// A `requestedSchema` mostly within the flat form subset (so parsing succeeds often enough for answers to be
/// checked), sometimes anything at all.
pub fn form_schema() -> impl Strategy<Value = Value> {
    let kinds = prop::sample::select(vec![
        "string", "number", "integer", "boolean", "array", "object", "null",
    ]);
    let keywords = prop::sample::select(vec![
        "format",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "enum",
        "enumNames",
        "oneOf",
        "items",
        "minItems",
        "maxItems",
        "default",
        "title",
        "description",
    ]);
    let keyword_value = prop_oneof![
        number(),
        text().prop_map(Value::String),
        prop::sample::select(vec![
            "email",
            "uri",
            "date",
            "date-time",
            "^[a-z]+$",
            "(",
            "a"
        ])
        .prop_map(Value::from),
        prop::collection::vec(prop::sample::select(vec!["a", "b", "c", ""]), 0..4)
            .prop_map(Value::from),
        Just(serde_json::json!([{"const": "a", "title": "A"}, {"const": "b", "title": "B"}])),
        Just(serde_json::json!({"type": "string", "enum": ["a", "b"]})),
        Just(serde_json::json!({"anyOf": [{"const": "a", "title": "A"}]})),
        json(),
    ];
    let property = (
        kinds,
        prop::collection::vec((keywords, keyword_value), 0..4),
    )
        .prop_map(|(kind, pairs)| {
            let mut map: Map<String, Value> =
                pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
            map.insert("type".into(), Value::from(kind));
            Value::Object(map)
        });
    let property = prop_oneof![5 => property, 1 => json()];
    let flat = (
        prop::collection::vec(("[a-d]|[ -~]{0,4}", property), 0..5),
        prop::collection::vec(prop_oneof!["[a-e]", text()], 0..3),
    )
        .prop_map(|(properties, required)| {
            let properties: Map<String, Value> = properties.into_iter().collect();
            serde_json::json!({"type": "object", "properties": properties, "required": required})
        });
    prop_oneof![4 => flat, 1 => json()]
}
