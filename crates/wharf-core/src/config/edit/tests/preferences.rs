//! The preferences the app writes into the file: a key in a server's entry, and the sampling provider. Each edit is
//! made in place, keeping every other key, comment and line.

use serde_json::{json, Value};

use super::super::ConfigDocument;
use crate::config::jsonc;
use crate::model::ProviderConfig;

/// The text of a document read from `text` with `key: value` set in `server`'s entry.
fn set_key(text: &str, server: &str, key: &str, value: Value) -> Result<String, String> {
    let (_dir, mut doc) = doc_of(text)?;
    doc.set_server_key(server, key, value)
        .map_err(|e| e.to_string())?;
    Ok(doc.text().to_string())
}

fn roots_off(text: &str, server: &str) -> Result<String, String> {
    set_key(text, server, "roots", Value::Bool(false))
}

fn with_provider(text: &str, provider: Option<&ProviderConfig>) -> Result<String, String> {
    let (_dir, mut doc) = doc_of(text)?;
    doc.set_sampling_provider(provider)
        .map_err(|e| e.to_string())?;
    Ok(doc.text().to_string())
}

fn doc_of(text: &str) -> Result<(tempfile::TempDir, ConfigDocument), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let path = dir.path().join("mcp.json");
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    let doc = ConfigDocument::load(&path).map_err(|e| e.to_string())?;
    Ok((dir, doc))
}

fn provider(value: Value) -> ProviderConfig {
    ProviderConfig::from_json(&value).expect("a valid provider")
}

#[test]
fn the_preference_is_written_into_the_entry_and_every_other_key_is_kept() {
    let text = r#"{
  "$schema": "x",
  "servers": {
"b": {"command": "b", "env": {"K": "V"}},
"a": {"command": "a", "roots": true, "disabled": false}
  },
  "inputs": []
}"#;
    let out = roots_off(text, "a").expect("edited");
    let value: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(value["servers"]["a"]["roots"], false);
    assert_eq!(value["servers"]["a"]["command"], "a");
    assert_eq!(value["servers"]["a"]["disabled"], false);
    assert_eq!(
        value["servers"]["b"],
        serde_json::json!({"command": "b", "env": {"K": "V"}})
    );
    assert_eq!(value["$schema"], "x");
    assert_eq!(value["inputs"], serde_json::json!([]));
    // The order of keys and servers is the user's.
    let servers: Vec<&String> = value["servers"]
        .as_object()
        .expect("servers")
        .keys()
        .collect();
    assert_eq!(servers, ["b", "a"]);
    let top: Vec<&String> = value.as_object().expect("top").keys().collect();
    assert_eq!(top, ["$schema", "servers", "inputs"]);
    // Edited in place: the text around the value is the file's, byte for byte.
    assert_eq!(out, text.replace("\"roots\": true", "\"roots\": false"));

    let back = set_key(&out, "a", "roots", Value::Bool(true)).expect("edited");
    let value: Value = serde_json::from_str(&back).expect("JSON");
    assert_eq!(value["servers"]["a"]["roots"], true);
}

#[test]
fn comments_and_trailing_commas_are_kept() {
    let text =
        "{\n  // mine\n  \"servers\": {\n    \"a\": { \"command\": \"a\", /* why */ },\n  },\n}\n";
    let out = roots_off(text, "a").expect("edited");
    assert_eq!(
        out,
        text.replace("\"a\", /* why */", "\"a\", \"roots\": false, /* why */")
    );
}

#[test]
fn claude_desktop_files_are_edited_under_mcp_servers() {
    let text = r#"{"mcpServers": {"fs": {"command": "node"}}, "other": 1}"#;
    let out = roots_off(text, "fs").expect("edited");
    let value: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(value["mcpServers"]["fs"]["roots"], false);
    assert_eq!(value["other"], 1);
    assert!(value.get("servers").is_none());
}

#[test]
fn an_unknown_server_or_a_broken_file_is_an_error() {
    let text = r#"{"servers": {"a": {"command": "a"}}}"#;
    assert!(roots_off(text, "zz").expect_err("unknown").contains("zz"));
    assert!(roots_off("[1]", "a").is_err());
    assert!(roots_off("{", "a").is_err());
    assert!(roots_off(r#"{"servers": {"a": 3}}"#, "a").is_err());
}

#[test]
fn the_provider_is_written_under_sampling_and_every_other_key_is_kept() {
    let text = r#"{
  "$schema": "x",
  "servers": {"b": {"command": "b", "env": {"K": "V"}}, "a": {"url": "http://a"}},
  "inputs": [{"id": "k"}]
}"#;
    let p = provider(json!({"kind": "openai", "baseUrl": "http://127.0.0.1:9/v1/", "model": "m"}));
    let out = with_provider(text, Some(&p)).expect("edited");
    let value: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        value["sampling"]["provider"],
        json!({"kind": "openai", "baseUrl": "http://127.0.0.1:9/v1", "model": "m", "models": []})
    );
    assert_eq!(
        value["servers"]["b"],
        json!({"command": "b", "env": {"K": "V"}})
    );
    assert_eq!(value["inputs"], json!([{"id": "k"}]));
    let top: Vec<&String> = value.as_object().expect("top").keys().collect();
    assert_eq!(top, ["$schema", "servers", "inputs", "sampling"]);
    let servers: Vec<&String> = value["servers"]
        .as_object()
        .expect("servers")
        .keys()
        .collect();
    assert_eq!(servers, ["b", "a"]);
    // Added in place: what was there is kept byte for byte.
    assert!(out.starts_with(text.trim_end_matches("\n}")), "{out}");

    // Replaced in place, with the key's name (never a key), and the rest of "sampling" kept.
    let text = r#"{"sampling": {"provider": {"kind": "openai", "model": "old"}, "other": 1}, "servers": {}}"#;
    let p = provider(
        json!({"kind": "anthropic", "model": "claude", "apiKeySecret": "anthropic", "models": ["a", "b"]}),
    );
    let out = with_provider(text, Some(&p)).expect("edited");
    let value: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        value["sampling"],
        json!({
            "provider": {"kind": "anthropic", "baseUrl": "https://api.anthropic.com", "model": "claude",
                         "apiKeySecret": "anthropic", "models": ["a", "b"]},
            "other": 1
        })
    );
    let top: Vec<&String> = value.as_object().expect("top").keys().collect();
    assert_eq!(top, ["sampling", "servers"]);
    // What was written reads back as the same provider.
    let back = ProviderConfig::from_json(&value["sampling"]["provider"]).expect("valid");
    assert_eq!(back, p);
}

