//! The models' sampling completions against fake OpenAI-compatible and Anthropic servers on loopback: the exact request
//! Wharf sends, the mapping of recorded answers (`tests/fixtures/providers/`), and every error a provider can cause.
//! The key used here must never show up in any error, whatever the provider echoes.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/fake_provider.rs"]
mod fake_provider;

use std::time::{Duration, Instant};

use fake_provider::{FakeProvider, Reply};
use serde_json::{json, Value};
use wharf_core::model::{model_for, Completion, ProviderConfig, ProviderError, ProviderKind};

/// The key the tests send; `openai_401.json` and `openai_500_echoes_key.json` echo it, as real providers do.
const KEY: &str = "sk-wharf-test-KEY-0123456789";
const TIMEOUT: Duration = Duration::from_secs(10);

fn config(kind: ProviderKind, base_url: &str) -> ProviderConfig {
    ProviderConfig {
        kind,
        base_url: base_url.to_string(),
        model: "default-model".into(),
        api_key_secret: Some("llm".into()),
        models: Vec::new(),
    }
}

/// `params` completed by `config`'s model, reached with `key`.
async fn complete(
    config: &ProviderConfig,
    key: Option<&str>,
    params: &Value,
    model: &str,
    max_tokens: u32,
    timeout: Duration,
) -> Result<Value, ProviderError> {
    let completion = Completion {
        params,
        model,
        max_tokens,
        timeout,
    };
    let message = model_for(config, key).complete(&completion).await?;
    Ok(serde_json::to_value(message).expect("a completion serializes"))
}

/// A request with everything the mapping has to carry: system prompt, text, an image, stop sequences, a tool.
fn picture_request() -> Value {
    json!({
        "systemPrompt": "You describe pictures in one sentence.",
        "messages": [{"role": "user", "content": [
            {"type": "text", "text": "What is in this picture?"},
            {"type": "image", "data": "iVBORw0KGgoAAAANSUhEUg==", "mimeType": "image/png"}
        ]}],
        "maxTokens": 200,
        "temperature": 0.3,
        "stopSequences": ["\n\n"],
        "tools": [{"name": "get_weather", "description": "Weather for a city",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}],
        "toolChoice": {"mode": "auto"}
    })
}

fn weather_request() -> Value {
    json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "Weather in Paris and London?"}}],
        "maxTokens": 1000,
        "tools": [{"name": "get_weather", "inputSchema": {"type": "object"}}]
    })
}

/// No rendering of the error (what the user, the log and the server may see) holds the key.
fn assert_key_hidden(err: &ProviderError) {
    for shown in [err.to_string(), format!("{err:?}"), err.user_message()] {
        assert!(!shown.contains(KEY), "the key leaked: {shown}");
    }
}

// ---- OpenAI-compatible

#[tokio::test]
async fn openai_gets_the_exact_request_and_its_text_answer_is_mapped() {
    let fake = FakeProvider::start(vec![Reply::Fixture("openai_text.json")]).await;
    let config = config(ProviderKind::Openai, &format!("{}/v1", fake.base));
    let result = complete(
        &config,
        Some(KEY),
        &picture_request(),
        "gpt-4o",
        150,
        TIMEOUT,
    )
    .await
    .unwrap();
    assert_eq!(
        result,
        json!({"role": "assistant", "content": {"type": "text", "text": "A tabby cat on a windowsill."},
            "model": "gpt-4o-2024-08-06", "stopReason": "endTurn"})
    );
    let request = fake.only_request();
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.headers["authorization"], format!("Bearer {KEY}"));
    assert_eq!(request.headers["content-type"], "application/json");
    assert!(!request.headers.contains_key("x-api-key"));
    assert_eq!(
        request.body,
        json!({
            "model": "gpt-4o",
            "messages": [
                {"role": "system", "content": "You describe pictures in one sentence."},
                {"role": "user", "content": [
                    {"type": "text", "text": "What is in this picture?"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUg=="}}
                ]}
            ],
            "max_tokens": 150,
            "temperature": 0.3,
            "stop": ["\n\n"],
            "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather for a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}],
            "tool_choice": "auto"
        })
    );
}

