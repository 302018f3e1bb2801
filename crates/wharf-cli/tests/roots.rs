//! Workspace folders become roots: the reference filesystem server (which calls `roots/list` after the handshake and
//! again on `notifications/roots/list_changed`) and the python SDK server in the modern era (roots through MRTR).

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::path::{Path, PathBuf};

use peers::*;
use serde_json::{json, Value};

fn filesystem_js() -> PathBuf {
    let path =
        peers().join("npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    assert!(
        path.exists(),
        "{} is missing: run scripts/deps.sh",
        path.display()
    );
    path
}

fn fs_server() -> Value {
    stdio_server(Path::new("node"), &[filesystem_js().to_str().unwrap()])
}

fn folder(base: &Path, name: &str) -> PathBuf {
    let p = base.join(name);
    std::fs::create_dir_all(&p).unwrap();
    p.canonicalize().unwrap()
}

/// What the filesystem server says it may access, one directory per line.
fn allowed(session: &mut Session, id: i64) -> Vec<String> {
    session.send(json!({"id": id, "cmd": "call", "server": "fs", "tool": "list_allowed_directories", "args": {}}));
    let reply = session.reply(id);
    assert_eq!(reply["ok"], true, "{reply}");
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    text.lines().skip(1).map(str::to_string).collect()
}

/// Waits until the filesystem server has fetched the roots `n` times (it does so after every list_changed) and
/// applied them: it says so on stderr ("Updated allowed directories from MCP roots"), which reaches the session as
/// `stderr` events and in the server summary.
fn fetched(session: &mut Session, n: usize) -> Value {
    let fetch = session.wait_for_nth("the filesystem server fetching roots", n, |v| {
        v["event"] == "roots" && v["server"] == "fs"
    });
    let mut stderr_events = session
        .seen
        .iter()
        .filter(|v| v["event"] == "stderr" && v["server"] == "fs")
        .count();
    for probe in 0.. {
        let id = 10_000 + (n as i64) * 100 + probe;
        session.send(json!({"id": id, "cmd": "servers"}));
        let reply = session.reply(id);
        let fs = reply["result"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "fs")
            .unwrap()
            .clone();
        if fs["stderr"]
            .as_str()
            .unwrap_or("")
            .matches("Updated allowed directories")
            .count()
            >= n
        {
            break;
        }
        stderr_events += 1;
        session.wait_for_nth("the filesystem server's stderr", stderr_events, |v| {
            v["event"] == "stderr" && v["server"] == "fs"
        });
    }
    fetch
}

#[test]
fn the_filesystem_server_follows_open_and_close() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (
        folder(tmp.path(), "alpha"),
        folder(tmp.path(), "beta dir #2"),
    );
    let scratch = Scratch::new(json!({"servers": {"fs": fs_server()}}));
    let mut session = scratch.session_with(&["--workspace", a.to_str().unwrap()]);
    let first = fetched(&mut session, 1);
    assert_eq!(first["roots"][0]["name"], "alpha", "{first}");
    assert_eq!(allowed(&mut session, 1), vec![a.display().to_string()]);

    session.send(json!({"id": 2, "cmd": "open", "path": b}));
    let reply = session.reply(2);
    assert_eq!(
        reply["result"]["roots"].as_array().unwrap().len(),
        2,
        "{reply}"
    );
    session.event("roots_changed", |v| v["event"] == "roots_changed");
    fetched(&mut session, 2);
    session.send(json!({"id": 3, "cmd": "close", "path": a}));
    assert_eq!(session.reply(3)["ok"], true);
    let third = fetched(&mut session, 3);
    assert_eq!(third["roots"].as_array().unwrap().len(), 1, "{third}");
    // The URI is percent-encoded (space and #), and the server decodes it back to the folder.
    assert!(
        third["roots"][0]["uri"]
            .as_str()
            .unwrap()
            .ends_with("/beta%20dir%20%232"),
        "{third}"
    );
    assert_eq!(allowed(&mut session, 4), vec![b.display().to_string()]);

    session.send(json!({"id": 5, "cmd": "close", "path": a}));
    assert_eq!(
        session.reply(5)["error"]["code"],
        "workspace",
        "closing what is not open is a clear error"
    );
    assert!(session.quit().success());
}

