//! The app under test, behind one WebDriver session.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::error::CmdError;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use tokio::sync::{Mutex, MutexGuard};

use crate::driver::Driver;
use crate::procs::{self, MARKER_VAR};
use crate::{paths, Error, Result};

/// Tests in one binary take turns: two WebKit windows and their servers on a 2-core machine (with builds running
/// beside them) make every timing loose, and a screenshot taken while another app starts would be slower for
/// nothing. Each test is isolated anyway (its own display, D-Bus, HOME and driver).
static TURN: Mutex<()> = Mutex::const_new(());

/// How long opening the WebDriver session may take: WebKitWebDriver starts the app and waits for its webview.
const SESSION_TIMEOUT: Duration = Duration::from_secs(60);
/// How long the app may take to quit once its session is closed (it stops its servers first).
const APP_EXIT_TIMEOUT: Duration = Duration::from_secs(20);
/// How long processes that left the group (MCP servers) may take to end after the group did.
const LEFTOVER_TIMEOUT: Duration = Duration::from_secs(10);
/// The period of the element waits (each check is one WebDriver round trip).
const POLL: Duration = Duration::from_millis(100);

/// A test's world on disk: a temporary directory holding HOME (`home/`), XDG_CONFIG_HOME (`config/`),
/// XDG_CACHE_HOME (`cache/`), XDG_DATA_HOME (`data/`), XDG_STATE_HOME (`state/`), XDG_RUNTIME_DIR (`run/`) and the
/// `mcp.json` that `--config` points to, plus the marker that every process of the test carries.
///
/// Each [`App::start`] makes a fresh one. A test that restarts the app makes one with [`Home::new`] and passes it to
/// each [`Launch`] in turn ([`Launch::home`]): the second app then finds what the first one left (its app state,
/// the webview's storage, the configuration). Sessions on one home must not overlap (they take turns anyway).
pub struct Home {
    dir: tempfile::TempDir,
    marker: String,
}

impl Home {
    /// A fresh, empty home. With `WHARF_E2E_KEEP` set it is not deleted at the end.
    pub fn new() -> Result<Arc<Home>> {
        let dir = tempfile::Builder::new()
            .prefix("wharf-e2e-")
            .disable_cleanup(std::env::var_os("WHARF_E2E_KEEP").is_some())
            .tempdir()
            .map_err(|e| Error::io("creating the test's temp dir", e))?;
        let marker = dir
            .path()
            .file_name()
            .and_then(|name| name.to_str())
            .map(|name| format!("{name}-{}", std::process::id()))
            .unwrap_or_else(|| format!("wharf-e2e-{}", std::process::id()));
        for (_, sub) in ENV_DIRS {
            let path = dir.path().join(sub);
            std::fs::create_dir_all(&path)
                .map_err(|e| Error::io(format!("creating {}", path.display()), e))?;
        }
        // The XDG spec requires the runtime dir to be private; GLib warns (and some services refuse) otherwise.
        set_mode_0700(&dir.path().join("run"))?;
        Ok(Arc::new(Home { dir, marker }))
    }

    /// The temporary directory itself.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The file `--config` points to (`Launch::config` writes it).
    pub fn config_path(&self) -> PathBuf {
        self.path().join("mcp.json")
    }

    /// The app's own directory under XDG_CONFIG_HOME (`wharf/`): its default `mcp.json` and `app-state.json`.
    pub fn app_config_dir(&self) -> PathBuf {
        self.path().join("config/wharf")
    }

    /// The variables the driver (and so the app) gets: HOME and the XDG_* directories.
    fn env(&self) -> Vec<(&'static str, PathBuf)> {
        ENV_DIRS
            .iter()
            .map(|(var, sub)| (*var, self.path().join(sub)))
            .collect()
    }
}

