//! Finding the processes a test started, wherever they ended up: each test puts a unique marker variable in the
//! environment of its driver (inherited by the app) and of its servers (through their config), so a scan of
//! `/proc/*/environ` finds them even after they left the process group (MCP servers get groups of their own).

use std::time::{Duration, Instant};

/// The variable that carries a test's marker.
pub(crate) const MARKER_VAR: &str = "WHARF_E2E_MARKER";

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Proc {
    pub pid: i32,
    pub comm: String,
}

impl std::fmt::Display for Proc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.pid, self.comm)
    }
}

/// Live processes whose environment holds `MARKER_VAR=marker`. Zombies have an empty environ and are not counted:
/// they hold no resources and their parent (or init) reaps them.
pub(crate) fn with_marker(marker: &str) -> Vec<Proc> {
    let needle = format!("{MARKER_VAR}={marker}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        // Processes come and go during the scan: one we cannot read has ended (or is not ours).
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ
            .split(|&b| b == 0)
            .any(|var| var == needle.as_bytes())
        {
            let comm = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
            found.push(Proc {
                pid,
                comm: comm.trim_end().to_owned(),
            });
        }
    }
    found
}

/// Whether `pid` still runs: it exists and is not a zombie. A zombie whose other threads still run ("Zl": the main
/// thread has exited, the process has not) counts as running; its environ is unreadable, so only a pid recorded
/// earlier can find it.
pub(crate) fn running(pid: i32) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return false;
    };
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .map(str::trim)
            .unwrap_or_default()
            .to_owned()
    };
    let zombie = field("State:").starts_with('Z');
    let threads: u32 = field("Threads:").parse().unwrap_or(1);
    !zombie || threads > 1
}

/// The processes of this test still running: those the marker finds now, and those of `known` (recorded while
/// they were alive) that still run.
pub(crate) fn still_running(marker: &str, known: &[Proc]) -> Vec<Proc> {
    let mut left = with_marker(marker);
    for proc in known {
        if running(proc.pid) && !left.iter().any(|p| p.pid == proc.pid) {
            left.push(proc.clone());
        }
    }
    left
}

/// Waits (bounded, re-scanning every 50 ms: a process that is not our child gives no exit event) until none of this
/// test's processes runs; returns those still running at the deadline.
pub(crate) async fn wait_all_ended(marker: &str, known: &[Proc], timeout: Duration) -> Vec<Proc> {
    let deadline = Instant::now() + timeout;
    loop {
        let left = still_running(marker, known);
        if left.is_empty() || Instant::now() >= deadline {
            return left;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits (bounded, re-checking every 20 ms) until none of `pids` exists any more, not even as a zombie: its parent
/// has reaped it. Returns those still there at the deadline.
pub(crate) async fn wait_reaped(pids: &[i32], timeout: Duration) -> Vec<i32> {
    let deadline = Instant::now() + timeout;
    loop {
        let left: Vec<i32> = pids
            .iter()
            .copied()
            .filter(|pid| std::path::Path::new(&format!("/proc/{pid}")).exists())
            .collect();
        if left.is_empty() || Instant::now() >= deadline {
            return left;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Sends `signal` to one process, or to a whole group when `pid` is negative. A process that has already gone
/// (ESRCH) is what we wanted anyway.
pub(crate) fn signal(pid: i32, signal: libc::c_int) {
    // SAFETY: kill(2) takes plain integers and touches no memory of ours.
    unsafe {
        libc::kill(pid, signal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn finds_a_marked_child_until_it_ends() {
        let marker = format!("unit-{}", std::process::id());
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .env(MARKER_VAR, &marker)
            .spawn()
            .expect("sleep");
        let pid = i32::try_from(child.id()).expect("pid");
        // The environ is readable once exec is done; spawn returns after exec on Linux.
        let found = with_marker(&marker);
        assert!(running(pid));
        assert_eq!(
            found,
            vec![Proc {
                pid,
                comm: "sleep".into()
            }]
        );
        signal(pid, libc::SIGKILL);
        child.wait().expect("reaped");
        assert!(!running(pid));
        assert!(wait_all_ended(&marker, &found, Duration::from_secs(5))
            .await
            .is_empty());
        assert!(with_marker("no-such-marker").is_empty());
    }
}
