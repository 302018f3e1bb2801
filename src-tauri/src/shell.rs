//! The shell's life cycle: load the configuration, build the host, open the window, start the servers, forward host
//! events to the webview, and stop every server before the process exits.

use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;
use tauri::{AppHandle, Emitter, Manager, RunEvent};
use wharf_core::broker::{Broker, DeclineAll};
use wharf_core::{Config, ConfigError, EraCache, EventSink, Host, HostEvent, HostOptions};

use crate::smoke::Probe;

/// The Tauri event that carries every `HostEvent`, serialized as the CLI prints it (`{"event": "server_status", ...}`).
pub const HOST_EVENT: &str = "host-event";

/// What the UI shows above the server list: where the configuration came from and what went wrong reading it. A
/// broken configuration never stops the app: the user must be able to see why nothing is listed.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StartupReport {
    pub config_path: String,
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
    /// The UI reports what it rendered (`smoke_rendered`) only in smoke mode.
    pub smoke: bool,
}

pub struct Startup {
    config: Config,
    report: StartupReport,
}

impl Startup {
    /// `explicit` is `--config` or `WHARF_CONFIG`; without it the default path is used, and a missing default file is
    /// the normal first run, not an error.
    pub fn load(explicit: Option<PathBuf>) -> Startup {
        let is_default = explicit.is_none();
        let path = explicit.unwrap_or_else(wharf_core::config::default_config_path);
        let mut report = StartupReport {
            config_path: path.display().to_string(),
            ..StartupReport::default()
        };
        let config = match Config::load(&path) {
            Ok(config) => {
                report.warnings.clone_from(&config.warnings);
                config
            }
            Err(ConfigError::Read { source, .. })
                if is_default && source.kind() == std::io::ErrorKind::NotFound =>
            {
                report.warnings.push(format!(
                    "There is no configuration yet: add servers to {}.",
                    path.display()
                ));
                empty_config(path)
            }
            Err(e) => {
                tracing::error!("cannot load the configuration: {e}");
                report.errors.push(e.to_string());
                empty_config(path)
            }
        };
        for warning in &report.warnings {
            tracing::warn!("{warning}");
        }
        Startup { config, report }
    }
}

fn empty_config(path: PathBuf) -> Config {
    Config {
        path,
        ..Config::default()
    }
}

/// The state every command reaches through `tauri::State`.
pub struct Shell {
    pub host: Arc<Host>,
    pub report: StartupReport,
    pub smoke: Option<Probe>,
}

/// Runs the app until its window closes (or a signal or the smoke test ends it) and returns the exit code.
pub fn run(startup: Startup, smoke: bool) -> Result<i32, tauri::Error> {
    let Startup { config, mut report } = startup;
    report.smoke = smoke;
    let app = tauri::Builder::default()
        .invoke_handler(tauri::generate_handler![
            crate::commands::list_servers,
            crate::commands::restart_server,
            crate::commands::stop_server,
            crate::commands::startup_report,
            crate::commands::smoke_rendered,
        ])
        .setup(move |app| {
            let handle = app.handle().clone();
            let host = Arc::new(new_host(config, handle.clone()));
            let probe = smoke.then(Probe::default);
            app.manage(Shell {
                host: host.clone(),
                report,
                smoke: probe.clone(),
            });
            // A failed setup makes Tauri panic; exit with an error and a log line instead.
            if let Err(e) = crate::window::open(&handle) {
                tracing::error!("cannot open the window: {e}");
                handle.exit(1);
                return Ok(());
            }
            tauri::async_runtime::spawn(start(host, handle.clone(), probe));
            #[cfg(unix)]
            tauri::async_runtime::spawn(exit_on_signal(handle));
            Ok(())
        })
        .build(tauri::generate_context!())?;
    Ok(app.run_return(|handle, event| {
        if let RunEvent::Exit = event {
            shutdown(handle);
        }
    }))
}

fn new_host(config: Config, handle: AppHandle) -> Host {
    let events = EventSink::new(move |event: HostEvent| {
        // Fails only when no webview is left (the app is closing); the host must go on either way.
        if let Err(e) = handle.emit(HOST_EVENT, &event) {
            tracing::debug!("host event not delivered to the UI: {e}");
        }
    });
    // The app's own UserAgent (dialogs) comes later; until then every server-to-user request is declined.
    let broker = Broker::new(Default::default(), Arc::new(DeclineAll));
    let options = HostOptions {
        restart: true,
        eras: Arc::new(EraCache::default_location()),
        ..HostOptions::default()
    };
    Host::new(config, broker, events, options)
}

async fn start(host: Arc<Host>, handle: AppHandle, probe: Option<Probe>) {
    host.start_all().await;
    if let Some(probe) = probe {
        crate::smoke::run(host, handle, probe).await;
    }
}

/// Called once, on the main thread, after the window is gone: no server process may outlive the app.
fn shutdown(handle: &AppHandle) {
    let Some(shell) = handle.try_state::<Shell>() else {
        return;
    };
    tauri::async_runtime::block_on(shell.host.shutdown());
    tracing::info!("all servers stopped");
    if shell.smoke.is_some() {
        crate::smoke::report_shutdown();
    }
}

/// SIGTERM and SIGINT take the same path as closing the window, so the servers are stopped gracefully.
#[cfg(unix)]
async fn exit_on_signal(handle: AppHandle) {
    use tokio::signal::unix::{signal, SignalKind};
    let (mut term, mut int) = match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) {
        (Ok(term), Ok(int)) => (term, int),
        (Err(e), _) | (_, Err(e)) => {
            tracing::warn!("cannot listen for signals: {e}");
            return;
        }
    };
    tokio::select! {
        _ = term.recv() => tracing::info!("SIGTERM: exiting"),
        _ = int.recv() => tracing::info!("SIGINT: exiting"),
    }
    handle.exit(0);
}
