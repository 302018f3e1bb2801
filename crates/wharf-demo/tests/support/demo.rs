//! Helpers of the demo server's tests: where the binaries are, a scratch config for `wharf`, a `wharf session`
//! driver, and a raw JSON-RPC driver for what the CLI does not show. Nothing here sleeps: every wait reads lines
//! until the expected one arrives, under one bounded deadline.
// Test helpers: a failed unwrap here is a failed test, with its message.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long any one wait may take before the test fails with what it saw.
pub const PATIENCE: Duration = Duration::from_secs(60);

pub fn demo_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_wharf-demo-server"))
}

/// The real `wharf` command, built beside this crate's binary in the same target directory.
pub fn wharf_bin() -> PathBuf {
    let bin = demo_bin()
        .parent()
        .expect("the demo binary has a directory")
        .join(format!("wharf{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} is missing: these tests drive the demo server through the real `wharf` command; \
         build it first with `cargo build -p wharf-cli` (a workspace `cargo test` builds it too)",
        bin.display()
    );
    bin
}

/// The demo server as a stdio entry of a config.
pub fn demo_stdio(extra: Value) -> Value {
    let mut entry = json!({"command": demo_bin()});
    if let (Some(entry), Some(extra)) = (entry.as_object_mut(), extra.as_object()) {
        entry.extend(extra.clone());
    }
    entry
}

/// A scratch directory with `mcp.json`; the era cache lives inside it so tests never share state.
pub struct Scratch {
    pub dir: tempfile::TempDir,
}

impl Scratch {
    /// A config with one server named `demo`.
    pub fn demo(entry: Value) -> Scratch {
        Scratch::new(json!({"servers": {"demo": entry}}))
    }

    pub fn new(config: Value) -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("mcp.json"),
            serde_json::to_vec_pretty(&config).unwrap(),
        )
        .unwrap();
        Scratch { dir }
    }

    pub fn wharf(&self) -> Command {
        let mut cmd = Command::new(wharf_bin());
        cmd.arg("--config")
            .arg(self.dir.path().join("mcp.json"))
            .env("XDG_CACHE_HOME", self.dir.path().join("cache"))
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"))
            .env_remove("WHARF_LOG")
            .stdin(Stdio::null());
        cmd
    }

    /// Runs a one-shot command to completion (each command ends by itself: wharf has its own timeouts).
    pub fn run(&self, args: &[&str]) -> Output {
        self.wharf().args(args).output().unwrap()
    }

    pub fn session(&self) -> Session {
        let mut child = self
            .wharf()
            .arg("session")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let lines = json_lines(child.stdout.take().unwrap(), "session");
        Session {
            child,
            stdin: Some(stdin),
            lines,
            seen: Vec::new(),
        }
    }
}

pub fn stdout_json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}); stdout: {} stderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

pub fn stderr_text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Reads JSON lines on a thread, so waits can have a deadline.
fn json_lines(pipe: impl Read + Send + 'static, who: &'static str) -> Receiver<Value> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            let value: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("{who} wrote a line that is not JSON ({e}): {line}"));
            if tx.send(value).is_err() {
                break;
            }
        }
    });
    rx
}

fn text_lines(pipe: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Waits for the first value (after those already seen) matching `pred`, keeping everything read in `seen`.
fn wait_in<T: Clone + std::fmt::Debug>(
    lines: &Receiver<T>,
    seen: &mut Vec<T>,
    what: &str,
    pred: impl Fn(&T) -> bool,
) -> T {
    if let Some(found) = seen.iter().find(|v| pred(v)) {
        return found.clone();
    }
    let deadline = Instant::now() + PATIENCE;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(value) => {
                seen.push(value.clone());
                if pred(&value) {
                    return value;
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                panic!("timed out waiting for {what}; saw: {seen:#?}")
            }
            Err(RecvTimeoutError::Disconnected) => {
                panic!("the stream ended before {what}; saw: {seen:#?}")
            }
        }
    }
}

/// A running `wharf session`, read line by line.
pub struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    /// Everything read so far, in order.
    pub seen: Vec<Value>,
}

impl Session {
    pub fn send(&mut self, command: Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{command}").unwrap();
        stdin.flush().unwrap();
    }

    pub fn wait_for(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        wait_in(&self.lines, &mut self.seen, what, pred)
    }

    /// Waits until `n` lines in all (already seen included) match `pred`; returns the n-th.
    pub fn wait_for_nth(&mut self, what: &str, n: usize, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(found) = self.seen.iter().filter(|v| pred(v)).nth(n - 1) {
                return found.clone();
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(value) => self.seen.push(value),
                Err(_) => panic!("timed out waiting for {what} (#{n}); saw: {:#?}", self.seen),
            }
        }
    }

    pub fn reply(&mut self, id: i64) -> Value {
        self.wait_for(&format!("the reply to {id}"), |v| v["id"] == id)
    }

    /// Sends `quit` and waits for the process to end; returns its reply.
    pub fn quit(mut self, id: i64) -> Value {
        self.send(json!({"id": id, "cmd": "quit"}));
        let reply = self.reply(id);
        drop(self.stdin.take());
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(value) => self.seen.push(value),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => panic!("session did not exit after quit"),
            }
        }
        let status = self.child.wait().unwrap();
        assert!(status.success(), "session exited with {status}");
        reply
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The demo server on a process of its own, killed when dropped; its stderr is read line by line.
pub struct DemoProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<Receiver<Value>>,
    stderr: Receiver<String>,
    pub stderr_seen: Vec<String>,
    pub stdout_seen: Vec<Value>,
}

