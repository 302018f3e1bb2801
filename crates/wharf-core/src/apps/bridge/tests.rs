// Unit tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Mutex;

use base64::Engine as _;
use serde_json::json;

use super::*;
use crate::protocol::{ToolUi, Visibility};

fn tool(name: &str, visibility: Option<Visibility>) -> ToolInfo {
    ToolInfo {
        name: name.into(),
        title: None,
        description: None,
        input_schema: json!({"type": "object"}),
        output_schema: None,
        annotations: None,
        ui: visibility.map(|visibility| ToolUi {
            resource_uri: None,
            visibility,
        }),
    }
}

#[derive(Default)]
struct Fake {
    called: Mutex<Vec<(String, Map<String, Value>)>>,
    links: Mutex<Vec<String>>,
    saved: Mutex<Vec<(String, Vec<u8>)>>,
    read: Mutex<Vec<String>>,
    open: bool,
}

#[async_trait]
impl ViewServices for Fake {
    async fn tools(&self) -> Result<Vec<ToolInfo>, String> {
        Ok(vec![
            tool("get-time", None),
            tool(
                "app_only",
                Some(Visibility {
                    model: false,
                    app: true,
                }),
            ),
            tool(
                "model_only",
                Some(Visibility {
                    model: true,
                    app: false,
                }),
            ),
        ])
    }
    async fn call_tool(
        &self,
        tool: &ToolInfo,
        arguments: Map<String, Value>,
    ) -> Result<Value, String> {
        self.called
            .lock()
            .unwrap()
            .push((tool.name.clone(), arguments));
        Ok(json!({"content": [{"type": "text", "text": "12:00"}]}))
    }
    async fn read_resource(&self, uri: &str) -> Result<Value, String> {
        self.read.lock().unwrap().push(uri.to_owned());
        Ok(json!({"contents": [{"uri": uri, "text": "r"}]}))
    }
    async fn open_link(&self, url: &str) -> bool {
        self.links.lock().unwrap().push(url.to_owned());
        self.open
    }
    async fn save_file(&self, name: &str, bytes: Vec<u8>) -> Result<Option<String>, String> {
        self.saved.lock().unwrap().push((name.to_owned(), bytes));
        Ok(self.open.then(|| format!("/picked/{name}")))
    }
}

