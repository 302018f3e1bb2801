//! A model's tool call checked before anyone is asked about it: the tool must be one the model was offered, and the
//! arguments a JSON object that fits the tool's input schema. What fails is answered to the model as an error it
//! can act on (and shown to the user); it never reaches the approval card or the server. The approval engine and
//! the path check still judge every call that passes.

use rmcp::model::JsonObject;
use serde_json::Value;

use super::tools::{ModelTool, ModelTools};
use crate::display_text::one_line;
use crate::model::ToolCall;

/// Schema problems named to the model at most; the count says how many more there were.
const MAX_PROBLEMS: usize = 5;
/// How much of a name or a problem the model is shown back.
const MAX_ECHO_CHARS: usize = 200;

/// A call that may go on to the approval engine.
#[derive(Debug, Clone)]
pub struct VettedCall<'a> {
    pub tool: &'a ModelTool,
    pub arguments: JsonObject,
}

/// Why a model's call was not made; the message is written for the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallRefused {
    #[error("there is no tool named \"{0}\": call one of the tools offered with this request")]
    UnknownTool(String),
    #[error("the arguments of {tool} are not a JSON object ({reason}): send them as one")]
    NotAnObject { tool: String, reason: String },
    #[error("the arguments of {tool} do not fit its input schema: {}", .problems.join("; "))]
    DoesNotFit { tool: String, problems: Vec<String> },
    /// The server's schema cannot be read: the arguments cannot be checked, so the call is not made.
    #[error("{tool} cannot be called: its input schema cannot be checked ({reason})")]
    UncheckableSchema { tool: String, reason: String },
}

/// Checks `call` against the tools of its request.
pub fn vet<'a>(tools: &'a ModelTools, call: &ToolCall) -> Result<VettedCall<'a>, CallRefused> {
    let tool = tools
        .get(&call.name)
        .ok_or_else(|| CallRefused::UnknownTool(one_line(&call.name, MAX_ECHO_CHARS)))?;
    let name = tool.name.clone();
    let text = call.arguments.trim();
    // Models send nothing, or `null`, for a tool that takes no arguments.
    let value = if text.is_empty() {
        Value::Object(JsonObject::new())
    } else {
        serde_json::from_str(text).map_err(|e| CallRefused::NotAnObject {
            tool: name.clone(),
            reason: one_line(&e.to_string(), MAX_ECHO_CHARS),
        })?
    };
    let arguments = fit_schema(&name, &tool.tool.input_schema, value)?;
    Ok(VettedCall { tool, arguments })
}

/// `value` as the arguments of the tool `name`: a JSON object (nothing or `null` reads as no arguments) that fits
/// `schema`. Used for the model's arguments and for the user's edit of them on the approval card.
pub fn fit_schema(name: &str, schema: &Value, value: Value) -> Result<JsonObject, CallRefused> {
    let name = name.to_string();
    let arguments = match value {
        Value::Object(map) => map,
        Value::Null => JsonObject::new(),
        other => {
            return Err(CallRefused::NotAnObject {
                tool: name,
                reason: format!("they are {}", kind(&other)),
            })
        }
    };
    let validator = crate::schema::compile(schema).map_err(|e| CallRefused::UncheckableSchema {
        tool: name.clone(),
        reason: one_line(&e.to_string(), MAX_ECHO_CHARS),
    })?;
    let instance = Value::Object(arguments);
    let mut problems: Vec<String> = Vec::new();
    let mut more = 0usize;
    for error in validator.iter_errors(&instance) {
        if problems.len() == MAX_PROBLEMS {
            more += 1;
            continue;
        }
        let at = error.instance_path().to_string();
        let at = if at.is_empty() { "/".to_string() } else { at };
        problems.push(one_line(&format!("at {at}: {error}"), MAX_ECHO_CHARS));
    }
    if more > 0 {
        problems.push(format!("and {more} more"));
    }
    if !problems.is_empty() {
        return Err(CallRefused::DoesNotFit {
            tool: name,
            problems,
        });
    }
    let Value::Object(arguments) = instance else {
        return Err(CallRefused::NotAnObject {
            tool: name,
            reason: "they are not an object".into(),
        });
    };
    Ok(arguments)
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests;
