//! The native dialogs the session's commands ask for (`wharf_core::facade::session::Desktop`): the folder picker and
//! the save dialog, shown over the window from Rust. The webview gets no dialog permission.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;

use tauri::{AppHandle, Manager};
use wharf_core::facade::command::Reply;
use wharf_core::facade::session::Desktop;
use wharf_core::facade::{CommandError, ErrorCode};

pub struct Dialogs(pub AppHandle);

impl Desktop for Dialogs {
    fn pick_folder(&self) -> Pin<Box<dyn Future<Output = Reply<Option<PathBuf>>> + Send + '_>> {
        let start = self.0.path().home_dir().ok();
        Box::pin(show(&self.0, "the folder picker", move |window| {
            let mut dialog = rfd::AsyncFileDialog::new().set_title("Open a workspace folder");
            if let Some(window) = window {
                dialog = dialog.set_parent(window);
            }
            if let Some(start) = &start {
                dialog = dialog.set_directory(start);
            }
            let picked = dialog.pick_folder();
            tracing::info!("folder picker shown");
            Box::pin(async move { picked.await.map(|f| f.path().to_path_buf()) })
        }))
    }

    fn pick_save_path(
        &self,
        title: String,
        suggested_name: String,
    ) -> Pin<Box<dyn Future<Output = Reply<Option<PathBuf>>> + Send + '_>> {
        let paths = self.0.path();
        let start = paths.download_dir().or_else(|_| paths.home_dir()).ok();
        Box::pin(show(&self.0, "the save dialog", move |window| {
            let mut dialog = rfd::AsyncFileDialog::new()
                .set_title(&title)
                .set_file_name(suggested_name);
            if let Some(window) = window {
                dialog = dialog.set_parent(window);
            }
            if let Some(start) = &start {
                dialog = dialog.set_directory(start);
            }
            let picked = dialog.save_file();
            tracing::info!(title, "save dialog shown");
            Box::pin(async move { picked.await.map(|f| f.path().to_path_buf()) })
        }))
    }
}

type Answer = Pin<Box<dyn Future<Output = Option<PathBuf>> + Send>>;

/// GTK wants its dialogs made on the thread that runs the window's event loop; the answer comes back on a channel,
/// awaited off that thread.
async fn show<F>(app: &AppHandle, what: &'static str, make: F) -> Reply<Option<PathBuf>>
where
    F: FnOnce(Option<&tauri::WebviewWindow>) -> Answer + Send + 'static,
{
    let (tx, rx) = tokio::sync::oneshot::channel();
    let window = app.get_webview_window(crate::window::MAIN_WINDOW);
    app.run_on_main_thread(move || {
        let answer = make(window.as_ref());
        std::thread::spawn(move || {
            let _ = tx.send(tauri::async_runtime::block_on(answer));
        });
    })
    .map_err(|e| CommandError::new(ErrorCode::Dialog, format!("cannot show {what}: {e}")))?;
    rx.await.map_err(|_| {
        CommandError::new(
            ErrorCode::Dialog,
            format!("{what} closed without an answer"),
        )
    })
}
