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

/// The eight bytes every PNG starts with, as a tool's image.
const PNG: &str = "iVBORw0KGgo=";

fn png() -> ModelImage {
    ModelImage::checked("image/png", PNG).unwrap()
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
    let none = ModelTools::default();
    let messages = [TurnMessage::User("hi".into())];
    assert!(openai(OPTIONS, &messages, &none).get("tools").is_none());
    assert!(anthropic(OPTIONS, &messages, &none).get("tools").is_none());
}

#[test]
fn only_images_whose_bytes_match_a_type_the_providers_read_are_given() {
    let jpeg = "/9j/4AAQSkZJRg==";
    let gif = "R0lGODlhAQABAAAAACw=";
    let webp = "UklGRhoAAABXRUJQVlA4";
    assert!(ModelImage::checked("image/png", PNG).is_some());
    assert!(ModelImage::checked(" IMAGE/JPEG", jpeg).is_some());
    assert!(ModelImage::checked("image/gif", gif).is_some());
    assert!(ModelImage::checked("image/webp", webp).is_some());
    // A PNG said to be a JPEG, a type no provider takes, text said to be an image, data that is not base64.
    assert!(ModelImage::checked("image/jpeg", PNG).is_none());
    assert!(ModelImage::checked("image/svg+xml", "PHN2Zz4=").is_none());
    assert!(ModelImage::checked("image/png", "aGVsbG8gd29ybGQ=").is_none());
    assert!(ModelImage::checked("image/png", "%%%%").is_none());
    assert!(ModelImage::checked("image/png", "").is_none());
}

proptest::proptest! {
    /// Whatever a server sends as an image, the check ends with an answer, and an image it passes starts with its
    /// type's signature: a model is never sent bytes that a provider would refuse the whole request for.
    #[test]
    fn any_image_a_server_sends_is_checked_without_panicking(
        mime in proptest::sample::select(vec!["image/png", "image/jpeg", "image/gif", "image/webp", "IMAGE/PNG", "image/x", ""]),
        bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
        prefix in proptest::sample::select(vec![&b""[..], b"\x89PNG\r\n\x1a\n", b"\xFF\xD8\xFF", b"GIF89a", b"RIFF\0\0\0\0WEBP"]),
        raw in ".{0,40}",
        as_base64 in proptest::prelude::any::<bool>(),
    ) {
        use base64::Engine as _;
        let data = if as_base64 {
            base64::engine::general_purpose::STANDARD.encode([prefix, &bytes[..]].concat())
        } else {
            raw
        };
        if let Some(image) = ModelImage::checked(mime, &data) {
            let start = crate::view::content::decode(&image.data[..image.data.len().min(16)]).unwrap();
            let signature: &[u8] = match image.mime_type.as_str() {
                "image/png" => b"\x89PNG",
                "image/jpeg" => b"\xFF\xD8\xFF",
                "image/gif" => b"GIF8",
                _ => b"RIFF",
            };
            proptest::prop_assert!(start.starts_with(signature), "{} {:?}", image.mime_type, start);
        }
    }
}
