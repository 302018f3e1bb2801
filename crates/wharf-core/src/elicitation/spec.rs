//! The frame of an `elicitation/create` request as the spec writes it, checked before anything else reads it.

use serde_json::Value;

/// Why `params` are not the spec's `elicitation/create`: told to the server in the refusal and to the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotSpecShaped {
    #[error("its params are not an object")]
    NotObject,
    #[error("it has no message")]
    NoMessage,
    #[error("a URL request needs a url")]
    NoUrl,
    #[error("its elicitationId is not a string")]
    IdNotText,
    #[error("its mode {0} is neither form nor url")]
    UnknownMode(String),
    #[error("a form request needs a requestedSchema object")]
    NoSchema,
    #[error("its requestedSchema is not of type object")]
    SchemaNotObject,
    #[error("its requestedSchema's properties are not an object of schemas")]
    BadProperties,
    #[error("its requestedSchema's required is not a list of names")]
    BadRequired,
}

/// Whether `params` have the shape of the spec's `elicitation/create`: a message, and either a URL request
/// (`mode: "url"` with a `url`) or a form (`mode` absent or `"form"`, with a
/// `requestedSchema` object). The error says why not. What the schema holds is not judged here: the form parser
/// declines what it cannot show, with a notice saying why, and reads hints that the spec's narrow types would
/// reject as a whole (`format: "password"` on a text field, for one) instead of refusing the request.
pub fn fits_spec(params: &Value) -> Result<(), NotSpecShaped> {
    let Some(params) = params.as_object() else {
        return Err(NotSpecShaped::NotObject);
    };
    let text = |key: &str| params.get(key).is_some_and(Value::is_string);
    if !text("message") {
        return Err(NotSpecShaped::NoMessage);
    }
    match params.get("mode") {
        Some(Value::String(mode)) if mode == "url" => {
            // 2026-07-28 dropped the elicitationId that 2025-11-25 required: one may be missing, never mistyped.
            if !text("url") {
                return Err(NotSpecShaped::NoUrl);
            }
            if params
                .get("elicitationId")
                .is_some_and(|id| !id.is_string())
            {
                return Err(NotSpecShaped::IdNotText);
            }
        }
        None => check_schema(params)?,
        Some(Value::String(mode)) if mode == "form" => check_schema(params)?,
        Some(other) => return Err(NotSpecShaped::UnknownMode(other.to_string())),
    }
    Ok(())
}

/// The spec's frame of a form: an object schema whose `properties` map names to schemas and whose `required` lists
/// names. A schema without that frame is no form at all; one with it is the form parser's to judge, keyword by
/// keyword.
fn check_schema(params: &serde_json::Map<String, Value>) -> Result<(), NotSpecShaped> {
    let Some(Value::Object(schema)) = params.get("requestedSchema") else {
        return Err(NotSpecShaped::NoSchema);
    };
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err(NotSpecShaped::SchemaNotObject);
    }
    match schema.get("properties") {
        Some(Value::Object(properties)) if properties.values().all(Value::is_object) => {}
        _ => return Err(NotSpecShaped::BadProperties),
    }
    match schema.get("required") {
        None => Ok(()),
        Some(Value::Array(names)) if names.iter().all(Value::is_string) => Ok(()),
        Some(_) => Err(NotSpecShaped::BadRequired),
    }
}

#[cfg(test)]
mod tests {
    use super::fits_spec;
    use serde_json::json;

    #[test]
    fn the_frame_is_checked_and_the_schema_left_to_the_form_parser() {
        let form = |schema| json!({"message": "m", "requestedSchema": schema});
        let fits = [
            form(json!({"type": "object", "properties": {}})),
            // Outside the spec's narrow types, but a form: the parser judges it (a warning, or a decline).
            form(
                json!({"type": "object", "properties": {"pw": {"type": "string", "format": "password"}}}),
            ),
            form(
                json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "^x"}}, "required": ["a"]}),
            ),
            json!({"mode": "form", "message": "m", "requestedSchema": {"type": "object", "properties": {}}}),
            json!({"mode": "url", "message": "m", "url": "https://x.test", "elicitationId": "1"}),
            json!({"mode": "url", "message": "m", "url": "https://x.test"}),
        ];
        for params in fits {
            assert_eq!(fits_spec(&params), Ok(()), "{params}");
        }
        let unfit = [
            json!([]),
            json!({"requestedSchema": {"type": "object", "properties": {}}}),
            form(json!({"type": "object", "properties": [{"name": "a"}]})),
            form(json!({"type": "object", "properties": {"a": "string"}})),
            form(json!({"type": "array", "properties": {}})),
            form(json!({"type": "object", "properties": {}, "required": "a"})),
            json!({"message": "m"}),
            json!({"mode": "url", "message": "m"}),
            json!({"mode": "url", "message": "m", "url": "https://x.test", "elicitationId": 7}),
            json!({"mode": "carrier pigeon", "message": "m"}),
        ];
        for params in unfit {
            assert!(fits_spec(&params).is_err(), "{params}");
        }
    }
}
