//! The clients of the round-trip benchmark, each calling `echo` the way its users would: wharf-core through a `Host`
//! connection like `wharf call`, rmcp with nothing but its own transports (child process, Streamable HTTP), the
//! TypeScript SDK and python `mcp` clients in their own processes (external.rs), and a raw pipe to `cat` (pipe.rs).

use std::future::Future;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientLifecycleMode, ClientServiceExt, ServiceExt};
use serde_json::{json, Map, Value};
use wharf_core::broker::{Broker, DeclaredCapabilities, DeclineAll};
use wharf_core::{CallOptions, Config, Connection, Era, EventSink, Host, HostOptions};

use super::external::External;
use super::pipe::Pipe;
use super::servers::{Fixtures, ServerSpec, Target, TransportKind};
use super::BenchError;

/// What every call sends; short, so the clients and not the payload dominate.
pub(super) const MESSAGE: &str = "hello";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ClientKind {
    WharfCore,
    BareRmcp,
    TsSdk,
    PySdk,
    RawPipe,
}

impl ClientKind {
    pub fn label(self) -> &'static str {
        match self {
            ClientKind::WharfCore => "wharf-core",
            ClientKind::BareRmcp => "bare rmcp",
            ClientKind::TsSdk => "TypeScript SDK 1.32.2",
            ClientKind::PySdk => "python mcp 2.3.0",
            ClientKind::RawPipe => "raw pipe (cat)",
        }
    }
}

/// One configuration's measured batch.
#[derive(Debug)]
pub(super) struct Sample {
    pub wall: Duration,
    pub latencies: Vec<Duration>,
}

pub(super) enum Client {
    Core {
        server: &'static str,
        transport: TransportKind,
        host: Host,
        conn: Arc<Connection>,
    },
    Rmcp {
        server: &'static str,
        transport: TransportKind,
        era: Era,
        service: RunningService<RoleClient, ClientConfig>,
    },
    External {
        transport: TransportKind,
        client: External,
    },
    Pipe(Pipe),
}

fn echo_args() -> Map<String, Value> {
    let mut args = Map::new();
    args.insert("message".into(), Value::String(MESSAGE.into()));
    args
}

impl Client {
    /// A wharf-core connection made the way `wharf call` makes one: a configuration, a host, `host.connection`.
    pub async fn core(spec: &ServerSpec, pinned: Option<Era>) -> Result<Client, BenchError> {
        let failed = |reason: String| BenchError::Connect {
            client: ClientKind::WharfCore.label(),
            server: spec.label,
            reason,
        };
        let mut def = Map::new();
        match &spec.target {
            Target::Stdio { command, args } => {
                let args: Vec<String> = args.iter().map(|a| a.display().to_string()).collect();
                def.insert("type".into(), "stdio".into());
                def.insert("command".into(), command.display().to_string().into());
                def.insert("args".into(), args.into());
            }
            Target::Http { url } => {
                def.insert("type".into(), "http".into());
                def.insert("url".into(), url.clone().into());
            }
        }
        if let Some(era) = pinned {
            def.insert("era".into(), era.as_str().into());
        }
        let mut servers = Map::new();
        servers.insert(spec.label.into(), Value::Object(def));
        let text = json!({ "servers": servers }).to_string();
        let config = Config::parse(Path::new("(wharf bench)"), &text, &|_| None)
            .map_err(|e| failed(e.to_string()))?;
        let broker = Broker::new(DeclaredCapabilities::SERVED, Arc::new(DeclineAll));
        let host = Host::new(config, broker, EventSink::discard(), HostOptions::default());
        let conn = match host.connection(spec.label).await {
            Ok(conn) => conn,
            Err(e) => {
                host.shutdown().await;
                return Err(failed(e.to_string()));
            }
        };
        let client = Client::Core {
            server: spec.label,
            transport: spec.transport(),
            host,
            conn,
        };
        client.check_echo().await?;
        Ok(client)
    }

