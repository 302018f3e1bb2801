//! Builds the Tauri context. The UI is embedded from `../ui/dist` at compile time, so it must be built first.

use std::path::Path;

/// Every command the webview may call. Listing them here makes tauri-build generate one `allow-<command>` permission
/// per command, so a capability file must grant each one explicitly (nothing is reachable by default).
const COMMANDS: &[&str] = &[
    "list_servers",
    "restart_server",
    "stop_server",
    "startup_report",
    "smoke_rendered",
    "list_tools",
    "call_tool",
    "cancel_call",
    "list_server_entries",
    "save_server",
    "remove_server",
    "import_sources",
    "import_servers",
    "get_ui_state",
    "set_selected_server",
    "pending_inputs",
    "answer_input",
    "resume_elicitation",
    "workspace_folders",
    "open_folder_dialog",
    "open_folder",
    "close_folder",
    "server_roots",
    "set_roots_preference",
    "set_path_preference",
    "tool_path_params",
    "sampling_settings",
    "save_sampling_provider",
    "set_secret",
    "delete_secret",
    "set_sampling_preference",
    "forget_sampling_preference",
    "list_resources",
    "read_resource",
    "save_resource_blob",
    "template_variables",
    "expand_template",
    "list_prompts",
    "get_prompt",
    "complete",
    "subscribe_resource",
    "set_log_level",
    "log_level",
    "clear_log_level",
    "missing_inputs",
    "provide_input",
    "sign_in_status",
    "sign_out",
];

fn main() {
    let dist = Path::new("../ui/dist");
    // generate_context! embeds the files; without this, a rebuilt UI would not reach the binary.
    println!("cargo:rerun-if-changed=../ui/dist");
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
