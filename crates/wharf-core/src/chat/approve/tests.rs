use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::json;

use super::*;
use crate::approval::pin::ServerDefinition;
use crate::approval::ToolApproval;
use crate::broker::{DeclaredCapabilities, QuestionQueue, ScriptedAgent, UserAgent};
use crate::chat::tools::ModelTools;
use crate::connection::ToolInfo;
use crate::display_text::name::NameOddity;
use crate::question::SentAnswer;

/// A scripted user that also keeps every question it was asked.
struct Recording {
    script: ScriptedAgent,
    asked: Mutex<Vec<InputRequest>>,
}

impl UserAgent for Recording {
    fn answer(&self, request: InputRequest) -> BoxFuture<'_, InputAnswer> {
        if let Ok(mut asked) = self.asked.lock() {
            asked.push(request.clone());
        }
        self.script.answer(request)
    }
}

struct Setup {
    _dir: tempfile::TempDir,
    approvals: Approvals,
    agent: Arc<Recording>,
    broker: Broker,
    events: Arc<Mutex<Vec<HostEvent>>>,
    sink: EventSink,
    tools: ModelTools,
}

fn setup(answers: &str) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let (approvals, notice) = Approvals::open(dir.path().join("tool-grants.json"));
    assert_eq!(notice, None);
    let agent = Arc::new(Recording {
        script: ScriptedAgent::parse(answers).unwrap(),
        asked: Mutex::default(),
    });
    let broker = Broker::new(DeclaredCapabilities::SERVED, agent.clone());
    let events = Arc::new(Mutex::new(Vec::new()));
    let kept = events.clone();
    let sink = EventSink::new(move |e| kept.lock().unwrap().push(e));
    let info = ToolInfo {
        name: "write_file".into(),
        title: Some("Write".into()),
        description: Some("Writes a file.".into()),
        input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}},
                             "required": ["path"]}),
        output_schema: None,
        annotations: Some(crate::protocol::ToolAnnotations {
            destructive_hint: Some(true),
            ..Default::default()
        }),
        ui: None,
    };
    Setup {
        _dir: dir,
        approvals,
        agent,
        broker,
        events,
        sink,
        tools: ModelTools::new([("fs".to_string(), vec![info])]),
    }
}

const ASK: ServerStance = ServerStance {
    approval: ToolApproval::Ask,
    trusted: false,
};

fn server() -> ServerDefinition {
    ServerDefinition {
        command: Some("fs-server".into()),
        args: vec!["/w".into()],
        url: None,
    }
}

async fn decide(s: &Setup, stance: ServerStance, arguments: Value) -> Approved {
    let tool = s.tools.get("fs__write_file").unwrap();
    let approval = Approval {
        approvals: &s.approvals,
        broker: &s.broker,
        events: &s.sink,
        conversation: "c1",
    };
    approval
        .decide(CallToApprove {
            call_id: "call-1",
            tool,
            pinned: Pinned::new(server(), &tool.tool),
            stance,
            arguments: arguments.as_object().unwrap().clone(),
            new_tool: true,
            caller: None,
        })
        .await
}

fn last_event(s: &Setup) -> Value {
    let events = s.events.lock().unwrap();
    serde_json::to_value(events.last().unwrap()).unwrap()
}

