//! Workspace variables in server configurations: `${workspaceFolder}`, `${workspaceFolders}` and
//! `${workspaceFolderBasename}`, one of the alternatives to roots (SEP-2577).
//!
//! A server that needs the user's folders gets them on its command line, in its environment or as its working
//! directory, the way VS Code's `mcp.json` does it. The values come from the folders open when the configuration is
//! expanded, so a server whose definition uses them is restarted when the workspace changes (`ServerDef::
//! uses_workspace`).

use std::path::{Path, PathBuf};

/// The variable names this module resolves, without `${}`.
pub const WORKSPACE_FOLDER: &str = "workspaceFolder";
pub const WORKSPACE_FOLDERS: &str = "workspaceFolders";
pub const WORKSPACE_FOLDER_BASENAME: &str = "workspaceFolderBasename";

/// The open workspace folders, in the order they were opened; the first one is `${workspaceFolder}`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkspaceVars {
    pub folders: Vec<PathBuf>,
}

impl WorkspaceVars {
    pub fn new(folders: &[PathBuf]) -> WorkspaceVars {
        WorkspaceVars {
            folders: folders.to_vec(),
        }
    }

    /// Whether `name` (the text between `${` and `}`) is a workspace variable.
    pub fn is_workspace_var(name: &str) -> bool {
        matches!(
            name,
            WORKSPACE_FOLDER | WORKSPACE_FOLDERS | WORKSPACE_FOLDER_BASENAME
        )
    }

    /// The value of `${name}` inside a longer string: `None` when `name` is not a workspace variable, an error naming
    /// the variable when it cannot be resolved (no folder open, a folder that is not UTF-8...). Several folders
    /// inside a string are joined with the OS path-list separator (`:`), the way `PATH`-like values are written.
    pub fn lookup(&self, name: &str) -> Option<Result<String, String>> {
        let value = match name {
            WORKSPACE_FOLDER => self.first(name).and_then(|f| utf8(name, f)),
            WORKSPACE_FOLDER_BASENAME => self.first(name).and_then(|f| basename(name, f)),
            WORKSPACE_FOLDERS => self.joined(),
            _ => return None,
        };
        Some(value)
    }

    /// A whole argument that is exactly `${workspaceFolders}` becomes one argument per folder, so a server that takes
    /// its directories as separate arguments (e.g. the reference filesystem server) gets each as its own. `None` when
    /// `arg` is anything else (it is expanded as a string).
    pub fn split_whole_arg(&self, arg: &str) -> Option<Result<Vec<String>, String>> {
        if arg != format!("${{{WORKSPACE_FOLDERS}}}") {
            return None;
        }
        if self.folders.is_empty() {
            return Some(Err(no_folder(WORKSPACE_FOLDERS)));
        }
        Some(
            self.folders
                .iter()
                .map(|f| utf8(WORKSPACE_FOLDERS, f))
                .collect(),
        )
    }

    fn first(&self, name: &str) -> Result<&Path, String> {
        self.folders
            .first()
            .map(PathBuf::as_path)
            .ok_or_else(|| no_folder(name))
    }

    fn joined(&self) -> Result<String, String> {
        if self.folders.is_empty() {
            return Err(no_folder(WORKSPACE_FOLDERS));
        }
        // join_paths refuses a folder that itself holds the separator: the joined list could not be split back.
        let joined = std::env::join_paths(&self.folders).map_err(|_| {
            format!(
                "${{{WORKSPACE_FOLDERS}}}: a folder name holds the path separator, so the folders cannot be joined \
                 (use \"${{{WORKSPACE_FOLDERS}}}\" as a whole argument instead)"
            )
        })?;
        joined.into_string().map_err(|s| {
            format!(
                "${{{WORKSPACE_FOLDERS}}}: {} is not valid UTF-8",
                Path::new(&s).display()
            )
        })
    }
}

fn no_folder(name: &str) -> String {
    format!("${{{name}}}: no workspace folder is open")
}

/// Configuration values are strings: a folder whose name is not UTF-8 cannot be passed on without changing it, so it
/// is an error rather than a lossy (and wrong) path.
fn utf8(name: &str, folder: &Path) -> Result<String, String> {
    folder
        .to_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("${{{name}}}: {} is not valid UTF-8", folder.display()))
}

fn basename(name: &str, folder: &Path) -> Result<String, String> {
    let base = folder
        .file_name()
        .ok_or_else(|| format!("${{{name}}}: the folder {} has no name", folder.display()))?;
    base.to_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("${{{name}}}: {} is not valid UTF-8", folder.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws(folders: &[&str]) -> WorkspaceVars {
        WorkspaceVars::new(&folders.iter().map(PathBuf::from).collect::<Vec<_>>())
    }

    #[test]
    fn each_variable_has_its_value() {
        let w = ws(&["/home/ada/proj", "/srv/data"]);
        assert_eq!(
            w.lookup("workspaceFolder"),
            Some(Ok("/home/ada/proj".into()))
        );
        assert_eq!(w.lookup("workspaceFolderBasename"), Some(Ok("proj".into())));
        assert_eq!(
            w.lookup("workspaceFolders"),
            Some(Ok("/home/ada/proj:/srv/data".into()))
        );
        assert_eq!(w.lookup("env:HOME"), None);
    }

    #[test]
    fn whole_argument_folders_split() {
        let w = ws(&["/a b", "/c"]);
        assert_eq!(
            w.split_whole_arg("${workspaceFolders}"),
            Some(Ok(vec!["/a b".to_string(), "/c".to_string()]))
        );
        assert_eq!(w.split_whole_arg("--dirs=${workspaceFolders}"), None);
    }

    #[test]
    fn no_folder_open_is_an_error_naming_the_variable() {
        let w = ws(&[]);
        for name in [
            WORKSPACE_FOLDER,
            WORKSPACE_FOLDERS,
            WORKSPACE_FOLDER_BASENAME,
        ] {
            assert_eq!(
                w.lookup(name),
                Some(Err(format!("${{{name}}}: no workspace folder is open")))
            );
        }
        assert_eq!(
            w.split_whole_arg("${workspaceFolders}"),
            Some(Err(
                "${workspaceFolders}: no workspace folder is open".into()
            ))
        );
    }

    #[test]
    fn a_folder_holding_the_separator_cannot_be_joined_but_can_be_split() {
        let w = ws(&["/a:b", "/c"]);
        let err = w.lookup("workspaceFolders").unwrap().unwrap_err();
        assert!(err.contains("path separator"), "{err}");
        assert_eq!(
            w.split_whole_arg("${workspaceFolders}"),
            Some(Ok(vec!["/a:b".to_string(), "/c".to_string()]))
        );
    }

    #[test]
    fn the_root_folder_has_no_basename() {
        let err = ws(&["/"])
            .lookup("workspaceFolderBasename")
            .unwrap()
            .unwrap_err();
        assert!(err.contains("has no name"), "{err}");
    }
}
