use serde_json::{json, Value};

use super::*;

/// A tool's result with what Wharf does not know at every level: its own fields, a block's extra fields, a block type
/// of a later protocol, a malformed block, `_meta`, keys in no particular order.
fn unusual_result() -> Value {
    json!({
        "isError": false,
        "content": [
            {"text": "hi", "type": "text", "annotations": {"audience": ["user", "robot"], "priority": 0.5}, "x-extra": [1, 2]},
            {"type": "hologram", "frames": 3},
            {"type": "text"},
            {"type": "resource", "resource": {"uri": "demo://r", "blob": "AAEC", "checksum": "abc"}},
            7
        ],
        "structuredContent": null,
        "_meta": {"trace": "t-1"},
        "futureField": {"nested": true}
    })
}

#[test]
fn a_tool_result_serializes_as_the_server_sent_it_unknown_fields_and_key_order_included() {
    let sent = unusual_result();
    let result = ToolResult::read(sent.clone());
    assert_eq!(
        serde_json::to_string(&result).expect("JSON"),
        serde_json::to_string(&sent).expect("JSON"),
        "byte for byte, key order included"
    );
    // Read back, it is the same result.
    let again: ToolResult =
        serde_json::from_str(&serde_json::to_string(&result).expect("JSON")).expect("read");
    assert_eq!(again, result);
    assert_eq!(result.content_as_sent().len(), 5);
}

#[test]
fn what_wharf_cannot_read_is_an_unknown_block_that_keeps_its_json() {
    let result = ToolResult::read(unusual_result());
    assert!(!result.is_error);
    assert_eq!(
        result.structured_content,
        Some(Value::Null),
        "a present null is kept"
    );
    match &result.content[0] {
        ContentBlock::Text { text, annotations } => {
            assert_eq!(text, "hi");
            let annotations = annotations.as_ref().expect("annotations");
            assert_eq!(
                annotations.audience,
                [Audience::User],
                "an unknown role is left out"
            );
            assert_eq!(annotations.priority, Some(0.5));
        }
        other => panic!("not text: {other:?}"),
    }
    let unknown = |i: usize| match &result.content[i] {
        ContentBlock::Unknown(u) => (u.kind.as_str(), u.json.clone()),
        other => panic!("{i}: not unknown: {other:?}"),
    };
    assert_eq!(
        unknown(1),
        ("hologram", json!({"type": "hologram", "frames": 3}))
    );
    assert_eq!(
        unknown(2),
        ("text", json!({"type": "text"})),
        "text without text"
    );
    assert_eq!(unknown(4), ("", json!(7)));
    assert_eq!(
        result.content[3],
        ContentBlock::Resource {
            resource: ResourceContents::Blob {
                uri: "demo://r".into(),
                mime_type: None,
                blob: "AAEC".into()
            },
            annotations: None,
        }
    );
}

#[test]
fn content_that_is_not_a_list_or_a_result_that_is_not_an_object_is_one_unknown_block() {
    for sent in [
        json!({"content": {"type": "text", "text": "alone"}}),
        json!("just text"),
        json!([1, 2]),
    ] {
        let result = ToolResult::read(sent.clone());
        assert!(
            matches!(&result.content[..], [ContentBlock::Unknown(u)] if u.kind.is_empty()),
            "{sent}: {result:?}"
        );
        assert_eq!(serde_json::to_value(&result).expect("JSON"), sent);
    }
    let empty = ToolResult::read(json!({"content": null, "isError": "yes"}));
    assert!(empty.content.is_empty() && !empty.is_error && empty.structured_content.is_none());
}

