//! The user's answer to a question: accept, decline or cancel, and what an accepted answer carries, typed by the
//! kind of question it answers. A front end sends it as JSON ([`SentAnswer`]), read once against the question; from
//! there on every part of Wharf handles the typed answer.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::sampling::{PromptEdits, ReplyEdit, SamplingStage};
use super::tool_call::ToolCallAnswer;
use super::{InputKind, InputView};

/// The user's answer. `Accept` may carry what goes back besides yes: a form's fields, edits of a sampling prompt or
/// reply, the choice on a tool call's card.
#[derive(Debug, Clone, PartialEq)]
pub enum InputAnswer {
    Accept { content: Option<AnswerContent> },
    Decline,
    Cancel,
}

impl InputAnswer {
    /// The answer's name in events: accept, decline or cancel.
    pub fn action(&self) -> AnswerAction {
        match self {
            InputAnswer::Accept { .. } => AnswerAction::Accept,
            InputAnswer::Decline => AnswerAction::Decline,
            InputAnswer::Cancel => AnswerAction::Cancel,
        }
    }
}

/// What an accepted answer carries, by the kind of question it answers.
#[derive(Debug, Clone, PartialEq)]
pub enum AnswerContent {
    /// A form's fields as the user filled them in; the fields left out take the schema's defaults, and the whole is
    /// validated, when elicitation sends it.
    Form(Map<String, Value>),
    /// The prompt of a sampling request as the user edited it, and whether to stop asking about the server.
    SamplingPrompt(PromptEdits),
    /// The text that replaces the model's reply to a sampling request.
    SamplingReply(ReplyEdit),
    /// The user's choice on a tool call's card.
    ToolCall(ToolCallAnswer),
}

wire_codes! {
    /// Which way a question went, as events and replies name it.
    pub enum AnswerAction {
        Accept = "accept",
        Decline = "decline",
        Cancel = "cancel",
    }
}

/// The user's answer as a front end sends it: the app's dialogs and cards, an entry of `--answers`. What `Accept`
/// carries (form content, a sampling reply...) is read against the question it answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "action", rename_all = "lowercase")]
#[ts(export, rename = "InputAnswer")]
pub enum SentAnswer {
    Accept {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        content: Option<Value>,
    },
    Decline,
    Cancel,
}

impl SentAnswer {
    /// The answer to a question of `kind` shown with `view`: what `Accept` carries read as that kind's content, or
    /// why it cannot be. A question whose answer carries nothing (roots, a URL, a path outside the workspace) takes
    /// a bare accept, whatever came with it.
    pub fn read(
        self,
        kind: InputKind,
        view: Option<&InputView>,
    ) -> Result<InputAnswer, FieldProblem> {
        let content = match self {
            SentAnswer::Decline => return Ok(InputAnswer::Decline),
            SentAnswer::Cancel => return Ok(InputAnswer::Cancel),
            SentAnswer::Accept { content } => content,
        };
        let whole = |message: String| FieldProblem {
            field: String::new(),
            message,
        };
        let content = match (kind, content) {
            (InputKind::Roots | InputKind::ElicitationUrl | InputKind::PathOutside, _) => None,
            (_, None) | (InputKind::ElicitationForm | InputKind::Sampling, Some(Value::Null)) => {
                None
            }
            (InputKind::ElicitationForm, Some(Value::Object(fields))) => {
                Some(AnswerContent::Form(fields))
            }
            (InputKind::ElicitationForm, Some(other)) => {
                return Err(whole(format!(
                    "the answer must be an object of fields, not {other}"
                )))
            }
            (InputKind::Sampling, Some(edits)) => match view {
                Some(InputView::Sampling(shown)) if shown.stage == SamplingStage::Reply => {
                    ReplyEdit::read(&edits).map(AnswerContent::SamplingReply)
                }
                _ => Some(AnswerContent::SamplingPrompt(PromptEdits::read(&edits))),
            },
            (InputKind::ToolCall, Some(answer)) => Some(AnswerContent::ToolCall(
                serde_json::from_value(answer)
                    .map_err(|e| whole(format!("not an answer to a tool call: {e}")))?,
            )),
        };
        Ok(InputAnswer::Accept { content })
    }
}

/// One thing wrong with an answer. `message` names the field and says what is wrong, in plain words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS, thiserror::Error)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
#[error("{message}")]
pub struct FieldProblem {
    /// The property name (empty when the problem is not about one field).
    pub field: String,
    pub message: String,
}

type Check = dyn Fn(Option<&AnswerContent>) -> Result<(), Vec<FieldProblem>> + Send + Sync;

/// The asking feature's check of what an accepted answer carries: elicitation validates a form's fields against
/// the server's schema, the approval of a tool call the edited arguments against the tool's. A front end with a
/// window runs it before it gives the answer back, so that the user sees what is wrong while the question still
/// waits; the feature checks again when the answer reaches it.
#[derive(Clone)]
pub struct AnswerCheck(Arc<Check>);

