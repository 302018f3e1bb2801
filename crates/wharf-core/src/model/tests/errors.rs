use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue, RETRY_AFTER};

use crate::model::http::{error_message, is_loopback, retry_after, truncate, MAX_ERROR_CHARS};

use super::*;

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
