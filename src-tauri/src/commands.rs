//! The commands the webview may call. Each is a thin adapter over wharf-core; each must also be listed in
//! `command_list.rs` and granted in `capabilities/`, or the webview cannot reach it. None of them opens a URL or
//! reads a file the UI names: imports come only from the known locations `import_sources` lists.

use serde::Serialize;
use serde_json::Value;
use tauri::State;
use wharf_core::broker::{InputAnswer, PendingInput, QuestionQueue};
use wharf_core::config::edit::{ConfigDocument, FieldError, ImportSource, ServerEntry};
use wharf_core::facade::ErrorCode;
use wharf_core::view::tool_form::ListedTool;
use wharf_core::view::tool_result::{tool_result_view, ToolResultView};
use wharf_core::{CallOptions, ConnectionError, ServerSummary};

use crate::shell::Shell;
use crate::smoke::RenderedRow;
use crate::state::UiState;
use wharf_core::facade::startup::StartupReport;

/// A failed command, as the UI receives it: a stable code, a message for the user, and per-field problems for forms.
#[derive(Debug, thiserror::Error, Serialize, ts_rs::TS)]
#[ts(export)]
#[error("{message}")]
pub struct CommandError {
    pub code: ErrorCode,
    pub message: String,
    pub fields: Vec<FieldError>,
}

impl CommandError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        CommandError {
            code,
            message: message.into(),
            fields: Vec::new(),
        }
    }

    fn invalid(fields: Vec<FieldError>) -> Self {
        let message = fields
            .first()
            .map(|f| f.message.clone())
            .unwrap_or_else(|| "invalid".into());
        CommandError {
            code: ErrorCode::Invalid,
            message,
            fields,
        }
    }
}

impl From<ConnectionError> for CommandError {
    fn from(e: ConnectionError) -> Self {
        CommandError {
            code: e.code(),
            message: e.to_string(),
            fields: e.field_errors(),
        }
    }
}

impl From<wharf_core::ConfigError> for CommandError {
    fn from(e: wharf_core::ConfigError) -> Self {
        CommandError::new(ErrorCode::Config, e.to_string())
    }
}

type Reply<T> = Result<T, CommandError>;

#[tauri::command]
pub async fn list_servers(shell: State<'_, Shell>) -> Reply<Vec<ServerSummary>> {
    Ok(shell.host.summaries().await)
}

/// Starts the server, or restarts it when it runs.
#[tauri::command]
pub async fn restart_server(shell: State<'_, Shell>, name: String) -> Reply<()> {
    tracing::info!(server = name, "restart requested from the UI");
    Ok(shell.host.start(&name).await?)
}

#[tauri::command]
pub async fn stop_server(shell: State<'_, Shell>, name: String) -> Reply<()> {
    tracing::info!(server = name, "stop requested from the UI");
    Ok(shell.host.stop(&name).await?)
}

#[tauri::command]
pub fn startup_report(shell: State<'_, Shell>) -> StartupReport {
    shell.report.clone()
}

/// The UI tells what it has on screen after each render; only the smoke test listens (a no-op otherwise).
#[tauri::command]
pub fn smoke_rendered(shell: State<'_, Shell>, rows: Vec<RenderedRow>) {
    if let Some(probe) = &shell.smoke {
        probe.rendered(rows);
    }
}

/// Each tool comes with the form Rust made of its input schema: the window renders fields, never a schema.
#[tauri::command]
pub async fn list_tools(shell: State<'_, Shell>, server: String) -> Reply<Vec<ListedTool>> {
    let tools = shell.host.connection(&server).await?.list_tools().await?;
    Ok(tools.into_iter().map(ListedTool::from).collect())
}

/// Calls a tool. Progress arrives as `progress` host events labelled with `call_id`; `cancel_call` ends it. The
/// result reaches the window shaped and capped, never as the server's JSON.
#[tauri::command]
pub async fn call_tool(
    shell: State<'_, Shell>,
    call_id: String,
    server: String,
    tool: String,
    args: Value,
) -> Reply<ToolResultView> {
    let args = match args {
        Value::Object(map) => Some(map),
        Value::Null => None,
        _ => {
            return Err(CommandError::new(
                ErrorCode::Invalid,
                "tool arguments must be a JSON object",
            ))
        }
    };
    let result = shell
        .calls
        .run(&call_id, |cancel| async {
            let options = CallOptions {
                cancel,
                label: Some(Value::String(call_id.clone())),
                on_behalf_of_user: true,
                ..CallOptions::default()
            };
            shell
                .host
                .connection(&server)
                .await?
                .call_tool(&tool, args, &options)
                .await
        })
        .await;
    Ok(tool_result_view(&result?))
}

