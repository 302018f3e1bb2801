//! The commands both front ends serve, each declared once in `command_table.rs` with its typed arguments and result.
//! The app makes one Tauri command of each (with its `allow-` permission), the UI's `Commands` type gives each its
//! TypeScript arguments and result, and `wharf session` dispatches its lines through [`dispatch`]. A command's
//! behaviour is its [`Run`] impl, written next to the feature in `facade/commands/`.

use std::future::Future;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::commands::prelude::*;
use super::session::Session;
use super::ErrorCode;
use crate::config::edit::FieldError;
use crate::connection::ConnectionError;

/// A failed command, as both front ends report it: a stable code, a message for the user, and per-field problems
/// for forms.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, ts_rs::TS)]
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

    /// Problems with the named fields of a form; the message is the first one's.
    pub fn invalid(fields: Vec<FieldError>) -> Self {
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

    pub fn unknown_server(server: &str) -> Self {
        CommandError::new(
            ErrorCode::UnknownServer,
            format!("there is no server \"{server}\""),
        )
    }

    pub fn write(path: &std::path::Path, e: &std::io::Error) -> Self {
        CommandError::new(
            ErrorCode::Write,
            format!("cannot write {}: {e}", path.display()),
        )
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

impl From<crate::ConfigError> for CommandError {
    fn from(e: crate::ConfigError) -> Self {
        CommandError::new(ErrorCode::Config, e.to_string())
    }
}

pub type Reply<T> = Result<T, CommandError>;

/// A command's name and types, as the table declares them.
pub trait Command: DeserializeOwned + Send + 'static {
    const NAME: &'static str;
    type Output: Serialize + Send + 'static;
}

/// What a command does, on the one session both front ends hold.
pub trait Run: Command {
    fn run(self, session: &Session) -> impl Future<Output = Reply<Self::Output>> + Send;
}

/// The arguments and result of one command, for the UI's `Commands` type.
#[derive(ts_rs::TS)]
pub struct Signature<Args: ts_rs::TS, Output: ts_rs::TS> {
    pub args: Args,
    pub result: Output,
}

/// Declares each command's name and result (`$args` is its arguments' type), the UI's `Commands` type of the
/// window's commands, and the session's dispatch over all of them.
macro_rules! declare_commands {
    (
        window: [$($name:ident : $args:ty => $output:ty),* $(,)?],
        session: [$($s_name:ident : $s_args:ty => $s_output:ty),* $(,)?] $(,)?
    ) => {
        $(
            impl Command for $args {
                const NAME: &'static str = stringify!($name);
                type Output = $output;
            }
        )*
        $(
            impl Command for $s_args {
                const NAME: &'static str = stringify!($s_name);
                type Output = $s_output;
            }
        )*

        /// Every command of the window, its arguments and result by name: the UI's `Commands` type.
        #[derive(ts_rs::TS)]
        #[ts(export, rename = "Commands")]
        #[allow(dead_code)]
        pub struct CommandTypes {
            $(pub $name: Signature<$args, $output>,)*
        }

        /// Whether `name` is one of the commands `wharf session` has always had (answered in the order they came,
        /// as its contract says), rather than one of the window's.
        pub fn is_session_command(name: &str) -> bool {
            matches!(name, $(stringify!($s_name))|*)
        }

        /// Runs the command `name` of a session line with `args` (the line itself: its `id` and `cmd` are ignored
        /// where the command has no use for them). The session's own names come first: where one is also a
        /// window command's name (`log_level`), the session means its own.
        #[allow(unreachable_patterns)]
        pub async fn dispatch(session: &Session, name: &str, args: Value) -> Reply<Value> {
            match name {
                $(stringify!($s_name) => run_json::<$s_args>(session, args).await,)*
                $(stringify!($name) => run_json::<$args>(session, args).await,)*
                _ => Err(CommandError::new(
                    ErrorCode::InvalidCommand,
                    format!("unknown command \"{name}\""),
                )),
            }
        }
    };
}

command_table!(declare_commands);

async fn run_json<C: Run>(session: &Session, args: Value) -> Reply<Value> {
    let args: C = serde_json::from_value(args)
        .map_err(|e| CommandError::new(ErrorCode::InvalidCommand, format!("{}: {e}", C::NAME)))?;
    let output = args.run(session).await?;
    serde_json::to_value(output).map_err(|e| {
        CommandError::new(
            ErrorCode::Internal,
            format!("{}: the result cannot be written: {e}", C::NAME),
        )
    })
}