#[test]
fn comments_are_kept_when_the_provider_changes() {
    let text = "{\n  // mine\n  \"sampling\": {\n    \"provider\": {\"kind\": \"openai\", \"model\": \"old\"}, // old\n    /* other */\n  },\n}\n";
    let p = provider(json!({"kind": "openai", "model": "new"}));
    let out = with_provider(text, Some(&p)).expect("edited");
    let value = jsonc::parse(&out).expect("JSONC");
    assert_eq!(value["sampling"]["provider"]["model"], "new");
    for kept in ["// mine", "// old", "/* other */", "  },\n}\n"] {
        assert!(out.contains(kept), "{kept} lost: {out}");
    }
    let out = with_provider(&out, None).expect("removed");
    assert_eq!(out, "{\n  // mine\n  // old\n  /* other */\n}\n");
}

#[test]
fn removing_the_provider_keeps_the_rest_of_sampling_or_drops_an_empty_one() {
    let text = r#"{"servers": {}, "sampling": {"provider": {"kind": "openai", "model": "m"}, "other": 1}}"#;
    let out = with_provider(text, None).expect("edited");
    let value: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(value["sampling"], json!({"other": 1}));

    let text = r#"{"servers": {}, "sampling": {"provider": {"kind": "openai", "model": "m"}}}"#;
    let value: Value =
        serde_json::from_str(&with_provider(text, None).expect("edited")).expect("JSON");
    assert_eq!(value, json!({"servers": {}}));

    let text = r#"{"servers": {}}"#;
    let value: Value =
        serde_json::from_str(&with_provider(text, None).expect("edited")).expect("JSON");
    assert_eq!(value, json!({"servers": {}}));
}

#[test]
fn a_broken_file_is_an_error_and_left_alone() {
    let p = provider(json!({"kind": "openai", "model": "m"}));
    assert!(with_provider("{", Some(&p)).is_err());
    assert!(with_provider("[1]", Some(&p)).is_err());
    assert!(with_provider(r#"{"sampling": 3}"#, Some(&p))
        .expect_err("not an object")
        .contains("sampling"));
    assert!(with_provider(r#"{"sampling": []}"#, None).is_err());
}

fn with_chat_model(text: &str, model: &str) -> Result<String, String> {
    let (_dir, mut doc) = doc_of(text)?;
    doc.set_chat_model(model).map_err(|e| e.to_string())?;
    Ok(doc.text().to_string())
}

#[test]
fn the_chat_model_is_set_in_place_in_chat_s_own_provider() {
    let text = r#"{
  // the model for chat
  "chat": {"provider": {"kind": "openai", "baseUrl": "http://127.0.0.1:11434/v1", "model": "qwen3"}, "maxSteps": 9},
  "sampling": {"provider": {"kind": "openai", "baseUrl": "http://127.0.0.1:11434/v1", "model": "small"}},
  "servers": {}
}"#;
    let out = with_chat_model(text, "llama3.2").expect("edited");
    assert_eq!(out, text.replace("\"qwen3\"", "\"llama3.2\""));
}

#[test]
fn a_chat_sharing_the_sampling_provider_gets_its_own_copy_and_sampling_keeps_its_model() {
    let text = r#"{
  "servers": {}, // none yet
  "sampling": {"provider": {"kind": "anthropic", "model": "claude-a", "apiKeySecret": "anthropic-key"}}
}"#;
    let out = with_chat_model(text, "claude-b").expect("edited");
    assert!(out.contains("// none yet"), "{out}");
    let value = jsonc::parse(&out).expect("JSON");
    assert_eq!(value["sampling"]["provider"]["model"], "claude-a");
    assert_eq!(
        value["chat"]["provider"],
        json!({"kind": "anthropic", "model": "claude-b", "apiKeySecret": "anthropic-key"})
    );
}

#[test]
fn a_chat_model_needs_a_provider_in_the_file() {
    let err = with_chat_model(r#"{"servers": {}}"#, "m").expect_err("no provider");
    assert!(err.contains("names no model provider"), "{err}");
    let err = with_chat_model(r#"{"servers": {}, "chat": {"provider": "x"}}"#, "m")
        .expect_err("not an object");
    assert!(err.contains("chat.provider"), "{err}");
}
