//! The harness for Wharf's end-to-end tests: the real app, in a real WebKitGTK window, driven over WebDriver.
//!
//! Each test gets its own world (see [`App::start`]): a virtual X display and a D-Bus session (`xvfb-run -a
//! dbus-run-session`), one `tauri-driver` (which runs `WebKitWebDriver`, which runs the app) on free local ports, and
//! a temporary HOME / XDG_* so that no test sees another's state or the real user's configuration. Everything runs in
//! one process group that [`App::close`] (or, after a panic, `Drop`) ends, and the close checks that no process
//! carrying the test's marker is left behind.
//!
//! Waits are explicit and bounded ([`App::wait_for`], [`App::wait_for_text`], [`App::wait_for_log`]); there are no
//! fixed sleeps.

mod app;
mod driver;
mod logs;
mod paths;
mod procs;

pub use app::{with_app, with_launch, App, Home, Launch};
pub use fantoccini::{Client, Locator};
pub use paths::{demo_server, demo_server_bin, everything_server, repo_root, screenshots_dir};
pub use url::Url;

/// Everything that can go wrong while setting up, driving or tearing down the app.
///
/// `Debug` shows the message as `Display` does: a test returning `Err` prints it with `{:?}`, and the multi-line
/// driver output in a timeout must stay readable there.
#[derive(thiserror::Error)]
pub enum Error {
    /// A prerequisite is missing (a binary, a peer server): the message says how to get it.
    #[error("e2e setup: {0}")]
    Setup(String),
    #[error("e2e: {what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    // Boxed: fantoccini's errors carry JSON values, large enough to make every `Result` of the harness heavy.
    #[error("e2e: WebDriver could not open a session on the app: {0}")]
    NewSession(Box<fantoccini::error::NewSessionError>),
    #[error("e2e: WebDriver command failed: {0}")]
    WebDriver(Box<fantoccini::error::CmdError>),
    /// A bounded wait ran out; the message says what was awaited and what was seen last.
    #[error("e2e: timed out after {secs} s waiting for {what}")]
    Timeout { what: String, secs: u64 },
    /// Processes that carry the test's marker were still running after the close (they have been killed since).
    #[error("e2e: processes left behind after the app closed: {0}")]
    LeftBehind(String),
    /// A check in a test failed (for `?` inside [`with_app`] bodies; plain `assert!` works too).
    #[error("e2e: {0}")]
    Check(String),
}

impl From<fantoccini::error::NewSessionError> for Error {
    fn from(e: fantoccini::error::NewSessionError) -> Error {
        Error::NewSession(Box::new(e))
    }
}

impl From<fantoccini::error::CmdError> for Error {
    fn from(e: fantoccini::error::CmdError) -> Error {
        Error::WebDriver(Box::new(e))
    }
}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            what: what.into(),
            source,
        }
    }
}
