#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The conversations database across crashes: a writer killed with SIGKILL at random points, 200 times, never leaves
//! a database that does not open, and every message it said was committed is there, in order.
//!
//! The child process is this test binary itself, running the `#[ignore]`d `*_child` test below (it does nothing
//! unless `WHARF_CONVERSATIONS_TEST_PATH` is set, so `cargo test -- --ignored` is harmless).

#[path = "support/crash.rs"]
mod crash;
#[path = "support/seeded.rs"]
mod seeded;

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use wharf_core::conversations::{ConversationStore, NewMessage, Role};

const PATH_VAR: &str = "WHARF_CONVERSATIONS_TEST_PATH";

/// The text of the `n`th message: its number first, then a length that varies so that pages fill and split.
fn text_of(n: u64) -> String {
    format!("message {n} {}", "x".repeat((n * 37 % 3000) as usize))
}

/// Appends messages forever to the one conversation there is (made by the first child), saying `begin N` before
/// each and `committed N` after it returned.
#[test]
#[ignore = "a child process of killed_writers_lose_no_committed_message"]
fn conversation_writer_child() {
    let Some(path) = std::env::var_os(PATH_VAR) else {
        return;
    };
    let (store, notice) = ConversationStore::open(&PathBuf::from(path)).unwrap();
    assert_eq!(notice, None);
    let id = match store.list().unwrap().first() {
        Some(c) => c.id.clone(),
        None => store.create(Some("crash")).unwrap().id,
    };
    let mut n = store.messages(&id).unwrap().len() as u64;
    let mut out = std::io::stdout();
    crash::write_forever(|| {
        n += 1;
        writeln!(out, "begin {n}").unwrap();
        out.flush().unwrap();
        let role = if n.is_multiple_of(2) {
            Role::Assistant
        } else {
            Role::User
        };
        store
            .append(
                &id,
                NewMessage {
                    role,
                    text: text_of(n),
                    data: None,
                },
            )
            .unwrap();
        writeln!(out, "committed {n}").unwrap();
        out.flush().unwrap();
    })
}

#[test]
fn killed_writers_lose_no_committed_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wharf/conversations.db");
    let mut committed = 0;
    let kills = crash::Kills {
        label: "conversations crash test",
        seed_var: "WHARF_CONVERSATIONS_CRASH_SEED",
        count: 200,
        max_delay: Duration::from_millis(20),
        child: "conversation_writer_child",
        env: vec![(PATH_VAR, path.clone().into_os_string())],
        path: &path,
    };
    kills.run_with(
        "killed after `begin` and before `committed`",
        |kill, seed, output| {
            let last = |word: &str| {
                output
                    .lines()
                    .filter_map(|line| line.strip_prefix(word))
                    .filter_map(|n| n.trim().parse::<u64>().ok())
                    .next_back()
            };
            // The child's first message was committed before it said it was ready, so before its output began.
            let lowest = last("committed ").unwrap_or(committed + 1);
            let (store, notice) = ConversationStore::open(&path).unwrap_or_else(|e| {
                panic!("kill {kill}: the database does not open ({e}); seed {seed}")
            });
            assert_eq!(notice, None, "kill {kill}: set aside; seed {seed}");
            let conversation = &store.list().unwrap()[0];
            let messages = store.messages(&conversation.id).unwrap();
            // Every committed message is there, each in its place; at most the one in flight beyond them.
            assert!(
                messages.len() as u64 >= lowest && messages.len() as u64 <= lowest + 1,
                "kill {kill}: {} messages after {lowest} committed; seed {seed}",
                messages.len()
            );
            for (i, m) in messages.iter().enumerate() {
                let n = i as u64 + 1;
                assert_eq!(m.seq as u64, n, "kill {kill}; seed {seed}");
                assert_eq!(m.text, text_of(n), "kill {kill}: message {n}; seed {seed}");
            }
            committed = messages.len() as u64;
            let begun = last("begin ").unwrap_or(0);
            begun > last("committed ").unwrap_or(0)
        },
    );
    println!("conversations crash test: {committed} messages committed in all");
    // The search index kept up with every commit and every kill: SQLite's own check of it against the messages.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute(
        "INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')",
        [],
    )
    .unwrap();
    let (store, _) = ConversationStore::open(&path).unwrap();
    assert_eq!(
        store.search("message").unwrap().len(),
        (committed as usize).min(50),
        "a search finds them, up to its 50 hits"
    );
}
