//! The elicitation form model: any `requestedSchema` and any answer, through `parse_form`, `checked_content` and
//! the whole `elicit` path. An answer Wharf would send validates against the server's full schema (checked here
//! by a validator of our own, formats asserted), names only the form's fields, and has every required one.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use futures::future::BoxFuture;
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use wharf_core::broker::{Broker, DeclaredCapabilities, UserAgent};
use wharf_core::elicitation::form::parse_form;
use wharf_core::elicitation::{checked_content, elicit, ElicitReply, Elicitation};
use wharf_core::question::form::{FieldKind, FormField, FormSpec};
use wharf_core::question::{InputAnswer, InputKind, InputRequest, SentAnswer};
use wharf_core::EventSink;

use crate::strategies::{form_schema, json, number, text};

/// A value for `field` that a form could produce, or (sometimes) one it could not.
fn value_for(field: &FormField) -> BoxedStrategy<Value> {
    let fitting = match &field.kind {
        FieldKind::String { format, .. } => {
            let sample = match format.map(|f| serde_json::to_value(f).unwrap_or_default()) {
                Some(Value::String(f)) if f == "email" => "a@example.com",
                Some(Value::String(f)) if f == "uri" => "https://example.com/x",
                Some(Value::String(f)) if f == "date" => "2025-01-31",
                Some(Value::String(f)) if f == "date-time" => "2025-01-31T10:20:30Z",
                _ => "",
            };
            if sample.is_empty() {
                "[a-z]{0,8}".prop_map(Value::String).boxed()
            } else {
                Just(Value::from(sample)).boxed()
            }
        }
        FieldKind::Number {
            minimum, maximum, ..
        } => {
            let low = minimum.as_ref().and_then(|n| n.as_i64()).unwrap_or(-5);
            let high = maximum
                .as_ref()
                .and_then(|n| n.as_i64())
                .unwrap_or(low + 10)
                .max(low);
            prop_oneof![3 => (low..=high).prop_map(Value::from), 1 => number()].boxed()
        }
        FieldKind::Boolean => any::<bool>().prop_map(Value::Bool).boxed(),
        FieldKind::Select { options } if !options.is_empty() => {
            let values: Vec<Value> = options
                .iter()
                .map(|c| Value::from(c.value.clone()))
                .collect();
            prop::sample::select(values).boxed()
        }
        FieldKind::MultiSelect { options, .. } => {
            let values: Vec<Value> = options
                .iter()
                .map(|c| Value::from(c.value.clone()))
                .collect();
            prop::sample::subsequence(values.clone(), 0..=values.len())
                .prop_map(Value::Array)
                .boxed()
        }
        FieldKind::Select { .. } => text().prop_map(Value::String).boxed(),
    };
    prop_oneof![12 => fitting, 1 => json()].boxed()
}

/// Answers made for the form `schema` parses to: each field given a value or left out, and sometimes a key the
/// form does not have.
fn answer_for(schema: &Value) -> BoxedStrategy<Value> {
    let spec = parse_form(schema).unwrap_or(FormSpec { fields: vec![] });
    let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = spec
        .fields
        .iter()
        .map(|f| {
            let name = f.name.clone();
            prop::option::of(value_for(f).prop_map(move |v| (name.clone(), v))).boxed()
        })
        .collect();
    let extra = prop::option::weighted(0.2, (text(), json()));
    (fields, extra)
        .prop_map(|(fields, extra)| {
            let map: Map<String, Value> = fields.into_iter().flatten().chain(extra).collect();
            Value::Object(map)
        })
        .boxed()
}

/// A property of the flat subset, each keyword of the right type (so answers are accepted often enough to check).
fn clean_property() -> impl Strategy<Value = Value> {
    let choices = prop::sample::subsequence(vec!["a", "b", "c", "d"], 1..4);
    prop_oneof![
        (0u64..3, prop::option::of(3u64..9)).prop_map(|(min, max)| {
            let mut p = json!({"type": "string", "minLength": min});
            if let Some(max) = max {
                p["maxLength"] = json!(max);
            }
            p
        }),
        prop::sample::select(vec!["email", "uri", "date", "date-time"])
            .prop_map(|f| json!({"type": "string", "format": f})),
        Just(json!({"type": "string", "pattern": "^[a-z]*$"})),
        (prop::sample::select(vec!["number", "integer"]), -5i64..5, 0i64..10)
            .prop_map(|(t, min, span)| json!({"type": t, "minimum": min, "maximum": min + span})),
        any::<bool>().prop_map(|d| json!({"type": "boolean", "default": d})),
        choices.clone().prop_map(|c| json!({"type": "string", "enum": c})),
        choices.clone().prop_map(|c| {
            let one_of: Vec<Value> = c.iter().map(|v| json!({"const": v, "title": v.to_uppercase()})).collect();
            json!({"type": "string", "oneOf": one_of})
        }),
        (choices, 0u64..2).prop_map(|(c, min)| {
            json!({"type": "array", "items": {"type": "string", "enum": c}, "minItems": min, "uniqueItems": true})
        }),
    ]
}