#[tokio::test]
async fn openai_tool_calls_become_tool_use_blocks() {
    let fake = FakeProvider::start(vec![Reply::Fixture("openai_tool_calls.json")]).await;
    let config = config(ProviderKind::Openai, &fake.base);
    let result = complete(
        &config,
        Some(KEY),
        &weather_request(),
        "gpt-4o",
        4000,
        TIMEOUT,
    )
    .await
    .unwrap();
    assert_eq!(
        result,
        json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "call_paris", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "call_london", "name": "get_weather", "input": {"city": "London"}}
        ], "model": "gpt-4o-2024-08-06", "stopReason": "toolUse"})
    );
    let request = fake.only_request();
    assert_eq!(request.path, "/chat/completions");
    // The server asked for 1000 tokens; the policy allowed 4000: the provider is asked for 1000.
    assert_eq!(request.body["max_tokens"], 1000);
    assert!(request.body.get("max_completion_tokens").is_none());
}

#[tokio::test]
async fn a_local_endpoint_without_a_key_gets_no_auth_header() {
    let fake = FakeProvider::start(vec![Reply::Fixture("openai_length_local.json")]).await;
    let mut config = config(ProviderKind::Openai, &format!("{}/v1/", fake.base));
    config.api_key_secret = None;
    let params = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Tell a story"}}],
        "maxTokens": 3});
    let result = complete(&config, None, &params, "llama3.1:8b", 3, TIMEOUT)
        .await
        .unwrap();
    assert_eq!(result["stopReason"], "maxTokens");
    assert_eq!(result["content"]["text"], "Once upon a");
    let request = fake.only_request();
    assert_eq!(request.path, "/v1/chat/completions");
    assert!(
        !request.headers.contains_key("authorization"),
        "{:?}",
        request.headers
    );
    assert_eq!(
        request.body,
        json!({"model": "llama3.1:8b", "messages": [{"role": "user", "content": "Tell a story"}], "max_tokens": 3})
    );
}

#[tokio::test]
async fn a_reasoning_model_gets_max_completion_tokens_on_the_second_try() {
    let fake = FakeProvider::start(vec![
        Reply::Fixture("openai_400_max_completion_tokens.json"),
        Reply::Fixture("openai_text.json"),
    ])
    .await;
    let config = config(ProviderKind::Openai, &fake.base);
    let result = complete(&config, Some(KEY), &weather_request(), "o3", 500, TIMEOUT)
        .await
        .unwrap();
    assert_eq!(result["stopReason"], "endTurn");
    let requests = fake.requests();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    assert_eq!(requests[0].body["max_tokens"], 500);
    assert!(requests[0].body.get("max_completion_tokens").is_none());
    assert_eq!(requests[1].body["max_completion_tokens"], 500);
    assert!(requests[1].body.get("max_tokens").is_none());
    assert_eq!(
        requests[1].headers["authorization"],
        format!("Bearer {KEY}")
    );
}

#[tokio::test]
async fn openai_bad_tool_arguments_are_malformed() {
    let fake = FakeProvider::start(vec![Reply::Fixture("openai_bad_arguments.json")]).await;
    let err = complete(
        &config(ProviderKind::Openai, &fake.base),
        Some(KEY),
        &weather_request(),
        "m",
        100,
        TIMEOUT,
    )
    .await
    .unwrap_err();
    assert!(
        matches!(&err, ProviderError::Malformed(m) if m.contains("get_weather")),
        "{err:?}"
    );
}

// ---- Anthropic

