//! What the app and the `wharf` command share above the host: the one session object both hold, the one table of
//! commands both serve, how the host is put together, and the codes their failures carry. Each front end only
//! adapts these (the app as Tauri commands and events, the CLI as lines and JSON).

#[macro_use]
mod command_table;

pub mod assemble;
pub mod calls;
pub mod chat;
pub mod chat_model;
pub mod command;
pub mod commands;
pub mod error_code;
pub mod links;
pub mod session;
pub mod startup;

pub use assemble::{sampling_service, HostBuilder};
pub use calls::Calls;
pub use chat::{ChatError, ChatPaths, ChatService};
pub use command::{dispatch, is_session_command, CommandError, Run};
pub use error_code::ErrorCode;
pub use session::{Session, SessionParts};
