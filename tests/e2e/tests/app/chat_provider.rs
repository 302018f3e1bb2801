//! The scripted provider fixture (`tests/fixtures/chat_provider.py`) as chat's tests start it: replies from a
//! script, every request recorded.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use wharf_e2e::{Error, Result};

use crate::UI;

/// The scripted provider, running for the test: killed when dropped.
pub(super) struct Provider {
    _child: Child,
    pub(super) base_url: String,
    script: PathBuf,
    #[allow(dead_code)] // Read only by `recorded`.
    record: PathBuf,
}

impl Provider {
    pub(super) async fn start(dir: &Path, script: &Value) -> Result<Provider> {
        let script_path = dir.join("chat-script.json");
        let record = dir.join("chat-record.jsonl");
        std::fs::write(&script_path, script.to_string())
            .map_err(|e| Error::Check(format!("cannot write the script: {e}")))?;
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/chat_provider.py");
        let mut child = Command::new("python3")
            .arg(&fixture)
            .arg(&script_path)
            .arg(&record)
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| Error::Check(format!("cannot start {}: {e}", fixture.display())))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| Error::Check("the provider has no stdout".into()))?;
        let mut line = String::new();
        tokio::time::timeout(UI, BufReader::new(stdout).read_line(&mut line))
            .await
            .map_err(|_| Error::Check("the provider printed no URL".into()))?
            .map_err(|e| Error::Check(format!("cannot read the provider's URL: {e}")))?;
        Ok(Provider {
            _child: child,
            base_url: line.trim().to_owned(),
            script: script_path,
            record,
        })
    }

    /// Replaces the script: the provider reads it again at each request.
    #[allow(dead_code)] // Only some of the modules that share this file rewrite the script.
    pub(super) fn script(&self, script: &Value) -> Result<()> {
        std::fs::write(&self.script, script.to_string())
            .map_err(|e| Error::Check(format!("cannot write the script: {e}")))
    }

    /// Every line the provider recorded (requests, and disconnections of a hanging reply).
    #[allow(dead_code)] // Only some of the modules that share this file read what was recorded.
    pub(super) fn recorded(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.record)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}
