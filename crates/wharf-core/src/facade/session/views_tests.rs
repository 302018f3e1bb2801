//! Views through the command table, as the app drives them: a tool's call returns its view's frame, the frame's
//! messages are answered, the view's calls go through the approval card, and a closed view is no longer served.

use std::sync::Arc;

use serde_json::{json, Value};

use crate::apps::bridge::Theme;
use crate::auth::TokenStore;
use crate::broker::{QuestionQueue, ScriptedAgent, UserAgent};
use crate::facade::session::{Desktop, NoDesktop, SessionChat, SessionParts, SessionViews};
use crate::facade::startup::StartupReport;
use crate::facade::{dispatch, ChatPaths, HostBuilder, Session};
use crate::redact::Redactor;
use crate::{Config, EventSink, HostEvent};

fn fixture() -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/apps_server.py");
    root.to_string_lossy().into_owned()
}

/// A session that renders views, on the apps fixture server, answering questions with `script`.
fn session(dir: &tempfile::TempDir, script: &str, events: EventSink) -> Session {
    session_with(dir, script, events, Box::new(NoDesktop))
}

fn session_with(
    dir: &tempfile::TempDir,
    script: &str,
    events: EventSink,
    desktop: Box<dyn Desktop>,
) -> Session {
    let entry = json!({"command": "python3", "args": [fixture()]});
    let agent = Arc::new(ScriptedAgent::parse(script).expect("script"));
    session_on(dir, entry, agent, events, desktop)
}

/// A session on the apps fixture server as `entry` configures it.
fn session_on(
    dir: &tempfile::TempDir,
    entry: Value,
    agent: Arc<dyn UserAgent>,
    events: EventSink,
    desktop: Box<dyn Desktop>,
) -> Session {
    let path = dir.path().join("mcp.json");
    let text = json!({"servers": {"apps": entry}}).to_string();
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
        desktop,
        views: Some(SessionViews::new("tauri://localhost", Theme::Light)),
    };
    HostBuilder::new(config, agent)
        .tokens(TokenStore::memory())
        .apps(true)
        .session(events, parts)
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

async fn post(session: &Session, view_id: &str, message: Value) -> Value {
    dispatch(
        session,
        "view_message",
        json!({"viewId": view_id, "message": message}),
    )
    .await
    .expect("the view's message is answered")
}

