//! The window's questions: those waiting, an answer to one, and letting a paused server ask again.

use serde::Deserialize;

use crate::broker::{PendingInput, QuestionQueue};
use crate::config::edit::FieldError;
use crate::facade::command::{CommandError, Reply, Run};
use crate::facade::session::Session;
use crate::facade::ErrorCode;
use crate::question::SentAnswer;

#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct PendingInputs {}

impl Run for PendingInputs {
    async fn run(self, session: &Session) -> Reply<Vec<PendingInput>> {
        Ok(session.questions()?.pending())
    }
}

/// Answers a waiting request. An Accept is checked first by the feature that asked (a form's fields, a tool call's
/// edited arguments): an answer that does not fit is refused with `invalid_answer` and one problem per field, and
/// the request keeps waiting.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct AnswerInput {
    #[ts(type = "number")]
    pub id: u64,
    pub answer: SentAnswer,
}

impl Run for AnswerInput {
    async fn run(self, session: &Session) -> Reply<()> {
        answer_pending(session.questions()?, self.id, self.answer)
    }
}

pub(crate) fn answer_pending(queue: &QuestionQueue, id: u64, answer: SentAnswer) -> Reply<()> {
    match queue.reply_checked(id, answer) {
        Ok(true) => Ok(()),
        Ok(false) => Err(CommandError::new(
            ErrorCode::UnknownRequest,
            "that request is no longer waiting",
        )),
        Err(problems) => {
            let fields: Vec<FieldError> = problems
                .into_iter()
                .map(|p| FieldError {
                    field: p.field,
                    message: p.message,
                })
                .collect();
            let message = fields
                .iter()
                .map(|f| f.message.as_str())
                .collect::<Vec<_>>()
                .join("; ");
            Err(CommandError {
                code: ErrorCode::InvalidAnswer,
                message: format!("the answer does not fit the form: {message}"),
                fields,
            })
        }
    }
}

/// The user's "Allow" after Wharf paused a server that asked too many questions: its questions are shown again.
/// True when it was paused.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ResumeElicitation {
    pub server: String,
}

impl Run for ResumeElicitation {
    async fn run(self, session: &Session) -> Reply<bool> {
        tracing::info!(server = self.server, "elicitation resumed from the UI");
        Ok(session.host().services().guard.resume(&self.server))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broker::UserAgent;
    use crate::elicitation::form::parse_form;
    use crate::elicitation::form_check;
    use crate::question::{AnswerContent, InputAnswer, InputKind, InputRequest, InputView};
    use futures::future::BoxFuture;
    use serde_json::json;
    use serde_json::Value;

    async fn asked(agent: &QuestionQueue, schema: Value) -> BoxFuture<'_, InputAnswer> {
        let form = parse_form(&schema).expect("a form");
        let check = form_check(schema.clone(), form.clone());
        let request = InputRequest {
            server: "s".into(),
            kind: InputKind::ElicitationForm,
            cause: None,
            origin: None,
            params: json!({"message": "?", "requestedSchema": schema}),
            view: Some(InputView::Form {
                message: "?".into(),
                form,
                warnings: Vec::new(),
            }),
            check: Some(check),
        };
        let mut fut = UserAgent::answer(agent, request);
        tokio::select! {
            biased;
            _ = &mut fut => panic!("answered before anyone answered"),
            _ = std::future::ready(()) => {}
        }
        fut
    }

    #[tokio::test]
    async fn answer_input_refuses_an_invalid_form_answer_with_its_fields() {
        let agent = QuestionQueue::default();
        let schema = json!({
            "type": "object",
            "properties": {"count": {"type": "integer", "maximum": 3}},
            "required": ["count"]
        });
        let waiting = asked(&agent, schema).await;
        let id = agent.pending()[0].id;
        let accept = |n: i64| SentAnswer::Accept {
            content: Some(json!({ "count": n })),
        };

        let error = answer_pending(&agent, id, accept(9)).expect_err("9 > 3");
        assert_eq!(error.code, ErrorCode::InvalidAnswer);
        assert_eq!(error.fields.len(), 1);
        assert_eq!(error.fields[0].field, "count");
        assert!(error.fields[0].message.contains("at most 3"), "{error:?}");
        assert!(error.message.contains("at most 3"), "{error:?}");
        assert_eq!(agent.pending().len(), 1, "still waiting for a good answer");

        answer_pending(&agent, id, accept(2)).expect("2 fits");
        let two = json!({ "count": 2 }).as_object().cloned().expect("fields");
        assert_eq!(
            waiting.await,
            InputAnswer::Accept {
                content: Some(AnswerContent::Form(two))
            }
        );
        let gone = answer_pending(&agent, id, SentAnswer::Decline).expect_err("answered");
        assert_eq!(gone.code, ErrorCode::UnknownRequest);
    }
}
