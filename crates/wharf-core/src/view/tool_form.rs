//! A tool's `inputSchema` read once, here, into the fields of an arguments form: the window renders the fields it
//! is given and never interprets JSON Schema itself.
//!
//! Understood: strings (length, pattern, format), numbers and integers (bounds, draft-4 boolean exclusive bounds),
//! booleans, enums (`enum` with the legacy `enumNames`, `const`, and `oneOf`/`anyOf` of `const` + `title`),
//! multi-selects (arrays of enums), arrays of anything understood, nested objects, and nullable types (`type: [T,
//! "null"]`, `anyOf: [T, {type: "null"}]`). Anything else (`$ref`, real unions, `allOf`, tuples, free-form maps) is
//! a raw JSON field that says why, and a root that is not a plain object schema makes the whole form raw JSON. A
//! server's schema is untrusted: it may be deep, self-contradicting or nonsense, and each of those ends in a raw
//! field rather than an error.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::connection::ToolInfo;

/// A tool as the window lists it: what the server said, and the form its arguments are entered in.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ListedTool {
    #[serde(flatten)]
    pub info: ToolInfo,
    pub form: ToolForm,
}

impl From<ToolInfo> for ListedTool {
    fn from(info: ToolInfo) -> Self {
        let form = tool_form(&info.input_schema);
        ListedTool { info, form }
    }
}

/// The arguments form: the root object's fields, or raw JSON only when the root is not a plain object schema.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[ts(export)]
pub enum ToolForm {
    Form {
        fields: Vec<ArgField>,
    },
    /// `reason` is a sentence shown above the JSON editor.
    Raw {
        reason: String,
    },
}

/// One argument (or an array's item template, whose `key` is empty).
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ArgField {
    /// The property name: the key in the arguments object.
    pub key: String,
    /// The schema's `title`, else the key.
    pub label: String,
    pub description: Option<String>,
    pub required: bool,
    /// The schema allows null: an empty required field is sent as null.
    pub nullable: bool,
    /// The schema's `default`, pre-filled when the field can show it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub default: Option<Value>,
    #[serde(flatten)]
    pub kind: ArgKind,
}

