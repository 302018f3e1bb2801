// The one list of the commands the webview may call, as `module::command` (modules of this crate). Three things are
// made from it, so they cannot disagree: the invoke handler (`lifecycle.rs`), the `allow-<command>` permissions that
// tauri-build generates (`build.rs`, which includes this file), and the UI's `TauriCommand` type (written by the
// `command_list` test), the only names `ui/src/lib/api.ts` can invoke. The capability file must grant each one; a
// test says when it does not. Plain comments only: `build.rs` includes this file as it is.

/// Expands `$then! { module::command, ... }` over every command.
macro_rules! tauri_commands {
    ($then:ident) => {
        $then! {
            commands::list_servers,
            commands::restart_server,
            commands::stop_server,
            commands::startup_report,
            commands::smoke_rendered,
            commands::list_tools,
            commands::call_tool,
            commands::cancel_call,
            commands::list_server_entries,
            commands::save_server,
            commands::remove_server,
            commands::import_sources,
            commands::import_servers,
            commands::get_ui_state,
            commands::set_selected_server,
            commands::pending_inputs,
            commands::answer_input,
            commands::resume_elicitation,
            auth_commands::sign_in_status,
            auth_commands::sign_out,
            workspace_commands::workspace_folders,
            workspace_commands::open_folder_dialog,
            workspace_commands::open_folder,
            workspace_commands::close_folder,
            workspace_commands::server_roots,
            workspace_commands::set_roots_preference,
            workspace_commands::set_path_preference,
            workspace_commands::tool_path_params,
            sampling_commands::sampling_settings,
            sampling_commands::save_sampling_provider,
            sampling_commands::set_secret,
            sampling_commands::delete_secret,
            sampling_commands::set_sampling_preference,
            sampling_commands::forget_sampling_preference,
            catalog_commands::list_resources,
            catalog_commands::read_resource,
            catalog_commands::save_resource_blob,
            catalog_commands::template_variables,
            catalog_commands::expand_template,
            catalog_commands::list_prompts,
            catalog_commands::get_prompt,
            catalog_commands::complete,
            catalog_commands::subscribe_resource,
            catalog_commands::set_log_level,
            catalog_commands::log_level,
            catalog_commands::clear_log_level,
            input_commands::missing_inputs,
            input_commands::provide_input,
            chat_commands::chat_status,
            chat_commands::send_message,
            chat_commands::cancel_turn,
            chat_commands::summarize_conversation,
            chat_commands::list_conversations,
            chat_commands::search_conversations,
            chat_commands::rename_conversation,
            chat_commands::delete_conversation,
            chat_commands::conversation_messages,
            chat_commands::list_grants,
            chat_commands::revoke_grant,
            chat_commands::open_link,
            chat_commands::local_models,
            chat_commands::chat_models,
            chat_commands::choose_chat_model,
        }
    };
}

#[cfg(test)]
#[path = "command_list_tests.rs"]
mod tests;
