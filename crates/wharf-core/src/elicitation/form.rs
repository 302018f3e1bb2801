//! Form-mode elicitation: the model of a server's `requestedSchema` (the flat primitive subset of the spec's
//! `PrimitiveSchemaDefinition`), which the app renders and the CLI prints in its events, and the authoritative check
//! of an answer before it is sent.
//!
//! A schema outside the subset is not half-rendered: `parse_form` says why in a sentence, and the caller declines
//! with a notice quoting it. The answer is checked by `jsonschema` against the server's own schema (so nothing the
//! model leaves out is skipped), plus the rules of the model that JSON Schema does not state.

use jsonschema::Validator;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::question::form::{Choice, FieldKind, FormField, FormSpec, StringFormat};
use crate::question::FieldProblem;

mod answer;
mod credential;
pub use answer::validate;
pub use credential::{description_asks_for_credential, looks_like_credential};

/// Why a schema cannot be shown as a form. `reason` is a sentence for the user (quoted in the decline notice).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS, thiserror::Error)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
#[error("{reason}")]
pub struct OutOfSubset {
    /// The property at fault; none when the problem is the schema as a whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub field: Option<String>,
    pub reason: String,
}

/// Keywords that only describe a value and never change which answers are valid: a form may ignore them.
fn is_annotation(key: &str) -> bool {
    let described = matches!(
        key,
        "title" | "description" | "default" | "examples" | "$comment"
    );
    described || matches!(key, "deprecated" | "readOnly" | "writeOnly") || key.starts_with("x-")
}

fn whole(reason: impl Into<String>) -> OutOfSubset {
    OutOfSubset {
        field: None,
        reason: reason.into(),
    }
}

fn at(field: &str, what: impl std::fmt::Display) -> OutOfSubset {
    let reason = format!("Field \"{field}\" {what}.");
    OutOfSubset {
        field: Some(field.to_string()),
        reason,
    }
}

fn cannot(field: &str, what: impl std::fmt::Display) -> OutOfSubset {
    at(field, format_args!("{what}, which a form cannot show"))
}

/// The form a `requestedSchema` describes, or why it cannot be shown as one.
pub fn parse_form(requested_schema: &Value) -> Result<FormSpec, OutOfSubset> {
    compile_form(requested_schema).map(|(spec, _)| spec)
}

/// The model and the compiled validator together: a schema the model accepts but `jsonschema` refuses (a bad regex,
/// `multipleOf: 0`) would fail every answer, so it is out of the subset too.
fn compile_form(schema: &Value) -> Result<(FormSpec, Validator), OutOfSubset> {
    let spec = parse_spec(schema)?;
    let mut stripped = schema.clone();
    // `$schema` may name any dialect, and an unknown one would be looked up; the subset means the same in every
    // draft, so it is always read as 2020-12, the spec's default dialect.
    if let Some(top) = stripped.as_object_mut() {
        top.remove("$schema");
    }
    let validator = crate::schema::compile(&stripped).map_err(|e| {
        let path = e.instance_path().as_str().to_string();
        match path
            .strip_prefix("/properties/")
            .map(|p| p.split('/').next())
        {
            Some(Some(name)) => at(
                &unescape(name),
                format_args!("is not valid JSON Schema ({e})"),
            ),
            _ => whole(format!("The form's schema is not valid JSON Schema ({e}).")),
        }
    })?;
    Ok((spec, validator))
}

/// A JSON Pointer segment back to the property name.
fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

fn parse_spec(schema: &Value) -> Result<FormSpec, OutOfSubset> {
    let Some(top) = schema.as_object() else {
        return Err(whole("The form's schema is not a JSON object."));
    };
    if top.get("type").and_then(Value::as_str) != Some("object") {
        return Err(whole("The form's schema is not of type \"object\"."));
    }
    for (key, value) in top {
        let fits = match key.as_str() {
            "type" | "properties" | "required" => true,
            "$schema" | "title" | "description" => value.is_string(),
            // `false` says what Wharf enforces anyway (no unknown fields); `true` is the JSON Schema default.
            "additionalProperties" => value.is_boolean(),
            other => is_annotation(other),
        };
        if !fits {
            let reason =
                format!("The form's schema uses `{key}` in a way Wharf's forms do not support.");
            return Err(whole(reason));
        }
    }
    let Some(properties) = top.get("properties").and_then(Value::as_object) else {
        return Err(whole("The form's schema has no `properties` object."));
    };
    let required = match top.get("required") {
        None => Vec::new(),
        Some(names) => strings(names)
            .ok_or_else(|| whole("The form's `required` is not a list of field names."))?,
    };
    if let Some(missing) = required.iter().find(|n| !properties.contains_key(**n)) {
        let reason = format!("The form requires \"{missing}\", which is not one of its fields.");
        return Err(whole(reason));
    }
    let fields = properties
        .iter()
        .map(|(name, prop)| parse_field(name, prop, required.contains(&name.as_str())));
    Ok(FormSpec {
        fields: fields.collect::<Result<_, _>>()?,
    })
}