/// Bounds are JSON numbers as the schema wrote them; a bound that is not a number is left out.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[ts(export)]
pub enum ArgKind {
    String {
        format: Option<String>,
        min_length: Option<f64>,
        max_length: Option<f64>,
        pattern: Option<String>,
        /// Long or media-typed text gets a text area.
        multiline: bool,
    },
    /// `number`, or `integer` when `integer` is true.
    Number {
        integer: bool,
        minimum: Option<f64>,
        maximum: Option<f64>,
        exclusive_minimum: Option<f64>,
        exclusive_maximum: Option<f64>,
    },
    Boolean,
    Enum {
        options: Vec<ArgChoice>,
    },
    /// An array of enum values, chosen with check boxes.
    Multi {
        options: Vec<ArgChoice>,
        min_items: Option<f64>,
        max_items: Option<f64>,
    },
    Array {
        item: Box<ArgField>,
        min_items: Option<f64>,
        max_items: Option<f64>,
    },
    Object {
        fields: Vec<ArgField>,
    },
    /// Entered as JSON; `reason` says why the form cannot show it ("uses $ref").
    Raw {
        reason: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct ArgChoice {
    /// What is sent.
    pub value: Value,
    /// What is shown.
    pub label: String,
}

/// Deeper than this, a server's schema is shown as raw JSON: a form nobody can read helps nobody, and the bound
/// keeps a hostile schema from recursing without end.
const MAX_DEPTH: usize = 8;
/// A string allowed to be longer than this gets a text area.
const MULTILINE_OVER: f64 = 200.0;
/// Keywords whose meaning the form cannot show.
const UNSUPPORTED: [&str; 5] = ["$ref", "allOf", "not", "if", "$dynamicRef"];

/// The reasons the root's shape is judged by.
const ANY_JSON: &str = "accepts any JSON";
const NO_PROPERTIES: &str = "is an object without listed properties";

/// The form for a tool's `inputSchema`.
pub fn tool_form(schema: &Value) -> ToolForm {
    let Some(object) = schema.as_object() else {
        return ToolForm::Raw {
            reason: "The input schema is not an object.".into(),
        };
    };
    let root = field_for("", Some(schema), true, 0);
    match root.kind {
        ArgKind::Object { fields } => ToolForm::Form { fields },
        ArgKind::Raw { reason } if reason == NO_PROPERTIES && typeless_or_object(object) => {
            // `{type: "object"}` alone: a tool without arguments, unless it takes any keys at all.
            match object.get("additionalProperties") {
                None | Some(Value::Bool(false)) => ToolForm::Form { fields: Vec::new() },
                Some(_) => ToolForm::Raw {
                    reason: "The arguments are a free-form object.".into(),
                },
            }
        }
        ArgKind::Raw { reason } if reason == ANY_JSON => ToolForm::Form { fields: Vec::new() },
        ArgKind::Raw { reason } => ToolForm::Raw {
            reason: format!("The input schema {reason}."),
        },
        other => ToolForm::Raw {
            reason: format!("The input schema is a {}.", kind_name(&other)),
        },
    }
}

fn typeless_or_object(schema: &Map<String, Value>) -> bool {
    schema.get("type").is_none_or(|t| *t == "object")
}

fn kind_name(kind: &ArgKind) -> &'static str {
    match kind {
        ArgKind::String { .. } => "string",
        ArgKind::Number { .. } => "number",
        ArgKind::Boolean => "boolean",
        ArgKind::Enum { .. } => "enum",
        ArgKind::Multi { .. } => "multi",
        ArgKind::Array { .. } => "array",
        ArgKind::Object { .. } => "object",
        ArgKind::Raw { .. } => "raw",
    }
}

fn number(value: Option<&Value>) -> Option<f64> {
    value.and_then(Value::as_f64).filter(|n| n.is_finite())
}

fn text(value: Option<&Value>) -> Option<String> {
    value.and_then(Value::as_str).map(str::to_owned)
}

/// A value as an option reads: a string as it is, anything else as compact JSON.
fn option_label(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").is_some_and(|t| t == "null")
}

/// `oneOf`/`anyOf` whose every branch is `{const, title?}`: an enum with titles.
fn const_choices(branches: Option<&Value>) -> Option<Vec<ArgChoice>> {
    let branches = branches?.as_array().filter(|b| !b.is_empty())?;
    branches
        .iter()
        .map(|branch| {
            let value = branch.as_object()?.get("const")?.clone();
            let label = text(branch.get("title")).unwrap_or_else(|| option_label(&value));
            Some(ArgChoice { value, label })
        })
        .collect()
}

/// The choices of an enum-like schema: `enum` (+ `enumNames`), `const`, or `oneOf`/`anyOf` of consts.
fn enum_choices(schema: &Map<String, Value>) -> Option<Vec<ArgChoice>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        if !values.is_empty() {
            let names: Option<Vec<&str>> = schema
                .get("enumNames")
                .and_then(Value::as_array)
                .filter(|names| names.len() == values.len())
                .and_then(|names| names.iter().map(Value::as_str).collect());
            return Some(
                values
                    .iter()
                    .enumerate()
                    .map(|(i, value)| ArgChoice {
                        value: value.clone(),
                        label: names
                            .as_ref()
                            .and_then(|n| n.get(i))
                            .map_or_else(|| option_label(value), |n| (*n).to_owned()),
                    })
                    .collect(),
            );
        }
    }
    if let Some(value) = schema.get("const") {
        let label = text(schema.get("title")).unwrap_or_else(|| option_label(value));
        return Some(vec![ArgChoice {
            value: value.clone(),
            label,
        }]);
    }
    const_choices(schema.get("oneOf")).or_else(|| const_choices(schema.get("anyOf")))
}

/// A schema with its nullability taken out: `type: [T, "null"]` and `anyOf`/`oneOf: [T, {type: "null"}]` become T.
/// The outer keywords (title, description, default) win over the branch's.
struct Unwrapped<'a> {
    schema: Cow<'a, Map<String, Value>>,
    nullable: bool,
}

fn unwrap_nullable(schema: &Map<String, Value>) -> Result<Unwrapped<'_>, String> {
    if let Some(types) = schema.get("type").and_then(Value::as_array) {
        let rest: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
        return match rest.as_slice() {
            [Value::String(only)] => {
                let mut single = schema.clone();
                single.insert("type".into(), Value::String(only.clone()));
                Ok(Unwrapped {
                    schema: Cow::Owned(single),
                    nullable: rest.len() < types.len(),
                })
            }
            _ => {
                let names: Vec<String> = types.iter().map(option_label).collect();
                Err(format!("has several types ({})", names.join(", ")))
            }
        };
    }
    for union in ["anyOf", "oneOf"] {
        let Some(branches) = schema.get(union).and_then(Value::as_array) else {
            continue;
        };
        if const_choices(schema.get(union)).is_some() {
            continue;
        }
        let rest: Vec<&Value> = branches.iter().filter(|b| !is_null_schema(b)).collect();
        if let [Value::Object(branch)] = rest.as_slice() {
            if rest.len() < branches.len() {
                let mut merged = branch.clone();
                for (key, value) in schema.iter().filter(|(key, _)| *key != union) {
                    merged.insert(key.clone(), value.clone());
                }
                return Ok(Unwrapped {
                    schema: Cow::Owned(merged),
                    nullable: true,
                });
            }
        }
        return Err(format!("uses {union}"));
    }
    Ok(Unwrapped {
        schema: Cow::Borrowed(schema),
        nullable: false,
    })
}