/// The environment variables a [`Home`] sets, and their directories in it.
const ENV_DIRS: [(&str, &str); 6] = [
    ("HOME", "home"),
    ("XDG_CONFIG_HOME", "config"),
    ("XDG_CACHE_HOME", "cache"),
    ("XDG_DATA_HOME", "data"),
    ("XDG_STATE_HOME", "state"),
    ("XDG_RUNTIME_DIR", "run"),
];

/// How to start the app: which configuration, which home, which extra arguments and environment variables.
pub struct Launch {
    home: Option<Arc<Home>>,
    config: LaunchConfig,
    args: Vec<String>,
    env: Vec<(String, OsString)>,
}

enum LaunchConfig {
    /// Write this value to the home's `mcp.json` (marked) and pass `--config` with it.
    Write(Value),
    /// Pass `--config` with the home's `mcp.json` as it is (a restart sees what the last session left).
    Existing,
    /// No `--config`: the app uses `$XDG_CONFIG_HOME/wharf/mcp.json` (a first run when it does not exist).
    Default,
}

impl Launch {
    /// `--config <home>/mcp.json` holding `config`. Every stdio server in it gets the test's marker in its `env`,
    /// so that the close can prove none of them outlived the app.
    pub fn config(config: Value) -> Launch {
        Launch {
            home: None,
            config: LaunchConfig::Write(config),
            args: Vec::new(),
            env: Vec::new(),
        }
    }

    /// `--config <home>/mcp.json` as the home already holds it (written by an earlier launch, or the app's edits).
    pub fn existing_config() -> Launch {
        Launch {
            home: None,
            config: LaunchConfig::Existing,
            args: Vec::new(),
            env: Vec::new(),
        }
    }

    /// No `--config` (and no `WHARF_CONFIG`): the app's default configuration path under the home's
    /// XDG_CONFIG_HOME. In a fresh home that is the first run.
    pub fn default_config() -> Launch {
        Launch {
            home: None,
            config: LaunchConfig::Default,
            args: Vec::new(),
            env: Vec::new(),
        }
    }

    /// Start in `home` rather than in a fresh one.
    pub fn home(mut self, home: &Arc<Home>) -> Launch {
        self.home = Some(Arc::clone(home));
        self
    }

    /// More arguments for the app (after `--config PATH`, when there is one).
    pub fn args(mut self, args: &[&str]) -> Launch {
        self.args.extend(args.iter().map(|arg| (*arg).to_owned()));
        self
    }

    /// An environment variable for the app (e.g. `BROWSER`). WebDriver capabilities carry no environment, so it is
    /// set on the driver, whose children (WebKitWebDriver, then the app and its servers) inherit it. Set after the
    /// home's HOME and XDG_* variables: naming one of them here overrides it.
    pub fn env(mut self, name: &str, value: impl AsRef<OsStr>) -> Launch {
        self.env
            .push((name.to_owned(), value.as_ref().to_os_string()));
        self
    }
}

pub struct App {
    client: Client,
    driver: Driver,
    home: Arc<Home>,
    config_path: PathBuf,
    _turn: MutexGuard<'static, ()>,
}

impl App {
    /// Starts the app with `config` (an `mcp.json` value) in a fresh [`Home`], and opens a WebDriver session on its
    /// window.
    ///
    /// Every stdio server in `config` gets the test's marker in its `env`, so that the close can prove none of them
    /// outlived the app.
    pub async fn start(config: Value) -> Result<App> {
        Self::launch(Launch::config(config)).await
    }

    /// [`App::start`] with more arguments for the app (after `--config PATH`).
    pub async fn start_with_args(config: Value, args: &[&str]) -> Result<App> {
        Self::launch(Launch::config(config).args(args)).await
    }

