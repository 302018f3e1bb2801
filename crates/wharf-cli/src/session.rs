//! `wharf session`: a long-running host. JSON commands on stdin, one per line; replies and events on stdout, one JSON
//! object per line, until `{"cmd":"quit"}` or EOF. Each call runs on its own task, so a slow or hung server never
//! holds up the next command.

use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use wharf_core::events::NoticeCode;
use wharf_core::facade::{Calls, ErrorCode, HostBuilder};
use wharf_core::{CallOptions, EventSink, Host, HostEvent};

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
    let config = host.config().clone();
    let host = Arc::new(host.build(sink));
    // Opened at the first `chat` command: a session that never chats leaves no conversations file behind.
    let mut chat: Option<Arc<wharf_core::facade::ChatService>> = None;
    // Notices of the session itself, outside the host's events, written as the host's are.
    let notice = |code: NoticeCode, message: String| {
        let event = HostEvent::Notice {
            server: None,
            code,
            message,
        };
        serde_json::to_value(&event).map(crate::output::record)
    };
    for warning in &host.warnings {
        if let Ok(record) = notice(NoticeCode::ConfigWarning, warning.clone()) {
            let _ = out.send(record);
        }
    }
    host.start_all().await;
    host.follow_workspace(config_path);

    let calls: Arc<Calls> = Arc::default();
    let mut tasks = JoinSet::new();
    let mut stdin = BufReader::new(tokio::io::stdin()).lines();
    loop {
        let line = match stdin.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                if let Ok(record) = notice(NoticeCode::StdinError, e.to_string()) {
                    let _ = out.send(record);
                }
                break;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let command: Value = match serde_json::from_str(&line) {
            Ok(Value::Object(map)) => Value::Object(map),
            Ok(_) | Err(_) => {
                reply_err(
                    &out,
                    &Value::Null,
                    ErrorCode::InvalidCommand,
                    "each line must be one JSON object",
                );
                continue;
            }
        };
        let id = command.get("id").cloned().unwrap_or(Value::Null);
        match command.get("cmd").and_then(Value::as_str).unwrap_or("") {
            "quit" => {
                reply_ok(&out, &id, json!({}));
                break;
            }
            "call" => {
                let (host, out, calls) = (host.clone(), out.clone(), calls.clone());
                tasks.spawn(async move {
                    calls
                        .run(&id.to_string(), |token| {
                            call(&host, &out, &command, &id, token)
                        })
                        .await;
                });
            }
            "chat" => {
                if chat.is_none() {
                    match crate::chat_cmd::open(&config, host.events()) {
                        Ok(service) => chat = Some(service),
                        Err(e) => {
                            reply_err(&out, &id, e.code(), &e.to_string());
                            continue;
                        }
                    }
                }
                let Some(service) = chat.clone() else {
                    continue;
                };
                let (host, out, calls) = (host.clone(), out.clone(), calls.clone());
                tasks.spawn(async move {
                    calls
                        .run(&id.to_string(), |token| async {
                            match crate::chat_cmd::session_turn(&host, &service, &command, token)
                                .await
                            {
                                Ok(outcome) => reply_ok(&out, &id, outcome),
                                Err(e) => reply_err(&out, &id, e.code(), &e.to_string()),
                            }
                        })
                        .await;
                });
            }
            "cancel" => {
                let target = command.get("target").cloned().unwrap_or(Value::Null);
                if calls.cancel(&target.to_string()) {
                    reply_ok(&out, &id, json!({"cancelled": target}));
                } else {
                    reply_err(
                        &out,
                        &id,
                        ErrorCode::UnknownTarget,
                        &format!("no call in progress with id {target}"),
                    );
                }
            }
            "servers" => {
                let summaries = host.summaries().await;
                reply_ok(
                    &out,
                    &id,
                    crate::output::record(serde_json::to_value(summaries).unwrap_or(Value::Null)),
                );
            }
            "tools" => {
                let name = command.get("server").and_then(Value::as_str).unwrap_or("");
                let listed = async { host.connection(name).await?.list_tools().await }.await;
                match listed {
                    Ok(tools) => reply_ok(
                        &out,
                        &id,
                        serde_json::to_value(tools).unwrap_or(Value::Null),
                    ),
                    Err(e) => reply_err(&out, &id, e.code(), &e.to_string()),
                }
            }
            cmd @ ("start" | "stop" | "restart") => {
                let name = command.get("server").and_then(Value::as_str).unwrap_or("");
                let done = if cmd == "stop" {
                    host.stop(name).await
                } else {
                    host.start(name).await
                };
                match done {
                    Ok(()) => reply_ok(&out, &id, json!({})),
                    Err(e) => reply_err(&out, &id, e.code(), &e.to_string()),
                }
            }
            "open" | "close" => {
                let Some(path) = command.get("path").and_then(Value::as_str) else {
                    reply_err(
                        &out,
                        &id,
                        ErrorCode::InvalidCommand,
                        "open and close need a \"path\"",
                    );
                    continue;
                };
                let workspace = host.workspace();
                let done = if command["cmd"] == "open" {
                    workspace
                        .open(std::path::Path::new(path))
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                } else if workspace.close(std::path::Path::new(path)) {
                    Ok(())
                } else {
                    Err(format!("{path} is not an open workspace folder"))
                };
                match done {
                    Ok(()) => reply_ok(&out, &id, json!({"roots": workspace.roots()})),
                    Err(message) => reply_err(&out, &id, ErrorCode::Workspace, &message),
                }
            }
            "log_level" => {
                let server = command.get("server").and_then(Value::as_str).unwrap_or("");
                let level = command.get("level").and_then(Value::as_str).unwrap_or("");
                match host.set_log_level(server, level).await {
                    Ok(()) => reply_ok(&out, &id, json!({ "level": level })),
                    Err(e) => reply_err(&out, &id, e.code(), &e.to_string()),
                }
            }
            cmd @ ("subscribe" | "unsubscribe") => {
                let server = command.get("server").and_then(Value::as_str).unwrap_or("");
                let Some(uri) = command.get("uri").and_then(Value::as_str) else {
                    reply_err(
                        &out,
                        &id,
                        ErrorCode::InvalidCommand,
                        &format!("{cmd} needs a \"uri\""),
                    );
                    continue;
                };
                match host.subscribe(server, uri, cmd == "subscribe").await {
                    Ok(()) => reply_ok(&out, &id, json!({ "uri": uri })),
                    Err(e) => reply_err(&out, &id, e.code(), &e.to_string()),
                }
            }
            other => reply_err(
                &out,
                &id,
                ErrorCode::InvalidCommand,
                &format!("unknown command \"{other}\""),
            ),
        }
    }
    // Quit: in-flight calls end now, each with its reply, before the servers stop.
    calls.cancel_all();
    while tasks.join_next().await.is_some() {}
    host.shutdown().await;
    drop(host);
    drop(out);
    let _ = writer.await;
    Ok(ExitCode::SUCCESS)
}

