use serde_json::json;

use super::*;
use crate::config::Config;
use crate::secrets::Secret;

fn config(text: &str) -> Config {
    Config::parse(std::path::Path::new("c.json"), text, &|_| None).unwrap()
}

#[test]
fn config_values_and_bearer_tokens_are_masked() {
    let config = config(
        r#"{"servers": {"a": {"command": "x", "env": {"API_KEY": "sk-live-123456", "DEBUG": "1"}},
            "b": {"url": "http://h/mcp", "headers": {"X-Key": "hdr-secret-99"}}}}"#,
    );
    let redactor = Redactor::default();
    redactor.learn(&config);
    let line = "spawn env API_KEY=sk-live-123456 DEBUG=1, header X-Key: hdr-secret-99; Authorization: Bearer abc.def";
    let masked = redactor.redact(line);
    assert!(
        !masked.contains("sk-live-123456")
            && !masked.contains("hdr-secret-99")
            && !masked.contains("abc.def")
    );
    assert!(
        masked.contains("DEBUG=1"),
        "short values are not secrets: {masked}"
    );
    assert!(masked.contains("Bearer [redacted]"), "{masked}");
    assert!(matches!(redactor.redact("nothing here"), Cow::Borrowed(_)));
}

#[test]
fn records_keep_ordinary_values_and_lose_secret_ones() {
    let config = config(
        r#"{"servers": {"fs": {"command": "x", "env": {"ROOT": "/w/project", "MODE": "production",
              "GH": "ghp_abcdefghijkl1234567890", "DB_PASSWORD": "hunter2!",
              "GOOGLE_APPLICATION_CREDENTIALS": "/home/u/creds.json"}},
            "web": {"url": "http://h/mcp", "headers": {"Authorization": "Token tok-abcdef-123",
              "Accept-Language": "en-GB,en"}}}}"#,
    );
    let redactor = Redactor::default();
    redactor.learn(&config);
    let line = "root /w/project in production, creds in /home/u/creds.json; gh ghp_abcdefghijkl1234567890; db hunter2!; \
                invalid token tok-abcdef-123 (sent as Token tok-abcdef-123)";
    let record = redactor.redact_secrets(line);
    for kept in ["/w/project", "production", "/home/u/creds.json"] {
        assert!(record.contains(kept), "{kept} masked in {record}");
    }
    for secret in ["ghp_abcdefghijkl1234567890", "hunter2!", "tok-abcdef-123"] {
        assert!(!record.contains(secret), "{secret} in {record}");
    }
    let log = redactor.redact(line);
    assert!(
        !log.contains("/w/project") && !log.contains("production"),
        "{log}"
    );
}

#[test]
fn input_values_are_secrets_wherever_they_were_used() {
    let mut config = config(r#"{"servers": {"a": {"command": "x", "args": ["--flag"]}}}"#);
    config.input_values = vec![Secret::new("typed-into-the-keyring")];
    let redactor = Redactor::default();
    redactor.learn(&config);
    assert_eq!(
        redactor.redact_secrets("--key typed-into-the-keyring"),
        "--key [redacted]"
    );
    redactor.add_secret("a-token-from-sign-in");
    assert_eq!(
        redactor.redact_secrets("a-token-from-sign-in and typed-into-the-keyring"),
        "[redacted] and [redacted]"
    );
}

#[test]
fn credentials_in_fields_and_schemes_are_masked_without_knowing_them() {
    let redactor = Redactor::default();
    for (text, gone) in [
        (
            r#"{"access_token": "at-9f8e7d", "token_type": "Bearer"}"#,
            "at-9f8e7d",
        ),
        ("refresh_token=rt-123456&scope=a", "rt-123456"),
        ("client_secret: cs-abcdef", "cs-abcdef"),
        (
            "Authorization: Basic dXNlcjpwYXNzd29yZA==",
            "dXNlcjpwYXNzd29yZA==",
        ),
        ("authorization: bearer ey.J0.k", "ey.J0.k"),
        ("password=hunter22", "hunter22"),
        ("x-api-key: sk-ant-api03-abc", "sk-ant-api03-abc"),
    ] {
        let masked = redactor.redact_secrets(text);
        assert!(!masked.contains(gone), "{text} -> {masked}");
        assert!(masked.contains(MASK), "{masked}");
    }
    for prose in [
        "basic authentication is not enabled",
        "passwords are hashed",
        "the token_type is Bearer",
        "no bearer token was sent",
    ] {
        assert_eq!(redactor.redact_secrets(prose), prose);
    }
}

#[test]
fn json_records_are_masked_string_by_string() {
    let config = config(
        r#"{"servers": {"a": {"url": "http://h/mcp", "headers": {"X-Api-Key": "key-0123456789"}}}}"#,
    );
    let redactor = Redactor::default();
    redactor.learn(&config);
    let mut value = json!({"error": "HTTP 400: x-api-key: key-0123456789",
        "echo": {"key-0123456789": ["key-0123456789"]}, "n": 1});
    redactor.redact_json(&mut value);
    assert!(!value.to_string().contains("key-0123456789"), "{value}");
    assert_eq!(value["n"], 1);
}

mod fuzz {
    use proptest::prelude::*;

    use super::*;

    const SECRET: &str = "s3cr3t-value-xyz";

    fn around() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            "\\PC{0,6}",
            prop::sample::select(vec![
                "Bearer ",
                "bearer",
                "Basic ",
                "access_token",
                "\": \"",
                "=",
                ":",
                "\"",
                " ",
                "é",
                "\u{202e}",
                "password",
                "api-key: ",
                "&",
                "}",
            ])
            .prop_map(str::to_string),
        ];
        prop::collection::vec(piece, 0..8).prop_map(|p| p.concat())
    }

    proptest! {
        #[test]
        fn fuzz_a_known_secret_never_survives(before in around(), after in around()) {
            let config = Config {
                input_values: vec![Secret::new(SECRET)],
                ..Config::default()
            };
            let redactor = Redactor::default();
            redactor.learn(&config);
            let text = format!("{before}{SECRET}{after}");
            let masked = redactor.redact_secrets(&text);
            prop_assert!(!masked.contains(SECRET), "{:?} -> {:?}", text, masked);
            prop_assert!(!redactor.redact(&text).contains(SECRET));
        }

        #[test]
        fn fuzz_any_text_is_masked_without_panic(text in "\\PC{0,40}", more in around()) {
            let redactor = Redactor::default();
            let _ = redactor.redact(&format!("{text}{more}"));
        }
    }
}

#[test]
fn secrets_learned_at_run_time_are_masked_by_every_redactor() {
    // A token from a sign-in, an API key from the keyring: in no configuration, yet masked in both strengths, by a
    // redactor made before and one made after, and inside a Bearer header alone.
    let before = Redactor::default();
    learn_runtime_secret("runtime-token-7f3a9c1e");
    learn_runtime_secret("Bearer runtime-bearer-55d0e2");
    let after = Redactor::default();
    for r in [&before, &after] {
        let line = "echo: runtime-token-7f3a9c1e and runtime-bearer-55d0e2";
        assert_eq!(r.redact(line), "echo: [redacted] and [redacted]");
        assert_eq!(r.redact_secrets(line), "echo: [redacted] and [redacted]");
    }
    // Too short to be a secret worth garbling every line for.
    learn_runtime_secret("abc");
    assert_eq!(after.redact("abc"), "abc");
}

mod pieces;
