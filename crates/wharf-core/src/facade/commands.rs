//! What each command of `command_table.rs` does, by feature. Each file declares its commands' argument types (the
//! fields a front end sends, camelCase on the wire) and their `Run` impls.

pub mod auth;
pub mod catalog;
pub mod chat;
pub mod config;
pub mod inputs;
pub mod questions;
pub mod sampling;
pub mod servers;
pub mod session_only;
pub mod views;
pub mod workspace;

/// Every type the table names, so that each front end expands the table with one `use`.
pub mod prelude {
    pub use super::auth::*;
    pub use super::catalog::*;
    pub use super::chat::*;
    pub use super::config::*;
    pub use super::inputs::*;
    pub use super::questions::*;
    pub use super::sampling::*;
    pub use super::servers::*;
    pub use super::session_only::*;
    pub use super::views::*;
    pub use super::workspace::*;
    pub use crate::approval::StoredGrant;
    pub use crate::apps::ViewSlot;
    pub use crate::broker::PendingInput;
    pub use crate::chat::summary::Summarized;
    pub use crate::chat::turn::TurnOutcome;
    pub use crate::config::edit::{ImportSource, ServerEntry};
    pub use crate::config::inputs::MissingInput;
    pub use crate::connection::ToolInfo;
    pub use crate::conversations::{ConversationSummary, SearchHit};
    pub use crate::facade::chat_model::ChatModels;
    pub use crate::facade::session::{ChatStatus, ViewReply};
    pub use crate::facade::startup::StartupReport;
    pub use crate::host::ServerSummary;
    pub use crate::model::LocalRuntime;
    pub use crate::sampling::prefs::PreferenceRow;
    pub use crate::uri_template::TemplateVariable;
    pub use crate::view::catalog::{Completion, PromptCatalog, ResourceCatalog};
    pub use crate::view::content::{PromptView, ResourceView};
    pub use crate::view::thread::ThreadMessage;
    pub use crate::view::tool_form::ListedTool;
    pub use crate::view::tool_result::ToolResultView;
    pub use crate::workspace::paths::PathParam;
    pub use serde_json::Value;
}
