//! JSON Schemas a server sends (a form's, a tool's input), compiled to check values against. A server's schema can
//! make the host neither read a file nor open a connection: references are never fetched, whatever `jsonschema`
//! features another crate of the build turns on.

use jsonschema::{Draft, ValidationError, Validator};
use serde_json::Value;

struct NoRetrieval;

type RetrieveError = Box<dyn std::error::Error + Send + Sync>;

impl jsonschema::Retrieve for NoRetrieval {
    fn retrieve(&self, _: &jsonschema::Uri<String>) -> Result<Value, RetrieveError> {
        Err("Wharf does not fetch referenced schemas".into())
    }
}

/// `schema` as a validator (draft 2020-12, the MCP default; formats checked).
pub fn compile(schema: &Value) -> Result<Validator, ValidationError<'static>> {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .should_validate_formats(true)
        .with_retriever(NoRetrieval)
        .build(schema)
}
