//! A tool's result on its way back to the model and into the conversation: written as text under the caps a
//! result has in the window (text cut at 1 MiB, each cut said), and kept as the server sent it when that is small.

use serde::Serialize;
use serde_json::{json, Value};

use crate::view::content::{ContentView, MessageBlock, TEXT_CAP};
use crate::view::tool_result::tool_result_view;

/// The outcome of a call as the turn's output and the stored conversation give it: the server's content blocks and
/// whether the tool reported an error, or Wharf's words for a call that was not made or failed on the way.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "ChatToolResult")]
pub struct CallResult {
    #[ts(type = "unknown[]")]
    pub content: Vec<Value>,
    pub is_error: bool,
    /// The server's content was too large to keep: `content` holds the text the model was given instead.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(as = "Option<bool>", optional)]
    pub shortened: bool,
}

impl CallResult {
    /// Wharf's own words: a refused, denied, cancelled or failed call.
    pub fn said(text: &str) -> CallResult {
        CallResult {
            content: vec![json!({"type": "text", "text": text})],
            is_error: true,
            shortened: false,
        }
    }
}

/// The text the model is given for a server's `tools/call` result, and the result as kept.
pub fn from_server(result: &Value) -> (String, CallResult) {
    let text = model_text(result);
    let view = tool_result_view(result);
    let content = result
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let size = serde_json::to_string(&content).map_or(usize::MAX, |s| s.len());
    let kept = if size <= TEXT_CAP {
        CallResult {
            content,
            is_error: view.is_error,
            shortened: false,
        }
    } else {
        CallResult {
            content: vec![json!({"type": "text", "text": text})],
            is_error: view.is_error,
            shortened: true,
        }
    };
    (text, kept)
}

/// A result as the model reads it: its text, and a line for each thing it cannot read (images stay with the user).
pub fn model_text(result: &Value) -> String {
    let view = tool_result_view(result);
    let mut parts: Vec<String> = Vec::new();
    for block in &view.blocks {
        parts.push(match block {
            MessageBlock::Text { text, truncated } => {
                if *truncated {
                    format!("{text}\n[the rest of this text was cut]")
                } else {
                    text.clone()
                }
            }
            MessageBlock::Image {
                mime_type, bytes, ..
            } => format!("[an image ({mime_type}, {bytes} bytes), shown to the user]"),
            MessageBlock::Binary {
                mime_type, bytes, ..
            } => format!("[binary content ({mime_type}, {bytes} bytes)]"),
            MessageBlock::ResourceLink { uri, name, .. } => format!("[resource {name}: {uri}]"),
            MessageBlock::Resource { content } => match content {
                ContentView::Text {
                    uri,
                    text,
                    truncated,
                    ..
                } => {
                    let cut = if *truncated {
                        "\n[the rest of this text was cut]"
                    } else {
                        ""
                    };
                    format!("[resource {uri}]\n{text}{cut}")
                }
                ContentView::Image { uri, .. }
                | ContentView::Blob { uri, .. }
                | ContentView::Empty { uri } => format!("[resource {uri}]"),
            },
            MessageBlock::Other { label, json } => format!("[{label}] {json}"),
        });
    }
    if parts.is_empty() {
        if let Some(structured) = &view.structured {
            parts.push(structured.clone());
        }
    }
    if parts.is_empty() {
        return "(the tool returned no content)".to_string();
    }
    parts.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_images_and_links_are_written_for_the_model() {
        let result = json!({"content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
            {"type": "resource_link", "uri": "file:///w/a", "name": "a"},
        ], "isError": false});
        let (text, kept) = from_server(&result);
        assert_eq!(
            text,
            "hello\n[an image (image/png, 8 bytes), shown to the user]\n[resource a: file:///w/a]"
        );
        assert!(!kept.is_error && !kept.shortened);
        assert_eq!(kept.content.len(), 3);
    }

    #[test]
    fn a_huge_result_is_cut_for_the_model_and_kept_shortened() {
        let big = "x".repeat(TEXT_CAP + 10);
        let result = json!({"content": [{"type": "text", "text": big}], "isError": true});
        let (text, kept) = from_server(&result);
        assert!(text.ends_with("[the rest of this text was cut]"));
        assert!(text.len() < TEXT_CAP + 100);
        assert!(kept.shortened && kept.is_error);
        assert_eq!(kept.content.len(), 1);
    }

    #[test]
    fn structured_content_alone_is_given_and_nothing_is_said_as_such() {
        let (text, _) = from_server(&json!({"content": [], "structuredContent": {"n": 1}}));
        assert!(text.contains("\"n\": 1"), "{text}");
        let (text, _) = from_server(&json!({"content": []}));
        assert_eq!(text, "(the tool returned no content)");
    }
}
