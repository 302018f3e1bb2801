//! What a front end shows of a server's content, shaped here from what the server sent so the window renders and
//! never interprets: a read resource's contents, a prompt's messages and a tool result's blocks, under caps (text cut
//! at 1 MiB, images passed as base64 up to 10 MiB, other blobs never passed: only their size and type).

use base64::Engine as _;
use serde::Serialize;
use serde_json::Value;

use crate::protocol::{
    base64_size, ContentBlock, Media, PromptResult, ResourceContents, ResourceRead, UnknownContent,
};

/// The most text sent to the webview for one read resource, prompt or tool result (all its text items together).
pub const TEXT_CAP: usize = 1024 * 1024;
/// The most image bytes (decoded) sent to the webview for one read resource, prompt or tool result.
pub const IMAGE_CAP: usize = 10 * 1024 * 1024;

/// Image types the webview shows from a `data:` URL (the CSP allows `img-src data:`); anything else is a blob.
const IMAGE_TYPES: [&str; 7] = [
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "image/bmp",
    "image/avif",
    "image/svg+xml",
];

/// One item of a resource's contents, ready for the webview.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum ContentView {
    /// Text, cut at [`TEXT_CAP`] (on a character boundary) when `truncated`; `bytes` is the whole text's length.
    Text {
        uri: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        mime_type: Option<String>,
        text: String,
        truncated: bool,
        #[ts(type = "number")]
        bytes: u64,
    },
    /// An image to show: base64 `data` of a known image type, checked to decode.
    Image {
        uri: String,
        mime_type: String,
        data: String,
        #[ts(type = "number")]
        bytes: u64,
    },
    /// Binary content that stays on the Rust side: `save_resource_blob(server, uri, index)` writes it where the
    /// user picks. `note` says why an image is not shown.
    Blob {
        uri: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        mime_type: Option<String>,
        #[ts(type = "number")]
        bytes: u64,
        /// Its position in the read result's `contents`.
        index: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        note: Option<String>,
    },
    /// Neither text nor blob (or not an object): nothing to show but that.
    Empty { uri: String },
}

/// A read resource: the URI asked for and its contents.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ResourceView {
    pub uri: String,
    pub contents: Vec<ContentView>,
}

/// One block of a prompt message.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum MessageBlock {
    Text {
        text: String,
        truncated: bool,
    },
    Image {
        mime_type: String,
        data: String,
        #[ts(type = "number")]
        bytes: u64,
    },
    /// Audio, or an image that is not shown (`note` says why): its type and size only.
    Binary {
        mime_type: String,
        #[ts(type = "number")]
        bytes: u64,
        note: String,
    },
    ResourceLink {
        uri: String,
        name: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        description: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        mime_type: Option<String>,
    },
    /// An embedded resource, shaped as a read resource's contents are.
    Resource {
        content: ContentView,
    },
    /// Anything else, as the server sent it (pretty JSON, capped).
    Other {
        label: String,
        json: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct PromptMessageView {
    pub role: String,
    pub blocks: Vec<MessageBlock>,
}

/// A `prompts/get` result: its messages, and their text as the Copy button copies it.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct PromptView {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
    pub messages: Vec<PromptMessageView>,
    /// The text of every message (text blocks and embedded text resources), messages apart by a blank line.
    pub text: String,
}

/// What is left to send of one result: text and image bytes, spent item by item.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    text: usize,
    image: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            text: TEXT_CAP,
            image: IMAGE_CAP,
        }
    }
}

impl Budget {
    /// The text cut to what is left of the budget, on a character boundary; true when cut.
    pub(crate) fn take_text(&mut self, text: &str) -> (String, bool) {
        if text.len() <= self.text {
            self.text -= text.len();
            return (text.to_owned(), false);
        }
        let mut end = self.text;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        self.text = 0;
        (text[..end].to_owned(), true)
    }
}

/// The decoded length of standard base64 (`=` padded or not), or None when it is not base64. Whitespace (line
/// breaks some servers put in long payloads) is ignored.
pub fn decoded_len(data: &str) -> Option<usize> {
    decode(data).map(|bytes| bytes.len())
}

pub fn decode(data: &str) -> Option<Vec<u8>> {
    let clean: String = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    base64::engine::general_purpose::STANDARD
        .decode(clean.as_bytes())
        .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(clean.as_bytes()))
        .ok()
}

fn is_image(mime_type: Option<&str>) -> Option<String> {
    let lower = mime_type?.trim().to_ascii_lowercase();
    IMAGE_TYPES.contains(&lower.as_str()).then_some(lower)
}

/// An image sent as it is (known type, decodes, within what is left of the budget), or why not.
fn image(
    mime_type: Option<&str>,
    data: &str,
    budget: &mut Budget,
) -> Result<(String, String, u64), String> {
    let Some(mime) = is_image(mime_type) else {
        return Err(String::new());
    };
    let clean: String = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let Some(bytes) = decoded_len(&clean) else {
        return Err("not shown: the data is not valid base64".into());
    };
    if bytes > budget.image {
        return Err(format!(
            "not shown: images over {} MiB stay out of the window",
            IMAGE_CAP / (1024 * 1024)
        ));
    }
    budget.image -= bytes;
    Ok((mime, clean, bytes as u64))
}