#[tokio::test]
async fn anthropic_gets_the_exact_request_and_its_text_answer_is_mapped() {
    let fake = FakeProvider::start(vec![Reply::Fixture("anthropic_text.json")]).await;
    let config = config(ProviderKind::Anthropic, &fake.base);
    let result = complete(
        &config,
        Some(KEY),
        &picture_request(),
        "claude-sonnet-4-20250514",
        150,
        TIMEOUT,
    )
    .await
    .unwrap();
    assert_eq!(
        result,
        json!({"role": "assistant", "content": {"type": "text", "text": "A tabby cat on a windowsill."},
            "model": "claude-sonnet-4-20250514", "stopReason": "endTurn"})
    );
    let request = fake.only_request();
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.headers["x-api-key"], KEY);
    assert_eq!(request.headers["anthropic-version"], "2023-06-01");
    assert_eq!(request.headers["content-type"], "application/json");
    assert!(!request.headers.contains_key("authorization"));
    assert_eq!(
        request.body,
        json!({
            "model": "claude-sonnet-4-20250514",
            "max_tokens": 150,
            "system": "You describe pictures in one sentence.",
            "messages": [{"role": "user", "content": [
                {"type": "text", "text": "What is in this picture?"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                    "data": "iVBORw0KGgoAAAANSUhEUg=="}}
            ]}],
            "temperature": 0.3,
            "stop_sequences": ["\n\n"],
            "tools": [{"name": "get_weather", "description": "Weather for a city",
                "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}],
            "tool_choice": {"type": "auto"}
        })
    );
}

#[tokio::test]
async fn anthropic_tool_use_and_stop_sequence_are_mapped() {
    let fake = FakeProvider::start(vec![
        Reply::Fixture("anthropic_tool_use.json"),
        Reply::Fixture("anthropic_stop_sequence.json"),
    ])
    .await;
    // A base URL that already ends in /v1 is not given a second one.
    let config = config(ProviderKind::Anthropic, &format!("{}/v1", fake.base));
    let result = complete(
        &config,
        Some(KEY),
        &weather_request(),
        "claude-sonnet-4",
        1000,
        TIMEOUT,
    )
    .await
    .unwrap();
    assert_eq!(
        result,
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "I'll check both cities."},
            {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "toolu_01B19q90qw90lq917835lq8", "name": "get_weather", "input": {"city": "London"}}
        ], "model": "claude-sonnet-4-20250514", "stopReason": "toolUse"})
    );
    let stopped = complete(
        &config,
        Some(KEY),
        &weather_request(),
        "claude-3-5-haiku",
        1000,
        TIMEOUT,
    )
    .await
    .unwrap();
    assert_eq!(stopped["stopReason"], "stopSequence");
    assert_eq!(
        stopped["content"],
        json!({"type": "text", "text": "First line"})
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests.iter().all(|r| r.path == "/v1/messages"),
        "{requests:#?}"
    );
}

#[tokio::test]
async fn anthropic_refuses_audio_before_sending_anything() {
    let fake = FakeProvider::start(vec![Reply::Fixture("anthropic_text.json")]).await;
    let params = json!({"messages": [{"role": "user", "content": {"type": "audio", "data": "UklGRg==",
        "mimeType": "audio/wav"}}], "maxTokens": 10});
    let err = complete(
        &config(ProviderKind::Anthropic, &fake.base),
        Some(KEY),
        &params,
        "m",
        10,
        TIMEOUT,
    )
    .await
    .unwrap_err();
    assert!(matches!(err, ProviderError::Unsupported(_)), "{err:?}");
    assert!(fake.requests().is_empty());
}

// ---- errors

#[tokio::test]
async fn unauthorized_names_the_secret_and_never_the_key() {
    for (kind, name) in [
        (ProviderKind::Openai, "openai_401.json"),
        (ProviderKind::Anthropic, "anthropic_401.json"),
    ] {
        let fake = FakeProvider::start(vec![Reply::Fixture(name)]).await;
        let err = complete(
            &config(kind, &fake.base),
            Some(KEY),
            &weather_request(),
            "m",
            100,
            TIMEOUT,
        )
        .await
        .unwrap_err();
        assert_eq!(
            err,
            ProviderError::Unauthorized {
                secret: Some("llm".into())
            }
        );
        assert!(
            err.user_message().contains("wharf secret set llm"),
            "{}",
            err.user_message()
        );
        assert_key_hidden(&err);
    }
}

