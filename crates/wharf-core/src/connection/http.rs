//! Streamable HTTP connections. The era is probed the spec's way: a modern `server/discover` POST, whose `400` body
//! tells a legacy server from a modern one; a legacy answer gets a fresh transport and the `initialize` handshake.
//! A server that answers `401` while connecting is signed in to (see `crate::auth`), outside the probe timeout,
//! and connected to again.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use rmcp::service::{ClientInitializeError, RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ClientServiceExt;
use tokio_util::sync::CancellationToken;

use super::stdio::transport::is_modern_error;
use super::watched::Watched;
use super::{
    init_error, lifecycle, ConnectContext, Connection, ConnectionError, ProgressRouter,
    WharfHandler,
};
use crate::auth::client::AuthHttpClient;
use crate::config::ServerDef;
use crate::era::Era;

type Service = RunningService<RoleClient, WharfHandler>;

fn transport(
    url: &str,
    headers: &BTreeMap<String, String>,
    ctx: &ConnectContext,
    client: &AuthHttpClient,
) -> Result<StreamableHttpClientTransport<AuthHttpClient>, ConnectionError> {
    let mut custom = HashMap::new();
    for (name, value) in headers {
        let name = http::HeaderName::try_from(name.as_str())
            .map_err(|e| ConnectionError::Config(format!("header name {name:?}: {e}")))?;
        let value = http::HeaderValue::try_from(value.as_str())
            .map_err(|e| ConnectionError::Config(format!("header {name}: {e}")))?;
        custom.insert(name, value);
    }
    let mut config = StreamableHttpClientTransportConfig::with_uri(Arc::<str>::from(url))
        .custom_headers(custom)
        .max_json_response_size(ctx.max_message_bytes)
        .max_sse_event_size(ctx.max_message_bytes);
    config.allow_stateless = true;
    Ok(StreamableHttpClientTransport::with_client(
        client.clone(),
        config,
    ))
}

pub(super) async fn connect(
    def: &ServerDef,
    ctx: &ConnectContext,
    url: &str,
    headers: &BTreeMap<String, String>,
    cached: Option<Era>,
) -> Result<(Service, Era, ProgressRouter, CancellationToken), ConnectionError> {
    let mut auth = ctx.auth.clone();
    if let Some(options) = &mut auth {
        options.events = ctx.events.clone();
        if let Some(client) = &def.oauth {
            options
                .preregistered
                .insert(def.name.clone(), client.clone());
        }
    }
    let client = AuthHttpClient::new(&def.name, url, auth).await?;
    // Once for the first sign-in, once more when the server wants more scopes right away.
    for _ in 0..2 {
        match probe(def, ctx, url, headers, cached, &client).await {
            Err(e) => match client.take_pending() {
                Some(pending) => client.resolve(pending).await?,
                None => return Err(e),
            },
            Ok(done) => {
                client.set_interactive();
                return Ok(done);
            }
        }
    }
    let done = probe(def, ctx, url, headers, cached, &client).await?;
    client.set_interactive();
    Ok(done)
}

async fn probe(
    def: &ServerDef,
    ctx: &ConnectContext,
    url: &str,
    headers: &BTreeMap<String, String>,
    cached: Option<Era>,
    client: &AuthHttpClient,
) -> Result<(Service, Era, ProgressRouter, CancellationToken), ConnectionError> {
    let attempt = |era: Era| async move {
        let handler = Connection::handler(def, ctx, era);
        let progress = handler.progress.clone();
        let (t, closed) = Watched::new(transport(url, headers, ctx, client)?);
        let t = t.routing_progress(handler.progress_tap());
        match tokio::time::timeout(
            def.probe_timeout,
            handler.serve_with_lifecycle(t, lifecycle(era)),
        )
        .await
        {
            Ok(Ok(service)) => Ok(Ok((service, era, progress, closed))),
            Ok(Err(e)) => Ok(Err(e)),
            Err(_) => Err(ConnectionError::Timeout(def.probe_timeout)),
        }
    };
    match cached {
        Some(era) => attempt(era).await?.map_err(init_error),
        None => match attempt(Era::Modern).await? {
            Ok(done) => Ok(done),
            Err(e) if says_legacy(&e) => {
                tracing::info!(server = %def.name, "legacy server over HTTP: {e}");
                attempt(Era::Legacy).await?.map_err(init_error)
            }
            Err(e) => Err(init_error(e)),
        },
    }
}

/// A discover that failed with a JSON-RPC error that is not one of the modern era's means a legacy server.
fn says_legacy(e: &ClientInitializeError) -> bool {
    match e {
        ClientInitializeError::JsonRpcError(data) => !is_modern_error(data.code),
        ClientInitializeError::ExpectedInitResult(_) => true,
        _ => false,
    }
}