fn bridge() -> ViewBridge {
    let mut arguments = Map::new();
    arguments.insert("city".into(), json!("Oslo"));
    ViewBridge::new("basic", tool("get-time", None), arguments, Theme::Dark)
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn methods(replies: &[ToView]) -> Vec<&str> {
    replies
        .iter()
        .map(|r| match r {
            ToView::Notification { method, .. } | ToView::Request { method, .. } => *method,
            ToView::Result { .. } => "result",
            ToView::Error { .. } => "error",
        })
        .collect()
}

fn result(handled: &Handled) -> Value {
    match &handled.replies[..] {
        [ToView::Result { result, .. }] => result.clone(),
        other => panic!("expected one result, got {other:?}"),
    }
}

fn error_of(handled: &Handled) -> RpcError {
    match &handled.replies[..] {
        [ToView::Error { error, .. }] => error.clone(),
        other => panic!("expected one error, got {other:?}"),
    }
}

#[tokio::test]
async fn the_handshake_answers_everything_a_view_needs_then_the_input_once_then_the_result() {
    let fake = Fake::default();
    let mut view = bridge();
    let now = Instant::now();
    // The result arrives before the view is ready: nothing is sent yet.
    assert!(view
        .set_outcome(ToolOutcome::Result(json!({"content": []})))
        .is_empty());
    let init = view
        .handle(
            &request(
                1,
                "ui/initialize",
                json!({"protocolVersion": "2026-01-26", "appInfo": {}}),
            ),
            &fake,
            now,
        )
        .await;
    let answered = result(&init);
    for key in [
        "protocolVersion",
        "hostInfo",
        "hostCapabilities",
        "hostContext",
    ] {
        assert!(answered.get(key).is_some(), "{key} missing: {answered}");
    }
    assert_eq!(answered["protocolVersion"], APPS_PROTOCOL_VERSION);
    assert_eq!(answered["hostContext"]["theme"], "dark");
    // The user's own, read from their settings (the rules are the handshake module's unit tests).
    for key in ["locale", "timeZone"] {
        let value = answered["hostContext"][key].as_str().unwrap_or_default();
        assert!(!value.is_empty(), "{key}: {answered}");
    }
    assert_eq!(
        answered["hostContext"]["availableDisplayModes"],
        json!(["inline"])
    );
    assert_eq!(
        answered["hostContext"]["toolInfo"]["tool"]["name"],
        "get-time"
    );

    let ready = view
        .handle(
            &json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
            &fake,
            now,
        )
        .await;
    assert_eq!(
        methods(&ready.replies),
        [
            "ui/notifications/tool-input",
            "ui/notifications/tool-result"
        ]
    );
    match &ready.replies[0] {
        ToView::Notification { params, .. } => assert_eq!(params["arguments"]["city"], "Oslo"),
        other => panic!("{other:?}"),
    }
    // Again: nothing new to tell.
    let again = view
        .handle(
            &json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
            &fake,
            now,
        )
        .await;
    assert!(again.replies.is_empty() && again.effects.is_empty());
    let proxy = view
        .handle(
            &json!({"jsonrpc": "2.0", "method": "ui/notifications/sandbox-proxy-ready"}),
            &fake,
            now,
        )
        .await;
    assert_eq!(
        proxy.effects,
        [ViewEffect::Stage {
            stage: ViewStage::SandboxLoaded
        }]
    );
    let let_go = view
        .handle(
            &json!({"jsonrpc": "2.0", "id": TEARDOWN_ID, "result": {}}),
            &fake,
            now,
        )
        .await;
    assert_eq!(let_go.effects, [ViewEffect::TornDown]);
    let moved = view
        .handle(
            &json!({"jsonrpc": "2.0", "method": "ui/notifications/sandbox-view-navigated"}),
            &fake,
            now,
        )
        .await;
    assert_eq!(moved.effects, [ViewEffect::Navigated]);
    assert_eq!(
        methods(&view.set_theme(Theme::Light)),
        ["ui/notifications/host-context-changed"]
    );
    assert_eq!(methods(&[ViewBridge::teardown()]), ["ui/resource-teardown"]);
}

#[tokio::test]
async fn a_call_cancelled_is_told_as_cancelled_once_the_view_is_ready() {
    let fake = Fake::default();
    let mut view = bridge();
    let now = Instant::now();
    view.handle(
        &json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
        &fake,
        now,
    )
    .await;
    let told = view.set_outcome(ToolOutcome::Cancelled("the server stopped".into()));
    assert_eq!(methods(&told), ["ui/notifications/tool-cancelled"]);
    assert!(view.set_outcome(ToolOutcome::Result(json!({}))).is_empty());
}

#[tokio::test]
async fn a_view_calls_only_its_servers_tools_that_are_visible_to_views() {
    let fake = Fake::default();
    let mut view = bridge();
    let now = Instant::now();
    let listed = result(
        &view
            .handle(&request(1, "tools/list", json!({})), &fake, now)
            .await,
    );
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["get-time", "app_only"]);

    let called = view
        .handle(
            &request(
                2,
                "tools/call",
                json!({"name": "app_only", "arguments": {"x": 1}}),
            ),
            &fake,
            now,
        )
        .await;
    assert_eq!(result(&called)["content"][0]["text"], "12:00");
    assert_eq!(called.log.as_ref().unwrap().outcome, "answered");

    for (name, why) in [
        ("model_only", "not visible to views"),
        ("other_servers_tool", "has no tool"),
    ] {
        let refused = view
            .handle(&request(3, "tools/call", json!({"name": name})), &fake, now)
            .await;
        let e = error_of(&refused);
        assert_eq!(e.code, INVALID_PARAMS);
        assert!(e.message.contains(why), "{}", e.message);
    }
    let odd = view
        .handle(
            &request(
                4,
                "tools/call",
                json!({"name": "get-time", "arguments": [1]}),
            ),
            &fake,
            now,
        )
        .await;
    assert_eq!(error_of(&odd).code, INVALID_PARAMS);
    assert_eq!(
        fake.called.lock().unwrap().len(),
        1,
        "only the visible tool was called"
    );
}

