//! One `tauri-driver` in a world of its own: `xvfb-run -a dbus-run-session -- tauri-driver ...`, started in a new
//! process group with the test's environment.
//!
//! Why one driver per test rather than one per test binary: the app inherits its environment from the driver
//! (WebDriver capabilities carry only a binary and its arguments), and each test needs its own HOME and XDG_*; the
//! D-Bus session (where a single-instance lock lives) and the display must not be shared either. A driver starts in
//! about half a second, so the isolation costs little. Tests in one binary still take turns (see `app.rs`).

use std::ffi::OsString;
use std::net::{Ipv4Addr, TcpListener};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::logs::Logs;
use crate::procs::{self, MARKER_VAR};
use crate::{paths, Error, Result};

/// How long tauri-driver and WebKitWebDriver may take to answer `/status` (Xvfb and D-Bus start first).
const READY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the group may take to end after SIGTERM before it gets SIGKILL.
const TERM_TIMEOUT: Duration = Duration::from_secs(10);
/// A port picked free can be taken by someone else before the driver binds it: that many fresh tries.
const START_ATTEMPTS: usize = 3;

pub(crate) struct Driver {
    /// xvfb-run, the leader of the process group everything else runs in.
    leader: Child,
    url: String,
    pub(crate) logs: Arc<Logs>,
    pub(crate) marker: String,
    ended: bool,
}

impl Driver {
    /// Starts the driver with `env` added to the inherited environment (and the marker), and waits until it is
    /// ready for a session.
    pub(crate) async fn start(env: &[(String, OsString)], marker: &str) -> Result<Driver> {
        let mut attempt = 1;
        loop {
            match Self::start_once(env, marker).await {
                Ok(driver) => return Ok(driver),
                // A lost race for a port or a display number: fresh ones may do. Anything else would fail again.
                Err(Start::Raced(e)) if attempt >= START_ATTEMPTS => return Err(e),
                Err(Start::Raced(_)) => attempt += 1,
                Err(Start::Failed(e)) => return Err(e),
            }
        }
    }

