//! A conversation written in each provider's shape.

use super::*;

fn schema() -> Value {
    json!({"type": "object", "properties": {"path": {"type": "string"}}})
}

fn tools(schema: &Value) -> Vec<ToolSpec<'_>> {
    vec![ToolSpec {
        name: "fs__read_file",
        description: "[server: fs] Reads a file.".into(),
        input_schema: schema,
    }]
}

/// The eight bytes every PNG starts with, as a tool's image.
const PNG: &str = "iVBORw0KGgo=";

fn png() -> ModelImage {
    ModelImage {
        mime_type: "image/png".into(),
        data: PNG.into(),
    }
}

fn conversation() -> Vec<TurnMessage> {
    let call = |id: &str, args: &str| ToolCall {
        id: id.into(),
        model_id: None,
        name: "fs__read_file".into(),
        arguments: args.into(),
    };
    vec![
        TurnMessage::User("read a and b".into()),
        TurnMessage::Assistant {
            text: "Reading both.".into(),
            tool_calls: vec![call("c1", r#"{"path": "a"}"#), call("c2", "{not json")],
        },
        TurnMessage::ToolResult {
            call_id: "c1".into(),
            content: "text of a".into(),
            is_error: false,
            images: vec![png()],
        },
        TurnMessage::ToolResult {
            call_id: "c2".into(),
            content: "the arguments are not a JSON object".into(),
            is_error: true,
            images: vec![],
        },
        TurnMessage::Assistant {
            text: "a says: text of a".into(),
            tool_calls: vec![],
        },
        TurnMessage::User("thanks".into()),
    ]
}

fn request<'a>(messages: &'a [TurnMessage], tools: &'a [ToolSpec<'a>]) -> ChatRequest<'a> {
    ChatRequest {
        model: "m",
        system: Some("You are helpful."),
        max_tokens: 100,
        messages,
        tools,
    }
}

#[test]
fn openai_gets_every_message_in_its_own_shape_and_the_tools() {
    let (conversation, schema) = (conversation(), schema());
    let body = openai::chat_body(&request(&conversation, &tools(&schema)));
    let roles: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "tool",
            "tool",
            "user",
            "assistant",
            "user"
        ]
    );
    // Tool messages take text: the images of the results go in a user message after them, each call's named.
    assert_eq!(body["messages"][3]["content"], "text of a");
    assert_eq!(
        body["messages"][5]["content"],
        json!([
            {"type": "text", "text": "The images of tool call c1:"},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}}
        ])
    );
    assert_eq!(
        body["messages"][2]["tool_calls"][1]["function"]["arguments"],
        "{not json"
    );
    assert_eq!(body["messages"][3]["tool_call_id"], "c1");
    assert_eq!(body["tools"][0]["function"]["name"], "fs__read_file");
    assert_eq!(
        body["tools"][0]["function"]["description"],
        "[server: fs] Reads a file."
    );
    assert_eq!(
        body["tools"][0]["function"]["parameters"]["properties"]["path"]["type"],
        "string"
    );
    assert_eq!(body["max_tokens"], 100);
}

#[test]
fn anthropic_turns_alternate_and_parallel_results_share_one() {
    let (conversation, schema) = (conversation(), schema());
    let body = anthropic::chat_body(&request(&conversation, &tools(&schema)));
    assert_eq!(body["system"], "You are helpful.");
    let messages = body["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant", "user"]);
    let calls = messages[1]["content"].as_array().unwrap();
    assert_eq!(calls[0]["type"], "text");
    assert_eq!(calls[1]["input"], json!({"path": "a"}));
    assert_eq!(
        calls[2]["input"],
        json!({}),
        "botched arguments become an empty input"
    );
    let results = messages[2]["content"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    // An image goes inside its result.
    assert_eq!(
        results[0]["content"],
        json!([
            {"type": "text", "text": "text of a"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
        ])
    );
    assert_eq!(results[1]["content"], "the arguments are not a JSON object");
    assert_eq!(results[1]["is_error"], true);
    assert_eq!(body["tools"][0]["input_schema"]["type"], "object");
}

#[test]
fn without_tools_no_tools_key_is_sent() {
    let messages = [TurnMessage::User("hi".into())];
    let request = request(&messages, &[]);
    assert!(openai::chat_body(&request).get("tools").is_none());
    assert!(anthropic::chat_body(&request).get("tools").is_none());
}
