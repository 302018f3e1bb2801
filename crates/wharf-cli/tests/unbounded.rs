//! Work a hostile server asks for without end (tests/fixtures/form_server.py, both eras): a `tools/list` whose every
//! page has a next one (a new cursor each time, or the same one) ends `wharf tools` and `wharf call` (whose path check
//! reads the tool list first) with a clear error and bounded memory; a server request whose params do not fit its
//! method is answered `-32602` at once, not left for the call to time out.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::process::Stdio;
use std::time::Duration;

use peers::*;
use serde_json::{json, Value};

/// Far more than reading 100 pages takes; a list that never ends runs into it.
const HANG: Duration = Duration::from_secs(90);
/// Wharf peaks near 30 MiB in a session; the tool list it may hold before it stops is at most 32 MiB of JSON.
const RSS_BOUND_KIB: u64 = 160 * 1024;

fn endless(era: &str, pages: &str) -> Scratch {
    let server = json!({"type": "stdio", "command": "python3",
                        "args": [fixture("form_server.py"), era, pages]});
    Scratch::new(json!({"servers": {"endless": server}}))
}

/// `wharf tools endless`, killed if it runs into [`HANG`]: its exit status and stderr.
fn tools_within_hang(scratch: &Scratch) -> (std::process::ExitStatus, String) {
    let child = scratch
        .wharf()
        .args(["tools", "endless"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Waited on from a thread, so the test wakes when wharf exits, or at HANG to kill it.
    let pid = child.id();
    let (tx, done) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let Ok(out) = done.recv_timeout(HANG) else {
        let _ = std::process::Command::new("kill")
            .arg("-9")
            .arg(pid.to_string())
            .status();
        panic!("wharf tools still reading pages after {HANG:?}");
    };
    let out = out.unwrap();
    let (status, stderr) = (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    (status, stderr)
}

fn endless_tool_lists_end_with_a_clear_error(era: &str) {
    for (pages, why) in [
        ("new", "it still had more after 100 pages"),
        ("same", "it sent the cursor \"same\" twice"),
    ] {
        let scratch = endless(era, pages);
        let (status, stderr) = tools_within_hang(&scratch);
        assert!(!status.success(), "{era} {pages}: {stderr}");
        assert!(
            stderr.contains("stopped reading the tool list") && stderr.contains(why),
            "{era} {pages}: {stderr}"
        );

        // A call reads the tool list first (the path check): it fails the same way, and Wharf's memory stays
        // bounded while it reads.
        let mut session = scratch.session();
        session.send(
            json!({"id": 1, "cmd": "call", "server": "endless", "tool": "t1",
                            "args": {"path": "x"}}),
        );
        let reply = session.reply(1);
        assert_eq!(reply["ok"], false, "{reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("stopped reading the tool list") && message.contains(why),
            "{era} {pages}: {reply}"
        );
        let peak = peak_rss_kib(session.child.id());
        assert!(
            peak < RSS_BOUND_KIB,
            "{era} {pages}: wharf peaked at {peak} KiB"
        );
        assert!(session.quit().success());
    }
}

#[test]
fn legacy_endless_tool_lists_end_with_a_clear_error() {
    endless_tool_lists_end_with_a_clear_error("legacy");
}

#[test]
fn modern_endless_tool_lists_end_with_a_clear_error() {
    endless_tool_lists_end_with_a_clear_error("modern");
}

/// The fixture sends three requests whose params do not fit their methods and waits at most 20 s for the answers,
/// while the call may take 10 minutes: the answers it reports came before its own deadline, so none was left to
/// the call's timeout.
#[test]
fn malformed_server_requests_are_answered_invalid_params_at_once() {
    let server = json!({"type": "stdio", "command": "python3", "requestTimeoutMs": 600_000,
                        "args": [fixture("form_server.py"), "legacy"]});
    let scratch = Scratch::new(json!({"servers": {"forms": server}}));
    let events = scratch.dir.path().join("events.jsonl");
    let out = scratch
        .wharf()
        .arg("--events")
        .arg(&events)
        .args(["call", "forms", "malformed", "{}"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_text(&out));
    let text = stdout_json(&out)["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    let replies: Value = serde_json::from_str(&text).unwrap();
    for id in ["m1", "m2", "m3"] {
        assert_eq!(replies[id]["error"]["code"], -32602, "{id}: {replies}");
    }
    let notices: Vec<Value> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["kind"] == "notice")
        .collect();
    let codes: Vec<&str> = notices
        .iter()
        .map(|v| v["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["invalid_request"; 3], "{notices:#?}");
    for method in ["elicitation/create", "sampling/createMessage", "roots/list"] {
        assert!(
            notices
                .iter()
                .any(|n| n["message"].as_str().unwrap().contains(method)),
            "{method}: {notices:#?}"
        );
    }
}
