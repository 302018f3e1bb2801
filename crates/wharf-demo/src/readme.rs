//! The one resource, `demo://readme`: a short markdown description of the demo, also linked from `picture`.

use rmcp::model::{ReadResourceResult, Resource, ResourceContents};
use rmcp::ErrorData;

pub const URI: &str = "demo://readme";
const MIME: &str = "text/markdown";
const TEXT: &str = include_str!("../assets/README.md");

pub fn resource() -> Resource {
    Resource::new(URI, "readme")
        .with_title("About the Wharf demo server")
        .with_description("What each demo tool shows.")
        .with_mime_type(MIME)
        .with_size(TEXT.len() as u64)
}

pub fn read(uri: &str) -> Result<ReadResourceResult, ErrorData> {
    if uri != URI {
        return Err(ErrorData::resource_not_found(
            format!("no resource {uri}: this server has only {URI}"),
            Some(serde_json::json!({ "uri": uri })),
        ));
    }
    Ok(ReadResourceResult::new(vec![ResourceContents::text(
        TEXT, URI,
    )
    .with_mime_type(MIME)]))
}
