//! The app's life cycle: load the configuration, build the host, open the window, start the servers, forward host
//! events to the webview, and stop every server before the process exits.

use crate::questions::SharedQueue;
use crate::smoke::Probe;
use crate::state::{AppState, WindowSize};
use std::path::PathBuf;
use std::sync::Arc;
use tauri::{AppHandle, Emitter, Manager, RunEvent};
use wharf_core::apps::bridge::Theme;
use wharf_core::auth::TokenStore;
use wharf_core::command_table;
use wharf_core::events::NoticeCode;
use wharf_core::facade::session::{provider_of, SessionChat, SessionViews};
use wharf_core::facade::startup::{Startup, StartupReport};
use wharf_core::facade::{ChatPaths, HostBuilder, Session, SessionParts};
use wharf_core::login_env::{FrontEnd, LoginPath};
use wharf_core::redact::Redactor;
use wharf_core::sampling::prefs::SamplingPrefs;
use wharf_core::sampling::SamplingService;
use wharf_core::workspace::SharedWorkspace;
use wharf_core::workspace::Workspace;
use wharf_core::{Config, EventSink, HostEvent};

use crate::shell::{emit_notice, open_folder, Shell, HOST_EVENT};

/// The invoke handler of every command: the window's own (`command_list`), then wharf-core's window commands.
macro_rules! invoke_handler {
    (
        app: [$($app:ident),*]
        window: [$($name:ident : $args:ty => $output:ty),* $(,)?],
        session: [$($session:tt)*] $(,)?
    ) => {
        tauri::generate_handler![
            $(crate::window_commands::$app,)*
            $(crate::table_commands::$name,)*
        ]
    };
}

/// Runs the app until its window closes (or a signal or the smoke test ends it) and returns the exit code.
pub fn run(
    startup: Startup,
    smoke: bool,
    redactor: Redactor,
    folders: Vec<PathBuf>,
) -> Result<i32, tauri::Error> {
    let Startup {
        config,
        mut report,
        demo,
    } = startup;
    report.smoke = smoke;
    let state = AppState::load(&AppState::default_path());
    report.warnings.extend(state.warning.clone());
    redactor.learn(&config);
    let app = tauri::Builder::default()
        // First: a second launch must reach this instance before anything else starts.
        .plugin(tauri_plugin_single_instance::init(|app, argv, cwd| {
            tracing::info!(?argv, "second launch: focusing the running Wharf");
            // The second launch's folder arguments open here (relative ones against its working directory).
            if let Some(shell) = app.try_state::<Shell>() {
                for arg in argv.iter().skip(1).filter(|a| !a.starts_with('-')) {
                    let path = std::path::Path::new(&cwd).join(arg);
                    if path.is_dir() {
                        open_folder(&shell, &path);
                    }
                }
            }
            crate::window::focus(app);
        }))
        .invoke_handler(all_commands!(invoke_handler))
        .setup(move |app| {
            let handle = app.handle().clone();
            let questions = SharedQueue::default();
            crate::questions::attach(&questions, handle.clone());
            let workspace = load_workspace(&mut report);
            // The configuration may name the workspace folders (`${workspaceFolder}`): read it with them.
            let config = if config.servers.iter().any(|s| s.uses_workspace) && config.path.exists() {
                Config::load_with_workspace(&config.path, &workspace.folders()).unwrap_or(config)
            } else {
                config
            };
            let follow_path = config.path.clone();
            let (sampling, prefs_notice) =
                sampling_service(&config, &mut report, SamplingPrefs::default_path());
            let tokens = TokenStore::os();
            let (chat, chat_notices) = open_chat(&config, &mut report, &ChatPaths::default());
            let parts = SessionParts {
                demo,
                report,
                questions: Some(questions.clone()),
                redactor,
                chat,
                desktop: Box::new(crate::dialogs::Dialogs(handle.clone())),
                views: Some(SessionViews::new(crate::window::APP_ORIGIN, Theme::Light)),
            };
            let session = Arc::new(new_session(
                config,
                handle.clone(),
                questions,
                workspace.clone(),
                sampling,
                tokens,
                parts,
            ));
            let probe = smoke.then(Probe::default);
            let size = state.window_size();
            app.manage(Shell {
                session: session.clone(),
                smoke: probe.clone(),
                state,
            });
            if let Some(shell) = app.try_state::<Shell>() {
                for folder in &folders {
                    open_folder(&shell, folder);
                }
            }
            if let Err(e) = workspace.watch() {
                tracing::warn!("cannot watch the workspace folders ({e}); renames on disk will not be followed");
            }
            // A failed setup makes Tauri panic; exit with an error and a log line instead.
            if let Err(e) = crate::window::open(&handle, size, session.clone()) {
                tracing::error!("cannot open the window: {e}");
                handle.exit(1);
                return Ok(());
            }
            tauri::async_runtime::spawn(start(
                session,
                handle.clone(),
                probe,
                follow_path,
                prefs_notice.into_iter().chain(chat_notices).collect(),
            ));
            #[cfg(unix)]
            tauri::async_runtime::spawn(exit_on_signal(handle));
            Ok(())
        })
        .build(tauri::generate_context!())?;
    Ok(app.run_return(|handle, event| match event {
        RunEvent::WindowEvent {
            event: tauri::WindowEvent::CloseRequested { .. },
            ..
        } => remember_window(handle),
        // Folders dropped on the window open as workspace folders; the webview is not asked.
        RunEvent::WindowEvent {
            event: tauri::WindowEvent::DragDrop(tauri::DragDropEvent::Drop { paths, .. }),
            ..
        } => crate::dropped::dropped(handle, &paths),
        RunEvent::Exit => shutdown(handle),
        _ => {}
    }))
}

