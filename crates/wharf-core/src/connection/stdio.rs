//! stdio connections: spawn the server, probe its era with `server/discover` under our own timeout (unless the era
//! is known), then hand the pipes to rmcp through our own transport.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ClientServiceExt;

use super::{
    exit_reason, init_error, lifecycle, probe_meta, watched, ConnectContext, Connection,
    ConnectionError,
};
use crate::config::ServerDef;
use crate::era::Era;
use crate::events::{EventSink, HostEvent};
use crate::process::SpawnError;
use transport::{ProbeOutcome, StdioTransport};

pub(super) async fn connect(
    def: &ServerDef,
    ctx: &ConnectContext,
    command: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
    cwd: Option<&PathBuf>,
    era: Option<Era>,
) -> Result<Connection, ConnectionError> {
    let program = find_command(ctx, command, env).await?;
    let spawned = crate::process::spawn_off_thread(&program, args, env, cwd)
        .await
        .map_err(|e| ConnectionError::Spawn(Arc::new(e)))?;
    let mut process = spawned.process;
    let stderr = process.stderr.clone();
    let mut transport = StdioTransport::new(
        &def.name,
        spawned.stdout,
        spawned.stdin,
        ctx.max_message_bytes,
        ctx.events.clone(),
    );
    let close_reason = transport.close_reason();
    let era = match era {
        Some(era) => era,
        None => {
            let meta = probe_meta(&ctx.broker);
            match transport.probe(meta, def.probe_timeout).await {
                ProbeOutcome::Modern => Era::Modern,
                ProbeOutcome::Legacy { reason } => {
                    tracing::info!(server = %def.name, "legacy server: {reason}");
                    Era::Legacy
                }
                ProbeOutcome::Closed => {
                    let reason = exit_reason(&mut process, &stderr, &close_reason).await;
                    return Err(ConnectionError::Closed(Some(format!(
                        "during start-up: {reason}"
                    ))));
                }
            }
        }
    };
    let handler = Connection::handler(def, ctx, era);
    let progress = handler.progress.clone();
    let (transport, closed) = watched::Watched::new(transport);
    let transport = transport
        .routing_progress(handler.progress_tap())
        .ending_with(watched::ProcessEnd {
            exit: process.exit_watch(),
            reason: close_reason.clone(),
        });
    let started = tokio::time::timeout(
        def.probe_timeout,
        handler.serve_with_lifecycle(transport, lifecycle(era)),
    )
    .await;
    let service = match started {
        Ok(Ok(service)) => service,
        Ok(Err(e)) => {
            let e = init_error(e);
            let reason = exit_reason(&mut process, &stderr, &close_reason).await;
            process.shutdown(Duration::from_millis(200)).await;
            return Err(match e {
                ConnectionError::Connect(m) => ConnectionError::Connect(format!("{m} ({reason})")),
                other => other,
            });
        }
        Err(_) => {
            process.shutdown(Duration::from_millis(200)).await;
            return Err(ConnectionError::Timeout(def.probe_timeout));
        }
    };
    tokio::spawn(announce_stderr(
        stderr.watch(),
        def.name.clone(),
        ctx.events.clone(),
        closed.clone(),
    ));
    Ok(Connection::assemble(
        def,
        ctx,
        service,
        Some(process),
        Some(stderr),
        close_reason,
        closed,
        progress,
        era,
    ))
}

/// The program to start for `command`: a bare name is looked for on the server's PATH, which takes in the login
/// shell's when the front end reads it (waiting for it, within its bound, if it is still being read).
async fn find_command(
    ctx: &ConnectContext,
    command: &str,
    env: &BTreeMap<String, String>,
) -> Result<crate::process::Program, ConnectionError> {
    let login = match &ctx.login_path {
        Some(login) if !env.contains_key("PATH") => Some(login.get().await),
        _ => None,
    };
    let own_path = std::env::var_os("PATH");
    let search = crate::process::CommandSearch::new(
        env.get("PATH").map(String::as_str),
        own_path.as_deref(),
        login.as_deref(),
    );
    let home = std::env::var_os("HOME").map(PathBuf::from);
    search
        .find(command, home.as_deref())
        .map_err(|e| ConnectionError::Spawn(Arc::new(SpawnError::NotFound(Box::new(e)))))
}

/// How often at most the UI hears that a server's stderr grew: a chatty server must not flood it.
const STDERR_EVENT_INTERVAL: Duration = Duration::from_millis(300);

/// Tells the front ends when the stderr tail changed, at most every `STDERR_EVENT_INTERVAL`.
async fn announce_stderr(
    mut written: tokio::sync::watch::Receiver<u64>,
    server: String,
    events: EventSink,
    closed: tokio_util::sync::CancellationToken,
) {
    loop {
        tokio::select! {
            _ = closed.cancelled() => return,
            changed = written.changed() => if changed.is_err() { return },
        }
        // Let a burst of writes land, then announce them once.
        tokio::select! {
            _ = closed.cancelled() => return,
            _ = tokio::time::sleep(STDERR_EVENT_INTERVAL) => {}
        }
        written.borrow_and_update();
        events.emit(HostEvent::Stderr {
            server: server.clone(),
        });
    }
}

pub(super) mod transport;
