use base64::Engine as _;
use serde_json::json;

use super::*;
use crate::view::content::{IMAGE_CAP, TEXT_CAP};

fn shaped(result: serde_json::Value) -> ToolResultView {
    tool_result_view(&ToolResult::read(result))
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn text_of(block: &MessageBlock) -> (&str, bool) {
    match block {
        MessageBlock::Text { text, truncated } => (text, *truncated),
        other => panic!("not text: {other:?}"),
    }
}

/// What the webview receives, in bytes: the bound that matters.
fn wire_len(view: &ToolResultView) -> usize {
    serde_json::to_vec(view).unwrap().len()
}

#[test]
fn text_is_cut_at_the_cap_across_all_items_and_says_so() {
    let big = "é".repeat(TEXT_CAP); // 2 MiB of two-byte characters
    let view = shaped(json!({
        "content": [{"type": "text", "text": "first"}, {"type": "text", "text": big}, {"type": "text", "text": "late"}]
    }));
    assert_eq!(text_of(&view.blocks[0]), ("first", false));
    let (cut, truncated) = text_of(&view.blocks[1]);
    assert!(truncated);
    assert!(cut.len() <= TEXT_CAP - "first".len() && cut.len() > TEXT_CAP - 8);
    assert!(cut.chars().all(|c| c == 'é'), "cut on a character boundary");
    assert_eq!(
        text_of(&view.blocks[2]),
        ("", true),
        "nothing is left for later items"
    );
    assert!(wire_len(&view) < TEXT_CAP + 4096);
}

#[test]
fn images_over_what_is_left_of_the_image_cap_are_named_not_sent() {
    let six_mib = b64(&vec![0u8; 6 * 1024 * 1024]);
    let view = shaped(json!({"content": [
        {"type": "image", "mimeType": "image/png", "data": six_mib},
        {"type": "image", "mimeType": "image/png", "data": six_mib},
    ]}));
    assert!(
        matches!(&view.blocks[0], MessageBlock::Image { bytes, .. } if *bytes == 6 * 1024 * 1024)
    );
    match &view.blocks[1] {
        MessageBlock::Binary { note, bytes, .. } => {
            assert_eq!(*bytes, 6 * 1024 * 1024);
            assert!(note.contains("10 MiB"), "{note}");
        }
        other => panic!("the second image went through: {other:?}"),
    }
    assert!(wire_len(&view) < IMAGE_CAP * 4 / 3 + 4096);
}

#[test]
fn structured_content_shares_the_text_cap() {
    let view = shaped(json!({
        "content": [{"type": "text", "text": "x".repeat(TEXT_CAP - 10)}],
        "structuredContent": {"rows": vec!["row"; 1000]},
    }));
    let structured = view.structured.as_deref().unwrap();
    assert!(view.structured_truncated);
    assert!(structured.len() <= 10, "{structured}");

    let small = shaped(json!({"content": [], "structuredContent": {"a": 1}, "isError": true}));
    assert_eq!(small.structured.as_deref(), Some("{\n  \"a\": 1\n}"));
    assert!(!small.structured_truncated && small.is_error);
}

#[test]
fn strings_of_links_labels_and_types_count_against_the_cap() {
    let huge = "L".repeat(2 * TEXT_CAP);
    let view = shaped(json!({"content": [
        {"type": "resource_link", "uri": huge, "name": huge, "description": huge, "mimeType": huge},
        {"type": huge},
        {"type": "audio", "mimeType": huge, "data": ""},
        {"type": "resource", "resource": {"uri": huge, "mimeType": huge, "text": huge}},
    ]}));
    assert_eq!(view.blocks.len(), 4);
    assert!(
        wire_len(&view) < TEXT_CAP + 4096,
        "{} bytes",
        wire_len(&view)
    );
}

#[test]
fn a_flood_of_items_is_cut_to_a_bounded_number_of_blocks() {
    let items = vec![json!({"type": "x"}); 200_000];
    let view = shaped(json!({ "content": items }));
    assert_eq!(view.blocks.len(), MAX_BLOCKS + 1);
    match view.blocks.last() {
        Some(MessageBlock::Other { label, .. }) => {
            assert!(label.contains("199000 more"), "{label}")
        }
        other => panic!("no note: {other:?}"),
    }
    assert!(
        wire_len(&view) < 200 * MAX_BLOCKS,
        "{} bytes",
        wire_len(&view)
    );
}

#[test]
fn results_that_are_not_objects_or_lack_content_are_still_shown() {
    let odd = shaped(json!(["not", "an", "object"]));
    assert!(
        matches!(&odd.blocks[..], [MessageBlock::Other { label, json }] if label == "content" && json.contains("object"))
    );
    // Content that is one block rather than a list of them is shown as the server sent it, not read as a block.
    let one_block = shaped(json!({"content": {"type": "text", "text": "alone"}}));
    assert!(
        matches!(&one_block.blocks[..], [MessageBlock::Other { label, json }] if label == "content" && json.contains("alone"))
    );
    let text_content = shaped(json!({"content": "just a string"}));
    assert!(
        matches!(&text_content.blocks[..], [MessageBlock::Other { label, .. }] if label == "content")
    );
    let empty = shaped(json!({}));
    assert!(empty.blocks.is_empty() && empty.structured.is_none() && !empty.is_error);
}

#[test]
fn every_kind_of_content_item_becomes_its_block() {
    let view = shaped(json!({
        "content": [
            {"type": "text", "text": "hello <b>world</b>"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "image", "data": "AAAA", "mimeType": "application/javascript"},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt", "description": "A file"},
            {"type": "resource", "resource": {"uri": "test://r", "mimeType": "text/plain", "text": "inside"}},
            {"type": "resource", "resource": {"uri": "test://z", "mimeType": "application/zip", "blob": "UEsDBA=="}},
            {"type": "mystery", "x": 1},
            5,
        ],
        "structuredContent": {"sum": 3},
    }));
    let kinds: Vec<&str> = view
        .blocks
        .iter()
        .map(|b| match b {
            MessageBlock::Text { .. } => "text",
            MessageBlock::Image { .. } => "image",
            MessageBlock::Binary { .. } => "binary",
            MessageBlock::ResourceLink { .. } => "link",
            MessageBlock::Resource { .. } => "resource",
            MessageBlock::Other { .. } => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        ["text", "image", "binary", "binary", "link", "resource", "resource", "other", "other"]
    );
    assert_eq!(text_of(&view.blocks[0]), ("hello <b>world</b>", false));
    match &view.blocks[2] {
        MessageBlock::Binary { note, .. } => assert!(note.contains("not an image type"), "{note}"),
        other => panic!("{other:?}"),
    }
    match &view.blocks[6] {
        MessageBlock::Resource { content } => assert!(
            matches!(
                content,
                crate::view::content::ContentView::Blob { bytes: 4, .. }
            ),
            "a blob is named by its size only: {content:?}"
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(view.structured.as_deref(), Some("{\n  \"sum\": 3\n}"));
    assert!(!view.is_error);
}
