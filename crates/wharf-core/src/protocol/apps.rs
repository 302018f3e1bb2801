//! What a server says of its interactive views (MCP Apps, the `io.modelcontextprotocol/ui` extension): a tool's
//! `_meta.ui` (the view's `ui://` resource and who may call the tool) and a view resource's `_meta.ui` (the domains it
//! asks to reach, the permissions it asks for). Read leniently, like every protocol type: a field of the wrong type
//! is a field not given, and nothing here is trusted. What the host does with a declared domain is decided where the
//! policy is built, not here.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::read::{items, text};

/// The extension's identifier, under which a client declares it (`capabilities.extensions`).
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";

/// The media type of a view's HTML, exactly as the spec writes it.
pub const VIEW_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The flat key servers wrote before `_meta.ui` existed, still sent beside it by the SDK's `registerAppTool`.
const LEGACY_RESOURCE_URI_KEY: &str = "ui/resourceUri";

/// A tool's `_meta.ui`: the view that shows its result, and who may call it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ToolUi {
    /// The `ui://` resource holding the view's HTML; `None` when the tool has no view (its visibility still counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub resource_uri: Option<String>,
    pub visibility: Visibility,
}

/// Who may call a tool: the model (it is offered to the model), the tool's own views (they may call it), or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct Visibility {
    pub model: bool,
    pub app: bool,
}

impl Default for Visibility {
    /// The spec's default when a tool names none: both.
    fn default() -> Self {
        Visibility {
            model: true,
            app: true,
        }
    }
}

impl ToolUi {
    /// The tool's `_meta`, read: `None` when it says nothing of views (no `ui` object and no legacy key), so that
    /// such a tool stays what it always was. The nested `ui.resourceUri` wins over the legacy flat key.
    pub fn read(meta: &Value) -> Option<ToolUi> {
        let ui = meta.get("ui").filter(|ui| ui.is_object());
        let legacy = text(meta, LEGACY_RESOURCE_URI_KEY);
        if ui.is_none() && legacy.is_none() {
            return None;
        }
        let resource_uri = ui.and_then(|ui| text(ui, "resourceUri")).or(legacy);
        let visibility = match ui.map(|ui| ui.get("visibility")) {
            Some(Some(Value::Array(named))) => Visibility {
                model: named.iter().any(|v| v.as_str() == Some("model")),
                app: named.iter().any(|v| v.as_str() == Some("app")),
            },
            _ => Visibility::default(),
        };
        Some(ToolUi {
            resource_uri,
            visibility,
        })
    }
}

/// A view resource's `_meta.ui`, as the server declared it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ResourceUi {
    /// The origins the view asks to reach; `None`: it declared none, and the spec's restrictive default applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub csp: Option<DeclaredCsp>,
    pub permissions: DeclaredPermissions,
    /// A dedicated origin the server asks for; Wharf serves every view on its own origin and only reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub domain: Option<String>,
    /// `true`: draw a border and a background around the view; `false`: none; `None`: the host decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub prefers_border: Option<bool>,
}

/// `_meta.ui.csp`: the origins, by what the view does with them, exactly as the server wrote them (unchecked).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct DeclaredCsp {
    /// `fetch`, XHR and WebSocket targets.
    pub connect_domains: Vec<String>,
    /// Scripts, styles, images, fonts and media.
    pub resource_domains: Vec<String>,
    /// Nested frames.
    pub frame_domains: Vec<String>,
    /// Allowed `<base href>` targets.
    pub base_uri_domains: Vec<String>,
}

/// `_meta.ui.permissions`: the browser features the view asks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct DeclaredPermissions {
    pub camera: bool,
    pub microphone: bool,
    pub geolocation: bool,
    pub clipboard_write: bool,
}

impl ResourceUi {
    /// A resource's or a content item's `_meta`, read; `None` when it has no `ui` object.
    pub fn read(meta: &Value) -> Option<ResourceUi> {
        let ui = meta.get("ui").filter(|ui| ui.is_object())?;
        let csp = ui.get("csp").filter(|csp| csp.is_object()).map(|csp| {
            let domains = |key: &str| {
                items(csp, key)
                    .iter()
                    .filter_map(|d| d.as_str().map(str::to_owned))
                    .collect()
            };
            DeclaredCsp {
                connect_domains: domains("connectDomains"),
                resource_domains: domains("resourceDomains"),
                frame_domains: domains("frameDomains"),
                base_uri_domains: domains("baseUriDomains"),
            }
        });
        // A permission is asked for by naming it with an object (`{"camera": {}}`); `true` is read the same way.
        let asked = |key: &str| {
            ui.get("permissions")
                .and_then(|p| p.get(key))
                .is_some_and(|v| v.is_object() || v.as_bool() == Some(true))
        };
        Some(ResourceUi {
            csp,
            permissions: DeclaredPermissions {
                camera: asked("camera"),
                microphone: asked("microphone"),
                geolocation: asked("geolocation"),
                clipboard_write: asked("clipboardWrite"),
            },
            domain: text(ui, "domain"),
            prefers_border: ui.get("prefersBorder").and_then(Value::as_bool),
        })
    }

    /// The content item's declaration over the listing's, field by field: what the resource itself says wins, and
    /// what it leaves out is taken from where it was listed.
    pub fn merged(listing: Option<ResourceUi>, content: Option<ResourceUi>) -> Option<ResourceUi> {
        match (listing, content) {
            (None, content) => content,
            (listing, None) => listing,
            (Some(listing), Some(content)) => Some(ResourceUi {
                csp: content.csp.or(listing.csp),
                permissions: if content.permissions == DeclaredPermissions::default() {
                    listing.permissions
                } else {
                    content.permissions
                },
                domain: content.domain.or(listing.domain),
                prefers_border: content.prefers_border.or(listing.prefers_border),
            }),
        }
    }
}

#[cfg(test)]
mod tests;
