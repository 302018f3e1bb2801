//! Finding a server's command: a bare name (`npx`, `uvx`) is looked for on a PATH that Wharf builds, so that the
//! error for a missing one can say where it looked and where a command of that name does exist.
//!
//! The PATH searched, and given to the server: the server's own `PATH` when its configuration sets one; else, when
//! the login shell's PATH is known, its directories first and then those of Wharf's own PATH it lacks (a menu launch
//! gets the session's bare PATH, where `/usr/bin/node` may be an old system Node that the user's shell puts behind
//! nvm's: the shell's order is the one the user tested the command with); else Wharf's own PATH, which the server
//! inherits untouched. Relative entries are never searched: they would make the command depend on the directory.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::login_env::LoginShellError;

/// What is started for a server's command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// The file executed: the command itself when it names a file (it holds a `/`), else the one found on the PATH.
    pub file: PathBuf,
    /// The command as configured, the server's `argv[0]` as a shell would give it.
    pub name: String,
    /// The PATH the server gets, when it is not the one Wharf inherited.
    pub path_env: Option<OsString>,
}

/// A command that is nowhere on the PATH searched.
#[derive(Debug, Clone)]
pub struct NotFound {
    pub command: String,
    /// The directories searched; `None` for a command that names a file.
    pub searched: Option<Vec<PathBuf>>,
    /// Files of that name in the places tools usually install to, off the PATH searched.
    pub elsewhere: Vec<PathBuf>,
    /// Why the login shell's PATH is not among them, when it was to be.
    pub login_failure: Option<String>,
}

impl std::fmt::Display for NotFound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "command not found: {}", self.command)?;
        let Some(searched) = &self.searched else {
            return Ok(());
        };
        if searched.is_empty() {
            write!(f, " (the PATH searched is empty)")?;
        } else {
            write!(f, " (searched PATH {})", join(searched).to_string_lossy())?;
        }
        if let Some(why) = &self.login_failure {
            write!(f, "; your login shell's PATH was not read: {why}")?;
        }
        if let Some((first, more)) = self.elsewhere.split_first() {
            write!(f, "; a command of that name is at {}", first.display())?;
            if !more.is_empty() {
                let more: Vec<String> = more.iter().map(|p| p.display().to_string()).collect();
                write!(f, " (also {})", more.join(", "))?;
            }
            write!(f, ": give its full path or add its folder to PATH")?;
        }
        Ok(())
    }
}

/// How many places off the PATH a missing command's error names.
const MAX_ELSEWHERE: usize = 3;
/// Installed Node versions read under `~/.nvm` at most: more are not installed by hand.
const MAX_VERSIONS: usize = 64;

/// The PATH a server's command is looked for on.
#[derive(Debug, Clone)]
pub struct CommandSearch {
    dirs: Vec<PathBuf>,
    /// Set when the server gets a PATH Wharf built (the login shell's merged with its own).
    path_env: Option<OsString>,
    login_failure: Option<String>,
}

impl CommandSearch {
    /// The search for a server whose configuration sets `config_path` (its `env.PATH`, if any), started by a
    /// process whose PATH is `own_path`, with the login shell's outcome when it was read.
    pub fn new(
        config_path: Option<&str>,
        own_path: Option<&OsStr>,
        login: Option<&Result<Vec<PathBuf>, LoginShellError>>,
    ) -> CommandSearch {
        if let Some(path) = config_path {
            return CommandSearch {
                dirs: absolute_entries(OsStr::new(path)),
                path_env: None,
                login_failure: None,
            };
        }
        // Unset, execvp searches the C library's default; the same is searched here.
        let own = absolute_entries(own_path.unwrap_or(OsStr::new("/usr/bin:/bin")));
        match login {
            Some(Ok(shell_dirs)) => {
                let mut dirs = shell_dirs.clone();
                for dir in own {
                    if !dirs.contains(&dir) {
                        dirs.push(dir);
                    }
                }
                CommandSearch {
                    path_env: Some(join(&dirs)),
                    dirs,
                    login_failure: None,
                }
            }
            Some(Err(e)) => CommandSearch {
                dirs: own,
                path_env: None,
                login_failure: Some(e.to_string()),
            },
            None => CommandSearch {
                dirs: own,
                path_env: None,
                login_failure: None,
            },
        }
    }

