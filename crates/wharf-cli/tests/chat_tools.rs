//! The tools a model is offered when the servers list more than a request takes (docs/cli.md, "chat"): a hostile
//! server listing 500 tools, its key sorting first, beside the honest python SDK server. The honest server's tools
//! all reach the model (as the scripted provider received them), and the user is told what was left out and why: the
//! turn's `toolsLeftOut`, a `tools_left_out` notice on stderr and in the events file, and a notice in the stored
//! conversation, once a turn; the session's `chat` tells it as a `notice` event before its reply.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

// Not every helper of the shared support is used here.
#[allow(dead_code)]
#[path = "support/chat_provider.rs"]
mod chat_provider;

#[path = "support/chat_turns.rs"]
mod chat_turns;

use chat_provider::ChatProvider;
use chat_turns::*;
use peers::*;
use serde_json::{json, Value};

const LIMIT: usize = 128;
const FLOOD: usize = 500;

/// A server entry for the fixture that lists `count` tools, `tool_0` onwards in that order.
fn flood(count: usize) -> Value {
    stdio_server(
        &python(),
        &[
            fixture("many_tools_server.py").to_str().unwrap(),
            &count.to_string(),
        ],
    )
}

/// The names of the tools the python SDK server lists, as the model would call them.
fn honest_names(scratch: &Scratch) -> Vec<String> {
    let listed = stdout_json(&scratch.run(&["tools", "py"]));
    let mut names: Vec<String> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|t| format!("py__{}", t["name"].as_str().unwrap()))
        .collect();
    names.sort();
    names
}

fn with_prefix(names: &[String], prefix: &str) -> Vec<String> {
    let mut out: Vec<String> = names
        .iter()
        .filter(|n| n.starts_with(prefix))
        .cloned()
        .collect();
    out.sort();
    out
}

#[test]
fn a_server_listing_500_tools_leaves_the_honest_servers_tools_all_offered_and_says_what_it_left_out(
) {
    for kind in FLAVOURS {
        let provider = ChatProvider::start(json!([{"text": "done"}]));
        let servers = json!({"aaa": flood(FLOOD), "py": python_stdio()});
        let scratch = scratch_for(&provider, kind, servers);
        let honest = honest_names(&scratch);
        assert!(honest.len() > 5 && honest.len() < LIMIT / 2, "{honest:?}");
        let answering = Answering::new(&scratch, "{}");
        let (out, turn) = chat(&scratch, &answering.flags(), "what can you do?");
        assert_eq!(out.status.code(), Some(0), "{kind}: {}", stderr_text(&out));

        // What the model was offered: every honest tool, and the flood kept to the rest of the limit.
        let requests = provider.requests();
        assert_eq!(requests.len(), 1);
        let offered = tool_names(&requests[0], kind);
        assert_eq!(offered.len(), LIMIT, "{kind}");
        assert_eq!(with_prefix(&offered, "py__"), honest, "{kind}");
        let share = LIMIT - honest.len();
        let mut expected: Vec<String> = (0..share).map(|i| format!("aaa__tool_{i}")).collect();
        expected.sort();
        assert_eq!(
            with_prefix(&offered, "aaa__"),
            expected,
            "{kind}: the flood keeps its first tools in its own order"
        );

        // The turn's outcome says which server was cut, by how much and why.
        let left_out = turn["toolsLeftOut"].as_array().unwrap();
        assert_eq!(left_out.len(), 1, "{kind}: {left_out:?}");
        assert_eq!(left_out[0]["server"], "aaa");
        assert_eq!(left_out[0]["offered"], share);
        assert_eq!(left_out[0]["listed"], FLOOD);
        assert_eq!(left_out[0]["reason"], "over_share");
        let named = left_out[0]["tools"].as_array().unwrap();
        assert_eq!(named.len(), 20);
        assert_eq!(named[0], format!("tool_{share}"));

        // Told: a notice entry first in the turn, the same words on stderr and in the events file.
        let messages = turn["messages"].as_array().unwrap();
        assert_eq!(messages[0]["role"], "notice", "{kind}: {messages:?}");
        let note = messages[0]["content"].as_str().unwrap();
        let cut = format!("aaa ({share} of its {FLOOD})");
        assert!(note.contains(&cut), "{note}");
        assert!(!note.contains("py ("), "{note}");
        assert_eq!(messages[1]["content"], "done");
        let stderr = stderr_text(&out);
        assert_eq!(stderr.matches(&cut).count(), 1, "{kind}: {stderr}");
        let notices: Vec<Value> = answering
            .events_of_kind("notice")
            .into_iter()
            .filter(|n| n["code"] == "tools_left_out")
            .collect();
        assert_eq!(notices.len(), 1, "{notices:?}");
        assert_eq!(notices[0]["message"], note);

        // Kept: the conversation holds the notice, with what was left out as its data.
        let id = turn["conversation"].as_str().unwrap();
        let shown = stdout_json(&scratch.run(&["conversations", "show", id]));
        let stored = shown["messages"].as_array().unwrap();
        let roles: Vec<&str> = stored.iter().map(|m| m["role"].as_str().unwrap()).collect();
        assert_eq!(roles, ["user", "notice", "assistant"], "{kind}");
        assert_eq!(stored[1]["text"], note);
        assert_eq!(stored[1]["data"]["toolsLeftOut"], turn["toolsLeftOut"]);
    }
}

