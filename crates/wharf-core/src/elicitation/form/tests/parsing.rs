use super::*;

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
