//! The MRTR driver against a server that answers whatever the fuzzer wrote (tests/fixtures/mirror_server.py):
//! `InputRequiredResult`s with arbitrary `inputRequests` and `requestState`, unknown result types, anything at all.
//! Every call ends (no hang, no panic), within the round cap, and every retry echoes the previous round's
//! `requestState` byte for byte and answers exactly the keys it was asked.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{json, Value};
use wharf_core::broker::{Broker, DeclaredCapabilities, UserAgent};
use wharf_core::question::{InputAnswer, InputRequest};
use wharf_core::{CallOptions, Connection, ConnectionError, EventSink, Host, HostOptions};

use crate::peers;
use crate::strategies::{form_schema, json, text, with_keys};

const MAX_ROUNDS: usize = 4;

/// Accepts every form with its defaults; declines every URL, so no browser is ever started.
struct Agent;

impl UserAgent for Agent {
    fn answer(&self, request: InputRequest) -> BoxFuture<'_, InputAnswer> {
        let answer = match request.kind {
            wharf_core::InputKind::ElicitationUrl => InputAnswer::Decline,
            _ => InputAnswer::Accept { content: None },
        };
        Box::pin(async move { answer })
    }
}

fn input_request() -> impl Strategy<Value = Value> {
    let method = prop_oneof![
        3 => Just(Value::from("elicitation/create")),
        1 => Just(Value::from("roots/list")),
        1 => Just(Value::from("sampling/createMessage")),
        1 => json(),
    ];
    let form = (text(), form_schema(), json()).prop_map(|(message, schema, extra)| {
        with_keys(
            vec![
                ("mode", Some(json!("form"))),
                ("message", Some(Value::String(message))),
                ("requestedSchema", Some(schema)),
            ],
            extra,
        )
    });
    let url = (text(), text(), json()).prop_map(|(url, id, extra)| {
        with_keys(
            vec![
                ("mode", Some(json!("url"))),
                ("message", Some(json!("open this"))),
                ("url", Some(Value::String(url))),
                ("elicitationId", Some(Value::String(id))),
            ],
            extra,
        )
    });
    let params = prop_oneof![3 => form, 1 => url, 1 => json()];
    (method, params, prop::option::of(json())).prop_map(|(method, params, extra)| {
        with_keys(
            vec![("method", Some(method)), ("params", Some(params))],
            extra.unwrap_or(Value::Null),
        )
    })
}

fn input_required() -> impl Strategy<Value = Value> {
    let requests = prop::collection::btree_map("[a-c]|[ -~]{0,3}", input_request(), 0..3)
        .prop_map(|m| Value::Object(m.into_iter().collect()));
    let state = prop_oneof![
        2 => text().prop_map(Value::String),
        1 => json(),
    ];
    (
        prop::option::of(requests),
        prop::option::of(state),
        prop_oneof![4 => Just(json!("input_required")), 1 => json()],
        prop::option::of(json()),
    )
        .prop_map(|(requests, state, result_type, extra)| {
            with_keys(
                vec![
                    ("resultType", Some(result_type)),
                    ("inputRequests", requests),
                    ("requestState", state),
                ],
                extra.unwrap_or(Value::Null),
            )
        })
}

fn reply() -> impl Strategy<Value = Value> {
    let complete = (prop::option::of(json()), json()).prop_map(|(content, extra)| {
        with_keys(
            vec![
                ("resultType", Some(json!("complete"))),
                ("content", content),
            ],
            extra,
        )
    });
    prop_oneof![4 => input_required(), 1 => complete, 1 => json()]
}

fn runner() -> TestRunner {
    // Config::default() reads PROPTEST_CASES, which `make fuzz` raises.
    TestRunner::new(Config {
        source_file: Some(file!()),
        ..Config::default()
    })
}

#[test]
fn rounds_end_and_echo_what_the_server_sent() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let broker = Broker::new(
        DeclaredCapabilities {
            roots: true,
            elicitation_form: true,
            elicitation_url: true,
            ..DeclaredCapabilities::default()
        },
        Arc::new(Agent),
    );
    let host = rt.block_on(async {
        Host::new(
            peers::config(json!({"mirror": peers::fixture_server("mirror_server.py")})),
            broker,
            EventSink::discard(),
            HostOptions::default(),
        )
    });
    let conn = rt.block_on(host.connection("mirror")).unwrap();
    let cases = AtomicU64::new(0);
    let strategy = prop::collection::vec(reply(), 1..=MAX_ROUNDS + 1);
    let outcome = runner().run(&strategy, |replies| {
        let case = cases.fetch_add(1, Ordering::Relaxed).to_string();
        rt.block_on(check_case(&conn, &case, &replies))
    });
    rt.block_on(host.shutdown());
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

async fn check_case(conn: &Connection, case: &str, replies: &[Value]) -> Result<(), TestCaseError> {
    let options = CallOptions {
        // The mirror answers at once: running into this means an answer was lost.
        timeout: Some(Duration::from_secs(5)),
        max_rounds: Some(MAX_ROUNDS),
        ..CallOptions::default()
    };
    let args = json!({"case": case, "replies": replies});
    let outcome = conn
        .call_tool("mirror", args.as_object().cloned(), &options)
        .await;
    match &outcome {
        Err(ConnectionError::Timeout(_)) | Err(ConnectionError::Closed(_)) => {
            return Err(TestCaseError::fail(format!("{outcome:?} for {replies:?}")))
        }
        // Any result the caller gets is an object with content; anything else is refused as a protocol error.
        Ok(result) => prop_assert!(
            result.sent().is_object() && result.sent().get("content").is_some(),
            "{}",
            result.sent()
        ),
        Err(_) => {}
    }
    let log = conn
        .call_tool("log", json!({"case": case}).as_object().cloned(), &options)
        .await
        .map_err(|e| TestCaseError::fail(format!("the log call failed after {replies:?}: {e}")))?;
    let text = log
        .sent()
        .pointer("/content/0/text")
        .and_then(Value::as_str)
        .unwrap_or("[]");
    let rounds: Vec<Value> = serde_json::from_str(text).unwrap();
    prop_assert!(
        !rounds.is_empty() && rounds.len() <= MAX_ROUNDS,
        "{rounds:?}"
    );
    prop_assert_eq!(
        &rounds[0],
        &json!({"requestState": null, "inputResponses": null})
    );
    for (i, round) in rounds.iter().enumerate().skip(1) {
        // What the server answered the round before this retry.
        let asked = &replies[(i - 1).min(replies.len() - 1)];
        prop_assert_eq!(
            asked.get("resultType"),
            Some(&json!("input_required")),
            "retried after a reply that was not input_required: {}",
            asked
        );
        prop_assert_eq!(
            round.get("requestState").unwrap_or(&Value::Null),
            asked.get("requestState").unwrap_or(&Value::Null),
            "requestState not echoed"
        );
        let keys: BTreeSet<&str> = asked
            .get("inputRequests")
            .and_then(Value::as_object)
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let answered: Option<BTreeSet<&str>> = round
            .get("inputResponses")
            .and_then(Value::as_array)
            .map(|keys| keys.iter().filter_map(Value::as_str).collect());
        if keys.is_empty() {
            prop_assert_eq!(answered, None);
        } else {
            prop_assert_eq!(answered, Some(keys));
        }
    }
    Ok(())
}