#[tauri::command]
pub fn cancel_call(shell: State<'_, Shell>, call_id: String) -> Reply<()> {
    if shell.calls.cancel(&call_id) {
        Ok(())
    } else {
        Err(CommandError::new(
            ErrorCode::UnknownCall,
            format!("no call {call_id} is running"),
        ))
    }
}

#[tauri::command]
pub fn list_server_entries(shell: State<'_, Shell>) -> Reply<Vec<ServerEntry>> {
    Ok(shell.config_document()?.entries())
}

/// Adds or edits a server, writes the file atomically, and applies the new configuration to the running host.
#[tauri::command]
pub async fn save_server(
    shell: State<'_, Shell>,
    previous_name: Option<String>,
    entry: ServerEntry,
) -> Reply<Vec<ServerEntry>> {
    let mut doc = shell.config_document()?;
    doc.upsert(previous_name.as_deref(), &entry)
        .map_err(CommandError::invalid)?;
    apply(&shell, doc).await
}

#[tauri::command]
pub async fn remove_server(shell: State<'_, Shell>, name: String) -> Reply<Vec<ServerEntry>> {
    let mut doc = shell.config_document()?;
    if !doc.remove(&name) {
        return Err(CommandError::new(
            ErrorCode::UnknownServer,
            format!("there is no server \"{name}\""),
        ));
    }
    apply(&shell, doc).await
}

#[tauri::command]
pub fn import_sources() -> Vec<ImportSource> {
    wharf_core::config::edit::import_sources(&wharf_core::config::config_home())
}

/// Imports the named servers of a source found by `import_sources` (the UI names the source, never a path).
#[tauri::command]
pub async fn import_servers(
    shell: State<'_, Shell>,
    source_id: String,
    names: Vec<String>,
) -> Reply<Vec<ServerEntry>> {
    let sources = import_sources();
    let source = sources.iter().find(|s| s.id == source_id).ok_or_else(|| {
        CommandError::new(
            ErrorCode::UnknownSource,
            format!("no configuration \"{source_id}\" was found"),
        )
    })?;
    let mut doc = shell.config_document()?;
    let mut problems = Vec::new();
    for name in &names {
        match source.entries.iter().find(|e| &e.name == name) {
            Some(entry) => {
                if let Err(fields) = doc.upsert(None, entry) {
                    problems.extend(fields.into_iter().map(|f| FieldError {
                        field: format!("{name}.{}", f.field),
                        message: f.message,
                    }));
                }
            }
            None => problems.push(FieldError {
                field: name.clone(),
                message: format!("{} has no server \"{name}\"", source.label),
            }),
        }
    }
    if !problems.is_empty() {
        return Err(CommandError::invalid(problems));
    }
    apply(&shell, doc).await
}

async fn apply(shell: &Shell, doc: ConfigDocument) -> Reply<Vec<ServerEntry>> {
    doc.save().map_err(|e| {
        CommandError::new(
            ErrorCode::Write,
            format!("cannot write {}: {e}", doc.path.display()),
        )
    })?;
    // The workspace folders too: a server may name them (${workspaceFolder}).
    let config =
        wharf_core::Config::load_with_workspace(&doc.path, &shell.host.workspace().folders())?;
    shell.reconfigure(config).await;
    Ok(doc.entries())
}

#[tauri::command]
pub fn get_ui_state(shell: State<'_, Shell>) -> UiState {
    shell.state.ui()
}

#[tauri::command]
pub fn set_selected_server(shell: State<'_, Shell>, name: Option<String>) {
    shell.state.set_selected_server(name);
}

#[tauri::command]
pub fn pending_inputs(shell: State<'_, Shell>) -> Vec<PendingInput> {
    shell.questions.pending()
}

/// Answers a waiting request. A form's Accept is checked first, as the broker will check it: an answer that does not
/// fit is refused with `invalid_answer` and one problem per field, and the request keeps waiting.
#[tauri::command]
pub fn answer_input(shell: State<'_, Shell>, id: u64, answer: InputAnswer) -> Reply<()> {
    answer_pending(&shell.questions, id, answer)
}

fn answer_pending(agent: &QuestionQueue, id: u64, answer: InputAnswer) -> Reply<()> {
    match agent.reply_checked(id, answer) {
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
#[tauri::command]
pub fn resume_elicitation(shell: State<'_, Shell>, server: String) -> bool {
    tracing::info!(server, "elicitation resumed from the UI");
    shell.host.services().guard.resume(&server)
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::future::BoxFuture;
    use serde_json::json;
    use wharf_core::broker::InputView;
    use wharf_core::broker::{InputKind, InputRequest, UserAgent};
    use wharf_core::elicitation::form::parse_form;

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