#[test]
fn across_the_steps_of_a_turn_the_model_is_offered_the_same_tools_and_told_once() {
    let provider = ChatProvider::start(json!([
        {"tool_calls": [{"id": "e1", "name": "py__echo", "arguments": {"message": "hi"}}]},
        {"text": "echoed"}
    ]));
    let servers = json!({"aaa": flood(FLOOD), "py": allowed_python()});
    let scratch = scratch_for(&provider, "openai", servers);
    let (out, turn) = chat(&scratch, &[], "echo hi");
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let requests = provider.requests();
    assert_eq!(requests.len(), 2);
    let (first, second) = (
        tool_names(&requests[0], "openai"),
        tool_names(&requests[1], "openai"),
    );
    assert_eq!(first.len(), LIMIT);
    assert_eq!(first, second, "the same tools at each step");
    assert!(first.contains(&"py__echo".to_string()));
    let messages = turn["messages"].as_array().unwrap();
    let notices = messages.iter().filter(|m| m["role"] == "notice").count();
    assert_eq!(notices, 1, "{messages:?}");
    assert_eq!(messages[1]["toolCalls"][0]["tool"], "echo");
    assert_eq!(
        stderr_text(&out).matches("tools the servers list").count(),
        1,
        "{}",
        stderr_text(&out)
    );
    assert_eq!(turn["toolsLeftOut"][0]["server"], "aaa");
}

#[test]
fn when_every_tool_fits_nothing_is_left_out_or_said() {
    let provider = ChatProvider::start(json!([{"text": "done"}]));
    let servers = json!({"aaa": flood(40), "py": python_stdio()});
    let scratch = scratch_for(&provider, "openai", servers);
    let honest = honest_names(&scratch);
    let (out, turn) = chat(&scratch, &[], "hello");
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let offered = tool_names(&provider.requests()[0], "openai");
    assert_eq!(offered.len(), 40 + honest.len());
    assert!(turn.get("toolsLeftOut").is_none(), "{turn}");
    assert_eq!(turn["messages"].as_array().unwrap().len(), 1);
    assert!(!stderr_text(&out).contains("tools the servers list"));
}

#[test]
fn the_sessions_chat_tells_it_as_a_notice_event_before_its_reply() {
    let provider = ChatProvider::start(json!([{"text": "done"}]));
    let servers = json!({"aaa": flood(FLOOD), "py": python_stdio()});
    let scratch = scratch_for(&provider, "anthropic", servers);
    let mut session = scratch.session();
    session.send(json!({"id": 1, "cmd": "chat", "conversation": null, "message": "hi"}));
    let reply = session.reply(1);
    assert_eq!(reply["ok"], true, "{reply}");
    assert_eq!(
        reply["result"]["toolsLeftOut"][0]["server"], "aaa",
        "{reply}"
    );
    let (status, seen) = session.quit_and_collect();
    assert!(status.success());
    let at = |pred: &dyn Fn(&Value) -> bool| seen.iter().position(pred);
    let notices: Vec<&Value> = seen
        .iter()
        .filter(|v| v["event"] == "notice" && v["code"] == "tools_left_out")
        .collect();
    assert_eq!(notices.len(), 1, "{seen:#?}");
    assert!(notices[0].get("server").is_none(), "{}", notices[0]);
    let notice = at(&|v| v["event"] == "notice" && v["code"] == "tools_left_out").unwrap();
    let answered = at(&|v| v["id"] == 1).unwrap();
    assert!(notice < answered, "{seen:#?}");
    assert_eq!(
        tool_names(&provider.requests()[0], "anthropic").len(),
        LIMIT
    );
}

/// A model its runtime says takes no tools: `wharf models` marks it (Ollama's `/api/show`, faked by the scripted
/// provider), and with `"chat": {"tools": false}` (what the app writes when it is chosen) a turn sends no tools,
/// says so in a stored notice, on stderr and in the events file, and still answers.
#[test]
fn a_model_that_takes_no_tools_is_marked_and_offered_none_and_the_turn_says_so() {
    let provider = ChatProvider::start(json!([{"text": "unused"}]));
    provider.script_as_ollama(
        json!([{"text": "Five, I think."}]),
        json!({"scripted": ["completion", "tools"], "scripted-large": ["completion"]}),
    );
    let mut config =
        json!({"servers": {"py": python_stdio()}, "chat": provider.chat_config("openai")});
    let scratch = Scratch::new(config.clone());
    let listed = stdout_json(&scratch.run(&["models"]));
    assert_eq!(
        listed["configured"]["tools"],
        json!({"scripted": "yes", "scripted-large": "no"}),
        "{listed}"
    );

    config["chat"]["tools"] = json!(false);
    let scratch = Scratch::new(config);
    let answering = Answering::new(&scratch, "{}");
    let (out, turn) = chat(&scratch, &answering.flags(), "What is 2 + 3?");
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let sent = provider.requests();
    let last = sent.last().unwrap();
    assert!(
        last["body"].get("tools").is_none() || last["body"]["tools"] == json!([]),
        "no tool reaches a model that takes none: {}",
        last["body"]
    );
    let notice = turn["messages"][0]["content"].as_str().unwrap();
    assert!(
        notice.contains("tools are not offered") && notice.contains("\"scripted\""),
        "{turn}"
    );
    assert_eq!(turn["messages"][1]["content"], "Five, I think.", "{turn}");
    let told: Vec<Value> = answering
        .events_of_kind("notice")
        .into_iter()
        .filter(|e| e["code"] == "tools_not_offered")
        .collect();
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0]["server"].is_null(), "{told:?}");
    assert_eq!(told[0]["message"], notice);
    assert_eq!(
        stderr_text(&out).matches("tools are not offered").count(),
        1
    );
    let stored = stdout_json(&scratch.run(&[
        "conversations",
        "show",
        turn["conversation"].as_str().unwrap(),
    ]));
    assert!(
        stored["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "notice"
                && m["text"]
                    .as_str()
                    .unwrap()
                    .contains("tools are not offered")),
        "{stored}"
    );
}
