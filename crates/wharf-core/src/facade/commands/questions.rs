//! The window's questions: those waiting, an answer to one, and letting a paused server ask again.

use serde::Deserialize;

use crate::broker::{PendingInput, QuestionQueue};
use crate::config::edit::FieldError;
use crate::facade::command::{CommandError, Reply, Run};
use crate::facade::session::Session;
use crate::facade::ErrorCode;
use crate::question::InputAnswer;

#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct PendingInputs {}

impl Run for PendingInputs {
    async fn run(self, session: &Session) -> Reply<Vec<PendingInput>> {
        Ok(session.questions()?.pending())
    }
}

/// Answers a waiting request. A form's Accept is checked first, as the broker will check it: an answer that does not
/// fit is refused with `invalid_answer` and one problem per field, and the request keeps waiting.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct AnswerInput {
    #[ts(type = "number")]
    pub id: u64,
    pub answer: InputAnswer,
}

impl Run for AnswerInput {
    async fn run(self, session: &Session) -> Reply<()> {
        answer_pending(session.questions()?, self.id, self.answer)
    }
}

pub(crate) fn answer_pending(queue: &QuestionQueue, id: u64, answer: InputAnswer) -> Reply<()> {
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
    use crate::question::{InputKind, InputRequest, InputView};
    use futures::future::BoxFuture;
    use serde_json::json;
    use serde_json::Value;

    async fn asked(agent: &QuestionQueue, schema: Value) -> BoxFuture<'_, InputAnswer> {
        let form = parse_form(&schema).expect("a form");
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
        let accept = |n: i64| InputAnswer::Accept {
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
        assert_eq!(waiting.await, accept(2));
        let gone = answer_pending(&agent, id, InputAnswer::Decline).expect_err("answered");
        assert_eq!(gone.code, ErrorCode::UnknownRequest);
    }
}