#[tokio::test]
async fn rate_limits_carry_retry_after() {
    for (kind, name, secs) in [
        (ProviderKind::Openai, "openai_429.json", 7),
        (ProviderKind::Anthropic, "anthropic_429.json", 12),
    ] {
        let fake = FakeProvider::start(vec![Reply::Fixture(name)]).await;
        let err = complete(
            &config(kind, &fake.base),
            Some(KEY),
            &weather_request(),
            "m",
            100,
            TIMEOUT,
        )
        .await
        .unwrap_err();
        assert_eq!(
            err,
            ProviderError::RateLimited {
                retry_after: Some(Duration::from_secs(secs))
            }
        );
        assert!(
            err.user_message().contains(&format!("{secs} seconds")),
            "{}",
            err.user_message()
        );
        assert_key_hidden(&err);
    }
}

#[tokio::test]
async fn a_provider_that_never_answers_times_out() {
    let fake = FakeProvider::start(vec![Reply::Hang]).await;
    let timeout = Duration::from_millis(300);
    let started = Instant::now();
    let err = complete(
        &config(ProviderKind::Openai, &fake.base),
        Some(KEY),
        &weather_request(),
        "m",
        100,
        timeout,
    )
    .await
    .unwrap_err();
    assert_eq!(err, ProviderError::Timeout(timeout));
    assert!(started.elapsed() >= timeout);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // It did reach the server: this is a silent provider, not an unreachable one.
    assert_eq!(fake.requests().len(), 1);
    assert_key_hidden(&err);
}

#[tokio::test]
async fn a_body_that_is_not_the_expected_shape_is_malformed() {
    for (kind, name) in [
        (ProviderKind::Openai, "malformed_200.json"),
        (ProviderKind::Openai, "openai_wrong_shape_200.json"),
        (ProviderKind::Anthropic, "malformed_200.json"),
        (ProviderKind::Anthropic, "openai_text.json"),
    ] {
        let fake = FakeProvider::start(vec![Reply::Fixture(name)]).await;
        let err = complete(
            &config(kind, &fake.base),
            Some(KEY),
            &weather_request(),
            "m",
            100,
            TIMEOUT,
        )
        .await
        .unwrap_err();
        assert!(
            matches!(err, ProviderError::Malformed(_)),
            "{kind:?} {name}: {err:?}"
        );
        assert_key_hidden(&err);
    }
}

#[tokio::test]
async fn other_statuses_carry_the_providers_message_without_the_key() {
    let fake = FakeProvider::start(vec![Reply::Fixture("openai_500_echoes_key.json")]).await;
    let err = complete(
        &config(ProviderKind::Openai, &fake.base),
        Some(KEY),
        &weather_request(),
        "m",
        100,
        TIMEOUT,
    )
    .await
    .unwrap_err();
    let ProviderError::Http { status, message } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(*status, 500);
    assert!(
        message.starts_with("internal error while handling request"),
        "{message}"
    );
    assert_key_hidden(&err);

    let fake = FakeProvider::start(vec![Reply::Fixture("anthropic_529.json")]).await;
    let err = complete(
        &config(ProviderKind::Anthropic, &fake.base),
        Some(KEY),
        &weather_request(),
        "m",
        100,
        TIMEOUT,
    )
    .await
    .unwrap_err();
    assert_eq!(
        err,
        ProviderError::Http {
            status: 529,
            message: "Overloaded".into()
        }
    );
}

#[tokio::test]
async fn a_closed_port_is_unreachable() {
    // A port that was just free: bound, then closed.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let base = format!("http://127.0.0.1:{port}/v1");
    for kind in [ProviderKind::Openai, ProviderKind::Anthropic] {
        let err = complete(
            &config(kind, &base),
            Some(KEY),
            &weather_request(),
            "m",
            100,
            TIMEOUT,
        )
        .await
        .unwrap_err();
        let ProviderError::Unreachable(detail) = &err else {
            panic!("{err:?}");
        };
        assert!(detail.contains(&format!("127.0.0.1:{port}")), "{detail}");
        assert!(detail.to_lowercase().contains("refused"), "{detail}");
        assert!(
            err.user_message().contains("baseUrl"),
            "{}",
            err.user_message()
        );
        assert_key_hidden(&err);
    }
}
