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

/// What the guard says about one question before any dialog.
#[derive(Debug)]
pub enum Screened {
    /// It goes to the user; the turn is held until the answer is recorded.
    Ask(Turn),
    /// The user declined this very question earlier in the session.
    DeclinedBefore,
    /// The server is paused; `just_now` is true for the question that crossed the limit (say so once).
    Paused { just_now: bool },
}

/// How the user answered, as far as the guard keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answered<'a> {
    /// Accepted; a URL elicitation's id, whose completion the server may send.
    Accepted {
        elicitation_id: Option<&'a str>,
    },
    Declined,
    Cancelled,
}

/// One server's question on screen: the next one from that server waits until this is recorded or dropped.
#[derive(Debug)]
pub struct Turn(#[allow(dead_code)] tokio::sync::OwnedMutexGuard<()>);

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

    /// Before a dialog: a question declined before is not asked again, a question counts toward the server's pause,
    /// and one that may go to the user waits for the server's turn.
    pub async fn screen(&self, server: &str, question: &str) -> Screened {
        if self.declined_before(server, question) {
            return Screened::DeclinedBefore;
        }
        if let Admission::Paused { just_now } = self.admit(server) {
            return Screened::Paused { just_now };
        }
        Screened::Ask(Turn(self.turn(server).await))
    }

    /// After the dialog: a decline is remembered for the session, and an accepted URL's completion is expected from
    /// now on (before its page opens: a fast server may complete it at once). Ends the turn.
    pub fn record(&self, server: &str, question: &str, answer: &Answered<'_>, turn: Turn) {
        match answer {
            Answered::Declined => self.remember_decline(server, question),
            Answered::Accepted {
                elicitation_id: Some(id),
            } => {
                self.expect_completion(server, id);
            }
            Answered::Accepted {
                elicitation_id: None,
            }
            | Answered::Cancelled => {}
        }
        drop(turn);
    }

    /// Counts a request from `server` and says whether it may reach the user.
    fn admit(&self, server: &str) -> Admission {
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

    fn declined_before(&self, server: &str, question: &str) -> bool {
        self.declined
            .lock()
            .map(|d| d.contains(&(server.to_string(), question.to_string())))
            .unwrap_or(false)
    }

    fn remember_decline(&self, server: &str, question: &str) {
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

    #[tokio::test]
    async fn a_screened_question_holds_its_turn_until_its_answer_is_recorded() {
        let guard = Arc::new(ElicitationGuard::default());
        let Screened::Ask(turn) = guard.screen("s", "q").await else {
            panic!("a first question goes to the user");
        };
        // Another question of the same server waits for the turn; one of another server does not.
        let g = guard.clone();
        let waiting = tokio::spawn(async move { g.screen("s", "other").await });
        let elsewhere = guard.screen("t", "q").await;
        assert!(matches!(elsewhere, Screened::Ask(_)));
        guard.record("s", "q", &Answered::Declined, turn);
        let next = tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .unwrap()
            .unwrap();
        let Screened::Ask(turn) = next else {
            panic!("the waiting question goes to the user once the turn is free");
        };
        // The decline is kept: the same question is answered without asking, a new one is not.
        assert!(matches!(
            guard.screen("s", "q").await,
            Screened::DeclinedBefore
        ));
        // An accepted URL expects its completion from the server.
        guard.record(
            "s",
            "other",
            &Answered::Accepted {
                elicitation_id: Some("e1"),
            },
            turn,
        );
        assert!(guard.complete("s", "e1"));
        let Screened::Ask(turn) = guard.screen("s", "third").await else {
            panic!("the turn was given back by the record");
        };
        guard.record("s", "third", &Answered::Cancelled, turn);
        assert!(matches!(guard.screen("s", "third").await, Screened::Ask(_)));
    }
}
