//! A call's progress: the notifications a server sends about a request, routed to the call that is waiting for it,
//! in the order the server wrote them.
//!
//! They are taken off the transport's stream as they are read ([`ProgressTap`], called by `watched.rs`), before
//! rmcp dispatches anything. rmcp hands each notification to the handler on a task of its own, which may run after
//! the call's answer was returned; routing them in the transport keeps them ahead of the answer without the call
//! having to yield to the scheduler on every answer.

use std::collections::{HashMap, VecDeque};
use std::future::poll_fn;
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};

use crate::events::{EventSink, HostEvent, NoticeCode};
use crate::question::Cause;
use rmcp::model::{
    JsonRpcMessage, JsonRpcNotification, ProgressNotificationParam, ProgressToken,
    ServerNotification,
};
use rmcp::service::{RoleClient, RxJsonRpcMessage};

/// Progress notifications routed to the call that asked for them. A notification can beat the registration of its
/// token (the server answers while the caller is still being handed its request id), so unclaimed ones wait in a
/// small buffer.
#[derive(Debug, Default, Clone)]
pub struct ProgressRouter(Arc<Mutex<RouterState>>);

#[derive(Debug, Default)]
struct RouterState {
    routes: HashMap<ProgressToken, Route>,
    unclaimed: VecDeque<ProgressNotificationParam>,
    /// What the user's calls in flight are doing ("calling tool x"), oldest first: a handshake-era request from the
    /// server names no call, so the dialog is badged with these.
    calls: Vec<(u64, Cause)>,
    next_call: u64,
}

const UNCLAIMED_KEPT: usize = 64;

/// Where one call's progress goes. The spec says progress increases with each notification: one that does not
/// (a server counting down, or replaying) is dropped, so it can neither confuse the user nor keep a call alive.
///
/// The queue lives in the router rather than in a channel per call: most calls never see progress, and a channel
/// would be allocated for each of them on the hottest path Wharf has.
#[derive(Debug, Default)]
struct Route {
    queue: VecDeque<ProgressNotificationParam>,
    /// The call waiting for its next notification.
    waiting: Option<Waker>,
    last: Option<f64>,
    /// The user was told this call's progress went backwards (once per call).
    told: bool,
}

enum Admitted {
    Pass,
    Dropped,
    /// Dropped, and the first of this call that the user must hear about: the last progress that passed.
    FirstDropped(f64),
}

impl Route {
    fn admit(&mut self, params: &ProgressNotificationParam) -> Admitted {
        match self.last {
            Some(last)
                if params.progress.partial_cmp(&last) != Some(std::cmp::Ordering::Greater) =>
            {
                if std::mem::replace(&mut self.told, true) {
                    Admitted::Dropped
                } else {
                    Admitted::FirstDropped(last)
                }
            }
            _ => {
                self.last = Some(params.progress);
                self.queue.push_back(params.clone());
                if let Some(waker) = self.waiting.take() {
                    waker.wake();
                }
                Admitted::Pass
            }
        }
    }
}

impl ProgressRouter {
    pub fn register(&self, token: ProgressToken) -> ProgressGuard {
        if let Ok(mut state) = self.0.lock() {
            let early: Vec<_> = state
                .unclaimed
                .iter()
                .filter(|p| p.progress_token == token)
                .cloned()
                .collect();
            state.unclaimed.retain(|p| p.progress_token != token);
            let mut route = Route::default();
            for p in &early {
                if !matches!(route.admit(p), Admitted::Pass) {
                    // Too early for a notice (the call is still being set up); the next one tells.
                    route.told = false;
                }
            }
            state.routes.insert(token.clone(), route);
        }
        ProgressGuard {
            router: self.clone(),
            token,
        }
    }

    /// Delivers to the waiting call, or keeps it for a call that has not registered yet. Returns the last progress
    /// shown when this notification is the first of its call not to increase it.
    fn route(&self, params: ProgressNotificationParam) -> Option<f64> {
        let Ok(mut state) = self.0.lock() else {
            return None;
        };
        if let Some(route) = state.routes.get_mut(&params.progress_token) {
            return match route.admit(&params) {
                Admitted::FirstDropped(last) => Some(last),
                Admitted::Pass | Admitted::Dropped => None,
            };
        }
        if state.unclaimed.len() == UNCLAIMED_KEPT {
            state.unclaimed.pop_front();
        }
        state.unclaimed.push_back(params);
        None
    }
}

impl ProgressRouter {
    /// A user's call starts; it is forgotten when the guard drops.
    pub fn begin_call(&self, cause: &Cause) -> CallInFlight {
        let id = self
            .0
            .lock()
            .map(|mut state| {
                state.next_call += 1;
                let id = state.next_call;
                state.calls.push((id, cause.clone()));
                id
            })
            .unwrap_or_default();
        CallInFlight {
            router: self.clone(),
            id,
        }
    }

    /// The likely cause of a server's request: the one call in flight (with its label), or all of them (with the
    /// label they share, if they share one).
    pub fn calls_in_flight(&self) -> Option<Cause> {
        let state = self.0.lock().ok()?;
        let (_, first) = state.calls.first()?;
        let text: Vec<&str> = state.calls.iter().map(|(_, c)| c.text.as_str()).collect();
        let shared = state.calls.iter().all(|(_, c)| c.origin == first.origin);
        Some(Cause::new(
            text.join(" or "),
            if shared { first.origin.clone() } else { None },
        ))
    }
}

pub struct CallInFlight {
    router: ProgressRouter,
    id: u64,
}

impl Drop for CallInFlight {
    fn drop(&mut self) {
        if let Ok(mut state) = self.router.0.lock() {
            state.calls.retain(|(id, _)| *id != self.id);
        }
    }
}

