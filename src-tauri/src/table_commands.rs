//! One Tauri command for each window command of wharf-core's table (`facade/command_table.rs`), named as the table
//! names it and taking its arguments as `args`: each runs the command on the session and nothing else.

use wharf_core::facade::commands::prelude::*;
use wharf_core::facade::{CommandError, Run};

use crate::shell::Shell;

macro_rules! tauri_command_per_entry {
    (
        window: [$($name:ident : $args:ty => $output:ty),* $(,)?],
        session: [$($session:tt)*] $(,)?
    ) => {
        $(
            #[tauri::command]
            pub async fn $name(
                shell: tauri::State<'_, Shell>,
                args: $args,
            ) -> Result<$output, CommandError> {
                args.run(&shell.session).await
            }
        )*
    };
}

wharf_core::command_table!(tauri_command_per_entry);
