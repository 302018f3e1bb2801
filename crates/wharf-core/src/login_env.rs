//! The PATH of the user's login shell, read once when a front end starts.
//!
//! Started from a desktop menu, a program gets the session's bare PATH, not the one the user's shell builds (nvm,
//! asdf, pyenv, `~/.local/bin`): a server configured as `npx ...` then fails with "not found" although it runs in a
//! terminal. So the app reads the PATH a login shell sets up (`shell.rs`) and server commands are looked for in it
//! too (`process/search.rs`). Only the PATH is read from the shell, and only directories are kept of it
//! (`clean.rs`): whatever else the user's rc files print or export never reaches Wharf.
//!
//! When it runs is decided by `wanted`: `WHARF_LOGIN_SHELL=1` always, `=0` never; otherwise the app does unless
//! its stdin is a terminal (started from a shell, it has that shell's PATH already), and the `wharf` command never
//! does (it always runs from a shell, a script or a test that set the PATH it means).

mod clean;
mod shell;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use clean::{clean_path, MAX_ENTRIES, MAX_PATH_BYTES};
pub use shell::{login_path, user_shell};

/// The environment variable that turns reading the login shell's PATH on (`1`) or off (`0`) in either front end.
pub const SWITCH: &str = "WHARF_LOGIN_SHELL";

/// How long the login shell may take: an rc file that waits on the network or a prompt must not hold the servers
/// back for longer (VS Code allows 10 seconds, for an editor that has more to do meanwhile).
pub const DEFAULT_BOUND: Duration = Duration::from_secs(5);

/// What a killed shell takes to be reaped, added to the bound by those who wait for the answer.
const REAP_MARGIN: Duration = Duration::from_secs(2);

#[derive(Debug, thiserror::Error)]
pub enum LoginShellError {
    #[error("no login shell is known ($SHELL is unset and the user database names none)")]
    NoShell,
    #[error("{} did not start: {source}", shell.display())]
    Start {
        shell: PathBuf,
        source: std::io::Error,
    },
    #[error("{} did not finish within {after:?}", shell.display())]
    TimedOut { shell: PathBuf, after: Duration },
    #[error("{} failed ({status})", shell.display())]
    Failed { shell: PathBuf, status: String },
    #[error("{} printed no usable PATH", shell.display())]
    NoPath { shell: PathBuf },
    #[error("the login shell's reader stopped without an answer")]
    Gone,
}

/// Which front end is asking: they differ in whether they read the login shell by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrontEnd {
    App,
    Cli,
}

/// Whether `front` reads the login shell's PATH, given the value of `WHARF_LOGIN_SHELL` and whether its stdin is a
/// terminal. An unrecognised value of the switch counts as unset, with a warning.
pub fn wanted(front: FrontEnd, switch: Option<&str>, stdin_is_terminal: bool) -> bool {
    match switch.map(str::trim) {
        Some("1" | "true" | "on" | "yes") => return true,
        Some("0" | "false" | "off" | "no") => return false,
        Some("") | None => {}
        Some(other) => tracing::warn!("{SWITCH}={other:?} is neither 1 nor 0; ignored"),
    }
    front == FrontEnd::App && !stdin_is_terminal
}

/// What reading the login shell gave: its PATH's usable directories, or why there are none.
pub type LoginOutcome = Arc<Result<Vec<PathBuf>, LoginShellError>>;

/// The login shell's PATH, being read in the background; cheap to clone, read by every server start.
#[derive(Clone)]
pub struct LoginPath {
    answer: tokio::sync::watch::Receiver<Option<LoginOutcome>>,
    bound: Duration,
}

impl LoginPath {
    /// Starts reading the login shell's PATH when `front` wants it (`wanted`, from this process's environment and
    /// stdin), with `DEFAULT_BOUND`.
    pub fn start_for(front: FrontEnd) -> Option<LoginPath> {
        use std::io::IsTerminal;
        let switch = std::env::var(SWITCH).ok();
        if !wanted(front, switch.as_deref(), std::io::stdin().is_terminal()) {
            return None;
        }
        Some(match user_shell() {
            Some(shell) => LoginPath::start(shell, DEFAULT_BOUND),
            None => LoginPath::known(Err(LoginShellError::NoShell)),
        })
    }

    /// Starts reading `shell`'s PATH on a thread of its own, so that neither a window nor a runtime waits for it.
    pub fn start(shell: PathBuf, bound: Duration) -> LoginPath {
        let (tell, answer) = tokio::sync::watch::channel(None);
        let started = std::thread::Builder::new()
            .name("wharf-login-shell".into())
            .spawn(move || {
                let outcome = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(runtime) => runtime.block_on(login_path(&shell, bound)),
                    Err(source) => Err(LoginShellError::Start { shell, source }),
                };
                match &outcome {
                    Ok(dirs) => tracing::info!("login shell PATH: {} directories", dirs.len()),
                    Err(e) => tracing::warn!("the login shell's PATH is not used: {e}"),
                }
                tell.send_replace(Some(Arc::new(outcome)));
            });
        if let Err(e) = started {
            // The sender went with the thread that never ran: `get` answers `Gone`.
            tracing::warn!("cannot start the login shell's reader: {e}");
        }
        LoginPath { answer, bound }
    }

    /// An outcome already known.
    pub fn known(outcome: Result<Vec<PathBuf>, LoginShellError>) -> LoginPath {
        let (_tell, answer) = tokio::sync::watch::channel(Some(Arc::new(outcome)));
        LoginPath {
            answer,
            bound: Duration::ZERO,
        }
    }

    /// The outcome, waiting for it at most the bound it was started with (and the time to reap a killed shell).
    pub async fn get(&self) -> LoginOutcome {
        let mut answer = self.answer.clone();
        let waited =
            tokio::time::timeout(self.bound + REAP_MARGIN, answer.wait_for(Option::is_some)).await;
        match waited {
            Ok(Ok(outcome)) => outcome
                .clone()
                .unwrap_or_else(|| Arc::new(Err(LoginShellError::Gone))),
            Ok(Err(_)) | Err(_) => Arc::new(Err(LoginShellError::Gone)),
        }
    }
}

#[cfg(test)]
mod tests;
