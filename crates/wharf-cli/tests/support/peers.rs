//! Shared helpers of the end-to-end tests: where the real peers are (installed by `scripts/deps.sh` into .peers),
//! how to run `wharf`, and how to wait on output instead of sleeping.
// Test helpers: a failed unwrap here is a failed test, with its message.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use serde_json::Value;

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

pub fn peers() -> PathBuf {
    std::env::var_os("WHARF_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join(".peers"))
}

fn require(path: PathBuf) -> PathBuf {
    assert!(
        path.exists(),
        "{} is missing: run `scripts/deps.sh` (make test does)",
        path.display()
    );
    path
}

pub fn everything_js() -> PathBuf {
    require(peers().join("npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"))
}

pub fn python() -> PathBuf {
    require(peers().join("py/bin/python"))
}

pub fn fixture(name: &str) -> PathBuf {
    require(repo().join("tests/fixtures").join(name))
}

pub fn wharf_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_wharf"))
}

/// Cargo builds `wharf-demo-server` beside `wharf` for the workspace's tests and builds (`make test`, `make build`).
pub fn demo_server() -> PathBuf {
    let path = wharf_bin().with_file_name("wharf-demo-server");
    assert!(
        path.exists(),
        "{} is missing: cargo build -p wharf-demo (make test does)",
        path.display()
    );
    path
}

/// A scratch directory with a config file; the era cache lives inside it so tests never share state.
pub struct Scratch {
    pub dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new(config: Value) -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("mcp.json"),
            serde_json::to_vec_pretty(&config).unwrap(),
        )
        .unwrap();
        Scratch { dir }
    }

    pub fn config(&self) -> PathBuf {
        self.dir.path().join("mcp.json")
    }

    pub fn wharf(&self) -> Command {
        let mut cmd = Command::new(wharf_bin());
        cmd.arg("--config")
            .arg(self.config())
            .env("XDG_CACHE_HOME", self.dir.path().join("cache"))
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"))
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .env_remove("WHARF_LOG")
            .stdin(Stdio::null());
        cmd
    }

    /// Runs a one-shot command to completion.
    pub fn run(&self, args: &[&str]) -> Output {
        self.wharf().args(args).output().unwrap()
    }

    pub fn session(&self) -> Session {
        self.session_with(&[])
    }

    /// A session with extra global options (`--events FILE`, `--answers FILE`).
    pub fn session_with(&self, options: &[&str]) -> Session {
        let mut child = self
            .wharf()
            .args(options)
            .arg("session")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
                    panic!("session wrote a line that is not JSON ({e}): {line}")
                });
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        Session {
            child,
            stdin: Some(stdin),
            lines,
            seen: Vec::new(),
        }
    }
}

pub fn stdio_server(command: &Path, args: &[&str]) -> Value {
    serde_json::json!({"type": "stdio", "command": command, "args": args})
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

/// A running `wharf session`, read line by line.
pub struct Session {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    /// Everything read so far, in order.
    pub seen: Vec<Value>,
}

pub const PATIENCE: Duration = Duration::from_secs(60);

impl Session {
    pub fn send(&mut self, command: Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{command}").unwrap();
        stdin.flush().unwrap();
    }

    /// Waits for the first line (after those already seen) matching `pred`; panics after PATIENCE with what came.
    pub fn wait_for(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(found) = self.seen.iter().find(|v| pred(v)) {
            return found.clone();
        }
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(value) => {
                    self.seen.push(value.clone());
                    if pred(&value) {
                        return value;
                    }
                }
                Err(_) => panic!(
                    "timed out waiting for {what}; session wrote: {:#?}",
                    self.seen
                ),
            }
        }
    }

    /// Waits until `n` lines in all (already seen included) match `pred`; returns the n-th.
    pub fn wait_for_nth(&mut self, what: &str, n: usize, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let matching: Vec<&Value> = self.seen.iter().filter(|v| pred(v)).collect();
            if matching.len() >= n {
                return matching[n - 1].clone();
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(value) => self.seen.push(value),
                Err(_) => panic!(
                    "timed out waiting for {what} (#{n}); session wrote: {:#?}",
                    self.seen
                ),
            }
        }
    }

    /// The next line (kept in `seen` too), or None once `deadline` passes or the session's stdout ends.
    pub fn next_line(&mut self, deadline: Instant) -> Option<Value> {
        let left = deadline.saturating_duration_since(Instant::now());
        let value = self.lines.recv_timeout(left).ok()?;
        self.seen.push(value.clone());
        Some(value)
    }

    pub fn reply(&mut self, id: i64) -> Value {
        self.wait_for(&format!("the reply to {id}"), |v| v["id"] == id)
    }

    pub fn event(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        self.wait_for(what, |v| v.get("event").is_some() && pred(v))
    }

    /// Quits and waits for the process; returns its exit status. Waits on stdout's end, which comes when it exits.
    pub fn quit(self) -> std::process::ExitStatus {
        self.quit_and_collect().0
    }

    /// Quits as [`Session::quit`] does, and returns every line the session wrote as well.
    pub fn quit_and_collect(mut self) -> (std::process::ExitStatus, Vec<Value>) {
        self.send(serde_json::json!({"id": -1, "cmd": "quit"}));
        drop(self.stdin.take());
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(value) => self.seen.push(value),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    panic!("session did not exit after quit")
                }
            }
        }
        (self.child.wait().unwrap(), std::mem::take(&mut self.seen))
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A free loopback port for a peer that takes its port as an argument.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A peer process (an HTTP server) started by a test and killed when dropped.
pub struct Peer {
    child: Child,
    /// The line that announced readiness (it often carries the URL).
    pub ready_line: String,
}

