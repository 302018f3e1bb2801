//! The demo tools, one file per group. A new group is a `#[tool_router(router = NAME, vis = "pub(crate)")]`
//! block on `DemoServer` in its own file, added to the sum below; nothing else needs to change.

mod basic;
mod lifecycle;
mod media;
mod workspace;

use rmcp::handler::server::router::tool::ToolRouter;

use crate::server::DemoServer;

pub fn router() -> ToolRouter<DemoServer> {
    DemoServer::basic_tools()
        + DemoServer::lifecycle_tools()
        + DemoServer::media_tools()
        + DemoServer::workspace_tools()
}
