//! The commands `wharf session` has always had, in the shapes its contract gives them (docs/cli.md, "session"). Their
//! fields are read as leniently as they always were: a missing server name is the unknown server "".

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::chat::attach::{AttachError, Attachment};
use crate::chat::turn::{TurnError, TurnRequest};
use crate::connection::ToolInfo;
use crate::facade::command::{CommandError, Reply, Run};
use crate::facade::session::Session;
use crate::facade::{ChatError, ErrorCode};

use super::servers::user_call;

/// A reply a program may store or show: the configuration's secrets masked.
fn record(session: &Session, mut value: Value) -> Value {
    session.redactor().redact_json(&mut value);
    value
}

/// The session's request id as the text its calls are kept by (`1` and `"1"` differ).
fn key(id: &Value) -> String {
    id.to_string()
}

fn invalid(message: impl Into<String>) -> CommandError {
    CommandError::new(ErrorCode::InvalidCommand, message)
}

#[derive(Debug, Deserialize)]
pub struct SessionServers {}

impl Run for SessionServers {
    async fn run(self, session: &Session) -> Reply<Value> {
        let summaries =
            serde_json::to_value(session.host().summaries().await).unwrap_or(Value::Null);
        Ok(record(session, summaries))
    }
}

#[derive(Debug, Deserialize)]
pub struct SessionTools {
    #[serde(default)]
    pub server: String,
}

impl Run for SessionTools {
    async fn run(self, session: &Session) -> Reply<Vec<ToolInfo>> {
        session.tools(&self.server).await
    }
}

/// A tool call, cancellable by its `id` (`cancel`). A tool's error result is a record: it is where a failing server
/// echoes what it was given.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionCall {
    #[serde(default)]
    pub id: Value,
    #[serde(default)]
    pub server: String,
    pub tool: Option<String>,
    #[serde(default)]
    pub args: Value,
    pub timeout_ms: Option<u64>,
}

impl Run for SessionCall {
    async fn run(self, session: &Session) -> Reply<Value> {
        let Some(tool) = self.tool else {
            return Err(invalid("call needs \"server\" and \"tool\""));
        };
        let args: Option<Map<String, Value>> = match self.args {
            Value::Null => None,
            Value::Object(map) => Some(map),
            _ => return Err(invalid("\"args\" must be an object")),
        };
        let timeout = self.timeout_ms.map(std::time::Duration::from_millis);
        let result = user_call(
            session,
            &key(&self.id),
            self.id,
            timeout,
            &self.server,
            &tool,
            args,
        )
        .await?;
        // Printed as the server sent it.
        let is_error = result.is_error;
        let result = result.into_sent();
        if is_error {
            return Ok(record(session, result));
        }
        Ok(result)
    }
}

#[derive(Debug, Deserialize)]
pub struct SessionCancel {
    #[serde(default)]
    pub target: Value,
}

impl Run for SessionCancel {
    async fn run(self, session: &Session) -> Reply<Value> {
        if session.calls().cancel(&key(&self.target)) {
            Ok(json!({ "cancelled": self.target }))
        } else {
            Err(CommandError::new(
                ErrorCode::UnknownTarget,
                format!("no call in progress with id {}", self.target),
            ))
        }
    }
}

/// `start`, `restart` and `stop` take the server's name as `server`.
#[derive(Debug, Deserialize)]
pub struct SessionStart {
    #[serde(default)]
    pub server: String,
}

impl Run for SessionStart {
    async fn run(self, session: &Session) -> Reply<Value> {
        session.host().start(&self.server).await?;
        Ok(json!({}))
    }
}

#[derive(Debug, Deserialize)]
pub struct SessionRestart {
    #[serde(default)]
    pub server: String,
}

impl Run for SessionRestart {
    async fn run(self, session: &Session) -> Reply<Value> {
        SessionStart {
            server: self.server,
        }
        .run(session)
        .await
    }
}

#[derive(Debug, Deserialize)]
pub struct SessionStop {
    #[serde(default)]
    pub server: String,
}

impl Run for SessionStop {
    async fn run(self, session: &Session) -> Reply<Value> {
        session.host().stop(&self.server).await?;
        Ok(json!({}))
    }
}

/// `open` and `close` take a folder's path; the reply has the roots after the change.
#[derive(Debug, Deserialize)]
pub struct SessionOpen {
    pub path: Option<String>,
}

