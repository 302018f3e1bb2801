//! Where the harness finds what it runs: the app, tauri-driver, WebKitWebDriver, the peer servers. Each can be
//! overridden by an environment variable, so the same tests can drive another build (or the installed package).

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::{Error, Result};

/// The repository root (this crate lives in `tests/e2e`).
pub fn repo_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = here.join("../..");
    root.canonicalize().unwrap_or(root)
}

/// Cargo's target directory: `CARGO_TARGET_DIR` when set (relative to the repository), else `<repo>/target`.
fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => repo_root().join(dir),
        None => repo_root().join("target"),
    }
}

/// Where [`crate::App::screenshot`] saves its PNGs: `<target>/screenshots`.
pub fn screenshots_dir() -> PathBuf {
    target_dir().join("screenshots")
}

/// The app under test: `WHARF_APP_BIN`, else the debug build.
pub(crate) fn app_binary() -> Result<PathBuf> {
    let bin = match std::env::var_os("WHARF_APP_BIN") {
        Some(bin) => PathBuf::from(bin),
        None => target_dir().join("debug/wharf-app"),
    };
    if !bin.is_file() {
        return Err(Error::Setup(format!(
            "no app at {}: build the UI and the app first (make build), or set WHARF_APP_BIN",
            bin.display()
        )));
    }
    // WebKitWebDriver starts the binary from its own working directory: the path must be absolute.
    bin.canonicalize()
        .map_err(|e| Error::io(format!("resolving {}", bin.display()), e))
}

/// The bundled demo server: `WHARF_DEMO_BIN`, else `wharf-demo-server` beside the app under test (where the app
/// itself looks for it on a first run: `target/debug/`, or `/usr/bin` for an installed app).
pub fn demo_server_bin() -> Result<PathBuf> {
    let bin = match std::env::var_os("WHARF_DEMO_BIN") {
        Some(bin) => PathBuf::from(bin),
        None => app_binary()?
            .parent()
            .map(|dir| dir.join("wharf-demo-server"))
            .unwrap_or_else(|| PathBuf::from("wharf-demo-server")),
    };
    if !bin.is_file() {
        return Err(Error::Setup(format!(
            "no demo server at {}: cargo build --workspace --bins (or set WHARF_DEMO_BIN)",
            bin.display()
        )));
    }
    bin.canonicalize()
        .map_err(|e| Error::io(format!("resolving {}", bin.display()), e))
}

/// The config entry for the bundled demo server over stdio ([`demo_server_bin`]).
pub fn demo_server() -> Result<Value> {
    Ok(json!({"command": demo_server_bin()?}))
}

/// `tauri-driver`: `TAURI_DRIVER`, else the PATH, else cargo's bin directory (where `scripts/deps.sh tauri-driver`
/// installs it, and which is often not on a non-login shell's PATH).
pub(crate) fn tauri_driver() -> Result<PathBuf> {
    if let Some(bin) = std::env::var_os("TAURI_DRIVER") {
        return Ok(PathBuf::from(bin));
    }
    let cargo_bin = std::env::var_os("CARGO_HOME")
        .map(|home| PathBuf::from(home).join("bin"))
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo/bin")));
    find_in_path("tauri-driver")
        .or_else(|| {
            cargo_bin
                .map(|dir| dir.join("tauri-driver"))
                .filter(|p| p.is_file())
        })
        .ok_or_else(|| {
            Error::Setup("tauri-driver not found: run `scripts/deps.sh tauri-driver`".into())
        })
}

/// The native driver tauri-driver wraps: `WEBKIT_WEBDRIVER`, else Debian's webkit2gtk-driver.
pub(crate) fn native_driver() -> Result<PathBuf> {
    let bin = std::env::var_os("WEBKIT_WEBDRIVER")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/WebKitWebDriver"));
    if bin.is_file() {
        Ok(bin)
    } else {
        Err(Error::Setup(format!(
            "no WebKitWebDriver at {}: apt-get install webkit2gtk-driver (scripts/deps.sh apt)",
            bin.display()
        )))
    }
}

/// A program the harness runs itself (xvfb-run, dbus-run-session).
pub(crate) fn required_program(name: &str, package: &str) -> Result<PathBuf> {
    find_in_path(name).ok_or_else(|| {
        Error::Setup(format!(
            "{name} not found: apt-get install {package} (scripts/deps.sh apt)"
        ))
    })
}

fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// The config entry for `@modelcontextprotocol/server-everything` over stdio, from the pinned peers
/// (`EVERYTHING_JS`, else `$WHARF_PEERS/npm/...`, `WHARF_PEERS` defaulting to `<repo>/.peers`), run by `NODE` (else
/// `node` from the PATH, resolved here so the app's own PATH does not matter).
pub fn everything_server() -> Result<Value> {
    let script = match std::env::var_os("EVERYTHING_JS") {
        Some(js) => PathBuf::from(js),
        None => std::env::var_os("WHARF_PEERS")
            .map(PathBuf::from)
            .unwrap_or_else(|| repo_root().join(".peers"))
            .join("npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
    };
    if !script.is_file() {
        return Err(Error::Setup(format!(
            "no server-everything at {}: run scripts/deps.sh (or set EVERYTHING_JS)",
            script.display()
        )));
    }
    let node = match std::env::var_os("NODE") {
        Some(node) => PathBuf::from(node),
        None => find_in_path("node")
            .ok_or_else(|| Error::Setup("node not found on the PATH (or set NODE)".into()))?,
    };
    Ok(json!({
        "type": "stdio",
        "command": node,
        "args": [script, "stdio"],
    }))
}
