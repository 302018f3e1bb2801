//! Wharf's own types for what an MCP server sends: content blocks, the results of a tool call, a prompt and a
//! resource read, the resource, template and prompt lists, completions, a server's identity and capabilities, and a
//! tool's annotations. Nothing of wharf-core above this module is used here, and no rmcp type appears: the
//! connection converts rmcp's answers into these, and everything else reads these.
//!
//! A server may send anything, so each type is read leniently from the JSON it sent, and reading never fails: an
//! item Wharf cannot read (a content type it does not know, a block without the field its type needs, a list item
//! without its name) becomes an unknown variant that keeps its JSON, shown rather than dropped.
//!
//! An answer a front end may print (a tool's result, a prompt, a read resource, a list item) keeps the JSON it was
//! read from and serializes as that JSON, unchanged: `wharf call` prints the result the server sent, key for key,
//! while the views read the typed fields. The parts of a server's identity and a tool's annotations carry every
//! field the protocol gives them, so they serialize as the protocol writes them.

mod apps;
mod content;
mod listing;
mod read;
mod results;
mod server;

pub use apps::{
    DeclaredCsp, DeclaredPermissions, ResourceUi, ToolUi, Visibility, EXTENSION_ID, VIEW_MIME_TYPE,
};
pub use content::{
    base64_size, Annotations, Audience, ContentBlock, Media, ResourceContents, ResourceLink,
    UnknownContent,
};
pub use listing::{Listed, Prompt, PromptArgument, Resource, ResourceTemplate};
pub use results::{
    CompletionReference, CompletionResult, CompletionValue, PromptMessage, PromptResult,
    ResourceRead, ToolResult,
};
pub use server::{
    Icon, ListCapability, ResourcesCapability, ServerCapabilities, ServerInfo, ToolAnnotations,
};

#[cfg(test)]
mod tests;
