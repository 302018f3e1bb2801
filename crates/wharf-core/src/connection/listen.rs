//! Modern-era list changes: 2026-07-28 has no unsolicited notifications, so the host opens a
//! `subscriptions/listen` stream for the lists the server says can change, and re-opens it if the server ends it.

use std::time::Duration;

use rmcp::model::{ServerNotification, SubscriptionFilter};
use rmcp::service::{Peer, RoleClient};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::events::{EventSink, HostEvent};

/// What to listen for, from the server's declared capabilities; `None` when nothing can change.
pub fn filter_for(capabilities: &Value) -> Option<SubscriptionFilter> {
    let changes = |kind: &str| capabilities[kind]["listChanged"].as_bool() == Some(true);
    let mut filter = SubscriptionFilter::default();
    if changes("tools") {
        filter.tools_list_changed = Some(true);
    }
    if changes("prompts") {
        filter.prompts_list_changed = Some(true);
    }
    if changes("resources") {
        filter.resources_list_changed = Some(true);
    }
    let any = filter.tools_list_changed.is_some()
        || filter.prompts_list_changed.is_some()
        || filter.resources_list_changed.is_some();
    any.then_some(filter)
}

/// Listens until the connection closes. A stream the server ends is re-opened after a pause; a server that refuses
/// to listen is left alone (its lists are re-read on demand).
pub async fn run(
    peer: Peer<RoleClient>,
    filter: SubscriptionFilter,
    server: String,
    events: EventSink,
    closed: CancellationToken,
) {
    let mut pause = Duration::from_millis(500);
    loop {
        let mut subscription = tokio::select! {
            _ = closed.cancelled() => return,
            opened = peer.listen(filter.clone()) => match opened {
                Ok(s) => s,
                Err(e) => {
                    tracing::info!(%server, "subscriptions/listen refused: {e}");
                    return;
                }
            },
        };
        loop {
            let next = tokio::select! {
                _ = closed.cancelled() => return,
                next = subscription.next() => next,
            };
            let kind = match next {
                Ok(Some(ServerNotification::ToolListChangedNotification(_))) => "tools",
                Ok(Some(ServerNotification::PromptListChangedNotification(_))) => "prompts",
                Ok(Some(ServerNotification::ResourceListChangedNotification(_))) => "resources",
                Ok(Some(_)) => continue,
                Ok(None) | Err(_) => break,
            };
            events.emit(HostEvent::ListChanged {
                server: server.clone(),
                kind,
            });
        }
        tokio::select! {
            _ = closed.cancelled() => return,
            _ = tokio::time::sleep(pause) => {}
        }
        pause = (pause * 2).min(Duration::from_secs(30));
    }
}
