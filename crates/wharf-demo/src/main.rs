//! `wharf-demo-server`: the MCP server Wharf starts on first run, when the user has no configuration, so that
//! every feature of the app can be seen at once. Built on rmcp's server side; speaks stdio by default and
//! Streamable HTTP with `--http PORT`. Both protocol eras are served: 2026-07-28 (`server/discover`, then
//! stateless requests) and 2025-11-25 and older (`initialize`).

mod http;
mod prompts;
mod readme;
mod server;
mod tools;

use std::process::ExitCode;

use clap::Parser;
use rmcp::service::ServerInitializeError;
use rmcp::ServiceExt;

use crate::server::DemoServer;

pub const NAME: &str = "wharf-demo-server";
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

#[derive(Parser)]
#[command(name = NAME, version, about = "Wharf's bundled demo MCP server")]
struct Args {
    /// Serve Streamable HTTP on 127.0.0.1:PORT at /mcp instead of stdio (0 picks a free port; the URL is
    /// printed on stderr).
    #[arg(long, value_name = "PORT")]
    http: Option<u16>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    // One thread is plenty for a demo, and rmcp round trips are fastest on a current-thread runtime.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("{NAME}: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = match args.http {
        Some(port) => runtime.block_on(http::serve(port)),
        None => runtime.block_on(serve_stdio()),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(reason) => {
            eprintln!("{NAME}: {reason}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_stdio() -> Result<(), String> {
    // The host shows the tail of stderr, so say who we are before the first message can arrive.
    eprintln!("{NAME} {VERSION} ready (stdio)");
    let running = match DemoServer::new()
        .serve(rmcp::transport::io::stdio_pipes())
        .await
    {
        Ok(running) => running,
        // A host that probes and closes stdin before any request (or stops us early) is not an error.
        Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
        Err(error) => return Err(format!("could not start serving: {error}")),
    };
    running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|error| format!("stopped: {error}"))
}
