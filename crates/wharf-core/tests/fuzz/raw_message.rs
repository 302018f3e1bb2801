//! What the transports do to every message a server writes before rmcp reads it (`raw_message::screen`): any JSON
//! at all, and JSON-RPC-shaped messages with the methods and results it rewrites. It never panics; a request whose
//! id a reply can carry always reaches the handler as a request with that id (so it is answered, never dropped); an
//! `elicitation/create` reaches it with its params untouched; an input-required result comes back untouched.

use proptest::prelude::*;
use rmcp::model::{JsonRpcMessage, NumberOrString, RequestId, ServerJsonRpcMessage};
use serde_json::{json, Value};
use wharf_core::raw_message::{input_required, screen, RAW_ELICITATION};

use crate::strategies::{form_schema, json, text, with_keys};

fn id() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => any::<i64>().prop_map(Value::from),
        2 => text().prop_map(Value::String),
        1 => json(),
    ]
}

fn method() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "elicitation/create",
            "sampling/createMessage",
            "roots/list",
            "ping",
            "wharf/raw-elicitation",
            "wharf/refused-request",
            "vendor/thing",
        ])
        .prop_map(Value::from),
        1 => json(),
    ]
}

fn params() -> impl Strategy<Value = Value> {
    let elicitation = (text(), form_schema(), json()).prop_map(|(message, schema, extra)| {
        with_keys(
            vec![
                ("message", Some(Value::String(message))),
                ("requestedSchema", Some(schema)),
            ],
            extra,
        )
    });
    prop_oneof![2 => elicitation, 2 => json()]
}

fn message() -> impl Strategy<Value = Value> {
    let request = (id(), method(), prop::option::of(params())).prop_map(|(id, method, params)| {
        with_keys(
            vec![
                ("jsonrpc", Some(json!("2.0"))),
                ("id", Some(id)),
                ("method", Some(method)),
                ("params", params),
            ],
            Value::Null,
        )
    });
    let result = (id(), json(), prop::option::of(json())).prop_map(|(id, extra, requests)| {
        let result = with_keys(
            vec![
                ("resultType", Some(json!("input_required"))),
                ("inputRequests", requests),
            ],
            extra,
        );
        json!({"jsonrpc": "2.0", "id": id, "result": result})
    });
    prop_oneof![3 => request, 2 => result, 1 => json()]
}

fn request_id(id: &Value) -> Option<RequestId> {
    match id {
        Value::String(s) => Some(NumberOrString::String(s.as_str().into())),
        Value::Number(n) => n.as_i64().map(NumberOrString::Number),
        _ => None,
    }
}

proptest! {
    #[test]
    fn every_answerable_request_reaches_the_handler_and_elicitations_keep_their_params(message in message()) {
        let screened = screen(&message);
        let is_request = message.get("method").is_some_and(Value::is_string)
            && message.get("id").and_then(request_id).is_some();
        let read = screened.clone().unwrap_or_else(|| message.clone());
        if is_request {
            let parsed: Result<ServerJsonRpcMessage, _> = serde_json::from_value(read.clone());
            let Ok(JsonRpcMessage::Request(r)) = parsed else {
                return Err(TestCaseError::fail(format!("request lost: {message} -> {read}")));
            };
            prop_assert_eq!(Some(r.id), message.get("id").and_then(request_id));
        }
        if message.get("method") == Some(&json!("elicitation/create")) && is_request {
            if let Some(params @ Value::Object(_)) = message.get("params") {
                prop_assert_eq!(&read["method"], &json!(RAW_ELICITATION));
                prop_assert_eq!(&read["params"]["params"], params);
            }
        }
        if let (Some(result), Some(out)) = (message.get("result"), &screened) {
            let error = &out["error"];
            let code = error["code"].as_i64().unwrap_or_default() as i32;
            prop_assert_eq!(input_required(code, error.get("data")), Some(result));
        }
    }
}
