//! Telling servers that the roots changed, so that each ends with the final roots however the changes and its own
//! fetches interleave.

use std::sync::Arc;
use std::time::Duration;

use super::{Slot, SlotState};
use crate::connection::{ConnectContext, Connection};
use crate::events::HostEvent;

/// How long the workspace must stay unchanged before servers hear of a burst of changes: one notification per burst
/// leaves a server one fetch, of the final roots, instead of several that it may take in at once.
const ROOTS_QUIET: Duration = Duration::from_millis(50);
/// A workspace that never stops changing is still announced this often.
const ROOTS_MAX_DELAY: Duration = Duration::from_millis(500);

/// Each time the workspace changes (a burst counts once): every ready server that fetched the roots hears
/// `roots/list_changed`, and the front ends get the new roots. A server whose fetches came close together hears it
/// once more when it has been quiet a while (see [`crate::roots::SETTLE`]). Ends when the host is gone.
pub(super) async fn announce_roots(
    slots: std::sync::Weak<std::sync::RwLock<Vec<Arc<Slot>>>>,
    ctx: ConnectContext,
    stop: tokio_util::sync::CancellationToken,
) {
    let mut changed = ctx.workspace.subscribe();
    let mut fetched = ctx.workspace.subscribe_fetches();
    loop {
        let Some(ready) = ready_connections(&slots) else {
            return;
        };
        let recheck = ready.iter().filter_map(|c| c.roots().recheck_at()).min();
        let recheck_due = async {
            match recheck {
                Some(at) => tokio::time::sleep_until(at.into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = stop.cancelled() => return,
            // A fetch may make a recheck due: look again.
            result = fetched.changed() => if result.is_err() { return } else { continue },
            _ = recheck_due => {
                let now = std::time::Instant::now();
                let due = ready.iter().filter(|c| c.roots().take_recheck(now));
                futures::future::join_all(due.map(|c| c.notify_roots_changed())).await;
                continue;
            }
            result = changed.changed() => if result.is_err() { return },
        }
        let burst_end = tokio::time::Instant::now() + ROOTS_MAX_DELAY;
        loop {
            let quiet_until = (tokio::time::Instant::now() + ROOTS_QUIET).min(burst_end);
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = tokio::time::sleep_until(quiet_until) => break,
                result = changed.changed() => if result.is_err() { return },
            }
        }
        let Some(ready) = ready_connections(&slots) else {
            return;
        };
        futures::future::join_all(ready.iter().map(|c| c.notify_roots_changed())).await;
        ctx.events.emit(HostEvent::RootsChanged {
            roots: ctx.workspace.roots(),
        });
    }
}

/// The connections of the servers that are ready now; None once the host is gone.
fn ready_connections(
    slots: &std::sync::Weak<std::sync::RwLock<Vec<Arc<Slot>>>>,
) -> Option<Vec<Arc<Connection>>> {
    let slots = slots.upgrade()?;
    let ready = slots
        .read()
        .map(|s| {
            s.iter()
                .filter_map(|slot| match &*slot.state.borrow() {
                    SlotState::Ready(conn) => Some(conn.clone()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    Some(ready)
}
