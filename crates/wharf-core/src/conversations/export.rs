//! A conversation written out for the user to keep or share: Markdown to read, JSON to process.

use serde::Serialize;
use serde_json::Value;

use super::{ConversationSummary, Role, StoredMessage};
use crate::display_text::document;

/// The title as a heading, then each message under who said it. A tool's result and Wharf's notices are quoted, so
/// that what a server or Wharf wrote is not read as the conversation's own words; every text is made safe to print
/// (no escape sequence of a server or a model reaches the terminal of a user who prints the file).
pub(super) fn markdown(summary: &ConversationSummary, messages: &[StoredMessage]) -> String {
    let mut out = format!("# {}\n", one_line(&summary.title));
    for message in messages {
        let who = match message.role {
            Role::User => "You",
            Role::Assistant => "Assistant",
            Role::Tool => "Tool result",
            Role::Notice => "Wharf",
        };
        out.push_str(&format!("\n## {who}\n\n"));
        match message.role {
            Role::User | Role::Assistant => out.push_str(&document(message.text.trim_end())),
            Role::Tool | Role::Notice => {
                let quoted: Vec<String> = document(message.text.trim_end())
                    .lines()
                    .map(|line| format!("> {line}"))
                    .collect();
                out.push_str(&quoted.join("\n"));
            }
        }
        out.push('\n');
    }
    out
}

/// A conversation as its JSON export writes it: its row and every message as kept, its data as the database holds
/// it, whatever its kind.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationExport {
    pub id: String,
    pub title: String,
    pub created_at: i64,
    pub updated_at: i64,
    pub messages: Vec<KeptMessage>,
}

/// A message as the database keeps it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeptMessage {
    pub id: i64,
    pub seq: i64,
    pub role: Role,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    pub created_at: i64,
}

pub(super) fn export(
    summary: ConversationSummary,
    messages: Vec<StoredMessage>,
) -> ConversationExport {
    ConversationExport {
        id: summary.id,
        title: summary.title,
        created_at: summary.created_at,
        updated_at: summary.updated_at,
        messages: messages
            .into_iter()
            .map(|message| KeptMessage {
                id: message.id,
                seq: message.seq,
                role: message.role,
                data: message.data.as_ref().map(super::MessageData::stored),
                text: message.text,
                created_at: message.created_at,
            })
            .collect(),
    }
}

/// A title on one line: a line break in it would end the heading early.
fn one_line(title: &str) -> String {
    document(&title.split_whitespace().collect::<Vec<_>>().join(" "))
}