async fn call(host: &Host, out: &Out, command: &Value, id: &Value, cancel: CancellationToken) {
    let server = command.get("server").and_then(Value::as_str).unwrap_or("");
    let Some(tool) = command.get("tool").and_then(Value::as_str) else {
        return reply_err(
            out,
            id,
            ErrorCode::InvalidCommand,
            "call needs \"server\" and \"tool\"",
        );
    };
    let args = match command.get("args") {
        None | Some(Value::Null) => None,
        Some(Value::Object(map)) => Some(map.clone()),
        Some(_) => {
            return reply_err(
                out,
                id,
                ErrorCode::InvalidCommand,
                "\"args\" must be an object",
            )
        }
    };
    let options = CallOptions {
        cancel,
        label: Some(id.clone()),
        timeout: command
            .get("timeoutMs")
            .and_then(Value::as_u64)
            .map(std::time::Duration::from_millis),
        on_behalf_of_user: true,
        ..CallOptions::default()
    };
    let result = async {
        host.connection(server)
            .await?
            .call_tool(tool, args, &options)
            .await
    }
    .await;
    match result {
        // A tool's error result is where a failing server echoes what it was given.
        Ok(result) if result.get("isError").and_then(Value::as_bool) == Some(true) => {
            reply_ok(out, id, crate::output::record(result))
        }
        Ok(result) => reply_ok(out, id, result),
        Err(e) => reply_err(out, id, e.code(), &e.to_string()),
    }
}

fn reply_ok(out: &Out, id: &Value, result: Value) {
    let _ = out.send(json!({"id": id, "ok": true, "result": result}));
}

fn reply_err(out: &Out, id: &Value, code: ErrorCode, message: &str) {
    let _ = out.send(crate::output::record(
        json!({"id": id, "ok": false, "error": {"code": code, "message": message}}),
    ));
}