#[tokio::test]
async fn the_card_shows_the_call_and_an_edit_is_sent_and_always_is_kept() {
    let s =
        setup(r#"{"tool_call": {"action": "allow_always", "arguments": {"path": "/w/edited"}}}"#);
    let approved = decide(&s, ASK, json!({"path": "/w/model"})).await;
    assert_eq!(approved.decision, CallDecision::AllowAlways);
    assert_eq!(approved.arguments["path"], "/w/edited");
    assert_eq!(approved.refusal, None);
    let asked = s.agent.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].kind, InputKind::ToolCall);
    let Some(InputView::ToolCall(view)) = &asked[0].view else {
        panic!("{:?}", asked[0].view)
    };
    assert_eq!(
        (view.server.as_str(), view.tool.as_str()),
        ("fs", "write_file")
    );
    assert_eq!(view.description.as_deref(), Some("Writes a file."));
    assert_eq!(view.arguments, json!({"path": "/w/model"}));
    assert!(view.new_tool && !view.trusted && view.changes.is_empty());
    let event = last_event(&s);
    assert_eq!(event["event"], "tool_call");
    assert_eq!(event["decision"], "allow_always");
    assert_eq!(event["arguments"], json!({"path": "/w/edited"}));
    assert_eq!(event["conversation"], "c1");
    assert!(event["pin"].as_str().unwrap().starts_with("sha256:"));
    // Kept: the next call is granted without asking, in any conversation.
    let again = decide(&s, ASK, json!({"path": "/w/x"})).await;
    assert_eq!(again.decision, CallDecision::Granted);
    assert_eq!(again.grant, Some(GrantKind::Always));
    assert_eq!(s.agent.asked.lock().unwrap().len(), 1);
    assert_eq!(last_event(&s)["grant"], "always");
}

#[tokio::test]
async fn a_denial_carries_the_users_reason_and_a_declined_card_denies() {
    let s = setup(
        r#"{"tool_call": [{"action": "deny", "reason": "not that file\u001b[2J"}, {"action": "allow_once"}]}"#,
    );
    let denied = decide(&s, ASK, json!({"path": "/w/a"})).await;
    assert_eq!(denied.decision, CallDecision::Deny);
    let reason = denied.refusal.unwrap();
    assert!(reason.contains("not that file"), "{reason}");
    assert!(!reason.contains('\u{1b}'), "{reason:?}");
    let once = decide(&s, ASK, json!({"path": "/w/a"})).await;
    assert_eq!(once.decision, CallDecision::AllowOnce);
    // Allow once keeps nothing: the list repeats its last entry, so it is asked again and answered the same.
    let again = decide(&s, ASK, json!({"path": "/w/a"})).await;
    assert_eq!(again.decision, CallDecision::AllowOnce);
    assert_eq!(s.agent.asked.lock().unwrap().len(), 3);
    // No entry at all: declined, so denied.
    let s = setup("{}");
    assert_eq!(
        decide(&s, ASK, json!({"path": "/w/a"})).await.decision,
        CallDecision::Deny
    );
}

