//! The Wharf desktop shell: one window over a `wharf_core::Host`.
//!
//! Everything the user sees comes from the session wharf-core holds, through the commands of its table
//! (`table_commands`) and forwarded host events; the webview holds no protocol logic and can reach nothing but those
//! commands (see `capabilities/` and `window`).

// Release builds on Windows must not open a console next to the window.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

// First: its macro is used by the modules below.
#[macro_use]
mod command_list;

mod dialogs;
mod dropped;
mod lifecycle;
mod logs;
mod questions;
#[cfg(target_os = "linux")]
mod renderer;
mod shell;
mod smoke;
mod state;
mod table_commands;
#[cfg(target_os = "linux")]
mod webview_settings;
mod window;
mod window_commands;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

#[derive(Debug, Parser)]
#[command(name = "wharf-app", version, about = "Wharf, the desktop MCP host")]
struct Args {
    /// The configuration file (VS Code mcp.json or Claude Desktop's mcpServers). Default: ~/.config/wharf/mcp.json.
    #[arg(long, env = "WHARF_CONFIG", value_name = "PATH")]
    config: Option<PathBuf>,
    /// Folders to open as workspace folders (they become the servers' roots).
    #[arg(value_name = "FOLDER")]
    folders: Vec<PathBuf>,
}

fn main() -> ExitCode {
    // First, while this is the only thread: it may set a variable WebKit reads when GTK starts.
    #[cfg(target_os = "linux")]
    let renderer = renderer::choose();
    let redactor = wharf_core::redact::Redactor::default();
    let _logs = logs::init(redactor.clone());
    #[cfg(target_os = "linux")]
    renderer.log();
    let args = Args::parse();
    let smoke = std::env::var("WHARF_APP_SMOKE").is_ok_and(|v| v == "1");
    let startup = wharf_core::facade::startup::Startup::load(args.config);
    match lifecycle::run(startup, smoke, redactor, args.folders) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(e) => {
            tracing::error!("wharf-app failed to start: {e}");
            eprintln!("wharf-app: {e}");
            ExitCode::FAILURE
        }
    }
}
