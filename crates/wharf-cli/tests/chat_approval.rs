//! The approval of a model's tool calls through `wharf chat` (docs/cli.md, "chat"): answers and edits, denial
//! with no one to ask, grants, calls the model botched, pinning (a changed tool asked about again) and trust (a
//! read-only claim counts only for a trusted server). Against the scripted provider and real servers.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

#[path = "support/chat_provider.rs"]
mod chat_provider;

#[path = "support/chat_turns.rs"]
mod chat_turns;

use chat_provider::ChatProvider;
use chat_turns::*;
use peers::*;
use serde_json::{json, Value};

#[test]
fn an_approved_call_with_edited_arguments_reaches_the_server_and_its_result_the_model() {
    for kind in FLAVOURS {
        let provider = ChatProvider::start(json!([
            {"text": "Let me echo.", "tool_calls": [
                {"id": "c1", "name": "py__echo", "arguments": {"message": "from the model"}}]},
            {"text": "It said so."}
        ]));
        let scratch = scratch_for(&provider, kind, json!({"py": python_stdio()}));
        let answering = Answering::new(
            &scratch,
            r#"{"tool_call": {"action": "allow_once", "arguments": {"message": "edited by the user"}}}"#,
        );
        let (out, turn) = chat(&scratch, &answering.flags(), "echo something");
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
        let recorded: Vec<Value> = answering.events_of_kind("tool_call");
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
    let answering = Answering::new(
        &scratch,
        r#"{"tool_call": [{"action": "allow_conversation"}, {"action": "allow_once"}]}"#,
    );
    let (out, turn) = chat(&scratch, &answering.flags(), "do it all");
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
    // The history names each call by Wharf's own id, not the provider's, so one the provider repeats cannot swap.
    assert_eq!(
        ids,
        ["c1", "c2", "c3", "c4", "c5", "c6"],
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
    let decided: Vec<String> = answering
        .events_of_kind("tool_call")
        .into_iter()
        .map(|e| e["decision"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(decided, ["allow_conversation", "granted", "allow_once"]);
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
    let answering = Answering::new(
        &scratch,
        r#"{"tool_call": [{"action": "allow_always"}, {"action": "allow_once"}, {"action": "allow_once"}]}"#,
    );
    let flags = answering.flags();
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
    let decided: Vec<Value> = answering.events_of_kind("tool_call");
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