fn raw(base: ArgField, reason: impl Into<String>) -> ArgField {
    ArgField {
        kind: ArgKind::Raw {
            reason: reason.into(),
        },
        ..base
    }
}

fn field_for(key: &str, input: Option<&Value>, required: bool, depth: usize) -> ArgField {
    let plain = ArgField {
        key: key.to_owned(),
        label: key.to_owned(),
        description: None,
        required,
        nullable: false,
        default: None,
        kind: ArgKind::Boolean,
    };
    let input = match input {
        None | Some(Value::Bool(true)) => return raw(plain, ANY_JSON),
        Some(Value::Object(o)) if o.is_empty() => return raw(plain, ANY_JSON),
        Some(Value::Object(o)) => o,
        Some(_) => return raw(plain, "has an invalid schema"),
    };
    let unwrapped = unwrap_nullable(input);
    let (schema, nullable) = match &unwrapped {
        Ok(u) => (&*u.schema, u.nullable),
        Err(_) => (input, false),
    };
    let base = ArgField {
        label: text(schema.get("title")).unwrap_or_else(|| key.to_owned()),
        description: text(schema.get("description")),
        nullable,
        default: schema.get("default").cloned(),
        ..plain
    };
    if let Err(reason) = unwrapped {
        return raw(base, reason);
    }
    if depth > MAX_DEPTH {
        return raw(base, "is nested too deeply");
    }
    if let Some(keyword) = UNSUPPORTED.iter().find(|k| schema.contains_key(**k)) {
        return raw(base, format!("uses {keyword}"));
    }
    let declared = schema.get("type").and_then(Value::as_str);
    if declared != Some("array") {
        if let Some(options) = enum_choices(schema) {
            return ArgField {
                kind: ArgKind::Enum { options },
                ..base
            };
        }
    }
    if let Some(union) = ["anyOf", "oneOf"].iter().find(|k| schema.contains_key(**k)) {
        return raw(base, format!("uses {union}"));
    }
    let kind = match declared {
        Some(t) => t,
        None if schema.get("properties").is_some_and(Value::is_object) => "object",
        None if schema.contains_key("items") => "array",
        None => return raw(base, "has no type"),
    };
    let kind = match kind {
        "string" => ArgKind::String {
            format: text(schema.get("format")),
            min_length: number(schema.get("minLength")),
            max_length: number(schema.get("maxLength")),
            pattern: text(schema.get("pattern")),
            multiline: number(schema.get("maxLength")).is_some_and(|n| n > MULTILINE_OVER)
                || schema.contains_key("contentMediaType"),
        },
        "number" | "integer" => number_kind(schema, kind == "integer"),
        "boolean" => ArgKind::Boolean,
        "object" => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return raw(base, NO_PROPERTIES);
            };
            let needed = schema.get("required").and_then(Value::as_array);
            let fields = properties
                .iter()
                .map(|(name, sub)| {
                    let required = needed.is_some_and(|n| n.iter().any(|r| r == name.as_str()));
                    field_for(name, Some(sub), required, depth + 1)
                })
                .collect();
            ArgKind::Object { fields }
        }
        "array" => {
            let items = schema.get("items");
            if schema.contains_key("prefixItems") || items.is_some_and(Value::is_array) {
                return raw(base, "is a tuple");
            }
            let Some(item_schema) = items.and_then(Value::as_object) else {
                return raw(base, "has no item schema");
            };
            let min_items = number(schema.get("minItems"));
            let max_items = number(schema.get("maxItems"));
            match enum_choices(item_schema) {
                Some(options) => ArgKind::Multi {
                    options,
                    min_items,
                    max_items,
                },
                None => ArgKind::Array {
                    item: Box::new(field_for("", items, true, depth + 1)),
                    min_items,
                    max_items,
                },
            }
        }
        other => return raw(base, format!("has type {other}")),
    };
    ArgField { kind, ..base }
}

fn number_kind(schema: &Map<String, Value>, integer: bool) -> ArgKind {
    let mut minimum = number(schema.get("minimum"));
    let mut maximum = number(schema.get("maximum"));
    let mut exclusive_minimum = number(schema.get("exclusiveMinimum"));
    let mut exclusive_maximum = number(schema.get("exclusiveMaximum"));
    // Draft 4 wrote exclusive bounds as booleans beside minimum and maximum.
    if schema.get("exclusiveMinimum") == Some(&Value::Bool(true)) {
        exclusive_minimum = minimum.take();
    }
    if schema.get("exclusiveMaximum") == Some(&Value::Bool(true)) {
        exclusive_maximum = maximum.take();
    }
    ArgKind::Number {
        integer,
        minimum,
        maximum,
        exclusive_minimum,
        exclusive_maximum,
    }
}

#[cfg(test)]
#[path = "tool_form/tests.rs"]
mod tests;
