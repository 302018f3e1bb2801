//! The shaping and the caps, on what a server might send.

use base64::Engine as _;
use serde_json::{json, Value};

use super::catalog::*;
use super::content::*;
use crate::protocol::{
    CompletionResult, Prompt, PromptResult, Resource, ResourceRead, ResourceTemplate,
};

fn read(result: Value) -> ResourceRead {
    ResourceRead::read(result)
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[test]
fn list_items_are_typed_and_malformed_ones_counted() {
    let (resources, skipped) = resource_infos(&[
        Resource::read(
            json!({"uri": "demo://a", "name": "a", "title": "A", "mimeType": "text/plain", "size": 12}),
        ),
        Resource::read(json!({"uri": "demo://b"})),
        Resource::read(json!({"name": "no uri"})),
        Resource::read(json!("not an object")),
    ]);
    assert_eq!(skipped, 3);
    assert_eq!(
        resources,
        [ResourceInfo {
            uri: "demo://a".into(),
            name: "a".into(),
            title: Some("A".into()),
            description: None,
            mime_type: Some("text/plain".into()),
            size: Some(12),
        }]
    );

    let (templates, skipped) = template_infos(&[
        ResourceTemplate::read(
            json!({"uriTemplate": "demo://{id}", "name": "t", "description": "d"}),
        ),
        ResourceTemplate::read(json!({"uri": "demo://x", "name": "not a template"})),
    ]);
    assert_eq!(skipped, 1);
    assert_eq!(templates[0].uri_template, "demo://{id}");
    assert_eq!(templates[0].description.as_deref(), Some("d"));

    let (prompts, skipped) = prompt_infos(&[
        Prompt::read(json!({"name": "p", "arguments": [
            {"name": "department", "description": "Choose", "required": true},
            {"name": "name"},
            {"description": "nameless: dropped"}
        ]})),
        Prompt::read(json!({"title": "no name"})),
    ]);
    assert_eq!(skipped, 1);
    assert_eq!(prompts[0].arguments.len(), 2);
    assert!(prompts[0].arguments[0].required);
    assert!(!prompts[0].arguments[1].required);
}

#[test]
fn text_is_capped_at_one_mib_on_a_character_boundary() {
    let small = resource_view(
        "demo://a",
        &read(
            json!({"contents": [{"uri": "demo://a", "mimeType": "text/markdown", "text": "# Hello"}]}),
        ),
    );
    assert_eq!(
        small.contents,
        [ContentView::Text {
            uri: "demo://a".into(),
            mime_type: Some("text/markdown".into()),
            text: "# Hello".into(),
            truncated: false,
            bytes: 7,
        }]
    );

    // 50 MB of text (with a two-byte character across the cut): 1 MiB reaches the window, and says it was cut. The
    // item's URI counts against the cap too (a server could put its megabytes there).
    let uri = "demo://big";
    let mut big = "a".repeat(TEXT_CAP - uri.len() - 1);
    big.push('é');
    big.push_str(&"b".repeat(50_000_000));
    let view = resource_view(
        "demo://big",
        &read(json!({"contents": [{"uri": uri, "text": big}]})),
    );
    let ContentView::Text {
        text,
        truncated,
        bytes,
        ..
    } = &view.contents[0]
    else {
        panic!("text expected: {:?}", view.contents[0]);
    };
    assert!(truncated);
    assert_eq!(*bytes, big.len() as u64);
    assert_eq!(
        text.len(),
        TEXT_CAP - uri.len() - 1,
        "cut before the character that crosses the cap"
    );
    assert!(text.chars().all(|c| c == 'a'));

    // The cap is for the whole result: a second text item gets what is left, here nothing (the first item's URI and
    // text take it all).
    let two = resource_view(
        "demo://two",
        &read(
            json!({"contents": [{"uri": "1", "text": "x".repeat(TEXT_CAP - 1)}, {"uri": "2", "text": "more"}]}),
        ),
    );
    assert!(matches!(
        &two.contents[0],
        ContentView::Text {
            truncated: false,
            ..
        }
    ));
    assert!(
        matches!(&two.contents[1], ContentView::Text { truncated: true, text, .. } if text.is_empty())
    );
}

#[test]
fn images_are_sent_as_checked_base64_and_other_blobs_only_as_their_size() {
    let png = b64(&[0x89, b'P', b'N', b'G', 1, 2, 3, 4]);
    let view = resource_view(
        "demo://r",
        &read(json!({"contents": [
            {"uri": "demo://img", "mimeType": "IMAGE/PNG", "blob": png},
            {"uri": "demo://bin", "mimeType": "application/octet-stream", "blob": b64(&[0; 1000])},
            {"uri": "demo://bad", "mimeType": "image/png", "blob": "not base64!"},
            {"uri": "demo://none"}
        ]})),
    );
    assert_eq!(
        view.contents[0],
        ContentView::Image {
            uri: "demo://img".into(),
            mime_type: "image/png".into(),
            data: png.clone(),
            bytes: 8,
        }
    );
    assert_eq!(
        view.contents[1],
        ContentView::Blob {
            uri: "demo://bin".into(),
            mime_type: Some("application/octet-stream".into()),
            bytes: 1000,
            index: 1,
            note: None,
        }
    );
    let ContentView::Blob { index, note, .. } = &view.contents[2] else {
        panic!("an undecodable image is a blob: {:?}", view.contents[2]);
    };
    assert_eq!(*index, 2);
    assert!(
        note.as_deref().is_some_and(|n| n.contains("base64")),
        "{note:?}"
    );
    assert_eq!(
        view.contents[3],
        ContentView::Empty {
            uri: "demo://none".into()
        }
    );

    // The serialized form never carries a non-image blob's data.
    let sent = serde_json::to_string(&view).expect("serializes");
    assert!(!sent.contains(&b64(&[0; 1000])));
    assert!(
        sent.contains(r#""kind":"blob""#)
            && sent.contains(r#""mimeType":"application/octet-stream""#)
    );
}

#[test]
fn images_past_ten_mib_stay_out_of_the_window() {
    let big = b64(&vec![7u8; IMAGE_CAP + 1]);
    let small = b64(&[7u8; 100]);
    let view = resource_view(
        "demo://r",
        &read(json!({"contents": [
            {"uri": "big", "mimeType": "image/jpeg", "blob": big},
            {"uri": "small", "mimeType": "image/jpeg", "blob": small}
        ]})),
    );
    let ContentView::Blob { bytes, note, .. } = &view.contents[0] else {
        panic!("too big to show: {:?}", view.contents[0]);
    };
    assert_eq!(*bytes, (IMAGE_CAP + 1) as u64);
    assert!(
        note.as_deref().is_some_and(|n| n.contains("10 MiB")),
        "{note:?}"
    );
    assert!(matches!(
        view.contents[1],
        ContentView::Image { bytes: 100, .. }
    ));

    // Together over the cap: the second image is not sent either.
    let half = b64(&vec![1u8; IMAGE_CAP / 2 + 1]);
    let view = resource_view(
        "demo://r",
        &read(json!({"contents": [
            {"uri": "1", "mimeType": "image/png", "blob": half},
            {"uri": "2", "mimeType": "image/png", "blob": half}
        ]})),
    );
    assert!(matches!(view.contents[0], ContentView::Image { .. }));
    assert!(matches!(
        view.contents[1],
        ContentView::Blob { index: 1, .. }
    ));
}

#[test]
fn a_blob_is_found_again_for_saving() {
    let result = read(json!({"contents": [
        {"uri": "a", "text": "t"},
        {"uri": "b", "blob": b64(b"\x00\x01binary")}
    ]}));
    assert_eq!(blob_at(&result, 1).expect("blob"), b"\x00\x01binary");
    assert_eq!(blob_at(&result, 0), Err(BlobError::NotBinary(0)));
    assert_eq!(blob_at(&result, 5), Err(BlobError::Gone(5)));
    assert_eq!(
        BlobError::Gone(5).to_string(),
        "the resource has no content 5 any more"
    );
    assert_eq!(
        blob_at(&read(json!({"contents": [{"blob": "!!"}]})), 0),
        Err(BlobError::NotBase64)
    );
    // Line-wrapped and unpadded base64 decode too.
    assert_eq!(decode("aGVs\nbG8=").expect("wrapped"), b"hello");
    assert_eq!(decode("aGVsbG8").expect("unpadded"), b"hello");
}

#[test]
fn a_saved_blob_is_named_after_its_uri() {
    assert_eq!(
        file_name_for("demo://resource/static/blob/logo%20v2.png"),
        "logo v2.png"
    );
    assert_eq!(file_name_for("file:///tmp/a/b.bin?x=1#frag"), "b.bin");
    assert_eq!(file_name_for("demo://"), "resource");
    assert_eq!(file_name_for("demo:"), "resource");
    assert_eq!(
        file_name_for("demo://x/..%2F..%2Fetc%2Fpasswd"),
        "etcpasswd"
    );
    assert_eq!(file_name_for("demo://x/%2e%2e"), "resource");
    assert_eq!(file_name_for("demo://x/a%00b%"), "ab%");
    assert_eq!(file_name_for("demo://x/é%C3%A9"), "éé");
}

#[test]
fn prompt_messages_are_shaped_with_their_text_to_copy() {
    let png = b64(b"\x89PNG....");
    let view = prompt_view(&PromptResult::read(json!({
        "description": "Team",
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Please promote Alice to the head of the Engineering team."}},
            {"role": "assistant", "content": [
                {"type": "image", "mimeType": "image/png", "data": png},
                {"type": "audio", "mimeType": "audio/wav", "data": b64(&[0; 30])},
                {"type": "resource", "resource": {"uri": "demo://doc", "mimeType": "text/plain", "text": "embedded"}},
                {"type": "resource_link", "uri": "demo://l", "name": "link"},
                {"type": "mystery", "x": 1}
            ]},
            {"content": {"type": "text", "text": "<b>not html</b>"}}
        ]
    })));
    assert_eq!(view.description.as_deref(), Some("Team"));
    assert_eq!(view.messages.len(), 3);
    assert_eq!(view.messages[0].role, "user");
    assert_eq!(view.messages[2].role, "unknown");
    let blocks = &view.messages[1].blocks;
    assert!(
        matches!(&blocks[0], MessageBlock::Image { mime_type, .. } if mime_type == "image/png")
    );
    assert!(matches!(&blocks[1], MessageBlock::Binary { bytes: 30, .. }));
    assert!(matches!(
        &blocks[2],
        MessageBlock::Resource { content: ContentView::Text { text, .. } } if text == "embedded"
    ));
    assert!(
        matches!(&blocks[3], MessageBlock::ResourceLink { uri, name, .. } if uri == "demo://l" && name == "link")
    );
    assert!(
        matches!(&blocks[4], MessageBlock::Other { label, json } if label == "mystery" && json.contains("\"x\": 1"))
    );
    assert_eq!(
        view.text,
        "Please promote Alice to the head of the Engineering team.\n\nembedded\n\n<b>not html</b>"
    );
}

#[test]
fn completions_are_capped_at_a_hundred() {
    let many: Vec<String> = (0..150).map(|i| format!("v{i}")).collect();
    let c = completion(&CompletionResult::read(
        &json!({"values": many, "total": 150}),
    ));
    assert_eq!(c.values.len(), 100);
    assert_eq!(c.values[99], "v99");
    assert_eq!(c.total, Some(150));
    assert!(c.has_more);

    let c = completion(&CompletionResult::read(
        &json!({"values": ["Engineering", 3, null]}),
    ));
    assert_eq!(c.values, ["Engineering"]);
    assert!(!c.has_more);
    assert_eq!(c.total, None);
    assert_eq!(
        completion(&CompletionResult::read(&json!({}))).values.len(),
        0
    );
}