/// Receives the progress of one call; unregisters its token when dropped.
pub struct ProgressGuard {
    router: ProgressRouter,
    token: ProgressToken,
}

impl ProgressGuard {
    /// The next notification that passed, waiting for it. Cancel-safe: nothing is taken until it is returned.
    pub async fn recv(&mut self) -> ProgressNotificationParam {
        poll_fn(|cx| {
            let Ok(mut state) = self.router.0.lock() else {
                return Poll::Pending;
            };
            let Some(route) = state.routes.get_mut(&self.token) else {
                return Poll::Pending;
            };
            match route.queue.pop_front() {
                Some(p) => Poll::Ready(p),
                None => {
                    route.waiting = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
        .await
    }

    /// The next notification that passed, if one is waiting.
    pub fn try_recv(&mut self) -> Option<ProgressNotificationParam> {
        let mut state = self.router.0.lock().ok()?;
        state.routes.get_mut(&self.token)?.queue.pop_front()
    }
}

impl Drop for ProgressGuard {
    fn drop(&mut self) {
        if let Ok(mut state) = self.router.0.lock() {
            state.routes.remove(&self.token);
        }
    }
}

/// Delivers the progress notifications of one connection as the transport reads them.
#[derive(Clone)]
pub struct ProgressTap {
    pub(super) router: ProgressRouter,
    pub(super) events: EventSink,
    pub(super) server: String,
}

impl ProgressTap {
    /// The message for rmcp, or `None` when it was a progress notification, delivered here.
    pub fn take(
        &self,
        message: RxJsonRpcMessage<RoleClient>,
    ) -> Option<RxJsonRpcMessage<RoleClient>> {
        if let JsonRpcMessage::Notification(JsonRpcNotification {
            notification: ServerNotification::ProgressNotification(progress),
            ..
        }) = &message
        {
            self.deliver(progress.params.clone());
            return None;
        }
        Some(message)
    }

    /// Unclaimed progress waits for its call to register; progress of calls long gone is dropped.
    pub fn deliver(&self, params: ProgressNotificationParam) {
        let progress = params.progress;
        if let Some(last) = self.router.route(params) {
            self.events.emit(HostEvent::Notice {
                server: Some(self.server.clone()),
                code: NoticeCode::ProgressNotIncreasing,
                message: format!(
                    "the server sent progress {progress} after {last}, but progress must increase: its \
                     notifications that do not are not shown for this call"
                ),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::NumberOrString;

    fn token(n: i64) -> ProgressToken {
        ProgressToken(NumberOrString::Number(n))
    }

    #[test]
    fn progress_that_does_not_increase_is_dropped_and_told_once_per_call() {
        let router = ProgressRouter::default();
        // One arrives before its call registers: it is kept and checked like the rest.
        assert_eq!(
            router.route(ProgressNotificationParam::new(token(1), 5.0)),
            None
        );
        let mut call = router.register(token(1));
        let mut told = Vec::new();
        for progress in [4.0, 6.0, 6.0, 3.0, f64::NAN, 7.0] {
            told.extend(router.route(ProgressNotificationParam::new(token(1), progress)));
        }
        let mut passed = Vec::new();
        while let Some(p) = call.try_recv() {
            passed.push(p.progress);
        }
        assert_eq!(passed, [5.0, 6.0, 7.0]);
        assert_eq!(told, [5.0], "one notice, for the first backwards step");
        // Another call counts on its own.
        let mut other = router.register(token(2));
        assert_eq!(
            router.route(ProgressNotificationParam::new(token(2), 1.0)),
            None
        );
        assert_eq!(other.try_recv().map(|p| p.progress), Some(1.0));
    }

    /// A call waiting for progress is woken by the notification that passes, and only then has it.
    #[test]
    fn a_waiting_call_is_woken_by_its_progress() {
        use std::future::Future;
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::task::{Context, Wake};

        struct Count(AtomicUsize);
        impl Wake for Count {
            fn wake(self: Arc<Self>) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let woken = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(woken.clone());
        let mut cx = Context::from_waker(&waker);

        let router = ProgressRouter::default();
        let mut call = router.register(token(3));
        let mut next = Box::pin(call.recv());
        assert!(next.as_mut().poll(&mut cx).is_pending());
        // Another call's progress does not wake this one.
        let _other = router.register(token(4));
        router.route(ProgressNotificationParam::new(token(4), 1.0));
        assert_eq!(woken.0.load(Ordering::SeqCst), 0);
        router.route(ProgressNotificationParam::new(token(3), 2.0));
        assert_eq!(woken.0.load(Ordering::SeqCst), 1);
        match next.as_mut().poll(&mut cx) {
            Poll::Ready(p) => assert_eq!(p.progress, 2.0),
            Poll::Pending => panic!("woken but nothing to take"),
        }
    }

    /// The transport's tap delivers progress the moment it is read, before the answer that follows it reaches rmcp,
    /// and passes every other message on untouched.
    #[test]
    fn the_tap_takes_progress_off_the_stream_and_passes_the_rest() {
        let router = ProgressRouter::default();
        let tap = ProgressTap {
            router: router.clone(),
            events: EventSink::new(|_| {}),
            server: "s".into(),
        };
        let mut call = router.register(token(7));
        let read = |text: &str| -> RxJsonRpcMessage<RoleClient> {
            serde_json::from_str(text).expect("a server message")
        };
        let progress = read(
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}"#,
        );
        assert!(tap.take(progress).is_none(), "progress is the tap's");
        assert_eq!(call.try_recv().map(|p| p.progress), Some(1.0));
        for other in [
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
        ] {
            let message = read(other);
            let passed = tap.take(message.clone()).expect("passed on");
            assert_eq!(
                serde_json::to_value(&passed).ok(),
                serde_json::to_value(&message).ok()
            );
        }
    }
}
