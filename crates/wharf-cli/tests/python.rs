//! `wharf` against a server written with the python `mcp==2.3.0` SDK (tests/fixtures/py_server.py), which serves
//! both eras from the same code: 2026-07-28 (stateless, MRTR) and 2025-11-25 (handshake), over stdio and HTTP.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::process::Command;

use peers::*;
use serde_json::{json, Value};

fn py_stdio(era: Option<&str>) -> Value {
    let mut def = stdio_server(&python(), &[fixture("py_server.py").to_str().unwrap()]);
    if let Some(era) = era {
        def["era"] = json!(era);
    }
    def
}

fn py_http() -> (Peer, String) {
    let mut cmd = Command::new(python());
    cmd.arg(fixture("py_server.py")).args(["http", "0"]);
    let peer = Peer::start(cmd, "http://127.0.0.1:");
    let url = peer.ready_line.trim().to_string();
    (peer, url)
}

fn text_of(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn probing_finds_the_modern_era_and_pinning_gives_the_legacy_one_over_stdio() {
    let scratch = Scratch::new(
        json!({"servers": {"modern": py_stdio(None), "legacy": py_stdio(Some("legacy"))}}),
    );
    let out = scratch.run(&["servers"]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    let rows = stdout_json(&out);
    assert_eq!(rows[0]["name"], "modern");
    assert_eq!(rows[0]["era"], "2026-07-28");
    assert_eq!(rows[0]["lifecycle"], "modern");
    assert!(
        rows[0]["instructions"]
            .as_str()
            .unwrap()
            .contains("Wharf test server"),
        "instructions come from discover"
    );
    assert_eq!(rows[1]["era"], "2025-11-25");
    assert_eq!(rows[1]["lifecycle"], "legacy");
    for server in ["modern", "legacy"] {
        let out = scratch.run(&["call", server, "echo", r#"{"message":"hi"}"#]);
        assert!(out.status.success(), "{server}: {}", stderr_text(&out));
        assert_eq!(text_of(&stdout_json(&out)), "hi");
    }
}

#[test]
fn both_eras_over_streamable_http() {
    let (_peer, url) = py_http();
    let scratch = Scratch::new(json!({"servers": {
        "modern": {"type": "http", "url": url},
        "legacy": {"type": "http", "url": url, "era": "legacy"}}}));
    let rows = stdout_json(&scratch.run(&["servers"]));
    assert_eq!(rows[0]["era"], "2026-07-28", "{rows:#}");
    assert_eq!(rows[1]["era"], "2025-11-25", "{rows:#}");
    for server in ["modern", "legacy"] {
        // The python server rejects modern requests without Mcp-Method / Mcp-Name headers and the _meta envelope.
        let out = scratch.run(&["call", server, "add", r#"{"a": 2, "b": 3}"#]);
        assert!(out.status.success(), "{server}: {}", stderr_text(&out));
        assert_eq!(text_of(&stdout_json(&out)), "5");
    }
}

#[test]
fn mrtr_rounds_echo_the_sealed_state_and_are_capped() {
    let scratch = Scratch::new(json!({"servers": {"py": py_stdio(None)}}));
    // The SDK seals requestState (AES-GCM): completing proves every round echoed it byte for byte, with a new id.
    let out = scratch.run(&["call", "py", "state_rounds", r#"{"n": 5}"#]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    assert_eq!(text_of(&stdout_json(&out)), "completed after 5 rounds");
    // A server that never stops asking hits Wharf's cap with a clear error.
    let out = scratch.run(&["call", "py", "state_rounds", r#"{"n": 1000}"#]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_text(&out);
    assert!(err.contains("gave up after 16 rounds"), "{err}");
    assert_eq!(err.lines().count(), 1, "one clear line: {err}");
}

#[test]
fn undeclared_elicitation_is_a_clear_error_in_both_eras() {
    // `"elicitation": false`: the capability is not declared to these servers.
    let mut modern = py_stdio(None);
    modern["elicitation"] = json!(false);
    let mut legacy = py_stdio(Some("legacy"));
    legacy["elicitation"] = json!(false);
    let scratch = Scratch::new(json!({"servers": {"modern": modern, "legacy": legacy}}));
    for server in ["modern", "legacy"] {
        let out = scratch.run(&["call", server, "whoami"]);
        assert_eq!(out.status.code(), Some(2), "{server}");
        let err = stderr_text(&out);
        assert!(err.contains("elicitation"), "{server}: {err}");
    }
}

#[test]
fn tool_errors_exit_1_with_the_result() {
    let scratch = Scratch::new(json!({"servers": {"py": py_stdio(None)}}));
    let out = scratch.run(&["call", "py", "boom"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_text(&out));
    assert_eq!(stdout_json(&out)["isError"], true);
}

#[test]
fn modern_progress_and_cancellation_over_stdio_and_http() {
    let (_peer, url) = py_http();
    let scratch = Scratch::new(
        json!({"servers": {"stdio": py_stdio(None), "http": {"type": "http", "url": url}}}),
    );
    let mut session = scratch.session();
    for (n, server) in [(1, "stdio"), (10, "http")] {
        session.send(
            json!({"id": n, "cmd": "call", "server": server, "tool": "slow",
                            "args": {"steps": 3, "delay_ms": 1}}),
        );
        assert_eq!(session.reply(n)["ok"], true, "{server}");
        let steps = session
            .seen
            .iter()
            .filter(|v| v["event"] == "progress" && v["call"] == n)
            .count();
        assert_eq!(steps, 3, "{server}: {:#?}", session.seen);
        session.send(
            json!({"id": n + 1, "cmd": "call", "server": server, "tool": "slow",
                            "args": {"steps": 10000, "delay_ms": 50}}),
        );
        session.event("progress of the long call", |v| {
            v["event"] == "progress" && v["call"] == n + 1
        });
        session.send(json!({"id": n + 2, "cmd": "cancel", "target": n + 1}));
        assert_eq!(
            session.reply(n + 1)["error"]["code"],
            "cancelled",
            "{server}"
        );
        session.send(json!({"id": n + 3, "cmd": "call", "server": server, "tool": "echo", "args": {"message": "ok"}}));
        assert_eq!(text_of(&session.reply(n + 3)["result"]), "ok", "{server}");
    }
    assert!(session.quit().success());
}

#[test]
fn legacy_requests_get_roots_and_the_spec_errors_for_undeclared_capabilities() {
    let nosy = stdio_server(
        std::path::Path::new("python3"),
        &[fixture("nosy_server.py").to_str().unwrap()],
    );
    let mut quiet = nosy.clone();
    quiet["elicitation"] = json!(false);
    let scratch = Scratch::new(json!({"servers": {"nosy": nosy, "quiet": quiet}}));
    let ask = |server: &str| -> Value {
        let out = scratch.run(&["call", server, "ask_everything"]);
        assert!(out.status.success(), "{}", stderr_text(&out));
        serde_json::from_str(&text_of(&stdout_json(&out))).unwrap()
    };
    // Roots are declared (the workspace): with no folder open, the list is empty. Elicitation is declared and served:
    // without a terminal or --answers, wharf declines (and says so). Sampling is a method Wharf does not offer yet.
    let answers = ask("nosy");
    assert_eq!(answers["roots/list"]["roots"], json!([]), "{answers:#}");
    assert_eq!(
        answers["elicitation/create"]["action"], "decline",
        "{answers:#}"
    );
    assert_eq!(
        answers["elicitation/create#url"]["action"], "decline",
        "{answers:#}"
    );
    assert_eq!(
        answers["sampling/createMessage"]["code"], -32601,
        "{answers:#}"
    );
    // elicitation.mdx: -32602 for a mode the client did not declare.
    let answers = ask("quiet");
    assert_eq!(answers["elicitation/create"]["code"], -32602, "{answers:#}");
    assert_eq!(
        answers["elicitation/create#url"]["code"], -32602,
        "{answers:#}"
    );
}

#[test]
fn tool_list_changes_reach_the_host_in_both_eras() {
    let scratch = Scratch::new(
        json!({"servers": {"modern": py_stdio(None), "legacy": py_stdio(Some("legacy"))}}),
    );
    let mut session = scratch.session();
    for (n, server) in [(1, "modern"), (10, "legacy")] {
        session.send(json!({"id": n, "cmd": "call", "server": server, "tool": "add_tool", "args": {"name": "extra"}}));
        assert_eq!(session.reply(n)["ok"], true, "{server}");
        // Legacy: notifications/tools/list_changed; modern: the same notification on the subscriptions/listen stream.
        session.event("list_changed", |v| {
            v["event"] == "list_changed" && v["server"] == server && v["kind"] == "tools"
        });
        session.send(json!({"id": n + 1, "cmd": "tools", "server": server}));
        let tools = session.reply(n + 1);
        let names: Vec<&str> = tools["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert!(names.contains(&"extra"), "{server}: {names:?}");
    }
    assert!(session.quit().success());
}
