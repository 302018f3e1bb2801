//! The fatigue guard: what keeps a server from wearing the user down with questions. One dialog per server at a time
//! (the others wait their turn), a server that asks too often is paused until the user allows it again, a question the
//! user declined is not asked again in this session, and URL elicitations the user opened wait here for the server's
//! `notifications/elicitation/complete`.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

/// More requests than this from one server within [`RATE_WINDOW`] pause it. A real flow asks a handful of questions;
/// a server past this is looping or nagging.
pub const DEFAULT_RATE_LIMIT: usize = 10;
pub const RATE_WINDOW: Duration = Duration::from_secs(60);

/// Whether a request may go to the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    Ask,
    /// The server is paused; `just_now` is true for the request that crossed the limit (say so once).
    Paused {
        just_now: bool,
    },
}

/// Records a request at `now` in `times` (oldest first) and says how many fall within the last `window`.
pub(crate) fn record(times: &mut VecDeque<Instant>, now: Instant, window: Duration) -> usize {
    while times
        .front()
        .is_some_and(|t| now.saturating_duration_since(*t) >= window)
    {
        times.pop_front();
    }
    times.push_back(now);
    times.len()
}

#[derive(Default)]
struct ServerState {
    turn: Arc<tokio::sync::Mutex<()>>,
    recent: VecDeque<Instant>,
    paused: bool,
    /// The user allowed this server after a pause: no limit for the rest of the session.
    unlimited: bool,
}

#[derive(Default)]
struct Completions {
    /// Opened URL elicitations (server, elicitationId) not yet completed, each with whoever waits for it.
    pending: HashMap<(String, String), Arc<Notify>>,
    completed: HashSet<(String, String)>,
}

pub struct ElicitationGuard {
    limit: usize,
    servers: Mutex<HashMap<String, ServerState>>,
    declined: Mutex<HashSet<(String, String)>>,
    completions: Mutex<Completions>,
}

impl Default for ElicitationGuard {
    fn default() -> Self {
        Self::with_limit(DEFAULT_RATE_LIMIT)
    }
}

impl std::fmt::Debug for ElicitationGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ElicitationGuard")
            .field("limit", &self.limit)
            .finish()
    }
}

impl ElicitationGuard {
    pub fn with_limit(limit: usize) -> Self {
        ElicitationGuard {
            limit,
            servers: Mutex::default(),
            declined: Mutex::default(),
            completions: Mutex::default(),
        }
    }

    /// Counts a request from `server` and says whether it may reach the user.
    pub fn admit(&self, server: &str) -> Admission {
        self.admit_at(server, Instant::now())
    }

    fn admit_at(&self, server: &str, now: Instant) -> Admission {
        let Ok(mut servers) = self.servers.lock() else {
            return Admission::Ask;
        };
        let state = servers.entry(server.to_string()).or_default();
        if state.unlimited {
            return Admission::Ask;
        }
        if state.paused {
            return Admission::Paused { just_now: false };
        }
        if record(&mut state.recent, now, RATE_WINDOW) > self.limit {
            state.paused = true;
            return Admission::Paused { just_now: true };
        }
        Admission::Ask
    }

    /// The user's "allow" after a pause: the server may ask again, without a limit for this session.
    pub fn resume(&self, server: &str) -> bool {
        let Ok(mut servers) = self.servers.lock() else {
            return false;
        };
        let state = servers.entry(server.to_string()).or_default();
        let was_paused = state.paused;
        state.paused = false;
        state.unlimited = true;
        state.recent.clear();
        was_paused
    }

    pub fn paused(&self, server: &str) -> bool {
        self.servers
            .lock()
            .map(|s| s.get(server).is_some_and(|state| state.paused))
            .unwrap_or(false)
    }

    /// Held while one of `server`'s questions is on screen: the next one waits for it.
    pub async fn turn(&self, server: &str) -> tokio::sync::OwnedMutexGuard<()> {
        let turn = self
            .servers
            .lock()
            .map(|mut s| s.entry(server.to_string()).or_default().turn.clone())
            .unwrap_or_default();
        turn.lock_owned().await
    }

    pub fn declined_before(&self, server: &str, question: &str) -> bool {
        self.declined
            .lock()
            .map(|d| d.contains(&(server.to_string(), question.to_string())))
            .unwrap_or(false)
    }

