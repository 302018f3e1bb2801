//! The questions of a front end with a window: every server-to-user request becomes a pending entry the window's
//! dialog host shows, and waits for the user's answer. Closing the window (or the app) cancels whatever is still
//! waiting: never a silent accept. The app uses it today; a conversation's cards will too.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::oneshot;

use super::UserAgent;
use crate::elicitation::checked_content;
use crate::question::{FieldProblem, InputAnswer, InputKind, InputRequest, InputView};

/// A request waiting in the dialog host.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct PendingInput {
    #[ts(type = "number")]
    pub id: u64,
    pub request: InputRequest,
}

/// The payload of `input-resolved`.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct InputResolved {
    #[ts(type = "number")]
    pub id: u64,
}

/// What a front end hears from the queue: a question to show, or one to take away (answered here or elsewhere,
/// or its asker stopped waiting).
#[derive(Debug, Clone)]
pub enum QueueEvent {
    Asked(Box<PendingInput>),
    Resolved(InputResolved),
}

type Listener = Box<dyn Fn(QueueEvent) + Send + Sync>;

/// A `UserAgent` that keeps every question until the user answers it in the front end, oldest first.
#[derive(Default)]
pub struct QuestionQueue {
    next_id: AtomicU64,
    pending: Mutex<BTreeMap<u64, (InputRequest, oneshot::Sender<InputAnswer>)>>,
    listener: OnceLock<Listener>,
}

impl QuestionQueue {
    /// Where the queue's events go (the window's dialog host); set once, before the first question.
    pub fn listen(&self, listener: impl Fn(QueueEvent) + Send + Sync + 'static) {
        let _ = self.listener.set(Box::new(listener));
    }

