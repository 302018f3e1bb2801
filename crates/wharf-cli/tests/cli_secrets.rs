//! The secrets of a configuration never leave `wharf`, whoever echoes them: an HTTP server that answers 400 with a
//! page quoting the request headers (tests/fixtures/echo_headers_server.py), and a stdio server that quotes its
//! environment in errors, error results, its stderr and its dying words (tests/fixtures/terminal_server.py). The
//! secrets: a Bearer token and an API key in headers, a token in the environment, and two `${input:...}` values
//! kept in the keyring (here the kernel's keyutils, in a session keyring of the test's own) under names and shapes
//! that do not look secret. Every command's stdout and stderr, the session's output, the `--events` file and the
//! debug log are scanned for each value, as it is and in base64.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::path::Path;
use std::process::Command;

use base64::Engine;
use peers::*;
use serde_json::json;

fn unique() -> String {
    format!(
        "{}{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

/// Each command's output goes to out/LABEL.{stdout,stderr,rc}; run once quietly and once with the debug log.
const SCRIPT: &str = r#"
set -e
trap '"$WHARF" secret delete "input:$TENANT_ID" >/dev/null 2>&1; "$WHARF" secret delete "input:$REGION_ID" >/dev/null 2>&1' EXIT
"$WHARF" secret set "input:$TENANT_ID" < "$D/tenant.value" > /dev/null
"$WHARF" secret set "input:$REGION_ID" < "$D/region.value" > /dev/null
set +e
run() {
  label=$1; shift
  "$WHARF" --config "$D/mcp.json" --events "$D/out/events.jsonl" "$@" < /dev/null \
    > "$D/out/$label$SUFFIX.stdout" 2> "$D/out/$label$SUFFIX.stderr"
  echo $? > "$D/out/$label$SUFFIX.rc"
}
for SUFFIX in "" ".debug"; do
  if [ -n "$SUFFIX" ]; then export WHARF_LOG=debug; fi
  run servers servers
  run tools tools
  run call_web call web anything
  run echo_env call envy echo_env "$NAMES"
  run echo_env_result call envy echo_env_result "$NAMES"
  run crash_env call envy crash_env "$NAMES"
  "$WHARF" --config "$D/mcp.json" --events "$D/out/events.jsonl" session < "$D/session.jsonl" \
    > "$D/out/session$SUFFIX.stdout" 2> "$D/out/session$SUFFIX.stderr"
  echo $? > "$D/out/session$SUFFIX.rc"
done
"#;

#[test]
fn no_secret_of_the_configuration_reaches_any_output() {
    assert!(
        Command::new("keyctl").arg("--version").output().is_ok(),
        "keyctl is missing: run scripts/deps.sh (package keyutils)"
    );
    let run_id = unique();
    let bearer = format!("tok-bearer-{run_id}");
    let api_key = format!("key-{run_id}");
    let env_token = format!("env-token-{run_id}");
    // Input values that look like nothing in particular, under names that say nothing: secret because of where
    // they come from.
    let tenant = format!("blue whale {run_id} tenant");
    let region = format!("north {run_id} region");
    let tenant_id = format!("wharf-test-tenant-{run_id}");
    let region_id = format!("wharf-test-region-{run_id}");

    let mut echo = Command::new("python3");
    echo.arg(fixture("echo_headers_server.py"));
    let peer = Peer::start(echo, "http://127.0.0.1:");
    let scratch = Scratch::new(json!({"servers": {
        "web": {"type": "http", "url": peer.ready_line.trim(), "headers": {
            "Authorization": format!("Bearer {bearer}"),
            "X-Api-Key": api_key,
            "X-Tenant": format!("${{input:{tenant_id}}}"),
        }},
        "envy": {"type": "stdio", "command": "python3", "args": [fixture("terminal_server.py")], "env": {
            "API_TOKEN": env_token,
            "REGION": format!("${{input:{region_id}}}"),
        }},
    }}));
    let dir = scratch.dir.path();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::fs::write(dir.join("tenant.value"), &tenant).unwrap();
    std::fs::write(dir.join("region.value"), &region).unwrap();
    let names = json!({"names": ["API_TOKEN", "REGION"]});
    let session = [
        json!({"id": 1, "cmd": "call", "server": "envy", "tool": "echo_env", "args": names}),
        json!({"id": 2, "cmd": "call", "server": "envy", "tool": "echo_env_result", "args": names}),
        json!({"id": 3, "cmd": "call", "server": "web", "tool": "anything"}),
        json!({"id": 4, "cmd": "servers"}),
        json!({"id": 5, "cmd": "quit"}),
    ];
    let session: String = session.iter().map(|c| format!("{c}\n")).collect();
    std::fs::write(dir.join("session.jsonl"), session).unwrap();

    let status = Command::new("keyctl")
        .args(["session", "-", "sh", "-c", SCRIPT])
        .env("WHARF", wharf_bin())
        .env("D", dir)
        .env("TENANT_ID", &tenant_id)
        .env("REGION_ID", &region_id)
        .env("NAMES", names.to_string())
        .env_remove("WHARF_LOG")
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/wharf-test-bus",
        )
        .status()
        .unwrap();
    assert!(status.success(), "the keyring session failed: {status:?}");
    let read = |name: &str| std::fs::read_to_string(dir.join("out").join(name)).unwrap_or_default();

    // The contract's exit codes, and proof that each echo happened (masked where the value was).
    for suffix in ["", ".debug"] {
        let rc = |label: &str| read(&format!("{label}{suffix}.rc")).trim().to_string();
        let err = |label: &str| read(&format!("{label}{suffix}.stderr"));
        assert_eq!(rc("servers"), "0", "{}", err("servers"));
        assert_eq!(rc("tools"), "0", "{}", err("tools"));
        assert_eq!(rc("call_web"), "2", "{}", err("call_web"));
        assert_eq!(rc("echo_env"), "2", "{}", err("echo_env"));
        assert_eq!(rc("echo_env_result"), "1", "{}", err("echo_env_result"));
        assert_eq!(rc("crash_env"), "2", "{}", err("crash_env"));
        assert_eq!(rc("session"), "0", "{}", err("session"));
        let web = err("call_web");
        let reason = web.lines().last().unwrap_or_default();
        assert!(
            reason.contains("authorization: [redacted]")
                && reason.contains("x-api-key: [redacted]")
                && reason.contains("x-tenant: [redacted]"),
            "the page's quote of the headers, masked: {web}"
        );
        let env = err("echo_env");
        assert!(
            env.lines()
                .last()
                .unwrap_or_default()
                .contains("API_TOKEN=[redacted]\\nREGION=[redacted]"),
            "{env}"
        );
        let result = read(&format!("echo_env_result{suffix}.stdout"));
        assert!(result.contains("REGION=[redacted]"), "{result}");
    }
    let servers: serde_json::Value = serde_json::from_str(&read("servers.stdout")).unwrap();
    let web = servers
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "web")
        .unwrap();
    assert!(
        web["error"].as_str().unwrap().contains("[redacted]"),
        "{web}"
    );
    let events = read("events.jsonl");
    assert!(
        events.contains("server_exited") && events.contains("REGION=[redacted]"),
        "the crash's stderr is in the events, masked: {events}"
    );
    assert!(
        read("tools.debug.stderr").contains("DEBUG"),
        "the debug log was not on"
    );

    // Nowhere: not as it is, not in base64.
    let values = [&bearer, &api_key, &env_token, &tenant, &region];
    let mut scanned = 0;
    for entry in std::fs::read_dir(dir.join("out")).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        for value in values {
            for form in [
                value.to_string(),
                base64::engine::general_purpose::STANDARD.encode(value),
                base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(value),
            ] {
                assert!(
                    !contains(&bytes, form.as_bytes()),
                    "{form} is in {}",
                    display(&path)
                );
            }
        }
        scanned += 1;
    }
    assert!(scanned >= 29, "too few outputs scanned: {scanned}");
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn display(path: &Path) -> String {
    path.display().to_string()
}
