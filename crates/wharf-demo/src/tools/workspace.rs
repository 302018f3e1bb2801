//! What the host shares about the user's workspace: `roots` lists the client's roots, one URI per line.
//!
//! Both eras: a 2026-07-28 host is asked through a multi round-trip request (the call answers `input_required`
//! with a `roots/list` input request, and the host retries it with the answer), an older host through a
//! server-initiated `roots/list` on the session. The tool reads no file: it only says what it was given.
// Roots are deprecated since 2026-07-28 (SEP-2577) and rmcp marks their types so; showing what a host still shares
// is this tool's whole point.
#![allow(deprecated)]

use rmcp::handler::server::tool::InputResponses;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, InputRequest, InputRequests,
    InputRequiredResult, ListRootsRequest, ListRootsResult, ProtocolVersion,
};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData, RoleServer};

use crate::server::DemoServer;

/// The key of the one input request `roots` makes in the modern era.
const ROOTS_KEY: &str = "roots";

#[tool_router(router = workspace_tools, vis = "pub(crate)")]
impl DemoServer {
    #[tool(
        title = "Roots",
        description = "Lists the roots the host shares with this server (the folders open in your workspace), one \
                       file:// URI per line. Reads no file: it only shows what the host told it.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn roots(
        &self,
        InputResponses(responses): InputResponses,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let modern = context
            .protocol_version()
            .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        let listed = if modern {
            match responses.and_then(|mut r| r.remove(ROOTS_KEY)) {
                // First round: ask the host, which retries the call with its answer.
                None => {
                    let mut requests = InputRequests::new();
                    requests.insert(
                        ROOTS_KEY.to_owned(),
                        InputRequest::ListRoots(ListRootsRequest::default()),
                    );
                    return Ok(InputRequiredResult::from_input_requests(requests).into());
                }
                Some(answer) => serde_json::from_value::<ListRootsResult>(answer).map_err(|e| {
                    ErrorData::invalid_params(
                        format!("the answer to roots/list is not a ListRootsResult: {e}"),
                        None,
                    )
                })?,
            }
        } else {
            match context.peer.list_roots().await {
                Ok(listed) => listed,
                // A host without roots (or one that declined) is a tool error the user can read, not a crash.
                Err(e) => {
                    return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                        "the host did not list its roots: {e}"
                    ))])
                    .into())
                }
            }
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(roots_text(&listed))]).into())
    }
}

fn roots_text(listed: &ListRootsResult) -> String {
    if listed.roots.is_empty() {
        return "(no roots)".to_owned();
    }
    listed
        .roots
        .iter()
        .map(|root| root.uri.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}
