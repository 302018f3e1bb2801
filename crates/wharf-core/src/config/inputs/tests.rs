//! The inputs a configuration uses, found as both front ends find them.

use super::*;
use serde_json::json;
use std::cell::RefCell;

/// A keyring that holds `stored` and records every name it was asked about.
struct FakeKeyring {
    stored: Vec<&'static str>,
    asked: RefCell<Vec<String>>,
}

impl FakeKeyring {
    fn new(stored: &[&'static str]) -> Self {
        FakeKeyring {
            stored: stored.to_vec(),
            asked: RefCell::new(Vec::new()),
        }
    }

    fn has(&self, id: &str) -> Result<bool, SecretError> {
        self.asked.borrow_mut().push(id.to_owned());
        // The real store refuses such names the same way.
        secrets::validate_name(&secrets::input_secret_name(id))?;
        Ok(self.stored.contains(&id))
    }
}

fn ids(found: &[MissingInput]) -> Vec<&str> {
    found.iter().map(|m| m.id.as_str()).collect()
}

#[test]
fn the_servers_inputs_without_a_value_are_found_with_their_declarations() {
    let root = json!({
        "servers": {
            "web": {"url": "http://127.0.0.1:3011/mcp",
                    "headers": {"X-Key": "${input:web-key}", "X-Both": "${input:user}:${input:web-key}"}},
            "fs": {"command": "node", "args": ["--token=${input:user}", "${input:port}"],
                   "env": {"TOKEN": "${env:HOME}"}},
            "off": {"command": "x", "args": ["${input:disabled-only}"], "disabled": true},
            "plain": {"command": "y", "cwd": "/tmp"}
        },
        "inputs": [
            {"id": "web-key", "type": "promptString", "description": "Key for web", "password": true},
            {"id": "user", "type": "promptString", "description": "Your user name", "password": false},
            {"id": "unused", "type": "promptString", "description": "Never used"}
        ]
    });
    let keyring = FakeKeyring::new(&["port"]);
    let found = missing(&root, &|id| keyring.has(id)).expect("found");
    assert_eq!(
        found,
        [
            MissingInput {
                id: "web-key".into(),
                description: Some("Key for web".into()),
                password: true,
                servers: vec!["web".into()],
            },
            MissingInput {
                id: "user".into(),
                description: Some("Your user name".into()),
                password: false,
                servers: vec!["web".into(), "fs".into()],
            },
        ]
    );
    // Each used id asked once; a disabled server's and an undeclared-but-unused one's never.
    assert_eq!(*keyring.asked.borrow(), ["web-key", "user", "port"]);
}

#[test]
fn an_undeclared_input_is_hidden_and_has_no_description() {
    let root = json!({"mcpServers": {"a": {"command": "a", "env": {"K": "${input:k}"}}}});
    let keyring = FakeKeyring::new(&[]);
    let found = missing(&root, &|id| keyring.has(id)).expect("found");
    assert_eq!(
        found,
        [MissingInput {
            id: "k".into(),
            description: None,
            password: true,
            servers: vec!["a".into()],
        }]
    );
}

#[test]
fn nothing_is_missing_when_every_value_is_stored_or_no_input_is_used() {
    let root = json!({"servers": {"a": {"command": "a", "args": ["${input:k}"]}}});
    let keyring = FakeKeyring::new(&["k"]);
    assert!(missing(&root, &|id| keyring.has(id))
        .expect("found")
        .is_empty());

    // No input used: the keyring is not asked at all.
    let keyring = FakeKeyring::new(&[]);
    for root in [
        json!({"servers": {"a": {"command": "a", "args": ["${env:X}", "${input:", "$input:k", "${input:}"]}}}),
        json!({"servers": {}}),
        json!({"inputs": [{"id": "k"}]}),
        json!([1, 2]),
        Value::Null,
    ] {
        assert!(missing(&root, &|id| keyring.has(id))
            .expect("found")
            .is_empty());
        assert!(used_inputs(&root).is_empty(), "{root}");
    }
    assert!(keyring.asked.borrow().is_empty());
}

#[test]
fn an_id_that_cannot_name_a_secret_is_left_out_and_an_unavailable_keyring_is_an_error() {
    let root =
        json!({"servers": {"a": {"command": "a", "args": ["${input:bad\nid}", "${input:good}"]}}});
    let keyring = FakeKeyring::new(&[]);
    let found = missing(&root, &|id| keyring.has(id)).expect("found");
    assert_eq!(ids(&found), ["good"]);

    let error = missing(&root, &|_| {
        Err(SecretError::Unavailable("no session bus".into()))
    })
    .expect_err("unavailable");
    assert!(matches!(error, SecretError::Unavailable(_)), "{error}");
}

#[test]
fn ids_are_found_in_every_string_in_order_once_each() {
    let mut found = Vec::new();
    secrets::collect_input_ids(
        &json!({"a": "${input:x}-${input:y}", "b": ["${input:x}", {"c": "${input:z}"}], "d": 3, "e": "${input:w"}),
        &mut found,
    );
    assert_eq!(found, ["x", "y", "z"]);
}

#[test]
fn the_file_is_read_as_jsonc_and_a_missing_or_broken_one_uses_no_input() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("mcp.json");
    assert!(read_document(&path).is_none());
    std::fs::write(&path, "{ not json").expect("write");
    assert!(read_document(&path).is_none());
    std::fs::write(
        &path,
        // JSONC, as VS Code writes it.
        "{\"servers\": {\"web\": {\"url\": \"http://x\", /* c */ \"headers\": {\"K\": \"${input:web-key}\"}}}, // c\n}",
    )
    .expect("write");
    let root = read_document(&path).expect("read");
    assert_eq!(
        used_inputs(&root),
        [("web-key".to_owned(), vec!["web".to_owned()])]
    );
}