fn clean_schema() -> impl Strategy<Value = Value> {
    (
        prop::collection::btree_map("[a-e]", clean_property(), 0..5),
        prop::collection::vec(any::<prop::sample::Index>(), 0..3),
    )
        .prop_map(|(properties, picks)| {
            let names: Vec<&String> = properties.keys().collect();
            let required: Vec<&String> = match names.len() {
                0 => Vec::new(),
                n => picks.iter().map(|i| names[i.index(n)]).collect(),
            };
            let properties: Map<String, Value> = properties.clone().into_iter().collect();
            json!({"type": "object", "properties": properties, "required": required})
        })
}

fn schema_and_answer() -> impl Strategy<Value = (Value, Value)> {
    prop_oneof![2 => clean_schema(), 1 => form_schema()].prop_flat_map(|schema| {
        let answer = prop_oneof![8 => answer_for(&schema), 1 => json()];
        (Just(schema), answer)
    })
}

/// What Wharf would send for `schema` must satisfy: the schema itself, the form's fields only, required ones present.
fn check_sent(
    schema: &Value,
    spec: &FormSpec,
    sent: &Map<String, Value>,
) -> Result<(), TestCaseError> {
    let mut plain = schema.clone();
    if let Some(top) = plain.as_object_mut() {
        top.remove("$schema");
    }
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&plain)
        .map_err(|e| {
            TestCaseError::fail(format!(
                "accepted a form whose schema does not compile: {e}"
            ))
        })?;
    let instance = Value::Object(sent.clone());
    prop_assert!(
        validator.is_valid(&instance),
        "{} does not satisfy {}",
        instance,
        schema
    );
    for key in sent.keys() {
        prop_assert!(
            spec.fields.iter().any(|f| &f.name == key),
            "{key} is no field of {schema}"
        );
    }
    for field in spec.fields.iter().filter(|f| f.required) {
        prop_assert!(
            sent.contains_key(&field.name),
            "required {} missing from {}",
            field.name,
            instance
        );
    }
    Ok(())
}

proptest! {
    #[test]
    fn any_schema_parses_or_is_refused(schema in json()) {
        if let Ok(spec) = parse_form(&schema) {
            let _ = checked_content(&schema, &spec, None);
        }
    }

    #[test]
    fn an_accepted_answer_satisfies_the_schema((schema, answer) in schema_and_answer()) {
        if let (Ok(spec), InputAnswer::Accept { content }) = (parse_form(&schema), sent_to_form(answer)) {
            if let Ok(sent) = checked_content(&schema, &spec, content.as_ref()) {
                check_sent(&schema, &spec, &sent)?;
            }
        }
    }
}

/// `content` sent by a front end as the accepted answer to a form, as Wharf reads it: a value that is no object of
/// fields is refused there, and the user's only way on is to cancel.
fn sent_to_form(content: Value) -> InputAnswer {
    SentAnswer::Accept {
        content: Some(content),
    }
    .read(InputKind::ElicitationForm, None)
    .unwrap_or(InputAnswer::Cancel)
}

/// The user of the whole `elicit` path: answers with the content the case chose.
struct Answering(Value);

impl UserAgent for Answering {
    fn answer(&self, _request: InputRequest) -> BoxFuture<'_, InputAnswer> {
        let answer = sent_to_form(self.0.clone());
        Box::pin(async move { answer })
    }
}

proptest! {
    #[test]
    fn elicit_sends_only_answers_that_satisfy_the_schema(
        (schema, answer) in schema_and_answer(),
        message in text(),
    ) {
        // A server of its own per case: the guard's rate limit and "declined before" are per server.
        static SERVERS: AtomicU64 = AtomicU64::new(0);
        let server = format!("fuzz-{}", SERVERS.fetch_add(1, Ordering::Relaxed));
        let broker = Broker::new(
            DeclaredCapabilities { elicitation_form: true, ..DeclaredCapabilities::default() },
            Arc::new(Answering(answer)),
        );
        let params = json!({"mode": "form", "message": message, "requestedSchema": schema});
        let events = EventSink::discard();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let guard = Default::default();
        let reply = rt.block_on(elicit(Elicitation {
            broker: &broker,
            guard: &guard,
            events: &events,
            server: &server,
            cause: None,
            params: &params,
        }));
        match reply {
            Ok(ElicitReply::Accept(Some(sent))) => {
                let spec = parse_form(&schema);
                prop_assert!(spec.is_ok(), "accepted a form that does not parse: {}", schema);
                check_sent(&schema, &spec.unwrap(), &sent)?;
            }
            Ok(ElicitReply::Accept(None)) => prop_assert!(false, "a form accepted without content"),
            Ok(_) => {}
            Err(e) => prop_assert!(false, "form elicitation was declared: {e}"),
        }
    }
}