impl DemoProcess {
    /// Starts the server with `args`; waits for its "ready" line on stderr.
    pub fn start(args: &[&str]) -> DemoProcess {
        let mut child = Command::new(demo_bin())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = Some(json_lines(child.stdout.take().unwrap(), "the demo server"));
        let stderr = text_lines(child.stderr.take().unwrap());
        let mut process = DemoProcess {
            child,
            stdin,
            stdout,
            stderr,
            stderr_seen: Vec::new(),
            stdout_seen: Vec::new(),
        };
        process.wait_stderr("the ready line", |line| line.contains(" ready ("));
        process
    }

    pub fn wait_stderr(&mut self, what: &str, pred: impl Fn(&String) -> bool) -> String {
        wait_in(&self.stderr, &mut self.stderr_seen, what, pred)
    }

    /// The URL printed by `--http`.
    pub fn url(&self) -> String {
        let line = self
            .stderr_seen
            .iter()
            .find(|line| line.contains("ready (http://"))
            .expect("an HTTP ready line");
        let start = line.find("http://").unwrap();
        line[start..].trim_end_matches(')').to_owned()
    }

    /// Writes one JSON-RPC message to the server's stdin.
    pub fn send(&mut self, message: Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request and waits for its response.
    pub fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response(id)
    }

    pub fn response(&mut self, id: i64) -> Value {
        self.wait_stdout(&format!("the response to {id}"), |m| {
            m["id"] == id && m.get("method").is_none()
        })
    }

    pub fn wait_stdout(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let lines = self.stdout.as_ref().expect("stdout open");
        wait_in(lines, &mut self.stdout_seen, what, pred)
    }

    /// Closes stdin and waits for the exit; returns the exit code.
    pub fn close(mut self) -> Option<i32> {
        drop(self.stdin.take());
        self.wait_exit()
    }

    /// Waits for the process to end (its stdout closes first); returns the exit code.
    pub fn wait_exit(&mut self) -> Option<i32> {
        if let Some(lines) = self.stdout.take() {
            let deadline = Instant::now() + PATIENCE;
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                match lines.recv_timeout(left) {
                    Ok(value) => self.stdout_seen.push(value),
                    Err(RecvTimeoutError::Disconnected) => break,
                    Err(RecvTimeoutError::Timeout) => panic!("the demo server did not exit"),
                }
            }
        }
        self.child.wait().unwrap().code()
    }
}

impl Drop for DemoProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// Flows shared by the stdio and HTTP tests.

pub fn is_progress_of(v: &Value, call: i64) -> bool {
    v["event"] == "progress" && v["call"] == call
}

/// `slow` with three quick steps: three progress events in order, then the result.
pub fn slow_reports_progress(session: &mut Session) {
    session.send(
        json!({"id": 1, "cmd": "call", "server": "demo", "tool": "slow",
                        "args": {"steps": 3, "delay_ms": 10}}),
    );
    let reply = session.reply(1);
    assert_eq!(reply["ok"], true, "{reply:#}");
    assert_eq!(reply["result"]["content"][0]["text"], "done after 3 steps");
    let progress: Vec<&Value> = session
        .seen
        .iter()
        .filter(|v| is_progress_of(v, 1))
        .collect();
    assert_eq!(progress.len(), 3, "{:#?}", session.seen);
    for (i, event) in progress.iter().enumerate() {
        let step = i + 1;
        assert_eq!(event["server"], "demo");
        assert_eq!(event["progress"].as_f64(), Some(step as f64), "{event}");
        assert_eq!(event["total"].as_f64(), Some(3.0), "{event}");
        assert_eq!(event["message"], format!("step {step} of 3"));
    }
    // Progress comes before the result it belongs to.
    let reply_at = session.seen.iter().position(|v| v["id"] == 1).unwrap();
    let last_progress_at = session
        .seen
        .iter()
        .rposition(|v| is_progress_of(v, 1))
        .unwrap();
    assert!(last_progress_at < reply_at, "{:#?}", session.seen);
}

/// A long `slow` cancelled after its first progress event fails with `cancelled`.
pub fn slow_is_cancelled(session: &mut Session) {
    session.send(
        json!({"id": 10, "cmd": "call", "server": "demo", "tool": "slow",
                        "args": {"steps": 100, "delay_ms": 50}}),
    );
    session.wait_for("the first progress of call 10", |v| is_progress_of(v, 10));
    session.send(json!({"id": 11, "cmd": "cancel", "target": 10}));
    let reply = session.reply(10);
    assert_eq!(reply["ok"], false, "{reply:#}");
    assert_eq!(reply["error"]["code"], "cancelled", "{reply:#}");
    let cancel = session.reply(11);
    assert_eq!(cancel["ok"], true, "{cancel:#}");
    let steps = session
        .seen
        .iter()
        .filter(|v| is_progress_of(v, 10))
        .count();
    assert!(steps < 100, "the call ran to the end: {steps} steps");
}

/// The `_meta` a 2026-07-28 request carries in place of a session.
pub fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "wharf-demo-tests", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}
