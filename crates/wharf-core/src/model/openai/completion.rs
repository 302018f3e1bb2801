//! A sampling request (`CreateMessageRequestParams`) as a Chat Completions request, and the answer as a
//! `CreateMessageResult`.
//!
//! The token limit goes in `max_tokens`: every local server reads it, and OpenAI still takes it for its
//! non-reasoning models. OpenAI's reasoning models refuse it with a 400 that names `max_completion_tokens`; only then
//! is the request sent once more with that field instead. Never both at once: those models reject the pair, and a
//! server that reads only one name would otherwise be free to ignore the limit.

use reqwest::header::HeaderMap;
use serde_json::{json, Map, Value};

use crate::model::http::{malformed, missing, Http};
use crate::model::mcp::{
    block_type, embedded_text, field, invalid, max_tokens, Common, Role, SampledMessage,
};
use crate::model::{Completion, ProviderError};

pub(super) async fn complete(
    http: &Http<'_>,
    headers: HeaderMap,
    completion: &Completion<'_>,
) -> Result<SampledMessage, ProviderError> {
    let max_tokens = max_tokens(completion.params, completion.max_tokens)?;
    let mut body = request(completion.params, completion.model, max_tokens)?;
    let url = super::endpoint(http.base_url);
    let answer = match http.post(&url, headers.clone(), &body).await {
        Err(ProviderError::Http {
            status: 400,
            message,
        }) if message.contains("max_completion_tokens") => {
            if let Some(obj) = body.as_object_mut() {
                obj.remove("max_tokens");
                obj.insert("max_completion_tokens".into(), max_tokens.into());
            }
            http.post(&url, headers, &body).await?
        }
        other => other?,
    };
    result(&answer, completion.model).map_err(|e| match e {
        ProviderError::Malformed(m) => ProviderError::Malformed(http.scrub(&m)),
        other => other,
    })
}

