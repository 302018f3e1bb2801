//! The turn loop against a scripted model in the same process (`crate::model::fake`) and an MCP server in the same
//! process (`mirror.rs`): no provider, no subprocess. What the model is sent, what the user is asked, what reaches
//! the server, what the turn returns and what it stores.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::broker::UserAgent;
use crate::config::Config;
use crate::facade::assemble::HostBuilder;
use crate::model::fake::{FakeModel, FakeReply, Step};
use crate::model::{ProviderError, ReplyLimits};
use crate::question::tool_call::{CallDecision, ToolCallAnswer, ToolCallChoice};
use crate::question::{InputAnswer, InputKind, InputRequest};

mod mirror;
use mirror::Mirror;

/// Answers each question with the next answer given (declines when there is none), and keeps the questions.
#[derive(Default)]
pub(crate) struct Answers {
    answers: Mutex<VecDeque<InputAnswer>>,
    asked: Mutex<Vec<InputRequest>>,
}

impl Answers {
    pub(crate) fn asked(&self) -> Vec<InputRequest> {
        self.asked.lock().unwrap().clone()
    }
}

impl UserAgent for Answers {
    fn answer(&self, request: InputRequest) -> BoxFuture<'_, InputAnswer> {
        self.asked.lock().unwrap().push(request);
        let answer = self
            .answers
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or(InputAnswer::Decline);
        Box::pin(async move { answer })
    }
}

/// The user's answer on a tool call's card.
pub(crate) fn card(action: ToolCallChoice, reason: Option<&str>) -> InputAnswer {
    ToolCallAnswer {
        action,
        arguments: None,
        reason: reason.map(str::to_string),
    }
    .into_input_answer()
}

/// Everything a turn works with, the model a fake one, the servers' (if any) in this process.
pub(crate) struct Fixture {
    _dir: tempfile::TempDir,
    pub host: Host,
    pub approvals: Approvals,
    pub store: ConversationStore,
    pub running: RunningConversations,
    pub events: EventSink,
    pub settings: ChatSettings,
    pub model: FakeModel,
    pub user: Arc<Answers>,
    pub redactor: crate::redact::Redactor,
}

impl Fixture {
    /// A host with `servers` (mcp.json's), started and settled; the model answering from `script`; the user
    /// answering with `answers`.
    pub(crate) async fn new(
        servers: Value,
        script: Vec<Step>,
        answers: Vec<InputAnswer>,
    ) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let text = json!({ "servers": servers }).to_string();
        let config = Config::parse(&dir.path().join("mcp.json"), &text, &|_| None).unwrap();
        let user = Arc::new(Answers {
            answers: Mutex::new(answers.into()),
            asked: Mutex::default(),
        });
        let events = EventSink::discard();
        let host = HostBuilder::new(config, user.clone()).build(events.clone());
        host.start_all().await;
        for server in host.settle().await {
            assert!(server.error.is_none(), "{server:?}");
        }
        let (approvals, _) = Approvals::open(dir.path().join("grants.json"));
        let (store, _) = ConversationStore::open(&dir.path().join("c.db")).unwrap();
        Fixture {
            host,
            approvals,
            store,
            running: RunningConversations::default(),
            events,
            settings: settings(false),
            model: FakeModel::new(script),
            user,
            redactor: crate::redact::Redactor::default(),
            _dir: dir,
        }
    }

    pub(crate) fn cx(&self) -> TurnContext<'_> {
        TurnContext {
            host: &self.host,
            approvals: &self.approvals,
            store: &self.store,
            running: &self.running,
            events: &self.events,
            settings: &self.settings,
            models: &self.model,
            redactor: &self.redactor,
        }
    }

    pub(crate) async fn turn(&self, message: &str) -> TurnOutcome {
        let request = TurnRequest {
            message,
            ..TurnRequest::default()
        };
        run_turn(&self.cx(), request, &CancellationToken::new())
            .await
            .unwrap()
    }

    /// The stored conversation as (role, text) pairs.
    pub(crate) fn stored(&self, conversation: &str) -> Vec<(Role, String)> {
        self.store
            .messages(conversation)
            .unwrap()
            .into_iter()
            .map(|m| (m.role, m.text))
            .collect()
    }
}

