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

mod bridge {
    //! A view's messages, whatever it sends: the bridge never panics, answers a request with its own id exactly once,
    //! and never calls a tool its server keeps from views or does not have.

    use std::sync::Mutex;
    use std::time::Instant;

    use async_trait::async_trait;
    use proptest::prelude::*;
    use serde_json::{json, Map, Value};
    use wharf_core::apps::bridge::{Theme, ToView, ViewBridge, ViewServices};
    use wharf_core::protocol::{ToolUi, Visibility};
    use wharf_core::ToolInfo;

    use crate::strategies::{json, text};

    fn tool(name: &str, visibility: Visibility) -> ToolInfo {
        ToolInfo {
            name: name.into(),
            title: None,
            description: None,
            input_schema: json!({"type": "object"}),
            output_schema: None,
            annotations: None,
            ui: Some(ToolUi {
                resource_uri: None,
                visibility,
            }),
        }
    }

    #[derive(Default)]
    struct Recorder {
        called: Mutex<Vec<String>>,
        saved: Mutex<Vec<String>>,
    }

    #[async_trait]
    impl ViewServices for Recorder {
        async fn tools(&self) -> Result<Vec<ToolInfo>, String> {
            Ok(vec![
                tool("open", Visibility::default()),
                tool(
                    "model_only",
                    Visibility {
                        model: true,
                        app: false,
                    },
                ),
            ])
        }
        async fn call_tool(
            &self,
            tool: &ToolInfo,
            _arguments: Map<String, Value>,
        ) -> Result<Value, String> {
            self.called.lock().unwrap().push(tool.name.clone());
            Ok(json!({"content": []}))
        }
        async fn read_resource(&self, _uri: &str) -> Result<Value, String> {
            Ok(json!({"contents": []}))
        }
        async fn open_link(&self, _url: &str) -> bool {
            false
        }
        async fn save_file(&self, name: &str, _bytes: Vec<u8>) -> Result<Option<String>, String> {
            self.saved.lock().unwrap().push(name.to_owned());
            Ok(None)
        }
    }

    fn message() -> impl Strategy<Value = Value> {
        let method = prop_oneof![
            Just(json!("tools/call")),
            Just(json!("tools/list")),
            Just(json!("ui/initialize")),
            Just(json!("ui/notifications/initialized")),
            Just(json!("ui/notifications/size-changed")),
            Just(json!("ui/message")),
            Just(json!("ui/update-model-context")),
            Just(json!("ui/open-link")),
            Just(json!("ui/download-file")),
            Just(json!("resources/read")),
            text().prop_map(Value::String),
            json(),
        ];
        let name = prop_oneof![
            Just(json!("open")),
            Just(json!("model_only")),
            Just(json!("missing")),
            json()
        ];
        let id = prop_oneof![
            Just(None),
            (0u64..5).prop_map(|n| Some(json!(n))),
            json().prop_map(Some)
        ];
        (method, name, id, json(), json()).prop_map(|(method, name, id, arguments, params)| {
            let params = if method == "tools/call" {
                json!({"name": name, "arguments": arguments})
            } else if method == "ui/download-file" {
                // An offer whose file's name and contents are what the attacker wrote.
                json!({"contents": [{"type": "resource", "resource": {"uri": name, "text": arguments}},
                                    {"type": "resource_link", "uri": arguments, "name": params}]})
            } else {
                params
            };
            let mut message = json!({"jsonrpc": "2.0", "method": method, "params": params});
            if let Some(id) = id {
                message["id"] = id;
            }
            message
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]
        #[test]
        fn any_message_is_answered_once_by_its_id_and_never_reaches_a_hidden_tool(
            messages in prop::collection::vec(message(), 1..12)
        ) {
            let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
            let recorder = Recorder::default();
            let mut view = ViewBridge::new("s", tool("open", Visibility::default()), Map::new(), Theme::Light);
            runtime.block_on(async {
                for message in &messages {
                    let handled = view.handle(message, &recorder, Instant::now()).await;
                    let is_request = message.get("id").is_some() && message.get("method").and_then(Value::as_str).is_some();
                    let answers: Vec<&Value> = handled
                        .replies
                        .iter()
                        .filter_map(|r| match r {
                            ToView::Result { id, .. } | ToView::Error { id, .. } => Some(id),
                            _ => None,
                        })
                        .collect();
                    if is_request {
                        prop_assert_eq!(answers, vec![&message["id"]]);
                    } else {
                        prop_assert!(answers.is_empty());
                    }
                }
                Ok(())
            })?;
            let called = recorder.called.lock().unwrap();
            prop_assert!(called.iter().all(|name| name == "open"), "{called:?}");
            let saved = recorder.saved.lock().unwrap();
            prop_assert!(saved.iter().all(|name| super::safe_file_name(name)), "{saved:?}");
        }
    }
}

/// A name the save dialog may be offered: one path component, not hidden, not empty, nothing invisible or reversing
/// in it, at most 120 characters.
fn safe_file_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= 120
        && !name.starts_with('.')
        && !name.contains(['/', '\\', ':'])
        && !name.chars().any(wharf_core::display_text::is_hazard)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]
    #[test]
    fn a_file_name_from_any_uri_is_one_safe_component(uri in prop_oneof![
        text(),
        (text(), text()).prop_map(|(a, b)| format!("file:///{a}/../{b}")),
        text().prop_map(|t| format!(".{t}\u{202e}gpj.exe")),
    ]) {
        let name = wharf_core::view::content::file_name_for(&uri);
        prop_assert!(safe_file_name(&name), "{uri:?} -> {name:?}");
    }
}