#[tokio::test]
async fn a_tools_call_brings_its_view_and_the_view_is_bridged_to_its_own_server_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let told = Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = told.clone();
    let events = EventSink::new(move |e| kept.lock().expect("events").push(e));
    let session = session(
        &dir,
        r#"{"tool_call": [{"action": "deny"}, {"action": "allow_once"}], "elicitation_url": {"action": "decline"}}"#,
        events,
    );
    let called = dispatch(
        &session,
        "call_tool",
        json!({"callId": "c1", "server": "apps", "tool": "clock", "args": {"zone": "UTC"}}),
    )
    .await
    .expect("called");
    let view = &called["view"];
    assert_eq!(view["uri"], "ui://apps/clock", "{called}");
    // The fixture declares no extensions: the view is shown, and its place can say the server did not declare it.
    assert_eq!(view["serverDeclared"], false, "{called}");
    assert!(view["policy"]
        .as_str()
        .expect("policy")
        .contains("connect-src 'none'"));
    let view_id = view["frame"]["viewId"]
        .as_str()
        .expect("a frame")
        .to_owned();
    let proxy_url = view["frame"]["proxyUrl"]
        .as_str()
        .expect("proxy url")
        .to_owned();
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    assert_eq!(
        client.get(&proxy_url).send().await.expect("proxy").status(),
        200
    );

    let init = post(
        &session,
        &view_id,
        request(1, "ui/initialize", json!({"protocolVersion": "2026-01-26"})),
    )
    .await;
    assert_eq!(
        init["post"][0]["result"]["hostContext"]["toolInfo"]["tool"]["name"], "clock",
        "{init}"
    );
    let ready = post(
        &session,
        &view_id,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
    )
    .await;
    assert_eq!(
        ready["post"][0]["method"], "ui/notifications/tool-input",
        "{ready}"
    );
    assert_eq!(ready["post"][0]["params"]["arguments"]["zone"], "UTC");
    assert_eq!(ready["post"][1]["method"], "ui/notifications/tool-result");
    assert_eq!(ready["post"][1]["params"]["content"][0]["text"], "12:00");

    // The first call of a tool visible to views is denied on its card, the second allowed.
    let denied = post(
        &session,
        &view_id,
        request(2, "tools/call", json!({"name": "app_only"})),
    )
    .await;
    assert_eq!(denied["post"][0]["error"]["code"], -32000, "{denied}");
    let allowed = post(
        &session,
        &view_id,
        request(3, "tools/call", json!({"name": "app_only"})),
    )
    .await;
    assert_eq!(
        allowed["post"][0]["result"]["content"][0]["text"], "for views",
        "{allowed}"
    );
    // A tool the server does not make visible to views, or that it does not have, is refused before any card.
    let not_listed = post(
        &session,
        &view_id,
        request(4, "tools/call", json!({"name": "echo"})),
    )
    .await;
    assert_eq!(
        not_listed["post"][0]["error"]["code"], -32602,
        "{not_listed}"
    );
    // A link is declined on its consent card: the spec's error, and no browser.
    let link = post(
        &session,
        &view_id,
        request(5, "ui/open-link", json!({"url": "https://example.com/"})),
    )
    .await;
    assert_eq!(
        link["post"][0]["error"]["message"], "Link opening denied by user",
        "{link}"
    );

    let calls: Vec<(String, String)> = told
        .lock()
        .expect("events")
        .iter()
        .filter_map(|e| match e {
            HostEvent::ToolCall { tool, decided, .. } => Some((tool.clone(), decided.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 2, "{calls:?}");
    let logged: Vec<(String, String)> = told
        .lock()
        .expect("events")
        .iter()
        .filter_map(|e| match e {
            HostEvent::ViewRequest {
                method, outcome, ..
            } => Some((method.clone(), outcome.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(logged.len(), 5, "{logged:?}");
    assert_eq!(
        logged[0],
        ("ui/initialize".to_string(), "answered".to_string())
    );
    assert!(logged[1].1.starts_with("refused"), "{logged:?}");

    let teardown = dispatch(&session, "close_view", json!({"viewId": view_id}))
        .await
        .expect("teardown");
    assert_eq!(teardown["post"][0]["method"], "ui/resource-teardown");
    assert_eq!(
        dispatch(&session, "forget_view", json!({"viewId": view_id}))
            .await
            .expect("forgot"),
        json!(true)
    );
    assert_eq!(
        client.get(&proxy_url).send().await.expect("proxy").status(),
        404
    );
    let gone = dispatch(
        &session,
        "view_message",
        json!({"viewId": view_id, "message": request(6, "ping", json!({}))}),
    )
    .await
    .expect_err("no such view");
    assert_eq!(gone.code, crate::facade::ErrorCode::UnknownView);
    session.shutdown().await;
}

#[tokio::test]
async fn a_view_that_cannot_be_shown_says_why_in_its_place_and_a_hostile_policy_is_held_to_its_origins(
) {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = session(&dir, "{}", EventSink::discard());
    let call = |tool: &str| {
        dispatch(
            &session,
            "call_tool",
            json!({"callId": tool, "server": "apps", "tool": tool}),
        )
    };
    let wrong = call("wrong_type").await.expect("called");
    assert_eq!(wrong["blocks"][0]["text"], "ok", "{wrong}");
    assert!(wrong["view"].get("frame").is_none(), "{wrong}");
    let why = wrong["view"]["error"].as_str().expect("why");
    assert!(
        why.starts_with("reading the view:") && why.contains("\"text/html\""),
        "{why}"
    );

    let hostile = call("hostile_csp").await.expect("called");
    let view = &hostile["view"];
    assert!(view.get("frame").is_some(), "{hostile}");
    let policy = view["policy"].as_str().expect("policy");
    assert!(
        policy.contains("connect-src 'self' https://api.example.com;"),
        "{policy}"
    );
    assert!(
        !policy.contains("evil") && !policy.contains("unsafe-eval"),
        "{policy}"
    );
    assert_eq!(
        view["refusedDomains"].as_array().expect("refused").len(),
        5,
        "{view}"
    );
    assert_eq!(view["prefersBorder"], true);

    // A plain tool has no view.
    let plain = call("declared").await.expect("called");
    assert!(plain.get("view").is_none(), "{plain}");
    session.shutdown().await;
}

#[tokio::test]
async fn a_kept_calls_view_opens_again_from_what_was_kept_and_a_call_not_made_has_none() {
    use crate::conversations::message::{CallResult, ToolCallRecord};
    use crate::conversations::{MessageData, NewMessage, Role};
    use crate::question::tool_call::CallDecision;

    let dir = tempfile::tempdir().expect("tempdir");
    let session = session(&dir, "{}", EventSink::discard());
    let store = &session.chat_service().expect("chat").store;
    let conversation = store.create(Some("views")).expect("created");
    let record = |id: &str, tool: &str, decision: CallDecision| NewMessage {
        role: Role::Tool,
        text: String::new(),
        data: Some(MessageData::ToolCall(ToolCallRecord {
            id: id.into(),
            model_id: None,
            server: Some("apps".into()),
            tool: tool.into(),
            arguments: json!({"zone": "UTC"}),
            decision,
            grant: None,
            decided: None,
            result: CallResult {
                content: vec![json!({"type": "text", "text": "12:00"})],
                is_error: false,
                shortened: false,
                structured_content: Some(Box::new(json!({"time": "12:00"}))),
            },
            duration_ms: 3,
        })),
    };
    for (id, tool, decision) in [
        ("c1", "clock", CallDecision::AllowOnce),
        ("c2", "clock", CallDecision::Deny),
        ("c3", "declared", CallDecision::AllowOnce),
    ] {
        store
            .append(&conversation.id, record(id, tool, decision))
            .expect("kept");
    }
    let open = |call: &str| {
        dispatch(
            &session,
            "open_call_view",
            json!({"conversation": conversation.id, "call": call}),
        )
    };
    let slot = open("c1").await.expect("opened");
    let view_id = slot["frame"]["viewId"]
        .as_str()
        .expect("a frame")
        .to_owned();
    post(&session, &view_id, request(1, "ui/initialize", json!({}))).await;
    let ready = post(
        &session,
        &view_id,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
    )
    .await;
    assert_eq!(
        ready["post"][0]["params"]["arguments"]["zone"], "UTC",
        "{ready}"
    );
    assert_eq!(
        ready["post"][1]["params"]["content"][0]["text"], "12:00",
        "{ready}"
    );
    // A denied call was never made: no view. A tool without a view: none either.
    assert_eq!(open("c2").await.expect("answered"), Value::Null);
    assert_eq!(open("c3").await.expect("answered"), Value::Null);
    assert_eq!(
        open("c9").await.expect_err("no such call").code,
        crate::facade::ErrorCode::UnknownCall
    );

    let with_views = dispatch(&session, "tools_with_views", json!({}))
        .await
        .expect("listed");
    let names: Vec<&str> = with_views
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|t| t["tool"].as_str())
        .collect();
    assert!(
        names.contains(&"clock") && names.contains(&"hostile_csp"),
        "{with_views}"
    );
    assert!(
        !names.contains(&"declared") && !names.contains(&"app_only"),
        "{with_views}"
    );
    session.shutdown().await;
}

/// A save dialog the user answers with a file in `folder` under the name offered; the titles it was shown with.
struct SaveInto {
    folder: std::path::PathBuf,
    titles: Arc<std::sync::Mutex<Vec<String>>>,
}

impl Desktop for SaveInto {
    fn pick_folder(
        &self,
    ) -> std::pin::Pin<
        Box<
            dyn std::future::Future<
                    Output = crate::facade::command::Reply<Option<std::path::PathBuf>>,
                > + Send
                + '_,
        >,
    > {
        Box::pin(async { Ok(None) })
    }

    fn pick_save_path(
        &self,
        title: String,
        suggested_name: String,
    ) -> std::pin::Pin<
        Box<
            dyn std::future::Future<
                    Output = crate::facade::command::Reply<Option<std::path::PathBuf>>,
                > + Send
                + '_,
        >,
    > {
        self.titles.lock().expect("titles").push(title);
        let path = self.folder.join(suggested_name);
        Box::pin(async move { Ok(Some(path)) })
    }
}

/// A view whose bridge is open, on a session with `desktop`.
async fn open_clock(session: &Session) -> String {
    let called = dispatch(
        session,
        "call_tool",
        json!({"callId": "c1", "server": "apps", "tool": "clock"}),
    )
    .await
    .expect("called");
    let view_id = called["view"]["frame"]["viewId"]
        .as_str()
        .expect("a frame")
        .to_owned();
    post(session, &view_id, request(1, "ui/initialize", json!({}))).await;
    view_id
}

#[tokio::test]
async fn a_views_file_is_saved_only_through_the_save_dialog_that_names_the_view() {
    let dir = tempfile::tempdir().expect("tempdir");
    let picked = tempfile::tempdir().expect("tempdir");
    let titles = Arc::new(std::sync::Mutex::new(Vec::new()));
    let desktop = SaveInto {
        folder: picked.path().to_path_buf(),
        titles: titles.clone(),
    };
    let saving = session_with(&dir, "{}", EventSink::discard(), Box::new(desktop));
    let view_id = open_clock(&saving).await;

    // Inline text under a name that tries to climb out of the folder, then a link read through the view's server.
    let saved = post(
        &saving,
        &view_id,
        request(
            2,
            "ui/download-file",
            json!({"contents": [
                {"type": "resource", "resource": {"uri": "file:///../../../.profile", "text": "export X=1\n"}},
                {"type": "resource_link", "uri": "ui://apps/clock", "name": "clock.html"}
            ]}),
        ),
    )
    .await;
    assert_eq!(saved["post"][0]["result"], json!({}), "{saved}");
    let profile = picked.path().join("profile");
    assert_eq!(
        std::fs::read_to_string(&profile).expect("saved"),
        "export X=1\n"
    );
    let clock = std::fs::read_to_string(picked.path().join("clock.html")).expect("saved");
    assert!(clock.contains("window.call"), "{clock}");
    assert_eq!(saved["effects"][0]["kind"], "saved");
    assert_eq!(saved["effects"][0]["path"], profile.display().to_string());
    assert_eq!(saved["effects"][0]["bytes"], 11);
    assert_eq!(
        *titles.lock().expect("titles"),
        ["Save a file from the view of clock (apps)"; 2]
    );
    // Nothing was written anywhere else.
    assert_eq!(std::fs::read_dir(picked.path()).expect("listed").count(), 2);
    saving.shutdown().await;

    // A front end with no dialogs saves nothing and says why.
    let dir = tempfile::tempdir().expect("tempdir");
    let session = session(&dir, "{}", EventSink::discard());
    let view_id = open_clock(&session).await;
    let refused = post(
        &session,
        &view_id,
        request(
            2,
            "ui/download-file",
            json!({"contents": [{"type": "resource", "resource": {"uri": "a.txt", "text": "x"}}]}),
        ),
    )
    .await;
    assert_eq!(
        refused["post"][0]["error"]["message"], "this front end shows no dialogs",
        "{refused}"
    );
    session.shutdown().await;
}

#[tokio::test]
async fn a_server_whose_entry_turns_views_off_has_plain_tools() {
    let dir = tempfile::tempdir().expect("tempdir");
    let entry = json!({"command": "python3", "args": [fixture(), "modern"], "apps": false});
    let agent = Arc::new(ScriptedAgent::parse("{}").expect("script"));
    let session = session_on(
        &dir,
        entry,
        agent,
        EventSink::discard(),
        Box::new(NoDesktop),
    );
    let called = dispatch(
        &session,
        "call_tool",
        json!({"callId": "c1", "server": "apps", "tool": "clock"}),
    )
    .await
    .expect("called");
    assert_eq!(called["blocks"][0]["text"], "12:00", "{called}");
    assert!(called.get("view").is_none(), "{called}");
    let with_views = dispatch(&session, "tools_with_views", json!({}))
        .await
        .expect("listed");
    assert_eq!(with_views, json!([]));
    session.shutdown().await;
}

#[tokio::test]
async fn a_view_that_fails_or_stops_short_is_told_in_the_activity_log_with_why() {
    let dir = tempfile::tempdir().expect("tempdir");
    let told = Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = told.clone();
    let events = EventSink::new(move |e| kept.lock().expect("events").push(e));
    let session = session(&dir, "{}", events);
    let failures = || -> Vec<(String, String)> {
        told.lock()
            .expect("events")
            .iter()
            .filter_map(|e| match e {
                HostEvent::ViewFailed { tool, reason, .. } => Some((tool.clone(), reason.clone())),
                _ => None,
            })
            .collect()
    };
    dispatch(
        &session,
        "call_tool",
        json!({"callId": "w", "server": "apps", "tool": "wrong_type"}),
    )
    .await
    .expect("called");
    let logged = failures();
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert!(
        logged[0].0 == "wrong_type" && logged[0].1.starts_with("reading the view:"),
        "{logged:?}"
    );

    let view_id = open_clock(&session).await;
    let why = dispatch(
        &session,
        "view_stalled",
        json!({"viewId": view_id, "stage": "input_delivered"}),
    )
    .await
    .expect("told");
    assert_eq!(
        why,
        "the view never said it was ready (no ui/notifications/initialized)"
    );
    post(
        &session,
        &view_id,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/sandbox-view-navigated"}),
    )
    .await;
    let logged = failures();
    assert_eq!(
        logged[1..],
        [
            (
                "clock".to_string(),
                why.as_str().unwrap_or_default().to_string()
            ),
            (
                "clock".to_string(),
                crate::apps::bridge::NAVIGATED.to_string()
            )
        ]
    );
    let unknown = dispatch(
        &session,
        "view_stalled",
        json!({"viewId": "nope", "stage": "sandbox_loaded"}),
    )
    .await
    .expect_err("no such view");
    assert_eq!(unknown.code, crate::facade::ErrorCode::UnknownView);
    session.shutdown().await;
}

/// A user who takes their time over a card: it is answered (declined) only once the test lets it go.
struct SlowUser {
    asked: Arc<tokio::sync::Notify>,
    release: Arc<tokio::sync::Notify>,
}

impl UserAgent for SlowUser {
    fn answer(
        &self,
        _request: crate::question::InputRequest,
    ) -> futures::future::BoxFuture<'_, crate::question::InputAnswer> {
        Box::pin(async move {
            self.asked.notify_one();
            self.release.notified().await;
            crate::question::InputAnswer::Decline
        })
    }
}

#[tokio::test]
async fn a_view_waiting_on_its_card_neither_holds_up_the_theme_nor_closing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let asked = Arc::new(tokio::sync::Notify::new());
    let release = Arc::new(tokio::sync::Notify::new());
    let user = Arc::new(SlowUser {
        asked: asked.clone(),
        release: release.clone(),
    });
    let entry = json!({"command": "python3", "args": [fixture()]});
    let session = Arc::new(session_on(
        &dir,
        entry,
        user,
        EventSink::discard(),
        Box::new(NoDesktop),
    ));
    let view_id = open_clock(&session).await;
    post(
        &session,
        &view_id,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
    )
    .await;
    let calling = {
        let session = session.clone();
        let view_id = view_id.clone();
        tokio::spawn(async move {
            post(
                &session,
                &view_id,
                request(2, "tools/call", json!({"name": "app_only"})),
            )
            .await
        })
    };
    asked.notified().await;
    // The card is open: the theme and the close request answer at once, without this view's messages.
    let themed = dispatch(&session, "set_view_theme", json!({"theme": "dark"}))
        .await
        .expect("themed");
    assert_eq!(themed, json!([]));
    let teardown = dispatch(&session, "close_view", json!({"viewId": view_id}))
        .await
        .expect("teardown");
    assert_eq!(teardown["post"][0]["method"], "ui/resource-teardown");
    // Answered: the view gets the refusal, then the theme it missed.
    release.notify_one();
    let answered = calling.await.expect("the call's reply");
    assert_eq!(answered["post"][0]["error"]["code"], -32000, "{answered}");
    assert_eq!(
        answered["post"][1]["method"], "ui/notifications/host-context-changed",
        "{answered}"
    );
    assert_eq!(answered["post"][1]["params"]["theme"], "dark");
    session.shutdown().await;
}
