//! A tool's result on its way back to the model and into the conversation: written as text under the caps a
//! result has in the window (text cut at 1 MiB, each cut said), with its images for a model that takes them, and
//! kept as the server sent it when that is small. The configuration's secrets and every key the process knows are
//! masked first, before any cut: a server that echoes its env or headers gives neither the model nor the stored
//! conversation the values.

use serde_json::json;

use crate::conversations::message::CallResult;
use crate::model::ModelImage;
use crate::protocol::{ContentBlock, ToolResult};
use crate::redact::Redactor;
use crate::view::content::{ContentView, MessageBlock, IMAGE_CAP, TEXT_CAP};
use crate::view::tool_result::tool_result_view;

/// The most images of one result given to the model; the rest are named, as for a model that takes none.
pub const MAX_IMAGES_PER_RESULT: usize = 4;
/// The largest image given to a model, decoded: the providers' own limits are about 5 MB of base64.
const MODEL_IMAGE_BYTES: u64 = 3_750_000;

/// What the model is given of a result: its text, and the images it may look at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForModel {
    pub text: String,
    pub images: Vec<ModelImage>,
}

/// The text the model is given for a server's `tools/call` result (with its images when `images` says the model
/// takes them), and the result as kept, both with `redactor`'s secrets masked.
pub fn from_server(
    result: &ToolResult,
    images: bool,
    redactor: &Redactor,
) -> (ForModel, CallResult) {
    // Masked string by string before the text is cut to the window's cap, so a secret across the cut goes whole.
    let mut masked = result.sent().clone();
    redactor.redact_json(&mut masked);
    let result = &ToolResult::read(masked);
    let mut given = for_model(result, images);
    // And once more as joined: the text written around the blocks is Wharf's, but the joining is new text.
    if let std::borrow::Cow::Owned(text) = redactor.redact_secrets(&given.text) {
        given.text = text;
    }
    let text = given.text.clone();
    let content = result.content_as_sent().to_vec();
    // Images are kept under the window's image cap, the rest under its text cap: a screenshot is no reason to
    // lose the result, and the user sees the images in the stored call.
    let structured = result.structured_content.clone().map(Box::new);
    let size = serde_json::to_string(&content).map_or(usize::MAX, |s| s.len())
        + structured.as_ref().map_or(0, |s| {
            serde_json::to_string(s).map_or(usize::MAX / 2, |s| s.len())
        });
    let image_data: usize = result
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Image(image) => image.data.len(),
            _ => 0,
        })
        .sum();
    let kept = if size - image_data.min(size) <= TEXT_CAP && image_data <= IMAGE_CAP * 4 / 3 + 4 {
        CallResult {
            content,
            is_error: result.is_error,
            shortened: false,
            structured_content: structured,
        }
    } else {
        CallResult {
            content: vec![json!({"type": "text", "text": text})],
            is_error: result.is_error,
            shortened: true,
            structured_content: None,
        }
    };
    (given, kept)
}

