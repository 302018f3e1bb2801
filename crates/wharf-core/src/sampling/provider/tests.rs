use std::time::Duration;

use serde_json::{json, Value};

use reqwest::header::{HeaderMap, HeaderValue, RETRY_AFTER};

use super::choice::capability;
use super::http::{error_message, is_loopback, retry_after, truncate, MAX_ERROR_CHARS};
use super::*;

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

// ---- configuration

#[test]
fn config_reads_the_contract_keys() {
    let config = ProviderConfig::from_json(&json!({
        "kind": "openai", "baseUrl": "http://127.0.0.1:8080/v1/", "model": "m", "apiKeySecret": "openai",
        "models": ["m", "m-mini"]
    }))
    .unwrap();
    assert_eq!(
        config,
        ProviderConfig {
            kind: ProviderKind::Openai,
            base_url: "http://127.0.0.1:8080/v1".into(),
            model: "m".into(),
            api_key_secret: Some("openai".into()),
            models: names(&["m", "m-mini"]),
        }
    );
    let anthropic =
        ProviderConfig::from_json(&json!({"kind": "anthropic", "model": "claude-x"})).unwrap();
    assert_eq!(anthropic.base_url, "https://api.anthropic.com");
    assert_eq!(anthropic.api_key_secret, None);
    assert!(anthropic.models.is_empty());
    // Serialized back in the file's own spelling.
    let back = serde_json::to_value(&config).unwrap();
    assert_eq!(back["baseUrl"], "http://127.0.0.1:8080/v1");
    assert_eq!(back["apiKeySecret"], "openai");
    assert_eq!(back["kind"], "openai");
}

#[test]
fn a_key_written_in_the_file_is_refused_without_repeating_it() {
    for key in ["apiKey", "api_key"] {
        let err = ProviderConfig::from_json(&json!({
            "kind": "openai", "model": "m", key: "sk-live-very-secret-value"
        }))
        .unwrap_err();
        assert!(err.contains(key), "{err}");
        assert!(err.contains("wharf secret set"), "{err}");
        assert!(!err.contains("sk-live"), "{err}");
    }
    let err = ProviderConfig::from_json(&json!({
        "kind": "openai", "model": "m", "baseUrl": "https://user:sk-live-secret@example.com/v1"
    }))
    .unwrap_err();
    assert!(!err.contains("sk-live"), "{err}");
}

#[test]
fn config_errors_name_the_field() {
    let cases = [
        (json!([]), "must be an object"),
        (json!({"model": "m"}), "kind is missing"),
        (
            json!({"kind": "gemini", "model": "m"}),
            "`gemini` is not a provider kind",
        ),
        (json!({"kind": "openai"}), "model is missing"),
        (
            json!({"kind": "openai", "model": ""}),
            "model must be a non-empty string",
        ),
        (
            json!({"kind": "openai", "model": "m", "baseUrl": "ftp://x"}),
            "baseUrl",
        ),
        (
            json!({"kind": "openai", "model": "m", "baseUrl": "not a url"}),
            "baseUrl",
        ),
        (
            json!({"kind": "openai", "model": "m", "models": "m"}),
            "models must be a list",
        ),
        (
            json!({"kind": "openai", "model": "m", "models": [1]}),
            "models must hold",
        ),
        (
            json!({"kind": "openai", "model": "m", "apiKeySecret": 3}),
            "apiKeySecret",
        ),
    ];
    for (input, expected) in cases {
        let err = ProviderConfig::from_json(&input).unwrap_err();
        assert!(err.contains(expected), "{input}: {err}");
    }
}

#[test]
fn api_key_debug_never_shows_the_key() {
    let key = ApiKey::new("  sk-test-123456\n");
    assert_eq!(key.expose(), "sk-test-123456");
    assert_eq!(format!("{key:?}"), "***");
    #[derive(Debug)]
    #[allow(dead_code)]
    struct Holder {
        key: Option<ApiKey>,
    }
    let shown = format!("{:?}", Holder { key: Some(key) });
    assert!(!shown.contains("sk-test"), "{shown}");
}

// ---- model choice

#[test]
fn hints_match_by_case_insensitive_substring() {
    let allowed = names(&["gpt-4o", "Claude-3-5-Sonnet-20241022", "llama3.1:8b"]);
    let prefs = json!({"hints": [{"name": "SONNET"}]});
    assert_eq!(
        choose_model(Some(&prefs), &allowed, "gpt-4o"),
        "Claude-3-5-Sonnet-20241022"
    );
}

