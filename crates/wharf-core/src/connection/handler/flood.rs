//! What a server may send as often as it likes and the user sees one by one (log messages, resource updates, list
//! changes) is passed at most [`PER_SECOND`] a second; a flood is summarised in one notice.

use std::sync::{Arc, Mutex};

use crate::events::{EventSink, HostEvent, NoticeCode};

/// More messages of one kind than this in a second from one server are not passed on one by one.
pub const PER_SECOND: usize = 50;

/// The longest a flood goes unreported.
pub const FLOOD_REPORT_AFTER: std::time::Duration = std::time::Duration::from_secs(10);

/// Counts a server's messages of one kind per second; past [`PER_SECOND`] they are dropped. A flood gets one notice,
/// a second after it ends, with how many were dropped (a flood that never ends, one every [`FLOOD_REPORT_AFTER`]):
/// a notice a second would be a flood of its own.
#[derive(Debug, Clone)]
pub struct Flood {
    state: Arc<Mutex<FloodState>>,
    /// What is counted, in the notice's words ("log messages").
    what: &'static str,
    /// The notice's code.
    code: NoticeCode,
}

/// The flood of log messages (`notifications/message`).
pub type LogFlood = Flood;

impl Default for Flood {
    fn default() -> Self {
        Flood::of("log messages", NoticeCode::LogFlood)
    }
}

impl Flood {
    fn of(what: &'static str, code: NoticeCode) -> Flood {
        Flood {
            state: Arc::default(),
            what,
            code,
        }
    }

    /// Resource updates and list changes (either era).
    pub fn changes() -> Flood {
        Flood::of(
            "resource updates and list changes",
            NoticeCode::NotificationFlood,
        )
    }
}

#[derive(Debug, Default)]
struct FloodState {
    window: Option<std::time::Instant>,
    passed: usize,
    /// Dropped since the flood's notice was last sent.
    dropped: usize,
    /// A task is watching the flood, to report it when it ends.
    flooding: bool,
}

impl Flood {
    pub fn admit(&self, server: &str, events: &EventSink) -> bool {
        let Ok(mut state) = self.state.lock() else {
            return true;
        };
        let now = std::time::Instant::now();
        let started = *state.window.get_or_insert(now);
        if now.duration_since(started) >= std::time::Duration::from_secs(1) {
            state.window = Some(now);
            state.passed = 0;
        }
        if state.passed < PER_SECOND {
            state.passed += 1;
            return true;
        }
        state.dropped += 1;
        if !state.flooding {
            state.flooding = true;
            tokio::spawn(self.clone().report(server.to_string(), events.clone()));
        }
        false
    }

    /// Waits for the flood to end (a second without drops), then sends its one notice.
    async fn report(self, server: String, events: EventSink) {
        let began = tokio::time::Instant::now();
        let (mut counted, mut seconds) = (0, 0u64);
        loop {
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            let Ok(mut state) = self.state.lock() else {
                return;
            };
            let ended = state.dropped == counted;
            if !ended {
                seconds += 1;
            }
            if ended || began.elapsed() >= FLOOD_REPORT_AFTER {
                let dropped = std::mem::take(&mut state.dropped);
                state.flooding = false;
                drop(state);
                events.emit(HostEvent::Notice {
                    server: Some(server),
                    code: self.code,
                    message: format!(
                        "{dropped} more {} were not shown: the server sent over {PER_SECOND} a second for about \
                         {seconds} s",
                        self.what
                    ),
                });
                return;
            }
            counted = state.dropped;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_flood_of_changes_passes_fifty_a_second_and_is_told_once() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = {
            let seen = seen.clone();
            EventSink::new(move |e| {
                if let HostEvent::Notice { code, message, .. } = e {
                    seen.lock().unwrap().push((code, message));
                }
            })
        };
        let flood = Flood::changes();
        let passed = (0..10_000).filter(|_| flood.admit("s", &sink)).count();
        assert_eq!(passed, PER_SECOND);
        tokio::time::sleep(std::time::Duration::from_secs(3)).await;
        let seen = seen.lock().unwrap().clone();
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert_eq!(seen[0].0.as_str(), "notification_flood");
        assert!(
            seen[0].1.starts_with("9950 more resource updates"),
            "{seen:?}"
        );
    }
}
