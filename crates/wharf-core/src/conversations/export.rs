//! A conversation written out for the user to keep or share: Markdown to read, JSON to process.

use serde::Serialize;
use serde_json::{json, Value};

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

/// The conversation's row and every message as kept: its data as the database holds it, whatever its kind.
pub(super) fn json(summary: &ConversationSummary, messages: &[StoredMessage]) -> Value {
    let messages: Vec<Kept<'_>> = messages.iter().map(Kept::from).collect();
    json!({
        "id": summary.id,
        "title": summary.title,
        "createdAt": summary.created_at,
        "updatedAt": summary.updated_at,
        "messages": messages,
    })
}

/// A message as the database keeps it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Kept<'a> {
    id: i64,
    seq: i64,
    role: Role,
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<Value>,
    created_at: i64,
}

impl<'a> From<&'a StoredMessage> for Kept<'a> {
    fn from(message: &'a StoredMessage) -> Kept<'a> {
        Kept {
            id: message.id,
            seq: message.seq,
            role: message.role,
            text: &message.text,
            data: message.data.as_ref().map(super::MessageData::stored),
            created_at: message.created_at,
        }
    }
}

/// A title on one line: a line break in it would end the heading early.
fn one_line(title: &str) -> String {
    document(&title.split_whitespace().collect::<Vec<_>>().join(" "))
}
