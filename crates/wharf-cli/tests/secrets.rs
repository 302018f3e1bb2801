//! `wharf secret set|delete` against real keyrings: the Secret Service (gnome-keyring-daemon in a private D-Bus
//! session, unlocked with a password) and the kernel keyutils fallback (a private session keyring, no D-Bus). Each
//! scenario is one shell script run inside the keyring session, every step's output kept in files; the Rust side
//! then checks them, reads the keyring back with an independent tool (secret-tool, keyctl) and with
//! `SecretStore::get` (this test binary re-run as a child inside the session), and scans everything wharf wrote for
//! the values. Needs gnome-keyring, libsecret-tools and keyutils (scripts/deps.sh installs them).

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use wharf_core::secrets::{lookup_input, SecretStore};

const MARKER_VAR: &str = "WHARF_SECRETS_TEST_MARKER";

fn wharf_bin() -> &'static str {
    env!("CARGO_BIN_EXE_wharf")
}

fn require(tool: &str) {
    let found = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()))
        .unwrap_or(false);
    assert!(found, "{tool} is missing: run scripts/deps.sh (apt part)");
}

/// A value no other test or leftover could hold, so finding it anywhere means this run leaked it.
fn unique(tag: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("wharf-{tag}-{}-{nanos}", std::process::id())
}

fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Which keyring session the script runs in.
enum Session {
    /// `dbus-run-session`, a gnome-keyring-daemon unlocked with this password, its secrets component started.
    SecretService { password: String },
    /// `keyctl session -` (a fresh session keyring), with D-Bus pointing at nothing so the probe fails.
    Keyutils,
}

struct Scenario {
    root: tempfile::TempDir,
    marker: String,
    script: Vec<String>,
    values: Vec<String>,
}

impl Scenario {
    fn new() -> Scenario {
        let root = tempfile::tempdir().unwrap();
        for dir in [
            "home",
            "xdg/config",
            "xdg/cache",
            "xdg/state",
            "xdg/data",
            "run",
            "input",
            "out",
            "check",
        ] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        use std::os::unix::fs::PermissionsExt;
        let run = root.path().join("run");
        std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).unwrap();
        Scenario {
            root,
            marker: unique("marker"),
            script: Vec::new(),
            values: Vec::new(),
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.path().join(rel)
    }

    /// A value the script feeds to wharf on stdin (written as `text`, which may end with a line ending).
    fn value(&mut self, file: &str, text: &str) {
        std::fs::write(self.path("input").join(file), text).unwrap();
        self.values
            .push(text.trim_end_matches(['\r', '\n']).to_string());
    }

    /// `wharf ARGS < input/STDIN`, its stdout, stderr and status in out/LABEL.*
    fn wharf(&mut self, label: &str, args: &[&str], stdin: Option<&str>) {
        let args: Vec<String> = args.iter().map(|a| sh_quote(a)).collect();
        let input = stdin.map_or("/dev/null".to_string(), |f| format!("\"$IN/{f}\""));
        self.script.push(format!(
            "\"$WHARF\" --events \"$OUT/events.jsonl\" {} < {input} > \"$OUT/{label}.stdout\" 2> \"$OUT/{label}.stderr\"; \
             echo $? > \"$OUT/{label}.rc\"",
            args.join(" ")
        ));
    }

    /// An independent reader's command, its output in check/LABEL.* (never scanned: it prints the value).
    fn check(&mut self, label: &str, command: &str) {
        self.script.push(format!(
            "( {command} ) > \"$CHECK/{label}.stdout\" 2> \"$CHECK/{label}.stderr\"; echo $? > \"$CHECK/{label}.rc\""
        ));
    }

    /// `SecretStore::open()` then `get` (or `lookup_input` for an `input:` name) in a child of this test binary.
    fn reader(&mut self, label: &str, name: &str, expect: Option<&str>) {
        let expect = expect.map_or(String::new(), |f| {
            format!("WHARF_SECRETS_EXPECT=\"$IN/{f}\" ")
        });
        self.check(
            label,
            &format!(
                "WHARF_SECRETS_READ={} {expect}\"$SELF\" reader_child --exact --ignored --nocapture --test-threads=1",
                sh_quote(name)
            ),
        );
    }

