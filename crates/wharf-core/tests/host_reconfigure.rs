//! Changing the configuration while the host runs: untouched servers keep running, changed ones restart, removed
//! ones stop, new ones start.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use serde_json::json;
use wharf_core::ServerStatus;

#[tokio::test]
async fn reconfigure_keeps_what_did_not_change() {
    let host = peers::host(
        json!({"keep": peers::py_server(), "drop": peers::py_server(), "change": peers::py_server()}),
    );
    host.start_all().await;
    host.settle().await;
    let keep_pid = host.connection("keep").await.unwrap().pid().unwrap();
    let change_pid = host.connection("change").await.unwrap().pid().unwrap();
    let drop_pid = host.connection("drop").await.unwrap().pid().unwrap();

    let mut changed = peers::py_server();
    changed["env"] = json!({"WHARF_TEST": "changed"});
    host.reconfigure(peers::config(
        json!({"new": peers::py_server(), "keep": peers::py_server(), "change": changed}),
    ))
    .await;
    assert_eq!(
        host.server_names(),
        vec!["new", "keep", "change"],
        "the new order is the file's"
    );
    assert_eq!(
        host.connection("keep").await.unwrap().pid(),
        Some(keep_pid),
        "untouched: same process"
    );
    let new_change_pid = host.connection("change").await.unwrap().pid().unwrap();
    assert_ne!(new_change_pid, change_pid, "changed: restarted");
    assert!(host.connection("drop").await.is_err(), "removed");
    assert!(
        !std::path::Path::new(&format!("/proc/{drop_pid}/cmdline")).exists()
            || std::fs::read_to_string(format!("/proc/{drop_pid}/stat"))
                .unwrap_or_default()
                .contains(") Z"),
        "the removed server's process is gone"
    );
    // The new server starts in the background: wait for every server to settle before looking.
    let rows = host.settle().await;
    assert!(
        rows.iter().all(|r| r.status == ServerStatus::Ready),
        "{rows:?}"
    );
    host.shutdown().await;
}
