//! The path check as a hostile caller and server try it, through `wharf call`: a fixture server hides path
//! parameters in every schema shape and records every call it receives; paths outside the workspace, however
//! written, must never reach it, in either era.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::path::{Path, PathBuf};
use std::process::Output;

use peers::*;
use serde_json::{json, Value};

struct Setup {
    _tmp: tempfile::TempDir,
    work: PathBuf,
    record: PathBuf,
    scratch: Scratch,
}

fn folder(base: &Path, name: &str) -> PathBuf {
    let p = base.join(name);
    std::fs::create_dir_all(&p).unwrap();
    p.canonicalize().unwrap()
}

/// Server `s` runs in Wharf's working directory (the workspace folder, in these tests); server `away` has its
/// `cwd` outside the workspace.
fn setup(era: &str) -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let work = folder(tmp.path(), "work");
    let outside = folder(tmp.path(), "outside");
    std::fs::write(work.join("inside.txt"), "inside").unwrap();
    std::fs::write(outside.join("secret.txt"), "secret").unwrap();
    let record = tmp.path().join("record.jsonl");
    let fixture = fixture("path_server.py");
    let args = [fixture.to_str().unwrap(), era, record.to_str().unwrap()];
    let s = stdio_server(Path::new("python3"), &args);
    let mut away = s.clone();
    away["cwd"] = json!(outside);
    let scratch = Scratch::new(json!({"servers": {"s": s, "away": away}}));
    Setup {
        _tmp: tmp,
        work,
        record,
        scratch,
    }
}

impl Setup {
    fn call(&self, server: &str, tool: &str, args: &Value) -> Output {
        self.scratch
            .wharf()
            .current_dir(&self.work)
            .arg("--workspace")
            .arg(&self.work)
            .args(["call", server, tool, &args.to_string()])
            .output()
            .unwrap()
    }

    /// The arguments of every call the server received.
    fn received(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.record)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["arguments"].clone())
            .collect()
    }
}

/// An object nested `depth` levels under `a`, holding `leaf` innermost.
fn nested(depth: usize, leaf: Value) -> Value {
    (0..depth).fold(leaf, |inner, _| json!({"a": inner}))
}

fn attacks() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        ("s", "read", json!({"path": " file:///etc/passwd"})),
        ("s", "read", json!({"path": "fi\tle:///etc/passwd"})),
        (
            "s",
            "read",
            json!({"path": "FILE://localhost/etc/passwd\n"}),
        ),
        ("s", "read", json!({"path": "\u{1}file:/etc/passwd"})),
        ("s", "open_uri", json!({"uri": "\tfile:///etc/%70asswd"})),
        ("s", "read", json!({"path": " /etc/passwd"})),
        ("s", "read", json!({"path": "/proc/self/cwd/inside.txt"})),
        ("s", "read", json!({"path": "/proc/self/root/etc/passwd"})),
        ("s", "read", json!({"path": "~root/.ssh/authorized_keys"})),
        ("s", "read", json!({"path": ["/etc/passwd"]})),
        ("s", "read", json!({"path": {"p": "/etc/passwd"}})),
        ("s", "untyped", json!({"path": "/etc/passwd"})),
        ("s", "nested", json!({"target": {"file": "/etc/passwd"}})),
        ("s", "remote", json!({"options": {"x": "/etc/passwd"}})),
        ("s", "mapped", json!({"roots": {"a": "/etc"}})),
        ("s", "tuple", json!({"copy": ["inside.txt", "/etc/passwd"]})),
        ("s", "deep", nested(20, json!({"path": "/etc/passwd"}))),
        ("s", "hidden", json!({"path": "/etc/passwd"})),
        ("away", "read", json!({"path": "secret.txt"})),
    ]
}

fn fair() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        ("s", "read", json!({"path": "inside.txt"})),
        ("s", "read", json!({"path": " inside.txt\n"})),
        (
            "s",
            "tuple",
            json!({"copy": ["inside.txt", "./inside.txt"]}),
        ),
        ("s", "remote", json!({"options": {"n": 1}})),
        ("s", "nested", json!({"target": null})),
    ]
}

fn attacked_in(era: &str) {
    let s = setup(era);
    for (server, tool, args) in attacks() {
        let out = s.call(server, tool, &args);
        let stderr = stderr_text(&out);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{era}: {server} {tool} {args} was not refused: {stderr}"
        );
        assert!(
            stderr.starts_with("wharf: ") && stderr.contains("refused: "),
            "{era}: {tool} {args}: {stderr}"
        );
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    }
    let hidden = s.call("s", "hidden", &json!({"path": "/etc/passwd"}));
    let stderr = stderr_text(&hidden);
    assert!(
        stderr.contains("lists no tool named \"hidden\""),
        "{era}: {stderr}"
    );
    assert!(
        s.received().is_empty(),
        "{era}: the server received {:?}",
        s.received()
    );
    // What lies inside reaches it, and only that.
    for (server, tool, args) in fair() {
        let out = s.call(server, tool, &args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{era}: {tool} {args}: {}",
            stderr_text(&out)
        );
    }
    let received = s.received();
    assert_eq!(
        received,
        fair().into_iter().map(|(_, _, a)| a).collect::<Vec<_>>(),
        "{era}"
    );
    let text = serde_json::to_string(&received).unwrap();
    for never in ["passwd", "/etc", "secret", "/proc", "authorized_keys"] {
        assert!(!text.contains(never), "{era}: {never} reached the server");
    }
}

#[test]
fn hostile_paths_never_reach_a_legacy_server() {
    attacked_in("legacy");
}

#[test]
fn hostile_paths_never_reach_a_modern_server() {
    attacked_in("modern");
}
