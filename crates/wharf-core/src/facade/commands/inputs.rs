//! The values of mcp.json's `${input:ID}` (VS Code's `inputs`), as the window asks for them: which ids the configured
//! servers use and the OS keyring lacks (found by `config::inputs`, as the `wharf` command finds them), and the
//! user's value for one, stored as the secret `input:ID` and followed by the configuration applied again, so the
//! servers that failed for want of it start.
//!
//! A value goes one way only: no command returns one, and neither a value nor its length is ever logged. Every
//! keyring call runs off the async threads (opening the keyring may wait for the Secret Service, a lookup for an
//! unlock prompt).

use serde::Deserialize;
use serde_json::Value;

use crate::config::inputs::{self, MissingInput};
use crate::facade::command::{CommandError, Reply, Run};
use crate::facade::session::Session;
use crate::facade::ErrorCode;
use crate::secrets::{self, Secret, SecretStore};
use crate::Config;

use super::sampling::keyring_error;

/// The inputs the configured servers use and the keyring lacks, in the order they are first used.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct MissingInputs {}

impl Run for MissingInputs {
    async fn run(self, session: &Session) -> Reply<Vec<MissingInput>> {
        let path = session.config_path().to_path_buf();
        blocking(move || {
            let Some(document) = inputs::read_document(&path) else {
                return Ok(Vec::new());
            };
            inputs::missing_in_keyring(&document).map_err(keyring_error)
        })
        .await
    }
}

/// Stores the user's value for `${input:ID}` in the keyring (the id must be one the configured servers use), then
/// applies the configuration again: the servers whose definitions it completes restart with it. Answers the inputs
/// still missing. The value is never returned nor logged.
#[derive(Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ProvideInput {
    pub id: String,
    pub value: String,
}

impl Run for ProvideInput {
    async fn run(self, session: &Session) -> Reply<Vec<MissingInput>> {
        let ProvideInput { id, value } = self;
        let value = Secret::new(value);
        let path = session.config_path().to_path_buf();
        let folders = session.host().workspace().folders();
        let (config, remaining) = blocking(move || {
            let document = inputs::read_document(&path).unwrap_or(Value::Null);
            if !inputs::is_used(&document, &id) {
                return Err(CommandError::new(
                    ErrorCode::UnknownInput,
                    format!("no configured server uses ${{input:{id}}}"),
                ));
            }
            let store = SecretStore::open().map_err(keyring_error)?;
            secrets::store_input(&store, &id, &value).map_err(keyring_error)?;
            drop(value);
            tracing::info!(
                input = id,
                backend = store.backend().as_str(),
                "input value stored from the app"
            );
            // Read with the value now in the keyring (the workspace folders too: a server may name them).
            let config = Config::load_with_workspace(&path, &folders)?;
            let remaining = inputs::missing_in_keyring(&document).map_err(keyring_error)?;
            Ok((config, remaining))
        })
        .await?;
        session.reconfigure(config).await;
        Ok(remaining)
    }
}

/// Runs `work` on the blocking pool: it reads the configuration file and asks the keyring.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> Reply<T> + Send + 'static) -> Reply<T> {
    tokio::task::spawn_blocking(work).await.map_err(|e| {
        CommandError::new(ErrorCode::Internal, format!("the keyring task failed: {e}"))
    })?
}
