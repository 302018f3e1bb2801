//! OpenAI-compatible Chat Completions (`POST {baseUrl}/chat/completions`): OpenAI, Ollama, LM Studio, vLLM,
//! llama.cpp's server and the bundled demo model. A conversation written as a request body, the streamed chunks
//! read into the reply, the model list (`GET {baseUrl}/models`); a sampling request's mapping is `completion.rs`'s.

pub(super) mod completion;

use reqwest::header::{HeaderMap, AUTHORIZATION};
use serde_json::{json, Map, Value};

use super::http::{Endpoint, Http};
use super::reply::{count, error_text, parse, stream_events, ReplyReader, StreamError};
use super::{
    ChatRequest, Completion, Delta, Model, ProviderConfig, ProviderError, Reply, ReplyLimits,
    SampledMessage, StopReason, TurnMessage,
};

/// A model behind an OpenAI-compatible endpoint.
pub(super) struct OpenAi(Endpoint);

impl OpenAi {
    pub(super) fn new(config: ProviderConfig, key: Option<&str>) -> OpenAi {
        OpenAi(Endpoint::new(config, key))
    }
}

#[async_trait::async_trait]
impl Model for OpenAi {
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
            // The usage comes in a last chunk only when asked for.
            obj.insert("stream_options".into(), json!({"include_usage": true}));
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
        let url = format!("{}/models", http.base_url.trim_end_matches('/'));
        super::listed_models(&http, &url, headers(&http)?).await
    }
}

/// The key as OpenAI's bearer token.
fn headers(http: &Http<'_>) -> Result<HeaderMap, ProviderError> {
    let mut headers = HeaderMap::new();
    if let Some(auth) = http.key_header("Bearer ")? {
        headers.insert(AUTHORIZATION, auth);
    }
    Ok(headers)
}

pub(super) fn endpoint(base_url: &str) -> String {
    format!("{}/chat/completions", base_url.trim_end_matches('/'))
}

/// The Chat Completions body of a conversation.
pub(super) fn chat_body(request: &ChatRequest<'_>) -> Value {
    let mut out: Vec<Value> = Vec::new();
    if let Some(system) = request.system {
        out.push(json!({"role": "system", "content": system}));
    }
    // Tool messages take text only, and must follow their call's message together: the images of a run of results
    // go in one user message after it.
    let mut images: Vec<Value> = Vec::new();
    for message in request.messages {
        if !matches!(message, TurnMessage::ToolResult { .. }) {
            flush_images(&mut out, &mut images);
        }
        out.push(match message {
            TurnMessage::User(text) => json!({"role": "user", "content": text}),
            TurnMessage::Assistant { text, tool_calls } => {
                let mut m = Map::new();
                m.insert("role".into(), "assistant".into());
                m.insert(
                    "content".into(),
                    if text.is_empty() {
                        Value::Null
                    } else {
                        text.as_str().into()
                    },
                );
                if !tool_calls.is_empty() {
                    let calls: Vec<Value> = tool_calls
                        .iter()
                        .map(|c| {
                            json!({"id": c.id, "type": "function",
                                   "function": {"name": c.name, "arguments": c.arguments}})
                        })
                        .collect();
                    m.insert("tool_calls".into(), Value::Array(calls));
                }
                Value::Object(m)
            }
            TurnMessage::ToolResult {
                call_id,
                content,
                images: given,
                ..
            } => {
                if !given.is_empty() {
                    images.push(json!({"type": "text", "text": format!("The images of tool call {call_id}:")}));
                    images.extend(given.iter().map(|image| {
                        json!({"type": "image_url", "image_url": {"url": image.data_url()}})
                    }));
                }
                json!({"role": "tool", "tool_call_id": call_id, "content": content})
            }
        });
    }
    flush_images(&mut out, &mut images);
    let mut body = json!({
        "model": request.model,
        "messages": out,
        "max_tokens": request.max_tokens,
    });
    let tools: Vec<Value> = request
        .tools
        .iter()
        .map(|t| {
            json!({"type": "function", "function": {
                "name": t.name,
                "description": t.description,
                "parameters": t.input_schema,
            }})
        })
        .collect();
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
    }
    body
}

fn flush_images(out: &mut Vec<Value>, images: &mut Vec<Value>) {
    if !images.is_empty() {
        out.push(json!({"role": "user", "content": std::mem::take(images)}));
    }
}

/// Reads one OpenAI-compatible chunk (a `data:` payload; `[DONE]` ends the stream).
pub(super) fn read_event(reader: &mut ReplyReader, data: &str) -> Result<Vec<Delta>, StreamError> {
    if data.trim() == "[DONE]" {
        reader.done = true;
        return Ok(Vec::new());
    }
    let chunk: Value = parse(data)?;
    if let Some(error) = chunk.get("error") {
        return Err(StreamError::Provider(error_text(error)));
    }
    if let Some(usage) = chunk.get("usage").filter(|u| !u.is_null()) {
        reader.usage.input_tokens =
            count(usage, "prompt_tokens").unwrap_or(reader.usage.input_tokens);
        reader.usage.output_tokens =
            count(usage, "completion_tokens").unwrap_or(reader.usage.output_tokens);
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
        reader.push_text(text, &mut deltas)?;
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
        reader.tool_call(
            index,
            call.get("id").and_then(Value::as_str),
            function.get("name").and_then(Value::as_str),
            &mut deltas,
        )?;
        if let Some(fragment) = function.get("arguments").and_then(Value::as_str) {
            reader.push_arguments(index, fragment)?;
        }
    }
    if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
        reader.stop = Some(match reason {
            "stop" => StopReason::EndTurn,
            "tool_calls" | "function_call" => StopReason::ToolUse,
            "length" => StopReason::MaxTokens,
            _ => StopReason::Other,
        });
    }
    Ok(deltas)
}
