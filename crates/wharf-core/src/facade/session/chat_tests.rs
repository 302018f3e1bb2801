//! Chat's part of the session against a real `ChatService` on files of a temporary folder (no window, no model).

use super::*;
use crate::approval::pin::{Pinned, ServerDefinition};
use crate::approval::ToolCallChoice;
use crate::conversations::{NewMessage, Role};
use crate::facade::chat::ModelUnavailable;
use crate::facade::links::LinkError;
use crate::facade::ErrorCode;
use crate::ToolInfo;
use serde_json::json;

fn config(text: &str) -> Config {
    Config::parse(std::path::Path::new("/x/mcp.json"), text, &|_| None).expect("parses")
}

fn paths(dir: &tempfile::TempDir) -> ChatPaths {
    ChatPaths {
        grants: dir.path().join("tool-grants.json"),
        conversations: dir.path().join("data/conversations.db"),
    }
}

const WITH_MODEL: &str = r#"{"servers": {}, "chat": {"provider": {"kind": "openai", "baseUrl": "http://127.0.0.1:9/v1", "model": "qwen3"}}}"#;

#[test]
fn the_status_names_the_model_or_says_how_to_configure_one_and_follows_the_configuration() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (chat, notices) = SessionChat::open(&config(r#"{"servers": {}}"#), &paths(&dir));
    assert!(notices.is_empty(), "{notices:?}");
    let status = chat.status();
    assert!(!status.ready);
    assert_eq!(status.model, None);
    let problem = status.problem.expect("why there is no model");
    assert!(problem.contains("no model is configured"), "{problem}");
    assert!(problem.contains("/x/mcp.json"), "{problem}");

    chat.reconfigure(&config(WITH_MODEL));
    assert_eq!(
        chat.status(),
        ChatStatus {
            ready: true,
            model: Some("qwen3".into()),
            provider: Some(ProviderKind::Openai),
            demo: false,
            tools: true,
            problem: None,
        }
    );

    // A provider the file gets wrong: not used, and said why.
    chat.reconfigure(&config(
        r#"{"servers": {}, "chat": {"provider": {"kind": "gemini", "model": "m"}}}"#,
    ));
    let status = chat.status();
    assert!(!status.ready);
    assert!(
        status.problem.as_deref().unwrap_or("").contains("gemini"),
        "{status:?}"
    );
}

#[test]
fn conversations_are_listed_searched_renamed_and_deleted_with_their_grants() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (chat, _) = SessionChat::open(&config(WITH_MODEL), &paths(&dir));
    let service = chat.service().expect("open");
    let id = service
        .store
        .create(Some("About ports"))
        .expect("create")
        .id;
    service
        .store
        .append(&id, NewMessage::text(Role::User, "which port is free"))
        .expect("append");

    let hits = service.store.search("port").expect("search");
    assert_eq!(hits.len(), 1);
    service.store.rename(&id, "Ports").expect("rename");
    assert_eq!(service.store.list().expect("list")[0].title, "Ports");

    // A grant for this conversation only: deleting the conversation takes it back too.
    let tool = ToolInfo {
        name: "echo".into(),
        title: None,
        description: None,
        input_schema: json!({"type": "object"}),
        output_schema: None,
        annotations: None,
        ui: None,
    };
    let pinned = Pinned::new(
        ServerDefinition {
            command: Some("srv".into()),
            args: Vec::new(),
            url: None,
        },
        &tool,
    );
    service
        .approvals
        .record(&id, "s", &pinned, ToolCallChoice::AllowConversation)
        .expect("grant");
    let stance = crate::approval::ServerStance::default();
    assert!(matches!(
        service.approvals.decide(&id, "s", stance, &pinned),
        crate::approval::Verdict::Granted(_)
    ));
    chat.delete(&id).expect("delete");
    assert!(service.store.list().expect("list").is_empty());
    assert!(matches!(
        service.approvals.decide(&id, "s", stance, &pinned),
        crate::approval::Verdict::Ask(_)
    ));

    let gone = chat.delete(&id).expect_err("deleted already");
    assert_eq!(gone.code, ErrorCode::UnknownTarget);
}

#[test]
fn a_kept_grant_is_revoked_and_the_rest_returned() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (chat, _) = SessionChat::open(&config(WITH_MODEL), &paths(&dir));
    let service = chat.service().expect("open");
    let pinned = |name: &str| {
        let tool = ToolInfo {
            name: name.into(),
            title: None,
            description: None,
            input_schema: json!({"type": "object"}),
            output_schema: None,
            annotations: None,
            ui: None,
        };
        Pinned::new(
            ServerDefinition {
                command: Some("srv".into()),
                args: Vec::new(),
                url: None,
            },
            &tool,
        )
    };
    for name in ["echo", "add"] {
        service
            .approvals
            .record("c", "s", &pinned(name), ToolCallChoice::AllowAlways)
            .expect("grant");
    }
    assert_eq!(service.approvals.list().len(), 2);
    let left = chat.revoke("s", "echo").expect("revoke");
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].tool, "add");
}

#[test]
fn an_unreadable_conversations_folder_makes_chat_unavailable_and_says_why() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The database's folder cannot be made: a file stands where it should be.
    std::fs::write(dir.path().join("data"), "not a folder").expect("write");
    let (chat, notices) = SessionChat::open(&config(WITH_MODEL), &paths(&dir));
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(notices[0].starts_with("Chat is unavailable"), "{notices:?}");
    let status = chat.status();
    assert!(!status.ready);
    assert_eq!(status.problem.as_deref(), Some(notices[0].as_str()));
    let error = chat.delete("x").expect_err("no service");
    assert_eq!(error.code, ErrorCode::Unreadable);
    // Reconfiguring does not pretend it came back.
    chat.reconfigure(&config(WITH_MODEL));
    assert!(!chat.status().ready);
}

#[test]
fn chat_errors_keep_their_codes() {
    let error = CommandError::from(ChatError::from(ModelUnavailable::NoModel(
        "/x/mcp.json".into(),
    )));
    assert_eq!(error.code, ErrorCode::Config);
    let error = CommandError::from(LinkError::Declined);
    assert_eq!(error.code, ErrorCode::Cancelled);
}
