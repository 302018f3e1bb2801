//! Content that is not text: an image block and a link to a resource (`picture`).

use base64::Engine as _;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{tool, tool_router};

use crate::readme;
use crate::server::DemoServer;

/// A 16x16 picture of a boat at a wharf, small enough to travel in every result.
const PICTURE_PNG: &[u8] = include_bytes!("../../assets/wharf-16.png");

#[tool_router(router = media_tools, vis = "pub(crate)")]
impl DemoServer {
    #[tool(
        title = "Picture",
        description = "Returns a small PNG image (16x16) and a link to the demo://readme resource.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn picture(&self) -> CallToolResult {
        let data = base64::engine::general_purpose::STANDARD.encode(PICTURE_PNG);
        CallToolResult::success(vec![
            ContentBlock::image(data, "image/png"),
            ContentBlock::resource_link(readme::resource()),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_picture_is_a_16x16_png() {
        assert_eq!(&PICTURE_PNG[..8], b"\x89PNG\r\n\x1a\n");
        // IHDR comes first: width and height are its first two big-endian u32s.
        assert_eq!(&PICTURE_PNG[12..16], b"IHDR");
        assert_eq!(&PICTURE_PNG[16..24], &[0, 0, 0, 16, 0, 0, 0, 16]);
    }
}
