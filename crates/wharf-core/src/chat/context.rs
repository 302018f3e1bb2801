//! How much of the model's window a conversation takes, and what is done near its end. The estimate is a rough
//! count (about four characters a token, plus a little per message) since each model has its own tokenizer; the
//! provider's own count replaces it once a reply says how many input tokens the request took.
//!
//! Near the window, the results of earlier tool calls are shortened first (their beginning kept, and the model told
//! how much was left out): the newest step's results are kept whole. What still does not fit is not dropped: the
//! user is told to start a new conversation or ask for a summary.

use serde::Serialize;

use super::request::TurnMessage;

/// Characters a token stands for, roughly, in English text and JSON.
const CHARS_PER_TOKEN: usize = 4;
/// What each message costs besides its text (role, separators).
const TOKENS_PER_MESSAGE: u64 = 4;
/// Shortening starts when the conversation would fill this share of the window (the rest is for the reply).
const FILL_PERCENT: u64 = 80;
/// What is kept of a shortened tool result.
const KEPT_CHARS: usize = 500;

/// The conversation's size against the model's window, as the front ends show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ContextEstimate {
    #[ts(type = "number")]
    pub tokens: u64,
    #[ts(type = "number")]
    pub window: u64,
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
    (chars / CHARS_PER_TOKEN) as u64 + TOKENS_PER_MESSAGE * (messages.len() as u64 + 1)
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
    let mut tokens = estimate(fixed, messages);
    let mut shortened = 0;
    let turn_start = messages
        .iter()
        .rposition(|m| matches!(m, TurnMessage::User(_)))
        .unwrap_or(0);
    for message in messages[..turn_start].iter_mut() {
        if tokens <= limit {
            break;
        }
        if let TurnMessage::ToolResult { content, .. } = message {
            if content.len() > KEPT_CHARS * 2 {
                let before = content.len();
                let cut = floor_char_boundary(content, KEPT_CHARS);
                let left_out = before - cut;
                *content = format!(
                    "{}\n[shortened by Wharf to fit the model's window: {left_out} more characters left out]",
                    &content[..cut]
                );
                tokens = tokens.saturating_sub(((before - content.len()) / CHARS_PER_TOKEN) as u64);
                shortened += 1;
            }
        }
    }
    Fitted {
        estimate: ContextEstimate { tokens, window },
        shortened,
        overfull: tokens > limit,
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
        TurnMessage::ToolResult {
            call_id: id.into(),
            content,
            is_error: false,
        }
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
        assert!(fitted.overfull);
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