#[test]
fn roots_reach_a_modern_server_through_mrtr_with_a_deprecation_notice() {
    let tmp = tempfile::tempdir().unwrap();
    let a = folder(tmp.path(), "ünïcødé work");
    let py = stdio_server(&python(), &[fixture("py_server.py").to_str().unwrap()]);
    let scratch = Scratch::new(json!({"servers": {"py": py}}));
    let events = scratch.dir.path().join("events.jsonl");
    let out = scratch
        .wharf()
        .args([
            "--workspace",
            a.to_str().unwrap(),
            "--events",
            events.to_str().unwrap(),
            "call",
            "py",
            "roots",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_text(&out));
    let text = stdout_json(&out)["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    let expected = url::Url::from_file_path(&a).unwrap().to_string();
    assert_eq!(
        text, expected,
        "the modern server got the root through MRTR"
    );
    let written = std::fs::read_to_string(&events).unwrap();
    let lines: Vec<Value> = written
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.iter().any(|l| l["kind"] == "roots"
        && l["answer"] == "accept"
        && l["roots"][0]["uri"] == expected));
    let notices: Vec<&Value> = lines
        .iter()
        .filter(|l| l["code"] == "deprecated_capability")
        .collect();
    assert_eq!(notices.len(), 1, "once per server: {written}");
}

#[test]
fn a_server_not_allowed_roots_and_a_scripted_decline_get_an_empty_list() {
    let tmp = tempfile::tempdir().unwrap();
    let a = folder(tmp.path(), "a");
    let py = |roots: bool| {
        let mut def = stdio_server(&python(), &[fixture("py_server.py").to_str().unwrap()]);
        def["roots"] = json!(roots);
        def
    };
    let scratch = Scratch::new(json!({"servers": {"private": py(false), "shared": py(true)}}));
    let run = |server: &str, extra: &[&str]| {
        let mut cmd = scratch.wharf();
        cmd.args(["--workspace", a.to_str().unwrap()])
            .args(extra)
            .args(["call", server, "roots"]);
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", stderr_text(&out));
        stdout_json(&out)["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    assert_eq!(run("private", &[]), "", "the preference says no roots");
    assert!(run("shared", &[]).starts_with("file:///"));
    let answers = scratch.dir.path().join("answers.json");
    std::fs::write(&answers, r#"{"roots": {"action": "decline"}}"#).unwrap();
    assert_eq!(
        run("shared", &["--answers", answers.to_str().unwrap()]),
        "",
        "a scripted decline overrides"
    );
}

#[test]
fn a_storm_of_deletes_and_re_creations_collapses_into_few_notifications() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, e) = (folder(tmp.path(), "stormy"), folder(tmp.path(), "calm"));
    let scratch = Scratch::new(json!({"servers": {"fs": fs_server()}}));
    let mut session = scratch.session_with(&[
        "--workspace",
        d.to_str().unwrap(),
        "--workspace",
        e.to_str().unwrap(),
    ]);
    fetched(&mut session, 1);
    let before = session.seen.len();
    for _ in 0..1000 {
        std::fs::remove_dir(&d).unwrap();
        std::fs::create_dir(&d).unwrap();
    }
    std::fs::remove_dir(&d).unwrap();
    // The storm ends with the folder gone: the roots settle on the calm one alone.
    let settled = session.event("roots without the stormy folder", |v| {
        v["event"] == "roots_changed" && v["roots"].as_array().is_some_and(|r| r.len() == 1)
    });
    assert!(
        settled["roots"][0]["uri"]
            .as_str()
            .unwrap()
            .ends_with("/calm"),
        "{settled}"
    );
    let changes = session.seen[before..]
        .iter()
        .filter(|v| v["event"] == "roots_changed")
        .count();
    let fetches = session.seen[before..]
        .iter()
        .filter(|v| v["event"] == "roots")
        .count();
    println!("1,000 delete/create cycles: {changes} roots_changed event(s), {fetches} roots/list fetch(es) by the server");
    assert!(changes <= 5, "{changes} notifications for one storm");
    assert!(session.quit().success());
}

/// The paths a `roots` event or an `open`/`close` reply lists, sorted.
fn root_paths(roots: &Value) -> Vec<String> {
    let mut paths: Vec<String> = roots
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let uri = url::Url::parse(r["uri"].as_str().unwrap()).unwrap();
            uri.to_file_path().unwrap().display().to_string()
        })
        .collect();
    paths.sort();
    paths
}