impl AnswerCheck {
    pub fn new(
        check: impl Fn(Option<&AnswerContent>) -> Result<(), Vec<FieldProblem>> + Send + Sync + 'static,
    ) -> AnswerCheck {
        AnswerCheck(Arc::new(check))
    }

    pub fn run(&self, content: Option<&AnswerContent>) -> Result<(), Vec<FieldProblem>> {
        (self.0)(content)
    }
}

impl std::fmt::Debug for AnswerCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AnswerCheck")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::question::sampling::{Remember, SamplingView};
    use crate::question::tool_call::ToolCallChoice;

    fn accept(content: Value) -> SentAnswer {
        SentAnswer::Accept {
            content: Some(content),
        }
    }

    fn carried(answer: Result<InputAnswer, FieldProblem>) -> Option<AnswerContent> {
        match answer {
            Ok(InputAnswer::Accept { content }) => content,
            other => panic!("not an accept: {other:?}"),
        }
    }

    fn reply_review() -> InputView {
        InputView::Sampling(Box::new(SamplingView {
            stage: SamplingStage::Reply,
            system_prompt: None,
            messages: Vec::new(),
            model_preferences: None,
            model: "m".into(),
            max_tokens: 10,
            tools: Vec::new(),
            note: None,
            reply: Some(crate::question::sampling::reply(
                &[json!({"type": "text", "text": "model"})],
                "m",
                None,
            )),
        }))
    }

    #[test]
    fn decline_and_cancel_read_as_themselves_whatever_the_question() {
        for kind in [
            InputKind::ElicitationForm,
            InputKind::ToolCall,
            InputKind::Roots,
        ] {
            assert_eq!(
                SentAnswer::Decline.read(kind, None),
                Ok(InputAnswer::Decline)
            );
            assert_eq!(SentAnswer::Cancel.read(kind, None), Ok(InputAnswer::Cancel));
        }
    }

    #[test]
    fn a_form_answer_is_an_object_of_fields_or_nothing() {
        let form = |content| accept(content).read(InputKind::ElicitationForm, None);
        let Some(AnswerContent::Form(fields)) = carried(form(json!({"name": "Ada"}))) else {
            panic!("not a form's fields");
        };
        assert_eq!(fields["name"], "Ada");
        assert_eq!(carried(form(Value::Null)), None);
        let problem = form(json!([1])).expect_err("a list is no form");
        assert_eq!(problem.field, "");
        assert_eq!(
            problem.message,
            "the answer must be an object of fields, not [1]"
        );
    }

    #[test]
    fn a_sampling_answer_edits_the_prompt_or_the_reply_by_the_stage_shown() {
        let prompt = carried(
            accept(
                json!({"systemPrompt": "s", "messages": [{"role": "user"}], "texts": [["t", null]],
                          "remember": "always", "maxTokens": 9}),
            )
            .read(InputKind::Sampling, None),
        );
        assert_eq!(
            prompt,
            Some(AnswerContent::SamplingPrompt(PromptEdits {
                system_prompt: Some("s".into()),
                messages: Some(vec![json!({"role": "user"})]),
                texts: Some(vec![vec![Some("t".into()), None]]),
                remember: Some(Remember::Always),
            }))
        );
        // Parts of the wrong type are no edit: the prompt stays as the server wrote it.
        let malformed = carried(
            accept(
                json!({"systemPrompt": 3, "messages": "x", "texts": [[1]], "remember": "forever"}),
            )
            .read(InputKind::Sampling, None),
        );
        assert_eq!(
            malformed,
            Some(AnswerContent::SamplingPrompt(PromptEdits::default()))
        );
        let view = reply_review();
        let reply = |content| carried(accept(content).read(InputKind::Sampling, Some(&view)));
        assert_eq!(
            reply(json!({"text": "user"})),
            Some(AnswerContent::SamplingReply(ReplyEdit {
                text: "user".into()
            }))
        );
        assert_eq!(
            reply(json!({"remember": "session"})),
            None,
            "no text, no edit"
        );
    }

    #[test]
    fn a_tool_call_answer_is_the_cards_or_a_problem() {
        let read = |content| accept(content).read(InputKind::ToolCall, None);
        assert_eq!(
            carried(read(json!({"action": "allow_once"}))),
            Some(AnswerContent::ToolCall(ToolCallAnswer {
                action: ToolCallChoice::AllowOnce,
                arguments: None,
                reason: None,
            }))
        );
        let problem = read(json!({"action": "maybe"})).expect_err("no such choice");
        assert_eq!(problem.field, "");
        assert!(
            problem.message.starts_with("not an answer to a tool call"),
            "{problem}"
        );
        assert_eq!(
            carried(SentAnswer::Accept { content: None }.read(InputKind::ToolCall, None)),
            None
        );
    }

    #[test]
    fn questions_whose_answer_carries_nothing_take_a_bare_accept() {
        for kind in [
            InputKind::Roots,
            InputKind::ElicitationUrl,
            InputKind::PathOutside,
        ] {
            assert_eq!(
                carried(accept(json!({"anything": 1})).read(kind, None)),
                None
            );
        }
    }
}
