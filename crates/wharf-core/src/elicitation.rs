//! Elicitation: a server asks the user for information in the middle of a request, either through a form Wharf
//! renders (`form`) or by sending the user to a web page in the system browser (`url_check` reviews the URL first).
//!
//! Both eras come through [`elicit`]: a legacy `elicitation/create` request and a 2026-07-28 MRTR input request get
//! the same checks, the same dialog and the same answer. What the user is shown is computed here ([`InputView`])
//! so that no front end interprets the protocol, and every outcome is reported as an event before it is sent.

pub mod form;
pub mod guard;
pub mod spec;
pub mod url_check;

pub use crate::question::url::UrlPhase;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::broker::{Broker, BrokerRefusal};
use crate::events::{EventSink, HostEvent, NoticeCode, ServerErrorCode};
use crate::question::form::{FormField, FormSpec};
use crate::question::url::UrlReview;
use crate::question::{
    AnswerAction, AnswerCheck, AnswerContent, Cause, FieldProblem, InputAnswer, InputKind,
    InputRequest, InputView,
};
use guard::{Answered, Screened, Turn};

/// What goes back to the server.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitReply {
    /// Form content (validated, defaults filled in), or nothing for a URL the user opened.
    Accept(Option<Map<String, Value>>),
    Decline,
    Cancel,
}

impl ElicitReply {
    pub fn action(&self) -> AnswerAction {
        match self {
            ElicitReply::Accept(_) => AnswerAction::Accept,
            ElicitReply::Decline => AnswerAction::Decline,
            ElicitReply::Cancel => AnswerAction::Cancel,
        }
    }

    /// The `ElicitResult` as JSON: `{"action": ..., "content"?: {...}}`.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert(
            "action".into(),
            Value::String(self.action().as_str().into()),
        );
        if let ElicitReply::Accept(Some(content)) = self {
            out.insert("content".into(), Value::Object(content.clone()));
        }
        Value::Object(out)
    }
}

/// One elicitation on its way to the user: who asks, why, and what the server sent (`elicitation/create` params or
/// the MRTR input request's params).
#[derive(Clone)]
pub struct Elicitation<'a> {
    pub broker: &'a Broker,
    pub guard: &'a guard::ElicitationGuard,
    pub events: &'a EventSink,
    pub server: &'a str,
    pub cause: Option<Cause>,
    pub params: &'a Value,
}

fn mode_of(params: &Value) -> InputKind {
    if params.get("mode").and_then(Value::as_str) == Some("url") {
        InputKind::ElicitationUrl
    } else {
        InputKind::ElicitationForm
    }
}

/// Serves one elicitation end to end. `Err` only when Wharf did not declare the mode (the caller answers as its era
/// says); everything else, including the server's mistakes, becomes an answer and an event.
pub async fn elicit(e: Elicitation<'_>) -> Result<ElicitReply, BrokerRefusal> {
    let kind = mode_of(e.params);
    if !e.broker.capabilities.declares(kind) {
        return Err(BrokerRefusal::Undeclared(kind));
    }
    Ok(match kind {
        InputKind::ElicitationUrl => url(&e).await,
        _ => form(&e).await,
    })
}

fn message_of(params: &Value) -> String {
    params
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The identity of a question, for "declined before": the same server asking the same thing.
fn question_key(kind: InputKind, message: &str, subject: &Value) -> String {
    let mut hasher = Sha256::new();
    hasher.update(kind.as_str());
    hasher.update([0]);
    hasher.update(message);
    hasher.update([0]);
    hasher.update(subject.to_string());
    hasher
        .finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn notice(e: &Elicitation<'_>, code: NoticeCode, message: String) {
    e.events.emit(HostEvent::Notice {
        server: Some(e.server.to_string()),
        code,
        message,
    });
}

/// The guard's word on a question before a dialog: the server's turn to ask, or the reply given without asking
/// (declined before in this session, or a paused server), told in a notice.
async fn screen(e: &Elicitation<'_>, key: &str) -> Result<Turn, ElicitReply> {
    match e.guard.screen(e.server, key).await {
        Screened::Ask(turn) => Ok(turn),
        Screened::DeclinedBefore => {
            notice(
                e,
                NoticeCode::DeclinedBefore,
                format!(
                    "{} asked again for what you declined in this session: declined without asking",
                    e.server
                ),
            );
            Err(ElicitReply::Decline)
        }
        Screened::Paused { just_now } => {
            if just_now {
                notice(
                    e,
                    NoticeCode::ElicitationPaused,
                    format!(
                        "{} asked more than {} questions in a minute: its questions are paused until you allow it",
                        e.server,
                        guard::DEFAULT_RATE_LIMIT
                    ),
                );
            }
            Err(ElicitReply::Cancel)
        }
    }
}

/// The answer as the guard keeps it.
fn answered<'a>(answer: &InputAnswer, elicitation_id: Option<&'a str>) -> Answered<'a> {
    match answer {
        InputAnswer::Accept { .. } => Answered::Accepted { elicitation_id },
        InputAnswer::Decline => Answered::Declined,
        InputAnswer::Cancel => Answered::Cancelled,
    }
}

