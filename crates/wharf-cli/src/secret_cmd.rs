//! `wharf secret set NAME` / `wharf secret delete NAME`: secrets in the OS keyring (docs/cli.md). The value comes
//! from stdin only (argv is visible to every process in /proc) and is never printed, logged or put in an error.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::Subcommand;
use serde_json::json;
use wharf_core::secrets::{self, HiddenInput, Secret, SecretStore};

use crate::Failure;

#[derive(Subcommand, Debug, Clone)]
pub enum SecretAction {
    /// Stores the value read from stdin (one line) as NAME, replacing any value there was.
    Set {
        name: String,
        /// Whatever follows NAME: taken only to be refused without being echoed (clap's own error would quote it,
        /// and it is most likely the value typed on the command line by mistake).
        #[arg(hide = true, num_args = 0.., allow_hyphen_values = true, trailing_var_arg = true)]
        extra: Vec<String>,
    },
    /// Deletes NAME; says whether there was one.
    Delete { name: String },
}

pub async fn run(action: SecretAction) -> Result<ExitCode, Failure> {
    let output = match action {
        SecretAction::Set { name, extra } => {
            if !extra.is_empty() {
                return Err(Failure(
                    "secret set takes only NAME: the value is read from stdin, never from the command line".into(),
                ));
            }
            // The name first: a bad one should not cost the user typing the value. Nor should a missing keyring,
            // so a user at a terminal learns of it before typing; piped input is checked before D-Bus is touched.
            secrets::validate_name(&name)?;
            let early = if std::io::stdin().is_terminal() {
                Some(open_store().await?)
            } else {
                None
            };
            let value = tokio::task::spawn_blocking(read_stdin_value)
                .await
                .map_err(|e| Failure(format!("cannot read the value: {e}")))??;
            let store = match early {
                Some(store) => store,
                None => open_store().await?,
            };
            let backend = store.backend();
            store.set_async(name.clone(), value).await?;
            json!({"name": name, "stored": true, "backend": backend.as_str()})
        }
        SecretAction::Delete { name } => {
            secrets::validate_name(&name)?;
            let store = open_store().await?;
            let backend = store.backend();
            let deleted = store.delete_async(name.clone()).await?;
            json!({"name": name, "deleted": deleted, "backend": backend.as_str()})
        }
    };
    crate::print_json(&output);
    Ok(ExitCode::SUCCESS)
}

async fn open_store() -> Result<SecretStore, Failure> {
    // The choice may wait for D-Bus to start a Secret Service: off the runtime's only thread.
    Ok(tokio::task::spawn_blocking(SecretStore::open)
        .await
        .map_err(|e| Failure(format!("cannot open the OS keyring: {e}")))??)
}

fn read_stdin_value() -> Result<Secret, Failure> {
    let stdin = std::io::stdin();
    let on_terminal = stdin.is_terminal();
    let hidden = if on_terminal {
        let hidden = HiddenInput::stdin();
        let note = if hidden.is_some() {
            "(typing is not shown)"
        } else {
            "(WARNING: typing is shown)"
        };
        let mut err = std::io::stderr();
        let _ = write!(err, "wharf: reading the value from stdin {note}: ");
        let _ = err.flush();
        hidden
    } else {
        None
    };
    let value = secrets::read_value(&mut stdin.lock());
    drop(hidden);
    Ok(value?)
}