impl Peer {
    /// Starts `cmd` and waits until it prints a line containing `ready` on stdout or stderr.
    pub fn start(mut cmd: Command, ready: &str) -> Peer {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let (tx, rx) = channel::<String>();
        let out = child.stdout.take().unwrap();
        let err = child.stderr.take().unwrap();
        for pipe in [
            Box::new(out) as Box<dyn std::io::Read + Send>,
            Box::new(err),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines() {
                    let Ok(line) = line else { break };
                    // Keep draining after readiness so the peer never blocks on a full pipe.
                    let _ = tx.send(line);
                }
            });
        }
        let mut peer = Peer {
            child,
            ready_line: String::new(),
        };
        let deadline = Instant::now() + PATIENCE;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) if line.contains(ready) => {
                    peer.ready_line = line;
                    break;
                }
                Ok(line) => seen.push(line),
                Err(_) => panic!("peer never printed {ready:?}; it printed: {seen:#?}"),
            }
        }
        peer
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `@modelcontextprotocol/server-everything` over stdio, as a server entry.
pub fn everything_stdio() -> Value {
    stdio_server(
        Path::new("node"),
        &[everything_js().to_str().unwrap(), "stdio"],
    )
}

/// `@modelcontextprotocol/server-everything` serving Streamable HTTP on a free loopback port, stopped when dropped.
pub struct HttpEverything {
    _peer: Peer,
    pub url: String,
}

pub fn everything_http() -> HttpEverything {
    let port = free_port();
    let mut cmd = Command::new("node");
    cmd.arg(everything_js())
        .arg("streamableHttp")
        .env("PORT", port.to_string());
    let peer = Peer::start(cmd, "listening on port");
    HttpEverything {
        _peer: peer,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

/// The python fixture server (tests/fixtures/py_server.py) over stdio, as a server entry: 2026-07-28 unless pinned.
pub fn python_stdio() -> Value {
    stdio_server(&python(), &[fixture("py_server.py").to_str().unwrap()])
}

/// The peak resident memory of a process so far (VmHWM), in KiB.
pub fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Waits (at most 15 s) until the process is gone; false if it is still there.
pub fn wait_gone(pid: u32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(15);
    while std::path::Path::new(&format!("/proc/{pid}")).exists() {
        // A reaped process can linger as a zombie of its parent; that is gone enough.
        let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| {
                s.split(") ")
                    .nth(1)
                    .is_some_and(|rest| rest.starts_with('Z'))
            })
            .unwrap_or(true);
        if zombie {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::park_timeout(Duration::from_millis(20));
    }
    true
}

/// A "browser" for `$BROWSER`: a script that writes each URL it is given to a FIFO, which a thread reads, so a test
/// waits on each URL as it arrives (the browser is started in the background) rather than polling a file.
pub struct RecordingBrowser {
    pub script: PathBuf,
    urls: Receiver<String>,
    seen: std::cell::RefCell<Vec<String>>,
}

impl RecordingBrowser {
    pub fn new(dir: &Path) -> RecordingBrowser {
        let fifo = dir.join("opened.fifo");
        let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success(), "mkfifo {}", fifo.display());
        let script = dir.join("browser.sh");
        std::fs::write(
            &script,
            format!("#!/bin/sh\nprintf '%s\\n' \"$@\" >> '{}'\n", fifo.display()),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let (tx, urls) = channel();
        std::thread::spawn(move || loop {
            // Opening blocks until a browser opens the FIFO to write; its end is this read's end.
            let Ok(file) = std::fs::File::open(&fifo) else {
                return;
            };
            for line in BufReader::new(file).lines() {
                let Ok(url) = line else { break };
                if tx.send(url).is_err() {
                    return;
                }
            }
        });
        RecordingBrowser {
            script,
            urls,
            seen: Default::default(),
        }
    }

    /// Every URL given so far, once `n` of them arrived (panics after 20 s with fewer).
    pub fn opened(&self, n: usize) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut seen = self.seen.borrow_mut();
        while seen.len() < n {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.urls.recv_timeout(left) {
                Ok(url) => seen.push(url),
                Err(_) => panic!("the browser got {} URL(s), not {n}: {seen:?}", seen.len()),
            }
        }
        seen.extend(self.urls.try_iter());
        seen.clone()
    }
}

/// Runs a command on a pseudo-terminal, answering each prompt once it has been written (never before), and prints
/// every byte the terminal received. STEPS: `[[text to wait for, what to type], ...]`.
pub const PTY_DRIVER: &str = r#"
import json, os, pty, select, sys, time
steps = json.loads(os.environ["STEPS"])
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
deadline = time.monotonic() + 60
def pump():
    global out
    left = deadline - time.monotonic()
    if left <= 0 or not select.select([fd], [], [], left)[0]:
        return False
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        return False
    out += chunk
    return bool(chunk)
seen = 0
for wait, answer in steps:
    while out.find(wait.encode(), seen) < 0:
        if not pump():
            sys.stdout.buffer.write(out)
            sys.stderr.write("driver: never saw %r\n" % wait)
            os.kill(pid, 9)
            sys.exit(97)
    seen = out.find(wait.encode(), seen) + len(wait)
    os.write(fd, answer.encode())
while pump():
    pass
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
sys.exit(os.waitstatus_to_exitcode(status))
"#;