#[test]
fn hints_are_taken_in_order() {
    let allowed = names(&["gpt-4o", "claude-3-haiku", "claude-3-opus"]);
    // The first hint that matches anything wins, even though a later one would match too.
    let prefs = json!({"hints": [{"name": "gemini"}, {"name": "haiku"}, {"name": "gpt"}]});
    assert_eq!(
        choose_model(Some(&prefs), &allowed, "gpt-4o"),
        "claude-3-haiku"
    );
    let prefs = json!({"hints": [{"name": "gpt"}, {"name": "haiku"}]});
    assert_eq!(
        choose_model(Some(&prefs), &allowed, "claude-3-opus"),
        "gpt-4o"
    );
}

#[test]
fn no_match_falls_back_to_the_default() {
    let allowed = names(&["gpt-4o", "gpt-4o-mini"]);
    let prefs = json!({"hints": [{"name": "claude"}]});
    assert_eq!(choose_model(Some(&prefs), &allowed, "gpt-4o"), "gpt-4o");
    assert_eq!(choose_model(None, &allowed, "gpt-4o"), "gpt-4o");
    assert_eq!(choose_model(Some(&json!({})), &allowed, "gpt-4o"), "gpt-4o");
    // Malformed preferences are advisory noise, not an error.
    assert_eq!(
        choose_model(Some(&json!({"hints": "x"})), &allowed, "gpt-4o"),
        "gpt-4o"
    );
}

#[test]
fn without_an_allowed_list_only_the_default_is_offered() {
    let prefs = json!({"hints": [{"name": "claude"}], "speedPriority": 1.0});
    assert_eq!(
        choose_model(Some(&prefs), &[], "llama3.1:70b"),
        "llama3.1:70b"
    );
    let prefs = json!({"hints": [{"name": "llama"}]});
    assert_eq!(
        choose_model(Some(&prefs), &[], "llama3.1:70b"),
        "llama3.1:70b"
    );
}

#[test]
fn only_allowed_models_are_chosen() {
    let allowed = names(&["gpt-4o-mini"]);
    // The hint matches the default, which is not allowed: the allowed list wins.
    let prefs = json!({"hints": [{"name": "gpt-4o"}]});
    assert_eq!(
        choose_model(Some(&prefs), &allowed, "gpt-4o"),
        "gpt-4o-mini"
    );
    assert_eq!(choose_model(None, &allowed, "gpt-4o"), "gpt-4o-mini");
    let prefs = json!({"hints": [{"name": "claude"}]});
    assert_eq!(
        choose_model(Some(&prefs), &allowed, "gpt-4o"),
        "gpt-4o-mini"
    );
}

#[test]
fn priorities_break_ties_among_matches() {
    let allowed = names(&["claude-3-opus", "claude-3-haiku", "claude-3-5-sonnet"]);
    let hint = |extra: Value| {
        let mut prefs = json!({"hints": [{"name": "claude"}]});
        if let (Some(p), Some(e)) = (prefs.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        prefs
    };
    let fast = hint(json!({"speedPriority": 0.9, "intelligencePriority": 0.2}));
    assert_eq!(
        choose_model(Some(&fast), &allowed, "gpt-4o"),
        "claude-3-haiku"
    );
    let smart = hint(json!({"intelligencePriority": 0.9, "costPriority": 0.1}));
    assert_eq!(
        choose_model(Some(&smart), &allowed, "gpt-4o"),
        "claude-3-opus"
    );
    // No priorities: the first match in list order.
    assert_eq!(
        choose_model(Some(&hint(json!({}))), &allowed, "gpt-4o"),
        "claude-3-opus"
    );
}

#[test]
fn priorities_alone_choose_among_allowed_models_when_names_say_something() {
    let allowed = names(&["gpt-4o", "gpt-4o-mini", "gemini-2.5-pro"]);
    let cheap = json!({"costPriority": 1.0});
    assert_eq!(
        choose_model(Some(&cheap), &allowed, "gpt-4o"),
        "gpt-4o-mini"
    );
    let smart = json!({"intelligencePriority": 1.0});
    assert_eq!(
        choose_model(Some(&smart), &allowed, "gpt-4o"),
        "gemini-2.5-pro"
    );
    // Balanced needs score every class alike: the user's default stays.
    let balanced =
        json!({"intelligencePriority": 0.5, "speedPriority": 0.25, "costPriority": 0.25});
    assert_eq!(choose_model(Some(&balanced), &allowed, "gpt-4o"), "gpt-4o");
    // Names that say nothing about size leave the default in place.
    let opaque = names(&["alpha", "beta"]);
    assert_eq!(choose_model(Some(&cheap), &opaque, "beta"), "beta");
}

#[test]
fn capability_reads_whole_tokens_and_sizes() {
    assert_eq!(capability("gemini-1.0"), 0.5, "gemini is not mini");
    assert_eq!(capability("gpt-4o-mini"), 0.0);
    assert_eq!(capability("llama3.1:8b"), 0.0);
    assert_eq!(capability("qwen2.5-32b-instruct"), 0.5);
    assert_eq!(capability("llama-3.1-405b"), 1.0);
    assert_eq!(capability("claude-opus-4-1"), 1.0);
    assert_eq!(capability("claude-3-5-sonnet"), 0.5);
}

// ---- OpenAI mapping

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
fn openai_request_maps_every_part() {
    let body = openai::request(&full_params(), "gpt-4o", 300).unwrap();
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
    let body = openai::request(&params, "m", 10).unwrap();
    assert_eq!(
        body,
        json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 10})
    );
}