    async fn start_once(
        env: &[(String, OsString)],
        marker: &str,
    ) -> std::result::Result<Driver, Start> {
        let tauri_driver = paths::tauri_driver()?;
        let native = paths::native_driver()?;
        let xvfb_run = paths::required_program("xvfb-run", "xvfb xauth")?;
        let dbus_run_session = paths::required_program("dbus-run-session", "dbus")?;
        let (port, native_port) = free_ports()?;

        let mut command = Command::new(xvfb_run);
        // -a: the first free display number, so tests and a developer's own Xvfb never collide.
        command
            .args(["-a", "--"])
            .arg(dbus_run_session)
            .arg("--")
            .arg(&tauri_driver)
            .args(["--port", &port.to_string()])
            .args(["--native-port", &native_port.to_string()])
            .arg("--native-driver")
            .arg(&native)
            .envs(env.iter().map(|(k, v)| (k, v)))
            // Whatever the developer's shell says, the app takes its configuration from the launch alone.
            .env_remove("WHARF_CONFIG")
            .env_remove("WHARF_APP_SMOKE")
            .env(MARKER_VAR, marker)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // A group of its own: the close ends Xvfb, D-Bus, the drivers, the app and WebKit's helpers at once.
            .process_group(0);
        let mut leader = command
            .spawn()
            .map_err(|e| Error::io(format!("starting {}", tauri_driver.display()), e))?;
        let logs = Logs::new();
        if let Some(out) = leader.stdout.take() {
            logs.follow(out, "");
        }
        if let Some(err) = leader.stderr.take() {
            logs.follow(err, "");
        }
        let mut driver = Driver {
            leader,
            url: format!("http://127.0.0.1:{port}"),
            logs,
            marker: marker.to_owned(),
            ended: false,
        };
        match driver.wait_ready(port).await {
            Ok(()) => Ok(driver),
            Err(e) => {
                driver.shutdown().await;
                Err(e)
            }
        }
    }

    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// Waits until `GET /status` answers ready: tauri-driver forwards it to WebKitWebDriver, so both are up.
    async fn wait_ready(&mut self, port: u16) -> std::result::Result<(), Start> {
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if let Some(status) = self
                .leader
                .try_wait()
                .map_err(|e| Start::Failed(Error::io("waiting for xvfb-run", e)))?
            {
                // Most likely Xvfb lost a race for its display number (xvfb-run -a checks, then starts).
                return Err(Start::Raced(Error::Setup(format!(
                    "the driver exited ({status}) before it was ready:\n{}",
                    self.logs.tail(30)
                ))));
            }
            // tauri-driver does not exit when its port is taken: it says so on stdout and waits forever.
            if self.logs.contains("can not listen to address") {
                return Err(Start::Raced(Error::Setup(format!(
                    "tauri-driver's port {port} was taken"
                ))));
            }
            if status_ready(port).await {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(Start::Failed(Error::Timeout {
                    what: format!(
                        "tauri-driver on port {port} to be ready; its output:\n{}",
                        self.logs.tail(30)
                    ),
                    secs: READY_TIMEOUT.as_secs(),
                }));
            }
            // Nothing announces readiness: poll the port (bounded by the deadline above).
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Ends the whole process group: SIGTERM (tauri-driver stops WebKitWebDriver, the app stops its servers,
    /// xvfb-run and dbus-run-session clean up), then SIGKILL for whatever is still there after `TERM_TIMEOUT`.
    pub(crate) async fn shutdown(&mut self) {
        if self.ended {
            return;
        }
        let group = -self.pgid();
        procs::signal(group, libc::SIGTERM);
        let deadline = Instant::now() + TERM_TIMEOUT;
        // The leader is our child but std offers no async wait on it: poll, bounded.
        while matches!(self.leader.try_wait(), Ok(None)) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.kill_now();
    }

    /// The synchronous last resort (for `Drop`): SIGKILL to the group, and reap the leader.
    fn kill_now(&mut self) {
        if self.ended {
            return;
        }
        procs::signal(-self.pgid(), libc::SIGKILL);
        let _ = self.leader.wait();
        self.ended = true;
    }

    fn pgid(&self) -> i32 {
        // process_group(0) made the leader's pid the group id.
        i32::try_from(self.leader.id()).unwrap_or(i32::MAX)
    }
}

/// Why a start failed: `Raced` is worth another try with fresh ports and display.
enum Start {
    Raced(Error),
    Failed(Error),
}

impl From<Error> for Start {
    fn from(e: Error) -> Self {
        Start::Failed(e)
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if !self.ended && std::thread::panicking() {
            eprintln!(
                "e2e: the test panicked; the driver's and the app's last output:\n{}",
                self.logs.tail(60)
            );
        }
        self.kill_now();
    }
}

/// Two distinct free local ports (both listeners are held until both are picked, so they differ). Another process
/// may take one before the driver binds it; `Driver::start` then tries again.
fn free_ports() -> Result<(u16, u16)> {
    let bind = || {
        TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .and_then(|listener| Ok((listener.local_addr()?.port(), listener)))
            .map_err(|e| Error::io("picking a free port", e))
    };
    let (a, _hold_a) = bind()?;
    let (b, _hold_b) = bind()?;
    Ok((a, b))
}

/// One `GET /status`; true when the answer says `"ready":true`. Any error means "not yet".
async fn status_ready(port: u16) -> bool {
    let probe = async {
        let mut stream = tokio::net::TcpStream::connect((Ipv4Addr::LOCALHOST, port)).await?;
        let request =
            format!("GET /status HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await?;
        Ok::<_, std::io::Error>(answer)
    };
    match tokio::time::timeout(Duration::from_secs(2), probe).await {
        Ok(Ok(answer)) => {
            answer.starts_with("HTTP/1.1 200")
                && answer
                    .replace(char::is_whitespace, "")
                    .contains("\"ready\":true")
        }
        _ => false,
    }
}
