// Unit tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use base64::Engine as _;
use serde_json::json;

use super::*;

const URI: &str = "ui://get-time/mcp-app.html";

fn read(contents: serde_json::Value) -> ResourceRead {
    ResourceRead::read(json!({ "contents": contents }))
}

#[test]
fn a_text_view_is_taken_with_the_default_policy_when_it_declares_nothing() {
    let sent =
        read(json!([{"uri": URI, "mimeType": VIEW_MIME_TYPE, "text": "<!doctype html><p>hi"}]));
    let view = ViewDocument::from_read(URI, &sent, None).unwrap();
    assert_eq!(view.html, "<!doctype html><p>hi");
    assert!(
        view.policy.header.contains("connect-src 'none'"),
        "{}",
        view.policy.header
    );
}

#[test]
fn a_blob_view_is_decoded() {
    let blob = base64::engine::general_purpose::STANDARD.encode("<p>from a blob</p>");
    let sent = read(json!([{"uri": URI, "mimeType": "text/html; profile=mcp-app", "blob": blob}]));
    assert_eq!(
        ViewDocument::from_read(URI, &sent, None).unwrap().html,
        "<p>from a blob</p>"
    );
    let not_utf8 = base64::engine::general_purpose::STANDARD.encode([0xff, 0xfe, 0x00]);
    let sent = read(json!([{"uri": URI, "mimeType": VIEW_MIME_TYPE, "blob": not_utf8}]));
    assert_eq!(
        ViewDocument::from_read(URI, &sent, None),
        Err(ViewError::NotUtf8)
    );
    let sent = read(json!([{"uri": URI, "mimeType": VIEW_MIME_TYPE, "blob": "!!not base64!!"}]));
    assert!(matches!(
        ViewDocument::from_read(URI, &sent, None),
        Err(ViewError::BadBase64 { .. })
    ));
}

#[test]
fn only_the_extensions_html_from_a_ui_uri_is_a_view() {
    let html = |mime: &str| read(json!([{"uri": URI, "mimeType": mime, "text": "<p>"}]));
    for wrong in [
        "text/html",
        "text/html+mcp",
        "application/javascript",
        "text/html;profile=mcp-app-x",
    ] {
        assert!(
            matches!(
                ViewDocument::from_read(URI, &html(wrong), None),
                Err(ViewError::WrongMimeType { .. })
            ),
            "{wrong}"
        );
    }
    let no_type = read(json!([{"uri": URI, "text": "<p>"}]));
    assert!(matches!(
        ViewDocument::from_read(URI, &no_type, None),
        Err(ViewError::WrongMimeType { .. })
    ));
    for uri in [
        "https://example.com/app.html",
        "file:///etc/passwd",
        "UI://x",
    ] {
        assert_eq!(
            ViewDocument::from_read(uri, &html(VIEW_MIME_TYPE), None),
            Err(ViewError::NotUiScheme { uri: uri.into() })
        );
    }
    assert_eq!(
        ViewDocument::from_read(URI, &read(json!([])), None),
        Err(ViewError::NoContent { uri: URI.into() })
    );
}

#[test]
fn an_oversized_view_is_refused_before_it_is_decoded() {
    let huge = "a".repeat(usize::try_from(MAX_VIEW_BYTES).unwrap() + 1);
    let sent = read(json!([{"uri": URI, "mimeType": VIEW_MIME_TYPE, "text": huge}]));
    assert!(matches!(
        ViewDocument::from_read(URI, &sent, None),
        Err(ViewError::TooLarge { .. })
    ));
    let blob = "QUFB".repeat(usize::try_from(MAX_VIEW_BYTES / 3).unwrap() + 1);
    let sent = read(json!([{"uri": URI, "mimeType": VIEW_MIME_TYPE, "blob": blob}]));
    assert!(matches!(
        ViewDocument::from_read(URI, &sent, None),
        Err(ViewError::TooLarge { .. })
    ));
}

#[test]
fn the_item_for_the_uri_is_read_and_its_declaration_wins_over_the_listing() {
    let sent = read(json!([
        {"uri": "ui://other", "mimeType": "text/plain", "text": "not this"},
        {"uri": URI, "mimeType": VIEW_MIME_TYPE, "text": "<p>this</p>",
         "_meta": {"ui": {"csp": {"connectDomains": ["https://content.example.com"]}}}},
    ]));
    let listed = crate::protocol::ResourceUi::read(&json!({"ui": {
        "csp": {"connectDomains": ["https://listed.example.com"]}, "prefersBorder": false}}));
    let view = ViewDocument::from_read(URI, &sent, listed).unwrap();
    assert_eq!(view.html, "<p>this</p>");
    assert!(
        view.policy
            .header
            .contains("connect-src 'self' https://content.example.com;"),
        "{}",
        view.policy.header
    );
    assert!(!view.policy.header.contains("listed.example.com"));
    assert_eq!(view.ui.prefers_border, Some(false));
}
