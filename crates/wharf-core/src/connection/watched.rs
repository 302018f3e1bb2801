//! A transport wrapper that tells when the server's side has gone: rmcp ends its service loop quietly, and the host
//! needs to know at once to fail in-flight calls with a reason and to restart the server.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio_util::sync::CancellationToken;

use super::progress::ProgressTap;
use crate::process::Exit;

/// How long output may still arrive after a stdio server exited. Normally the pipe ends with the process; when it
/// does not, processes the server started hold it open and would keep the connection waiting forever.
pub const ORPHANED_OUTPUT_GRACE: Duration = Duration::from_millis(500);

pub struct Watched<T> {
    inner: T,
    closed: CancellationToken,
    process: Option<ProcessEnd>,
    /// Resolves once the process has exited and its output had its grace. Made once, not per message: the stream
    /// is read once per message, and a watch made anew each time was a cost on every call.
    orphaned: Option<Pin<Box<dyn Future<Output = Exit> + Send>>>,
    /// The stream was ended for output left orphaned: it stays ended.
    ended: bool,
    progress: Option<ProgressTap>,
}

/// The exit of a stdio server's process, and where to say why the connection ended.
pub struct ProcessEnd {
    pub exit: tokio::sync::watch::Receiver<Option<Exit>>,
    pub reason: Arc<Mutex<Option<String>>>,
}

impl<T> Watched<T> {
    pub fn new(inner: T) -> (Self, CancellationToken) {
        let closed = CancellationToken::new();
        (
            Watched {
                inner,
                closed: closed.clone(),
                process: None,
                orphaned: None,
                ended: false,
                progress: None,
            },
            closed,
        )
    }

    /// Takes the server's progress notifications off the stream as they are read (see `super::progress`).
    pub fn routing_progress(mut self, tap: ProgressTap) -> Self {
        self.progress = Some(tap);
        self
    }

    /// Also ends the stream shortly after the process exits, whether or not its output reached its end.
    pub fn ending_with(mut self, process: ProcessEnd) -> Self {
        self.orphaned = Some(Box::pin(orphaned(process.exit.clone())));
        self.process = Some(process);
        self
    }
}

/// Resolves `ORPHANED_OUTPUT_GRACE` after the process exited; never, if the watch ends without an exit.
async fn orphaned(mut rx: tokio::sync::watch::Receiver<Option<Exit>>) -> Exit {
    let exit = match rx.wait_for(Option::is_some).await {
        Ok(exit) => *exit,
        Err(_) => None,
    };
    let Some(exit) = exit else {
        return std::future::pending().await;
    };
    tokio::time::sleep_until(exit.at + ORPHANED_OUTPUT_GRACE).await;
    exit
}

/// The orphaned-output deadline, if there is a process to watch; else never.
async fn until_orphaned(orphaned: &mut Option<Pin<Box<dyn Future<Output = Exit> + Send>>>) -> Exit {
    match orphaned {
        Some(deadline) => deadline.as_mut().await,
        None => std::future::pending().await,
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Watched<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            let message = self.next().await;
            match (message, &self.progress) {
                (Some(message), Some(tap)) => match tap.take(message) {
                    Some(message) => return Some(message),
                    None => continue,
                },
                (message, _) => return message,
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.closed.cancel();
        self.inner.close().await
    }
}

impl<T: Transport<RoleClient>> Watched<T> {
    async fn next(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        if self.ended {
            return None;
        }
        let next = tokio::select! {
            // What the server wrote before it exited is still read first.
            biased;
            message = self.inner.receive() => Ok(message),
            exit = until_orphaned(&mut self.orphaned) => Err(exit),
        };
        let message = match next {
            Ok(message) => message,
            Err(exit) => {
                self.ended = true;
                self.orphaned = None;
                if let Some(process) = &self.process {
                    use std::os::unix::process::ExitStatusExt;
                    let status = match exit.status.map(|s| (s.code(), s.signal())) {
                        Some((Some(code), _)) => format!("the server exited with status {code}"),
                        Some((None, Some(signal))) => {
                            format!("the server was killed by signal {signal}")
                        }
                        _ => "the server exited".to_string(),
                    };
                    if let Ok(mut reason) = process.reason.lock() {
                        reason.get_or_insert(format!(
                            "{status}, but processes it started still hold its output open: Wharf stopped \
                             waiting for them"
                        ));
                    }
                }
                None
            }
        };
        if message.is_none() {
            self.closed.cancel();
        }
        message
    }
}

impl<T> Drop for Watched<T> {
    fn drop(&mut self) {
        self.closed.cancel();
    }
}
