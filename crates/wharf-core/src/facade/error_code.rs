//! The stable codes of every failure a front end reports: the app's `CommandError.code` and the `code` of a
//! `wharf session` error reply. One closed list, exported to the UI's types, so the UI matches codes it knows and a
//! new one is added here, not invented on the spot.

use serde::Serialize;

use crate::config::edit::FieldError;
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
            ConnectionError::Refused(_) | ConnectionError::PathsRefused { .. } => {
                ErrorCode::Refused
            }
            ConnectionError::Auth(_) => ErrorCode::Auth,
        }
    }

    /// The problems that belong next to one argument of the call, keyed as the argument's form names its fields
    /// (`paths[2]`, `files[0].path`); the first reason for an argument wins. Empty for a failure of the call as a
    /// whole.
    pub fn field_errors(&self) -> Vec<FieldError> {
        let ConnectionError::PathsRefused { paths, .. } = self else {
            return Vec::new();
        };
        let mut fields: Vec<FieldError> = Vec::with_capacity(paths.len());
        for violation in paths {
            if fields.iter().all(|f| f.field != violation.pointer) {
                fields.push(FieldError {
                    field: violation.pointer.clone(),
                    message: violation.explanation().to_string(),
                });
            }
        }
        fields
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

    fn violation(pointer: &str, why: &str) -> crate::workspace::paths::PathViolation {
        crate::workspace::paths::PathViolation {
            pointer: pointer.into(),
            value: "/etc/passwd".into(),
            resolved: None,
            reason: format!("{pointer}: {why}"),
        }
    }

    #[test]
    fn a_refused_path_is_a_field_error_on_its_argument() {
        let err = ConnectionError::PathsRefused {
            paths: vec![
                violation("paths[1]", "/etc/passwd is outside the workspace folders"),
                violation("paths[1]", "a second reading of the same value"),
                violation("files[0].path", "no workspace folder is open"),
            ],
            declined: true,
        };
        assert_eq!(err.code(), ErrorCode::Refused);
        assert_eq!(
            err.to_string(),
            "refused: paths[1]: /etc/passwd is outside the workspace folders; paths[1]: a second reading of the \
             same value; files[0].path: no workspace folder is open (you chose not to send it)"
        );
        assert_eq!(
            err.field_errors(),
            vec![
                FieldError {
                    field: "paths[1]".into(),
                    message: "/etc/passwd is outside the workspace folders".into()
                },
                FieldError {
                    field: "files[0].path".into(),
                    message: "no workspace folder is open".into()
                },
            ]
        );
        assert!(ConnectionError::Refused("sampling".into())
            .field_errors()
            .is_empty());
    }
}