/// Bursts of open, close and rename with no wait in between, round after round: however the changes interleave
/// with the server's own fetches, the server ends each burst with the roots the workspace has at its end. (A lost
/// `list_changed`, or two fetches racing inside the server, left it with an older list.)
#[test]
fn bursts_of_changes_always_leave_the_server_with_the_final_roots() {
    let tmp = tempfile::tempdir().unwrap();
    let [a, b, c, d] = ["a", "b", "c", "d"].map(|n| folder(tmp.path(), n));
    let renamed = tmp.path().canonicalize().unwrap().join("d-renamed");
    // Many folders make each fetch slow for the server to take in (it checks every folder in turn), so that two
    // fetches overlap in it when a change is told too soon.
    let many: Vec<PathBuf> = (0..100)
        .map(|i| folder(tmp.path(), &format!("many-{i}")))
        .collect();
    let mut options = vec!["--workspace".to_string(), a.display().to_string()];
    for f in std::iter::once(&c).chain(&many) {
        options.extend(["--workspace".to_string(), f.display().to_string()]);
    }
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    let scratch = Scratch::new(json!({"servers": {"fs": fs_server()}}));
    let mut session = scratch.session_with(&options);
    fetched(&mut session, 1);
    let is_fetch = |v: &Value| v["event"] == "roots" && v["server"] == "fs";
    let mut id = 100;
    for round in 0..24 {
        // Open the one of a and b that is closed and close the other; every other round moves d in or out, d being
        // renamed on disk right after it is opened.
        let (open, close) = if round % 2 == 0 { (&b, &a) } else { (&a, &b) };
        let mut burst = vec![("open", open.clone()), ("close", close.clone())];
        match round % 4 {
            0 => burst.insert(1, ("open", d.clone())),
            2 => burst.push(("close", renamed.clone())),
            _ => {}
        }
        let seen_before = session.seen.len();
        let first = id;
        for (k, (cmd, path)) in burst.iter().enumerate() {
            session.send(json!({"id": id, "cmd": cmd, "path": path}));
            id += 1;
            if k > 0 {
                continue;
            }
            // How the rest follows the first change: at once; once it is applied; or just as the server fetches
            // the roots it brought (the change then lands while the server is still taking in that fetch).
            match round % 3 {
                1 => {
                    session.reply(first);
                }
                2 => {
                    let opened = open.display().to_string();
                    let fetch_of_opened =
                        |v: &Value| is_fetch(v) && root_paths(&v["roots"]).contains(&opened);
                    let earlier = session.seen[..seen_before]
                        .iter()
                        .filter(|v| fetch_of_opened(v))
                        .count();
                    session.wait_for_nth(
                        "the server fetching the opened folder",
                        earlier + 1,
                        fetch_of_opened,
                    );
                }
                _ => {}
            }
        }
        let mut last = Value::Null;
        for n in first..id {
            last = session.reply(n);
            assert_eq!(last["ok"], true, "round {round}: {last}");
        }
        let mut expected = root_paths(&last["result"]["roots"]);
        if round % 4 == 0 {
            std::fs::rename(&d, &renamed).unwrap();
            expected = expected
                .into_iter()
                .map(|p| {
                    if Path::new(&p) == d {
                        renamed.display().to_string()
                    } else {
                        p
                    }
                })
                .collect();
            expected.sort();
        }
        if round % 4 == 2 {
            std::fs::rename(&renamed, &d).unwrap();
        }
        // The server fetches the final roots after the burst began, and applies every fetch it made.
        let want = expected.clone();
        let final_roots = |v: &Value| is_fetch(v) && root_paths(&v["roots"]) == want;
        let earlier = session.seen[..seen_before]
            .iter()
            .filter(|v| final_roots(v))
            .count();
        let fetch = session.wait_for_nth(
            "the server fetching the final roots",
            earlier + 1,
            final_roots,
        );
        let fetches = session.seen.iter().filter(|v| is_fetch(v)).count();
        fetched(&mut session, fetches);
        let mut listed = allowed(&mut session, id);
        id += 1;
        listed.sort();
        assert_eq!(
            listed, expected,
            "round {round}: the server kept older roots; its last fetch: {fetch}"
        );
    }
    assert!(session.quit().success());
}

