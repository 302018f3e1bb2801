use super::*;
use serde_json::json;

mod credentials;
mod never_panic;
mod parsing;
mod subset;
mod validation;

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
