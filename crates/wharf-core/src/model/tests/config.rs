use super::*;
use crate::model::api_key::ApiKey;

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
        assert_eq!(err.key.as_deref(), Some(key));
        let err = err.to_string();
        assert!(err.contains(key), "{err}");
        assert!(err.contains("wharf secret set"), "{err}");
        assert!(!err.contains("sk-live"), "{err}");
    }
    let err = ProviderConfig::from_json(&json!({
        "kind": "openai", "model": "m", "baseUrl": "https://user:sk-live-secret@example.com/v1"
    }))
    .unwrap_err();
    assert_eq!(err.key.as_deref(), Some("baseUrl"));
    assert!(!err.to_string().contains("sk-live"), "{err}");
}

#[test]
fn config_errors_name_the_field() {
    let cases = [
        (json!([]), None, "must be an object"),
        (json!({"model": "m"}), Some("kind"), "kind is missing"),
        (
            json!({"kind": "gemini", "model": "m"}),
            Some("kind"),
            "`gemini` is not a provider kind",
        ),
        (json!({"kind": "openai"}), Some("model"), "model is missing"),
        (
            json!({"kind": "openai", "model": ""}),
            Some("model"),
            "model must be a non-empty string",
        ),
        (
            json!({"kind": "openai", "model": "m", "baseUrl": "ftp://x"}),
            Some("baseUrl"),
            "baseUrl",
        ),
        (
            json!({"kind": "openai", "model": "m", "baseUrl": "not a url"}),
            Some("baseUrl"),
            "baseUrl",
        ),
        (
            json!({"kind": "openai", "model": "m", "models": "m"}),
            Some("models"),
            "models must be a list",
        ),
        (
            json!({"kind": "openai", "model": "m", "models": [1]}),
            Some("models"),
            "models must hold",
        ),
        (
            json!({"kind": "openai", "model": "m", "apiKeySecret": 3}),
            Some("apiKeySecret"),
            "apiKeySecret",
        ),
    ];
    for (input, key, expected) in cases {
        let err = ProviderConfig::from_json(&input).unwrap_err();
        assert_eq!(err.key.as_deref(), key, "{input}");
        assert!(err.message.contains(expected), "{input}: {err}");
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
