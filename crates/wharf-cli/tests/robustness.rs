//! Misbehaving servers (tests/fixtures/bad_server.py): garbage, truncated and invalid messages, answers to ids never
//! sent, a crash mid-call, a 100 MB line, a hang, a slow start. Each gives a clear event or error, the other servers
//! keep being served, memory stays bounded, and no process is left behind.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::time::{Duration, Instant};

use peers::*;
use serde_json::{json, Value};

fn bad(mode: &[&str]) -> Value {
    let mut args = vec![fixture("bad_server.py").to_str().unwrap().to_string()];
    args.extend(mode.iter().map(|s| s.to_string()));
    json!({"type": "stdio", "command": "python3", "args": args})
}

fn everything() -> Value {
    stdio_server(
        std::path::Path::new("node"),
        &[everything_js().to_str().unwrap(), "stdio"],
    )
}

fn server_error_codes(session: &Session, server: &str) -> Vec<String> {
    session
        .seen
        .iter()
        .filter(|v| v["event"] == "server_error" && v["server"] == server)
        .map(|v| v["code"].as_str().unwrap().to_string())
        .collect()
}

fn echo(session: &mut Session, id: i64) -> Value {
    session.send(json!({"id": id, "cmd": "call", "server": "good", "tool": "echo", "args": {"message": "alive"}}));
    session.reply(id)
}

#[test]
fn garbage_then_a_crash_mid_call_is_reported_and_the_server_restarts() {
    let scratch = Scratch::new(json!({"servers": {"bad": bad(&["crash"]), "good": everything()}}));
    let events = scratch.dir.path().join("events.jsonl");
    let mut session = scratch.session_with(&["--events", events.to_str().unwrap()]);
    session.event("bad ready", |v| {
        v["event"] == "server_status" && v["server"] == "bad" && v["status"] == "ready"
    });
    session.send(json!({"id": 1, "cmd": "call", "server": "bad", "tool": "trigger"}));
    let reply = session.reply(1);
    assert_eq!(reply["ok"], false, "{reply}");
    assert_eq!(reply["error"]["code"], "closed");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("exited with status 3") && message.contains("simulated crash"),
        "{message}"
    );
    let codes = server_error_codes(&session, "bad");
    for expected in [
        "invalid_json",
        "invalid_jsonrpc",
        "unknown_response_id",
        "server_exited",
    ] {
        assert!(
            codes.iter().any(|c| c == expected),
            "{expected} missing from {codes:?}"
        );
    }
    // Restarted with backoff, and the other server never noticed.
    session.event("bad restarting", |v| {
        v["server"] == "bad" && v["status"] == "restarting"
    });
    assert_eq!(echo(&mut session, 2)["ok"], true);
    session.wait_for_nth("bad ready again", 2, |v| {
        v["event"] == "server_status" && v["server"] == "bad" && v["status"] == "ready"
    });
    assert!(session.quit().success());
    // What the user was shown is in the events file too.
    let written = std::fs::read_to_string(&events).unwrap();
    assert!(
        written
            .lines()
            .any(|l| l.contains("\"code\":\"invalid_json\"")),
        "{written}"
    );
}

#[test]
fn a_100_mb_answer_fails_its_call_only_and_memory_stays_bounded() {
    let scratch =
        Scratch::new(json!({"servers": {"bad": bad(&["oversized"]), "good": everything()}}));
    let mut session = scratch.session();
    session.send(json!({"id": 1, "cmd": "call", "server": "bad", "tool": "trigger"}));
    // The call fails at once with the reason; the connection stays (the rest of the line is skipped unread).
    let reply = session.reply(1);
    assert_eq!(reply["error"]["code"], "server_error", "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("larger than"),
        "{reply}"
    );
    assert!(server_error_codes(&session, "bad").contains(&"message_too_large".to_string()));
    assert!(
        !session.seen.iter().any(|v| v["event"] == "server_status"
            && v["server"] == "bad"
            && v["status"] != "ready"
            && v["status"] != "starting"),
        "the oversized answer cost the connection: {:?}",
        session.seen
    );
    assert_eq!(echo(&mut session, 2)["ok"], true);
    // The limit is 16 MiB; reading the whole 100 MB line would show here.
    let peak = peak_rss_kib(session.child.id());
    assert!(peak < 80 * 1024, "wharf peaked at {peak} KiB");
    assert!(session.quit().success());
}

#[test]
fn a_hung_server_times_out_without_blocking_another_and_timeouts_reset_on_progress() {
    let scratch = Scratch::new(json!({"servers": {"bad": bad(&["hang"]), "good": everything()}}));
    let mut session = scratch.session();
    session.send(
        json!({"id": 1, "cmd": "call", "server": "bad", "tool": "trigger", "timeoutMs": 60000}),
    );
    // While that call hangs, the other server answers.
    assert_eq!(echo(&mut session, 2)["ok"], true);
    assert!(
        session.seen.iter().all(|v| v["id"] != 1),
        "the hung call is still open"
    );
    session.send(json!({"id": 3, "cmd": "cancel", "target": 1}));
    assert_eq!(session.reply(1)["error"]["code"], "cancelled");
    // A short timeout ends a silent call with a clear error.
    session.send(
        json!({"id": 4, "cmd": "call", "server": "bad", "tool": "trigger", "timeoutMs": 300}),
    );
    let reply = session.reply(4);
    assert_eq!(reply["error"]["code"], "timeout", "{reply}");
    // A call that takes 4x its timeout succeeds because each progress notification restarts the clock.
    session.send(
        json!({"id": 5, "cmd": "call", "server": "good", "tool": "trigger-long-running-operation",
                        "args": {"duration": 1.2, "steps": 6}, "timeoutMs": 300}),
    );
    assert_eq!(session.reply(5)["ok"], true);
    assert!(session.quit().success());
}

