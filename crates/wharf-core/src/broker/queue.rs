//! The questions of a front end with a window: every server-to-user request becomes a pending entry the window's
//! dialog host shows, and waits for the user's answer. Closing the window (or the app) cancels whatever is still
//! waiting: never a silent accept. The app uses it today; a conversation's cards will too.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use futures::future::BoxFuture;
use serde::Serialize;
use tokio::sync::oneshot;

use super::UserAgent;
use crate::question::{FieldProblem, InputAnswer, InputRequest, SentAnswer};

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

    /// The answer a front end sent, read against the question it answers and checked by the feature that asked (a
    /// form's fields against the server's schema, a tool call's edited arguments against the tool's): an answer that
    /// does not fit is refused with one problem per field, and the question keeps waiting, so the window can show
    /// the problems next to the fields. False when the question is no longer waiting.
    pub fn reply_checked(&self, id: u64, sent: SentAnswer) -> Result<bool, Vec<FieldProblem>> {
        let request = self
            .pending
            .lock()
            .ok()
            .and_then(|p| p.get(&id).map(|(request, _)| request.clone()));
        let Some(request) = request else {
            return Ok(false);
        };
        let answer = sent
            .read(request.kind, request.view.as_ref())
            .map_err(|problem| vec![problem])?;
        if let (InputAnswer::Accept { content }, Some(check)) = (&answer, &request.check) {
            check.run(content.as_ref())?;
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
    use crate::question::{AnswerContent, InputKind, InputView};
    use serde_json::{json, Map, Value};

    fn request(server: &str) -> InputRequest {
        InputRequest {
            server: server.into(),
            kind: InputKind::ElicitationForm,
            cause: Some("calling tool t".into()),
            origin: None,
            params: json!({"message": "?"}),
            view: None,
            check: None,
        }
    }

    /// A form request as elicitation makes it: the server's schema in the params, Wharf's spec of it in the view,
    /// and elicitation's check of an answer.
    fn form_request(schema: Value) -> InputRequest {
        let form = crate::elicitation::form::parse_form(&schema).expect("a form");
        let check = crate::elicitation::form_check(schema.clone(), form.clone());
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
            check: Some(check),
        }
    }

    fn form_fields(content: Value) -> Map<String, Value> {
        match content {
            Value::Object(fields) => fields,
            other => panic!("not fields: {other}"),
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
        let filled = InputAnswer::Accept {
            content: Some(AnswerContent::Form(form_fields(json!({"n": 1})))),
        };
        assert!(agent.reply(pending[0].id, filled.clone()));
        assert_eq!(second.await, InputAnswer::Decline);
        assert_eq!(first.await, filled);
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

    fn accept(content: Value) -> SentAnswer {
        SentAnswer::Accept {
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
            InputAnswer::Accept {
                content: Some(AnswerContent::Form(form_fields(
                    json!({"name": "Ada", "age": 36})
                )))
            },
            "the answer goes on as given (elicitation fills the defaults)"
        );
        assert_eq!(agent.reply_checked(id, SentAnswer::Cancel), Ok(false));
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
        assert_eq!(agent.reply_checked(ids[0], SentAnswer::Decline), Ok(true));
        assert_eq!(agent.reply_checked(ids[1], SentAnswer::Cancel), Ok(true));
        // A form kind without a check (nothing to check against) and no content: passed on as it is.
        assert_eq!(
            agent.reply_checked(ids[2], SentAnswer::Accept { content: None }),
            Ok(true)
        );
        assert_eq!(declined.await, InputAnswer::Decline);
        assert_eq!(cancelled.await, InputAnswer::Cancel);
        assert_eq!(other.await, InputAnswer::Accept { content: None });
    }
}
