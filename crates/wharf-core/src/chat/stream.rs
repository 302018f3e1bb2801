//! A model's streamed reply, read event by event into what the conversation shows as it comes (text, a tool call
//! starting) and, at the end, the whole reply: its text, its tool calls with their arguments as written, why it
//! stopped, and the tokens used. Both wire formats: OpenAI-compatible Chat Completions chunks (OpenAI, Ollama,
//! LM Studio, llama.cpp, vLLM) and Anthropic Messages events. Each event is one SSE `data:` payload, already split
//! from the byte stream.
//!
//! The model is untrusted input like a server: a reply is bounded (its text, the number of tool calls, each call's
//! arguments), and what breaks a bound or the format ends the reply with an error instead of growing memory or
//! guessing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

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
pub struct ReplyReader {
    text: String,
    /// By the index the stream gives each call (OpenAI's `index`, Anthropic's content block index).
    calls: BTreeMap<usize, ToolCall>,
    stop: Option<StopReason>,
    usage: Usage,
    /// OpenAI's `[DONE]` or Anthropic's `message_stop` was read.
    done: bool,
}

impl ReplyReader {
    pub fn new() -> ReplyReader {
        ReplyReader::default()
    }

    /// Reads one OpenAI-compatible chunk (a `data:` payload; `[DONE]` ends the stream).
    pub fn openai(&mut self, data: &str) -> Result<Vec<Delta>, StreamError> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(Vec::new());
        }
        let chunk: Value = parse(data)?;
        if let Some(error) = chunk.get("error") {
            return Err(StreamError::Provider(error_text(error)));
        }
        if let Some(usage) = chunk.get("usage").filter(|u| !u.is_null()) {
            self.usage.input_tokens =
                count(usage, "prompt_tokens").unwrap_or(self.usage.input_tokens);
            self.usage.output_tokens =
                count(usage, "completion_tokens").unwrap_or(self.usage.output_tokens);
        }
        let mut deltas = Vec::new();
        // One choice is asked for; a provider that sends others has them ignored, not merged into the first.
        let Some(choice) = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|choices| {
                choices
                    .iter()
                    .find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
            })
        else {
            return Ok(deltas);
        };
        let delta = choice.get("delta").unwrap_or(&Value::Null);
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            self.push_text(text, &mut deltas)?;
        }
        for call in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let index = call
                .get("index")
                .and_then(Value::as_u64)
                .ok_or_else(|| StreamError::Malformed("a tool call without an index".into()))?
                as usize;
            let function = call.get("function").unwrap_or(&Value::Null);
            self.tool_call(
                index,
                call.get("id").and_then(Value::as_str),
                function.get("name").and_then(Value::as_str),
                &mut deltas,
            )?;
            if let Some(fragment) = function.get("arguments").and_then(Value::as_str) {
                self.push_arguments(index, fragment)?;
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.stop = Some(match reason {
                "stop" => StopReason::EndTurn,
                "tool_calls" | "function_call" => StopReason::ToolUse,
                "length" => StopReason::MaxTokens,
                _ => StopReason::Other,
            });
        }
        Ok(deltas)
    }

    /// Reads one Anthropic Messages event (its `data:` payload, whose `type` names the event).
    pub fn anthropic(&mut self, data: &str) -> Result<Vec<Delta>, StreamError> {
        let event: Value = parse(data)?;
        let mut deltas = Vec::new();
        let index = || {
            event
                .get("index")
                .and_then(Value::as_u64)
                .map(|i| i as usize)
                .ok_or_else(|| StreamError::Malformed("a content block without an index".into()))
        };
        match event.get("type").and_then(Value::as_str) {
            Some("message_start") => {
                let usage = event.pointer("/message/usage").unwrap_or(&Value::Null);
                self.usage.input_tokens = count(usage, "input_tokens").unwrap_or(0);
                self.usage.output_tokens = count(usage, "output_tokens").unwrap_or(0);
            }
            Some("content_block_start") => {
                let block = event.get("content_block").unwrap_or(&Value::Null);
                match block.get("type").and_then(Value::as_str) {
                    Some("tool_use") => self.tool_call(
                        index()?,
                        block.get("id").and_then(Value::as_str),
                        block.get("name").and_then(Value::as_str),
                        &mut deltas,
                    )?,
                    Some("text") => {
                        if let Some(text) = block.get("text").and_then(Value::as_str) {
                            self.push_text(text, &mut deltas)?;
                        }
                    }
                    // Thinking and other blocks are not part of the answer.
                    _ => {}
                }
            }
            Some("content_block_delta") => {
                let delta = event.get("delta").unwrap_or(&Value::Null);
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => {
                        let text = delta.get("text").and_then(Value::as_str).unwrap_or("");
                        self.push_text(text, &mut deltas)?;
                    }
                    Some("input_json_delta") => {
                        let index = index()?;
                        if !self.calls.contains_key(&index) {
                            return Err(StreamError::Malformed(format!(
                                "arguments for content block {index}, which is no tool call"
                            )));
                        }
                        let fragment = delta
                            .get("partial_json")
                            .and_then(Value::as_str)
                            .unwrap_or("");
                        self.push_arguments(index, fragment)?;
                    }
                    _ => {}
                }
            }
            Some("message_delta") => {
                if let Some(reason) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop = Some(match reason {
                        "end_turn" | "stop_sequence" => StopReason::EndTurn,
                        "tool_use" => StopReason::ToolUse,
                        "max_tokens" => StopReason::MaxTokens,
                        _ => StopReason::Other,
                    });
                }
                if let Some(output) = event.get("usage").and_then(|u| count(u, "output_tokens")) {
                    self.usage.output_tokens = output;
                }
            }
            Some("message_stop") => self.done = true,
            Some("error") => {
                return Err(StreamError::Provider(error_text(
                    event.get("error").unwrap_or(&Value::Null),
                )))
            }
            // `ping`, `content_block_stop` and events added later carry nothing the reply needs.
            _ => {}
        }
        Ok(deltas)
    }

    /// How much of the reply has been read: it grows with every piece of text, tool call, argument and ending,
    /// and with nothing else, so that a stream sending empty chunks is seen to add nothing.
    pub fn progress(&self) -> usize {
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
    pub fn finish(self) -> Result<Reply, StreamError> {
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

    fn push_text(&mut self, text: &str, deltas: &mut Vec<Delta>) -> Result<(), StreamError> {
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
    fn tool_call(
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

    fn push_arguments(&mut self, index: usize, fragment: &str) -> Result<(), StreamError> {
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

fn parse(data: &str) -> Result<Value, StreamError> {
    serde_json::from_str(data)
        .map_err(|e| StreamError::Malformed(format!("an event is not JSON ({e})")))
}

fn count(usage: &Value, key: &str) -> Option<u64> {
    usage.get(key).and_then(Value::as_u64)
}

/// A provider's error object as one line, bounded far above what is shown: it is cut to its shown length only
/// after the key and other secrets are masked (where the provider's error is handed on), so that a key quoted
/// across the cut is never half kept.
fn error_text(error: &Value) -> String {
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map_or_else(|| error.to_string(), str::to_string);
    crate::display_text::one_line(&message, 16 * 1024)
}

#[cfg(test)]
mod tests;
