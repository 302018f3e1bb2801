//! Calls that show what happens around a call rather than its result: progress and cancellation (`slow`),
//! and a server that dies mid-call (`crash`).

use std::time::Duration;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ProgressNotificationParam};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::server::DemoServer;
use crate::NAME;

const MAX_STEPS: u32 = 100;
const MAX_DELAY_MS: u64 = 60_000;
/// The exit status of `crash`: distinct from 1 (a startup error) so a host's report can be checked.
pub const CRASH_STATUS: i32 = 3;

fn default_steps() -> u32 {
    5
}

fn default_delay_ms() -> u64 {
    500
}

fn default_crash_message() -> String {
    "demo crash".to_owned()
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SlowArgs {
    /// How many steps to take (1 to 100).
    #[serde(default = "default_steps")]
    #[schemars(range(min = 1, max = 100))]
    steps: u32,
    /// How long each step takes, in milliseconds.
    #[serde(default = "default_delay_ms")]
    #[schemars(range(max = 60000))]
    delay_ms: u64,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CrashArgs {
    /// What the server writes to stderr before it exits.
    #[serde(default = "default_crash_message")]
    message: String,
}

#[tool_router(router = lifecycle_tools, vis = "pub(crate)")]
impl DemoServer {
    #[tool(
        title = "Slow",
        description = "Takes STEPS steps of DELAY_MS milliseconds each, reporting progress after each step \
                       (when the call asked for progress), and stops as soon as the call is cancelled.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn slow(
        &self,
        Parameters(args): Parameters<SlowArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        // Out-of-range input is a tool error, not a protocol error, so the user (or model) sees why.
        if !(1..=MAX_STEPS).contains(&args.steps) {
            return CallToolResult::error(vec![ContentBlock::text(format!(
                "steps must be between 1 and {MAX_STEPS}, not {}",
                args.steps
            ))]);
        }
        if args.delay_ms > MAX_DELAY_MS {
            return CallToolResult::error(vec![ContentBlock::text(format!(
                "delay_ms must be at most {MAX_DELAY_MS}, not {}",
                args.delay_ms
            ))]);
        }
        let token = context.meta.get_progress_token();
        let total = args.steps;
        for step in 1..=total {
            tokio::select! {
                // rmcp drops the response of a cancelled request; returning promptly frees the task.
                () = context.ct.cancelled() => {
                    // Said on stderr too: the host drops the answer, but its stderr tail shows we stopped.
                    let done = step - 1;
                    eprintln!("{NAME}: slow cancelled after {done} of {total} steps");
                    return CallToolResult::error(vec![ContentBlock::text(format!(
                        "cancelled after {done} of {total} steps"
                    ))]);
                }
                () = tokio::time::sleep(Duration::from_millis(args.delay_ms)) => {}
            }
            if let Some(token) = &token {
                let progress = ProgressNotificationParam::new(token.clone(), f64::from(step))
                    .with_total(f64::from(total))
                    .with_message(format!("step {step} of {total}"));
                // A host that went away cannot be told; the call itself still finishes.
                if let Err(error) = context.peer.notify_progress(progress).await {
                    eprintln!("{NAME}: could not send progress: {error}");
                }
            }
        }
        CallToolResult::success(vec![ContentBlock::text(format!(
            "done after {total} steps"
        ))])
    }

    #[tool(
        title = "Crash",
        description = "Kills this server on purpose: writes \"fatal: MESSAGE\" to stderr and exits with status \
                       3, to show how Wharf reports a crashed server (its status and stderr) and restarts it.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn crash(&self, Parameters(args): Parameters<CrashArgs>) -> CallToolResult {
        eprintln!("fatal: {}", args.message);
        // The process ends here, mid-call: no result is sent, exactly like a real crash.
        std::process::exit(CRASH_STATUS)
    }
}
