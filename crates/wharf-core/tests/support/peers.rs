//! Shared by wharf-core's integration tests: the python fixture server and a host over it.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use wharf_core::broker::{Broker, DeclaredCapabilities, DeclineAll};
use wharf_core::{Config, EventSink, Host, HostOptions};

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// A stdio server definition running tests/fixtures/py_server.py with the peers' python.
pub fn py_server() -> Value {
    let peers = std::env::var_os("WHARF_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join(".peers"));
    let python = peers.join("py/bin/python");
    assert!(
        python.exists(),
        "{} missing: run scripts/deps.sh",
        python.display()
    );
    serde_json::json!({"command": python, "args": [repo().join("tests/fixtures/py_server.py")]})
}

pub fn config(servers: Value) -> Config {
    let text = serde_json::json!({ "servers": servers }).to_string();
    Config::parse(Path::new("test.json"), &text, &|_| None).unwrap()
}

pub fn host(servers: Value) -> Host {
    let broker = Broker::new(DeclaredCapabilities::default(), Arc::new(DeclineAll));
    Host::new(
        config(servers),
        broker,
        EventSink::discard(),
        HostOptions::default(),
    )
}