pub(crate) fn settings(demo: bool) -> ChatSettings {
    ChatSettings {
        provider: ProviderConfig::openai_compatible("http://127.0.0.1:9/v1", "fake-model"),
        max_steps: 5,
        max_tokens: 300,
        limits: ReplyLimits {
            idle: Duration::from_secs(10),
            whole: Duration::from_secs(10),
        },
        context_tokens: 32_768,
        images: false,
        tools: true,
        demo,
    }
}

async fn with_mirror(script: Vec<Step>, answers: Vec<InputAnswer>) -> (Fixture, Mirror) {
    let mirror = Mirror::start().await;
    let servers = json!({"mirror": {"url": mirror.url, "era": "legacy"}});
    (Fixture::new(servers, script, answers).await, mirror)
}

#[tokio::test]
async fn an_approved_call_reaches_the_server_and_its_result_goes_back_to_the_model() {
    let script = vec![
        Step::Reply(
            FakeReply::text(&["Let me ", "echo it."]).call("mirror__echo", r#"{"text": "hi"}"#),
        ),
        Step::Reply(FakeReply::text(&["It said: echo: hi"]).usage(40, 6)),
    ];
    let (fx, mirror) = with_mirror(script, vec![card(ToolCallChoice::AllowOnce, None)]).await;
    let outcome = fx.turn("echo hi").await;

    assert_eq!(outcome.stop_reason, TurnStop::EndTurn, "{outcome:?}");
    assert_eq!(mirror.calls(), [json!({"text": "hi"})]);
    let asked = fx.user.asked();
    assert_eq!(asked.len(), 1, "one card for one call");
    assert_eq!(asked[0].kind, InputKind::ToolCall);
    assert_eq!(asked[0].server, "mirror");

    let [first, last] = &outcome.messages[..] else {
        panic!("{outcome:?}")
    };
    assert_eq!(first.content, "Let me echo it.");
    let call = &first.tool_calls[0];
    assert_eq!(
        (call.id.as_str(), call.model_id.as_deref()),
        ("c1", Some("fake_0"))
    );
    assert_eq!(
        (call.server.as_deref(), call.tool.as_str()),
        (Some("mirror"), "echo")
    );
    assert_eq!(call.decision, CallDecision::AllowOnce);
    assert_eq!(
        call.result.content,
        [json!({"type": "text", "text": "echo: hi"})]
    );
    assert_eq!(last.content, "It said: echo: hi");
    assert_eq!(outcome.usage.input_tokens, 40);

    // The model was offered the tool, then given its own call under the turn's id and the server's result for it.
    let requests = fx.model.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].tools, ["mirror__echo"]);
    assert_eq!(requests[0].model, "fake-model");
    assert_eq!(requests[0].max_tokens, 300);
    assert_eq!(requests[0].messages, [TurnMessage::User("echo hi".into())]);
    let sent = &requests[1].messages;
    assert_eq!(sent.len(), 3, "{sent:?}");
    assert!(
        matches!(&sent[1], TurnMessage::Assistant { tool_calls, .. } if tool_calls[0].id == "c1"),
        "{sent:?}"
    );
    assert_eq!(
        sent[2],
        TurnMessage::ToolResult {
            call_id: "c1".into(),
            content: "echo: hi".into(),
            is_error: false,
            images: Vec::new(),
        }
    );
    let stored = fx.stored(&outcome.conversation);
    let roles: Vec<Role> = stored.iter().map(|(role, _)| *role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant]
    );
    fx.host.shutdown().await;
}

