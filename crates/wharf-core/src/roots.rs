//! Roots as servers see them: the shared workspace's folders, each server's preference, and the bookkeeping that keeps
//! `notifications/roots/list_changed` from flooding (a legacy server hears of a change only if it fetched the roots
//! since the last time it heard).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::broker::Broker;
use crate::events::{EventSink, HostEvent, NoticeCode};
use crate::question::{AnswerAction, InputAnswer};
use crate::workspace::{Root, SharedWorkspace};

/// What one connection needs to answer roots requests.
#[derive(Debug, Clone)]
pub struct RootsAccess {
    pub server: String,
    pub workspace: Arc<SharedWorkspace>,
    /// The server's preference: share the workspace's roots, or show it none.
    pub expose: bool,
    /// Set when the server fetched the roots; cleared when it is told they changed.
    pub fetched: Arc<AtomicBool>,
    /// The deprecation notice is shown once per server.
    pub noticed: Arc<AtomicBool>,
    /// When the server last fetched the roots, and whether that fetch came soon after the one before.
    fetches: Arc<Mutex<FetchTimes>>,
}

/// A server may take in two fetches at once and apply the older list last. Wharf cannot see when a server has
/// applied a list, only when it fetched one: two fetches within [`SETTLE`] of each other are taken to have
/// overlapped, and once the server has been quiet for [`SETTLE`] it is told once more, so that its last fetch stands
/// alone and its list is the final one.
pub const SETTLE: Duration = Duration::from_secs(1);

#[derive(Debug, Default)]
struct FetchTimes {
    last: Option<Instant>,
    crowded: bool,
}

impl RootsAccess {
    pub fn new(server: &str, workspace: Arc<SharedWorkspace>, expose: bool) -> RootsAccess {
        RootsAccess {
            server: server.to_string(),
            workspace,
            expose,
            fetched: Arc::default(),
            noticed: Arc::default(),
            fetches: Arc::default(),
        }
    }

    /// The roots this server gets now, reported as a `roots` event (what the user would want to know was shared).
    /// `modern`: the request came through MRTR from a 2026-07-28 server, where roots are deprecated.
    pub fn answer(&self, broker: &Broker, events: &EventSink, modern: bool) -> Vec<Root> {
        if modern && !self.noticed.swap(true, Ordering::Relaxed) {
            events.emit(HostEvent::Notice {
                server: Some(self.server.clone()),
                code: NoticeCode::DeprecatedCapability,
                message: "roots is deprecated since 2026-07-28 (SEP-2577): prefer paths in tool arguments or in the \
                          server's configuration"
                    .into(),
            });
        }
        let declined = matches!(
            broker.roots_override(&self.server),
            Some(InputAnswer::Decline | InputAnswer::Cancel)
        );
        let shared = self.expose && !declined;
        // Marked before the roots are read, never after: a change landing between the two must find the server
        // "fetched" and tell it again, or the server would keep the roots read just before the change.
        self.fetched.store(true, Ordering::SeqCst);
        if let Ok(mut fetches) = self.fetches.lock() {
            let now = Instant::now();
            fetches.crowded |= fetches.last.is_some_and(|last| now - last < SETTLE);
            fetches.last = Some(now);
        }
        self.workspace.fetched();
        let roots = if shared {
            self.workspace.roots()
        } else {
            Vec::new()
        };
        events.emit(HostEvent::Roots {
            server: self.server.clone(),
            roots: roots.clone(),
            answer: if shared {
                AnswerAction::Accept
            } else {
                AnswerAction::Decline
            },
        });
        roots
    }

    /// When this server should be told once more that the roots changed (its last fetches came close together), if
    /// it should.
    pub fn recheck_at(&self) -> Option<Instant> {
        let fetches = self.fetches.lock().ok()?;
        fetches
            .crowded
            .then_some(fetches.last)
            .flatten()
            .map(|last| last + SETTLE)
    }

    /// True (once) when the time of [`RootsAccess::recheck_at`] has come: the server has been quiet since.
    pub fn take_recheck(&self, now: Instant) -> bool {
        let Ok(mut fetches) = self.fetches.lock() else {
            return false;
        };
        let due = fetches.crowded && fetches.last.is_some_and(|last| now >= last + SETTLE);
        if due {
            fetches.crowded = false;
        }
        due
    }

    /// True (once) when this server should hear that the roots changed: it fetched them since it last heard.
    pub fn take_fetched(&self) -> bool {
        self.fetched.swap(false, Ordering::SeqCst)
    }
}
