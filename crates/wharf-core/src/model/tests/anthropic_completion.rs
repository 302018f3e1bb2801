use super::*;

#[test]
fn anthropic_request_maps_every_part() {
    let mut params = full_params();
    // Audio is the one thing the Messages API cannot take; it has its own test.
    if let Some(blocks) = params
        .pointer_mut("/messages/0/content")
        .and_then(Value::as_array_mut)
    {
        blocks.pop();
    }
    let body = anthropic::completion::request(&params, "claude-x", 300).unwrap();
    assert_eq!(
        body,
        json!({
            "model": "claude-x",
            "max_tokens": 300,
            "system": "Be brief.",
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "What is in this picture?"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
                ]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Let me look."},
                    {"type": "tool_use", "id": "call_1", "name": "lookup", "input": {"q": "cat"}}
                ]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1",
                    "content": [{"type": "text", "text": "a cat"}]}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_2", "is_error": true,
                    "content": [{"type": "text", "text": "no such thing"}]}]}
            ],
            "temperature": 0.2,
            "stop_sequences": ["\n\nHuman:"],
            "tools": [{"name": "lookup", "description": "Looks things up",
                "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}}],
            "tool_choice": {"type": "any"}
        })
    );
    for (mode, expected) in [("auto", "auto"), ("none", "none"), ("required", "any")] {
        let params =
            json!({"messages": [], "tools": [{"name": "t"}], "toolChoice": {"mode": mode}});
        let body = anthropic::completion::request(&params, "m", 1).unwrap();
        assert_eq!(body["tool_choice"], json!({"type": expected}));
        assert_eq!(
            body["tools"],
            json!([{"name": "t", "input_schema": {"type": "object"}}])
        );
    }
}

#[test]
fn anthropic_refuses_audio_clearly() {
    let err = anthropic::completion::request(&full_params(), "m", 10).unwrap_err();
    assert!(
        matches!(&err, ProviderError::Unsupported(m) if m.contains("audio")),
        "{err:?}"
    );
    assert!(
        err.user_message().contains("OpenAI-compatible"),
        "{}",
        err.user_message()
    );
}

#[test]
fn anthropic_endpoint_adds_v1_only_when_missing() {
    assert_eq!(
        anthropic::endpoint("https://api.anthropic.com"),
        "https://api.anthropic.com/v1/messages"
    );
    assert_eq!(
        anthropic::endpoint("http://gw/v1/"),
        "http://gw/v1/messages"
    );
    assert_eq!(
        openai::endpoint("http://h:1/v1/"),
        "http://h:1/v1/chat/completions"
    );
}

#[test]
fn anthropic_answer_maps_blocks_and_stop_reasons() {
    let answer = json!({"model": "claude-x-1", "stop_reason": "tool_use", "content": [
        {"type": "thinking", "thinking": "hmm"},
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": "cat"}}
    ]});
    assert_eq!(
        wire(anthropic::completion::result(&answer, "m").unwrap()),
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": "cat"}}
        ], "model": "claude-x-1", "stopReason": "toolUse"})
    );
    for (reason, expected) in [
        ("end_turn", "endTurn"),
        ("max_tokens", "maxTokens"),
        ("stop_sequence", "stopSequence"),
        ("refusal", "refusal"),
    ] {
        let answer = json!({"content": [{"type": "text", "text": "x"}], "stop_reason": reason});
        let result = wire(anthropic::completion::result(&answer, "m").unwrap());
        assert_eq!(result["stopReason"], expected);
        assert_eq!(result["model"], "m");
    }
    assert!(matches!(
        anthropic::completion::result(&json!({"choices": []}), "m"),
        Err(ProviderError::Malformed(_))
    ));
    let no_input = json!({"content": [{"type": "tool_use", "id": "t", "name": "n"}]});
    assert!(matches!(
        anthropic::completion::result(&no_input, "m"),
        Err(ProviderError::Malformed(_))
    ));
}

/// The completion as the server gets it.
fn wire(message: crate::model::SampledMessage) -> serde_json::Value {
    serde_json::to_value(message).unwrap()
}
