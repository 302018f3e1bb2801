//! A server that takes its roots in slowly, one fetch at a time in no particular order (tests/fixtures/
//! slow_roots_server.py), must still end with the final roots: Wharf cannot see when a server has applied a list, so
//! a server whose fetches came close together is told once more after a quiet second.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::path::{Path, PathBuf};

use peers::*;
use serde_json::{json, Value};

fn folder(base: &Path, name: &str) -> PathBuf {
    let p = base.join(name);
    std::fs::create_dir_all(&p).unwrap();
    p.canonicalize().unwrap()
}

fn uri(path: &Path) -> String {
    url::Url::from_directory_path(path)
        .unwrap()
        .as_str()
        .trim_end_matches('/')
        .to_string()
}

/// The server's last `applied N: URI ...` line in its stderr tail: N and the URIs, sorted.
fn last_application(session: &mut Session, id: i64) -> (usize, Vec<String>) {
    session.send(json!({"id": id, "cmd": "servers"}));
    let reply = session.reply(id);
    let tail = reply["result"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "slow")
        .unwrap()["stderr"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let Some(line) = tail.lines().rev().find(|l| l.starts_with("applied ")) else {
        return (0, Vec::new());
    };
    let (n, uris) = line["applied ".len()..].split_once(": ").unwrap();
    let mut uris: Vec<String> = uris.split_whitespace().map(str::to_string).collect();
    uris.sort();
    (n.parse().unwrap(), uris)
}

#[test]
fn a_server_applying_overlapping_fetches_out_of_order_ends_with_the_final_roots() {
    let tmp = tempfile::tempdir().unwrap();
    let [a, b, c] = ["a", "b", "c"].map(|n| folder(tmp.path(), n));
    let server = stdio_server(
        Path::new("python3"),
        &[fixture("slow_roots_server.py").to_str().unwrap()],
    );
    let scratch = Scratch::new(json!({"servers": {"slow": server}}));
    let mut session = scratch.session_with(&[
        "--workspace",
        a.to_str().unwrap(),
        "--workspace",
        c.to_str().unwrap(),
    ]);
    let is_fetch = |v: &Value| v["event"] == "roots" && v["server"] == "slow";
    let is_stderr = |v: &Value| v["event"] == "stderr" && v["server"] == "slow";
    session.wait_for_nth("the first fetch", 1, is_fetch);

    // b opens; as soon as the server fetches the roots with b, a closes. The server may then hold two fetches at
    // once: a, b, c (applied after 0.6 s) and b, c (after 0.4 s), the older list landing last.
    session.send(json!({"id": 1, "cmd": "open", "path": b}));
    session.reply(1);
    session.wait_for_nth("the fetch after b opened", 2, is_fetch);
    session.send(json!({"id": 2, "cmd": "close", "path": a}));
    session.reply(2);
    let mut expected = vec![uri(&b), uri(&c)];
    expected.sort();

    // Wait, stderr line after stderr line, until every fetch the server made is applied and the last application
    // is the final roots. A server left with older roots never gets there (and the wait times out).
    let mut id = 100;
    let mut stderr_lines = session.seen.iter().filter(|v| is_stderr(v)).count();
    loop {
        let (applied, roots) = last_application(&mut session, id);
        id += 1;
        let fetches = session.seen.iter().filter(|v| is_fetch(v)).count();
        if applied == fetches && roots == expected {
            break;
        }
        stderr_lines += 1;
        session.wait_for_nth(
            "the server applying the final roots",
            stderr_lines,
            is_stderr,
        );
    }
    session.send(json!({"id": 3, "cmd": "call", "server": "slow", "tool": "applied", "args": {}}));
    let reply = session.reply(3);
    let mut listed: Vec<String> = reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    listed.sort();
    assert_eq!(listed, expected, "{reply}");
    assert!(session.quit().success());
}
