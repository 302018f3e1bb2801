//! `wharf auth status [SERVER]` and `wharf auth logout SERVER`: the sign-ins kept in the OS keyring for the
//! configured HTTP servers (docs/cli.md). Neither connects to a server, and neither ever prints a token.

use std::process::ExitCode;

use clap::Subcommand;
use serde_json::{json, Value};
use wharf_core::auth::{self, TokenStore};
use wharf_core::config::TransportDef;
use wharf_core::{Config, EventSink};

use crate::Failure;

#[derive(Subcommand, Debug, Clone)]
pub enum AuthAction {
    /// Per HTTP server: signed in or not, the authorization server, the scopes, when the token expires.
    Status { server: Option<String> },
    /// Forgets the server's kept sign-in (tokens and registered client secret, every authorization server); the
    /// next connection signs in again in the browser.
    Logout { server: String },
}

pub async fn run(
    action: AuthAction,
    config: &Config,
    events: EventSink,
) -> Result<ExitCode, Failure> {
    let store = TokenStore::os();
    match action {
        AuthAction::Status { server } => {
            let names = match server {
                Some(name) => vec![http_server(config, &name)?],
                // A server whose entry cannot be read yet (a missing input) may still have a sign-in to show.
                None => config
                    .servers
                    .iter()
                    .filter(|d| !matches!(d.transport, Ok(TransportDef::Stdio { .. })))
                    .map(|d| d.name.clone())
                    .collect(),
            };
            let mut rows = Vec::new();
            for name in names {
                let status = auth::status(&store, &name).await?;
                let mut row = json!({"server": name});
                if let (Value::Object(row), Value::Object(fields)) =
                    (&mut row, serde_json::to_value(status)?)
                {
                    row.extend(fields);
                }
                rows.push(row);
            }
            crate::print_json(&Value::Array(rows));
        }
        AuthAction::Logout { server } => {
            let name = http_server(config, &server)?;
            let forgotten = auth::sign_out_and_tell(&store, &name, &events).await?;
            crate::print_json(&json!({"server": name, "signedOut": forgotten}));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The configured server named `name`, when it is one that can sign in.
fn http_server(config: &Config, name: &str) -> Result<String, Failure> {
    let Some(def) = config.servers.iter().find(|d| d.name == name) else {
        return Err(Failure(format!(
            "unknown server \"{name}\" (not in {})",
            config.path.display()
        )));
    };
    if let Ok(TransportDef::Stdio { .. }) = def.transport {
        return Err(Failure(format!(
            "{name} is a stdio server: only HTTP servers sign in"
        )));
    }
    Ok(def.name.clone())
}
