//! What a server declares of its views (MCP Apps), read and turned into the policy a view runs under, on metadata
//! of any shape and domains assembled from what attackers write into them: directive separators, quotes, keywords,
//! scheme sources, wildcards, control characters and lookalike hosts. Reading never panics, and the policy names
//! only Wharf's directives, each with sources that are Wharf's own keywords or a plain origin.

use proptest::prelude::*;
use serde_json::json;
use wharf_core::apps::ViewPolicy;
use wharf_core::protocol::{DeclaredCsp, ResourceUi, ToolUi};

use crate::strategies::{json, text};

const DIRECTIVES: &[&str] = &[
    "default-src",
    "script-src",
    "style-src",
    "connect-src",
    "img-src",
    "font-src",
    "media-src",
    "frame-src",
    "object-src",
    "base-uri",
];

fn domain_like() -> impl Strategy<Value = String> {
    let scheme = prop::sample::select(vec![
        "https://",
        "http://",
        "wss://",
        "HTTPS://",
        "",
        "data:",
        "javascript:",
        "'",
    ]);
    let host = prop::sample::select(vec![
        "example.com",
        "*.example.com",
        "*",
        "*.com",
        "\u{430}pple.com",
        "xn--pple-43d.com",
        "a..b",
        "-a.com",
        "127.0.0.1",
        "localhost",
        "exa mple.com",
        "",
    ]);
    let tail = prop::sample::select(vec![
        "",
        "",
        ":8443",
        "/",
        "/path",
        "; script-src *",
        " 'unsafe-eval'",
        "\n",
        ":",
        "'",
        "\"",
        ",https://x.com",
    ]);
    prop_oneof![
        4 => (scheme, host, tail).prop_map(|(s, h, t)| format!("{s}{h}{t}")),
        1 => text(),
    ]
}

/// A source Wharf may write: one of its keywords, or an origin of letters, digits, dots, hyphens, a leading `*.`
/// and a port.
fn is_allowed_source(source: &str) -> bool {
    const KEYWORDS: &[&str] = &["'self'", "'none'", "'unsafe-inline'", "data:"];
    if KEYWORDS.contains(&source) {
        return true;
    }
    let Some((scheme, rest)) = source.split_once("://") else {
        return false;
    };
    let host = rest.strip_prefix("*.").unwrap_or(rest);
    ["https", "http", "wss", "ws"].contains(&scheme)
        && !host.is_empty()
        && host.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-' || b == b':'
        })
}

proptest! {
    #[test]
    fn the_policy_names_only_wharfs_directives_and_plain_origins(
        connect in prop::collection::vec(domain_like(), 0..8),
        resources in prop::collection::vec(domain_like(), 0..8),
        frames in prop::collection::vec(domain_like(), 0..4),
    ) {
        let declared = connect.len() + resources.len() + frames.len();
        let csp = DeclaredCsp { connect_domains: connect, resource_domains: resources, frame_domains: frames,
                                ..DeclaredCsp::default() };
        let policy = ViewPolicy::build(Some(&csp));
        prop_assert!(policy.refused.len() <= declared);
        prop_assert!(!policy.header.contains('\n') && !policy.header.contains('\r'));
        for directive in policy.header.split("; ") {
            let mut words = directive.split(' ');
            let name = words.next().unwrap_or_default();
            prop_assert!(DIRECTIVES.contains(&name), "{name:?} in {}", policy.header);
            for source in words {
                prop_assert!(is_allowed_source(source), "{source:?} in {}", policy.header);
            }
        }
        prop_assert!(policy.header.starts_with("default-src 'none'; "));
    }

    #[test]
    fn any_meta_is_read_without_panicking(meta in json(), ui in json()) {
        let _ = ToolUi::read(&meta);
        let _ = ResourceUi::read(&meta);
        let wrapped = json!({"ui": ui});
        let tool = ToolUi::read(&wrapped);
        prop_assert!(tool.is_some() == wrapped["ui"].is_object());
        if let Some(read) = ResourceUi::read(&wrapped) {
            let policy = ViewPolicy::build(read.csp.as_ref());
            prop_assert!(policy.header.contains("object-src 'none'"));
        }
    }
}
