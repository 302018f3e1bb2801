use serde_json::{json, Value};

use super::*;

fn fields_of(schema: Value) -> Vec<ArgField> {
    match tool_form(&schema) {
        ToolForm::Form { fields } => fields,
        ToolForm::Raw { reason } => panic!("expected a form, got raw: {reason}"),
    }
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({ "type": "object", "properties": properties, "required": required })
}

fn summary(fields: &[ArgField]) -> Vec<(String, &'static str, bool)> {
    fields
        .iter()
        .map(|f| (f.key.clone(), kind_name(&f.kind), f.required))
        .collect()
}

fn owned(rows: &[(&str, &'static str, bool)]) -> Vec<(String, &'static str, bool)> {
    rows.iter()
        .map(|(k, t, r)| ((*k).to_owned(), *t, *r))
        .collect()
}

fn options(field: &ArgField) -> Vec<(Value, String)> {
    match &field.kind {
        ArgKind::Enum { options } | ArgKind::Multi { options, .. } => options
            .iter()
            .map(|o| (o.value.clone(), o.label.clone()))
            .collect(),
        other => panic!("{} is not a choice: {other:?}", field.key),
    }
}

fn reason(field: &ArgField) -> &str {
    match &field.kind {
        ArgKind::Raw { reason } => reason,
        other => panic!("{} is not raw: {other:?}", field.key),
    }
}

#[test]
fn maps_the_primitive_types_with_titles_descriptions_and_required() {
    let fields = fields_of(object(
        json!({
            "name": { "type": "string", "title": "Your name", "description": "Who you are", "minLength": 2, "maxLength": 10 },
            "count": { "type": "integer", "minimum": 1, "maximum": 5 },
            "ratio": { "type": "number", "exclusiveMinimum": 0 },
            "loud": { "type": "boolean" },
        }),
        &["name"],
    ));
    assert_eq!(
        summary(&fields),
        owned(&[
            ("name", "string", true),
            ("count", "number", false),
            ("ratio", "number", false),
            ("loud", "boolean", false),
        ])
    );
    assert_eq!(fields[0].label, "Your name");
    assert_eq!(fields[0].description.as_deref(), Some("Who you are"));
    assert!(matches!(
        fields[0].kind,
        ArgKind::String {
            min_length: Some(2.0),
            max_length: Some(10.0),
            multiline: false,
            ..
        }
    ));
    assert!(matches!(
        fields[1].kind,
        ArgKind::Number {
            integer: true,
            minimum: Some(1.0),
            maximum: Some(5.0),
            ..
        }
    ));
    assert!(matches!(
        fields[2].kind,
        ArgKind::Number {
            integer: false,
            exclusive_minimum: Some(0.0),
            ..
        }
    ));
    assert_eq!(fields[3].label, "loud");
}

#[test]
fn reads_enums_plain_with_enum_names_one_of_any_of_and_const() {
    let fields = fields_of(object(
        json!({
            "plain": { "type": "string", "enum": ["a", "b"] },
            "named": { "type": "string", "enum": ["x", "y"], "enumNames": ["Ex", "Why"] },
            "titled": { "type": "string", "oneOf": [{ "const": "fast", "title": "Fast" }, { "const": "exact", "title": "Exact" }] },
            "numbers": { "anyOf": [{ "const": 1 }, { "const": 2, "title": "Two" }] },
            "fixed": { "const": "only" },
            "badNames": { "enum": ["p", "q"], "enumNames": ["P"] },
        }),
        &[],
    ));
    let pair = |v: Value, l: &str| (v, l.to_owned());
    assert_eq!(
        options(&fields[0]),
        [pair(json!("a"), "a"), pair(json!("b"), "b")]
    );
    assert_eq!(
        options(&fields[1]),
        [pair(json!("x"), "Ex"), pair(json!("y"), "Why")]
    );
    assert_eq!(
        options(&fields[2]),
        [pair(json!("fast"), "Fast"), pair(json!("exact"), "Exact")]
    );
    assert_eq!(
        options(&fields[3]),
        [pair(json!(1), "1"), pair(json!(2), "Two")]
    );
    assert_eq!(options(&fields[4]), [pair(json!("only"), "only")]);
    // enumNames that do not match the values one to one are ignored.
    assert_eq!(
        options(&fields[5]),
        [pair(json!("p"), "p"), pair(json!("q"), "q")]
    );
}

#[test]
fn arrays_of_enums_are_multi_selects_other_arrays_lists_of_item_fields() {
    let fields = fields_of(object(
        json!({
            "colors": { "type": "array", "items": { "type": "string", "enum": ["red", "green"] }, "maxItems": 2 },
            "titled": { "type": "array", "items": { "anyOf": [{ "const": "a", "title": "A" }] } },
            "names": { "type": "array", "items": { "type": "string" }, "minItems": 1 },
            "points": { "type": "array", "items": object(json!({ "x": { "type": "number" } }), &["x"]) },
        }),
        &[],
    ));
    let kinds: Vec<&str> = fields.iter().map(|f| kind_name(&f.kind)).collect();
    assert_eq!(kinds, ["multi", "multi", "array", "array"]);
    assert!(matches!(
        fields[0].kind,
        ArgKind::Multi {
            max_items: Some(2.0),
            ..
        }
    ));
    let ArgKind::Array {
        item, min_items, ..
    } = &fields[2].kind
    else {
        panic!("names is not an array")
    };
    assert_eq!((kind_name(&item.kind), *min_items), ("string", Some(1.0)));
    assert_eq!(item.key, "");
    let ArgKind::Array { item, .. } = &fields[3].kind else {
        panic!("points is not an array")
    };
    let ArgKind::Object { fields: point } = &item.kind else {
        panic!("a point is not an object")
    };
    assert!(point[0].required);
}

#[test]
fn nests_objects() {
    let fields = fields_of(object(
        json!({ "limits": object(json!({ "cpu": { "type": "number" }, "mem": object(json!({ "max": { "type": "integer" } }), &[]) }), &["cpu"]) }),
        &[],
    ));
    let ArgKind::Object { fields: limits } = &fields[0].kind else {
        panic!("limits is not an object")
    };
    assert_eq!(
        summary(limits),
        owned(&[("cpu", "number", true), ("mem", "object", false)])
    );
}

#[test]
fn unwraps_nullable_types_from_type_arrays_and_unions_with_null() {
    let fields = fields_of(object(
        json!({
            "a": { "type": ["integer", "null"] },
            "b": { "anyOf": [{ "type": "string", "title": "inner" }, { "type": "null" }], "default": null, "title": "Bee" },
        }),
        &[],
    ));
    let rows: Vec<(&str, bool, &str)> = fields
        .iter()
        .map(|f| (kind_name(&f.kind), f.nullable, f.label.as_str()))
        .collect();
    assert_eq!(rows, [("number", true, "a"), ("string", true, "Bee")]);
    assert!(matches!(
        fields[0].kind,
        ArgKind::Number { integer: true, .. }
    ));
    // A default of null is kept as a default (the field starts empty), not dropped as absent.
    assert_eq!(fields[1].default, Some(Value::Null));
}

#[test]
fn falls_back_to_raw_json_for_what_it_cannot_express() {
    let fields = fields_of(object(
        json!({
            "ref": { "$ref": "#/$defs/Thing" },
            "union": { "anyOf": [{ "type": "string" }, { "type": "number" }] },
            "oneOf": { "oneOf": [{ "type": "string" }, object(json!({ "a": { "type": "string" } }), &[])] },
            "all": { "allOf": [{ "type": "string" }] },
            "tuple": { "type": "array", "items": [{ "type": "string" }, { "type": "number" }] },
            "multi": { "type": ["string", "number"] },
            "map": { "type": "object", "additionalProperties": { "type": "string" } },
            "any": {},
            "untyped": { "description": "no type at all" },
            "odd": { "type": "date" },
            "nonsense": 42,
            "itemless": { "type": "array" },
        }),
        &[],
    ));
    let reasons: Vec<(&str, &str)> = fields.iter().map(|f| (f.key.as_str(), reason(f))).collect();
    assert_eq!(
        reasons,
        [
            ("ref", "uses $ref"),
            ("union", "uses anyOf"),
            ("oneOf", "uses oneOf"),
            ("all", "uses allOf"),
            ("tuple", "is a tuple"),
            ("multi", "has several types (string, number)"),
            ("map", "is an object without listed properties"),
            ("any", "accepts any JSON"),
            ("untyped", "has no type"),
            ("odd", "has type date"),
            ("nonsense", "has an invalid schema"),
            ("itemless", "has no item schema"),
        ]
    );
}

#[test]
fn the_whole_form_is_raw_when_the_root_is_not_a_plain_object_schema() {
    let raw = |schema: Value| match tool_form(&schema) {
        ToolForm::Raw { reason } => reason,
        ToolForm::Form { fields } => panic!("{schema} gave a form of {} fields", fields.len()),
    };
    assert_eq!(
        raw(json!({ "$ref": "#/$defs/Args" })),
        "The input schema uses $ref."
    );
    assert_eq!(
        raw(json!({ "anyOf": [object(json!({}), &[]), object(json!({}), &[])] })),
        "The input schema uses anyOf."
    );
    assert_eq!(
        raw(json!({ "type": "object", "additionalProperties": { "type": "number" } })),
        "The arguments are a free-form object."
    );
    assert_eq!(raw(json!("nonsense")), "The input schema is not an object.");
    assert_eq!(
        raw(json!({ "type": "string" })),
        "The input schema is a string."
    );
    // A tool without arguments is a form with no fields.
    for empty in [
        json!({ "type": "object" }),
        json!({ "type": "object", "properties": {} }),
        json!({ "type": "object", "additionalProperties": false }),
        json!({}),
    ] {
        assert_eq!(
            tool_form(&empty),
            ToolForm::Form { fields: vec![] },
            "{empty}"
        );
    }
}

#[test]
fn draft_four_boolean_exclusive_bounds_become_exclusive_numbers() {
    let fields = fields_of(object(
        json!({ "n": { "type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 9, "exclusiveMaximum": false } }),
        &[],
    ));
    assert_eq!(
        fields[0].kind,
        ArgKind::Number {
            integer: false,
            minimum: None,
            maximum: Some(9.0),
            exclusive_minimum: Some(0.0),
            exclusive_maximum: None,
        }
    );
}

#[test]
fn long_or_media_typed_strings_are_multiline() {
    let fields = fields_of(object(
        json!({
            "short": { "type": "string", "maxLength": 200 },
            "long": { "type": "string", "maxLength": 201 },
            "blob": { "type": "string", "contentMediaType": "text/markdown" },
        }),
        &[],
    ));
    let multiline: Vec<bool> = fields
        .iter()
        .map(|f| {
            matches!(
                f.kind,
                ArgKind::String {
                    multiline: true,
                    ..
                }
            )
        })
        .collect();
    assert_eq!(multiline, [false, true, true]);
}

#[test]
fn a_hostile_schema_nested_without_end_stops_at_the_depth_bound() {
    let mut schema = json!({ "type": "string" });
    // serde_json refuses to parse JSON nested deeper than 128, so that is as deep as a server's schema gets.
    for _ in 0..120 {
        schema = json!({ "type": "object", "properties": { "a": schema } });
    }
    let mut fields = fields_of(schema);
    let mut depth = 1;
    loop {
        let field = fields.remove(0);
        match field.kind {
            ArgKind::Object { fields: inner } => {
                fields = inner;
                depth += 1;
            }
            ArgKind::Raw { reason } => {
                assert_eq!(reason, "is nested too deeply");
                break;
            }
            other => panic!("unexpected {other:?} at depth {depth}"),
        }
    }
    assert_eq!(depth, MAX_DEPTH + 1);
}

#[test]
fn the_listed_tool_serializes_as_the_window_reads_it() {
    let info = ToolInfo {
        name: "echo".into(),
        title: None,
        description: None,
        output_schema: None,
        input_schema: object(
            json!({ "n": { "type": ["integer", "null"], "default": 3 }, "m": { "enum": ["a"] } }),
            &["n"],
        ),
        annotations: None,
        ui: None,
    };
    let listed = serde_json::to_value(ListedTool::from(info)).expect("serializes");
    assert_eq!(listed["name"], "echo");
    assert_eq!(listed["inputSchema"]["required"], json!(["n"]));
    assert_eq!(
        listed["form"],
        json!({ "kind": "form", "fields": [
            { "key": "n", "label": "n", "description": null, "required": true, "nullable": true, "default": 3,
              "kind": "number", "integer": true, "minimum": null, "maximum": null,
              "exclusiveMinimum": null, "exclusiveMaximum": null },
            { "key": "m", "label": "m", "description": null, "required": false, "nullable": false,
              "kind": "enum", "options": [{ "value": "a", "label": "a" }] },
        ] })
    );
}
