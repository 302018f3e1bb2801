//! The output of the driver's process group (xvfb-run, dbus, tauri-driver, WebKitWebDriver and the app's own
//! stderr, which the drivers pass through), kept line by line so that a test can wait for a log line as an event
//! and a failure can show what the app said.

use std::io::{BufRead, BufReader, Read};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::watch;

use crate::{Error, Result};

/// At most this many lines are kept (a chatty run must not grow the test's memory).
const MAX_LINES: usize = 20_000;

pub(crate) struct Logs {
    lines: Mutex<Vec<String>>,
    /// Bumped after each line, so waiters wake on new output instead of polling.
    changed: watch::Sender<u64>,
}

impl Logs {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Logs {
            lines: Mutex::new(Vec::new()),
            changed: watch::channel(0).0,
        })
    }

    /// Reads `stream` to its end on a thread of its own (the pipe stays open as long as any process of the group
    /// holds it, which may outlive the test's async runtime).
    pub(crate) fn follow(self: &Arc<Self>, stream: impl Read + Send + 'static, tag: &'static str) {
        let logs = Arc::clone(self);
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines() {
                let Ok(line) = line else { break };
                logs.push(format!("{tag}{line}"));
            }
        });
    }

    fn push(&self, line: String) {
        {
            let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
            if lines.len() >= MAX_LINES {
                lines.drain(..MAX_LINES / 2);
            }
            lines.push(line);
        }
        self.changed.send_modify(|n| *n += 1);
    }

    pub(crate) fn count(&self, needle: &str) -> usize {
        let lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        lines.iter().filter(|line| line.contains(needle)).count()
    }

    pub(crate) fn contains(&self, needle: &str) -> bool {
        self.count(needle) > 0
    }

    /// The last `n` lines, for failure messages.
    pub(crate) fn tail(&self, n: usize) -> String {
        let lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        lines[lines.len().saturating_sub(n)..].join("\n")
    }

    /// Waits until at least `count` lines contain `needle`.
    pub(crate) async fn wait_for(
        &self,
        needle: &str,
        count: usize,
        timeout: Duration,
    ) -> Result<()> {
        let mut changed = self.changed.subscribe();
        let waited = tokio::time::timeout(timeout, async {
            loop {
                // Marked seen before counting: a line pushed between the count and the wait still wakes us.
                changed.borrow_and_update();
                if self.count(needle) >= count {
                    return;
                }
                if changed.changed().await.is_err() {
                    // Cannot happen while `self` holds the sender; waiting on is what the timeout then ends.
                    std::future::pending::<()>().await;
                }
            }
        })
        .await;
        waited.map_err(|_| Error::Timeout {
            what: format!(
                "{count} log line(s) containing {needle:?} (seen {})",
                self.count(needle)
            ),
            secs: timeout.as_secs(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn waits_for_lines_pushed_later_and_times_out_otherwise() {
        let logs = Logs::new();
        logs.push("one".into());
        let writer = Arc::clone(&logs);
        let waiting = tokio::spawn(async move {
            writer.push("refused a".into());
            writer.push("refused b".into());
        });
        logs.wait_for("refused", 2, Duration::from_secs(5))
            .await
            .expect("both lines");
        waiting.await.expect("writer");
        let err = logs
            .wait_for("refused", 3, Duration::from_millis(50))
            .await
            .expect_err("only two");
        assert!(err.to_string().contains("seen 2"), "{err}");
        assert_eq!(logs.tail(2), "refused a\nrefused b");
    }

    #[test]
    fn keeps_a_bounded_number_of_lines() {
        let logs = Logs::new();
        for i in 0..MAX_LINES + 10 {
            logs.push(i.to_string());
        }
        assert!(logs.lines.lock().expect("lock").len() <= MAX_LINES);
        assert!(logs.contains(&(MAX_LINES + 9).to_string()));
    }
}