#[tokio::test]
async fn a_link_is_opened_only_with_consent_and_a_refusal_is_the_specs_error() {
    let mut view = bridge();
    let now = Instant::now();
    let declined = Fake::default();
    let refused = view
        .handle(
            &request(1, "ui/open-link", json!({"url": "https://example.com/"})),
            &declined,
            now,
        )
        .await;
    let e = error_of(&refused);
    assert_eq!(
        (e.code, e.message.as_str()),
        (-32000, "Link opening denied by user")
    );
    let consenting = Fake {
        open: true,
        ..Fake::default()
    };
    // Another view: this one's links are declined without asking for a while after a refusal.
    let mut view = bridge();
    let opened = view
        .handle(
            &request(2, "ui/open-link", json!({"url": "https://example.com/"})),
            &consenting,
            now,
        )
        .await;
    assert_eq!(result(&opened), json!({}));
    assert_eq!(*consenting.links.lock().unwrap(), ["https://example.com/"]);
}

#[tokio::test]
async fn messages_become_drafts_and_context_and_sizes_stay_in_bounds() {
    let fake = Fake::default();
    let mut view = bridge();
    let now = Instant::now();
    let drafted = view
        .handle(
            &request(1, "ui/message", json!({"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "image"}]})),
            &fake,
            now,
        )
        .await;
    assert_eq!(drafted.effects, [ViewEffect::Draft { text: "hi".into() }]);
    let empty = view
        .handle(
            &request(2, "ui/message", json!({"content": []})),
            &fake,
            now,
        )
        .await;
    assert_eq!(error_of(&empty).code, -32000);
    let context = view
        .handle(
            &request(
                3,
                "ui/update-model-context",
                json!({"content": [{"type": "text", "text": "budget: 5"}]}),
            ),
            &fake,
            now,
        )
        .await;
    assert_eq!(
        context.effects,
        [ViewEffect::Context {
            server: "basic".into(),
            tool: "get-time".into(),
            text: "budget: 5".into()
        }]
    );
    for (height, expected) in [
        (json!(300.4), 300),
        (json!(1e9), MAX_HEIGHT),
        (json!(-5), MIN_HEIGHT),
    ] {
        let sized = view
            .handle(&json!({"jsonrpc": "2.0", "method": "ui/notifications/size-changed", "params": {"height": height}}), &fake, now)
            .await;
        assert_eq!(sized.effects, [ViewEffect::Resize { height: expected }]);
    }
    let mode = view
        .handle(
            &request(4, "ui/request-display-mode", json!({"mode": "fullscreen"})),
            &fake,
            now,
        )
        .await;
    assert_eq!(result(&mode), json!({"mode": "inline"}));
    let unknown = view
        .handle(&request(5, "sampling/createMessage", json!({})), &fake, now)
        .await;
    assert_eq!(error_of(&unknown).code, METHOD_NOT_FOUND);
}

#[tokio::test]
async fn a_flood_of_requests_is_refused_until_the_window_moves_on() {
    let fake = Fake::default();
    let mut view = bridge();
    let start = Instant::now();
    for i in 0..MAX_REQUESTS {
        let pinged = view
            .handle(&request(i as u64, "ping", json!({})), &fake, start)
            .await;
        assert_eq!(result(&pinged), json!({}));
    }
    let refused = view
        .handle(&request(99, "ping", json!({})), &fake, start)
        .await;
    assert_eq!(error_of(&refused).code, -32000);
    assert!(refused.log.unwrap().outcome.contains("too many"));
    let later = view
        .handle(&request(100, "ping", json!({})), &fake, start + RATE_WINDOW)
        .await;
    assert_eq!(result(&later), json!({}));
}

fn download(id: u64, contents: Value) -> Value {
    request(id, "ui/download-file", json!({ "contents": contents }))
}

#[tokio::test]
async fn a_file_is_saved_where_the_user_picks_under_a_name_that_cannot_escape_or_mislead() {
    let fake = Fake {
        open: true,
        ..Fake::default()
    };
    let mut view = bridge();
    let now = Instant::now();
    // A name that climbs out of the folder, hides behind a dot, and reverses itself to look like a picture.
    let saved = view
        .handle(
            &download(
                1,
                json!([{"type": "resource", "resource": {
                    "uri": "file:///../../.bashrc\u{202e}gpj.exe", "mimeType": "text/plain", "text": "a,b\n"}}]),
            ),
            &fake,
            now,
        )
        .await;
    assert_eq!(result(&saved), json!({}));
    let files = fake.saved.lock().unwrap().clone();
    assert_eq!(files, [("bashrcgpj.exe".to_string(), b"a,b\n".to_vec())]);
    assert_eq!(
        saved.effects,
        [ViewEffect::Saved {
            path: "/picked/bashrcgpj.exe".into(),
            bytes: 4
        }]
    );

    // A blob is decoded; a link is read through the view's own server, never fetched.
    let both = view
        .handle(
            &download(
                2,
                json!([
                    {"type": "resource", "resource": {"uri": "ui://x/logo.png", "blob": "AAEC"}},
                    {"type": "resource_link", "uri": "https://example.com/", "name": "report.csv"}
                ]),
            ),
            &fake,
            now,
        )
        .await;
    assert_eq!(result(&both), json!({}));
    assert_eq!(*fake.read.lock().unwrap(), ["https://example.com/"]);
    let files = fake.saved.lock().unwrap().clone();
    assert_eq!(files[1], ("logo.png".to_string(), vec![0, 1, 2]));
    assert_eq!(files[2], ("report.csv".to_string(), b"r".to_vec()));
}

#[tokio::test]
async fn a_declined_save_is_an_error_result_and_a_malformed_offer_saves_nothing() {
    let fake = Fake::default();
    let mut view = bridge();
    let now = Instant::now();
    let declined = view
        .handle(
            &download(
                1,
                json!([{"type": "resource", "resource": {"uri": "a.txt", "text": "x"}}]),
            ),
            &fake,
            now,
        )
        .await;
    assert_eq!(result(&declined), json!({"isError": true}));
    assert!(declined.effects.is_empty());

    // Another view: this one's offers are declined without asking for a while after a refusal.
    let mut view = bridge();
    let too_many: Vec<Value> = (0..=consent::MAX_FILES)
        .map(|i| json!({"type": "resource", "resource": {"uri": format!("{i}.txt"), "text": "x"}}))
        .collect();
    let huge =
        base64::engine::general_purpose::STANDARD.encode(vec![0u8; consent::MAX_FILE_BYTES + 1]);
    for (id, contents) in [
        (2, json!([])),
        (3, Value::Array(too_many)),
        (
            4,
            json!([{"type": "resource", "resource": {"uri": "a", "blob": "%%%"}}]),
        ),
        (5, json!([{"type": "resource", "resource": {"uri": "a"}}])),
        (6, json!([{"type": "text", "text": "x"}])),
        (
            7,
            json!([{"type": "resource", "resource": {"uri": "a", "blob": huge}}]),
        ),
        (8, json!("file.txt")),
    ] {
        let refused = view.handle(&download(id, contents), &fake, now).await;
        assert_eq!(error_of(&refused).code, INVALID_PARAMS, "offer {id}");
    }
    assert_eq!(
        fake.saved.lock().unwrap().len(),
        1,
        "only the declined one reached the dialog"
    );
}

#[tokio::test]
async fn after_the_user_declines_a_link_or_a_file_the_view_is_declined_without_asking_for_a_while()
{
    let fake = Fake::default();
    let mut view = bridge();
    let now = Instant::now();
    let link = |id| request(id, "ui/open-link", json!({"url": "https://example.com/"}));
    let file = |id| {
        download(
            id,
            json!([{"type": "resource", "resource": {"uri": "a.txt", "text": "x"}}]),
        )
    };

    // Declined once each: the user was asked.
    assert_eq!(
        error_of(&view.handle(&link(1), &fake, now).await).code,
        DECLINED
    );
    assert_eq!(
        result(&view.handle(&file(2), &fake, now).await),
        json!({"isError": true})
    );
    assert_eq!(fake.links.lock().unwrap().len(), 1);
    assert_eq!(fake.saved.lock().unwrap().len(), 1);

    // Asked again at once, and again and again: declined the same way, and nobody is asked.
    for id in 3..8 {
        let again = Instant::now();
        assert_eq!(
            error_of(&view.handle(&link(id), &fake, again).await).message,
            "Link opening denied by user"
        );
        assert_eq!(
            result(&view.handle(&file(id + 10), &fake, again).await),
            json!({"isError": true})
        );
    }
    assert_eq!(fake.links.lock().unwrap().len(), 1);
    assert_eq!(fake.saved.lock().unwrap().len(), 1);

    // Once the quiet time is over, the user is asked again.
    let later = Instant::now() + DECLINED_QUIET + Duration::from_secs(1);
    view.handle(&link(20), &fake, later).await;
    view.handle(&file(21), &fake, later).await;
    assert_eq!(fake.links.lock().unwrap().len(), 2);
    assert_eq!(fake.saved.lock().unwrap().len(), 2);
}