    /// Starts the app as `launch` says, and opens a WebDriver session on its window.
    pub async fn launch(launch: Launch) -> Result<App> {
        let turn = TURN.lock().await;
        let app = paths::app_binary()?;
        let home = match launch.home {
            Some(home) => home,
            None => Home::new()?,
        };
        let mut app_args = Vec::new();
        let config_path = match launch.config {
            LaunchConfig::Write(mut config) => {
                mark_servers(&mut config, &home.marker);
                let path = home.config_path();
                std::fs::write(&path, config.to_string())
                    .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
                app_args.extend(["--config".to_owned(), path.to_string_lossy().into_owned()]);
                path
            }
            LaunchConfig::Existing => {
                let path = home.config_path();
                if !path.is_file() {
                    return Err(Error::Check(format!(
                        "Launch::existing_config: no {} to start with",
                        path.display()
                    )));
                }
                app_args.extend(["--config".to_owned(), path.to_string_lossy().into_owned()]);
                path
            }
            LaunchConfig::Default => home.app_config_dir().join("mcp.json"),
        };
        app_args.extend(launch.args);

        let mut env: Vec<(String, OsString)> = home
            .env()
            .into_iter()
            .map(|(name, dir)| (name.to_owned(), dir.into_os_string()))
            .collect();
        env.extend(launch.env);
        let driver = Driver::start(&env, &home.marker).await?;
        let mut capabilities = serde_json::Map::new();
        capabilities.insert(
            "tauri:options".into(),
            json!({"application": app, "args": app_args}),
        );
        let mut builder = ClientBuilder::native();
        builder.capabilities(capabilities);
        let session = tokio::time::timeout(SESSION_TIMEOUT, builder.connect(driver.url())).await;
        let client = match session {
            Ok(Ok(client)) => client,
            Ok(Err(e)) => {
                eprintln!("e2e: no session; driver output:\n{}", driver.logs.tail(40));
                return Err(e.into());
            }
            Err(_) => {
                return Err(Error::Timeout {
                    what: format!(
                        "a WebDriver session on {}; driver output:\n{}",
                        app.display(),
                        driver.logs.tail(40)
                    ),
                    secs: SESSION_TIMEOUT.as_secs(),
                })
            }
        };
        Ok(App {
            client,
            driver,
            home,
            config_path,
            _turn: turn,
        })
    }

    /// The WebDriver client, for anything the helpers below do not cover.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The `mcp.json` the app was started with (`--config PATH`, or the default path it looked at).
    pub fn config_path(&self) -> &Path {
        &self.config_path
    }

    /// The test's temporary directory (home/, config/, cache/, data/, state/, run/, mcp.json).
    pub fn dir(&self) -> &Path {
        self.home.path()
    }

    /// The test's [`Home`], to start the app again in it ([`Launch::home`]) once this session is closed.
    pub fn home(&self) -> &Arc<Home> {
        &self.home
    }

    /// Waits until an element matches `locator`.
    pub async fn wait_for(&self, locator: Locator<'_>, timeout: Duration) -> Result<Element> {
        self.client()
            .wait()
            .at_most(timeout)
            .every(POLL)
            .for_element(locator)
            .await
            .map_err(|e| match e {
                CmdError::WaitTimeout => Error::Timeout {
                    what: format!("an element matching {locator:?}"),
                    secs: timeout.as_secs(),
                },
                e => e.into(),
            })
    }

    /// Waits until an element matching `locator` has exactly `expected` as its (trimmed) text. The element is
    /// looked up again on each check, since the UI may re-render it.
    pub async fn wait_for_text(
        &self,
        locator: Locator<'_>,
        expected: &str,
        timeout: Duration,
    ) -> Result<Element> {
        let mut last = None;
        let found = tokio::time::timeout(timeout, async {
            loop {
                match self.text_of(locator).await? {
                    Some((element, text)) if text.trim() == expected => return Ok(element),
                    Some((_, text)) => last = Some(text),
                    None => {}
                }
                tokio::time::sleep(POLL).await;
            }
        })
        .await;
        match found {
            Ok(result) => result,
            Err(_) => Err(Error::Timeout {
                what: format!(
                    "{locator:?} to read {expected:?} (last seen: {})",
                    last.map_or_else(|| "no such element".to_owned(), |t| format!("{t:?}"))
                ),
                secs: timeout.as_secs(),
            }),
        }
    }