/// The question on screen, during the turn the caller holds.
async fn ask(
    e: &Elicitation<'_>,
    kind: InputKind,
    view: InputView,
    check: Option<AnswerCheck>,
) -> InputAnswer {
    e.broker
        .ask(InputRequest {
            server: e.server.to_string(),
            kind,
            cause: e.cause.as_ref().map(|c| c.text.clone()),
            origin: e.cause.as_ref().and_then(|c| c.origin.clone()),
            params: e.params.clone(),
            view: Some(view),
            check,
        })
        .await
        .unwrap_or(InputAnswer::Cancel)
}

async fn form(e: &Elicitation<'_>) -> ElicitReply {
    let message = message_of(e.params);
    let schema = e
        .params
        .get("requestedSchema")
        .cloned()
        .unwrap_or(Value::Null);
    let report = |fields: Vec<FormField>, warnings: Vec<String>, reply: &ElicitReply| {
        e.events.emit(HostEvent::ElicitationForm {
            server: e.server.to_string(),
            message: message.clone(),
            fields,
            warnings,
            answer: reply.action(),
        });
    };
    let spec = match form::parse_form(&schema) {
        Ok(spec) => spec,
        Err(out) => {
            notice(
                e,
                NoticeCode::FormNotSupported,
                format!(
                    "{} sent a form Wharf cannot show ({out}); declined: the spec allows only flat forms of \
                     strings, numbers, booleans and choices",
                    e.server
                ),
            );
            let reply = ElicitReply::Decline;
            report(Vec::new(), Vec::new(), &reply);
            return reply;
        }
    };
    let warnings = form::credential_warnings(&spec);
    let key = question_key(InputKind::ElicitationForm, &message, &schema);
    let turn = match screen(e, &key).await {
        Ok(turn) => turn,
        Err(reply) => {
            report(spec.fields, warnings, &reply);
            return reply;
        }
    };
    let view = InputView::Form {
        message: message.clone(),
        form: spec.clone(),
        warnings: warnings.clone(),
    };
    let check = form_check(schema.clone(), spec.clone());
    let answer = ask(e, InputKind::ElicitationForm, view, Some(check)).await;
    e.guard
        .record(e.server, &key, &answered(&answer, None), turn);
    let reply = match answer {
        InputAnswer::Accept { content } => {
            match checked_content(&schema, &spec, content.as_ref()) {
                Ok(content) => ElicitReply::Accept(Some(content)),
                Err(problems) => {
                    e.events.server_error(
                        e.server,
                        ServerErrorCode::InvalidAnswer,
                        format!(
                            "the answer does not fit the form ({}); answered cancel",
                            problems_text(&problems)
                        ),
                    );
                    ElicitReply::Cancel
                }
            }
        }
        InputAnswer::Decline => ElicitReply::Decline,
        InputAnswer::Cancel => ElicitReply::Cancel,
    };
    report(spec.fields, warnings, &reply);
    reply
}

/// The answer as it will be sent: the fields left out take the schema's defaults, and the whole is validated
/// against the schema (the front end validated too; this is the check that counts).
pub fn checked_content(
    schema: &Value,
    spec: &FormSpec,
    content: Option<&AnswerContent>,
) -> Result<Map<String, Value>, Vec<FieldProblem>> {
    let given = match content {
        None => None,
        Some(AnswerContent::Form(fields)) => Some(fields),
        Some(_) => {
            return Err(vec![FieldProblem {
                field: String::new(),
                message: "the answer is not a form's fields".into(),
            }])
        }
    };
    let filled = form::with_defaults(spec, given);
    form::validate(schema, spec, &filled)?;
    Ok(filled)
}

