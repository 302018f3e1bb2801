//! The commands only the window has: its remembered state and the smoke test's report of what it rendered. Listed in
//! `command_list.rs`; every other command comes from wharf-core's table (`table_commands.rs`).

use serde::Deserialize;
use tauri::State;
use wharf_core::facade::command::Signature;
use wharf_core::facade::CommandError;

use crate::shell::Shell;
use crate::smoke::RenderedRow;
use crate::state::UiState;

#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct GetUiState {}

#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SetSelectedServer {
    pub name: Option<String>,
}

/// The UI tells what it has on screen after each render; only the smoke test listens (a no-op otherwise).
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SmokeRendered {
    pub rows: Vec<RenderedRow>,
}

macro_rules! app_command_types {
    ($($name:ident : $args:ty => $output:ty),* $(,)?) => {
        /// These commands' arguments and results by name: the UI's `AppCommands` type.
        #[derive(ts_rs::TS)]
        #[ts(export, rename = "AppCommands")]
        #[allow(dead_code)]
        pub struct AppCommandTypes {
            $(pub $name: Signature<$args, $output>,)*
        }
    };
}

app_commands!(app_command_types);

#[tauri::command]
pub fn get_ui_state(shell: State<'_, Shell>, args: GetUiState) -> Result<UiState, CommandError> {
    let GetUiState {} = args;
    Ok(shell.state.ui())
}

#[tauri::command]
pub fn set_selected_server(
    shell: State<'_, Shell>,
    args: SetSelectedServer,
) -> Result<(), CommandError> {
    shell.state.set_selected_server(args.name);
    Ok(())
}

#[tauri::command]
pub fn smoke_rendered(shell: State<'_, Shell>, args: SmokeRendered) -> Result<(), CommandError> {
    if let Some(probe) = &shell.smoke {
        probe.rendered(args.rows);
    }
    Ok(())
}