    /// Waits until `check` returns `Some` (re-checking every 100 ms, each check a few WebDriver round trips), and
    /// returns it. `what` says what was awaited, for the timeout's message; `check` returns `Ok(None)` for "not yet"
    /// (an element missing or being replaced is "not yet": see [`App::text`] and [`App::attr`]).
    pub async fn wait_until<T, F>(&self, what: &str, timeout: Duration, mut check: F) -> Result<T>
    where
        F: AsyncFnMut() -> Result<Option<T>>,
    {
        let found = tokio::time::timeout(timeout, async {
            loop {
                if let Some(value) = check().await? {
                    return Ok(value);
                }
                tokio::time::sleep(POLL).await;
            }
        })
        .await;
        match found {
            Ok(result) => result,
            Err(_) => Err(Error::Timeout {
                what: what.to_owned(),
                secs: timeout.as_secs(),
            }),
        }
    }

    /// The text of the element matching `locator` now, or None while there is none (or it is being replaced).
    pub async fn text(&self, locator: Locator<'_>) -> Result<Option<String>> {
        Ok(self.text_of(locator).await?.map(|(_, text)| text))
    }

    /// An attribute of the element matching `locator` now: None while there is no such element (or it is being
    /// replaced) or it has no such attribute.
    pub async fn attr(&self, locator: Locator<'_>, name: &str) -> Result<Option<String>> {
        let element = match self.client().find(locator).await {
            Ok(element) => element,
            Err(e) if e.is_no_such_element() => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        match element.attr(name).await {
            Ok(value) => Ok(value),
            Err(e) if e.is_stale_element_reference() || e.is_no_such_element() => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// How many elements match `locator` now.
    pub async fn count(&self, locator: Locator<'_>) -> Result<usize> {
        Ok(self.client().find_all(locator).await?.len())
    }

    /// Waits until no element matches `locator`.
    pub async fn wait_gone(&self, locator: Locator<'_>, timeout: Duration) -> Result<()> {
        self.wait_until(
            &format!("no element to match {locator:?}"),
            timeout,
            async || Ok((self.count(locator).await? == 0).then_some(())),
        )
        .await
    }

    /// Scrolls `element` into the middle of its scrolling boxes, as a user would before using it.
    /// WebKitWebDriver scrolls the page but not an inner scrolling pane (the tool form's): an element below the
    /// pane's fold is "not interactable" for it until scrolled to.
    pub async fn scroll_to(&self, element: &Element) -> Result<()> {
        let element = serde_json::to_value(element)
            .map_err(|e| Error::Check(format!("cannot pass an element to a script: {e}")))?;
        self.client()
            .execute(
                r#"arguments[0].scrollIntoView({ block: "center", inline: "nearest" }); return true;"#,
                vec![element],
            )
            .await?;
        Ok(())
    }

    /// Finds the element matching `locator` and acts on it, finding it again when the page re-rendered it between
    /// the two (a stale element: a list reloaded after a server restart), until `timeout`.
    async fn act<F>(
        &self,
        locator: Locator<'_>,
        timeout: Duration,
        mut action: F,
    ) -> Result<Element>
    where
        F: AsyncFnMut(&Element) -> std::result::Result<(), CmdError>,
    {
        let deadline = Instant::now() + timeout;
        loop {
            let element = self.wait_for(locator, timeout).await?;
            let done = match self.scroll_to(&element).await {
                Ok(()) => action(&element).await.map_err(Error::from),
                Err(e) => Err(e),
            };
            match done {
                Ok(()) => return Ok(element),
                Err(Error::WebDriver(e))
                    if (e.is_stale_element_reference() || e.is_no_such_element())
                        && Instant::now() < deadline =>
                {
                    tokio::time::sleep(POLL).await;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Waits for the element matching `locator`, scrolls to it and clicks it.
    pub async fn click(&self, locator: Locator<'_>, timeout: Duration) -> Result<()> {
        self.act(locator, timeout, async |element| {
            element.click().await.map(|_| ())
        })
        .await?;
        Ok(())
    }

    /// Waits for the `<select>` matching `locator`, scrolls to it and picks the option that reads `label`.
    pub async fn choose(&self, locator: Locator<'_>, label: &str, timeout: Duration) -> Result<()> {
        self.act(locator, timeout, async |element| {
            element.select_by_label(label).await
        })
        .await?;
        Ok(())
    }

    /// Waits for the input matching `locator`, scrolls to it, empties it and types `text` (as a user does: key by
    /// key, so the page sees its input events).
    pub async fn fill(
        &self,
        locator: Locator<'_>,
        text: &str,
        timeout: Duration,
    ) -> Result<Element> {
        self.act(locator, timeout, async |element| {
            element.clear().await?;
            if !text.is_empty() {
                element.send_keys(text).await?;
            }
            Ok(())
        })
        .await
    }

    /// The element and its text, or None while it is missing or being replaced.
    async fn text_of(&self, locator: Locator<'_>) -> Result<Option<(Element, String)>> {
        let element = match self.client().find(locator).await {
            Ok(element) => element,
            Err(e) if e.is_no_such_element() => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        match element.text().await {
            Ok(text) => Ok(Some((element, text))),
            Err(e) if e.is_stale_element_reference() || e.is_no_such_element() => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Waits until at least `count` lines of the app's (and its drivers') output contain `needle`.
    pub async fn wait_for_log(&self, needle: &str, count: usize, timeout: Duration) -> Result<()> {
        self.driver.logs.wait_for(needle, count, timeout).await
    }

    /// How many output lines so far contain `needle`.
    pub fn log_count(&self, needle: &str) -> usize {
        self.driver.logs.count(needle)
    }

    /// The last `n` lines of the app's and drivers' output.
    pub fn logs_tail(&self, n: usize) -> String {
        self.driver.logs.tail(n)
    }

    /// Saves a PNG of the window's content to `<target>/screenshots/NAME.png` (for a person to look at), and
    /// returns its path.
    pub async fn screenshot(&self, name: &str) -> Result<PathBuf> {
        let safe: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        // WebKit snapshots what was last painted, and a DOM change is painted at the next frame: without this a
        // screenshot right after a wait can show the page from before the change. Two frames: the first may
        // already be under way when the change lands.
        self.client()
            .execute_async(
                "const done = arguments[arguments.length - 1];\n\
                 requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
                vec![],
            )
            .await?;
        let png = self.client().screenshot().await?;
        if !png.starts_with(b"\x89PNG\r\n\x1a\n") {
            return Err(Error::Check(format!(
                "the screenshot {name:?} is not a PNG"
            )));
        }
        let dir = paths::screenshots_dir();
        std::fs::create_dir_all(&dir)
            .map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
        let path = dir.join(format!("{safe}.png"));
        std::fs::write(&path, png)
            .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
        Ok(path)
    }

    /// Closes the session (WebKitWebDriver then closes the window and the app quits, stopping its servers), ends
    /// the driver's process group, and checks that no process of this test is left.
    pub async fn close(mut self) -> Result<()> {
        let mut first_error = None;
        let marker = self.driver.marker.clone();
        // The pids, taken while the processes are alive: once one has begun to exit its environ is unreadable.
        let known = procs::with_marker(&marker);
        let app: Vec<i32> = known
            .iter()
            .filter(|p| p.comm == "wharf-app")
            .map(|p| p.pid)
            .collect();
        // The client is a handle on a connection task: closing a clone ends the session for all of them.
        match tokio::time::timeout(Duration::from_secs(10), self.client.clone().close()).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => first_error = Some(Error::from(e)),
            Err(_) => {
                first_error = Some(Error::Timeout {
                    what: "the WebDriver session to close".into(),
                    secs: 10,
                })
            }
        }
        let app_left = procs::wait_reaped(&app, APP_EXIT_TIMEOUT).await;
        if !app_left.is_empty() && first_error.is_none() {
            first_error = Some(Error::Timeout {
                what: format!(
                    "the app to quit after its session closed (still there: {app_left:?})"
                ),
                secs: APP_EXIT_TIMEOUT.as_secs(),
            });
        }
        self.driver.shutdown().await;
        let left = procs::wait_all_ended(&marker, &known, LEFTOVER_TIMEOUT).await;
        if !left.is_empty() {
            for proc in &left {
                procs::signal(proc.pid, libc::SIGKILL);
            }
            first_error.get_or_insert(Error::LeftBehind(list(&left)));
        }
        if first_error.is_some() {
            eprintln!(
                "e2e: the driver's and the app's last output:\n{}",
                self.driver.logs.tail(60)
            );
        }
        if std::env::var_os("WHARF_E2E_KEEP").is_some() {
            eprintln!("e2e: kept {}", self.home.path().display());
        }
        first_error.map_or(Ok(()), Err)
    }
}

/// Runs `body` against a freshly started app, then closes it whatever the body returned, and returns the body's
/// error first (a failed close is reported when the body passed). A panic in `body` still ends every process: the
/// driver's `Drop` kills its group.
pub async fn with_app<F>(config: Value, body: F) -> Result<()>
where
    F: AsyncFnOnce(&App) -> Result<()>,
{
    with_launch(Launch::config(config), body).await
}

/// [`with_app`] for an app started as `launch` says (another home, no `--config`, more arguments).
pub async fn with_launch<F>(launch: Launch, body: F) -> Result<()>
where
    F: AsyncFnOnce(&App) -> Result<()>,
{
    let app = App::launch(launch).await?;
    let outcome = body(&app).await;
    if let Err(e) = &outcome {
        eprintln!(
            "e2e: test failed: {e}\n--- the driver's and the app's last output ---\n{}",
            app.logs_tail(60)
        );
    }
    let closed = app.close().await;
    outcome.and(closed)
}

fn list(procs: &[procs::Proc]) -> String {
    procs
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Adds the marker to the `env` of every stdio server (one with a `command`), in both `servers` (VS Code) and
/// `mcpServers` (Claude Desktop) configs.
fn mark_servers(config: &mut Value, marker: &str) {
    for key in ["servers", "mcpServers"] {
        let Some(servers) = config.get_mut(key).and_then(Value::as_object_mut) else {
            continue;
        };
        for server in servers.values_mut() {
            let Some(server) = server.as_object_mut() else {
                continue;
            };
            if !server.contains_key("command") {
                continue;
            }
            let env = server.entry("env").or_insert_with(|| json!({}));
            if let Some(env) = env.as_object_mut() {
                env.insert(MARKER_VAR.into(), Value::String(marker.into()));
            }
        }
    }
}

fn set_mode_0700(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| Error::io(format!("chmod 700 {}", path.display()), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_stdio_servers_only() {
        let mut config = json!({
            "servers": {
                "a": {"command": "node", "args": []},
                "b": {"command": "node", "env": {"X": "1"}},
                "web": {"type": "http", "url": "http://127.0.0.1:1/mcp"}
            },
            "mcpServers": {"c": {"command": "x"}}
        });
        mark_servers(&mut config, "m1");
        assert_eq!(config["servers"]["a"]["env"][MARKER_VAR], "m1");
        assert_eq!(config["servers"]["b"]["env"]["X"], "1");
        assert_eq!(config["servers"]["b"]["env"][MARKER_VAR], "m1");
        assert!(config["servers"]["web"].get("env").is_none());
        assert_eq!(config["mcpServers"]["c"]["env"][MARKER_VAR], "m1");
    }
}