#[test]
fn openai_request_refuses_what_it_cannot_carry() {
    let ogg = json!({"messages": [{"role": "user", "content": {"type": "audio", "data": "AA==", "mimeType": "audio/ogg"}}]});
    let err = openai::request(&ogg, "m", 10).unwrap_err();
    assert!(
        matches!(&err, ProviderError::Unsupported(m) if m.contains("audio/ogg")),
        "{err:?}"
    );
    let no_role = json!({"messages": [{"content": {"type": "text", "text": "x"}}]});
    assert!(matches!(
        openai::request(&no_role, "m", 10),
        Err(ProviderError::InvalidParams(_))
    ));
    let bad_type = json!({"messages": [{"role": "user", "content": {"type": "video"}}]});
    assert!(matches!(
        openai::request(&bad_type, "m", 10),
        Err(ProviderError::InvalidParams(_))
    ));
    let bad_mode =
        json!({"messages": [], "tools": [{"name": "t"}], "toolChoice": {"mode": "always"}});
    assert!(matches!(
        openai::request(&bad_mode, "m", 10),
        Err(ProviderError::InvalidParams(_))
    ));
}

#[test]
fn max_tokens_never_exceeds_the_request() {
    assert_eq!(
        effective_max_tokens(&json!({"maxTokens": 100}), 4000).unwrap(),
        100
    );
    assert_eq!(
        effective_max_tokens(&json!({"maxTokens": 100}), 50).unwrap(),
        50
    );
    assert_eq!(effective_max_tokens(&json!({}), 50).unwrap(), 50);
    assert!(matches!(
        effective_max_tokens(&json!({"maxTokens": 0}), 50),
        Err(ProviderError::InvalidParams(_))
    ));
}

#[test]
fn openai_answer_maps_text_tool_calls_and_stop_reasons() {
    let answer = json!({"model": "gpt-4o-2024-08-06", "choices": [{"message": {"role": "assistant",
        "content": "Hello"}, "finish_reason": "stop"}]});
    assert_eq!(
        openai::result(&answer, "gpt-4o").unwrap(),
        json!({"role": "assistant", "content": {"type": "text", "text": "Hello"},
            "model": "gpt-4o-2024-08-06", "stopReason": "endTurn"})
    );
    let answer = json!({"choices": [{"message": {"content": null, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "a", "arguments": "{\"x\":1}"}},
        {"type": "function", "function": {"name": "b", "arguments": ""}}
    ]}, "finish_reason": "tool_calls"}]});
    assert_eq!(
        openai::result(&answer, "m").unwrap(),
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
            openai::result(&answer, "m").unwrap()["stopReason"],
            expected
        );
    }
    let empty = json!({"choices": [{"message": {"content": null}}]});
    let result = openai::result(&empty, "m").unwrap();
    assert_eq!(result["content"], json!({"type": "text", "text": ""}));
    assert!(result.get("stopReason").is_none());
}

#[test]
fn openai_answer_with_bad_arguments_or_shape_is_malformed() {
    let bad_args = json!({"choices": [{"message": {"tool_calls": [
        {"id": "c", "function": {"name": "a", "arguments": "{not json"}}]}}]});
    let err = openai::result(&bad_args, "m").unwrap_err();
    assert!(
        matches!(&err, ProviderError::Malformed(m) if m.contains("`a`")),
        "{err:?}"
    );
    let not_object = json!({"choices": [{"message": {"tool_calls": [
        {"id": "c", "function": {"name": "a", "arguments": "[1]"}}]}}]});
    assert!(matches!(
        openai::result(&not_object, "m"),
        Err(ProviderError::Malformed(_))
    ));
    assert!(matches!(
        openai::result(&json!({"data": []}), "m"),
        Err(ProviderError::Malformed(_))
    ));
    let said = openai::result(&json!({"error": {"message": "upstream down"}}), "m").unwrap_err();
    assert!(said.to_string().contains("upstream down"), "{said}");
}

