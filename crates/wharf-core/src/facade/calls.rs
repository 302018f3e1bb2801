//! The tool calls a user started and may cancel, by the id the front end gave them (the window's call id, a
//! session command's id).

use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;

use tokio_util::sync::CancellationToken;

#[derive(Default)]
pub struct Calls(Mutex<HashMap<String, CancellationToken>>);

impl Calls {
    /// Runs `call` with a token that [`Calls::cancel`] of `id` cancels, for as long as it runs.
    pub async fn run<T, F, Fut>(&self, id: &str, call: F) -> T
    where
        F: FnOnce(CancellationToken) -> Fut,
        Fut: Future<Output = T>,
    {
        let token = CancellationToken::new();
        if let Ok(mut calls) = self.0.lock() {
            calls.insert(id.to_string(), token.clone());
        }
        let outcome = call(token).await;
        if let Ok(mut calls) = self.0.lock() {
            calls.remove(id);
        }
        outcome
    }

    /// False when no such call is running (it already ended).
    pub fn cancel(&self, id: &str) -> bool {
        match self.0.lock().ok().and_then(|calls| calls.get(id).cloned()) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// Nobody is left to wait for them (the window closes, the session quits): every call ends now, with its reply.
    pub fn cancel_all(&self) {
        if let Ok(calls) = self.0.lock() {
            calls.values().for_each(CancellationToken::cancel);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_running_call_is_cancelled_by_its_id_and_forgotten_when_it_ends() {
        let calls = std::sync::Arc::new(Calls::default());
        let (started_tx, started_rx) = tokio::sync::oneshot::channel();
        let running = {
            let calls = calls.clone();
            tokio::spawn(async move {
                calls
                    .run("c1", |token| async move {
                        let _ = started_tx.send(());
                        token.cancelled().await;
                        "cancelled"
                    })
                    .await
            })
        };
        started_rx.await.expect("the call started");
        assert!(!calls.cancel("c2"), "no such call");
        assert!(calls.cancel("c1"));
        assert_eq!(running.await.expect("joined"), "cancelled");
        assert!(!calls.cancel("c1"), "an ended call is forgotten");
    }
}
