//! `wharf session`: a long-running host. JSON commands on stdin, one per line; replies and events on stdout, one JSON
//! object per line, until `{"cmd":"quit"}` or EOF. The commands are wharf-core's table (`facade::dispatch`): this
//! file only reads lines and writes replies. Each call, chat turn and window command runs on its own task, so a slow
//! or hung server never holds up the next command; the session's other commands are answered in the order they came.

use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use wharf_core::events::NoticeCode;
use wharf_core::facade::session::{NoDesktop, SessionChat};
use wharf_core::facade::startup::StartupReport;
use wharf_core::facade::{
    dispatch, is_session_command, ChatPaths, CommandError, ErrorCode, HostBuilder, SessionParts,
};
use wharf_core::{EventSink, HostEvent};

use crate::events_file::{as_notice, EventsFile};
use crate::Failure;

type Out = mpsc::UnboundedSender<Value>;

pub async fn run(host: HostBuilder, events: EventsFile) -> Result<ExitCode, Failure> {
    let (out, mut lines) = mpsc::unbounded_channel::<Value>();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(value) = lines.recv().await {
            let Some(line) = crate::output::json_line(&value) else {
                continue;
            };
            if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });
    let sink = {
        let out = out.clone();
        EventSink::new(move |event| {
            if let Some(notice) = as_notice(&event) {
                events.record(&notice);
            }
            if let Ok(value) = serde_json::to_value(&event) {
                let _ = out.send(crate::output::record(value));
            }
        })
    };
    let config_path = host.config().path.clone();
    let parts = SessionParts {
        demo: None,
        report: StartupReport::default(),
        questions: None,
        redactor: crate::output::redactor().clone(),
        // Opened at the first `chat` command: a session that never chats leaves no conversations file behind.
        chat: SessionChat::later(ChatPaths::default()),
        desktop: Box::new(NoDesktop),
        views: None,
    };
    let session = Arc::new(host.session(sink, parts));
    // Notices of the session itself, outside the host's events, written as the host's are.
    for warning in &session.host().warnings {
        let event = HostEvent::Notice {
            server: None,
            code: NoticeCode::ConfigWarning,
            message: warning.clone(),
        };
        if let Ok(record) = serde_json::to_value(&event).map(crate::output::record) {
            let _ = out.send(record);
        }
    }
    session.host().start_all().await;
    session.host().follow_workspace(config_path);

    let mut tasks = JoinSet::new();
    let mut stdin = BufReader::new(tokio::io::stdin()).lines();
    loop {
        let line = match stdin.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                session.notice(NoticeCode::StdinError, e.to_string());
                break;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let command = match serde_json::from_str(&line) {
            Ok(Value::Object(map)) => map,
            Ok(_) | Err(_) => {
                let error = CommandError::new(
                    ErrorCode::InvalidCommand,
                    "each line must be one JSON object",
                );
                reply(&out, &Value::Null, Err(error));
                continue;
            }
        };
        let id = command.get("id").cloned().unwrap_or(Value::Null);
        let name = command
            .get("cmd")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if name == "quit" {
            reply(&out, &id, Ok(json!({})));
            break;
        }
        let args = Value::Object(command);
        // A call, a chat turn and each of the window's commands run on their own; the session's other commands are
        // answered in the order they came.
        if matches!(name.as_str(), "call" | "chat") || !is_session_command(&name) {
            let (session, out) = (session.clone(), out.clone());
            tasks.spawn(async move {
                let outcome = dispatch(&session, &name, args).await;
                reply(&out, &id, outcome);
            });
        } else {
            let outcome = dispatch(&session, &name, args).await;
            reply(&out, &id, outcome);
        }
    }
    // Quit: in-flight calls end now, each with its reply, before the servers stop.
    // The window's turn commands are kept with chat's turns, not the calls: both end before the tasks are awaited.
    session.calls().cancel_all();
    session.chat().cancel_all();
    while tasks.join_next().await.is_some() {}
    session.shutdown().await;
    drop(session);
    drop(out);
    let _ = writer.await;
    Ok(ExitCode::SUCCESS)
}

fn reply(out: &Out, id: &Value, outcome: Result<Value, CommandError>) {
    let line = match outcome {
        Ok(result) => json!({"id": id, "ok": true, "result": result}),
        Err(e) => crate::output::record(
            json!({"id": id, "ok": false, "error": {"code": e.code, "message": e.message}}),
        ),
    };
    let _ = out.send(line);
}
