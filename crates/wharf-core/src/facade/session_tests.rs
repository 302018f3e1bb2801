//! The session and its command table, driven as a front end drives them: by name, with the arguments as JSON.

use std::sync::Arc;

use serde_json::{json, Value};

use super::*;
use crate::auth::TokenStore;
use crate::broker::DeclineAll;
use crate::facade::{dispatch, ChatPaths, HostBuilder};
use crate::EventSink;

fn session_on(dir: &tempfile::TempDir, text: &str) -> Session {
    let path = dir.path().join("mcp.json");
    std::fs::write(&path, text).expect("write the configuration");
    let config = Config::load(&path).expect("load");
    let parts = SessionParts {
        demo: None,
        report: StartupReport::default(),
        questions: Some(Arc::new(QuestionQueue::default())),
        redactor: Redactor::default(),
        chat: SessionChat::later(ChatPaths {
            grants: dir.path().join("grants.json"),
            conversations: dir.path().join("conversations.db"),
        }),
        desktop: Box::new(NoDesktop),
        views: None,
    };
    HostBuilder::new(config, Arc::new(DeclineAll))
        .tokens(TokenStore::memory())
        .session(EventSink::discard(), parts)
}

#[tokio::test]
async fn an_edit_is_saved_and_applied_to_the_running_host() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = session_on(&dir, r#"{"servers": {}}"#);
    assert!(session.host().server_names().is_empty());

    let entries = dispatch(
        &session,
        "save_server",
        json!({"previousName": null, "entry": {"name": "echo", "type": "stdio", "command": "echo-server"}}),
    )
    .await
    .expect("saved");
    assert_eq!(entries[0]["name"], "echo", "{entries}");
    assert_eq!(session.host().server_names(), ["echo"]);
    let file = std::fs::read_to_string(dir.path().join("mcp.json")).expect("read back");
    assert!(file.contains("echo-server"), "{file}");

    let removed = dispatch(&session, "remove_server", json!({"name": "echo"}))
        .await
        .expect("removed");
    assert_eq!(removed, json!([]));
    assert!(session.host().server_names().is_empty());
    let gone = dispatch(&session, "remove_server", json!({"name": "echo"}))
        .await
        .expect_err("not there");
    assert_eq!(gone.code, ErrorCode::UnknownServer);
    session.shutdown().await;
}

#[tokio::test]
async fn arguments_are_typed_and_unknown_commands_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = session_on(&dir, r#"{"servers": {}}"#);
    let wrong = dispatch(&session, "stop_server", json!({"server": "a"}))
        .await
        .expect_err("stop_server takes a name");
    assert_eq!(wrong.code, ErrorCode::InvalidCommand);
    assert!(wrong.message.contains("name"), "{wrong:?}");
    let unknown = dispatch(&session, "format_disk", json!({}))
        .await
        .expect_err("no such command");
    assert_eq!(unknown.code, ErrorCode::InvalidCommand);
    assert!(unknown.message.contains("format_disk"), "{unknown:?}");
    let expanded = dispatch(
        &session,
        "expand_template",
        json!({"template": "demo://{id}", "values": {"id": "a b"}}),
    )
    .await
    .expect("expands");
    assert_eq!(expanded, json!("demo://a%20b"));
    session.shutdown().await;
}

#[tokio::test]
async fn a_session_name_that_is_also_a_window_command_means_the_sessions_own() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = session_on(&dir, r#"{"servers": {}}"#);
    // The window's `log_level` reads a level (none for any name); the session's sets one, for a server that must exist.
    let set = dispatch(
        &session,
        "log_level",
        json!({"server": "nosuch", "level": "info"}),
    )
    .await
    .expect_err("the session's log_level sets a level");
    assert_eq!(set.code, ErrorCode::Config);
    assert!(set.message.contains("nosuch"), "{set:?}");
    // Its other commands keep their contract's shapes: `servers` is the summaries, `open` the roots.
    assert_eq!(
        dispatch(&session, "servers", json!({}))
            .await
            .expect("servers"),
        json!([])
    );
    let opened = dispatch(&session, "open", json!({"path": dir.path()}))
        .await
        .expect("open");
    assert_eq!(
        opened["roots"].as_array().map(Vec::len),
        Some(1),
        "{opened}"
    );
    let missing: Value = dispatch(&session, "open", json!({}))
        .await
        .map_err(|e| json!(e.message))
        .expect_err("no path");
    assert_eq!(missing, json!("open and close need a \"path\""));
    session.shutdown().await;
}

#[tokio::test]
async fn the_window_only_commands_say_this_front_end_has_no_dialogs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = session_on(&dir, r#"{"servers": {}}"#);
    let error = dispatch(&session, "open_folder_dialog", json!({}))
        .await
        .expect_err("no dialogs");
    assert_eq!(error.code, ErrorCode::Dialog);
    session.shutdown().await;
}

#[tokio::test]
async fn a_front_end_without_views_answers_every_view_command_with_no_views() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = session_on(&dir, r#"{"servers": {}}"#);
    for (name, args) in [
        ("view_message", json!({"viewId": "v", "message": {}})),
        ("set_view_theme", json!({"theme": "dark"})),
        ("close_view", json!({"viewId": "v"})),
        ("forget_view", json!({"viewId": "v"})),
        (
            "view_stalled",
            json!({"viewId": "v", "stage": "sandbox_loaded"}),
        ),
        ("open_call_view", json!({"conversation": "c", "call": "x"})),
        ("tools_with_views", json!({})),
    ] {
        let refused = dispatch(&session, name, args).await.expect_err(name);
        assert_eq!(refused.code, ErrorCode::NoViews, "{name}");
    }
    session.shutdown().await;
}