/// The sampling service of the app: the user's preferences (`sampling.json`) and the configuration's provider, if
/// any. A preferences file set aside as corrupt, or a provider the file gets wrong, is reported at startup.
fn sampling_service(
    config: &Config,
    report: &mut StartupReport,
    prefs_path: PathBuf,
) -> (Arc<SamplingService>, Option<String>) {
    let (service, notice) = wharf_core::facade::sampling_service(config, prefs_path);
    if let Some(notice) = &notice {
        tracing::warn!("{notice}");
        report.warnings.push(notice.clone());
    }
    if let (_, Some(problem)) = provider_of(config) {
        tracing::warn!("{problem}");
        report.warnings.push(problem);
    }
    (service, notice)
}

/// Chat's grants and conversations. What was set aside on the way, or why chat cannot run at all, is reported at
/// startup as the sampling preferences are.
fn open_chat(
    config: &Config,
    report: &mut StartupReport,
    paths: &ChatPaths,
) -> (SessionChat, Vec<String>) {
    let (chat, notices) = SessionChat::open(config, paths);
    for notice in &notices {
        tracing::warn!("{notice}");
        report.warnings.push(notice.clone());
    }
    (chat, notices)
}

fn new_session(
    config: Config,
    handle: AppHandle,
    questions: SharedQueue,
    workspace: Arc<SharedWorkspace>,
    sampling: Arc<SamplingService>,
    tokens: TokenStore,
    parts: SessionParts,
) -> Session {
    let events = EventSink::new(move |event: HostEvent| {
        // Fails only when no webview is left (the app is closing); the host must go on either way.
        if let Err(e) = handle.emit(HOST_EVENT, &event) {
            tracing::debug!("host event not delivered to the UI: {e}");
        }
    });
    // Questions reach the dialog host through the app's question queue. Sampling is always served: with no provider yet, a
    // request fails with a message that says where to choose one.
    HostBuilder::new(config, questions)
        .workspace(workspace)
        .sampling(sampling)
        .tokens(tokens)
        .restart_servers(true)
        // The window renders tools' views (MCP Apps).
        .apps(true)
        // Read on a thread of its own while the window opens; a server's start waits for it, within its bound.
        .login_path(LoginPath::start_for(FrontEnd::App))
        .session(events, parts)
}

