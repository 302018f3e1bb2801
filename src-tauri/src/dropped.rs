//! Files and folders dropped on the window: Tauri's window event, handled here rather than in the webview. Each
//! folder opens as a workspace folder; nothing inside it is read, and anything else is left alone.

use std::path::PathBuf;

use tauri::{AppHandle, Manager};
use wharf_core::events::NoticeCode;

use crate::shell::{open_folder, Shell};

/// What a drop on the window opens: each directory becomes a workspace folder; anything else is left alone.
#[derive(Debug, Default, PartialEq, Eq)]
struct Dropped {
    opened: Vec<PathBuf>,
    ignored: Vec<PathBuf>,
}

fn sort_dropped(paths: &[PathBuf]) -> Dropped {
    let mut out = Dropped::default();
    for path in paths {
        if path.is_dir() {
            out.opened.push(path.clone());
        } else {
            out.ignored.push(path.clone());
        }
    }
    out
}

/// Files and folders dropped on the window (Tauri's window event, handled here rather than in the webview): the
/// folders open; the rest is reported once, as a notice.
pub fn dropped(handle: &AppHandle, paths: &[PathBuf]) {
    let Some(shell) = handle.try_state::<Shell>() else {
        return;
    };
    let Dropped { opened, ignored } = sort_dropped(paths);
    for folder in &opened {
        tracing::info!(folder = %folder.display(), "folder dropped on the window");
        open_folder(&shell, folder);
    }
    if ignored.is_empty() {
        return;
    }
    let names: Vec<String> = ignored
        .iter()
        .map(|p| {
            p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        })
        .collect();
    let message = format!(
        "{} not opened: only folders become workspace folders",
        names.join(", ")
    );
    tracing::info!("{message}");
    shell.session.notice(NoticeCode::DropIgnored, message);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drop_opens_directories_and_ignores_the_rest() {
        let dir = tempfile::tempdir().expect("tempdir");
        let folder = dir.path().join("project");
        let file = dir.path().join("notes.txt");
        std::fs::create_dir(&folder).expect("mkdir");
        std::fs::write(&file, "x").expect("write");
        let gone = dir.path().join("gone");
        let sorted = sort_dropped(&[file.clone(), folder.clone(), gone.clone()]);
        assert_eq!(
            sorted,
            Dropped {
                opened: vec![folder],
                ignored: vec![file, gone],
            }
        );
    }
}