    /// The directories searched, in order.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// The program to start for `command`. A file found that is not executable is still returned, so that starting
    /// it says "permission denied" rather than "not found". `home` is where the usual install places are looked
    /// for when the command is missing.
    pub fn find(&self, command: &str, home: Option<&Path>) -> Result<Program, NotFound> {
        let program = |file: PathBuf| Program {
            file,
            name: command.to_string(),
            path_env: self.path_env.clone(),
        };
        if command.contains('/') {
            return Ok(program(PathBuf::from(command)));
        }
        let mut unexecutable = None;
        if !command.is_empty() {
            for dir in &self.dirs {
                let file = dir.join(command);
                match executable(&file) {
                    Some(true) => return Ok(program(file)),
                    Some(false) if unexecutable.is_none() => unexecutable = Some(file),
                    _ => {}
                }
            }
        }
        if let Some(file) = unexecutable {
            return Ok(program(file));
        }
        Err(NotFound {
            command: command.to_string(),
            searched: Some(self.dirs.clone()),
            elsewhere: if command.is_empty() {
                Vec::new()
            } else {
                usual_places(command, home, &self.dirs)
            },
            login_failure: self.login_failure.clone(),
        })
    }
}

/// Whether `file` is a file (through symlinks) and executable by someone; `None` when it is no file.
fn executable(file: &Path) -> Option<bool> {
    let meta = std::fs::metadata(file).ok()?;
    meta.is_file()
        .then_some(meta.permissions().mode() & 0o111 != 0)
}

fn absolute_entries(path: &OsStr) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for entry in path.as_bytes().split(|&b| b == b':') {
        let dir = PathBuf::from(OsStr::from_bytes(entry));
        if dir.is_absolute() && !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    dirs
}

fn join(dirs: &[PathBuf]) -> OsString {
    let mut joined = OsString::new();
    for (n, dir) in dirs.iter().enumerate() {
        if n > 0 {
            joined.push(":");
        }
        joined.push(dir);
    }
    joined
}

/// Executable files named `command` where version managers and installers put commands, outside `searched`.
pub fn usual_places(command: &str, home: Option<&Path>, searched: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(home) = home {
        dirs.extend(node_versions(&home.join(".nvm/versions/node")));
        for dir in [
            ".local/bin",
            ".volta/bin",
            ".asdf/shims",
            ".local/share/mise/shims",
            ".pyenv/shims",
            ".cargo/bin",
            ".bun/bin",
            ".deno/bin",
            ".npm-global/bin",
            ".local/share/pnpm",
            ".nix-profile/bin",
            "go/bin",
            "bin",
        ] {
            dirs.push(home.join(dir));
        }
    }
    for dir in [
        "/usr/local/bin",
        "/opt/homebrew/bin",
        "/snap/bin",
        "/usr/bin",
        "/bin",
    ] {
        dirs.push(PathBuf::from(dir));
    }
    dirs.into_iter()
        .filter(|dir| !searched.contains(dir))
        .map(|dir| dir.join(command))
        .filter(|file| executable(file) == Some(true))
        .take(MAX_ELSEWHERE)
        .collect()
}

/// The `bin` directories of the Node versions installed under `versions`, the newest first.
fn node_versions(versions: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(versions) else {
        return Vec::new();
    };
    let mut found: Vec<(Vec<u64>, PathBuf)> = entries
        .filter_map(Result::ok)
        .take(MAX_VERSIONS)
        .map(|entry| {
            let name = entry.file_name().to_string_lossy().to_string();
            let version = name
                .trim_start_matches('v')
                .split('.')
                .map(|part| part.parse().unwrap_or(0))
                .collect();
            (version, entry.path().join("bin"))
        })
        .collect();
    found.sort_by(|a, b| b.0.cmp(&a.0));
    found.into_iter().map(|(_, dir)| dir).collect()
}

#[cfg(test)]
mod tests;
