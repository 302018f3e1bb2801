// The commands only the window has, as `name: Arguments => Result` (their types in `window_commands.rs`). Every other
// command the webview may call is in wharf-core's table (crates/wharf-core/src/facade/command_table.rs). From the two
// are made, so they cannot disagree: the invoke handler (`lifecycle.rs`), the `allow-<command>` permissions that
// tauri-build generates (`build.rs`, which includes both files), the UI's `TauriCommand` type (written by the
// `command_list` test) and its `Commands` and `AppCommands` types, the only names and shapes `ui/src/lib/api.ts` can
// invoke. The capability file must grant each one; a test says when it does not. Plain comments only: `build.rs`
// includes this file as it is.

/// Expands `$then! { name: Arguments => Result, ... }` over every command of the window's own (after `TOKENS`, when
/// called as `app_commands!(then, TOKENS)`).
macro_rules! app_commands {
    ($then:ident $(, $($before:tt)*)?) => {
        $then! {
            $($($before)*)?
            get_ui_state: GetUiState => UiState,
            set_selected_server: SetSelectedServer => (),
            smoke_rendered: SmokeRendered => (),
        }
    };
}

/// Expands `$then! { app: [name, ...] window: [...], session: [...] }`: the names of the window's own commands, then
/// wharf-core's table. `command_table!` must be in scope where this is used.
macro_rules! all_commands {
    ($then:ident) => {
        app_commands!(app_names_before_table, $then)
    };
}

macro_rules! app_names_before_table {
    ($then:ident $($app:ident : $app_args:ty => $app_output:ty),* $(,)?) => {
        command_table!($then, app: [$($app),*])
    };
}

/// Every command's name, the window's own first: `all_commands!(command_names)`.
#[allow(unused_macros)]
macro_rules! command_names {
    (
        app: [$($app:ident),*]
        window: [$($name:ident : $args:ty => $output:ty),* $(,)?],
        session: [$($session:tt)*] $(,)?
    ) => {
        &[$(stringify!($app),)* $(stringify!($name),)*]
    };
}

#[cfg(test)]
#[path = "command_list_tests.rs"]
mod tests;
