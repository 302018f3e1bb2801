//! The Wharf desktop shell: one window over a `wharf_core::Host`.
//!
//! Everything the user sees comes from the host through thin commands (`commands`) and forwarded host events; the
//! webview holds no protocol logic and can reach nothing but those commands (see `capabilities/` and `window`).

// Release builds on Windows must not open a console next to the window.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod commands;
mod shell;
mod smoke;
mod window;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

#[derive(Debug, Parser)]
#[command(name = "wharf-app", version, about = "Wharf, the desktop MCP host")]
struct Args {
    /// The configuration file (VS Code mcp.json or Claude Desktop's mcpServers). Default: ~/.config/wharf/mcp.json.
    #[arg(long, env = "WHARF_CONFIG", value_name = "PATH")]
    config: Option<PathBuf>,
}

fn main() -> ExitCode {
    init_tracing();
    let args = Args::parse();
    let smoke = std::env::var("WHARF_APP_SMOKE").is_ok_and(|v| v == "1");
    let startup = shell::Startup::load(args.config);
    match shell::run(startup, smoke) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(e) => {
            tracing::error!("wharf-app failed to start: {e}");
            eprintln!("wharf-app: {e}");
            ExitCode::FAILURE
        }
    }
}

fn init_tracing() {
    // Logs go to stderr: stdout is reserved for the smoke report that tests parse.
    // rmcp logs every handshake at info, with the whole server identity: too much for the app's default.
    let filter = tracing_subscriber::EnvFilter::try_from_env("WHARF_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rmcp=warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}
