//! `wharf chat` and the session's `chat` (docs/cli.md, "chat"): turns against the scripted provider fixture in both
//! wire flavours (its stream split 7 bytes at a time), with the python SDK server's real tools.

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
fn a_model_that_keeps_calling_is_stopped_at_the_step_limit() {
    let provider = ChatProvider::start(json!([
        {"tool_calls": [{"id": "loop", "name": "py__echo", "arguments": {"message": "again"}}]}
    ]));
    let py = allowed_python();
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
    // The codes stay; beside them, the same in words a user knows.
    assert_eq!(
        messages[0]["toolCalls"][0]["decided"],
        "allowed: this server is set to Allow"
    );
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
        assert_eq!(turn["messages"][0]["role"], "assistant");
        assert_eq!(turn["messages"][0]["content"], "partial answer");
        assert_eq!(turn["messages"][1]["role"], "notice");
        // The conversation keeps the user's message, the text shown and the notice: nothing shown is lost.
        let id = turn["conversation"].as_str().unwrap();
        let shown = stdout_json(&scratch.run(&["conversations", "show", id]));
        let roles: Vec<&str> = shown["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["user", "assistant", "notice"], "{shown}");
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
    let py = allowed_python();
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
    // Progress names the call by Wharf's id: the conversation's first call.
    session.event("the call's progress", |v| {
        v["event"] == "progress" && v["call"]["call"] == "c1"
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
    let py = allowed_python();
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
        let mut py = allowed_python();
        py["era"] = json!(era);
        let mut config = json!({"servers": {"py": py}, "chat": provider.chat_config("openai")});
        config["sampling"] = json!({"provider": provider.chat_config("openai")["provider"]});
        let scratch = Scratch::new(config);
        let answering = Answering::new(
            &scratch,
            r#"{"elicitation_form": {"action": "accept", "content": {"name": "Ada", "age": 36}},
                "sampling": {"action": "accept"}}"#,
        );
        let (out, turn) = chat(&scratch, &answering.flags(), "who am I, and tides?");
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
        let kinds: Vec<String> = answering
            .events()
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

/// server-everything's `get-tiny-image` returns a PNG: a model that takes images is given it (inside the result
/// for Anthropic, in a user message after the results for OpenAI), and one that does not is told it was shown to
/// the user. Anthropic's models take images unless `chat.images` says not; an OpenAI-compatible one only when it
/// says so.
#[test]
fn a_tools_image_reaches_a_model_that_takes_images_and_is_named_to_one_that_does_not() {
    for (kind, images) in [
        ("anthropic", None),
        ("openai", None),
        ("openai", Some(true)),
    ] {
        let provider = ChatProvider::start(json!([
            {"tool_calls": [{"id": "i1", "name": "everything__get-tiny-image", "arguments": {}}]},
            {"text": "A tiny picture."}
        ]));
        let mut everything = everything_stdio();
        everything["toolApproval"] = json!("allow");
        let mut config =
            json!({"servers": {"everything": everything}, "chat": provider.chat_config(kind)});
        if let Some(images) = images {
            config["chat"]["images"] = json!(images);
        }
        let scratch = Scratch::new(config);
        let (out, turn) = chat(&scratch, &[], "show me a picture");
        assert_eq!(out.status.code(), Some(0), "{kind}: {}", stderr_text(&out));
        assert_eq!(turn["messages"][1]["content"], "A tiny picture.", "{kind}");
        let request = &provider.requests()[1];
        let messages = request["messages"].as_array().unwrap();
        let given = images.unwrap_or(kind == "anthropic");
        let sent = serde_json::to_string(request).unwrap();
        if kind == "anthropic" {
            let result = messages
                .iter()
                .filter_map(|m| m["content"].as_array())
                .flatten()
                .find(|b| b["type"] == "tool_result")
                .unwrap();
            let blocks = result["content"].as_array().unwrap();
            assert!(
                blocks[0]["text"].as_str().unwrap().contains("attached"),
                "{result}"
            );
            let image = blocks.iter().find(|b| b["type"] == "image").unwrap();
            assert_eq!(image["source"]["media_type"], "image/png");
            assert!(image["source"]["data"]
                .as_str()
                .unwrap()
                .starts_with("iVBOR"));
        } else if given {
            let at = messages.iter().position(|m| m["role"] == "tool").unwrap();
            let after = &messages[at + 1];
            assert_eq!(after["role"], "user", "{after}");
            assert_eq!(after["content"][0]["text"], "The images of tool call c1:");
            let url = after["content"][1]["image_url"]["url"].as_str().unwrap();
            assert!(url.starts_with("data:image/png;base64,iVBOR"), "{url}");
        } else {
            assert!(
                !sent.contains("image_url"),
                "no image for a text-only model"
            );
            let result = messages.iter().find(|m| m["role"] == "tool").unwrap();
            assert!(
                result["content"]
                    .as_str()
                    .unwrap()
                    .contains("shown to the user"),
                "{result}"
            );
        }
        // The user sees the image in the stored call whatever the model was given.
        let call = &turn["messages"][0]["toolCalls"][0];
        let kept = call["result"]["content"].as_array().unwrap();
        assert!(kept.iter().any(|b| b["type"] == "image"), "{call}");
    }
}

/// Turns in different conversations run side by side in one session, each named by its request id in
/// `chat_turn_started`; a second turn in a conversation whose turn still runs is refused as busy.
#[test]
fn turns_of_different_conversations_run_together_and_one_conversation_runs_one_at_a_time() {
    let provider = ChatProvider::start(json!([
        {"text": "the first one hangs", "hang": true},
        {"text": "the second answers"}
    ]));
    let scratch = scratch_for(&provider, "openai", json!({}));
    let mut session = scratch.session();
    session.send(json!({"id": 1, "cmd": "chat", "conversation": null, "message": "first"}));
    let started = session.event("the first turn started", |v| {
        v["event"] == "chat_turn_started" && v["turn"] == "1"
    });
    let first = started["conversation"].as_str().unwrap().to_string();
    session.event("the first turn streaming", |v| v["event"] == "chat_delta");
    // The same conversation again while its turn runs: refused, and nothing stored for it.
    session.send(json!({"id": 2, "cmd": "chat", "conversation": first, "message": "again"}));
    let busy = session.reply(2);
    assert_eq!(busy["ok"], false, "{busy}");
    assert_eq!(busy["error"]["code"], "busy", "{busy}");
    // Another conversation meanwhile: it runs and ends while the first still hangs.
    session.send(json!({"id": 3, "cmd": "chat", "conversation": null, "message": "second"}));
    let second = session.reply(3);
    assert_eq!(second["ok"], true, "{second}");
    assert_eq!(
        second["result"]["messages"][0]["content"],
        "the second answers"
    );
    let other = second["result"]["conversation"].as_str().unwrap();
    assert_ne!(other, first);
    assert!(
        session
            .seen
            .iter()
            .any(|v| v["event"] == "chat_turn_started"
                && v["turn"] == "3"
                && v["conversation"] == other),
        "{:#?}",
        session.seen
    );
    session.send(json!({"id": 4, "cmd": "cancel", "target": 1}));
    let ended = session.reply(1);
    assert_eq!(ended["result"]["stopReason"], "cancelled", "{ended}");
    // Its turn over, the first conversation takes a turn again.
    session.send(json!({"id": 5, "cmd": "chat", "conversation": first, "message": "and now"}));
    assert_eq!(session.reply(5)["result"]["conversation"], first.as_str());
    assert!(session.quit().success());
    let stored = stdout_json(&scratch.run(&["conversations", "show", &first]));
    let users: Vec<&str> = stored["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        users,
        ["first", "and now"],
        "the busy message was not stored"
    );
}

/// `wharf chat --summarize ID`: the model gets the conversation as a transcript (no tools offered) and its summary
/// starts a new conversation, which goes on as any other; the old one is left as it was.
#[test]
fn a_summary_carries_a_conversation_into_a_new_one() {
    let provider = ChatProvider::start(json!([
        {"tool_calls": [{"id": "e1", "name": "py__echo", "arguments": {"message": "the port is 8443"}}]},
        {"text": "The port is 8443."},
        {"text": "You asked for the port; it is 8443. Nothing is left to do."},
        {"text": "Going on."},
        {"status": 500, "body": {"error": {"message": "scripted outage"}}}
    ]));
    let mut config =
        json!({"servers": {"py": allowed_python()}, "chat": provider.chat_config("openai")});
    config["chat"]["maxSteps"] = json!(5);
    let scratch = Scratch::new(config);
    let (out, turn) = chat(&scratch, &[], "which port?");
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let old = turn["conversation"].as_str().unwrap().to_string();
    let before = stdout_json(&scratch.run(&["conversations", "show", &old]));

    let out = scratch.run(&["chat", "--summarize", &old]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let summarized = stdout_json(&out);
    assert_eq!(summarized["continues"], old.as_str());
    assert_eq!(
        summarized["summary"],
        "You asked for the port; it is 8443. Nothing is left to do."
    );
    let new = summarized["conversation"].as_str().unwrap();
    assert_ne!(new, old);
    // The model was given a transcript, with the tool's result, and no tools.
    let request = &provider.requests()[2];
    assert!(request.get("tools").is_none(), "{request}");
    let asked = request["messages"][1]["content"].as_str().unwrap();
    assert!(
        asked.starts_with("Summarize the conversation below"),
        "{asked}"
    );
    assert!(asked.contains("User: which port?"), "{asked}");
    assert!(
        asked.contains("Tool result (py/echo): the port is 8443"),
        "{asked}"
    );
    // The new conversation starts with the summary and goes on; the old one is as it was.
    let shown = stdout_json(&scratch.run(&["conversations", "show", new]));
    assert_eq!(shown["title"], "Continued: which port?");
    let first = shown["messages"][0]["text"].as_str().unwrap();
    assert!(first.contains("it is 8443"), "{first}");
    let out = scratch.run(&["chat", "--conversation", new, "and then?"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    let users: Vec<Value> = provider.requests()[3]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].clone())
        .collect();
    assert!(
        users[0].as_str().unwrap().contains("it is 8443"),
        "{users:?}"
    );
    assert_eq!(users[1], "and then?");
    assert_eq!(
        stdout_json(&scratch.run(&["conversations", "show", &old])),
        before
    );
    // A provider that fails: exit 2 with why, and no new conversation.
    let listed = stdout_json(&scratch.run(&["conversations", "list"]));
    let out = scratch.run(&["chat", "--summarize", &old]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_text(&out).contains("could not summarize"),
        "{}",
        stderr_text(&out)
    );
    assert_eq!(
        stdout_json(&scratch.run(&["conversations", "list"])),
        listed
    );
    let out = scratch.run(&["chat", "--summarize", "no-such-id"]);
    assert_eq!(out.status.code(), Some(2));
}