/// The Chat Completions body for an MCP `CreateMessageRequestParams`.
pub(in crate::model) fn request(
    params: &Value,
    model: &str,
    max_tokens: u32,
) -> Result<Value, ProviderError> {
    let common = Common::read(params)?;
    let mut messages = Vec::new();
    if let Some(system) = common.system {
        messages.push(json!({"role": "system", "content": system}));
    }
    for message in &common.messages {
        match message.role {
            Role::User => user_messages(&message.blocks, &mut messages)?,
            Role::Assistant => messages.push(assistant_message(&message.blocks)?),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), model.into());
    body.insert("messages".into(), Value::Array(messages));
    body.insert("max_tokens".into(), max_tokens.into());
    if let Some(t) = common.temperature {
        body.insert("temperature".into(), t.clone());
    }
    if !common.stop.is_empty() {
        body.insert("stop".into(), json!(common.stop));
    }
    if !common.tools.is_empty() {
        let tools: Vec<Value> = common
            .tools
            .iter()
            .map(|t| {
                let mut function = json!({"name": t.name, "parameters": t.input_schema});
                if let (Some(d), Some(f)) = (t.description, function.as_object_mut()) {
                    f.insert("description".into(), d.into());
                }
                json!({"type": "function", "function": function})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(choice) = common.tool_choice {
        body.insert("tool_choice".into(), choice.into());
    }
    Ok(Value::Object(body))
}

/// A user message: its tool results become `tool` messages (first, as the API wants them right after the assistant's
/// calls), the rest one `user` message.
fn user_messages(
    blocks: &[&Map<String, Value>],
    out: &mut Vec<Value>,
) -> Result<(), ProviderError> {
    let mut parts = Vec::new();
    for block in blocks {
        match block_type(block) {
            "tool_result" => {
                let id = field(block, "toolUseId")?;
                let text = tool_result_text(block)?;
                // The API has no error flag for a tool's answer; the model still has to know it failed.
                let text = if block.get("isError") == Some(&Value::Bool(true)) {
                    format!("Error: {text}")
                } else {
                    text
                };
                out.push(json!({"role": "tool", "tool_call_id": id, "content": text}));
            }
            "tool_use" => {
                return Err(invalid(
                    "a `tool_use` block belongs in an assistant message",
                ))
            }
            _ => parts.push(user_part(block)?),
        }
    }
    if parts.is_empty() {
        return Ok(());
    }
    // A lone text goes as a plain string: older local servers read only that form.
    let content = match <[Value; 1]>::try_from(parts) {
        Ok([one]) if one["type"] == "text" => one["text"].clone(),
        Ok([one]) => Value::Array(vec![one]),
        Err(parts) => Value::Array(parts),
    };
    out.push(json!({"role": "user", "content": content}));
    Ok(())
}

fn user_part(block: &Map<String, Value>) -> Result<Value, ProviderError> {
    match block_type(block) {
        "text" => Ok(json!({"type": "text", "text": field(block, "text")?})),
        "image" => {
            let url = format!(
                "data:{};base64,{}",
                field(block, "mimeType")?,
                field(block, "data")?
            );
            Ok(json!({"type": "image_url", "image_url": {"url": url}}))
        }
        "audio" => {
            let mime = field(block, "mimeType")?;
            let format = audio_format(mime).ok_or_else(|| {
                ProviderError::Unsupported(format!(
                    "OpenAI-compatible providers take WAV or MP3 audio, and this request holds `{mime}`"
                ))
            })?;
            Ok(
                json!({"type": "input_audio", "input_audio": {"data": field(block, "data")?, "format": format}}),
            )
        }
        other => Err(invalid(format!("`{other}` is not a sampling content type"))),
    }
}

fn audio_format(mime: &str) -> Option<&'static str> {
    let essence = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match essence.as_str() {
        "audio/wav" | "audio/x-wav" | "audio/wave" | "audio/vnd.wave" => Some("wav"),
        "audio/mpeg" | "audio/mp3" | "audio/mpeg3" | "audio/x-mpeg-3" => Some("mp3"),
        _ => None,
    }
}

fn assistant_message(blocks: &[&Map<String, Value>]) -> Result<Value, ProviderError> {
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    for block in blocks {
        match block_type(block) {
            "text" => texts.push(field(block, "text")?),
            "tool_use" => {
                let input = block.get("input").cloned().unwrap_or_else(|| json!({}));
                calls.push(json!({
                    "id": field(block, "id")?,
                    "type": "function",
                    "function": {"name": field(block, "name")?, "arguments": input.to_string()},
                }));
            }
            "tool_result" => return Err(invalid("a `tool_result` block belongs in a user message")),
            "image" | "audio" => {
                return Err(ProviderError::Unsupported(format!(
                    "OpenAI-compatible providers take only text and tool calls from the assistant, and this request \
                     has an assistant message with `{}`",
                    block_type(block)
                )))
            }
            other => return Err(invalid(format!("`{other}` is not a sampling content type"))),
        }
    }
    // Text as one string rather than parts: several local servers read only that form in assistant turns.
    let content = if texts.is_empty() && !calls.is_empty() {
        Value::Null
    } else {
        Value::String(texts.join("\n"))
    };
    let mut message = json!({"role": "assistant", "content": content});
    if let (false, Some(obj)) = (calls.is_empty(), message.as_object_mut()) {
        obj.insert("tool_calls".into(), Value::Array(calls));
    }
    Ok(message)
}

/// A `tool` message carries text only: text and embedded text resources are kept, a resource link becomes its URI,
/// structured content stands in when there is no text, and an image or audio cannot be sent.
fn tool_result_text(result: &Map<String, Value>) -> Result<String, ProviderError> {
    let mut parts = Vec::new();
    for item in result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let item = item
            .as_object()
            .ok_or_else(|| invalid("a tool result's content must hold blocks"))?;
        let text = match block_type(item) {
            "text" => field(item, "text")?,
            "resource_link" => field(item, "uri")?,
            kind => embedded_text(item).ok_or_else(|| {
                ProviderError::Unsupported(format!(
                    "OpenAI-compatible providers take only text in a tool result, and this request's holds `{kind}`"
                ))
            })?,
        };
        parts.push(text.to_string());
    }
    if parts.is_empty() {
        if let Some(structured) = result.get("structuredContent") {
            parts.push(structured.to_string());
        }
    }
    Ok(parts.join("\n"))
}

/// The `CreateMessageResult` for a Chat Completions answer.
pub(in crate::model) fn result(
    answer: &Value,
    requested_model: &str,
) -> Result<SampledMessage, ProviderError> {
    let Some(choice) = answer.pointer("/choices/0").and_then(Value::as_object) else {
        return Err(missing(answer, "choices"));
    };
    let message = choice
        .get("message")
        .and_then(Value::as_object)
        .ok_or_else(|| malformed("no `choices[0].message` in the answer"))?;
    let mut blocks = Vec::new();
    match message.get("content") {
        None | Some(Value::Null) => {}
        Some(Value::String(text)) if text.is_empty() => {}
        Some(Value::String(text)) => blocks.push(json!({"type": "text", "text": text})),
        Some(Value::Array(parts)) => {
            for part in parts.iter().filter(|p| p["type"] == "text") {
                let text = part["text"]
                    .as_str()
                    .ok_or_else(|| malformed("a text part without `text`"))?;
                blocks.push(json!({"type": "text", "text": text}));
            }
        }
        Some(_) => {
            return Err(malformed(
                "`message.content` is neither text nor a list of parts",
            ))
        }
    }
    if let (true, Some(refusal)) = (
        blocks.is_empty(),
        message.get("refusal").and_then(Value::as_str),
    ) {
        blocks.push(json!({"type": "text", "text": refusal}));
    }
    let calls = match message.get("tool_calls") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(calls)) => calls.as_slice(),
        Some(_) => return Err(malformed("`message.tool_calls` is not a list")),
    };
    for (i, call) in calls.iter().enumerate() {
        blocks.push(tool_use(call, i)?);
    }
    let stop_reason = choice
        .get("finish_reason")
        .and_then(Value::as_str)
        .map(|r| {
            match r {
                "stop" => "endTurn",
                "length" => "maxTokens",
                "tool_calls" | "function_call" => "toolUse",
                other => other,
            }
            .to_string()
        });
    let model = answer
        .get("model")
        .and_then(Value::as_str)
        .filter(|m| !m.is_empty())
        .unwrap_or(requested_model);
    Ok(SampledMessage::new(blocks, model, stop_reason))
}

fn tool_use(call: &Value, index: usize) -> Result<Value, ProviderError> {
    let function = call
        .get("function")
        .and_then(Value::as_object)
        .ok_or_else(|| malformed("a tool call without `function`"))?;
    let name = function
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| malformed("a tool call without a function name"))?;
    let input = match function.get("arguments") {
        None | Some(Value::Null) => json!({}),
        Some(Value::String(args)) if args.trim().is_empty() => json!({}),
        Some(Value::String(args)) => serde_json::from_str(args).map_err(|e| {
            malformed(format!(
                "the arguments of tool call `{name}` are not JSON ({e})"
            ))
        })?,
        // Some local servers send the arguments already parsed.
        Some(parsed) => parsed.clone(),
    };
    if !input.is_object() {
        return Err(malformed(format!(
            "the arguments of tool call `{name}` are not a JSON object"
        )));
    }
    // Some local servers leave out the id; the server echoes whatever it gets in its tool result.
    let id = call
        .get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map_or_else(|| format!("call_{index}"), str::to_string);
    Ok(json!({"type": "tool_use", "id": id, "name": name, "input": input}))
}