#[test]
fn a_server_configured_with_the_workspace_folders_restarts_when_they_change() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (folder(tmp.path(), "one"), folder(tmp.path(), "two"));
    // The alternative to roots: the folders as arguments ("roots": false, so the server sees only its arguments).
    let fs = json!({"command": "node", "args": [filesystem_js(), "${workspaceFolders}"], "roots": false});
    let scratch = Scratch::new(json!({"servers": {"fs": fs}}));
    let mut session = scratch.session_with(&["--workspace", a.to_str().unwrap()]);
    session.event("fs ready", |v| {
        v["event"] == "server_status" && v["status"] == "ready"
    });
    assert_eq!(allowed(&mut session, 1), vec![a.display().to_string()]);
    session.send(json!({"id": 2, "cmd": "open", "path": b}));
    assert_eq!(session.reply(2)["ok"], true);
    let notice = session.event("the restart notice", |v| v["code"] == "workspace_restart");
    assert_eq!(notice["server"], "fs");
    session.wait_for_nth("fs ready again", 2, |v| {
        v["event"] == "server_status" && v["status"] == "ready"
    });
    assert_eq!(
        allowed(&mut session, 3),
        vec![a.display().to_string(), b.display().to_string()]
    );
    assert!(session.quit().success());
}

#[test]
fn path_arguments_outside_the_workspace_are_refused_before_they_reach_the_server() {
    let tmp = tempfile::tempdir().unwrap();
    let work = folder(tmp.path(), "work");
    let outside = folder(tmp.path(), "outside");
    std::fs::write(work.join("inside.txt"), "inside text").unwrap();
    std::fs::write(outside.join("secret.txt"), "secret").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), work.join("link.txt")).unwrap();
    let mut lenient = fs_server();
    lenient["pathArguments"] = json!("allow");
    let scratch = Scratch::new(json!({"servers": {"fs": fs_server(), "lenient": lenient}}));
    let mut session = scratch.session_with(&["--workspace", work.to_str().unwrap()]);
    // The filesystem server reads its roots after the handshake: wait until it has, or it refuses everything.
    fetched(&mut session, 1);
    let mut call = |id: i64, server: &str, path: String| {
        session.send(json!({"id": id, "cmd": "call", "server": server, "tool": "read_text_file", "args": {"path": path}}));
        session.reply(id)
    };
    let ok = call(1, "fs", work.join("inside.txt").display().to_string());
    assert_eq!(ok["result"]["content"][0]["text"], "inside text", "{ok}");
    for (id, bad) in [
        (2, format!("{}/../outside/secret.txt", work.display())),
        (3, outside.join("secret.txt").display().to_string()),
        (4, work.join("link.txt").display().to_string()),
    ] {
        let reply = call(id, "fs", bad.clone());
        assert_eq!(reply["error"]["code"], "refused", "{bad}: {reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .contains("outside the open workspace"),
            "{reply}"
        );
    }
    // "pathArguments": "allow": Wharf lets it through (the server's own check then answers).
    let through = call(
        5,
        "lenient",
        outside.join("secret.txt").display().to_string(),
    );
    assert_eq!(through["ok"], true, "{through}");
    assert!(session.quit().success());
}

