//! What the app and the `wharf` command share above the host: how the host is put together, the codes their failures
//! carry and the tool calls a user may cancel. Each front end only presents these (the app as Tauri commands, the CLI as lines and JSON).

pub mod assemble;
pub mod calls;
pub mod chat;
pub mod chat_model;
pub mod error_code;
pub mod links;
pub mod startup;

pub use assemble::{sampling_service, HostBuilder};
pub use calls::Calls;
pub use chat::{ChatError, ChatPaths, ChatService};
pub use error_code::ErrorCode;
