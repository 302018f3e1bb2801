//! `wharf conversations`: the stored conversations listed, shown, exported and deleted (docs/cli.md). The
//! conversations are written the way the chat writes them, through wharf-core's store, into the scratch
//! directory's data folder.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use peers::*;
use serde_json::json;
use wharf_core::conversations::{ConversationStore, NewMessage, Role};

fn store_of(scratch: &Scratch) -> ConversationStore {
    let path = scratch.dir.path().join("data/wharf/conversations.db");
    ConversationStore::open(&path).unwrap().0
}

#[test]
fn conversations_are_listed_shown_exported_and_deleted() {
    let scratch = Scratch::new(json!({}));
    let out = scratch.run(&["conversations", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    assert_eq!(stdout_json(&out), json!([]));

    let store = store_of(&scratch);
    let c = store.create(Some("Notes")).unwrap();
    store
        .append(&c.id, NewMessage::text(Role::User, "read notes.md"))
        .unwrap();
    store
        .append(
            &c.id,
            NewMessage::text(Role::Tool, "the notes\x1b[2J\x1b]0;pwned\x07"),
        )
        .unwrap();
    store
        .append(&c.id, NewMessage::text(Role::Assistant, "Done."))
        .unwrap();

    let listed = stdout_json(&scratch.run(&["conversations", "list"]));
    assert_eq!(listed[0]["id"], c.id.as_str());
    assert_eq!(listed[0]["title"], "Notes");
    assert_eq!(listed[0]["messages"], 3);

    let out = scratch.run(&["conversations", "show", &c.id]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    assert!(
        !out.stdout.contains(&0x1b),
        "no escape reaches the terminal"
    );
    let shown = stdout_json(&out);
    let roles: Vec<&str> = shown["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "tool", "assistant"]);
    assert_eq!(shown["messages"][0]["text"], "read notes.md");

    let out = scratch.run(&["conversations", "export", &c.id]);
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.starts_with("# Notes\n"), "{md}");
    assert!(md.contains("## You\n\nread notes.md"), "{md}");
    assert!(md.contains("> the notes\\x1b[2J"), "{md}");
    assert!(!md.contains('\x1b') && !md.contains('\x07'), "{md}");
    let exported =
        stdout_json(&scratch.run(&["conversations", "export", &c.id, "--format", "json"]));
    assert_eq!(exported["messages"].as_array().unwrap().len(), 3);

    let out = scratch.run(&["conversations", "delete", &c.id]);
    assert_eq!(stdout_json(&out), json!({"deleted": c.id}));
    assert_eq!(
        stdout_json(&scratch.run(&["conversations", "list"])),
        json!([])
    );
    for args in [["show", &c.id], ["delete", &c.id], ["export", &c.id]] {
        let out = scratch.run(&[&["conversations"][..], &args[..]].concat());
        assert_eq!(out.status.code(), Some(2));
        let err = stderr_text(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(&format!("no conversation \"{}\"", c.id)),
            "{err}"
        );
    }
}

#[test]
fn an_unreadable_database_is_set_aside_and_the_user_told() {
    let scratch = Scratch::new(json!({}));
    let path = scratch.dir.path().join("data/wharf/conversations.db");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, b"not a database ".repeat(300)).unwrap();
    let out = scratch.run(&["conversations", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    assert_eq!(stdout_json(&out), json!([]));
    let err = stderr_text(&out);
    assert!(
        err.contains("moved to") && err.contains(".corrupt-"),
        "{err}"
    );
}

/// Several `wharf` processes started at once on a data folder with no database yet (what a server can do by running
/// `wharf` from its tool while the user's own starts): each opens the database that the first of them makes, and
/// none fails on tables another made a moment before.
#[test]
fn wharfs_started_together_on_a_new_database_all_open_it() {
    for round in 0..4 {
        let scratch = Scratch::new(json!({}));
        let children: Vec<_> = (0..6)
            .map(|_| {
                scratch
                    .wharf()
                    .args(["conversations", "list"])
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "round {round}: {}",
                stderr_text(&out)
            );
            assert_eq!(stdout_json(&out), json!([]));
        }
    }
}
