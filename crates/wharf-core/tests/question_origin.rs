//! A server's question that arises from a call carries the call's label (`origin`), so a front end can show it
//! beside the call that caused it (a conversation's tool call): in both eras, against the python SDK server, whose
//! `whoami` asks for a form through an MRTR round (2026-07-28) or an `elicitation/create` request (handshake era).

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::{json, Value};
use wharf_core::broker::{Broker, DeclaredCapabilities, UserAgent};
use wharf_core::question::{AnswerContent, InputAnswer, InputKind, InputRequest};
use wharf_core::{CallOptions, EventSink, Host, HostOptions};

#[derive(Default)]
struct Recording(Mutex<Vec<InputRequest>>);

impl UserAgent for Recording {
    fn answer(&self, request: InputRequest) -> BoxFuture<'_, InputAnswer> {
        self.0.lock().unwrap().push(request);
        Box::pin(async {
            InputAnswer::Accept {
                content: json!({"name": "Ada", "age": 36})
                    .as_object()
                    .cloned()
                    .map(AnswerContent::Form),
            }
        })
    }
}

#[tokio::test]
async fn a_question_from_a_labelled_call_carries_its_label_in_both_eras() {
    for era in ["modern", "legacy"] {
        let agent = Arc::new(Recording::default());
        let broker = Broker::new(DeclaredCapabilities::SERVED, agent.clone());
        let mut server = peers::py_server();
        server["era"] = json!(era);
        let host = Host::new(
            peers::config(json!({ "py": server })),
            broker,
            EventSink::discard(),
            HostOptions::default(),
        );
        let conn = host.connection("py").await.unwrap();
        let label = json!({"conversation": "c1", "call": "call-7"});
        let options = CallOptions {
            label: Some(label.clone()),
            ..CallOptions::default()
        };
        let result = conn.call_tool("whoami", None, &options).await.unwrap();
        let result = result.sent();
        let text = result.pointer("/content/0/text").and_then(Value::as_str);
        assert!(text.unwrap_or("").contains("Ada"), "{era}: {result}");
        let asked = agent.0.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{era}");
        assert_eq!(asked[0].kind, InputKind::ElicitationForm);
        assert_eq!(asked[0].origin.as_ref(), Some(&label), "{era}");
        assert_eq!(asked[0].cause.as_deref(), Some("calling tool whoami"));
        host.shutdown().await;
    }
}
