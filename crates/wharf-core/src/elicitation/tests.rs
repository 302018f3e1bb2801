use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::json;

use super::*;
use crate::broker::{DeclaredCapabilities, UserAgent};

/// An accepted form carrying `fields`.
fn filled(fields: Value) -> InputAnswer {
    let Value::Object(fields) = fields else {
        panic!("not fields: {fields}");
    };
    InputAnswer::Accept {
        content: Some(AnswerContent::Form(fields)),
    }
}

/// A user who answers from a list and remembers what was put in front of them.
#[derive(Default)]
struct Recorder {
    answers: Mutex<Vec<InputAnswer>>,
    asked: Mutex<Vec<InputRequest>>,
}

impl UserAgent for Recorder {
    fn answer(&self, request: InputRequest) -> BoxFuture<'_, InputAnswer> {
        self.asked.lock().unwrap().push(request);
        let answer = {
            let mut answers = self.answers.lock().unwrap();
            if answers.is_empty() {
                InputAnswer::Cancel
            } else {
                answers.remove(0)
            }
        };
        Box::pin(async move { answer })
    }
}

struct Rig {
    broker: Broker,
    guard: guard::ElicitationGuard,
    agent: Arc<Recorder>,
    events: Arc<Mutex<Vec<HostEvent>>>,
    sink: EventSink,
}

fn rig(answers: Vec<InputAnswer>) -> Rig {
    let agent = Arc::new(Recorder {
        answers: Mutex::new(answers),
        ..Recorder::default()
    });
    let broker = Broker::new(DeclaredCapabilities::SERVED, agent.clone());
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = events.clone();
    let sink = EventSink::new(move |e| seen.lock().unwrap().push(e));
    Rig {
        broker,
        guard: Default::default(),
        agent,
        events,
        sink,
    }
}

impl Rig {
    async fn elicit(&self, params: &Value) -> Result<ElicitReply, BrokerRefusal> {
        elicit(Elicitation {
            broker: &self.broker,
            guard: &self.guard,
            events: &self.sink,
            server: "s",
            cause: Some("calling tool t".into()),
            params,
        })
        .await
    }

    fn asked(&self) -> usize {
        self.agent.asked.lock().unwrap().len()
    }

    fn events(&self) -> Vec<Value> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .map(|e| serde_json::to_value(e).unwrap())
            .collect()
    }

    fn notices(&self) -> Vec<String> {
        self.events()
            .into_iter()
            .filter(|e| e["event"] == "notice" || e["event"] == "server_error")
            .map(|e| e["code"].as_str().unwrap().to_string())
            .collect()
    }
}

fn form_params() -> Value {
    json!({
        "message": "Who are you?",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 2},
                "age": {"type": "integer", "minimum": 0, "default": 30},
                "apiKey": {"type": "string", "title": "API key"}
            },
            "required": ["name"]
        }
    })
}

#[tokio::test]
async fn an_accepted_form_is_filled_with_defaults_validated_and_reported() {
    let rig = rig(vec![filled(json!({"name": "Ada"}))]);
    let reply = rig.elicit(&form_params()).await.unwrap();
    assert_eq!(
        reply.to_json(),
        json!({"action": "accept", "content": {"name": "Ada", "age": 30}})
    );
    let asked = rig.agent.asked.lock().unwrap()[0].clone();
    assert_eq!(asked.kind, InputKind::ElicitationForm);
    let Some(InputView::Form { form, warnings, .. }) = asked.view else {
        panic!("no form view: {:?}", asked.view);
    };
    assert_eq!(form.fields.len(), 3);
    assert_eq!(warnings, ["credential_field:apiKey"]);
    let shown = rig
        .events()
        .into_iter()
        .find(|e| e["event"] == "elicitation_form")
        .unwrap();
    assert_eq!(shown["answer"], "accept");
    assert_eq!(shown["warnings"], json!(["credential_field:apiKey"]));
    assert_eq!(shown["fields"][0]["name"], "name");
    assert_eq!(shown["fields"][0]["type"], "string");
    assert_eq!(shown["fields"][0]["required"], true);
}

#[tokio::test]
async fn an_invalid_answer_is_never_sent_it_becomes_cancel_with_an_error() {
    let rig = rig(vec![filled(json!({"name": "A", "age": -1}))]);
    let reply = rig.elicit(&form_params()).await.unwrap();
    assert_eq!(reply, ElicitReply::Cancel);
    assert!(rig.notices().contains(&"invalid_answer".to_string()));
}

