//! What `wharf` says on stderr when things go wrong: each problem once, as a `wharf: ...` line, the reason the command
//! failed last; log lines (tracing's format) only when `WHARF_LOG` asks for them. Exit codes stay the contract's.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::process::Output;

use peers::*;
use serde_json::json;

fn bad_server(mode: &str) -> serde_json::Value {
    json!({"type": "stdio", "command": "python3", "args": [fixture("bad_server.py"), mode]})
}

/// A port nothing listens on: bound, then released.
fn closed_port_url() -> String {
    format!("http://127.0.0.1:{}/mcp", free_port())
}

fn scratch() -> Scratch {
    Scratch::new(json!({"servers": {
        "crash": bad_server("crash"),
        "good": bad_server("good"),
        "missing": {"type": "stdio", "command": "/nonexistent/wharf-test-command"},
        "web": {"type": "http", "url": closed_port_url()},
    }}))
}

/// Every line is Wharf's own (`wharf: `), none is a log line, and no two say the same thing.
fn assert_spoken_once(out: &Output) -> Vec<String> {
    let err = stderr_text(out);
    let lines: Vec<String> = err.lines().map(str::to_string).collect();
    for line in &lines {
        assert!(
            line.starts_with("wharf: "),
            "not Wharf's words: {line:?}\n{err}"
        );
        for level in ["TRACE", "DEBUG", "INFO", "WARN", "ERROR"] {
            assert!(
                !line.contains(&format!("{level} ")),
                "a log line without WHARF_LOG: {line:?}"
            );
        }
        assert!(!line.contains('\u{1b}'), "colours: {line:?}");
    }
    for (i, line) in lines.iter().enumerate() {
        let text = line.trim_start_matches("wharf: ");
        let again = lines
            .iter()
            .enumerate()
            .filter(|(j, other)| *j != i && other.contains(text))
            .count();
        assert_eq!(again, 0, "said twice: {text:?}\n{err}");
    }
    lines
}

#[test]
fn a_crashing_server_tells_each_problem_once_and_the_reason_last() {
    let out = scratch().run(&["call", "crash", "trigger"]);
    assert_eq!(out.status.code(), Some(2));
    let lines = assert_spoken_once(&out);
    // The junk the server wrote before dying (a garbage line, a truncated one, a message that is not JSON-RPC, a
    // response nobody asked for): one notice each.
    for (notice, times) in [
        ("ignored a line that is not JSON", 2),
        ("ignored a message that is not valid JSON-RPC", 1),
        ("ignored a response to request id 987654", 1),
    ] {
        assert_eq!(
            lines.iter().filter(|l| l.contains(notice)).count(),
            times,
            "{notice}: {lines:#?}"
        );
    }
    let reason = lines.last().unwrap();
    assert!(
        reason.starts_with("wharf: crash: trigger: ") && reason.contains("fatal: simulated crash"),
        "{lines:#?}"
    );
    // That the server stopped, and why, is the reason itself: not told once more before it.
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("exited with status 3"))
            .count(),
        1,
        "{lines:#?}"
    );
}

#[test]
fn an_unreachable_server_is_one_line_the_reason() {
    let out = scratch().run(&["call", "web", "anything"]);
    assert_eq!(out.status.code(), Some(2));
    let lines = assert_spoken_once(&out);
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert!(
        lines[0].starts_with("wharf: web: cannot connect"),
        "{lines:#?}"
    );
    // In words the user can act on: what was refused, not the Rust types of the transport.
    assert!(lines[0].contains("Connection refused"), "{lines:#?}");
    for internal in ["wharf_core::", "rmcp::", "Transport ["] {
        assert!(!lines[0].contains(internal), "{lines:#?}");
    }
}

#[test]
fn listing_every_server_names_each_failure_once_and_still_succeeds() {
    let out = scratch().run(&["tools"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let lines = assert_spoken_once(&out);
    for server in ["missing", "web"] {
        assert_eq!(
            lines
                .iter()
                .filter(|l| l.starts_with(&format!("wharf: {server}: ")))
                .count(),
            1,
            "{server}: {lines:#?}"
        );
    }
    let tools = stdout_json(&out);
    assert!(tools
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["server"] == "good"));
}

#[test]
fn log_lines_come_when_wharf_log_asks() {
    let out = scratch()
        .wharf()
        .env("WHARF_LOG", "warn")
        .args(["call", "crash", "trigger"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_text(&out);
    assert!(
        err.lines()
            .any(|l| l.contains("WARN") && l.contains("ignored a line that is not JSON")),
        "{err}"
    );
    assert!(!err.contains('\u{1b}'), "no colours in a log: {err}");
}
