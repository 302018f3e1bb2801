//! `wharf grants list|revoke SERVER TOOL`: the "always" grants of tool calls kept in the user's config folder
//! (docs/cli.md, "chat"). Nothing here needs the configuration or a server.

use std::process::ExitCode;

use clap::Subcommand;
use serde_json::json;
use wharf_core::approval::Approvals;

use crate::{output, Failure};

#[derive(Subcommand, Debug, Clone)]
pub enum GrantsAction {
    /// Every tool allowed "always", with the definition it was allowed for.
    List,
    /// Takes back every grant of TOOL on SERVER: the next call of it asks again.
    Revoke { server: String, tool: String },
}

pub fn run(action: GrantsAction) -> Result<ExitCode, Failure> {
    let (approvals, notice) = Approvals::open(Approvals::default_path());
    if let Some(notice) = notice {
        output::say(&notice);
    }
    match action {
        GrantsAction::List => {
            output::print_json(&output::record(serde_json::to_value(approvals.list())?))
        }
        GrantsAction::Revoke { server, tool } => {
            let had = approvals
                .list()
                .iter()
                .any(|g| g.server == server && g.tool == tool);
            if !had {
                return Err(Failure(format!(
                    "no grant of {tool} on {server} is kept (see `wharf grants list`)"
                )));
            }
            approvals.revoke(&server, &tool)?;
            output::print_json(&json!({"revoked": {"server": server, "tool": tool}}));
        }
    }
    for notice in approvals.take_notices() {
        output::say(&notice);
    }
    Ok(ExitCode::SUCCESS)
}
