// Unit tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rmcp::model::ServerResult;
use serde_json::{json, Value};

use super::input::ask_of;
use super::Round;
use crate::connection::{ConnectionError, ProtocolError};
use crate::serve::ServerAsk;

fn round(result: serde_json::Value) -> Result<Round, ConnectionError> {
    Round::of(serde_json::from_value::<ServerResult>(result).unwrap())
}

fn protocol_error(result: serde_json::Value) -> String {
    match round(result) {
        Err(ConnectionError::Protocol(error)) => error.to_string(),
        Err(other) => panic!("expected a protocol error, got {other:?}"),
        Ok(_) => panic!("expected a protocol error, got a round"),
    }
}

#[test]
fn a_null_result_is_a_protocol_error_not_an_empty_result() {
    let message = protocol_error(json!(null));
    assert!(message.contains("not an object"), "{message}");
}

fn malformed(input: serde_json::Value) -> String {
    match super::input::read_input(&input) {
        Err(ConnectionError::Protocol(error @ ProtocolError::MalformedInputRequired(_)))
        | Err(ConnectionError::Protocol(error @ ProtocolError::TooManyInputRequests { .. })) => {
            error.to_string()
        }
        other => panic!("expected a malformed input request, got {other:?}"),
    }
}

#[test]
fn a_malformed_input_required_result_says_so() {
    // requestState must be a string: rmcp reads this as some other result, which used to be reported as an
    // unknown resultType "input_required". The round holds it as written, and reading it says what is wrong.
    let result = json!({"resultType": "input_required", "requestState": 42});
    let Ok(Round::InputRequired(raw)) = round(result.clone()) else {
        panic!("not an input round")
    };
    assert_eq!(raw, result);
    let message = malformed(raw);
    assert!(
        message.contains("InputRequiredResult is malformed") && message.contains("requestState"),
        "{message}"
    );
    for (bad, why) in [
        (json!({"resultType": "input_required"}), "neither"),
        (json!({"inputRequests": [1]}), "not an object"),
        (json!({"inputRequests": {}}), "neither"),
    ] {
        let message = malformed(bad);
        assert!(message.contains(why), "{message}");
    }
    let many: serde_json::Map<_, _> = (0..=super::input::MAX_INPUT_REQUESTS)
        .map(|i| (i.to_string(), json!({"method": "roots/list"})))
        .collect();
    let message = malformed(json!({"inputRequests": many}));
    assert!(message.contains("over Wharf's limit"), "{message}");
    let only_state = json!({"requestState": "s"});
    let (state, requests) = super::input::read_input(&only_state).unwrap();
    assert_eq!((state.as_deref(), requests.len()), (Some("s"), 0));
}

#[test]
fn complete_and_input_required_results_are_rounds() {
    assert!(matches!(
        round(json!({"content": [], "resultType": "complete"})),
        Ok(Round::Complete(_))
    ));
    assert!(matches!(
        round(json!({"resultType": "input_required", "requestState": "s"})),
        Ok(Round::InputRequired(_))
    ));
    let message = protocol_error(json!({"resultType": "later"}));
    assert!(
        message.contains("unknown resultType \"later\""),
        "{message}"
    );
}

#[test]
fn an_input_request_is_read_by_its_method_with_its_params_untouched() {
    let schema =
        json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "^x"}}});
    let form = json!({"method": "elicitation/create", "params": {"message": "m", "requestedSchema": schema}});
    assert_eq!(
        ask_of(&form),
        Some(ServerAsk::Elicit(
            json!({"message": "m", "requestedSchema": schema})
        ))
    );
    assert_eq!(
        ask_of(&json!({"method": "roots/list"})),
        Some(ServerAsk::ListRoots)
    );
    assert_eq!(
        ask_of(&json!({"method": "sampling/createMessage"})),
        Some(ServerAsk::CreateMessage(Value::Null))
    );
    for other in [
        json!({"method": "tools/call", "params": {}}),
        json!({"method": 7}),
        json!({"params": {}}),
        json!("roots/list"),
    ] {
        assert_eq!(ask_of(&other), None, "{other}");
    }
}
