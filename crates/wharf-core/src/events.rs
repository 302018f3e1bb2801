//! What the host tells its front ends as it happens: status changes, progress, logs, protocol problems.
//!
//! Events serialize to the shapes of docs/cli.md (`{"event": "server_status", ...}`), so the CLI writes them as
//! they are and the app forwards them to the UI unchanged.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::question::AnswerAction;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum ServerStatus {
    Starting,
    Ready,
    Restarting,
    Failed,
    Stopped,
}

impl ServerStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ServerStatus::Starting => "starting",
            ServerStatus::Ready => "ready",
            ServerStatus::Restarting => "restarting",
            ServerStatus::Failed => "failed",
            ServerStatus::Stopped => "stopped",
        }
    }
}

wire_codes! {
    /// What a notice is about: a closed list, so a front end can tell notices apart without reading their words.
    pub enum NoticeCode {
        ConfigError = "config_error",
        ConfigWarning = "config_warning",
        DeprecatedCapability = "deprecated_capability",
        DropIgnored = "drop_ignored",
        PaginationBounded = "pagination_bounded",
        PreferencesSetAside = "preferences_set_aside",
        PreferencesProblem = "preferences_problem",
        PreferencesNotSaved = "preferences_not_saved",
        ProgressNotIncreasing = "progress_not_increasing",
        WorkspaceRestart = "workspace_restart",
        UrlRefused = "url_refused",
        UndeclaredCapability = "undeclared_capability",
        SamplingThrottled = "sampling_throttled",
        SamplingLimit = "sampling_limit",
        ProviderError = "provider_error",
        InvalidRequest = "invalid_request",
        FormNotSupported = "form_not_supported",
        ElicitationPaused = "elicitation_paused",
        DeclinedBefore = "declined_before",
        BrowserFailed = "browser_failed",
        LogFlood = "log_flood",
        NotificationFlood = "notification_flood",
        StdinError = "stdin_error",
        GrantNotKept = "grant_not_kept",
        ConversationNotSaved = "conversation_not_saved",
        ToolsNotOffered = "tools_not_offered",
        ToolsLeftOut = "tools_left_out",
    }
}

wire_codes! {
    /// How a server broke the protocol, exited or answered out of its form.
    pub enum ServerErrorCode {
        ServerExited = "server_exited",
        ReadError = "read_error",
        InvalidJson = "invalid_json",
        InvalidJsonrpc = "invalid_jsonrpc",
        MessageTooLarge = "message_too_large",
        ErrorWithoutId = "error_without_id",
        UnknownResponseId = "unknown_response_id",
        ResubscribeFailed = "resubscribe_failed",
        InvalidAnswer = "invalid_answer",
    }
}

/// Which of a server's lists changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum ListKind {
    Tools,
    Resources,
    Prompts,
}

/// Where a sign-in to an HTTP server (OAuth) stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum SignInState {
    /// The server asked for authorization: discovery, then the consent card and the browser.
    Started,
    SignedIn,
    Failed,
    /// The kept sign-in was forgotten (tokens and the registered client's secret, every issuer).
    SignedOut,
}

