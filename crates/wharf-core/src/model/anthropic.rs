//! The Anthropic Messages API (`POST {baseUrl}/v1/messages`, or `{baseUrl}/messages` when the base URL already ends
//! in `/v1`, as gateways and proxies are often written). A conversation written as a request body, the streamed
//! events read into the reply, the model list (`GET .../v1/models`); a sampling request's mapping is
//! `completion.rs`'s.

pub(super) mod completion;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{json, Value};

use super::http::{Endpoint, Http};
use super::reply::{count, error_text, parse, stream_events, ReplyReader, StreamError};
use super::{
    ChatRequest, Completion, Delta, Model, ProviderConfig, ProviderError, Reply, ReplyLimits,
    SampledMessage, StopReason, TurnMessage,
};

/// The API version whose request and answer shapes this file maps.
const API_VERSION: &str = "2023-06-01";

/// A model behind the Anthropic Messages API.
pub(super) struct Anthropic(Endpoint);

impl Anthropic {
    pub(super) fn new(config: ProviderConfig, key: Option<&str>) -> Anthropic {
        Anthropic(Endpoint::new(config, key))
    }
}

#[async_trait::async_trait]
impl Model for Anthropic {
    async fn stream(
        &self,
        request: &ChatRequest<'_>,
        limits: ReplyLimits,
        on_delta: &mut (dyn FnMut(Delta) + Send),
    ) -> Result<Reply, ProviderError> {
        let http = self.0.http(limits.idle)?;
        let mut body = chat_body(request);
        if let Some(obj) = body.as_object_mut() {
            obj.insert("stream".into(), true.into());
        }
        let url = endpoint(http.base_url);
        stream_events(
            &http,
            &url,
            headers(&http)?,
            &body,
            limits,
            read_event,
            on_delta,
        )
        .await
    }

    async fn complete(&self, request: &Completion<'_>) -> Result<SampledMessage, ProviderError> {
        let http = self.0.http(request.timeout)?;
        completion::complete(&http, headers(&http)?, request).await
    }

    async fn list_models(
        &self,
        timeout: std::time::Duration,
    ) -> Result<Vec<String>, ProviderError> {
        let http = self.0.http(timeout)?;
        let url = endpoint(http.base_url).replace("/messages", "/models");
        super::listed_models(&http, &url, headers(&http)?).await
    }
}

/// The API version every request names, and the key as Anthropic's own header.
fn headers(http: &Http<'_>) -> Result<HeaderMap, ProviderError> {
    let mut headers = HeaderMap::new();
    headers.insert(
        HeaderName::from_static("anthropic-version"),
        HeaderValue::from_static(API_VERSION),
    );
    if let Some(key) = http.key_header("")? {
        headers.insert(HeaderName::from_static("x-api-key"), key);
    }
    Ok(headers)
}

pub(super) fn endpoint(base_url: &str) -> String {
    let base = base_url.trim_end_matches('/');
    if base.ends_with("/v1") {
        format!("{base}/messages")
    } else {
        format!("{base}/v1/messages")
    }
}

/// The Messages body. Anthropic takes the system prompt apart, wants user and assistant turns to alternate, and
/// takes tool results as blocks of a user turn: consecutive results (of parallel calls) share one turn.
pub(super) fn chat_body(request: &ChatRequest<'_>) -> Value {
    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut push = |role: &'static str, block: Value| match turns.last_mut() {
        Some((last, blocks)) if *last == role => blocks.push(block),
        _ => turns.push((role, vec![block])),
    };
    for message in request.messages {
        match message {
            TurnMessage::User(text) => push("user", json!({"type": "text", "text": text})),
            TurnMessage::Assistant { text, tool_calls } => {
                if !text.is_empty() {
                    push("assistant", json!({"type": "text", "text": text}));
                }
                for call in tool_calls {
                    // `input` must be an object; arguments the model botched were answered with an error result.
                    let input = match serde_json::from_str::<Value>(&call.arguments) {
                        Ok(Value::Object(map)) => Value::Object(map),
                        _ => json!({}),
                    };
                    push(
                        "assistant",
                        json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input}),
                    );
                }
            }
            TurnMessage::ToolResult {
                call_id,
                content,
                is_error,
                images,
            } => {
                let content = if images.is_empty() {
                    Value::String(content.clone())
                } else {
                    let mut blocks = vec![json!({"type": "text", "text": content})];
                    blocks.extend(images.iter().map(|image| {
                        json!({"type": "image", "source": {
                            "type": "base64", "media_type": image.mime_type, "data": image.data}})
                    }));
                    Value::Array(blocks)
                };
                let mut block =
                    json!({"type": "tool_result", "tool_use_id": call_id, "content": content});
                if *is_error {
                    block["is_error"] = true.into();
                }
                push("user", block);
            }
        }
    }
    let messages: Vec<Value> = turns
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    let mut body = json!({
        "model": request.model,
        "max_tokens": request.max_tokens,
        "messages": messages,
    });
    if let Some(system) = request.system {
        body["system"] = system.into();
    }
    let tools: Vec<Value> = request
        .tools
        .iter()
        .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
        .collect();
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
    }
    body
}

/// Reads one Anthropic Messages event (its `data:` payload, whose `type` names the event).
pub(super) fn read_event(reader: &mut ReplyReader, data: &str) -> Result<Vec<Delta>, StreamError> {
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
            reader.usage.input_tokens = count(usage, "input_tokens").unwrap_or(0);
            reader.usage.output_tokens = count(usage, "output_tokens").unwrap_or(0);
        }
        Some("content_block_start") => {
            let block = event.get("content_block").unwrap_or(&Value::Null);
            match block.get("type").and_then(Value::as_str) {
                Some("tool_use") => reader.tool_call(
                    index()?,
                    block.get("id").and_then(Value::as_str),
                    block.get("name").and_then(Value::as_str),
                    &mut deltas,
                )?,
                Some("text") => {
                    if let Some(text) = block.get("text").and_then(Value::as_str) {
                        reader.push_text(text, &mut deltas)?;
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
                    reader.push_text(text, &mut deltas)?;
                }
                Some("input_json_delta") => {
                    let index = index()?;
                    if !reader.has_call(index) {
                        return Err(StreamError::Malformed(format!(
                            "arguments for content block {index}, which is no tool call"
                        )));
                    }
                    let fragment = delta
                        .get("partial_json")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    reader.push_arguments(index, fragment)?;
                }
                _ => {}
            }
        }
        Some("message_delta") => {
            if let Some(reason) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                reader.stop = Some(match reason {
                    "end_turn" | "stop_sequence" => StopReason::EndTurn,
                    "tool_use" => StopReason::ToolUse,
                    "max_tokens" => StopReason::MaxTokens,
                    _ => StopReason::Other,
                });
            }
            if let Some(output) = event.get("usage").and_then(|u| count(u, "output_tokens")) {
                reader.usage.output_tokens = output;
            }
        }
        Some("message_stop") => reader.done = true,
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
