//! The check of an answer before it is sent: `jsonschema` against the server's own schema, so nothing the model
//! leaves out is skipped (formats checked, nothing fetched), plus the rules of the model that JSON Schema does not
//! state. Its messages are for the user: the field's name, then what is wrong in plain words.

use jsonschema::error::ValidationErrorKind;
use serde_json::{Map, Value};

use super::{compile_form, unescape, Choice, FieldKind, FieldProblem, FormField, FormSpec};

/// The authoritative check of an answer before it is sent, against the server's schema (`jsonschema`, formats
/// checked, nothing fetched) and the model: no unknown fields, integers written as integers. One problem per field,
/// in the order found.
pub fn validate(
    requested_schema: &Value,
    spec: &FormSpec,
    content: &Map<String, Value>,
) -> Result<(), Vec<FieldProblem>> {
    let validator = match compile_form(requested_schema) {
        Ok((_, validator)) => validator,
        Err(e) => {
            return Err(vec![FieldProblem {
                field: e.field.unwrap_or_default(),
                message: e.reason,
            }])
        }
    };
    let mut problems: Vec<FieldProblem> = Vec::new();
    let mut add = |field: &str, predicate: String| {
        if !problems.iter().any(|p| p.field == field) {
            let message = if field.is_empty() {
                predicate
            } else {
                format!("\"{field}\" {predicate}")
            };
            problems.push(FieldProblem {
                field: field.to_string(),
                message,
            });
        }
    };
    for key in content
        .keys()
        .filter(|k| !spec.fields.iter().any(|f| f.name == **k))
    {
        add(key, "is not a field of this form".to_string());
    }
    for field in &spec.fields {
        let value = content.get(&field.name);
        // JSON Schema takes `3.0` for an integer; a server parsing it strictly would not.
        if matches!(field.kind, FieldKind::Number { integer: true, .. })
            && value.is_some_and(|v| v.is_f64() && v.as_f64().is_some_and(|f| f.fract() == 0.0))
        {
            add(
                &field.name,
                "must be a whole number written without a decimal point".to_string(),
            );
        }
    }
    let instance = Value::Object(content.clone());
    for error in validator.iter_errors(&instance) {
        let mut segments = error
            .instance_path()
            .as_str()
            .split('/')
            .skip(1)
            .map(unescape);
        let (name, in_item) = match error.kind() {
            ValidationErrorKind::Required { property } => {
                (property.as_str().unwrap_or_default().to_string(), false)
            }
            // Unknown keys were reported above, whatever `additionalProperties` says.
            ValidationErrorKind::AdditionalProperties { .. } => continue,
            _ => (
                segments.next().unwrap_or_default(),
                segments.next().is_some(),
            ),
        };
        let field = spec.fields.iter().find(|f| f.name == name);
        // Not `error.to_string()`: it quotes the value, which may be a secret, into events and logs.
        let fallback = || format!("does not satisfy `{}`", error.kind().keyword());
        add(
            &name,
            predicate(field, error.kind(), in_item).unwrap_or_else(fallback),
        );
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

fn plural(n: u64, one: &str) -> String {
    format!("{n} {one}{}", if n == 1 { "" } else { "s" })
}

fn listed(options: &[Choice]) -> String {
    options
        .iter()
        .map(|o| o.value.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What is wrong, in plain words, after the field's name; `None` for what the subset cannot produce.
fn predicate(
    field: Option<&FormField>,
    kind: &ValidationErrorKind,
    in_item: bool,
) -> Option<String> {
    use ValidationErrorKind as K;
    let field_kind = field.map(|f| &f.kind);
    if let (true, Some(FieldKind::MultiSelect { options, .. })) = (in_item, field_kind) {
        return Some(format!("may only contain: {}", listed(options)));
    }
    Some(match kind {
        K::Required { .. } => "is required".to_string(),
        K::MinLength { limit } => format!("must be at least {} long", plural(*limit, "character")),
        K::MaxLength { limit } => format!("must be at most {} long", plural(*limit, "character")),
        K::Minimum { limit } => format!("must be at least {limit}"),
        K::Maximum { limit } => format!("must be at most {limit}"),
        K::ExclusiveMinimum { limit } => format!("must be more than {limit}"),
        K::ExclusiveMaximum { limit } => format!("must be less than {limit}"),
        K::MultipleOf { .. } => match field_kind? {
            FieldKind::Number {
                multiple_of: Some(m),
                ..
            } => format!("must be a multiple of {m}"),
            _ => return None,
        },
        K::Pattern { pattern } => format!("must match the pattern {pattern}"),
        K::MinItems { limit } => {
            format!("must have at least {} selected", plural(*limit, "choice"))
        }
        K::MaxItems { limit } => format!("must have at most {} selected", plural(*limit, "choice")),
        K::UniqueItems => "must not select the same choice twice".to_string(),
        K::Format { format } => match format.as_str() {
            "email" => "must be an email address".to_string(),
            "uri" => "must be a full URI, such as https://example.com/page".to_string(),
            "date" => "must be a date written YYYY-MM-DD".to_string(),
            "date-time" => "must be a date and time such as 2025-01-31T14:30:00Z".to_string(),
            _ => return None,
        },
        K::Enum { .. } | K::Constant { .. } | K::OneOfNotValid { .. } | K::AnyOf { .. } => {
            match field_kind? {
                FieldKind::Select { options } => format!("must be one of: {}", listed(options)),
                _ => return None,
            }
        }
        K::Type { .. } => match field_kind? {
            FieldKind::String { .. } | FieldKind::Select { .. } => "must be text".to_string(),
            FieldKind::Number { integer: true, .. } => "must be a whole number".to_string(),
            FieldKind::Number { .. } => "must be a number".to_string(),
            FieldKind::Boolean => "must be true or false".to_string(),
            FieldKind::MultiSelect { .. } => "must be a list of choices".to_string(),
        },
        _ => return None,
    })
}
