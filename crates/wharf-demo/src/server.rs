//! The demo server: its identity, capabilities and the handlers that are not tools or prompts (the resource).
//! Tools live in `tools/` (one file per group) and prompts in `prompts.rs`; this file only wires them in.

use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    Implementation, ListResourcesResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{prompt_handler, tool_handler, ErrorData, RoleServer, ServerHandler};

use crate::{prompts, readme, tools, NAME, VERSION};

pub const INSTRUCTIONS: &str =
    "This is Wharf's bundled demo server: each of its tools, its resource and its \
     prompt shows one feature of the app, and none of them touches your files or the network.";

#[derive(Clone)]
pub struct DemoServer {
    tool_router: ToolRouter<Self>,
    prompt_router: PromptRouter<Self>,
}

impl DemoServer {
    pub fn new() -> Self {
        Self {
            tool_router: tools::router(),
            prompt_router: prompts::router(),
        }
    }
}

// The protocol versions are rmcp's default (every version it knows), so one binary answers `server/discover`
// for 2026-07-28 hosts and `initialize` for 2025-11-25 and older ones.
#[tool_handler(router = self.tool_router)]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for DemoServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(
            Implementation::new(NAME, VERSION)
                .with_title("Wharf demo server")
                .with_description(
                    "One tool of every kind, a resource and a prompt, to try Wharf with.",
                ),
        )
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(
            vec![readme::resource()],
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        readme::read(&request.uri).map(Into::into)
    }
}