impl Run for SessionOpen {
    async fn run(self, session: &Session) -> Reply<Value> {
        let path = self
            .path
            .ok_or_else(|| invalid("open and close need a \"path\""))?;
        let workspace = session.host().workspace();
        workspace
            .open(std::path::Path::new(&path))
            .map_err(|e| CommandError::new(ErrorCode::Workspace, e.to_string()))?;
        Ok(json!({ "roots": workspace.roots() }))
    }
}

#[derive(Debug, Deserialize)]
pub struct SessionClose {
    pub path: Option<String>,
}

impl Run for SessionClose {
    async fn run(self, session: &Session) -> Reply<Value> {
        let path = self
            .path
            .ok_or_else(|| invalid("open and close need a \"path\""))?;
        let workspace = session.host().workspace();
        if !workspace.close(std::path::Path::new(&path)) {
            return Err(CommandError::new(
                ErrorCode::Workspace,
                format!("{path} is not an open workspace folder"),
            ));
        }
        Ok(json!({ "roots": workspace.roots() }))
    }
}

/// `subscribe` and `unsubscribe` take a server and a resource's URI.
#[derive(Debug, Deserialize)]
pub struct SessionSubscribe {
    #[serde(default)]
    pub server: String,
    pub uri: Option<String>,
}

impl Run for SessionSubscribe {
    async fn run(self, session: &Session) -> Reply<Value> {
        subscribe(session, &self.server, self.uri, true).await
    }
}

#[derive(Debug, Deserialize)]
pub struct SessionUnsubscribe {
    #[serde(default)]
    pub server: String,
    pub uri: Option<String>,
}

impl Run for SessionUnsubscribe {
    async fn run(self, session: &Session) -> Reply<Value> {
        subscribe(session, &self.server, self.uri, false).await
    }
}

async fn subscribe(session: &Session, server: &str, uri: Option<String>, on: bool) -> Reply<Value> {
    let command = if on { "subscribe" } else { "unsubscribe" };
    let uri = uri.ok_or_else(|| invalid(format!("{command} needs a \"uri\"")))?;
    session.host().subscribe(server, &uri, on).await?;
    Ok(json!({ "uri": uri }))
}

#[derive(Debug, Deserialize)]
pub struct SessionLogLevel {
    #[serde(default)]
    pub server: String,
    #[serde(default)]
    pub level: String,
}

impl Run for SessionLogLevel {
    async fn run(self, session: &Session) -> Reply<Value> {
        session
            .host()
            .set_log_level(&self.server, &self.level)
            .await?;
        Ok(json!({ "level": self.level }))
    }
}

/// One chat turn; deltas stream as `chat_delta` events, and the reply is what `wharf chat` prints. The request's
/// `id` names the turn in `chat_turn_started`, and `cancel` stops it.
#[derive(Debug, Deserialize)]
pub struct SessionChatTurn {
    #[serde(default)]
    pub id: Value,
    pub conversation: Option<String>,
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub attachments: Value,
}

impl Run for SessionChatTurn {
    async fn run(self, session: &Session) -> Reply<Value> {
        let service = session.chat_service()?;
        let attachments: Vec<Attachment> = match self.attachments {
            Value::Null => Vec::new(),
            list => serde_json::from_value(list).map_err(|e| {
                ChatError::Turn(TurnError::Attachment(AttachError::Invalid(format!(
                    "\"attachments\": each is {{\"kind\": \"resource\", \"server\", \"uri\"}} or {{\"kind\": \"prompt\", \"server\", \"name\", \"arguments\"}} ({e})"
                ))))
            })?,
        };
        let turn = match &self.id {
            Value::Null => None,
            Value::String(text) => Some(text.clone()),
            other => Some(other.to_string()),
        };
        let outcome = session
            .calls()
            .run(&key(&self.id), |cancel| async move {
                let request = TurnRequest {
                    id: turn.as_deref(),
                    conversation: self.conversation.as_deref(),
                    message: &self.message,
                    attachments: &attachments,
                };
                service.turn(session.host(), request, &cancel).await
            })
            .await?;
        Ok(record(
            session,
            serde_json::to_value(outcome).unwrap_or(Value::Null),
        ))
    }
}
