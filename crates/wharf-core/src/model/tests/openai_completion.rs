use super::*;

#[test]
fn openai_request_maps_every_part() {
    let body = openai::completion::request(&full_params(), "gpt-4o", 300).unwrap();
    assert_eq!(
        body,
        json!({
            "model": "gpt-4o",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": [
                    {"type": "text", "text": "What is in this picture?"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
                    {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}
                ]},
                {"role": "assistant", "content": "Let me look.", "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{\"q\":\"cat\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "a cat"},
                {"role": "tool", "tool_call_id": "call_2", "content": "Error: no such thing"}
            ],
            "max_tokens": 300,
            "temperature": 0.2,
            "stop": ["\n\nHuman:"],
            "tools": [{"type": "function", "function": {"name": "lookup", "description": "Looks things up",
                "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}],
            "tool_choice": "required"
        })
    );
}

#[test]
fn openai_request_keeps_a_lone_text_as_a_string_and_drops_a_choice_without_tools() {
    let params = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
        "maxTokens": 10, "toolChoice": {"mode": "none"}});
    let body = openai::completion::request(&params, "m", 10).unwrap();
    assert_eq!(
        body,
        json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 10})
    );
}

#[test]
fn openai_request_refuses_what_it_cannot_carry() {
    let ogg = json!({"messages": [{"role": "user", "content": {"type": "audio", "data": "AA==", "mimeType": "audio/ogg"}}]});
    let err = openai::completion::request(&ogg, "m", 10).unwrap_err();
    assert!(
        matches!(&err, ProviderError::Unsupported(m) if m.contains("audio/ogg")),
        "{err:?}"
    );
    let no_role = json!({"messages": [{"content": {"type": "text", "text": "x"}}]});
    assert!(matches!(
        openai::completion::request(&no_role, "m", 10),
        Err(ProviderError::InvalidParams(_))
    ));
    let bad_type = json!({"messages": [{"role": "user", "content": {"type": "video"}}]});
    assert!(matches!(
        openai::completion::request(&bad_type, "m", 10),
        Err(ProviderError::InvalidParams(_))
    ));
    let bad_mode =
        json!({"messages": [], "tools": [{"name": "t"}], "toolChoice": {"mode": "always"}});
    assert!(matches!(
        openai::completion::request(&bad_mode, "m", 10),
        Err(ProviderError::InvalidParams(_))
    ));
}

#[test]
fn max_tokens_never_exceeds_the_request() {
    assert_eq!(
        mcp::max_tokens(&json!({"maxTokens": 100}), 4000).unwrap(),
        100
    );
    assert_eq!(mcp::max_tokens(&json!({"maxTokens": 100}), 50).unwrap(), 50);
    assert_eq!(mcp::max_tokens(&json!({}), 50).unwrap(), 50);
    assert!(matches!(
        mcp::max_tokens(&json!({"maxTokens": 0}), 50),
        Err(ProviderError::InvalidParams(_))
    ));
}

#[test]
fn openai_answer_maps_text_tool_calls_and_stop_reasons() {
    let answer = json!({"model": "gpt-4o-2024-08-06", "choices": [{"message": {"role": "assistant",
        "content": "Hello"}, "finish_reason": "stop"}]});
    assert_eq!(
        wire(openai::completion::result(&answer, "gpt-4o").unwrap()),
        json!({"role": "assistant", "content": {"type": "text", "text": "Hello"},
            "model": "gpt-4o-2024-08-06", "stopReason": "endTurn"})
    );
    let answer = json!({"choices": [{"message": {"content": null, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "a", "arguments": "{\"x\":1}"}},
        {"type": "function", "function": {"name": "b", "arguments": ""}}
    ]}, "finish_reason": "tool_calls"}]});
    assert_eq!(
        wire(openai::completion::result(&answer, "m").unwrap()),
        json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "c1", "name": "a", "input": {"x": 1}},
            {"type": "tool_use", "id": "call_1", "name": "b", "input": {}}
        ], "model": "m", "stopReason": "toolUse"})
    );
    for (finish, expected) in [
        ("length", "maxTokens"),
        ("content_filter", "content_filter"),
    ] {
        let answer = json!({"choices": [{"message": {"content": "x"}, "finish_reason": finish}]});
        assert_eq!(
            wire(openai::completion::result(&answer, "m").unwrap())["stopReason"],
            expected
        );
    }
    let empty = json!({"choices": [{"message": {"content": null}}]});
    let result = wire(openai::completion::result(&empty, "m").unwrap());
    assert_eq!(result["content"], json!({"type": "text", "text": ""}));
    assert!(result.get("stopReason").is_none());
}

#[test]
fn openai_answer_with_bad_arguments_or_shape_is_malformed() {
    let bad_args = json!({"choices": [{"message": {"tool_calls": [
        {"id": "c", "function": {"name": "a", "arguments": "{not json"}}]}}]});
    let err = openai::completion::result(&bad_args, "m").unwrap_err();
    assert!(
        matches!(&err, ProviderError::Malformed(m) if m.contains("`a`")),
        "{err:?}"
    );
    let not_object = json!({"choices": [{"message": {"tool_calls": [
        {"id": "c", "function": {"name": "a", "arguments": "[1]"}}]}}]});
    assert!(matches!(
        openai::completion::result(&not_object, "m"),
        Err(ProviderError::Malformed(_))
    ));
    assert!(matches!(
        openai::completion::result(&json!({"data": []}), "m"),
        Err(ProviderError::Malformed(_))
    ));
    let said = openai::completion::result(&json!({"error": {"message": "upstream down"}}), "m")
        .unwrap_err();
    assert!(said.to_string().contains("upstream down"), "{said}");
}

/// The completion as the server gets it.
fn wire(message: crate::model::SampledMessage) -> serde_json::Value {
    serde_json::to_value(message).unwrap()
}
