//! How the app starts: the configuration it runs and what went wrong reading it, and on the first run (no
//! configuration of the user's own) the bundled demo server, so a new user sees a working server at once. A broken
//! configuration never stops the app: the report says why nothing is listed.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::edit::{ConfigDocument, EraChoice, ServerEntry, ServerKind};
use crate::{Config, ConfigError};

/// What the UI shows above the server list: where the configuration came from and what went wrong reading it. A
/// broken configuration never stops the app: the user must be able to see why nothing is listed.
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct StartupReport {
    pub config_path: String,
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
    /// The UI reports what it rendered (`smoke_rendered`) only in smoke mode.
    pub smoke: bool,
}

pub struct Startup {
    pub config: Config,
    pub report: StartupReport,
    /// On first run (no configuration of the user's own): the demo server, written into the user's file with the
    /// first edit so that nothing the user saw disappears.
    pub demo: Option<ServerEntry>,
}

impl Startup {
    /// `explicit` is `--config` or `WHARF_CONFIG`; without it the default path is used, and a missing default file is
    /// the first run: the app opens on the bundled demo server.
    pub fn load(explicit: Option<PathBuf>) -> Startup {
        let is_default = explicit.is_none();
        let path = explicit.unwrap_or_else(crate::config::default_config_path);
        let mut report = StartupReport {
            config_path: path.display().to_string(),
            ..StartupReport::default()
        };
        let mut demo = None;
        let config = match Config::load(&path) {
            Ok(config) => {
                report.warnings.clone_from(&config.warnings);
                config
            }
            Err(ConfigError::Read { source, .. })
                if is_default && source.kind() == std::io::ErrorKind::NotFound =>
            {
                let entry = demo_entry();
                report.warnings.push(format!(
                    "First run: this is Wharf's demo server. Add your own servers (they are saved in {}).",
                    path.display()
                ));
                let config = demo_config(&path, &entry);
                demo = Some(entry);
                config
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
        Startup {
            config,
            report,
            demo,
        }
    }
}

/// The bundled demo server lives beside the app's own executable (`target/*/` in a build, `/usr/bin` installed).
fn demo_entry() -> ServerEntry {
    let command = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("wharf-demo-server")))
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "wharf-demo-server".into());
    ServerEntry {
        name: "demo".into(),
        kind: ServerKind::Stdio,
        command,
        args: Vec::new(),
        env: Default::default(),
        cwd: String::new(),
        url: String::new(),
        headers: Default::default(),
        era: EraChoice::Auto,
    }
}

fn demo_config(path: &Path, entry: &ServerEntry) -> Config {
    let text = serde_json::json!({"servers": {entry.name.clone(): {"command": entry.command}}})
        .to_string();
    Config::parse(path, &text, &|_| None).unwrap_or_else(|_| empty_config(path.to_owned()))
}

fn empty_config(path: PathBuf) -> Config {
    Config {
        path,
        ..Config::default()
    }
}

/// The configuration as a document to edit. On the first run the file does not exist yet: it starts with the demo
/// server the user has been looking at, so nothing they saw disappears with their first edit.
pub fn config_document(
    path: &Path,
    demo: Option<&ServerEntry>,
) -> Result<ConfigDocument, ConfigError> {
    let mut doc = ConfigDocument::load(path)?;
    if let Some(demo) = demo {
        if !path.exists() && doc.entries().is_empty() {
            let _ = doc.upsert(None, demo);
        }
    }
    Ok(doc)
}

/// What runs while the file does not exist: the demo server on the first run, else nothing.
pub fn first_run_config(path: &Path, demo: Option<&ServerEntry>) -> Config {
    match demo {
        Some(demo) => demo_config(path, demo),
        None => empty_config(path.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_run_runs_the_demo_and_the_first_edit_keeps_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("mcp.json");
        let demo = demo_entry();
        let config = first_run_config(&path, Some(&demo));
        assert_eq!(config.servers.len(), 1);
        assert_eq!(config.servers[0].name, "demo");
        assert!(first_run_config(&path, None).servers.is_empty());

        let doc = config_document(&path, Some(&demo)).expect("a document");
        assert_eq!(
            doc.names(),
            ["demo"],
            "the user's first edit starts from what they saw"
        );
        doc.save().expect("saved");
        std::fs::write(&path, r#"{"servers": {}}"#).expect("the user removed it");
        let doc = config_document(&path, Some(&demo)).expect("a document");
        assert!(
            doc.names().is_empty(),
            "once the file exists it is the user's"
        );
    }

    #[test]
    fn a_broken_configuration_is_reported_not_fatal() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("mcp.json");
        std::fs::write(&path, "{ not json").expect("write");
        let startup = Startup::load(Some(path.clone()));
        assert!(startup.config.servers.is_empty());
        assert_eq!(startup.report.errors.len(), 1, "{:?}", startup.report);
        assert!(startup.demo.is_none());
        // A file named explicitly that does not exist is an error too, not a first run.
        let startup = Startup::load(Some(dir.path().join("missing.json")));
        assert_eq!(startup.report.errors.len(), 1, "{:?}", startup.report);
        assert!(startup.demo.is_none());
    }
}
