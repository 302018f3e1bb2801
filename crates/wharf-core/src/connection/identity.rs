//! What a server said of itself and of its tools, from rmcp's reading into Wharf's protocol types, field by field.

use rmcp::model as wire;
use rmcp::service::{RoleClient, RunningService};

use super::handler::WharfHandler;
use super::ServerIdentity;
use crate::era::{Era, LEGACY_VERSION, MODERN_VERSION};
use crate::protocol::{
    Icon, ListCapability, ResourcesCapability, ServerCapabilities, ServerInfo, ToolAnnotations,
};

pub(super) fn identity_of(
    service: &RunningService<RoleClient, WharfHandler>,
    era: Era,
) -> ServerIdentity {
    let info = service.peer().peer_info();
    ServerIdentity {
        era,
        protocol_version: info
            .as_ref()
            .map(|i| i.protocol_version.to_string())
            .unwrap_or_else(|| match era {
                Era::Modern => MODERN_VERSION.into(),
                Era::Legacy => LEGACY_VERSION.into(),
            }),
        server_info: info
            .as_ref()
            .and_then(|i| i.server_info.as_ref())
            .map(server_info),
        instructions: info.as_ref().and_then(|i| i.instructions.clone()),
        capabilities: info
            .as_ref()
            .map(|i| capabilities(&i.capabilities))
            .unwrap_or_default(),
    }
}

fn capabilities(c: &wire::ServerCapabilities) -> ServerCapabilities {
    let list = |list_changed: Option<bool>| ListCapability { list_changed };
    ServerCapabilities {
        experimental: c.experimental.clone(),
        extensions: c.extensions.clone(),
        logging: c.logging.clone(),
        completions: c.completions.clone(),
        prompts: c.prompts.as_ref().map(|p| list(p.list_changed)),
        resources: c.resources.as_ref().map(|r| ResourcesCapability {
            subscribe: r.subscribe,
            list_changed: r.list_changed,
        }),
        tools: c.tools.as_ref().map(|t| list(t.list_changed)),
    }
}

fn server_info(i: &wire::Implementation) -> ServerInfo {
    ServerInfo {
        name: i.name.clone(),
        title: i.title.clone(),
        version: i.version.clone(),
        description: i.description.clone(),
        icons: i
            .icons
            .as_ref()
            .map(|icons| icons.iter().map(icon).collect()),
        website_url: i.website_url.clone(),
    }
}

fn icon(i: &wire::Icon) -> Icon {
    Icon {
        src: i.src.clone(),
        mime_type: i.mime_type.clone(),
        sizes: i.sizes.clone(),
        // The theme's word as the protocol writes it.
        theme: i
            .theme
            .as_ref()
            .and_then(|t| serde_json::to_value(t).ok())
            .and_then(|t| t.as_str().map(str::to_owned)),
    }
}

pub(super) fn tool_annotations(a: &wire::ToolAnnotations) -> ToolAnnotations {
    ToolAnnotations {
        title: a.title.clone(),
        read_only_hint: a.read_only_hint,
        destructive_hint: a.destructive_hint,
        idempotent_hint: a.idempotent_hint,
        open_world_hint: a.open_world_hint,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CLI prints a server's identity and a tool's annotations as it always printed rmcp's reading of them.
    #[test]
    fn the_converted_identity_serializes_as_rmcp_s_own() {
        let caps: wire::ServerCapabilities = serde_json::from_value(serde_json::json!({
            "experimental": {"x": {"a": 1}}, "logging": {}, "completions": {},
            "prompts": {"listChanged": true}, "resources": {"subscribe": true, "listChanged": false},
            "tools": {}
        }))
        .expect("capabilities");
        assert_eq!(
            serde_json::to_string(&capabilities(&caps)).expect("JSON"),
            serde_json::to_string(&caps).expect("JSON")
        );
        let info: wire::Implementation = serde_json::from_value(serde_json::json!({
            "name": "s", "title": "S", "version": "1", "description": "d", "websiteUrl": "https://s.example",
            "icons": [{"src": "https://s.example/i.png", "mimeType": "image/png", "sizes": ["48x48"], "theme": "dark"}]
        }))
        .expect("implementation");
        assert_eq!(
            serde_json::to_string(&server_info(&info)).expect("JSON"),
            serde_json::to_string(&info).expect("JSON")
        );
        let hints: wire::ToolAnnotations = serde_json::from_value(serde_json::json!({
            "title": "T", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false
        }))
        .expect("annotations");
        assert_eq!(
            serde_json::to_string(&tool_annotations(&hints)).expect("JSON"),
            serde_json::to_string(&hints).expect("JSON")
        );
    }
}
