//! The values of mcp.json's `${input:ID}` (VS Code's `inputs`), as the window asks for them: which ids the configured
//! servers use and the OS keyring lacks (`missing_inputs`, found by `wharf_core::config::inputs` as the `wharf`
//! command finds them), and the user's value for one (`provide_input`), stored as the secret `input:ID` and followed
//! by the configuration applied again, so the servers that failed for want of it start.
//!
//! A value goes one way only: no command returns one, and neither a value nor its length is ever logged. Every
//! keyring call runs off the async threads (opening the keyring may wait for the Secret Service, a lookup for an
//! unlock prompt).

use serde_json::Value;
use tauri::State;
use wharf_core::config::inputs::{self, MissingInput};
use wharf_core::facade::ErrorCode;
use wharf_core::secrets::{self, Secret, SecretStore};
use wharf_core::Config;

use crate::commands::CommandError;
use crate::sampling_commands::keyring_error;
use crate::shell::Shell;

type Reply<T> = Result<T, CommandError>;

/// The inputs the configured servers use and the keyring lacks, in the order they are first used.
#[tauri::command]
pub async fn missing_inputs(shell: State<'_, Shell>) -> Reply<Vec<MissingInput>> {
    let path = shell.config_path.clone();
    blocking(move || {
        let Some(document) = inputs::read_document(&path) else {
            return Ok(Vec::new());
        };
        inputs::missing_in_keyring(&document).map_err(keyring_error)
    })
    .await
}

/// Stores the user's value for `${input:ID}` in the keyring (the id must be one the configured servers use), then
/// applies the configuration again: the servers whose definitions it completes restart with it. Answers the inputs
/// still missing. The value is never returned nor logged.
#[tauri::command]
pub async fn provide_input(
    shell: State<'_, Shell>,
    id: String,
    value: String,
) -> Reply<Vec<MissingInput>> {
    let value = Secret::new(value);
    let path = shell.config_path.clone();
    let folders = shell.host.workspace().folders();
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
    shell.reconfigure(config).await;
    Ok(remaining)
}

/// Runs `work` on the blocking pool: it reads the configuration file and asks the keyring.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> Reply<T> + Send + 'static) -> Reply<T> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(|e| {
            CommandError::new(ErrorCode::Internal, format!("the keyring task failed: {e}"))
        })?
}
