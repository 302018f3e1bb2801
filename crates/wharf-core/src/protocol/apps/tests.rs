// Unit tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;

use super::*;

#[test]
fn a_tool_without_ui_meta_has_no_view_and_keeps_its_default_visibility() {
    assert_eq!(ToolUi::read(&json!({})), None);
    assert_eq!(ToolUi::read(&json!({"ui": "not an object"})), None);
    assert_eq!(
        ToolUi::read(&json!({"other": {"resourceUri": "ui://x"}})),
        None
    );
}

#[test]
fn the_nested_resource_uri_wins_over_the_legacy_key() {
    // As the SDK's registerAppTool writes it: both keys.
    let both =
        json!({"ui": {"resourceUri": "ui://get-time/mcp-app.html"}, "ui/resourceUri": "ui://old"});
    let ui = ToolUi::read(&both).unwrap();
    assert_eq!(
        ui.resource_uri.as_deref(),
        Some("ui://get-time/mcp-app.html")
    );
    assert_eq!(ui.visibility, Visibility::default());
    let legacy = ToolUi::read(&json!({"ui/resourceUri": "ui://old"})).unwrap();
    assert_eq!(legacy.resource_uri.as_deref(), Some("ui://old"));
    // A resource URI of the wrong type is none; the visibility still counts.
    let odd = ToolUi::read(&json!({"ui": {"resourceUri": 7, "visibility": ["app"]}})).unwrap();
    assert_eq!(odd.resource_uri, None);
    assert_eq!(
        odd.visibility,
        Visibility {
            model: false,
            app: true
        }
    );
}

#[test]
fn visibility_is_what_is_named_and_both_when_nothing_is() {
    let read = |v: serde_json::Value| {
        ToolUi::read(&json!({"ui": {"visibility": v}}))
            .unwrap()
            .visibility
    };
    assert_eq!(
        read(json!(["model"])),
        Visibility {
            model: true,
            app: false
        }
    );
    assert_eq!(
        read(json!(["app", "model"])),
        Visibility {
            model: true,
            app: true
        }
    );
    // An empty list names no one: neither the model nor a view may call the tool.
    assert_eq!(
        read(json!([])),
        Visibility {
            model: false,
            app: false
        }
    );
    // Words it does not know, and items that are not strings, name no one.
    assert_eq!(
        read(json!(["MODEL", 1, null, "apps"])),
        Visibility {
            model: false,
            app: false
        }
    );
    // Not a list: the default.
    assert_eq!(read(json!("app")), Visibility::default());
}

#[test]
fn a_resources_ui_meta_is_read_field_by_field_leniently() {
    let ui = ResourceUi::read(&json!({"ui": {
        "csp": {"connectDomains": ["https://api.example.com", 5], "resourceDomains": "https://cdn.example.com"},
        "permissions": {"camera": {}, "microphone": true, "geolocation": false, "clipboardWrite": "yes"},
        "domain": "abc.example.com",
        "prefersBorder": "no",
    }}))
    .unwrap();
    let csp = ui.csp.unwrap();
    assert_eq!(csp.connect_domains, ["https://api.example.com"]);
    assert!(csp.resource_domains.is_empty(), "a string is not a list");
    assert_eq!(
        ui.permissions,
        DeclaredPermissions {
            camera: true,
            microphone: true,
            geolocation: false,
            clipboard_write: false
        }
    );
    assert_eq!(ui.domain.as_deref(), Some("abc.example.com"));
    assert_eq!(ui.prefers_border, None);
    assert_eq!(ResourceUi::read(&json!({"ui": []})), None);
}

#[test]
fn the_content_items_declaration_wins_and_the_listing_fills_the_rest() {
    let listing = ResourceUi::read(&json!({"ui": {
        "csp": {"connectDomains": ["https://listed.example.com"]},
        "prefersBorder": true,
        "domain": "listed",
    }}));
    let content = ResourceUi::read(
        &json!({"ui": {"csp": {"connectDomains": ["https://content.example.com"]}}}),
    );
    let merged = ResourceUi::merged(listing.clone(), content).unwrap();
    assert_eq!(
        merged.csp.unwrap().connect_domains,
        ["https://content.example.com"]
    );
    assert_eq!(merged.prefers_border, Some(true));
    assert_eq!(merged.domain.as_deref(), Some("listed"));
    assert_eq!(ResourceUi::merged(listing.clone(), None), listing);
    assert_eq!(ResourceUi::merged(None, None), None);
}
