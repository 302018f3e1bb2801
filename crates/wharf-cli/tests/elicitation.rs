//! Elicitation through `wharf`, against real peers: `@modelcontextprotocol/server-everything@2026.8.31` (legacy era:
//! `elicitation/create` requests, and the `-32042` error path) over stdio and Streamable HTTP, and the python `mcp`
//! 2.3.0 fixture in the 2026-07-28 era (MRTR input requests). The "browser" is a script that records what it is given.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::path::PathBuf;
use std::process::{Command, Output};

use peers::*;
use serde_json::{json, Value};

/// A scripted user, a recording browser and an events file around one scratch config.
struct Rig {
    scratch: Scratch,
    browser: RecordingBrowser,
    events: PathBuf,
    answers: PathBuf,
}

impl Rig {
    fn new(servers: Value, answers: Value) -> Rig {
        let scratch = Scratch::new(json!({ "servers": servers }));
        let dir = scratch.dir.path().to_path_buf();
        let browser = RecordingBrowser::new(&dir);
        let answers_file = dir.join("answers.json");
        std::fs::write(&answers_file, answers.to_string()).unwrap();
        Rig {
            browser,
            events: dir.join("events.jsonl"),
            answers: answers_file,
            scratch,
        }
    }

    /// What the scripted user answers from now on (each `wharf call` is a new process that reads the file afresh).
    fn answer(&self, answers: Value) {
        std::fs::write(&self.answers, answers.to_string()).unwrap();
    }

    fn wharf(&self) -> Command {
        let mut cmd = self.scratch.wharf();
        cmd.env("BROWSER", &self.browser.script)
            .arg("--answers")
            .arg(&self.answers)
            .arg("--events")
            .arg(&self.events);
        cmd
    }

    fn call(&self, server: &str, tool: &str, args: Value) -> Output {
        self.wharf()
            .args(["call", server, tool, &args.to_string()])
            .output()
            .unwrap()
    }

    fn shown(&self, kind: &str) -> Vec<Value> {
        std::fs::read_to_string(&self.events)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|v| v["kind"] == kind)
            .collect()
    }

    /// The URLs the browser was given, once `n` of them arrived (the browser is started in the background).
    fn opened(&self, n: usize) -> Vec<String> {
        self.browser.opened(n)
    }
}

