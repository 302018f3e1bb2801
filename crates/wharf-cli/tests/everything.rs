//! `wharf` against the reference server `@modelcontextprotocol/server-everything@2026.8.31` (legacy era), over stdio
//! and Streamable HTTP: echo, get-sum, progress, cancellation, logging.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use peers::*;
use serde_json::{json, Value};

fn text_of(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn servers_reports_the_legacy_era_and_server_info() {
    let scratch = Scratch::new(json!({"servers": {"everything": everything_stdio()}}));
    let out = scratch.run(&["servers"]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    let servers = stdout_json(&out);
    let row = &servers[0];
    assert_eq!(row["name"], "everything");
    assert_eq!(row["status"], "ready");
    assert_eq!(row["era"], "2025-11-25");
    assert_eq!(row["lifecycle"], "legacy");
    assert_eq!(row["serverInfo"]["name"], "mcp-servers/everything");
    assert!(row["instructions"]
        .as_str()
        .unwrap()
        .contains("Everything Server"));
    assert!(
        row["stderr"].as_str().unwrap().contains("Starting"),
        "stderr tail is kept: {row}"
    );
}

#[test]
fn call_echo_and_get_sum_over_stdio() {
    let scratch = Scratch::new(json!({"servers": {"everything": everything_stdio()}}));
    let out = scratch.run(&["call", "everything", "echo", r#"{"message":"hi"}"#]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    assert_eq!(text_of(&stdout_json(&out)), "Echo: hi");
    let out = scratch.run(&["call", "everything", "get-sum", r#"{"a": 2, "b": 40}"#]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    assert!(
        text_of(&stdout_json(&out)).contains("42"),
        "{}",
        text_of(&stdout_json(&out))
    );
}

#[test]
fn the_era_is_cached_per_definition_and_a_second_run_agrees() {
    let scratch = Scratch::new(json!({"servers": {"everything": everything_stdio()}}));
    assert!(scratch.run(&["servers"]).status.success());
    let cache: Value = serde_json::from_slice(
        &std::fs::read(scratch.dir.path().join("cache/wharf/eras.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        cache.as_object().unwrap().values().next().unwrap(),
        "legacy"
    );
    let again = stdout_json(&scratch.run(&["servers"]));
    assert_eq!(again[0]["era"], "2025-11-25");
}

#[test]
fn tools_lists_every_server_tool_with_its_schema() {
    let scratch = Scratch::new(json!({"servers": {"everything": everything_stdio()}}));
    let out = scratch.run(&["tools"]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    let tools = stdout_json(&out);
    let echo = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "echo")
        .expect("echo listed");
    assert_eq!(echo["server"], "everything");
    assert_eq!(
        echo["inputSchema"]["properties"]["message"]["type"],
        "string"
    );
}

#[test]
fn call_echo_over_streamable_http() {
    let http = everything_http();
    let scratch = Scratch::new(json!({"servers": {"web": {"type": "http", "url": http.url}}}));
    let out = scratch.run(&["call", "web", "echo", r#"{"message":"over http"}"#]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    assert_eq!(text_of(&stdout_json(&out)), "Echo: over http");
    let servers = stdout_json(&scratch.run(&["servers"]));
    assert_eq!(servers[0]["era"], "2025-11-25");
    assert_eq!(servers[0]["type"], "http");
}

fn progress_and_cancel(server: Value) {
    let scratch = Scratch::new(json!({"servers": {"e": server}}));
    let mut session = scratch.session();
    session.send(
        json!({"id": 1, "cmd": "call", "server": "e", "tool": "trigger-long-running-operation",
                        "args": {"duration": 0.6, "steps": 3}}),
    );
    let reply = session.reply(1);
    assert_eq!(reply["ok"], true, "{reply}");
    let progress: Vec<f64> = session
        .seen
        .iter()
        .filter(|v| v["event"] == "progress" && v["call"] == 1)
        .map(|v| v["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(
        progress,
        vec![1.0, 2.0, 3.0],
        "progress reaches the caller in order: {:#?}",
        session.seen
    );

    // A long one, cancelled after its first progress: the reply says cancelled, long before it would end.
    session.send(
        json!({"id": 2, "cmd": "call", "server": "e", "tool": "trigger-long-running-operation",
                        "args": {"duration": 600, "steps": 600}}),
    );
    session.event("first progress of call 2", |v| {
        v["event"] == "progress" && v["call"] == 2
    });
    session.send(json!({"id": 3, "cmd": "cancel", "target": 2}));
    assert_eq!(session.reply(3)["ok"], true);
    let reply = session.reply(2);
    assert_eq!(reply["ok"], false);
    assert_eq!(reply["error"]["code"], "cancelled");
    // The server is still usable after the cancellation.
    session.send(json!({"id": 4, "cmd": "call", "server": "e", "tool": "echo", "args": {"message": "still here"}}));
    assert_eq!(text_of(&session.reply(4)["result"]), "Echo: still here");
    assert!(session.quit().success());
}

#[test]
fn progress_and_cancellation_over_stdio() {
    progress_and_cancel(everything_stdio());
}

#[test]
fn progress_and_cancellation_over_http() {
    let http = everything_http();
    progress_and_cancel(json!({"type": "http", "url": http.url}));
}

#[test]
fn server_logs_reach_the_session() {
    let scratch = Scratch::new(json!({"servers": {"e": everything_stdio()}}));
    let mut session = scratch.session();
    session
        .send(json!({"id": 1, "cmd": "call", "server": "e", "tool": "toggle-simulated-logging"}));
    assert_eq!(session.reply(1)["ok"], true);
    let log = session.event("a log event", |v| v["event"] == "log");
    assert_eq!(log["server"], "e");
    assert!(log["data"].as_str().unwrap().contains("message"), "{log}");
    assert!(log["level"].is_string());
    assert!(session.quit().success());
}
