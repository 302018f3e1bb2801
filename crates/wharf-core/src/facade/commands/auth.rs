//! Sign-in status per HTTP server and signing out, for the server list. Nothing here returns a token: only whether
//! there is a sign-in, with whom, for which scopes and until when.

use serde::{Deserialize, Serialize};

use crate::auth::{self, SignInStatus, TokenStore};
use crate::config::TransportKind;
use crate::facade::command::{CommandError, Reply, Run};
use crate::facade::session::Session;
use crate::facade::ErrorCode;
use crate::{EventSink, Host, ServerStatus};

/// One HTTP server's kept sign-in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ServerSignIn {
    pub server: String,
    pub status: SignInStatus,
}

/// The kept sign-in of every configured HTTP server (stdio servers never sign in).
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SignInStatuses {}

impl Run for SignInStatuses {
    async fn run(self, session: &Session) -> Reply<Vec<ServerSignIn>> {
        statuses(session.host(), session.tokens()).await
    }
}

/// Stops the server when it runs, then forgets its kept sign-in; true when there was one.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SignOut {
    pub name: String,
}

impl Run for SignOut {
    async fn run(self, session: &Session) -> Reply<bool> {
        tracing::info!(server = self.name, "sign-out requested from the UI");
        sign_out_of(
            session.host(),
            session.tokens(),
            &self.name,
            session.host().events(),
        )
        .await
    }
}

async fn statuses(host: &Host, tokens: &TokenStore) -> Reply<Vec<ServerSignIn>> {
    let mut out = Vec::new();
    for summary in host.summaries().await {
        if summary.transport != TransportKind::Http {
            continue;
        }
        let status = auth::status(tokens, &summary.name)
            .await
            .map_err(|e| CommandError::new(ErrorCode::Auth, e.to_string()))?;
        out.push(ServerSignIn {
            server: summary.name,
            status,
        });
    }
    Ok(out)
}

async fn sign_out_of(
    host: &Host,
    tokens: &TokenStore,
    name: &str,
    events: &EventSink,
) -> Reply<bool> {
    let Some(summary) = host.summaries().await.into_iter().find(|s| s.name == name) else {
        return Err(crate::ConnectionError::UnknownServer(name.to_string()).into());
    };
    if summary.transport != TransportKind::Http {
        return Err(CommandError::new(
            ErrorCode::Invalid,
            format!(
                "{name} is a {} server: only HTTP servers sign in",
                summary.transport
            ),
        ));
    }
    if !matches!(summary.status, ServerStatus::Stopped | ServerStatus::Failed) {
        host.stop(name).await?;
    }
    auth::sign_out_and_tell(tokens, name, events)
        .await
        .map_err(|e| CommandError::new(ErrorCode::Auth, e.to_string()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::sync::{Arc, Mutex};

    use crate::broker::{Broker, DeclaredCapabilities, DeclineAll};
    use crate::{Config, HostEvent, HostOptions, SignInState};

    use super::*;

    const KEPT: &str = r#"{"resource": "http://127.0.0.1:9/mcp", "current": "https://as.example",
        "by_issuer": {"https://as.example": {"client_id": "c", "granted_scopes": ["notes:read"],
        "issuer": "https://as.example", "token_response": {"access_token": "tok-SECRET", "token_type": "bearer"}}},
        "client_secrets": {"https://as.example": "client-SECRET"}}"#;

    #[tokio::test]
    async fn status_lists_http_servers_and_sign_out_forgets_and_tells() {
        let text = r#"{"servers": {"notes": {"url": "http://127.0.0.1:9/mcp"}, "local": {"command": "true"}}}"#;
        let config = Config::parse(std::path::Path::new("/x/mcp.json"), text, &|_| None).unwrap();
        let broker = Broker::new(DeclaredCapabilities::SERVED, Arc::new(DeclineAll));
        let host = Host::new(config, broker, EventSink::discard(), HostOptions::default());
        let tokens = TokenStore::memory();
        let TokenStore::Memory(map) = &tokens else {
            unreachable!()
        };
        map.lock()
            .unwrap()
            .insert(TokenStore::entry_name("notes"), KEPT.to_string());
        let told = Arc::new(Mutex::new(Vec::new()));
        let sink = {
            let told = told.clone();
            EventSink::new(move |e| told.lock().unwrap().push(e))
        };

        let listed = statuses(&host, &tokens).await.unwrap();
        assert_eq!(listed.len(), 1, "{listed:?}");
        assert_eq!(listed[0].server, "notes");
        assert!(listed[0].status.signed_in);
        assert_eq!(
            listed[0].status.issuer.as_deref(),
            Some("https://as.example")
        );
        assert_eq!(listed[0].status.scopes, ["notes:read"]);
        let shown = serde_json::to_string(&listed).unwrap();
        assert!(!shown.contains("SECRET"), "{shown}");

        assert_eq!(
            sign_out_of(&host, &tokens, "nosuch", &sink)
                .await
                .unwrap_err()
                .code,
            ErrorCode::UnknownServer
        );
        assert_eq!(
            sign_out_of(&host, &tokens, "local", &sink)
                .await
                .unwrap_err()
                .code,
            ErrorCode::Invalid
        );
        assert!(sign_out_of(&host, &tokens, "notes", &sink).await.unwrap());
        // Tokens and the registered client's secret: the whole entry.
        assert!(map.lock().unwrap().is_empty());
        assert!(!statuses(&host, &tokens).await.unwrap()[0].status.signed_in);
        assert!(!sign_out_of(&host, &tokens, "notes", &sink).await.unwrap());
        let told = told.lock().unwrap().clone();
        assert_eq!(told.len(), 1, "{told:?}");
        assert!(matches!(
            &told[0],
            HostEvent::SignIn { server, state: SignInState::SignedOut, .. } if server == "notes"
        ));
        host.shutdown().await;
    }
}
