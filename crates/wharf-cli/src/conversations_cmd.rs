//! `wharf conversations list|show ID|delete ID|export ID [--format md|json]`: the conversations kept in the user's
//! data folder (docs/cli.md). Nothing here needs the configuration or a server.

use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};
use serde_json::json;
use wharf_core::conversations::ConversationStore;

use crate::{output, Failure};

#[derive(Subcommand, Debug, Clone)]
pub enum ConversationsAction {
    /// Every conversation, the most recently active first.
    List,
    /// One conversation with its messages.
    Show { id: String },
    /// Deletes one conversation and its messages.
    Delete { id: String },
    /// One conversation as a document: Markdown to read, or JSON.
    Export {
        id: String,
        #[arg(long, value_enum, default_value_t = ExportFormat::Md)]
        format: ExportFormat,
    },
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Md,
    Json,
}

pub fn run(action: ConversationsAction) -> Result<ExitCode, Failure> {
    let (store, notice) = ConversationStore::open(&ConversationStore::default_path())?;
    if let Some(notice) = notice {
        output::say(&notice);
    }
    match action {
        ConversationsAction::List => {
            output::print_json(&serde_json::to_value(store.list()?)?);
        }
        ConversationsAction::Show { id } => {
            output::print_json(&serde_json::to_value(store.export_json(&id)?)?)
        }
        ConversationsAction::Delete { id } => {
            store.delete(&id)?;
            output::print_json(&json!({ "deleted": id }));
        }
        ConversationsAction::Export { id, format } => match format {
            ExportFormat::Json => {
                output::print_json(&serde_json::to_value(store.export_json(&id)?)?)
            }
            // The document as it is: a terminal-safe copy of the text would not be the user's conversation.
            ExportFormat::Md => print!("{}", store.export_markdown(&id)?),
        },
    }
    Ok(ExitCode::SUCCESS)
}
