//! The scripted model provider (`tests/fixtures/chat_provider.py`) as a test drives it: a script of replies, and
//! every request it received.

use std::path::PathBuf;
use std::process::Command;

use serde_json::{json, Value};

use super::peers::{fixture, Peer};

pub struct ChatProvider {
    _peer: Peer,
    dir: tempfile::TempDir,
    pub base_url: String,
}

impl ChatProvider {
    /// Starts the provider with `replies` (see the fixture's docstring), written 7 bytes at a time.
    pub fn start(replies: Value) -> ChatProvider {
        let dir = tempfile::tempdir().unwrap();
        let provider = |dir: &tempfile::TempDir| {
            let mut cmd = Command::new("python3");
            cmd.arg(fixture("chat_provider.py"))
                .arg(dir.path().join("script.json"))
                .arg(dir.path().join("requests.jsonl"));
            cmd
        };
        std::fs::write(
            dir.path().join("script.json"),
            json!({"chunk": 7, "replies": replies}).to_string(),
        )
        .unwrap();
        let peer = Peer::start(provider(&dir), "http://127.0.0.1:");
        let base_url = peer.ready_line.trim().to_string();
        ChatProvider {
            _peer: peer,
            dir,
            base_url,
        }
    }

    /// Replaces the script: request n (counted from the provider's start) gets `replies[n]` from now on.
    #[allow(dead_code)] // Only some of the test binaries that share this file rewrite the script.
    pub fn script(&self, replies: Value) {
        std::fs::write(
            self.dir.path().join("script.json"),
            json!({"chunk": 7, "replies": replies}).to_string(),
        )
        .unwrap();
    }

    /// Replaces the script, and answers Ollama's `POST /api/show` with `capabilities` (model name -> list).
    #[allow(dead_code)] // Only the tests of tool marking use it.
    pub fn script_as_ollama(&self, replies: Value, capabilities: Value) {
        std::fs::write(
            self.dir.path().join("script.json"),
            json!({"chunk": 7, "replies": replies, "capabilities": capabilities}).to_string(),
        )
        .unwrap();
    }

    /// The `chat` object of mcp.json for this provider, in the flavour `kind` (`openai` or `anthropic`).
    pub fn chat_config(&self, kind: &str) -> Value {
        json!({"provider": {"kind": kind, "baseUrl": self.base_url, "model": "scripted"}})
    }

    fn record_path(&self) -> PathBuf {
        self.dir.path().join("requests.jsonl")
    }

    /// Every line the provider recorded: requests (`n`, `path`, `body`) and disconnections.
    pub fn records(&self) -> Vec<Value> {
        std::fs::read_to_string(self.record_path())
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The request bodies, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.records()
            .into_iter()
            .filter(|r| r.get("body").is_some())
            .map(|r| r["body"].clone())
            .collect()
    }
}