fn parse_field(name: &str, prop: &Value, required: bool) -> Result<FormField, OutOfSubset> {
    let Some(p) = prop.as_object() else {
        return Err(at(name, "is not described by a schema object"));
    };
    if p.contains_key("$ref") {
        return Err(cannot(name, "refers to another schema (`$ref`)"));
    }
    if let Some(k) = ["allOf", "anyOf", "not", "if"]
        .into_iter()
        .find(|k| p.contains_key(*k))
    {
        return Err(cannot(name, format_args!("combines schemas (`{k}`)")));
    }
    let title = text(name, p, "title")?;
    let description = text(name, p, "description")?;
    let (kind, allowed) = match p.get("type") {
        Some(Value::String(t)) => match t.as_str() {
            "string" => parse_string(name, p)?,
            "number" | "integer" => parse_number(name, p, t == "integer")?,
            "boolean" => (FieldKind::Boolean, &[][..]),
            "array" => parse_multi(name, p)?,
            "object" => return Err(cannot(name, "is a nested object")),
            other => return Err(cannot(name, format_args!("has the type \"{other}\""))),
        },
        Some(other) => return Err(cannot(name, format_args!("has the type {other}"))),
        None => return Err(at(name, "has no `type`")),
    };
    let unknown = |k: &&String| *k != "type" && !is_annotation(k) && !allowed.contains(&k.as_str());
    if let Some(key) = p.keys().find(unknown) {
        return Err(cannot(name, format_args!("uses `{key}`")));
    }
    let default = match p.get("default") {
        // Schema generators write `default: null` for "no default".
        None | Some(Value::Null) => None,
        Some(d) => Some(check_default(name, &kind, d)?),
    };
    let text_field = matches!(kind, FieldKind::String { .. });
    let credential = says_secret(p)
        || [Some(name), title.as_deref()]
            .into_iter()
            .flatten()
            .any(|label| credential::label_asks_for_credential(label, text_field))
        || description
            .as_deref()
            .is_some_and(credential::description_asks_for_credential);
    let name = name.to_string();
    Ok(FormField {
        name,
        title,
        description,
        required,
        default,
        credential,
        kind,
    })
}

/// The schema itself says the value is a secret: `writeOnly: true` (what JSON Schema says of a value that is sent
/// but never shown back), or a `format` that names a secret (`password`, as Pydantic's `SecretStr` writes it).
fn says_secret(p: &Map<String, Value>) -> bool {
    p.get("writeOnly") == Some(&Value::Bool(true))
        || p.get("format")
            .and_then(Value::as_str)
            .is_some_and(looks_like_credential)
}

fn text(name: &str, p: &Map<String, Value>, key: &str) -> Result<Option<String>, OutOfSubset> {
    match p.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(at(name, format_args!("has a `{key}` that is not text"))),
    }
}

fn count(name: &str, p: &Map<String, Value>, key: &str) -> Result<Option<u64>, OutOfSubset> {
    let bad = || {
        at(
            name,
            format_args!("has a `{key}` that is not a whole number"),
        )
    };
    p.get(key).map(|v| v.as_u64().ok_or_else(bad)).transpose()
}

fn number(name: &str, p: &Map<String, Value>, key: &str) -> Result<Option<Number>, OutOfSubset> {
    let bad = || at(name, format_args!("has a `{key}` that is not a number"));
    p.get(key)
        .map(|v| v.as_number().cloned().ok_or_else(bad))
        .transpose()
}

/// A field's kind and the keywords it may use besides `type` and the annotations.
type Parsed = (FieldKind, &'static [&'static str]);

