//! Property-based fuzzing of everything that reads input Wharf does not control: the MRTR driver, what the
//! transports rewrite before rmcp reads a server's message, the elicitation form model and its credential detector,
//! URL analysis, mcp.json parsing, root URIs, the workspace path check, and views' metadata and policy. (The stdio
//! line decoder is private: its target is the unit module `connection/stdio/transport/fuzz_tests.rs`.)
//!
//! Each property runs 256 cases under `cargo test`; `make fuzz` runs the same ones with many more for a bounded time
//! (PROPTEST_CASES). No property may panic on any input; those with a real invariant check it too.

// Tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod apps;
mod config;
mod credential;
mod form;
mod mrtr;
mod paths;
mod raw_message;
mod strategies;
mod url;

mod peers {
    use std::path::{Path, PathBuf};

    use serde_json::{json, Value};
    use wharf_core::Config;

    pub fn repo() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .canonicalize()
            .unwrap()
    }

    /// A stdlib-only python fixture from tests/fixtures as a stdio server definition.
    pub fn fixture_server(name: &str) -> Value {
        json!({"command": "python3", "args": [repo().join("tests/fixtures").join(name)]})
    }

    pub fn config(servers: Value) -> Config {
        let text = json!({ "servers": servers }).to_string();
        Config::parse(Path::new("test.json"), &text, &|_| None).unwrap()
    }
}