/// A result as the model reads it: its text, with a line for each thing it cannot read, and, when `images` says the
/// model takes them, the images it can (a known type whose bytes are what the type says, within the size limit),
/// each named in the text where it stood. An image not given stays with the user.
pub fn for_model(result: &ToolResult, images: bool) -> ForModel {
    let view = tool_result_view(result);
    let mut parts: Vec<String> = Vec::new();
    let mut given: Vec<ModelImage> = Vec::new();
    for block in &view.blocks {
        if let MessageBlock::Image {
            mime_type,
            data,
            bytes,
        } = block
        {
            if images && given.len() < MAX_IMAGES_PER_RESULT && *bytes <= MODEL_IMAGE_BYTES {
                if let Some(image) = checked_image(mime_type, data) {
                    given.push(image);
                    parts.push(format!(
                        "[image {} of this result ({mime_type}, {bytes} bytes): attached]",
                        given.len()
                    ));
                    continue;
                }
            }
        }
        parts.push(match block {
            MessageBlock::Text { text, truncated } => {
                if *truncated {
                    format!("{text}\n[the rest of this text was cut]")
                } else {
                    text.clone()
                }
            }
            MessageBlock::Image {
                mime_type, bytes, ..
            } => format!("[an image ({mime_type}, {bytes} bytes), shown to the user]"),
            MessageBlock::Binary {
                mime_type, bytes, ..
            } => format!("[binary content ({mime_type}, {bytes} bytes)]"),
            MessageBlock::ResourceLink { uri, name, .. } => format!("[resource {name}: {uri}]"),
            MessageBlock::Resource { content } => match content {
                ContentView::Text {
                    uri,
                    text,
                    truncated,
                    ..
                } => {
                    let cut = if *truncated {
                        "\n[the rest of this text was cut]"
                    } else {
                        ""
                    };
                    format!("[resource {uri}]\n{text}{cut}")
                }
                ContentView::Image { uri, .. }
                | ContentView::Blob { uri, .. }
                | ContentView::Empty { uri } => format!("[resource {uri}]"),
            },
            MessageBlock::Other { label, json } => format!("[{label}] {json}"),
        });
    }
    if parts.is_empty() {
        if let Some(structured) = &view.structured {
            parts.push(structured.clone());
        }
    }
    let text = if parts.is_empty() {
        "(the tool returned no content)".to_string()
    } else {
        parts.join("\n")
    };
    ForModel {
        text,
        images: given,
    }
}

/// The image when its type is one the providers read and its bytes start as that type's do: a server's mislabelled
/// data would otherwise fail the whole request.
pub fn checked_image(mime_type: &str, data: &str) -> Option<ModelImage> {
    let mime_type = mime_type.trim().to_ascii_lowercase();
    // Enough of the start to hold every signature below, on a base64 quantum.
    let head: String = data
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .take(16)
        .collect();
    let bytes = crate::view::content::decode(&head)?;
    let looks_right = match mime_type.as_str() {
        "image/png" => bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        "image/jpeg" => bytes.starts_with(&[0xFF, 0xD8, 0xFF]),
        "image/gif" => bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a"),
        "image/webp" => bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP",
        _ => false,
    };
    looks_right.then(|| ModelImage {
        mime_type,
        data: data.chars().filter(|c| !c.is_ascii_whitespace()).collect(),
    })
}