/// The check of a form's answer while the question waits: the same as the one made before it is sent, so a window
/// can show the problems next to the fields.
pub fn form_check(schema: Value, spec: FormSpec) -> AnswerCheck {
    AnswerCheck::new(move |content| checked_content(&schema, &spec, content).map(|_| ()))
}

fn problems_text(problems: &[FieldProblem]) -> String {
    problems
        .iter()
        .map(|p| p.message.clone())
        .collect::<Vec<_>>()
        .join("; ")
}

async fn url(e: &Elicitation<'_>) -> ElicitReply {
    let message = message_of(e.params);
    let raw = e
        .params
        .get("url")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let review = url_check::review(raw);
    let elicitation_id = e
        .params
        .get("elicitationId")
        .and_then(Value::as_str)
        .map(str::to_string);
    let report = |reply: &ElicitReply, opened: bool| {
        e.events.emit(HostEvent::ElicitationUrl {
            server: e.server.to_string(),
            message: message.clone(),
            url: raw.to_string(),
            host: review.host.clone(),
            display_host: review.display_host.clone(),
            warnings: review.warnings.clone(),
            answer: reply.action(),
            opened,
        });
    };
    if !review.may_open {
        notice(
            e,
            NoticeCode::UrlRefused,
            format!(
                "{} asked you to open a URL Wharf will not open: {}; declined",
                e.server,
                review.refusal.as_deref().unwrap_or("not an https URL")
            ),
        );
        let reply = ElicitReply::Decline;
        report(&reply, false);
        return reply;
    }
    let key = question_key(
        InputKind::ElicitationUrl,
        &message,
        &Value::String(raw.into()),
    );
    let turn = match screen(e, &key).await {
        Ok(turn) => turn,
        Err(reply) => {
            report(&reply, false);
            return reply;
        }
    };
    let view = InputView::Url {
        message: message.clone(),
        review: Box::new(review.clone()),
        elicitation_id: elicitation_id.clone(),
        phase: UrlPhase::Consent,
    };
    let answer = ask(e, InputKind::ElicitationUrl, view, None).await;
    let id = elicitation_id.as_deref();
    e.guard.record(e.server, &key, &answered(&answer, id), turn);
    let (reply, opened) = match answer {
        InputAnswer::Accept { .. } => match open(&review).await {
            Ok(()) => (ElicitReply::Accept(None), true),
            Err(why) => {
                notice(
                    e,
                    NoticeCode::BrowserFailed,
                    format!("could not open the system browser: {why}; answered cancel"),
                );
                (ElicitReply::Cancel, false)
            }
        },
        InputAnswer::Decline => (ElicitReply::Decline, false),
        InputAnswer::Cancel => (ElicitReply::Cancel, false),
    };
    report(&reply, opened);
    reply
}

/// Opening a browser may block (a terminal browser named in `$BROWSER` runs until it quits): off the runtime.
async fn open(review: &UrlReview) -> Result<(), String> {
    let review = review.clone();
    tokio::task::spawn_blocking(move || url_check::open_in_browser(&review))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())
}

/// After a `-32042` (a call that needs URL elicitations first) whose pages the user opened: waits until the user
/// says they have finished or the server says it is complete. True when the call may be retried.
pub async fn wait_until_finished(e: Elicitation<'_>) -> bool {
    let Some(id) = e.params.get("elicitationId").and_then(Value::as_str) else {
        return true;
    };
    let guard = &e.guard;
    if guard.is_completed(e.server, id) {
        return true;
    }
    let completed = guard.expect_completion(e.server, id);
    let raw = e
        .params
        .get("url")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let view = InputView::Url {
        message: message_of(e.params),
        review: Box::new(url_check::review(raw)),
        elicitation_id: Some(id.to_string()),
        phase: UrlPhase::Finish,
    };
    let finished = async {
        let _turn = guard.turn(e.server).await;
        ask(&e, InputKind::ElicitationUrl, view, None).await
    };
    tokio::select! {
        _ = completed.notified() => true,
        answer = finished => matches!(answer, InputAnswer::Accept { .. }),
    }
}

#[cfg(test)]
mod tests;
