//! MRTR rounds on the three methods that may answer `InputRequiredResult` (tools/call, prompts/get, resources/read),
//! against the python `mcp` SDK fixture in the 2026-07-28 era. The SDK seals each requestState, so a completed call
//! proves every retry echoed it byte for byte.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use serde_json::{json, Value};
use wharf_core::CallOptions;

fn first_text(v: &Value) -> &str {
    v.pointer("/messages/0/content/text")
        .or_else(|| v.pointer("/contents/0/text"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

#[tokio::test]
async fn prompts_and_resources_go_through_their_rounds_too() {
    let host = peers::host(json!({"py": peers::py_server()}));
    let conn = host.connection("py").await.unwrap();
    let options = CallOptions::default();
    let args = json!({"n": "3"}).as_object().cloned();
    let prompt = conn
        .get_prompt("rounds_prompt", args, &options)
        .await
        .unwrap();
    let prompt = prompt.sent();
    assert_eq!(first_text(prompt), "prompt after 3 rounds", "{prompt}");
    let resource = conn.read_resource("rounds://4", &options).await.unwrap();
    let resource = resource.sent();
    assert_eq!(
        first_text(resource),
        "resource after 4 rounds",
        "{resource}"
    );
    // The cap applies to every method alike.
    let capped = CallOptions {
        max_rounds: Some(2),
        ..CallOptions::default()
    };
    let err = conn
        .read_resource("rounds://5", &capped)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("gave up after 2 rounds of reading rounds://5"),
        "{err}"
    );
    host.shutdown().await;
}
