//! `wharf chat` killed (SIGKILL) at random moments of its turns: the conversations database always opens, every turn
//! stored is a prefix of what a whole turn stores (nothing out of order, nothing half-written), and the conversation
//! goes on afterwards with every call the model made answered, those whose outcome was lost included.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

#[path = "support/chat_provider.rs"]
mod chat_provider;

#[path = "support/chat_turns.rs"]
mod chat_turns;

use std::collections::HashSet;
use std::process::Stdio;
use std::time::{Duration, Instant};

use chat_provider::ChatProvider;
use chat_turns::allowed_python;
use peers::*;
use serde_json::json;
use wharf_core::conversations::{ConversationStore, Role};

/// What one whole turn stores: two steps of one call each, then the step limit's notice.
const WHOLE_TURN: [Role; 6] = [
    Role::User,
    Role::Assistant,
    Role::Tool,
    Role::Assistant,
    Role::Tool,
    Role::Notice,
];
const KILLS: u64 = 30;

#[test]
fn a_turn_killed_anywhere_leaves_a_conversation_that_opens_and_goes_on() {
    let provider = ChatProvider::start(json!([
        {"tool_calls": [{"id": "c{n}", "name": "py__echo", "arguments": {"message": "again"}}]}
    ]));
    let mut config =
        json!({"servers": {"py": allowed_python()}, "chat": provider.chat_config("openai")});
    config["chat"]["maxSteps"] = json!(2);
    let scratch = Scratch::new(config);
    let db = scratch.dir.path().join("data/wharf/conversations.db");

    // A whole turn first: how long one takes sets the range the kills are spread over.
    let started = Instant::now();
    let out = scratch.run(&["chat", "start"]);
    let whole = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let id = stdout_json(&out)["conversation"]
        .as_str()
        .unwrap()
        .to_string();

    let mut cut_short = 0;
    for kill in 0..KILLS {
        // Spread from the very start to past the end of a turn, by a fixed sequence: a failure names its kill.
        let delay = whole.mul_f64((kill * 7919 % 1000) as f64 / 800.0);
        let mut child = scratch
            .wharf()
            .args(["chat", "--conversation", &id, &format!("turn {kill}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + delay;
        while Instant::now() < deadline {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let _ = child.kill();
        let _ = child.wait();

        let (store, notice) = ConversationStore::open(&db).unwrap();
        assert_eq!(notice, None, "kill {kill}: the database was set aside");
        let messages = store.messages(&id).unwrap();
        let seqs: Vec<i64> = messages.iter().map(|m| m.seq).collect();
        assert!(
            seqs.windows(2).all(|w| w[0] < w[1]),
            "kill {kill}: {seqs:?}"
        );
        let roles: Vec<Role> = messages.iter().map(|m| m.role).collect();
        let mut turns: Vec<&[Role]> = Vec::new();
        let mut start = 0;
        for i in 1..=roles.len() {
            if i == roles.len() || roles[i] == Role::User {
                turns.push(&roles[start..i]);
                start = i;
            }
        }
        for turn in &turns {
            assert!(
                WHOLE_TURN.starts_with(turn),
                "kill {kill}: a turn stored out of shape: {turn:?}"
            );
        }
        if turns.last().is_some_and(|t| t.len() < WHOLE_TURN.len()) {
            cut_short += 1;
        }
    }
    assert!(cut_short > 0, "no kill landed inside a turn");
    eprintln!("{cut_short} of {KILLS} kills cut a turn short");

    // The conversation goes on: every call of the history is answered in what the model is sent.
    let before = provider.requests().len();
    let out = scratch.run(&["chat", "--conversation", &id, "after the crashes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let request = &provider.requests()[before];
    let messages = request["messages"].as_array().unwrap();
    let called: HashSet<&str> = messages
        .iter()
        .filter_map(|m| m["tool_calls"].as_array())
        .flatten()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    let answered: HashSet<&str> = messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["tool_call_id"].as_str().unwrap())
        .collect();
    assert!(called.len() > 2, "{called:?}");
    assert_eq!(called, answered);
    // Every call answered right after its assistant message, as the providers require.
    for (i, m) in messages.iter().enumerate() {
        if let Some(calls) = m["tool_calls"].as_array() {
            for (k, _) in calls.iter().enumerate() {
                assert_eq!(messages[i + 1 + k]["role"], "tool", "{i}: {m}");
            }
        }
    }
}
