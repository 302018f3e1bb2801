//! How much of the model's window a conversation takes, and what is done near its end. The estimate is a rough
//! count (about four characters a token, plus a little per message) since each model has its own tokenizer; the
//! provider's own count replaces it once a reply says how many input tokens the request took.
//!
//! Near the window, the results of earlier tool calls are shortened first (their images left out, their beginning
//! kept, and the model told how much was left out): the current turn's results are kept whole. What still does not
//! fit is not dropped: the user is offered to carry the conversation into a new one with a summary. However much
//! room there is, one request carries at most `MAX_REQUEST_IMAGES` images, the newest.

use serde::Serialize;

use crate::model::{ModelImage, TurnMessage};

/// Characters a token stands for, roughly, in English text and JSON.
const CHARS_PER_TOKEN: usize = 4;
/// What each message costs besides its text (role, separators).
const TOKENS_PER_MESSAGE: u64 = 4;
/// Shortening starts when the conversation would fill this share of the window (the rest is for the reply).
const FILL_PERCENT: u64 = 80;
/// What is kept of a shortened tool result.
const KEPT_CHARS: usize = 500;
/// What an image is counted as: about what the providers charge for a picture of a million pixels.
const IMAGE_TOKENS: u64 = 1_600;
/// The most images one request carries (the providers refuse requests with too many).
pub const MAX_REQUEST_IMAGES: usize = 20;

/// The conversation's size against the model's window, as the front ends show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ContextEstimate {
    #[ts(type = "number")]
    pub tokens: u64,
    #[ts(type = "number")]
    pub window: u64,
    /// The conversation fills the share of the window meant for it even with earlier tool results shortened: the
    /// front ends offer to carry it into a new conversation with a summary.
    pub full: bool,
}

impl ContextEstimate {
    /// An empty conversation's estimate.
    pub fn empty(window: u64) -> ContextEstimate {
        ContextEstimate {
            tokens: 0,
            window,
            full: false,
        }
    }

    /// The provider's own count of a request in place of the estimate.
    pub fn counted(self, tokens: u64) -> ContextEstimate {
        ContextEstimate {
            tokens,
            window: self.window,
            full: self.full || tokens > self.window * FILL_PERCENT / 100,
        }
    }
}

/// The estimated tokens of `messages`, with `fixed` characters sent besides them (the system prompt, the tools).
pub fn estimate(fixed: usize, messages: &[TurnMessage]) -> u64 {
    let chars: usize = fixed
        + messages
            .iter()
            .map(|m| match m {
                TurnMessage::User(text) => text.len(),
                TurnMessage::Assistant { text, tool_calls } => {
                    text.len()
                        + tool_calls
                            .iter()
                            .map(|c| c.name.len() + c.arguments.len())
                            .sum::<usize>()
                }
                TurnMessage::ToolResult { content, .. } => content.len(),
            })
            .sum::<usize>();
    let images: usize = messages.iter().map(|m| images_of(m).len()).sum();
    (chars / CHARS_PER_TOKEN) as u64
        + TOKENS_PER_MESSAGE * (messages.len() as u64 + 1)
        + IMAGE_TOKENS * images as u64
}

/// What fitting the window did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fitted {
    pub estimate: ContextEstimate,
    /// Earlier tool results were shortened.
    pub shortened: usize,
    /// Even so, the conversation fills the window.
    pub overfull: bool,
}

/// Shortens the results of earlier tool calls, oldest first, until the conversation fits within the fill share of
/// `window`. The results after the last user message (the turn in progress) are kept whole.
pub fn fit(fixed: usize, messages: &mut [TurnMessage], window: u64) -> Fitted {
    let limit = window * FILL_PERCENT / 100;
    let mut shortened = 0;
    // The oldest images beyond what one request carries are left out, whatever the room.
    let mut kept_images = 0;
    for message in messages.iter_mut().rev() {
        if let TurnMessage::ToolResult {
            content, images, ..
        } = message
        {
            if kept_images + images.len() > MAX_REQUEST_IMAGES {
                images.truncate(MAX_REQUEST_IMAGES - kept_images);
                content.push_str(&format!(
                    "\n[images of this result were left out by Wharf: one request carries at most \
                     {MAX_REQUEST_IMAGES}]"
                ));
            }
            kept_images += images.len();
        }
    }
    let mut tokens = estimate(fixed, messages);
    let turn_start = messages
        .iter()
        .rposition(|m| matches!(m, TurnMessage::User(_)))
        .unwrap_or(0);
    for message in messages[..turn_start].iter_mut() {
        if tokens <= limit {
            break;
        }
        if let TurnMessage::ToolResult {
            content, images, ..
        } = message
        {
            let mut changed = false;
            if !images.is_empty() {
                tokens = tokens.saturating_sub(IMAGE_TOKENS * images.len() as u64);
                images.clear();
                content.push_str(IMAGES_LEFT_OUT);
                changed = true;
            }
            if tokens > limit && content.len() > KEPT_CHARS * 2 {
                let before = content.len();
                let cut = floor_char_boundary(content, KEPT_CHARS);
                let left_out = before - cut;
                *content = format!(
                    "{}\n[shortened by Wharf to fit the model's window: {left_out} more characters left out]",
                    &content[..cut]
                );
                tokens = tokens.saturating_sub(((before - content.len()) / CHARS_PER_TOKEN) as u64);
                changed = true;
            }
            shortened += usize::from(changed);
        }
    }
    Fitted {
        estimate: ContextEstimate {
            tokens,
            window,
            full: tokens > limit,
        },
        shortened,
        overfull: tokens > limit,
    }
}

