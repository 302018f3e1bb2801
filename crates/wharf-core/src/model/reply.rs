//! A model's streamed reply, read event by event into what the conversation shows as it comes (text, a tool call
//! starting) and, at the end, the whole reply: its text, its tool calls with their arguments as written, why it
//! stopped, and the tokens used. Each provider's file reads its own wire format's events (each one SSE `data:`
//! payload, already split from the byte stream) into the [`ReplyReader`] here, which holds the bounds.
//!
//! The model is untrusted input like a server: a reply is bounded (its text, the number of tool calls, each call's
//! arguments), and what breaks a bound or the format ends the reply with an error instead of growing memory or
//! guessing.

use std::collections::BTreeMap;

use reqwest::header::HeaderMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::http::Http;
use super::{ProviderError, ReplyLimits};

/// The most text one reply may stream.
pub const MAX_TEXT_BYTES: usize = 4 * 1024 * 1024;
/// The most tool calls one reply may make. More is refused whole: running the first ones of a flood would be
/// running calls the user cannot review as a whole.
pub const MAX_TOOL_CALLS: usize = 64;
/// The most of a provider's call id that is kept: it is only for reference.
const MAX_MODEL_ID_CHARS: usize = 200;
/// The most bytes of arguments one tool call may stream.
pub const MAX_ARGUMENT_BYTES: usize = 1024 * 1024;

/// Why a reply ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum StopReason {
    /// The model finished its answer.
    EndTurn,
    /// The model asks for its tool calls to run.
    ToolUse,
    /// The token limit cut the reply.
    MaxTokens,
    /// The provider filtered the reply, or gave a reason this version does not know.
    Other,
}

/// What to show as the reply streams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delta {
    Text(String),
    /// A tool call began: its name is known, its arguments follow.
    ToolCall {
        index: usize,
        name: String,
    },
}

/// One tool call as the model wrote it. The arguments are the model's text, checked only when the call is made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export, rename = "ModelToolCall")]
pub struct ToolCall {
    /// The call's id in its conversation. As read from the stream it is the provider's (or one made from the
    /// call's place in the reply); a turn gives each call an id of Wharf's own before anything else sees it, since
    /// providers reuse ids across replies, repeat them within one, or send none.
    pub id: String,
    /// The id the provider gave the call, kept for reference only: nothing is matched by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model_id: Option<String>,
    pub name: String,
    pub arguments: String,
}

/// Tokens, as the provider counted them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Usage {
    // JSON numbers reach the window as numbers, not as bigints.
    #[ts(type = "number")]
    pub input_tokens: u64,
    #[ts(type = "number")]
    pub output_tokens: u64,
}

/// The whole reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    pub stop: StopReason,
    pub usage: Usage,
}

/// Why a streamed reply could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// The provider reported an error inside the stream.
    #[error("the provider stopped with an error: {0}")]
    Provider(String),
    #[error("the model's reply is not in the expected shape: {0}")]
    Malformed(String),
    #[error("the model's reply {0}")]
    TooLarge(String),
    /// The stream ended before the reply said it was complete.
    #[error("the model's reply ended before it was complete")]
    Cut,
}

/// The reply being read, in either wire format.
#[derive(Debug, Default)]
pub(super) struct ReplyReader {
    text: String,
    /// By the index the stream gives each call (OpenAI's `index`, Anthropic's content block index).
    calls: BTreeMap<usize, ToolCall>,
    pub(super) stop: Option<StopReason>,
    pub(super) usage: Usage,
    /// The stream said the reply is complete (OpenAI's `[DONE]`, Anthropic's `message_stop`).
    pub(super) done: bool,
}

/// Reads one event of a provider's stream into the reply, and says what it added.
pub(super) type ReadEvent = fn(&mut ReplyReader, &str) -> Result<Vec<Delta>, StreamError>;

impl ReplyReader {
    /// How much of the reply has been read: it grows with every piece of text, tool call, argument and ending,
    /// and with nothing else, so that a stream sending empty chunks is seen to add nothing.
    fn progress(&self) -> usize {
        self.text.len()
            + self.calls.len()
            + self
                .calls
                .values()
                .map(|c| c.arguments.len())
                .sum::<usize>()
            + usize::from(self.stop.is_some())
            + usize::from(self.done)
    }

    /// The reply, once the stream has ended. A stream that ended before saying it was complete is an error: a
    /// half-written tool call must never be made.
    pub(super) fn finish(self) -> Result<Reply, StreamError> {
        if !self.done {
            return Err(StreamError::Cut);
        }
        let tool_calls: Vec<ToolCall> = self.calls.into_values().collect();
        let stop = match self.stop {
            Some(stop) => stop,
            None if !tool_calls.is_empty() => StopReason::ToolUse,
            None => StopReason::EndTurn,
        };
        Ok(Reply {
            text: self.text,
            tool_calls,
            stop,
            usage: self.usage,
        })
    }

