//! Modern-era list changes and resource updates: 2026-07-28 has no unsolicited notifications, so the host opens a
//! `subscriptions/listen` stream for the lists the server says can change and the resources the user subscribed to,
//! re-opens it when the subscriptions change, and again (after a pause) if the server ends it.

use std::time::Duration;

use rmcp::model::{ServerNotification, SubscriptionFilter};
use rmcp::service::{Peer, RoleClient};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::events::{EventSink, HostEvent, ListKind};
use crate::protocol::{ListCapability, ServerCapabilities};

/// What to listen for, from the server's declared capabilities (list changes only; resource URIs are added as the
/// user subscribes); `None` when nothing can change.
pub fn filter_for(capabilities: &ServerCapabilities) -> Option<SubscriptionFilter> {
    let mut filter = SubscriptionFilter::default();
    if ListCapability::changes(capabilities.tools.as_ref()) {
        filter.tools_list_changed = Some(true);
    }
    if ListCapability::changes(capabilities.prompts.as_ref()) {
        filter.prompts_list_changed = Some(true);
    }
    if capabilities.resources.as_ref().and_then(|r| r.list_changed) == Some(true) {
        filter.resources_list_changed = Some(true);
    }
    let any = filter.tools_list_changed.is_some()
        || filter.prompts_list_changed.is_some()
        || filter.resources_list_changed.is_some();
    any.then_some(filter)
}

fn is_empty(filter: &SubscriptionFilter) -> bool {
    filter.tools_list_changed.is_none()
        && filter.prompts_list_changed.is_none()
        && filter.resources_list_changed.is_none()
        && filter
            .resource_subscriptions
            .as_ref()
            .is_none_or(Vec::is_empty)
}

/// Listens until the connection closes, with the filter `filters` holds now (re-opened when it changes). A stream
/// the server ends is re-opened after a pause; a server that refuses to listen is left alone until the filter
/// changes (its lists are re-read on demand).
/// Each filter comes with its version; `acked` holds the version the server acknowledged last, so that a
/// subscription returns once its updates can arrive.
#[allow(clippy::too_many_arguments)]
pub async fn run(
    peer: Peer<RoleClient>,
    mut filters: watch::Receiver<(u64, SubscriptionFilter)>,
    acked: watch::Sender<u64>,
    server: String,
    events: EventSink,
    closed: CancellationToken,
    tools_version: super::handler::ToolsVersion,
    flood: super::handler::Flood,
) {
    let mut pause = Duration::from_millis(500);
    loop {
        let (generation, filter) = filters.borrow_and_update().clone();
        if is_empty(&filter) {
            tokio::select! {
                _ = closed.cancelled() => return,
                changed = filters.changed() => if changed.is_err() { return },
            }
            continue;
        }
        let mut subscription = tokio::select! {
            _ = closed.cancelled() => return,
            opened = peer.listen(filter.clone()) => match opened {
                Ok(s) => {
                    acked.send_replace(generation);
                    s
                }
                Err(e) => {
                    tracing::info!(%server, "subscriptions/listen refused: {e}");
                    tokio::select! {
                        _ = closed.cancelled() => return,
                        changed = filters.changed() => if changed.is_err() { return },
                    }
                    continue;
                }
            },
        };
        let refilter = loop {
            let next = tokio::select! {
                _ = closed.cancelled() => return,
                changed = filters.changed() => {
                    if changed.is_err() { return }
                    break true;
                }
                next = subscription.next() => next,
            };
            let event = match next {
                Ok(Some(ServerNotification::ToolListChangedNotification(_))) => {
                    tools_version.bump();
                    list(ListKind::Tools)
                }
                Ok(Some(ServerNotification::PromptListChangedNotification(_))) => {
                    list(ListKind::Prompts)
                }
                Ok(Some(ServerNotification::ResourceListChangedNotification(_))) => {
                    list(ListKind::Resources)
                }
                Ok(Some(ServerNotification::ResourceUpdatedNotification(n))) => {
                    Some(Change::Updated(n.params.uri.to_string()))
                }
                Ok(Some(_)) => None,
                Ok(None) | Err(_) => break false,
            };
            if event.is_some() && !flood.admit(&server, &events) {
                continue;
            }
            match event {
                Some(Change::List(kind)) => events.emit(HostEvent::ListChanged {
                    server: server.clone(),
                    kind,
                }),
                Some(Change::Updated(uri)) => events.emit(HostEvent::ResourceUpdated {
                    server: server.clone(),
                    uri,
                }),
                None => {}
            }
        };
        if refilter {
            pause = Duration::from_millis(500);
            continue;
        }
        tokio::select! {
            _ = closed.cancelled() => return,
            _ = tokio::time::sleep(pause) => {}
        }
        pause = (pause * 2).min(Duration::from_secs(30));
    }
}

enum Change {
    List(ListKind),
    Updated(String),
}

fn list(kind: ListKind) -> Option<Change> {
    Some(Change::List(kind))
}