/// Said in a result whose images a request leaves out.
const IMAGES_LEFT_OUT: &str = "\n[its images were left out by Wharf to fit the model's window]";

fn images_of(message: &TurnMessage) -> &[ModelImage] {
    match message {
        TurnMessage::ToolResult { images, .. } => images,
        _ => &[],
    }
}

fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut i = at.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(id: &str, content: String) -> TurnMessage {
        with_images(id, content, 0)
    }

    fn with_images(id: &str, content: String, images: usize) -> TurnMessage {
        let image = ModelImage {
            mime_type: "image/png".into(),
            data: "iVBORw0KGgo=".into(),
        };
        TurnMessage::ToolResult {
            call_id: id.into(),
            content,
            is_error: false,
            images: vec![image; images],
        }
    }

    fn image_counts(messages: &[TurnMessage]) -> Vec<usize> {
        messages.iter().map(|m| images_of(m).len()).collect()
    }

    #[test]
    fn images_count_in_the_estimate_and_earlier_ones_go_first_near_the_window() {
        let mut messages = vec![
            TurnMessage::User("look".into()),
            with_images("a", "a picture".into(), 3),
            TurnMessage::User("and now".into()),
            with_images("b", "another".into(), 2),
        ];
        let before = estimate(0, &messages);
        assert!(before >= 5 * IMAGE_TOKENS, "{before}");
        // Room for the current turn's two images, not for all five.
        let fitted = fit(0, &mut messages, 5_000);
        assert_eq!(image_counts(&messages), [0, 0, 0, 2]);
        assert_eq!(fitted.shortened, 1);
        assert!(!fitted.overfull, "{fitted:?}");
        let TurnMessage::ToolResult { content, .. } = &messages[1] else {
            panic!()
        };
        assert!(content.starts_with("a picture"), "{content}");
        assert!(content.contains("images were left out"), "{content}");
        // With room for all, all stay.
        let mut roomy = vec![
            TurnMessage::User("look".into()),
            with_images("a", "a picture".into(), 3),
        ];
        fit(0, &mut roomy, 100_000);
        assert_eq!(image_counts(&roomy), [0, 3]);
    }

    #[test]
    fn a_request_carries_at_most_the_newest_twenty_images_however_large_the_window() {
        let mut messages = vec![TurnMessage::User("many".into())];
        messages.extend((0..8).map(|i| with_images(&format!("c{i}"), "shot".into(), 4)));
        fit(0, &mut messages, 10_000_000);
        assert_eq!(image_counts(&messages), [0, 0, 0, 0, 4, 4, 4, 4, 4]);
        let TurnMessage::ToolResult { content, .. } = &messages[3] else {
            panic!()
        };
        assert!(content.contains("at most 20"), "{content}");
        let TurnMessage::ToolResult { content, .. } = &messages[8] else {
            panic!()
        };
        assert_eq!(content, "shot");
    }

    #[test]
    fn old_results_are_shortened_first_and_the_current_turn_kept_whole() {
        let big = "é".repeat(20_000); // 40,000 bytes
        let mut messages = vec![
            TurnMessage::User("read the files".into()),
            result("a", big.clone()),
            result("b", big.clone()),
            TurnMessage::User("and this one".into()),
            result("c", big.clone()),
        ];
        let before = estimate(0, &messages);
        assert!(before > 30_000, "{before}");
        let fitted = fit(0, &mut messages, 20_000);
        assert_eq!(fitted.shortened, 2);
        assert!(!fitted.overfull, "{fitted:?}");
        assert!(fitted.estimate.tokens < 16_000, "{fitted:?}");
        let TurnMessage::ToolResult { content, .. } = &messages[1] else {
            panic!()
        };
        assert!(content.contains("shortened by Wharf"), "{content}");
        assert!(content.contains("39500 more characters"), "{content}");
        let TurnMessage::ToolResult { content, .. } = &messages[4] else {
            panic!()
        };
        assert_eq!(content, &big, "the turn in progress is whole");
    }

    #[test]
    fn what_cannot_be_shortened_is_said_overfull_and_nothing_is_dropped() {
        let mut messages = vec![TurnMessage::User("x".repeat(100_000))];
        let fitted = fit(0, &mut messages, 10_000);
        assert!(fitted.overfull && fitted.estimate.full);
        // The provider's count decides as well: over the fill share is full, and full stays full.
        let empty = ContextEstimate::empty(10_000);
        assert!(!empty.counted(8_000).full && empty.counted(8_001).full);
        assert!(fitted.estimate.counted(10).full);
        assert_eq!(messages.len(), 1);
        // A conversation well within the window is left as it is.
        let mut small = vec![
            TurnMessage::User("hi".into()),
            result("a", "y".repeat(5000)),
        ];
        let kept = small.clone();
        let fitted = fit(0, &mut small, 32_768);
        assert_eq!((fitted.shortened, fitted.overfull), (0, false));
        assert_eq!(small, kept);
    }
}