#[test]
fn media_and_links_are_read_leniently() {
    let blocks: Vec<ContentBlock> = [
        json!({"type": "image", "mimeType": 5}),
        json!({"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}),
        json!({"type": "resource_link", "uri": "demo://l", "title": "L", "size": 12}),
        json!({"type": "resource_link", "name": "no uri"}),
        json!({"type": "resource", "resource": "not an object"}),
    ]
    .iter()
    .map(ContentBlock::read)
    .collect();
    assert_eq!(
        blocks[0],
        ContentBlock::Image(Media {
            data: String::new(),
            mime_type: None,
            annotations: None
        })
    );
    assert!(matches!(&blocks[1], ContentBlock::Audio(m) if m.data == "AAAA"));
    assert!(
        matches!(&blocks[2], ContentBlock::ResourceLink(l) if l.uri == "demo://l" && l.name.is_none() && l.size == Some(12))
    );
    assert!(matches!(&blocks[3], ContentBlock::Unknown(u) if u.kind == "resource_link"));
    assert!(matches!(&blocks[4], ContentBlock::Unknown(u) if u.kind == "resource"));
}

#[test]
fn a_prompt_and_a_read_resource_keep_what_they_were_sent() {
    let sent = json!({
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "one block"}},
            {"role": 3, "content": [{"type": "text", "text": "a"}, {"type": "image", "data": "AA==", "mimeType": "image/png"}]},
            "not a message",
        ],
        "description": "d",
        "_meta": {"k": 1}
    });
    let prompt = PromptResult::read(sent.clone());
    assert_eq!(prompt.description.as_deref(), Some("d"));
    assert_eq!(prompt.messages.len(), 3);
    assert_eq!(prompt.messages[0].role.as_deref(), Some("user"));
    assert_eq!(prompt.messages[0].content.len(), 1);
    assert_eq!(prompt.messages[1].role, None);
    assert_eq!(prompt.messages[1].content.len(), 2);
    assert!(prompt.messages[2].content.is_empty());
    assert_eq!(
        serde_json::to_string(&prompt).expect("JSON"),
        sent.to_string()
    );

    let sent = json!({"contents": [
        {"uri": "a", "mimeType": "text/plain", "text": "t"},
        {"uri": "b", "blob": "AA=="},
        {"mimeType": "x/y"},
        null
    ]});
    let read = ResourceRead::read(sent.clone());
    assert_eq!(read.contents[0].uri(), "a");
    assert_eq!(read.contents[0].mime_type(), Some("text/plain"));
    assert!(matches!(&read.contents[1], ResourceContents::Blob { blob, .. } if blob == "AA=="));
    assert!(
        matches!(&read.contents[2], ResourceContents::Unknown { uri, mime_type: Some(m), .. } if uri.is_empty() && m == "x/y")
    );
    assert!(matches!(
        &read.contents[3],
        ResourceContents::Unknown {
            json: Value::Null,
            ..
        }
    ));
    assert_eq!(serde_json::to_value(&read).expect("JSON"), sent);
}

#[test]
fn a_list_item_without_its_name_is_malformed_and_printed_as_sent() {
    let items = [
        json!({"name": "r", "uri": "demo://r", "size": "big", "icons": [{"src": "i.png"}]}),
        json!({"uri": "demo://nameless"}),
    ];
    let listed: Vec<Listed<Resource>> = items.iter().cloned().map(Resource::read).collect();
    let first = listed[0].item().expect("read");
    assert_eq!(
        (first.uri.as_str(), first.name.as_str(), first.size),
        ("demo://r", "r", None)
    );
    assert!(matches!(&listed[1], Listed::Malformed(json) if json == &items[1]));
    assert_eq!(
        serde_json::to_string(&listed).expect("JSON"),
        serde_json::to_string(&items).expect("JSON")
    );

    let template = ResourceTemplate::read(json!({"uriTemplate": "demo://{id}", "name": "t"}));
    assert_eq!(
        template.item().map(|t| t.uri_template.as_str()),
        Some("demo://{id}")
    );
    assert!(
        ResourceTemplate::read(json!({"uri": "demo://x", "name": "t"}))
            .item()
            .is_none()
    );

    let prompt = Prompt::read(json!({"name": "p", "arguments": [
        {"name": "a", "required": true}, {"name": "b", "required": "yes"}, {"title": "nameless"}
    ]}));
    let prompt = prompt.item().expect("read");
    assert_eq!(prompt.arguments.len(), 2);
    assert!(prompt.arguments[0].required && !prompt.arguments[1].required);
    assert!(Prompt::read(json!(["no"])).item().is_none());
}

#[test]
fn completion_values_that_are_not_text_are_kept_but_not_offered() {
    let completion = CompletionResult::read(
        &json!({"values": ["a", 3, null, "b"], "total": 9, "hasMore": true}),
    );
    assert_eq!(completion.texts().collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(
        serde_json::to_value(&completion.values).expect("JSON"),
        json!(["a", 3, null, "b"])
    );
    assert_eq!((completion.total, completion.has_more), (Some(9), true));
    assert_eq!(
        CompletionResult::read(&json!("nothing")),
        CompletionResult::default()
    );
}

#[test]
fn a_completion_reference_is_written_as_the_protocol_s_ref() {
    assert_eq!(
        serde_json::to_value(CompletionReference::Prompt { name: "p".into() }).expect("JSON"),
        json!({"type": "ref/prompt", "name": "p"})
    );
    assert_eq!(
        serde_json::to_value(CompletionReference::ResourceTemplate {
            uri: "demo://{id}".into()
        })
        .expect("JSON"),
        json!({"type": "ref/resource", "uri": "demo://{id}"})
    );
}

#[test]
fn subscriptions_are_offered_only_when_the_server_says_subscribe_true() {
    let read =
        |json: Value| serde_json::from_value::<ServerCapabilities>(json).expect("capabilities");
    assert!(read(json!({"resources": {"subscribe": true}})).subscribes());
    assert!(!read(json!({"resources": {"subscribe": false}})).subscribes());
    assert!(!read(json!({"resources": {}})).subscribes());
    assert!(!read(json!({})).subscribes());
    assert!(ListCapability::changes(
        read(json!({"tools": {"listChanged": true}})).tools.as_ref()
    ));
    assert!(!ListCapability::changes(
        read(json!({"tools": {}})).tools.as_ref()
    ));
}