    /// rmcp as its README shows it: its own child-process transport and a handler that does nothing.
    pub async fn rmcp(spec: &ServerSpec, era: Era) -> Result<Client, BenchError> {
        let failed = |reason: String| BenchError::Connect {
            client: ClientKind::BareRmcp.label(),
            server: spec.label,
            reason,
        };
        let version = match era {
            Era::Modern => ProtocolVersion::V_2026_07_28,
            Era::Legacy => ProtocolVersion::V_2025_11_25,
        };
        let handler = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("wharf-bench-rmcp", wharf_core::CLIENT_VERSION),
        )
        .with_protocol_version(version.clone());
        let lifecycle = match era {
            Era::Modern => Some(ClientLifecycleMode::Discover {
                preferred_versions: vec![version],
            }),
            Era::Legacy => None,
        };
        let service = match &spec.target {
            Target::Stdio { command, args } => {
                let mut command = tokio::process::Command::new(command);
                command.args(args).kill_on_drop(true);
                let (transport, _) = TokioChildProcess::builder(command)
                    .stderr(Stdio::null())
                    .spawn()
                    .map_err(|e| failed(format!("cannot start the server: {e}")))?;
                match lifecycle {
                    Some(lifecycle) => handler.serve_with_lifecycle(transport, lifecycle).await,
                    None => handler.serve(transport).await,
                }
            }
            Target::Http { url } => {
                // Stateless allowed, as a modern server keeps no session (wharf-core sets the same).
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                config.allow_stateless = true;
                let transport = StreamableHttpClientTransport::from_config(config);
                match lifecycle {
                    Some(lifecycle) => handler.serve_with_lifecycle(transport, lifecycle).await,
                    None => handler.serve(transport).await,
                }
            }
        }
        .map_err(|e| failed(e.to_string()))?;
        let client = Client::Rmcp {
            server: spec.label,
            transport: spec.transport(),
            era,
            service,
        };
        client.check_echo().await?;
        Ok(client)
    }

    pub async fn pipe() -> Result<Client, BenchError> {
        Ok(Client::Pipe(Pipe::start().await?))
    }

    /// The TypeScript SDK or python client in its own process.
    pub async fn external(
        kind: ClientKind,
        spec: &ServerSpec,
        fixtures: &Fixtures,
    ) -> Result<Client, BenchError> {
        Ok(Client::External {
            transport: spec.transport(),
            client: External::start(kind, spec, fixtures).await?,
        })
    }

    pub fn kind(&self) -> ClientKind {
        match self {
            Client::Core { .. } => ClientKind::WharfCore,
            Client::Rmcp { .. } => ClientKind::BareRmcp,
            Client::External { client, .. } => client.kind,
            Client::Pipe(_) => ClientKind::RawPipe,
        }
    }

    pub fn transport(&self) -> TransportKind {
        match self {
            Client::Core { transport, .. }
            | Client::Rmcp { transport, .. }
            | Client::External { transport, .. } => *transport,
            Client::Pipe(_) => TransportKind::Stdio,
        }
    }

    pub fn server(&self) -> Option<&'static str> {
        match self {
            Client::Core { server, .. } | Client::Rmcp { server, .. } => Some(server),
            Client::External { client, .. } => Some(client.server),
            Client::Pipe(_) => None,
        }
    }

    pub fn era(&self) -> Option<Era> {
        match self {
            Client::Core { conn, .. } => Some(conn.identity.era),
            Client::Rmcp { era, .. } => Some(*era),
            Client::External { client, .. } => client.era,
            Client::Pipe(_) => None,
        }
    }

    fn call_failed(&self, reason: String) -> BenchError {
        BenchError::Call {
            client: self.kind().label(),
            server: self.server().unwrap_or("cat"),
            reason,
        }
    }

    /// One call whose answer is read: a fixture that answers something else must not be timed as an echo.
    async fn check_echo(&self) -> Result<(), BenchError> {
        let text = match self {
            Client::Core { conn, .. } => conn
                .call_tool("echo", Some(echo_args()), &CallOptions::default())
                .await
                .map_err(|e| self.call_failed(e.to_string()))
                .map(|result| result.sent().to_string())?,
            Client::Rmcp { service, .. } => service
                .call_tool(CallToolRequestParams::new("echo").with_arguments(echo_args()))
                .await
                .map_err(|e| self.call_failed(e.to_string()))
                .and_then(|result| {
                    serde_json::to_string(&result).map_err(|e| self.call_failed(e.to_string()))
                })?,
            // The scripts check their first echo themselves before they say they are ready.
            Client::External { .. } | Client::Pipe(_) => return Ok(()),
        };
        if text.contains(MESSAGE) && !text.contains("\"isError\":true") {
            return Ok(());
        }
        Err(self.call_failed(format!("echo did not echo: {text}")))
    }

    /// `calls` calls with at most `in_flight` outstanding; each call's latency runs from its send to its answer.
    pub async fn sample(&mut self, calls: usize, in_flight: usize) -> Result<Sample, BenchError> {
        let args = Arc::new(echo_args());
        match self {
            Client::Core { server, conn, .. } => {
                // As `wharf call`, `wharf session` and the app call: for the user, so the path-argument check runs.
                let options = CallOptions {
                    on_behalf_of_user: true,
                    ..CallOptions::default()
                };
                let server = *server;
                drive(calls, in_flight, || {
                    let (conn, args, options) = (conn.clone(), args.clone(), options.clone());
                    async move {
                        let result = conn
                            .call_tool("echo", Some((*args).clone()), &options)
                            .await
                            .map_err(|e| {
                                call_error(ClientKind::WharfCore, server, e.to_string())
                            })?;
                        if result.is_error {
                            return Err(call_error(
                                ClientKind::WharfCore,
                                server,
                                result.sent().to_string(),
                            ));
                        }
                        Ok(())
                    }
                })
                .await
            }
            Client::Rmcp {
                server, service, ..
            } => {
                let (server, peer) = (*server, service.peer().clone());
                drive(calls, in_flight, || {
                    let (peer, args) = (peer.clone(), args.clone());
                    async move {
                        let params =
                            CallToolRequestParams::new("echo").with_arguments((*args).clone());
                        let result = peer
                            .call_tool(params)
                            .await
                            .map_err(|e| call_error(ClientKind::BareRmcp, server, e.to_string()))?;
                        if result.is_error == Some(true) {
                            return Err(call_error(
                                ClientKind::BareRmcp,
                                server,
                                "the echo answered isError".into(),
                            ));
                        }
                        Ok(())
                    }
                })
                .await
            }
            Client::External { client, .. } => client.sample(calls, in_flight).await,
            Client::Pipe(pipe) => pipe.sample(calls, in_flight).await,
        }
    }

    pub async fn shutdown(self) {
        match self {
            Client::Core { host, conn, .. } => {
                drop(conn);
                host.shutdown().await;
            }
            Client::Rmcp { service, .. } => {
                // Closing the transport closes the server's stdin and waits for it (rmcp's graceful shutdown).
                let _ = tokio::time::timeout(Duration::from_secs(5), service.cancel()).await;
            }
            Client::External { client, .. } => client.shutdown().await,
            Client::Pipe(pipe) => pipe.shutdown().await,
        }
    }
}

