//! Calls that answer at once: plain text (`echo`), structured output (`add`), a tool-level error (`fail`),
//! and every kind of form field (`kinds`).

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::server::DemoServer;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct EchoArgs {
    /// The text to send back.
    message: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct AddArgs {
    /// The first number.
    a: f64,
    /// The second number.
    b: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Sum {
    /// a + b.
    sum: f64,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
// Inline, so that the form generator finds a plain `enum` here rather than a `$ref` into `$defs`.
#[schemars(inline)]
pub enum Color {
    Red,
    Green,
    Blue,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct Point {
    /// Horizontal position.
    x: i64,
    /// Vertical position.
    y: i64,
}

/// The arguments of `kinds`, which it sends back unchanged.
///
/// The optional fields are `Option`s for the echo (absent stays absent), but their schema is that of the
/// inner type (`with`) and `serde(default)` makes them optional: a form then sees `"type": "integer"`
/// rather than `["integer", "null"]` or an `anyOf`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct KindsArgs {
    /// A line of text (the only required field).
    text: String,
    /// A whole number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64")]
    count: Option<i64>,
    /// A number between 0 and 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "f64", range(min = 0.0, max = 1.0))]
    ratio: Option<f64>,
    /// A yes or no.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    flag: Option<bool>,
    /// One of three colours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Color")]
    color: Option<Color>,
    /// A list of words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<String>")]
    tags: Option<Vec<String>>,
    /// A point, an object with two fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Point")]
    nested: Option<Point>,
}

#[tool_router(router = basic_tools, vis = "pub(crate)")]
impl DemoServer {
    #[tool(
        title = "Echo",
        description = "Sends your message back as \"echo: MESSAGE\".",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn echo(&self, Parameters(args): Parameters<EchoArgs>) -> String {
        format!("echo: {}", args.message)
    }

    // `Json` makes rmcp declare the output schema and put the JSON in both `structuredContent` and a text
    // block, as the spec asks for hosts that only read text.
    #[tool(
        title = "Add",
        description = "Adds two numbers; the result is structured ({\"sum\": a + b}) and has an output schema.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn add(&self, Parameters(args): Parameters<AddArgs>) -> Json<Sum> {
        Json(Sum {
            sum: args.a + args.b,
        })
    }

    #[tool(
        title = "Fail",
        description = "Always fails the way a tool should: a result with isError true and an explanation, \
                       not a protocol error.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn fail(&self) -> CallToolResult {
        CallToolResult::error(vec![ContentBlock::text(
            "fail always fails: this is what a tool error looks like (isError: true). \
             The server is still running; try another tool.",
        )])
    }

    #[tool(
        title = "Every kind of field",
        description = "Echoes its arguments as JSON (text and structuredContent). Its input schema has one \
                       field of each kind - text, integer, number, boolean, choice, list and object - to show \
                       the form Wharf generates; only text is required.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn kinds(&self, Parameters(args): Parameters<KindsArgs>) -> Json<KindsArgs> {
        Json(args)
    }
}