fn parse_string(name: &str, p: &Map<String, Value>) -> Result<Parsed, OutOfSubset> {
    if let Some(values) = p.get("enum") {
        if p.contains_key("oneOf") {
            return Err(at(name, "has both `enum` and `oneOf`"));
        }
        let options = enum_choices(name, values, p.get("enumNames"))?;
        return Ok((FieldKind::Select { options }, &["enum", "enumNames"]));
    }
    if let Some(list) = p.get("oneOf") {
        let options = const_choices(name, list, "oneOf")?;
        return Ok((FieldKind::Select { options }, &["oneOf"]));
    }
    let format = match text(name, p, "format")?.as_deref() {
        None => None,
        Some("email") => Some(StringFormat::Email),
        Some("uri") => Some(StringFormat::Uri),
        Some("date") => Some(StringFormat::Date),
        Some("date-time") => Some(StringFormat::DateTime),
        // Not a format JSON Schema checks, but a hint that the field is a secret: the field is plain text, flagged
        // as a credential (the user is warned) rather than declined unseen.
        Some(secret) if looks_like_credential(secret) => None,
        Some(other) => {
            let known = "Wharf checks email, uri, date and date-time only";
            return Err(at(
                name,
                format_args!("has the unknown format \"{other}\" ({known})"),
            ));
        }
    };
    let min_length = count(name, p, "minLength")?;
    let max_length = count(name, p, "maxLength")?;
    let pattern = text(name, p, "pattern")?;
    let kind = FieldKind::String {
        format,
        min_length,
        max_length,
        pattern,
    };
    Ok((kind, &["format", "minLength", "maxLength", "pattern"]))
}

fn parse_number(name: &str, p: &Map<String, Value>, integer: bool) -> Result<Parsed, OutOfSubset> {
    let kind = FieldKind::Number {
        integer,
        minimum: number(name, p, "minimum")?,
        maximum: number(name, p, "maximum")?,
        exclusive_minimum: number(name, p, "exclusiveMinimum")?,
        exclusive_maximum: number(name, p, "exclusiveMaximum")?,
        multiple_of: number(name, p, "multipleOf")?,
    };
    let keywords = &[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ];
    Ok((kind, keywords))
}

fn parse_multi(name: &str, p: &Map<String, Value>) -> Result<Parsed, OutOfSubset> {
    let not_choices = || {
        at(
            name,
            "is a list of values other than choices, which a form cannot show",
        )
    };
    let items = p
        .get("items")
        .and_then(Value::as_object)
        .ok_or_else(not_choices)?;
    let item_type = items.get("type").map(|t| t.as_str());
    if item_type == Some(Some("object")) {
        return Err(cannot(name, "is a list of objects"));
    }
    let (options, keyword) = match (items.get("enum"), items.get("anyOf"), item_type) {
        (Some(values), None, Some(Some("string"))) => (enum_choices(name, values, None)?, "enum"),
        (None, Some(list), None | Some(Some("string"))) => {
            (const_choices(name, list, "anyOf")?, "anyOf")
        }
        _ => return Err(not_choices()),
    };
    if let Some(key) = items
        .keys()
        .find(|k| *k != "type" && *k != keyword && !is_annotation(k))
    {
        return Err(cannot(name, format_args!("uses `{key}` in its items")));
    }
    if p.get("uniqueItems").is_some_and(|u| !u.is_boolean()) {
        return Err(at(name, "has a `uniqueItems` that is not true or false"));
    }
    let min_items = count(name, p, "minItems")?;
    let max_items = count(name, p, "maxItems")?;
    // `uniqueItems` is left to the validation: a form of checkboxes never repeats a choice anyway.
    Ok((
        FieldKind::MultiSelect {
            options,
            min_items,
            max_items,
        },
        &["items", "minItems", "maxItems", "uniqueItems"],
    ))
}

fn enum_choices(
    name: &str,
    values: &Value,
    names: Option<&Value>,
) -> Result<Vec<Choice>, OutOfSubset> {
    let values = strings(values)
        .ok_or_else(|| at(name, "has an `enum` that is not a list of text values"))?;
    let titles = match names.map(strings) {
        None => Vec::new(),
        Some(Some(titles)) if titles.len() == values.len() => titles,
        Some(_) => return Err(at(name, "has `enumNames` that do not match its `enum`")),
    };
    let title = |i: usize| titles.get(i).map(|t| t.to_string());
    let options = values.iter().enumerate().map(|(i, v)| Choice {
        value: v.to_string(),
        title: title(i),
    });
    distinct(name, options.collect())
}

