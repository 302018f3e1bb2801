#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `open_in_browser` end to end, with `$BROWSER` pointing at a script that records what it was asked to open.
//!
//! One test function in its own binary: it sets `BROWSER` for the whole process, and no other test may race on it.
//! webbrowser 1.x on Linux tries `$BROWSER` first (before xdg-open or any desktop check, so no graphical session is
//! needed) and, for anything but a known text-mode browser, spawns it in the background and returns without waiting:
//! the file is polled, with a deadline.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use wharf_core::elicitation::url_check::{open_in_browser, review, OpenError};

fn lines(file: &Path) -> Vec<String> {
    fs::read_to_string(file)
        .map(|s| s.lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Waits until the file holds `count` lines (a background browser writes when it gets to it).
fn wait_for_lines(file: &Path, count: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let now = lines(file);
        if now.len() >= count || Instant::now() > deadline {
            return now;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn opens_only_allowed_urls_through_browser_env() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("opened.txt");
    let script = dir.path().join("record-url");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\n",
            record.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let script = script.to_str().unwrap();
    // webbrowser splits $BROWSER on ':' (alternatives) and whitespace (arguments).
    assert!(
        !script.contains(':') && !script.contains(char::is_whitespace),
        "temporary directory unusable in $BROWSER: {script}"
    );
    std::env::set_var("BROWSER", script);

    let allowed = "https://example.com/consent?state=abc&next=%2Fdone#top";
    let r = review(allowed);
    assert!(r.may_open, "{r:?}");
    assert_eq!(r.normalized.as_deref(), Some(allowed));
    open_in_browser(&r).unwrap();
    assert_eq!(wait_for_lines(&record, 1), [allowed]);

    for refused in ["javascript:alert(document.cookie)", "http://evil.example/"] {
        let err = open_in_browser(&review(refused)).unwrap_err();
        assert!(matches!(err, OpenError::Refused(_)), "{refused}: {err}");
    }
    assert_eq!(lines(&record), [allowed]);

    // Had a refused URL been launched, it would have been launched before this one; processes are not ordered, but
    // by the time this one is recorded an earlier launch would in practice be too. No fixed sleep needed.
    let sentinel = "https://example.org/sentinel";
    open_in_browser(&review(sentinel)).unwrap();
    assert_eq!(wait_for_lines(&record, 2), [allowed, sentinel]);
}