    fn run(&self, session: &Session) -> Output {
        let body = self.script.join("\n");
        let (program, args, script): (&str, Vec<&str>, String) = match session {
            Session::SecretService { .. } => (
                "dbus-run-session",
                vec!["--"],
                // --unlock creates the login keyring (the default collection) with the password from stdin;
                // --start then brings up its Secret Service on this bus.
                format!(
                    "printf %s \"$KEYRING_PASSWORD\" | gnome-keyring-daemon --unlock --components=secrets >/dev/null \
                     || exit 90\ngnome-keyring-daemon --start --components=secrets >/dev/null || exit 91\n{body}\n"
                ),
            ),
            Session::Keyutils => ("keyctl", vec!["session", "-"], format!("{body}\n")),
        };
        let xdg = |d: &str| self.path("xdg").join(d);
        let mut cmd = Command::new(program);
        cmd.args(args)
            .args(["sh", "-c", &script])
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", xdg("config"))
            .env("XDG_CACHE_HOME", xdg("cache"))
            .env("XDG_STATE_HOME", xdg("state"))
            .env("XDG_DATA_HOME", xdg("data"))
            .env("XDG_RUNTIME_DIR", self.path("run"))
            .env("WHARF_LOG", "debug")
            .env("NO_COLOR", "1")
            .env(MARKER_VAR, &self.marker)
            .env("WHARF", wharf_bin())
            .env("SELF", std::env::current_exe().unwrap())
            .env("IN", self.path("input"))
            .env("OUT", self.path("out"))
            .env("CHECK", self.path("check"))
            .stdin(Stdio::null());
        match session {
            Session::SecretService { password } => {
                cmd.env("KEYRING_PASSWORD", password);
            }
            Session::Keyutils => {
                cmd.env(
                    "DBUS_SESSION_BUS_ADDRESS",
                    "unix:path=/nonexistent/wharf-test-bus",
                );
            }
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{program} failed: {:?}\nstdout: {}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    fn read(&self, dir: &str, label: &str, ext: &str) -> String {
        let path = self.path(dir).join(format!("{label}.{ext}"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn rc(&self, dir: &str, label: &str) -> i32 {
        self.read(dir, label, "rc").trim().parse().unwrap()
    }

    /// A wharf step that succeeded: its JSON output.
    fn ok_json(&self, label: &str) -> Value {
        let stderr = self.read("out", label, "stderr");
        assert_eq!(self.rc("out", label), 0, "{label} failed: {stderr}");
        serde_json::from_str(&self.read("out", label, "stdout"))
            .unwrap_or_else(|e| panic!("{label}: stdout is not JSON ({e}); stderr: {stderr}"))
    }

    /// What the child reader saw: `backend=... present=... matches=...`.
    fn reader_result(&self, label: &str) -> String {
        let stdout = self.read("check", label, "stdout");
        assert_eq!(
            self.rc("check", label),
            0,
            "{label}: {stdout}{}",
            self.read("check", label, "stderr")
        );
        stdout
            .lines()
            // libtest writes "test reader_child ... " before it, on the same line.
            .find_map(|l| l.split_once("reader-result: ").map(|(_, result)| result))
            .unwrap_or_else(|| panic!("{label}: no result in {stdout}"))
            .to_string()
    }

    /// Every file wharf could have written (its outputs and logs, the events file, the XDG directories) holds none
    /// of the values. Left out: input/ (the values themselves), check/ (the readers print them) and the keyring's
    /// own store (gnome-keyring's encrypted files: holding the value is its job).
    fn assert_no_value_anywhere(&self, extra: &[&[u8]]) {
        let skip = [
            self.path("input"),
            self.path("check"),
            self.path("xdg/data/keyrings"),
        ];
        let mut files = Vec::new();
        collect_files(self.root.path(), &skip, &mut files);
        let logs: Vec<_> = files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "stderr"))
            .collect();
        assert!(!logs.is_empty(), "no wharf log was captured");
        for value in &self.values {
            for file in &files {
                let bytes = std::fs::read(file).unwrap();
                assert!(
                    !contains(&bytes, value.as_bytes()),
                    "the value leaked into {}",
                    file.display()
                );
            }
            for (i, bytes) in extra.iter().enumerate() {
                assert!(
                    !contains(bytes, value.as_bytes()),
                    "the value leaked into output #{i}"
                );
            }
        }
    }
}

fn collect_files(dir: &Path, skip: &[PathBuf], out: &mut Vec<PathBuf>) {
    if skip.iter().any(|s| s == dir) {
        return;
    }
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            collect_files(&entry.path(), skip, out);
        } else if kind.is_file() {
            out.push(entry.path());
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The round trip both backends must pass: set, replace (value given with a line ending), delete twice, and an
/// `${input:ID}` value found through `lookup_input`.
fn round_trip(scenario: &mut Scenario, name: &str, lookup: impl Fn(&str) -> String) {
    let input_id = format!("{name}-input");
    let input_name = format!("input:{input_id}");
    scenario.value("v1", &unique("first-value"));
    scenario.value("v2", &format!("{}\n", unique("second-value")));
    scenario.value("v3", &unique("input-value"));
    scenario.wharf("set1", &["secret", "set", name], Some("v1"));
    scenario.check("lookup1", &lookup(name));
    scenario.reader("reader1", name, Some("v1"));
    scenario.wharf("set2", &["secret", "set", name], Some("v2"));
    scenario.check("lookup2", &lookup(name));
    scenario.reader("reader2", name, Some("v2"));
    scenario.wharf("set_input", &["secret", "set", &input_name], Some("v3"));
    scenario.reader("reader_input", &input_name, Some("v3"));
    scenario.wharf("delete1", &["secret", "delete", name], None);
    scenario.check("lookup3", &lookup(name));
    scenario.reader("reader3", name, None);
    scenario.wharf("delete2", &["secret", "delete", name], None);
    scenario.wharf("delete_input", &["secret", "delete", &input_name], None);
}

fn assert_round_trip(scenario: &Scenario, name: &str, backend: &str) {
    let v = &scenario.values;
    for set in ["set1", "set2"] {
        assert_eq!(
            scenario.ok_json(set),
            json!({"name": name, "stored": true, "backend": backend})
        );
        // The choice is made and logged once per process, naming the backend.
        let log = scenario.read("out", set, "stderr");
        let chosen = log.lines().filter(|l| l.contains("secrets: ")).count();
        assert_eq!(chosen, 1, "{log}");
        assert!(log.contains(&format!("backend=\"{backend}\"")), "{log}");
    }
    assert_eq!(scenario.rc("check", "lookup1"), 0);
    assert_eq!(scenario.read("check", "lookup1", "stdout"), v[0]);
    assert_eq!(
        scenario.read("check", "lookup2", "stdout"),
        v[1],
        "replaced, line ending stripped"
    );
    let found = format!("backend={backend} present=true matches=true");
    assert_eq!(scenario.reader_result("reader1"), found);
    assert_eq!(scenario.reader_result("reader2"), found);
    assert_eq!(scenario.reader_result("reader_input"), found);
    assert_eq!(
        scenario.ok_json("delete1"),
        json!({"name": name, "deleted": true, "backend": backend})
    );
    assert_ne!(scenario.rc("check", "lookup3"), 0, "gone after delete");
    assert_eq!(scenario.read("check", "lookup3", "stdout"), "");
    assert_eq!(
        scenario.reader_result("reader3"),
        format!("backend={backend} present=false matches=false")
    );
    assert_eq!(
        scenario.ok_json("delete2"),
        json!({"name": name, "deleted": false, "backend": backend})
    );
    assert_eq!(scenario.ok_json("delete_input")["deleted"], json!(true));
}

/// Processes that carry this scenario's marker in their environment and are still running (not zombies).
fn live_with_marker(marker: &str) -> Vec<String> {
    let needle = format!("{MARKER_VAR}={marker}");
    let mut live = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let dir = entry.path();
        let Ok(environ) = std::fs::read(dir.join("environ")) else {
            continue;
        };
        if !environ.split(|b| *b == 0).any(|v| v == needle.as_bytes()) {
            continue;
        }
        let stat = std::fs::read_to_string(dir.join("stat")).unwrap_or_default();
        // The state is the field after the parenthesised command name.
        let state = stat.rsplit(") ").next().and_then(|s| s.chars().next());
        if !matches!(state, Some('Z' | 'X') | None) {
            let cmdline = std::fs::read(dir.join("cmdline")).unwrap_or_default();
            live.push(String::from_utf8_lossy(&cmdline).replace('\0', " "));
        }
    }
    live
}

#[test]
fn secret_service_round_trip_with_gnome_keyring() {
    for tool in ["dbus-run-session", "gnome-keyring-daemon", "secret-tool"] {
        require(tool);
    }
    let mut scenario = Scenario::new();
    let name = unique("ss");
    round_trip(&mut scenario, &name, |n| {
        format!("secret-tool lookup service wharf username {}", sh_quote(n))
    });
    // One item after a replace, not two: read with the attributes keyring sets.
    scenario.check(
        "count",
        &format!(
            "secret-tool search --all service wharf username {} target default 2>&1 | grep -c '^secret = ' || true",
            sh_quote(&name)
        ),
    );
    let out = scenario.run(&Session::SecretService {
        password: unique("keyring-password"),
    });
    assert_round_trip(&scenario, &name, "secret-service");
    assert_eq!(
        scenario.read("check", "count", "stdout").trim(),
        "0",
        "deleted: no item left"
    );

    // The daemon goes with the D-Bus session: wait (bounded) for it to exit, it was told when the bus closed.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let live = live_with_marker(&scenario.marker);
        if live.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still running after the session: {live:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    scenario.assert_no_value_anywhere(&[&out.stdout, &out.stderr]);
}

#[test]
fn keyutils_is_the_fallback_without_a_secret_service() {
    require("keyctl");
    let mut scenario = Scenario::new();
    let name = unique("ku");
    round_trip(&mut scenario, &name, |n| {
        format!(
            "keyctl pipe {}",
            sh_quote(&format!("%user:keyring-rs:{n}@wharf"))
        )
    });
    let out = scenario.run(&Session::Keyutils);
    assert_round_trip(&scenario, &name, "keyutils");
    // The log says why the Secret Service was passed over.
    let log = scenario.read("out", "set1", "stderr");
    assert!(log.contains("no Secret Service"), "{log}");
    scenario.assert_no_value_anywhere(&[&out.stdout, &out.stderr]);
}

#[test]
fn bad_input_is_refused_before_the_keyring_with_one_line() {
    let value = unique("typed-on-argv");
    let run = |args: &[&str], stdin: &[u8]| {
        let mut child = Command::new(wharf_bin())
            .args(args)
            // No keyring reachable: each refusal must come before the backend is even looked for.
            .env(
                "DBUS_SESSION_BUS_ADDRESS",
                "unix:path=/nonexistent/wharf-test-bus",
            )
            .env("WHARF_LOG", "debug")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        // A refusal may come before wharf reads stdin: a closed pipe then is expected.
        let _ = child.stdin.take().unwrap().write_all(stdin);
        child.wait_with_output().unwrap()
    };
    for (args, stdin, reason) in [
        (
            vec!["secret", "set", "openai", value.as_str()],
            &b""[..],
            "never from the command line",
        ),
        (vec!["secret", "set", "openai"], b"", "empty"),
        (vec!["secret", "set", "openai"], b"\n", "empty"),
        (vec!["secret", "set", ""], b"x\n", "invalid secret name"),
        (vec!["secret", "delete", "a\nb"], b"", "control characters"),
        (vec!["secret", "set", "openai"], b"\xff\xfe\n", "not UTF-8"),
    ] {
        let out = run(&args, stdin);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: one line: {stderr:?}");
        assert!(
            stderr.starts_with("wharf: ") && stderr.contains(reason),
            "{args:?}: {stderr}"
        );
        assert!(
            !stderr.contains("secrets: "),
            "{args:?}: no backend was looked for: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            !stderr.contains(&value),
            "{args:?}: the argv value was echoed"
        );
    }
}

/// Drives wharf on a pseudo-terminal: waits for the prompt (PROMPT, by default `secret set`'s), types the value,
/// reads to the end. The prompt is written after echo is off, so waiting for it leaves no race with the typing.
const PTY_DRIVER: &str = r#"
import os, pty, sys
value = open(os.environ["VALUE_FILE"], "rb").read()
prompt = os.environ.get("PROMPT", "reading the value").encode()
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
def read_until(done):
    global out
    while not done(out):
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
read_until(lambda o: prompt in o)
os.write(fd, value + b"\n")
read_until(lambda o: False)
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
sys.exit(os.waitstatus_to_exitcode(status))
"#;

#[test]
fn a_value_typed_on_a_terminal_is_not_echoed() {
    require("keyctl");
    require("python3");
    let dir = tempfile::tempdir().unwrap();
    let value = unique("typed-value");
    let value_file = dir.path().join("value");
    std::fs::write(&value_file, &value).unwrap();
    let name = unique("tty");
    let script = format!(
        "\"$WHARF\" secret set {n} && \"$WHARF\" secret delete {n}",
        n = sh_quote(&name)
    );
    let out = Command::new("python3")
        .args([
            "-c", PTY_DRIVER, "keyctl", "session", "-", "sh", "-c", &script,
        ])
        .env("VALUE_FILE", &value_file)
        .env("WHARF", wharf_bin())
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/wharf-test-bus",
        )
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{screen}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(screen.contains("(typing is not shown)"), "{screen}");
    assert!(screen.contains("\"stored\": true"), "{screen}");
    assert!(
        screen.contains("\"deleted\": true"),
        "stored the typed value: {screen}"
    );
    assert!(!screen.contains(&value), "the value was echoed: {screen}");
}

/// An interactive `wharf` asks for each `${input:ID}` of the servers that run, in a configuration written as VS Code
/// writes it (comments included), and keeps the typed value in the keyring without echoing it. A disabled server's
/// input is not asked for.
#[test]
fn wharf_asks_on_the_terminal_for_the_inputs_of_a_commented_configuration() {
    require("keyctl");
    require("python3");
    let dir = tempfile::tempdir().unwrap();
    let value = unique("input-value");
    let value_file = dir.path().join("value");
    std::fs::write(&value_file, &value).unwrap();
    let (used, off) = (unique("used"), unique("off"));
    let form_server = format!(
        "{}/../../tests/fixtures/form_server.py",
        env!("CARGO_MANIFEST_DIR")
    );
    let server = |input: &str| {
        json!({"command": "python3", "args": [form_server, "legacy"],
               "env": {"TOKEN": format!("${{input:{input}}}")}})
    };
    let mut off_def = server(&off);
    off_def["disabled"] = json!(true);
    let config = format!(
        r#"// the servers of this project
{{
  "servers": {{
    "on": {on}, /* runs */
    "off": {off_def}
  }},
  "inputs": [{{"id": "{used}", "description": "Token for on"}}]
}}
"#,
        on = server(&used),
    );
    std::fs::write(dir.path().join("mcp.json"), config).unwrap();
    let script = format!(
        r#""$WHARF" --config "$D/mcp.json" tools > /dev/null; "$WHARF" secret delete {u}; "$WHARF" secret delete {o}"#,
        u = sh_quote(&format!("input:{used}")),
        o = sh_quote(&format!("input:{off}")),
    );
    let out = Command::new("python3")
        .args([
            "-c", PTY_DRIVER, "keyctl", "session", "-", "sh", "-c", &script,
        ])
        .env("VALUE_FILE", &value_file)
        .env("PROMPT", "kept in the OS keyring; empty to skip: ")
        .env("WHARF", wharf_bin())
        .env("D", dir.path())
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .env_remove("WHARF_LOG")
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/wharf-test-bus",
        )
        .output()
        .unwrap();
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{screen}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        screen.contains(&format!("wharf: Token for on (${{input:{used}}})")),
        "{screen}"
    );
    let asked: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains("empty to skip"))
        .collect();
    assert_eq!(
        asked.len(),
        1,
        "one input asked for, not the disabled server's: {screen}"
    );
    let deleted: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains("\"deleted\""))
        .collect();
    assert_eq!(deleted.len(), 2, "{screen}");
    assert!(
        deleted[0].contains("true"),
        "the typed value was kept: {screen}"
    );
    assert!(deleted[1].contains("false"), "{screen}");
    assert!(!screen.contains(&value), "the value was echoed: {screen}");
}

