//! The demo server on the wire, for what `wharf` does not show (yet): the discover answer, the initialize
//! negotiation, the resource and the prompt, and that a cancelled `slow` really stops.

#[path = "support/demo.rs"]
mod support;

use serde_json::json;
use support::{modern_meta, DemoProcess};

fn initialize(server: &mut DemoProcess, version: &str) -> serde_json::Value {
    // An id no other request of these tests uses, so the wait cannot match an earlier response.
    let response = server.request(
        100,
        "initialize",
        json!({"protocolVersion": version, "capabilities": {},
               "clientInfo": {"name": "wharf-demo-tests", "version": "0"}}),
    );
    server.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    response
}

#[test]
fn discover_offers_both_eras() {
    let mut server = DemoProcess::start(&[]);
    let response = server.request(1, "server/discover", json!({"_meta": modern_meta()}));
    let result = &response["result"];
    let versions = result["supportedVersions"].as_array().expect("versions");
    assert!(versions.contains(&json!("2026-07-28")), "{result:#}");
    assert!(versions.contains(&json!("2025-11-25")), "{result:#}");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "wharf-demo-server"
    );
    assert!(result["instructions"]
        .as_str()
        .is_some_and(|i| i.contains("Wharf's bundled demo server")));

    // A discover is only a probe: the same process still accepts the legacy handshake after it.
    let response = initialize(&mut server, "2025-11-25");
    assert_eq!(response["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(server.close(), Some(0));
}

#[test]
fn tools_carry_output_schemas_titles_and_annotations() {
    // `wharf tools` prints name, description and inputSchema only; the rest is checked on the wire.
    let mut server = DemoProcess::start(&[]);
    let listed = server.request(2, "tools/list", json!({"_meta": modern_meta()}));
    let tools = listed["result"]["tools"].as_array().expect("tools").clone();
    let tool = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("no tool {name}"))
            .clone()
    };
    let add = tool("add");
    assert_eq!(add["outputSchema"]["properties"]["sum"]["type"], "number");
    assert_eq!(add["outputSchema"]["required"], json!(["sum"]));
    // kinds echoes what it was given, so nothing but text is sure to be in its output.
    let kinds = tool("kinds");
    assert_eq!(kinds["outputSchema"]["required"], json!(["text"]));
    for t in &tools {
        assert!(t["title"].is_string(), "{t:#}");
        assert_eq!(t["annotations"]["openWorldHint"], false, "{t:#}");
    }
    assert_eq!(tool("echo")["annotations"]["readOnlyHint"], true);
    assert_eq!(tool("crash")["annotations"]["readOnlyHint"], false);
    assert_eq!(server.close(), Some(0));
}

#[test]
fn initialize_negotiates_the_clients_version() {
    let mut server = DemoProcess::start(&[]);
    let response = initialize(&mut server, "2025-06-18");
    assert_eq!(response["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(
        response["result"]["serverInfo"]["name"],
        "wharf-demo-server"
    );
    assert_eq!(server.close(), Some(0));
}

#[test]
fn the_readme_resource_in_both_eras() {
    let mut server = DemoProcess::start(&[]);
    let listed = server.request(2, "resources/list", json!({"_meta": modern_meta()}));
    let resource = &listed["result"]["resources"][0];
    assert_eq!(resource["uri"], "demo://readme", "{listed:#}");
    assert_eq!(resource["mimeType"], "text/markdown");

    let read = server.request(
        3,
        "resources/read",
        json!({"_meta": modern_meta(), "uri": "demo://readme"}),
    );
    let contents = &read["result"]["contents"][0];
    assert_eq!(contents["mimeType"], "text/markdown", "{read:#}");
    assert!(contents["text"]
        .as_str()
        .is_some_and(|t| t.starts_with("# Wharf demo server")));

    let missing = server.request(
        4,
        "resources/read",
        json!({"_meta": modern_meta(), "uri": "demo://nothing"}),
    );
    assert!(missing["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("demo://nothing")));
    assert_eq!(server.close(), Some(0));

    let mut server = DemoProcess::start(&[]);
    initialize(&mut server, "2025-11-25");
    let read = server.request(2, "resources/read", json!({"uri": "demo://readme"}));
    assert_eq!(
        read["result"]["contents"][0]["uri"], "demo://readme",
        "{read:#}"
    );
    assert_eq!(server.close(), Some(0));
}

#[test]
fn the_greet_prompt() {
    let mut server = DemoProcess::start(&[]);
    initialize(&mut server, "2025-11-25");
    let listed = server.request(2, "prompts/list", json!({}));
    let prompt = &listed["result"]["prompts"][0];
    assert_eq!(prompt["name"], "greet", "{listed:#}");
    assert_eq!(prompt["arguments"][0]["name"], "name");
    assert_eq!(prompt["arguments"][0]["required"], true);

    let got = server.request(
        3,
        "prompts/get",
        json!({"name": "greet", "arguments": {"name": "Ada"}}),
    );
    let message = &got["result"]["messages"][0];
    assert_eq!(message["role"], "user", "{got:#}");
    assert!(message["content"]["text"]
        .as_str()
        .is_some_and(|t| t.contains("Ada")));
    assert_eq!(server.close(), Some(0));
}

#[test]
fn a_cancelled_slow_stops_at_once() {
    let mut server = DemoProcess::start(&[]);
    initialize(&mut server, "2025-11-25");
    server.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "slow", "arguments": {"steps": 100, "delay_ms": 50},
        "_meta": {"progressToken": "p"}}}),
    );
    server.wait_stdout("the first progress", |m| {
        m["method"] == "notifications/progress" && m["params"]["progressToken"] == "p"
    });
    server.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"requestId": 2, "reason": "test"}}),
    );
    let line = server.wait_stderr("the cancellation on stderr", |l| {
        l.contains("slow cancelled after")
    });
    assert!(line.contains("of 100 steps"), "{line}");
    // The answer to a cancelled request is dropped; the next request is answered normally.
    let pong = server.request(3, "ping", json!({}));
    assert_eq!(pong["result"], json!({}));
    assert!(
        server.stdout_seen.iter().all(|m| m["id"] != 2),
        "a cancelled request was answered: {:#?}",
        server.stdout_seen
    );
    assert_eq!(server.close(), Some(0));
}

#[test]
fn slow_refuses_out_of_range_steps_as_a_tool_error() {
    let mut server = DemoProcess::start(&[]);
    initialize(&mut server, "2025-11-25");
    let response = server.request(
        2,
        "tools/call",
        json!({"name": "slow", "arguments": {"steps": 0}}),
    );
    assert_eq!(response["result"]["isError"], true, "{response:#}");
    assert!(response["result"]["content"][0]["text"]
        .as_str()
        .is_some_and(|t| t.contains("between 1 and 100")));
    assert_eq!(server.close(), Some(0));
}

#[test]
fn crash_exits_with_status_3_and_says_why() {
    let mut server = DemoProcess::start(&[]);
    initialize(&mut server, "2025-11-25");
    server.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                       "params": {"name": "crash", "arguments": {"message": "boom"}}}));
    server.wait_stderr("the fatal line", |l| l == "fatal: boom");
    assert_eq!(server.wait_exit(), Some(3));
}
