use serde_json::{json, Value};

use super::*;

mod anthropic_completion;
mod config;
mod errors;
mod openai_completion;
mod requests;
mod streaming;

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// A sampling request with every part, which both the OpenAI and the Anthropic mappings are tested on.
fn full_params() -> Value {
    json!({
        "systemPrompt": "Be brief.",
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "What is in this picture?"},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}
            ]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "call_1", "name": "lookup", "input": {"q": "cat"}}
            ]},
            {"role": "user", "content": {"type": "tool_result", "toolUseId": "call_1",
                "content": [{"type": "text", "text": "a cat"}]}},
            {"role": "user", "content": [{"type": "tool_result", "toolUseId": "call_2", "isError": true,
                "content": [{"type": "text", "text": "no such thing"}]}]}
        ],
        "maxTokens": 500,
        "temperature": 0.2,
        "stopSequences": ["\n\nHuman:"],
        "tools": [{"name": "lookup", "description": "Looks things up",
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}],
        "toolChoice": {"mode": "required"},
        "modelPreferences": {"hints": [{"name": "x"}]},
        "includeContext": "none"
    })
}

#[test]
fn a_conversation_too_long_for_the_model_says_what_to_do() {
    for (status, message) in [
        (
            400,
            "This model's maximum context length is 8192 tokens. (context_length_exceeded)",
        ),
        (400, "prompt is too long: 210000 tokens > 200000 maximum"),
        (400, "the request exceeds the available context size"),
    ] {
        let said = ProviderError::Http {
            status,
            message: message.into(),
        }
        .user_message();
        assert!(said.contains("too long for the model"), "{message}: {said}");
    }
    let other = ProviderError::Http {
        status: 400,
        message: "unknown model".into(),
    }
    .user_message();
    assert!(other.contains("check the model name"), "{other}");
}