    pub fn remember_decline(&self, server: &str, question: &str) {
        if let Ok(mut d) = self.declined.lock() {
            d.insert((server.to_string(), question.to_string()));
        }
    }

    /// A URL elicitation was opened: its completion notification is now expected. Returns what to wait on.
    pub fn expect_completion(&self, server: &str, id: &str) -> Arc<Notify> {
        let key = (server.to_string(), id.to_string());
        let Ok(mut c) = self.completions.lock() else {
            return Arc::new(Notify::new());
        };
        c.pending
            .entry(key)
            .or_insert_with(|| Arc::new(Notify::new()))
            .clone()
    }

    /// `notifications/elicitation/complete`: true when it completes an elicitation Wharf opened and was waiting
    /// for; unknown and repeated ids are ignored (false), as the spec asks.
    pub fn complete(&self, server: &str, id: &str) -> bool {
        let key = (server.to_string(), id.to_string());
        let Ok(mut c) = self.completions.lock() else {
            return false;
        };
        if c.completed.contains(&key) {
            return false;
        }
        match c.pending.remove(&key) {
            Some(waiter) => {
                // notify_one stores a permit: a waiter that starts waiting after this still wakes.
                waiter.notify_one();
                c.completed.insert(key);
                true
            }
            None => false,
        }
    }

    pub fn is_completed(&self, server: &str, id: &str) -> bool {
        self.completions
            .lock()
            .map(|c| c.completed.contains(&(server.to_string(), id.to_string())))
            .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_over_the_limit_is_paused_until_the_user_allows_it() {
        let guard = ElicitationGuard::with_limit(3);
        let start = Instant::now();
        for i in 0..3 {
            assert_eq!(
                guard.admit_at("s", start + Duration::from_secs(i)),
                Admission::Ask
            );
        }
        assert_eq!(
            guard.admit_at("s", start + Duration::from_secs(4)),
            Admission::Paused { just_now: true }
        );
        assert_eq!(
            guard.admit_at("s", start + Duration::from_secs(200)),
            Admission::Paused { just_now: false },
            "a pause lasts until the user allows the server again, not until the window passes"
        );
        assert_eq!(guard.admit_at("other", start), Admission::Ask);
        assert!(guard.paused("s"));
        assert!(guard.resume("s"));
        for i in 0..20 {
            assert_eq!(
                guard.admit_at("s", start + Duration::from_secs(300 + i)),
                Admission::Ask
            );
        }
    }

    #[test]
    fn requests_spread_over_time_are_never_paused() {
        let guard = ElicitationGuard::with_limit(3);
        let start = Instant::now();
        for i in 0..50 {
            assert_eq!(
                guard.admit_at("s", start + Duration::from_secs(30 * i)),
                Admission::Ask
            );
        }
    }

    #[test]
    fn declines_are_remembered_per_server_and_question() {
        let guard = ElicitationGuard::default();
        guard.remember_decline("s", "q1");
        assert!(guard.declined_before("s", "q1"));
        assert!(!guard.declined_before("s", "q2"));
        assert!(!guard.declined_before("t", "q1"));
    }

    #[tokio::test]
    async fn a_completion_wakes_its_waiter_once_and_unknown_or_repeated_ids_are_ignored() {
        let guard = ElicitationGuard::default();
        assert!(!guard.complete("s", "never-opened"));
        let waiter = guard.expect_completion("s", "e1");
        assert!(!guard.complete("t", "e1"), "another server's id");
        assert!(guard.complete("s", "e1"));
        assert!(!guard.complete("s", "e1"), "repeated");
        // The permit was stored: waiting after the notification still returns.
        tokio::time::timeout(Duration::from_secs(5), waiter.notified())
            .await
            .unwrap();
        assert!(guard.is_completed("s", "e1"));
    }

    #[tokio::test]
    async fn one_question_per_server_at_a_time() {
        let guard = Arc::new(ElicitationGuard::default());
        let first = guard.turn("s").await;
        let other_server = guard.turn("t").await;
        let g = guard.clone();
        let second = tokio::spawn(async move {
            let _turn = g.turn("s").await;
        });
        tokio::task::yield_now().await;
        assert!(!second.is_finished());
        drop(first);
        tokio::time::timeout(Duration::from_secs(5), second)
            .await
            .unwrap()
            .unwrap();
        drop(other_server);
    }
}
