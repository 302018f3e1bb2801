//! A conversation and its tools written as the provider's request body: OpenAI-compatible Chat Completions or
//! Anthropic Messages. The conversation is held in one form (`TurnMessage`) and only written in a provider's shape
//! here, so one conversation can move between providers.

use serde_json::{json, Map, Value};

use super::stream::ToolCall;
use super::tools::ModelTools;

/// One message of the conversation as the model is given it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnMessage {
    User(String),
    /// The model's own earlier reply: its text, and the tool calls it made.
    Assistant {
        text: String,
        tool_calls: Vec<ToolCall>,
    },
    /// The outcome of one tool call: the server's result, or why it was not made (`is_error`), and the result's
    /// images for a model that takes them.
    ToolResult {
        call_id: String,
        content: String,
        is_error: bool,
        images: Vec<ModelImage>,
    },
}

/// An image of a tool's result, as a provider takes it: one of the types every provider reads, base64.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelImage {
    pub mime_type: String,
    pub data: String,
}

impl ModelImage {
    /// The image when its type is one the providers read and its bytes start as that type's do: a server's
    /// mislabelled data would otherwise fail the whole request.
    pub fn checked(mime_type: &str, data: &str) -> Option<ModelImage> {
        let mime_type = mime_type.trim().to_ascii_lowercase();
        // Enough of the start to hold every signature below, on a base64 quantum.
        let head: String = data
            .chars()
            .filter(|c| !c.is_ascii_whitespace())
            .take(16)
            .collect();
        let bytes = crate::view::content::decode(&head)?;
        let looks_right = match mime_type.as_str() {
            "image/png" => bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
            "image/jpeg" => bytes.starts_with(&[0xFF, 0xD8, 0xFF]),
            "image/gif" => bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a"),
            "image/webp" => bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP",
            _ => false,
        };
        looks_right.then(|| ModelImage {
            mime_type,
            data: data.chars().filter(|c| !c.is_ascii_whitespace()).collect(),
        })
    }

    fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.mime_type, self.data)
    }
}

/// What every request carries besides the conversation.
#[derive(Debug, Clone, Copy)]
pub struct RequestOptions<'a> {
    pub model: &'a str,
    pub system: Option<&'a str>,
    pub max_tokens: u32,
}

/// The Chat Completions body.
pub fn openai(options: RequestOptions<'_>, messages: &[TurnMessage], tools: &ModelTools) -> Value {
    let mut out: Vec<Value> = Vec::new();
    if let Some(system) = options.system {
        out.push(json!({"role": "system", "content": system}));
    }
    // Tool messages take text only, and must follow their call's message together: the images of a run of results
    // go in one user message after it.
    let mut images: Vec<Value> = Vec::new();
    for message in messages {
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
        "model": options.model,
        "messages": out,
        "max_tokens": options.max_tokens,
    });
    let tools: Vec<Value> = tools
        .iter()
        .map(|t| {
            json!({"type": "function", "function": {
                "name": t.name,
                "description": description(t),
                "parameters": t.tool.input_schema,
            }})
        })
        .collect();
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
    }
    body
}

/// The Messages body. Anthropic takes the system prompt apart, wants user and assistant turns to alternate, and
/// takes tool results as blocks of a user turn: consecutive results (of parallel calls) share one turn.
pub fn anthropic(
    options: RequestOptions<'_>,
    messages: &[TurnMessage],
    tools: &ModelTools,
) -> Value {
    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut push = |role: &'static str, block: Value| match turns.last_mut() {
        Some((last, blocks)) if *last == role => blocks.push(block),
        _ => turns.push((role, vec![block])),
    };
    for message in messages {
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
        "model": options.model,
        "max_tokens": options.max_tokens,
        "messages": messages,
    });
    if let Some(system) = options.system {
        body["system"] = system.into();
    }
    let tools: Vec<Value> = tools
        .iter()
        .map(|t| {
            json!({"name": t.name, "description": description(t), "input_schema": t.tool.input_schema})
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

/// A tool's description for the model, with the server it is on: the model should know whose tool it calls.
fn description(tool: &super::tools::ModelTool) -> String {
    let what = tool
        .tool
        .description
        .as_deref()
        .or(tool.tool.title.as_deref())
        .unwrap_or("");
    format!("[server: {}] {what}", tool.server)
        .trim_end()
        .to_string()
}

#[cfg(test)]
mod tests;
