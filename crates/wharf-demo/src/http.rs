//! Streamable HTTP on loopback: rmcp's `StreamableHttpService` (a tower service) run by hyper, at `/mcp`.
//! 2026-07-28 requests are served statelessly; older clients get rmcp's sessions after `initialize`.

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tower_service::Service as _;

use crate::server::DemoServer;
use crate::{NAME, VERSION};

pub const PATH: &str = "/mcp";

type Body = BoxBody<Bytes, Infallible>;

pub async fn serve(port: u16) -> Result<(), String> {
    // Loopback only: the demo has no authentication, and rmcp's default Host check expects loopback names.
    let listener = TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|error| format!("cannot listen on 127.0.0.1:{port}: {error}"))?;
    let address = listener
        .local_addr()
        .map_err(|error| format!("cannot read the listening address: {error}"))?;
    let service: StreamableHttpService<DemoServer, LocalSessionManager> =
        StreamableHttpService::new(
            || Ok(DemoServer::new()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
    // With port 0 the port is only known now; tests and hosts read the URL from this line.
    eprintln!("{NAME} {VERSION} ready (http://{address}{PATH})");
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => accepted
                .map_err(|error| format!("cannot accept a connection: {error}"))?,
            () = shutdown_signal() => return Ok(()),
        };
        let service = service.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
                let mut service = service.clone();
                async move {
                    if request.uri().path() != PATH {
                        return Ok::<Response<Body>, Infallible>(not_found());
                    }
                    service.call(request).await
                }
            });
            // A client that hangs up mid-response is its own business; the server goes on.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handler)
                .await;
        });
    }
}

fn not_found() -> Response<Body> {
    let mut response = Response::new(
        Full::new(Bytes::from_static(b"not found: the MCP endpoint is /mcp\n")).boxed(),
    );
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

/// Ctrl-C or SIGTERM: the host's way of stopping an HTTP server it started.
async fn shutdown_signal() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            // Without a SIGTERM handler the default action (exit) still stops us.
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminate => {}
    }
}
