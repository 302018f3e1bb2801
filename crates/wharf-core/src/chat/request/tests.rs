use serde_json::json;

use super::*;
use crate::connection::ToolInfo;

fn tools() -> ModelTools {
    let read = ToolInfo {
        name: "read_file".into(),
        title: None,
        description: Some("Reads a file.".into()),
        input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        output_schema: None,
        annotations: None,
    };
    ModelTools::new([("fs".to_string(), vec![read])])
}

fn conversation() -> Vec<TurnMessage> {
    let call = |id: &str, args: &str| ToolCall {
        id: id.into(),
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
        },
        TurnMessage::ToolResult {
            call_id: "c2".into(),
            content: "the arguments are not a JSON object".into(),
            is_error: true,
        },
        TurnMessage::Assistant {
            text: "a says: text of a".into(),
            tool_calls: vec![],
        },
        TurnMessage::User("thanks".into()),
    ]
}

const OPTIONS: RequestOptions<'static> = RequestOptions {
    model: "m",
    system: Some("You are helpful."),
    max_tokens: 100,
};

#[test]
fn openai_gets_every_message_in_its_own_shape_and_the_tools() {
    let body = openai(OPTIONS, &conversation(), &tools());
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
            "assistant",
            "user"
        ]
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
    let body = anthropic(OPTIONS, &conversation(), &tools());
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
    assert_eq!(results[1]["is_error"], true);
    assert_eq!(body["tools"][0]["input_schema"]["type"], "object");
}

#[test]
fn without_tools_no_tools_key_is_sent() {
    let none = ModelTools::default();
    let messages = [TurnMessage::User("hi".into())];
    assert!(openai(OPTIONS, &messages, &none).get("tools").is_none());
    assert!(anthropic(OPTIONS, &messages, &none).get("tools").is_none());
}