    /// In arrival order: the dialog host shows the oldest first.
    pub fn pending(&self) -> Vec<PendingInput> {
        self.pending
            .lock()
            .map(|p| {
                p.iter()
                    .map(|(id, (request, _))| PendingInput {
                        id: *id,
                        request: request.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Delivers the user's answer; false when the request is no longer waiting (answered, or its call ended).
    pub fn reply(&self, id: u64, answer: InputAnswer) -> bool {
        let entry = self.pending.lock().ok().and_then(|mut p| p.remove(&id));
        match entry {
            Some((_, tx)) => {
                self.resolved(id);
                tx.send(answer).is_ok()
            }
            None => false,
        }
    }

    /// Like [`reply`](Self::reply), but a form's Accept is checked first against the form it answers (the server's
    /// `requestedSchema` and the spec Wharf made of it): an answer that does not fit is refused with one problem per
    /// field, and the request keeps waiting, so the dialog can show the problems next to the fields.
    pub fn reply_checked(&self, id: u64, answer: InputAnswer) -> Result<bool, Vec<FieldProblem>> {
        let request = self
            .pending
            .lock()
            .ok()
            .and_then(|p| p.get(&id).map(|(request, _)| request.clone()));
        let Some(request) = request else {
            return Ok(false);
        };
        if let InputAnswer::Accept { content } = &answer {
            check_form_answer(&request, content.clone())?;
            check_tool_call_answer(&request, &answer)?;
        }
        Ok(self.reply(id, answer))
    }

    /// Everything still waiting is cancelled: the user closed the window without answering.
    pub fn cancel_all(&self) {
        let waiting = self
            .pending
            .lock()
            .map(|mut p| std::mem::take(&mut *p))
            .unwrap_or_default();
        for (id, (_, tx)) in waiting {
            let _ = tx.send(InputAnswer::Cancel);
            self.resolved(id);
        }
    }

    fn tell(&self, event: QueueEvent) {
        if let Some(listener) = self.listener.get() {
            listener(event);
        }
    }

    fn resolved(&self, id: u64) {
        self.tell(QueueEvent::Resolved(InputResolved { id }));
    }
}

/// The authoritative check of a form's answer, the one the broker makes before sending it (defaults filled in,
/// validated against the server's schema). Other kinds have nothing to check here.
fn check_form_answer(
    request: &InputRequest,
    content: Option<Value>,
) -> Result<(), Vec<FieldProblem>> {
    let (InputKind::ElicitationForm, Some(InputView::Form { form, .. })) =
        (request.kind, &request.view)
    else {
        return Ok(());
    };
    let schema = request
        .params
        .get("requestedSchema")
        .cloned()
        .unwrap_or(Value::Null);
    checked_content(&schema, form, content).map(|_| ())
}

/// A tool call's card: the answer must be one, and edited arguments must fit the tool's input schema, so the card
/// can show why before anything is sent.
fn check_tool_call_answer(
    request: &InputRequest,
    answer: &InputAnswer,
) -> Result<(), Vec<FieldProblem>> {
    let Some(InputView::ToolCall(view)) = &request.view else {
        return Ok(());
    };
    let InputAnswer::Accept {
        content: Some(content),
    } = answer
    else {
        return Ok(());
    };
    let problem = |field: &str, message: String| {
        vec![FieldProblem {
            field: field.into(),
            message,
        }]
    };
    let parsed: crate::question::tool_call::ToolCallAnswer =
        serde_json::from_value(content.clone())
            .map_err(|e| problem("", format!("not an answer to a tool call: {e}")))?;
    parsed
        .checked_arguments(view)
        .map(|_| ())
        .map_err(|e| problem("arguments", e.to_string()))
}

/// Removes a request whose asker stopped waiting (the call was cancelled or the server went away).
struct Forget<'a> {
    agent: &'a QuestionQueue,
    id: u64,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        let removed = self
            .agent
            .pending
            .lock()
            .ok()
            .and_then(|mut p| p.remove(&self.id));
        if removed.is_some() {
            self.agent.resolved(self.id);
        }
    }
}

impl UserAgent for QuestionQueue {
    fn answer(&self, request: InputRequest) -> BoxFuture<'_, InputAnswer> {
        Box::pin(async move {
            let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
            let (tx, rx) = oneshot::channel();
            if let Ok(mut p) = self.pending.lock() {
                p.insert(id, (request.clone(), tx));
            }
            self.tell(QueueEvent::Asked(Box::new(PendingInput { id, request })));
            let _forget = Forget { agent: self, id };
            // A dropped sender means the app is closing: that is a cancel, never an accept.
            rx.await.unwrap_or(InputAnswer::Cancel)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(server: &str) -> InputRequest {
        InputRequest {
            server: server.into(),
            kind: InputKind::ElicitationForm,
            cause: Some("calling tool t".into()),
            origin: None,
            params: json!({"message": "?"}),
            view: None,
        }
    }

    /// A form request as the broker makes it: the server's schema in the params, Wharf's spec of it in the view.
    fn form_request(schema: Value) -> InputRequest {
        let form = crate::elicitation::form::parse_form(&schema).expect("a form");
        InputRequest {
            server: "s".into(),
            kind: InputKind::ElicitationForm,
            cause: None,
            origin: None,
            params: json!({"message": "Who are you?", "requestedSchema": schema}),
            view: Some(InputView::Form {
                message: "Who are you?".into(),
                form,
                warnings: Vec::new(),
            }),
        }
    }

    async fn started_with<'a>(
        agent: &'a QuestionQueue,
        request: InputRequest,
    ) -> BoxFuture<'a, InputAnswer> {
        let mut fut = UserAgent::answer(agent, request);
        tokio::select! {
            biased;
            _ = &mut fut => panic!("answered before anyone answered"),
            _ = std::future::ready(()) => {}
        }
        fut
    }

    /// Polls a future once, so it registers its request, and returns it still pending.
    async fn started<'a>(agent: &'a QuestionQueue, server: &str) -> BoxFuture<'a, InputAnswer> {
        started_with(agent, request(server)).await
    }

    #[tokio::test]
    async fn requests_queue_in_order_and_get_their_own_answer() {
        let agent = QuestionQueue::default();
        let first = started(&agent, "a").await;
        let second = started(&agent, "b").await;
        let pending = agent.pending();
        assert_eq!(
            pending
                .iter()
                .map(|p| p.request.server.as_str())
                .collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert!(agent.reply(pending[1].id, InputAnswer::Decline));
        assert!(agent.reply(
            pending[0].id,
            InputAnswer::Accept {
                content: Some(json!({"n": 1}))
            }
        ));
        assert_eq!(second.await, InputAnswer::Decline);
        assert_eq!(
            first.await,
            InputAnswer::Accept {
                content: Some(json!({"n": 1}))
            }
        );
        assert!(agent.pending().is_empty());
        assert!(
            !agent.reply(pending[0].id, InputAnswer::Cancel),
            "answered once only"
        );
    }

    #[tokio::test]
    async fn closing_cancels_and_an_abandoned_request_leaves_the_queue() {
        let agent = QuestionQueue::default();
        let waiting = started(&agent, "a").await;
        agent.cancel_all();
        assert_eq!(waiting.await, InputAnswer::Cancel);
        let abandoned = started(&agent, "b").await;
        assert_eq!(agent.pending().len(), 1);
        drop(abandoned);
        assert!(
            agent.pending().is_empty(),
            "the call that asked is gone, so is its dialog"
        );
    }

    fn accept(content: Value) -> InputAnswer {
        InputAnswer::Accept {
            content: Some(content),
        }
    }

    #[tokio::test]
    async fn a_form_answer_that_does_not_fit_is_refused_field_by_field_and_keeps_waiting() {
        let agent = QuestionQueue::default();
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 2},
                "age": {"type": "integer", "minimum": 0, "maximum": 150},
                "email": {"type": "string", "format": "email"},
                "colour": {"type": "string", "enum": ["red", "green"], "default": "red"}
            },
            "required": ["name", "age"]
        });
        let waiting = started_with(&agent, form_request(schema)).await;
        let id = agent.pending()[0].id;

        let problems = agent
            .reply_checked(
                id,
                accept(json!({"name": "x", "age": 200, "email": "nope"})),
            )
            .expect_err("three fields are wrong");
        let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(fields.len(), 3, "{problems:?}");
        for field in ["name", "age", "email"] {
            assert!(fields.contains(&field), "{field} in {problems:?}");
        }
        let missing = agent
            .reply_checked(id, accept(json!({"name": "Ada"})))
            .expect_err("age is required");
        assert_eq!(missing[0].field, "age");
        assert!(missing[0].message.contains("required"), "{missing:?}");
        let not_an_object = agent
            .reply_checked(id, accept(json!([1])))
            .expect_err("not an object");
        assert_eq!(not_an_object[0].field, "");
        assert_eq!(
            agent.pending().len(),
            1,
            "a refused answer leaves the request waiting"
        );

        assert_eq!(
            agent.reply_checked(id, accept(json!({"name": "Ada", "age": 36}))),
            Ok(true)
        );
        assert_eq!(
            waiting.await,
            accept(json!({"name": "Ada", "age": 36})),
            "the answer goes on as given (the broker fills the defaults)"
        );
        assert_eq!(agent.reply_checked(id, InputAnswer::Cancel), Ok(false));
    }

    #[tokio::test]
    async fn decline_and_cancel_are_never_checked_and_other_kinds_pass_through() {
        let agent = QuestionQueue::default();
        let schema = json!({
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"]
        });
        let declined = started_with(&agent, form_request(schema.clone())).await;
        let cancelled = started_with(&agent, form_request(schema)).await;
        let other = started(&agent, "plain").await;
        let ids: Vec<u64> = agent.pending().iter().map(|p| p.id).collect();
        assert_eq!(agent.reply_checked(ids[0], InputAnswer::Decline), Ok(true));
        assert_eq!(agent.reply_checked(ids[1], InputAnswer::Cancel), Ok(true));
        // A form kind without Wharf's view (nothing to check against) and no content: passed on as it is.
        assert_eq!(
            agent.reply_checked(ids[2], InputAnswer::Accept { content: None }),
            Ok(true)
        );
        assert_eq!(declined.await, InputAnswer::Decline);
        assert_eq!(cancelled.await, InputAnswer::Cancel);
        assert_eq!(other.await, InputAnswer::Accept { content: None });
    }
}
