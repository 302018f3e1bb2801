//! `wharf chat` and the session's `chat` (docs/cli.md, "chat"): turns against the scripted provider fixture in both
//! wire flavours (its stream split 7 bytes at a time), with the python SDK server's real tools.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

#[path = "support/chat_provider.rs"]
mod chat_provider;

use chat_provider::ChatProvider;
use peers::*;
use serde_json::{json, Value};

const FLAVOURS: [&str; 2] = ["openai", "anthropic"];

fn scratch_for(provider: &ChatProvider, kind: &str, servers: Value) -> Scratch {
    Scratch::new(json!({"servers": servers, "chat": provider.chat_config(kind)}))
}

fn chat(scratch: &Scratch, extra: &[&str], message: &str) -> (std::process::Output, Value) {
    let mut args: Vec<&str> = extra.to_vec();
    args.extend(["chat", message]);
    let out = scratch.run(&args);
    let json = stdout_json(&out);
    (out, json)
}

fn events_of(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn tool_names(request: &Value, kind: &str) -> Vec<String> {
    request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let name = if kind == "openai" {
                &t["function"]["name"]
            } else {
                &t["name"]
            };
            name.as_str().unwrap().to_string()
        })
        .collect()
}

/// The tool results of a request, in order, as (call id, text).
fn tool_results(request: &Value, kind: &str) -> Vec<(String, String)> {
    let messages = request["messages"].as_array().unwrap();
    if kind == "openai" {
        messages
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| {
                (
                    m["tool_call_id"].as_str().unwrap().to_string(),
                    m["content"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    } else {
        messages
            .iter()
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .filter(|b| b["type"] == "tool_result")
            .map(|b| {
                (
                    b["tool_use_id"].as_str().unwrap().to_string(),
                    b["content"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }
}

#[test]
fn a_text_reply_streams_into_the_conversation_in_both_flavours() {
    for kind in FLAVOURS {
        let provider = ChatProvider::start(json!([{"text": "Hello, wörld ✓ — done."}]));
        let scratch = scratch_for(&provider, kind, json!({"py": python_stdio()}));
        let (out, turn) = chat(&scratch, &[], "hi there");
        assert_eq!(out.status.code(), Some(0), "{kind}: {}", stderr_text(&out));
        assert_eq!(
            turn["messages"],
            json!([{"role": "assistant", "content": "Hello, wörld ✓ — done."}]),
            "{kind}"
        );
        assert_eq!(turn["stopReason"], "end_turn");
        assert_eq!(turn["usage"], json!({"inputTokens": 10, "outputTokens": 5}));
        let requests = provider.requests();
        assert_eq!(requests.len(), 1);
        let names = tool_names(&requests[0], kind);
        assert!(names.contains(&"py__echo".to_string()), "{kind}: {names:?}");
        let system = if kind == "openai" {
            requests[0]["messages"][0]["content"].clone()
        } else {
            requests[0]["system"].clone()
        };
        assert!(system.as_str().unwrap().contains("Wharf"), "{system}");
        // Kept: the conversation has the user's message and the reply.
        let id = turn["conversation"].as_str().unwrap();
        let shown = stdout_json(&scratch.run(&["conversations", "show", id]));
        let texts: Vec<(&str, &str)> = shown["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["role"].as_str().unwrap(), m["text"].as_str().unwrap()))
            .collect();
        assert_eq!(
            texts,
            [
                ("user", "hi there"),
                ("assistant", "Hello, wörld ✓ — done.")
            ]
        );
    }
}

#[test]
fn an_approved_call_with_edited_arguments_reaches_the_server_and_its_result_the_model() {
    for kind in FLAVOURS {
        let provider = ChatProvider::start(json!([
            {"text": "Let me echo.", "tool_calls": [
                {"id": "c1", "name": "py__echo", "arguments": {"message": "from the model"}}]},
            {"text": "It said so."}
        ]));
        let scratch = scratch_for(&provider, kind, json!({"py": python_stdio()}));
        let answers = scratch.dir.path().join("answers.json");
        std::fs::write(
            &answers,
            r#"{"tool_call": {"action": "allow_once", "arguments": {"message": "edited by the user"}}}"#,
        )
        .unwrap();
        let events = scratch.dir.path().join("events.jsonl");
        let (out, turn) = chat(
            &scratch,
            &[
                "--answers",
                answers.to_str().unwrap(),
                "--events",
                events.to_str().unwrap(),
            ],
            "echo something",
        );
        assert_eq!(out.status.code(), Some(0), "{kind}: {}", stderr_text(&out));
        let call = &turn["messages"][0]["toolCalls"][0];
        assert_eq!(turn["messages"][0]["content"], "Let me echo.");
        assert_eq!(call["id"], "c1");
        assert_eq!(call["server"], "py");
        assert_eq!(call["tool"], "echo");
        assert_eq!(call["arguments"], json!({"message": "edited by the user"}));
        assert_eq!(call["decision"], "allow_once");
        assert_eq!(call["result"]["isError"], false);
        assert_eq!(call["result"]["content"][0]["text"], "edited by the user");
        assert_eq!(
            turn["messages"][1],
            json!({"role": "assistant", "content": "It said so."})
        );
        assert_eq!(turn["stopReason"], "end_turn");
        assert_eq!(
            turn["usage"],
            json!({"inputTokens": 20, "outputTokens": 10})
        );
        let requests = provider.requests();
        assert_eq!(requests.len(), 2, "{kind}");
        assert_eq!(
            tool_results(&requests[1], kind),
            [("c1".to_string(), "edited by the user".to_string())],
            "{kind}"
        );
        let recorded: Vec<Value> = events_of(&events)
            .into_iter()
            .filter(|e| e["kind"] == "tool_call")
            .collect();
        assert_eq!(recorded.len(), 1, "{recorded:?}");
        let e = &recorded[0];
        assert_eq!(
            (e["server"].as_str(), e["tool"].as_str()),
            (Some("py"), Some("echo"))
        );
        assert_eq!(e["decision"], "allow_once");
        assert_eq!(e["arguments"], json!({"message": "edited by the user"}));
        assert_eq!(e["conversation"], turn["conversation"]);
        assert_eq!(
            (e["trusted"].clone(), e["changed"].clone()),
            (json!(false), json!(false))
        );
        assert!(e["pin"].as_str().unwrap().starts_with("sha256:"));
    }
}

#[test]
fn without_answers_or_a_terminal_a_call_is_denied_and_the_model_told() {
    let provider = ChatProvider::start(json!([
        {"tool_calls": [{"id": "c1", "name": "py__echo", "arguments": {"message": "x"}}]},
        {"text": "Understood."}
    ]));
    let scratch = scratch_for(&provider, "openai", json!({"py": python_stdio()}));
    let (out, turn) = chat(&scratch, &[], "echo x");
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let call = &turn["messages"][0]["toolCalls"][0];
    assert_eq!(call["decision"], "deny");
    assert_eq!(call["result"]["isError"], true);
    let results = tool_results(&provider.requests()[1], "openai");
    assert_eq!(results[0].0, "c1");
    assert!(results[0].1.contains("denied"), "{results:?}");
}

#[test]
fn parallel_calls_grants_errors_and_calls_the_model_botched_in_one_reply() {
    let provider = ChatProvider::start(json!([
        {"tool_calls": [
            {"id": "a", "name": "py__echo", "arguments": {"message": "one"}},
            {"id": "b", "name": "py__echo", "arguments": {"message": "two"}},
            {"id": "c", "name": "py__boom", "arguments": {}},
            {"id": "d", "name": "py__no_such_tool", "arguments": {}},
            {"id": "e", "name": "py__echo", "arguments": "{\"message\": "},
            {"id": "f", "name": "py__add", "arguments": {"a": "not a number", "b": 2}}
        ]},
        {"text": "Done."}
    ]));
    let scratch = scratch_for(&provider, "anthropic", json!({"py": python_stdio()}));
    let answers = scratch.dir.path().join("answers.json");
    std::fs::write(
        &answers,
        r#"{"tool_call": [{"action": "allow_conversation"}, {"action": "allow_once"}]}"#,
    )
    .unwrap();
    let events = scratch.dir.path().join("events.jsonl");
    let (out, turn) = chat(
        &scratch,
        &[
            "--answers",
            answers.to_str().unwrap(),
            "--events",
            events.to_str().unwrap(),
        ],
        "do it all",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let calls = turn["messages"][0]["toolCalls"].as_array().unwrap();
    let decisions: Vec<&str> = calls
        .iter()
        .map(|c| c["decision"].as_str().unwrap())
        .collect();
    assert_eq!(
        decisions,
        [
            "allow_conversation",
            "granted",
            "allow_once",
            "refused",
            "refused",
            "refused"
        ]
    );
    assert_eq!(calls[1]["grant"], "conversation");
    let errors: Vec<bool> = calls
        .iter()
        .map(|c| c["result"]["isError"].as_bool().unwrap())
        .collect();
    assert_eq!(errors, [false, false, true, true, true, true]);
    let results = tool_results(&provider.requests()[1], "anthropic");
    let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        ["a", "b", "c", "d", "e", "f"],
        "one result per call, in order"
    );
    assert_eq!(
        (results[0].1.as_str(), results[1].1.as_str()),
        ("one", "two")
    );
    assert!(
        results[3].1.contains("there is no tool named"),
        "{}",
        results[3].1
    );
    assert!(
        results[4].1.contains("not a JSON object"),
        "{}",
        results[4].1
    );
    assert!(
        results[5].1.contains("do not fit its input schema"),
        "{}",
        results[5].1
    );
    // Only the calls that reached the approval engine are told as tool_call events.
    let decided: Vec<String> = events_of(&events)
        .into_iter()
        .filter(|e| e["kind"] == "tool_call")
        .map(|e| e["decision"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(decided, ["allow_conversation", "granted", "allow_once"]);
}

#[test]
fn a_model_that_keeps_calling_is_stopped_at_the_step_limit() {
    let provider = ChatProvider::start(json!([
        {"tool_calls": [{"id": "loop", "name": "py__echo", "arguments": {"message": "again"}}]}
    ]));
    let mut py = python_stdio();
    py["toolApproval"] = json!("allow");
    let mut config = json!({"servers": {"py": py}, "chat": provider.chat_config("openai")});
    config["chat"]["maxSteps"] = json!(3);
    let scratch = Scratch::new(config);
    let (out, turn) = chat(&scratch, &[], "loop forever");
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    assert_eq!(turn["stopReason"], "max_steps");
    assert_eq!(provider.requests().len(), 3);
    let messages = turn["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4, "three steps and the notice");
    assert_eq!(messages[0]["toolCalls"][0]["grant"], "server_allow");
    assert_eq!(messages[3]["role"], "notice");
    assert!(messages[3]["content"].as_str().unwrap().contains("3 steps"));
}

#[test]
fn a_provider_failure_ends_the_turn_with_what_to_do_and_exit_2() {
    for kind in FLAVOURS {
        let provider =
            ChatProvider::start(json!([{"text": "partial answer", "error_after": true}]));
        let scratch = scratch_for(&provider, kind, json!({}));
        let (out, turn) = chat(&scratch, &[], "hello");
        assert_eq!(out.status.code(), Some(2), "{kind}");
        assert!(
            stderr_text(&out).contains("scripted overload"),
            "{}",
            stderr_text(&out)
        );
        assert_eq!(turn["stopReason"], "error");
        assert_eq!(turn["messages"][0]["role"], "notice");
        // The conversation keeps the user's message and the notice: nothing shown is lost.
        let id = turn["conversation"].as_str().unwrap();
        let shown = stdout_json(&scratch.run(&["conversations", "show", id]));
        assert_eq!(shown["messages"].as_array().unwrap().len(), 2, "{shown}");
    }
    let provider =
        ChatProvider::start(json!([{"status": 401, "body": {"error": {"message": "bad key"}}}]));
    let scratch = scratch_for(&provider, "openai", json!({}));
    let (out, turn) = chat(&scratch, &[], "hello");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        turn["error"].as_str().unwrap().contains("API key"),
        "{turn}"
    );
}

#[test]
fn a_conversation_goes_on_with_its_history() {
    let provider =
        ChatProvider::start(json!([{"text": "first answer"}, {"text": "second answer"}]));
    let scratch = scratch_for(&provider, "openai", json!({}));
    let (_, first) = chat(&scratch, &[], "first question");
    let id = first["conversation"].as_str().unwrap();
    let out = scratch.run(&["chat", "--conversation", id, "second question"]);
    let second = stdout_json(&out);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    assert_eq!(second["conversation"], id);
    let messages: Vec<(String, String)> = provider.requests()[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .skip(1)
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let expected = [
        ("user", "first question"),
        ("assistant", "first answer"),
        ("user", "second question"),
    ]
    .map(|(r, c)| (r.to_string(), c.to_string()));
    assert_eq!(messages, expected);
    let out = scratch.run(&["chat", "--conversation", "no-such-id", "hello"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn without_a_model_chat_says_how_to_set_one_up() {
    let scratch = Scratch::new(json!({"servers": {}}));
    let out = scratch.run(&["chat", "hello"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_text(&out);
    assert!(err.contains("no model is configured"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn a_session_streams_deltas_and_cancel_stops_the_stream_and_a_call_in_flight() {
    let provider = ChatProvider::start(json!([
        {"text": "I am thinking about it", "hang": true},
        {"tool_calls": [{"id": "long", "name": "py__slow", "arguments": {"steps": 100000, "delay_ms": 20}}]}
    ]));
    let mut py = python_stdio();
    py["toolApproval"] = json!("allow");
    let scratch =
        Scratch::new(json!({"servers": {"py": py}, "chat": provider.chat_config("openai")}));
    let mut session = scratch.session();
    session.send(json!({"id": 1, "cmd": "chat", "conversation": null, "message": "think"}));
    session.event("a delta", |v| v["event"] == "chat_delta");
    let deadline = std::time::Instant::now() + PATIENCE;
    while session_deltas(&session.seen) != "I am thinking about it" {
        session
            .next_line(deadline)
            .unwrap_or_else(|| panic!("the text never streamed whole: {:#?}", session.seen));
    }
    session.send(json!({"id": 2, "cmd": "cancel", "target": 1}));
    let reply = session.reply(1);
    assert_eq!(reply["ok"], true, "{reply}");
    assert_eq!(reply["result"]["stopReason"], "cancelled");
    assert_eq!(
        reply["result"]["messages"][0]["content"],
        "I am thinking about it"
    );
    let conversation = reply["result"]["conversation"]
        .as_str()
        .unwrap()
        .to_string();
    // Mid-call: the next turn's tool call is in flight (its progress shows) when the user stops it.
    session
        .send(json!({"id": 3, "cmd": "chat", "conversation": conversation, "message": "now work"}));
    session.event("the call's progress", |v| {
        v["event"] == "progress" && v["call"]["call"] == "long"
    });
    session.send(json!({"id": 4, "cmd": "cancel", "target": 3}));
    let reply = session.reply(3);
    assert_eq!(reply["result"]["stopReason"], "cancelled", "{reply}");
    let call = &reply["result"]["messages"][0]["toolCalls"][0];
    assert!(
        call["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("cancelled"),
        "{call}"
    );
    // The server is free again: the cancelled call does not hold it.
    session.send(
        json!({"id": 5, "cmd": "call", "server": "py", "tool": "echo", "args": {"message": "ok"}}),
    );
    assert_eq!(session.reply(5)["ok"], true);
    assert!(session.quit().success());
    // The provider tells of the closed stream from a thread of its own: waited for, not assumed.
    let deadline = std::time::Instant::now() + PATIENCE;
    while !provider
        .records()
        .iter()
        .any(|r| r["event"] == "disconnected" && r["n"] == 0)
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the provider never saw the stream closed: {:?}",
            provider.records()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn session_deltas(seen: &[Value]) -> String {
    seen.iter()
        .filter(|v| v["event"] == "chat_delta")
        .map(|v| v["text"].as_str().unwrap_or_default())
        .collect()
}

/// A tool that changes after the user allowed it "always" is asked about again, with what changed; the grant is
/// kept across runs for the tool as it was, and `wharf grants revoke` takes it back.
#[test]
fn a_changed_tool_is_asked_about_again_and_always_survives_a_restart_until_revoked() {
    let shifty = stdio_server(
        std::path::Path::new("python3"),
        &[fixture("bad_server.py").to_str().unwrap(), "toolschange"],
    );
    let provider = ChatProvider::start(json!([
        {"tool_calls": [{"id": "s1", "name": "bad__show", "arguments": {"label": "first"}}]},
        {"tool_calls": [{"id": "r1", "name": "bad__reshape", "arguments": {}}]},
        {"tool_calls": [{"id": "s2", "name": "bad__show", "arguments": {"path": "second"}}]},
        {"text": "done"},
        // The next run (a restart): the server is back to its first shape.
        {"tool_calls": [{"id": "s3", "name": "bad__show", "arguments": {"label": "third"}}]},
        {"text": "done again"},
        // After the revocation.
        {"tool_calls": [{"id": "s4", "name": "bad__show", "arguments": {"label": "fourth"}}]},
        {"text": "denied, fine"}
    ]));
    let scratch = scratch_for(&provider, "openai", json!({"bad": shifty}));
    let answers = scratch.dir.path().join("answers.json");
    std::fs::write(
        &answers,
        r#"{"tool_call": [{"action": "allow_always"}, {"action": "allow_once"}, {"action": "allow_once"}]}"#,
    )
    .unwrap();
    let events = scratch.dir.path().join("events.jsonl");
    let flags = [
        "--answers",
        answers.to_str().unwrap(),
        "--events",
        events.to_str().unwrap(),
    ];
    let (out, turn) = chat(&scratch, &flags, "show things");
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let decisions: Vec<Value> = turn["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["toolCalls"].as_array())
        .flatten()
        .map(|c| c["decision"].clone())
        .collect();
    assert_eq!(
        decisions,
        [
            json!("allow_always"),
            json!("allow_once"),
            json!("allow_once")
        ]
    );
    let decided: Vec<Value> = events_of(&events)
        .into_iter()
        .filter(|e| e["kind"] == "tool_call")
        .collect();
    assert_eq!(decided.len(), 3, "{decided:?}");
    assert_eq!(decided[0]["changed"], false);
    assert_eq!(
        (decided[2]["tool"].clone(), decided[2]["changed"].clone()),
        (json!("show"), json!(true))
    );
    assert_eq!(decided[2]["changes"], json!(["inputSchema"]));
    assert_ne!(decided[0]["pin"], decided[2]["pin"]);

    // A restart: no answers at all, and the kept grant lets the call through for the tool as it was allowed.
    let (out, turn) = chat(&scratch, &[], "show again");
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let call = &turn["messages"][0]["toolCalls"][0];
    assert_eq!(
        (call["decision"].clone(), call["grant"].clone()),
        (json!("granted"), json!("always"))
    );
    let grants = stdout_json(&scratch.run(&["grants", "list"]));
    assert_eq!(grants.as_array().unwrap().len(), 1, "{grants}");
    assert_eq!(
        (grants[0]["server"].clone(), grants[0]["tool"].clone()),
        (json!("bad"), json!("show"))
    );

    let out = scratch.run(&["grants", "revoke", "bad", "show"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    assert_eq!(stdout_json(&scratch.run(&["grants", "list"])), json!([]));
    let (_, turn) = chat(&scratch, &[], "show once more");
    assert_eq!(turn["messages"][0]["toolCalls"][0]["decision"], "deny");
    let out = scratch.run(&["grants", "revoke", "bad", "show"]);
    assert_eq!(out.status.code(), Some(2), "nothing left to revoke");
}

/// server-everything says its `echo` is read-only: that lets a model's call through only when the configuration
/// trusts the server; otherwise the claim decides nothing and the user is asked (here: no one to ask, so denied).
#[test]
fn a_read_only_claim_counts_only_for_a_trusted_server() {
    for trusted in [false, true] {
        let provider = ChatProvider::start(json!([
            {"tool_calls": [{"id": "e1", "name": "everything__echo", "arguments": {"message": "hi"}}]},
            {"text": "ok"}
        ]));
        let mut everything = everything_stdio();
        everything["trusted"] = json!(trusted);
        let scratch = scratch_for(&provider, "openai", json!({"everything": everything}));
        let events = scratch.dir.path().join("events.jsonl");
        let (out, turn) = chat(&scratch, &["--events", events.to_str().unwrap()], "echo");
        assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
        let call = &turn["messages"][0]["toolCalls"][0];
        let event = events_of(&events)
            .into_iter()
            .find(|e| e["kind"] == "tool_call")
            .unwrap();
        assert_eq!(event["annotations"]["readOnlyHint"], true);
        assert_eq!(event["trusted"], trusted);
        if trusted {
            assert_eq!(call["grant"], "trusted_read_only", "{call}");
            assert_eq!(call["result"]["isError"], false, "{call}");
        } else {
            assert_eq!(call["decision"], "deny", "{call}");
        }
    }
}

/// Near the model's window, an earlier turn's tool result is shortened for the model (and the user told), while the
/// conversation keeps it whole.
#[test]
fn near_the_window_earlier_tool_results_are_shortened_and_the_user_told() {
    let long = "word ".repeat(4000);
    let provider = ChatProvider::start(json!([
        {"tool_calls": [{"id": "big", "name": "py__echo", "arguments": {"message": long}}]},
        {"text": "that was long"},
        {"text": "fine"}
    ]));
    let mut py = python_stdio();
    py["toolApproval"] = json!("allow");
    let mut config = json!({"servers": {"py": py}, "chat": provider.chat_config("openai")});
    config["chat"]["contextTokens"] = json!(4096);
    let scratch = Scratch::new(config);
    let (out, first) = chat(&scratch, &[], "echo a lot");
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    assert_eq!(first["context"]["window"], 4096);
    let id = first["conversation"].as_str().unwrap();
    let out = scratch.run(&["chat", "--conversation", id, "and now?"]);
    let second = stdout_json(&out);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    assert_eq!(second["messages"][0]["role"], "notice", "{second}");
    assert!(second["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("shortened"));
    let requests = provider.requests();
    let sent = tool_results(&requests[2], "openai");
    assert!(
        sent[0].1.contains("shortened by Wharf"),
        "{}",
        &sent[0].1[..200]
    );
    assert!(sent[0].1.len() < 1000);
    // Within the same turn it was whole.
    assert_eq!(tool_results(&requests[1], "openai")[0].1, long);
    let shown = stdout_json(&scratch.run(&["conversations", "show", id]));
    let kept = shown["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert_eq!(kept["text"], long.as_str());
}

/// A server's questions inside a model's tool call, in both eras: a form (the python server's `whoami`) and a
/// sampling request (its `summarize`, served by the same provider, not streamed), each asked through the same broker
/// and answered by the same `--answers` file as outside chat.
#[test]
fn a_servers_questions_inside_a_models_call_go_through_the_same_broker_in_both_eras() {
    for era in ["modern", "legacy"] {
        let provider = ChatProvider::start(json!([
            {"tool_calls": [
                {"id": "w", "name": "py__whoami", "arguments": {}},
                {"id": "s", "name": "py__summarize", "arguments": {"topic": "tides"}}
            ]},
            {"text": "Tides rise and fall twice a day."},
            {"text": "All done."}
        ]));
        let mut py = python_stdio();
        py["era"] = json!(era);
        py["toolApproval"] = json!("allow");
        let mut config = json!({"servers": {"py": py}, "chat": provider.chat_config("openai")});
        config["sampling"] = json!({"provider": provider.chat_config("openai")["provider"]});
        let scratch = Scratch::new(config);
        let answers = scratch.dir.path().join("answers.json");
        std::fs::write(
            &answers,
            r#"{"elicitation_form": {"action": "accept", "content": {"name": "Ada", "age": 36}},
                "sampling": {"action": "accept"}}"#,
        )
        .unwrap();
        let events = scratch.dir.path().join("events.jsonl");
        let (out, turn) = chat(
            &scratch,
            &[
                "--answers",
                answers.to_str().unwrap(),
                "--events",
                events.to_str().unwrap(),
            ],
            "who am I, and tides?",
        );
        assert_eq!(out.status.code(), Some(0), "{era}: {}", stderr_text(&out));
        let calls = turn["messages"][0]["toolCalls"].as_array().unwrap();
        let text = |i: usize| {
            calls[i]["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_string()
        };
        assert!(text(0).contains("Ada"), "{era}: {}", text(0));
        assert_eq!(text(1), "Tides rise and fall twice a day.", "{era}");
        let kinds: Vec<String> = events_of(&events)
            .into_iter()
            .map(|e| e["kind"].as_str().unwrap_or_default().to_string())
            .collect();
        assert!(
            kinds.contains(&"elicitation_form".to_string()),
            "{era}: {kinds:?}"
        );
        assert!(kinds.contains(&"sampling".to_string()), "{era}: {kinds:?}");
        assert_eq!(turn["messages"][1]["content"], "All done.", "{era}");
    }
}

#[test]
fn models_lists_the_configured_providers_models_and_says_why_there_are_none() {
    for kind in FLAVOURS {
        let provider = ChatProvider::start(json!([{"text": "unused"}]));
        let scratch = scratch_for(&provider, kind, json!({}));
        let out = scratch.run(&["models"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
        let listed = stdout_json(&out);
        assert_eq!(
            listed["configured"]["models"],
            json!(["scripted", "scripted-large"]),
            "{kind}: {listed}"
        );
        assert_eq!(listed["configured"]["model"], "scripted");
        assert!(listed["local"].is_array(), "{listed}");
    }
    let scratch = Scratch::new(json!({"servers": {}}));
    let listed = stdout_json(&scratch.run(&["models"]));
    assert!(
        listed["configured"]["error"]
            .as_str()
            .unwrap()
            .contains("no model is configured"),
        "{listed}"
    );
}

/// A prompt and a resource attached to a message are read through their server (MRTR rounds on the way) and given
/// to the model with the user's words; the conversation keeps the words and the chips, and later turns send the
/// same text again. One that cannot be read stops the message before anything is stored or sent.
#[test]
fn attached_prompts_and_resources_reach_the_model_with_the_message() {
    let provider = ChatProvider::start(json!([{"text": "noted"}, {"text": "again"}]));
    let scratch = scratch_for(&provider, "openai", json!({"py": python_stdio()}));
    let out = scratch.run(&[
        "chat",
        "--prompt",
        "py",
        "rounds_prompt",
        "--prompt-args",
        r#"{"n": "2"}"#,
        "--resource",
        "py",
        "counter://value",
        "and tell me",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let id = stdout_json(&out)["conversation"]
        .as_str()
        .unwrap()
        .to_string();
    let sent = |n: usize| {
        let messages = provider.requests()[n]["messages"]
            .as_array()
            .unwrap()
            .clone();
        messages
            .iter()
            .filter(|m| m["role"] == "user")
            .map(|m| m["content"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let expected = "prompt after 2 rounds\n\nand tell me\n\n\
                    [attached by the user: the resource counter://value of py]\ncounter is 0";
    assert_eq!(sent(0), [expected]);
    let shown = stdout_json(&scratch.run(&["conversations", "show", &id]));
    let user = &shown["messages"][0];
    assert_eq!(user["text"], "and tell me");
    let chips = user["data"]["attachments"].as_array().unwrap();
    assert_eq!(chips.len(), 2);
    assert_eq!(
        chips[1]["attachment"],
        json!({"kind": "resource", "server": "py", "uri": "counter://value"})
    );
    let out = scratch.run(&["chat", "--conversation", &id, "more"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    assert_eq!(sent(1), [expected, "more"]);

    let out = scratch.run(&["chat", "--resource", "py", "nope://missing", "read it"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_text(&out).contains("nope://missing"),
        "{}",
        stderr_text(&out)
    );
    assert_eq!(provider.requests().len(), 2, "nothing was sent");
    let listed = stdout_json(&scratch.run(&["conversations", "list"]));
    assert_eq!(listed.as_array().unwrap().len(), 1, "nothing was stored");
}
