//! A transport wrapper that tells when the server's side has gone: rmcp ends its service loop quietly, and the host
//! needs to know at once to fail in-flight calls with a reason and to restart the server.

use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio_util::sync::CancellationToken;

pub struct Watched<T> {
    inner: T,
    closed: CancellationToken,
}

impl<T> Watched<T> {
    pub fn new(inner: T) -> (Self, CancellationToken) {
        let closed = CancellationToken::new();
        (
            Watched {
                inner,
                closed: closed.clone(),
            },
            closed,
        )
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
        let message = self.inner.receive().await;
        if message.is_none() {
            self.closed.cancel();
        }
        message
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.closed.cancel();
        self.inner.close().await
    }
}

impl<T> Drop for Watched<T> {
    fn drop(&mut self) {
        self.closed.cancel();
    }
}
