//! Content blocks (a tool's result, a prompt's messages) and a resource's contents, read leniently: what cannot be
//! read as its type says is an unknown block that keeps its JSON.

use serde_json::Value;

use super::read::{items, text};

/// Who a block is meant for, as its `annotations.audience` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    User,
    Assistant,
}

/// A block's `annotations`: hints to the client. A hint of the wrong type is a hint not given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Annotations {
    /// The roles named (any other word is left out).
    pub audience: Vec<Audience>,
    pub priority: Option<f64>,
    pub last_modified: Option<String>,
}

impl Annotations {
    fn read(block: &Value) -> Option<Annotations> {
        let json = block.get("annotations").filter(|a| a.is_object())?;
        Some(Annotations {
            audience: items(json, "audience")
                .iter()
                .filter_map(|role| match role.as_str() {
                    Some("user") => Some(Audience::User),
                    Some("assistant") => Some(Audience::Assistant),
                    _ => None,
                })
                .collect(),
            priority: json.get("priority").and_then(Value::as_f64),
            last_modified: text(json, "lastModified"),
        })
    }
}

/// One content block.
#[derive(Debug, Clone, PartialEq)]
pub enum ContentBlock {
    Text {
        text: String,
        annotations: Option<Annotations>,
    },
    Image(Media),
    Audio(Media),
    /// A resource's contents, embedded.
    Resource {
        resource: ResourceContents,
        annotations: Option<Annotations>,
    },
    ResourceLink(ResourceLink),
    /// A type Wharf does not know, or a block without what its type needs: kept as sent.
    Unknown(UnknownContent),
}

/// An image or audio block: base64 `data` (empty when the server sent none) and its type.
#[derive(Debug, Clone, PartialEq)]
pub struct Media {
    pub data: String,
    pub mime_type: Option<String>,
    pub annotations: Option<Annotations>,
}

/// A link to a resource the server offers.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceLink {
    pub uri: String,
    pub name: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
    pub size: Option<u64>,
    pub annotations: Option<Annotations>,
}

/// A block Wharf cannot read as a block of a type it knows.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownContent {
    /// Its `type` as sent; empty when it has none (or not as a string). A type Wharf knows here means the block
    /// lacks what that type needs (a text block without its text, a link without its URI).
    pub kind: String,
    pub json: Value,
}

impl ContentBlock {
    pub fn read(json: &Value) -> ContentBlock {
        let kind = json.get("type").and_then(Value::as_str).unwrap_or_default();
        let annotations = || Annotations::read(json);
        let read = match kind {
            "text" => text(json, "text").map(|text| ContentBlock::Text {
                text,
                annotations: annotations(),
            }),
            "image" | "audio" => {
                let media = Media {
                    data: text(json, "data").unwrap_or_default(),
                    mime_type: text(json, "mimeType"),
                    annotations: annotations(),
                };
                Some(if kind == "image" {
                    ContentBlock::Image(media)
                } else {
                    ContentBlock::Audio(media)
                })
            }
            "resource_link" => text(json, "uri").map(|uri| {
                ContentBlock::ResourceLink(ResourceLink {
                    uri,
                    name: text(json, "name"),
                    title: text(json, "title"),
                    description: text(json, "description"),
                    mime_type: text(json, "mimeType"),
                    size: json.get("size").and_then(Value::as_u64),
                    annotations: annotations(),
                })
            }),
            "resource" => json
                .get("resource")
                .filter(|r| r.is_object())
                .map(|resource| ContentBlock::Resource {
                    resource: ResourceContents::read(resource),
                    annotations: annotations(),
                }),
            _ => None,
        };
        read.unwrap_or_else(|| ContentBlock::unknown(kind, json))
    }

    /// `json` as an unknown block whose type is `kind`.
    pub fn unknown(kind: &str, json: &Value) -> ContentBlock {
        ContentBlock::Unknown(UnknownContent {
            kind: kind.to_owned(),
            json: json.clone(),
        })
    }

    /// The blocks of a `content` that may be one block or a list of them (a prompt message's: one block in 2025).
    pub(super) fn one_or_many(content: Option<&Value>) -> Vec<ContentBlock> {
        match content {
            None => Vec::new(),
            Some(Value::Array(blocks)) => blocks.iter().map(ContentBlock::read).collect(),
            Some(block) => vec![ContentBlock::read(block)],
        }
    }
}

/// The size base64 `data` decodes to, counted without decoding it (line breaks some servers put in long payloads
/// are not counted).
pub fn base64_size(data: &str) -> u64 {
    let chars = data.bytes().filter(|b| !b.is_ascii_whitespace()).count();
    let padding = data
        .trim_end()
        .bytes()
        .rev()
        .take_while(|b| *b == b'=')
        .count()
        .min(2);
    ((chars * 3 / 4).saturating_sub(padding)) as u64
}

/// One item of a resource's contents (a read's `contents`, or an embedded resource).
#[derive(Debug, Clone, PartialEq)]
pub enum ResourceContents {
    Text {
        uri: String,
        mime_type: Option<String>,
        text: String,
    },
    /// Binary, as base64.
    Blob {
        uri: String,
        mime_type: Option<String>,
        blob: String,
    },
    /// Neither text nor a blob (or not an object at all): kept as sent.
    Unknown {
        uri: String,
        mime_type: Option<String>,
        json: Value,
    },
}

impl ResourceContents {
    /// Reads one item; its `uri` is empty when the server sent none.
    pub fn read(json: &Value) -> ResourceContents {
        let uri = text(json, "uri").unwrap_or_default();
        let mime_type = text(json, "mimeType");
        if let Some(body) = text(json, "text") {
            return ResourceContents::Text {
                uri,
                mime_type,
                text: body,
            };
        }
        match text(json, "blob") {
            Some(blob) => ResourceContents::Blob {
                uri,
                mime_type,
                blob,
            },
            None => ResourceContents::Unknown {
                uri,
                mime_type,
                json: json.clone(),
            },
        }
    }

    pub fn uri(&self) -> &str {
        match self {
            ResourceContents::Text { uri, .. }
            | ResourceContents::Blob { uri, .. }
            | ResourceContents::Unknown { uri, .. } => uri,
        }
    }

    pub fn mime_type(&self) -> Option<&str> {
        match self {
            ResourceContents::Text { mime_type, .. }
            | ResourceContents::Blob { mime_type, .. }
            | ResourceContents::Unknown { mime_type, .. } => mime_type.as_deref(),
        }
    }
}
