//! Tool calls the UI started and may cancel, by the id the UI gave them.

use std::collections::HashMap;
use std::sync::Mutex;

use tokio_util::sync::CancellationToken;

#[derive(Default)]
pub struct Calls(Mutex<HashMap<String, CancellationToken>>);

impl Calls {
    pub fn insert(&self, id: &str, token: CancellationToken) {
        if let Ok(mut calls) = self.0.lock() {
            calls.insert(id.to_string(), token);
        }
    }

    pub fn remove(&self, id: &str) {
        if let Ok(mut calls) = self.0.lock() {
            calls.remove(id);
        }
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

    /// The app is closing: every call ends now, with its reply.
    pub fn cancel_all(&self) {
        if let Ok(calls) = self.0.lock() {
            calls.values().for_each(CancellationToken::cancel);
        }
    }
}