/// The images of a stored call's result, as the model was given them: an earlier turn's, sent again with the
/// conversation. A result kept shortened kept no images.
pub fn kept_images(result: &CallResult) -> Vec<ModelImage> {
    if result.shortened {
        return Vec::new();
    }
    for_model(&result.as_tool_result(), true).images
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(result: serde_json::Value) -> ToolResult {
        ToolResult::read(result)
    }

    #[test]
    fn text_images_and_links_are_written_for_the_model() {
        let result = json!({"content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
            {"type": "resource_link", "uri": "file:///w/a", "name": "a"},
        ], "isError": false});
        let (given, kept) = from_server(&read(result.clone()), false, &Redactor::default());
        assert!(given.images.is_empty());
        assert_eq!(
            given.text,
            "hello\n[an image (image/png, 8 bytes), shown to the user]\n[resource a: file:///w/a]"
        );
        assert!(!kept.is_error && !kept.shortened);
        assert_eq!(kept.content.len(), 3);
    }

    #[test]
    fn a_model_that_takes_images_is_given_at_most_four_true_ones_of_a_result() {
        let png = json!({"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="});
        let lying = json!({"type": "image", "mimeType": "image/png", "data": "aGVsbG8gd29ybGQ="});
        let mut content = vec![json!({"type": "text", "text": "shots"}), lying];
        content.extend(std::iter::repeat_n(png, 5));
        let result = json!({ "content": content });
        let (given, kept) = from_server(&read(result.clone()), true, &Redactor::default());
        assert_eq!(given.images.len(), MAX_IMAGES_PER_RESULT);
        let lines: Vec<&str> = given.text.lines().collect();
        assert_eq!(lines[0], "shots");
        // Text said to be a PNG is named, not given; the fifth true image is named too.
        assert!(lines[1].contains("shown to the user"), "{}", lines[1]);
        assert_eq!(
            lines[2],
            "[image 1 of this result (image/png, 8 bytes): attached]"
        );
        assert_eq!(
            lines[5],
            "[image 4 of this result (image/png, 8 bytes): attached]"
        );
        assert!(lines[6].contains("shown to the user"), "{}", lines[6]);
        // Read back from the stored result, the same images are given again.
        assert_eq!(kept_images(&kept), given.images);
        // Not to a model that takes none.
        assert!(
            from_server(&read(result.clone()), false, &Redactor::default())
                .0
                .images
                .is_empty()
        );
    }

    #[test]
    fn a_large_image_is_kept_with_its_result_and_a_huge_one_is_not() {
        use base64::Engine as _;
        let png = |bytes: usize| {
            let mut raw = b"\x89PNG\r\n\x1a\n".to_vec();
            raw.resize(bytes, 0);
            json!({"type": "image", "mimeType": "image/png",
                   "data": base64::engine::general_purpose::STANDARD.encode(raw)})
        };
        // 3 MB of PNG, over the text cap as base64: kept, and given to the model.
        let result = json!({"content": [{"type": "text", "text": "a screenshot"}, png(3_000_000)]});
        let (given, kept) = from_server(&read(result.clone()), true, &Redactor::default());
        assert!(!kept.shortened);
        assert_eq!(kept.content.len(), 2);
        assert_eq!(given.images.len(), 1);
        // Over the window's image cap: only the text is kept.
        let result = json!({"content": [png(6_000_000), png(6_000_000)]});
        let (_, kept) = from_server(&read(result.clone()), true, &Redactor::default());
        assert!(kept.shortened);
    }

    #[test]
    fn a_huge_result_is_cut_for_the_model_and_kept_shortened() {
        let big = "x".repeat(TEXT_CAP + 10);
        let result = json!({"content": [{"type": "text", "text": big}], "isError": true});
        let (given, kept) = from_server(&read(result.clone()), true, &Redactor::default());
        let text = given.text;
        assert!(text.ends_with("[the rest of this text was cut]"));
        assert!(text.len() < TEXT_CAP + 100);
        assert!(kept.shortened && kept.is_error);
        assert_eq!(kept.content.len(), 1);
    }

    #[test]
    fn structured_content_is_kept_with_the_content_for_the_view_and_dropped_with_it_when_cut() {
        let sent = json!({"content": [{"type": "text", "text": "12:00"}], "structuredContent": {"time": "12:00"}});
        let (_, kept) = from_server(&read(sent), false, &Redactor::default());
        assert_eq!(
            kept.structured_content,
            Some(Box::new(json!({"time": "12:00"})))
        );
        assert_eq!(
            kept.as_tool_result().structured_content,
            Some(json!({"time": "12:00"}))
        );
        let big = json!({"content": [], "structuredContent": {"blob": "x".repeat(TEXT_CAP + 10)}});
        let (_, kept) = from_server(&read(big), false, &Redactor::default());
        assert!(kept.shortened && kept.structured_content.is_none());
    }

    #[test]
    fn structured_content_alone_is_given_and_nothing_is_said_as_such() {
        let (given, _) = from_server(
            &read(json!({"content": [], "structuredContent": {"n": 1}})),
            true,
            &Redactor::default(),
        );
        assert!(given.text.contains("\"n\": 1"), "{}", given.text);
        let (given, _) = from_server(&read(json!({"content": []})), true, &Redactor::default());
        assert_eq!(given.text, "(the tool returned no content)");
    }
    #[test]
    fn echoed_secrets_reach_neither_the_model_nor_the_record() {
        let redactor = Redactor::default();
        redactor.learn_values(
            vec!["tok-echoed-secret-0042".into()],
            vec!["/w/project".into()],
        );
        let secret = "tok-echoed-secret-0042";
        // Across the cut at the window's text cap, in structured content, as a key of an echoed header map.
        let mut big = "x".repeat(TEXT_CAP - 8);
        big.push_str(secret);
        let result = json!({"content": [{"type": "text", "text": format!("env TOKEN={secret} ROOT=/w/project")}],
            "structuredContent": {"TOKEN": secret, "headers": {secret: [secret]}}});
        let (given, kept) = from_server(&read(result.clone()), false, &redactor);
        let kept = serde_json::to_string(&kept).unwrap();
        assert!(
            !given.text.contains("tok-echoed") && !kept.contains("tok-echoed"),
            "{given:?} {kept}"
        );
        // The model may use what only looks ordinary: a workspace path is what tools report.
        assert!(given.text.contains("ROOT=/w/project"), "{}", given.text);
        let (given, kept) = from_server(
            &read(json!({"content": [{"type": "text", "text": big}]})),
            false,
            &redactor,
        );
        for piece in secret.as_bytes().windows(6) {
            let piece = std::str::from_utf8(piece).unwrap();
            assert!(!given.text.contains(piece), "{piece} in the model's text");
            assert!(
                !serde_json::to_string(&kept).unwrap().contains(piece),
                "{piece} kept"
            );
        }
    }

    /// The eight bytes every PNG starts with.
    const PNG: &str = "iVBORw0KGgo=";

    #[test]
    fn only_images_whose_bytes_match_a_type_the_providers_read_are_given() {
        let jpeg = "/9j/4AAQSkZJRg==";
        let gif = "R0lGODlhAQABAAAAACw=";
        let webp = "UklGRhoAAABXRUJQVlA4";
        assert!(checked_image("image/png", PNG).is_some());
        assert!(checked_image(" IMAGE/JPEG", jpeg).is_some());
        assert!(checked_image("image/gif", gif).is_some());
        assert!(checked_image("image/webp", webp).is_some());
        // A PNG said to be a JPEG, a type no provider takes, text said to be an image, data that is not base64.
        assert!(checked_image("image/jpeg", PNG).is_none());
        assert!(checked_image("image/svg+xml", "PHN2Zz4=").is_none());
        assert!(checked_image("image/png", "aGVsbG8gd29ybGQ=").is_none());
        assert!(checked_image("image/png", "%%%%").is_none());
        assert!(checked_image("image/png", "").is_none());
    }

    proptest::proptest! {
        /// Whatever a server sends as an image, the check ends with an answer, and an image it passes starts with its
        /// type's signature: a model is never sent bytes that a provider would refuse the whole request for.
        #[test]
        fn any_image_a_server_sends_is_checked_without_panicking(
            mime in proptest::sample::select(vec!["image/png", "image/jpeg", "image/gif", "image/webp", "IMAGE/PNG", "image/x", ""]),
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
            prefix in proptest::sample::select(vec![&b""[..], b"\x89PNG\r\n\x1a\n", b"\xFF\xD8\xFF", b"GIF89a", b"RIFF\0\0\0\0WEBP"]),
            raw in ".{0,40}",
            as_base64 in proptest::prelude::any::<bool>(),
        ) {
            use base64::Engine as _;
            let data = if as_base64 {
                base64::engine::general_purpose::STANDARD.encode([prefix, &bytes[..]].concat())
            } else {
                raw
            };
            if let Some(image) = checked_image(mime, &data) {
                let start = crate::view::content::decode(&image.data[..image.data.len().min(16)]).unwrap();
                let signature: &[u8] = match image.mime_type.as_str() {
                    "image/png" => b"\x89PNG",
                    "image/jpeg" => b"\xFF\xD8\xFF",
                    "image/gif" => b"GIF8",
                    _ => b"RIFF",
                };
                proptest::prop_assert!(start.starts_with(signature), "{} {:?}", image.mime_type, start);
            }
        }
    }
}