#[test]
fn with_the_ask_preference_the_user_decides_and_the_answer_is_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let work = folder(tmp.path(), "work");
    let outside = folder(tmp.path(), "outside");
    std::fs::write(work.join("inside.txt"), "inside text").unwrap();
    std::fs::write(outside.join("secret.txt"), "secret").unwrap();
    let mut asking = fs_server();
    asking["pathArguments"] = json!("ask");
    let scratch = Scratch::new(json!({"servers": {"fs": asking}}));
    // The scripted user says yes once, then no, then closes the question.
    let answers = tmp.path().join("answers.json");
    std::fs::write(
        &answers,
        json!({"path_outside": [{"action": "accept"}, {"action": "decline"}, {"action": "cancel"}]})
            .to_string(),
    )
    .unwrap();
    let events = tmp.path().join("events.jsonl");
    let mut session = scratch.session_with(&[
        "--workspace",
        work.to_str().unwrap(),
        "--answers",
        answers.to_str().unwrap(),
        "--events",
        events.to_str().unwrap(),
    ]);
    fetched(&mut session, 1);
    let secret = outside.join("secret.txt").display().to_string();
    let mut call = |id: i64, path: &str| {
        session.send(json!({"id": id, "cmd": "call", "server": "fs", "tool": "read_text_file", "args": {"path": path}}));
        session.reply(id)
    };
    // Inside the workspace nobody is asked.
    let inside = call(1, &work.join("inside.txt").display().to_string());
    assert_eq!(inside["result"]["content"][0]["text"], "inside text");
    // Accepted: the call reaches the server (whose own allowed directories then refuse it: an isError result, not
    // Wharf's refusal).
    let accepted = call(2, &secret);
    assert_eq!(accepted["ok"], true, "{accepted}");
    assert_eq!(accepted["result"]["isError"], true, "{accepted}");
    for id in [3, 4] {
        let refused = call(id, &secret);
        assert_eq!(refused["error"]["code"], "refused", "{refused}");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.contains("you chose not to send it"), "{message}");
        assert!(message.contains("outside the open workspace"), "{message}");
    }
    // The session tells what was asked and answered, and so does the events file, in the same order.
    let asked: Vec<Value> = session
        .seen
        .iter()
        .filter(|v| v["event"] == "path_outside")
        .cloned()
        .collect();
    assert_eq!(asked.len(), 3, "{asked:?}");
    assert!(session.quit().success());
    let recorded: Vec<Value> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["kind"] == "path_outside")
        .collect();
    let answers: Vec<&str> = recorded
        .iter()
        .map(|v| v["answer"].as_str().unwrap())
        .collect();
    assert_eq!(answers, ["accept", "decline", "cancel"]);
    for (event, shown) in recorded.iter().zip(&asked) {
        assert_eq!(event["server"], "fs");
        assert_eq!(event["tool"], "read_text_file");
        assert_eq!(event["paths"][0]["pointer"], "path");
        assert_eq!(event["paths"][0]["value"], secret.as_str());
        assert_eq!(event["paths"], shown["paths"]);
    }
}

#[test]
fn a_path_preference_that_cannot_be_read_fails_the_server_with_the_reason() {
    let mut odd = fs_server();
    odd["pathArguments"] = json!("sometimes");
    let scratch = Scratch::new(json!({"servers": {"fs": odd}}));
    let out = scratch.run(&["servers"]);
    let servers = stdout_json(&out);
    assert_eq!(servers[0]["status"], "failed", "{servers}");
    let error = servers[0]["error"].as_str().unwrap();
    assert!(
        error.contains("pathArguments") && error.contains("sometimes"),
        "{error}"
    );
}

#[test]
fn the_path_check_reads_the_tool_list_once_until_the_server_says_it_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let work = folder(tmp.path(), "work");
    let outside = folder(tmp.path(), "outside").join("secret.txt");
    let server = json!({"type": "stdio", "command": "python3",
        "args": [fixture("bad_server.py").to_str().unwrap(), "toolschange"]});
    let scratch = Scratch::new(json!({"servers": {"s": server}}));
    let mut session = scratch.session_with(&["--workspace", work.to_str().unwrap()]);
    let mut call = |id: i64, tool: &str, args: Value| {
        session.send(json!({"id": id, "cmd": "call", "server": "s", "tool": tool, "args": args}));
        session.reply(id)
    };
    let text = |reply: &Value| {
        reply["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // `label` is no path: sent as it is, three times, with the schema read for the first call only.
    for id in 1..=3 {
        let shown = call(id, "show", json!({"label": outside.display().to_string()}));
        assert_eq!(text(&shown), "show done", "{shown}");
    }
    assert_eq!(text(&call(4, "lists", json!({}))), "1");
    // The argument becomes `path`, and the server says so: the next call is checked with the new schema.
    assert_eq!(text(&call(5, "reshape", json!({}))), "reshape done");
    let refused = call(6, "show", json!({"path": outside.display().to_string()}));
    assert_eq!(refused["error"]["code"], "refused", "{refused}");
    let inside = call(
        7,
        "show",
        json!({"path": work.join("a.txt").display().to_string()}),
    );
    assert_eq!(text(&inside), "show done", "{inside}");
    assert_eq!(text(&call(8, "lists", json!({}))), "2");
    assert!(session.quit().success());
}
