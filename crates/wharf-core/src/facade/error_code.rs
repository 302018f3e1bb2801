//! The stable codes of every failure a front end reports: the app's `CommandError.code` and the `code` of a
//! `wharf session` error reply. One closed list, exported to the UI's types, so the UI matches codes it knows and a
//! new one is added here, not invented on the spot.

use serde::Serialize;

use crate::connection::ConnectionError;
use crate::secrets::SecretError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    // A server or its connection (`ConnectionError`).
    Config,
    UnknownServer,
    Connection,
    Closed,
    ServerError,
    Timeout,
    Cancelled,
    Protocol,
    Refused,
    Auth,
    // What the user or the window asked for does not fit.
    Invalid,
    InvalidAnswer,
    InvalidCommand,
    UnknownCall,
    UnknownTarget,
    UnknownTool,
    UnknownInput,
    UnknownRequest,
    UnknownSource,
    Template,
    NotABlob,
    NotAFolder,
    NotOpen,
    // The machine: files, the keyring, dialogs, the workspace.
    Write,
    Unreadable,
    Keyring,
    Dialog,
    Workspace,
    Internal,
}

impl ErrorCode {
    /// The code as it is written on the wire (the same as its JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Config => "config",
            ErrorCode::UnknownServer => "unknown_server",
            ErrorCode::Connection => "connection",
            ErrorCode::Closed => "closed",
            ErrorCode::ServerError => "server_error",
            ErrorCode::Timeout => "timeout",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::Protocol => "protocol",
            ErrorCode::Refused => "refused",
            ErrorCode::Auth => "auth",
            ErrorCode::Invalid => "invalid",
            ErrorCode::InvalidAnswer => "invalid_answer",
            ErrorCode::InvalidCommand => "invalid_command",
            ErrorCode::UnknownCall => "unknown_call",
            ErrorCode::UnknownTarget => "unknown_target",
            ErrorCode::UnknownTool => "unknown_tool",
            ErrorCode::UnknownInput => "unknown_input",
            ErrorCode::UnknownRequest => "unknown_request",
            ErrorCode::UnknownSource => "unknown_source",
            ErrorCode::Template => "template",
            ErrorCode::NotABlob => "not_a_blob",
            ErrorCode::NotAFolder => "not_a_folder",
            ErrorCode::NotOpen => "not_open",
            ErrorCode::Write => "write",
            ErrorCode::Unreadable => "unreadable",
            ErrorCode::Keyring => "keyring",
            ErrorCode::Dialog => "dialog",
            ErrorCode::Workspace => "workspace",
            ErrorCode::Internal => "internal",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ConnectionError {
    pub fn code(&self) -> ErrorCode {
        match self {
            ConnectionError::Config(_) => ErrorCode::Config,
            ConnectionError::UnknownServer(_) => ErrorCode::UnknownServer,
            ConnectionError::Spawn(_) | ConnectionError::Connect(_) => ErrorCode::Connection,
            ConnectionError::Closed(_) => ErrorCode::Closed,
            ConnectionError::Server { .. } => ErrorCode::ServerError,
            ConnectionError::Timeout(_) => ErrorCode::Timeout,
            ConnectionError::Cancelled => ErrorCode::Cancelled,
            ConnectionError::Protocol(_) => ErrorCode::Protocol,
            ConnectionError::Refused(_) => ErrorCode::Refused,
            ConnectionError::Auth(_) => ErrorCode::Auth,
        }
    }
}

impl SecretError {
    /// A name or value the user gave that cannot be kept is theirs to fix; anything else is the keyring's.
    pub fn code(&self) -> ErrorCode {
        match self {
            SecretError::InvalidName { .. } | SecretError::InvalidValue(_) => ErrorCode::Invalid,
            _ => ErrorCode::Keyring,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_code_is_written_as_its_json() {
        let codes = [
            ErrorCode::Config,
            ErrorCode::UnknownServer,
            ErrorCode::ServerError,
            ErrorCode::InvalidAnswer,
            ErrorCode::NotABlob,
            ErrorCode::NotAFolder,
            ErrorCode::Internal,
        ];
        for code in codes {
            assert_eq!(
                serde_json::to_value(code).ok(),
                Some(serde_json::Value::String(code.as_str().into()))
            );
        }
    }
}