// ---- Anthropic mapping

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
    let body = anthropic::request(&params, "claude-x", 300).unwrap();
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
        let body = anthropic::request(&params, "m", 1).unwrap();
        assert_eq!(body["tool_choice"], json!({"type": expected}));
        assert_eq!(
            body["tools"],
            json!([{"name": "t", "input_schema": {"type": "object"}}])
        );
    }
}

#[test]
fn anthropic_refuses_audio_clearly() {
    let err = anthropic::request(&full_params(), "m", 10).unwrap_err();
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
        anthropic::result(&answer, "m").unwrap(),
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
        let result = anthropic::result(&answer, "m").unwrap();
        assert_eq!(result["stopReason"], expected);
        assert_eq!(result["model"], "m");
    }
    assert!(matches!(
        anthropic::result(&json!({"choices": []}), "m"),
        Err(ProviderError::Malformed(_))
    ));
    let no_input = json!({"content": [{"type": "tool_use", "id": "t", "name": "n"}]});
    assert!(matches!(
        anthropic::result(&no_input, "m"),
        Err(ProviderError::Malformed(_))
    ));
}

// ---- errors

#[test]
fn provider_error_messages_are_extracted_and_truncated() {
    assert_eq!(
        error_message(br#"{"error": {"message": "bad model"}}"#),
        "bad model"
    );
    assert_eq!(
        error_message(br#"{"error": "model not found"}"#),
        "model not found"
    );
    assert_eq!(error_message(b"  Bad Gateway \n"), "Bad Gateway");
    assert_eq!(error_message(b""), "no error message");
    let long = format!(r#"{{"error": {{"message": "{}"}}}}"#, "é".repeat(1000));
    let message = truncate(&error_message(long.as_bytes()), MAX_ERROR_CHARS);
    assert_eq!(message.chars().count(), MAX_ERROR_CHARS + 1);
    assert!(message.ends_with('…'));
    assert_eq!(truncate("short", MAX_ERROR_CHARS), "short");
}

#[test]
fn retry_after_reads_seconds_or_milliseconds() {
    let mut headers = HeaderMap::new();
    assert_eq!(retry_after(&headers), None);
    headers.insert("retry-after-ms", HeaderValue::from_static("1500"));
    assert_eq!(retry_after(&headers), Some(Duration::from_millis(1500)));
    headers.insert(RETRY_AFTER, HeaderValue::from_static("7"));
    assert_eq!(retry_after(&headers), Some(Duration::from_secs(7)));
    headers.insert(
        RETRY_AFTER,
        HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
    );
    assert_eq!(retry_after(&headers), Some(Duration::from_millis(1500)));
    headers.insert(RETRY_AFTER, HeaderValue::from_static("1e300"));
    assert_eq!(retry_after(&headers), Some(Duration::from_millis(1500)));
}

#[test]
fn user_messages_say_what_to_do() {
    let cases = [
        (
            ProviderError::Unauthorized {
                secret: Some("openai".into()),
            },
            "wharf secret set openai",
        ),
        (ProviderError::Unauthorized { secret: None }, "apiKeySecret"),
        (
            ProviderError::RateLimited {
                retry_after: Some(Duration::from_secs(7)),
            },
            "try again in 7 seconds",
        ),
        (
            ProviderError::RateLimited { retry_after: None },
            "try again",
        ),
        (
            ProviderError::Timeout(Duration::from_millis(300)),
            "0.3 seconds",
        ),
        (
            ProviderError::Timeout(Duration::from_secs(120)),
            "within 120 seconds",
        ),
        (
            ProviderError::Unreachable("h: Connection refused".into()),
            "baseUrl",
        ),
        (
            ProviderError::Http {
                status: 404,
                message: "no".into(),
            },
            "model name",
        ),
        (
            ProviderError::Http {
                status: 503,
                message: "down".into(),
            },
            "try again later",
        ),
        (ProviderError::Malformed("no `choices[0]`".into()), "kind"),
        (
            ProviderError::InvalidParams("`messages` must be a list".into()),
            "invalid sampling request",
        ),
    ];
    for (err, expected) in cases {
        let message = err.user_message();
        assert!(message.contains(expected), "{err:?}: {message}");
        assert!(message.ends_with('.'), "{message}");
    }
}

#[test]
fn loopback_endpoints_bypass_proxies() {
    assert!(is_loopback("http://127.0.0.1:11434/v1"));
    assert!(is_loopback("http://localhost:8080/v1"));
    assert!(is_loopback("http://[::1]:8080"));
    assert!(!is_loopback("https://api.openai.com/v1"));
}