fn call_error(kind: ClientKind, server: &'static str, reason: String) -> BenchError {
    BenchError::Call {
        client: kind.label(),
        server,
        reason,
    }
}

/// Runs `calls` calls made by `call`, the way a host makes them: one after the other on the caller's task when
/// sequential (`wharf call`, a script), else each on its own task (as `wharf session` and the app do), at most
/// `in_flight` at a time. The same for every MCP client; latency counts from just before the spawn.
async fn drive<F, Fut>(calls: usize, in_flight: usize, call: F) -> Result<Sample, BenchError>
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<(), BenchError>> + Send + 'static,
{
    let mut latencies = Vec::with_capacity(calls);
    let start = Instant::now();
    if in_flight <= 1 {
        for _ in 0..calls {
            let sent = Instant::now();
            call().await?;
            latencies.push(sent.elapsed());
        }
    } else {
        let mut tasks = tokio::task::JoinSet::new();
        let mut started = 0;
        while latencies.len() < calls {
            while started < calls && tasks.len() < in_flight {
                let (pending, sent) = (call(), Instant::now());
                tasks.spawn(async move { pending.await.map(|()| sent.elapsed()) });
                started += 1;
            }
            match tasks.join_next().await {
                Some(Ok(latency)) => latencies.push(latency?),
                Some(Err(e)) => return Err(BenchError::Setup(format!("a call's task ended: {e}"))),
                None => break,
            }
        }
    }
    Ok(Sample {
        wall: start.elapsed(),
        latencies,
    })
}