    pub(super) fn push_text(
        &mut self,
        text: &str,
        deltas: &mut Vec<Delta>,
    ) -> Result<(), StreamError> {
        if text.is_empty() {
            return Ok(());
        }
        if self.text.len() + text.len() > MAX_TEXT_BYTES {
            return Err(StreamError::TooLarge(format!(
                "is longer than {} MB of text",
                MAX_TEXT_BYTES / (1024 * 1024)
            )));
        }
        self.text.push_str(text);
        deltas.push(Delta::Text(text.to_string()));
        Ok(())
    }

    /// A call's first fragment names it; later fragments of the same index only add arguments.
    pub(super) fn tool_call(
        &mut self,
        index: usize,
        id: Option<&str>,
        name: Option<&str>,
        deltas: &mut Vec<Delta>,
    ) -> Result<(), StreamError> {
        if self.calls.contains_key(&index) {
            return Ok(());
        }
        if self.calls.len() == MAX_TOOL_CALLS {
            return Err(StreamError::TooLarge(format!(
                "asks for more than {MAX_TOOL_CALLS} tool calls at once"
            )));
        }
        let name = name
            .filter(|n| !n.is_empty())
            .ok_or_else(|| StreamError::Malformed(format!("tool call {index} has no name")))?;
        let model_id = id
            .filter(|id| !id.is_empty())
            .map(|id| crate::display_text::one_line(id, MAX_MODEL_ID_CHARS));
        self.calls.insert(
            index,
            ToolCall {
                id: format!("call_{index}"),
                model_id,
                name: name.to_string(),
                arguments: String::new(),
            },
        );
        deltas.push(Delta::ToolCall {
            index,
            name: name.to_string(),
        });
        Ok(())
    }

    /// Whether a call was begun at `index`.
    pub(super) fn has_call(&self, index: usize) -> bool {
        self.calls.contains_key(&index)
    }

    pub(super) fn push_arguments(
        &mut self,
        index: usize,
        fragment: &str,
    ) -> Result<(), StreamError> {
        let call = self.calls.get_mut(&index).ok_or_else(|| {
            StreamError::Malformed(format!("arguments for tool call {index} before its name"))
        })?;
        if call.arguments.len() + fragment.len() > MAX_ARGUMENT_BYTES {
            return Err(StreamError::TooLarge(format!(
                "gives tool call {} more than {} KB of arguments",
                call.name,
                MAX_ARGUMENT_BYTES / 1024
            )));
        }
        call.arguments.push_str(fragment);
        Ok(())
    }
}

pub(super) fn parse(data: &str) -> Result<Value, StreamError> {
    serde_json::from_str(data)
        .map_err(|e| StreamError::Malformed(format!("an event is not JSON ({e})")))
}

pub(super) fn count(usage: &Value, key: &str) -> Option<u64> {
    usage.get(key).and_then(Value::as_u64)
}

/// A provider's error object as one line, bounded far above what is shown: it is cut to its shown length only
/// after the key and other secrets are masked (where the provider's error is handed on), so that a key quoted
/// across the cut is never half kept.
pub(super) fn error_text(error: &Value) -> String {
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map_or_else(|| error.to_string(), str::to_string);
    crate::display_text::one_line(&message, 16 * 1024)
}

/// POSTs `body` (a request that asks for a stream) and reads each event of the answer with `read`, handing each
/// delta to `on_delta` as it comes, within `limits`; the whole reply once the stream says it is complete. The
/// exchange's idle timeout is `limits.idle` (see [`Http::post_events`]).
pub(super) async fn stream_events(
    http: &Http<'_>,
    url: &str,
    headers: HeaderMap,
    body: &Value,
    limits: ReplyLimits,
    read: ReadEvent,
    on_delta: &mut (dyn FnMut(Delta) + Send),
) -> Result<Reply, ProviderError> {
    let mut reader = ReplyReader::default();
    http.post_events(url, headers, body, limits.whole, |data| {
        let before = reader.progress();
        let deltas = read(&mut reader, data).map_err(|e| ProviderError::Stream(e.to_string()))?;
        deltas.into_iter().for_each(&mut *on_delta);
        Ok(reader.progress() != before)
    })
    .await
    .map_err(|e| match e {
        ProviderError::Stream(m) => ProviderError::Stream(http.scrub_cut(&m)),
        other => other,
    })?;
    reader
        .finish()
        .map_err(|e| ProviderError::Stream(e.to_string()))
}

#[cfg(test)]
mod tests;