/// What a turn keeps in each message's `data` column is the JSON Wharf has always kept there, key for key and in
/// the same order: older versions of Wharf, and `wharf conversations export`, read it as it was.
#[tokio::test]
async fn each_message_is_kept_in_the_shape_wharf_has_always_kept() {
    let script = vec![
        Step::Reply(
            FakeReply::text(&["Let me echo it."]).call("mirror__echo", r#"{"text": "hi"}"#),
        ),
        Step::Reply(FakeReply::text(&["It said: echo: hi"])),
    ];
    let (fx, _mirror) = with_mirror(script, vec![card(ToolCallChoice::AllowOnce, None)]).await;
    let outcome = fx.turn("echo hi").await;

    let conn = rusqlite::Connection::open(fx.store.path()).unwrap();
    let mut stmt = conn
        .prepare("SELECT role, data FROM messages WHERE conversation = ?1 ORDER BY seq")
        .unwrap();
    let mut kept: Vec<(String, Option<String>)> = stmt
        .query_map([&outcome.conversation], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    // How long the call took is the one thing that differs from run to run.
    let call = kept[2].1.as_deref().unwrap();
    let mut call: Value = serde_json::from_str(call).unwrap();
    call["durationMs"] = json!(0);
    kept[2].1 = Some(call.to_string());
    let kept: Vec<(&str, Option<&str>)> = kept
        .iter()
        .map(|(role, data)| (role.as_str(), data.as_deref()))
        .collect();
    assert_eq!(
        kept,
        [
            ("user", Some(r#"{"tools":[["mirror","echo"]]}"#)),
            (
                "assistant",
                Some(
                    r#"{"toolCalls":[{"id":"c1","modelId":"fake_0","name":"mirror__echo","arguments":"{\"text\": \"hi\"}"}]}"#
                )
            ),
            (
                "tool",
                Some(
                    r#"{"id":"c1","modelId":"fake_0","server":"mirror","tool":"echo","arguments":{"text":"hi"},"decision":"allow_once","decided":"allowed once by you","result":{"content":[{"type":"text","text":"echo: hi"}],"isError":false},"durationMs":0}"#
                )
            ),
            ("assistant", None),
        ]
    );
    fx.host.shutdown().await;
}

#[tokio::test]
async fn a_call_to_a_tool_never_offered_is_refused_before_anyone_sees_it() {
    let script = vec![
        Step::Reply(FakeReply::text(&[]).call("mirror__delete_all", "{}")),
        Step::Reply(FakeReply::text(&["Sorry."])),
    ];
    let (fx, mirror) = with_mirror(script, Vec::new()).await;
    let outcome = fx.turn("clean up").await;

    assert_eq!(outcome.stop_reason, TurnStop::EndTurn, "{outcome:?}");
    assert!(fx.user.asked().is_empty(), "no card for a refused call");
    assert!(mirror.calls().is_empty(), "nothing reached the server");
    let call = &outcome.messages[0].tool_calls[0];
    assert_eq!(call.decision, CallDecision::Refused);
    assert!(call.result.is_error);
    // The model is told, in the result of its own call, and goes on.
    let told = &fx.model.requests()[1].messages[2];
    match told {
        TurnMessage::ToolResult {
            call_id,
            is_error: true,
            content,
            ..
        } => {
            assert_eq!(call_id, "c1");
            assert!(
                content.contains("no tool named \"mirror__delete_all\""),
                "{content}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(outcome.messages[1].content, "Sorry.");
    fx.host.shutdown().await;
}

#[tokio::test]
async fn a_call_the_user_denies_is_not_sent_and_the_model_reads_why() {
    let script = vec![
        Step::Reply(FakeReply::text(&[]).call("mirror__echo", r#"{"text": "secret plans"}"#)),
        Step::Reply(FakeReply::text(&["Understood."])),
    ];
    let answers = vec![card(ToolCallChoice::Deny, Some("not that text"))];
    let (fx, mirror) = with_mirror(script, answers).await;
    let outcome = fx.turn("echo my plans").await;

    assert_eq!(fx.user.asked().len(), 1);
    assert!(mirror.calls().is_empty(), "a denied call is never sent");
    assert_eq!(
        outcome.messages[0].tool_calls[0].decision,
        CallDecision::Deny
    );
    let told = &fx.model.requests()[1].messages[2];
    assert!(
        matches!(told, TurnMessage::ToolResult { is_error: true, content, .. }
            if content == "the user denied this call: not that text"),
        "{told:?}"
    );
    assert_eq!(outcome.stop_reason, TurnStop::EndTurn);
    fx.host.shutdown().await;
}

#[tokio::test]
async fn a_provider_error_ends_the_turn_with_what_was_shown_and_what_to_do() {
    let error = ProviderError::RateLimited {
        retry_after: Some(Duration::from_secs(7)),
    };
    let script = vec![Step::Fail {
        shown: vec!["Half an ".into(), "answer".into()],
        error: error.clone(),
    }];
    let fx = Fixture::new(json!({}), script, Vec::new()).await;
    let outcome = fx.turn("hello").await;

    assert_eq!(outcome.stop_reason, TurnStop::Error);
    assert_eq!(
        outcome.error.as_deref(),
        Some(error.user_message().as_str())
    );
    let entries: Vec<(EntryRole, &str)> = outcome
        .messages
        .iter()
        .map(|m| (m.role, m.content.as_str()))
        .collect();
    let said = error.user_message();
    assert_eq!(
        entries,
        [
            (EntryRole::Assistant, "Half an answer"),
            (EntryRole::Notice, said.as_str())
        ]
    );
    // Kept as shown, so the conversation reads back as the user saw it.
    assert_eq!(
        fx.stored(&outcome.conversation),
        [
            (Role::User, "hello".to_string()),
            (Role::Assistant, "Half an answer".to_string()),
            (Role::Notice, said.clone()),
        ]
    );
    assert_eq!(fx.model.left(), 0);
}

#[tokio::test]
async fn stop_during_a_reply_keeps_what_was_shown() {
    let script = vec![Step::Hang {
        shown: vec!["Thinking".into()],
    }];
    let fx = Fixture::new(json!({}), script, Vec::new()).await;
    let cancel = CancellationToken::new();
    let stopped = cancel.clone();
    // The user presses Stop once the first words are on the screen.
    let events = EventSink::new(move |event| {
        if let HostEvent::ChatDelta { .. } = event {
            stopped.cancel();
        }
    });
    let cx = TurnContext {
        events: &events,
        ..fx.cx()
    };
    let request = TurnRequest {
        message: "think",
        ..TurnRequest::default()
    };
    let outcome = run_turn(&cx, request, &cancel).await.unwrap();
    assert_eq!(outcome.stop_reason, TurnStop::Cancelled);
    assert_eq!(outcome.messages[0].content, "Thinking");
    assert_eq!(
        fx.stored(&outcome.conversation)[1],
        (Role::Assistant, "Thinking".to_string())
    );
}

#[tokio::test]
async fn a_views_context_kept_by_the_user_goes_with_the_message_labelled_and_as_a_chip() {
    use crate::chat::attach::Attachment;
    let script = vec![Step::Reply(FakeReply::text(&["Noted."]))];
    let fx = Fixture::new(json!({}), script, Vec::new()).await;
    let kept = [Attachment::ViewContext {
        server: "budget".into(),
        tool: "get-budget".into(),
        view: "v1".into(),
        text: "marketing: 30%".into(),
    }];
    let request = TurnRequest {
        message: "is that too much?",
        attachments: &kept,
        ..TurnRequest::default()
    };
    let outcome = run_turn(&fx.cx(), request, &CancellationToken::new())
        .await
        .unwrap();
    let requests = fx.model.requests();
    let crate::model::TurnMessage::User(given) = &requests[0].messages[0] else {
        panic!("{:?}", requests[0].messages)
    };
    assert_eq!(
        given,
        "is that too much?\n\n[kept by the user: what the view of the tool get-budget of budget gave as context]\nmarketing: 30%"
    );
    let stored = fx.store.messages(&outcome.conversation).unwrap();
    let Some(crate::conversations::MessageData::User(user)) = &stored[0].data else {
        panic!("{:?}", stored[0].data)
    };
    assert_eq!(user.attachments[0].attachment, kept[0]);
    assert_eq!(user.attachments[0].chars, 14);
}
