//! What the user chose per server that outlives a connection: resource subscriptions and the log level, applied
//! again to a restarted server.

use super::Host;
use crate::connection::ConnectionError;

impl Host {
    /// Subscribes to `uri` on `server` (and again after each restart of it), or unsubscribes.
    pub async fn subscribe(
        &self,
        server: &str,
        uri: &str,
        on: bool,
    ) -> Result<(), ConnectionError> {
        let slot = self
            .slot(server)
            .ok_or_else(|| ConnectionError::Config(format!("there is no server \"{server}\"")))?;
        let conn = self.connection(server).await?;
        if on {
            conn.subscribe(uri).await?;
        } else {
            conn.unsubscribe(uri).await?;
        }
        if let Ok(mut set) = slot.subscriptions.lock() {
            if on {
                set.insert(uri.to_string());
            } else {
                set.remove(uri);
            }
        }
        Ok(())
    }

    /// Sets the log level of `server` (kept for its restarts).
    pub async fn set_log_level(&self, server: &str, level: &str) -> Result<(), ConnectionError> {
        let slot = self
            .slot(server)
            .ok_or_else(|| ConnectionError::Config(format!("there is no server \"{server}\"")))?;
        self.connection(server).await?.set_log_level(level).await?;
        if let Ok(mut chosen) = slot.log_level.lock() {
            *chosen = Some(level.to_string());
        }
        Ok(())
    }

    /// The log level the user chose for `server`, if any.
    pub fn log_level(&self, server: &str) -> Option<String> {
        self.slot(server)
            .and_then(|slot| slot.log_level.lock().ok().and_then(|l| l.clone()))
    }

    /// Forgets the chosen level: 2026-07-28 requests stop asking for log messages. The handshake era has no way to
    /// take a level back; its server keeps the last one until it restarts.
    pub async fn clear_log_level(&self, server: &str) -> Result<(), ConnectionError> {
        let slot = self
            .slot(server)
            .ok_or_else(|| ConnectionError::Config(format!("there is no server \"{server}\"")))?;
        if let Ok(mut chosen) = slot.log_level.lock() {
            *chosen = None;
        }
        if let Ok(conn) = self.connection(server).await {
            conn.clear_log_level();
        }
        Ok(())
    }
}