fn const_choices(name: &str, list: &Value, keyword: &str) -> Result<Vec<Choice>, OutOfSubset> {
    let bad = || {
        at(
            name,
            format_args!("has a `{keyword}` that is not a list of {{const, title}} choices"),
        )
    };
    let choice = |option: &Value| {
        let o = option.as_object().filter(|o| {
            o.keys()
                .all(|k| matches!(k.as_str(), "const" | "title" | "description"))
        });
        let value = o
            .and_then(|o| o.get("const"))
            .and_then(Value::as_str)
            .ok_or_else(bad)?;
        let title = match o.and_then(|o| o.get("title")) {
            None => None,
            Some(t) => Some(t.as_str().ok_or_else(bad)?.to_string()),
        };
        Ok(Choice {
            value: value.to_string(),
            title,
        })
    };
    let options = list
        .as_array()
        .ok_or_else(bad)?
        .iter()
        .map(choice)
        .collect::<Result<_, _>>()?;
    distinct(name, options)
}

fn strings(v: &Value) -> Option<Vec<&str>> {
    v.as_array()?.iter().map(Value::as_str).collect()
}

fn distinct(name: &str, options: Vec<Choice>) -> Result<Vec<Choice>, OutOfSubset> {
    if options.is_empty() {
        return Err(at(name, "offers no choices"));
    }
    let mut seen = std::collections::HashSet::new();
    match options.iter().find(|c| !seen.insert(c.value.as_str())) {
        Some(twice) => Err(at(
            name,
            format_args!("offers the choice \"{}\" twice", twice.value),
        )),
        None => Ok(options),
    }
}

fn check_default(name: &str, kind: &FieldKind, d: &Value) -> Result<Value, OutOfSubset> {
    let is_option = |options: &[Choice], v: &Value| {
        options.iter().any(|o| Some(o.value.as_str()) == v.as_str())
    };
    let fits = match kind {
        FieldKind::String { .. } => d.is_string(),
        FieldKind::Boolean => d.is_boolean(),
        FieldKind::Number { integer: false, .. } => d.is_number(),
        FieldKind::Number { integer: true, .. } => d.is_i64() || d.is_u64(),
        FieldKind::Select { options } => is_option(options, d),
        FieldKind::MultiSelect { options, .. } => d
            .as_array()
            .is_some_and(|items| items.iter().all(|v| is_option(options, v))),
    };
    if fits {
        return Ok(d.clone());
    }
    let expected = match kind {
        FieldKind::String { .. } => "text",
        FieldKind::Boolean => "true or false",
        FieldKind::Number { integer: false, .. } => "a number",
        FieldKind::Number { integer: true, .. } => match d.as_f64() {
            // `30.0` is an integer to JSON Schema; sent as written, a strict server could refuse it.
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => return Ok(Value::from(f as i64)),
            _ => "a whole number",
        },
        FieldKind::Select { .. } => "one of its choices",
        FieldKind::MultiSelect { .. } => "a list of its choices",
    };
    Err(at(
        name,
        format_args!("has a default that is not {expected}"),
    ))
}

/// The `credential_field:<name>` warning codes of docs/cli.md, in field order.
pub fn credential_warnings(spec: &FormSpec) -> Vec<String> {
    let credentials = spec.fields.iter().filter(|f| f.credential);
    credentials
        .map(|f| format!("credential_field:{}", f.name))
        .collect()
}

/// The answer to send: the given values, and the schema's default for each field left out. A `null` counts as left
/// out (a cleared input); keys that are no field are kept, so that `validate` reports them instead of hiding them.
pub fn with_defaults(spec: &FormSpec, content: Option<&Map<String, Value>>) -> Map<String, Value> {
    let mut answer = Map::new();
    for field in &spec.fields {
        let given = content
            .and_then(|c| c.get(&field.name))
            .filter(|v| !v.is_null());
        if let Some(value) = given.or(field.default.as_ref()) {
            answer.insert(field.name.clone(), value.clone());
        }
    }
    for (key, value) in content.into_iter().flatten() {
        if !spec.fields.iter().any(|f| f.name == *key) {
            answer.insert(key.clone(), value.clone());
        }
    }
    answer
}

#[cfg(test)]
mod tests;
