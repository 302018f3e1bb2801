use serde_json::json;

use super::*;

fn sent_messages() -> Value {
    json!([
        {"role": "user", "content": {"type": "text", "text": "Describe this"}},
        {"role": "user", "content": [
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "text", "text": "and this sound"},
            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}
        ]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "weather", "input": {"city": "Paris"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "toolUseId": "t1", "content": [{"type": "text", "text": "sunny"}], "isError": false}
        ]},
        "not a message"
    ])
}

#[test]
fn every_block_is_read_and_none_is_dropped() {
    let read = messages(Some(&sent_messages()));
    let roles: Vec<&str> = read.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(roles, ["user", "user", "assistant", "user", "?"]);
    assert_eq!(
        read[0].blocks,
        [SamplingBlock::Text {
            text: "Describe this".into()
        }]
    );
    assert_eq!(
        read[1].blocks[0],
        SamplingBlock::Image {
            mime_type: "image/png".into(),
            url: Some("data:image/png;base64,iVBORw0KGgo=".into()),
            bytes: 8
        }
    );
    assert_eq!(
        read[1].blocks[2],
        SamplingBlock::Audio {
            mime_type: "audio/wav".into(),
            url: Some("data:audio/wav;base64,UklGRg==".into()),
            bytes: 4
        }
    );
    assert_eq!(
        read[2].blocks[0],
        SamplingBlock::ToolUse {
            name: "weather".into(),
            id: "t1".into(),
            input: "{\n  \"city\": \"Paris\"\n}".into()
        }
    );
    assert_eq!(
        read[3].blocks[0],
        SamplingBlock::ToolResult {
            tool_use_id: "t1".into(),
            is_error: false,
            content: vec![SamplingBlock::Text {
                text: "sunny".into()
            }]
        }
    );
    assert!(
        matches!(&read[4].blocks[..], [SamplingBlock::Other { kind, json }] if kind.is_empty() && json.contains("not a message"))
    );
    // A block the dialog does not know stays, as its JSON.
    assert!(matches!(
        block(&json!({"type": "resource", "resource": {"uri": "x"}})),
        SamplingBlock::Other { kind, json } if kind == "resource" && json.contains("\"uri\": \"x\"")
    ));
    assert!(
        matches!(block(&json!({"data": 1})), SamplingBlock::Other { kind, .. } if kind.is_empty())
    );
    assert!(blocks(Some(&Value::Null)).is_empty());
    assert!(messages(Some(&json!({"role": "user"}))).is_empty());
}

#[test]
fn a_data_url_is_made_only_of_what_is_what_it_claims() {
    assert_eq!(
        data_url("image/png", "iVBO Rw0K\nGgo=", "image").as_deref(),
        Some("data:image/png;base64,iVBORw0KGgo=")
    );
    for (mime_type, data, kind) in [
        ("audio/png", "iVBORw0KGgo=", "image"),
        ("image/png;x=1", "iVBORw0KGgo=", "image"),
        ("image/png", "not base64!", "image"),
        ("image/png", "", "image"),
        ("image/png", "AA===", "image"),
        ("image/", "AAAA", "image"),
        ("text/html", "PGI+", "audio"),
        ("image/svg+xml\"><script>", "AAAA", "image"),
    ] {
        assert_eq!(data_url(mime_type, data, kind), None, "{mime_type} {data}");
    }
    assert!(matches!(
        block(&json!({"type": "image", "data": "<script>", "mimeType": "image/png"})),
        SamplingBlock::Image { url: None, .. }
    ));
    assert!(matches!(
        block(&json!({"type": "audio", "data": "QUI=\n", "mimeType": "audio/wav"})),
        SamplingBlock::Audio { bytes: 2, .. }
    ));
}

#[test]
fn model_preferences_say_hints_and_priorities_or_nothing() {
    assert_eq!(model_preferences(None), None);
    assert_eq!(model_preferences(Some(&json!({}))), None);
    assert_eq!(
        model_preferences(Some(
            &json!({"hints": [{"name": "claude"}, {"x": 1}, "gpt"], "speedPriority": 0.8,
            "costPriority": "high"})
        )),
        Some(ModelPreferences {
            hints: vec!["claude".into()],
            priorities: vec![Priority {
                name: "speed".into(),
                value: 0.8
            }],
        })
    );
}

#[test]
fn the_reply_says_its_blocks_and_the_model_that_answered() {
    let content = [
        json!({"type": "tool_use", "id": "c1", "name": "get_weather", "input": {"city": "Oslo"}}),
        json!({"type": "text", "text": "Let me check."}),
    ];
    let read = reply(&content, "fake-large", Some("toolUse"));
    assert_eq!(read.model.as_deref(), Some("fake-large"));
    assert_eq!(read.stop_reason.as_deref(), Some("toolUse"));
    assert_eq!(read.role.as_deref(), Some("assistant"));
    assert_eq!(read.blocks.len(), 2);
    assert_eq!(
        read.blocks[1],
        SamplingBlock::Text {
            text: "Let me check.".into()
        }
    );
    assert!(reply(&[], "m", None).blocks.is_empty());
}
