//! What the user attaches to a message: a server's resource (read through the server, its text given to the model)
//! or a server's prompt (filled with its arguments, its messages' text put before the user's words). Each is read
//! when the message is sent, capped, and kept with the message so the thread can show it as a chip.

use crate::connection::CallOptions;
pub use crate::conversations::message::{AttachedChip, Attachment};
use crate::host::Host;
use crate::view::content::{prompt_view, resource_view, ContentView};

/// The most characters of one attachment the model is given; past that it is cut, and the cut said.
pub const ATTACHMENT_CHARS: usize = 256 * 1024;
/// The most attachments one message may carry.
pub const MAX_ATTACHMENTS: usize = 20;

#[derive(Debug, thiserror::Error)]
pub enum AttachError {
    #[error("at most {MAX_ATTACHMENTS} attachments may go with one message")]
    TooMany,
    /// The attachments were not written as attachments.
    #[error("{0}")]
    Invalid(String),
    #[error("{server}: {what}: {reason}")]
    Unreadable {
        server: String,
        what: String,
        reason: String,
    },
}

/// One attachment read through its server.
struct Read {
    chip: AttachedChip,
    text: String,
}

/// Reads every attachment and writes the message the model is given: the prompts' text first, then the user's
/// words, then each resource under a line that names it. The chips go with the stored message.
pub async fn compose(
    host: &Host,
    message: &str,
    attachments: &[Attachment],
) -> Result<(String, Vec<AttachedChip>), AttachError> {
    if attachments.len() > MAX_ATTACHMENTS {
        return Err(AttachError::TooMany);
    }
    let mut prompts = Vec::new();
    let mut resources = Vec::new();
    let mut chips = Vec::new();
    for attachment in attachments {
        let read = read(host, attachment).await?;
        match attachment {
            Attachment::Prompt { .. } => prompts.push(read.text),
            Attachment::Resource { server, uri } => resources.push(format!(
                "[attached by the user: the resource {uri} of {server}]\n{}",
                read.text
            )),
            Attachment::ViewContext { server, tool, .. } => resources.push(format!(
                "[kept by the user: what the view of the tool {tool} of {server} gave as context]\n{}",
                read.text
            )),
        }
        chips.push(read.chip);
    }
    let mut parts = prompts;
    if !message.trim().is_empty() {
        parts.push(message.to_string());
    }
    parts.extend(resources);
    Ok((parts.join("\n\n"), chips))
}

async fn read(host: &Host, attachment: &Attachment) -> Result<Read, AttachError> {
    let (server, what) = match attachment {
        Attachment::Resource { server, uri } => (server, format!("reading {uri}")),
        Attachment::Prompt { server, name, .. } => (server, format!("getting the prompt {name}")),
        // Given by the view when it set it: nothing to read now, and the view may be gone.
        Attachment::ViewContext { text, .. } => return Ok(chip(attachment, text.clone())),
    };
    let unreadable = |reason: String| AttachError::Unreadable {
        server: server.clone(),
        what: what.clone(),
        reason,
    };
    let connection = host
        .connection(server)
        .await
        .map_err(|e| unreadable(e.to_string()))?;
    // The user's own request: the same path as reading a resource or getting a prompt in the window.
    let options = CallOptions::default();
    let text = match attachment {
        Attachment::Resource { uri, .. } => {
            let result = connection
                .read_resource(uri, &options)
                .await
                .map_err(|e| unreadable(e.to_string()))?;
            resource_text(uri, &result)
        }
        Attachment::Prompt {
            name, arguments, ..
        } => {
            let result = connection
                .get_prompt(name, arguments.clone(), &options)
                .await
                .map_err(|e| unreadable(e.to_string()))?;
            prompt_view(&result).text
        }
        Attachment::ViewContext { text, .. } => text.clone(),
    };
    Ok(chip(attachment, text))
}

/// The attachment's text, capped, with the chip that tells how much the model got.
fn chip(attachment: &Attachment, text: String) -> Read {
    let (text, truncated) = cap(text);
    Read {
        chip: AttachedChip {
            attachment: attachment.clone(),
            chars: text.chars().count() as u64,
            truncated,
        },
        text,
    }
}

/// A read resource as text: its text contents, and a line for each binary one.
fn resource_text(uri: &str, result: &crate::protocol::ResourceRead) -> String {
    let view = resource_view(uri, result);
    let parts: Vec<String> = view
        .contents
        .iter()
        .map(|c| match c {
            ContentView::Text { text, .. } => text.clone(),
            ContentView::Image {
                mime_type, bytes, ..
            } => format!("[an image ({mime_type}, {bytes} bytes), not given to the model]"),
            ContentView::Blob { bytes, .. } => {
                format!("[binary content ({bytes} bytes), not given to the model]")
            }
            ContentView::Empty { .. } => "(empty)".to_string(),
        })
        .collect();
    if parts.is_empty() {
        "(the resource has no contents)".to_string()
    } else {
        parts.join("\n")
    }
}

fn cap(text: String) -> (String, bool) {
    match text.char_indices().nth(ATTACHMENT_CHARS) {
        None => (text, false),
        Some((at, _)) => (
            format!(
                "{}\n[cut by Wharf: the rest of this attachment was not given to the model]",
                &text[..at]
            ),
            true,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_resource_is_written_as_text_with_its_binary_parts_named() {
        let result = json!({"contents": [
            {"uri": "file:///w/a.txt", "text": "hello"},
            {"uri": "file:///w/b.bin", "blob": "AAEC", "mimeType": "application/octet-stream"}
        ]});
        let text = resource_text(
            "file:///w/a.txt",
            &crate::protocol::ResourceRead::read(result),
        );
        assert_eq!(
            text,
            "hello\n[binary content (3 bytes), not given to the model]"
        );
    }

    #[test]
    fn a_long_attachment_is_cut_on_a_character_and_says_so() {
        let (text, cut) = cap("é".repeat(ATTACHMENT_CHARS + 5));
        assert!(cut);
        assert!(text.ends_with("not given to the model]"));
        assert_eq!(text.chars().filter(|c| *c == 'é').count(), ATTACHMENT_CHARS);
        assert_eq!(cap("short".into()), ("short".to_string(), false));
    }

    #[test]
    fn attachments_are_read_as_the_contract_writes_them() {
        let a: Attachment = serde_json::from_value(
            json!({"kind": "resource", "server": "fs", "uri": "file:///w/a"}),
        )
        .unwrap();
        assert_eq!(
            a,
            Attachment::Resource {
                server: "fs".into(),
                uri: "file:///w/a".into()
            }
        );
        let p: Attachment = serde_json::from_value(
            json!({"kind": "prompt", "server": "py", "name": "greet", "arguments": {"who": "Ada"}}),
        )
        .unwrap();
        assert!(matches!(p, Attachment::Prompt { ref name, .. } if name == "greet"));
    }
}
