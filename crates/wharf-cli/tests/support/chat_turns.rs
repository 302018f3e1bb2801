//! What the chat tests share: a scratch directory with the scripted provider as its model, `wharf chat` run in it,
//! the answers and events files of a run, and the parts of a recorded request the tests look at.
// Test helpers: a failed unwrap here is a failed test, with its message.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use serde_json::{json, Value};

use super::chat_provider::ChatProvider;
use super::peers::*;

pub const FLAVOURS: [&str; 2] = ["openai", "anthropic"];

pub fn scratch_for(provider: &ChatProvider, kind: &str, servers: Value) -> Scratch {
    Scratch::new(json!({"servers": servers, "chat": provider.chat_config(kind)}))
}

pub fn chat(scratch: &Scratch, extra: &[&str], message: &str) -> (std::process::Output, Value) {
    let mut args: Vec<&str> = extra.to_vec();
    args.extend(["chat", message]);
    let out = scratch.run(&args);
    let json = stdout_json(&out);
    (out, json)
}

pub fn events_of(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

pub fn tool_names(request: &Value, kind: &str) -> Vec<String> {
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
pub fn tool_results(request: &Value, kind: &str) -> Vec<(String, String)> {
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

/// The python SDK server, its tool calls allowed without asking.
pub fn allowed_python() -> Value {
    let mut py = python_stdio();
    py["toolApproval"] = json!("allow");
    py
}

/// A run's `--answers` file (holding `answers`) and `--events` file, in the scratch directory.
pub struct Answering {
    answers: PathBuf,
    events: PathBuf,
}

impl Answering {
    pub fn new(scratch: &Scratch, answers: &str) -> Answering {
        let answering = Answering {
            answers: scratch.dir.path().join("answers.json"),
            events: scratch.dir.path().join("events.jsonl"),
        };
        std::fs::write(&answering.answers, answers).unwrap();
        answering
    }

    pub fn flags(&self) -> [&str; 4] {
        [
            "--answers",
            self.answers.to_str().unwrap(),
            "--events",
            self.events.to_str().unwrap(),
        ]
    }

    /// Every event recorded so far.
    pub fn events(&self) -> Vec<Value> {
        events_of(&self.events)
    }

    /// The recorded events of one kind.
    pub fn events_of_kind(&self, kind: &str) -> Vec<Value> {
        self.events()
            .into_iter()
            .filter(|e| e["kind"] == kind)
            .collect()
    }
}

/// The text a session streamed, joined.
pub fn session_deltas(seen: &[Value]) -> String {
    seen.iter()
        .filter(|v| v["event"] == "chat_delta")
        .map(|v| v["text"].as_str().unwrap_or_default())
        .collect()
}
