//! The stable codes of every failure a front end reports: the app's `CommandError.code` and the `code` of a
//! `wharf session` error reply. One closed list, exported to the UI's types, so the UI matches codes it knows and a
//! new one is added here, not invented on the spot.

use crate::config::edit::FieldError;
use crate::connection::ConnectionError;
use crate::secrets::SecretError;

wire_codes! {
    pub enum ErrorCode {
        // A server or its connection (`ConnectionError`).
        Config = "config",
        UnknownServer = "unknown_server",
        Connection = "connection",
        Closed = "closed",
        ServerError = "server_error",
        Timeout = "timeout",
        Cancelled = "cancelled",
        Protocol = "protocol",
        Refused = "refused",
        Auth = "auth",
        // What the user or the window asked for does not fit.
        Invalid = "invalid",
        InvalidAnswer = "invalid_answer",
        InvalidCommand = "invalid_command",
        UnknownCall = "unknown_call",
        UnknownTarget = "unknown_target",
        UnknownTool = "unknown_tool",
        UnknownInput = "unknown_input",
        UnknownRequest = "unknown_request",
        UnknownSource = "unknown_source",
        UnknownView = "unknown_view",
        NoViews = "no_views",
        Template = "template",
        NotABlob = "not_a_blob",
        NotAFolder = "not_a_folder",
        NotOpen = "not_open",
        Busy = "busy",
        // The machine: files, the keyring, dialogs, the workspace.
        Write = "write",
        Unreadable = "unreadable",
        Keyring = "keyring",
        Dialog = "dialog",
        Workspace = "workspace",
        Internal = "internal",
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
        let sampling = ConnectionError::from(crate::connection::Refusal::Sampling {
            cause: "calling tool t".into(),
            reason: "the user declined".into(),
        });
        assert!(sampling.field_errors().is_empty());
        assert_eq!(sampling.code(), ErrorCode::Refused);
        assert_eq!(
            sampling.to_string(),
            "refused: sampling for calling tool t: the user declined"
        );
    }
}
