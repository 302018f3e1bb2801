//! A tool's result as the window shows it: the blocks a prompt's messages are made of, under the same caps as a read
//! resource (text cut at 1 MiB in all, images up to 10 MiB, each cut saying so), so a server cannot push through a
//! tool call what it could not push through a resource. The webview never sees the server's JSON itself.

use serde::Serialize;

use super::content::{message_block, Budget, MessageBlock};
use crate::protocol::ToolResult;

/// The most content items shown of one result: past that, even empty items would cost the webview more than the
/// text cap allows (each is a block of its own).
pub const MAX_BLOCKS: usize = 1000;

/// A `tools/call` result for the result view.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultView {
    /// The tool reported an error (`isError`): the blocks say what went wrong.
    pub is_error: bool,
    pub blocks: Vec<MessageBlock>,
    /// `structuredContent`, pretty-printed, within what is left of the text cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub structured: Option<String>,
    /// The structured content was cut to fit the cap.
    pub structured_truncated: bool,
    /// The tool's view (MCP Apps), for a front end that renders views, or why it cannot be shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub view: Option<crate::apps::ViewSlot>,
}

/// Shapes a `tools/call` result.
pub fn tool_result_view(result: &ToolResult) -> ToolResultView {
    let mut budget = Budget::default();
    let mut blocks: Vec<MessageBlock> = result
        .content
        .iter()
        .take(MAX_BLOCKS)
        .map(|block| message_block(block, &mut budget))
        .collect();
    if result.content.len() > MAX_BLOCKS {
        blocks.push(MessageBlock::Other {
            label: format!(
                "cut: {} more content items are not loaded into the window (at most {MAX_BLOCKS} are)",
                result.content.len() - MAX_BLOCKS
            ),
            json: String::new(),
        });
    }
    let (structured, structured_truncated) = match &result.structured_content {
        Some(structured) => {
            let json = serde_json::to_string_pretty(structured).unwrap_or_default();
            let (shown, cut) = budget.take_text(&json);
            (Some(shown), cut)
        }
        None => (None, false),
    };
    ToolResultView {
        is_error: result.is_error,
        blocks,
        structured,
        structured_truncated,
        view: None,
    }
}

#[cfg(test)]
mod tests;