#[tokio::test]
async fn a_form_outside_the_subset_is_declined_without_asking() {
    let rig = rig(vec![InputAnswer::Accept { content: None }]);
    let params = json!({
        "message": "Address?",
        "requestedSchema": {"type": "object", "properties": {"address": {"type": "object", "properties": {}}}}
    });
    assert_eq!(rig.elicit(&params).await.unwrap(), ElicitReply::Decline);
    assert_eq!(rig.asked(), 0);
    assert_eq!(rig.notices(), ["form_not_supported"]);
}

#[tokio::test]
async fn decline_and_cancel_stay_apart_and_a_decline_is_remembered() {
    let rig = rig(vec![InputAnswer::Cancel, InputAnswer::Decline]);
    assert_eq!(
        rig.elicit(&form_params()).await.unwrap(),
        ElicitReply::Cancel
    );
    // Cancelled: asking again is fair.
    assert_eq!(
        rig.elicit(&form_params()).await.unwrap(),
        ElicitReply::Decline
    );
    assert_eq!(rig.asked(), 2);
    // Declined: the same question again is declined without a dialog, with a notice.
    assert_eq!(
        rig.elicit(&form_params()).await.unwrap(),
        ElicitReply::Decline
    );
    assert_eq!(rig.asked(), 2);
    assert!(rig.notices().contains(&"declined_before".to_string()));
    // Another question from the same server still reaches the user.
    let mut other = form_params();
    other["message"] = json!("Something else?");
    rig.elicit(&other).await.unwrap();
    assert_eq!(rig.asked(), 3);
}

#[tokio::test]
async fn a_refused_url_never_reaches_the_user_nor_the_browser() {
    let rig = rig(vec![InputAnswer::Accept { content: None }]);
    for url in [
        "javascript:alert(1)",
        "file:///etc/passwd",
        "http://evil.example/",
    ] {
        let params = json!({"mode": "url", "message": "Go", "url": url, "elicitationId": "e"});
        assert_eq!(
            rig.elicit(&params).await.unwrap(),
            ElicitReply::Decline,
            "{url}"
        );
    }
    assert_eq!(rig.asked(), 0);
    let shown: Vec<Value> = rig
        .events()
        .into_iter()
        .filter(|e| e["event"] == "elicitation_url")
        .collect();
    assert_eq!(shown.len(), 3);
    for e in shown {
        assert_eq!(e["opened"], false);
        assert_eq!(e["answer"], "decline");
        assert!(e["warnings"]
            .as_array()
            .unwrap()
            .contains(&json!("refused_scheme")));
    }
}

#[tokio::test]
async fn a_server_that_asks_too_often_is_paused_until_allowed() {
    let rig = rig(Vec::new());
    let mut asked = 0;
    for i in 0..guard::DEFAULT_RATE_LIMIT + 5 {
        let mut params = form_params();
        params["message"] = json!(format!("question {i}"));
        assert_eq!(rig.elicit(&params).await.unwrap(), ElicitReply::Cancel);
        asked = rig.asked();
    }
    assert_eq!(asked, guard::DEFAULT_RATE_LIMIT);
    let paused = rig
        .notices()
        .iter()
        .filter(|c| *c == "elicitation_paused")
        .count();
    assert_eq!(paused, 1, "said once");
    assert!(rig.guard.resume("s"));
    rig.elicit(&form_params()).await.unwrap();
    assert_eq!(rig.asked(), guard::DEFAULT_RATE_LIMIT + 1);
}

#[tokio::test]
async fn an_undeclared_mode_is_refused_before_the_user() {
    let agent = Arc::new(Recorder::default());
    let broker = Broker::new(
        DeclaredCapabilities {
            elicitation_form: true,
            ..DeclaredCapabilities::default()
        },
        agent.clone(),
    );
    let params = json!({"mode": "url", "message": "Go", "url": "https://example.com/", "elicitationId": "e"});
    let refusal = elicit(Elicitation {
        broker: &broker,
        guard: &Default::default(),
        events: &EventSink::discard(),
        server: "s",
        cause: None,
        params: &params,
    })
    .await
    .unwrap_err();
    assert_eq!(refusal.jsonrpc_code(), -32602);
    assert!(agent.asked.lock().unwrap().is_empty());
}
