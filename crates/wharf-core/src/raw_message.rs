//! Server messages Wharf must read as the server wrote them, carried past rmcp's typed model.
//!
//! rmcp reads an `elicitation/create` request and an `InputRequiredResult` into its own structs, which keep only the
//! keywords it models: a form's `pattern`, `not`, `multipleOf` or top-level `$ref` would be gone before Wharf's form
//! parser and validator ran, so an answer would be checked against a schema the server never sent. And a request
//! whose params rmcp cannot read at all is dropped without a word, leaving the server waiting for an answer.
//!
//! So every transport passes what the server writes through [`screen`] before rmcp reads it, which rewrites:
//! - an `elicitation/create` request into the private request [`RAW_ELICITATION`], whose params hold the server's
//!   params untouched (rmcp hands a request it does not know to the handler as it is);
//! - a request Wharf must refuse (params that do not fit its method, or a method named like Wharf's private ones)
//!   into the private request [`REFUSED_REQUEST`], which the handler answers at once with the error it carries;
//! - a result of `resultType: "input_required"` into a JSON-RPC error of code [`RAW_INPUT_REQUIRED`] whose `data`
//!   holds the result untouched under [`RAW_RESULT_KEY`] (an error's data is the one place rmcp keeps any JSON).
//!
//! A server that writes these private shapes itself gains nothing: each means exactly what the message it stands
//! for would have meant, and a request naming a private method is refused as unknown.

use serde_json::{json, Map, Value};

/// The private method an `elicitation/create` travels under, with `{"params": <the server's params>}`.
pub const RAW_ELICITATION: &str = "wharf/raw-elicitation";
/// The private method of a server request Wharf refuses: `{"method", "code", "reason"}`.
pub const REFUSED_REQUEST: &str = "wharf/refused-request";
/// The error code an `InputRequiredResult` travels under (in JSON-RPC's range for implementation-defined errors).
pub const RAW_INPUT_REQUIRED: i32 = -32099;
/// Where the untouched `InputRequiredResult` sits in that error's `data`.
pub const RAW_RESULT_KEY: &str = "wharf/inputRequiredResult";

const PRIVATE_PREFIX: &str = "wharf/";
/// The server-to-client requests of either era; any other method is unknown (`-32601`), not invalid.
const KNOWN_REQUESTS: [&str; 4] = [
    "ping",
    "sampling/createMessage",
    "roots/list",
    "elicitation/create",
];

/// JSON-RPC's code for params that do not fit the method.
pub const INVALID_PARAMS: i32 = -32602;
/// JSON-RPC's code for a method the receiver does not have.
pub const METHOD_NOT_FOUND: i32 = -32601;

/// The message to give rmcp instead of `message`, or `None` to give it `message` as it is.
pub fn screen(message: &Value) -> Option<Value> {
    let object = message.as_object()?;
    let id = object.get("id").filter(|id| is_request_id(id));
    match (object.get("method"), id) {
        (Some(Value::String(method)), Some(id)) => screen_request(message, id, method),
        (Some(_), _) => None,
        (None, Some(id)) => screen_result(object, id),
        (None, None) => None,
    }
}

/// What rmcp accepts as a request id: a string or a 64-bit signed whole number (a request with any other id cannot
/// be answered).
fn is_request_id(id: &Value) -> bool {
    id.is_string() || id.is_i64()
}

fn screen_request(message: &Value, id: &Value, method: &str) -> Option<Value> {
    let params = message.get("params");
    if method == "elicitation/create" {
        return Some(match params {
            Some(Value::Object(_)) => request(id, RAW_ELICITATION, json!({ "params": params })),
            _ => refused(
                id,
                method,
                INVALID_PARAMS,
                "its params are not an object".into(),
            ),
        });
    }
    if method.starts_with(PRIVATE_PREFIX) {
        return Some(refused(
            id,
            method,
            METHOD_NOT_FOUND,
            "no such method".into(),
        ));
    }
    let known = KNOWN_REQUESTS.contains(&method);
    // Any other request passes when rmcp reads it as what it says it is; rmcp reads a known method with params it
    // cannot type as an unknown request, and a request whose params are no object not at all.
    let why = match serde_json::from_value::<rmcp::model::ServerJsonRpcMessage>(message.clone()) {
        Ok(rmcp::model::JsonRpcMessage::Request(r)) => match r.request {
            rmcp::model::ServerRequest::CustomRequest(_) if known => {
                format!("its params do not fit {method}")
            }
            _ => return None,
        },
        Ok(_) => return None,
        Err(e) => e.to_string(),
    };
    let code = if known {
        INVALID_PARAMS
    } else {
        METHOD_NOT_FOUND
    };
    Some(refused(id, method, code, why))
}

fn screen_result(object: &Map<String, Value>, id: &Value) -> Option<Value> {
    let result = object.get("result")?;
    if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
        return None;
    }
    Some(json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": RAW_INPUT_REQUIRED,
            "message": "the server asked for input (an InputRequiredResult) where Wharf expected a result",
            "data": { RAW_RESULT_KEY: result },
        }
    }))
}

fn request(id: &Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn refused(id: &Value, method: &str, code: i32, reason: String) -> Value {
    let params = json!({"method": method, "code": code, "reason": reason});
    request(id, REFUSED_REQUEST, params)
}

/// The untouched `InputRequiredResult` a request's error carries, if it is one that [`screen`] made.
pub fn input_required(code: i32, data: Option<&Value>) -> Option<&Value> {
    if code != RAW_INPUT_REQUIRED {
        return None;
    }
    data?.get(RAW_RESULT_KEY).filter(|r| r.is_object())
}

/// What a refused request carries: its method, the JSON-RPC code to answer with, and why.
pub struct Refusal {
    pub method: String,
    pub code: i32,
    pub reason: String,
}

impl Refusal {
    pub fn of(params: Option<&Value>) -> Refusal {
        let text = |key: &str| {
            params
                .and_then(|p| p.get(key))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let code = params
            .and_then(|p| p.get("code"))
            .and_then(Value::as_i64)
            .and_then(|c| i32::try_from(c).ok())
            .filter(|c| [INVALID_PARAMS, METHOD_NOT_FOUND].contains(c))
            .unwrap_or(METHOD_NOT_FOUND);
        Refusal {
            method: text("method"),
            code,
            reason: text("reason"),
        }
    }
}

/// [`screen`] for one Server-Sent Event of a Streamable HTTP connection: its data rewritten when it must be.
/// Only events that may be a request or an input-required result are parsed here; the rest pass untouched.
pub fn screen_sse_data(data: &str) -> Option<String> {
    if !data.contains("\"method\"") && !data.contains("input_required") {
        return None;
    }
    let message: Value = serde_json::from_str(data).ok()?;
    screen(&message).map(|m| m.to_string())
}

#[cfg(test)]
mod tests;
