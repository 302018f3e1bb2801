//! A sampling request (`CreateMessageRequestParams`) as a Messages request, and the answer as a
//! `CreateMessageResult`. MCP's sampling content was modelled on this API, so blocks map one to one, except audio,
//! which it does not take.

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
    let body = request(completion.params, completion.model, max_tokens)?;
    let answer = http
        .post(&super::endpoint(http.base_url), headers, &body)
        .await?;
    result(&answer, completion.model).map_err(|e| match e {
        ProviderError::Malformed(m) => ProviderError::Malformed(http.scrub(&m)),
        other => other,
    })
}

/// The Messages body for an MCP `CreateMessageRequestParams`.
pub(in crate::model) fn request(
    params: &Value,
    model: &str,
    max_tokens: u32,
) -> Result<Value, ProviderError> {
    let common = Common::read(params)?;
    let messages = common
        .messages
        .iter()
        .map(|m| {
            let content = m
                .blocks
                .iter()
                .map(|b| block(b))
                .collect::<Result<Vec<_>, _>>()?;
            let role = match m.role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            Ok(json!({"role": role, "content": content}))
        })
        .collect::<Result<Vec<_>, ProviderError>>()?;
    let mut body = Map::new();
    body.insert("model".into(), model.into());
    body.insert("max_tokens".into(), max_tokens.into());
    if let Some(system) = common.system {
        body.insert("system".into(), system.into());
    }
    body.insert("messages".into(), Value::Array(messages));
    if let Some(t) = common.temperature {
        body.insert("temperature".into(), t.clone());
    }
    if !common.stop.is_empty() {
        body.insert("stop_sequences".into(), json!(common.stop));
    }
    if !common.tools.is_empty() {
        let tools: Vec<Value> = common
            .tools
            .iter()
            .map(|t| {
                let mut tool = json!({"name": t.name, "input_schema": t.input_schema});
                if let (Some(d), Some(obj)) = (t.description, tool.as_object_mut()) {
                    obj.insert("description".into(), d.into());
                }
                tool
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(choice) = common.tool_choice {
        let kind = match choice {
            "required" => "any",
            other => other,
        };
        body.insert("tool_choice".into(), json!({"type": kind}));
    }
    Ok(Value::Object(body))
}

fn no_audio() -> ProviderError {
    ProviderError::Unsupported(
        "The Anthropic Messages API does not take audio, and this request holds some: use an OpenAI-compatible \
         provider that does, or decline the request"
            .into(),
    )
}

fn image(block: &Map<String, Value>) -> Result<Value, ProviderError> {
    Ok(json!({
        "type": "image",
        "source": {"type": "base64", "media_type": field(block, "mimeType")?, "data": field(block, "data")?},
    }))
}

fn block(block: &Map<String, Value>) -> Result<Value, ProviderError> {
    match block_type(block) {
        "text" => Ok(json!({"type": "text", "text": field(block, "text")?})),
        "image" => image(block),
        "audio" => Err(no_audio()),
        "tool_use" => Ok(json!({
            "type": "tool_use",
            "id": field(block, "id")?,
            "name": field(block, "name")?,
            "input": block.get("input").cloned().unwrap_or_else(|| json!({})),
        })),
        "tool_result" => {
            let mut out = json!({
                "type": "tool_result",
                "tool_use_id": field(block, "toolUseId")?,
                "content": tool_result_content(block)?,
            });
            if let (Some(Value::Bool(true)), Some(obj)) =
                (block.get("isError"), out.as_object_mut())
            {
                obj.insert("is_error".into(), true.into());
            }
            Ok(out)
        }
        other => Err(invalid(format!("`{other}` is not a sampling content type"))),
    }
}

/// A tool result takes text and image blocks: embedded text resources become text, a resource link its URI, and
/// structured content stands in when there is nothing else.
fn tool_result_content(result: &Map<String, Value>) -> Result<Vec<Value>, ProviderError> {
    let mut out = Vec::new();
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
            "image" => {
                out.push(image(item)?);
                continue;
            }
            "audio" => return Err(no_audio()),
            "resource_link" => field(item, "uri")?,
            kind => embedded_text(item).ok_or_else(|| {
                ProviderError::Unsupported(format!(
                    "The Anthropic Messages API takes text and images in a tool result, and this request's holds \
                     `{kind}` without text"
                ))
            })?,
        };
        out.push(json!({"type": "text", "text": text}));
    }
    if out.is_empty() {
        if let Some(structured) = result.get("structuredContent") {
            out.push(json!({"type": "text", "text": structured.to_string()}));
        }
    }
    Ok(out)
}

/// The `CreateMessageResult` for a Messages answer. Blocks other than text and tool use (thinking, server tools)
/// are the provider's business and are left out.
pub(in crate::model) fn result(
    answer: &Value,
    requested_model: &str,
) -> Result<SampledMessage, ProviderError> {
    let Some(content) = answer.get("content").and_then(Value::as_array) else {
        return Err(missing(answer, "content"));
    };
    let mut blocks = Vec::new();
    for item in content {
        match item.get("type").and_then(Value::as_str) {
            Some("text") => {
                let text = item["text"]
                    .as_str()
                    .ok_or_else(|| malformed("a text block without `text`"))?;
                blocks.push(json!({"type": "text", "text": text}));
            }
            Some("tool_use") => {
                let id = item["id"]
                    .as_str()
                    .ok_or_else(|| malformed("a tool_use block without `id`"))?;
                let name = item["name"]
                    .as_str()
                    .ok_or_else(|| malformed("a tool_use block without `name`"))?;
                let input = item
                    .get("input")
                    .filter(|i| i.is_object())
                    .ok_or_else(|| malformed(format!("tool_use `{name}` has no object `input`")))?;
                blocks.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
            }
            Some(_) => {}
            None => return Err(malformed("a content block without `type`")),
        }
    }
    let stop_reason = answer.get("stop_reason").and_then(Value::as_str).map(|r| {
        match r {
            "end_turn" => "endTurn",
            "max_tokens" => "maxTokens",
            "tool_use" => "toolUse",
            "stop_sequence" => "stopSequence",
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
