//! Forms as the server wrote them (tests/fixtures/form_server.py, both eras, and the 2026-07-28 one over Streamable
//! HTTP answering with plain JSON bodies): the keywords rmcp does not model
//! (`pattern`, `exclusiveMinimum`, `multipleOf`, `uniqueItems`, `not`, `if/then`, a top-level `$ref` or `$id`) reach
//! Wharf's form parser and validator. A scripted user accepting answers that break the server's schema never gets
//! `accept` sent; a schema outside the spec's subset is declined; one that does not fit the spec's request at all is
//! answered `-32602` (legacy) or declined (2026-07-28). The user is told each time.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::path::PathBuf;

use peers::*;
use serde_json::{json, Value};

struct Rig {
    scratch: Scratch,
    events: PathBuf,
    answers: PathBuf,
    /// The HTTP server, kept running while the rig lives.
    _http: Option<Peer>,
}

impl Rig {
    fn new(era: &str) -> Rig {
        let (server, http) = if era == "modern-http" {
            let mut cmd = std::process::Command::new("python3");
            cmd.arg(fixture("form_server.py"))
                .arg(era)
                .env("FORM_SERVER_TOKEN", "configured-token");
            let peer = Peer::start(cmd, "http://127.0.0.1:");
            let url = peer.ready_line.trim().to_string();
            // A configured Authorization header, as many HTTP servers need: the server refuses any request
            // without it, so it must reach every one, the screened tool calls too.
            let headers = json!({"Authorization": "Bearer configured-token"});
            (
                json!({"type": "http", "url": url, "headers": headers}),
                Some(peer),
            )
        } else {
            let stdio = json!({"type": "stdio", "command": "python3",
                               "args": [fixture("form_server.py"), era]});
            (stdio, None)
        };
        let scratch = Scratch::new(json!({"servers": {"forms": server}}));
        let dir = scratch.dir.path().to_path_buf();
        Rig {
            events: dir.join("events.jsonl"),
            answers: dir.join("answers.json"),
            scratch,
            _http: http,
        }
    }

    /// What the server got back for its form `form` when the user accepts with `content`, and the notice codes of
    /// that call.
    fn ask(&self, form: &str, content: Value) -> (Value, Vec<String>) {
        let answers = json!({"elicitation_form": {"action": "accept", "content": content}});
        std::fs::write(&self.answers, answers.to_string()).unwrap();
        let _ = std::fs::remove_file(&self.events);
        let out = self
            .scratch
            .wharf()
            .arg("--answers")
            .arg(&self.answers)
            .arg("--events")
            .arg(&self.events)
            .args(["call", "forms", "ask", &json!({"form": form}).to_string()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{form}: wharf failed: {}",
            stderr_text(&out)
        );
        let text = stdout_json(&out)["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string();
        let notices = std::fs::read_to_string(&self.events)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|v| v["kind"] == "notice")
            .map(|v| v["code"].as_str().unwrap().to_string())
            .collect();
        (serde_json::from_str(&text).unwrap(), notices)
    }
}

/// Answers that break one keyword each: never sent as `accept` (the answer is checked against the schema the
/// server sent, found wanting, and cancelled with a notice). The same forms answered well are accepted, so the
/// check is the keyword's, not a refusal of the form.
fn broken_answers_are_never_accepted(era: &str) {
    let rig = Rig::new(era);
    let cases = [
        ("pattern", json!({"code": "12a4"}), json!({"code": "1234"})),
        ("exclusive", json!({"n": 0}), json!({"n": 5})),
        ("exclusive", json!({"n": 10}), json!({"n": 9.5})),
        ("multiple", json!({"n": 7}), json!({"n": 15})),
        (
            "unique",
            json!({"tags": ["a", "a"]}),
            json!({"tags": ["a", "b"]}),
        ),
    ];
    for (form, broken, good) in cases {
        let (got, notices) = rig.ask(form, broken.clone());
        let reply = &got["result"];
        assert_eq!(reply["action"], "cancel", "{form} {broken}: {got}");
        assert!(reply.get("content").is_none(), "{form}: {got}");
        assert_eq!(notices, ["invalid_answer"], "{form} {broken}");

        let (got, notices) = rig.ask(form, good.clone());
        assert_eq!(
            got["result"],
            json!({"action": "accept", "content": good}),
            "{form}"
        );
        assert!(notices.is_empty(), "{form}: {notices:?}");
    }
}

/// Forms outside the spec's subset are declined with a notice, whatever the user would have answered.
fn outside_the_subset_is_declined(era: &str) {
    let rig = Rig::new(era);
    for (form, content) in [
        ("not", json!({"name": "root"})),
        ("ifthen", json!({"name": "root"})),
        ("ref", json!({"name": "x"})),
        ("id", json!({"name": "x"})),
    ] {
        let (got, notices) = rig.ask(form, content);
        assert_eq!(got["result"], json!({"action": "decline"}), "{form}: {got}");
        assert_eq!(notices, ["form_not_supported"], "{form}");
    }
}

#[test]
fn legacy_answers_that_break_the_servers_schema_are_never_accepted() {
    broken_answers_are_never_accepted("legacy");
}

#[test]
fn modern_answers_that_break_the_servers_schema_are_never_accepted() {
    broken_answers_are_never_accepted("modern");
}

/// A plain JSON answer is read by Wharf, not rmcp's typed model, so its keywords survive too.
#[test]
fn modern_answers_in_a_json_body_that_break_the_servers_schema_are_never_accepted() {
    broken_answers_are_never_accepted("modern-http");
}

#[test]
fn modern_forms_in_a_json_body_outside_the_subset_are_declined() {
    outside_the_subset_is_declined("modern-http");
}

#[test]
fn legacy_forms_outside_the_subset_are_declined() {
    outside_the_subset_is_declined("legacy");
}

#[test]
fn modern_forms_outside_the_subset_are_declined() {
    outside_the_subset_is_declined("modern");
}

#[test]
fn a_schema_that_does_not_fit_the_spec_is_invalid_params_in_legacy_and_declined_in_modern() {
    let (got, notices) = Rig::new("legacy").ask("untypeable", json!({"name": "x"}));
    assert_eq!(got["error"]["code"], -32602, "{got}");
    assert!(got.get("result").is_none(), "{got}");
    assert_eq!(notices, ["invalid_request"]);

    // The round is answered, not the whole call failed as malformed.
    for era in ["modern", "modern-http"] {
        let (got, notices) = Rig::new(era).ask("untypeable", json!({"name": "x"}));
        assert_eq!(got["result"], json!({"action": "decline"}), "{era}: {got}");
        assert_eq!(notices, ["invalid_request"], "{era}");
    }
}