#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(tag = "event", rename_all = "snake_case")]
#[ts(export)]
pub enum HostEvent {
    ServerStatus {
        server: String,
        status: ServerStatus,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        error: Option<String>,
    },
    /// A progress notification for a call the user made.
    Progress {
        server: String,
        /// The session command id or call label that caused the work.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        call: Option<Value>,
        progress: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        total: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        message: Option<String>,
    },
    /// A `notifications/message` log line from a server.
    Log {
        server: String,
        level: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        logger: Option<String>,
        data: Value,
    },
    /// A server was given the roots (possibly none): what the workspace shared with it.
    Roots {
        server: String,
        roots: Vec<crate::workspace::Root>,
        answer: AnswerAction,
    },
    /// The user was asked whether to send a server paths that lie outside the open workspace folders, and answered.
    PathOutside {
        server: String,
        tool: String,
        paths: Vec<crate::workspace::paths::PathViolation>,
        answer: AnswerAction,
    },
    /// A form elicitation, as the user was shown it, and the answer sent.
    ElicitationForm {
        server: String,
        message: String,
        fields: Vec<crate::question::form::FormField>,
        warnings: Vec<String>,
        answer: AnswerAction,
    },
    /// A URL elicitation: the URL as sent, its real host (ASCII) and Unicode form, the warnings, the answer sent, and
    /// whether the system browser was opened.
    ElicitationUrl {
        server: String,
        message: String,
        url: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        host: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        display_host: Option<String>,
        warnings: Vec<crate::question::url::UrlWarning>,
        answer: AnswerAction,
        opened: bool,
    },
    /// A sampling request, as the user was shown it (images and audio by size), the policy that decided it and the
    /// answer: accept (a completion went back), decline or cancel.
    Sampling {
        server: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        system_prompt: Option<String>,
        messages: Vec<Value>,
        max_tokens: u32,
        model: String,
        policy: crate::question::sampling::Policy,
        answer: AnswerAction,
    },
    /// The workspace's roots changed (a folder opened, closed, renamed, deleted or re-created).
    RootsChanged {
        roots: Vec<crate::workspace::Root>,
    },
    /// The server wrote to stderr (at most a few times a second): its tail in the server summary changed.
    Stderr {
        server: String,
    },
    ListChanged {
        server: String,
        kind: ListKind,
    },
    /// A resource the user subscribed to changed (legacy `notifications/resources/updated`, or through
    /// `subscriptions/listen`).
    ResourceUpdated {
        server: String,
        uri: String,
    },
    /// The server broke the protocol (garbage, oversized message, unknown response id, crash...). Wharf keeps going;
    /// the user sees why.
    ServerError {
        server: String,
        code: ServerErrorCode,
        message: String,
    },
    /// A sign-in to an HTTP server started, succeeded, failed (`error` says why, in words a user can act on) or was
    /// forgotten. Never a token, a code or a secret: only the server, the authorization server and the outcome.
    SignIn {
        server: String,
        state: SignInState,
        /// The authorization server, once known.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        issuer: Option<String>,
        /// A re-authorization for more scopes (`403 insufficient_scope`) rather than a first sign-in.
        step_up: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        error: Option<String>,
    },
    /// A model's tool call was decided (before it is sent, or refused): the engine's grant, or the user's answer.
    ToolCall {
        server: String,
        tool: String,
        conversation: String,
        /// The call's id in its conversation (`chat_call_ended` names it too).
        call: String,
        /// What is sent: the model's arguments, or the user's edit of them.
        arguments: Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        annotations: Option<crate::protocol::ToolAnnotations>,
        trusted: bool,
        decision: crate::question::tool_call::CallDecision,
        /// Why a call was sent without asking.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        grant: Option<crate::question::tool_call::GrantKind>,
        /// The decision and the grant in words a user knows.
        decided: String,
        /// The tool differs from the definition a grant was given for: the grant was suspended and the user asked.
        changed: bool,
        changes: Vec<crate::question::tool_call::ToolPart>,
        pin: String,
    },
    /// A model's tool call ended and its result is stored in `conversation`: the thread can show it (and its view)
    /// while the model goes on.
    ChatCallEnded {
        conversation: String,
        call: String,
    },
    /// A tool's view made a request (or logged a message): what it asked, and how that ended.
    ViewRequest {
        server: String,
        /// The tool whose view it is.
        tool: String,
        method: String,
        outcome: String,
    },
    /// A tool's view could not be shown or stopped short: which stage it did not reach, and why. Its place says the
    /// same.
    ViewFailed {
        server: String,
        /// The tool whose view it is.
        tool: String,
        reason: String,
    },
    /// A turn began in `conversation` (created for it when the turn started a new one): `turn` is the front end's
    /// own name for the turn, so that it knows where the turn's deltas, cards and messages go.
    ChatTurnStarted {
        turn: String,
        conversation: String,
    },
    /// A piece of the model's reply as it streams.
    ChatDelta {
        conversation: String,
        text: String,
    },
    /// Something the user should know that is not an error (a config warning, a deprecation).
    Notice {
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        server: Option<String>,
        code: NoticeCode,
        message: String,
    },
}

/// Where events go. Cheap to clone; sending never blocks the connection that emits it.
#[derive(Clone)]
pub struct EventSink(Arc<dyn Fn(HostEvent) + Send + Sync>);

impl EventSink {
    pub fn new(f: impl Fn(HostEvent) + Send + Sync + 'static) -> Self {
        EventSink(Arc::new(f))
    }

    pub fn discard() -> Self {
        EventSink::new(|_| {})
    }

    pub fn emit(&self, event: HostEvent) {
        (self.0)(event)
    }

    pub fn server_error(&self, server: &str, code: ServerErrorCode, message: impl Into<String>) {
        let message = message.into();
        tracing::warn!(server, code = code.as_str(), "{message}");
        self.emit(HostEvent::ServerError {
            server: server.to_string(),
            code,
            message,
        });
    }
}

impl std::fmt::Debug for EventSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EventSink")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire(value: impl Serialize) -> String {
        match serde_json::to_value(value) {
            Ok(Value::String(s)) => s,
            other => panic!("not a string: {other:?}"),
        }
    }

    #[test]
    fn each_code_is_written_as_its_name() {
        let notices = [
            NoticeCode::ConfigError,
            NoticeCode::DeprecatedCapability,
            NoticeCode::PreferencesSetAside,
            NoticeCode::InvalidRequest,
            NoticeCode::LogFlood,
            NoticeCode::StdinError,
        ];
        for code in notices {
            assert_eq!(wire(code), code.as_str());
        }
        assert_eq!(wire(NoticeCode::DeclinedBefore), "declined_before");
        let errors = [
            ServerErrorCode::ServerExited,
            ServerErrorCode::InvalidJsonrpc,
            ServerErrorCode::MessageTooLarge,
            ServerErrorCode::UnknownResponseId,
        ];
        for code in errors {
            assert_eq!(wire(code), code.as_str());
        }
        assert_eq!(wire(ServerErrorCode::InvalidJsonrpc), "invalid_jsonrpc");
        assert_eq!(wire(ListKind::Resources), "resources");
    }
}