#[tokio::test]
async fn an_edit_that_breaks_the_schema_is_not_sent() {
    let s = setup(r#"{"tool_call": {"action": "allow_once", "arguments": {"path": 7}}}"#);
    let approved = decide(&s, ASK, json!({"path": "/w/a"})).await;
    assert_eq!(approved.decision, CallDecision::Deny);
    assert!(
        approved
            .refusal
            .unwrap()
            .contains("do not fit its input schema"),
        "the schema problem is named"
    );
}

#[tokio::test]
async fn the_server_settings_decide_without_asking_and_say_so() {
    let s = setup(r#"{"tool_call": {"action": "allow_once"}}"#);
    let deny = ServerStance {
        approval: ToolApproval::Deny,
        trusted: false,
    };
    let refused = decide(&s, deny, json!({"path": "/w/a"})).await;
    assert_eq!(refused.decision, CallDecision::Deny);
    assert!(refused.refusal.is_some());
    let allow = ServerStance {
        approval: ToolApproval::Allow,
        trusted: false,
    };
    let granted = decide(&s, allow, json!({"path": "/w/a"})).await;
    assert_eq!(granted.grant, Some(GrantKind::ServerAllow));
    assert!(s.agent.asked.lock().unwrap().is_empty());
    // A trusted server's destructive tool is asked about even when the server allows everything.
    let trusted_allow = ServerStance {
        approval: ToolApproval::Allow,
        trusted: true,
    };
    let asked = decide(&s, trusted_allow, json!({"path": "/w/a"})).await;
    assert_eq!(asked.decision, CallDecision::AllowOnce);
    assert_eq!(s.agent.asked.lock().unwrap().len(), 1);
}

/// The card's answer as the window sends it.
fn sent(answer: &ToolCallAnswer) -> SentAnswer {
    SentAnswer::Accept {
        content: Some(serde_json::to_value(answer).unwrap()),
    }
}

#[tokio::test]
async fn the_window_cannot_answer_with_arguments_that_break_the_schema() {
    let s = setup("{}");
    let queue = Arc::new(QuestionQueue::default());
    let broker = Broker::new(DeclaredCapabilities::SERVED, queue.clone());
    let tool = s.tools.get("fs__write_file").unwrap();
    let approval = Approval {
        approvals: &s.approvals,
        broker: &broker,
        events: &s.sink,
        conversation: "c1",
    };
    let asking = approval.decide(CallToApprove {
        call_id: "call-1",
        tool,
        pinned: Pinned::new(server(), &tool.tool),
        stance: ASK,
        arguments: json!({"path": "/w/a"}).as_object().unwrap().clone(),
        new_tool: false,
        caller: None,
    });
    let answering = async {
        let id = loop {
            if let Some(p) = queue.pending().first() {
                break p.id;
            }
            tokio::task::yield_now().await;
        };
        let bad = ToolCallAnswer {
            action: ToolCallChoice::AllowOnce,
            arguments: Some(json!({"path": ["x"]}).as_object().unwrap().clone()),
            reason: None,
        };
        let problems = queue.reply_checked(id, sent(&bad)).unwrap_err();
        assert_eq!(problems[0].field, "arguments");
        let good = ToolCallAnswer {
            action: ToolCallChoice::AllowConversation,
            arguments: Some(json!({"path": "/w/b"}).as_object().unwrap().clone()),
            reason: None,
        };
        assert_eq!(queue.reply_checked(id, sent(&good)), Ok(true));
    };
    let (approved, ()) = tokio::join!(asking, answering);
    assert_eq!(approved.decision, CallDecision::AllowConversation);
    assert_eq!(approved.arguments["path"], "/w/b");
}

#[tokio::test]
async fn a_tool_named_in_words_is_quoted_in_the_cause_and_flagged_on_the_card() {
    let mut s = setup(r#"{"tool_call": {"action": "deny"}}"#);
    let name = "note on trusted-docs\u{202e}";
    let info = ToolInfo {
        name: name.into(),
        title: None,
        description: None,
        input_schema: json!({"type": "object"}),
        output_schema: None,
        annotations: None,
        ui: None,
    };
    s.tools = ModelTools::new([("evil".to_string(), vec![info])]);
    let tool = s.tools.iter().next().unwrap().clone();
    let approval = Approval {
        approvals: &s.approvals,
        broker: &s.broker,
        events: &s.sink,
        conversation: "c1",
    };
    let tail = format!("{}; rm -rf ~\u{200b}", "a".repeat(5000));
    let arguments = json!({"text": tail, "more": {"k1": 1, "k2": [{"k3": true}]}});
    approval
        .decide(CallToApprove {
            call_id: "call-1",
            tool: &tool,
            pinned: Pinned::new(server(), &tool.tool),
            stance: ASK,
            arguments: arguments.as_object().unwrap().clone(),
            new_tool: true,
            caller: None,
        })
        .await;
    let asked = s.agent.asked.lock().unwrap().clone();
    assert_eq!(
        asked[0].cause.as_deref(),
        Some("the model calls tool \"note on trusted-docs\\u{202e}\"")
    );
    let Some(InputView::ToolCall(view)) = &asked[0].view else {
        panic!("{:?}", asked[0].view)
    };
    assert_eq!(view.tool_shown.escaped, "note on trusted-docs\\u{202e}");
    assert_eq!(
        view.tool_shown.oddities,
        [NameOddity::Spaces, NameOddity::Hidden]
    );
    assert!(view.server_shown.oddities.is_empty());
    // The whole argument, its dangerous tail too, with the zero-width space visible and the same JSON.
    assert!(
        view.arguments_text.contains("; rm -rf ~\\u200b\""),
        "{}",
        view.arguments_text
    );
    assert!(!view.arguments_text.contains('\u{200b}'));
    assert_eq!(
        serde_json::from_str::<Value>(&view.arguments_text).unwrap(),
        arguments
    );
    assert_eq!(
        view.arguments_size,
        ArgumentsSize {
            bytes: serde_json::to_string(&arguments).unwrap().len(),
            lines: 11,
            keys: 5,
        }
    );
}