#[test]
fn a_server_that_takes_20_seconds_to_start_is_not_taken_for_a_legacy_one() {
    let scratch = Scratch::new(json!({"servers": {"slow": bad(&["slowstart", "20"])}}));
    let started = Instant::now();
    let out = scratch.run(&["servers"]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    let rows = stdout_json(&out);
    assert_eq!(rows[0]["era"], "2026-07-28", "{rows:#}");
    assert!(
        started.elapsed() >= Duration::from_secs(20),
        "the fixture really was slow"
    );
}

fn server_pid(session: &mut Session, id: i64) -> u32 {
    session.event("ready", |v| {
        v["event"] == "server_status" && v["status"] == "ready"
    });
    session.send(json!({"id": id, "cmd": "servers"}));
    let reply = session.reply(id);
    reply["result"][0]["pid"]
        .as_u64()
        .unwrap_or_else(|| panic!("no pid in {reply}")) as u32
}

#[test]
fn no_server_survives_wharf_being_killed() {
    let scratch = Scratch::new(json!({"servers": {"good": everything()}}));
    let mut session = scratch.session();
    let pid = server_pid(&mut session, 1);
    assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());
    // SIGKILL: no chance to clean up; the parent-death signal and the watchdog must do it.
    session.child.kill().unwrap();
    session.child.wait().unwrap();
    assert!(wait_gone(pid), "server {pid} outlived wharf");
}

#[test]
fn quitting_stops_every_server() {
    let scratch = Scratch::new(json!({"servers": {"good": everything()}}));
    let mut session = scratch.session();
    let pid = server_pid(&mut session, 1);
    assert!(session.quit().success());
    assert!(wait_gone(pid), "server {pid} outlived the session");
}

/// A line a server writes to stderr right before it answers its handshake is in the tail `wharf servers` prints,
/// every time (the tail is read from the pipe when it is shown, not only when its reader task next runs).
#[test]
fn a_line_written_just_before_readiness_is_in_the_printed_tail() {
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools.json");
    std::fs::write(&tools, r#"{"tools": []}"#).unwrap();
    let server = json!({"type": "stdio", "command": "python3",
        "args": [fixture("card_server.py"), tools]});
    let scratch = Scratch::new(json!({"servers": {"card": server}}));
    for run in 0..10 {
        let out = scratch.run(&["servers"]);
        assert!(out.status.success(), "{}", stderr_text(&out));
        let row = &stdout_json(&out)[0];
        assert_eq!(row["status"], "ready", "{row}");
        assert!(
            row["stderr"]
                .as_str()
                .unwrap()
                .contains("card: answering initialize\n"),
            "run {run}: {row}"
        );
    }
}

/// A result as a later protocol might write it: a field, a block type and a block field Wharf does not know.
fn future_result() -> Value {
    json!({
        "isError": false,
        "content": [
            {"text": "from the future", "type": "text", "x-weight": 3},
            {"type": "hologram", "frames": [1, 2, 3]}
        ],
        "futureField": {"nested": true},
        "resultType": "complete"
    })
}

#[test]
fn a_result_wharf_cannot_fully_read_is_printed_as_the_server_sent_it_and_shown_with_its_unknown_block(
) {
    let scratch = Scratch::new(json!({"servers": {"future": bad(&["future"])}}));
    let out = scratch.run(&["call", "future", "echo", r#"{"message": "hi"}"#]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    let printed = stdout_json(&out);
    let mut expected = future_result();
    expected["_meta"] = printed["_meta"].clone();
    assert_eq!(printed, expected);
    // In the server's order, not in the order of any type's fields.
    let text = String::from_utf8_lossy(&out.stdout);
    let at = |key: &str| {
        text.find(&format!("\"{key}\""))
            .unwrap_or_else(|| panic!("{key} in {text}"))
    };
    assert!(
        at("isError") < at("content")
            && at("text") < at("type")
            && at("futureField") < at("resultType"),
        "{text}"
    );

    let mut session = scratch.session();
    session.send(json!({"id": 1, "cmd": "call", "server": "future", "tool": "echo", "args": {"message": "hi"}}));
    let reply = session.reply(1);
    assert_eq!(
        reply["result"], printed,
        "the session's call is the CallToolResult as sent"
    );
    // The window's view shows what it cannot read as JSON, never drops it.
    session.send(
        json!({"id": 2, "cmd": "call_tool", "callId": "w1", "server": "future", "tool": "echo",
        "args": {"message": "hi"}}),
    );
    let view = session.reply(2);
    let blocks = &view["result"]["blocks"];
    assert_eq!(
        blocks[0],
        json!({"kind": "text", "text": "from the future", "truncated": false})
    );
    assert_eq!(blocks[1]["kind"], "other", "{view}");
    assert_eq!(blocks[1]["label"], "hologram");
    assert!(
        blocks[1]["json"].as_str().unwrap().contains("\"frames\""),
        "{view}"
    );
}
