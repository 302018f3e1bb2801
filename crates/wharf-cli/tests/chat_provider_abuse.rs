//! A provider that breaks the rules a conversation depends on, through `wharf chat`: call ids repeated within a
//! reply and across turns, or missing, must never give one call another's result; a stream that stays open with
//! nothing in it, or never ends, must still end the turn, the conversation stored as shown. Against the scripted
//! provider and the python SDK server's `echo`, which answers each call with its own message.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

#[path = "support/chat_provider.rs"]
mod chat_provider;

#[path = "support/chat_turns.rs"]
mod chat_turns;

use std::collections::HashSet;

use chat_provider::ChatProvider;
use chat_turns::*;
use peers::*;
use serde_json::{json, Value};

/// The calls a request carries in its history, as (call id, the `message` argument).
fn calls_sent(request: &Value, kind: &str) -> Vec<(String, String)> {
    let messages = request["messages"].as_array().unwrap();
    if kind == "openai" {
        messages
            .iter()
            .filter_map(|m| m["tool_calls"].as_array())
            .flatten()
            .map(|c| {
                let args: Value =
                    serde_json::from_str(c["function"]["arguments"].as_str().unwrap()).unwrap();
                (
                    c["id"].as_str().unwrap().to_string(),
                    args["message"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    } else {
        messages
            .iter()
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .filter(|b| b["type"] == "tool_use")
            .map(|b| {
                (
                    b["id"].as_str().unwrap().to_string(),
                    b["input"]["message"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }
}

fn echo(id: Option<&str>, message: &str) -> Value {
    let mut call = json!({"name": "py__echo", "arguments": {"message": message}});
    if let Some(id) = id {
        call["id"] = json!(id);
    }
    call
}

#[test]
fn repeated_or_missing_call_ids_never_swap_results_between_calls() {
    for kind in FLAVOURS {
        // Turn one: two calls under one id. Turn two: the same id again, then two calls with no id at all.
        let provider = ChatProvider::start(json!([
            {"tool_calls": [echo(Some("dup"), "first"), echo(Some("dup"), "second")]},
            {"text": "one done"},
            {"tool_calls": [echo(Some("dup"), "third")]},
            {"tool_calls": [echo(None, "fourth"), echo(None, "fifth")]},
            {"text": "two done"}
        ]));
        let scratch = scratch_for(&provider, kind, json!({"py": allowed_python()}));
        let (out, first) = chat(&scratch, &[], "echo twice");
        assert_eq!(out.status.code(), Some(0), "{kind}: {}", stderr_text(&out));
        let id = first["conversation"].as_str().unwrap().to_string();
        let out = scratch.run(&["chat", "--conversation", &id, "echo three times"]);
        let second = stdout_json(&out);
        assert_eq!(out.status.code(), Some(0), "{kind}: {}", stderr_text(&out));

        // Each stored call has an id of its own, and the provider's is kept beside it.
        let records: Vec<&Value> = [&first, &second]
            .iter()
            .flat_map(|turn| turn["messages"].as_array().unwrap())
            .filter_map(|m| m["toolCalls"].as_array())
            .flatten()
            .collect();
        let ids: Vec<&str> = records.iter().map(|r| r["id"].as_str().unwrap()).collect();
        assert_eq!(ids, ["c1", "c2", "c3", "c4", "c5"], "{kind}");
        assert_eq!(records[0]["modelId"], "dup");
        assert_eq!(records[3].get("modelId"), None, "{kind}: no id was given");
        for record in &records {
            let message = record["arguments"]["message"].as_str().unwrap();
            assert!(
                record["result"].to_string().contains(message),
                "{kind}: {record}"
            );
        }

        // The last request's history: every id once, every result after the call it answers.
        let requests = provider.requests();
        let last = requests.last().unwrap();
        let calls = calls_sent(last, kind);
        let results = tool_results(last, kind);
        assert_eq!(calls.len(), 5, "{kind}: {last}");
        let unique: HashSet<&String> = calls.iter().map(|(id, _)| id).collect();
        assert_eq!(unique.len(), 5, "{kind}: {calls:?}");
        assert_eq!(results.len(), 5, "{kind}: {results:?}");
        for ((call_id, message), (result_id, text)) in calls.iter().zip(&results) {
            assert_eq!(call_id, result_id, "{kind}");
            assert!(
                text.contains(message.as_str()),
                "{kind}: {message} got {text}"
            );
        }
    }
}

#[test]
fn a_stream_that_sends_nothing_forever_ends_the_turn_and_keeps_what_was_shown() {
    for kind in FLAVOURS {
        let provider =
            ChatProvider::start(json!([{"text": "Let me think", "empty_forever": true}]));
        let mut config = json!({"servers": {}, "chat": provider.chat_config(kind)});
        config["chat"]["idleSeconds"] = json!(2);
        let scratch = Scratch::new(config);
        let (out, turn) = chat(&scratch, &[], "hello");
        assert_eq!(out.status.code(), Some(2), "{kind}: {}", stderr_text(&out));
        assert_eq!(turn["stopReason"], "error", "{kind}: {turn}");
        assert!(
            turn["error"].as_str().unwrap().contains("chat.idleSeconds"),
            "{kind}: {turn}"
        );
        let id = turn["conversation"].as_str().unwrap();
        let shown = stdout_json(&scratch.run(&["conversations", "show", id]));
        let kept: Vec<(&str, &str)> = shown["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["role"].as_str().unwrap(), m["text"].as_str().unwrap()))
            .collect();
        assert_eq!(kept.len(), 3, "{kind}: {shown}");
        assert_eq!(kept[0], ("user", "hello"));
        assert_eq!(kept[1], ("assistant", "Let me think"));
        assert_eq!(kept[2].0, "notice");
        // The provider sees the client go (its next write fails): the stream was closed, not left running.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !provider
            .records()
            .iter()
            .any(|r| r["event"] == "disconnected")
        {
            assert!(
                std::time::Instant::now() < deadline,
                "{kind}: the stream was never closed"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

/// The limit on a whole reply holds whatever the stream does meanwhile (here: some text, then an open stream, well
/// within the idle limit); a stream that keeps growing is the unit tests' case.
#[test]
fn a_reply_is_stopped_at_the_whole_reply_limit() {
    let provider = ChatProvider::start(json!([{"text": "and on and on", "hang": true}]));
    let mut config = json!({"servers": {}, "chat": provider.chat_config("openai")});
    config["chat"]["replySeconds"] = json!(2);
    let scratch = Scratch::new(config);
    let (out, turn) = chat(&scratch, &[], "go on");
    assert_eq!(out.status.code(), Some(2), "{}", stderr_text(&out));
    assert!(
        turn["error"]
            .as_str()
            .unwrap()
            .contains("chat.replySeconds"),
        "{turn}"
    );
    assert_eq!(turn["messages"][0]["content"], "and on and on");
}
