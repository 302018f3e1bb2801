//! Long calls and crashes through `wharf session`: progress events, cancellation, restart after a crash.

#[path = "support/demo.rs"]
mod support;

use serde_json::json;
use support::{demo_stdio, slow_is_cancelled, slow_reports_progress, Scratch};

#[test]
fn slow_reports_progress_over_stdio() {
    let scratch = Scratch::demo(demo_stdio(json!({})));
    let mut session = scratch.session();
    slow_reports_progress(&mut session);
    assert_eq!(session.quit(3)["ok"], true);
}

#[test]
fn slow_is_cancelled_over_stdio() {
    let scratch = Scratch::demo(demo_stdio(json!({})));
    let mut session = scratch.session();
    slow_is_cancelled(&mut session);
    // The server is still there after a cancel.
    session.send(
        json!({"id": 12, "cmd": "call", "server": "demo", "tool": "echo",
                        "args": {"message": "still here"}}),
    );
    let reply = session.reply(12);
    assert_eq!(reply["result"]["content"][0]["text"], "echo: still here");
    assert_eq!(session.quit(3)["ok"], true);
}

#[test]
fn slow_is_cancelled_in_the_legacy_era() {
    let scratch = Scratch::demo(demo_stdio(json!({"era": "legacy"})));
    let mut session = scratch.session();
    slow_reports_progress(&mut session);
    slow_is_cancelled(&mut session);
    assert_eq!(session.quit(3)["ok"], true);
}

#[test]
fn a_crash_fails_the_call_and_the_server_comes_back() {
    let scratch = Scratch::demo(demo_stdio(json!({})));
    let mut session = scratch.session();
    session.wait_for("the server ready", |v| {
        v["event"] == "server_status" && v["status"] == "ready"
    });
    session.send(json!({"id": 1, "cmd": "call", "server": "demo", "tool": "crash", "args": {}}));
    let reply = session.reply(1);
    assert_eq!(reply["ok"], false, "{reply:#}");
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("fatal: demo crash") && message.contains("status 3"),
        "{reply:#}"
    );
    session.wait_for("the restart", |v| {
        v["event"] == "server_status" && v["status"] == "restarting"
    });
    session.wait_for_nth("the server ready again", 2, |v| {
        v["event"] == "server_status" && v["status"] == "ready"
    });
    session.send(
        json!({"id": 2, "cmd": "call", "server": "demo", "tool": "echo",
                        "args": {"message": "back"}}),
    );
    let reply = session.reply(2);
    assert_eq!(reply["ok"], true, "{reply:#}");
    assert_eq!(reply["result"]["content"][0]["text"], "echo: back");
    assert_eq!(session.quit(3)["ok"], true);
}
