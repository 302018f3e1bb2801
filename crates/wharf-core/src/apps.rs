//! MCP Apps (the `io.modelcontextprotocol/ui` extension): a tool may carry an interactive view, an HTML document
//! the server serves as a `ui://` resource. This module decides what such a document is allowed to be before
//! anything renders it: read through `resources/read` only (never from the network), of the extension's media type,
//! within a size, as UTF-8, with the policy it will run under built from what it declared (`csp.rs`).
//!
//! Every failure is named (`ViewError`): a view that cannot be shown says why in its place, never a blank frame.

pub mod bridge;
pub mod csp;
pub mod host;

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::connection::{CallOptions, Connection, ConnectionError};
use crate::protocol::{base64_size, Listed, ResourceContents, ResourceRead, ResourceUi};

pub use csp::{RefusedDomain, ViewPolicy};

pub use crate::protocol::{EXTENSION_ID, VIEW_MIME_TYPE};

/// The scheme every view resource's URI has.
pub const VIEW_SCHEME: &str = "ui://";

/// The largest view document taken, decoded: the example apps are single-file bundles of a few hundred KiB, and a
/// document is held in memory and served whole.
pub const MAX_VIEW_BYTES: u64 = 8 * 1024 * 1024;

/// Why a tool's view cannot be shown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[ts(export)]
pub enum ViewError {
    #[error("its view {uri:?} is not a ui:// resource")]
    NotUiScheme { uri: String },
    #[error("reading its view {uri:?} returned no content")]
    NoContent { uri: String },
    #[error("its view is {found:?}, not {VIEW_MIME_TYPE}")]
    WrongMimeType { found: String },
    #[error("its view is {bytes} bytes, more than the {limit} Wharf shows")]
    TooLarge { bytes: u64, limit: u64 },
    #[error("its view's base64 does not decode: {why}")]
    BadBase64 { why: String },
    #[error("its view is not UTF-8 text")]
    NotUtf8,
}

/// Why a tool's view could not be had: the server did not give it, or what it gave cannot be a view.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("reading its view failed: {0}")]
    Read(#[from] ConnectionError),
    #[error(transparent)]
    View(#[from] ViewError),
}

/// The view `uri` of a tool of `connection`'s server, read with `resources/read` (nothing else: a view never comes
/// from the network), with what the server's resource listing declares of it when the listing has it (servers may
/// leave views out of their listing, and a listing that fails costs the view nothing).
pub async fn fetch(connection: &Connection, uri: &str) -> Result<ViewDocument, FetchError> {
    if !uri.starts_with(VIEW_SCHEME) {
        return Err(ViewError::NotUiScheme {
            uri: uri.to_owned(),
        }
        .into());
    }
    let listed = match connection.list_resources().await {
        Ok(resources) => resources
            .iter()
            .filter_map(Listed::item)
            .find(|resource| resource.uri == uri)
            .and_then(|resource| resource.ui()),
        Err(_) => None,
    };
    let read = connection
        .read_resource(uri, &CallOptions::default())
        .await?;
    Ok(ViewDocument::from_read(uri, &read, listed)?)
}

/// Where a tool's view is, or why there is none: what the front end shows in the view's place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ViewSlot {
    /// The view's `ui://` resource.
    pub uri: String,
    /// The server declared MCP Apps too (Wharf always has, or there would be no view): a view of a server that did
    /// not is shown all the same, and its place says so, since such a server may not expect a host to show it.
    pub server_declared: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub frame: Option<host::ViewFrame>,
    /// Why the view cannot be shown, naming the stage that failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error: Option<String>,
    /// The view's size as read, in bytes.
    #[ts(type = "number")]
    pub bytes: u64,
    /// The policy it runs under, as sent.
    pub policy: String,
    /// Declared domains that are not in the policy, and why.
    pub refused_domains: Vec<RefusedDomain>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub prefers_border: Option<bool>,
    /// The request asking the view to let go, posted to its frame as it is before the frame is removed.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    #[ts(type = "unknown")]
    pub teardown: serde_json::Value,
}

/// A view ready to be served: its HTML and the policy it runs under.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewDocument {
    pub uri: String,
    pub html: String,
    pub ui: ResourceUi,
    pub policy: ViewPolicy,
}

impl ViewDocument {
    /// The view `uri` from what `resources/read` answered, with what the resource listing declared of it
    /// (`listed`): the content item for `uri` (or the first when none names it) must be the extension's HTML,
    /// text or base64, within `MAX_VIEW_BYTES`. The item's `_meta.ui` wins over the listing's, field by field.
    pub fn from_read(
        uri: &str,
        read: &ResourceRead,
        listed: Option<ResourceUi>,
    ) -> Result<ViewDocument, ViewError> {
        if !uri.starts_with(VIEW_SCHEME) {
            return Err(ViewError::NotUiScheme {
                uri: uri.to_owned(),
            });
        }
        let index = read
            .contents
            .iter()
            .position(|item| item.uri() == uri)
            .or((!read.contents.is_empty()).then_some(0))
            .ok_or_else(|| ViewError::NoContent {
                uri: uri.to_owned(),
            })?;
        let item = &read.contents[index];
        let mime_type = item.mime_type().unwrap_or_default();
        if !is_view_type(mime_type) {
            return Err(ViewError::WrongMimeType {
                found: crate::display_text::one_line(mime_type, 80),
            });
        }
        let html = match item {
            ResourceContents::Text { text, .. } => {
                let bytes = text.len() as u64;
                if bytes > MAX_VIEW_BYTES {
                    return Err(too_large(bytes));
                }
                text.clone()
            }
            ResourceContents::Blob { blob, .. } => {
                let bytes = base64_size(blob);
                if bytes > MAX_VIEW_BYTES {
                    return Err(too_large(bytes));
                }
                let decoded = base64::engine::general_purpose::STANDARD
                    .decode(blob.trim())
                    .map_err(|e| ViewError::BadBase64 { why: e.to_string() })?;
                String::from_utf8(decoded).map_err(|_| ViewError::NotUtf8)?
            }
            ResourceContents::Unknown { .. } => {
                return Err(ViewError::NoContent {
                    uri: uri.to_owned(),
                })
            }
        };
        let ui = ResourceUi::merged(listed, read.item_ui(index)).unwrap_or_default();
        let policy = ViewPolicy::build(ui.csp.as_ref());
        Ok(ViewDocument {
            uri: uri.to_owned(),
            html,
            ui,
            policy,
        })
    }
}

fn too_large(bytes: u64) -> ViewError {
    ViewError::TooLarge {
        bytes,
        limit: MAX_VIEW_BYTES,
    }
}

/// The extension's media type, compared as a media type is: case-insensitive, spaces around `;` ignored.
fn is_view_type(mime_type: &str) -> bool {
    let normalized: String = mime_type
        .split(';')
        .map(|part| part.trim().to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join(";");
    normalized == VIEW_MIME_TYPE
}

#[cfg(test)]
mod tests;