/// The workspace of the last run, from `$XDG_CONFIG_HOME/wharf/workspace.json`; a corrupt file is set aside and
/// reported, and the app starts with no folder open.
fn load_workspace(report: &mut StartupReport) -> Arc<SharedWorkspace> {
    let file = wharf_core::config::config_dir().join("workspace.json");
    let workspace = match Workspace::load(&file) {
        Ok(w) => w,
        Err(e) => {
            let aside = file.with_extension("json.corrupt");
            let _ = std::fs::rename(&file, &aside);
            report.warnings.push(format!(
                "The workspace file was unreadable ({e}); it was moved to {} and no folder is open.",
                aside.display()
            ));
            Workspace::new()
        }
    };
    SharedWorkspace::new(workspace, Some(file))
}

fn remember_window(handle: &AppHandle) {
    let (Some(shell), Some(window)) = (
        handle.try_state::<Shell>(),
        handle.get_webview_window(crate::window::MAIN_WINDOW),
    ) else {
        return;
    };
    if let (Ok(size), Ok(scale)) = (window.inner_size(), window.scale_factor()) {
        let logical = size.to_logical::<f64>(scale);
        shell.state.set_window_size(WindowSize {
            width: logical.width,
            height: logical.height,
        });
    }
}

async fn start(
    session: Arc<Session>,
    handle: AppHandle,
    probe: Option<Probe>,
    config_path: PathBuf,
    notices: Vec<String>,
) {
    // Also banners (the startup report): these events reach the activity log if the window listens already.
    for message in notices {
        emit_notice(&handle, NoticeCode::PreferencesSetAside, message);
    }
    let host = session.host().clone();
    host.start_all().await;
    host.follow_workspace(config_path);
    // In the background: a first message sent meanwhile simply waits for the model, as it would have anyway.
    tauri::async_runtime::spawn(session.chat().warm_up(host.clone()));
    if let Some(probe) = probe {
        crate::smoke::run(host, handle, probe).await;
    }
}

/// Called once, on the main thread, after the window is gone: no server process may outlive the app.
fn shutdown(handle: &AppHandle) {
    let Some(shell) = handle.try_state::<Shell>() else {
        return;
    };
    // Nobody is left to answer: waiting questions are cancelled, running calls end, then the servers stop.
    tauri::async_runtime::block_on(shell.session.shutdown());
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

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> Config {
        Config::parse(std::path::Path::new("/x/mcp.json"), text, &|_| None).expect("parses")
    }

    #[test]
    fn the_sampling_service_takes_the_configured_provider_and_reports_what_it_cannot_use() {
        let dir = tempfile::tempdir().expect("tempdir");
        let prefs = dir.path().join("sampling.json");

        let mut report = StartupReport::default();
        let ok = config(
            r#"{"servers": {}, "sampling": {"provider": {"kind": "openai", "baseUrl": "http://127.0.0.1:9/v1", "model": "m"}}}"#,
        );
        let (service, notice) = sampling_service(&ok, &mut report, prefs.clone());
        assert_eq!(service.provider().map(|p| p.model), Some("m".into()));
        assert!(notice.is_none());
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);

        // No provider: the service is there all the same (a request fails, saying where to choose one).
        let (service, _) =
            sampling_service(&config(r#"{"servers": {}}"#), &mut report, prefs.clone());
        assert!(service.provider().is_none());
        assert!(report.warnings.is_empty());

        // A broken provider is not used, and said why; a corrupt preferences file is set aside and reported.
        std::fs::write(&prefs, "{ not json").expect("write");
        let broken = config(
            r#"{"servers": {}, "sampling": {"provider": {"kind": "gemini", "model": "m"}}}"#,
        );
        let (service, notice) = sampling_service(&broken, &mut report, prefs.clone());
        assert!(service.provider().is_none());
        let notice = notice.expect("the corrupt file is reported");
        assert_eq!(report.warnings.len(), 2, "{:?}", report.warnings);
        assert_eq!(report.warnings[0], notice);
        assert!(
            report.warnings[1].contains("gemini"),
            "{:?}",
            report.warnings
        );
        assert!(
            report.warnings[1].contains("Settings"),
            "{:?}",
            report.warnings
        );
        let aside = std::fs::read_dir(dir.path())
            .expect("list")
            .filter_map(Result::ok)
            .any(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("sampling.json.corrupt")
            });
        assert!(aside, "the corrupt file was not set aside");
    }
}
