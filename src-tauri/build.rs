//! Builds the Tauri context. The UI is embedded from `../ui/dist` at compile time, so it must be built first.

use std::path::Path;

include!("src/command_list.rs");
include!("../crates/wharf-core/src/facade/command_table.rs");

/// Every command the webview may call (the window's own, then wharf-core's). Listing them here makes tauri-build generate one `allow-<command>` permission
/// per command, so a capability file must grant each one explicitly (nothing is reachable by default).
const COMMANDS: &[&str] = all_commands!(command_names);

fn main() {
    let dist = Path::new("../ui/dist");
    // generate_context! embeds the files; without this, a rebuilt UI would not reach the binary.
    println!("cargo:rerun-if-changed=../ui/dist");
    println!("cargo:rerun-if-changed=src/command_list.rs");
    println!("cargo:rerun-if-changed=../crates/wharf-core/src/facade/command_table.rs");
    if !dist.join("index.html").is_file() {
        println!(
            "cargo::error=the UI is not built: {} has no index.html. Run `npm --prefix ui ci && npm --prefix ui run build` first.",
            dist.display()
        );
        return;
    }
    let attributes = tauri_build::Attributes::new()
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    if let Err(e) = tauri_build::try_build(attributes) {
        println!("cargo::error=tauri-build failed: {e:#}");
    }
}
