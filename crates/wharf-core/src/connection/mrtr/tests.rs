// Unit tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rmcp::model::ServerResult;
use serde_json::json;

use super::Round;
use crate::connection::ConnectionError;

fn round(result: serde_json::Value) -> Result<Round, ConnectionError> {
    Round::of(serde_json::from_value::<ServerResult>(result).unwrap())
}

fn protocol_error(result: serde_json::Value) -> String {
    match round(result) {
        Err(ConnectionError::Protocol(message)) => message,
        Err(other) => panic!("expected a protocol error, got {other:?}"),
        Ok(_) => panic!("expected a protocol error, got a round"),
    }
}

#[test]
fn a_null_result_is_a_protocol_error_not_an_empty_result() {
    let message = protocol_error(json!(null));
    assert!(message.contains("not an object"), "{message}");
}

#[test]
fn a_malformed_input_required_result_says_so() {
    // requestState must be a string: rmcp reads this as some other result, which used to be reported as an
    // unknown resultType "input_required".
    let message = protocol_error(json!({"resultType": "input_required", "requestState": 42}));
    assert!(
        message.contains("InputRequiredResult is malformed"),
        "{message}"
    );
    assert!(!message.contains("unknown resultType"), "{message}");
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
