//! Resources, prompts, completion and subscriptions through `wharf`: `@modelcontextprotocol/server-everything@2026.8.31`
//! (legacy) over stdio and Streamable HTTP, the python `mcp` 2.3.0 fixture in the 2026-07-28 era (MRTR on prompts and
//! resource reads, `subscriptions/listen`), and a server whose lists never end.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::path::Path;

use peers::*;
use serde_json::{json, Value};

fn ok_json(scratch: &Scratch, args: &[&str]) -> Value {
    let out = scratch.run(args);
    assert!(out.status.success(), "{args:?}: {}", stderr_text(&out));
    stdout_json(&out)
}

fn everything_offers(server: Value) {
    let scratch = Scratch::new(json!({ "servers": { "ev": server } }));
    // Resources and templates, every page.
    let listed = ok_json(&scratch, &["resources", "ev"]);
    let listed = listed.as_array().unwrap();
    let uris: Vec<&str> = listed.iter().filter_map(|r| r["uri"].as_str()).collect();
    let templates: Vec<&str> = listed
        .iter()
        .filter_map(|r| r["uriTemplate"].as_str())
        .collect();
    assert!(
        uris.contains(&"demo://resource/static/document/architecture.md"),
        "{uris:?}"
    );
    assert!(!templates.is_empty(), "no resource templates in {listed:?}");
    // A static resource, and one from a template.
    let read = ok_json(
        &scratch,
        &[
            "read",
            "ev",
            "demo://resource/static/document/architecture.md",
        ],
    );
    assert!(read["contents"][0]["text"]
        .as_str()
        .unwrap()
        .contains("Architecture"));
    let dynamic = ok_json(&scratch, &["read", "ev", "demo://resource/dynamic/text/7"]);
    assert_eq!(
        dynamic["contents"][0]["uri"],
        "demo://resource/dynamic/text/7"
    );
    // The four prompts, one with arguments.
    let prompts = ok_json(&scratch, &["prompts", "ev"]);
    let names: Vec<&str> = prompts
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "simple-prompt",
            "args-prompt",
            "completable-prompt",
            "resource-prompt"
        ]
    );
    let got = ok_json(
        &scratch,
        &[
            "prompt",
            "ev",
            "args-prompt",
            r#"{"city": "Lisbon", "state": "PT"}"#,
        ],
    );
    assert!(
        got["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("Lisbon"),
        "{got}"
    );
    // Completion: "E" -> "Engineering".
    let values = ok_json(
        &scratch,
        &[
            "complete",
            "ev",
            "prompt",
            "completable-prompt",
            "department",
            "E",
        ],
    );
    assert_eq!(values, json!(["Engineering"]));
    // A usage mistake is a clear error.
    let out = scratch.run(&["complete", "ev", "tool", "x", "a", "b"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_text(&out).contains("prompt NAME"),
        "{}",
        stderr_text(&out)
    );
}

#[test]
fn everything_resources_prompts_and_completion_over_stdio() {
    everything_offers(everything_stdio());
}

#[test]
fn everything_resources_prompts_and_completion_over_http() {
    let http = everything_http();
    everything_offers(json!({"type": "http", "url": http.url}));
}

#[test]
fn legacy_subscriptions_bring_resource_updates_to_the_session() {
    let scratch = Scratch::new(json!({ "servers": { "ev": everything_stdio() } }));
    let mut session = scratch.session();
    let uri = "demo://resource/dynamic/text/1";
    session.send(json!({"id": 1, "cmd": "subscribe", "server": "ev", "uri": uri}));
    assert_eq!(session.reply(1)["ok"], true);
    session.send(json!({"id": 2, "cmd": "call", "server": "ev", "tool": "toggle-subscriber-updates", "args": {}}));
    assert_eq!(session.reply(2)["ok"], true);
    // The server sends an update every 5 seconds for what the client subscribed to.
    let update = session.event("a resource update", |v| v["event"] == "resource_updated");
    assert_eq!(update["server"], "ev");
    assert_eq!(update["uri"], uri);
    session.send(json!({"id": 3, "cmd": "unsubscribe", "server": "ev", "uri": uri}));
    assert_eq!(session.reply(3)["ok"], true);
    assert!(session.quit().success());
}

#[test]
fn modern_era_prompts_and_reads_that_need_input_and_listen_for_updates() {
    let scratch = Scratch::new(json!({ "servers": { "py": python_stdio() } }));
    let answers = scratch.dir.path().join("answers.json");
    std::fs::write(
        &answers,
        json!({"elicitation_form": {"action": "accept", "content": {"name": "Ada"}}}).to_string(),
    )
    .unwrap();
    let answers = answers.to_str().unwrap();
    let listed = ok_json(&scratch, &["resources", "py"]);
    assert!(listed.to_string().contains("counter://value"), "{listed}");
    assert!(listed.to_string().contains("whois://{nick}"), "{listed}");
    // prompts/get and resources/read answer InputRequiredResult first; the broker asks the (scripted) user.
    let prompt = ok_json(
        &scratch,
        &["--answers", answers, "prompt", "py", "greet_person"],
    );
    assert_eq!(
        prompt["messages"][0]["content"]["text"],
        "Please greet Ada."
    );
    let read = ok_json(
        &scratch,
        &["--answers", answers, "read", "py", "whois://ada"],
    );
    assert_eq!(read["contents"][0]["text"], "ada is Ada");
    // A subscription rides the subscriptions/listen stream: once acknowledged, a change arrives.
    let mut session = scratch.session();
    session.send(json!({"id": 1, "cmd": "subscribe", "server": "py", "uri": "counter://value"}));
    assert_eq!(session.reply(1)["ok"], true, "{:?}", session.seen);
    session.send(json!({"id": 2, "cmd": "call", "server": "py", "tool": "bump", "args": {}}));
    assert_eq!(session.reply(2)["ok"], true);
    let update = session.event("the counter's update", |v| v["event"] == "resource_updated");
    assert_eq!(update["uri"], "counter://value");
    assert!(session.quit().success());
}

#[test]
fn lists_that_never_end_and_completion_floods_are_bounded() {
    let bad = stdio_server(
        Path::new("python3"),
        &[fixture("bad_server.py").to_str().unwrap(), "paginate"],
    );
    let scratch = Scratch::new(json!({ "servers": { "bad": bad } }));
    let events = scratch.dir.path().join("events.jsonl");
    let out = scratch.run(&["--events", events.to_str().unwrap(), "resources", "bad"]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    assert_eq!(
        stdout_json(&out).as_array().unwrap().len(),
        100,
        "one per page, 100 pages"
    );
    let prompts = ok_json(&scratch, &["prompts", "bad"]);
    assert_eq!(
        prompts.as_array().unwrap().len(),
        2,
        "the repeated cursor is followed once"
    );
    let notices = std::fs::read_to_string(&events).unwrap();
    assert!(notices.contains("pagination_bounded"), "{notices}");
    // A completion flood (10,000 values) is cut to the spec's 100.
    let values = ok_json(&scratch, &["complete", "bad", "prompt", "again", "x", ""]);
    assert_eq!(values.as_array().unwrap().len(), 100);
    assert_eq!(values[0], "value 0");
    assert!(
        stderr_text(&out).contains("partial"),
        "{}",
        stderr_text(&out)
    );
}

#[test]
fn modern_log_levels_ride_on_each_request_and_a_flood_is_summarised() {
    let scratch = Scratch::new(json!({ "servers": { "py": python_stdio() } }));
    let mut session = scratch.session();
    let logs = |session: &Session| {
        session
            .seen
            .iter()
            .filter(|v| v["event"] == "log" && v["server"] == "py")
            .count()
    };
    // 2026-07-28: without a level in the request's _meta the server sends no log messages at all.
    session
        .send(json!({"id": 1, "cmd": "call", "server": "py", "tool": "chatty", "args": {"n": 3}}));
    assert_eq!(session.reply(1)["ok"], true);
    assert_eq!(logs(&session), 0, "{:?}", session.seen);
    session.send(json!({"id": 2, "cmd": "log_level", "server": "py", "level": "info"}));
    assert_eq!(session.reply(2)["ok"], true);
    session
        .send(json!({"id": 3, "cmd": "call", "server": "py", "tool": "chatty", "args": {"n": 3}}));
    assert_eq!(session.reply(3)["ok"], true);
    assert_eq!(logs(&session), 3, "{:?}", session.seen);
    // A flood: at most 50 a second pass, the rest are counted in the flood's notice (one, a second after it ends).
    session.send(
        json!({"id": 4, "cmd": "call", "server": "py", "tool": "chatty", "args": {"n": 400}}),
    );
    assert_eq!(session.reply(4)["ok"], true);
    let summarised = |session: &Session| -> usize {
        session
            .seen
            .iter()
            .filter(|v| v["event"] == "notice" && v["code"] == "log_flood")
            .map(|v| {
                let message = v["message"].as_str().unwrap();
                message.split(' ').next().unwrap().parse::<usize>().unwrap()
            })
            .sum()
    };
    for n in 1.. {
        session.wait_for_nth("the flood's summaries", n, |v| {
            v["event"] == "notice" && v["code"] == "log_flood"
        });
        if logs(&session) - 3 + summarised(&session) == 400 {
            break;
        }
        assert!(
            n < 10,
            "the summaries never account for the flood: {:?}",
            session.seen
        );
    }
    let shown = logs(&session) - 3;
    assert!(shown <= 2 * 50, "{shown} log messages shown one by one");
    // A bad level is a clear error.
    session.send(json!({"id": 5, "cmd": "log_level", "server": "py", "level": "loud"}));
    assert_eq!(session.reply(5)["ok"], false);
    assert!(session.quit().success());
}

#[test]
fn legacy_set_level_reaches_the_server() {
    let scratch = Scratch::new(json!({ "servers": { "ev": everything_stdio() } }));
    let mut session = scratch.session();
    session.send(json!({"id": 1, "cmd": "log_level", "server": "ev", "level": "debug"}));
    assert_eq!(session.reply(1)["ok"], true, "{:?}", session.seen);
    // The server logs what it was asked (its own log line about the request).
    session.send(json!({"id": 2, "cmd": "call", "server": "ev", "tool": "toggle-simulated-logging", "args": {}}));
    assert_eq!(session.reply(2)["ok"], true);
    let log = session.event("a simulated log message", |v| {
        v["event"] == "log" && v["server"] == "ev"
    });
    assert!(log["level"].is_string(), "{log}");
    assert!(session.quit().success());
}