/// Not a test of its own: the scenarios run it inside their keyring session. Prints whether `SecretStore` finds
/// WHARF_SECRETS_READ and whether it equals the value in the file WHARF_SECRETS_EXPECT (never the value itself).
#[test]
#[ignore = "a helper the keyring scenarios run as a child process"]
fn reader_child() {
    let Ok(name) = std::env::var("WHARF_SECRETS_READ") else {
        return;
    };
    let store = SecretStore::open().expect("a keyring");
    let found = match name.strip_prefix("input:") {
        Some(id) => lookup_input(&store, id),
        None => store.get(&name),
    }
    .expect("get");
    // The same read from async code, blocking and not: the way wharf's config loading and the app call it.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (inside, in_async) = runtime.block_on(async {
        let inside = store.get(&name).expect("get inside a runtime");
        let in_async = store.get_async(name.clone()).await.expect("get_async");
        (inside, in_async)
    });
    assert!(
        inside == found && in_async == found,
        "the three reads disagree"
    );
    let expected = std::env::var("WHARF_SECRETS_EXPECT").ok().map(|f| {
        std::fs::read_to_string(f)
            .unwrap()
            .trim_end_matches(['\r', '\n'])
            .to_string()
    });
    let matches = match (&found, &expected) {
        (Some(found), Some(expected)) => found.expose() == expected,
        _ => false,
    };
    println!(
        "reader-result: backend={} present={} matches={matches}",
        store.backend(),
        found.is_some()
    );
}
