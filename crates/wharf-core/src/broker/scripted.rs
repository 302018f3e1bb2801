//! The scripted user of `--answers FILE` (docs/cli.md): per kind one answer or a list consumed in order, the last
//! one repeating. Some questions come in two steps for one request (a URL the call waits on, a sampling reply to
//! review): the second step follows the entry of the first, so one entry still answers one request.

use std::path::Path;
use std::sync::Mutex;

use futures::future::BoxFuture;
use serde_json::Value;

use super::UserAgent;
use crate::question::sampling::{ReplyEdit, SamplingStage};
use crate::question::tool_call::ToolCallAnswer;
use crate::question::url::UrlPhase;
use crate::question::{
    AnswerContent, FieldProblem, InputAnswer, InputKind, InputRequest, InputView, SentAnswer,
};

#[derive(Debug, thiserror::Error)]
pub enum AnswersError {
    #[error("cannot read answers file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("answers file {path}: {source}")]
    Invalid { path: String, source: ScriptError },
}

/// What is wrong with an answers script; each message names the entry at fault.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("the top level must be an object keyed by request kind")]
    NotAnObject,
    #[error("unknown request kind \"{0}\"")]
    UnknownKind(String),
    #[error("\"{kind}\": edit_reply must be a string")]
    EditReplyNotText { kind: String },
    #[error("\"{kind}\": edit_reply is for sampling only")]
    EditReplyOutsideSampling { kind: String },
    #[error("\"{kind}\": {source}")]
    Answer {
        kind: String,
        source: serde_json::Error,
    },
    /// What an accepted entry carries cannot answer its kind (a form's content that is not an object of fields).
    #[error("\"{kind}\": {problem}")]
    Content { kind: String, problem: FieldProblem },
}

/// Answers from a `--answers` file: per kind one answer or a list consumed in order (the last one repeats).
/// A kind without an entry is declined.
#[derive(Debug, Default)]
pub struct ScriptedAgent {
    queues: Mutex<std::collections::HashMap<InputKind, (Vec<Scripted>, usize)>>,
    /// The `edit_reply` of the sampling entry last used: the reply-review step of the same request applies it.
    pending_edit: Mutex<Option<String>>,
}

#[derive(Debug, Clone)]
struct Scripted {
    answer: InputAnswer,
    /// Sampling only: text that replaces the model's reply.
    edit_reply: Option<String>,
}

impl ScriptedAgent {
    pub fn load(path: &Path) -> Result<Self, AnswersError> {
        let text = std::fs::read_to_string(path).map_err(|source| AnswersError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(&text).map_err(|source| AnswersError::Invalid {
            path: path.display().to_string(),
            source,
        })
    }

    pub fn parse(text: &str) -> Result<Self, ScriptError> {
        let root: Value = serde_json::from_str(text)?;
        let Value::Object(map) = root else {
            return Err(ScriptError::NotAnObject);
        };
        let mut queues = std::collections::HashMap::new();
        for (key, value) in map {
            let kind: InputKind = serde_json::from_value(Value::String(key.clone()))
                .map_err(|_| ScriptError::UnknownKind(key.clone()))?;
            let items = match value {
                Value::Array(items) => items,
                single => vec![single],
            };
            let answers = items
                .into_iter()
                .map(|item| scripted(kind, item))
                .collect::<Result<Vec<_>, _>>()?;
            if !answers.is_empty() {
                queues.insert(kind, (answers, 0));
            }
        }
        Ok(ScriptedAgent {
            queues: Mutex::new(queues),
            pending_edit: Mutex::default(),
        })
    }

    fn next(&self, kind: InputKind) -> Scripted {
        let declined = Scripted {
            answer: InputAnswer::Decline,
            edit_reply: None,
        };
        let Ok(mut queues) = self.queues.lock() else {
            return declined;
        };
        match queues.get_mut(&kind) {
            Some((answers, next)) => {
                let i = (*next).min(answers.len() - 1);
                *next += 1;
                answers[i].clone()
            }
            None => declined,
        }
    }
}

/// One entry of `kind`: an answer (`{"action": ...}`), plus `edit_reply` for sampling.
fn scripted(kind: InputKind, item: Value) -> Result<Scripted, ScriptError> {
    let named = || kind.as_str().to_owned();
    let edit_reply = match item.get("edit_reply") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(text.clone()),
        Some(_) => return Err(ScriptError::EditReplyNotText { kind: named() }),
    };
    if edit_reply.is_some() && kind != InputKind::Sampling {
        return Err(ScriptError::EditReplyOutsideSampling { kind: named() });
    }
    if kind == InputKind::ToolCall {
        // The card's own answer (`action`: allow_once, allow_conversation, allow_always or deny; `arguments`;
        // `reason`), carried as an accept the approval reads back.
        let answer = serde_json::from_value::<ToolCallAnswer>(item).map_err(|source| {
            ScriptError::Answer {
                kind: named(),
                source,
            }
        })?;
        return Ok(Scripted {
            answer: answer.into_input_answer(),
            edit_reply: None,
        });
    }
    let mut answer = item;
    if let Value::Object(map) = &mut answer {
        map.remove("edit_reply");
    }
    let sent =
        serde_json::from_value::<SentAnswer>(answer).map_err(|source| ScriptError::Answer {
            kind: named(),
            source,
        })?;
    // A sampling entry answers the prompt; the reply's review follows from `edit_reply`.
    let answer = sent
        .read(kind, None)
        .map_err(|problem| ScriptError::Content {
            kind: named(),
            problem,
        })?;
    Ok(Scripted { answer, edit_reply })
}

impl UserAgent for ScriptedAgent {
    fn answer(&self, request: InputRequest) -> BoxFuture<'_, InputAnswer> {
        // A scripted user who agreed to open a page has finished with it: one entry per elicitation, as the
        // contract's lists count them.
        if let Some(InputView::Url {
            phase: UrlPhase::Finish,
            ..
        }) = request.view
        {
            return Box::pin(async { InputAnswer::Accept { content: None } });
        }
        // The reply of a sampling request the script approved: sent as the model wrote it, or as `edit_reply` says.
        if let Some(InputView::Sampling(view)) = &request.view {
            if view.stage == SamplingStage::Reply {
                let edit = self.pending_edit.lock().ok().and_then(|mut e| e.take());
                let content = edit.map(|text| AnswerContent::SamplingReply(ReplyEdit { text }));
                return Box::pin(async move { InputAnswer::Accept { content } });
            }
        }
        let next = self.next(request.kind);
        if request.kind == InputKind::Sampling {
            if let Ok(mut pending) = self.pending_edit.lock() {
                *pending = next.edit_reply;
            }
        }
        let answer = next.answer;
        Box::pin(async move { answer })
    }

    fn roots_override(&self, _server: &str) -> Option<InputAnswer> {
        let has_entry = self
            .queues
            .lock()
            .map(|q| q.contains_key(&InputKind::Roots))
            .unwrap_or(false);
        has_entry.then(|| self.next(InputKind::Roots).answer)
    }
}