fn texts(out: &Output) -> String {
    assert!(out.status.success(), "wharf failed: {}", stderr_text(out));
    stdout_json(out)["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn forms_in_both_answers(server: Value) {
    let rig = Rig::new(
        json!({ "ev": server }),
        json!({"elicitation_form": {"action": "accept", "content": {"name": "Ada Lovelace", "email": "ada@example.com", "integer": 7}}}),
    );
    let accepted = texts(&rig.call("ev", "trigger-elicitation-request", json!({})));
    assert!(
        accepted.contains("User provided the requested information"),
        "{accepted}"
    );
    assert!(accepted.contains("Name: Ada Lovelace"), "{accepted}");
    // Fields left out took the schema's defaults.
    assert!(
        accepted.contains("\"firstLine\": \"It was a dark and stormy night.\""),
        "{accepted}"
    );
    assert!(accepted.contains("\"integer\": 7"), "{accepted}");
    assert!(
        accepted.contains("\"titledMultipleSelectEnum\": [\n      \"fish-1\""),
        "{accepted}"
    );
    rig.answer(json!({"elicitation_form": {"action": "decline"}}));
    let declined = texts(&rig.call("ev", "trigger-elicitation-request", json!({})));
    assert!(declined.contains("User declined"), "{declined}");
    rig.answer(json!({"elicitation_form": {"action": "cancel"}}));
    let cancelled = texts(&rig.call("ev", "trigger-elicitation-request", json!({})));
    assert!(cancelled.contains("User cancelled"), "{cancelled}");

    let shown = rig.shown("elicitation_form");
    let answers: Vec<&str> = shown
        .iter()
        .map(|e| e["answer"].as_str().unwrap())
        .collect();
    assert_eq!(answers, ["accept", "decline", "cancel"]);
    let form = &shown[0];
    assert_eq!(form["server"], "ev");
    assert_eq!(
        form["message"],
        "Please provide inputs for the following fields:"
    );
    let fields = form["fields"].as_array().unwrap();
    let names: Vec<&str> = fields.iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(names[..4], ["name", "check", "firstLine", "email"]);
    let field = |name: &str| fields.iter().find(|f| f["name"] == name).unwrap().clone();
    assert_eq!(field("email")["type"], "string");
    assert_eq!(field("email")["format"], "email");
    assert_eq!(field("check")["type"], "boolean");
    assert_eq!(field("integer")["minimum"], 1);
    assert_eq!(
        field("titledSingleSelectEnum")["options"][1]["title"],
        "Green Lantern"
    );
}

#[test]
fn forms_over_stdio_accept_decline_and_cancel_stay_distinct() {
    forms_in_both_answers(everything_stdio());
}

#[test]
fn forms_over_streamable_http() {
    let http = everything_http();
    forms_in_both_answers(json!({"type": "http", "url": http.url}));
}

fn urls_in_both_paths(server: Value) {
    let rig = Rig::new(
        json!({ "ev": server }),
        json!({"elicitation_url": {"action": "accept"}}),
    );
    // The request path: consent, then the system browser gets exactly the URL.
    let opened = texts(&rig.call(
        "ev",
        "trigger-url-elicitation",
        json!({"url": "https://example.com/login?next=%2Fhome"}),
    ));
    assert!(
        opened.contains("User completed the URL elicitation flow"),
        "{opened}"
    );
    assert_eq!(rig.opened(1), ["https://example.com/login?next=%2Fhome"]);
    // The error path: -32042 names a prerequisite page; once it is opened (and, for the scripted user, finished)
    // the call is retried once, which then asks for its own page.
    let retried = texts(&rig.call(
        "ev",
        "trigger-url-elicitation",
        json!({"url": "https://example.com/pay", "errorPath": true}),
    ));
    assert!(
        retried.contains("User completed the URL elicitation flow"),
        "{retried}"
    );
    assert_eq!(
        rig.opened(3),
        [
            "https://example.com/login?next=%2Fhome",
            "https://modelcontextprotocol.io/",
            "https://example.com/pay"
        ]
    );
    let shown = rig.shown("elicitation_url");
    assert_eq!(shown.len(), 3);
    assert_eq!(shown[1]["host"], "modelcontextprotocol.io");
    assert!(shown
        .iter()
        .all(|e| e["opened"] == true && e["answer"] == "accept"));
}

#[test]
fn url_elicitation_over_stdio_opens_the_system_browser_on_both_paths() {
    urls_in_both_paths(everything_stdio());
}

#[test]
fn url_elicitation_over_streamable_http() {
    let http = everything_http();
    urls_in_both_paths(json!({"type": "http", "url": http.url}));
}

#[test]
fn a_refused_url_is_declined_and_never_reaches_the_browser_whatever_the_answer() {
    let rig = Rig::new(
        json!({ "ev": everything_stdio() }),
        json!({"elicitation_url": {"action": "accept"}}),
    );
    for (url, warning) in [
        ("http://evil.example/steal", "not_https"),
        ("file:///etc/passwd", "refused_scheme"),
        ("javascript:alert(document.domain)", "refused_scheme"),
    ] {
        let out = rig.call("ev", "trigger-url-elicitation", json!({ "url": url }));
        if !out.status.success() {
            // The server's own URL check may refuse it first: then it never reached Wharf either.
            continue;
        }
        let text = texts(&out);
        assert!(
            text.contains("User declined to open the URL"),
            "{url}: {text}"
        );
        let shown = rig.shown("elicitation_url");
        let event = shown.last().unwrap();
        assert_eq!(event["url"], url);
        assert_eq!(event["opened"], false);
        assert_eq!(event["answer"], "decline");
        assert!(
            event["warnings"]
                .as_array()
                .unwrap()
                .contains(&json!(warning)),
            "{event}"
        );
    }
    assert!(
        rig.shown("elicitation_url").len() >= 2,
        "the server let too few hostile URLs through to test anything"
    );
    // A good URL afterwards proves the browser works: only it was opened.
    let out = rig.call(
        "ev",
        "trigger-url-elicitation",
        json!({"url": "https://example.com/ok"}),
    );
    assert!(texts(&out).contains("User completed"));
    assert_eq!(rig.opened(1), ["https://example.com/ok"]);
}

#[test]
fn modern_era_form_and_url_go_through_mrtr() {
    let rig = Rig::new(
        json!({ "py": python_stdio() }),
        json!({
            "elicitation_form": {"action": "accept", "content": {"name": "Grace"}},
            "elicitation_url": {"action": "accept"}
        }),
    );
    let greeted = texts(&rig.call("py", "whoami", json!({})));
    assert_eq!(greeted, "hello Grace (30)");
    let opened = texts(&rig.call(
        "py",
        "open_page",
        json!({"url": "https://sso.example.org/start"}),
    ));
    assert_eq!(opened, "page: accept");
    assert_eq!(rig.opened(1), ["https://sso.example.org/start"]);
    rig.answer(json!({"elicitation_url": {"action": "decline"}}));
    let declined = texts(&rig.call(
        "py",
        "open_page",
        json!({"url": "https://sso.example.org/again"}),
    ));
    assert_eq!(declined, "page: decline");
    let forms = rig.shown("elicitation_form");
    assert_eq!(forms[0]["server"], "py");
    assert_eq!(forms[0]["fields"][1]["default"], 30);
}

#[test]
fn a_server_with_elicitation_off_is_not_offered_it() {
    let mut quiet = everything_stdio();
    quiet["elicitation"] = json!(false);
    let rig = Rig::new(
        json!({ "ev": everything_stdio(), "quiet": quiet }),
        json!({}),
    );
    let tools = |server: &str| -> Vec<String> {
        let out = rig.wharf().args(["tools", server]).output().unwrap();
        stdout_json(&out)
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    // server-everything registers its elicitation tools only for a client that declares the capability.
    assert!(tools("ev").contains(&"trigger-elicitation-request".to_string()));
    assert!(tools("ev").contains(&"trigger-url-elicitation".to_string()));
    assert!(!tools("quiet").contains(&"trigger-elicitation-request".to_string()));
    assert!(!tools("quiet").contains(&"trigger-url-elicitation".to_string()));
}

/// `wharf` on a terminal (a pseudo-terminal from util-linux `script`): the form is asked field by field, Enter keeps
/// a default, and the URL card shows the real host and its warnings before anything opens.
#[test]
fn an_interactive_terminal_asks_field_by_field_and_shows_the_url_first() {
    let rig = Rig::new(json!({ "py": python_stdio() }), json!({}));
    let on_terminal = |typed: &str, tool: &str, args: Value| -> String {
        let input = rig.scratch.dir.path().join("typed.txt");
        std::fs::write(&input, typed).unwrap();
        let command = format!(
            "'{}' --config '{}' call py {tool} '{}'",
            wharf_bin().display(),
            rig.scratch.config().display(),
            args
        );
        let out = Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .env("XDG_CACHE_HOME", rig.scratch.dir.path().join("cache"))
            .env("BROWSER", &rig.browser.script)
            .stdin(std::fs::File::open(&input).unwrap())
            .output()
            .expect("util-linux script (bsdutils) is needed for the terminal test");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // Accept, a name, and Enter for the age: its default.
    let shown = on_terminal("a\nGrace\n\n", "whoami", json!({}));
    assert!(shown.contains("Age [30]"), "{shown}");
    assert!(shown.contains("hello Grace (30)"), "{shown}");
    // A URL on a bare IP over http to loopback: shown with its warnings; declining opens nothing.
    let shown = on_terminal(
        "d\n",
        "open_page",
        json!({"url": "http://127.0.0.1:9/login"}),
    );
    assert!(shown.contains("URL:  http://127.0.0.1:9/login"), "{shown}");
    assert!(shown.contains("warning: not_https"), "{shown}");
    assert!(shown.contains("warning: ip_literal"), "{shown}");
    assert!(shown.contains("page: decline"), "{shown}");
    assert!(rig.opened(0).is_empty());
}