/// One item of a resource's contents (a read result's, or an embedded resource at `index` 0).
pub fn content_view(item: &ResourceContents, index: usize, budget: &mut Budget) -> ContentView {
    let uri = budget.take_text(item.uri()).0;
    let mime_type = item.mime_type().map(|m| budget.take_text(m).0);
    match item {
        ResourceContents::Text { text, .. } => {
            let (shown, truncated) = budget.take_text(text);
            ContentView::Text {
                uri,
                mime_type,
                text: shown,
                truncated,
                bytes: text.len() as u64,
            }
        }
        ResourceContents::Blob { blob, .. } => match image(mime_type.as_deref(), blob, budget) {
            Ok((mime_type, data, bytes)) => ContentView::Image {
                uri,
                mime_type,
                data,
                bytes,
            },
            Err(note) => ContentView::Blob {
                uri,
                mime_type,
                bytes: base64_size(blob),
                index: u32::try_from(index).unwrap_or(u32::MAX),
                note: (!note.is_empty()).then_some(note),
            },
        },
        ResourceContents::Unknown { .. } => ContentView::Empty { uri },
    }
}

/// A `resources/read` result for the viewer.
pub fn resource_view(uri: &str, result: &ResourceRead) -> ResourceView {
    let mut budget = Budget::default();
    ResourceView {
        uri: uri.to_owned(),
        contents: result
            .contents
            .iter()
            .enumerate()
            .map(|(i, item)| content_view(item, i, &mut budget))
            .collect(),
    }
}

/// Why a resource's content cannot be saved as a file: the resource changed since it was shown, or its data is bad.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BlobError {
    #[error("the resource has no content {0} any more")]
    Gone(usize),
    #[error("content {0} of the resource is not binary any more")]
    NotBinary(usize),
    #[error("the server sent data that is not valid base64")]
    NotBase64,
}

/// The bytes of `contents[index]` of a read result, when it is a blob.
pub fn blob_at(result: &ResourceRead, index: usize) -> Result<Vec<u8>, BlobError> {
    match result.contents.get(index) {
        None => Err(BlobError::Gone(index)),
        Some(ResourceContents::Blob { blob, .. }) => decode(blob).ok_or(BlobError::NotBase64),
        Some(_) => Err(BlobError::NotBinary(index)),
    }
}

pub use crate::fsutil::file_name_for;

/// Other JSON shown as text, capped like text.
fn other(label: String, json: &Value, budget: &mut Budget) -> MessageBlock {
    let json = serde_json::to_string_pretty(json).unwrap_or_default();
    MessageBlock::Other {
        // The label may be the server's own `type`: charged to the text cap like the rest.
        label: budget.take_text(&label).0,
        json: budget.take_text(&json).0,
    }
}

/// A block Wharf cannot read, labelled with what is wrong with it.
fn unknown(block: &UnknownContent, budget: &mut Budget) -> MessageBlock {
    let label = match block.kind.as_str() {
        "text" => "text without text",
        "resource_link" => "resource link without uri",
        "resource" => "embedded resource without a resource",
        "" => "content",
        kind => kind,
    };
    other(label.to_owned(), &block.json, budget)
}

/// An image or audio block: an image within the caps is shown, anything else is its type and size only.
fn media(kind: &str, media: &Media, budget: &mut Budget) -> MessageBlock {
    let mime_type = budget
        .take_text(media.mime_type.as_deref().unwrap_or(kind))
        .0;
    let data = &media.data;
    if kind != "image" {
        return MessageBlock::Binary {
            mime_type,
            bytes: base64_size(data),
            note: "audio is not played here".into(),
        };
    }
    match image(Some(&mime_type), data, budget) {
        Ok((mime_type, data, bytes)) => MessageBlock::Image {
            mime_type,
            data,
            bytes,
        },
        Err(note) => MessageBlock::Binary {
            mime_type,
            bytes: base64_size(data),
            note: if note.is_empty() {
                "not shown: not an image type the window shows".into()
            } else {
                note
            },
        },
    }
}

pub fn message_block(block: &ContentBlock, budget: &mut Budget) -> MessageBlock {
    match block {
        ContentBlock::Text { text, .. } => {
            let (text, truncated) = budget.take_text(text);
            MessageBlock::Text { text, truncated }
        }
        ContentBlock::Image(image) => media("image", image, budget),
        ContentBlock::Audio(audio) => media("audio", audio, budget),
        // Every string of a link counts against the text cap: a link is no way around it.
        ContentBlock::ResourceLink(link) => MessageBlock::ResourceLink {
            name: budget
                .take_text(
                    link.name
                        .as_deref()
                        .or(link.title.as_deref())
                        .unwrap_or(&link.uri),
                )
                .0,
            uri: budget.take_text(&link.uri).0,
            description: link.description.as_ref().map(|d| budget.take_text(d).0),
            mime_type: link.mime_type.as_ref().map(|m| budget.take_text(m).0),
        },
        ContentBlock::Resource { resource, .. } => MessageBlock::Resource {
            content: content_view(resource, 0, budget),
        },
        ContentBlock::Unknown(block) => unknown(block, budget),
    }
}

/// A `prompts/get` result for the messages view.
pub fn prompt_view(result: &PromptResult) -> PromptView {
    let mut budget = Budget::default();
    let messages: Vec<PromptMessageView> = result
        .messages
        .iter()
        .map(|message| PromptMessageView {
            role: message.role.clone().unwrap_or_else(|| "unknown".into()),
            blocks: message
                .content
                .iter()
                .map(|block| message_block(block, &mut budget))
                .collect(),
        })
        .collect();
    let text = messages
        .iter()
        .map(|m| {
            m.blocks
                .iter()
                .filter_map(|b| match b {
                    MessageBlock::Text { text, .. } => Some(text.as_str()),
                    MessageBlock::Resource {
                        content: ContentView::Text { text, .. },
                    } => Some(text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    PromptView {
        description: result.description.clone(),
        messages,
        text,
    }
}
