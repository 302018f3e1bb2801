//! `wharf chat [--conversation ID] MESSAGE` and the session's `chat` command: one turn of a conversation with the
//! configured model, run by wharf-core's chat service (docs/cli.md, "chat").

use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use wharf_core::chat::attach::Attachment;
use wharf_core::chat::turn::{TurnOutcome, TurnRequest, TurnStop};
use wharf_core::config::Config;
use wharf_core::events::NoticeCode;
use wharf_core::facade::{ChatError, ChatPaths, ChatService};
use wharf_core::{EventSink, Host, HostEvent};

use crate::{output, Failure};

/// Opens the user's grants and conversations for chat; what was set aside on the way is told as a notice.
pub fn open(config: &Config, events: &EventSink) -> Result<Arc<ChatService>, ChatError> {
    let (service, notices) = ChatService::open(config, &ChatPaths::default())?;
    for message in notices {
        events.emit(HostEvent::Notice {
            server: None,
            code: NoticeCode::PreferencesSetAside,
            message,
        });
    }
    Ok(Arc::new(service))
}

/// The turn's output as the contract writes it (the configuration's secrets masked).
pub fn outcome_json(outcome: &TurnOutcome) -> Value {
    output::record(serde_json::to_value(outcome).unwrap_or(Value::Null))
}

/// `wharf chat`: prints what the turn added. Exit 0 when the turn ended (a tool's failure included), 2 when the
/// provider failed (the reason last on stderr too).
pub async fn run(
    host: &Host,
    service: &ChatService,
    conversation: Option<&str>,
    message: &str,
    attachments: &[Attachment],
) -> Result<ExitCode, Failure> {
    service.settings().map_err(|e| Failure(e.to_string()))?;
    host.start_all().await;
    let cancel = CancellationToken::new();
    let interrupt = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            interrupt.cancel();
        }
    });
    let request = TurnRequest {
        id: None,
        conversation,
        message,
        attachments,
    };
    let outcome = service
        .turn(host, request, &cancel)
        .await
        .map_err(|e| Failure(e.to_string()))?;
    crate::print_json(&outcome_json(&outcome));
    match (outcome.stop_reason, &outcome.error) {
        (TurnStop::Error, Some(reason)) => Err(Failure(reason.clone())),
        (TurnStop::Error, None) => Err(Failure("the turn ended in an error".into())),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// `wharf chat --summarize ID`: a new conversation that starts with the model's summary of `ID`. No server is
/// started: a summary needs none.
pub async fn summarize(
    host: &Host,
    service: &ChatService,
    conversation: &str,
) -> Result<ExitCode, Failure> {
    service.settings().map_err(|e| Failure(e.to_string()))?;
    let cancel = CancellationToken::new();
    let interrupt = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            interrupt.cancel();
        }
    });
    let summarized = service
        .summarize(host, conversation, &cancel)
        .await
        .map_err(|e| Failure(e.to_string()))?;
    crate::print_json(&json!(summarized));
    Ok(ExitCode::SUCCESS)
}

/// `--resource SERVER URI` and `--prompt SERVER NAME` (with `--prompt-args JSON`) as attachments, in that order.
pub fn attachments(
    resources: &[String],
    prompts: &[String],
    prompt_args: Option<&str>,
) -> Result<Vec<Attachment>, Failure> {
    let arguments = match prompt_args {
        None => None,
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => Some(map),
            _ => return Err(Failure("--prompt-args must be a JSON object".into())),
        },
    };
    if arguments.is_some() && prompts.is_empty() {
        return Err(Failure("--prompt-args needs a --prompt".into()));
    }
    let mut out: Vec<Attachment> = prompts
        .chunks(2)
        .filter_map(|pair| match pair {
            [server, name] => Some(Attachment::Prompt {
                server: server.clone(),
                name: name.clone(),
                arguments: arguments.clone(),
            }),
            _ => None,
        })
        .collect();
    out.extend(resources.chunks(2).filter_map(|pair| match pair {
        [server, uri] => Some(Attachment::Resource {
            server: server.clone(),
            uri: uri.clone(),
        }),
        _ => None,
    }));
    Ok(out)
}
